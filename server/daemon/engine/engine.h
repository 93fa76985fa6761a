/*
 * The engine (layer 4): builds, workers, their sandbox, runs and generated
 * runs, and the daemon's shared state (struct app).  Uses storage (store.h),
 * the model and the leaf library.
 */
#ifndef PHPCMP_ENGINE_H
#define PHPCMP_ENGINE_H

#include <pthread.h>
#include <time.h>

#include "model.h"
#include "store.h"
#include "fairq.h"

/* ---- worker (daemon side) ---- */
enum worker_state { WORKER_STOPPED, WORKER_READY, WORKER_BUSY, WORKER_BACKOFF, WORKER_FAILED };

struct proto_page;
struct worker {
	struct build *build;
	pthread_mutex_t lock; /* one case at a time per worker */
	pid_t pid;            /* -1 when not running */
	int fd;               /* -1 when not running */
	int errfd;            /* the read end of its stderr (a pipe), -1 when not running */
	enum worker_state state;
	int consecutive_deaths; /* for restart backoff */
	int64_t restarts;
	int64_t cases_run;
	char last_failure[512];
	time_t last_failure_at;  /* when last_failure was written (wall clock), 0: never */
	int measuring;           /* runs under callgrind, counts instructions */
	struct worker *measurer; /* this build's measuring worker, started lazily */
	char sandbox_dir[4096];  /* its private folder while it runs (confine.c), else "" */
	char final_dump[4200];   /* a measuring worker: callgrind's dump at its exit (never kept) */
	/* A coverage build's worker: where its counters go when it exits
	 * (GCOV_PREFIX, with GCOV_PREFIX_STRIP leading folders of the paths
	 * compiled in taken off), never the shared build tree; "" for others. */
	char gcov_prefix[4096];
	int gcov_strip;
	struct proto_page *page; /* the progress page it writes (proto.h), mapped; NULL: none */
	int page_fd;             /* its memfd, handed to each new process as fd PROTO_PAGE_FD */
};

/* The workers' sandbox settings (confine.c, docs/sandbox.md). */
struct sandbox_config {
	char layers[64]; /* "all", "none" or e.g. "netns,seccomp,php" */
	const char *dir; /* where private folders are made; default $TMPDIR or /tmp */
	long long cpu_s, as, measure_as, fsize, nofile, nproc; /* -1: unlimited */
	long long disk;                /* what a worker's private folder may hold in all; -1: unlimited */
	const char *disable_functions; /* NULL: the worker's own list */
};

#define MAX_PHPT_DIRS 16

struct config {
	const char *db_path;      /* default phpcmp.db */
	const char *cases_dir;    /* default cases */
	const char *state_dir;    /* compiled worker cores; default state */
	const char *worker_bin;   /* the loader executable */
	const char *core_src;     /* server/core, for compiling cores */
	int case_timeout_ms;      /* default 5000 */
	const char *valgrind_bin; /* for measuring workers; default "valgrind" */
	int measure_timeout_ms;   /* a measured case under callgrind; default 120000 */
	int run_stored;           /* queue a stored-suite run at startup */
	const char *memory_limit; /* PHP memory_limit, default 128M */
	/* Who may write and how much is accepted (docs/config.md, docs/hardening.md) */
	int read_auth;           /* GET /api/... needs a token too; default 0 */
	int beyond_loopback;     /* listening on a non-loopback address: writes need a token */
	int max_callgrind_dumps; /* measured results' callgrind files kept; older ones deleted; 1000 */
	int max_case_requests;   /* POST /api/cases running at once; over it 503; default 64 */
	int max_queued_runs;     /* runs waiting to start; over it 429; default 16 */
	int64_t db_max_bytes;    /* database size cap (SQLite max_page_count); 0: none */
	/* Folders of .phpt tests a phpt run may read besides the default one
	 * (--phpt-dir, repeatable; phptrun_serve resolves them at startup). */
	int nphpt_dirs;
	const char *phpt_dirs[MAX_PHPT_DIRS];
	struct sandbox_config sandbox;
	/* The background reducer (reduce.c, docs/triage.md) */
	int reduce_budget_ms;       /* wall time per reduction; default 2000 */
	int reduce_max_executions;  /* cases run per reduction; default 400; 0: reduction off */
	int reduce_sample;          /* members reduced per bucket besides its representative; default 1 */
	int reduce_case_timeout_ms; /* one case run while reducing, at most; default 1000 */
	int reduce_max_pending;     /* submitted cases' buckets waiting for reduction; default 64 */
	int measure_budget_ms;      /* a submitted case's measured calls, in all, about; default 5000 */
	/* After each generated run, this many of its cases on the asan flavours
	 * of its builds (--asan-sample; --asan NAME=PREFIX each), so a memory
	 * error that changes no output is found too; 0: none (docs/generated.md). */
	int asan_sample;
	/* Every build registered, in order (base first), MAX_BUILD_SLOTS
	 * slots allocated at startup; slots are filled, never emptied (a
	 * retired build keeps its own).  Read the active ones with
	 * build_list; builds_lock guards nbuilds and the slots' filling. */
	int nbuilds;
	struct build *builds;
	pthread_mutex_t builds_lock;
	/* Where POST /api/builds may find a prefix (--builds-dir; default builds). */
	const char *builds_dir;
	/* Reference runtimes (reference.c, issue 49): which to load ("all" that
	 * are installed, "none", or "7.4,8.1"), the node binary that runs them
	 * (--node, found on PATH), the node_modules they are installed in (the
	 * page's: beside --web) and the worker's script folder (beside
	 * --core-src: server/reference). */
	const char *references;
	const char *node_bin;
	const char *modules_dir;
	const char *reference_src;
};

/* ---- build.c ---- */
/* Fill a build from name + prefix: find the library and headers, hash it. */
int build_discover(struct build *, const char *name, const char *prefix, char *err, size_t errsize);
/* A build's name: 1-63 of [A-Za-z0-9._-], and '@' after the first ("pr@2"). */
int build_name_ok(const char *, size_t);
/* The active builds (not retired, not an asan flavour, not a reference runtime) by role into
 * builds[] (NULL after the last): their count. */
int build_list(struct config *, struct build *builds[MAX_BUILDS]);
/* The active builds named (2 to MAX_BUILDS names, none twice), in that
 * order, into builds[]: n, or -1 with err naming the one that is not. */
int build_list_named(struct config *, const char *const names[], int n, struct build *builds[MAX_BUILDS],
    char *err, size_t errsize);
/* The build named so, active or retired (the newest of that name); NULL: none. */
struct build *build_find(struct config *, const char *name);
/* 1 when a build that is not retired -- an asan flavour too -- has this name. */
int build_name_active(struct config *, const char *name);
/* The asan flavour of b (--asan), active; NULL: none. */
struct build *build_asan_of(struct config *, const struct build *b);
/* The active build with this db_id (builds table); NULL: none (retired, or not loaded). */
struct build *build_active_by_id(struct config *, int64_t db_id);
/* The active builds of these db ids into out[] (NULL after the n-th):
 * -1 when all are there, else the index of the first that is not. */
int build_active_set(struct config *, const int64_t ids[], int n, struct build *out[MAX_BUILDS]);
/* Its slot in config->builds, the index of its worker in app->workers. */
int build_slot(const struct config *, const struct build *);
struct app;
/* The daemon's shared worker of b. */
struct worker *build_worker(struct app *, const struct build *);
/* Compile the worker cores of these builds where missing or stale, up to one
 * compiler per CPU at a time (docs/builds.md).
 * 0, or -1 with *failed the index of the build that failed (-1: none did). */
int build_compile_cores(
    struct build *const bs[], int n, const struct config *, int *failed, char *err, size_t errsize);

/* ---- sanitize.c: sanitizer builds (docs/sandbox.md) ---- */
/* Whether b's libphp needs libasan/libubsan (its DT_NEEDED): fills
 * b->sanitizer_preload.  0, or -1 when the library cannot be read. */
int sanitize_detect(struct build *b, char *err, size_t errsize);
/* The environment a sanitizer build's worker adds (NULL-terminated, static). */
const char *const *sanitize_env(const struct build *b);

/* ---- worker.c ---- */
int worker_init(struct worker *, struct build *);
/* Start the process now (at daemon startup); -1 with w->last_failure set. */
int worker_prestart(struct worker *, const struct config *);
void worker_release(struct worker *);
/* Stop its processes (and its measuring worker's), waiting for a case in
 * progress; it stays usable: the next case starts it again, unless its
 * build is retired. */
void worker_stop(struct worker *);
/*
 * Run one case on the worker, starting or restarting the process as needed.
 * Always fills r (a crash or timeout is a result).  Returns 0, or -1 only if
 * the worker cannot be started at all (r->status = STATUS_ERROR, failure set).
 */
int worker_run_case(struct worker *, const struct config *, const struct case_spec *, struct result *r);
/* The same within timeout_ms (> 0) when that is shorter than the configured
 * limit (the reducer's per-case bound and what is left of its budget): a
 * case still running then is killed and its result is a timeout. */
int worker_run_case_within(
    struct worker *, const struct config *, const struct case_spec *, int timeout_ms, struct result *r);
/*
 * The next case on a process that has run no case, as on a newly started
 * worker: a fork server's child leaves and its spare (forked from a parent
 * that never runs cases) takes over in about a millisecond; a worker that
 * is no fork server (under valgrind) is stopped and the next case starts
 * another.  Nothing when the worker is not running.  0, or -1 when the
 * worker did not answer (stopped too).
 */
int worker_renew(struct worker *, const struct config *);
/* Measured cases (iterations > 0) go to the build's measuring worker. */
const char *worker_state_name(enum worker_state);
/* The process that runs its cases: a fork server's current child, or the worker. */
pid_t worker_serving_pid(struct worker *);
struct proto_buf;
struct proto_msg;
/*
 * Send one request of any type and wait up to timeout_ms for the reply,
 * starting the worker if it is not running.  Always fills r (init'ed here):
 * 1 with *reply holding the answer, of whatever type (the caller releases
 * it); 0 when the worker died or timed out under the request (r is the
 * crash/timeout result; it was reaped and the next call starts a fresh one);
 * -1 when it cannot be started (r->failure says why).
 */
int worker_call(struct worker *, const struct config *, uint16_t type, const struct proto_buf *req,
    int timeout_ms, struct proto_msg *reply, struct result *r);
/* What a build's workers learn of it from their hello (written under the
 * workers' info lock, by the worker and by the measuring worker). */
struct build_info {
	char php_version[64];
	int64_t handler_offset;
	char sandbox[256];
};
/* A copy of b's php_version, handler_offset and sandbox, read under that lock. */
void worker_build_info(const struct build *b, struct build_info *out);
/* A PROTO_RESULT message's fields into r (result_init'ed). */
void worker_result_from_msg(struct result *r, const struct proto_msg *m);

/* ---- confine.c ---- */
#define CONFINE_MAX_ARGS 40
/* A worker's sandbox arguments, made by confine_prepare. */
struct confine_args {
	const char *v[CONFINE_MAX_ARGS]; /* after the loader's own arguments */
	int n;
	const char *pre[CONFINE_MAX_ARGS]; /* measuring: the loader that execs valgrind */
	int npre;
	char dumpdir[4200];
	char store[256];
	size_t used;
};
void confine_defaults(struct sandbox_config *);
/* A sandbox option (key without dashes): 1 taken, 0 not one, -1 bad value with err. */
int confine_option(struct sandbox_config *, const char *key, const char *value, char *err, size_t errsize);
/* Settings that cannot work together (memory-limit over limit-as...): -1 with err. */
int confine_check(const struct config *, char *err, size_t errsize);
/* Create the worker's private folder and its arguments; -1 with err. */
int confine_prepare(struct worker *, const struct config *, struct confine_args *, char *err, size_t errsize);
/* Remove the worker's private folder (when it has been reaped). */
void confine_release(struct worker *);
/* Remove the daemon's folder in the sandbox folder (every worker reaped). */
void confine_finish(void);

/* A reference runtime's command line before node's (sandbox-exec and its
 * options), made like confine_prepare's: 0, or -1 with err. */
int confine_reference(
    struct worker *, const struct config *, struct confine_args *, char *err, size_t errsize);
/* RLIMIT_AS for a reference's node (-1: none: V8 reserves more address space than it uses). */
long long confine_reference_as(const struct config *);
/* The node command line after the sandbox's words into argv (NULL-terminated, pointing
 * into t and the build): its count. */
struct reference_text {
	char script[4200], read_src[4200], read_mods[4200];
};
int confine_reference_argv(
    const struct worker *, const struct config *, const char **argv, int max, struct reference_text *t);

/* ---- reference.c: released PHP under Node as builds (issue 49, docs/references.md) ---- */
#define REFERENCE_MAX 16
/* The reference runtimes installed under cfg->modules_dir that --references
 * asks for, oldest first, as "7.4", "8.5"... into vers: their count. */
int reference_installed(const struct config *, char vers[REFERENCE_MAX][8]);
/* Fill b as reference runtime "php-X.Y" (its package, identity, node); 0 or -1 with err. */
int reference_discover(struct build *b, const struct config *, const char *ver, char *err, size_t errsize);
/*
 * worker_call for a reference: PROTO_GEN_BATCH and PROTO_GEN_DETAIL, which a
 * reference cannot make itself, rendered here and sent as PROTO_REF_BATCH
 * (or a PROTO_CASE), their answers made into what a native core replies
 * (PROTO_GEN_DIGESTS, a PROTO_RESULT with TAG_GEN_CODE...).  Same contract
 * as worker_call.
 */
int reference_call(struct worker *, const struct config *, uint16_t type, const struct proto_buf *req,
    int timeout_ms, struct proto_msg *reply, struct result *r);
/* A run's builds for its "base" (run_params.base): that build (a reference runtime,
 * or any active build), then every other active build as a candidate.  Their count,
 * or -1 with err (no such build; no candidate). */
int reference_run_builds(
    struct config *, const char *base, struct build *builds[MAX_BUILDS], char *err, size_t errsize);
/* worker_call without that translation: the frame as it is (reference.c). */
/* What worker_call hands a reference's messages to: reference_call, set at startup
 * (builds_references) -- a hook, so that worker.c does not depend on reference.c. */
extern int (*worker_reference_call)(struct worker *, const struct config *, uint16_t type,
    const struct proto_buf *req, int timeout_ms, struct proto_msg *reply, struct result *r);
int worker_exchange(struct worker *, const struct config *, uint16_t type, const struct proto_buf *req,
    int timeout_ms, struct proto_msg *reply, struct result *r);

struct runs;
struct reducer;

/* The daemon's shared state, owned by main.c and handed to each module. */
struct app {
	struct config *config;
	struct db *db;
	struct runs *runs;
	struct reducer *reducer; /* reduce.c */
	struct worker *workers;  /* workers[i] runs config->builds[i] (MAX_BUILD_SLOTS) */
	/* The builds of the run in progress by role, base first, as the run
	 * recorded them (runs_execute sets them; only the runs thread and the
	 * threads it starts read them). */
	struct build *run_builds[MAX_BUILDS];
	int run_nbuilds;
	/* A coverage run's own workers for its coverage builds (coverage.c),
	 * NULL otherwise: the run thread's cases go there, nothing else does. */
	struct worker *run_workers[MAX_BUILDS];
	int64_t started_ms; /* CLOCK_MONOTONIC, for uptime */
	int case_requests;  /* POST /api/cases in progress (atomic) */
	/* Measured cases take turns on the measuring workers, fair between
	 * clients (fairq.h, runs_pair_as). */
	struct fairq measure_q;
	int stopping; /* set (atomic) before the HTTP server stops: waits end */
};

/* ---- runs.c ---- */
struct runs *runs_start(struct app *, char *err, size_t errsize);
/* Stop after the current case; the run in progress is marked interrupted. */
void runs_stop(struct runs *);
/* Keep the callgrind files of the newest --max-callgrind-dumps measured
 * results; older ones are deleted (their /functions then say "gone"). */
void runs_prune_dumps(struct app *);
/* A measured result's callgrind file that will not be stored: deleted. */
void runs_drop_dump(struct app *, const char *path);
/*
 * Run one case on builds[0..n-1] at once (one thread per build), filling
 * res[0..n-1] (which the caller result_init()s and releases).  -1 when a worker cannot be
 * started at all (res still filled).
 */
int runs_pair(struct app *, struct build *const builds[], int n, const struct case_spec *,
    struct result res[MAX_BUILDS]);
/* The same for a client (a measured case waits its turn among the
 * clients' on the measuring workers: fairq.h; NULL: a run's own). */
int runs_pair_as(struct app *, struct build *const builds[], int n, const struct case_spec *,
    struct result res[MAX_BUILDS], const char *client);
/* Why runs_create/cancel/resume refused, with err saying it (api_runs.c maps these). */
enum runs_refusal {
	RUNS_OK = 0,
	RUNS_BAD_REQUEST, /* the body's suite or parameters */
	RUNS_NOT_FOUND,
	RUNS_CONFLICT,      /* not in a state for it, or made with other builds */
	RUNS_TOO_MANY,      /* --max-queued-runs are waiting */
	RUNS_FAILED,        /* storage (db_last_error says what) or out of memory */
	RUNS_NOT_SERVED,    /* a phpt run's dir or files outside the served folders (400) */
	RUNS_UNPROCESSABLE, /* a reference runtime as the base of a suite it cannot run (422) */
};
/* The fields a suite's parameters may have (runparams.h), NULL-terminated;
 * NULL: no such suite. */
const char *const *runs_suite_fields(const char *suite);
/* Queue a run of a suite with its parameters (read with runs_suite_fields);
 * RUNS_OK with *id, else a refusal and err.  names: the builds it compares
 * (nnames 0: every active build), the body's "builds" as the API read them. */
int runs_create(struct runs *, const char *suite, const struct run_params *, const char *const names[],
    int nnames, int64_t *id, char *err, size_t errsize);
/* Cancel a queued or running run; RUNS_OK, or a refusal and err. */
int runs_cancel(struct runs *, int64_t id, char *err, size_t errsize);
/*
 * Queue an interrupted, failed or cancelled run again; it continues where it
 * stopped, skipping the cases it already compared.  RUNS_OK, or a refusal
 * and err.
 */
int runs_resume(struct runs *, int64_t id, char *err, size_t errsize);

/* ---- genrun.c ---- */
enum genrun_end { GENRUN_DONE, GENRUN_FAILED, GENRUN_CANCELLED, GENRUN_INTERRUPTED };

/* A generated run has seed or seeds, and count: 0, or -1 with err. */
int genrun_check(const struct run_params *, char *err, size_t errsize);
/* Execute a run; stop(arg, &cancelled) is asked between batches. */
enum genrun_end genrun_execute(struct app *, const struct db_run *, int (*stop)(void *arg, int *cancelled),
    void *arg, char *err, size_t errsize);
/* The generator's version (server/common/gen.h). */
int genrun_version(void);
/* 0 when a stopped generated run cannot resume here (made by another generator version), err why. */
int genrun_resumable(const struct db_run *, char *err, size_t errsize);
/* The PHP_VERSION_ID generated cases are made for on these builds: the oldest's, or
 * GEN_PHP_ALL (0) when it compiles every construct (gen_php_floor). */
uint32_t genrun_php(struct build *const *builds, int n);
/* ... and no newer than a run's "php" (0: none). */
uint32_t genrun_php_upto(struct build *const *builds, int n, uint32_t php);
/* A generated case (made for PHP `php`, genrun_php) as PHP source to run like any case
 * (title, code, setup, flags, depth). */
int genrun_case_spec(uint64_t seed, uint64_t index, uint32_t php, struct case_spec *c);
/* That case run by a build's worker from its generated value (no PHP compiled): 0 with r
 * filled (a crash is a result), -1 when the worker cannot start. */
int genrun_detail(
    struct app *, struct build *, uint64_t seed, uint64_t index, uint32_t php, struct result *r);
/* A generated run's cases (GET /api/runs/{id}/cases): every listed mismatch,
 * newest first (f->before: a position in the list); read-only, so a mismatch
 * not stored in full comes with id 0 and its (seed, index). */
int genrun_cases_list(
    struct app *, const struct db_case_filter *f, db_case_row_fn fn, void *arg, char *err, size_t errsize);
/* POST /api/runs/{id}/cases: one listed mismatch stored in full (*case_id when stored). */
enum genrun_stored {
	GENRUN_STORE_FAILED = -1, /* err says why */
	GENRUN_NOT_LISTED,        /* (seed, index) is no mismatch of the run */
	GENRUN_OTHER_BUILDS,      /* the daemon runs other builds than the run did */
	GENRUN_STORED_BEFORE,
	GENRUN_STORED_NOW,
};
enum genrun_stored genrun_case_store(
    struct app *, int64_t run_id, uint64_t seed, int64_t index, int64_t *case_id, char *err, size_t errsize);

/* ---- reduce.c: mismatches reduced to minimal reproducers in the background ---- */
/* Start its thread (none when --reduce-max-executions is 0); NULL with err. */
struct reducer *reduce_start(struct app *, char *err, size_t errsize);
/* Look for work now rather than at its next poll. */
void reduce_wake(struct reducer *);
/* Stop after the current candidate; its workers stopped. */
void reduce_stop(struct reducer *);
/* What the reducer did since the daemon started. */
struct reduce_stats {
	int enabled;
	int64_t reductions, executions;
	double seconds;
	int64_t busy_bucket_id; /* the bucket being reduced now, 0: none */
};
/* 1 with *out, 0 when there is no reducer. */
int reduce_status(struct reducer *, struct reduce_stats *out);

/* ---- phptrun.c: php-src's .phpt tests (docs/phpt.md) ---- */
/* 0, or -2 with err (naming the served folders, never whether the path
 * exists) for dir or files outside them. */
int phptrun_check(const struct run_params *, char *err, size_t errsize);
/* At startup: the default folder (when it exists) and every --phpt-dir,
 * each resolved once (realpath) and held open; -1 with err for a
 * --phpt-dir that is missing, not a folder, /, or under /proc, /sys, /dev. */
int phptrun_serve(const struct config *, char *err, size_t errsize);
void phptrun_unserve(void);
/* The run's tests (dir or files of its parameters): the state, *total set; NULL with err. */
void *phptrun_open(const struct run_params *, int64_t *total, char *err, size_t errsize);
void phptrun_close(void *state);
enum genrun_end phptrun_execute(struct app *, const struct db_run *, void *state,
    int (*stop)(void *arg, int *cancelled), void *arg, char *err, size_t errsize);
/* report.md's line of a phpt run, malloc'd; NULL for other runs. */
char *phptrun_report_line(const struct db_run *);
/* report.md of a phpt run: 1 with *md (malloc'd), 0 for other runs, -1 out of memory. */
int phptrun_report_md(struct app *, int64_t run_id, char **md);

/* ---- coverage.c: line and branch coverage of ext/json for a run (docs/coverage.md) ---- */
/* The worker a run's cases of build i go to: its coverage worker, else the shared one. */
struct worker *coverage_worker(struct app *, int i);
/* A coverage build's shared workers: their counters under STATE/coverage/idle/NAME; 0 or -1. */
int coverage_idle(struct worker *, const struct config *, char *err, size_t errsize);
/* A run's "coverage" on these builds: 0 fine (not asked, or possible), -1
 * with err when no coverage build is among them. */
int coverage_check(struct build *const builds[], int n, const struct run_params *, char *err, size_t errsize);
/* The run's own workers for each coverage build into app->run_workers; 0 or -1. */
int coverage_begin(struct app *, int64_t run_id, int resumed, char *err, size_t errsize);
/* Stop them (they write their counters), run gcovr, store each summary; 0 or -1. */
int coverage_end(struct app *, const struct db_run *, char *err, size_t errsize);
/* A report file's path: 0; -1 a bad role or name; -2 no such file; err says it. */
int coverage_file(struct app *, int64_t run_id, const char *role, const char *name, char *path, size_t size,
    char *err, size_t errsize);
/* report.md's coverage lines of a run, malloc'd; NULL when it has none. */
char *coverage_report_md(struct app *, int64_t run_id);

#endif
