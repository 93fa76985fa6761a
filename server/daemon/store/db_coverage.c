/*
 * Storage of a run's coverage summaries (coverage.c, docs/coverage.md): the
 * coverage table of schema.sql, with bound parameters only.  Written once
 * per coverage build at a run's end, read by the API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db_internal.h"

enum { C_STORE, C_LIST, C_COUNT };
static const char *const cstmt_sql[C_COUNT] = {
	[C_STORE] =
	    "INSERT OR REPLACE INTO coverage (run_id, role, build, files, error) VALUES (?, ?, ?, ?, ?)",
	[C_LIST] = "SELECT json_group_array(json_object('role', role, 'build', build, 'files', json(files), "
	           "'error', error, 'created_at', created_at)) FROM (SELECT * FROM coverage WHERE run_id = ? "
	           "ORDER BY role = 'base' DESC, role = 'head' DESC, role)",
};
const struct db_sql_table db_coverage_table = { "coverage", cstmt_sql, C_COUNT };

int db_coverage_store(struct db *db, int64_t run_id, const char *role, const char *build, const char *summary,
    const char *error, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_COVERAGE, C_STORE);
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_text(st, 2, role);
	db_bind_text(st, 3, build);
	db_bind_text(st, 4, summary);
	db_bind_text(st, 5, error);
	rc = db_exec(db, st, "store coverage", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_coverage_list(struct db *db, int64_t run_id, char **json, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc = -1;

	*json = NULL;
	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_COVERAGE, C_LIST);
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		db_fail(db, "read coverage", err, errsize);
		goto out;
	}
	const unsigned char *text = sqlite3_column_text(st, 0);
	if ((*json = strdup(text ? (const char *)text : "[]")) == NULL) {
		db_seterr(err, errsize, "out of memory");
		goto out;
	}
	rc = 0;
out:
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}
