/*
 * Storage of reductions (layer 3): the reductions table and buckets.root_id
 * of schema.sql (migration 10), behind db_reduce_* (store.h).  Used by the
 * background reducer (reduce.c) and the triage API, under the connection's
 * lock.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db_core.h"

/* The root bucket of the first representative reduced to root key ?1. */
#define DBR_ROOT_OF_KEY                                                                             \
	"SELECT coalesce(b.root_id, b.id) FROM reductions r JOIN buckets b ON b.id = r.bucket_id "  \
	"WHERE r.root_key = ?1 AND r.representative = 1 AND r.state IN ('done', 'not_reproduced') " \
	"ORDER BY r.id LIMIT 1"

/* The columns of a reduction as read by dbr_read. */
#define DBR_COLUMNS                                                                                    \
	"r.id, r.bucket_id, r.comparison_id, r.representative, r.state, r.found_as, r.signature, "     \
	"r.root_key, r.case_id, r.code, r.setup, r.flags, r.depth, r.outputs, r.steps, r.executions, " \
	"r.seconds, r.complete, r.confirmation, m.case_id, r.reduced_comparison_id "

enum rstmt {
	R_RESULT,
	R_UNSUPPORTED,
	R_LOAD,
	R_SKIP_SURPLUS,
	R_NEXT_REPRESENTATIVE,
	R_NEXT_SAMPLE,
	R_REHOME_ROOT,
	R_MOVE_COMPARISON, /* R_MOVE_*: a re-homed member's moves, in this order (dbr_rehome) */
	R_MOVE_REDUCTION,
	R_MOVE_OLD_COUNT,
	R_MOVE_NEW_COUNT,
	R_MOVE_OLD_RUN_COUNT,
	R_MOVE_OLD_RUN_EMPTY,
	R_MOVE_OLD_RUN_FIRST,
	R_MOVE_NEW_RUN,
	R_REDUCED_COMPARISON,
	R_INSERT,
	R_ROOT_OF_KEY,
	R_JOIN,
	R_FIND_ROOT,
	R_LATE_CHECK,
	R_LATE_JOIN,
	R_BUCKET_REDUCTIONS,
	R_BUCKET_ROOT,
	R_BUCKET_JOINED,
	R_ROOTS,
	R_ROOTS_MINIMAL,
	R_ROOTS_PROGRESS,
	R_COUNT
};

/* clang-format off */
static const char *const rstmt_sql[R_COUNT] = {
	[R_RESULT] =
	    "SELECT r.status, r.signal, " RESULT_OUTPUT_SQL ", r.output_is_false, r.error_code, "
	    "r.error_msg, r.exc_class, r.exc_msg, r.build_id FROM results r "
	    "JOIN builds b ON b.id = r.build_id WHERE r.comparison_id = ?1 AND CASE "
	    "WHEN ?2 IS NULL THEN r.role = 'base' WHEN ?2 = '' THEN r.role = 'head' "
	    "ELSE r.role <> 'base' AND b.name = ?2 END",
	[R_UNSUPPORTED] =
	    "INSERT OR IGNORE INTO reductions (bucket_id, comparison_id, candidate, representative, state) "
	    "VALUES (?1, ?2, ?3, ?4, 'unsupported')",
	[R_LOAD] =
	    "SELECT c.id, c.title, c.code, c.setup, c.flags, c.depth, g.version, g.seed, g.idx, "
	    "r.suite = 'generated' AND r.status IN ('queued', 'running') "
	    "FROM comparisons m JOIN cases c ON c.id = m.case_id "
	    "LEFT JOIN generated_cases g ON g.case_id = c.id LEFT JOIN runs r ON r.id = m.run_id "
	    "WHERE m.id = ?1",
	[R_SKIP_SURPLUS] =
	    "INSERT OR IGNORE INTO reductions (bucket_id, comparison_id, candidate, representative, "
	    "state) SELECT id, cid, cand, 1, 'skipped' FROM (SELECT b.id, b.first_comparison_id AS cid, "
	    "coalesce(b.candidate, '') AS cand, "
	    "row_number() OVER (ORDER BY b.mismatches DESC, b.id) AS rank "
	    "FROM buckets b JOIN comparisons m ON m.id = b.first_comparison_id "
	    "WHERE m.run_id IS NULL AND b.first_comparison_id > 0 AND NOT EXISTS "
	    "(SELECT 1 FROM reductions r WHERE r.comparison_id = b.first_comparison_id "
	    "AND r.candidate = coalesce(b.candidate, ''))) WHERE rank > ?1",
	[R_NEXT_REPRESENTATIVE] =
	    /* A phpt bucket (first_comparison_id 0) has no case to reduce. */
	    "SELECT b.id, b.first_comparison_id, b.candidate FROM buckets b "
	    "WHERE b.first_comparison_id > 0 AND NOT EXISTS "
	    "(SELECT 1 FROM reductions r WHERE r.comparison_id = b.first_comparison_id "
	    "AND r.candidate = coalesce(b.candidate, '')) "
	    "ORDER BY b.mismatches DESC, b.id LIMIT 1",
	[R_NEXT_SAMPLE] =
	    "SELECT b.id, (SELECT m.id FROM comparisons m WHERE m.bucket_id = b.id AND NOT EXISTS "
	    "(SELECT 1 FROM reductions r WHERE r.comparison_id = m.id AND r.candidate = coalesce(b.candidate, '')) "
	    "ORDER BY (m.id * 2654435761) % 4294967291 "
	    "LIMIT 1) AS cid, b.candidate FROM buckets b "
	    "WHERE (SELECT count(*) FROM reductions r WHERE r.bucket_id = b.id) < ?1 AND b.mismatches > "
	    "(SELECT count(*) FROM reductions r WHERE r.bucket_id = b.id) AND cid IS NOT NULL "
	    /* A bucket skipped by the bound on waiting work has no samples either. */
	    "AND NOT EXISTS (SELECT 1 FROM reductions r WHERE r.bucket_id = b.id AND r.state = 'skipped') "
	    "ORDER BY b.id LIMIT 1",
	[R_REHOME_ROOT] =
	    "SELECT (" DBR_ROOT_OF_KEY "), (SELECT coalesce(root_id, id) FROM buckets WHERE id = ?2), "
	    "(SELECT coalesce(run_id, 0) FROM comparisons WHERE id = ?3)",
	[R_MOVE_COMPARISON] =
	    "UPDATE comparisons SET bucket_id = ?2 WHERE id = ?3",
	[R_MOVE_REDUCTION] =
	    "UPDATE reductions SET bucket_id = ?2 WHERE comparison_id = ?3 AND candidate = ?5",
	[R_MOVE_OLD_COUNT] =
	    "UPDATE buckets SET mismatches = mismatches - 1 WHERE id = ?1",
	[R_MOVE_NEW_COUNT] =
	    "UPDATE buckets SET mismatches = mismatches + 1, last_comparison_id = "
	    "max(last_comparison_id, ?3) WHERE id = ?2",
	[R_MOVE_OLD_RUN_COUNT] =
	    "UPDATE bucket_runs SET mismatches = mismatches - 1 WHERE bucket_id = ?1 AND run_id = ?4",
	[R_MOVE_OLD_RUN_EMPTY] =
	    "DELETE FROM bucket_runs WHERE bucket_id = ?1 AND run_id = ?4 AND mismatches <= 0",
	[R_MOVE_OLD_RUN_FIRST] =
	    /* The run's representative in the old bucket: its first mismatch left there. */
	    "UPDATE bucket_runs SET first_comparison_id = (SELECT min(m.id) FROM comparisons m "
	    "WHERE m.bucket_id = ?1 AND coalesce(m.run_id, 0) = ?4) WHERE bucket_id = ?1 AND run_id = ?4 "
	    "AND first_comparison_id = ?3",
	[R_MOVE_NEW_RUN] =
	    "INSERT INTO bucket_runs (run_id, bucket_id, mismatches, first_comparison_id) "
	    "VALUES (?4, ?2, 1, ?3) ON CONFLICT (run_id, bucket_id) DO UPDATE SET "
	    "mismatches = mismatches + 1, first_comparison_id = min(first_comparison_id, ?3)",
	[R_REDUCED_COMPARISON] =
	    "INSERT INTO comparisons (case_id, verdict, differs, bucket_id) VALUES (?1, ?2, ?3, ?4)",
	[R_INSERT] =
	    "INSERT OR REPLACE INTO reductions (bucket_id, comparison_id, representative, state, found_as, "
	    "signature, root_key, case_id, code, setup, flags, depth, outputs, steps, executions, seconds, "
	    "complete, confirmation, reduced_comparison_id, candidate) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
	    "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
	[R_ROOT_OF_KEY] =
	    DBR_ROOT_OF_KEY,
	[R_JOIN] =
	    "UPDATE buckets SET root_id = ?2 WHERE id = ?1",
	[R_FIND_ROOT] =
	    "SELECT coalesce(b.root_id, b.id) FROM reductions r JOIN buckets b ON b.id = r.bucket_id "
	    "WHERE r.representative = 1 AND r.state = 'done' AND r.code = ?1 AND r.setup IS ?2 AND "
	    "r.flags = ?3 AND r.depth = ?4 AND coalesce(b.candidate, '') = ?5 ORDER BY b.id LIMIT 1",
	[R_LATE_CHECK] =
	    "SELECT 1 FROM buckets a, buckets b WHERE a.id = ?1 AND a.root_id IS NULL AND "
	    "b.id = ?2 AND b.root_id IS NULL",
	[R_LATE_JOIN] =
	    "UPDATE buckets SET root_id = ?2 WHERE id = ?1 OR root_id = ?1",
	[R_BUCKET_REDUCTIONS] =
	    "SELECT " DBR_COLUMNS "FROM reductions r JOIN comparisons m ON m.id = r.comparison_id "
	    "WHERE r.bucket_id = ?1 ORDER BY r.representative DESC, r.id",
	[R_BUCKET_ROOT] =
	    "SELECT root_id FROM buckets WHERE id = ?1",
	[R_BUCKET_JOINED] =
	    "SELECT id, mismatches FROM buckets WHERE root_id = ?1 ORDER BY id",
	[R_ROOTS] =
	    "WITH rb AS (SELECT b.id, coalesce(b.root_id, b.id) AS root, b.state, "
	    "CASE WHEN ?1 < 0 THEN b.mismatches ELSE br.mismatches END AS n FROM buckets b "
	    "LEFT JOIN bucket_runs br ON br.bucket_id = b.id AND br.run_id = ?1 "
	    "WHERE ?1 < 0 OR br.run_id IS NOT NULL) "
	    "SELECT root, count(*), sum(n), group_concat(id), "
	    "(SELECT candidate FROM buckets WHERE id = root), group_concat(state) "
	    "FROM rb GROUP BY root ORDER BY sum(n) DESC, root",
	[R_ROOTS_MINIMAL] =
	    "SELECT " DBR_COLUMNS
	    "FROM reductions r JOIN comparisons m ON m.id = r.comparison_id "
	    "WHERE r.bucket_id = ?1 AND r.representative = 1",
	[R_ROOTS_PROGRESS] =
	    /* pending: a bucket whose first mismatch has no reduction on its candidate (a
	     * re-homed sample's reduction moves to its root's bucket: not counted by bucket) */
	    "SELECT count(DISTINCT b.id) - count(DISTINCT CASE WHEN r.comparison_id = "
	    "b.first_comparison_id THEN b.id END), count(r.id), "
	    "coalesce(sum(r.executions), 0), coalesce(sum(r.seconds), 0), coalesce(max(r.executions), 0), "
	    "coalesce(max(r.seconds), 0) FROM buckets b "
	    "LEFT JOIN reductions r ON r.bucket_id = b.id OR (r.comparison_id = b.first_comparison_id "
	    "AND r.candidate = coalesce(b.candidate, '')) "
	    "WHERE b.first_comparison_id > 0 AND (?1 < 0 OR EXISTS "
	    "(SELECT 1 FROM bucket_runs br WHERE br.bucket_id = b.id AND br.run_id = ?1))",
};
/* clang-format on */
const struct db_sql_table db_reduce_table = { "reductions", rstmt_sql, R_COUNT };

static sqlite3_stmt *dbr_stmt(struct db *db, enum rstmt s)
{
	return db_statement(db, DB_F_REDUCE, s);
}

void db_reduce_job_release(struct db_reduce_job *j)
{
	case_release(&j->c);
	result_release(&j->res[0]);
	result_release(&j->res[1]);
}

/* One stored result (role) of a comparison into r; 1 found, 0 not, -1. */
/* The base's result (candidate NULL), or the named candidate's ("": the
 * head), of a comparison into r, with the build's id: 1, 0 none, -1. */
static int dbr_result(struct db *db, int64_t comparison_id, const char *candidate, struct result *r,
    int64_t *build_id, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc, s;

	st = dbr_stmt(db, R_RESULT);
	sqlite3_bind_int64(st, 1, comparison_id);
	if (candidate != NULL)
		sqlite3_bind_text(st, 2, candidate, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*build_id = sqlite3_column_int64(st, 8);
		s = result_status_parse((const char *)sqlite3_column_text(st, 0));
		r->status = s >= 0 ? (enum result_status)s : STATUS_ERROR;
		r->signal = sqlite3_column_int(st, 1);
		r->output_is_false = sqlite3_column_int(st, 3);
		if (!r->output_is_false && sqlite3_column_type(st, 2) != SQLITE_NULL)
			bytes_set(
			    &r->output, sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2));
		r->error_code = (long)sqlite3_column_int64(st, 4);
		r->error_msg = db_text_copy(st, 5, NULL);
		r->exc_class = db_text_copy(st, 6, NULL);
		r->exc_msg = db_text_copy(st, 7, NULL);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(db, "read result", err, errsize);
	return rc == SQLITE_ROW;
}

/* A mismatch that cannot be reduced: recorded so that it is not picked again. */
static int dbr_unsupported(struct db *db, const struct db_reduce_job *j, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	st = dbr_stmt(db, R_UNSUPPORTED);
	sqlite3_bind_int64(st, 1, j->bucket_id);
	sqlite3_bind_int64(st, 2, j->comparison_id);
	db_bind_text(st, 3, j->candidate);
	sqlite3_bind_int(st, 4, j->representative);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_fail(db, "reductions", err, errsize);
}

/* The job's case and results; 1, 0 (unsupported: recorded), 2 (not yet: a generated
 * run's case whose (version, seed, index) is stored just after its comparison), -1. */
static int dbr_load(struct db *db, int (*role_of)(void *, const int64_t[2]), void *arg,
    struct db_reduce_job *j, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	st = dbr_stmt(db, R_LOAD);
	sqlite3_bind_int64(st, 1, j->comparison_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		j->case_id = sqlite3_column_int64(st, 0);
		j->c.title = db_text_copy(st, 1, NULL);
		j->c.code = db_text_copy(st, 2, NULL);
		j->c.setup = db_text_copy(st, 3, NULL);
		j->c.flags = (long)sqlite3_column_int64(st, 4);
		j->c.depth = (long)sqlite3_column_int64(st, 5);
		if (sqlite3_column_type(st, 6) != SQLITE_NULL) {
			j->generated = 1;
			j->version = sqlite3_column_int(st, 6);
			j->seed = (uint64_t)sqlite3_column_int64(st, 7);
			j->index = (uint64_t)sqlite3_column_int64(st, 8);
		} else if (sqlite3_column_int(st, 9)) {
			/* Reduced now it would be a submitted case (its flags only). */
			sqlite3_reset(st);
			return 2;
		}
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(db, "read case", err, errsize);
	if (rc != SQLITE_ROW ||
	    dbr_result(db, j->comparison_id, NULL, &j->res[0], &j->build_ids[0], err, errsize) <= 0 ||
	    dbr_result(db, j->comparison_id, j->candidate, &j->res[1], &j->build_ids[1], err, errsize) <= 0 ||
	    (j->role = role_of(arg, j->build_ids)) <= 0)
		return dbr_unsupported(db, j, err, errsize) < 0 ? -1 : 0;
	return 1;
}

/*
 * The bound on waiting work: submitted cases' representatives waiting for
 * reduction beyond the max_pending biggest (the oldest of equal size) are
 * stored as skipped, so clients making endless buckets (a new exception
 * class in each case) make bounded work.  Runs are not cut: their cases
 * are the generator's or the daemon's own (a client's code makes no run
 * bucket), and a big run's many buckets are the reviewer's roots to find;
 * they are bounded by the run's size and --max-queued-runs.  Under db->lock.
 */
static int dbr_skip_surplus(struct db *db, int max_pending, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	if (max_pending <= 0)
		return 0;
	st = dbr_stmt(db, R_SKIP_SURPLUS);
	sqlite3_bind_int(st, 1, max_pending);
	rc = db_exec(db, st, "skip reductions", err, errsize);
	return rc;
}

int db_reduce_next(struct db *db, int sample, int max_pending, int (*role_of)(void *, const int64_t[2]),
    void *arg, struct db_reduce_job *job, char *err, size_t errsize)
{
	/* Representatives first, biggest bucket first (a root's minimal case is
	 * then known before the buckets it explains, reduce_explained); then one more member of a
	 * bucket sampled so far less than 1 + sample times (spread over the
	 * bucket: the member whose id hashes lowest). */
	sqlite3_stmt *st;
	int pass, rc, got = 0;

	memset(job, 0, sizeof *job);
	case_init(&job->c);
	result_init(&job->res[0]);
	result_init(&job->res[1]);
	pthread_mutex_lock(&db->lock);
	if (dbr_skip_surplus(db, max_pending, err, errsize) < 0)
		goto fail;
	for (pass = 0; pass < 2 && !got; pass++) {
		if (pass == 1 && sample <= 0)
			break;
		for (;;) {
			st = dbr_stmt(db, pass == 0 ? R_NEXT_REPRESENTATIVE : R_NEXT_SAMPLE);
			sqlite3_bind_int(st, 1, 1 + sample);
			rc = sqlite3_step(st);
			if (rc == SQLITE_ROW) {
				const unsigned char *cand = sqlite3_column_text(st, 2);
				job->bucket_id = sqlite3_column_int64(st, 0);
				job->comparison_id = sqlite3_column_int64(st, 1);
				job->representative = pass == 0;
				snprintf(job->candidate, sizeof job->candidate, "%s",
				    cand != NULL ? (const char *)cand : "");
			}
			sqlite3_reset(st);
			if (rc == SQLITE_DONE)
				break;
			if (rc != SQLITE_ROW) {
				db_fail(db, "next reduction", err, errsize);
				goto fail;
			}
			if ((rc = dbr_load(db, role_of, arg, job, err, errsize)) < 0)
				goto fail;
			if (rc == 2) { /* idle a moment: the run links it at once */
				db_reduce_job_release(job);
				pass = 2;
				break;
			}
			if (rc > 0) {
				got = 1;
				break;
			}
			db_reduce_job_release(job);
			case_init(&job->c);
			result_init(&job->res[0]);
			result_init(&job->res[1]);
		}
	}
	pthread_mutex_unlock(&db->lock);
	return got;
fail:
	pthread_mutex_unlock(&db->lock);
	return -1;
}

/*
 * A sampled member (not its bucket's representative) whose reduction has
 * the root key of another root's minimal case is that root's bug, placed
 * elsewhere only by its signature: the comparison, its reduction and its
 * counts (buckets.mismatches, bucket_runs) move into the root's bucket.
 * Triage (state, notes, assignee, audit) stays with the buckets; members
 * not reduced stay where their signature put them.  Under db->lock, in
 * db_reduce_store's transaction.
 */
static int dbr_rehome(
    struct db *db, const struct db_reduce_job *j, const char *root_key, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int64_t root = 0, own = 0, run = 0;
	int rc;

	st = dbr_stmt(db, R_REHOME_ROOT);
	db_bind_text(st, 1, root_key);
	sqlite3_bind_int64(st, 2, j->bucket_id);
	sqlite3_bind_int64(st, 3, j->comparison_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		root = sqlite3_column_int64(st, 0);
		own = sqlite3_column_int64(st, 1);
		run = sqlite3_column_int64(st, 2);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return db_fail(db, "re-home", err, errsize);
	if (root <= 0 || root == own)
		return 0; /* its own root's case, or a root of no one yet: stays (a sample) */
	for (int i = R_MOVE_COMPARISON; i <= R_MOVE_NEW_RUN; i++) {
		st = dbr_stmt(db, (enum rstmt)i);
		sqlite3_bind_int64(st, 1, j->bucket_id);
		sqlite3_bind_int64(st, 2, root);
		sqlite3_bind_int64(st, 3, j->comparison_id);
		sqlite3_bind_int64(st, 4, run);
		db_bind_text(st, 5, j->candidate); /* only the reductions' statement names ?5 */
		rc = db_exec(db, st, "re-home", err, errsize);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The reduced case's results as a comparison of its own, so its page and
 * .phpt export work like any case's; in no bucket (not one of the
 * mismatches found: the startup backfill leaves it alone,
 * reductions.reduced_comparison_id).  Its id; -1 with err. */
static int64_t dbr_store_reduced_comparison(
    struct db *db, int64_t case_id, const struct db_reduction *r, char *err, size_t errsize)
{
	unsigned diff = verdict_compare(&r->results[0], &r->results[1]);
	char differs[128];
	sqlite3_stmt *st = NULL;
	int64_t cmp;
	int rc;

	verdict_fields(diff, differs, sizeof differs);
	st = dbr_stmt(db, R_REDUCED_COMPARISON);
	sqlite3_bind_int64(st, 1, case_id);
	db_bind_text(st, 2, diff == 0 ? "same" : "differ");
	db_bind_text(st, 3, differs);
	rc = db_exec(db, st, "store reduced comparison", err, errsize);
	if (rc < 0)
		return -1;
	cmp = sqlite3_last_insert_rowid(db->conn);
	if (db_store_result(db, cmp, ROLE_BASE, r->builds[0], &r->results[0], NULL, err, errsize) < 0 ||
	    db_store_result(db, cmp, r->role, r->builds[1], &r->results[1], &r->results[0], err, errsize) < 0)
		return -1;
	return cmp;
}

/* The reductions row of j's bucket (replacing an earlier one). */
static int dbr_insert_reduction(struct db *db, const struct db_reduce_job *j, const struct db_reduction *r,
    int64_t case_id, int64_t reduced_cmp, char *err, size_t errsize)
{
	sqlite3_stmt *st = NULL;
	int rc;

	st = dbr_stmt(db, R_INSERT);
	sqlite3_bind_int64(st, 1, j->bucket_id);
	sqlite3_bind_int64(st, 2, j->comparison_id);
	sqlite3_bind_int(st, 3, j->representative);
	db_bind_text(st, 4, r->state);
	db_bind_text(st, 5, j->c.title != NULL ? j->c.title : "");
	db_bind_text(st, 6, r->signature);
	db_bind_text(st, 7, r->root_key);
	db_bind_id(st, 8, case_id);
	if (r->reduced != NULL) {
		db_bind_text(st, 9, r->reduced->code);
		db_bind_text(st, 10, r->reduced->setup);
		sqlite3_bind_int64(st, 11, r->reduced->flags);
		sqlite3_bind_int64(st, 12, r->reduced->depth);
	}
	db_bind_text(st, 13, r->outputs);
	sqlite3_bind_int64(st, 14, r->steps);
	sqlite3_bind_int64(st, 15, r->executions);
	sqlite3_bind_double(st, 16, r->seconds);
	sqlite3_bind_int(st, 17, r->complete);
	db_bind_text(st, 18, r->confirmation);
	db_bind_id(st, 19, reduced_cmp);
	db_bind_text(st, 20, j->candidate);
	rc = db_exec(db, st, "store reduction", err, errsize);
	return rc < 0 ? -1 : 0;
}

/* One bucket per root cause: a representative landing on a root reduced
 * before joins it (the first reduction of that root key: its bucket's
 * root), or else the older root that explains it.  Those not reproduced
 * alone have a root key of their own per candidate (engine/reduce.c). */
static int dbr_join_root(
    struct db *db, const struct db_reduce_job *j, const struct db_reduction *r, char *err, size_t errsize)
{
	sqlite3_stmt *st = NULL;
	int64_t root = 0;
	int rc;

	st = dbr_stmt(db, R_ROOT_OF_KEY);
	db_bind_text(st, 1, r->root_key);
	if (sqlite3_step(st) == SQLITE_ROW)
		root = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	/* No older bucket of this very root: one whose minimal case is a part of this one. */
	if ((root <= 0 || root == j->bucket_id) && r->explained_by > 0)
		root = r->explained_by;
	if (root <= 0 || root == j->bucket_id)
		return 0;
	st = dbr_stmt(db, R_JOIN);
	sqlite3_bind_int64(st, 1, j->bucket_id);
	sqlite3_bind_int64(st, 2, root);
	rc = db_exec(db, st, "join root bucket", err, errsize);
	return rc < 0 ? -1 : 0;
}

int db_reduce_store(
    struct db *db, const struct db_reduce_job *j, const struct db_reduction *r, char *err, size_t errsize)
{
	int64_t case_id = 0, reduced_cmp = 0;

	pthread_mutex_lock(&db->lock);
	if (db_begin(db, err, errsize) < 0) {
		pthread_mutex_unlock(&db->lock);
		return -1;
	}
	/* An ordinary case (found again by its content if stored before). */
	if (r->reduced != NULL && db_case_put(db, r->reduced, &case_id, err, errsize) < 0)
		goto fail;
	if (case_id > 0 && r->results != NULL &&
	    (reduced_cmp = dbr_store_reduced_comparison(db, case_id, r, err, errsize)) < 0)
		goto fail;
	if (dbr_insert_reduction(db, j, r, case_id, reduced_cmp, err, errsize) < 0)
		goto fail;
	if (j->representative && r->root_key != NULL &&
	    (strcmp(r->state, "done") == 0 || strcmp(r->state, "not_reproduced") == 0) &&
	    dbr_join_root(db, j, r, err, errsize) < 0)
		goto fail;
	/* Re-homing: a sampled member landing on another root's minimal case moves into that root. */
	if (!j->representative && r->root_key != NULL && strcmp(r->state, "done") == 0 &&
	    dbr_rehome(db, j, r->root_key, err, errsize) < 0)
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

/* The id in the first column of st's first row (0: no row), st reset; under db->lock. */
static int64_t dbr_first_id(struct db *db, sqlite3_stmt *st, const char *what, char *err, size_t errsize)
{
	int64_t id = 0;
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? id : db_fail(db, what, err, errsize);
}

int64_t db_reduce_find_root_key(struct db *db, const char *root_key, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int64_t id;

	pthread_mutex_lock(&db->lock);
	st = dbr_stmt(db, R_ROOT_OF_KEY);
	db_bind_text(st, 1, root_key);
	id = dbr_first_id(db, st, "find root key", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return id;
}

int64_t db_reduce_find_root(
    struct db *db, const char *candidate, const struct case_spec *c, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int64_t id;

	pthread_mutex_lock(&db->lock);
	st = dbr_stmt(db, R_FIND_ROOT);
	db_bind_text(st, 1, c->code);
	db_bind_text(st, 2, c->setup);
	sqlite3_bind_int64(st, 3, c->flags);
	sqlite3_bind_int64(st, 4, c->depth);
	db_bind_text(st, 5, candidate);
	id = dbr_first_id(db, st, "find root", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return id;
}

int db_reduce_join_late(struct db *db, int64_t bucket_id, int64_t root, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc, ok = 0;

	if (root <= 0 || root == bucket_id)
		return 0;
	pthread_mutex_lock(&db->lock);
	/* Only a root joins, and only into a root (never one that joined it: no cycle). */
	st = dbr_stmt(db, R_LATE_CHECK);
	sqlite3_bind_int64(st, 1, bucket_id);
	sqlite3_bind_int64(st, 2, root);
	rc = sqlite3_step(st);
	ok = rc == SQLITE_ROW;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		goto dberr;
	if (ok) {
		st = dbr_stmt(db, R_LATE_JOIN);
		sqlite3_bind_int64(st, 1, bucket_id);
		sqlite3_bind_int64(st, 2, root);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			goto dberr;
	}
	pthread_mutex_unlock(&db->lock);
	return ok;
dberr:
	pthread_mutex_unlock(&db->lock);
	return db_fail(db, "join root late", err, errsize);
}

void db_reduction_row_release(struct db_reduction_row *r)
{
	if (r == NULL)
		return;
	free(r->state);
	free(r->found_title);
	free(r->signature);
	free(r->root_key);
	free(r->code);
	free(r->setup);
	free(r->outputs);
	free(r->confirmation);
	memset(r, 0, sizeof *r);
}

/* A row of DBR_COLUMNS: 0, -1 out of memory (r released). */
static int dbr_read(sqlite3_stmt *st, struct db_reduction_row *r)
{
	int oom = 0;

	memset(r, 0, sizeof *r);
	r->found_comparison_id = sqlite3_column_int64(st, 2);
	r->case_id = sqlite3_column_int64(st, 8);
	r->has_flags = sqlite3_column_type(st, 11) != SQLITE_NULL;
	r->flags = (long)sqlite3_column_int64(st, 11);
	r->has_depth = sqlite3_column_type(st, 12) != SQLITE_NULL;
	r->depth = sqlite3_column_int(st, 12);
	r->steps = sqlite3_column_int64(st, 14);
	r->executions = sqlite3_column_int64(st, 15);
	r->seconds = sqlite3_column_double(st, 16);
	r->complete = sqlite3_column_int(st, 17);
	r->found_case_id = sqlite3_column_int64(st, 19);
	r->reduced_comparison_id = sqlite3_column_int64(st, 20);
	r->state = db_text_copy(st, 4, &oom);
	r->found_title = db_text_copy(st, 5, &oom);
	r->signature = db_text_copy(st, 6, &oom);
	r->root_key = db_text_copy(st, 7, &oom);
	r->code = db_text_copy(st, 9, &oom);
	r->setup = db_text_copy(st, 10, &oom);
	r->outputs = db_text_copy(st, 13, &oom);
	r->confirmation = db_text_copy(st, 18, &oom);
	if (oom)
		db_reduction_row_release(r);
	return oom ? -1 : 0;
}

void db_reduce_bucket_release(struct db_reduce_bucket *b)
{
	if (b->minimal != NULL)
		db_reduction_row_release(b->minimal);
	free(b->minimal);
	for (size_t i = 0; i < b->nsamples; i++)
		db_reduction_row_release(&b->samples[i]);
	free(b->samples);
	free(b->joined);
	memset(b, 0, sizeof *b);
}

int db_reduce_bucket(
    struct db *db, int64_t bucket_id, struct db_reduce_bucket *out, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	struct db_reduction_row r;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&db->lock);
	st = dbr_stmt(db, R_BUCKET_REDUCTIONS);
	sqlite3_bind_int64(st, 1, bucket_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (dbr_read(st, &r) < 0)
			goto oom;
		if (sqlite3_column_int(st, 3) && out->minimal == NULL) {
			if ((out->minimal = malloc(sizeof *out->minimal)) == NULL) {
				db_reduction_row_release(&r);
				goto oom;
			}
			*out->minimal = r;
			continue;
		}
		if (db_grow((void **)&out->samples, out->nsamples, &cap, sizeof *out->samples) < 0) {
			db_reduction_row_release(&r);
			goto oom;
		}
		out->samples[out->nsamples++] = r;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		db_fail(db, "read reductions", err, errsize);
		goto fail;
	}
	st = dbr_stmt(db, R_BUCKET_ROOT);
	sqlite3_bind_int64(st, 1, bucket_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		out->root_id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	st = dbr_stmt(db, R_BUCKET_JOINED);
	sqlite3_bind_int64(st, 1, bucket_id);
	cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (db_grow((void **)&out->joined, out->njoined, &cap, sizeof *out->joined) < 0)
			goto oom;
		out->joined[out->njoined].id = sqlite3_column_int64(st, 0);
		out->joined[out->njoined++].mismatches = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return 0;
oom:
	sqlite3_reset(st);
	db_seterr(err, errsize, "out of memory");
fail:
	pthread_mutex_unlock(&db->lock);
	db_reduce_bucket_release(out);
	return -1;
}

static void dbr_root_release_minimal(struct db_root *r)
{
	if (r->minimal != NULL)
		db_reduction_row_release(r->minimal);
	free(r->minimal);
	r->minimal = NULL;
}

static void dbr_root_release(struct db_root *r)
{
	free(r->candidate);
	free(r->bucket_ids);
	free(r->states);
	dbr_root_release_minimal(r);
}

void db_roots_release(struct db_roots *o)
{
	for (size_t i = 0; i < o->n; i++)
		dbr_root_release(&o->roots[i]);
	for (size_t i = 0; i < o->nunreduced; i++)
		dbr_root_release(&o->unreduced[i]);
	free(o->roots);
	free(o->unreduced);
	memset(o, 0, sizeof *o);
}

/*
 * Why a root's minimal case m is no minimal case at all (issue 47: no
 * unreduced tail): a case over DB_UNREDUCED_BYTES that the reducer could
 * not reduce.  Its short word into *why and a sentence into *reason: 1;
 * 0 for a root (a case of a few bytes, or a big one that is minimal as far
 * as the reducer can tell: its search ran to its end, a step kept the
 * mismatch, and the case showed it again).
 */
static int dbr_unreduced(const struct db_reduction_row *m, const char **why, const char **reason)
{
	if (m == NULL || m->state == NULL || m->code == NULL || strlen(m->code) <= DB_UNREDUCED_BYTES)
		return 0;
	if (strcmp(m->state, "too_slow") == 0) {
		*why = "too_slow";
		*reason = "the original ran past the reducer's case timeout: no search";
		return 1;
	}
	if (strcmp(m->state, "done") != 0)
		return 0;
	if (!m->complete) {
		*why = "budget";
		*reason = "the search ran out of its budget (--reduce-budget-ms, --reduce-max-executions) "
		          "before a fixpoint";
	} else if (m->confirmation != NULL && strcmp(m->confirmation, "flaky") == 0) {
		*why = "flaky";
		*reason = "the reduced case did not show the mismatch when run again";
	} else if (m->steps == 0) {
		*why = "no_step";
		*reason = "no simpler case showed the mismatch: it may need the cases run before it, or "
		          "not be deterministic";
	} else {
		return 0;
	}
	return 1;
}

/* The roots whose case is unreduced moved from out->roots to out->unreduced (both keep their order). */
static int dbr_split_unreduced(struct db_roots *out)
{
	size_t kept = 0;

	for (size_t i = 0; i < out->n; i++) {
		struct db_root *r = &out->roots[i];
		if (dbr_unreduced(r->minimal, &r->why, &r->reason)) {
			if (out->unreduced == NULL &&
			    (out->unreduced = calloc(out->n, sizeof *out->unreduced)) == NULL)
				return -1;
			out->unreduced[out->nunreduced++] = *r;
		} else {
			out->roots[kept++] = *r;
		}
	}
	out->n = kept;
	return 0;
}

/* A root's row: its bucket ids ("3,7,9") and their states ("new,new,fixed") counted in the order met. */
static int dbr_root_read(sqlite3_stmt *st, struct db_root *r)
{
	const char *ids = (const char *)sqlite3_column_text(st, 3);
	const char *states = (const char *)sqlite3_column_text(st, 5);
	int oom = 0;

	memset(r, 0, sizeof *r);
	r->bucket_id = sqlite3_column_int64(st, 0);
	r->buckets = sqlite3_column_int64(st, 1);
	r->mismatches = sqlite3_column_int64(st, 2);
	r->candidate = db_text_copy(st, 4, &oom); /* NULL: stored before candidates */
	if (oom)
		return -1;
	if ((r->bucket_ids = calloc((size_t)r->buckets + 1, sizeof *r->bucket_ids)) == NULL ||
	    (r->states = calloc((size_t)r->buckets + 1, sizeof *r->states)) == NULL)
		return -1;
	for (size_t k = 0; ids != NULL && *ids != '\0' && k < (size_t)r->buckets; k++) {
		r->bucket_ids[k] = strtoll(ids, NULL, 10);
		ids = strchr(ids, ',');
		ids = ids != NULL ? ids + 1 : NULL;
	}
	for (const char *p = states; p != NULL && *p != '\0';) {
		char name[16];
		size_t len = strcspn(p, ","), k;
		snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
		for (k = 0; k < r->nstates && strcmp(r->states[k].name, name) != 0; k++)
			;
		if (k == r->nstates) {
			if (r->nstates == (size_t)r->buckets)
				break;
			memcpy(r->states[k].name, name, sizeof name);
			r->nstates++;
		}
		r->states[k].buckets++;
		p = p[len] == ',' ? p + len + 1 : NULL;
	}
	return 0;
}

int db_reduce_roots(struct db *db, int64_t run, int minimal, struct db_roots *out, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&db->lock);
	/* A run's buckets (run -1: every bucket) grouped by their root. */
	st = dbr_stmt(db, R_ROOTS);
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (db_grow((void **)&out->roots, out->n, &cap, sizeof *out->roots) < 0)
			goto oom;
		if (dbr_root_read(st, &out->roots[out->n++]) < 0)
			goto oom;
		out->buckets += out->roots[out->n - 1].buckets;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		db_fail(db, "root causes", err, errsize);
		goto fail;
	}
	/* Each root's minimal case (its representative's reduction): read
	 * whether asked or not, to tell an unreduced case from a root. */
	for (size_t i = 0; i < out->n; i++) {
		struct db_root *r = &out->roots[i];
		st = dbr_stmt(db, R_ROOTS_MINIMAL);
		sqlite3_bind_int64(st, 1, r->bucket_id);
		if (sqlite3_step(st) == SQLITE_ROW &&
		    ((r->minimal = malloc(sizeof *r->minimal)) == NULL || dbr_read(st, r->minimal) < 0))
			goto oom;
		sqlite3_reset(st);
	}
	if (dbr_split_unreduced(out) < 0)
		goto oom;
	for (size_t i = 0; !minimal && i < out->n + out->nunreduced; i++)
		dbr_root_release_minimal(i < out->n ? &out->roots[i] : &out->unreduced[i - out->n]);
	/* The reduction's progress and cost over those buckets (a phpt bucket,
	 * first_comparison_id 0, has no case to reduce: never pending). */
	st = dbr_stmt(db, R_ROOTS_PROGRESS);
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW) {
		out->pending = sqlite3_column_int64(st, 0);
		out->reductions = sqlite3_column_int64(st, 1);
		out->executions = sqlite3_column_int64(st, 2);
		out->seconds = sqlite3_column_double(st, 3);
		out->most_executions = sqlite3_column_int64(st, 4);
		out->most_seconds = sqlite3_column_double(st, 5);
	}
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return 0;
oom:
	db_seterr(err, errsize, "out of memory");
fail:
	for (int k = R_ROOTS; k <= R_ROOTS_PROGRESS; k++)
		sqlite3_reset(db->st[DB_F_REDUCE][k]); /* no read transaction left open */
	pthread_mutex_unlock(&db->lock);
	db_roots_release(out);
	return -1;
}
