/*
 * phpcmp review: a pull request's verdict in one command (docs/review.md).
 *
 *   phpcmp review --base 8.2.32 --candidate pr=0001-a.patch,0002-b.patch \
 *                 --candidate keys-only=keys.patch [--count N] [--out F] [--json]
 *   phpcmp review --src ~/php-src --base REF --head REF [--candidate NAME=REF] ...
 *
 * With --src (a php-src git repository, only read: gitsrc.c and
 * scripts/build-commit.sh), the base is the merge base of --base and --head,
 * built from its tree, and the candidate `head` is the series of the
 * commits of base..head (first-parent), each commit's diff a patch named
 * after its subject: a build per commit, as for patches given.
 * 1. builds the base and every candidate with scripts/build-php.sh (cached;
 *    a series of patches is a build per prefix: pr@1, pr@2 ...), its
 *    progress on the terminal;
 * 2. serves them on a daemon of its own (this executable's `serve`, on a
 *    free loopback port, with a database in the review's work folder);
 * 3. runs the generated corpus, the stored cases, php-src's ext/json/tests
 *    and the measure workloads on every build, and waits for the reducer;
 * 4. runs each root cause's minimal case once more on every build: a
 *    series' root belongs to the first commit that shows it;
 * 5. writes one Markdown report shaped as a pull-request comment (or the
 *    same as JSON) and stops its daemon.
 *
 * Exit 0: every candidate gives the base's outputs and test results; 1: a
 * difference; 2: an error (said on stderr; the work folder is kept).
 * What it knows of the daemon is its HTTP API, like any client's.
 */
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
#define REVIEW_START_TIMEOUT_S 600 /* a cold start compiles a worker core per build */
#define REVIEW_SHOW_BYTES 160      /* an output shown in the report, at most */
#define REVIEW_ASAN_ENOUGH 50      /* memory errors that end the asan sample early */
#define REVIEW_SAMPLES 20          /* mismatches of the asan sample read back ... */
#define REVIEW_SHOWN_SAMPLES 3     /* ... and the shortest shown */

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
	pid_t daemon;
	char url[128], log_path[PATH_MAX + 32];
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

static double review_now(void)
{
	return clock_ms() / 1000.0;
}

/* Progress on the terminal: elapsed seconds since the start, then what. */
static void review_say(const struct review *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void review_say(const struct review *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "review [%6.1f s] ", review_now() - r->t0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void review_usage(FILE *f)
{
	fputs("usage: phpcmp review --base SPEC --candidate NAME=PATCH[,PATCH...] [options]\n"
	      "       phpcmp review --src REPO --base REF --head REF [--candidate NAME=REF] [options]\n"
	      "\n"
	      "Builds the base and each candidate, runs the generated corpus, the stored\n"
	      "cases, php-src's ext/json/tests and the measure workloads on all of them on a\n"
	      "daemon of its own, and writes the verdict as a pull-request comment\n"
	      "(Markdown).  Exit 0: every candidate the same as the base; 1: differences;\n"
	      "2: an error.  docs/review.md.\n"
	      "\n"
	      "  --base SPEC           8.2.32 (php-src 8.2.32, the source scripts/build-php.sh\n"
	      "                        fetches), a php-src source (tarball or folder), or an\n"
	      "                        existing build prefix (then candidates are prefixes too)\n"
	      "  --candidate NAME=P[,P...]  patches applied in order over the base's source\n"
	      "                        (repeatable); several patches are a series: a build per\n"
	      "                        commit, NAME@1 .. NAME@k, each root traced to the first\n"
	      "                        commit that shows it.  NAME=PREFIX: an existing build\n"
	      "  --src REPO            a php-src git repository (checkout or bare), only read:\n"
	      "                        the base is the merge base of --base REF and --head REF,\n"
	      "                        the candidate `head` every commit of base..head\n"
	      "                        (first-parent), a build each; --candidate NAME=REF is\n"
	      "                        that commit, one build (scripts/build-commit.sh)\n"
	      "  --head REF            with --src: the pull request's head\n"
	      "  --count N             generated cases (200000)\n"
	      "  --seed S              the generated corpus' seed (1)\n"
	      "  --asan-count N        generated cases on the asan flavour of the base and each\n"
	      "                        candidate's last build, for memory errors (--count / 10)\n"
	      "  --no-asan             no asan builds and no memory-error sample\n"
	      "  --settle S            seconds to wait for the reducer at most (600)\n"
	      "  --out FILE            write the report there (default: standard output)\n"
	      "  --json                the report as JSON instead of Markdown\n"
	      "  --work DIR            keep the review's folder (database, daemon log, build\n"
	      "                        links) there; default a temporary one, removed after\n"
	      "  --state DIR           compiled worker cores, shared with `phpcmp serve` (state)\n"
	      "  --cases DIR           stored cases (cases)\n"
	      "  --url URL             review on a running daemon instead (the team's): the\n"
	      "                        builds are made in its builds folder (GET /api/builds;\n"
	      "                        it must be on this machine), registered as LABEL-NAME,\n"
	      "                        its runs and roots stay there for triage, the builds\n"
	      "                        are retired at the end.  $PHPCMP_TOKEN is sent when set\n"
	      "  --label LABEL         the builds' prefix on that daemon (review; another one\n"
	      "                        for reviews at the same time on one daemon)\n"
	      "  --keep-builds         leave them registered (their workers keep running)\n"
	      "At most 8 builds in all (the base, and each candidate's commits).\n",
	    f);
}

/* ---- arguments ---- */

static int review_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 40)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		        (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

static int review_is_prefix(const char *path)
{
	char lib[PATH_MAX];
	struct stat st;

	return snprintf(lib, sizeof lib, "%s/lib", path) < (int)sizeof lib && stat(lib, &st) == 0 &&
	    S_ISDIR(st.st_mode);
}

static int review_add_candidate(struct review *r, char *spec)
{
	char *eq = strchr(spec, '='), *item, *save = NULL;
	struct review_cand *c;
	struct stat st;

	if (eq == NULL || !review_name_ok(spec, (size_t)(eq - spec)) || eq[1] == '\0')
		return cmd_error("review",
		    "--candidate %s: expected NAME=PATCH[,PATCH...] or NAME=PREFIX "
		    "(NAME: letters, digits, . _ -, at most 40)",
		    spec);
	if (r->ncands == MAX_BUILDS - 1)
		return cmd_error("review", "--candidate: at most %d candidates", MAX_BUILDS - 1);
	c = &r->cands[r->ncands];
	*eq = '\0';
	c->name = spec;
	for (int i = 0; i < r->ncands; i++)
		if (strcmp(r->cands[i].name, c->name) == 0)
			return cmd_error("review", "--candidate %s: the name is taken", c->name);
	if (strcmp(c->name, "base") == 0)
		return cmd_error("review", "--candidate base: the name is the base's");
	for (item = strtok_r(eq + 1, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		if (stat(item, &st) < 0)
			return cmd_error("review", "--candidate %s: %s: %s", c->name, item, strerror(errno));
		if (S_ISDIR(st.st_mode)) {
			if (!review_is_prefix(item) || c->npatches > 0 || c->prefix != NULL)
				return cmd_error("review",
				    "--candidate %s: %s is a folder but not a build prefix "
				    "(lib/libphp.so), or not alone",
				    c->name, item);
			c->prefix = item;
			continue;
		}
		if (c->prefix != NULL || c->npatches == REVIEW_MAX_PATCHES)
			return cmd_error("review", "--candidate %s: a prefix alone, or at most %d patches",
			    c->name, REVIEW_MAX_PATCHES);
		c->patches[c->npatches++] = item;
	}
	if (c->npatches == 0 && c->prefix == NULL)
		return cmd_error("review", "--candidate %s: no patch", c->name);
	r->ncands++;
	return 0;
}

static int review_parse(struct review *r, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			review_usage(stdout);
			exit(0);
		} else if (strcmp(a, "--json") == 0) {
			r->json = 1;
			continue;
		} else if (strcmp(a, "--no-asan") == 0) {
			r->no_asan = 1;
			continue;
		} else if (strcmp(a, "--keep-builds") == 0) {
			r->keep_builds = 1;
			continue;
		} else if (v == NULL) {
			return cmd_error("review",
			    "%s: unknown option, or its value is missing (phpcmp review --help)", a);
		} else if (strcmp(a, "--base") == 0) {
			r->base_spec = v;
		} else if (strcmp(a, "--candidate") == 0) {
			/* read once --src is known: patches, or commits */
			if (r->ncand_specs == MAX_BUILDS - 1)
				return cmd_error(
				    "review", "--candidate: at most %d candidates", MAX_BUILDS - 1);
			r->cand_specs[r->ncand_specs++] = argv[i + 1];
		} else if (strcmp(a, "--src") == 0) {
			r->src = v;
		} else if (strcmp(a, "--head") == 0) {
			r->head_ref = v;
		} else if (strcmp(a, "--count") == 0) {
			if (cmd_long("review", a, v, 1, 10000000, &r->count) < 0)
				return -1;
		} else if (strcmp(a, "--asan-count") == 0) {
			if (cmd_long("review", a, v, 1, 10000000, &r->asan_count) < 0)
				return -1;
		} else if (strcmp(a, "--seed") == 0) {
			if (cmd_long("review", a, v, 0, LONG_MAX, &r->seed) < 0)
				return -1;
		} else if (strcmp(a, "--settle") == 0) {
			if (cmd_long("review", a, v, 0, 86400, &r->settle_s) < 0)
				return -1;
		} else if (strcmp(a, "--out") == 0) {
			r->out_path = v;
		} else if (strcmp(a, "--work") == 0) {
			r->work_arg = v;
		} else if (strcmp(a, "--state") == 0) {
			r->state = v;
		} else if (strcmp(a, "--cases") == 0) {
			r->cases = v;
		} else if (strcmp(a, "--url") == 0) {
			if (strncmp(v, "http://", 7) != 0 || strlen(v) >= sizeof r->rel.url)
				return cmd_error("review", "--url %s: expected http://HOST:PORT", v);
			r->url = v;
		} else if (strcmp(a, "--label") == 0) {
			if (!review_name_ok(v, strlen(v)))
				return cmd_error("review", "--label %s: 1 to 40 of A-Z a-z 0-9 . _ -", v);
			r->label_arg = v;
		} else {
			return cmd_error("review", "%s: unknown option (phpcmp review --help)", a);
		}
		i++;
	}
	if (r->base_spec == NULL)
		return cmd_error("review",
		    r->src != NULL ? "--base: required (a commit of --src)"
		                   : "--base: required (8.2.32, a php-src source, or a build prefix)");
	if ((r->src == NULL) != (r->head_ref == NULL))
		return cmd_error("review", "--src REPO and --head REF go together");
	for (int c = 0; c < r->ncand_specs && r->src == NULL; c++)
		if (review_add_candidate(r, r->cand_specs[c]) < 0)
			return -1;
	if (r->ncands == 0 && r->src == NULL)
		return cmd_error("review", "--candidate: at least one");
	if (r->asan_count == 0)
		r->asan_count = r->count / 10 > 0 ? r->count / 10 : 1;
	return 0;
}

/* The builds: the base, then each candidate's, a series a build per commit. */
static int review_plan(struct review *r)
{
	struct stat st;
	int base_is_prefix = r->src == NULL && review_is_prefix(r->base_spec);
	struct review_build *b = &r->cur->builds[0];

	if (r->src == NULL && !base_is_prefix && strcmp(r->base_spec, "8.2.32") != 0) {
		if (stat(r->base_spec, &st) < 0)
			return cmd_error("review",
			    "--base %s: neither 8.2.32 (the source this machine fetches), a "
			    "php-src source (tarball or folder) nor a build prefix: %s",
			    r->base_spec, strerror(errno));
		r->base_source = r->base_spec;
	}
	snprintf(b->name, sizeof b->name, "base");
	b->candidate = -1;
	b->given_prefix = base_is_prefix ? r->base_spec : NULL;
	r->cur->nbuilds = 1;
	for (int c = 0; c < r->ncands; c++) {
		struct review_cand *k = &r->cands[c];
		int commits = k->prefix != NULL ? 1 : k->npatches;

		if (base_is_prefix && k->prefix == NULL)
			return cmd_error("review",
			    "--candidate %s: patches need the base's source, and --base %s is "
			    "a build prefix (give --base 8.2.32 or a source)",
			    k->name, r->base_spec);
		if (r->cur->nbuilds + commits > MAX_BUILDS)
			return cmd_error("review",
			    "%d builds: at most %d in all (the base and each candidate's commits)",
			    r->cur->nbuilds + commits, MAX_BUILDS);
		k->first = r->cur->nbuilds;
		k->nbuilds = commits;
		for (int i = 0; i < commits; i++) {
			b = &r->cur->builds[r->cur->nbuilds++];
			b->candidate = c;
			b->given_prefix = k->prefix;
			b->commit = commits > 1 ? i + 1 : 0;
			if (commits > 1)
				snprintf(b->name, sizeof b->name, "%s@%d", k->name, i + 1);
			else
				snprintf(b->name, sizeof b->name, "%s", k->name);
			for (int p = 0; p <= i && k->prefix == NULL; p++)
				b->patches[b->npatches++] = k->patches[p];
		}
	}
	for (int i = 0; i < r->cur->nbuilds; i++) /* the same arrays' sizes: a copy */
		memcpy(r->cur->builds[i].dname, r->cur->builds[i].name, sizeof r->cur->builds[i].dname);
	return 0;
}

/* ---- processes ---- */

/* Run argv with standard output sent to stderr (the report owns stdout) or
 * to log; returns the child's pid, or -1. */
static pid_t review_spawn(char *const argv[], const char *log, char *const envp[])
{
	pid_t pid = fork();

	if (pid < 0) {
		cmd_error("review", "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (log != NULL) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(127);
		} else if (dup2(2, 1) < 0) {
			_exit(127);
		}
		if (envp != NULL)
			execve(argv[0], argv, envp);
		else
			execv(argv[0], argv);
		fprintf(stderr, "phpcmp review: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int review_wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Where this executable and the project's scripts are: build/phpcmp's parent
 * folder's parent, or $PHPCMP_ROOT. */
static int review_find_root(struct review *r)
{
	char tmp[PATH_MAX], script[PATH_MAX + 32];
	const char *env = getenv("PHPCMP_ROOT");
	ssize_t n = readlink("/proc/self/exe", r->exe, sizeof r->exe - 1);
	struct stat st;

	if (n <= 0)
		return cmd_error("review", "/proc/self/exe: %s", strerror(errno));
	r->exe[n] = '\0';
	if (env != NULL && *env) {
		snprintf(r->root, sizeof r->root, "%s", env);
	} else {
		/* build/phpcmp or build/sanitize/phpcmp: the first parent with scripts/ */
		snprintf(tmp, sizeof tmp, "%s", r->exe);
		for (int up = 0; up < 3; up++) {
			snprintf(r->root, sizeof r->root, "%s", dirname(tmp));
			snprintf(tmp, sizeof tmp, "%s", r->root);
			snprintf(script, sizeof script, "%s/scripts/build-php.sh", r->root);
			if (stat(script, &st) == 0)
				break;
		}
	}
	snprintf(script, sizeof script, "%s/scripts/build-php.sh", r->root);
	if (stat(script, &st) < 0)
		return cmd_error(
		    "review", "%s: not found (set PHPCMP_ROOT to phpcmp's source folder)", script);
	return 0;
}

static int review_make_work(struct review *r)
{
	if (r->work_arg != NULL) {
		if (mkdir(r->work_arg, 0700) < 0 && errno != EEXIST)
			return cmd_error("review", "--work %s: %s", r->work_arg, strerror(errno));
		if (realpath(r->work_arg, r->work) == NULL)
			return cmd_error("review", "--work %s: %s", r->work_arg, strerror(errno));
		return 0;
	}
	const char *tmpdir = getenv("TMPDIR");
	snprintf(r->work, sizeof r->work, "%s/phpcmp-review-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (mkdtemp(r->work) == NULL)
		return cmd_error("review", "%s: %s", r->work, strerror(errno));
	return 0;
}

/* scripts/build-php.sh for one build, its own progress on the terminal. */
static int review_build_one(struct review *r, struct review_build *b)
{
	char script[PATH_MAX + 32], builds[PATH_MAX + 16], link[PATH_MAX + 96];
	char *argv[14 + 2 * REVIEW_MAX_PATCHES];
	int n = 0, rc;
	double t = review_now();
	pid_t pid;
	const char *flavour = r->cur->asan ? " (asan)" : "";

	if (b->given_prefix != NULL) {
		if (realpath(b->given_prefix, b->prefix) == NULL)
			return cmd_error("review", "%s: %s: %s", b->name, b->given_prefix, strerror(errno));
		review_say(r, "%s: the build prefix %s", b->name, b->prefix);
		return 0;
	}
	snprintf(script, sizeof script, "%s/scripts/%s", r->root,
	    r->src != NULL ? "build-commit.sh" : "build-php.sh");
	/* On a --url daemon: in its builds folder, the one place it takes builds from. */
	if (r->url != NULL && !r->cur->asan)
		snprintf(builds, sizeof builds, "%s", r->builds_dir);
	else
		snprintf(builds, sizeof builds, "%s/builds-%s", r->work, r->cur->what);
	argv[n++] = (char *)"/bin/bash";
	argv[n++] = script;
	if (r->src != NULL) { /* the merge base's source, then build-php.sh's arguments */
		argv[n++] = (char *)"--src";
		argv[n++] = (char *)r->src;
		argv[n++] = (char *)"--base";
		argv[n++] = r->src_base;
	}
	argv[n++] = (char *)"--name";
	argv[n++] = b->dname;
	argv[n++] = (char *)"--builds";
	argv[n++] = builds;
	if (r->base_source != NULL) {
		argv[n++] = (char *)"--source";
		argv[n++] = (char *)r->base_source;
	}
	if (r->cur->asan) {
		argv[n++] = (char *)"--flavour";
		argv[n++] = (char *)"asan";
	}
	for (int i = 0; i < b->npatches; i++) {
		argv[n++] = (char *)"--patch";
		argv[n++] = (char *)b->patches[i];
	}
	argv[n] = NULL;
	review_say(
	    r, "building %s%s (%d patch%s)", b->name, flavour, b->npatches, b->npatches == 1 ? "" : "es");
	if ((pid = review_spawn(argv, NULL, NULL)) < 0)
		return -1;
	if ((rc = review_wait_child(pid)) != 0)
		return cmd_error("review",
		    "building %s failed (scripts/build-php.sh exited %d; its output is above)", b->name, rc);
	snprintf(link, sizeof link, "%s/%s", builds, b->dname);
	if (realpath(link, b->prefix) == NULL)
		return cmd_error("review", "%s: %s", link, strerror(errno));
	review_say(r, "%s%s built in %.1f s: %s", b->name, flavour, review_now() - t, b->prefix);
	return 0;
}

/* ---- --src: a php-src repository's commits as patches ---- */

/* The diff from..to (scripts/build-commit.sh --diff: what libphp is made of)
 * into a patch file named after to's subject, under the work folder's
 * patches/DIR: its path (kept in the review), or NULL (said). */
static const char *review_src_patch(
    struct review *r, const char *dir, int nth, const char *from, const char *to)
{
	char script[PATH_MAX + 32], folder[PATH_MAX + 80], subject[200], slug[56];
	char *path, *argv[12];
	size_t n = 0;
	int rc;

	if (r->nsrc_patches == (int)(sizeof r->src_patches / sizeof r->src_patches[0])) {
		cmd_error("review", "at most %d commits in all", REVIEW_MAX_PATCHES);
		return NULL;
	}
	/* git format-patch's name: the subject's letters and digits, '-' between */
	gitsrc_subject(r->src, to, subject, sizeof subject);
	for (const char *s = subject; *s && n < sizeof slug - 1; s++) {
		int ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    *s == '.' || *s == '_';
		if (ok)
			slug[n++] = *s;
		else if (n > 0 && slug[n - 1] != '-')
			slug[n++] = '-';
	}
	while (n > 0 && (slug[n - 1] == '-' || slug[n - 1] == '.'))
		n--;
	slug[n] = '\0';
	snprintf(folder, sizeof folder, "%s/patches", r->work);
	if (mkdir(folder, 0700) < 0 && errno != EEXIST) {
		cmd_error("review", "%s: %s", folder, strerror(errno));
		return NULL;
	}
	snprintf(folder, sizeof folder, "%s/patches/%s", r->work, dir);
	if (mkdir(folder, 0700) < 0 && errno != EEXIST) {
		cmd_error("review", "%s: %s", folder, strerror(errno));
		return NULL;
	}
	path = r->src_patches[r->nsrc_patches];
	if (snprintf(path, PATH_MAX, "%s/%04d-%s.patch", folder, nth, n > 0 ? slug : "commit") >= PATH_MAX) {
		cmd_error("review", "%s: a path too long", folder);
		return NULL;
	}
	snprintf(script, sizeof script, "%s/scripts/build-commit.sh", r->root);
	n = 0;
	argv[n++] = (char *)"/bin/bash";
	argv[n++] = script;
	argv[n++] = (char *)"--src";
	argv[n++] = (char *)r->src;
	argv[n++] = (char *)"--diff";
	argv[n++] = (char *)from;
	argv[n++] = (char *)to;
	argv[n++] = (char *)"--out";
	argv[n++] = path;
	argv[n] = NULL;
	pid_t pid = review_spawn(argv, NULL, NULL);
	if (pid < 0)
		return NULL;
	if ((rc = review_wait_child(pid)) != 0) {
		cmd_error("review", "scripts/build-commit.sh --diff %.12s %.12s exited %d", from, to, rc);
		return NULL;
	}
	r->nsrc_patches++;
	return path;
}

/* --src: the merge base, the series `head` of base..head and each
 * --candidate NAME=REF as one patch from the merge base. */
static int review_src(struct review *r)
{
	char base[GITSRC_ID_MAX], head[GITSRC_ID_MAX], id[GITSRC_ID_MAX];
	struct gitsrc_list l = { NULL, 0 };
	struct review_cand *c;
	const char *prev;
	int rc = -1;

	if (gitsrc_check(r->src) < 0 || gitsrc_commit(r->src, r->base_spec, base) < 0 ||
	    gitsrc_commit(r->src, r->head_ref, head) < 0 ||
	    gitsrc_merge_base(r->src, base, head, r->src_base) < 0)
		return -1;
	if (strcmp(base, r->src_base) != 0)
		review_say(r, "the merge base of %s and %s: %.12s", r->base_spec, r->head_ref, r->src_base);
	if (gitsrc_range(r->src, r->src_base, head, NULL, 0, &l) < 0)
		return -1;
	if (l.n == 0) {
		cmd_error("review", "no commit in %.12s..%s: nothing to review", r->src_base, r->head_ref);
		goto out;
	}
	if (l.n > MAX_BUILDS - 1 - (size_t)r->ncand_specs) {
		cmd_error("review",
		    "%zu commits in %.12s..%s and %d more candidates: at most %d builds in all (the "
		    "base and each commit); review a shorter range, or bisect it (phpcmp bisect)",
		    l.n, r->src_base, r->head_ref, r->ncand_specs, MAX_BUILDS);
		goto out;
	}
	review_say(r, "%zu commit%s in %.12s..%.12s (first-parent): a build each", l.n, l.n == 1 ? "" : "s",
	    r->src_base, head);
	c = &r->cands[r->ncands++];
	c->name = "head";
	prev = r->src_base;
	for (size_t i = 0; i < l.n; i++) {
		if ((c->patches[c->npatches] = review_src_patch(r, "head", (int)i + 1, prev, l.ids[i])) ==
		    NULL)
			goto out;
		c->npatches++;
		prev = l.ids[i];
	}
	for (int k = 0; k < r->ncand_specs; k++) {
		char *spec = r->cand_specs[k], *eq = strchr(spec, '=');

		if (eq == NULL || !review_name_ok(spec, (size_t)(eq - spec)) || eq[1] == '\0') {
			cmd_error("review",
			    "--candidate %s: expected NAME=REF with --src (NAME: letters, digits, . _ -, at most 40)",
			    spec);
			goto out;
		}
		*eq = '\0';
		for (int j = 0; j < r->ncands; j++)
			if (strcmp(r->cands[j].name, spec) == 0 || strcmp(spec, "base") == 0) {
				cmd_error("review",
				    "--candidate %s: the name is taken (base, head: the series)", spec);
				goto out;
			}
		if (gitsrc_commit(r->src, eq + 1, id) < 0)
			goto out;
		c = &r->cands[r->ncands++];
		c->name = spec;
		if ((c->patches[0] = review_src_patch(r, spec, 1, r->src_base, id)) == NULL)
			goto out;
		c->npatches = 1;
	}
	rc = 0;
out:
	gitsrc_list_release(&l);
	return rc;
}

/* --src: a commit that changes nothing libphp is made of (an empty diff) is
 * no patch: its build is its parent's (build-php.sh would build a patch
 * that touches nothing in full). */
static void review_src_drop_empty(struct review *r)
{
	for (int i = 0; i < r->rel.nbuilds; i++) {
		struct review_build *b = &r->rel.builds[i];
		int kept = 0;
		struct stat st;

		for (int p = 0; p < b->npatches; p++)
			if (stat(b->patches[p], &st) == 0 && st.st_size > 0)
				b->patches[kept++] = b->patches[p];
		b->npatches = kept;
	}
}

/* The folder of ext/json/tests (scripts/php-tests.sh extracts it, cached). */
static int review_phpt_dir(struct review *r, char *out, size_t size)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof cmd, "'%s/scripts/php-tests.sh'", r->root);
	if ((p = popen(cmd, "r")) == NULL)
		return cmd_error("review", "scripts/php-tests.sh: %s", strerror(errno));
	n = fread(out, 1, size - 32, p);
	if (pclose(p) != 0 || n == 0)
		return cmd_error(
		    "review", "scripts/php-tests.sh failed: php-src's ext/json/tests are not there");
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		out[--n] = '\0';
	strcat(out, "/ext/json/tests");
	return 0;
}

/* Start `phpcmp serve` on a free loopback port; its URL from its log. */
/* Wait for the daemon's "serving http://..." line in its log: its URL
 * (it listens on a port of the kernel's choice). */
static int review_serve_ready(struct review *r)
{
	for (double until = review_now() + REVIEW_START_TIMEOUT_S; review_now() < until;) {
		char line[1024];
		FILE *f = fopen(r->cur->log_path, "r");
		int status;

		while (f != NULL && fgets(line, sizeof line, f) != NULL) {
			char *s = strstr(line, "serving http://");
			if (s != NULL) {
				char *end = strchr(s + 8, '/');
				end = end != NULL ? strchr(end + 2, '/') : NULL;
				if (end != NULL && end - (s + 8) < (long)sizeof r->cur->url - 1) {
					snprintf(r->cur->url, sizeof r->cur->url, "%.*s",
					    (int)(end - (s + 8)), s + 8);
					fclose(f);
					review_say(r, "daemon ready at %s", r->cur->url);
					return 0;
				}
			}
		}
		if (f != NULL)
			fclose(f);
		if (waitpid(r->cur->daemon, &status, WNOHANG) == r->cur->daemon) {
			r->cur->daemon = 0;
			return cmd_error(
			    "review", "the daemon stopped at its start (its log: %s)", r->cur->log_path);
		}
		usleep(100 * 1000);
	}
	return cmd_error("review", "the daemon did not start within %d s (its log: %s)",
	    REVIEW_START_TIMEOUT_S, r->cur->log_path);
}

static int review_serve(struct review *r)
{
	char db[PATH_MAX + 16], state[PATH_MAX + 16], core[PATH_MAX + 16], worker[PATH_MAX + 16];
	char web[PATH_MAX + 16], cases[PATH_MAX + 16], exe_dir[PATH_MAX], phpt[PATH_MAX],
	    phpt_env[PATH_MAX + 32];
	char builds[MAX_BUILDS][PATH_MAX + 80];
	char *argv[40 + 2 * MAX_BUILDS];
	char **envp;
	int n = 0, nenv = 0;
	extern char **environ;

	if (review_phpt_dir(r, phpt, sizeof phpt) < 0)
		return -1;
	snprintf(exe_dir, sizeof exe_dir, "%s", r->exe);
	snprintf(db, sizeof db, "%s/%s.db", r->work, r->cur->asan ? "asan" : "phpcmp");
	snprintf(state, sizeof state, "%s", r->state != NULL ? r->state : "");
	if (r->state == NULL)
		snprintf(state, sizeof state, "%s/state", r->root);
	if (mkdir(state, 0755) < 0 && errno != EEXIST)
		return cmd_error("review", "%s: %s", state, strerror(errno));
	snprintf(core, sizeof core, "%s/server/core", r->root);
	snprintf(worker, sizeof worker, "%s/phpcmp-worker", dirname(exe_dir));
	snprintf(web, sizeof web, "%s/web", r->root);
	if (r->cases != NULL)
		snprintf(cases, sizeof cases, "%s", r->cases);
	else
		snprintf(cases, sizeof cases, "%s/cases", r->root);
	snprintf(r->cur->log_path, sizeof r->cur->log_path, "%s/%sdaemon.log", r->work,
	    r->cur->asan ? "asan-" : "");
	argv[n++] = r->exe;
	argv[n++] = (char *)"serve";
	argv[n++] = (char *)"--listen";
	argv[n++] = (char *)"127.0.0.1";
	argv[n++] = (char *)"--port";
	argv[n++] = (char *)"0";
	argv[n++] = (char *)"--db";
	argv[n++] = db;
	argv[n++] = (char *)"--state";
	argv[n++] = state;
	argv[n++] = (char *)"--core-src";
	argv[n++] = core;
	argv[n++] = (char *)"--worker";
	argv[n++] = worker;
	argv[n++] = (char *)"--web";
	argv[n++] = web;
	argv[n++] = (char *)"--cases";
	argv[n++] = cases;
	for (int i = 0; i < r->cur->nbuilds; i++) {
		snprintf(
		    builds[i], sizeof builds[i], "%s=%s", r->cur->builds[i].name, r->cur->builds[i].prefix);
		argv[n++] = (char *)"--build";
		argv[n++] = builds[i];
	}
	argv[n] = NULL;
	/* the environment, with the phpt folder the daemon serves by default */
	while (environ[nenv] != NULL)
		nenv++;
	if ((envp = calloc((size_t)nenv + 2, sizeof *envp)) == NULL)
		return cmd_error("review", "out of memory");
	snprintf(phpt_env, sizeof phpt_env, "PHPCMP_PHPT_DIR=%s", phpt);
	n = 0;
	for (int i = 0; i < nenv; i++)
		if (strncmp(environ[i], "PHPCMP_PHPT_DIR=", 16) != 0)
			envp[n++] = environ[i];
	envp[n++] = phpt_env;
	envp[n] = NULL;
	review_say(r, "starting a daemon of %d %s builds (its log: %s)", r->cur->nbuilds, r->cur->what,
	    r->cur->log_path);
	r->cur->daemon = review_spawn(argv, r->cur->log_path, envp);
	free(envp);
	if (r->cur->daemon < 0)
		return -1;
	return review_serve_ready(r);
}

static void review_stop(struct review *r)
{
	if (r->cur->daemon <= 0)
		return;
	kill(r->cur->daemon, SIGTERM);
	for (int i = 0; i < 300; i++) {
		int status;
		if (waitpid(r->cur->daemon, &status, WNOHANG) == r->cur->daemon) {
			r->cur->daemon = 0;
			return;
		}
		usleep(100 * 1000);
	}
	kill(r->cur->daemon, SIGKILL);
	review_wait_child(r->cur->daemon);
	r->cur->daemon = 0;
}

/* ---- HTTP ---- */

/* One request to the review's daemon: the HTTP status (-1 on a transport
 * error, said), the body in *text (caller frees) when text is not NULL. */
static long review_request(
    struct review *r, const char *method, const char *path, const char *body, char **text)
{
	struct buf resp = BUF_INIT;
	struct curl_slist *headers;
	char url[512];
	long status = -1;
	CURLcode cc;

	snprintf(url, sizeof url, "%s%s", r->cur->url, path);
	curl_easy_reset(r->curl);
	curl_easy_setopt(r->curl, CURLOPT_URL, url);
	curl_easy_setopt(r->curl, CURLOPT_WRITEFUNCTION, client_write);
	curl_easy_setopt(r->curl, CURLOPT_WRITEDATA, &resp);
	curl_easy_setopt(r->curl, CURLOPT_TIMEOUT, 900L);
	curl_easy_setopt(r->curl, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(r->curl, CURLOPT_USERAGENT, "phpcmp-review/" PHPCMP_VERSION);
	/* A --url daemon may want a token for its writes (docs/hardening.md). */
	headers = client_headers(body != NULL, r->url != NULL);
	if (body != NULL)
		curl_easy_setopt(r->curl, CURLOPT_POSTFIELDS, body);
	if (headers != NULL)
		curl_easy_setopt(r->curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(r->curl, CURLOPT_CUSTOMREQUEST, method);
	if ((cc = curl_easy_perform(r->curl)) != CURLE_OK)
		cmd_error("review", "%s %s: %s", method, url, curl_easy_strerror(cc));
	else
		curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(headers);
	if (resp.failed)
		status = -1;
	if (text != NULL)
		*text = status < 0 ? NULL : buf_detach(&resp, NULL);
	buf_release(&resp);
	return status;
}

/* A request whose answer is JSON with an expected status; NULL (said) otherwise. */
static json_t *review_json(
    struct review *r, const char *method, const char *path, const char *body, long want, long want2)
{
	char *text = NULL;
	long status = review_request(r, method, path, body, &text);
	json_error_t je;
	json_t *j;

	if (status < 0) {
		free(text);
		return NULL;
	}
	j = text != NULL ? json_loads(text, 0, &je) : NULL;
	if (status != want && status != want2) {
		cmd_error(
		    "review", "%s %s: HTTP %ld: %.400s", method, path, status, text != NULL ? text : "");
		json_decref(j);
		j = NULL;
	} else if (j == NULL) {
		cmd_error("review", "%s %s: the answer is not JSON", method, path);
	}
	free(text);
	return j;
}

static const char *review_str(json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));
	return s != NULL ? s : "";
}

/* A member, or JSON null when it is missing (for json_pack's "O"). */
static json_t *review_get(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);
	return v != NULL ? v : json_null();
}

static json_int_t review_int(json_t *j, const char *key)
{
	return json_integer_value(json_object_get(j, key));
}

/* ---- a running daemon (--url) ---- */

/* Its builds folder (where the builds go: the one place it registers them
 * from), checked to be on this machine, and the builds' names there. */
static int review_attach(struct review *r)
{
	json_t *list = review_json(r, "GET", "/api/builds", NULL, 200, 200), *b;
	struct stat st;
	size_t i;

	if (list == NULL)
		return cmd_error("review",
		    "%s: GET /api/builds failed (a phpcmp daemon with builds that come and go?)", r->url);
	snprintf(r->builds_dir, sizeof r->builds_dir, "%s", review_str(list, "builds_dir"));
	if (r->builds_dir[0] != '/' || stat(r->builds_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		json_decref(list);
		return cmd_error("review",
		    "%s: its builds folder %s is not a folder on this machine: run the "
		    "review where the daemon runs",
		    r->url, r->builds_dir[0] ? r->builds_dir : "(none given)");
	}
	if (r->label_arg != NULL)
		snprintf(r->label, sizeof r->label, "%s", r->label_arg);
	else /* one name from review to review: their worker cores stay cached */
		snprintf(r->label, sizeof r->label, "review");
	for (int k = 0; k < r->rel.nbuilds; k++) {
		struct review_build *rb = &r->rel.builds[k];
		if (snprintf(rb->dname, sizeof rb->dname, "%s-%s", r->label, rb->name) >=
		    (int)sizeof rb->dname) {
			json_decref(list);
			return cmd_error("review", "--label %s: %s-%s is over 63 bytes, a build name's most",
			    r->label, r->label, rb->name);
		}
		json_array_foreach (json_object_get(list, "builds"), i, b)
			if (strcmp(review_str(b, "name"), rb->dname) == 0 &&
			    strcmp(review_str(b, "state"), "active") == 0) {
				json_decref(list);
				return cmd_error("review",
				    "%s: a build named %s is active there already (another "
				    "review with --label %s?)",
				    r->url, rb->dname, r->label);
			}
	}
	json_decref(list);
	review_say(r, "reviewing on %s: builds in %s, named %s-*", r->url, r->builds_dir, r->label);
	return 0;
}

/* Each release build registered with the --url daemon (POST /api/builds). */
static int review_register(struct review *r)
{
	for (int k = 0; k < r->rel.nbuilds; k++) {
		struct review_build *rb = &r->rel.builds[k];
		char cwd[PATH_MAX], prefix[2 * PATH_MAX + 2];
		json_t *body, *ans;
		char *text;

		/* Built here: its link in the builds folder.  Given: as given (made
		 * absolute, links kept), which the daemon takes only from that folder. */
		if (rb->given_prefix == NULL)
			snprintf(prefix, sizeof prefix, "%s", rb->dname);
		else if (rb->given_prefix[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
			snprintf(prefix, sizeof prefix, "%s", rb->given_prefix);
		else
			snprintf(prefix, sizeof prefix, "%s/%s", cwd, rb->given_prefix);
		body = json_pack("{s:s s:s}", "name", rb->dname, "prefix", prefix);
		text = body != NULL ? json_dumps(body, JSON_COMPACT) : NULL;
		json_decref(body);
		if (text == NULL)
			return cmd_error("review", "out of memory");
		ans = review_json(r, "POST", "/api/builds", text, 201, 201);
		free(text);
		if (ans == NULL)
			return -1;
		rb->registered = 1;
		review_say(r, "%s registered as %s (%s)", rb->name, rb->dname, review_str(ans, "role"));
		json_decref(ans);
	}
	return 0;
}

/* Every build the review registered, retired (DELETE /api/builds/NAME):
 * their runs, roots and triage stay on the daemon. */
static void review_retire(struct review *r)
{
	for (int k = r->rel.nbuilds - 1; k >= 0; k--) {
		struct review_build *rb = &r->rel.builds[k];
		char path[128];
		json_t *ans;

		if (!rb->registered)
			continue;
		snprintf(path, sizeof path, "/api/builds/%s", rb->dname);
		if ((ans = review_json(r, "DELETE", path, NULL, 200, 404)) != NULL)
			rb->registered = 0;
		json_decref(ans);
	}
}

/* The daemon's names of the builds in a text it wrote, made the review's
 * ("review-pr@2" -> "pr@2"), in place. */
static void review_unlabel(const struct review *r, char *text)
{
	char prefix[sizeof r->label + 1];
	size_t n;
	char *p;

	if (r->url == NULL || text == NULL)
		return;
	n = (size_t)snprintf(prefix, sizeof prefix, "%s-", r->label);
	while ((p = strstr(text, prefix)) != NULL)
		memmove(p, p + n, strlen(p + n) + 1);
}

/* ---- the runs ---- */

/* The names of the current set's builds on the daemon, in order: a run's or a case's "builds". */
static json_t *review_build_names(const struct review *r)
{
	json_t *names = json_array();
	for (int i = 0; i < r->cur->nbuilds; i++)
		json_array_append_new(names, json_string(r->cur->builds[i].dname));
	return names;
}

/* POST /api/runs with body (an object, taken), naming the builds on a --url daemon. */
static int64_t review_post_run(struct review *r, json_t *body)
{
	char *text;
	json_t *run;

	if (body != NULL && r->url != NULL && !r->cur->asan)
		json_object_set_new(body, "builds", review_build_names(r));
	text = body != NULL ? json_dumps(body, JSON_COMPACT) : NULL;
	json_decref(body);
	if (text == NULL)
		return cmd_error("review", "out of memory");
	run = review_json(r, "POST", "/api/runs", text, 202, 202);
	free(text);
	int64_t id = run != NULL ? review_int(run, "id") : 0;

	json_decref(run);
	return id > 0 ? id : -1;
}

/*
 * Poll a run until it ends; the run as it ended, or NULL (said).  With
 * stop_at > 0 (the asan sample) the run is cancelled once its candidates
 * have had that many memory errors: each costs the sample about 0.6 s
 * (measured; docs/review.md), and more of the same say no more.
 */
static json_t *review_wait_run(struct review *r, int64_t id, const char *what, json_int_t stop_at)
{
	char path[64];
	double next_say = review_now() + 15;
	int cancelled = 0;

	snprintf(path, sizeof path, "/api/runs/%" PRId64, id);
	for (;;) {
		json_t *run = review_json(r, "GET", path, NULL, 200, 200), *b;
		json_t *counts = json_object_get(run, "counts");
		json_int_t errors = 0;
		const char *status, *role;

		if (run == NULL)
			return NULL;
		status = review_str(run, "status");
		json_object_foreach (json_object_get(json_object_get(run, "summary"), "builds"), role, b)
			if (strcmp(role, "base") != 0)
				errors += review_int(json_object_get(b, "statuses"), "memory-error");
		if (strcmp(status, "done") == 0 || (cancelled && strcmp(status, "cancelled") == 0)) {
			if (stop_at > 0)
				review_say(r,
				    "%s: %s after %" JSON_INTEGER_FORMAT " cases, %" JSON_INTEGER_FORMAT
				    " with a memory error on a candidate",
				    what, cancelled ? "stopped" : "done", review_int(run, "done"), errors);
			else
				review_say(r,
				    "%s: done, %" JSON_INTEGER_FORMAT " same, %" JSON_INTEGER_FORMAT
				    " differ",
				    what, review_int(counts, "same"), review_int(counts, "differ"));
			return run;
		}
		if (strcmp(status, "queued") != 0 && strcmp(status, "running") != 0) {
			cmd_error("review", "the %s run (%s) ended %s: %s", what, path, status,
			    review_str(run, "error"));
			json_decref(run);
			return NULL;
		}
		if (stop_at > 0 && !cancelled && errors >= stop_at) {
			char cancel[96];
			json_t *c;
			snprintf(cancel, sizeof cancel, "%s/cancel", path);
			if ((c = review_json(r, "POST", cancel, "{}", 200, 409)) == NULL) {
				json_decref(run);
				return NULL;
			}
			json_decref(c);
			cancelled = 1;
		}
		if (review_now() >= next_say) {
			review_say(r, "%s: %s, %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT, what,
			    status, review_int(run, "done"), review_int(run, "total"));
			next_say = review_now() + 15;
		}
		json_decref(run);
		usleep(250 * 1000);
	}
}

/* The roots of one run, once the reducer is done with its buckets (or the
 * settle time is over: then the report says how many are pending). */
static json_t *review_settled_roots(struct review *r, int64_t run, double until)
{
	char path[64];
	double next_say = review_now() + 15;

	snprintf(path, sizeof path, "/api/roots?run=%" PRId64, run);
	for (;;) {
		json_t *roots = review_json(r, "GET", path, NULL, 200, 200);
		json_int_t pending;

		if (roots == NULL)
			return NULL;
		pending = review_int(json_object_get(roots, "reduction"), "buckets_pending");
		if (pending == 0 || review_now() >= until)
			return roots;
		if (review_now() >= next_say) {
			review_say(r, "reducing: %" JSON_INTEGER_FORMAT " buckets pending", pending);
			next_say = review_now() + 15;
		}
		json_decref(roots);
		sleep(1);
	}
}

static const struct review_build *review_build_by_role(const struct review *r, const char *role)
{
	for (int i = 0; i < r->cur->nbuilds; i++)
		if (strcmp(r->cur->builds[i].role, role) == 0)
			return &r->cur->builds[i];
	return NULL;
}

static const struct review_build *review_build_by_name(const struct review *r, const char *name)
{
	for (int i = 0; i < r->cur->nbuilds; i++)
		if (strcmp(r->cur->builds[i].name, name) == 0)
			return &r->cur->builds[i];
	return NULL;
}

static const struct review_build *review_build_by_dname(const struct review *r, const char *dname)
{
	for (int i = 0; i < r->cur->nbuilds; i++)
		if (strcmp(r->cur->builds[i].dname, dname) == 0)
			return &r->cur->builds[i];
	return NULL;
}

/* Each build's role, as the daemon gives it. */
static int review_roles(struct review *r)
{
	json_t *builds, *b;
	size_t i;

	/* A --url daemon has builds of its own: the review's runs and cases name
	 * theirs ("builds"), so their roles are their places in that list. */
	if (r->url != NULL && !r->cur->asan) {
		for (int k = 0; k < r->cur->nbuilds; k++) {
			struct review_build *rb = &r->cur->builds[k];
			if (k <= 1)
				snprintf(rb->role, sizeof rb->role, "%s", k == 0 ? "base" : "head");
			else
				snprintf(rb->role, sizeof rb->role, "cand%d", k);
		}
		return 0;
	}
	json_decref(r->health);
	if ((r->health = review_json(r, "GET", "/api/health", NULL, 200, 200)) == NULL)
		return -1;
	builds = json_object_get(r->health, "builds");
	json_array_foreach (builds, i, b) {
		struct review_build *rb = (struct review_build *)review_build_by_name(
		    r, review_str(b, "name"));
		if (rb != NULL)
			snprintf(rb->role, sizeof rb->role, "%s", review_str(b, "role"));
	}
	for (int k = 0; k < r->cur->nbuilds; k++)
		if (r->cur->builds[k].role[0] == '\0')
			return cmd_error(
			    "review", "the daemon does not list build %s", r->cur->builds[k].name);
	return 0;
}

/*
 * A cause's minimal case once more on every build (POST /api/cases):
 * "results" by build name, "differs_on" (the builds whose answer is not
 * the base's) and, per series, the first commit that differs:
 * "first_commits" {"pr": {"commit": 2, "patch": "0002-b.patch"}}.
 */
static int review_rerun(struct review *r, json_t *cause)
{
	json_t *min = json_object_get(cause, "minimal"), *ans, *results, *cands, *differs, *firsts, *v;
	json_t *body = json_pack("{s:O,s:O,s:O,s:O}", "code", review_get(min, "code"), "setup",
	    review_get(min, "setup"), "flags", review_get(min, "flags_value"), "depth",
	    review_get(min, "depth"));
	if (body != NULL && r->url != NULL)
		json_object_set_new(body, "builds", review_build_names(r));
	char *text = body != NULL ? json_dumps(body, JSON_COMPACT) : NULL;
	const char *key;

	json_decref(body);
	if (text == NULL)
		return cmd_error("review", "out of memory");
	ans = review_json(r, "POST", "/api/cases", text, 201, 201);
	free(text);
	if (ans == NULL)
		return -1;
	results = json_object();
	differs = json_array();
	firsts = json_object();
	json_object_foreach (json_object_get(ans, "results"), key, v) {
		const struct review_build *b = review_build_by_role(r, key);
		if (b != NULL)
			json_object_set(results, b->name, v);
	}
	cands = json_object_get(ans, "candidates");
	for (int b = 1; b < r->cur->nbuilds; b++) {
		const struct review_build *rb = &r->cur->builds[b];
		const struct review_cand *c = &r->cands[rb->candidate];
		json_t *verdict = json_object_get(cands, rb->dname);

		if (verdict == NULL || strcmp(review_str(verdict, "verdict"), "same") == 0)
			continue;
		json_array_append_new(differs, json_string(rb->name));
		/* builds are in commit order: the first that differs is the commit */
		if (rb->commit > 0 && json_object_get(firsts, c->name) == NULL)
			json_object_set_new(firsts, c->name,
			    json_pack(
			        "{s:i,s:s}", "commit", rb->commit, "patch", c->patches[rb->commit - 1]));
	}
	json_object_set_new(cause, "results", results);
	json_object_set_new(cause, "differs_on", differs);
	json_object_set_new(cause, "first_commits", firsts);
	json_decref(ans);
	return 0;
}

/* A cause: the builds it was found on, its buckets, its minimal case (or null). */
static json_t *review_cause_new(json_t *minimal)
{
	json_t *cause = json_object();

	json_object_set_new(cause, "builds", json_array());
	json_object_set_new(cause, "bucket_ids", json_array());
	json_object_set_new(cause, "buckets", json_integer(0));
	json_object_set(cause, "minimal", minimal != NULL ? minimal : json_null());
	return cause;
}

/*
 * The review's roots, merged over the generated and stored runs (a bucket
 * is listed once, with "runs": its mismatches in each), then grouped into
 * "causes", one per minimal case (review_rerun).
 */
static int review_collect_roots(
    struct review *r, const int64_t *runs, const char *const *names, int nruns, json_t **out)
{
	double until = review_now() + (double)r->settle_s;
	json_t *all = json_array(), *pending = json_object();

	*out = json_object();
	json_object_set_new(*out, "roots", all);
	json_object_set_new(*out, "pending", pending);
	for (int k = 0; k < nruns; k++) {
		json_t *got = review_settled_roots(r, runs[k], until), *root;
		size_t i;

		if (got == NULL)
			return -1;
		json_object_set(
		    pending, names[k], review_get(json_object_get(got, "reduction"), "buckets_pending"));
		json_array_foreach (json_object_get(got, "roots"), i, root) {
			json_t *mine = NULL, *o;
			size_t j;
			json_array_foreach (all, j, o)
				if (review_int(o, "bucket_id") == review_int(root, "bucket_id"))
					mine = o;
			if (mine == NULL) {
				const struct review_build *b = review_build_by_dname(
				    r, review_str(root, "candidate"));
				/* On a --url daemon a bucket of the first candidate's (no
				 * candidate in its key) may be older than the review and
				 * name the build that found it first: here it is the head's. */
				if (b == NULL && r->url != NULL && r->cur->nbuilds > 1)
					b = &r->cur->builds[1];
				mine = json_deep_copy(root);
				/* the review's name of the build, not the --url daemon's */
				if (b != NULL)
					json_object_set_new(mine, "candidate", json_string(b->name));
				json_object_set_new(mine, "runs", json_object());
				json_array_append_new(all, mine);
			} else {
				json_object_set_new(mine, "mismatches",
				    json_integer(
				        review_int(mine, "mismatches") + review_int(root, "mismatches")));
			}
			json_object_set_new(json_object_get(mine, "runs"), names[k],
			    json_integer(review_int(root, "mismatches")));
		}
		json_decref(got);
	}
	/* one cause per minimal case: a bug on pr@2 and pr@3 (or on two
	 * candidates) is one cause, run once more on every build */
	json_t *causes = json_array();
	json_object_set_new(*out, "causes", causes);
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *root = json_array_get(all, i), *min = json_object_get(root, "minimal");
		json_t *cause = NULL, *c;
		char *key;
		size_t j;

		if (!json_is_object(min) || !json_is_string(json_object_get(min, "code"))) {
			/* not reduced (yet, or not reproduced alone: the reducer's state
			 * says which): its own cause, with no case to run */
			cause = review_cause_new(NULL);
			if (json_is_object(min))
				json_object_set(cause, "not_reduced", json_object_get(min, "state"));
			json_array_append_new(
			    json_object_get(cause, "builds"), json_string(review_str(root, "candidate")));
			json_array_append(
			    json_object_get(cause, "bucket_ids"), json_object_get(root, "bucket_id"));
			json_object_set(cause, "buckets", json_object_get(root, "buckets"));
			json_array_append_new(causes, cause);
			continue;
		}
		c = json_pack("[O,O,O,O]", review_get(min, "code"), review_get(min, "setup"),
		    review_get(min, "flags_value"), review_get(min, "depth"));
		key = c != NULL ? json_dumps(c, JSON_COMPACT) : NULL;
		json_decref(c);
		json_array_foreach (causes, j, c)
			if (key != NULL && strcmp(review_str(c, "key"), key) == 0)
				cause = c;
		if (cause == NULL) {
			cause = review_cause_new(min);
			json_object_set_new(cause, "key", json_string(key != NULL ? key : ""));
			if (review_rerun(r, cause) < 0) {
				free(key);
				json_decref(cause);
				return -1;
			}
			json_array_append_new(causes, cause);
		}
		free(key);
		json_array_append_new(
		    json_object_get(cause, "builds"), json_string(review_str(root, "candidate")));
		json_array_append(json_object_get(cause, "bucket_ids"), json_object_get(root, "bucket_id"));
		json_object_set_new(cause, "buckets",
		    json_integer(review_int(cause, "buckets") + review_int(root, "buckets")));
	}
	for (size_t i = 0; i < json_array_size(causes); i++)
		json_object_del(json_array_get(causes, i), "key");
	return 0;
}

static int review_run_all(struct review *r)
{
	char body[160];

	/* queued at once, run one after the other in this order by the daemon */
	if ((r->run_generated = review_post_run(r,
	         json_pack("{s:s s:I s:I}", "suite", "generated", "seed", (json_int_t)r->seed, "count",
	             (json_int_t)r->count))) < 0 ||
	    (r->run_stored = review_post_run(r, json_pack("{s:s}", "suite", "stored"))) < 0 ||
	    (r->run_phpt = review_post_run(r, json_pack("{s:s}", "suite", "phpt"))) < 0 ||
	    (r->run_measure = review_post_run(r, json_pack("{s:s}", "suite", "measure"))) < 0)
		return -1;
	snprintf(body, sizeof body, "%ld generated cases (seed %ld)", r->count, r->seed);
	if ((r->generated = review_wait_run(r, r->run_generated, body, 0)) == NULL ||
	    (r->stored = review_wait_run(r, r->run_stored, "the stored cases", 0)) == NULL ||
	    (r->phpt = review_wait_run(r, r->run_phpt, "ext/json/tests", 0)) == NULL ||
	    (r->measure = review_wait_run(r, r->run_measure, "the measure workloads", 0)) == NULL)
		return -1;
	char path[96];
	snprintf(path, sizeof path, "/api/runs/%" PRId64 "/report.md", r->run_phpt);
	if (review_request(r, "GET", path, NULL, &r->phpt_line) != 200)
		return cmd_error("review", "GET %s failed", path);
	snprintf(path, sizeof path, "/api/runs/%" PRId64 "/measurements", r->run_measure);
	if ((r->measurements = review_json(r, "GET", path, NULL, 200, 200)) == NULL)
		return -1;
	snprintf(path, sizeof path, "/api/runs/%" PRId64 "/report.md?columns=candidates&json_encoder=1",
	    r->run_measure);
	if (review_request(r, "GET", path, NULL, &r->measure_md) != 200)
		return cmd_error("review", "GET %s failed", path);
	review_unlabel(r, r->phpt_line);
	review_unlabel(r, r->measure_md);
	review_say(r, "waiting for the reducer (at most %ld s)", r->settle_s);
	const int64_t runs[] = { r->run_generated, r->run_stored };
	const char *const names[] = { "generated", "stored" };
	return review_collect_roots(r, runs, names, 2, &r->roots);
}

/*
 * Memory errors (issue 22): the asan flavour of the base and of each
 * candidate's last build, and a sample of the generated corpus on them, on
 * a daemon of their own.  A read past a buffer or a use after free that
 * changes no output is a mismatch there (status memory-error), reduced like
 * any other.
 */
static void review_plan_asan(struct review *r)
{
	struct review_set *a = &r->asan;

	if (r->no_asan) {
		r->asan_skipped = "--no-asan";
		return;
	}
	if (r->rel.builds[0].given_prefix != NULL) {
		r->asan_skipped =
		    "the base is a build prefix: there is no source to build its asan flavour from";
		return;
	}
	for (int i = 0; i < r->rel.nbuilds; i++) {
		const struct review_build *b = &r->rel.builds[i];
		const struct review_cand *c = b->candidate >= 0 ? &r->cands[b->candidate] : NULL;

		if (c != NULL && (c->prefix != NULL || (b->commit > 0 && b->commit < c->npatches)))
			continue; /* a given prefix has no source; a series' earlier commits */
		a->builds[a->nbuilds] = *b;
		a->builds[a->nbuilds].prefix[0] = a->builds[a->nbuilds].role[0] = '\0';
		a->builds[a->nbuilds].commit = 0; /* one commit of a series: no attribution here */
		a->nbuilds++;
	}
	if (a->nbuilds < 2) {
		a->nbuilds = 0;
		r->asan_skipped = "no candidate was built from patches";
	}
}

/* Cases of the asan sample with a memory error on build name (its asan
 * flavour), or -1 when the sample has no such build. */
static json_int_t review_memory_errors(const struct review *r, const char *name)
{
	json_t *builds = json_object_get(json_object_get(r->asan_generated, "summary"), "builds");

	for (int b = 0; b < r->asan.nbuilds; b++)
		if (strcmp(r->asan.builds[b].name, name) == 0)
			return review_int(
			    json_object_get(json_object_get(builds, r->asan.builds[b].role), "statuses"),
			    "memory-error");
	return -1;
}

/* A memory error often shows only after the cases before it in the same
 * worker (the heap they left): not reproduced alone, it is not reduced.  The
 * first few mismatches of the sample are kept as run, with every build's
 * result. */
static int review_asan_samples(struct review *r, int64_t run)
{
	char path[128];
	json_t *list, *c;
	size_t i;

	r->asan_samples = json_array();
	snprintf(
	    path, sizeof path, "/api/runs/%" PRId64 "/cases?verdict=differ&limit=%d", run, REVIEW_SAMPLES);
	if ((list = review_json(r, "GET", path, NULL, 200, 200)) == NULL)
		return -1;
	json_array_foreach (json_object_get(list, "cases"), i, c) {
		json_t *full, *results = json_object(), *v, *gen = json_object_get(c, "generated");
		const char *role;

		if (json_is_null(json_object_get(c, "id")) && gen != NULL) {
			/* Not stored in full by the run: stored now, answered in full. */
			char body[96];
			snprintf(path, sizeof path, "/api/runs/%" PRId64 "/cases", run);
			snprintf(body, sizeof body,
			    "{\"seed\":%" JSON_INTEGER_FORMAT ",\"index\":%" JSON_INTEGER_FORMAT "}",
			    review_int(gen, "seed"), review_int(gen, "index"));
			full = review_json(r, "POST", path, body, 201, 200);
		} else {
			snprintf(path, sizeof path,
			    "/api/cases/%" JSON_INTEGER_FORMAT "?comparison=%" JSON_INTEGER_FORMAT,
			    review_int(c, "id"), review_int(c, "comparison_id"));
			full = review_json(r, "GET", path, NULL, 200, 200);
		}
		if (full == NULL) {
			json_decref(results);
			json_decref(list);
			return -1;
		}
		json_object_foreach (json_object_get(full, "results"), role, v) {
			const struct review_build *b = review_build_by_role(r, role);
			if (b != NULL)
				json_object_set(results, b->name, v);
		}
		json_t *res;
		const char *name;
		int memory = 0;
		json_object_foreach (results, name, res)
			if (strcmp(review_str(res, "status"), "memory-error") == 0)
				memory = 1;
		if (memory) /* an output mismatch is the release builds' cause again */
			json_array_append_new(r->asan_samples,
			    json_pack("{s:O,s:O}", "case", review_get(full, "case"), "results", results));
		json_decref(results);
		json_decref(full);
	}
	json_decref(list);
	/* the shortest few: the report shows their code */
	while (json_array_size(r->asan_samples) > REVIEW_SHOWN_SAMPLES) {
		size_t longest = 0, most = 0;
		for (i = 0; i < json_array_size(r->asan_samples); i++) {
			json_t *kept = json_object_get(json_array_get(r->asan_samples, i), "case");
			size_t len = strlen(review_str(kept, "code")) + strlen(review_str(kept, "setup"));
			if (len >= most) {
				most = len;
				longest = i;
			}
		}
		json_array_remove(r->asan_samples, longest);
	}
	return 0;
}

static int review_run_asan(struct review *r)
{
	char what[96];
	int64_t id;

	r->cur = &r->asan;
	for (int i = 0; i < r->asan.nbuilds; i++)
		if (review_build_one(r, &r->asan.builds[i]) < 0)
			return -1;
	if (review_serve(r) < 0 || review_roles(r) < 0)
		return -1;
	snprintf(what, sizeof what, "asan: %ld generated cases (seed %ld)", r->asan_count, r->seed);
	if ((id = review_post_run(r,
	         json_pack("{s:s s:I s:I}", "suite", "generated", "seed", (json_int_t)r->seed, "count",
	             (json_int_t)r->asan_count))) < 0 ||
	    (r->asan_generated = review_wait_run(r, id, what, REVIEW_ASAN_ENOUGH)) == NULL)
		return -1;
	/* Its output mismatches are the release builds' causes again: the
	 * reducer is waited for only when there is a memory error to explain. */
	json_int_t errors = 0;
	for (int b = 1; b < r->asan.nbuilds; b++)
		errors += review_memory_errors(r, r->asan.builds[b].name);
	if (errors > 0) {
		review_say(r, "asan: waiting for the reducer (at most %ld s)", r->settle_s);
		const char *const names[] = { "generated" };
		if (review_collect_roots(r, &id, names, 1, &r->asan_roots) < 0 ||
		    review_asan_samples(r, id) < 0)
			return -1;
	}
	review_stop(r);
	r->cur = &r->rel;
	return 0;
}

/* ---- the report ---- */

/* A text as Markdown inline code: control bytes and backslash-free display,
 * cut at REVIEW_SHOW_BYTES. */
static void review_md_code(struct buf *o, const char *s)
{
	size_t n = strlen(s), shown = n > REVIEW_SHOW_BYTES ? REVIEW_SHOW_BYTES : n;
	const char *fence = strchr(s, '`') != NULL ? "`` " : "`";

	buf_adds(o, fence);
	for (size_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			buf_addf(o, "\\x%02X", c);
		else if (c == '|')
			buf_adds(o, "\\|");
		else
			buf_add(o, &s[i], 1);
	}
	if (shown < n)
		buf_addf(o, "… (%zu bytes)", n);
	buf_adds(o, fence[1] == '`' ? " ``" : "`");
}

static void review_md_result(struct buf *o, json_t *res)
{
	json_t *out = json_object_get(res, "output"), *exc = json_object_get(res, "exception");
	const char *status = review_str(res, "status");

	if (strcmp(status, "memory-error") == 0) {
		json_t *me = json_object_get(res, "memory_error");
		buf_addf(o, "**memory-error**: %s, %s", review_str(me, "kind"), review_str(me, "access"));
		if (json_array_size(json_object_get(me, "frames")) > 0)
			buf_addf(
			    o, " in %s", json_string_value(json_array_get(json_object_get(me, "frames"), 0)));
		buf_adds(o, "; output ");
		if (json_is_string(out))
			review_md_code(o, json_string_value(out));
		else
			buf_adds(o, "`false`");
	} else if (strcmp(status, "ok") != 0 && strcmp(status, "error") != 0) {
		buf_addf(o, "**%s**", status);
		if (*review_str(res, "failure"))
			buf_addf(o, " (%.120s)", review_str(res, "failure"));
	} else if (json_is_string(out)) {
		review_md_code(o, json_string_value(out));
	} else {
		buf_adds(o, "`false`");
	}
	buf_addf(o, " | %" JSON_INTEGER_FORMAT, review_int(res, "error_code"));
	if (json_is_object(exc))
		buf_addf(o, ", %s", review_str(exc, "class"));
}

/* The minimal case as PHP a reviewer can paste. */
static void review_md_case(struct buf *o, json_t *min)
{
	json_t *flags = json_object_get(min, "flags"), *f;
	const char *setup = json_string_value(json_object_get(min, "setup"));
	size_t i;

	buf_adds(o, "```php\n");
	if (setup != NULL && *setup)
		buf_addf(o, "%s\n", setup);
	buf_addf(o, "json_encode(%s", review_str(min, "code"));
	if (json_array_size(flags) > 0) {
		buf_adds(o, ", ");
		json_array_foreach (flags, i, f)
			buf_addf(o, "%s%s", i ? " | " : "", json_string_value(f));
	} else if (review_int(min, "depth") != 512) {
		buf_adds(o, ", 0");
	}
	if (review_int(min, "depth") != 512)
		buf_addf(o, ", %" JSON_INTEGER_FORMAT, review_int(min, "depth"));
	buf_adds(o, ");\n```\n");
}

static void review_md_thousands(struct buf *o, long long v)
{
	char digits[32], grouped[48];

	snprintf(digits, sizeof digits, "%lld", v < 0 ? -v : v);
	text_grouped(digits, grouped, sizeof grouped);
	buf_adds(o, v < 0 ? "−" : ""); /* a real minus sign, as the reviewer's table writes it */
	buf_adds(o, grouped);
}

/* What one build did in the generated and stored runs and ext/json/tests. */
struct review_tally {
	long long mismatches, crashes, stored_differ, roots;
	json_t *regressions; /* phpt, borrowed */
	long long phpt_differ;
};

static struct review_tally review_tally_of(const struct review *r, const struct review_build *b)
{
	struct review_tally t = { 0 };
	json_t *gen = json_object_get(
	    json_object_get(json_object_get(r->generated, "summary"), "builds"), b->role);
	json_t *cand = json_object_get(
	    json_object_get(json_object_get(r->phpt, "summary"), "candidates"), b->role);
	json_t *root, *cause, *name;
	size_t i, k;

	t.mismatches = review_int(gen, "mismatches");
	t.crashes = review_int(json_object_get(gen, "statuses"), "crash");
	t.regressions = json_object_get(cand, "regressions");
	t.phpt_differ = review_int(cand, "differ");
	json_array_foreach (json_object_get(r->roots, "roots"), i, root)
		if (strcmp(review_str(root, "candidate"), b->name) == 0)
			t.stored_differ += review_int(json_object_get(root, "runs"), "stored");
	json_array_foreach (json_object_get(r->roots, "causes"), i, cause)
		json_array_foreach (json_object_get(cause, "builds"), k, name)
			if (strcmp(json_string_value(name), b->name) == 0)
				t.roots++;
	return t;
}

/* The asan sample's causes that are a memory error on build name (its
 * other causes are output bugs the release builds show already). */
static int review_memory_causes(const struct review *r, const char *name)
{
	json_t *cause;
	size_t i;
	int n = 0;

	json_array_foreach (json_object_get(r->asan_roots, "causes"), i, cause) {
		json_t *res = json_object_get(json_object_get(cause, "results"), name);
		if (strcmp(review_str(res, "status"), "memory-error") == 0)
			n++;
	}
	return n;
}

static int review_build_differs(const struct review *r, const struct review_build *b)
{
	struct review_tally t = review_tally_of(r, b);
	return t.mismatches > 0 || t.stored_differ > 0 || t.roots > 0 || json_array_size(t.regressions) > 0 ||
	    t.phpt_differ > 0 || review_memory_causes(r, b->name) > 0 ||
	    review_memory_errors(r, b->name) > review_memory_errors(r, "base");
}

/* 1 when any candidate differs from the base, else 0. */
static int review_verdict(const struct review *r)
{
	for (int i = 1; i < r->cur->nbuilds; i++)
		if (review_build_differs(r, &r->cur->builds[i]))
			return 1;
	return 0;
}

static const char *review_base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s != NULL ? s + 1 : path;
}

/* One of the daemon's report.md, without its own heading. */
static void review_md_body(struct buf *o, const char *md)
{
	if (md == NULL)
		return;
	if (strncmp(md, "###", 3) == 0 && strchr(md, '\n') != NULL)
		md = strchr(md, '\n') + 1;
	while (*md == '\n')
		md++;
	buf_adds(o, md);
}

static void review_md_asan_results(const struct review *r, struct buf *o, json_t *results)
{
	buf_adds(o, "\n| asan build | result | json_last_error() |\n|---|---|---|\n");
	for (int b = 0; b < r->asan.nbuilds; b++) {
		json_t *res = json_object_get(results, r->asan.builds[b].name);
		if (res == NULL)
			continue;
		buf_addf(o, "| `%s` | ", r->asan.builds[b].name);
		review_md_result(o, res);
		buf_adds(o, " |\n");
	}
}

/* The asan sample: each build's memory errors, then each memory-error cause. */
static void review_md_asan(const struct review *r, struct buf *o)
{
	const struct review_set *a = &r->asan;
	json_t *builds = json_object_get(json_object_get(r->asan_generated, "summary"), "builds"), *cause;
	size_t i;
	int n = 0;

	buf_adds(o, "\n#### Memory errors (AddressSanitizer)\n\n");
	if (r->asan_skipped != NULL) {
		buf_addf(o, "No asan sample: %s.\n", r->asan_skipped);
		return;
	}
	buf_adds(o, "The asan flavour of");
	for (int b = 0; b < a->nbuilds; b++)
		buf_addf(o, "%s `%s`", b == 0 ? "" : b == a->nbuilds - 1 ? " and" : ",", a->builds[b].name);
	buf_adds(o, ", ");
	review_md_thousands(o, r->asan_ran);
	buf_addf(o, " generated calls (seed %ld, the first of the corpus above", r->seed);
	if (r->asan_ran < r->asan_count) {
		buf_addf(o, "; stopped at %d memory errors, of ", REVIEW_ASAN_ENOUGH);
		review_md_thousands(o, r->asan_count);
	}
	buf_adds(o, "):");
	for (int b = 0; b < a->nbuilds; b++) {
		json_t *st = json_object_get(json_object_get(builds, a->builds[b].role), "statuses");
		json_int_t me = review_int(st, "memory-error");
		buf_addf(o, "%s `%s` %s", b ? ";" : "", a->builds[b].name, me ? "**" : "");
		review_md_thousands(o, me);
		buf_addf(o, " with a memory error%s", me ? "**" : "");
	}
	buf_adds(o, ".\n");
	json_array_foreach (json_object_get(r->asan_roots, "causes"), i, cause) {
		json_t *results = json_object_get(cause, "results"), *v;
		int memory = 0;
		size_t k;

		json_array_foreach (json_object_get(cause, "builds"), k, v)
			if (strcmp(review_str(json_object_get(results, json_string_value(v)), "status"),
			        "memory-error") == 0)
				memory = 1;
		if (!memory)
			continue; /* an output bug: the release builds' causes above show it */
		buf_addf(o, "\n##### Memory error %d, found on", ++n);
		json_array_foreach (json_object_get(cause, "builds"), k, v)
			buf_addf(o, "%s `%s`", k ? "," : "", json_string_value(v));
		buf_adds(o, "\n\n");
		review_md_case(o, json_object_get(cause, "minimal"));
		review_md_asan_results(r, o, results);
	}
	if (n > 0)
		return;
	/* memory errors that were not reproduced alone: as the sample ran them */
	int shown = 0;
	json_array_foreach (r->asan_samples, i, cause) {
		json_t *c = json_object_get(cause, "case"), *min, *res;
		const char *name;
		int memory = 0;

		json_object_foreach (json_object_get(cause, "results"), name, res)
			if (strcmp(review_str(res, "status"), "memory-error") == 0)
				memory = 1;
		if (!memory)
			continue;
		min = json_object();
		if (shown++ == 0)
			buf_adds(o,
			    "\nNot reproduced when run alone (such an error depends on what the cases "
			    "before it left on the heap), so not reduced; the first of them as the sample "
			    "ran them:\n");
		json_object_set(min, "code", review_get(c, "code"));
		json_object_set(min, "setup", review_get(c, "setup"));
		json_object_set(min, "flags", review_get(c, "flag_names"));
		json_object_set(min, "depth", review_get(c, "depth"));
		buf_adds(o, "\n");
		review_md_case(o, min);
		json_decref(min);
		review_md_asan_results(r, o, json_object_get(cause, "results"));
	}
}

/* "Base `x` (spec); candidates: `y` (...)": what was compared. */
static void review_md_builds(struct buf *o, const struct review *r)
{
	buf_addf(o, "Base `%s`", r->cur->builds[0].name);
	buf_addf(o, " (%s)", r->base_spec);
	buf_adds(o, "; candidates:");
	for (int c = 0; c < r->ncands; c++) {
		const struct review_cand *k = &r->cands[c];
		buf_addf(o, "%s `%s`", c ? ";" : "", k->name);
		if (k->prefix != NULL) {
			buf_addf(o, " (the build %s)", k->prefix);
		} else if (k->npatches > 1) {
			buf_addf(o, ", a series of %d commits:", k->npatches);
			for (int p = 0; p < k->npatches; p++)
				buf_addf(o, "%s `%s@%d` %s", p ? "," : "", k->name, p + 1,
				    review_base_name(k->patches[p]));
		} else {
			buf_addf(o, " (%s)", review_base_name(k->patches[0]));
		}
	}
	buf_adds(o, ".\n\n");
}

/* The verdict table: one row a candidate build, one column a suite. */
static void review_md_verdicts(struct buf *o, const struct review *r)
{
	long long stored_total = review_int(r->stored, "total");
	long long phpt_total = review_int(r->phpt, "total");

	buf_adds(o,
	    "| build | generated calls | stored cases | ext/json/tests | root causes |\n"
	    "|---|---:|---:|---|---:|\n");
	for (int b = 1; b < r->cur->nbuilds; b++) {
		const struct review_build *rb = &r->cur->builds[b];
		struct review_tally t = review_tally_of(r, rb);
		json_t *reg;
		size_t k;

		buf_addf(o, "| `%s` | ", rb->name);
		if (t.mismatches == 0) {
			buf_adds(o, "identical on ");
			review_md_thousands(o, r->count);
		} else {
			buf_adds(o, "**");
			review_md_thousands(o, t.mismatches);
			buf_adds(o, " differ** of ");
			review_md_thousands(o, r->count);
			if (t.crashes > 0) {
				buf_adds(o, " (");
				review_md_thousands(o, t.crashes);
				buf_adds(o, " crashes)");
			}
		}
		buf_adds(o, " | ");
		if (t.stored_differ == 0)
			buf_addf(o, "identical on %lld", stored_total);
		else
			buf_addf(o, "**%lld differ** of %lld", t.stored_differ, stored_total);
		buf_adds(o, " | ");
		if (json_array_size(t.regressions) == 0 && t.phpt_differ == 0) {
			buf_addf(o, "the base's results (%lld tests)", phpt_total);
		} else {
			buf_addf(o, "**%zu regressions**", json_array_size(t.regressions));
			json_array_foreach (t.regressions, k, reg)
				buf_addf(o, "%s %s", k ? "," : ":", json_string_value(reg));
		}
		buf_addf(o, " | %s%lld%s |\n", t.roots ? "**" : "", t.roots, t.roots ? "**" : "");
	}
}

/* Root cause number n (from 1): where it was found, its minimal case and
 * each build's result of it, or why it has none. */
static void review_md_cause(struct buf *o, const struct review *r, size_t n, json_t *cause)
{
	json_t *min = json_object_get(cause, "minimal"), *results = json_object_get(cause, "results");
	json_t *builds = json_object_get(cause, "builds"), *v;
	const char *series;
	size_t k;

	buf_addf(o, "\n#### Root cause %zu", n);
	json_object_foreach (json_object_get(cause, "first_commits"), series, v)
		buf_addf(o, ", `%s`: first in commit %" JSON_INTEGER_FORMAT " (`%s`)", series,
		    review_int(v, "commit"), review_base_name(review_str(v, "patch")));
	buf_adds(o, "\n\nFound on");
	json_array_foreach (builds, k, v)
		buf_addf(o, "%s `%s`", k ? "," : "", json_string_value(v));
	buf_addf(o, ": %" JSON_INTEGER_FORMAT " bucket%s (", review_int(cause, "buckets"),
	    review_int(cause, "buckets") == 1 ? "" : "s");
	json_array_foreach (json_object_get(cause, "bucket_ids"), k, v)
		buf_addf(o, "%s#%" JSON_INTEGER_FORMAT, k ? ", " : "", json_integer_value(v));
	buf_adds(o, ").\n\n");
	if (!json_is_object(min)) {
		const char *why = review_str(cause, "not_reduced");
		if (strcmp(why, "not_reproduced") == 0)
			buf_adds(o,
			    "Not reproduced when run alone: these mismatches need the cases run "
			    "before them, or are not deterministic; no minimal case (each bucket "
			    "shows its own).\n");
		else if (*why)
			buf_addf(o, "Not reduced: %s.\n", why);
		else
			buf_addf(
			    o, "Not reduced yet: the reducer did not settle within %ld s.\n", r->settle_s);
		return;
	}
	review_md_case(o, min);
	buf_adds(o, "\n| build | output | json_last_error() |\n|---|---|---|\n");
	for (int b = 0; b < r->cur->nbuilds; b++) {
		json_t *res = json_object_get(results, r->cur->builds[b].name);
		if (res == NULL)
			continue;
		buf_addf(o, "| `%s` | ", r->cur->builds[b].name);
		review_md_result(o, res);
		buf_adds(o, " |\n");
	}
}

static char *review_markdown(const struct review *r)
{
	struct buf o = BUF_INIT;
	json_t *cause;
	size_t i;

	buf_addf(&o, "### phpcmp review: %s\n\n",
	    review_verdict(r) ? "**differences** from the base" : "every candidate gives the base's outputs");
	review_md_builds(&o, r);
	review_md_verdicts(&o, r);
	buf_addf(&o,
	    "\nGenerated calls: seed %ld, generator version %" JSON_INTEGER_FORMAT "; every build "
	    "made the same corpus.\n",
	    r->seed, review_int(json_object_get(r->generated, "summary"), "generator_version"));
	/* the root causes, one per minimal case */
	json_array_foreach (json_object_get(r->roots, "causes"), i, cause)
		review_md_cause(&o, r, i + 1, cause);
	json_int_t pending = review_int(json_object_get(r->roots, "pending"), "generated") +
	    review_int(json_object_get(r->roots, "pending"), "stored");
	if (pending > 0)
		buf_addf(&o,
		    "\n%" JSON_INTEGER_FORMAT " bucket%s still being reduced when the review ended "
		    "(--settle %ld).\n",
		    pending, pending == 1 ? " was" : "s were", r->settle_s);

	review_md_asan(r, &o);
	buf_adds(&o, "\n#### ext/json/tests\n\n");
	review_md_body(&o, r->phpt_line);
	buf_adds(&o, "\n#### Instructions per json_encode() call\n\n");
	review_md_body(&o, r->measure_md);
	return buf_detach(&o, NULL);
}

static char *review_json_report(const struct review *r)
{
	json_t *o = json_object(), *builds = json_array(), *causes = json_object_get(r->roots, "causes");
	char *markdown = review_markdown(r);
	char *text;

	for (int b = 0; b < r->cur->nbuilds; b++) {
		const struct review_build *rb = &r->cur->builds[b];
		json_t *j = json_pack(
		    "{s:s,s:s,s:s}", "name", rb->name, "role", rb->role, "prefix", rb->prefix);
		if (rb->candidate >= 0) {
			struct review_tally t = review_tally_of(r, rb);
			json_object_set_new(j, "candidate", json_string(r->cands[rb->candidate].name));
			if (rb->commit > 0)
				json_object_set_new(j, "commit", json_integer(rb->commit));
			json_object_set_new(j, "differs", json_boolean(review_build_differs(r, rb)));
			json_object_set_new(j, "generated_mismatches", json_integer(t.mismatches));
			json_object_set_new(j, "crashes", json_integer(t.crashes));
			json_object_set_new(j, "stored_differ", json_integer(t.stored_differ));
			json_object_set_new(j, "roots", json_integer(t.roots));
			if (review_memory_errors(r, rb->name) >= 0)
				json_object_set_new(
				    j, "asan_memory_errors", json_integer(review_memory_errors(r, rb->name)));
			json_object_set(j, "phpt_regressions", t.regressions ? t.regressions : json_array());
		}
		json_array_append_new(builds, j);
	}
	json_object_set_new(o, "verdict", json_string(review_verdict(r) ? "differ" : "same"));
	json_object_set_new(o, "builds", builds);
	json_object_set(o, "causes", causes);
	json_object_set_new(o, "runs",
	    json_pack("{s:I,s:I,s:I,s:I}", "generated", (json_int_t)r->run_generated, "stored",
	        (json_int_t)r->run_stored, "phpt", (json_int_t)r->run_phpt, "measure",
	        (json_int_t)r->run_measure));
	json_object_set(o, "generated", json_object_get(r->generated, "summary"));
	json_object_set(o, "phpt", json_object_get(r->phpt, "summary"));
	json_object_set(o, "measurements", r->measurements);
	json_t *asan = json_object();
	json_object_set_new(asan, "skipped", r->asan_skipped ? json_string(r->asan_skipped) : json_null());
	if (r->asan_skipped == NULL) {
		json_t *names = json_array();
		for (int b = 0; b < r->asan.nbuilds; b++)
			json_array_append_new(names, json_string(r->asan.builds[b].name));
		json_object_set_new(asan, "builds", names);
		json_object_set_new(asan, "count", json_integer(r->asan_count));
		json_object_set(asan, "generated", review_get(r->asan_generated, "summary"));
		json_object_set(asan, "causes", review_get(r->asan_roots, "causes"));
		json_object_set(asan, "samples", r->asan_samples ? r->asan_samples : json_null());
	}
	json_object_set_new(o, "asan", asan);
	json_object_set_new(o, "markdown", json_string(markdown != NULL ? markdown : ""));
	free(markdown);
	text = json_dumps(o, JSON_INDENT(1));
	json_decref(o);
	return text;
}

static int review_write(const struct review *r)
{
	char *text = r->json ? review_json_report(r) : review_markdown(r);
	FILE *f = stdout;
	int rc = 0;

	if (text == NULL)
		return cmd_error("review", "out of memory writing the report");
	if (r->out_path != NULL && (f = fopen(r->out_path, "w")) == NULL) {
		free(text);
		return cmd_error("review", "--out %s: %s", r->out_path, strerror(errno));
	}
	if (fputs(text, f) == EOF || (r->json && fputc('\n', f) == EOF))
		rc = cmd_error("review", "writing the report: %s", strerror(errno));
	if (f != stdout && fclose(f) != 0)
		rc = cmd_error("review", "--out %s: %s", r->out_path, strerror(errno));
	else if (f == stdout)
		fflush(stdout);
	free(text);
	return rc;
}

/* The review kept by the --url daemon (POST /api/reviews): the verdict, the
 * builds by both names, the runs and the Markdown report; 0, or -1 (said). */
static int review_keep(struct review *r, int verdict)
{
	char *md = review_markdown(r), *text = NULL;
	json_t *builds = json_array(), *body = NULL, *ans = NULL;
	int rc = -1;

	for (int i = 0; i < r->rel.nbuilds && builds != NULL; i++) {
		const struct review_build *b = &r->rel.builds[i];
		json_t *patches = json_array();
		for (int p = 0; p < b->npatches; p++)
			json_array_append_new(patches, json_string(review_base_name(b->patches[p])));
		json_array_append_new(builds,
		    json_pack("{s:s s:s s:i s:o}", "name", b->name, "daemon_name", b->dname, "commit",
		        b->commit, "patches", patches));
	}
	if (md != NULL && builds != NULL)
		body = json_pack("{s:s s:s s:O s:{s:I s:I s:I s:I} s:s}", "label", r->label, "verdict",
		    verdict ? "differ" : "same", "builds", builds, "runs", "generated",
		    (json_int_t)r->run_generated, "stored", (json_int_t)r->run_stored, "phpt",
		    (json_int_t)r->run_phpt, "measure", (json_int_t)r->run_measure, "report_md", md);
	if (body == NULL || (text = json_dumps(body, JSON_COMPACT)) == NULL) {
		cmd_error("review", "out of memory keeping the review");
		goto out;
	}
	if ((ans = review_json(r, "POST", "/api/reviews", text, 201, 201)) == NULL)
		goto out;
	review_say(r, "the review is kept on the daemon: %s%s", r->url, review_str(ans, "url"));
	rc = 0;
out:
	json_decref(ans);
	json_decref(body);
	json_decref(builds);
	free(text);
	free(md);
	return rc;
}

int review_command(int argc, char **argv)
{
	struct review r = { .count = REVIEW_DEFAULT_COUNT, .seed = 1, .settle_s = REVIEW_DEFAULT_SETTLE_S };
	int rc = 2, verdict;

	r.t0 = review_now();
	r.rel.what = "release";
	r.asan.what = "asan";
	r.asan.asan = 1;
	r.cur = &r.rel;
	if (review_parse(&r, argc, argv) < 0)
		return 2;
	if (r.src != NULL) { /* the commits' patches are written in the work folder */
		if (review_find_root(&r) < 0 || review_make_work(&r) < 0)
			return 2;
		if (review_src(&r) < 0 || review_plan(&r) < 0)
			goto out;
		review_src_drop_empty(&r);
	} else if (review_plan(&r) < 0) {
		return 2;
	}
	review_plan_asan(&r);
	if (r.src == NULL && (review_find_root(&r) < 0 || review_make_work(&r) < 0))
		return 2;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || (r.curl = curl_easy_init()) == NULL) {
		cmd_error("review", "libcurl failed to start");
		goto out;
	}
	if (r.url != NULL) {
		snprintf(r.rel.url, sizeof r.rel.url, "%s", r.url);
		if (review_attach(&r) < 0)
			goto out;
	}
	for (int i = 0; i < r.rel.nbuilds; i++)
		if (review_build_one(&r, &r.rel.builds[i]) < 0)
			goto out;
	if ((r.url != NULL ? review_register(&r) : review_serve(&r)) < 0 || review_roles(&r) < 0 ||
	    review_run_all(&r) < 0)
		goto out;
	review_stop(&r); /* everything is read: its cores are for the asan daemon now */
	if (!r.keep_builds)
		review_retire(&r);
	if (r.asan.nbuilds > 0 && review_run_asan(&r) < 0)
		goto out;
	verdict = review_verdict(&r);
	if (review_write(&r) < 0 || (r.url != NULL && review_keep(&r, verdict) < 0))
		goto out;
	review_say(&r, "verdict: %s (exit %d)", verdict ? "differences" : "the same", verdict);
	rc = verdict;
out:
	r.cur = &r.asan;
	review_stop(&r);
	r.cur = &r.rel;
	review_stop(&r);
	if (r.url != NULL && !r.keep_builds && r.curl != NULL)
		review_retire(&r); /* a review that failed midway leaves none behind either */
	if (r.curl != NULL) {
		curl_easy_cleanup(r.curl);
		curl_global_cleanup();
	}
	if (rc == 2 && r.work[0])
		fprintf(stderr, "phpcmp review: the work folder is kept: %s\n", r.work);
	else if (r.work_arg == NULL && r.work[0] && rmtree(r.work) < 0)
		fprintf(stderr, "phpcmp review: %s: cannot remove: %s\n", r.work, strerror(errno));
	json_decref(r.generated);
	json_decref(r.stored);
	json_decref(r.phpt);
	json_decref(r.measure);
	json_decref(r.measurements);
	json_decref(r.roots);
	json_decref(r.asan_generated);
	json_decref(r.asan_roots);
	json_decref(r.asan_samples);
	json_decref(r.health);
	free(r.phpt_line);
	free(r.measure_md);
	return rc;
}
