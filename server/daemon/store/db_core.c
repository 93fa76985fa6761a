/*
 * The storage modules' shared core (db_core.h): the error state of the
 * calling thread's last failed db_* call and the one place SQLite's errors
 * are sorted (db_last_error), the transaction statements, and the helpers
 * every storage module steps its statements with.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_core.h"

/* SQLite's extended code of this thread's last failed call, for db_last_error(). */
_Thread_local int db_errcode;

void db_seterr(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errsize == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
}

sqlite3_stmt *db_ready(sqlite3_stmt *st)
{
	db_errcode = 0;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
}

int db_fail(struct db *db, const char *what, char *err, size_t errsize)
{
	db_errcode = sqlite3_extended_errcode(db->conn);
	db_seterr(err, errsize, "database: %s: %s", what, sqlite3_errmsg(db->conn));
	return -1;
}

enum db_error db_last_error(void)
{
	switch (db_errcode & 0xff) {
	case 0:
		return DB_ERR_NONE;
	case SQLITE_FULL:
		return DB_ERR_FULL;
	case SQLITE_READONLY:
		return DB_ERR_READONLY;
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
		return DB_ERR_UNAVAILABLE;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return DB_ERR_BUSY;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return DB_ERR_CORRUPT;
	default:
		return DB_ERR_OTHER;
	}
}

/* Run a statement that returns no rows. */
int db_exec(struct db *db, sqlite3_stmt *st, const char *what, char *err, size_t errsize)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return db_fail(db, what, err, errsize);
	return 0;
}

static const char *const db_tx_sql[DB_TX_COUNT] = { "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK" };
const struct db_sql_table db_tx_table = { "transactions", db_tx_sql, DB_TX_COUNT };

sqlite3_stmt *db_statement(struct db *db, enum db_family f, int i)
{
	return db_ready(db->st[f][i]);
}

int db_begin(struct db *db, char *err, size_t errsize)
{
	return db_exec(db, db_statement(db, DB_F_TX, DB_TX_BEGIN), "begin", err, errsize);
}

int db_commit(struct db *db, char *err, size_t errsize)
{
	return db_exec(db, db_statement(db, DB_F_TX, DB_TX_COMMIT), "commit", err, errsize);
}

void db_rollback(struct db *db)
{
	int failed = db_errcode; /* the failure that led here is the one to report */
	sqlite3_stmt *st = db_statement(db, DB_F_TX, DB_TX_ROLLBACK);

	sqlite3_step(st);
	sqlite3_reset(st);
	db_errcode = failed;
}

void db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

void db_bind_result(sqlite3_stmt *st, int first, const struct result *r, int keep_output)
{
	/* No output at all (a crash, a timeout) reads back as false. */
	int is_false = r->output_is_false || r->output.data == NULL;

	db_bind_text(st, first, result_status_name(r->status));
	if (r->status == STATUS_CRASH)
		sqlite3_bind_int(st, first + 1, r->signal);
	if (!is_false && keep_output)
		sqlite3_bind_blob64(st, first + 2, r->output.data, r->output.len, SQLITE_STATIC);
	sqlite3_bind_int(st, first + 3, is_false);
	sqlite3_bind_int64(st, first + 4, r->error_code);
	db_bind_text(st, first + 5, r->error_msg);
	db_bind_text(st, first + 6, r->exc_class);
	db_bind_text(st, first + 7, r->exc_msg);
	sqlite3_bind_blob64(
	    st, first + 8, r->printed.data != NULL ? r->printed.data : "", r->printed.len, SQLITE_STATIC);
	db_bind_text(st, first + 9, r->warnings != NULL ? r->warnings : "");
	db_bind_text(st, first + 10, r->failure);
}

void db_bind_id(sqlite3_stmt *st, int i, int64_t id)
{
	if (id > 0)
		sqlite3_bind_int64(st, i, id);
	else
		sqlite3_bind_null(st, i);
}

int db_grow(void **list, size_t n, size_t *cap, size_t size)
{
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 8;
	if ((p = realloc(*list, c * size)) == NULL)
		return -1;
	*list = p;
	*cap = c;
	return 0;
}

void db_col_copy(sqlite3_stmt *st, int i, char *buf, size_t bufsize)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, bufsize, "%s", s != NULL ? (const char *)s : "");
}

char *db_text_copy(sqlite3_stmt *st, int i, int *oom)
{
	const unsigned char *v = sqlite3_column_text(st, i);
	char *copy;

	if (v == NULL)
		return NULL;
	if ((copy = strdup((const char *)v)) == NULL && oom != NULL)
		*oom = 1;
	return copy;
}

int db_each(struct db *db, sqlite3_stmt *st, int (*row)(sqlite3_stmt *, void *), void *arg, const char *what,
    char *err, size_t errsize)
{
	int rc, n = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (row(st, arg) < 0) {
			sqlite3_reset(st);
			db_seterr(err, errsize, "out of memory");
			return -1;
		}
		n++;
	}
	rc = rc == SQLITE_DONE ? n : db_fail(db, what, err, errsize);
	sqlite3_reset(st);
	return rc;
}

int db_locked_ints(struct db *db, enum db_family f, int i, const int64_t *v, int n,
    int (*row)(sqlite3_stmt *, void *), void *arg, const char *what, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, f, i);
	for (int k = 0; k < n; k++)
		sqlite3_bind_int64(st, k + 1, v[k]);
	rc = row != NULL ? db_each(db, st, row, arg, what, err, errsize)
	                 : db_exec(db, st, what, err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_update(struct db *db, sqlite3_stmt *st, const char *what, char *err, size_t errsize)
{
	int rc = db_exec(db, st, what, err, errsize);

	return rc < 0 ? -1 : sqlite3_changes(db->conn) > 0;
}

int db_count(struct db *db, enum db_family f, int i, const char *what, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, f, i);
	rc = sqlite3_step(st);
	rc = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : db_fail(db, what, err, errsize);
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}
