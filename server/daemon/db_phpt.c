/*
 * Storage of the phpt suite's results (phptrun.c, docs/phpt.md): the
 * phpt_tests and phpt_results tables of schema.sql, written with bound
 * parameters only, each test with the run's progress in one transaction.
 * The statements are few and run once per test: prepared as they are used.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "db_internal.h"

struct db_phpt_args {
	int64_t run_id;
	const char *test, *name, *verdict;
	int role;
	const struct db_phpt_result *r;
};

typedef void (*db_phpt_binder)(sqlite3_stmt *, const struct db_phpt_args *);

/* Prepare, bind, step, finalize; 0, or -1 (db_fail). */
static int db_phpt_step(struct db *db, const char *sql, const char *what, db_phpt_binder bind,
    const struct db_phpt_args *a, char *err, size_t errsize)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db->conn, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, what, err, errsize);
	bind(st, a);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		db_fail(db, what, err, errsize);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static void db_phpt_bind_test(sqlite3_stmt *st, const struct db_phpt_args *a)
{
	sqlite3_bind_int64(st, 1, a->run_id);
	db_bind_text(st, 2, a->test);
	db_bind_text(st, 3, a->name);
	db_bind_text(st, 4, a->verdict);
}

static void db_phpt_bind_result(sqlite3_stmt *st, const struct db_phpt_args *a)
{
	const struct db_phpt_result *r = a->r;

	sqlite3_bind_int64(st, 1, a->run_id);
	db_bind_text(st, 2, a->test);
	db_bind_text(st, 3, role_name(a->role));
	db_bind_text(st, 4, r->status);
	db_bind_text(st, 5, r->reason != NULL && r->reason[0] != '\0' ? r->reason : NULL);
	if (r->output != NULL)
		sqlite3_bind_blob(st, 6, r->output, (int)r->output_len, SQLITE_STATIC);
	if (r->diff != NULL)
		sqlite3_bind_text(st, 7, r->diff, (int)r->diff_len, SQLITE_STATIC);
	sqlite3_bind_double(st, 8, r->wall_ms);
	if (r->signal)
		sqlite3_bind_int(st, 9, r->signal);
}

static void db_phpt_bind_progress(sqlite3_stmt *st, const struct db_phpt_args *a)
{
	int same = strcmp(a->verdict, "same") == 0;

	sqlite3_bind_int64(st, 1, a->run_id);
	sqlite3_bind_int(st, 2, same);
	sqlite3_bind_int(st, 3, !same);
}

static void db_phpt_bind_run(sqlite3_stmt *st, const struct db_phpt_args *a)
{
	sqlite3_bind_int64(st, 1, a->run_id);
}

int db_phpt_store(struct db *db, int64_t run_id, const char *test, const char *name, const char *verdict,
    const struct db_phpt_result res[MAX_BUILDS], char *err, size_t errsize)
{
	struct db_phpt_args a = { .run_id = run_id, .test = test, .name = name, .verdict = verdict };
	int rc;

	pthread_mutex_lock(&db->lock);
	if ((rc = db_begin(db, err, errsize)) < 0)
		goto out;
	rc = db_phpt_step(db,
	    "INSERT OR REPLACE INTO phpt_tests (run_id, test, name, verdict) VALUES (?1, ?2, ?3, ?4)",
	    "store phpt test", db_phpt_bind_test, &a, err, errsize);
	/* phpt runs: the base and the first candidate (phptrun.c, PHPT_BUILDS). */
	for (int role = 0; rc == 0 && role < 2; role++) {
		a.role = role;
		a.r = &res[role];
		rc = db_phpt_step(db,
		    "INSERT OR REPLACE INTO phpt_results (run_id, test, role, status, reason, output, diff, wall_ms, signal) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
		    "store phpt result", db_phpt_bind_result, &a, err, errsize);
	}
	if (rc == 0)
		rc = db_phpt_step(db,
		    "UPDATE runs SET done = done + 1, same = same + ?2, differ = differ + ?3 WHERE id = ?1",
		    "run progress", db_phpt_bind_progress, &a, err, errsize);
	if (rc == 0)
		rc = db_commit(db, err, errsize);
	else
		db_rollback(db);
out:
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_phpt_restart(struct db *db, int64_t run_id, char *err, size_t errsize)
{
	static const char *const sql[] = {
		"DELETE FROM phpt_results WHERE run_id = ?1",
		"DELETE FROM phpt_tests WHERE run_id = ?1",
		"UPDATE runs SET done = 0, same = 0, differ = 0 WHERE id = ?1",
	};
	struct db_phpt_args a = { .run_id = run_id };
	int rc;

	pthread_mutex_lock(&db->lock);
	if ((rc = db_begin(db, err, errsize)) == 0) {
		for (size_t i = 0; rc == 0 && i < sizeof(sql) / sizeof(sql[0]); i++)
			rc = db_phpt_step(
			    db, sql[i], "restart the phpt run", db_phpt_bind_run, &a, err, errsize);
		if (rc == 0)
			rc = db_commit(db, err, errsize);
		else
			db_rollback(db);
	}
	pthread_mutex_unlock(&db->lock);
	return rc;
}
