/*
 * Services (layer 5): submitted cases, builds, reviews, triage rules, measurements, exports, auth.  They
 * return data and an error enum (struct svc_error); no HTTP type appears
 * here, and api_svc() (api_reply.c) is the one place their errors become
 * HTTP statuses.
 */
#ifndef PHPCMP_SERVICES_H
#define PHPCMP_SERVICES_H

#include "callgrind.h"
#include "engine.h"
#include "released.h"

/* ---- svc.c: what a service answers besides data ---- */
enum svc_status {
	SVC_OK = 0,
	SVC_BAD_REQUEST,  /* the request's data is wrong (message names the field) */
	SVC_UNAUTHORIZED, /* no token, or not a good one (code and challenge say which) */
	SVC_NOT_FOUND,
	SVC_CONFLICT,
	SVC_UNPROCESSABLE, /* well-formed, but its content cannot be run (a case that does not compile) */
	SVC_BUSY,          /* a bound on work in progress is reached: retry after 1 s */
	SVC_UNAVAILABLE,   /* a part it needs (a worker) cannot be started */
	SVC_STORAGE,       /* a db_* call failed: db_last_error() says what */
	SVC_INTERNAL,      /* the daemon's own failure (out of memory...) */
};

struct svc_error {
	enum svc_status status;
	const char *code;      /* a machine code other than the status's own, or NULL */
	const char *challenge; /* SVC_UNAUTHORIZED: the WWW-Authenticate value */
	char message[1024];
};

/* Fill e: -1, for `return svc_fail(...)`. */
int svc_fail(struct svc_error *e, enum svc_status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- cases.c: a case run on every build and stored ---- */
struct case_outcome {
	int64_t case_id, comparison_id;
	unsigned diff;    /* cases_submit: the builds' differences (verdict_compare_all) */
	int stored_now;   /* 1 stored now, 0 stored before (cases_store_listed) */
	int broken;       /* cases_submit: the same everywhere, but no build ran to its end */
	char *case_error; /* SVC_UNPROCESSABLE case_error: the error as stored (column_case_error) */
	char *phpt;       /* cases_generated: the case in the stored format (casefile_format) */
	int reproduces[MAX_BUILDS]; /* cases_generated: build i's source gave what its value gave */
	int nbuilds;
	int slot, piped; /* what cases_done gives back */
};
/*
 * POST /api/cases: c run on the builds named (nnames 0: every active build;
 * a measured one by client's turn, fairq.h), its comparison stored.  0 with
 * *out; -1 with e: SVC_BAD_REQUEST (a name not active), SVC_BUSY (over
 * --max-case-requests), SVC_UNAVAILABLE worker_unavailable,
 * SVC_UNPROCESSABLE case_error (out->case_error; nothing stored),
 * SVC_STORAGE.  The results' memory stays bounded until cases_done(),
 * called once the reply is built, in every case.
 */
int cases_submit(struct app *, struct case_spec *c, const char *const names[], int nnames, const char *client,
    struct case_outcome *out, struct svc_error *e);
/*
 * POST /api/runs/{id}/cases: generated run run_id's mismatch (seed, index)
 * stored in full (made again on the run's builds).  0 with out's case,
 * comparison and stored_now; -1 with e: SVC_BUSY, SVC_NOT_FOUND (the run
 * lists no such mismatch), SVC_CONFLICT other_builds, SVC_STORAGE.
 */
int cases_store_listed(struct app *, int64_t run_id, uint64_t seed, uint64_t index, struct case_outcome *out,
    struct svc_error *e);
/*
 * POST /api/generated: generated case (seed, index) as source, run on every
 * build like a submitted case and stored, with whether each build's run of
 * the source gives what its generated value gave.  0 with *out; -1 with e:
 * SVC_BUSY, SVC_UNAVAILABLE worker_unavailable, SVC_STORAGE, SVC_INTERNAL.
 */
int cases_generated(
    struct app *, uint64_t seed, uint64_t index, struct case_outcome *out, struct svc_error *e);
/* What a case_outcome holds given back (after either call, once the reply is built). */
void cases_done(struct app *, struct case_outcome *);

/* ---- builds.c: builds registered and retired while the daemon runs ---- */
/*
 * POST /api/builds: the build at prefix (in the builds folder, relative to
 * it or absolute) registered as name, its worker started.  0 with *out;
 * -1 with e: SVC_BAD_REQUEST (name, or a prefix outside the folder),
 * SVC_NOT_FOUND (no such folder in it), SVC_CONFLICT build_exists /
 * too_many_builds / no_builds_dir, SVC_UNPROCESSABLE not_a_build (no
 * libphp, its core does not compile, its worker does not start), SVC_STORAGE.
 */
int builds_add(struct app *, const char *name, const char *prefix, struct build **out, struct svc_error *e);
/*
 * DELETE /api/builds/NAME: no new run or case uses it, its workers stop;
 * its runs, results and triage stay.  0, or -1 with e: SVC_NOT_FOUND,
 * SVC_CONFLICT build_needed (the base, or one of the last two) /
 * build_in_use (a queued or running run compares it), SVC_STORAGE.
 */
int builds_retire(struct app *, const char *name, struct svc_error *e);
/* At startup, after the native builds: each reference runtime installed
 * (--references, engine/reference.c) in the next slot and the builds
 * table, its worker started in the background, two at a time (a node
 * takes seconds to load a runtime); one that cannot start is listed as
 * failed, with why.  0, or -1 with err (storage). */
int builds_references(struct app *, char *err, size_t errsize);
/* Wait for those starts to end (before the workers are released). */
void builds_references_stop(struct app *);

/* ---- reviews.c: phpcmp review --url's verdicts ---- */
#define REVIEW_MAX_RUNS 8
/* POST /api/reviews as the API parsed it: builds and runs as compact JSON text. */
struct review_input {
	const char *label, *verdict, *builds, *runs, *report_md;
	const char *run_names[REVIEW_MAX_RUNS]; /* the keys of runs, and their ids */
	int64_t run_ids[REVIEW_MAX_RUNS];
	int nruns;
};
/* Kept, with who sent it (a token's name, or NULL): 0 with *id; -1 with e:
 * SVC_BAD_REQUEST (a run it names is not this daemon's), SVC_STORAGE. */
int reviews_add(struct app *, const struct review_input *, const char *who, int64_t *id, struct svc_error *e);

/* ---- auth.c ---- */
#define AUTH_NAME_MAX 64

/* Who sent a request: the token's owner, or nobody when writes are open. */
struct auth_who {
	int64_t token_id;             /* 0: no token was sent */
	char name[AUTH_NAME_MAX + 1]; /* the person or CI job; "" without a token */
};

/* 127.0.0.0/8, ::1 or ::ffff:127.x: only this machine can connect. */
int auth_is_loopback(const char *addr);
/* At startup: a non-loopback listen address (config->beyond_loopback, from
 * addr) needs at least one token. */
int auth_startup(struct app *, const char *addr, char *err, size_t errsize);
/*
 * May a request with this Authorization header (NULL: none) write?  0 with
 * who filled (name "" when writes are open and no token was sent), or -1
 * with e: SVC_UNAUTHORIZED naming what is wrong (token_required,
 * token_unknown, token_malformed, token_revoked, with the challenge), or
 * SVC_STORAGE if the token table cannot be read.  api_handle asks for every
 * write.
 */
int auth_identity(struct app *, const char *authorization, struct auth_who *, struct svc_error *e);
/* Do writes need a token now (not loopback, or a token exists)?  1, 0, -1 with err. */
int auth_writes_closed(struct app *, char *err, size_t errsize);
/* The same for /api/health, which never waits for the database: the last
 * count when the connection is busy. */
int auth_writes_closed_nowait(struct app *);
/* May a request read?  Open unless --read-auth; 0, or -1 with e. */
int auth_read(struct app *, const char *authorization, struct svc_error *e);
/* `phpcmp token add|list|revoke ...`: an exit status. */
int auth_token_command(int argc, char **argv);

/* ---- measure.c ---- */
struct export_file;
/* One measured workload of a run: instructions per call by build role. */
struct measure_row {
	int64_t case_id, comparison_id, iterations;
	char *title, *source;
	char status[MAX_BUILDS][16];
	double per_call[MAX_BUILDS];  /* NAN: not measured */
	double delta[MAX_BUILDS];     /* by candidate vs the base, %; NAN: not comparable */
	double delta_pct;             /* the first candidate's (the two-build "head") */
	double enc[MAX_BUILDS];       /* json_encoder.c's functions' instructions per call; NAN: unknown */
	double enc_delta[MAX_BUILDS]; /* by candidate vs the base, %; NAN: not comparable */
	/* measure_table's classification at the threshold: "regression",
	 * "improvement", "unchanged" or "unmeasured" */
	const char *change;                    /* the first candidate's */
	const char *change_of[MAX_BUILDS];     /* by candidate role */
	const char *enc_change_of[MAX_BUILDS]; /* json_encoder.c's, by candidate role */
};

/* Counts by direction, of one candidate against the base. */
struct measure_counts {
	int regressions, improvements, unchanged, unmeasured;
};

struct measure_table {
	struct measure_row *rows;
	size_t n, cap;
	int nbuilds; /* the run's: the base and nbuilds - 1 candidates */
	double threshold;
	int regressions, improvements, unchanged, unmeasured; /* the first candidate's */
	struct measure_counts by[MAX_BUILDS];                 /* by candidate role */
	int enc_known[MAX_BUILDS]; /* rows whose dump names json_encoder.c's functions, by role */
};

/* Instruction-count reports of a run (threshold: "PCT" or NULL for 1 %):
 * the table (measure_release it after), php-src-style Markdown (malloc'd).
 * 0, or -1 with e. */
int measure_table(struct app *, int64_t run_id, const char *threshold, struct db_run *run,
    struct measure_table *t, struct svc_error *e);
void measure_release(struct db_run *run, struct measure_table *t);
/* columns: NULL (a Δ % column per candidate with 3+ builds, else base | head | Δ %),
 * "candidates" or "builds"; json_encoder "1": json_encoder.c's columns too
 * (the candidates' shape), NULL or "0": not. */
int measure_report_md(struct app *, int64_t run_id, const char *threshold, const char *columns,
    const char *json_encoder, char **text, size_t *len, struct svc_error *e);
/* ---- runreport.c ---- */
/* report.md of a stored or generated run (measure_report_md hands it over):
 * its verdicts, root causes with their minimal cases, and buckets.  0 with
 * *text (malloc'd), or -1 with e. */
int run_report_md(struct app *, const struct db_run *run, char **text, size_t *len, struct svc_error *e);
/* One run's counts of a workload. */
struct measure_point {
	const struct db_workload_point *p; /* the run, the case and each build's count */
	double per_call[MAX_BUILDS];       /* by role; NAN: not measured */
};
typedef int (*measure_point_fn)(void *arg, const struct measure_point *);
/* GET /api/workloads/history: a workload's counts per build across runs, by
 * source file or by case id (exactly one), at most limit ("N" or NULL)
 * points: fn for each, newest first (its -1 stops the walk: SVC_STORAGE);
 * *case_id_out the case asked for, or 0. */
int measure_history(struct app *, const char *source, const char *case_id, const char *limit,
    int64_t *case_id_out, measure_point_fn fn, void *arg, struct svc_error *e);
/* The callgrind output file behind one build's count, for download. */
int measure_dump(
    struct app *, int64_t comparison_id, const char *role, struct export_file *out, struct svc_error *e);

/* ---- profile.c: where the instructions went (the kept callgrind files) ---- */
/* One build's kept callgrind file (malloc'd, *len bytes), read only inside
 * the state folder's callgrind/; NULL with e (SVC_NOT_FOUND when it has none). */
char *profile_read_dump(struct app *, int64_t comparison_id, int role, size_t *len, struct svc_error *e);
/* The self cost of the functions of the source file ending in suffix in one
 * build's dump: 0 with *cost (-1: no function has that file, e.g. a
 * stripped library), or -1 with e. */
int profile_file_cost(
    struct app *, int64_t comparison_id, int role, const char *suffix, int64_t *cost, struct svc_error *e);
/* One function's costs in one build (file: cg_source_key's, or NULL). */
struct profile_fn {
	const char *name, *file, *object;
	int64_t self, inclusive;
};
/* A function in both builds, or in one (the other NULL). */
struct profile_row {
	const struct profile_fn *b, *c;
	int64_t dself, dincl; /* candidate - base */
};
/* Self cost by source file. */
struct profile_file {
	const char *file;
	int64_t b, c;
};
/* One build's side: its totals and what its dump resolves. */
struct profile_side {
	int role;
	const char *name;
	int64_t total;
	int64_t json_encoder_c; /* ext/json/json_encoder.c's self cost, -1: no function has that file */
	size_t functions, named, with_file; /* named: not an 0x offset */
};
/* The base against one candidate, function by function and file by file. */
struct profile_report {
	struct db_comparison cmp; /* its id, its builds by role: cmp.nbuilds, cmp.build_names */
	struct db_case c;         /* the case: title, iterations */
	struct profile_side base, candidate;
	const char *file;         /* the filter asked for, or NULL */
	struct profile_row *rows; /* those matching file, |Δ self| first, at most the limit */
	size_t nrows, matched, more, less, same;
	struct profile_file *files; /* |Δ| first */
	size_t nfiles;
	/* owned: what the rows point into; pb.event is the event counted (Ir) */
	struct cg_profile pb, pc;
	struct profile_fn *vb, *vc;
};
/* GET /api/comparisons/:id/functions: the base vs one candidate (vs: a role,
 * NULL: head), function by function and file by file, |Δ self| first; at
 * most limit ("N", NULL: 50) functions, only those of file (a suffix) if
 * given.  0 with *out (profile_release it), or -1 with e. */
int profile_functions(struct app *, int64_t comparison_id, const char *vs, const char *limit,
    const char *file, struct profile_report *out, struct svc_error *e);
void profile_release(struct profile_report *);

/* ---- triage.c: the rules of triage (docs/api.md, Triage) ---- */
/* A state filter: "new,confirmed" (any of the five), "open" or "reappeared"
 * (NULL or "": any) into db_bucket_filter's states and special; -1 with e. */
int triage_state_filter(const char *v, char *set, size_t setsize, int *special, struct svc_error *e);
/* A triage change as a request states it, unchecked (http/api_triage.c reads
 * it from the body; what it points into lives as long as the body). */
struct triage_input {
	const char *by; /* NULL: not given (without a token, required) */
	size_t by_len;
	const char *state; /* NULL: unchanged */
	int set_assignee;  /* assignee given: NULL or "" clears it */
	const char *assignee;
	size_t assignee_len;
	const char *notes; /* NULL: unchanged; notes_len its bytes (a NUL inside is refused) */
	size_t notes_len;
	int with_joined; /* bulk: also every bucket that joined one of the ids */
};
/* The change checked (a state, names, notes; who makes it: the token's
 * owner, token may be NULL, or "by"): 0 with ch, -1 with e. */
struct db_triage_change;
int triage_change(const struct auth_who *token, const struct triage_input *in, struct db_triage_change *ch,
    struct svc_error *e);
/* A bulk change names 1..TRIAGE_MAX_IDS buckets: 0, or -1 with e. */
#define TRIAGE_MAX_IDS 500
int triage_ids_count(size_t n, struct svc_error *e);
/* ids with each id once, in their order: how many are left. */
size_t triage_ids_once(int64_t *ids, size_t n);

/* ---- export.c ---- */
/* An export: the file's text (malloc'd, the caller frees it) and its Content-Disposition. */
struct export_file {
	char *text;
	size_t len;
	char disposition[160];
};
/* A case as a .phpt test for php-src (format "phpt", its comparison_id-th
 * comparison or the latest) or in the stored format ("casefile"): 0, or -1
 * with e (SVC_NOT_FOUND, SVC_CONFLICT when it cannot be written, SVC_STORAGE). */
int export_case(struct app *, int64_t case_id, int64_t comparison_id, const char *format,
    struct export_file *out, struct svc_error *e);

/* ---- references.c: released PHP's answers to a stored case (issue 49) ---- */
/* One reference's answer to the case. */
struct ref_answer {
	char name[64];        /* "php-8.1" */
	char php_version[64]; /* "8.1.34"; "" when its worker never said */
	char runtime[160];    /* "php-wasm 3.1.56 (node v20.20.2)", "" before its worker said */
	struct result r;      /* its answer when answered */
	int answered;         /* r holds its answer (stored or just run) */
	int from_store;       /* ... kept from an earlier request, not run now */
	char error[512];      /* its worker failed: why ("" otherwise); asked again next time */
};
struct ref_answers {
	int64_t case_id;
	struct ref_answer a[RELEASED_MAX]; /* the daemon's references, in its order */
	int n;
	int pending;              /* references not asked yet (compute 0) */
	struct db_comparison cmp; /* the case's latest comparison, the roles they answer as */
	int have_cmp;
	struct released grouped; /* grouped, oldest first, and the line (released.h) */
};
/*
 * The case's answers from every reference: those kept for the reference's
 * PHP version from the store, the others (compute 1) run now on all at
 * once and kept; compute 0 reads the store only (out->pending: how many
 * are not in it).  0 with *out (references_release it, also after -1); -1
 * with e: SVC_NOT_FOUND, SVC_BUSY (over --max-case-requests), SVC_STORAGE.
 * A reference whose worker does not start is an answer's error, not -1.
 */
int references_of_case(
    struct app *, int64_t case_id, int compute, struct ref_answers *out, struct svc_error *e);
/* out->grouped made again from out->a (references_of_case does it). */
void references_group(struct ref_answers *out);
void references_release(struct ref_answers *out);

#endif
