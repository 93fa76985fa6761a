/*
 * phpcmp review, inside (review*.c): the review's state and what its
 * files share.  review.c: the arguments and the command; review_build.c:
 * the builds (the plan, scripts/build-php.sh or build-commit.sh, --src's
 * commits as patches); review_run.c: the daemon, its API and the runs;
 * review_report.c: the verdict and the report (Markdown, JSON).
 */
#ifndef PHPCMP_REVIEW_H
#define PHPCMP_REVIEW_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "buf.h"
#include "cli.h"
#include "cmdline.h"
#include "clock.h"
#include "model.h"
#include "rmtree.h"

#define REVIEW_MAX_PATCHES 32
#define REVIEW_DEFAULT_COUNT 200000
#define REVIEW_DEFAULT_SETTLE_S 600
#define REVIEW_START_TIMEOUT_S 600      /* a cold start compiles a worker core per build */
#define REVIEW_REDUCE_BUDGET_MS "30000" /* per reduction: executions (400) bound it first */
#define REVIEW_SHOW_BYTES 160           /* an output shown in the report, at most */
#define REVIEW_ASAN_ENOUGH 50           /* memory errors that end the asan sample early */
#define REVIEW_SAMPLES 20               /* mismatches of the asan sample read back ... */
#define REVIEW_SHOWN_SAMPLES 3          /* ... and the shortest shown */

/* One build of the review: the base, a candidate, or one commit of a series. */
struct review_build {
	char name[64];  /* the review's name of the build: base, keys-only, pr@2 */
	char role[16];  /* the daemon's role for it (base, head, cand2 ...) */
	char dname[64]; /* its name on the daemon: name, or LABEL-name on a daemon given with --url */
	int registered; /* added to a --url daemon (POST /api/builds): retired at the end */
	const char *patches[REVIEW_MAX_PATCHES];
	int npatches;             /* every patch up to this commit, in order */
	const char *given_prefix; /* an existing build prefix, nothing to build */
	char prefix[PATH_MAX];
	int candidate; /* index in review.cands; -1 for the base */
	int commit;    /* 1-based commit of a series, 0 for a single build */
};

/* A candidate as given: NAME=PATCH[,PATCH...] or NAME=PREFIX. */
struct review_cand {
	const char *name;
	const char *patches[REVIEW_MAX_PATCHES];
	int npatches;
	const char *prefix;
	int first, nbuilds; /* its builds in review.builds */
};

/* The builds of one daemon and the daemon: the review's release builds, and
 * the asan flavour of the base and each candidate's last build. */
struct review_set {
	const char *what; /* "release", "asan": its builds folder, database and log are named so */
	int asan;
	struct review_build builds[MAX_BUILDS];
	int nbuilds;
	struct proc_daemon d; /* its own (proc.c), or only the URL of --url's */
};

struct review {
	const char *base_spec, *out_path, *work_arg, *state, *cases;
	long count, seed, settle_s, asan_count;
	int json, no_asan;
	/* --url: a running daemon the release builds are registered with (and
	 * retired from at the end unless --keep-builds), its builds folder
	 * where they are built, their names there LABEL-NAME. */
	const char *url, *label_arg;
	int keep_builds;
	char label[48], builds_dir[PATH_MAX];
	struct review_cand cands[MAX_BUILDS];
	int ncands;
	struct review_set rel, asan, *cur; /* cur: the set the daemon calls go to */
	const char *asan_skipped;          /* why there is no asan sample, or NULL */
	char root[PATH_MAX], exe[PATH_MAX], work[PATH_MAX];
	const char *base_source; /* --source for build-php.sh, NULL for the default 8.2.32 */
	/* --src: the repository, --head, the merge base built as the base, the
	 * candidates as given (NAME=REF), and the patch files written for them */
	const char *src, *head_ref;
	char src_base[GITSRC_ID_MAX];
	char *cand_specs[MAX_BUILDS];
	int ncand_specs;
	char src_patches[2 * REVIEW_MAX_PATCHES][PATH_MAX];
	int nsrc_patches;
	pid_t daemon;
	CURL *curl;
	double t0;
	/* what the runs said */
	int64_t run_generated, run_stored, run_phpt, run_measure;
	json_t *generated, *stored, *phpt, *measure, *measurements, *roots, *health;
	json_t *asan_generated, *asan_roots; /* the asan sample's run and roots */
	json_t *asan_samples;                /* a few of its mismatches as run: [{case, results}] */
	json_int_t asan_ran;                 /* cases of the asan sample that ran */
	char *phpt_line, *measure_md;
};

/* What one file of the review calls in another. */
/* review_base.c */
double review_now(void);
void review_say(const struct review *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int review_name_ok(const char *s, size_t n);
int review_is_prefix(const char *path);
json_int_t review_int(json_t *j, const char *key);
json_t *review_get(json_t *j, const char *key);
const char *review_str(json_t *j, const char *key);

/* review_build.c */
int review_plan(struct review *r);
int review_find_root(struct review *r);
int review_make_work(struct review *r);
int review_build_one(struct review *r, struct review_build *b);
int review_src(struct review *r);
void review_src_drop_empty(struct review *r);
void review_plan_asan(struct review *r);

/* review_run.c */
int review_serve(struct review *r);
void review_stop(struct review *r);
json_t *review_json(
    struct review *r, const char *method, const char *path, const char *body, long want, long want2);
int review_attach(struct review *r);
int review_register(struct review *r);
void review_retire(struct review *r);
int review_roles(struct review *r);
int review_run_all(struct review *r);
json_int_t review_memory_errors(const struct review *r, const char *name);
int review_run_asan(struct review *r);

/* review_report.c */
int review_verdict(const struct review *r);
int review_write(const struct review *r);
int review_keep(struct review *r, int verdict);

#endif
