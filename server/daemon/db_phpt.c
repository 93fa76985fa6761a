/*
 * Storage of the phpt suite's results (phptrun.c, docs/phpt.md): the
 * phpt_tests and phpt_results tables of schema.sql's migration 6, written
 * with bound parameters only, each test in one transaction.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "phpcmp.h"

static int db_phpt_exec(sqlite3 *conn, const char *sql, const char *what, char *err, size_t errsize,
    int (*bind)(sqlite3_stmt *, const void *), const void *arg)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(conn, sql, -1, &st, NULL);

	if (rc == SQLITE_OK && bind != NULL)
		rc = bind(st, arg);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		rc = rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
	}
	if (rc != SQLITE_OK)
		snprintf(err, errsize, "database: %s: %s", what, sqlite3_errmsg(conn));
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : -1;
}

/* BEGIN, the steps, COMMIT; ROLLBACK when one fails. */
static int db_phpt_tx_end(sqlite3 *conn, int rc, char *err, size_t errsize)
{
	char ignored[64];

	if (rc == 0)
		return db_phpt_exec(conn, "COMMIT", "commit", err, errsize, NULL, NULL);
	db_phpt_exec(conn, "ROLLBACK", "rollback", ignored, sizeof(ignored), NULL, NULL);
	return -1;
}

struct db_phpt_args {
	int64_t run_id;
	const char *test, *name, *verdict;
	int role;
	const struct db_phpt_result *r;
};

static int db_phpt_bind_test(sqlite3_stmt *st, const void *arg)
{
	const struct db_phpt_args *a = arg;

	sqlite3_bind_int64(st, 1, a->run_id);
	sqlite3_bind_text(st, 2, a->test, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, a->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, a->verdict, -1, SQLITE_STATIC);
	return SQLITE_OK;
}

static int db_phpt_bind_result(sqlite3_stmt *st, const void *arg)
{
	const struct db_phpt_args *a = arg;
	const struct db_phpt_result *r = a->r;

	sqlite3_bind_int64(st, 1, a->run_id);
	sqlite3_bind_text(st, 2, a->test, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, app_role_name(a->role), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->status, -1, SQLITE_STATIC);
	if (r->reason != NULL && r->reason[0] != '\0')
		sqlite3_bind_text(st, 5, r->reason, -1, SQLITE_STATIC);
	if (r->output != NULL)
		sqlite3_bind_blob(st, 6, r->output, (int)r->output_len, SQLITE_STATIC);
	if (r->diff != NULL)
		sqlite3_bind_text(st, 7, r->diff, (int)r->diff_len, SQLITE_STATIC);
	sqlite3_bind_double(st, 8, r->wall_ms);
	if (r->signal)
		sqlite3_bind_int(st, 9, r->signal);
	return SQLITE_OK;
}

static int db_phpt_bind_progress(sqlite3_stmt *st, const void *arg)
{
	const struct db_phpt_args *a = arg;
	int same = strcmp(a->verdict, "same") == 0;

	sqlite3_bind_int64(st, 1, a->run_id);
	sqlite3_bind_int(st, 2, same);
	sqlite3_bind_int(st, 3, !same);
	return SQLITE_OK;
}

int db_phpt_store(struct db *db, int64_t run_id, const char *test, const char *name, const char *verdict,
    const struct db_phpt_result res[MAX_BUILDS], char *err, size_t errsize)
{
	struct db_phpt_args a = { .run_id = run_id, .test = test, .name = name, .verdict = verdict };
	sqlite3 *conn = db_conn_lock(db);
	int rc = db_phpt_exec(conn, "BEGIN IMMEDIATE", "begin", err, errsize, NULL, NULL);

	if (rc < 0)
		goto out;
	rc = db_phpt_exec(conn,
	    "INSERT OR REPLACE INTO phpt_tests (run_id, test, name, verdict) VALUES (?1, ?2, ?3, ?4)",
	    "store phpt test", err, errsize, db_phpt_bind_test, &a);
	for (int role = 0; rc == 0 && role < MAX_BUILDS; role++) {
		a.role = role;
		a.r = &res[role];
		rc = db_phpt_exec(conn,
		    "INSERT OR REPLACE INTO phpt_results (run_id, test, role, status, reason, output, diff, wall_ms, signal) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
		    "store phpt result", err, errsize, db_phpt_bind_result, &a);
	}
	if (rc == 0)
		rc = db_phpt_exec(conn,
		    "UPDATE runs SET done = done + 1, same = same + ?2, differ = differ + ?3 WHERE id = ?1",
		    "run progress", err, errsize, db_phpt_bind_progress, &a);
	rc = db_phpt_tx_end(conn, rc, err, errsize);
out:
	db_conn_unlock(db);
	return rc;
}

static int db_phpt_bind_run(sqlite3_stmt *st, const void *arg)
{
	sqlite3_bind_int64(st, 1, *(const int64_t *)arg);
	return SQLITE_OK;
}

int db_phpt_restart(struct db *db, int64_t run_id, char *err, size_t errsize)
{
	static const char *const sql[] = {
		"DELETE FROM phpt_results WHERE run_id = ?1",
		"DELETE FROM phpt_tests WHERE run_id = ?1",
		"UPDATE runs SET done = 0, same = 0, differ = 0 WHERE id = ?1",
	};
	sqlite3 *conn = db_conn_lock(db);
	int rc = db_phpt_exec(conn, "BEGIN IMMEDIATE", "begin", err, errsize, NULL, NULL);

	if (rc == 0) {
		for (size_t i = 0; rc == 0 && i < sizeof(sql) / sizeof(sql[0]); i++)
			rc = db_phpt_exec(
			    conn, sql[i], "restart the phpt run", err, errsize, db_phpt_bind_run, &run_id);
		rc = db_phpt_tx_end(conn, rc, err, errsize);
	}
	db_conn_unlock(db);
	return rc;
}
