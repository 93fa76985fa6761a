/*
 * Storage of released PHP's answers to a case (reference_results of
 * schema.sql, migration 22; issue 49): one row per case, reference and its
 * exact PHP version, written once when the reference answered, read by
 * GET /api/cases/{id}/references and every root cause's line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db_core.h"

enum { F_GET, F_PUT, F_COUNT };
static const char *const fstmt_sql[F_COUNT] = {
	/* ?3 "": the newest of any version (the worker has not said its own yet) */
	[F_GET] = "SELECT php_version, status, signal, output, output_is_false, error_code, error_msg, "
	          "exc_class, exc_msg, printed, warnings, failure, wall_ms FROM reference_results "
	          "WHERE case_id = ?1 AND name = ?2 AND (?3 = '' OR php_version = ?3) "
	          "ORDER BY created_at DESC LIMIT 1",
	[F_PUT] = "INSERT OR REPLACE INTO reference_results (case_id, name, php_version, runtime, status, "
	          "signal, output, output_is_false, error_code, error_msg, exc_class, exc_msg, printed, "
	          "warnings, failure, wall_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
};
const struct db_sql_table db_references_table = { "reference_results", fstmt_sql, F_COUNT };

int db_reference_get(struct db *db, int64_t case_id, const char *name, const char *php_version,
    struct result *r, char *version, size_t vsize, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc, oom = 0;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_REFERENCES, F_GET);
	sqlite3_bind_int64(st, 1, case_id);
	db_bind_text(st, 2, name);
	db_bind_text(st, 3, php_version != NULL ? php_version : "");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		int status = result_status_parse((const char *)sqlite3_column_text(st, 1));
		db_col_copy(st, 0, version, vsize);
		r->status = status >= 0 ? (enum result_status)status : STATUS_ERROR;
		r->signal = sqlite3_column_int(st, 2);
		r->output_is_false = sqlite3_column_int(st, 4);
		if (!r->output_is_false)
			bytes_set(
			    &r->output, sqlite3_column_blob(st, 3), (size_t)sqlite3_column_bytes(st, 3));
		r->error_code = (long)sqlite3_column_int64(st, 5);
		r->error_msg = db_text_copy(st, 6, &oom);
		r->exc_class = db_text_copy(st, 7, &oom);
		r->exc_msg = db_text_copy(st, 8, &oom);
		bytes_set(&r->printed, sqlite3_column_blob(st, 9), (size_t)sqlite3_column_bytes(st, 9));
		r->warnings = db_text_copy(st, 10, &oom);
		if (r->warnings == NULL)
			r->warnings = strdup("");
		r->failure = db_text_copy(st, 11, &oom);
		r->wall_ms = sqlite3_column_double(st, 12);
		/* Unsupported on this version: its failure says why (as a build's result). */
		if (r->status == STATUS_ERROR && r->failure != NULL &&
		    strncmp(r->failure, RESULT_UNSUPPORTED, strlen(RESULT_UNSUPPORTED)) == 0)
			r->unsupported = strdup(r->failure + strlen(RESULT_UNSUPPORTED));
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		db_fail(db, "read a reference's result", err, errsize);
	pthread_mutex_unlock(&db->lock);
	if (rc == SQLITE_ROW && oom) {
		db_seterr(err, errsize, "database: out of memory");
		return -1;
	}
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int db_reference_put(struct db *db, int64_t case_id, const char *name, const char *php_version,
    const char *runtime, const struct result *r, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_REFERENCES, F_PUT);
	sqlite3_bind_int64(st, 1, case_id);
	db_bind_text(st, 2, name);
	db_bind_text(st, 3, php_version);
	db_bind_text(st, 4, runtime != NULL ? runtime : "");
	db_bind_result(st, 5, r, 1); /* ?5 .. ?15 */
	sqlite3_bind_double(st, 16, r->wall_ms);
	rc = db_exec(db, st, "store a reference's result", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}
