/*
 * report.md of a stored or generated run: what `phpcmp review`'s report
 * says of its runs (cli/review_report.c), from the daemon's own tables —
 * the verdicts (same, differ, error, broken; the mismatches against a
 * case's --EXPECT--), the root causes with their minimal cases (the
 * reducer's roots, GET /api/roots?run=) and the run's buckets.  A measure
 * run's report is the instruction table (measure.c), a phpt run's
 * phptrun's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "services.h"

#define RUNREPORT_BUCKETS 50     /* bucket rows shown; the rest counted */
#define RUNREPORT_SHOW_BYTES 200 /* an output cut in a table cell */

/* A text as Markdown inline code: control bytes as \xNN, '|' escaped, cut. */
static void runreport_code(struct buf *o, const char *s, size_t n)
{
	text_md_code(o, s, n, RUNREPORT_SHOW_BYTES);
}

/* A title in a table cell. */
static void runreport_cell(struct buf *o, const char *s)
{
	for (; s != NULL && *s; s++)
		if (*s == '|')
			buf_adds(o, "\\|");
		else if (*s == '\n' || *s == '\r')
			buf_adds(o, " ");
		else
			buf_add(o, s, 1);
}

/* A build by its role in the run: its name, or the role's own word. */
static const char *runreport_build(const struct db_run *run, const char *role)
{
	int r = role_parse(role);
	return r >= 0 && r < run->nbuilds ? run->build_names[r] : role;
}

/* A bucket's candidate as a person reads it: "`head`", "`head` vs --EXPECT--". */
static void runreport_candidate(struct buf *o, const struct db_run *run, const char *candidate)
{
	if (candidate == NULL)
		buf_adds(o, "—");
	else if (strncmp(candidate, "expected:", 9) == 0)
		buf_addf(o, "`%s` vs `--EXPECT--`", runreport_build(run, candidate + 9));
	else
		buf_addf(o, "`%s`", candidate);
}

/* A side of a key's pair: a shape as code, "" as ∅ (nothing), else its JSON. */
static void runreport_side(struct buf *o, json_t *x)
{
	char *t;

	if (json_is_string(x) && json_string_length(x) == 0)
		buf_adds(o, "∅");
	else if (json_is_string(x))
		runreport_code(o, json_string_value(x), json_string_length(x));
	else if ((t = json_dumps(x, JSON_ENCODE_ANY | JSON_COMPACT)) != NULL) {
		runreport_code(o, t, strlen(t));
		free(t);
	}
}

/* A pair of the key as "what a → b" when it is one; 1 said, 0 not. */
static int runreport_pair(struct buf *o, json_t *k, const char *what, int differ_only, int n)
{
	json_t *p = json_object_get(k, what), *a = json_array_get(p, 0), *b = json_array_get(p, 1);

	if (json_array_size(p) != 2 || (differ_only && json_equal(a, b)))
		return 0;
	buf_addf(o, "%s%s ", n ? "; " : "", what);
	runreport_side(o, a);
	buf_adds(o, " → ");
	runreport_side(o, b);
	return 1;
}

/*
 * How a bucket's mismatches differ, from its key, as the page's key summary
 * words it: "output ∅ → `0`" (the first differing bytes as classes: docs/api.md,
 * "The bucket key"), the status, json_last_error() and exception pairs when
 * they differ.
 */
static void runreport_key(struct buf *o, const char *key)
{
	json_t *k = key != NULL ? json_loads(key, 0, NULL) : NULL, *st, *v;
	int n = 0;
	size_t i;

	if (k == NULL) {
		buf_adds(o, "—");
		return;
	}
	n += runreport_pair(o, k, "output", 0, n);
	st = json_object_get(k, "status");
	if (json_array_size(st) == 2 &&
	    (!json_equal(json_array_get(st, 0), json_array_get(st, 1)) ||
	        strcmp(
	            json_string_value(json_array_get(st, 0)) ? json_string_value(json_array_get(st, 0)) : "",
	            "ok") != 0))
		n += runreport_pair(o, k, "status", 0, n);
	n += runreport_pair(o, k, "error_code", 1, n);
	n += runreport_pair(o, k, "exception", 1, n);
	if (n == 0)
		json_array_foreach (json_object_get(k, "differs"), i, v)
			buf_addf(o, "%s%s", i ? ", " : "", json_string_value(v) ? json_string_value(v) : "?");
	/* the flags that split the key (on/off), as the page's summary shows them */
	const char *flag;
	json_object_foreach (json_object_get(k, "flags"), flag, v)
		buf_addf(o, " · %s %s", strncmp(flag, "JSON_", 5) == 0 ? flag + 5 : flag,
		    json_is_true(v) ? "on" : "off");
	json_decref(k);
}

/* The minimal case as PHP a reviewer can paste (review_report.c's shape). */
static void runreport_case(struct buf *o, const struct db_reduction_row *m)
{
	json_t *names = text_flag_names(m->has_flags ? m->flags : 0), *f;
	int depth = m->has_depth ? m->depth : 512;
	size_t i;

	buf_adds(o, "```php\n");
	if (m->setup != NULL && *m->setup)
		buf_addf(o, "%s\n", m->setup);
	buf_addf(o, "json_encode(%s", m->code);
	if (json_array_size(names) > 0) {
		buf_adds(o, ", ");
		json_array_foreach (names, i, f)
			buf_addf(o, "%s%s", i ? " | " : "", json_string_value(f));
	} else if (depth != 512) {
		buf_adds(o, ", 0");
	}
	if (depth != 512)
		buf_addf(o, ", %d", depth);
	buf_adds(o, ");\n```\n");
	json_decref(names);
}

/* Each build's result of the minimal case, as its reduction kept it. */
static void runreport_outputs(struct buf *o, const struct db_run *run, const char *outputs)
{
	json_t *out = outputs != NULL ? json_loads(outputs, 0, NULL) : NULL, *res;
	const char *role;

	if (!json_is_object(out)) {
		json_decref(out);
		return;
	}
	buf_adds(o, "\n| build | output | json_last_error() |\n|---|---|---|\n");
	json_object_foreach (out, role, res) {
		json_t *v = json_object_get(res, "output");
		const char *status = json_string_value(json_object_get(res, "status"));
		buf_addf(o, "| `%s` | ", runreport_build(run, role));
		if (status != NULL && strcmp(status, "ok") != 0 && strcmp(status, "error") != 0)
			buf_addf(o, "**%s** ", status);
		if (json_is_string(v))
			runreport_code(o, json_string_value(v), json_string_length(v));
		else if (json_array_size(json_object_get(res, "omitted")) > 0)
			buf_addf(o, "(%" JSON_INTEGER_FORMAT " bytes, not inline)",
			    json_integer_value(json_object_get(res, "output_size")));
		else
			buf_adds(o, "`false`");
		buf_addf(
		    o, " | %" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(res, "error_code")));
		if (json_is_string(json_object_get(res, "exception")))
			buf_addf(o, ", %s", json_string_value(json_object_get(res, "exception")));
		buf_adds(o, " |\n");
	}
	json_decref(out);
}

/* The verdicts: the counts, broken cases and the expectation's mismatches. */
static void runreport_verdicts(
    struct buf *o, const struct db_run *run, int broken, const struct db_bucket *b, size_t nb)
{
	int64_t expected[MAX_BUILDS] = { 0 };
	int any_expected = 0;

	buf_addf(o, "| verdict | cases |\n|---|---:|\n| same | %" PRId64 " |\n| differ | %s%" PRId64 "%s |\n",
	    run->same, run->differ ? "**" : "", run->differ, run->differ ? "**" : "");
	if (run->errors > 0)
		buf_addf(o, "| did not compile (error) | **%" PRId64 "** |\n", run->errors);
	if (broken > 0)
		buf_addf(o,
		    "| same, but no build ran to its end (broken: crashed, timed out, exit()...) | **%d** |\n",
		    broken);
	buf_addf(o, "| done | %" PRId64 " of %" PRId64 " |\n", run->done, run->total);
	for (size_t i = 0; i < nb; i++) {
		int r;
		if (b[i].candidate == NULL || strncmp(b[i].candidate, "expected:", 9) != 0 ||
		    (r = role_parse(b[i].candidate + 9)) < 0 || r >= MAX_BUILDS)
			continue;
		expected[r] += b[i].run_mismatches;
		any_expected = 1;
	}
	if (!any_expected)
		return;
	buf_adds(o, "\nAgainst the expectation (`--EXPECT--`, `--EXPECTF--`), cases whose output is not it:");
	for (int r = 0, k = 0; r < run->nbuilds; r++)
		if (expected[r] > 0)
			buf_addf(
			    o, "%s `%s` **%" PRId64 "**", k++ ? "," : "", run->build_names[r], expected[r]);
	buf_adds(o, ".\n");
}

static void runreport_roots(struct buf *o, const struct db_run *run, const struct db_roots *roots)
{
	buf_addf(o, "\n#### Root causes: %zu\n", roots->n);
	if (roots->n == 0)
		buf_adds(o, "\nNo mismatch, so no root cause.\n");
	for (size_t i = 0; i < roots->n; i++) {
		const struct db_root *r = &roots->roots[i];
		const struct db_reduction_row *m = r->minimal;
		buf_addf(o, "\n##### Root cause %zu, on ", i + 1);
		runreport_candidate(o, run, r->candidate);
		buf_addf(o, ": %" PRId64 " mismatch%s in %" PRId64 " bucket%s (", r->mismatches,
		    r->mismatches == 1 ? "" : "es", r->buckets, r->buckets == 1 ? "" : "s");
		for (int64_t k = 0; k < r->buckets; k++)
			buf_addf(o, "%s#%" PRId64, k ? ", " : "", r->bucket_ids[k]);
		buf_adds(o, ")\n\n");
		if (m == NULL) {
			buf_adds(o,
			    "Not reduced yet (the reducer works after the run; see GET /api/roots?run=).\n");
			continue;
		}
		if (strcmp(m->state, "done") != 0 || m->code == NULL) {
			if (strcmp(m->state, "not_reproduced") == 0)
				buf_adds(o,
				    "Not reproduced when run alone (it needs the cases run before it, or is "
				    "not deterministic): no minimal case.\n");
			else if (r->candidate != NULL && strncmp(r->candidate, "expected:", 9) == 0)
				buf_adds(o,
				    "Not reduced: a mismatch against the case's expectation has no other "
				    "build to reduce against; the case (first case, below) is its reproducer.\n");
			else
				buf_addf(o, "Not reduced: %s.\n", m->state);
			continue;
		}
		if (m->case_id > 0)
			buf_addf(o, "Minimal case #%" PRId64 ":\n\n", m->case_id);
		else
			buf_adds(o, "Minimal case:\n\n");
		runreport_case(o, m);
		runreport_outputs(o, run, m->outputs);
	}
	if (roots->pending > 0)
		buf_addf(o, "\n%" PRId64 " bucket%s still being reduced.\n", roots->pending,
		    roots->pending == 1 ? " is" : "s are");
}

/* The root cause (numbered as in the report, from 1) a bucket is under; 0 none. */
static size_t runreport_root_of(const struct db_roots *roots, int64_t bucket_id)
{
	for (size_t i = 0; i < roots->n; i++)
		for (int64_t k = 0; k < roots->roots[i].buckets; k++)
			if (roots->roots[i].bucket_ids[k] == bucket_id)
				return i + 1;
	return 0;
}

static void runreport_buckets(struct buf *o, const struct db_run *run, const struct db_roots *roots,
    const struct db_bucket_counts *counts, const struct db_bucket *b, size_t nb, int more)
{
	int64_t buckets = 0, stored = 0;

	for (size_t i = 0; i < counts->nstates; i++) {
		buckets += counts->states[i].buckets;
		stored += counts->states[i].mismatches;
	}
	buf_addf(o, "\n#### Buckets: %" PRId64 "\n", buckets);
	/* a generated run keeps a sample of each kind of mismatch in full */
	if (strcmp(run->suite, "generated") == 0 && stored < run->differ)
		buf_addf(o,
		    "\n%" PRId64 " mismatches in this run; %" PRId64
		    " of them stored in full (a sample of each "
		    "kind: the others are made again from seed and index when opened), in these buckets.\n",
		    run->differ, stored);
	if (nb == 0)
		return;
	buf_adds(o,
	    "\n| bucket | root cause | build | how they differ (the base, or `--EXPECT--`, → the build) | "
	    "triage | mismatches in this run | first case |\n"
	    "|---|---:|---|---|---|---:|---|\n");
	for (size_t i = 0; i < nb && i < RUNREPORT_BUCKETS; i++) {
		size_t root = runreport_root_of(roots, b[i].id);
		buf_addf(o, "| #%" PRId64 " | ", b[i].id);
		if (root > 0)
			buf_addf(o, "%zu", root);
		else
			buf_adds(o, "—");
		buf_adds(o, " | ");
		runreport_candidate(o, run, b[i].candidate);
		buf_adds(o, " | ");
		runreport_key(o, b[i].key);
		buf_addf(o, " | %s%s | %" PRId64 " | ", b[i].state != NULL ? b[i].state : "new",
		    b[i].reappeared ? ", reappeared" : "", b[i].run_mismatches);
		if (b[i].run_case_id > 0)
			buf_addf(o, "#%" PRId64 " ", b[i].run_case_id);
		runreport_cell(o, b[i].run_title);
		buf_adds(o, " |\n");
	}
	if (nb > RUNREPORT_BUCKETS || more)
		buf_addf(o,
		    "\nThe first %d buckets by mismatches; every one: GET /api/buckets?run=%" PRId64 ".\n",
		    RUNREPORT_BUCKETS, run->id);
}

int run_report_md(struct app *app, const struct db_run *run, char **text, size_t *len, struct svc_error *e)
{
	struct db_bucket_filter f = { .states = "",
		.run = run->id,
		.cursor_count = INT64_MAX,
		.cursor_id = INT64_MAX,
		.limit = RUNREPORT_BUCKETS + 1 };
	struct db_bucket_counts counts;
	struct db_roots roots;
	struct db_bucket *b = NULL;
	struct buf o = BUF_INIT;
	char err[512], cursor[64], note[1200];
	size_t nb = 0;
	int more = 0, broken;

	if ((broken = db_run_broken(app->db, run->id, err, sizeof err)) < 0)
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	if (db_buckets_list(app->db, &f, &b, &nb, &counts, cursor, sizeof cursor, &more, err, sizeof err) < 0)
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	if (db_reduce_roots(app->db, run->id, 1, &roots, err, sizeof err) < 0) {
		for (size_t i = 0; i < nb; i++)
			db_bucket_release(&b[i]);
		free(b);
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	}
	buf_addf(&o, "### phpcmp run %" PRId64 " (%s): ", run->id, run->suite);
	if (run->differ > 0 || run->errors > 0)
		buf_addf(&o, "**%" PRId64 " differ** of %" PRId64 " cases\n\n", run->differ, run->done);
	else if (broken > 0)
		buf_addf(&o, "the same on every build, **%d broken** everywhere\n\n", broken);
	else
		buf_addf(&o, "every case the same on every build (%" PRId64 ")\n\n", run->done);
	buf_addf(&o, "Base `%s` (PHP %s); candidate%s:", run->build_names[ROLE_BASE],
	    run->build_versions[ROLE_BASE], run->nbuilds > 2 ? "s" : "");
	for (int r = ROLE_HEAD; r < run->nbuilds; r++)
		buf_addf(&o, "%s `%s` (PHP %s)", r > ROLE_HEAD ? "," : "", run->build_names[r],
		    run->build_versions[r]);
	buf_adds(&o, ".\n\n");
	runreport_verdicts(&o, run, broken, b, nb);
	runreport_roots(&o, run, &roots);
	runreport_buckets(&o, run, &roots, &counts, b, nb, more);
	if (strcmp(run->status, "done") != 0) {
		run_status_note(run->status, run->error, note, sizeof note);
		buf_addf(&o, "\n%s\n", note[0] == ' ' ? note + 1 : note);
	}
	for (size_t i = 0; i < nb; i++)
		db_bucket_release(&b[i]);
	free(b);
	db_roots_release(&roots);
	if ((*text = buf_detach(&o, len)) == NULL)
		return svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
	return 0;
}
