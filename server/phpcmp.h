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
#define MAX_BODY_SIZE    (1u << 20)   /* HTTP request body */
#define MAX_CODE_SIZE    (256u << 10) /* a case's value or setup code */
#define MAX_TITLE_SIZE   512
#define MAX_BUILDS       2

/* ---- a byte string that may hold anything, NUL-terminated for convenience */
struct bytes {
	char *data;     /* NULL when absent */
	size_t len;
};

/* ---- case ---- */
struct case_spec {
	char *title;
	char *code;        /* expression, or statements ending in `return ...;` */
	char *setup;       /* optional, may be NULL */
	long flags;        /* json_encode flags */
	long depth;        /* json_encode depth, default 512 */
	char *expect;      /* optional expected output, NULL if none */
	long iterations;   /* > 0: measured workload, instructions per call */
	char *source;      /* stored case: path under cases/, else NULL */
};

/* ---- result ---- */
enum result_status {
	STATUS_OK = 0,
	STATUS_ERROR = 1,    /* the case failed: parse error, fatal, exit... */
	STATUS_CRASH = 2,    /* the worker died from a signal */
	STATUS_TIMEOUT = 3,  /* the case ran past the time limit */
};

struct result {
	enum result_status status;
	int signal;               /* for STATUS_CRASH */
	int output_is_false;      /* json_encode returned false */
	struct bytes output;
	long error_code;          /* json_last_error() */
	char *error_msg;          /* json_last_error_msg() */
	char *exc_class, *exc_msg;/* NULL if nothing was thrown */
	struct bytes printed;
	char *warnings;           /* newline-separated, "" if none */
	char *failure;            /* why status != ok, else NULL */
	int64_t instructions;     /* per call, -1 when not measured */
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
struct build {
	char name[64];
	char prefix[4096];      /* as configured */
	char lib_path[4096];    /* .../libphp*.so */
	char include_dir[4096]; /* the folder holding main/php.h */
	char sha256[65];
	char php_version[64];   /* from the worker's hello */
	char core_path[4096];   /* compiled worker core for this build */
	int64_t db_id;
};

/* ---- worker (daemon side) ---- */
enum worker_state { WORKER_STOPPED, WORKER_READY, WORKER_BUSY, WORKER_BACKOFF, WORKER_FAILED };

struct worker {
	struct build *build;
	pthread_mutex_t lock;   /* one case at a time per worker */
	pid_t pid;              /* -1 when not running */
	int fd;                 /* -1 when not running */
	enum worker_state state;
	int consecutive_deaths; /* for restart backoff */
	int64_t restarts;
	int64_t cases_run;
	char last_failure[512];
};

struct config {
	const char *listen_addr;   /* default 127.0.0.1 */
	int port;                  /* default 8080 */
	const char *db_path;       /* default phpcmp.db */
	const char *cases_dir;     /* default cases */
	const char *web_dir;       /* default web */
	const char *state_dir;     /* compiled worker cores; default state */
	const char *worker_bin;    /* the loader executable */
	const char *core_src;      /* server/worker, for compiling cores */
	int case_timeout_ms;       /* default 5000 */
	const char *memory_limit;  /* PHP memory_limit, default 128M */
	int nbuilds;
	struct build builds[MAX_BUILDS];
};

/* ---- bytes.c ---- */
void bytes_set(struct bytes *, const void *data, size_t len);
void bytes_release(struct bytes *);
int utf8_valid(const char *s, size_t len);

/* ---- result.c ---- */
void result_init(struct result *);
void result_release(struct result *);
const char *result_status_name(enum result_status);
int result_status_parse(const char *name);           /* -1 if unknown */
/* Bitmask of enum verdict_field; 0 means "same". */
unsigned verdict_compare(const struct result *a, const struct result *b);
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
void worker_release(struct worker *);
/*
 * Run one case on the worker, starting or restarting the process as needed.
 * Always fills r (a crash or timeout is a result).  Returns 0, or -1 only if
 * the worker cannot be started at all (r->status = STATUS_ERROR, failure set).
 */
int worker_run_case(struct worker *, const struct config *, const struct case_spec *, struct result *r);
const char *worker_state_name(enum worker_state);

#endif
