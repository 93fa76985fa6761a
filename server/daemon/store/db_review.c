/*
 * Storage of reviews (phpcmp review --url's verdicts, docs/review.md): the
 * reviews table of schema.sql, with bound parameters only.  Written once
 * per review, read by the API.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db_core.h"

#define DB_REVIEW_COLUMNS "id, label, verdict, builds, runs, created_by, created_at"

enum { V_ADD, V_LIST, V_GET, V_COUNT };
static const char *const vstmt_sql[V_COUNT] = {
	[V_ADD] =
	    "INSERT INTO reviews (label, verdict, builds, runs, report_md, created_by) VALUES (?, ?, ?, ?, ?, ?)",
	[V_LIST] = "SELECT " DB_REVIEW_COLUMNS
	           " FROM reviews WHERE ?1 = 0 OR id < ?1 ORDER BY id DESC LIMIT ?2",
	[V_GET] = "SELECT " DB_REVIEW_COLUMNS ", report_md FROM reviews WHERE id = ?",
};
const struct db_sql_table db_review_table = { "reviews", vstmt_sql, V_COUNT };

int db_review_add(struct db *db, const struct db_review *r, int64_t *id, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_REVIEW, V_ADD);
	db_bind_text(st, 1, r->label);
	db_bind_text(st, 2, r->verdict);
	db_bind_text(st, 3, r->builds);
	db_bind_text(st, 4, r->runs);
	db_bind_text(st, 5, r->report_md);
	db_bind_text(st, 6, r->created_by[0] != '\0' ? r->created_by : NULL);
	if ((rc = db_exec(db, st, "store review", err, errsize)) == 0)
		*id = sqlite3_last_insert_rowid(db->conn);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

/* A row of DB_REVIEW_COLUMNS (and report_md as the 8th column when with_report). */
static int db_review_read(sqlite3_stmt *st, struct db_review *r, int with_report)
{
	int oom = 0;

	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(st, 0);
	db_col_copy(st, 1, r->label, sizeof r->label);
	db_col_copy(st, 2, r->verdict, sizeof r->verdict);
	r->builds = db_text_copy(st, 3, &oom);
	r->runs = db_text_copy(st, 4, &oom);
	db_col_copy(st, 5, r->created_by, sizeof r->created_by);
	db_col_copy(st, 6, r->created_at, sizeof r->created_at);
	if (with_report)
		r->report_md = db_text_copy(st, 7, &oom);
	return oom ? -1 : 0;
}

void db_review_release(struct db_review *r)
{
	free(r->builds);
	free(r->runs);
	free(r->report_md);
	r->builds = r->runs = r->report_md = NULL;
}

int db_review_list(
    struct db *db, int limit, int64_t before, db_review_fn fn, void *arg, char *err, size_t errsize)
{
	struct db_review r;
	sqlite3_stmt *st;
	int rc = -1, step;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_REVIEW, V_LIST);
	sqlite3_bind_int64(st, 1, before);
	sqlite3_bind_int(st, 2, limit);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int bad = db_review_read(st, &r, 0) < 0 || fn(arg, &r) < 0;
		db_review_release(&r);
		if (bad) {
			db_seterr(err, errsize, "out of memory");
			goto out;
		}
	}
	rc = step == SQLITE_DONE ? 0 : db_fail(db, "list reviews", err, errsize);
out:
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_review_get(struct db *db, int64_t id, struct db_review *out, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_REVIEW, V_GET);
	sqlite3_bind_int64(st, 1, id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW)
		rc = db_review_read(st, out, 1) < 0 ? (db_seterr(err, errsize, "out of memory"), -1) : 1;
	else
		rc = step == SQLITE_DONE ? 0 : db_fail(db, "read review", err, errsize);
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}
