/*
 * Storage of a run's coverage summaries (coverage.c, docs/coverage.md): the
 * coverage table of schema.sql, with bound parameters only.  Written once
 * per coverage build at a run's end, read by the API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db_core.h"

enum { C_STORE, C_LIST, C_COUNT };
static const char *const cstmt_sql[C_COUNT] = {
	[C_STORE] =
	    "INSERT OR REPLACE INTO coverage (run_id, role, build, files, error) VALUES (?, ?, ?, ?, ?)",
	[C_LIST] = "SELECT role, build, files, error, created_at FROM coverage WHERE run_id = ? "
	           "ORDER BY role = 'base' DESC, role = 'head' DESC, role",
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

int db_coverage_list(
    struct db *db, int64_t run_id, struct db_coverage **out, size_t *n, char *err, size_t errsize)
{
	struct db_coverage *list = NULL, *p;
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc, oom = 0;

	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_COVERAGE, C_LIST);
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (db_grow((void **)&list, *n, &cap, sizeof *list) < 0) {
			oom = 1;
			break;
		}
		p = &list[*n];
		memset(p, 0, sizeof *p);
		(*n)++;
		db_col_copy(st, 0, p->role, sizeof p->role);
		db_col_copy(st, 1, p->build, sizeof p->build);
		p->files = db_text_copy(st, 2, &oom);
		p->error = db_text_copy(st, 3, &oom);
		p->created_at = db_text_copy(st, 4, &oom);
	}
	if (!oom && rc != SQLITE_ROW && rc != SQLITE_DONE)
		rc = db_fail(db, "read coverage", err, errsize);
	else
		rc = 0;
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	if (oom) {
		db_seterr(err, errsize, "out of memory");
		rc = -1;
	}
	if (rc < 0) {
		db_coverage_list_release(list, *n);
		*n = 0;
		return -1;
	}
	*out = list;
	return 0;
}

void db_coverage_list_release(struct db_coverage *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(list[i].files);
		free(list[i].error);
		free(list[i].created_at);
	}
	free(list);
}
