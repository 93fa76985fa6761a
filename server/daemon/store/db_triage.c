/*
 * Storage of triage (layer 3): the buckets, bucket_runs and triage_events
 * tables of schema.sql, behind db_* functions (store.h) like the rest of the
 * storage.  Its statements are prepared on the one connection (db_open.c)
 * and used under its lock, and its failures set the shared error state
 * (db_core.c), so db_last_error() sorts them like any
 * other: a full database is a 503 storage_full on a triage write too.
 *
 * db_triage_record() runs inside db_comparison_store()'s transaction (a
 * mismatch and its bucket are stored together or not at all); a change of
 * triage is one transaction over every bucket it names.
 *
 * A mismatch stored in a bucket marked fixed, in a run started after it was
 * marked (or submitted after it), flags the bucket as reappeared; the flag
 * stays until someone sets a state again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "columns.h"
#include "db_core.h"

#define TRIAGE_DEFAULT_LIMIT 50
#define TRIAGE_MAX_LIMIT 500
#define TRIAGE_MAX_IDS 500 /* buckets in one bulk change */
#define TRIAGE_NAME_MAX 64 /* "by" and "assignee" */
#define TRIAGE_NOTES_MAX 16384
#define TRIAGE_DETAIL_MAX 100 /* runs and events in GET /api/buckets/{id} */
#define TRIAGE_BACKFILL_BATCH 1000
#define TRIAGE_SYSTEM "phpcmp" /* "by" of the daemon's own audit entries */

static const char *const dbt_states[] = { "new", "confirmed", "expected", "ignored", "fixed", NULL };

enum tstmt {
	T_BUCKET_UPSERT,
	T_BUCKET_RUN_UPSERT,
	T_COMPARISON_BUCKET,
	T_REAPPEARED,
	T_EVENT_INSERT,
	T_UNBUCKETED,
	T_RESULTS,
	T_BUCKET_GET,
	T_BUCKET_OF_COMPARISON,
	T_BUCKETS_LIST,
	T_RUN_BUCKETS_LIST,
	T_STATE_COUNTS,
	T_RUN_STATE_COUNTS,
	T_BUCKET_RUNS,
	T_EVENTS_BUCKET,
	T_EVENTS_ALL,
	T_MISMATCHES,
	T_MISMATCHES_RUN,
	T_BUCKET_CURRENT,
	T_BUCKET_WRITE,
	T_RUN_EXISTS,
	T_ROOT_OF,
	T_JOINED,
	T_ROOT_OF_CASE,
	T_BUCKET_BUMP,
	T_COUNT
};

/* The columns of a bucket row, then its representative case (id, title). */
#define BUCKET_COLUMNS                                                                     \
	"b.id, b.key, b.state, b.assignee, b.notes, b.mismatches, b.first_comparison_id, " \
	"b.last_comparison_id, b.first_run_id, b.last_run_id, b.first_seen, b.last_seen, " \
	"b.updated_at, b.updated_by, b.reappeared_comparison_id, b.reappeared_run_id, "    \
	"b.reappeared_at, rc.case_id, rcase.title, b.candidate "
#define BUCKET_FROM                                                                 \
	"FROM buckets b LEFT JOIN comparisons rc ON rc.id = b.first_comparison_id " \
	"LEFT JOIN cases rcase ON rcase.id = rc.case_id "
#define NBUCKET_COLUMNS 20
/*
 * ?9: a state filter: "" any, else ",new,confirmed," (states between
 * commas); ?10: 1 for only fixed buckets that reappeared, 2 for "open"
 * (new, confirmed, or fixed and reappeared).
 */
#define STATE_FILTER                                                                                    \
	"(?10 = 2 AND (b.state IN ('new', 'confirmed') OR b.reappeared_comparison_id IS NOT NULL)) OR " \
	"(?10 = 1 AND b.reappeared_comparison_id IS NOT NULL) OR "                                      \
	"(?10 = 0 AND (?9 = '' OR instr(?9, ',' || b.state || ',') > 0))) AND "                         \
	"(?11 IS NULL OR b.candidate = ?11"

/* clang-format off */
static const char *const tstmt_sql[T_COUNT] = {
	[T_BUCKET_UPSERT] =
	    "INSERT INTO buckets (key, mismatches, first_comparison_id, last_comparison_id, first_run_id, last_run_id, "
	    "candidate) VALUES (?1, 1, ?2, ?2, ?3, ?3, ?4) "
	    "ON CONFLICT (key) DO UPDATE SET mismatches = mismatches + 1, "
	    "last_comparison_id = max(last_comparison_id, excluded.last_comparison_id), "
	    "last_run_id = coalesce(excluded.last_run_id, last_run_id), last_seen = " DB_NOW " "
	    "RETURNING id, state, fixed_comparison_mark, fixed_run_mark, reappeared_comparison_id",
	/* A submitted case that is a root's minimal case (its code, setup, flags
	 * and depth, for the same candidate): that root's bucket. */
	[T_ROOT_OF_CASE] =
	    "SELECT coalesce(b.root_id, b.id) FROM comparisons c JOIN cases k ON k.id = c.case_id "
	    "JOIN reductions r ON r.state = 'done' AND r.code = k.code AND r.flags = k.flags "
	    "AND r.depth = k.depth AND coalesce(r.setup, '') = coalesce(k.setup, '') "
	    "JOIN buckets b ON b.id = r.bucket_id AND b.candidate IS ?2 "
	    "WHERE c.id = ?1 ORDER BY r.id LIMIT 1",
	[T_BUCKET_BUMP] =
	    "UPDATE buckets SET mismatches = mismatches + 1, "
	    "last_comparison_id = max(last_comparison_id, ?2), "
	    "last_run_id = coalesce(?3, last_run_id), last_seen = " DB_NOW " WHERE id = ?1 "
	    "RETURNING id, state, fixed_comparison_mark, fixed_run_mark, reappeared_comparison_id",
	[T_BUCKET_RUN_UPSERT] =
	    "INSERT INTO bucket_runs (run_id, bucket_id, mismatches, first_comparison_id) VALUES (?1, ?2, 1, ?3) "
	    "ON CONFLICT (run_id, bucket_id) DO UPDATE SET mismatches = mismatches + 1",
	[T_COMPARISON_BUCKET] = "UPDATE comparisons SET bucket_id = ?2 WHERE id = ?1",
	[T_REAPPEARED] =
	    "UPDATE buckets SET reappeared_comparison_id = ?2, reappeared_run_id = ?3, "
	    "reappeared_at = " DB_NOW " WHERE id = ?1",
	[T_EVENT_INSERT] =
	    "INSERT INTO triage_events (bucket_id, by, action, changes, run_id, comparison_id) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	/* Mismatches stored before buckets existed (the partial index finds them). */
	[T_UNBUCKETED] =
	    "SELECT m.id, m.run_id, c.flags FROM comparisons m JOIN cases c ON c.id = m.case_id "
	    "WHERE m.verdict = 'differ' AND m.bucket_id IS NULL AND m.id > ?1 "
	    /* a case error (migration 14) is no mismatch */
	    "AND m.error IS NULL "
	    /* a reduced case's own results (reduce.c) are not a mismatch found */
	    "AND NOT EXISTS (SELECT 1 FROM reductions r WHERE r.reduced_comparison_id = m.id) "
	    "ORDER BY m.id LIMIT ?2",
	[T_RESULTS] =
	    "SELECT r.role, r.status, r.signal, " RESULT_OUTPUT_SQL ", r.output_is_false, r.error_code, "
	    "r.error_msg, r.exc_class, r.exc_msg FROM results r WHERE r.comparison_id = ?1",
	[T_BUCKET_GET] = "SELECT " BUCKET_COLUMNS BUCKET_FROM "WHERE b.id = ?1",
	[T_BUCKET_OF_COMPARISON] =
	    "SELECT " BUCKET_COLUMNS BUCKET_FROM "WHERE b.id = (SELECT bucket_id FROM comparisons WHERE id = ?1)",
	/* Newest first (by the last mismatch stored, then id: several buckets share a
	 * comparison, phpt buckets have none); cursor ?1 last comparison, ?12 id; ?2 limit. */
	[T_BUCKETS_LIST] =
	    "SELECT " BUCKET_COLUMNS BUCKET_FROM
	    "WHERE (b.last_comparison_id < ?1 OR (b.last_comparison_id = ?1 AND b.id < ?12)) "
	    "AND (" STATE_FILTER ") "
	    "ORDER BY b.last_comparison_id DESC, b.id DESC LIMIT ?2",
	/* A run's buckets, most mismatches first; ?3 run, cursor (?4 count, ?5 id). */
	[T_RUN_BUCKETS_LIST] =
	    "SELECT " BUCKET_COLUMNS ", br.mismatches, br.first_comparison_id, bc.case_id, bcase.title, "
	    "(SELECT count(*) FROM bucket_runs x WHERE x.bucket_id = b.id AND x.run_id > 0 AND x.run_id < ?3) "
	    "FROM bucket_runs br JOIN buckets b ON b.id = br.bucket_id "
	    "LEFT JOIN comparisons rc ON rc.id = b.first_comparison_id "
	    "LEFT JOIN cases rcase ON rcase.id = rc.case_id "
	    "LEFT JOIN comparisons bc ON bc.id = br.first_comparison_id "
	    "LEFT JOIN cases bcase ON bcase.id = bc.case_id "
	    "WHERE br.run_id = ?3 AND (br.mismatches < ?4 OR (br.mismatches = ?4 AND br.bucket_id < ?5)) "
	    "AND (" STATE_FILTER ") "
	    "ORDER BY br.mismatches DESC, br.bucket_id DESC LIMIT ?2",
	[T_STATE_COUNTS] =
	    "SELECT state, count(*), sum(mismatches), sum(reappeared_comparison_id IS NOT NULL) "
	    "FROM buckets GROUP BY state",
	[T_RUN_STATE_COUNTS] =
	    "SELECT b.state, count(*), sum(br.mismatches), sum(b.reappeared_comparison_id IS NOT NULL) "
	    "FROM bucket_runs br JOIN buckets b ON b.id = br.bucket_id WHERE br.run_id = ?1 GROUP BY b.state",
	[T_BUCKET_RUNS] =
	    "SELECT br.run_id, br.mismatches, br.first_comparison_id, r.created_at FROM bucket_runs br "
	    "LEFT JOIN runs r ON r.id = br.run_id WHERE br.bucket_id = ?1 ORDER BY br.run_id DESC LIMIT ?2",
	[T_EVENTS_BUCKET] =
	    "SELECT id, bucket_id, at, by, action, changes, run_id, comparison_id FROM triage_events "
	    "WHERE bucket_id = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3",
	[T_EVENTS_ALL] =
	    "SELECT id, bucket_id, at, by, action, changes, run_id, comparison_id FROM triage_events "
	    "WHERE id < ?2 ORDER BY id DESC LIMIT ?3",
	[T_MISMATCHES] =
	    "SELECT m.id, m.case_id, m.run_id, m.differs, m.created_at, c.title, c.flags, c.source "
	    "FROM comparisons m JOIN cases c ON c.id = m.case_id "
	    "WHERE m.bucket_id = ?1 AND m.id < ?2 ORDER BY m.id DESC LIMIT ?3",
	[T_MISMATCHES_RUN] =
	    "SELECT m.id, m.case_id, m.run_id, m.differs, m.created_at, c.title, c.flags, c.source "
	    "FROM comparisons m JOIN cases c ON c.id = m.case_id "
	    "WHERE m.bucket_id = ?1 AND m.run_id IS ?4 AND m.id < ?2 ORDER BY m.id DESC LIMIT ?3",
	[T_BUCKET_CURRENT] =
	    "SELECT state, assignee, notes, reappeared_comparison_id FROM buckets WHERE id = ?1",
	[T_BUCKET_WRITE] =
	    "UPDATE buckets SET state = ?2, assignee = ?3, notes = ?4, updated_at = " DB_NOW ", "
	    "updated_by = ?5, "
	    "fixed_comparison_mark = CASE WHEN ?6 THEN (SELECT coalesce(max(id), 0) FROM comparisons) "
	    "ELSE fixed_comparison_mark END, "
	    "fixed_run_mark = CASE WHEN ?6 THEN (SELECT coalesce(max(id), 0) FROM runs) ELSE fixed_run_mark END, "
	    "reappeared_comparison_id = CASE WHEN ?7 THEN NULL ELSE reappeared_comparison_id END, "
	    "reappeared_run_id = CASE WHEN ?7 THEN NULL ELSE reappeared_run_id END, "
	    "reappeared_at = CASE WHEN ?7 THEN NULL ELSE reappeared_at END "
	    "WHERE id = ?1",
	[T_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?1",
	[T_ROOT_OF] = "SELECT root_id FROM buckets WHERE id = ?1",
	[T_JOINED] = "SELECT id FROM buckets WHERE root_id = ?1 ORDER BY id",
};
/* clang-format on */

const struct db_sql_table db_triage_table = { "triage", tstmt_sql, T_COUNT };

static sqlite3_stmt *dbt_stmt(struct db *db, enum tstmt s)
{
	return db_statement(db, DB_F_TRIAGE, s);
}

/* ---- storing: a mismatch joins its bucket ---- */

static int dbt_event(struct db *db, int64_t bucket_id, const char *by, const char *action,
    const char *changes, int64_t run_id, int64_t comparison_id, char *err, size_t errsize)
{
	sqlite3_stmt *st = dbt_stmt(db, T_EVENT_INSERT);

	sqlite3_bind_int64(st, 1, bucket_id);
	db_bind_text(st, 2, by);
	db_bind_text(st, 3, action);
	db_bind_text(st, 4, changes);
	db_bind_id(st, 5, run_id);
	db_bind_id(st, 6, comparison_id);
	return db_exec(db, st, "triage event", err, errsize);
}

/* One candidate's mismatch (pair: the base's result and the candidate's) into its bucket. */
static int dbt_record_one(struct db *db, long flags, const struct result pair[2], unsigned diff,
    const char *candidate, int in_key, int first, int64_t run_id, int64_t comparison_id, char *err,
    size_t errsize)
{
	sqlite3_stmt *st;
	int64_t bucket_id, mark_cmp, mark_run, root;
	int fixed, reappeared, rc;
	char *key, changes[128];

	if ((key = bucket_key(flags, pair, diff)) == NULL) {
		db_seterr(err, errsize, "triage: out of memory");
		return -1;
	}
	/* A later candidate's buckets are its own: its name is in the key
	 * (the first candidate's keys are the two-build ones). */
	if (in_key && key[0] == '{') {
		size_t n = strlen(candidate) + strlen(key) + 32;
		char *k = malloc(n);
		if (k == NULL) {
			free(key);
			db_seterr(err, errsize, "triage: out of memory");
			return -1;
		}
		snprintf(k, n, "{\"candidate\":\"%s\"%s%s", candidate, key[1] == '}' ? "" : ",", key + 1);
		free(key);
		key = k;
	}
	/* A root's own minimal case, submitted alone, lands in its root's bucket:
	 * its key may be another root's ("0.1" and "1E-05" under
	 * serialize_precision=17 both insert digits), and marking the root fixed
	 * must see its reproducer reappear there (issue 46). */
	root = 0;
	if (run_id <= 0) {
		st = dbt_stmt(db, T_ROOT_OF_CASE);
		sqlite3_bind_int64(st, 1, comparison_id);
		db_bind_text(st, 2, candidate);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			root = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			free(key);
			return db_fail(db, "root of a minimal case", err, errsize);
		}
	}
	if (root > 0) {
		st = dbt_stmt(db, T_BUCKET_BUMP);
		sqlite3_bind_int64(st, 1, root);
		sqlite3_bind_int64(st, 2, comparison_id);
		db_bind_id(st, 3, run_id);
	} else {
		st = dbt_stmt(db, T_BUCKET_UPSERT);
		sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, comparison_id);
		db_bind_id(st, 3, run_id);
		db_bind_text(st, 4, candidate);
	}
	rc = sqlite3_step(st);
	free(key);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return db_fail(db, "store bucket", err, errsize);
	}
	bucket_id = sqlite3_column_int64(st, 0);
	fixed = strcmp((const char *)sqlite3_column_text(st, 1), "fixed") == 0;
	mark_cmp = sqlite3_column_int64(st, 2);
	mark_run = sqlite3_column_int64(st, 3);
	reappeared = sqlite3_column_type(st, 4) != SQLITE_NULL;
	sqlite3_reset(st);

	st = dbt_stmt(db, T_BUCKET_RUN_UPSERT);
	sqlite3_bind_int64(st, 1, run_id > 0 ? run_id : 0);
	sqlite3_bind_int64(st, 2, bucket_id);
	sqlite3_bind_int64(st, 3, comparison_id);
	if (db_exec(db, st, "store bucket run", err, errsize) < 0)
		return -1;
	st = dbt_stmt(db, T_COMPARISON_BUCKET);
	sqlite3_bind_int64(st, 1, comparison_id);
	sqlite3_bind_int64(st, 2, bucket_id);
	if (first && db_exec(db, st, "bucket of comparison", err, errsize) < 0)
		return -1;

	/* Fixed, and here it is again: in a run started after it was marked, or submitted since. */
	if (fixed && !reappeared && comparison_id > mark_cmp && (run_id <= 0 || run_id > mark_run)) {
		st = dbt_stmt(db, T_REAPPEARED);
		sqlite3_bind_int64(st, 1, bucket_id);
		sqlite3_bind_int64(st, 2, comparison_id);
		db_bind_id(st, 3, run_id);
		if (db_exec(db, st, "reappeared", err, errsize) < 0)
			return -1;
		if (run_id > 0)
			snprintf(changes, sizeof changes,
			    "{\"reappeared\":{\"comparison_id\":%" PRId64 ",\"run_id\":%" PRId64 "}}",
			    comparison_id, run_id);
		else
			snprintf(changes, sizeof changes,
			    "{\"reappeared\":{\"comparison_id\":%" PRId64 ",\"run_id\":null}}",
			    comparison_id);
		if (dbt_event(db, bucket_id, TRIAGE_SYSTEM, "reappeared", changes, run_id, comparison_id, err,
		        errsize) < 0)
			return -1;
	}
	return 0;
}

int db_triage_record(struct db *db, long flags, const struct result *res, int n, const char *const *names,
    const char *expect, int expectf, int64_t run_id, int64_t comparison_id, char *err, size_t errsize)
{
	struct result pair[2];
	char candidate[80];
	unsigned diff;
	int i, first = 1;

	/* The comparison's bucket is its first differing candidate's; every
	 * differing candidate counts it in a bucket of its own. */
	for (i = 1; i < n && i < MAX_BUILDS; i++) {
		if ((diff = verdict_compare(&res[ROLE_BASE], &res[i])) == 0)
			continue;
		pair[0] = res[ROLE_BASE];
		pair[1] = res[i];
		if (dbt_record_one(db, flags, pair, diff, names != NULL ? names[i] : NULL,
		        names != NULL && i != ROLE_HEAD, first, run_id, comparison_id, err, errsize) < 0)
			return -1;
		first = 0;
	}
	/* The case's --EXPECT-- is a third oracle: each build whose output is
	 * not it counts the comparison in a bucket of its own, the expectation
	 * in the base's place and "expected:ROLE" as its candidate (in the key). */
	for (i = 0; expect != NULL && i < n && i < MAX_BUILDS; i++) {
		if ((diff = verdict_expected(expect, expectf, &res[i])) == 0)
			continue;
		result_expected(&pair[0], expect);
		pair[1] = res[i];
		snprintf(candidate, sizeof candidate, "expected:%s", role_name(i));
		if (dbt_record_one(
		        db, flags, pair, diff, candidate, 1, first, run_id, comparison_id, err, errsize) < 0)
			return -1;
		first = 0;
	}
	return 0;
}

/*
 * A phpt regression or improvement (db_phpt.c): a bucket like a mismatch's,
 * with no comparison behind it (comparison ids 0; the tests are in
 * phpt_results.bucket_id).  Fixed, and seen in a run started after it was
 * marked: reappeared.
 */
int64_t db_triage_record_phpt(
    struct db *db, const char *key, const char *candidate, int64_t run_id, char *err, size_t errsize)
{
	sqlite3_stmt *st = dbt_stmt(db, T_BUCKET_UPSERT);
	int64_t bucket_id, mark_run;
	int fixed, reappeared;
	char changes[128];

	db_bind_text(st, 1, key);
	sqlite3_bind_int64(st, 2, 0);
	db_bind_id(st, 3, run_id);
	db_bind_text(st, 4, candidate);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return db_fail(db, "store phpt bucket", err, errsize);
	}
	bucket_id = sqlite3_column_int64(st, 0);
	fixed = strcmp((const char *)sqlite3_column_text(st, 1), "fixed") == 0;
	mark_run = sqlite3_column_int64(st, 3);
	reappeared = sqlite3_column_type(st, 4) != SQLITE_NULL;
	sqlite3_reset(st);

	st = dbt_stmt(db, T_BUCKET_RUN_UPSERT);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, bucket_id);
	sqlite3_bind_int64(st, 3, 0);
	if (db_exec(db, st, "store phpt bucket run", err, errsize) < 0)
		return -1;
	if (fixed && !reappeared && run_id > mark_run) {
		st = dbt_stmt(db, T_REAPPEARED);
		sqlite3_bind_int64(st, 1, bucket_id);
		sqlite3_bind_int64(st, 2, 0);
		db_bind_id(st, 3, run_id);
		if (db_exec(db, st, "reappeared", err, errsize) < 0)
			return -1;
		snprintf(changes, sizeof changes,
		    "{\"reappeared\":{\"comparison_id\":null,\"run_id\":%" PRId64 "}}", run_id);
		if (dbt_event(db, bucket_id, TRIAGE_SYSTEM, "reappeared", changes, run_id, 0, err, errsize) <
		    0)
			return -1;
	}
	return bucket_id;
}

/* ---- mismatches stored before buckets existed ---- */

/* Read one build's stored result (the columns of T_RESULTS) for a bucket key. */
static int dbt_read_result(sqlite3_stmt *st, struct result res[MAX_BUILDS])
{
	const char *role = (const char *)sqlite3_column_text(st, 0);
	const char *status = (const char *)sqlite3_column_text(st, 1);
	struct result *r;
	int i, s;

	if (role == NULL || status == NULL)
		return -1;
	i = role_parse(role);
	if (i < 0 || i > ROLE_HEAD)
		return -1; /* stored before candidates: base and head only */
	r = &res[i];
	s = result_status_parse(status);
	r->status = s >= 0 ? (enum result_status)s : STATUS_ERROR;
	r->signal = sqlite3_column_int(st, 2);
	r->output_is_false = sqlite3_column_int(st, 4);
	if (!r->output_is_false)
		bytes_set(&r->output, sqlite3_column_blob(st, 3), (size_t)sqlite3_column_bytes(st, 3));
	r->error_code = (long)sqlite3_column_int64(st, 5);
	if (sqlite3_column_type(st, 6) != SQLITE_NULL)
		r->error_msg = strdup((const char *)sqlite3_column_text(st, 6));
	if (sqlite3_column_type(st, 7) != SQLITE_NULL)
		r->exc_class = strdup((const char *)sqlite3_column_text(st, 7));
	if (sqlite3_column_type(st, 8) != SQLITE_NULL)
		r->exc_msg = strdup((const char *)sqlite3_column_text(st, 8));
	return 0;
}

/* Put one stored mismatch in its bucket (inside the caller's transaction). */
static int dbt_backfill_one(struct db *db, int64_t id, int64_t run_id, long flags, char *err, size_t errsize)
{
	struct result res[MAX_BUILDS];
	sqlite3_stmt *st;
	unsigned diff;
	int role, rc, n = 0;

	for (role = 0; role < MAX_BUILDS; role++)
		result_init(&res[role]);
	st = dbt_stmt(db, T_RESULTS);
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		n += dbt_read_result(st, res) == 0;
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		rc = db_fail(db, "read results", err, errsize);
	} else if (n != 2 || (diff = verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD])) == 0) {
		rc = 0; /* incomplete or no longer a difference: leave it out of buckets */
	} else {
		rc = db_triage_record(db, flags, res, 2, NULL, NULL, 0, run_id, id, err, errsize);
	}
	for (role = 0; role < MAX_BUILDS; role++)
		result_release(&res[role]);
	return rc;
}

/* At startup, before any other thread uses the database. */
int db_triage_backfill(struct db *db, char *err, size_t errsize)
{
	struct {
		int64_t id, run_id;
		long flags;
	} batch[TRIAGE_BACKFILL_BATCH];
	int64_t after = 0, total = 0;
	sqlite3_stmt *st;
	int n, i, rc;

	for (;;) {
		if (db_begin(db, err, errsize) < 0)
			return -1;
		st = dbt_stmt(db, T_UNBUCKETED);
		sqlite3_bind_int64(st, 1, after);
		sqlite3_bind_int(st, 2, TRIAGE_BACKFILL_BATCH);
		for (n = 0; n < TRIAGE_BACKFILL_BATCH && (rc = sqlite3_step(st)) == SQLITE_ROW; n++) {
			batch[n].id = sqlite3_column_int64(st, 0);
			batch[n].run_id = sqlite3_column_int64(st, 1);
			batch[n].flags = (long)sqlite3_column_int64(st, 2);
		}
		sqlite3_reset(st);
		for (i = 0; i < n; i++)
			if (dbt_backfill_one(db, batch[i].id, batch[i].run_id, batch[i].flags, err, errsize) <
			    0)
				break;
		if (i < n || db_commit(db, err, errsize) < 0) {
			db_rollback(db);
			return -1;
		}
		total += n;
		if (n < TRIAGE_BACKFILL_BATCH)
			break;
		after = batch[n - 1].id;
	}
	if (total > 0)
		fprintf(stderr, "phpcmp: put %" PRId64 " earlier mismatch%s in buckets\n", total,
		    total == 1 ? "" : "es");
	return 0;
}

/* ---- rows read back ---- */

/* An id column: 0 when NULL (ids start at 1). */
static int64_t dbt_id(sqlite3_stmt *st, int i)
{
	int64_t v = sqlite3_column_int64(st, i);
	return v > 0 ? v : 0;
}

void db_bucket_release(struct db_bucket *b)
{
	free(b->key);
	free(b->state);
	free(b->assignee);
	free(b->notes);
	free(b->candidate);
	free(b->updated_at);
	free(b->updated_by);
	free(b->first_seen);
	free(b->last_seen);
	free(b->title);
	free(b->reappeared_at);
	free(b->run_title);
	memset(b, 0, sizeof *b);
}

/* A bucket row (BUCKET_COLUMNS): 0, -1 out of memory (b released). */
static int dbt_bucket_read(sqlite3_stmt *st, struct db_bucket *b)
{
	int oom = 0;

	memset(b, 0, sizeof *b);
	b->id = sqlite3_column_int64(st, 0);
	b->key = db_text_copy(st, 1, &oom);
	b->state = db_text_copy(st, 2, &oom);
	b->assignee = db_text_copy(st, 3, &oom);
	b->notes = db_text_copy(st, 4, &oom);
	b->mismatches = sqlite3_column_int64(st, 5);
	b->first_comparison_id = sqlite3_column_int64(st, 6);
	b->last_comparison_id = sqlite3_column_int64(st, 7);
	b->first_run_id = dbt_id(st, 8);
	b->last_run_id = dbt_id(st, 9);
	b->first_seen = db_text_copy(st, 10, &oom);
	b->last_seen = db_text_copy(st, 11, &oom);
	b->updated_at = db_text_copy(st, 12, &oom);
	b->updated_by = db_text_copy(st, 13, &oom);
	b->reappeared = sqlite3_column_type(st, 14) != SQLITE_NULL;
	b->reappeared_comparison_id = sqlite3_column_int64(st, 14);
	b->reappeared_run_id = dbt_id(st, 15);
	b->reappeared_at = db_text_copy(st, 16, &oom);
	b->case_id = dbt_id(st, 17);
	b->title = db_text_copy(st, 18, &oom);
	b->candidate = db_text_copy(st, 19, &oom);
	if (oom)
		db_bucket_release(b);
	return oom ? -1 : 0;
}

void db_triage_event_release(struct db_triage_event *e)
{
	free(e->at);
	free(e->by);
	free(e->action);
	free(e->changes);
	memset(e, 0, sizeof *e);
}

static int dbt_event_read(sqlite3_stmt *st, struct db_triage_event *e)
{
	int oom = 0;

	memset(e, 0, sizeof *e);
	e->id = sqlite3_column_int64(st, 0);
	e->bucket_id = sqlite3_column_int64(st, 1);
	e->at = db_text_copy(st, 2, &oom);
	e->by = db_text_copy(st, 3, &oom);
	e->action = db_text_copy(st, 4, &oom);
	e->changes = db_text_copy(st, 5, &oom);
	e->run_id = dbt_id(st, 6);
	e->comparison_id = dbt_id(st, 7);
	if (oom)
		db_triage_event_release(e);
	return oom ? -1 : 0;
}

/* Buckets and mismatches by state (every state, 0 when none), then reappeared. */
static int dbt_counts(struct db *db, int64_t run, struct db_bucket_counts *c, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	memset(c, 0, sizeof *c);
	for (c->nstates = 0; dbt_states[c->nstates] != NULL; c->nstates++)
		snprintf(
		    c->states[c->nstates].state, sizeof c->states[0].state, "%s", dbt_states[c->nstates]);
	if (run >= 0) {
		st = dbt_stmt(db, T_RUN_STATE_COUNTS);
		sqlite3_bind_int64(st, 1, run);
	} else {
		st = dbt_stmt(db, T_STATE_COUNTS);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(st, 0);
		size_t k;
		for (k = 0; k < c->nstates && strcmp(c->states[k].state, state != NULL ? state : "") != 0;
		     k++)
			;
		if (k == c->nstates && k < sizeof c->states / sizeof c->states[0])
			snprintf(c->states[c->nstates++].state, sizeof c->states[0].state, "%s",
			    state != NULL ? state : "");
		if (k < c->nstates) {
			c->states[k].buckets = sqlite3_column_int64(st, 1);
			c->states[k].mismatches = sqlite3_column_int64(st, 2);
		}
		c->reappeared += sqlite3_column_int64(st, 3);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_fail(db, "count buckets", err, errsize);
	return 0;
}

void db_bucket_full_release(struct db_bucket_full *f)
{
	db_bucket_release(&f->b);
	for (size_t i = 0; i < f->nruns; i++)
		free(f->runs[i].run_created_at);
	free(f->runs);
	for (size_t i = 0; i < f->nevents; i++)
		db_triage_event_release(&f->events[i]);
	free(f->events);
	memset(f, 0, sizeof *f);
}

/* The bucket with its runs and audit trail: 1, 0 none, -1 with err (f released). */
static int dbt_bucket_full(struct db *db, int64_t id, struct db_bucket_full *f, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	size_t cap;
	int rc, oom = 0;

	memset(f, 0, sizeof *f);
	st = dbt_stmt(db, T_BUCKET_GET);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? 0 : db_fail(db, "read bucket", err, errsize);
	}
	rc = dbt_bucket_read(st, &f->b);
	sqlite3_reset(st);
	if (rc < 0)
		goto oom;
	st = dbt_stmt(db, T_BUCKET_RUNS);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, TRIAGE_DETAIL_MAX);
	cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (db_grow((void **)&f->runs, f->nruns, &cap, sizeof *f->runs) < 0) {
			oom = 1;
			break;
		}
		struct db_bucket_run *r = &f->runs[f->nruns++];
		r->run_id = dbt_id(st, 0);
		r->mismatches = sqlite3_column_int64(st, 1);
		r->first_comparison_id = sqlite3_column_int64(st, 2);
		r->run_created_at = db_text_copy(st, 3, &oom);
	}
	sqlite3_reset(st);
	if (oom)
		goto oom;
	if (rc != SQLITE_DONE)
		goto dbfail;
	st = dbt_stmt(db, T_EVENTS_BUCKET);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, INT64_MAX);
	sqlite3_bind_int(st, 3, TRIAGE_DETAIL_MAX);
	cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (db_grow((void **)&f->events, f->nevents, &cap, sizeof *f->events) < 0 ||
		    dbt_event_read(st, &f->events[f->nevents]) < 0) {
			oom = 1;
			break;
		}
		f->nevents++;
	}
	sqlite3_reset(st);
	if (oom)
		goto oom;
	if (rc != SQLITE_DONE)
		goto dbfail;
	return 1;
dbfail:
	db_bucket_full_release(f);
	return db_fail(db, "read bucket", err, errsize);
oom:
	db_bucket_full_release(f);
	db_seterr(err, errsize, "out of memory");
	return -1;
}

/*
 * Apply a change to one bucket (inside the caller's transaction): 1 changed
 * (an audit entry written), 0 nothing to change, -2 no such bucket, -1.
 */
static int dbt_apply(struct db *db, int64_t id, const struct db_triage_change *ch, char *err, size_t errsize)
{
	sqlite3_stmt *st = dbt_stmt(db, T_BUCKET_CURRENT);
	char *state = NULL, *assignee = NULL, *notes = NULL, *text = NULL;
	const char *new_state, *new_assignee, *new_notes;
	struct column_triage changes = { 0 };
	int reappeared, rc, rearm;

	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? -2 : db_fail(db, "read bucket", err, errsize);
	}
	state = strdup((const char *)sqlite3_column_text(st, 0));
	assignee = sqlite3_column_type(st, 1) == SQLITE_NULL
	    ? NULL
	    : strdup((const char *)sqlite3_column_text(st, 1));
	notes = strdup((const char *)sqlite3_column_text(st, 2));
	reappeared = sqlite3_column_type(st, 3) != SQLITE_NULL;
	sqlite3_reset(st);
	if (state == NULL || notes == NULL) {
		rc = -1;
		db_seterr(err, errsize, "out of memory");
		goto out;
	}
	new_state = ch->state != NULL ? ch->state : state;
	new_assignee = ch->set_assignee ? (ch->assignee[0] != '\0' ? ch->assignee : NULL) : assignee;
	new_notes = ch->notes != NULL ? ch->notes : notes;
	/* Setting a state, even the same one, answers a reappearance (and re-arms fixed). */
	rearm = ch->state != NULL && (strcmp(new_state, state) != 0 || reappeared);
	changes.state = (struct column_change){ rearm, state, new_state };
	changes.assignee = (struct column_change){ (new_assignee == NULL) != (assignee == NULL) ||
		    (new_assignee != NULL && strcmp(new_assignee, assignee) != 0),
		assignee, new_assignee };
	changes.notes = (struct column_change){ strcmp(new_notes, notes) != 0, notes, new_notes };
	changes.answered_reappearance = rearm && reappeared;
	if (!changes.state.changed && !changes.assignee.changed && !changes.notes.changed &&
	    !changes.answered_reappearance) {
		rc = 0;
		goto out;
	}
	/* Made on a root cause (POST /api/roots/{id}/triage): say so in each bucket's trail. */
	changes.root = ch->root;
	st = dbt_stmt(db, T_BUCKET_WRITE);
	sqlite3_bind_int64(st, 1, id);
	db_bind_text(st, 2, new_state);
	db_bind_text(st, 3, new_assignee);
	db_bind_text(st, 4, new_notes);
	db_bind_text(st, 5, ch->by);
	sqlite3_bind_int(st, 6, rearm && strcmp(new_state, "fixed") == 0);
	sqlite3_bind_int(st, 7, rearm);
	if (db_exec(db, st, "triage bucket", err, errsize) < 0) {
		rc = -1;
		goto out;
	}
	if ((text = column_triage_changes(&changes)) == NULL) {
		rc = -1;
		db_seterr(err, errsize, "out of memory");
		goto out;
	}
	rc = dbt_event(db, id, ch->by, "triage", text, 0, 0, err, errsize) < 0 ? -1 : 1;
out:
	free(text);
	free(state);
	free(assignee);
	free(notes);
	return rc;
}

/* ---- the API's reads and writes (store.h) ---- */

/* ?run: -1 none, else it must exist (0, submitted, always does): 1, 0 no such run, -1. */
static int dbt_run_exists(struct db *db, int64_t run, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	if (run <= 0)
		return 1;
	st = dbt_stmt(db, T_RUN_EXISTS);
	sqlite3_bind_int64(st, 1, run);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_fail(db, "find run", err, errsize);
}

/*
 * One keyset page of a listing: st asks for limit + 1 rows; each of the
 * first limit is read by read() into the next item of *list (size bytes
 * each, *n of them), the one more only sets *more.  0, or -1 with err
 * (out of memory, or the statement failed: what names it).  st is reset
 * either way; on -1 the items read are the caller's to release.
 */
static int dbt_page(struct db *db, sqlite3_stmt *st, int limit,
    int (*read)(sqlite3_stmt *, void *item, void *arg), void *arg, void **list, size_t size, size_t *n,
    int *more, const char *what, char *err, size_t errsize)
{
	size_t cap = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == (size_t)limit)
			break;
		if (db_grow(list, *n, &cap, size) < 0 || read(st, (char *)*list + *n * size, arg) < 0) {
			sqlite3_reset(st);
			db_seterr(err, errsize, "out of memory");
			return -1;
		}
		(*n)++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(db, what, err, errsize);
	*more = rc == SQLITE_ROW;
	return 0;
}

/* A bucket listing's row, and the page's cursor after it. */
struct dbt_bucket_page {
	int has_run;
	int64_t run;
	char *cursor;
	size_t cursorsize;
};

static int dbt_bucket_row(sqlite3_stmt *st, void *item, void *arg)
{
	struct dbt_bucket_page *pg = arg;
	struct db_bucket *b = item;
	int k = NBUCKET_COLUMNS, oom = 0;

	if (dbt_bucket_read(st, b) < 0)
		return -1;
	if (pg->has_run) {
		b->in_run = 1;
		b->run_id = pg->run;
		b->run_mismatches = sqlite3_column_int64(st, k);
		b->run_comparison_id = sqlite3_column_int64(st, k + 1);
		b->run_case_id = dbt_id(st, k + 2);
		b->run_title = db_text_copy(st, k + 3, &oom);
		b->earlier_runs = sqlite3_column_int64(st, k + 4);
		snprintf(pg->cursor, pg->cursorsize, "%" PRId64 ".%" PRId64, b->run_mismatches, b->id);
	} else {
		snprintf(pg->cursor, pg->cursorsize, "%" PRId64 ".%" PRId64, b->last_comparison_id, b->id);
	}
	if (oom)
		db_bucket_release(b);
	return oom ? -1 : 0;
}

static void dbt_buckets_free(struct db_bucket *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		db_bucket_release(&list[i]);
	free(list);
}

int db_buckets_list(struct db *db, const struct db_bucket_filter *f, struct db_bucket **list, size_t *n,
    struct db_bucket_counts *counts, char *cursor, size_t cursorsize, int *more, char *err, size_t errsize)
{
	int has_run = f->run >= 0, rc;
	struct dbt_bucket_page pg = { has_run, f->run, cursor, cursorsize };
	sqlite3_stmt *st;

	*list = NULL;
	*n = 0;
	*more = 0;
	cursor[0] = '\0'; /* "" when no row */
	pthread_mutex_lock(&db->lock);
	if ((rc = dbt_run_exists(db, f->run, err, errsize)) <= 0) {
		pthread_mutex_unlock(&db->lock);
		return rc < 0 ? -1 : -2;
	}
	if (has_run) {
		st = dbt_stmt(db, T_RUN_BUCKETS_LIST);
		sqlite3_bind_int64(st, 3, f->run);
		sqlite3_bind_int64(st, 4, f->cursor_count);
		sqlite3_bind_int64(st, 5, f->cursor_id);
	} else {
		st = dbt_stmt(db, T_BUCKETS_LIST);
		/* "LAST.ID", or the older "ID" (a last comparison id) */
		sqlite3_bind_int64(st, 1, f->cursor_count == INT64_MAX ? f->cursor_id : f->cursor_count);
		sqlite3_bind_int64(st, 12, f->cursor_count == INT64_MAX ? INT64_MAX : f->cursor_id);
	}
	sqlite3_bind_int(st, 2, f->limit + 1);
	sqlite3_bind_text(st, 9, f->states, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 10, f->special);
	db_bind_text(st, 11, f->candidate);
	if (dbt_page(db, st, f->limit, dbt_bucket_row, &pg, (void **)list, sizeof **list, n, more,
	        "list buckets", err, errsize) < 0 ||
	    dbt_counts(db, has_run ? f->run : -1, counts, err, errsize) < 0) {
		pthread_mutex_unlock(&db->lock);
		dbt_buckets_free(*list, *n);
		*list = NULL;
		*n = 0;
		return -1;
	}
	pthread_mutex_unlock(&db->lock);
	return 0;
}

int db_bucket_get(struct db *db, int64_t id, struct db_bucket_full *out, char *err, size_t errsize)
{
	int rc;

	pthread_mutex_lock(&db->lock);
	rc = dbt_bucket_full(db, id, out, err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

void db_bucket_mismatch_release(struct db_bucket_mismatch *m)
{
	free(m->differs);
	free(m->created_at);
	free(m->title);
	free(m->file);
	memset(m, 0, sizeof *m);
}

/* A bucket's mismatch, *last (the page's cursor) its comparison id. */
static int dbt_mismatch_row(sqlite3_stmt *st, void *item, void *arg)
{
	struct db_bucket_mismatch *m = item;
	int oom = 0;

	memset(m, 0, sizeof *m);
	m->comparison_id = *(int64_t *)arg = sqlite3_column_int64(st, 0);
	m->case_id = sqlite3_column_int64(st, 1);
	m->run_id = dbt_id(st, 2);
	m->differs = db_text_copy(st, 3, &oom);
	m->created_at = db_text_copy(st, 4, &oom);
	m->title = db_text_copy(st, 5, &oom);
	m->flags = (long)sqlite3_column_int64(st, 6);
	m->file = db_text_copy(st, 7, &oom);
	if (oom)
		db_bucket_mismatch_release(m);
	return oom ? -1 : 0;
}

int db_bucket_mismatches(struct db *db, int64_t id, int64_t run, int64_t before, int limit,
    struct db_bucket_mismatch **list, size_t *n, int64_t *last, int *more, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	*list = NULL;
	*n = 0;
	*last = 0;
	*more = 0;
	pthread_mutex_lock(&db->lock);
	if ((rc = dbt_run_exists(db, run, err, errsize)) <= 0) {
		pthread_mutex_unlock(&db->lock);
		return rc < 0 ? -1 : -2;
	}
	/* The bucket must exist (0 otherwise). */
	st = dbt_stmt(db, T_BUCKET_CURRENT);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW) {
		if (rc != SQLITE_DONE)
			db_fail(db, "read bucket", err, errsize);
		pthread_mutex_unlock(&db->lock);
		return rc == SQLITE_DONE ? 0 : -1;
	}
	st = dbt_stmt(db, run >= 0 ? T_MISMATCHES_RUN : T_MISMATCHES);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, before > 0 ? before : INT64_MAX);
	sqlite3_bind_int(st, 3, limit + 1);
	if (run >= 0)
		db_bind_id(st, 4, run);
	rc = dbt_page(db, st, limit, dbt_mismatch_row, last, (void **)list, sizeof **list, n, more,
	    "list mismatches", err, errsize);
	pthread_mutex_unlock(&db->lock);
	if (rc < 0) {
		for (size_t i = 0; i < *n; i++)
			db_bucket_mismatch_release(&(*list)[i]);
		free(*list);
		*list = NULL;
		*n = 0;
		return -1;
	}
	return 1;
}

static int dbt_event_row(sqlite3_stmt *st, void *item, void *arg)
{
	*(int64_t *)arg = sqlite3_column_int64(st, 0);
	return dbt_event_read(st, item);
}

int db_triage_events(struct db *db, int64_t bucket, int64_t before, int limit, struct db_triage_event **list,
    size_t *n, int64_t *last, int *more, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	*list = NULL;
	*n = 0;
	*last = 0;
	*more = 0;
	pthread_mutex_lock(&db->lock);
	st = dbt_stmt(db, bucket > 0 ? T_EVENTS_BUCKET : T_EVENTS_ALL);
	if (bucket > 0)
		sqlite3_bind_int64(st, 1, bucket);
	sqlite3_bind_int64(st, 2, before > 0 ? before : INT64_MAX);
	sqlite3_bind_int(st, 3, limit + 1);
	rc = dbt_page(db, st, limit, dbt_event_row, last, (void **)list, sizeof **list, n, more,
	    "list triage events", err, errsize);
	pthread_mutex_unlock(&db->lock);
	if (rc < 0) {
		for (size_t i = 0; i < *n; i++)
			db_triage_event_release(&(*list)[i]);
		free(*list);
		*list = NULL;
		*n = 0;
	}
	return rc;
}

int db_bucket_of_comparison(struct db *db, int64_t comparison_id, struct db_bucket *out)
{
	sqlite3_stmt *st;
	int rc = 0;

	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&db->lock);
	st = dbt_stmt(db, T_BUCKET_OF_COMPARISON);
	sqlite3_bind_int64(st, 1, comparison_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = dbt_bucket_read(st, out) < 0 ? -1 : 1;
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

/* Append id to *list unless it is there: 0, -1 out of memory. */
static int dbt_ids_add(int64_t **list, size_t *n, size_t *cap, int64_t id)
{
	for (size_t i = 0; i < *n; i++)
		if ((*list)[i] == id)
			return 0;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		int64_t *p = realloc(*list, c * sizeof *p);
		if (p == NULL)
			return -1;
		*list = p;
		*cap = c;
	}
	(*list)[(*n)++] = id;
	return 0;
}

/*
 * The buckets a change goes to, read inside its transaction: ids, then (with
 * ch->with_joined) every bucket that joined one of them (buckets.root_id).
 * With ch->root, ids[0] must be a root: -3 with *missing its root when it
 * joined another.  0, -2 with *missing, -1.
 */
static int dbt_targets(struct db *db, const int64_t *ids, size_t n, const struct db_triage_change *ch,
    int64_t **list, size_t *count, int64_t *missing, char *err, size_t errsize)
{
	size_t cap = 0;
	sqlite3_stmt *st;
	int rc;

	*list = NULL;
	*count = 0;
	if (ch->root > 0) {
		st = dbt_stmt(db, T_ROOT_OF);
		sqlite3_bind_int64(st, 1, ch->root);
		rc = sqlite3_step(st);
		*missing = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : ch->root;
		sqlite3_reset(st);
		if (rc == SQLITE_DONE)
			return -2;
		if (rc != SQLITE_ROW)
			return db_fail(db, "find root", err, errsize);
		if (*missing != 0)
			return -3;
	}
	for (size_t i = 0; i < n; i++)
		if (dbt_ids_add(list, count, &cap, ids[i]) < 0)
			goto oom;
	for (size_t i = 0; ch->with_joined && i < n; i++) {
		st = dbt_stmt(db, T_JOINED);
		sqlite3_bind_int64(st, 1, ids[i]);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if (dbt_ids_add(list, count, &cap, sqlite3_column_int64(st, 0)) < 0) {
				sqlite3_reset(st);
				goto oom;
			}
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return db_fail(db, "find joined buckets", err, errsize);
	}
	return 0;
oom:
	db_seterr(err, errsize, "out of memory");
	return -1;
}

int db_triage_change(struct db *db, const int64_t *ids, size_t n, const struct db_triage_change *ch, int full,
    int *changed, int64_t *missing, struct db_triage_result *out, char *err, size_t errsize)
{
	int64_t *all = NULL;
	size_t i = 0, count = 0;
	int rc = 0, found;

	*changed = 0;
	*missing = 0;
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&db->lock);
	if (db_begin(db, err, errsize) < 0) {
		pthread_mutex_unlock(&db->lock);
		return -1;
	}
	if ((rc = dbt_targets(db, ids, n, ch, &all, &count, missing, err, errsize)) == 0)
		for (i = 0; i < count; i++) {
			if ((rc = dbt_apply(db, all[i], ch, err, errsize)) < 0)
				break;
			*changed += rc;
		}
	if (rc < 0 || db_commit(db, err, errsize) < 0) {
		db_rollback(db);
		pthread_mutex_unlock(&db->lock);
		if (rc == -2 && all != NULL)
			*missing = all[i];
		free(all);
		return rc == -2 || rc == -3 ? rc : -1;
	}
	if (full) {
		found = dbt_bucket_full(db, ids[0], &out->full, err, errsize);
		pthread_mutex_unlock(&db->lock);
		free(all);
		if (found == 0)
			db_seterr(err, errsize, "bucket vanished");
		return found > 0 ? 0 : -1;
	}
	/* The changed buckets as listed (without runs and trail). */
	if (count > 0 && (out->list = calloc(count, sizeof *out->list)) == NULL) {
		pthread_mutex_unlock(&db->lock);
		free(all);
		db_seterr(err, errsize, "out of memory");
		return -1;
	}
	for (i = 0; i < count; i++) {
		sqlite3_stmt *st = dbt_stmt(db, T_BUCKET_GET);
		sqlite3_bind_int64(st, 1, all[i]);
		if (sqlite3_step(st) == SQLITE_ROW && dbt_bucket_read(st, &out->list[out->n]) == 0)
			out->n++;
		sqlite3_reset(st);
	}
	pthread_mutex_unlock(&db->lock);
	free(all);
	return 0;
}

void db_triage_result_release(struct db_triage_result *r)
{
	db_bucket_full_release(&r->full);
	dbt_buckets_free(r->list, r->n);
	memset(r, 0, sizeof *r);
}
