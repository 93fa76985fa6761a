/*
 * Storage (layer 3), the store folder's interface as engine.h and
 * services.h are theirs: every SQL statement of the daemon is behind these
 * db_* functions, a section per file (db.c, db_tokens.c, db_generated.c,
 * db_triage.c, ...).  Uses only the model (model.h) and the library below.
 */
#ifndef PHPCMP_STORE_H
#define PHPCMP_STORE_H

#include "model.h"
#include "runparams.h"

struct db;

/* ---- db_open.c: the connection's life ---- */
struct db *db_open(const char *path, char *err, size_t errsize);
void db_close(struct db *);
/* Cap the database file at max_bytes (rounded to pages); 0 leaves it unbounded. */
int db_set_max_bytes(struct db *, int64_t max_bytes, char *err, size_t errsize);

/* ---- db_core.c: the shared error state ---- */
/* What the calling thread's last failed db_* call met, the one place SQLite's errors are
 * sorted (api_reply.c's api_fail makes each an answer). */
enum db_error {
	DB_ERR_NONE,        /* not a storage error (out of memory, a bad argument ...) */
	DB_ERR_FULL,        /* the disk or the database is full */
	DB_ERR_READONLY,    /* the database cannot be written */
	DB_ERR_UNAVAILABLE, /* it cannot be read or opened (I/O) */
	DB_ERR_BUSY,        /* locked by another connection past the timeout */
	DB_ERR_CORRUPT,     /* not a database, or a damaged one */
	DB_ERR_OTHER,
};
enum db_error db_last_error(void);

/* ---- db.c: builds, cases, comparisons, results, runs, measurements ---- */
struct db_case {
	int64_t id;
	struct case_spec spec;
	char created_at[32];
};

struct db_comparison {
	int64_t id, case_id;
	int64_t run_id;    /* 0 for a submitted case */
	char verdict[16];  /* "same" / "differ" / "error" (the case did not compile) / "unsupported" */
	char differs[128]; /* verdict_fields() list */
	char *error;       /* the case error as JSON text (column_case_error), NULL when none */
	char created_at[32];
	int nbuilds;                         /* results stored: base and nbuilds - 1 candidates */
	char build_names[MAX_BUILDS][64];    /* by role */
	char build_versions[MAX_BUILDS][64]; /* their PHP versions, by role */
	struct result results[MAX_BUILDS];   /* by role */
};

/* A line of a case listing or of a case's history; valid during the callback. */
struct db_case_row {
	int64_t id, comparison_id, run_id;
	const char *title, *verdict, *differs, *created_at, *source;
	long flags;
	int64_t cursor; /* > 0: the listing's position for `before` (else id) */
	int reduced;    /* a reducer's minimal case (source "reduced") */
	/* A generated run's mismatch: the generator's (seed, index); id 0 when it is
	 * not stored in full (POST /api/runs/{id}/cases stores it). */
	int generated;
	uint64_t gen_seed;
	int64_t gen_index;
};

struct db_case_filter {
	const char *verdict; /* "same" / "differ" / "error", NULL for any */
	int source;          /* 0 any, else a mask: 1 stored, 2 submitted, 4 reduced (the reducer's) */
	int64_t run_id;      /* > 0: the comparisons of this run */
	int64_t before;      /* > 0: ids below this one (keyset pagination) */
	int limit;
};

struct db_run {
	int64_t id;
	char suite[32];
	char status[16];
	struct run_params params; /* read from its stored text (runparams.h) */
	int nbuilds;              /* the run's builds by role: base first */
	char build_names[MAX_BUILDS][64];
	char build_versions[MAX_BUILDS][64];
	int64_t total, done, same, differ;
	int64_t errors;      /* cases that did not compile (verdict "error") */
	int64_t unsupported; /* cases some build could not run, the others agreeing (verdict "unsupported") */
	char created_at[32], started_at[32], finished_at[32]; /* "" when unset */
	char *error;                                          /* NULL when none, malloc'd */
	char *summary; /* the suite's JSON summary, NULL when none, malloc'd */
};

typedef int (*db_case_row_fn)(void *arg, const struct db_case_row *);
typedef int (*db_run_fn)(void *arg, const struct db_run *);

/* Record a build (one row per name and sha256); sets b->db_id. */
int db_build_record(struct db *, struct build *b, char *err, size_t errsize);
/* Mark runs left queued or running as interrupted; the count or -1. */
int db_runs_interrupt(struct db *, char *err, size_t errsize);
/*
 * builds[] arrays end at the first NULL or at MAX_BUILDS: [0] the base, then
 * the candidates; res[] holds a result per build.
 *
 * Store a case (reusing an identical one), its comparison and every result
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
int db_run_create(struct db *, const char *suite, const struct run_params *,
    struct build *const builds[MAX_BUILDS], int64_t *id, char *err, size_t errsize);
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
/* A generated, phpt or coverage run's summary (JSON text, columns.h). */
int db_run_summary(struct db *, int64_t run_id, const char *summary, char *err, size_t errsize);
/* The listing row of one case's comparison in a run: 1 (fn called), 0 none, -1. */
int db_run_case_row(
    struct db *, int64_t run_id, int64_t case_id, db_case_row_fn fn, void *arg, char *err, size_t errsize);
/* The builds a run was made with (db ids, base first): their count, 0 no such run, -1. */
int db_run_builds(struct db *, int64_t run_id, int64_t ids[MAX_BUILDS], char *err, size_t errsize);
/* A run's cases of verdict same whose builds all ended without an answer
 * (a crash, a timeout, a fatal error, exit()...): the count, or -1. */
int db_run_broken(struct db *, int64_t run_id, char *err, size_t errsize);
/* How many queued or running runs compare the build (db id), or -1. */
int db_build_runs_pending(struct db *, int64_t build_id, char *err, size_t errsize);
/* Runs waiting as 'queued': the count, or -1. */
int db_runs_queued(struct db *, char *err, size_t errsize);
/*
 * interrupted/failed/cancelled -> queued again, if it was made with these
 * builds: 1 done, 0 if not (in such a state, or with these builds), -1.
 */
int db_run_resume(struct db *, int64_t id, struct build *const builds[MAX_BUILDS], char *err, size_t errsize);
/* Does run_id already hold a comparison of this case?  1, 0, -1. */
int db_run_has_case(struct db *, int64_t run_id, const struct case_spec *, char *err, size_t errsize);

/* Forget the callgrind files of measured results past the newest keep
 * (up to 64 a call, oldest first): dump_file set to NULL, then fn(arg,
 * path) for each.  How many, or -1 with err. */
int db_dumps_beyond(
    struct db *, int keep, void (*fn)(void *, const char *path), void *arg, char *err, size_t errsize);
/* One result's output (printed: its printed bytes), in a malloc'd copy
 * (NULL when the output is SQL NULL) with is_false: 1, 0 when there is no
 * such result, or -1 with err. */
int db_result_bytes(struct db *, int64_t comparison_id, const char *role, int printed, char **data,
    size_t *len, int *is_false, char *err, size_t errsize);

/* Measurements (instruction counts); rows valid during the callback. */
struct db_measurement {
	int64_t case_id, comparison_id, iterations;
	const char *title, *source;
	int nbuilds;                     /* roles with a result */
	const char *status[MAX_BUILDS];  /* by role */
	int64_t instr_total[MAX_BUILDS]; /* -1: not measured */
};
struct db_workload_point {
	int64_t run_id, case_id, comparison_id, iterations;
	const char *run_created_at, *title, *source;
	int nbuilds; /* roles with a result */
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

/* ---- db_tokens.c: API tokens (service/auth.c); only a token's SHA-256 is stored ---- */
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
/* The same without waiting for the connection: counted now if it is free,
 * else the last count (-1 if none yet).  For /api/health. */
int db_tokens_active_nowait(struct db *);
/* Every token, revoked or not, oldest first: rows, or -1. */
int db_tokens_list(struct db *, db_token_fn fn, void *arg, char *err, size_t errsize);
/* Revoke the active token with this id (id > 0) or name: 1, 0 none such, -1. */
int db_token_revoke(struct db *, int64_t id, const char *name, char *err, size_t errsize);
/* Note a use (at most once a minute per token; failures ignored). */
void db_token_used(struct db *, int64_t id);

/* ---- db_generated.c: a generated run's batches, mismatches and cases ---- */
/* A generated run's mismatch, listed with its batch (generated_mismatches). */
struct db_gen_mismatch {
	int64_t seq; /* read back: its position in the run's list */
	uint64_t seed;
	int64_t index;
	const char *signature;
	const char *candidates;       /* the differing candidates' roles: "head,cand3" */
	const unsigned char *digests; /* ndigests * GEN_DIGEST_SIZE bytes, base first, or NULL */
	int ndigests;
	int64_t case_id; /* 0: not stored in full (yet) */
};
typedef int (*db_gen_mismatch_fn)(void *arg, const struct db_gen_mismatch *);

/* A batch's result hashes, its mismatches listed, the run's progress: one transaction. */
int db_generated_batch(struct db *, int64_t run_id, uint64_t seed, int64_t start, int64_t count,
    const void *hashes, size_t len, int64_t same, const struct db_gen_mismatch *mismatches,
    size_t nmismatches, char *err, size_t errsize);
/* A run's listed mismatches, newest first, below position `before` (0: all). */
int db_generated_mismatches(struct db *, int64_t run_id, int64_t before, int limit, db_gen_mismatch_fn fn,
    void *arg, char *err, size_t errsize);
/* One mismatch of a run, by the generator's (seed, index): rows (0 or 1), -1. */
int db_generated_mismatch(struct db *, int64_t run_id, uint64_t seed, int64_t index, db_gen_mismatch_fn fn,
    void *arg, char *err, size_t errsize);
/* The case stored in full for a listed mismatch. */
int db_generated_link(
    struct db *, int64_t run_id, uint64_t seed, int64_t index, int64_t case_id, char *err, size_t errsize);
/* The case this run stored in full for a generated case: 1 (*case_id), 0 none, -1. */
int db_run_generated_case(struct db *, int64_t run_id, int version, uint64_t seed, int64_t index,
    int64_t *case_id, char *err, size_t errsize);
/* A stored case is generated case (seed, index) of this generator version. */
int db_generated_case(
    struct db *, int64_t case_id, int version, uint64_t seed, uint64_t index, char *err, size_t errsize);
/* A resumed run: the count of a batch it stored already, 0 if none, -1. */
int64_t db_generated_batch_stored(
    struct db *, int64_t run_id, uint64_t seed, int64_t start, char *err, size_t errsize);

/* ---- db_triage.c: buckets of mismatches and the triage trail (docs/api.md, Triage) ---- */
struct db_bucket_filter {
	const char *states;    /* "" any, else ",new,fixed," (states between commas) */
	int special;           /* 1 only reappeared, 2 "open" (new, confirmed, or reappeared) */
	int64_t run;           /* -1 every bucket; else a run's buckets (0: submitted cases) */
	int64_t cursor_count;  /* a run's listing: after this count; all buckets: this last comparison
	                          (0 for phpt buckets)...  (INT64_MAX: from the start, or cursor_id
	                          is an older cursor's last comparison) */
	int64_t cursor_id;     /* ...and below this bucket id (INT64_MAX: from the start) */
	const char *candidate; /* NULL any; else the buckets of this candidate build */
	int limit;
};

/* A bucket as stored: its key, triage and counts, its first mismatch (representative). */
struct db_bucket {
	int64_t id;
	char *key; /* the bucket key, stored JSON text */
	char *state, *assignee, *notes, *candidate, *updated_at, *updated_by; /* NULL when NULL */
	int64_t mismatches;
	int64_t first_comparison_id, last_comparison_id, first_run_id, last_run_id; /* 0: none */
	char *first_seen, *last_seen;
	int64_t case_id; /* the representative's case */
	char *title;
	int reappeared; /* fixed, then seen again: the comparison (0 for a phpt bucket), run, when */
	int64_t reappeared_comparison_id, reappeared_run_id;
	char *reappeared_at;
	/* A run's listing: the bucket in that run (run_id 0: the submitted cases). */
	int in_run;
	int64_t run_id, run_mismatches, run_comparison_id, run_case_id, earlier_runs;
	char *run_title;
};
/* A triage audit entry. */
struct db_triage_event {
	int64_t id, bucket_id, run_id, comparison_id; /* run and comparison: 0 none */
	char *at, *by, *action;
	char *changes; /* stored JSON text */
};
/* A bucket in full: itself, the runs it was seen in and its audit trail (newest first). */
struct db_bucket_full {
	struct db_bucket b;
	struct db_bucket_run {
		int64_t run_id, mismatches, first_comparison_id;
		char *run_created_at;
	} * runs;
	size_t nruns;
	struct db_triage_event *events;
	size_t nevents;
};
/* Buckets and mismatches by triage state, states in their order, then reappeared. */
struct db_bucket_counts {
	struct db_state_count {
		char state[16];
		int64_t buckets, mismatches;
	} states[8];
	size_t nstates;
	int64_t reappeared;
};
/* A bucket's mismatch. */
struct db_bucket_mismatch {
	int64_t comparison_id, case_id, run_id; /* run 0: a submitted case */
	char *differs, *created_at, *title, *file;
	long flags;
};
void db_bucket_release(struct db_bucket *);
void db_bucket_full_release(struct db_bucket_full *);
void db_triage_event_release(struct db_triage_event *);
void db_bucket_mismatch_release(struct db_bucket_mismatch *);

/* A page of buckets (*list, *n of them: release each) with the counts by
 * state; the last row's cursor ("" for none), *more when there are more: 0,
 * -2 no such run, -1. */
int db_buckets_list(struct db *, const struct db_bucket_filter *, struct db_bucket **list, size_t *n,
    struct db_bucket_counts *counts, char *cursor, size_t cursorsize, int *more, char *err, size_t errsize);
/* A bucket with its runs and audit trail: 1 (*out, release it), 0 none, -1. */
int db_bucket_get(struct db *, int64_t id, struct db_bucket_full *out, char *err, size_t errsize);
/* A bucket's mismatches, newest first (run -1 any, 0 submitted): 1, 0 no such
 * bucket, -2 no such run, -1. */
int db_bucket_mismatches(struct db *, int64_t id, int64_t run, int64_t before, int limit,
    struct db_bucket_mismatch **list, size_t *n, int64_t *last, int *more, char *err, size_t errsize);
/* The audit trail, newest first (bucket 0: every bucket's): 0, -1. */
int db_triage_events(struct db *, int64_t bucket, int64_t before, int limit, struct db_triage_event **list,
    size_t *n, int64_t *last, int *more, char *err, size_t errsize);
/* The bucket of a comparison: 1 (*out, release it), 0 none, -1. */
int db_bucket_of_comparison(struct db *, int64_t comparison_id, struct db_bucket *out);

/* A checked change ("" assignee clears it). */
struct db_triage_change {
	const char *state; /* NULL: unchanged */
	int set_assignee;
	char assignee[65]; /* "" clears */
	const char *notes; /* NULL: unchanged */
	char by[65];
	int with_joined; /* also every bucket that joined one of ids (buckets.root_id) */
	int64_t root;    /* > 0: made on this root cause (ids = {root}); noted in each entry */
};
/* What a change leaves: the first bucket in full, or every bucket changed as listed. */
struct db_triage_result {
	struct db_bucket_full full; /* when asked for in full */
	struct db_bucket *list;     /* else */
	size_t n;
};
void db_triage_result_release(struct db_triage_result *);
/*
 * Apply a change to every bucket of ids (and, with_joined, the buckets that
 * joined them, read in the same transaction) in one transaction, an audit
 * entry for each one changed: 0 with *changed and *out (full: the first
 * bucket in full; else the list of buckets; release it), -2 with *missing
 * when a bucket does not exist, -3 with *missing its root when ch->root
 * joined another (nothing changed), -1.
 */
int db_triage_change(struct db *, const int64_t *ids, size_t n, const struct db_triage_change *, int full,
    int *changed, int64_t *missing, struct db_triage_result *out, char *err, size_t errsize);

/* ---- db_reduce.c: reductions of mismatches (reductions, buckets.root_id) ---- */
/* A mismatch to reduce: its bucket, its case, both results (the base's and its candidate's). */
struct db_reduce_job {
	int64_t bucket_id, comparison_id, case_id;
	int representative;
	char candidate[64]; /* the bucket's candidate build name ("" : the first candidate) */
	struct case_spec c; /* title, code, setup, flags, depth */
	int generated;      /* c is generated case (seed, index) of this generator version */
	uint64_t seed, index;
	int version;
	struct result res[2]; /* as stored: [0] the comparison's base, [1] the candidate */
	int64_t build_ids[2]; /* their builds (builds table) */
	int role;             /* the candidate's role now, role_of's answer */
};
/*
 * The next mismatch to reduce: a bucket's representative not reduced yet,
 * else (sample > 0) another member of a bucket with fewer than 1 + sample
 * reductions.  role_of(build_ids) says the candidate's role now when both
 * builds are active (-1: one is not; that mismatch is recorded as
 * unsupported and skipped).
 * Submitted cases' representatives waiting beyond max_pending are first
 * stored as skipped.
 * 1 with *job (release with db_reduce_job_release), 0 none, -1.
 */
int db_reduce_next(struct db *, int sample, int max_pending, int (*role_of)(void *, const int64_t[2]),
    void *arg, struct db_reduce_job *job, char *err, size_t errsize);
void db_reduce_job_release(struct db_reduce_job *);
/* What a reduction found (reduce.c), stored with the reduced case in one transaction. */
struct db_reduction {
	const char *state; /* "done", "not_reproduced", "unsupported" */
	const char *signature, *root_key;
	const struct case_spec *reduced; /* NULL unless done: stored as an ordinary case */
	const char *outputs;             /* JSON text */
	int64_t steps, executions;
	double seconds;
	int complete;
	const char *confirmation; /* NULL, "confirmed", "flaky", "state-dependent" */
	int64_t explained_by;     /* > 0: a root bucket whose minimal case is a part of this one */
	/* The reduced case's confirmed results, stored as its comparison (in the bucket, not counted) */
	const struct result *results; /* [0] base, [1] the candidate; NULL: none */
	const struct build *builds[2];
	int role; /* the candidate's */
};
/* Store it; a representative's root key joins its bucket to the oldest bucket of that root. */
int db_reduce_store(
    struct db *, const struct db_reduce_job *, const struct db_reduction *, char *err, size_t errsize);
/*
 * The root bucket (its root_id followed) whose representative reduced to
 * exactly this case (code, setup, flags, depth) for this candidate: its id,
 * 0 none, -1.
 */
int64_t db_reduce_find_root(
    struct db *, const char *candidate, const struct case_spec *c, char *err, size_t errsize);
/* The root bucket whose representative's reduction has this root key: its id, 0 none, -1. */
int64_t db_reduce_find_root_key(struct db *, const char *root_key, char *err, size_t errsize);
/*
 * A late explanation: bucket_id, still a root of its own, joins root (and
 * so do the buckets that joined it).  1 joined, 0 not (no longer a root,
 * or root is itself), -1.
 */
int db_reduce_join_late(struct db *, int64_t bucket_id, int64_t root, char *err, size_t errsize);
/* One reduction as stored (reductions): the mismatch it started from, its minimal case. */
struct db_reduction_row {
	char *state;                                /* done, not_reproduced, unsupported, skipped, too_slow */
	char *found_title;                          /* the mismatch reduced: its case's title... */
	int64_t found_case_id, found_comparison_id; /* ...its case and comparison */
	char *signature, *root_key;                 /* NULL when none */
	int64_t case_id;                            /* the minimal case stored (0: none) */
	char *code, *setup;                         /* the minimal case (NULL: not reduced) */
	int has_flags, has_depth;
	long flags;
	int depth;
	char *outputs;                 /* each build's result of the minimal case, as stored (JSON text) */
	int64_t reduced_comparison_id; /* the minimal case's comparison (0: none) */
	char *confirmation;            /* confirmed, flaky, state-dependent (NULL: not confirmed) */
	int64_t steps, executions;
	double seconds;
	int complete;
};
void db_reduction_row_release(struct db_reduction_row *);

/* What reduction knows of a bucket. */
struct db_reduce_bucket {
	struct db_reduction_row *minimal; /* its representative's reduction (NULL: none yet) */
	struct db_reduction_row *samples; /* its other members' reductions, oldest first */
	size_t nsamples;
	int64_t root_id; /* the root it joined (0: none) */
	struct db_joined_bucket {
		int64_t id, mismatches;
	} * joined; /* the buckets that joined it */
	size_t njoined;
};
/* 0 with *out (release it), -1. */
int db_reduce_bucket(struct db *, int64_t bucket_id, struct db_reduce_bucket *out, char *err, size_t errsize);
void db_reduce_bucket_release(struct db_reduce_bucket *);

/* One root cause: a bucket no other joined, with those that joined it. */
struct db_root {
	int64_t bucket_id;
	char *candidate; /* the candidate build its mismatches are of (NULL: stored before candidates) */
	int64_t buckets, mismatches;
	int64_t *bucket_ids; /* the root's and its joined buckets' ids (buckets of them) */
	struct db_root_state {
		char name[16];
		int64_t buckets;
	} * states; /* how many of its buckets are in each triage state, in the order met */
	size_t nstates;
	struct db_reduction_row *minimal; /* NULL: not reduced yet */
	const char *why, *reason;         /* an unreduced one's: why its case is no minimal one (static) */
};
struct db_roots {
	struct db_root *roots; /* most mismatches first */
	size_t n;
	/* Those whose case over DB_UNREDUCED_BYTES the reducer could not reduce
	 * (its budget ran out, the case is flaky or too slow, no step kept the
	 * mismatch): apart from the roots, most mismatches first. */
	struct db_root *unreduced;
	size_t nunreduced;
	int64_t buckets, pending, reductions, executions, most_executions;
	double seconds, most_seconds;
};
/*
 * The root causes of a run's mismatches (run -1: of all): one entry per
 * root bucket, with (when `minimal`) its minimal case, the buckets that
 * joined it and their mismatches, plus the reduction totals.  0 with *out
 * (release it), -1.  A run's summary counts them: minimal 0 keeps no case.
 */
#define DB_UNREDUCED_BYTES 100
int db_reduce_roots(struct db *, int64_t run, int minimal, struct db_roots *out, char *err, size_t errsize);
void db_roots_release(struct db_roots *);

/* ---- db_phpt.c: the phpt suite's results (phpt_tests, phpt_results) ---- */
struct db_phpt_result {
	const char *status; /* "PASS", "FAIL", ... "crash", "timeout" */
	const char *reason; /* NULL or "" when none */
	const char *output; /* NULL: FILE did not run */
	size_t output_len;
	const char *diff; /* NULL unless FAIL/XFAIL */
	size_t diff_len;
	double wall_ms;
	int signal;
	const char *verdict;    /* a candidate's against the base; NULL on the base */
	const char *bucket_key; /* a regression's or improvement's (bucket_phpt_key), else NULL */
	const char *candidate;  /* the build's name, for its bucket */
};
/*
 * One test's verdict, every build's result (res[0..nbuilds-1], by role),
 * the buckets of its regressions and improvements (bucket_ids[role], 0 when
 * none) and the run's progress, in one transaction.
 */
int db_phpt_store(struct db *, int64_t run_id, const char *test, const char *name, const char *verdict,
    const char *source, size_t source_len, const struct db_phpt_result res[MAX_BUILDS], int nbuilds,
    int64_t bucket_ids[MAX_BUILDS], char *err, size_t errsize);
/* One phpt test of a run as stored, with every build's result (base, head, then candidates). */
struct db_phpt_test {
	struct bytes name, verdict, source; /* data NULL: none stored */
	struct db_phpt_test_result {
		struct bytes role, status, reason, verdict, output, diff;
		int64_t bucket_id; /* 0: in no bucket */
		int has_signal, signal;
		double wall_ms;
	} * builds;
	size_t nbuilds;
};
void db_phpt_test_release(struct db_phpt_test *);
/* A run's test (its path under the phpt root): 1 (*out, release it), 0 when the run has no
 * such test, -1. */
int db_phpt_test_get(
    struct db *, int64_t run_id, const char *test, struct db_phpt_test *out, char *err, size_t errsize);
/* A test in a phpt bucket: the run, the test, its name, the build (role) and statuses. */
struct db_phpt_bucket_test {
	int64_t run_id;
	char *test, *name, *role, *status, *base_status, *reason; /* base_status, reason: NULL none */
};
/* A phpt bucket's tests, newest run first (at most limit): 0 (*list, *n; free with
 * db_phpt_bucket_tests_free), -1. */
int db_phpt_bucket_tests(struct db *, int64_t bucket_id, int limit, struct db_phpt_bucket_test **list,
    size_t *n, char *err, size_t errsize);
void db_phpt_bucket_tests_free(struct db_phpt_bucket_test *, size_t n);
/* Forget a run's phpt results and progress (a resumed run starts over). */
int db_phpt_restart(struct db *, int64_t run_id, char *err, size_t errsize);

/* ---- db_review.c: phpcmp review --url's verdicts (docs/review.md) ---- */
struct db_review {
	int64_t id;
	char label[64], verdict[8], created_by[64], created_at[32];
	char *builds;    /* JSON text: [{"name","daemon_name","commit","patches"}] */
	char *runs;      /* JSON text: {"generated":ID,"stored":ID,"phpt":ID,"measure":ID} */
	char *report_md; /* the report; NULL in listings */
};
int db_review_add(struct db *, const struct db_review *, int64_t *id, char *err, size_t errsize);
typedef int (*db_review_fn)(void *arg, const struct db_review *);
/* Newest first, ids below before (0: from the newest), at most limit; fn(arg, r) each (< 0 stops: -1). */
int db_review_list(
    struct db *, int limit, int64_t before, db_review_fn fn, void *arg, char *err, size_t errsize);
/* 1 with *out (db_review_release it), 0 no such review, -1. */
int db_review_get(struct db *, int64_t id, struct db_review *out, char *err, size_t errsize);
void db_review_release(struct db_review *);

/* ---- db_coverage.c: a run's coverage summaries (coverage, docs/coverage.md) ---- */
/* One build's summary (JSON text, NULL when error says why there is none); replaces an older one. */
int db_coverage_store(struct db *, int64_t run_id, const char *role, const char *build, const char *summary,
    const char *error, char *err, size_t errsize);
/* One build's coverage of a run. */
struct db_coverage {
	char role[16], build[64];
	char *files;      /* the summary (columns.h, column_coverage_files), NULL when error says why not */
	char *error;      /* NULL when measured */
	char *created_at; /* as stored */
};
/* A run's summaries, base first, then head, then by role: *n of them in *out
 * (db_coverage_list_release it); 0, or -1. */
int db_coverage_list(
    struct db *, int64_t run_id, struct db_coverage **out, size_t *n, char *err, size_t errsize);
void db_coverage_list_release(struct db_coverage *, size_t n);

/* ---- db_references.c: released PHP's answers to a case (reference_results, issue 49) ---- */
/* Reference name's stored answer to case_id: of php_version, or ("" or
 * NULL) the newest of any.  1 with *r (result_init'ed by the caller) and the
 * version it is of in version, 0 none, -1 with err. */
int db_reference_get(struct db *, int64_t case_id, const char *name, const char *php_version,
    struct result *r, char *version, size_t vsize, char *err, size_t errsize);
/* Its answer kept (runtime: what the worker said it is), replacing one of the same version. */
int db_reference_put(struct db *, int64_t case_id, const char *name, const char *php_version,
    const char *runtime, const struct result *r, char *err, size_t errsize);

#endif
