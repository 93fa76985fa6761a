/*
 * Storage of the phpt suite's results (phptrun.c, docs/phpt.md): the
 * phpt_tests and phpt_results tables of schema.sql, written with bound
 * parameters only, each test with the run's progress in one transaction.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db_core.h"

enum pstmt {
	P_TEST,
	P_RESULT,
	P_PROGRESS,
	P_RESTART_BUCKETS,
	P_RESTART_BUCKET_RUNS,
	P_RESTART_RESULTS,
	P_RESTART_TESTS,
	P_RESTART_RUN,
	P_BUCKET_TESTS,
	P_TEST_GET,
	P_COUNT
};
/* clang-format off */
static const char *const pstmt_sql[P_COUNT] = {
	[P_TEST] =
	    "INSERT OR REPLACE INTO phpt_tests (run_id, test, name, verdict, source) VALUES (?1, ?2, ?3, ?4, ?5)",
	[P_RESULT] =
	    "INSERT OR REPLACE INTO phpt_results (run_id, test, role, status, reason, output, diff, wall_ms, "
	    "signal, verdict, bucket_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[P_PROGRESS] = "UPDATE runs SET done = done + 1, same = same + ?2, differ = differ + ?3 WHERE id = ?1",
	/* A restart: the run's counts in its phpt buckets go with its results (a
	 * bucket left empty keeps its triage, and fills again as the run re-runs). */
	[P_RESTART_BUCKETS] =
	    "UPDATE buckets SET mismatches = mismatches - (SELECT br.mismatches FROM bucket_runs br "
	    "WHERE br.run_id = ?1 AND br.bucket_id = buckets.id) "
	    "WHERE id IN (SELECT DISTINCT bucket_id FROM phpt_results WHERE run_id = ?1 AND bucket_id IS NOT NULL)",
	[P_RESTART_BUCKET_RUNS] =
	    "DELETE FROM bucket_runs WHERE run_id = ?1 AND bucket_id IN "
	    "(SELECT DISTINCT bucket_id FROM phpt_results WHERE run_id = ?1 AND bucket_id IS NOT NULL)",
	[P_RESTART_RESULTS] = "DELETE FROM phpt_results WHERE run_id = ?1",
	[P_RESTART_TESTS] = "DELETE FROM phpt_tests WHERE run_id = ?1",
	[P_RESTART_RUN] = "UPDATE runs SET done = 0, same = 0, differ = 0 WHERE id = ?1",
	[P_BUCKET_TESTS] =
	    "SELECT r.run_id, r.test, t.name, r.role, r.status, b.status, r.reason FROM phpt_results r "
	    "JOIN phpt_tests t ON t.run_id = r.run_id AND t.test = r.test "
	    "LEFT JOIN phpt_results b ON b.run_id = r.run_id AND b.test = r.test AND b.role = 'base' "
	    "WHERE r.bucket_id = ?1 ORDER BY r.run_id DESC, r.test LIMIT ?2",
	[P_TEST_GET] =
	    "SELECT t.name, t.verdict, t.source, r.role, r.status, r.reason, r.verdict, r.bucket_id, "
	    "r.output, r.diff, r.wall_ms, r.signal FROM phpt_tests t "
	    "JOIN phpt_results r ON r.run_id = t.run_id AND r.test = t.test "
	    "WHERE t.run_id = ?1 AND t.test = ?2 "
	    "ORDER BY CASE r.role WHEN 'base' THEN 0 WHEN 'head' THEN 1 ELSE 2 END, r.role",
};
/* clang-format on */
const struct db_sql_table db_phpt_table = { "phpt", pstmt_sql, P_COUNT };

struct db_phpt_args {
	int64_t run_id;
	const char *test, *name, *verdict, *source;
	size_t source_len;
	int role;
	const struct db_phpt_result *r;
	int64_t bucket_id;
};

typedef void (*db_phpt_binder)(sqlite3_stmt *, const struct db_phpt_args *);

/* Statement s bound and run; 0, or -1 (db_fail). */
static int db_phpt_step(struct db *db, enum pstmt s, const char *what, db_phpt_binder bind,
    const struct db_phpt_args *a, char *err, size_t errsize)
{
	sqlite3_stmt *st = db_statement(db, DB_F_PHPT, s);

	bind(st, a);
	return db_exec(db, st, what, err, errsize);
}

static void db_phpt_bind_test(sqlite3_stmt *st, const struct db_phpt_args *a)
{
	sqlite3_bind_int64(st, 1, a->run_id);
	db_bind_text(st, 2, a->test);
	db_bind_text(st, 3, a->name);
	db_bind_text(st, 4, a->verdict);
	if (a->source != NULL)
		sqlite3_bind_blob(st, 5, a->source, (int)a->source_len, SQLITE_STATIC);
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
	db_bind_text(st, 10, r->verdict);
	db_bind_id(st, 11, a->bucket_id);
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
    const char *source, size_t source_len, const struct db_phpt_result res[MAX_BUILDS], int nbuilds,
    int64_t bucket_ids[MAX_BUILDS], char *err, size_t errsize)
{
	struct db_phpt_args a = { .run_id = run_id,
		.test = test,
		.name = name,
		.verdict = verdict,
		.source = source,
		.source_len = source_len };
	int rc;

	pthread_mutex_lock(&db->lock);
	if ((rc = db_begin(db, err, errsize)) < 0)
		goto out;
	rc = db_phpt_step(db, P_TEST, "store phpt test", db_phpt_bind_test, &a, err, errsize);
	/* every build of the run; a regression or improvement joins its bucket first */
	for (int role = 0; rc == 0 && role < nbuilds && role < MAX_BUILDS; role++) {
		a.role = role;
		a.r = &res[role];
		a.bucket_id = 0;
		if (res[role].bucket_key != NULL &&
		    (a.bucket_id = db_triage_record_phpt(
		         db, res[role].bucket_key, res[role].candidate, run_id, err, errsize)) < 0) {
			rc = -1;
			break;
		}
		bucket_ids[role] = a.bucket_id;
		rc = db_phpt_step(db, P_RESULT, "store phpt result", db_phpt_bind_result, &a, err, errsize);
	}
	if (rc == 0)
		rc = db_phpt_step(db, P_PROGRESS, "run progress", db_phpt_bind_progress, &a, err, errsize);
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
	struct db_phpt_args a = { .run_id = run_id };
	int rc;

	pthread_mutex_lock(&db->lock);
	if ((rc = db_begin(db, err, errsize)) == 0) {
		for (int i = P_RESTART_BUCKETS; rc == 0 && i <= P_RESTART_RUN; i++)
			rc = db_phpt_step(
			    db, (enum pstmt)i, "restart the phpt run", db_phpt_bind_run, &a, err, errsize);
		if (rc == 0)
			rc = db_commit(db, err, errsize);
		else
			db_rollback(db);
	}
	pthread_mutex_unlock(&db->lock);
	return rc;
}

void db_phpt_bucket_tests_free(struct db_phpt_bucket_test *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(list[i].test);
		free(list[i].name);
		free(list[i].role);
		free(list[i].status);
		free(list[i].base_status);
		free(list[i].reason);
	}
	free(list);
}

int db_phpt_bucket_tests(struct db *db, int64_t bucket_id, int limit, struct db_phpt_bucket_test **list,
    size_t *n, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc, oom = 0;

	*list = NULL;
	*n = 0;
	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_PHPT, P_BUCKET_TESTS);
	sqlite3_bind_int64(st, 1, bucket_id);
	sqlite3_bind_int(st, 2, limit);
	while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (db_grow((void **)list, *n, &cap, sizeof **list) < 0) {
			oom = 1;
			break;
		}
		struct db_phpt_bucket_test *t = &(*list)[(*n)++];
		t->run_id = sqlite3_column_int64(st, 0);
		t->test = db_text_copy(st, 1, &oom);
		t->name = db_text_copy(st, 2, &oom);
		t->role = db_text_copy(st, 3, &oom);
		t->status = db_text_copy(st, 4, &oom);
		t->base_status = db_text_copy(st, 5, &oom);
		t->reason = db_text_copy(st, 6, &oom);
	}
	if (oom)
		db_seterr(err, errsize, "out of memory");
	else if (rc != SQLITE_DONE)
		db_fail(db, "phpt bucket tests", err, errsize);
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	if (oom || rc != SQLITE_DONE) {
		db_phpt_bucket_tests_free(*list, *n);
		*list = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

/* A column's bytes as stored (data NULL for NULL); *oom set when the copy failed. */
static void db_phpt_bytes(sqlite3_stmt *st, int i, struct bytes *b, int *oom)
{
	b->data = NULL;
	b->len = 0;
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return;
	bytes_set(b, sqlite3_column_blob(st, i), (size_t)sqlite3_column_bytes(st, i));
	if (b->data == NULL)
		*oom = 1;
}

void db_phpt_test_release(struct db_phpt_test *t)
{
	bytes_release(&t->name);
	bytes_release(&t->verdict);
	bytes_release(&t->source);
	for (size_t i = 0; i < t->nbuilds; i++) {
		struct db_phpt_test_result *r = &t->builds[i];
		bytes_release(&r->role);
		bytes_release(&r->status);
		bytes_release(&r->reason);
		bytes_release(&r->verdict);
		bytes_release(&r->output);
		bytes_release(&r->diff);
	}
	free(t->builds);
	memset(t, 0, sizeof *t);
}

int db_phpt_test_get(
    struct db *db, int64_t run_id, const char *test, struct db_phpt_test *out, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc, oom = 0;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_PHPT, P_TEST_GET);
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_text(st, 2, test);
	while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (out->nbuilds == 0) {
			db_phpt_bytes(st, 0, &out->name, &oom);
			db_phpt_bytes(st, 1, &out->verdict, &oom);
			db_phpt_bytes(st, 2, &out->source, &oom);
		}
		if (db_grow((void **)&out->builds, out->nbuilds, &cap, sizeof *out->builds) < 0) {
			oom = 1;
			break;
		}
		struct db_phpt_test_result *r = &out->builds[out->nbuilds++];
		memset(r, 0, sizeof *r);
		db_phpt_bytes(st, 3, &r->role, &oom);
		db_phpt_bytes(st, 4, &r->status, &oom);
		db_phpt_bytes(st, 5, &r->reason, &oom);
		db_phpt_bytes(st, 6, &r->verdict, &oom);
		r->bucket_id = sqlite3_column_int64(st, 7);
		db_phpt_bytes(st, 8, &r->output, &oom);
		db_phpt_bytes(st, 9, &r->diff, &oom);
		r->wall_ms = sqlite3_column_double(st, 10);
		r->has_signal = sqlite3_column_type(st, 11) != SQLITE_NULL;
		r->signal = sqlite3_column_int(st, 11);
	}
	if (oom) {
		rc = -1;
		db_seterr(err, errsize, "out of memory");
	} else if (rc != SQLITE_DONE) {
		rc = db_fail(db, "phpt test", err, errsize);
	} else {
		rc = out->nbuilds > 0;
	}
	if (rc <= 0)
		db_phpt_test_release(out);
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}
