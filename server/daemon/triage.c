/*
 * Triage: mismatches grouped in buckets (server/common/bucket.c makes the key),
 * each bucket's state, assignee and notes, and the audit trail of who
 * changed what (docs/api.md, "Triage").
 *
 * Storage: the buckets, bucket_runs and triage_events tables of schema.sql.
 * This module keeps its own prepared statements on db.c's connection and
 * uses them only under db.c's lock: triage_record() runs inside
 * db_comparison_store()'s transaction (a mismatch and its bucket are stored
 * together or not at all); the API functions take the lock themselves with
 * db_triage_lock().
 *
 * States: new -> confirmed / expected / ignored / fixed (any state may be
 * set from any other).  A mismatch stored in a bucket marked fixed, in a
 * run started after it was marked (or submitted after it), flags the bucket
 * as reappeared; the flag stays until someone sets a state again.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>
#include <sqlite3.h>

#include "phpcmp.h"

#define TRIAGE_NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
#define TRIAGE_DEFAULT_LIMIT 50
#define TRIAGE_MAX_LIMIT 500
#define TRIAGE_MAX_IDS 500 /* buckets in one bulk change */
#define TRIAGE_NAME_MAX 64 /* "by" and "assignee" */
#define TRIAGE_NOTES_MAX 16384
#define TRIAGE_DETAIL_MAX 100 /* runs and events in GET /api/buckets/{id} */
#define TRIAGE_BACKFILL_BATCH 1000
#define TRIAGE_SYSTEM "phpcmp" /* "by" of the daemon's own audit entries */

static const char *const triage_states[] = { "new", "confirmed", "expected", "ignored", "fixed", NULL };

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
	T_COUNT
};

/* The columns of a bucket row, then its representative case (id, title). */
#define BUCKET_COLUMNS                                                                     \
	"b.id, b.key, b.state, b.assignee, b.notes, b.mismatches, b.first_comparison_id, " \
	"b.last_comparison_id, b.first_run_id, b.last_run_id, b.first_seen, b.last_seen, " \
	"b.updated_at, b.updated_by, b.reappeared_comparison_id, b.reappeared_run_id, "    \
	"b.reappeared_at, rc.case_id, rcase.title "
#define BUCKET_FROM                                                                 \
	"FROM buckets b LEFT JOIN comparisons rc ON rc.id = b.first_comparison_id " \
	"LEFT JOIN cases rcase ON rcase.id = rc.case_id "
#define NBUCKET_COLUMNS 19
/*
 * ?9: a state filter: "" any, else ",new,confirmed," (states between
 * commas); ?10: 1 for only fixed buckets that reappeared, 2 for "open"
 * (new, confirmed, or fixed and reappeared).
 */
#define STATE_FILTER                                                                                    \
	"(?10 = 2 AND (b.state IN ('new', 'confirmed') OR b.reappeared_comparison_id IS NOT NULL)) OR " \
	"(?10 = 1 AND b.reappeared_comparison_id IS NOT NULL) OR "                                      \
	"(?10 = 0 AND (?9 = '' OR instr(?9, ',' || b.state || ',') > 0))"

/* clang-format off */
static const char *const tstmt_sql[T_COUNT] = {
	[T_BUCKET_UPSERT] =
	    "INSERT INTO buckets (key, mismatches, first_comparison_id, last_comparison_id, first_run_id, last_run_id) "
	    "VALUES (?1, 1, ?2, ?2, ?3, ?3) "
	    "ON CONFLICT (key) DO UPDATE SET mismatches = mismatches + 1, "
	    "last_comparison_id = max(last_comparison_id, excluded.last_comparison_id), "
	    "last_run_id = coalesce(excluded.last_run_id, last_run_id), last_seen = " TRIAGE_NOW " "
	    "RETURNING id, state, fixed_comparison_mark, fixed_run_mark, reappeared_comparison_id",
	[T_BUCKET_RUN_UPSERT] =
	    "INSERT INTO bucket_runs (run_id, bucket_id, mismatches, first_comparison_id) VALUES (?1, ?2, 1, ?3) "
	    "ON CONFLICT (run_id, bucket_id) DO UPDATE SET mismatches = mismatches + 1",
	[T_COMPARISON_BUCKET] = "UPDATE comparisons SET bucket_id = ?2 WHERE id = ?1",
	[T_REAPPEARED] =
	    "UPDATE buckets SET reappeared_comparison_id = ?2, reappeared_run_id = ?3, "
	    "reappeared_at = " TRIAGE_NOW " WHERE id = ?1",
	[T_EVENT_INSERT] =
	    "INSERT INTO triage_events (bucket_id, by, action, changes, run_id, comparison_id) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	/* Mismatches stored before buckets existed (the partial index finds them). */
	[T_UNBUCKETED] =
	    "SELECT m.id, m.run_id, c.flags FROM comparisons m JOIN cases c ON c.id = m.case_id "
	    "WHERE m.verdict = 'differ' AND m.bucket_id IS NULL AND m.id > ?1 ORDER BY m.id LIMIT ?2",
	[T_RESULTS] =
	    "SELECT role, status, signal, output, output_is_false, error_code, error_msg, exc_class, exc_msg "
	    "FROM results WHERE comparison_id = ?1",
	[T_BUCKET_GET] = "SELECT " BUCKET_COLUMNS BUCKET_FROM "WHERE b.id = ?1",
	[T_BUCKET_OF_COMPARISON] =
	    "SELECT " BUCKET_COLUMNS BUCKET_FROM "WHERE b.id = (SELECT bucket_id FROM comparisons WHERE id = ?1)",
	/* Newest first (by the last mismatch stored); ?1 cursor, ?2 limit. */
	[T_BUCKETS_LIST] =
	    "SELECT " BUCKET_COLUMNS BUCKET_FROM
	    "WHERE b.last_comparison_id < ?1 AND (" STATE_FILTER ") "
	    "ORDER BY b.last_comparison_id DESC LIMIT ?2",
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
	    "UPDATE buckets SET state = ?2, assignee = ?3, notes = ?4, updated_at = " TRIAGE_NOW ", "
	    "updated_by = ?5, "
	    "fixed_comparison_mark = CASE WHEN ?6 THEN (SELECT coalesce(max(id), 0) FROM comparisons) "
	    "ELSE fixed_comparison_mark END, "
	    "fixed_run_mark = CASE WHEN ?6 THEN (SELECT coalesce(max(id), 0) FROM runs) ELSE fixed_run_mark END, "
	    "reappeared_comparison_id = CASE WHEN ?7 THEN NULL ELSE reappeared_comparison_id END, "
	    "reappeared_run_id = CASE WHEN ?7 THEN NULL ELSE reappeared_run_id END, "
	    "reappeared_at = CASE WHEN ?7 THEN NULL ELSE reappeared_at END "
	    "WHERE id = ?1",
	[T_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?1",
};
/* clang-format on */

struct triage {
	sqlite3 *conn;
	sqlite3_stmt *stmt[T_COUNT];
};

static void triage_seterr(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errsize == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
}

static sqlite3_stmt *triage_stmt(struct triage *t, enum tstmt s)
{
	sqlite3_reset(t->stmt[s]);
	sqlite3_clear_bindings(t->stmt[s]);
	return t->stmt[s];
}

static int triage_fail(struct triage *t, const char *what, char *err, size_t errsize)
{
	triage_seterr(err, errsize, "database: %s: %s", what, sqlite3_errmsg(t->conn));
	return -1;
}

static int triage_exec(struct triage *t, sqlite3_stmt *st, const char *what, char *err, size_t errsize)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return triage_fail(t, what, err, errsize);
	return 0;
}

static void triage_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

static void triage_bind_id(sqlite3_stmt *st, int i, int64_t id)
{
	if (id > 0)
		sqlite3_bind_int64(st, i, id);
	else
		sqlite3_bind_null(st, i);
}

struct triage *triage_open(struct sqlite3 *conn, char *err, size_t errsize)
{
	struct triage *t;
	int i;

	if ((t = calloc(1, sizeof *t)) == NULL) {
		triage_seterr(err, errsize, "triage: out of memory");
		return NULL;
	}
	t->conn = conn;
	for (i = 0; i < T_COUNT; i++) {
		if (sqlite3_prepare_v3(
		        conn, tstmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &t->stmt[i], NULL) != SQLITE_OK) {
			triage_seterr(
			    err, errsize, "database: triage statement %d: %s", i, sqlite3_errmsg(conn));
			triage_close(t);
			return NULL;
		}
	}
	return t;
}

void triage_close(struct triage *t)
{
	int i;

	if (t == NULL)
		return;
	for (i = 0; i < T_COUNT; i++)
		sqlite3_finalize(t->stmt[i]);
	free(t);
}

/* ---- storing: a mismatch joins its bucket ---- */

static int triage_event(struct triage *t, int64_t bucket_id, const char *by, const char *action,
    const char *changes, int64_t run_id, int64_t comparison_id, char *err, size_t errsize)
{
	sqlite3_stmt *st = triage_stmt(t, T_EVENT_INSERT);

	sqlite3_bind_int64(st, 1, bucket_id);
	triage_bind_text(st, 2, by);
	triage_bind_text(st, 3, action);
	triage_bind_text(st, 4, changes);
	triage_bind_id(st, 5, run_id);
	triage_bind_id(st, 6, comparison_id);
	return triage_exec(t, st, "triage event", err, errsize);
}

int triage_record(struct triage *t, long flags, const struct result res[MAX_BUILDS], unsigned diff,
    int64_t run_id, int64_t comparison_id, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int64_t bucket_id, mark_cmp, mark_run;
	int fixed, reappeared, rc;
	char *key, changes[128];

	if ((key = bucket_key(flags, res, diff)) == NULL) {
		triage_seterr(err, errsize, "triage: out of memory");
		return -1;
	}
	st = triage_stmt(t, T_BUCKET_UPSERT);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, comparison_id);
	triage_bind_id(st, 3, run_id);
	rc = sqlite3_step(st);
	free(key);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return triage_fail(t, "store bucket", err, errsize);
	}
	bucket_id = sqlite3_column_int64(st, 0);
	fixed = strcmp((const char *)sqlite3_column_text(st, 1), "fixed") == 0;
	mark_cmp = sqlite3_column_int64(st, 2);
	mark_run = sqlite3_column_int64(st, 3);
	reappeared = sqlite3_column_type(st, 4) != SQLITE_NULL;
	sqlite3_reset(st);

	st = triage_stmt(t, T_BUCKET_RUN_UPSERT);
	sqlite3_bind_int64(st, 1, run_id > 0 ? run_id : 0);
	sqlite3_bind_int64(st, 2, bucket_id);
	sqlite3_bind_int64(st, 3, comparison_id);
	if (triage_exec(t, st, "store bucket run", err, errsize) < 0)
		return -1;
	st = triage_stmt(t, T_COMPARISON_BUCKET);
	sqlite3_bind_int64(st, 1, comparison_id);
	sqlite3_bind_int64(st, 2, bucket_id);
	if (triage_exec(t, st, "bucket of comparison", err, errsize) < 0)
		return -1;

	/* Fixed, and here it is again: in a run started after it was marked, or submitted since. */
	if (fixed && !reappeared && comparison_id > mark_cmp && (run_id <= 0 || run_id > mark_run)) {
		st = triage_stmt(t, T_REAPPEARED);
		sqlite3_bind_int64(st, 1, bucket_id);
		sqlite3_bind_int64(st, 2, comparison_id);
		triage_bind_id(st, 3, run_id);
		if (triage_exec(t, st, "reappeared", err, errsize) < 0)
			return -1;
		if (run_id > 0)
			snprintf(changes, sizeof changes,
			    "{\"reappeared\":{\"comparison_id\":%" PRId64 ",\"run_id\":%" PRId64 "}}",
			    comparison_id, run_id);
		else
			snprintf(changes, sizeof changes,
			    "{\"reappeared\":{\"comparison_id\":%" PRId64 ",\"run_id\":null}}",
			    comparison_id);
		if (triage_event(t, bucket_id, TRIAGE_SYSTEM, "reappeared", changes, run_id, comparison_id,
		        err, errsize) < 0)
			return -1;
	}
	return 0;
}

/* Read one build's stored result (the columns of T_RESULTS) for a bucket key. */
static int triage_read_result(sqlite3_stmt *st, struct result res[MAX_BUILDS])
{
	const char *role = (const char *)sqlite3_column_text(st, 0);
	const char *status = (const char *)sqlite3_column_text(st, 1);
	struct result *r;
	int i, s;

	if (role == NULL || status == NULL)
		return -1;
	i = strcmp(role, "base") == 0 ? ROLE_BASE : strcmp(role, "head") == 0 ? ROLE_HEAD : -1;
	if (i < 0)
		return -1;
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
static int triage_backfill_one(
    struct triage *t, int64_t id, int64_t run_id, long flags, char *err, size_t errsize)
{
	struct result res[MAX_BUILDS];
	sqlite3_stmt *st;
	unsigned diff;
	int role, rc, n = 0;

	for (role = 0; role < MAX_BUILDS; role++)
		result_init(&res[role]);
	st = triage_stmt(t, T_RESULTS);
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		n += triage_read_result(st, res) == 0;
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		rc = triage_fail(t, "read results", err, errsize);
	} else if (n != MAX_BUILDS || (diff = verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD])) == 0) {
		rc = 0; /* incomplete or no longer a difference: leave it out of buckets */
	} else {
		rc = triage_record(t, flags, res, diff, run_id, id, err, errsize);
	}
	for (role = 0; role < MAX_BUILDS; role++)
		result_release(&res[role]);
	return rc;
}

int triage_backfill(struct triage *t, char *err, size_t errsize)
{
	struct {
		int64_t id, run_id;
		long flags;
	} batch[TRIAGE_BACKFILL_BATCH];
	int64_t after = 0, total = 0;
	sqlite3_stmt *st;
	int n, i, rc;

	for (;;) {
		if (sqlite3_exec(t->conn, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
			return triage_fail(t, "backfill buckets", err, errsize);
		st = triage_stmt(t, T_UNBUCKETED);
		sqlite3_bind_int64(st, 1, after);
		sqlite3_bind_int(st, 2, TRIAGE_BACKFILL_BATCH);
		for (n = 0; n < TRIAGE_BACKFILL_BATCH && (rc = sqlite3_step(st)) == SQLITE_ROW; n++) {
			batch[n].id = sqlite3_column_int64(st, 0);
			batch[n].run_id = sqlite3_column_int64(st, 1);
			batch[n].flags = (long)sqlite3_column_int64(st, 2);
		}
		sqlite3_reset(st);
		for (i = 0; i < n; i++)
			if (triage_backfill_one(
			        t, batch[i].id, batch[i].run_id, batch[i].flags, err, errsize) < 0)
				break;
		if (i < n || sqlite3_exec(t->conn, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
			if (i == n)
				triage_fail(t, "backfill buckets", err, errsize);
			sqlite3_exec(t->conn, "ROLLBACK", NULL, NULL, NULL);
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

/* ---- JSON ---- */

/* Text from the database (any bytes) as JSON: itself when UTF-8, else \xNN for bad bytes. */
static json_t *triage_text(const char *s)
{
	json_t *j;
	char *buf;
	size_t i, o = 0, n;

	if (s == NULL)
		return json_null();
	if ((j = json_string(s)) != NULL)
		return j;
	n = strlen(s);
	if ((buf = malloc(n * 4 + 1)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80)
			buf[o++] = (char)c;
		else
			o += (size_t)sprintf(buf + o, "\\x%02x", c);
	}
	buf[o] = '\0';
	j = json_string(buf);
	free(buf);
	return j;
}

static json_t *triage_col_text(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL
	    ? json_null()
	    : triage_text((const char *)sqlite3_column_text(st, i));
}

static json_t *triage_col_id(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL || sqlite3_column_int64(st, i) <= 0
	    ? json_null()
	    : json_integer(sqlite3_column_int64(st, i));
}

static json_t *triage_flag_names(long flags)
{
	json_t *a = json_array();
	const char *name;
	long value;
	size_t i;

	for (i = 0; a != NULL && (name = flags_name_at(i, &value)) != NULL; i++)
		if (value != 0 && (flags & value) == value)
			json_array_append_new(a, json_string(name));
	return a;
}

/* A bucket row (BUCKET_COLUMNS) as JSON. */
static json_t *triage_bucket_json(sqlite3_stmt *st)
{
	int64_t id = sqlite3_column_int64(st, 0);
	char url[64], api_url[64];
	json_t *o, *key;

	snprintf(url, sizeof url, "/#/buckets/%" PRId64, id);
	snprintf(api_url, sizeof api_url, "/api/buckets/%" PRId64, id);
	key = json_loads((const char *)sqlite3_column_text(st, 1), 0, NULL);
	o = json_pack("{s:I s:s s:s s:o s:o s:o s:o s:I}", "id", (json_int_t)id, "url", url, "api_url",
	    api_url, "key", key != NULL ? key : json_null(), "state", triage_col_text(st, 2), "assignee",
	    triage_col_text(st, 3), "notes", triage_col_text(st, 4), "mismatches",
	    (json_int_t)sqlite3_column_int64(st, 5));
	if (o == NULL)
		return NULL;
	json_object_set_new(o, "representative",
	    json_pack("{s:o s:I s:o}", "case_id", triage_col_id(st, 17), "comparison_id",
	        (json_int_t)sqlite3_column_int64(st, 6), "title", triage_col_text(st, 18)));
	json_object_set_new(o, "first_seen",
	    json_pack("{s:o s:o s:I}", "run_id", triage_col_id(st, 8), "at", triage_col_text(st, 10),
	        "comparison_id", (json_int_t)sqlite3_column_int64(st, 6)));
	json_object_set_new(o, "last_seen",
	    json_pack("{s:o s:o s:I}", "run_id", triage_col_id(st, 9), "at", triage_col_text(st, 11),
	        "comparison_id", (json_int_t)sqlite3_column_int64(st, 7)));
	json_object_set_new(o, "updated_at", triage_col_text(st, 12));
	json_object_set_new(o, "updated_by", triage_col_text(st, 13));
	json_object_set_new(o, "reappeared",
	    sqlite3_column_type(st, 14) == SQLITE_NULL
	        ? json_null()
	        : json_pack("{s:I s:o s:o}", "comparison_id", (json_int_t)sqlite3_column_int64(st, 14),
	              "run_id", triage_col_id(st, 15), "at", triage_col_text(st, 16)));
	return o;
}

static json_t *triage_event_json(sqlite3_stmt *st)
{
	json_t *changes = json_loads((const char *)sqlite3_column_text(st, 5), 0, NULL);

	return json_pack("{s:I s:I s:o s:o s:o s:o s:o s:o}", "id", (json_int_t)sqlite3_column_int64(st, 0),
	    "bucket_id", (json_int_t)sqlite3_column_int64(st, 1), "at", triage_col_text(st, 2), "by",
	    triage_col_text(st, 3), "action", triage_col_text(st, 4), "changes",
	    changes != NULL ? changes : json_object(), "run_id", triage_col_id(st, 6), "comparison_id",
	    triage_col_id(st, 7));
}

/* ---- requests ---- */

static void triage_internal(struct http_response *resp, const char *err)
{
	api_error(resp, 500, "internal", "%s", err);
}

/* A decimal 1..INT64_MAX (0 when not), from a query value. */
static int64_t triage_parse_id(const char *s)
{
	int64_t v = 0;
	size_t i;

	if (s == NULL || *s == '\0' || strlen(s) > 19)
		return 0;
	for (i = 0; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - (s[i] - '0')) / 10)
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int triage_limit(const struct http_request *req, int *limit, struct http_response *resp)
{
	const char *v = http_query(req, "limit");
	int64_t n;

	*limit = TRIAGE_DEFAULT_LIMIT;
	if (v == NULL)
		return 0;
	n = triage_parse_id(v);
	if (n < 1 || n > TRIAGE_MAX_LIMIT) {
		api_error(resp, 400, "bad_request", "limit: expected an integer 1 .. %d", TRIAGE_MAX_LIMIT);
		return -1;
	}
	*limit = (int)n;
	return 0;
}

/* ?before=ID: 0 when absent, -1 after answering 400. */
static int64_t triage_before(const struct http_request *req, struct http_response *resp)
{
	const char *v = http_query(req, "before");
	int64_t n;

	if (v == NULL)
		return 0;
	if ((n = triage_parse_id(v)) < 1) {
		api_error(resp, 400, "bad_request", "before: expected a positive integer id");
		return -1;
	}
	return n;
}

/* ?run=ID or ?run=submitted: *run (0 submitted), 1 given, 0 absent, -1 after answering. */
static int triage_run_param(
    struct triage *t, const struct http_request *req, int64_t *run, struct http_response *resp)
{
	const char *v = http_query(req, "run");
	sqlite3_stmt *st;
	int rc;

	*run = -1;
	if (v == NULL)
		return 0;
	if (strcmp(v, "submitted") == 0) {
		*run = 0;
		return 1;
	}
	if ((*run = triage_parse_id(v)) < 1) {
		api_error(resp, 400, "bad_request", "run: expected a run id or \"submitted\"");
		return -1;
	}
	st = triage_stmt(t, T_RUN_EXISTS);
	sqlite3_bind_int64(st, 1, *run);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE) {
		api_error(resp, 404, "not_found", "no run %" PRId64, *run);
		return -1;
	}
	if (rc != SQLITE_ROW) {
		api_error(resp, 500, "internal", "database: find run: %s", sqlite3_errmsg(t->conn));
		return -1;
	}
	return 1;
}

/*
 * ?state=new,confirmed (any of the five), or "open" (new, confirmed, or
 * fixed and reappeared), or "reappeared".  Into the ?9/?10 parameters of
 * STATE_FILTER; -1 after answering.
 */
static int triage_state_filter(
    const struct http_request *req, char *set, size_t setsize, int *special, struct http_response *resp)
{
	const char *v = http_query(req, "state"), *p, *q;
	size_t n, i;

	set[0] = '\0';
	*special = 0;
	if (v == NULL || *v == '\0')
		return 0;
	if (strcmp(v, "open") == 0) {
		*special = 2;
		return 0;
	}
	if (strcmp(v, "reappeared") == 0) {
		*special = 1;
		return 0;
	}
	snprintf(set, setsize, ",");
	for (p = v; *p != '\0'; p = *q != '\0' ? q + 1 : q) {
		q = p + strcspn(p, ",");
		n = (size_t)(q - p);
		for (i = 0; triage_states[i] != NULL; i++)
			if (strlen(triage_states[i]) == n && strncmp(triage_states[i], p, n) == 0)
				break;
		if (triage_states[i] == NULL) {
			api_error(resp, 400, "bad_request",
			    "state: \"%.*s\" is not one of new, confirmed, expected, "
			    "ignored, fixed (or open, reappeared)",
			    (int)(n < 32 ? n : 32), p);
			return -1;
		}
		if (strlen(set) + n + 2 < setsize)
			strcat(strncat(set, p, n), ",");
	}
	return 0;
}

/* {"new":{"buckets":n,"mismatches":m},...,"reappeared":{"buckets":k}} */
static json_t *triage_counts(struct triage *t, int64_t run, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	json_t *o = json_object();
	int64_t reappeared = 0;
	int rc, i;

	for (i = 0; o != NULL && triage_states[i] != NULL; i++)
		json_object_set_new(
		    o, triage_states[i], json_pack("{s:i s:i}", "buckets", 0, "mismatches", 0));
	if (run >= 0) {
		st = triage_stmt(t, T_RUN_STATE_COUNTS);
		sqlite3_bind_int64(st, 1, run);
	} else {
		st = triage_stmt(t, T_STATE_COUNTS);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_object_set_new(o, (const char *)sqlite3_column_text(st, 0),
		    json_pack("{s:I s:I}", "buckets", (json_int_t)sqlite3_column_int64(st, 1), "mismatches",
		        (json_int_t)sqlite3_column_int64(st, 2)));
		reappeared += sqlite3_column_int64(st, 3);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		json_decref(o);
		triage_fail(t, "count buckets", err, errsize);
		return NULL;
	}
	json_object_set_new(o, "reappeared", json_pack("{s:I}", "buckets", (json_int_t)reappeared));
	return o;
}

void triage_buckets(struct app *app, const struct http_request *req, struct http_response *resp)
{
	struct triage *t;
	sqlite3_stmt *st;
	char set[96], err[512], next[256], cursor[64] = ""; /* "" when no row: next is null then */
	const char *cur = http_query(req, "cursor");
	int64_t run, c_count = INT64_MAX, c_id = INT64_MAX;
	int limit, special, has_run, rc, n = 0;
	json_t *list = NULL, *o, *counts = NULL;

	if (triage_limit(req, &limit, resp) < 0 ||
	    triage_state_filter(req, set, sizeof set, &special, resp) < 0)
		return;
	if (cur != NULL) {
		/* Opaque to clients (they follow "next"): "ID" or "COUNT.ID" for a run's listing. */
		const char *dot = strchr(cur, '.');
		char head[24];
		if (dot != NULL && (size_t)(dot - cur) < sizeof head) {
			memcpy(head, cur, (size_t)(dot - cur));
			head[dot - cur] = '\0';
			c_count = triage_parse_id(head);
			c_id = triage_parse_id(dot + 1);
		} else {
			c_id = triage_parse_id(cur);
		}
		if (c_id < 1 || (dot != NULL && c_count < 1)) {
			api_error(
			    resp, 400, "bad_request", "cursor: not a cursor this API gave (follow \"next\")");
			return;
		}
	}
	t = db_triage_lock(app->db);
	if ((has_run = triage_run_param(t, req, &run, resp)) < 0)
		goto out;
	if ((list = json_array()) == NULL)
		goto oom;
	if (has_run) {
		st = triage_stmt(t, T_RUN_BUCKETS_LIST);
		sqlite3_bind_int64(st, 3, run);
		sqlite3_bind_int64(st, 4, c_count);
		sqlite3_bind_int64(st, 5, c_id);
	} else {
		st = triage_stmt(t, T_BUCKETS_LIST);
		sqlite3_bind_int64(st, 1, c_id);
	}
	sqlite3_bind_int(st, 2, limit + 1);
	sqlite3_bind_text(st, 9, set, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 10, special);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == limit)
			break;
		if ((o = triage_bucket_json(st)) == NULL)
			goto oom_reset;
		if (has_run) {
			int k = NBUCKET_COLUMNS;
			json_object_set_new(o, "run",
			    json_pack("{s:o s:I s:o}", "id", run > 0 ? json_integer(run) : json_null(),
			        "mismatches", (json_int_t)sqlite3_column_int64(st, k), "representative",
			        json_pack("{s:o s:I s:o}", "case_id", triage_col_id(st, k + 2),
			            "comparison_id", (json_int_t)sqlite3_column_int64(st, k + 1), "title",
			            triage_col_text(st, k + 3))));
			json_object_set_new(o, "earlier_runs", json_integer(sqlite3_column_int64(st, k + 4)));
			snprintf(cursor, sizeof cursor, "%" PRId64 ".%" PRId64,
			    (int64_t)sqlite3_column_int64(st, k), (int64_t)sqlite3_column_int64(st, 0));
		} else {
			snprintf(cursor, sizeof cursor, "%" PRId64, (int64_t)sqlite3_column_int64(st, 7));
		}
		json_array_append_new(list, o);
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		triage_fail(t, "list buckets", err, sizeof err);
		goto fail;
	}
	if ((counts = triage_counts(t, has_run ? run : -1, err, sizeof err)) == NULL)
		goto fail;
	db_triage_unlock(app->db);
	snprintf(next, sizeof next, "/api/buckets?");
	/* The state filter as given: checked above to be names and commas only. */
	if (http_query(req, "state") != NULL && *http_query(req, "state") != '\0')
		snprintf(next + strlen(next), sizeof next - strlen(next), "state=%.80s&",
		    http_query(req, "state"));
	if (has_run && run > 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=%" PRId64 "&", run);
	else if (has_run)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=submitted&");
	snprintf(next + strlen(next), sizeof next - strlen(next), "limit=%d&cursor=%s", limit, cursor);
	api_json(resp, 200,
	    json_pack("{s:o s:o s:o}", "buckets", list, "counts", counts, "next",
	        rc == SQLITE_ROW ? json_string(next) : json_null()));
	return;
oom_reset:
	sqlite3_reset(st);
oom:
	snprintf(err, sizeof err, "out of memory");
fail:
	json_decref(list);
	triage_internal(resp, err);
out:
	db_triage_unlock(app->db);
}

/* The bucket with its runs and audit trail; NULL with err (0 in *found when there is none). */
static json_t *triage_bucket_full(struct triage *t, int64_t id, int *found, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	json_t *o, *runs, *events;
	int rc;

	*found = 0;
	st = triage_stmt(t, T_BUCKET_GET);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			triage_fail(t, "read bucket", err, errsize);
		return NULL;
	}
	*found = 1;
	o = triage_bucket_json(st);
	sqlite3_reset(st);
	runs = json_array();
	events = json_array();
	if (o == NULL || runs == NULL || events == NULL)
		goto oom;
	json_object_set_new(o, "runs", runs);
	json_object_set_new(o, "events", events);
	st = triage_stmt(t, T_BUCKET_RUNS);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, TRIAGE_DETAIL_MAX);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(runs,
		    json_pack("{s:o s:I s:I s:o}", "run_id", triage_col_id(st, 0), "mismatches",
		        (json_int_t)sqlite3_column_int64(st, 1), "first_comparison_id",
		        (json_int_t)sqlite3_column_int64(st, 2), "run_created_at", triage_col_text(st, 3)));
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		goto dbfail;
	st = triage_stmt(t, T_EVENTS_BUCKET);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, INT64_MAX);
	sqlite3_bind_int(st, 3, TRIAGE_DETAIL_MAX);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		json_array_append_new(events, triage_event_json(st));
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		goto dbfail;
	return o;
dbfail:
	json_decref(o);
	triage_fail(t, "read bucket", err, errsize);
	return NULL;
oom:
	json_decref(o);
	json_decref(runs);
	json_decref(events);
	triage_seterr(err, errsize, "out of memory");
	return NULL;
}

void triage_bucket(struct app *app, int64_t id, struct http_response *resp)
{
	char err[512] = "";
	int found;
	json_t *o;

	o = triage_bucket_full(db_triage_lock(app->db), id, &found, err, sizeof err);
	db_triage_unlock(app->db);
	if (o != NULL)
		api_json(resp, 200, o);
	else if (!found && err[0] == '\0')
		api_error(resp, 404, "not_found", "no bucket %" PRId64, id);
	else
		triage_internal(resp, err);
}

void triage_mismatches(
    struct app *app, int64_t id, const struct http_request *req, struct http_response *resp)
{
	struct triage *t;
	sqlite3_stmt *st;
	char err[512] = "", next[160];
	int64_t before, run, last = 0;
	int limit, has_run, rc, n = 0;
	json_t *list = NULL, *b;

	if (triage_limit(req, &limit, resp) < 0 || (before = triage_before(req, resp)) < 0)
		return;
	t = db_triage_lock(app->db);
	if ((has_run = triage_run_param(t, req, &run, resp)) < 0)
		goto out;
	/* The bucket must exist (404 otherwise). */
	st = triage_stmt(t, T_BUCKET_CURRENT);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			api_error(resp, 404, "not_found", "no bucket %" PRId64, id);
		else
			api_error(
			    resp, 500, "internal", "database: read bucket: %s", sqlite3_errmsg(t->conn));
		goto out;
	}
	if ((list = json_array()) == NULL)
		goto oom;
	st = triage_stmt(t, has_run ? T_MISMATCHES_RUN : T_MISMATCHES);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, before > 0 ? before : INT64_MAX);
	sqlite3_bind_int(st, 3, limit + 1);
	if (has_run)
		triage_bind_id(st, 4, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == limit)
			break;
		long flags = (long)sqlite3_column_int64(st, 6);
		char url[64];
		last = sqlite3_column_int64(st, 0);
		snprintf(url, sizeof url, "/#/cases/%" PRId64 "?comparison=%" PRId64,
		    (int64_t)sqlite3_column_int64(st, 1), last);
		b = json_pack("{s:I s:I s:o s:o s:o s:o s:I s:o s:o s:s}", "comparison_id", (json_int_t)last,
		    "case_id", (json_int_t)sqlite3_column_int64(st, 1), "run_id", triage_col_id(st, 2),
		    "differs", triage_col_text(st, 3), "created_at", triage_col_text(st, 4), "title",
		    triage_col_text(st, 5), "flags", (json_int_t)flags, "flag_names",
		    triage_flag_names(flags), "file", triage_col_text(st, 7), "url", url);
		if (b == NULL) {
			sqlite3_reset(st);
			goto oom;
		}
		/* differs as a list, like the case listings */
		json_t *d = json_object_get(b, "differs"), *dl = json_array();
		const char *p = json_is_string(d) ? json_string_value(d) : "", *q;
		for (; dl != NULL && *p != '\0'; p = *q != '\0' ? q + 1 : q) {
			q = p + strcspn(p, ",");
			json_array_append_new(dl, json_stringn(p, (size_t)(q - p)));
		}
		json_object_set_new(b, "differs", dl != NULL ? dl : json_array());
		json_array_append_new(list, b);
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		triage_fail(t, "list mismatches", err, sizeof err);
		json_decref(list);
		triage_internal(resp, err);
		goto out;
	}
	db_triage_unlock(app->db);
	snprintf(next, sizeof next, "/api/buckets/%" PRId64 "/mismatches?", id);
	if (has_run && run > 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=%" PRId64 "&", run);
	else if (has_run)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=submitted&");
	snprintf(next + strlen(next), sizeof next - strlen(next), "limit=%d&before=%" PRId64, limit, last);
	api_json(resp, 200,
	    json_pack(
	        "{s:o s:o}", "mismatches", list, "next", rc == SQLITE_ROW ? json_string(next) : json_null()));
	return;
oom:
	json_decref(list);
	triage_internal(resp, "out of memory");
out:
	db_triage_unlock(app->db);
}

void triage_events(struct app *app, const struct http_request *req, struct http_response *resp)
{
	struct triage *t;
	sqlite3_stmt *st;
	char err[512], next[160];
	const char *bv = http_query(req, "bucket");
	int64_t before, bucket = 0, last = 0;
	int limit, rc, n = 0;
	json_t *list;

	if (triage_limit(req, &limit, resp) < 0 || (before = triage_before(req, resp)) < 0)
		return;
	if (bv != NULL && (bucket = triage_parse_id(bv)) < 1) {
		api_error(resp, 400, "bad_request", "bucket: expected a positive integer id");
		return;
	}
	if ((list = json_array()) == NULL) {
		triage_internal(resp, "out of memory");
		return;
	}
	t = db_triage_lock(app->db);
	st = triage_stmt(t, bucket > 0 ? T_EVENTS_BUCKET : T_EVENTS_ALL);
	if (bucket > 0)
		sqlite3_bind_int64(st, 1, bucket);
	sqlite3_bind_int64(st, 2, before > 0 ? before : INT64_MAX);
	sqlite3_bind_int(st, 3, limit + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < limit) {
		last = sqlite3_column_int64(st, 0);
		json_array_append_new(list, triage_event_json(st));
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		triage_fail(t, "list triage events", err, sizeof err);
		db_triage_unlock(app->db);
		json_decref(list);
		triage_internal(resp, err);
		return;
	}
	db_triage_unlock(app->db);
	snprintf(next, sizeof next, "/api/triage/events?");
	if (bucket > 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "bucket=%" PRId64 "&", bucket);
	snprintf(next + strlen(next), sizeof next - strlen(next), "limit=%d&before=%" PRId64, limit, last);
	api_json(resp, 200,
	    json_pack(
	        "{s:o s:o}", "events", list, "next", rc == SQLITE_ROW ? json_string(next) : json_null()));
}

json_t *triage_case_bucket(struct app *app, int64_t comparison_id)
{
	struct triage *t = db_triage_lock(app->db);
	sqlite3_stmt *st = triage_stmt(t, T_BUCKET_OF_COMPARISON);
	json_t *o = NULL;

	sqlite3_bind_int64(st, 1, comparison_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		o = triage_bucket_json(st);
	sqlite3_reset(st);
	db_triage_unlock(app->db);
	return o != NULL ? o : json_null();
}

/* ---- changing triage ---- */

/*
 * A person's name ("by", "assignee"): 1..TRIAGE_NAME_MAX bytes of UTF-8
 * without control characters, trimmed.  0 with out filled, -1 after
 * answering 400.
 */
static int triage_name(json_t *v, const char *field, char *out, size_t outsize, struct http_response *resp)
{
	const char *s;
	size_t n, i;

	if (!json_is_string(v)) {
		api_error(resp, 400, "bad_request", "%s: expected a person's name (a string)", field);
		return -1;
	}
	s = json_string_value(v);
	n = json_string_length(v);
	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0) {
		api_error(resp, 400, "bad_request", "%s: must not be empty", field);
		return -1;
	}
	if (n > TRIAGE_NAME_MAX || n >= outsize) {
		api_error(resp, 400, "bad_request", "%s: at most %d bytes", field, TRIAGE_NAME_MAX);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			api_error(resp, 400, "bad_request", "%s: must not contain control characters", field);
			return -1;
		}
	}
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

/*
 * Who is making this request: the one place that answers it.  A request
 * with an API token (auth.c put its owner in req->who) is that person; "by",
 * when sent too, must name the same one.  Without a token (writes are open
 * on loopback until a token exists) the body's "by" names the person and is
 * required.  0 with who filled, -1 after answering 400.
 */
int triage_who(
    const struct http_request *req, json_t *body, char *who, size_t whosize, struct http_response *resp)
{
	json_t *by = json_object_get(body, "by");
	char named[TRIAGE_NAME_MAX + 1];

	if (req->who != NULL && req->who->name[0] != '\0') {
		if (by != NULL && !json_is_null(by)) {
			if (triage_name(by, "by", named, sizeof named, resp) < 0)
				return -1;
			if (strcmp(named, req->who->name) != 0) {
				api_error(resp, 400, "bad_request",
				    "by: \"%s\" is not the token's owner \"%s\"", named, req->who->name);
				return -1;
			}
		}
		snprintf(who, whosize, "%s", req->who->name);
		return 0;
	}
	if (by == NULL || json_is_null(by)) {
		api_error(
		    resp, 400, "bad_request", "by: required: the person making the change (e.g. \"alice\")");
		return -1;
	}
	return triage_name(by, "by", who, whosize, resp);
}

/* A wanted change, checked; what each field becomes ("" assignee clears it). */
struct triage_change {
	const char *state; /* NULL: unchanged */
	int set_assignee;
	char assignee[TRIAGE_NAME_MAX + 1]; /* "" clears */
	const char *notes;                  /* NULL: unchanged */
	char by[TRIAGE_NAME_MAX + 1];
};

static int triage_parse_change(const struct http_request *req, json_t *body, int bulk,
    struct triage_change *ch, struct http_response *resp)
{
	static const char *const known[] = { "by", "state", "assignee", "notes", "ids", NULL };
	const char *key;
	json_t *v;
	size_t i;

	memset(ch, 0, sizeof *ch);
	json_object_foreach(body, key, v)
	{
		for (i = 0; known[i] != NULL; i++)
			if (strcmp(key, known[i]) == 0)
				break;
		if (known[i] == NULL || (!bulk && strcmp(key, "ids") == 0)) {
			api_error(resp, 400, "bad_request", "unknown field \"%.64s\"", key);
			return -1;
		}
	}
	if (triage_who(req, body, ch->by, sizeof ch->by, resp) < 0)
		return -1;
	if ((v = json_object_get(body, "state")) != NULL) {
		if (json_is_string(v))
			for (i = 0; triage_states[i] != NULL; i++)
				if (strcmp(json_string_value(v), triage_states[i]) == 0)
					ch->state = triage_states[i];
		if (ch->state == NULL) {
			api_error(resp, 400, "bad_request",
			    "state: expected one of new, confirmed, expected, ignored, fixed");
			return -1;
		}
	}
	if ((v = json_object_get(body, "assignee")) != NULL) {
		ch->set_assignee = 1;
		if (!json_is_null(v) && !(json_is_string(v) && json_string_length(v) == 0) &&
		    triage_name(v, "assignee", ch->assignee, sizeof ch->assignee, resp) < 0)
			return -1;
	}
	if ((v = json_object_get(body, "notes")) != NULL) {
		if (!json_is_string(v)) {
			api_error(resp, 400, "bad_request", "notes: expected a string");
			return -1;
		}
		if (json_string_length(v) > TRIAGE_NOTES_MAX) {
			api_error(resp, 400, "bad_request", "notes: at most %d bytes", TRIAGE_NOTES_MAX);
			return -1;
		}
		if (strlen(json_string_value(v)) != json_string_length(v)) {
			api_error(resp, 400, "bad_request", "notes: must not contain NUL bytes");
			return -1;
		}
		ch->notes = json_string_value(v);
	}
	if (ch->state == NULL && !ch->set_assignee && ch->notes == NULL) {
		api_error(resp, 400, "bad_request", "nothing to change: give state, assignee or notes");
		return -1;
	}
	return 0;
}

static json_t *triage_pair(const char *from, const char *to)
{
	return json_pack("[o o]", from != NULL ? triage_text(from) : json_null(),
	    to != NULL ? triage_text(to) : json_null());
}

/*
 * Apply a change to one bucket (inside the caller's transaction): 1 changed
 * (an audit entry written), 0 nothing to change, -2 no such bucket, -1.
 */
static int triage_apply(
    struct triage *t, int64_t id, const struct triage_change *ch, char *err, size_t errsize)
{
	sqlite3_stmt *st = triage_stmt(t, T_BUCKET_CURRENT);
	char *state = NULL, *assignee = NULL, *notes = NULL, *text = NULL;
	const char *new_state, *new_assignee, *new_notes;
	int reappeared, rc, rearm, changed;
	json_t *changes = NULL;

	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? -2 : triage_fail(t, "read bucket", err, errsize);
	}
	state = strdup((const char *)sqlite3_column_text(st, 0));
	assignee = sqlite3_column_type(st, 1) == SQLITE_NULL
	    ? NULL
	    : strdup((const char *)sqlite3_column_text(st, 1));
	notes = strdup((const char *)sqlite3_column_text(st, 2));
	reappeared = sqlite3_column_type(st, 3) != SQLITE_NULL;
	sqlite3_reset(st);
	if (state == NULL || notes == NULL || (changes = json_object()) == NULL) {
		rc = -1;
		triage_seterr(err, errsize, "out of memory");
		goto out;
	}
	new_state = ch->state != NULL ? ch->state : state;
	new_assignee = ch->set_assignee ? (ch->assignee[0] != '\0' ? ch->assignee : NULL) : assignee;
	new_notes = ch->notes != NULL ? ch->notes : notes;
	/* Setting a state, even the same one, answers a reappearance (and re-arms fixed). */
	rearm = ch->state != NULL && (strcmp(new_state, state) != 0 || reappeared);
	if (rearm)
		json_object_set_new(changes, "state", triage_pair(state, new_state));
	if ((new_assignee == NULL) != (assignee == NULL) ||
	    (new_assignee != NULL && strcmp(new_assignee, assignee) != 0))
		json_object_set_new(changes, "assignee", triage_pair(assignee, new_assignee));
	if (strcmp(new_notes, notes) != 0)
		json_object_set_new(changes, "notes", triage_pair(notes, new_notes));
	if (rearm && reappeared)
		json_object_set_new(changes, "reappeared", json_false());
	changed = json_object_size(changes) > 0;
	if (!changed) {
		rc = 0;
		goto out;
	}
	st = triage_stmt(t, T_BUCKET_WRITE);
	sqlite3_bind_int64(st, 1, id);
	triage_bind_text(st, 2, new_state);
	triage_bind_text(st, 3, new_assignee);
	triage_bind_text(st, 4, new_notes);
	triage_bind_text(st, 5, ch->by);
	sqlite3_bind_int(st, 6, rearm && strcmp(new_state, "fixed") == 0);
	sqlite3_bind_int(st, 7, rearm);
	if (triage_exec(t, st, "triage bucket", err, errsize) < 0) {
		rc = -1;
		goto out;
	}
	if ((text = json_dumps(changes, JSON_COMPACT | JSON_SORT_KEYS)) == NULL) {
		rc = -1;
		triage_seterr(err, errsize, "out of memory");
		goto out;
	}
	rc = triage_event(t, id, ch->by, "triage", text, 0, 0, err, errsize) < 0 ? -1 : 1;
out:
	json_decref(changes);
	free(text);
	free(state);
	free(assignee);
	free(notes);
	return rc;
}

/* The ids of a bulk change: 1..TRIAGE_MAX_IDS positive integers (duplicates once). */
static int64_t *triage_ids(json_t *body, size_t *n, struct http_response *resp)
{
	json_t *v = json_object_get(body, "ids"), *item;
	int64_t *ids;
	size_t i, j, k = 0;

	if (v == NULL || !json_is_array(v) || json_array_size(v) == 0 ||
	    json_array_size(v) > TRIAGE_MAX_IDS) {
		api_error(
		    resp, 400, "bad_request", "ids: required: a list of 1 .. %d bucket ids", TRIAGE_MAX_IDS);
		return NULL;
	}
	if ((ids = malloc(json_array_size(v) * sizeof *ids)) == NULL) {
		api_error(resp, 500, "internal", "out of memory");
		return NULL;
	}
	json_array_foreach(v, i, item)
	{
		if (!json_is_integer(item) || json_integer_value(item) < 1) {
			api_error(
			    resp, 400, "bad_request", "ids[%zu]: expected a positive integer bucket id", i);
			free(ids);
			return NULL;
		}
		for (j = 0; j < k && ids[j] != json_integer_value(item); j++)
			;
		if (j == k)
			ids[k++] = json_integer_value(item);
	}
	*n = k;
	return ids;
}

void triage_post(struct app *app, int64_t id, const struct http_request *req, struct http_response *resp)
{
	struct triage_change ch;
	struct triage *t;
	char err[512] = "";
	int64_t *ids = NULL, one = id;
	size_t n = 1, i;
	int rc = 0, changed = 0, found;
	json_t *body, *o, *list;

	if ((body = api_body(req, resp)) == NULL)
		return;
	if (triage_parse_change(req, body, id == 0, &ch, resp) < 0)
		goto out;
	if (id == 0) {
		if ((ids = triage_ids(body, &n, resp)) == NULL)
			goto out;
	} else {
		ids = &one;
	}
	t = db_triage_lock(app->db);
	if (sqlite3_exec(t->conn, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		triage_fail(t, "begin", err, sizeof err);
		db_triage_unlock(app->db);
		triage_internal(resp, err);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if ((rc = triage_apply(t, ids[i], &ch, err, sizeof err)) < 0)
			break;
		changed += rc;
	}
	if (rc < 0 || sqlite3_exec(t->conn, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		if (rc >= 0)
			triage_fail(t, "commit", err, sizeof err);
		sqlite3_exec(t->conn, "ROLLBACK", NULL, NULL, NULL);
		db_triage_unlock(app->db);
		if (rc == -2)
			api_error(resp, 404, "not_found", "no bucket %" PRId64 "%s", ids[i],
			    n > 1 ? " (nothing was changed)" : "");
		else
			triage_internal(resp, err);
		goto out;
	}
	if (id > 0) {
		o = triage_bucket_full(t, id, &found, err, sizeof err);
		db_triage_unlock(app->db);
		if (o == NULL)
			triage_internal(resp, err[0] != '\0' ? err : "bucket vanished");
		else {
			json_object_set_new(o, "changed", json_boolean(changed > 0));
			api_json(resp, 200, o);
		}
		goto out;
	}
	/* Bulk: the changed buckets as listed (without runs and trail). */
	list = json_array();
	for (i = 0; list != NULL && i < n; i++) {
		sqlite3_stmt *st = triage_stmt(t, T_BUCKET_GET);
		sqlite3_bind_int64(st, 1, ids[i]);
		if (sqlite3_step(st) == SQLITE_ROW)
			json_array_append_new(list, triage_bucket_json(st));
		sqlite3_reset(st);
	}
	db_triage_unlock(app->db);
	api_json(resp, 200, json_pack("{s:i s:o}", "changed", changed, "buckets", list));
out:
	if (ids != &one)
		free(ids);
	json_decref(body);
}
