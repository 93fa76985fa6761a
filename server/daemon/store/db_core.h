/*
 * The store folder's ground floor (db_core.c), shared by its files only
 * (db*.c): the connection, its lock, each file's statement table, and the
 * one set of statement helpers and error state, so that every failed db_*
 * call is sorted by db_last_error() the same way.  Besides the tables,
 * only the schema's migrations and PRAGMAs at open (db_open.c) run SQL
 * (sqlite3_exec).  At its end, the few functions one store file calls in
 * another's transaction.
 */
#ifndef PHPCMP_DB_CORE_H
#define PHPCMP_DB_CORE_H

#include <pthread.h>

#include <sqlite3.h>

#include "store.h"

/* Now, as the schema writes its timestamps. */
#define DB_NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

/* A results row's output, as SQL over alias r: its own bytes, or the base
 * result's when stored once for both (output_same, schema migration 7). */
#define RESULT_OUTPUT_SQL                                                                        \
	"(CASE WHEN r.output_same THEN (SELECT x.output FROM results x WHERE x.comparison_id = " \
	"r.comparison_id AND x.role = 'base') ELSE r.output END)"

/*
 * Every store file's statements: its SQL in the order of its own enum (a
 * fixed table, bound parameters only), prepared once when the database
 * opens (persistent, after the migrations: db_open) and finalized when it
 * closes.  A file reaches statement i, reset and unbound, through
 * db_statement(db, its family, i), holding db->lock; after reading the rows
 * it wants it resets it (sqlite3_reset), so no read transaction stays open.
 */
enum db_family {
	DB_F_TX,         /* db_core.c: BEGIN IMMEDIATE, COMMIT, ROLLBACK */
	DB_F_RUNS,       /* db.c: cases, comparisons, results, runs, builds, measurements */
	DB_F_TOKENS,     /* db_tokens.c */
	DB_F_GENERATED,  /* db_generated.c: generated runs' batches, mismatches and cases */
	DB_F_TRIAGE,     /* db_triage.c */
	DB_F_REDUCE,     /* db_reduce.c */
	DB_F_COVERAGE,   /* db_coverage.c */
	DB_F_PHPT,       /* db_phpt.c */
	DB_F_REVIEW,     /* db_review.c */
	DB_F_REFERENCES, /* db_references.c: released PHP's answers (issue 49) */
	DB_F_COUNT
};
struct db_sql_table {
	const char *family; /* what an error names */
	const char *const *sql;
	int n;
};
extern const struct db_sql_table db_tx_table, db_runs_table, db_tokens_table, db_generated_table,
    db_triage_table, db_reduce_table, db_coverage_table, db_phpt_table, db_review_table, db_references_table;
enum { DB_TX_BEGIN, DB_TX_COMMIT, DB_TX_ROLLBACK, DB_TX_COUNT };

struct db {
	sqlite3 *conn;
	pthread_mutex_t lock;
	sqlite3_stmt **st[DB_F_COUNT]; /* each family's statements, in its table's order */
	int tokens_seen;               /* active tokens at the last count (-1: never counted) */
};

/* Statement i of a family, reset and unbound, ready for new parameters. */
sqlite3_stmt *db_statement(struct db *, enum db_family, int i);

/* SQLite's extended code of this thread's last failed call, for db_last_error(). */
extern _Thread_local int db_errcode;

void db_seterr(char *err, size_t errsize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A statement reset and unbound, ready for new parameters; clears the error state. */
sqlite3_stmt *db_ready(sqlite3_stmt *);
/* Record the connection's error (db_errcode) and say what failed: -1. */
int db_fail(struct db *, const char *what, char *err, size_t errsize);
/* Step a statement that returns no rows (or one to ignore): 0, or db_fail. */
int db_exec(struct db *, sqlite3_stmt *, const char *what, char *err, size_t errsize);
/* Step a statement that changes at most one row: 1 if it did, 0 if not, -1. */
int db_update(struct db *, sqlite3_stmt *, const char *what, char *err, size_t errsize);
/* Step a listing statement, calling row per row: the rows, or -1.  The
 * caller holds the lock. */
int db_each(struct db *, sqlite3_stmt *, int (*row)(sqlite3_stmt *, void *), void *arg, const char *what,
    char *err, size_t errsize);
/*
 * The common part of the many one-statement functions bound to integers
 * only: under the lock, statement i of family f with v[0..n) bound to
 * ?1..?n, then each row to row() (db_each's answer) or, with row NULL, a
 * write (db_exec's).  DB_INTS(a, b) passes the values and their count.
 */
int db_locked_ints(struct db *, enum db_family f, int i, const int64_t *v, int n,
    int (*row)(sqlite3_stmt *, void *), void *arg, const char *what, char *err, size_t errsize);
#define DB_INTS(...) \
	(const int64_t[]){ __VA_ARGS__ }, (int)(sizeof((const int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t))
/* A count(*) statement of family f with no parameters, under the lock: the count, or -1. */
int db_count(struct db *, enum db_family f, int i, const char *what, char *err, size_t errsize);
/* A listing's callback and its argument, as db_each's row readers get them. */
struct db_fn_arg {
	void *fn;
	void *arg;
	int64_t id; /* what the listing is of, when rows do not say */
};
int db_begin(struct db *, char *err, size_t errsize);
int db_commit(struct db *, char *err, size_t errsize);
/* Roll back, keeping the error state of the failure that led here. */
void db_rollback(struct db *);
/* NULL binds SQL NULL; the text must outlive the statement's next step. */
void db_bind_text(sqlite3_stmt *, int i, const char *s);
/*
 * A result's fields as results and reference_results keep them, bound to
 * ?first .. ?first+10: status, signal (a crash's), output (unless false or
 * !keep_output), output_is_false, error_code, error_msg, exc_class, exc_msg,
 * printed, warnings, failure.
 */
void db_bind_result(sqlite3_stmt *, int first, const struct result *r, int keep_output);
/* id > 0 binds it, else SQL NULL. */
void db_bind_id(sqlite3_stmt *, int i, int64_t id);
/* Text column i into buf, cut to fit ("" for NULL). */
void db_col_copy(sqlite3_stmt *st, int i, char *buf, size_t bufsize);
/* Text column i: a copy (NULL for NULL), *oom set (oom not NULL) when the copy failed. */
char *db_text_copy(sqlite3_stmt *st, int i, int *oom);
/* Room in *list (an array of size-byte items, *cap of them) for item n: 0, -1 out of memory. */
int db_grow(void **list, size_t n, size_t *cap, size_t size);

/* ---- called by another store file, inside its transaction ---- */
/* db.c, for db_reduce.c: the id of the case with c's content, stored first
 * if there is none; the caller holds db->lock in a transaction.  0, or -1
 * with err set. */
int db_case_put(struct db *db, const struct case_spec *c, int64_t *case_id, char *err, size_t errsize);
/* db.c, for db_reduce.c: one build's result row of a comparison (base: the
 * base's result, for an output stored once). */
int db_store_result(struct db *db, int64_t comparison_id, int role, const struct build *b,
    const struct result *r, const struct result *base, char *err, size_t errsize);
/* db_triage.c, for db.c (inside db_comparison_store()'s transaction): each
 * candidate res[1..n-1] that differs from the base into its bucket (names:
 * the builds' names by role, for a later candidate's key), and each build
 * whose output is not expect (the case's --EXPECT--, NULL: none; expectf:
 * its --EXPECTF--) into one of candidate "expected:ROLE". */
int db_triage_record(struct db *, long flags, const struct result *res, int n, const char *const *names,
    const char *expect, int expectf, int64_t run_id, int64_t comparison_id, char *err, size_t errsize);
/* db_triage.c, for db_phpt.c (inside db_phpt_store()'s transaction): a phpt
 * test's regression or improvement on a candidate into its bucket (key:
 * bucket_phpt_key).  The bucket's id, or -1. */
int64_t db_triage_record_phpt(
    struct db *, const char *key, const char *candidate, int64_t run_id, char *err, size_t errsize);
/* db_triage.c, for db_open.c at startup: buckets for mismatches stored
 * before buckets existed. */
int db_triage_backfill(struct db *, char *err, size_t errsize);

#endif
