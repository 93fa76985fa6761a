/*
 * A generated run's rows (docs/generated.md): each batch's result hashes,
 * its mismatches (by seed and index, a case id once stored) and the run's
 * progress, and which stored case a generated one is.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "db_core.h"
#include "gen.h"

enum gen_stmt {
	S_GEN_BATCH,
	S_GEN_BATCH_HAS,
	S_GEN_MISMATCH_INSERT,
	S_RUN_PROGRESS_BATCH,
	S_GEN_MISMATCHES,
	S_GEN_ONE,
	S_GEN_LINK,
	S_GEN_CASE,
	S_RUN_GEN_CASE,
	GEN_COUNT
};

/* clang-format off */
static const char *const gen_sql[GEN_COUNT] = {
	[S_GEN_BATCH] =
	    "INSERT OR REPLACE INTO generated_batches (run_id, seed, start, count, hashes) "
	    "VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_GEN_BATCH_HAS] =
	    "SELECT count FROM generated_batches WHERE run_id = ?1 AND seed = ?2 AND start = ?3",
	[S_GEN_MISMATCH_INSERT] =
	    "INSERT OR IGNORE INTO generated_mismatches "
	    "(run_id, seed, idx, signature, candidates, digests, case_id) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[S_RUN_PROGRESS_BATCH] =
	    "UPDATE runs SET done = done + ?2, same = same + ?3, differ = differ + ?4 WHERE id = ?1",
	[S_GEN_MISMATCHES] =
	    "SELECT seq, seed, idx, signature, candidates, digests, case_id "
	    "FROM generated_mismatches WHERE run_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3",
	[S_GEN_ONE] =
	    "SELECT seq, seed, idx, signature, candidates, digests, case_id "
	    "FROM generated_mismatches WHERE run_id = ?1 AND seed = ?2 AND idx = ?3",
	[S_GEN_LINK] =
	    "UPDATE generated_mismatches SET case_id = ?4 WHERE run_id = ?1 AND seed = ?2 AND idx = ?3",
	[S_GEN_CASE] =
	    "INSERT OR IGNORE INTO generated_cases (case_id, version, seed, idx) VALUES (?1, ?2, ?3, ?4)",
	[S_RUN_GEN_CASE] =
	    "SELECT g.case_id FROM generated_cases g JOIN comparisons m ON m.case_id = g.case_id "
	    "WHERE m.run_id = ?1 AND g.version = ?2 AND g.seed = ?3 AND g.idx = ?4 LIMIT 1",
};
/* clang-format on */

const struct db_sql_table db_generated_table = { "generated runs", gen_sql, GEN_COUNT };

/* The batch's result hashes, its mismatches and the run's progress, in one transaction. */
int db_generated_batch(struct db *db, int64_t run_id, uint64_t seed, int64_t start, int64_t count,
    const void *hashes, size_t len, int64_t same, const struct db_gen_mismatch *mismatches,
    size_t nmismatches, char *err, size_t errsize)
{
	sqlite3_stmt *st;

	pthread_mutex_lock(&db->lock);
	if (db_begin(db, err, errsize) < 0) {
		pthread_mutex_unlock(&db->lock);
		return -1;
	}
	st = db_statement(db, DB_F_GENERATED, S_GEN_BATCH);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, (int64_t)seed);
	sqlite3_bind_int64(st, 3, start);
	sqlite3_bind_int64(st, 4, count);
	sqlite3_bind_blob64(st, 5, hashes, len, SQLITE_STATIC);
	if (db_exec(db, st, "store generated batch", err, errsize) < 0)
		goto fail;
	for (size_t i = 0; i < nmismatches; i++) {
		const struct db_gen_mismatch *m = &mismatches[i];
		st = db_statement(db, DB_F_GENERATED, S_GEN_MISMATCH_INSERT);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, (int64_t)m->seed);
		sqlite3_bind_int64(st, 3, m->index);
		db_bind_text(st, 4, m->signature != NULL ? m->signature : "");
		db_bind_text(st, 5, m->candidates != NULL ? m->candidates : "");
		if (m->digests != NULL)
			sqlite3_bind_blob(st, 6, m->digests, m->ndigests * GEN_DIGEST_SIZE, SQLITE_STATIC);
		if (m->case_id > 0)
			sqlite3_bind_int64(st, 7, m->case_id);
		if (db_exec(db, st, "list generated mismatch", err, errsize) < 0)
			goto fail;
	}
	st = db_statement(db, DB_F_GENERATED, S_RUN_PROGRESS_BATCH);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, count);
	sqlite3_bind_int64(st, 3, same);
	sqlite3_bind_int64(st, 4, count - same);
	if (db_exec(db, st, "run progress", err, errsize) < 0)
		goto fail;
	if (db_commit(db, err, errsize) < 0)
		goto fail;
	pthread_mutex_unlock(&db->lock);
	return 0;
fail:
	db_rollback(db);
	pthread_mutex_unlock(&db->lock);
	return -1;
}

static int db_gen_mismatch_read(sqlite3_stmt *st, void *p)
{
	struct db_fn_arg *a = p;
	struct db_gen_mismatch m;

	memset(&m, 0, sizeof m);
	m.seq = sqlite3_column_int64(st, 0);
	m.seed = (uint64_t)sqlite3_column_int64(st, 1);
	m.index = sqlite3_column_int64(st, 2);
	m.signature = (const char *)sqlite3_column_text(st, 3);
	m.candidates = (const char *)sqlite3_column_text(st, 4);
	m.digests = sqlite3_column_blob(st, 5);
	m.ndigests = sqlite3_column_bytes(st, 5) / GEN_DIGEST_SIZE;
	if (m.ndigests == 0)
		m.digests = NULL;
	m.case_id = sqlite3_column_int64(st, 6);
	return ((db_gen_mismatch_fn)a->fn)(a->arg, &m);
}

int db_generated_mismatches(struct db *db, int64_t run_id, int64_t before, int limit, db_gen_mismatch_fn fn,
    void *arg, char *err, size_t errsize)
{
	struct db_fn_arg a = { (void *)fn, arg, 0 };

	return db_locked_ints(db, DB_F_GENERATED, S_GEN_MISMATCHES,
	    DB_INTS(run_id, before > 0 ? before : INT64_MAX, limit), db_gen_mismatch_read, &a,
	    "list generated mismatches", err, errsize);
}

int db_generated_mismatch(struct db *db, int64_t run_id, uint64_t seed, int64_t index, db_gen_mismatch_fn fn,
    void *arg, char *err, size_t errsize)
{
	struct db_fn_arg a = { (void *)fn, arg, 0 };

	return db_locked_ints(db, DB_F_GENERATED, S_GEN_ONE, DB_INTS(run_id, (int64_t)seed, index),
	    db_gen_mismatch_read, &a, "find generated mismatch", err, errsize);
}

int db_generated_link(
    struct db *db, int64_t run_id, uint64_t seed, int64_t index, int64_t case_id, char *err, size_t errsize)
{
	return db_locked_ints(db, DB_F_GENERATED, S_GEN_LINK, DB_INTS(run_id, (int64_t)seed, index, case_id),
	    NULL, NULL, "link generated mismatch", err, errsize);
}

int db_run_generated_case(struct db *db, int64_t run_id, int version, uint64_t seed, int64_t index,
    int64_t *case_id, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_GENERATED, S_RUN_GEN_CASE);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, version);
	sqlite3_bind_int64(st, 3, (int64_t)seed);
	sqlite3_bind_int64(st, 4, index);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*case_id = sqlite3_column_int64(st, 0);
		rc = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : db_fail(db, "find generated case", err, errsize);
	}
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

/* The count of a batch the run stored already, 0 when it has not, -1. */
int64_t db_generated_batch_stored(
    struct db *db, int64_t run_id, uint64_t seed, int64_t start, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int64_t rc;

	pthread_mutex_lock(&db->lock);
	st = db_statement(db, DB_F_GENERATED, S_GEN_BATCH_HAS);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, (int64_t)seed);
	sqlite3_bind_int64(st, 3, start);
	rc = sqlite3_step(st);
	rc = rc == SQLITE_ROW   ? sqlite3_column_int64(st, 0)
	    : rc == SQLITE_DONE ? 0
	                        : db_fail(db, "find generated batch", err, errsize);
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_generated_case(
    struct db *db, int64_t case_id, int version, uint64_t seed, uint64_t index, char *err, size_t errsize)
{
	return db_locked_ints(db, DB_F_GENERATED, S_GEN_CASE,
	    DB_INTS(case_id, version, (int64_t)seed, (int64_t)index), NULL, NULL, "store generated case", err,
	    errsize);
}
