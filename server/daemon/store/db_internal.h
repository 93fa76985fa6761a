/*
 * Shared by the storage modules only (db.c, db_triage.c): the connection,
 * its lock, and the one set of statement helpers and error state, so that
 * every failed db_* call is sorted by db_last_error() the same way.
 */
#ifndef PHPCMP_DB_INTERNAL_H
#define PHPCMP_DB_INTERNAL_H

#include <pthread.h>

#include <sqlite3.h>

#include "db.h"

/* A results row's output, as SQL over alias r: its own bytes, or the base
 * result's when stored once for both (output_same, schema migration 7). */
#define RESULT_OUTPUT_SQL                                                                        \
	"(CASE WHEN r.output_same THEN (SELECT x.output FROM results x WHERE x.comparison_id = " \
	"r.comparison_id AND x.role = 'base') ELSE r.output END)"

struct db_triage;

enum { DB_TX_BEGIN, DB_TX_COMMIT, DB_TX_ROLLBACK, DB_TX_COUNT };

struct db {
	sqlite3 *conn;
	pthread_mutex_t lock;
	sqlite3_stmt *tx[DB_TX_COUNT]; /* db_core.c: BEGIN IMMEDIATE, COMMIT, ROLLBACK */
	sqlite3_stmt **stmt;           /* db.c's statements */
	struct db_triage *triage;      /* db_triage.c's statements on this connection */
	sqlite3_stmt *roots[3];        /* db_reduce.c: db_reduce_roots's, prepared on first use */
	int tokens_seen;               /* active tokens at the last count (-1: never counted) */
};

/* SQLite's extended code of this thread's last failed call, for db_last_error(). */
extern _Thread_local int db_errcode;

void db_seterr(char *err, size_t errsize, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A statement reset and unbound, ready for new parameters; clears the error state. */
sqlite3_stmt *db_ready(sqlite3_stmt *);
/* Record the connection's error (db_errcode) and say what failed: -1. */
int db_fail(struct db *, const char *what, char *err, size_t errsize);
/* Step a statement that returns no rows (or one to ignore): 0, or db_fail. */
int db_exec(struct db *, sqlite3_stmt *, const char *what, char *err, size_t errsize);
/* db_core.c: the transaction statements, prepared by db_open(). */
int db_tx_prepare(struct db *, char *err, size_t errsize);
void db_tx_finalize(struct db *);
int db_begin(struct db *, char *err, size_t errsize);
int db_commit(struct db *, char *err, size_t errsize);
/* Roll back, keeping the error state of the failure that led here. */
void db_rollback(struct db *);
/* NULL binds SQL NULL; the text must outlive the statement's next step. */
void db_bind_text(sqlite3_stmt *, int i, const char *s);
/* id > 0 binds it, else SQL NULL. */
void db_bind_id(sqlite3_stmt *, int i, int64_t id);
/* Text column i into buf, cut to fit ("" for NULL). */
void db_col_copy(sqlite3_stmt *st, int i, char *buf, size_t bufsize);
/* Text column i: a copy (NULL for NULL), *oom set (oom not NULL) when the copy failed. */
char *db_text_copy(sqlite3_stmt *st, int i, int *oom);
/* Room in *list (an array of size-byte items, *cap of them) for item n: 0, -1 out of memory. */
int db_grow(void **list, size_t n, size_t *cap, size_t size);
/* db.c: the content hash a case is found by (cases.content_hash). */
/* The id of the case with c's content, stored first if there is none; the
 * caller holds db->lock in a transaction.  0, or -1 with err set. */
int db_case_put(struct db *db, const struct case_spec *c, int64_t *case_id, char *err, size_t errsize);
/* db.c: one build's result row of a comparison (base: the base's result, for an output stored once). */
int db_store_result(struct db *db, int64_t comparison_id, int role, const struct build *b,
    const struct result *r, const struct result *base, char *err, size_t errsize);
/* db_triage.c, called by db.c: prepared after the migrations, closed with the connection. */
struct db_triage *db_triage_open(struct db *, char *err, size_t errsize);
void db_triage_close(struct db_triage *);
/* Put a stored mismatch in its bucket; inside db_comparison_store()'s transaction. */
/* Each candidate res[1..n-1] that differs from the base into its bucket
 * (names: the builds' names by role, for a later candidate's key). */
int db_triage_record(struct db *, long flags, const struct result *res, int n, const char *const *names,
    int64_t run_id, int64_t comparison_id, char *err, size_t errsize);
/* A phpt test's regression or improvement on a candidate into its bucket
 * (key: bucket_phpt_key); inside db_phpt_store()'s transaction.  The
 * bucket's id, or -1. */
int64_t db_triage_record_phpt(
    struct db *, const char *key, const char *candidate, int64_t run_id, char *err, size_t errsize);
/* At startup: buckets for mismatches stored before buckets existed. */
int db_triage_backfill(struct db *, char *err, size_t errsize);

#endif
