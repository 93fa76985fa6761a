/*
 * The JSON the database keeps in columns (columns.h): each written here,
 * from the C structs storage and the engine hold.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "columns.h"

/* The object's text (flags: jansson's dump flags), the object released. */
static char *column_text(json_t *o, size_t flags)
{
	char *text = o != NULL ? json_dumps(o, flags) : NULL;

	json_decref(o);
	return text;
}

char *column_case_error(const struct result res[], int n, const char *const names[])
{
	int i = result_case_error(res, n);
	const struct result *r;

	if (i < 0)
		return NULL;
	r = &res[i];
	return column_text(
	    json_pack("{s:o s:s s:o s:o s:s s:s}", "message", text_json(r->compile_error), "section",
	        r->compile_section, "line", r->compile_line > 0 ? json_integer(r->compile_line) : json_null(),
	        "column", r->compile_column > 0 ? json_integer(r->compile_column) : json_null(), "role",
	        role_name(i), "build", names != NULL && names[i] != NULL ? names[i] : role_name(i)),
	    JSON_COMPACT);
}

/*
 * A reduced case's result as its reduction keeps it.  An output over
 * RESULT_INLINE_MAX is not kept here, as the API does not inline it (a
 * candidate reading past its buffer gave megabytes of heap per reduction,
 * 1.4 MB on average, in every root listing): null, "omitted":["output"]
 * and its size; the bytes are in the reduced case's comparison (output_url).
 */
static json_t *column_reduced_result(const struct result *r)
{
	int is_false = r->output_is_false || r->output.data == NULL;
	int big = !is_false && r->output.len > RESULT_INLINE_MAX;
	json_t *o = json_pack("{s:s s:o s:o s:o s:b s:I s:o s:o}", "status", result_status_name(r->status),
	    "output", is_false || big ? json_null() : text_display(r->output.data, r->output.len),
	    "output_size", is_false ? json_null() : json_integer((json_int_t)r->output.len), "omitted",
	    big ? json_pack("[s]", "output") : json_array(), "output_is_false", is_false, "error_code",
	    (json_int_t)r->error_code, "error_msg", text_json(r->error_msg), "exception",
	    text_json(r->exc_class));

	if (o != NULL && r->status == STATUS_CRASH)
		json_object_set_new(o, "signal", json_integer(r->signal));
	return o;
}

char *column_reduced_outputs(int role, const struct result res[2])
{
	return column_text(json_pack("{s:o s:o}", "base", column_reduced_result(&res[0]), role_name(role),
	                       column_reduced_result(&res[1])),
	    JSON_COMPACT | JSON_SORT_KEYS);
}

static json_t *column_pair(const struct column_change *c)
{
	return json_pack("[o o]", c->from != NULL ? text_json(c->from) : json_null(),
	    c->to != NULL ? text_json(c->to) : json_null());
}

char *column_triage_changes(const struct column_triage *t)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	if (t->state.changed)
		json_object_set_new(o, "state", column_pair(&t->state));
	if (t->assignee.changed)
		json_object_set_new(o, "assignee", column_pair(&t->assignee));
	if (t->notes.changed)
		json_object_set_new(o, "notes", column_pair(&t->notes));
	if (t->answered_reappearance)
		json_object_set_new(o, "reappeared", json_false());
	if (t->root > 0)
		json_object_set_new(o, "root", json_integer(t->root));
	return column_text(o, JSON_COMPACT | JSON_SORT_KEYS);
}

/* ---- a generated run's summary ---- */

/* clang-format off */
static const char *const column_error_names[GEN_TALLY_ERRORS] = {
	"JSON_ERROR_NONE", "JSON_ERROR_DEPTH", "JSON_ERROR_STATE_MISMATCH", "JSON_ERROR_CTRL_CHAR",
	"JSON_ERROR_SYNTAX", "JSON_ERROR_UTF8", "JSON_ERROR_RECURSION", "JSON_ERROR_INF_OR_NAN",
	"JSON_ERROR_UNSUPPORTED_TYPE", "JSON_ERROR_INVALID_PROPERTY_NAME", "JSON_ERROR_UTF16",
	"JSON_ERROR_NON_BACKED_ENUM",
};
/* clang-format on */
static const char *const column_crash_phases[GEN_CRASH_PHASES] = { "died_to_noticed", "noticed_to_resent",
	"died_to_child_ready", "died_to_resumed" };
static const char *const column_statuses[GEN_TALLY_STATUSES] = { "ok", "error", "crash", "timeout",
	"memory-error" };

static json_t *column_hex(uint64_t v)
{
	char buf[17];
	snprintf(buf, sizeof buf, "%016" PRIx64, v);
	return json_string(buf);
}

/* Milliseconds as seconds, to the millisecond. */
static json_t *column_seconds(double ms)
{
	return json_real((double)(int64_t)(ms + 0.5) / 1000.0);
}

/* The generator's coverage: "piece.utf8_2" -> {"piece": {"utf8_2": n}}. */
static json_t *column_gen_coverage(const uint64_t coverage[GEN_COUNTERS])
{
	json_t *cov = json_object();
	char name[96];

	for (unsigned i = 0; cov != NULL && i < GEN_COUNTERS; i++) {
		const char *n = gen_counter_name(i, name, sizeof name);
		char *dot;
		if (n == NULL)
			continue;
		if ((dot = strchr(name, '.')) == NULL) {
			json_object_set_new(cov, name, json_integer((json_int_t)coverage[i]));
			continue;
		}
		*dot = '\0';
		json_t *group = json_object_get(cov, name);
		if (group == NULL) {
			group = json_object();
			json_object_set_new(cov, name, group);
		}
		json_object_set_new(group, dot + 1, json_integer((json_int_t)coverage[i]));
	}
	return cov;
}

/* One build's tallies: rate, statuses, error codes, where its time went. */
static json_t *column_gen_build(const struct gen_build_tally *b, int role, const char *name, int64_t done)
{
	json_t *errs = json_object(), *st = json_object(), *t, *out;
	const uint64_t *tm = b->times;

	for (size_t e = 0; e <= GEN_TALLY_ERRORS; e++)
		if (b->errors[e] > 0)
			json_object_set_new(errs, e < GEN_TALLY_ERRORS ? column_error_names[e] : "other",
			    json_integer((json_int_t)b->errors[e]));
	for (int k = 0; k < GEN_TALLY_STATUSES; k++)
		json_object_set_new(st, column_statuses[k], json_integer((json_int_t)b->statuses[k]));
	double inside = (double)(tm[GEN_T_DECLARE] + tm[GEN_T_GENERATE] + tm[GEN_T_BUILD] + tm[GEN_T_ENCODE] +
	                    tm[GEN_T_DIGEST]) /
	    1e6;
	/* The phases are sampled (every 16th case): their sum can overshoot a little. */
	double other = (double)tm[GEN_T_TOTAL] / 1e6 - inside;
	t = json_pack("{s:o s:o s:o s:o s:o s:o s:o}", "declare_classes",
	    column_seconds((double)tm[GEN_T_DECLARE] / 1e6), "generate",
	    column_seconds((double)tm[GEN_T_GENERATE] / 1e6), "build_values",
	    column_seconds((double)tm[GEN_T_BUILD] / 1e6), "json_encode",
	    column_seconds((double)tm[GEN_T_ENCODE] / 1e6), "hash_and_free",
	    column_seconds((double)tm[GEN_T_DIGEST] / 1e6), "other_in_worker",
	    column_seconds(other > 0 ? other : 0), "protocol_and_waiting",
	    column_seconds(b->busy_ms - (double)tm[GEN_T_TOTAL] / 1e6));
	out = json_pack("{s:s s:f s:o s:I s:I s:o s:o s:o}", "build", name, "cases_per_s",
	    b->busy_ms > 0 ? (double)done / (b->busy_ms / 1e3) : 0.0, "busy_s", column_seconds(b->busy_ms),
	    "failures", (json_int_t)b->failures, "exceptions", (json_int_t)b->exceptions, "statuses", st,
	    "error_codes", errs, "time_s", t);
	if (out == NULL)
		return NULL;
	/* A crash's cost, mean per crash (the crashes the page timed). */
	if (b->crashes_timed > 0) {
		json_t *cc = json_object();
		json_object_set_new(cc, "crashes", json_integer((json_int_t)b->crashes_timed));
		for (int k = 0; k < GEN_CRASH_PHASES; k++)
			json_object_set_new(cc, column_crash_phases[k],
			    json_real(
			        (double)(int64_t)(1000 * b->crash_ms[k] / (double)b->crashes_timed) / 1000));
		json_object_set_new(out, "crash_ms", cc);
	}
	/* A candidate's own count of cases that differ from the base. */
	if (role != ROLE_BASE)
		json_object_set_new(out, "mismatches", json_integer((json_int_t)b->mismatches));
	return out;
}

static json_t *column_gen_listed(const struct gen_tally *t)
{
	json_t *list = json_array();

	for (int i = 0; list != NULL && i < t->nlisted; i++) {
		const struct gen_listed *l = &t->listed[i];
		json_array_append_new(list,
		    json_pack("{s:I s:I s:I s:s s:s}", "seed", (json_int_t)l->seed, "index",
		        (json_int_t)l->index, "case_id", (json_int_t)l->case_id, "differs", l->differs,
		        "candidates", l->candidates));
	}
	return list;
}

/* The mismatches' signatures, each with its count and sampled case ids. */
static json_t *column_gen_signatures(const struct gen_tally *t)
{
	json_t *sigs = json_array();

	for (int i = 0; sigs != NULL && i < t->nsigs; i++) {
		json_t *ids = json_array();
		for (int k = 0; ids != NULL && k < t->sigs[i].samples; k++)
			json_array_append_new(ids, json_integer((json_int_t)t->sigs[i].sample_ids[k]));
		json_array_append_new(sigs,
		    json_pack("{s:s s:I s:o}", "signature", t->sigs[i].key, "mismatches",
		        (json_int_t)t->sigs[i].count, "samples", ids != NULL ? ids : json_array()));
	}
	return sigs != NULL ? sigs : json_array();
}

char *column_generated_summary(const struct gen_tally *t, const struct gen_summary_context *c)
{
	const struct run_params *p = c->params;
	json_t *o = json_object(), *builds = json_object(), *seeds = json_array(), *corpus = json_object();
	uint64_t all = GEN_HASH_INIT;
	char name[32];

	if (o == NULL || builds == NULL || seeds == NULL || corpus == NULL) {
		json_decref(builds);
		json_decref(seeds);
		json_decref(corpus);
		json_decref(o);
		return NULL;
	}
	for (int i = 0; i < p->nseeds; i++) {
		json_array_append_new(seeds, json_integer((json_int_t)p->seeds[i]));
		if (i < t->seeds_done) {
			snprintf(name, sizeof name, "%" PRIu64, p->seeds[i]);
			json_object_set_new(corpus, name, column_hex(t->corpus[i]));
			all = gen_hash(&t->corpus[i], sizeof t->corpus[i], all);
		}
	}
	for (int b = 0; b < t->nbuilds; b++)
		json_object_set_new(
		    builds, role_name(b), column_gen_build(&t->build[b], b, c->build_names[b], t->done));
	json_object_set_new(o, "generator_version", json_integer(GEN_VERSION));
	if (c->generated_for != NULL)
		json_object_set_new(o, "generated_for", json_string(c->generated_for));
	json_object_set_new(o, "seeds", seeds);
	json_object_set_new(o, "count", json_integer(p->count));
	json_object_set_new(o, "start", json_integer(p->start));
	json_object_set_new(o, "done", json_integer(t->done));
	/* Resumed: cases stored before, not run again (the tallies leave them out). */
	json_object_set_new(o, "resumed_past", json_integer(t->skipped));
	json_object_set_new(o, "mismatches", json_integer(t->mismatches));
	json_object_set_new(o, "unconfirmed", json_integer(t->unconfirmed));
	json_object_set_new(o, "elapsed_s", column_seconds(c->elapsed_ms));
	json_object_set_new(o, "rate",
	    json_real(c->elapsed_ms > 0 ? (double)(int64_t)(t->done / (c->elapsed_ms / 1e3)) : 0.0));
	json_object_set_new(o, "corpus_hashes", corpus);
	json_object_set_new(
	    o, "corpus_hash", c->final && t->seeds_done == p->nseeds ? column_hex(all) : json_null());
	json_object_set_new(o, "builds", builds);
	json_object_set_new(o, "daemon",
	    json_pack("{s:o s:o s:o s:I s:I}", "compare_s", column_seconds(t->compare_ms),
	        "mismatch_details_s", column_seconds(t->mismatch_ms), "database_s", column_seconds(t->db_ms),
	        "peak_rss_kb", (json_int_t)c->peak_rss_kb, "rss_kb", (json_int_t)c->rss_kb));
	json_object_set_new(o, "coverage", column_gen_coverage(t->coverage));
	json_object_set_new(o, "mismatch_list", column_gen_listed(t));
	json_object_set_new(o, "signatures", column_gen_signatures(t));
	json_object_set_new(o, "other_signatures", json_integer(t->other_sig));
	json_object_set_new(o, "stored_in_full", json_integer(t->sampled));
	return column_text(o, JSON_COMPACT);
}

int64_t column_generated_version(const char *summary)
{
	json_t *sum = summary != NULL ? json_loads(summary, 0, NULL) : NULL;
	json_t *v = json_object_get(sum, "generator_version");
	int64_t version = json_is_integer(v) ? json_integer_value(v) : -1;

	json_decref(sum);
	return version;
}

/* ---- a phpt run's summary ---- */

/*
 * A copy of at most PHPT_TALLY_MAX_TEXT + 4 bytes: text_replaced stops
 * once PHPT_TALLY_MAX_TEXT bytes are written, and each byte read writes
 * one at least, so the cut copy shows as the whole text would (the 4: a
 * character that starts before the cut is whole).
 */
static char *phpt_tally_text(const char *s, size_t len)
{
	size_t n = len < PHPT_TALLY_MAX_TEXT + 4 ? len : PHPT_TALLY_MAX_TEXT + 4;
	char *copy = malloc(n + 1);

	if (copy != NULL) {
		memcpy(copy, s, n);
		copy[n] = '\0';
	}
	return copy;
}

static void phpt_tally_row_release(struct phpt_tally_row *row)
{
	free(row->test);
	free(row->name);
	for (int b = 0; b < MAX_BUILDS; b++) {
		free(row->r[b].reason);
		free(row->r[b].diff);
		free(row->r[b].output);
	}
}

int phpt_tally_add(struct phpt_tally *t, const char *test, const char *name, const char *verdict,
    const struct phpt_tally_result r[MAX_BUILDS])
{
	struct phpt_tally_row *row;
	int ok = 1;

	if (t->nrows == t->caprows) {
		size_t cap = t->caprows != 0 ? t->caprows * 2 : 64;
		struct phpt_tally_row *p = realloc(t->rows, cap * sizeof *p);
		if (p == NULL)
			return -1;
		t->rows = p;
		t->caprows = cap;
	}
	row = &t->rows[t->nrows];
	memset(row, 0, sizeof *row);
	row->verdict = verdict;
	ok = (row->test = phpt_tally_text(test, strlen(test))) != NULL &&
	    (row->name = phpt_tally_text(name, strlen(name))) != NULL;
	for (int b = 0; ok && b < t->nbuilds; b++) {
		const struct phpt_tally_result *x = &r[b];
		struct phpt_tally_result *y = &row->r[b];
		*y = (struct phpt_tally_result){
			.status = x->status, .verdict = x->verdict, .bucket_id = x->bucket_id
		};
		if (x->reason != NULL && x->reason[0] != '\0')
			ok &= (y->reason = phpt_tally_text(x->reason, strlen(x->reason))) != NULL;
		if (x->diff != NULL)
			ok &= (y->diff = phpt_tally_text(x->diff, strlen(x->diff))) != NULL;
		/* what a failing FILE printed (run-tests' .out), the one output a summary shows */
		if ((x->status == PS_FAIL || x->status == PS_XFAIL) && x->output != NULL) {
			y->output_len = x->output_len < PHPT_TALLY_MAX_TEXT + 4 ? x->output_len
			                                                        : PHPT_TALLY_MAX_TEXT + 4;
			ok &= (y->output = phpt_tally_text(x->output, x->output_len)) != NULL;
		}
	}
	if (!ok) {
		phpt_tally_row_release(row);
		return -1;
	}
	for (int b = 0; b < t->nbuilds; b++) {
		t->counts[b][(unsigned)r[b].status < PS_COUNT ? r[b].status : PS_ERROR]++;
		if (b != ROLE_BASE && r[b].verdict != NULL && strcmp(r[b].verdict, "same") == 0)
			t->same[b]++;
		else if (b != ROLE_BASE && r[b].verdict != NULL && strcmp(r[b].verdict, "differ") == 0)
			t->differ[b]++;
	}
	t->nrows++;
	return 0;
}

void phpt_tally_release(struct phpt_tally *t)
{
	for (size_t i = 0; i < t->nrows; i++)
		phpt_tally_row_release(&t->rows[i]);
	free(t->rows);
	free(t->dir);
	memset(t, 0, sizeof *t);
}

static json_t *phpt_json_text(const char *s, size_t len)
{
	return text_replaced(s, len, PHPT_TALLY_MAX_TEXT);
}

/* The rows whose verdict is this one (role < 0: the test's, else a candidate's), their tests. */
static json_t *phpt_tests_with(const struct phpt_tally *t, int role, const char *verdict)
{
	json_t *list = json_array();

	for (size_t i = 0; list != NULL && i < t->nrows; i++) {
		const char *v = role < 0 ? t->rows[i].verdict : t->rows[i].r[role].verdict;
		if (v != NULL && strcmp(v, verdict) == 0)
			json_array_append_new(list, phpt_json_text(t->rows[i].test, strlen(t->rows[i].test)));
	}
	return list;
}

static json_t *phpt_row_json(const struct phpt_tally *t, const struct phpt_tally_row *row)
{
	json_t *o = json_pack("{s:o s:o s:s}", "test", phpt_json_text(row->test, strlen(row->test)), "name",
	    phpt_json_text(row->name, strlen(row->name)), "verdict", row->verdict);

	for (int b = 0; o != NULL && b < t->nbuilds; b++) {
		const struct phpt_tally_result *x = &row->r[b];
		json_t *r = json_pack("{s:s}", "status", phpt_status_name(x->status));
		if (x->reason != NULL)
			json_object_set_new(r, "reason", phpt_json_text(x->reason, strlen(x->reason)));
		if (x->diff != NULL)
			json_object_set_new(r, "diff", phpt_json_text(x->diff, strlen(x->diff)));
		if (x->output != NULL)
			json_object_set_new(r, "output", phpt_json_text(x->output, x->output_len));
		if (b != ROLE_BASE) {
			json_object_set_new(r, "verdict", json_string(x->verdict));
			if (x->bucket_id > 0)
				json_object_set_new(r, "bucket_id", json_integer((json_int_t)x->bucket_id));
		}
		json_object_set_new(o, role_name(b), r);
	}
	return o;
}

char *column_phpt_summary(const struct phpt_tally *t)
{
	json_t *o = json_object(), *counts = json_object(), *builds = json_array(), *cands = json_object(),
	       *tests = json_array();

	for (int b = 0; b < t->nbuilds; b++) {
		json_t *c = json_object();
		for (int k = 0; k < PS_COUNT; k++)
			json_object_set_new(
			    c, phpt_status_name((enum phpt_status)k), json_integer(t->counts[b][k]));
		json_object_set_new(counts, role_name(b), c);
		json_array_append_new(
		    builds, json_pack("{s:s s:s}", "role", role_name(b), "name", t->build_names[b]));
		/* each candidate's verdicts against the base */
		if (b != ROLE_BASE)
			json_object_set_new(cands, role_name(b),
			    json_pack("{s:s s:o s:o s:I s:I}", "name", t->build_names[b], "regressions",
			        phpt_tests_with(t, b, "regression"), "improvements",
			        phpt_tests_with(t, b, "improvement"), "same", (json_int_t)t->same[b],
			        "differ", (json_int_t)t->differ[b]));
	}
	for (size_t i = 0; tests != NULL && i < t->nrows; i++)
		json_array_append_new(tests, phpt_row_json(t, &t->rows[i]));
	json_object_set_new(o, "dir", t->dir != NULL ? json_string(t->dir) : json_null());
	json_object_set_new(o, "total", json_integer(t->total));
	json_object_set_new(o, "builds", builds);
	json_object_set_new(o, "candidates", cands);
	json_object_set_new(o, "counts", counts);
	json_object_set_new(o, "regressions", phpt_tests_with(t, -1, "regression"));
	json_object_set_new(o, "improvements", phpt_tests_with(t, -1, "improvement"));
	json_object_set_new(o, "tests", tests);
	return column_text(o, JSON_COMPACT);
}

int column_phpt_summary_read(const char *text, struct phpt_tally *t)
{
	json_t *o = text != NULL ? json_loads(text, 0, NULL) : NULL, *tests, *row, *b;
	const char *dir;
	size_t i;
	int rc = 0;

	memset(t, 0, sizeof *t);
	if (!json_is_object(o) || !json_is_array(tests = json_object_get(o, "tests"))) {
		json_decref(o);
		return -1;
	}
	if ((dir = json_string_value(json_object_get(o, "dir"))) != NULL && (t->dir = strdup(dir)) == NULL)
		rc = -1;
	t->total = json_integer_value(json_object_get(o, "total"));
	json_array_foreach (json_object_get(o, "builds"), i, b) {
		if (i >= MAX_BUILDS)
			break;
		snprintf(t->build_names[i], sizeof t->build_names[i], "%s",
		    json_string_value(json_object_get(b, "name")) != NULL
		        ? json_string_value(json_object_get(b, "name"))
		        : "");
		t->nbuilds = (int)i + 1;
	}
	json_array_foreach (tests, i, row) {
		struct phpt_tally_result res[MAX_BUILDS] = { 0 };
		const char *test = json_string_value(json_object_get(row, "test"));
		for (int r = 0; r < t->nbuilds; r++) {
			int st = phpt_status_parse(
			    json_string_value(json_object_get(json_object_get(row, role_name(r)), "status")));
			res[r].status = st >= 0 ? (enum phpt_status)st : PS_ERROR;
		}
		if (rc == 0 && phpt_tally_add(t, test != NULL ? test : "", "", "", res) < 0)
			rc = -1;
	}
	/* The counts are the stored ones, not the rows' again. */
	for (int r = 0; r < t->nbuilds; r++)
		for (int k = 0; k < PS_COUNT; k++)
			t->counts[r][k] = json_integer_value(
			    json_object_get(json_object_get(json_object_get(o, "counts"), role_name(r)),
			        phpt_status_name((enum phpt_status)k)));
	json_decref(o);
	if (rc < 0)
		phpt_tally_release(t);
	return rc;
}
