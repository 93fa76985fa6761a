/*
 * SQLite storage of builds, cases, comparisons, results, runs and
 * measurements, through a fixed table of prepared statements with bound
 * parameters only (the connection's life is db_open.c's; tokens and a
 * generated run's rows have files of their own).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "columns.h"
#include "db_core.h"

#define DB_HISTORY_MAX 100

enum stmt {
	S_BUILD_RECORD,
	S_RUNS_INTERRUPT,
	S_CASE_FIND,
	S_CASE_INSERT,
	S_COMPARISON_INSERT,
	S_RESULT_INSERT,
	S_RUN_PROGRESS,
	S_CASE_GET,
	S_COMPARISON_LATEST,
	S_COMPARISON_GET,
	S_RESULTS_GET,
	S_CASE_HISTORY,
	S_CASES_LIST,
	S_RUN_CASES_LIST,
	S_RUN_CASES_LIST_VERDICT,
	S_RUN_INSERT,
	S_RUN_GET,
	S_RUNS_LIST,
	S_RUN_NEXT,
	S_RUN_START,
	S_RUN_FINISH,
	S_RUN_CANCEL,
	S_RUN_MEASUREMENTS,
	S_WORKLOAD_HISTORY,
	S_DUMP_FILE,
	S_RUNS_QUEUED,
	S_RUN_RESUME,
	S_RUN_HAS_CASE,
	S_RUN_SUMMARY,
	S_RUN_CASE_ROW,
	S_RUN_BUILDS,
	S_BUILD_RUNS_PENDING,
	S_RESULT_OUTPUT,
	S_RESULT_PRINTED,
	S_DUMPS_BEYOND,
	S_DUMP_CLEAR,
	S_RUN_BROKEN,
	S_COUNT
};

/*
 * Cases are looked up and inserted with the same parameters:
 * ?1 content_hash ?2 source ?3 title ?4 code ?5 setup ?6 flags ?7 depth
 * ?8 expect ?9 iterations.
 */
#define RUN_COLUMNS                                                              \
	"r.id, r.suite, r.params, r.status, r.total, r.done, r.same, r.differ, " \
	"r.created_at, r.started_at, r.finished_at, r.error, "                   \
	"b.name, b.php_version, h.name, h.php_version, r.summary, r.errors, "    \
	"(SELECT group_concat(x, char(10)) FROM (SELECT rb.name || char(9) || "  \
	"rb.php_version AS x FROM json_each(r.builds) j JOIN builds rb "         \
	"ON rb.id = j.value ORDER BY j.key)), r.unsupported "                    \
	"FROM runs r LEFT JOIN builds b ON b.id = r.base_build_id "              \
	"LEFT JOIN builds h ON h.id = r.head_build_id "

/* A comparison's verdict as shown: "error" when the case did not compile (migration 14). */
/* ... and "unsupported" when a build could not run it and the others agree (migration 20). */
#define VERDICT_SQL                                   \
	"CASE WHEN m.error IS NOT NULL THEN 'error' " \
	"WHEN m.unsupported > 0 AND m.verdict = 'same' THEN 'unsupported' ELSE m.verdict END"

/* A reducer's minimal case: not a stored one, and its first comparison is a reduction's
 * (reductions_reduced and comparisons_case serve it). */
#define CASE_REDUCED_SQL                                                                            \
	"(c.source IS NULL AND EXISTS (SELECT 1 FROM reductions r WHERE r.reduced_comparison_id = " \
	"(SELECT min(id) FROM comparisons WHERE case_id = c.id)))"
/* ?3: 0 any, else a mask of 1 stored, 2 submitted, 4 a reducer's minimal case. */
#define CASE_SOURCE_SQL                                                                 \
	"(?3 = 0 OR (?3 & CASE WHEN c.source IS NOT NULL THEN 1 WHEN " CASE_REDUCED_SQL \
	" THEN 4 ELSE 2 END) != 0) "

#define CASE_ROW_COLUMNS                                                               \
	"c.id, c.title, c.flags, c.created_at, c.source, m.id, m.run_id, " VERDICT_SQL \
	", m.differs, " CASE_REDUCED_SQL " "

/* A role's measurement columns (status, instr_total) of comparison m. */
#define MEASURE_COLS(role)                                                                \
	"(SELECT status FROM results WHERE comparison_id = m.id AND role = '" role "'), " \
	"(SELECT instr_total FROM results WHERE comparison_id = m.id AND role = '" role "')"
/* A role's history columns (instr_total, build name, version, sha256 prefix). */
#define HISTORY_COLS(role)                                                                     \
	"(SELECT instr_total FROM results WHERE comparison_id = m.id AND role = '" role "'), " \
	"(SELECT b.name FROM results x JOIN builds b ON b.id = x.build_id "                    \
	"WHERE x.comparison_id = m.id AND x.role = '" role "'), "                              \
	"(SELECT b.php_version FROM results x JOIN builds b ON b.id = x.build_id "             \
	"WHERE x.comparison_id = m.id AND x.role = '" role "'), "                              \
	"(SELECT substr(b.sha256, 1, 12) FROM results x JOIN builds b ON b.id = x.build_id "   \
	"WHERE x.comparison_id = m.id AND x.role = '" role "')"

/* clang-format off */
static const char *const stmt_sql[S_COUNT] = {
	[S_BUILD_RECORD] =
	    "INSERT INTO builds (name, php_version, lib_path, prefix, sha256) "
	    "VALUES (?1, ?2, ?3, ?4, ?5) "
	    "ON CONFLICT (name, sha256) DO UPDATE SET php_version = excluded.php_version, "
	    "lib_path = excluded.lib_path, prefix = excluded.prefix, last_seen = " DB_NOW " "
	    "RETURNING id",
	[S_RUNS_INTERRUPT] =
	    "UPDATE runs SET status = 'interrupted', finished_at = " DB_NOW ", "
	    "error = coalesce(error, 'the daemon stopped before the run finished') "
	    "WHERE status IN ('queued', 'running')",
	[S_CASE_FIND] =
	    "SELECT id FROM cases WHERE content_hash = ?1 AND source IS ?2 AND title = ?3 "
	    "AND code = ?4 AND setup IS ?5 AND flags = ?6 AND depth = ?7 AND expect IS ?8 "
	    "AND iterations = ?9 AND expectf = ?11 ORDER BY id LIMIT 1",
	[S_CASE_INSERT] =
	    "INSERT INTO cases (content_hash, source, title, code, setup, flags, depth, expect, iterations, "
	    "expectf) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?11)",
	[S_COMPARISON_INSERT] =
	    "INSERT INTO comparisons (case_id, run_id, verdict, differs, error, unsupported) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[S_RESULT_INSERT] =
	    "INSERT INTO results (comparison_id, role, build_id, status, signal, output, "
	    "output_is_false, error_code, error_msg, exc_class, exc_msg, printed, warnings, "
	    "failure, instructions, wall_ms, instr_total, dump_file, output_same, iterations) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
	    "?20)",
	[S_RUN_PROGRESS] =
	    "UPDATE runs SET done = done + 1, same = same + ?2, differ = differ + ?3, "
	    "errors = errors + ?4, unsupported = unsupported + ?5 WHERE id = ?1",
	[S_CASE_GET] =
	    "SELECT id, title, code, setup, flags, depth, expect, iterations, source, created_at, expectf "
	    "FROM cases WHERE id = ?1",
	[S_COMPARISON_LATEST] =
	    "SELECT id, case_id, run_id, " VERDICT_SQL ", differs, created_at, error FROM comparisons m "
	    "WHERE case_id = ?1 ORDER BY id DESC LIMIT 1",
	[S_COMPARISON_GET] =
	    "SELECT id, case_id, run_id, " VERDICT_SQL ", differs, created_at, error FROM comparisons m "
	    "WHERE id = ?1 AND (?2 = 0 OR case_id = ?2)",
	[S_RESULTS_GET] =
	    "SELECT r.role, b.name, r.status, r.signal, " RESULT_OUTPUT_SQL ", r.output_is_false, "
	    "r.error_code, r.error_msg, r.exc_class, r.exc_msg, r.printed, r.warnings, "
	    "r.failure, r.instructions, r.wall_ms, r.instr_total, r.dump_file, r.iterations, b.php_version "
	    "FROM results r JOIN builds b ON b.id = r.build_id WHERE r.comparison_id = ?1",
	[S_CASE_HISTORY] =
	    "SELECT id, run_id, " VERDICT_SQL ", differs, created_at FROM comparisons m "
	    "WHERE case_id = ?1 ORDER BY id DESC LIMIT ?2",
	/* ?1 before (exclusive), ?2 verdict or NULL, ?3 source filter, ?4 limit, ?5 run */
	[S_CASES_LIST] =
	    "SELECT " CASE_ROW_COLUMNS "FROM cases c LEFT JOIN comparisons m "
	    "ON m.id = (SELECT max(id) FROM comparisons WHERE case_id = c.id) "
	    "WHERE c.id < ?1 AND (?2 IS NULL OR " VERDICT_SQL " = ?2) "
	    "AND " CASE_SOURCE_SQL
	    "ORDER BY c.id DESC LIMIT ?4",
	[S_RUN_CASES_LIST] =
	    "SELECT " CASE_ROW_COLUMNS "FROM comparisons m JOIN cases c ON c.id = m.case_id "
	    "WHERE m.run_id = ?5 AND m.case_id < ?1 "
	    "AND " CASE_SOURCE_SQL
	    "ORDER BY m.case_id DESC LIMIT ?4",
	/* A statement of its own so the (run_id, verdict, case_id) index serves it. */
	[S_RUN_CASES_LIST_VERDICT] =
	    "SELECT " CASE_ROW_COLUMNS "FROM comparisons m JOIN cases c ON c.id = m.case_id "
	    "WHERE m.run_id = ?5 AND (m.verdict = ?2 OR ?2 = 'error' OR (?2 = 'unsupported' AND m.verdict = 'same')) AND " VERDICT_SQL " = ?2 "
	    "AND m.case_id < ?1 "
	    "AND " CASE_SOURCE_SQL
	    "ORDER BY m.case_id DESC LIMIT ?4",
	[S_RUN_INSERT] =
	    "INSERT INTO runs (suite, params, base_build_id, head_build_id, builds) VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_RUN_GET] = "SELECT " RUN_COLUMNS "WHERE r.id = ?1",
	[S_RUNS_LIST] = "SELECT " RUN_COLUMNS "WHERE r.id < ?1 ORDER BY r.id DESC LIMIT ?2",
	[S_RUN_NEXT] = "SELECT " RUN_COLUMNS "WHERE r.status = 'queued' ORDER BY r.id LIMIT 1",
	[S_RUN_START] =
	    "UPDATE runs SET status = 'running', started_at = coalesce(started_at, " DB_NOW "), "
	    "total = ?2, error = ?3 "
	    "WHERE id = ?1 AND status = 'queued'",
	[S_RUN_FINISH] =
	    "UPDATE runs SET status = ?2, finished_at = " DB_NOW ", error = coalesce(?3, error) "
	    "WHERE id = ?1 AND status = 'running'",
	/* The measured cases of a run with both builds' exact counts. */
	[S_RUN_MEASUREMENTS] =
	    "SELECT c.id, c.title, c.source, c.iterations, m.id, "
	    MEASURE_COLS("base") ", " MEASURE_COLS("head") ", " MEASURE_COLS("cand2") ", " MEASURE_COLS("cand3") ", " MEASURE_COLS("cand4") ", " MEASURE_COLS("cand5") ", " MEASURE_COLS("cand6") ", " MEASURE_COLS("cand7") " "
	    "FROM comparisons m JOIN cases c ON c.id = m.case_id "
	    "JOIN results rb ON rb.comparison_id = m.id AND rb.role = 'base' "
	    "JOIN results rh ON rh.comparison_id = m.id AND rh.role = 'head' "
	    "WHERE m.run_id = ?1 AND c.iterations > 0 ORDER BY coalesce(c.source, ''), c.id",
	/* A workload (by its file under cases/, or by case id) across runs, oldest first. */
	[S_WORKLOAD_HISTORY] =
	    "SELECT r.id, r.created_at, c.id, c.title, c.source, c.iterations, m.id, "
	    HISTORY_COLS("base") ", " HISTORY_COLS("head") ", " HISTORY_COLS("cand2") ", " HISTORY_COLS("cand3") ", " HISTORY_COLS("cand4") ", " HISTORY_COLS("cand5") ", " HISTORY_COLS("cand6") ", " HISTORY_COLS("cand7") " "
	    "FROM comparisons m JOIN runs r ON r.id = m.run_id JOIN cases c ON c.id = m.case_id "
	    "JOIN results rb ON rb.comparison_id = m.id AND rb.role = 'base' "
	    "JOIN builds bb ON bb.id = rb.build_id "
	    "JOIN results rh ON rh.comparison_id = m.id AND rh.role = 'head' "
	    "JOIN builds bh ON bh.id = rh.build_id "
	    "WHERE c.iterations > 0 AND (c.source = ?1 OR (?1 IS NULL AND c.id = ?2)) "
	    "AND (rb.instr_total IS NOT NULL OR rh.instr_total IS NOT NULL) "
	    "ORDER BY r.id DESC LIMIT ?3",
	[S_DUMP_FILE] =
	    "SELECT dump_file FROM results WHERE comparison_id = ?1 AND role = ?2",
	[S_RUN_CANCEL] =
	    "UPDATE runs SET status = 'cancelled', finished_at = " DB_NOW " "
	    "WHERE id = ?1 AND status = 'queued'",
	[S_RUNS_QUEUED] = "SELECT count(*) FROM runs WHERE status = 'queued'",
	/* Back in the queue with the builds it was made with; started_at and
	 * the counts stay (S_RUN_START keeps them). */
	[S_RUN_RESUME] =
	    "UPDATE runs SET status = 'queued', finished_at = NULL, error = NULL "
	    "WHERE id = ?1 AND status IN ('interrupted', 'failed', 'cancelled') "
	    "AND base_build_id = ?2 AND head_build_id = ?3 "
	    "AND coalesce(builds, json_array(base_build_id, head_build_id)) = ?4",
	/* The case parameters of S_CASE_FIND, and ?10 the run. */
	[S_RUN_HAS_CASE] =
	    "SELECT 1 FROM comparisons m JOIN cases c ON c.id = m.case_id "
	    "WHERE m.run_id = ?10 AND c.content_hash = ?1 AND c.source IS ?2 AND c.title = ?3 "
	    "AND c.code = ?4 AND c.setup IS ?5 AND c.flags = ?6 AND c.depth = ?7 AND c.expect IS ?8 "
	    "AND c.iterations = ?9 AND c.expectf = ?11 LIMIT 1",
	/* A generated, phpt or coverage run's summary (columns.c). */
	[S_RUN_SUMMARY] = "UPDATE runs SET summary = ?2 WHERE id = ?1",
	[S_RUN_CASE_ROW] =
	    "SELECT " CASE_ROW_COLUMNS "FROM comparisons m JOIN cases c ON c.id = m.case_id "
	    "WHERE m.run_id = ?1 AND m.case_id = ?2",
	/* Every build of the run in order (an old run without builds: base and head). */
	[S_RUN_BUILDS] =
	    "SELECT j.value FROM runs r, json_each(coalesce(r.builds, "
	    "json_array(r.base_build_id, r.head_build_id))) j WHERE r.id = ?1 ORDER BY j.key",
	[S_BUILD_RUNS_PENDING] =
	    "SELECT count(*) FROM runs r WHERE r.status IN ('queued', 'running') AND EXISTS "
	    "(SELECT 1 FROM json_each(coalesce(r.builds, json_array(r.base_build_id, r.head_build_id))) j "
	    "WHERE j.value = ?1)",
	/* One result's bytes alone, for a download (not the whole comparison). */
	[S_RESULT_OUTPUT] =
	    "SELECT " RESULT_OUTPUT_SQL ", r.output_is_false FROM results r "
	    "WHERE r.comparison_id = ?1 AND r.role = ?2",
	[S_RESULT_PRINTED] =
	    "SELECT r.printed, 0 FROM results r WHERE r.comparison_id = ?1 AND r.role = ?2",
	/* A run's cases whose builds all agree but none ran to its end (crash,
	 * timeout, fatal error, exit...): verdict same, the base's status not ok. */
	[S_RUN_BROKEN] =
	    "SELECT count(*) FROM comparisons m JOIN results r ON r.comparison_id = m.id AND r.role = 'base' "
	    "WHERE m.run_id = ?1 AND m.verdict = 'same' AND m.error IS NULL AND m.unsupported = 0 AND r.status <> 'ok'",
	/* Callgrind files past the newest ?1, oldest first, ?2 at a time. */
	[S_DUMPS_BEYOND] =
	    "SELECT comparison_id, role, dump_file FROM results WHERE dump_file IS NOT NULL "
	    "ORDER BY comparison_id DESC, role LIMIT ?2 OFFSET ?1",
	[S_DUMP_CLEAR] =
	    "UPDATE results SET dump_file = NULL WHERE comparison_id = ?1 AND role = ?2",
};
/* clang-format on */

const struct db_sql_table db_runs_table = { "runs", stmt_sql, S_COUNT };

/* The statement, reset and unbound, ready for new parameters. */
static sqlite3_stmt *db_stmt(struct db *db, enum stmt s)
{
	return db_statement(db, DB_F_RUNS, s);
}

static void db_bind_text_or_null_if_empty(sqlite3_stmt *st, int i, const char *s)
{
	db_bind_text(st, i, s != NULL && *s != '\0' ? s : NULL);
}

static char *db_col_strdup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	int n = sqlite3_column_bytes(st, i);
	char *p;

	if (s == NULL)
		return NULL;
	if ((p = malloc((size_t)n + 1)) == NULL)
		return NULL;
	memcpy(p, s, (size_t)n);
	p[n] = '\0';
	return p;
}

/* ---- builds and runs at startup ---- */

int db_build_record(struct db *db, struct build *b, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc = -1;

	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_BUILD_RECORD);
	db_bind_text(st, 1, b->name);
	db_bind_text(st, 2, b->php_version);
	db_bind_text(st, 3, b->lib_path);
	db_bind_text(st, 4, b->prefix);
	db_bind_text(st, 5, b->sha256);
	if (sqlite3_step(st) != SQLITE_ROW) {
		db_fail(db, "record build", err, errsize);
		goto fail;
	}
	b->db_id = sqlite3_column_int64(st, 0);
	rc = 0;
fail:
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_runs_interrupt(struct db *db, char *err, size_t errsize)
{
	int rc;

	pthread_mutex_lock(&db->lock);
	rc = db_exec(db, db_stmt(db, S_RUNS_INTERRUPT), "interrupt runs", err, errsize);
	if (rc == 0)
		rc = sqlite3_changes(db->conn);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

/* ---- storing a comparison ---- */

/* FNV-1a over each field with its length: an index key, not an identity. */
static void db_hash_field(uint64_t *h, const char *s, int present)
{
	size_t n = present ? strlen(s) : (size_t)-1, i;
	unsigned char len[sizeof n];

	memcpy(len, &n, sizeof n);
	for (i = 0; i < sizeof n; i++)
		*h = (*h ^ len[i]) * 0x100000001b3ULL;
	for (i = 0; present && s[i] != '\0'; i++)
		*h = (*h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
}

static void db_case_hash(const struct case_spec *c, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char num[64];

	db_hash_field(&h, c->source, c->source != NULL);
	db_hash_field(&h, c->title, c->title != NULL);
	db_hash_field(&h, c->code, c->code != NULL);
	db_hash_field(&h, c->setup, c->setup != NULL);
	db_hash_field(&h, c->expect, c->expect != NULL);
	snprintf(num, sizeof num, "%ld/%ld/%ld", c->flags, c->depth, c->iterations);
	db_hash_field(&h, num, 1);
	if (c->expectf) /* only then: an older case's hash stays what it was */
		db_hash_field(&h, "expectf", 1);
	snprintf(out, 17, "%016" PRIx64, h);
}

static void db_bind_case(sqlite3_stmt *st, const struct case_spec *c, const char *hash)
{
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	db_bind_text(st, 2, c->source);
	db_bind_text(st, 3, c->title != NULL ? c->title : "");
	db_bind_text(st, 4, c->code != NULL ? c->code : "");
	db_bind_text(st, 5, c->setup);
	sqlite3_bind_int64(st, 6, c->flags);
	sqlite3_bind_int64(st, 7, c->depth);
	db_bind_text(st, 8, c->expect);
	sqlite3_bind_int64(st, 9, c->iterations > 0 ? c->iterations : 0);
	sqlite3_bind_int(st, 11, c->expectf != 0); /* ?10 is S_RUN_HAS_CASE's run */
}

int db_store_result(struct db *db, int64_t comparison_id, int role, const struct build *b,
    const struct result *r, const struct result *base, char *err, size_t errsize)
{
	sqlite3_stmt *st = db_stmt(db, S_RESULT_INSERT);
	/* No output at all (a crash, a timeout) reads back as false. */
	int is_false = r->output_is_false || r->output.data == NULL;
	/* The base's bytes exactly: stored once, for both. */
	int same = base != NULL && !is_false && !base->output_is_false && base->output.data != NULL &&
	    base->output.len == r->output.len &&
	    memcmp(base->output.data, r->output.data, r->output.len) == 0;

	sqlite3_bind_int64(st, 1, comparison_id);
	db_bind_text(st, 2, role_name(role));
	sqlite3_bind_int64(st, 3, b->db_id);
	db_bind_result(st, 4, r, !same); /* ?4 .. ?14 */
	sqlite3_bind_int(st, 19, same);
	if (r->instructions >= 0)
		sqlite3_bind_int64(st, 15, r->instructions);
	sqlite3_bind_double(st, 16, r->wall_ms);
	if (r->instr_total >= 0)
		sqlite3_bind_int64(st, 17, r->instr_total);
	db_bind_text(st, 18, r->dump_file);
	if (r->iterations >= 0)
		sqlite3_bind_int64(st, 20, r->iterations);
	return db_exec(db, st, "store result", err, errsize);
}

int db_case_put(struct db *db, const struct case_spec *c, int64_t *case_id, char *err, size_t errsize)
{
	sqlite3_stmt *st = db_stmt(db, S_CASE_FIND);
	char hash[17];
	int rc;

	db_case_hash(c, hash);
	db_bind_case(st, c, hash);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*case_id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return db_fail(db, "find case", err, errsize);
	st = db_stmt(db, S_CASE_INSERT);
	db_bind_case(st, c, hash);
	if (db_exec(db, st, "store case", err, errsize) < 0)
		return -1;
	*case_id = sqlite3_last_insert_rowid(db->conn);
	return 0;
}

static int db_comparison_put(struct db *db, const struct case_spec *c, int64_t run_id,
    struct build *const builds[MAX_BUILDS], const struct result res[MAX_BUILDS], unsigned diff, int counted,
    int64_t *case_id, int64_t *comparison_id, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	char differs[128];
	const char *names[MAX_BUILDS];
	int role;

	verdict_fields(diff, differs, sizeof differs);
	for (role = 0; role < MAX_BUILDS && builds[role] != NULL; role++)
		names[role] = builds[role]->name;
	char *case_error = column_case_error(res, role, names);
	int nunsupported = 0;
	for (int i = 0; i < role; i++)
		nunsupported += res[i].unsupported != NULL;
	pthread_mutex_lock(&db->lock);
	if (db_begin(db, err, errsize) < 0) {
		pthread_mutex_unlock(&db->lock);
		free(case_error);
		return -1;
	}

	if (db_case_put(db, c, case_id, err, errsize) < 0)
		goto fail;

	st = db_stmt(db, S_COMPARISON_INSERT);
	sqlite3_bind_int64(st, 1, *case_id);
	if (run_id > 0)
		sqlite3_bind_int64(st, 2, run_id);
	db_bind_text(st, 3, diff == 0 ? "same" : "differ");
	db_bind_text(st, 4, differs);
	db_bind_text(st, 5, case_error);
	sqlite3_bind_int(st, 6, nunsupported);
	if (db_exec(db, st, "store comparison", err, errsize) < 0)
		goto fail;
	*comparison_id = sqlite3_last_insert_rowid(db->conn);

	for (role = 0; role < MAX_BUILDS && builds[role] != NULL; role++) {
		names[role] = builds[role]->name;
		if (db_store_result(db, *comparison_id, role, builds[role], &res[role],
		        role == ROLE_BASE ? NULL : &res[ROLE_BASE], err, errsize) < 0)
			goto fail;
	}
	/* A mismatch joins its buckets with it, one per differing candidate
	 * (db_triage.c); a case error is no mismatch. */
	if (diff != 0 && case_error == NULL &&
	    db_triage_record(db, c->flags, res, role, names, c->expect, c->expectf, run_id, *comparison_id,
	        err, errsize) < 0)
		goto fail;

	if (run_id > 0 && counted) {
		st = db_stmt(db, S_RUN_PROGRESS);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int(st, 2, case_error == NULL && diff == 0 && nunsupported == 0);
		sqlite3_bind_int(st, 3, case_error == NULL && diff != 0);
		sqlite3_bind_int(st, 4, case_error != NULL);
		sqlite3_bind_int(st, 5, case_error == NULL && diff == 0 && nunsupported > 0);
		if (db_exec(db, st, "run progress", err, errsize) < 0)
			goto fail;
	}
	if (db_commit(db, err, errsize) < 0)
		goto fail;
	pthread_mutex_unlock(&db->lock);
	free(case_error);
	return 0;
fail:
	db_rollback(db);
	pthread_mutex_unlock(&db->lock);
	free(case_error);
	return -1;
}

int db_comparison_store(struct db *db, const struct case_spec *c, int64_t run_id,
    struct build *const builds[MAX_BUILDS], const struct result res[MAX_BUILDS], unsigned diff,
    int64_t *case_id, int64_t *comparison_id, char *err, size_t errsize)
{
	return db_comparison_put(db, c, run_id, builds, res, diff, 1, case_id, comparison_id, err, errsize);
}

int db_comparison_store_uncounted(struct db *db, const struct case_spec *c, int64_t run_id,
    struct build *const builds[MAX_BUILDS], const struct result res[MAX_BUILDS], unsigned diff,
    int64_t *case_id, int64_t *comparison_id, char *err, size_t errsize)
{
	return db_comparison_put(db, c, run_id, builds, res, diff, 0, case_id, comparison_id, err, errsize);
}

/* ---- reading cases and comparisons ---- */

int db_case_get(struct db *db, int64_t id, struct db_case *out, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	struct case_spec *c = &out->spec;
	int rc;

	memset(out, 0, sizeof *out);
	case_init(c);
	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_CASE_GET);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		rc = 0;
	} else if (rc != SQLITE_ROW) {
		rc = db_fail(db, "read case", err, errsize);
	} else {
		out->id = sqlite3_column_int64(st, 0);
		c->title = db_col_strdup(st, 1);
		c->code = db_col_strdup(st, 2);
		c->setup = db_col_strdup(st, 3);
		c->flags = (long)sqlite3_column_int64(st, 4);
		c->depth = (long)sqlite3_column_int64(st, 5);
		c->expect = db_col_strdup(st, 6);
		c->iterations = (long)sqlite3_column_int64(st, 7);
		c->source = db_col_strdup(st, 8);
		db_col_copy(st, 9, out->created_at, sizeof out->created_at);
		c->expectf = sqlite3_column_int(st, 10) != 0;
		rc = 1;
		if (c->title == NULL || c->code == NULL) {
			db_seterr(err, errsize, "database: read case: out of memory");
			rc = -1;
		}
	}
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

void db_case_release(struct db_case *c)
{
	case_release(&c->spec);
}

static int db_role_index(const char *role)
{
	return role_parse(role);
}

static char *db_col_strdup_or_empty(sqlite3_stmt *st, int i)
{
	char *s = db_col_strdup(st, i);

	return s != NULL ? s : strdup("");
}

/* Read the current results row into r. */
static void db_read_result(sqlite3_stmt *st, struct result *r)
{
	int status;

	status = result_status_parse((const char *)sqlite3_column_text(st, 2));
	r->status = status >= 0 ? (enum result_status)status : STATUS_ERROR;
	r->signal = sqlite3_column_int(st, 3);
	r->output_is_false = sqlite3_column_int(st, 5);
	if (!r->output_is_false)
		bytes_set(&r->output, sqlite3_column_blob(st, 4), (size_t)sqlite3_column_bytes(st, 4));
	r->error_code = (long)sqlite3_column_int64(st, 6);
	r->error_msg = db_col_strdup(st, 7);
	r->exc_class = db_col_strdup(st, 8);
	r->exc_msg = db_col_strdup(st, 9);
	bytes_set(&r->printed, sqlite3_column_blob(st, 10), (size_t)sqlite3_column_bytes(st, 10));
	r->warnings = db_col_strdup_or_empty(st, 11);
	r->failure = db_col_strdup(st, 12);
	/* Unsupported on this build (migration 20): its failure says why. */
	if (r->status == STATUS_ERROR && r->failure != NULL &&
	    strncmp(r->failure, RESULT_UNSUPPORTED, strlen(RESULT_UNSUPPORTED)) == 0)
		r->unsupported = strdup(r->failure + strlen(RESULT_UNSUPPORTED));
	r->instructions = sqlite3_column_type(st, 13) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 13);
	r->wall_ms = sqlite3_column_double(st, 14);
	r->instr_total = sqlite3_column_type(st, 15) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 15);
	r->dump_file = db_col_strdup(st, 16);
	r->iterations = sqlite3_column_type(st, 17) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 17);
}

int db_comparison_get(struct db *db, int64_t case_id, int64_t comparison_id, struct db_comparison *out,
    char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc, role;

	memset(out, 0, sizeof *out);
	for (role = 0; role < MAX_BUILDS; role++)
		result_init(&out->results[role]);
	pthread_mutex_lock(&db->lock);
	if (comparison_id > 0) {
		st = db_stmt(db, S_COMPARISON_GET);
		sqlite3_bind_int64(st, 1, comparison_id);
		sqlite3_bind_int64(st, 2, case_id);
	} else {
		st = db_stmt(db, S_COMPARISON_LATEST);
		sqlite3_bind_int64(st, 1, case_id);
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		rc = 0;
		goto out;
	}
	if (rc != SQLITE_ROW) {
		rc = db_fail(db, "read comparison", err, errsize);
		goto out;
	}
	out->id = sqlite3_column_int64(st, 0);
	out->case_id = sqlite3_column_int64(st, 1);
	out->run_id = sqlite3_column_int64(st, 2); /* NULL reads as 0 */
	db_col_copy(st, 3, out->verdict, sizeof out->verdict);
	db_col_copy(st, 4, out->differs, sizeof out->differs);
	db_col_copy(st, 5, out->created_at, sizeof out->created_at);
	out->error = db_col_strdup(st, 6);
	sqlite3_reset(st);

	st = db_stmt(db, S_RESULTS_GET);
	sqlite3_bind_int64(st, 1, out->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		role = db_role_index((const char *)sqlite3_column_text(st, 0));
		if (role < 0)
			continue;
		db_col_copy(st, 1, out->build_names[role], sizeof out->build_names[role]);
		db_col_copy(st, 18, out->build_versions[role], sizeof out->build_versions[role]);
		if (role + 1 > out->nbuilds)
			out->nbuilds = role + 1;
		result_release(&out->results[role]);
		result_init(&out->results[role]);
		db_read_result(st, &out->results[role]);
	}
	rc = rc == SQLITE_DONE ? 1 : db_fail(db, "read results", err, errsize);
out:
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

void db_comparison_release(struct db_comparison *c)
{
	int role;

	for (role = 0; role < MAX_BUILDS; role++)
		result_release(&c->results[role]);
	free(c->error);
	c->error = NULL;
}

static int db_history_row_read(sqlite3_stmt *st, void *p)
{
	struct db_fn_arg *a = p;
	struct db_case_row row;

	memset(&row, 0, sizeof row);
	row.id = a->id;
	row.comparison_id = sqlite3_column_int64(st, 0);
	row.run_id = sqlite3_column_int64(st, 1);
	row.verdict = (const char *)sqlite3_column_text(st, 2);
	row.differs = (const char *)sqlite3_column_text(st, 3);
	row.created_at = (const char *)sqlite3_column_text(st, 4);
	return ((db_case_row_fn)a->fn)(a->arg, &row);
}

int db_case_history(struct db *db, int64_t case_id, db_case_row_fn fn, void *arg, char *err, size_t errsize)
{
	struct db_fn_arg a = { (void *)fn, arg, case_id };

	return db_locked_ints(db, DB_F_RUNS, S_CASE_HISTORY, DB_INTS(case_id, DB_HISTORY_MAX),
	    db_history_row_read, &a, "case history", err, errsize);
}

static int db_case_row_read(sqlite3_stmt *st, void *p)
{
	struct db_fn_arg *a = p;
	struct db_case_row row;

	memset(&row, 0, sizeof row);
	row.id = sqlite3_column_int64(st, 0);
	row.title = (const char *)sqlite3_column_text(st, 1);
	row.flags = (long)sqlite3_column_int64(st, 2);
	row.created_at = (const char *)sqlite3_column_text(st, 3);
	row.source = (const char *)sqlite3_column_text(st, 4);
	row.comparison_id = sqlite3_column_int64(st, 5);
	row.run_id = sqlite3_column_int64(st, 6);
	row.verdict = (const char *)sqlite3_column_text(st, 7);
	row.differs = (const char *)sqlite3_column_text(st, 8);
	row.reduced = sqlite3_column_int(st, 9);
	return ((db_case_row_fn)a->fn)(a->arg, &row);
}

int db_cases_list(
    struct db *db, const struct db_case_filter *f, db_case_row_fn fn, void *arg, char *err, size_t errsize)
{
	struct db_fn_arg a = { (void *)fn, arg, 0 };
	sqlite3_stmt *st;
	enum stmt which;
	int rc;

	if (f->run_id > 0)
		which = f->verdict != NULL ? S_RUN_CASES_LIST_VERDICT : S_RUN_CASES_LIST;
	else
		which = S_CASES_LIST;
	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, which);
	sqlite3_bind_int64(st, 1, f->before > 0 ? f->before : INT64_MAX);
	db_bind_text(st, 2, f->verdict);
	sqlite3_bind_int(st, 3, f->source);
	sqlite3_bind_int(st, 4, f->limit);
	if (f->run_id > 0)
		sqlite3_bind_int64(st, 5, f->run_id);
	rc = db_each(db, st, db_case_row_read, &a, "list cases", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

/* ---- runs ---- */

/* A run's builds as stored: "[3,4,7]" (the builds end at the first NULL). */
static void db_build_ids(struct build *const builds[MAX_BUILDS], char *out, size_t size)
{
	size_t used;

	snprintf(out, size, "[");
	for (int i = 0; i < MAX_BUILDS && builds[i] != NULL; i++) {
		used = strlen(out);
		snprintf(out + used, size - used, "%s%" PRId64, i > 0 ? "," : "", builds[i]->db_id);
	}
	used = strlen(out);
	snprintf(out + used, size - used, "]");
}

int db_run_create(struct db *db, const char *suite, const struct run_params *params,
    struct build *const builds[MAX_BUILDS], int64_t *id, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	char ids[MAX_BUILDS * 24 + 4], *text;
	int rc;

	if ((text = run_params_text(params)) == NULL) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	db_build_ids(builds, ids, sizeof ids);
	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUN_INSERT);
	db_bind_text(st, 1, suite);
	db_bind_text(st, 2, text);
	sqlite3_bind_int64(st, 3, builds[ROLE_BASE]->db_id);
	sqlite3_bind_int64(st, 4, builds[ROLE_HEAD]->db_id);
	db_bind_text(st, 5, ids);
	rc = db_exec(db, st, "create run", err, errsize);
	if (rc == 0)
		*id = sqlite3_last_insert_rowid(db->conn);
	pthread_mutex_unlock(&db->lock);
	free(text);
	return rc;
}

static int db_read_run(sqlite3_stmt *st, struct db_run *r)
{
	char perr[256];

	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(st, 0);
	db_col_copy(st, 1, r->suite, sizeof r->suite);
	/* Text this daemon wrote; should it not read back, the run has no
	 * parameters (its suite then says which one it misses). */
	if (run_params_parse((const char *)sqlite3_column_text(st, 2), &r->params, perr, sizeof perr) < 0)
		run_params_release(&r->params);
	db_col_copy(st, 3, r->status, sizeof r->status);
	r->total = sqlite3_column_int64(st, 4);
	r->done = sqlite3_column_int64(st, 5);
	r->same = sqlite3_column_int64(st, 6);
	r->differ = sqlite3_column_int64(st, 7);
	db_col_copy(st, 8, r->created_at, sizeof r->created_at);
	db_col_copy(st, 9, r->started_at, sizeof r->started_at);
	db_col_copy(st, 10, r->finished_at, sizeof r->finished_at);
	r->error = db_col_strdup(st, 11);
	db_col_copy(st, 12, r->build_names[ROLE_BASE], sizeof r->build_names[ROLE_BASE]);
	db_col_copy(st, 13, r->build_versions[ROLE_BASE], sizeof r->build_versions[ROLE_BASE]);
	db_col_copy(st, 14, r->build_names[ROLE_HEAD], sizeof r->build_names[ROLE_HEAD]);
	db_col_copy(st, 15, r->build_versions[ROLE_HEAD], sizeof r->build_versions[ROLE_HEAD]);
	r->summary = db_col_strdup(st, 16);
	r->errors = sqlite3_column_int64(st, 17);
	r->unsupported = sqlite3_column_int64(st, 19);
	r->nbuilds = 2;
	/* Every build of the run, "name\tversion" lines in order (NULL: an old run, base and head). */
	if (sqlite3_column_type(st, 18) != SQLITE_NULL) {
		const char *p = (const char *)sqlite3_column_text(st, 18), *tab, *nl;
		int i = 0;

		while (p != NULL && *p != '\0' && i < MAX_BUILDS) {
			nl = strchr(p, '\n');
			if (nl == NULL)
				nl = p + strlen(p);
			tab = memchr(p, '\t', (size_t)(nl - p));
			if (tab == NULL)
				tab = nl;
			snprintf(r->build_names[i], sizeof r->build_names[i], "%.*s", (int)(tab - p), p);
			snprintf(r->build_versions[i], sizeof r->build_versions[i], "%.*s",
			    tab < nl ? (int)(nl - tab - 1) : 0, tab < nl ? tab + 1 : "");
			i++;
			p = *nl != '\0' ? nl + 1 : NULL;
		}
		if (i >= 2)
			r->nbuilds = i;
	}
	return 0;
}

void db_run_release(struct db_run *r)
{
	run_params_release(&r->params);
	free(r->error);
	free(r->summary);
	r->error = r->summary = NULL;
}

/* Run a statement that yields at most one run. */
static int db_run_one(struct db *db, sqlite3_stmt *st, struct db_run *out, char *err, size_t errsize)
{
	int rc = sqlite3_step(st);

	memset(out, 0, sizeof *out);
	if (rc == SQLITE_DONE) {
		rc = 0;
	} else if (rc != SQLITE_ROW) {
		rc = db_fail(db, "read run", err, errsize);
	} else if (db_read_run(st, out) < 0) {
		db_run_release(out);
		db_seterr(err, errsize, "database: read run: out of memory");
		rc = -1;
	} else {
		rc = 1;
	}
	sqlite3_reset(st);
	return rc;
}

int db_run_get(struct db *db, int64_t id, struct db_run *out, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUN_GET);
	sqlite3_bind_int64(st, 1, id);
	rc = db_run_one(db, st, out, err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_run_next_queued(struct db *db, struct db_run *out, char *err, size_t errsize)
{
	int rc;

	pthread_mutex_lock(&db->lock);
	rc = db_run_one(db, db_stmt(db, S_RUN_NEXT), out, err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_runs_list(struct db *db, int64_t before, int limit, db_run_fn fn, void *arg, char *err, size_t errsize)
{
	struct db_run run;
	sqlite3_stmt *st;
	int rc, n = 0, failed = 0;

	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUNS_LIST);
	sqlite3_bind_int64(st, 1, before > 0 ? before : INT64_MAX);
	sqlite3_bind_int(st, 2, limit);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		failed = db_read_run(st, &run) < 0 || fn(arg, &run) < 0;
		db_run_release(&run);
		if (failed)
			break;
		n++;
	}
	if (failed) {
		db_seterr(err, errsize, "out of memory");
		rc = -1;
	} else if (rc == SQLITE_DONE) {
		rc = n;
	} else {
		rc = db_fail(db, "list runs", err, errsize);
	}
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_run_start(struct db *db, int64_t id, int64_t total, const char *error, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUN_START);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, total);
	db_bind_text_or_null_if_empty(st, 3, error);
	rc = db_update(db, st, "start run", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_run_finish(struct db *db, int64_t id, const char *status, const char *error, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUN_FINISH);
	sqlite3_bind_int64(st, 1, id);
	db_bind_text(st, 2, status);
	db_bind_text_or_null_if_empty(st, 3, error);
	rc = db_update(db, st, "finish run", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc < 0 ? -1 : 0;
}

int db_runs_queued(struct db *db, char *err, size_t errsize)
{
	return db_count(db, DB_F_RUNS, S_RUNS_QUEUED, "count queued runs", err, errsize);
}

int db_run_resume(
    struct db *db, int64_t id, struct build *const builds[MAX_BUILDS], char *err, size_t errsize)
{
	sqlite3_stmt *st;
	char ids[MAX_BUILDS * 24 + 4];
	int rc;

	db_build_ids(builds, ids, sizeof ids);
	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUN_RESUME);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, builds[ROLE_BASE]->db_id);
	sqlite3_bind_int64(st, 3, builds[ROLE_HEAD]->db_id);
	db_bind_text(st, 4, ids);
	rc = db_update(db, st, "resume run", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_run_has_case(struct db *db, int64_t run_id, const struct case_spec *c, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	char hash[17];
	int rc;

	db_case_hash(c, hash);
	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUN_HAS_CASE);
	db_bind_case(st, c, hash);
	sqlite3_bind_int64(st, 10, run_id);
	rc = sqlite3_step(st);
	rc = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : db_fail(db, "find case in run", err, errsize);
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_run_cancel_queued(struct db *db, int64_t id, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUN_CANCEL);
	sqlite3_bind_int64(st, 1, id);
	rc = db_update(db, st, "cancel run", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_dumps_beyond(
    struct db *db, int keep, void (*fn)(void *, const char *path), void *arg, char *err, size_t errsize)
{
	struct {
		int64_t id;
		char role[16];
		char path[4200];
	} *rows = NULL;
	int n = 0, rc = 0, cap = 64;
	sqlite3_stmt *st;

	if ((rows = calloc((size_t)cap, sizeof *rows)) == NULL) {
		db_seterr(err, errsize, "out of memory");
		return -1;
	}
	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_DUMPS_BEYOND);
	sqlite3_bind_int(st, 1, keep);
	sqlite3_bind_int(st, 2, cap);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < cap) {
		rows[n].id = sqlite3_column_int64(st, 0);
		db_col_copy(st, 1, rows[n].role, sizeof rows[n].role);
		db_col_copy(st, 2, rows[n].path, sizeof rows[n].path);
		n++;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		rc = db_fail(db, "list callgrind files", err, errsize);
	} else if (n > 0 && (rc = db_begin(db, err, errsize)) == 0) {
		for (int i = 0; i < n && rc == 0; i++) {
			st = db_stmt(db, S_DUMP_CLEAR);
			sqlite3_bind_int64(st, 1, rows[i].id);
			db_bind_text(st, 2, rows[i].role);
			rc = db_exec(db, st, "forget a callgrind file", err, errsize);
		}
		if (rc == 0)
			rc = db_commit(db, err, errsize);
		else
			db_rollback(db);
	} else {
		rc = n > 0 ? -1 : 0;
	}
	pthread_mutex_unlock(&db->lock);
	/* Forgotten by the database first: a file is never named and gone. */
	if (rc == 0)
		for (int i = 0; i < n; i++)
			fn(arg, rows[i].path);
	free(rows);
	return rc < 0 ? -1 : n;
}

int db_result_bytes(struct db *db, int64_t comparison_id, const char *role, int printed, char **data,
    size_t *len, int *is_false, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	const void *p;
	int rc;

	*data = NULL;
	*len = 0;
	*is_false = 0;
	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, printed ? S_RESULT_PRINTED : S_RESULT_OUTPUT);
	sqlite3_bind_int64(st, 1, comparison_id);
	db_bind_text(st, 2, role);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		rc = 1;
		*is_false = sqlite3_column_int(st, 1) != 0;
		if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
			p = sqlite3_column_blob(st, 0);
			*len = (size_t)sqlite3_column_bytes(st, 0);
			if ((*data = malloc(*len + 1)) == NULL) {
				db_seterr(err, errsize, "out of memory");
				rc = -1;
			} else {
				if (*len > 0)
					memcpy(*data, p, *len);
				(*data)[*len] = '\0';
			}
		}
	} else {
		rc = rc == SQLITE_DONE ? 0 : db_fail(db, "read a result", err, errsize);
	}
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

/* ---- measurements ---- */

static int db_measurement_row(sqlite3_stmt *st, void *p)
{
	struct db_fn_arg *a = p;
	struct db_measurement m;

	memset(&m, 0, sizeof m);
	m.case_id = sqlite3_column_int64(st, 0);
	m.title = (const char *)sqlite3_column_text(st, 1);
	m.source = (const char *)sqlite3_column_text(st, 2);
	m.iterations = sqlite3_column_int64(st, 3);
	m.comparison_id = sqlite3_column_int64(st, 4);
	for (int role = 0; role < MAX_BUILDS; role++) {
		m.status[role] = (const char *)sqlite3_column_text(st, 5 + 2 * role);
		if (m.status[role] != NULL)
			m.nbuilds = role + 1;
		m.instr_total[role] = sqlite3_column_type(st, 6 + 2 * role) == SQLITE_NULL
		    ? -1
		    : sqlite3_column_int64(st, 6 + 2 * role);
	}
	return ((db_measurement_fn)a->fn)(a->arg, &m);
}

int db_run_measurements(
    struct db *db, int64_t run_id, db_measurement_fn fn, void *arg, char *err, size_t errsize)
{
	struct db_fn_arg a = { (void *)fn, arg, 0 };

	return db_locked_ints(db, DB_F_RUNS, S_RUN_MEASUREMENTS, DB_INTS(run_id), db_measurement_row, &a,
	    "run measurements", err, errsize);
}

static int db_history_row(sqlite3_stmt *st, void *p)
{
	struct db_fn_arg *a = p;
	struct db_workload_point pt;

	memset(&pt, 0, sizeof pt);
	pt.run_id = sqlite3_column_int64(st, 0);
	pt.run_created_at = (const char *)sqlite3_column_text(st, 1);
	pt.case_id = sqlite3_column_int64(st, 2);
	pt.title = (const char *)sqlite3_column_text(st, 3);
	pt.source = (const char *)sqlite3_column_text(st, 4);
	pt.iterations = sqlite3_column_int64(st, 5);
	pt.comparison_id = sqlite3_column_int64(st, 6);
	for (int role = 0; role < MAX_BUILDS; role++) {
		int c = 7 + 4 * role;
		pt.instr_total[role] = sqlite3_column_type(st, c) == SQLITE_NULL
		    ? -1
		    : sqlite3_column_int64(st, c);
		pt.build_name[role] = (const char *)sqlite3_column_text(st, c + 1);
		if (pt.build_name[role] != NULL)
			pt.nbuilds = role + 1;
		pt.build_version[role] = (const char *)sqlite3_column_text(st, c + 2);
		pt.build_sha[role] = (const char *)sqlite3_column_text(st, c + 3);
	}
	return ((db_workload_point_fn)a->fn)(a->arg, &pt);
}

int db_workload_history(struct db *db, const char *source, int64_t case_id, int limit,
    db_workload_point_fn fn, void *arg, char *err, size_t errsize)
{
	struct db_fn_arg a = { (void *)fn, arg, 0 };
	int rc;

	pthread_mutex_lock(&db->lock);
	sqlite3_stmt *st = db_stmt(db, S_WORKLOAD_HISTORY);
	db_bind_text(st, 1, source);
	sqlite3_bind_int64(st, 2, case_id);
	sqlite3_bind_int(st, 3, limit);
	rc = db_each(db, st, db_history_row, &a, "workload history", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_dump_file(
    struct db *db, int64_t comparison_id, int role, char *path, size_t pathsize, char *err, size_t errsize)
{
	int rc;

	pthread_mutex_lock(&db->lock);
	sqlite3_stmt *st = db_stmt(db, S_DUMP_FILE);
	sqlite3_bind_int64(st, 1, comparison_id);
	db_bind_text(st, 2, role_name(role));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		db_col_copy(st, 0, path, pathsize);
		rc = 1;
	} else if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = db_fail(db, "dump file", err, errsize);
	}
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

/* ---- a run's summary, its cases, its builds ---- */

int db_run_summary(struct db *db, int64_t run_id, const char *summary, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUN_SUMMARY);
	sqlite3_bind_int64(st, 1, run_id);
	db_bind_text(st, 2, summary);
	rc = db_exec(db, st, "run summary", err, errsize);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_run_case_row(
    struct db *db, int64_t run_id, int64_t case_id, db_case_row_fn fn, void *arg, char *err, size_t errsize)
{
	struct db_fn_arg a = { (void *)fn, arg, 0 };

	return db_locked_ints(db, DB_F_RUNS, S_RUN_CASE_ROW, DB_INTS(run_id, case_id), db_case_row_read, &a,
	    "run case", err, errsize);
}

int db_run_builds(struct db *db, int64_t run_id, int64_t ids[MAX_BUILDS], char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc, n;

	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUN_BUILDS);
	sqlite3_bind_int64(st, 1, run_id);
	n = 0;
	for (int b = 0; b < MAX_BUILDS; b++)
		ids[b] = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (n < MAX_BUILDS)
			ids[n++] = sqlite3_column_int64(st, 0);
	rc = rc == SQLITE_DONE ? n : db_fail(db, "run builds", err, errsize);
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_run_broken(struct db *db, int64_t run_id, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_RUN_BROKEN);
	sqlite3_bind_int64(st, 1, run_id);
	rc = sqlite3_step(st);
	rc = rc == SQLITE_ROW ? sqlite3_column_int(st, 0)
	                      : db_fail(db, "broken cases of a run", err, errsize);
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}

int db_build_runs_pending(struct db *db, int64_t build_id, char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	pthread_mutex_lock(&db->lock);
	st = db_stmt(db, S_BUILD_RUNS_PENDING);
	sqlite3_bind_int64(st, 1, build_id);
	rc = sqlite3_step(st);
	rc = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : db_fail(db, "runs of a build", err, errsize);
	sqlite3_reset(st);
	pthread_mutex_unlock(&db->lock);
	return rc;
}
