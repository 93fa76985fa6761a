/*
 * The database connection's life: open it, apply the embedded schema.sql
 * (the preamble, then each migration above the database's user_version),
 * prepare every store file's statement table once, close it.  The top of
 * the store folder: it knows every file's table (db_core.h), and no
 * store file calls it.
 *
 * One connection guarded by one mutex.  The daemon is the only writer and
 * SQLite admits one writer at a time anyway; every statement takes well
 * under a millisecond, so serialising them costs nothing measurable, while
 * one connection per thread (MHD runs a thread per HTTP connection) would
 * re-prepare every statement per thread and turn our own threads into
 * SQLITE_BUSY contenders.  WAL mode lets outside readers (the sqlite3 shell,
 * tests) read while we write; the busy timeout covers their checkpoints.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db_core.h"

extern const char schema_sql[]; /* server/daemon/store/schema_sql.S: schema.sql + NUL */

#define DB_BUSY_TIMEOUT_MS 5000
#define MIGRATION_MARK "\n-- @migration "

/* ---- schema ---- */

static int db_user_version(struct db *db, int *version, char *err, size_t errsize)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db->conn, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "user_version", err, errsize);
	rc = sqlite3_step(st);
	*version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return db_fail(db, "user_version", err, errsize);
	return 0;
}

static int db_exec_text(
    struct db *db, const char *sql, size_t len, const char *what, char *err, size_t errsize)
{
	char *text = NULL, *msg = NULL;

	if ((text = strndup(sql, len)) == NULL) {
		db_seterr(err, errsize, "database: %s: out of memory", what);
		return -1;
	}
	if (sqlite3_exec(db->conn, text, NULL, NULL, &msg) != SQLITE_OK) {
		db_seterr(err, errsize, "database: %s: %s", what, msg != NULL ? msg : "failed");
		sqlite3_free(msg);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

/*
 * Apply schema.sql: the preamble every time, then each '-- @migration N'
 * step above the database's user_version, each in its own transaction.
 */
static int db_migrate(struct db *db, char *err, size_t errsize)
{
	const char *p = schema_sql, *mark, *next, *end = schema_sql + strlen(schema_sql);
	int version, step, last = 0;
	char what[64];

	mark = strstr(p, MIGRATION_MARK);
	if (db_exec_text(db, p, (size_t)((mark != NULL ? mark : end) - p), "schema preamble", err, errsize) <
	    0)
		return -1;
	if (db_user_version(db, &version, err, errsize) < 0)
		return -1;
	while (mark != NULL) {
		mark += 1; /* at "-- @migration N" */
		step = atoi(mark + strlen(MIGRATION_MARK) - 1);
		next = strstr(mark, MIGRATION_MARK);
		if (step != last + 1) {
			db_seterr(err, errsize, "schema.sql: migration %d follows %d", step, last);
			return -1;
		}
		last = step;
		if (step > version) {
			snprintf(what, sizeof what, "schema migration %d", step);
			if (sqlite3_exec(db->conn, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
				return db_fail(db, what, err, errsize);
			if (db_exec_text(db, mark, (size_t)((next != NULL ? next : end) - mark), what, err,
			        errsize) < 0 ||
			    db_user_version(db, &version, err, errsize) < 0) {
				sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
				return -1;
			}
			if (version != step) {
				sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
				db_seterr(
				    err, errsize, "schema.sql: migration %d does not set user_version", step);
				return -1;
			}
			if (sqlite3_exec(db->conn, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
				sqlite3_exec(db->conn, "ROLLBACK", NULL, NULL, NULL);
				return db_fail(db, what, err, errsize);
			}
		}
		mark = next;
	}
	if (version > last) {
		db_seterr(err, errsize, "database schema version %d is newer than this phpcmp's (%d)",
		    version, last);
		return -1;
	}
	return 0;
}

/* Every store file's statement table (db_core.h), by family. */
static const struct db_sql_table *const db_tables[DB_F_COUNT] = {
	[DB_F_TX] = &db_tx_table,
	[DB_F_RUNS] = &db_runs_table,
	[DB_F_TOKENS] = &db_tokens_table,
	[DB_F_GENERATED] = &db_generated_table,
	[DB_F_TRIAGE] = &db_triage_table,
	[DB_F_REDUCE] = &db_reduce_table,
	[DB_F_COVERAGE] = &db_coverage_table,
	[DB_F_PHPT] = &db_phpt_table,
	[DB_F_REVIEW] = &db_review_table,
	[DB_F_REFERENCES] = &db_references_table,
};

/* Each table's statements prepared on the connection (persistent): 0, or -1 with err. */
static int db_prepare_tables(struct db *db, char *err, size_t errsize)
{
	for (int f = 0; f < DB_F_COUNT; f++) {
		const struct db_sql_table *t = db_tables[f];
		if ((db->st[f] = calloc((size_t)t->n, sizeof *db->st[f])) == NULL) {
			db_seterr(err, errsize, "database: out of memory");
			return -1;
		}
		for (int i = 0; i < t->n; i++)
			if (sqlite3_prepare_v3(db->conn, t->sql[i], -1, SQLITE_PREPARE_PERSISTENT,
			        &db->st[f][i], NULL) != SQLITE_OK) {
				db_seterr(err, errsize, "database: %s statement %d: %s", t->family, i,
				    sqlite3_errmsg(db->conn));
				return -1;
			}
	}
	return 0;
}

struct db *db_open(const char *path, char *err, size_t errsize)
{
	struct db *db;

	if ((db = calloc(1, sizeof *db)) == NULL) {
		db_seterr(err, errsize, "database: out of memory");
		return NULL;
	}
	pthread_mutex_init(&db->lock, NULL);
	db->tokens_seen = -1;
	/* NOMUTEX: db->lock already serialises every use of the connection. */
	if (sqlite3_open_v2(path, &db->conn, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	        NULL) != SQLITE_OK) {
		db_seterr(err, errsize, "database %s: %s", path,
		    db->conn != NULL ? sqlite3_errmsg(db->conn) : "cannot open");
		goto fail;
	}
	/* SQLite falls back to read-only where it cannot write: say so now. */
	if (sqlite3_db_readonly(db->conn, "main") == 1) {
		db_seterr(err, errsize,
		    "database %s is read-only (%s); phpcmp stores every result in it "
		    "and needs to write it",
		    path, access(path, W_OK) < 0 ? strerror(errno) : "opened read-only");
		goto fail;
	}
	sqlite3_extended_result_codes(db->conn, 1);
	sqlite3_busy_timeout(db->conn, DB_BUSY_TIMEOUT_MS);
	/* WAL + NORMAL: commits don't fsync; a power cut may lose the last few. */
	if (sqlite3_exec(db->conn, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, "synchronous", err, errsize);
		goto fail;
	}
	if (db_migrate(db, err, errsize) < 0 || db_prepare_tables(db, err, errsize) < 0 ||
	    db_triage_backfill(db, err, errsize) < 0)
		goto fail;
	return db;
fail:
	db_close(db);
	return NULL;
}

void db_close(struct db *db)
{
	int f, i;

	if (db == NULL)
		return;
	for (f = 0; f < DB_F_COUNT; f++) {
		for (i = 0; db->st[f] != NULL && i < db_tables[f]->n; i++)
			sqlite3_finalize(db->st[f][i]);
		free(db->st[f]);
	}
	if (db->conn != NULL)
		sqlite3_close(db->conn);
	pthread_mutex_destroy(&db->lock);
	free(db);
}

int db_set_max_bytes(struct db *db, int64_t max_bytes, char *err, size_t errsize)
{
	sqlite3_stmt *st = NULL;
	int64_t page = 0;
	char sql[64];
	int rc = -1;

	if (max_bytes <= 0)
		return 0;
	pthread_mutex_lock(&db->lock);
	if (sqlite3_prepare_v2(db->conn, "PRAGMA page_size", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW || (page = sqlite3_column_int64(st, 0)) <= 0) {
		db_fail(db, "page_size", err, errsize);
		goto out;
	}
	/* A number from the configuration, not request data. */
	snprintf(
	    sql, sizeof sql, "PRAGMA max_page_count = %" PRId64, max_bytes / page > 1 ? max_bytes / page : 1);
	if (sqlite3_exec(db->conn, sql, NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, "max_page_count", err, errsize);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}
