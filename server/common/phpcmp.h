/*
 * phpcmp: the daemon's shared types and every module's public functions,
 * grouped by the file that defines them.  Everything not listed here is
 * static to its file.
 */
#ifndef PHPCMP_H
#define PHPCMP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PHPCMP_VERSION "0.1.0"

/* Limits: every length that crosses a boundary has one. */
#define MAX_BODY_SIZE (1u << 20)   /* HTTP request body */
#define MAX_CODE_SIZE (256u << 10) /* a case's value or setup code */
#define MAX_TITLE_SIZE 512
#define MAX_BUILDS 2

/* ---- a byte string that may hold anything, NUL-terminated for convenience */
struct bytes {
	char *data; /* NULL when absent */
	size_t len;
};

/* ---- case ---- */
struct case_spec {
	char *title;
	char *code;      /* expression, or statements ending in `return ...;` */
	char *setup;     /* optional, may be NULL */
	long flags;      /* json_encode flags */
	long depth;      /* json_encode depth, default 512 */
	char *expect;    /* optional expected output, NULL if none */
	long iterations; /* > 0: measured workload, instructions per call */
	char *source;    /* stored case: path under cases/, else NULL */
};

/* ---- result ---- */
enum result_status {
	STATUS_OK = 0,
	STATUS_ERROR = 1,   /* the case failed: parse error, fatal, exit... */
	STATUS_CRASH = 2,   /* the worker died from a signal */
	STATUS_TIMEOUT = 3, /* the case ran past the time limit */
};

struct result {
	enum result_status status;
	int signal;          /* for STATUS_CRASH */
	int output_is_false; /* json_encode returned false */
	struct bytes output;
	long error_code;           /* json_last_error() */
	char *error_msg;           /* json_last_error_msg() */
	char *exc_class, *exc_msg; /* NULL if nothing was thrown */
	struct bytes printed;
	char *warnings;       /* newline-separated, "" if none */
	char *failure;        /* why status != ok, else NULL */
	int64_t instructions; /* per call (rounded), -1 when not measured */
	int64_t instr_total;  /* exact count over all measured calls, -1 */
	char *dump_file;      /* the callgrind dump holding instr_total */
	double wall_ms;
};

/* ---- verdict ---- */
enum verdict_field {
	DIFF_STATUS = 1 << 0,
	DIFF_OUTPUT = 1 << 1,
	DIFF_ERROR_CODE = 1 << 2,
	DIFF_ERROR_MSG = 1 << 3,
	DIFF_EXCEPTION = 1 << 4,
	DIFF_PRINTED = 1 << 5,
	DIFF_WARNINGS = 1 << 6,
};

/* ---- build ---- */
#define BUILD_MAX_INI 8

struct build {
	char name[64];
	char prefix[4096];      /* as configured */
	char lib_path[4096];    /* .../libphp*.so */
	char include_dir[4096]; /* the folder holding main/php.h */
	char sha256[65];
	char php_version[64];   /* from the worker's hello */
	char core_path[4096];   /* compiled worker core for this build */
	int64_t handler_offset; /* zif_json_encode in the library (from the worker) */
	char sandbox[256];      /* the worker's sandbox layers in force (from its hello) */
	int64_t db_id;
	/* ini settings given to this build only (--ini NAME:k=v), "k=v" each */
	char ini[BUILD_MAX_INI][256];
	int nini;
};

/* ---- worker (daemon side) ---- */
enum worker_state { WORKER_STOPPED, WORKER_READY, WORKER_BUSY, WORKER_BACKOFF, WORKER_FAILED };

struct proto_page;
struct worker {
	struct build *build;
	pthread_mutex_t lock; /* one case at a time per worker */
	pid_t pid;            /* -1 when not running */
	int fd;               /* -1 when not running */
	enum worker_state state;
	int consecutive_deaths; /* for restart backoff */
	int64_t restarts;
	int64_t cases_run;
	char last_failure[512];
	int measuring;           /* runs under callgrind, counts instructions */
	struct worker *measurer; /* this build's measuring worker, started lazily */
	char sandbox_dir[4096];  /* its private folder while it runs (confine.c), else "" */
	struct proto_page *page; /* the progress page it writes (proto.h), mapped; NULL: none */
	int page_fd;             /* its memfd, handed to each new process as fd PROTO_PAGE_FD */
};

/* The workers' sandbox settings (confine.c, docs/sandbox.md). */
struct sandbox_config {
	char layers[64]; /* "all", "none" or e.g. "netns,seccomp,php" */
	const char *dir; /* where private folders are made; default $TMPDIR or /tmp */
	long long cpu_s, as, measure_as, fsize, nofile, nproc; /* -1: unlimited */
	const char *disable_functions;                         /* NULL: the worker's own list */
};

struct config {
	const char *listen_addr;  /* default 127.0.0.1 */
	int port;                 /* default 8080 */
	const char *db_path;      /* default phpcmp.db */
	const char *cases_dir;    /* default cases */
	const char *web_dir;      /* default web */
	const char *state_dir;    /* compiled worker cores; default state */
	const char *worker_bin;   /* the loader executable */
	const char *core_src;     /* server/core, for compiling cores */
	int case_timeout_ms;      /* default 5000 */
	const char *valgrind_bin; /* for measuring workers; default "valgrind" */
	int measure_timeout_ms;   /* a measured case under callgrind; default 120000 */
	int run_stored;           /* queue a stored-suite run at startup */
	const char *memory_limit; /* PHP memory_limit, default 128M */
	/* Who may write and how much is accepted (docs/config.md, docs/hardening.md) */
	int read_auth;         /* GET /api/... needs a token too; default 0 */
	int max_connections;   /* HTTP connections served; over it 503; default 128 */
	int max_case_requests; /* POST /api/cases running at once; over it 503; default 64 */
	int max_queued_runs;   /* runs waiting to start; over it 429; default 16 */
	int64_t db_max_bytes;  /* database size cap (SQLite max_page_count); 0: none */
	struct sandbox_config sandbox;
	int nbuilds;
	struct build builds[MAX_BUILDS];
};

/* ---- bytes.c ---- */
void bytes_set(struct bytes *, const void *data, size_t len);
void bytes_release(struct bytes *);
/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid; its code point in *cp. */
size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp);
int utf8_valid(const char *s, size_t len);
/* A whole regular file of at most max bytes, NUL-terminated; NULL with err. */
char *bytes_read_file(const char *path, size_t max, size_t *len, char *err, size_t errsize);

/* ---- result.c ---- */
void result_init(struct result *);
void result_release(struct result *);
const char *result_status_name(enum result_status);
int result_status_parse(const char *name); /* -1 if unknown */
/* Bitmask of enum verdict_field; 0 means "same". */
unsigned verdict_compare(const struct result *a, const struct result *b);
/* The worker did not keep json_encode's output: over PROTO_MAX_OUTPUT. */
int result_output_too_large(const struct result *);
/* "output,error_code"-style list of differing fields, for JSON and SQL. */
void verdict_fields(unsigned diff, char *buf, size_t bufsize);

/* ---- flags.c ---- */
/* Parse "JSON_A|JSON_B" or a decimal int. 0 ok, -1 with the unknown name in err. */
int flags_parse(const char *s, long *flags, char *err, size_t errsize);
/* Flag name for a single bit, or NULL. */
const char *flags_name(long bit);
/* "JSON_A|JSON_B" (or "0") into buf. */
void flags_format(long flags, char *buf, size_t bufsize);
/* Number of known flags and each one, for listing. */
size_t flags_count(void);
const char *flags_name_at(size_t i, long *value);

/* ---- casefile.c ---- */
void case_init(struct case_spec *);
void case_release(struct case_spec *);
/* Parse a stored case file's text. 0 ok, -1 with a message in err. */
int casefile_parse(const char *text, size_t len, struct case_spec *c, char *err, size_t errsize);
/* Render a case in the stored format (malloc'd). */
char *casefile_format(const struct case_spec *c);

/* ---- build.c ---- */
/* Fill a build from name + prefix: find the library and headers, hash it. */
int build_discover(struct build *, const char *name, const char *prefix, char *err, size_t errsize);
/* Compile the worker core for this build if missing or stale. */
int build_compile_core(struct build *, const struct config *, char *err, size_t errsize);

/* ---- worker.c ---- */
int worker_init(struct worker *, struct build *);
/* Start the process now (at daemon startup); -1 with w->last_failure set. */
int worker_prestart(struct worker *, const struct config *);
void worker_release(struct worker *);
/*
 * Run one case on the worker, starting or restarting the process as needed.
 * Always fills r (a crash or timeout is a result).  Returns 0, or -1 only if
 * the worker cannot be started at all (r->status = STATUS_ERROR, failure set).
 */
int worker_run_case(struct worker *, const struct config *, const struct case_spec *, struct result *r);
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

/* ---- main.c ---- */
/* Roles by position in config->builds: [0] is the base, [1] the head. */
#define ROLE_BASE 0
#define ROLE_HEAD 1

struct db;
struct runs;

/* The daemon's shared state, owned by main.c and handed to each module. */
struct app {
	struct config *config;
	struct db *db;
	struct runs *runs;
	struct worker workers[MAX_BUILDS]; /* workers[i] runs config->builds[i] */
	int64_t started_ms;                /* CLOCK_MONOTONIC, for uptime */
	int case_requests;                 /* POST /api/cases in progress (atomic) */
};

const char *app_role_name(int role); /* "base" / "head" */
int64_t app_now_ms(void);            /* CLOCK_MONOTONIC in ms */

/* ---- db.c ---- */
struct db_case {
	int64_t id;
	struct case_spec spec;
	char created_at[32];
};

struct db_comparison {
	int64_t id, case_id;
	int64_t run_id;    /* 0 for a submitted case */
	char verdict[8];   /* "same" / "differ" */
	char differs[128]; /* verdict_fields() list */
	char created_at[32];
	char build_names[MAX_BUILDS][64];  /* by role */
	struct result results[MAX_BUILDS]; /* by role */
};

/* A line of a case listing or of a case's history; valid during the callback. */
struct db_case_row {
	int64_t id, comparison_id, run_id;
	const char *title, *verdict, *differs, *created_at, *source;
	long flags;
	int64_t cursor; /* > 0: the listing's position for `before` (else id) */
};

/* A generated run's mismatch, listed with its batch (generated_mismatches). */
struct db_gen_mismatch {
	int64_t seq; /* read back: its position in the run's list */
	uint64_t seed;
	int64_t index;
	const char *signature;
	const unsigned char *digest[MAX_BUILDS]; /* GEN_DIGEST_SIZE bytes each, or NULL */
	int64_t case_id;                         /* 0: not stored in full (yet) */
};
typedef int (*db_gen_mismatch_fn)(void *arg, const struct db_gen_mismatch *);

struct db_case_filter {
	const char *verdict; /* "same" / "differ", NULL for any */
	int source;          /* 0 any, 1 stored, 2 submitted */
	int64_t run_id;      /* > 0: the comparisons of this run */
	int64_t before;      /* > 0: ids below this one (keyset pagination) */
	int limit;
};

struct db_run {
	int64_t id;
	char suite[32];
	char status[16];
	char *params; /* JSON text, malloc'd */
	char build_names[MAX_BUILDS][64];
	char build_versions[MAX_BUILDS][64];
	int64_t total, done, same, differ;
	char created_at[32], started_at[32], finished_at[32]; /* "" when unset */
	char *error;                                          /* NULL when none, malloc'd */
	char *summary; /* the suite's JSON summary, NULL when none, malloc'd */
};

typedef int (*db_case_row_fn)(void *arg, const struct db_case_row *);
typedef int (*db_run_fn)(void *arg, const struct db_run *);

struct db *db_open(const char *path, char *err, size_t errsize);
void db_close(struct db *);
/* Record a build (one row per name and sha256); sets b->db_id. */
int db_build_record(struct db *, struct build *b, char *err, size_t errsize);
/* Mark runs left queued or running as interrupted; the count or -1. */
int db_runs_interrupt(struct db *, char *err, size_t errsize);
/*
 * Store a case (reusing an identical one), its comparison and both results
 * in one transaction; with run_id > 0 also count it in the run's progress.
 */
int db_comparison_store(struct db *, const struct case_spec *, int64_t run_id,
    struct build *const builds[MAX_BUILDS], const struct result res[MAX_BUILDS], unsigned diff,
    int64_t *case_id, int64_t *comparison_id, char *err, size_t errsize);
/* The same, leaving the run's counts alone (a generated mismatch, counted with its batch). */
int db_comparison_store_uncounted(struct db *, const struct case_spec *, int64_t run_id,
    struct build *const builds[MAX_BUILDS], const struct result res[MAX_BUILDS], unsigned diff,
    int64_t *case_id, int64_t *comparison_id, char *err, size_t errsize);
/* Getters answer 1 found, 0 not found, -1 error. */
int db_case_get(struct db *, int64_t id, struct db_case *out, char *err, size_t errsize);
void db_case_release(struct db_case *);
/* comparison_id > 0 loads that one, else the case's latest. */
int db_comparison_get(struct db *, int64_t case_id, int64_t comparison_id, struct db_comparison *out,
    char *err, size_t errsize);
void db_comparison_release(struct db_comparison *);
/* Listings call fn per row (under the db lock: no db calls from fn); rows or -1. */
int db_case_history(struct db *, int64_t case_id, db_case_row_fn fn, void *arg, char *err, size_t errsize);
int db_cases_list(
    struct db *, const struct db_case_filter *, db_case_row_fn fn, void *arg, char *err, size_t errsize);
int db_run_create(struct db *, const char *suite, const char *params, struct build *const builds[MAX_BUILDS],
    int64_t *id, char *err, size_t errsize);
int db_run_get(struct db *, int64_t id, struct db_run *out, char *err, size_t errsize);
void db_run_release(struct db_run *);
int db_runs_list(struct db *, int64_t before, int limit, db_run_fn fn, void *arg, char *err, size_t errsize);
/* The oldest queued run: 1, 0 when none, -1. */
int db_run_next_queued(struct db *, struct db_run *out, char *err, size_t errsize);
/* queued -> running with its total; 1 done, 0 if no longer queued (cancelled), -1. */
int db_run_start(struct db *, int64_t id, int64_t total, const char *error, char *err, size_t errsize);
/* running -> done/failed/cancelled/interrupted; error may be NULL. */
int db_run_finish(struct db *, int64_t id, const char *status, const char *error, char *err, size_t errsize);
/* queued -> cancelled: 1 done, 0 if it was not queued, -1. */
int db_run_cancel_queued(struct db *, int64_t id, char *err, size_t errsize);
/* Generated runs: the run's summary (JSON text); a batch's same cases counted in
 * the run's progress with every case's result hash (8 bytes each); which
 * generated case a stored case is. */
int db_run_summary(struct db *, int64_t run_id, const char *summary, char *err, size_t errsize);
/* A batch's result hashes, its mismatches listed, the run's progress: one transaction. */
int db_generated_batch(struct db *, int64_t run_id, uint64_t seed, int64_t start, int64_t count,
    const void *hashes, size_t len, int64_t same, const struct db_gen_mismatch *mismatches,
    size_t nmismatches, char *err, size_t errsize);
/* A run's listed mismatches, newest first, below position `before` (0: all). */
int db_generated_mismatches(struct db *, int64_t run_id, int64_t before, int limit, db_gen_mismatch_fn fn,
    void *arg, char *err, size_t errsize);
/* A run's mismatches of one signature, oldest first (the samples come first). */
int db_generated_signature(struct db *, int64_t run_id, const char *signature, int limit,
    db_gen_mismatch_fn fn, void *arg, char *err, size_t errsize);
/* The case stored in full for a listed mismatch. */
int db_generated_link(
    struct db *, int64_t run_id, uint64_t seed, int64_t index, int64_t case_id, char *err, size_t errsize);
/* The case this run stored in full for a generated case: 1 (*case_id), 0 none, -1. */
int db_run_generated_case(struct db *, int64_t run_id, int version, uint64_t seed, int64_t index,
    int64_t *case_id, char *err, size_t errsize);
/* The listing row of one case's comparison in a run: 1 (fn called), 0 none, -1. */
int db_run_case_row(
    struct db *, int64_t run_id, int64_t case_id, db_case_row_fn fn, void *arg, char *err, size_t errsize);
/* The builds a run was made with (db ids). */
int db_run_builds(struct db *, int64_t run_id, int64_t ids[MAX_BUILDS], char *err, size_t errsize);
int db_generated_case(
    struct db *, int64_t case_id, int version, uint64_t seed, uint64_t index, char *err, size_t errsize);
/* A resumed run: the count of a batch it stored already, 0 if none, -1. */
int64_t db_generated_batch_stored(
    struct db *, int64_t run_id, uint64_t seed, int64_t start, char *err, size_t errsize);
/* Runs waiting as 'queued': the count, or -1. */
int db_runs_queued(struct db *, char *err, size_t errsize);
/*
 * interrupted/failed/cancelled -> queued again, if it was made with these
 * builds: 1 done, 0 if not (in such a state, or with these builds), -1.
 */
int db_run_resume(struct db *, int64_t id, struct build *const builds[MAX_BUILDS], char *err, size_t errsize);
/* Does run_id already hold a comparison of this case?  1, 0, -1. */
int db_run_has_case(struct db *, int64_t run_id, const struct case_spec *, char *err, size_t errsize);
/* Cap the database file at max_bytes (rounded to pages); 0 leaves it unbounded. */
int db_set_max_bytes(struct db *, int64_t max_bytes, char *err, size_t errsize);
/*
 * The HTTP answer to the calling thread's last failed db_* call, the one
 * place SQLite's errors are mapped: 503 for a full, read-only or busy
 * database (*code "storage_full", "storage_readonly", "storage_unavailable",
 * "storage_busy", with *retry_after seconds), 500 "storage_corrupt" or
 * "internal" otherwise.
 */
int db_error_status(const char **code, int *retry_after);

/* API tokens (server/daemon/auth.c): only the SHA-256 of a token is stored. */
struct db_token {
	int64_t id;
	const char *name, *created_at, *last_used_at, *revoked_at; /* NULL when unset */
};
typedef int (*db_token_fn)(void *arg, const struct db_token *);
/* 1 added (*id), 0 when an active token already has that name, -1. */
int db_token_add(struct db *, const char *name, const char *hash, int64_t *id, char *err, size_t errsize);
/* The token with this hash, revoked or not: 1 (fn called once), 0 unknown, -1. */
int db_token_find(struct db *, const char *hash, db_token_fn fn, void *arg, char *err, size_t errsize);
/* Tokens not revoked: the count, or -1. */
int db_tokens_active(struct db *, char *err, size_t errsize);
int db_tokens_list(struct db *, db_token_fn fn, void *arg, char *err, size_t errsize);
/* Revoke the active token with this id (id > 0) or name: 1, 0 none such, -1. */
int db_token_revoke(struct db *, int64_t id, const char *name, char *err, size_t errsize);
/* Note a use (at most once a minute per token; failures ignored). */
void db_token_used(struct db *, int64_t id);

/* Measurements (instruction counts); rows valid during the callback. */
struct db_measurement {
	int64_t case_id, comparison_id, iterations;
	const char *title, *source;
	const char *status[MAX_BUILDS];  /* by role */
	int64_t instr_total[MAX_BUILDS]; /* -1: not measured */
};
struct db_workload_point {
	int64_t run_id, case_id, comparison_id, iterations;
	const char *run_created_at, *title, *source;
	int64_t instr_total[MAX_BUILDS];
	const char *build_name[MAX_BUILDS], *build_version[MAX_BUILDS], *build_sha[MAX_BUILDS];
};
typedef int (*db_measurement_fn)(void *arg, const struct db_measurement *);
typedef int (*db_workload_point_fn)(void *arg, const struct db_workload_point *);
int db_run_measurements(
    struct db *, int64_t run_id, db_measurement_fn fn, void *arg, char *err, size_t errsize);
/* A workload's counts across runs, newest first: by source file, or (source NULL) by case id. */
int db_workload_history(struct db *, const char *source, int64_t case_id, int limit, db_workload_point_fn fn,
    void *arg, char *err, size_t errsize);
/* The callgrind dump of a result: 1 found (path filled), 0 none, -1. */
int db_dump_file(
    struct db *, int64_t comparison_id, int role, char *path, size_t pathsize, char *err, size_t errsize);

/* ---- runs.c ---- */
struct json_t;

struct runs *runs_start(struct app *, char *err, size_t errsize);
/* Stop after the current case; the run in progress is marked interrupted. */
void runs_stop(struct runs *);
/*
 * Run one case on every build at once (one thread per build), filling res
 * (which the caller result_init()s and releases).  -1 when a worker cannot be
 * started at all (res still filled).
 */
int runs_pair(struct app *, const struct case_spec *, struct result res[MAX_BUILDS]);
/* Queue a run from a request body; 0 with *id, else an HTTP status (400/429/500) and err. */
int runs_create(struct runs *, struct json_t *body, int64_t *id, char *err, size_t errsize);
/* Cancel a queued or running run; 0, or an HTTP status (404/409/500) and err. */
int runs_cancel(struct runs *, int64_t id, char *err, size_t errsize);
/*
 * Queue an interrupted, failed or cancelled run again; it continues where it
 * stopped, skipping the cases it already compared.  0, or an HTTP status
 * (404/409/429/500) and err.
 */
int runs_resume(struct runs *, int64_t id, char *err, size_t errsize);

/* ---- genrun.c ---- */
#define GENRUN_MAX_COUNT 10000000 /* cases per seed in one run */
#define GENRUN_MAX_SEEDS 16
#define GENRUN_MAX_START 9007199254740991 /* 2^53 - 1: exact in any JSON reader */

enum genrun_end { GENRUN_DONE, GENRUN_FAILED, GENRUN_CANCELLED, GENRUN_INTERRUPTED };

/* A generated run's body fields (seed or seeds, count, start): 0, or -1 with err. */
int genrun_check(struct json_t *body, char *err, size_t errsize);
/* Cases a run with these parameters (JSON text) has; -1 if they are bad. */
int64_t genrun_total(const char *params);
/* Execute a run; stop(arg, &cancelled) is asked between batches. */
enum genrun_end genrun_execute(struct app *, const struct db_run *, int (*stop)(void *arg, int *cancelled),
    void *arg, char *err, size_t errsize);
/* {"seed":S,"index":I[,"version":V]} of POST /api/generated: 0, or -1 with err. */
int genrun_parse_ref(struct json_t *body, uint64_t *seed, uint64_t *index, char *err, size_t errsize);
/* The generator's version (server/common/gen.h). */
int genrun_version(void);
/* A generated case as PHP source to run like any case (title, code, setup, flags, depth). */
int genrun_case_spec(uint64_t seed, uint64_t index, struct case_spec *c);
/* That case run by a build's worker from its generated value (no PHP compiled): 0 with r
 * filled (a crash is a result), -1 when the worker cannot start. */
int genrun_detail(struct app *, int role, uint64_t seed, uint64_t index, struct result *r);
/* A generated run's cases (GET /api/runs/{id}/cases): every listed mismatch,
 * newest first, stored in full when listed (f->before: a position in the list). */
int genrun_cases_list(
    struct app *, const struct db_case_filter *f, db_case_row_fn fn, void *arg, char *err, size_t errsize);
/* One listed mismatch of a run in full: 1 (*case_id), 0 not here (other builds), -1. */
int genrun_materialise(
    struct app *, int64_t run_id, uint64_t seed, int64_t index, int64_t *case_id, char *err, size_t errsize);

/* ---- http.c ---- */
#define HTTP_MAX_QUERY 16

struct http_request {
	const char *method;
	const char *path;         /* decoded, without the query string */
	const char *content_type; /* NULL when not sent */
	const char *body;         /* NUL-terminated, may hold NULs */
	size_t body_len;
	size_t nquery;
	const char *authorization;  /* the Authorization header, NULL when not sent */
	const struct auth_who *who; /* set by api_handle for writes: who sent it */
	struct {
		const char *key, *value;
	} query[HTTP_MAX_QUERY];
};

struct http_response {
	int status;
	char *body; /* malloc'd, owned by the response */
	size_t body_len;
	const char *content_type;     /* default application/json */
	const char *allow;            /* Allow header for 405 */
	char location[96];            /* Location header when not empty */
	char disposition[160];        /* Content-Disposition when not empty */
	int retry_after;              /* Retry-After seconds when > 0 (429, 503) */
	const char *www_authenticate; /* WWW-Authenticate header for 401 */
};

struct http;
struct http *http_start(struct app *, char *err, size_t errsize);
void http_stop(struct http *);
/* The port actually bound (for --port 0). */
int http_port(const struct http *);
/* A query parameter's value, or NULL. */
const char *http_query(const struct http_request *, const char *key);

/* ---- api.c ---- */
/* Answer one /api request; always fills resp. */
void api_handle(struct app *, const struct http_request *, struct http_response *resp);
/* The case of a POST /api/cases request (body, Content-Type): 0, or -1 with resp filled. */
int api_case_from_request(const struct http_request *, struct case_spec *, struct http_response *resp);
/* A request's JSON object body, or NULL after answering 400/413/415. */
struct json_t *api_body(const struct http_request *, struct http_response *resp);
/* Fill resp with a JSON body (takes the reference). */
void api_json(struct http_response *, int status, struct json_t *body);
/* Fill resp with a JSON error. */
void api_error(struct http_response *, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- auth.c ---- */
#define AUTH_NAME_MAX 64

/* Who sent a request: the token's owner, or nobody when writes are open. */
struct auth_who {
	int64_t token_id;             /* 0: no token was sent */
	char name[AUTH_NAME_MAX + 1]; /* the person or CI job; "" without a token */
};

/* 127.0.0.0/8, ::1 or ::ffff:127.x: only this machine can connect. */
int auth_is_loopback(const char *addr);
/* At startup: a non-loopback listen address needs at least one token. */
int auth_startup(struct app *, char *err, size_t errsize);
/*
 * May req write?  0 with who filled (name "" when writes are open and no
 * token was sent), or -1 with resp filled (401 naming what is wrong, 503 if
 * the token table cannot be read).  api_handle calls it for every write.
 */
int auth_identity(struct app *, const struct http_request *, struct auth_who *, struct http_response *);
/* Do writes need a token now (not loopback, or a token exists)?  1, 0, -1 with err. */
int auth_writes_closed(struct app *, char *err, size_t errsize);
/* May req read?  Open unless --read-auth; 0, or -1 with resp filled. */
int auth_read(struct app *, const struct http_request *, struct http_response *);
/* `phpcmp token add|list|revoke ...`: an exit status. */
int auth_token_command(int argc, char **argv);

/* ---- measure.c ---- */
/* Instruction-count reports of a run: JSON table, php-src-style Markdown. */
void measure_table(struct app *, int64_t run_id, const struct http_request *, struct http_response *);
void measure_report_md(struct app *, int64_t run_id, const struct http_request *, struct http_response *);
/* A workload's counts per build across runs (?source=FILE or ?case=ID). */
void measure_history(struct app *, const struct http_request *, struct http_response *);
/* The callgrind output file behind one build's count, for download. */
void measure_dump(struct app *, int64_t comparison_id, const char *role, struct http_response *);

/* ---- bucket.c ---- */
#define BUCKET_KEY_VERSION 1
#define BUCKET_SHAPE_MAX 24 /* characters of a difference's shape, per side */
/* The bucket key of a mismatch (diff != 0): canonical JSON text, malloc'd; NULL when out of memory. */
char *bucket_key(long flags, const struct result res[MAX_BUILDS], unsigned diff);
/*
 * The shape of the first difference between two outputs, into outa and outb
 * (each outsize >= BUCKET_SHAPE_MAX + 2); the flags controlling those bytes
 * are or'ed into *mask.
 */
void bucket_shape(const char *a, size_t alen, const char *b, size_t blen, char *outa, char *outb,
    size_t outsize, long *mask);

/* ---- triage.c ---- */
struct sqlite3;
struct triage;
/* db.c's side: statements on its connection, prepared after the migrations. */
struct triage *triage_open(struct sqlite3 *, char *err, size_t errsize);
void triage_close(struct triage *);
/* Put a stored mismatch in its bucket; inside db_comparison_store()'s transaction. */
int triage_record(struct triage *, long flags, const struct result res[MAX_BUILDS], unsigned diff,
    int64_t run_id, int64_t comparison_id, char *err, size_t errsize);
/* At startup: buckets for mismatches stored before buckets existed. */
int triage_backfill(struct triage *, char *err, size_t errsize);
/* The API (docs/api.md, Triage). */
void triage_buckets(struct app *, const struct http_request *, struct http_response *);
void triage_bucket(struct app *, int64_t id, struct http_response *);
void triage_mismatches(struct app *, int64_t id, const struct http_request *, struct http_response *);
/* POST a change to bucket id, or (id 0) to the buckets listed in the body's "ids". */
void triage_post(struct app *, int64_t id, const struct http_request *, struct http_response *);
void triage_events(struct app *, const struct http_request *, struct http_response *);
/* The bucket of a comparison as JSON (null when it has none). */
struct json_t *triage_case_bucket(struct app *, int64_t comparison_id);
/* Who makes this request (the person triage records): 0 with who, or -1 after answering 400. */
int triage_who(
    const struct http_request *, struct json_t *body, char *who, size_t whosize, struct http_response *);

/* ---- db.c, for triage.c ---- */
/* Lock the database and hand over triage's statements; db_triage_unlock() after. */
struct triage *db_triage_lock(struct db *);
void db_triage_unlock(struct db *);

/* ---- export.c ---- */
/* GET /api/cases/{id}/phpt and /casefile: format "phpt" or "casefile". */
void export_case(
    struct app *, int64_t case_id, const char *format, const struct http_request *, struct http_response *);

#endif
