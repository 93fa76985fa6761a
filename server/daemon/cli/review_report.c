/*
 * phpcmp review: the verdict and the report, Markdown shaped as a
 * pull-request comment, or JSON.
 */
#include "review.h"

/* ---- the report ---- */

/* A text as Markdown inline code (text_md_code), cut at REVIEW_SHOW_BYTES. */
static void review_md_code(struct buf *o, const char *s)
{
	text_md_code(o, s, strlen(s), REVIEW_SHOW_BYTES);
}

static void review_md_result(struct buf *o, json_t *res)
{
	json_t *out = json_object_get(res, "output"), *exc = json_object_get(res, "exception");
	const char *status = review_str(res, "status");

	if (strcmp(status, "memory-error") == 0) {
		json_t *me = json_object_get(res, "memory_error");
		buf_addf(o, "**memory-error**: %s, %s", review_str(me, "kind"), review_str(me, "access"));
		if (json_array_size(json_object_get(me, "frames")) > 0)
			buf_addf(
			    o, " in %s", json_string_value(json_array_get(json_object_get(me, "frames"), 0)));
		buf_adds(o, "; output ");
		if (json_is_string(out))
			review_md_code(o, json_string_value(out));
		else
			buf_adds(o, "`false`");
	} else if (strcmp(status, "ok") != 0 && strcmp(status, "error") != 0) {
		buf_addf(o, "**%s**", status);
		if (*review_str(res, "failure"))
			buf_addf(o, " (%.120s)", review_str(res, "failure"));
	} else if (json_is_string(out)) {
		review_md_code(o, json_string_value(out));
	} else {
		buf_adds(o, "`false`");
	}
	buf_addf(o, " | %" JSON_INTEGER_FORMAT, review_int(res, "error_code"));
	if (json_is_object(exc))
		buf_addf(o, ", %s", review_str(exc, "class"));
}

/* The minimal case as PHP a reviewer can paste. */
static void review_md_case(struct buf *o, json_t *min)
{
	json_t *flags = json_object_get(min, "flags"), *f;
	const char *setup = json_string_value(json_object_get(min, "setup"));
	size_t i;

	buf_adds(o, "```php\n");
	if (setup != NULL && *setup)
		buf_addf(o, "%s\n", setup);
	buf_addf(o, "json_encode(%s", review_str(min, "code"));
	if (json_array_size(flags) > 0) {
		buf_adds(o, ", ");
		json_array_foreach (flags, i, f)
			buf_addf(o, "%s%s", i ? " | " : "", json_string_value(f));
	} else if (review_int(min, "depth") != 512) {
		buf_adds(o, ", 0");
	}
	if (review_int(min, "depth") != 512)
		buf_addf(o, ", %" JSON_INTEGER_FORMAT, review_int(min, "depth"));
	buf_adds(o, ");\n```\n");
}

static void review_md_thousands(struct buf *o, long long v)
{
	char digits[32], grouped[48];

	snprintf(digits, sizeof digits, "%lld", v < 0 ? -v : v);
	text_grouped(digits, grouped, sizeof grouped);
	buf_adds(o, v < 0 ? "−" : ""); /* a real minus sign, as the reviewer's table writes it */
	buf_adds(o, grouped);
}

/* What one build did in the generated and stored runs and ext/json/tests. */
struct review_tally {
	long long mismatches, crashes, stored_differ, roots;
	json_t *regressions; /* phpt, borrowed */
	long long phpt_differ;
};

static struct review_tally review_tally_of(const struct review *r, const struct review_build *b)
{
	struct review_tally t = { 0 };
	json_t *gen = json_object_get(
	    json_object_get(json_object_get(r->generated, "summary"), "builds"), b->role);
	json_t *cand = json_object_get(
	    json_object_get(json_object_get(r->phpt, "summary"), "candidates"), b->role);
	json_t *root, *cause, *name;
	size_t i, k;

	t.mismatches = review_int(gen, "mismatches");
	t.crashes = review_int(json_object_get(gen, "statuses"), "crash");
	t.regressions = json_object_get(cand, "regressions");
	t.phpt_differ = review_int(cand, "differ");
	json_array_foreach (json_object_get(r->roots, "roots"), i, root)
		if (strcmp(review_str(root, "candidate"), b->name) == 0)
			t.stored_differ += review_int(json_object_get(root, "runs"), "stored");
	json_array_foreach (json_object_get(r->roots, "causes"), i, cause)
		json_array_foreach (json_object_get(cause, "builds"), k, name)
			if (strcmp(json_string_value(name), b->name) == 0)
				t.roots++;
	return t;
}

/* The asan sample's causes that are a memory error on build name (its
 * other causes are output bugs the release builds show already). */
static int review_memory_causes(const struct review *r, const char *name)
{
	json_t *cause;
	size_t i;
	int n = 0;

	json_array_foreach (json_object_get(r->asan_roots, "causes"), i, cause) {
		json_t *res = json_object_get(json_object_get(cause, "results"), name);
		if (strcmp(review_str(res, "status"), "memory-error") == 0)
			n++;
	}
	return n;
}

static int review_build_differs(const struct review *r, const struct review_build *b)
{
	struct review_tally t = review_tally_of(r, b);
	return t.mismatches > 0 || t.stored_differ > 0 || t.roots > 0 || json_array_size(t.regressions) > 0 ||
	    t.phpt_differ > 0 || review_memory_causes(r, b->name) > 0 ||
	    review_memory_errors(r, b->name) > review_memory_errors(r, "base");
}

/* 1 when any candidate differs from the base, else 0. */
int review_verdict(const struct review *r)
{
	for (int i = 1; i < r->cur->nbuilds; i++)
		if (review_build_differs(r, &r->cur->builds[i]))
			return 1;
	return 0;
}

static const char *review_base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s != NULL ? s + 1 : path;
}

/* One of the daemon's report.md, without its own heading. */
static void review_md_body(struct buf *o, const char *md)
{
	if (md == NULL)
		return;
	if (strncmp(md, "###", 3) == 0 && strchr(md, '\n') != NULL)
		md = strchr(md, '\n') + 1;
	while (*md == '\n')
		md++;
	buf_adds(o, md);
}

static void review_md_asan_results(const struct review *r, struct buf *o, json_t *results)
{
	buf_adds(o, "\n| asan build | result | json_last_error() |\n|---|---|---|\n");
	for (int b = 0; b < r->asan.nbuilds; b++) {
		json_t *res = json_object_get(results, r->asan.builds[b].name);
		if (res == NULL)
			continue;
		buf_addf(o, "| `%s` | ", r->asan.builds[b].name);
		review_md_result(o, res);
		buf_adds(o, " |\n");
	}
}

/* The asan sample: each build's memory errors, then each memory-error cause. */
static void review_md_asan(const struct review *r, struct buf *o)
{
	const struct review_set *a = &r->asan;
	json_t *builds = json_object_get(json_object_get(r->asan_generated, "summary"), "builds"), *cause;
	size_t i;
	int n = 0;

	buf_adds(o, "\n#### Memory errors (AddressSanitizer)\n\n");
	if (r->asan_skipped != NULL) {
		buf_addf(o, "No asan sample: %s.\n", r->asan_skipped);
		return;
	}
	buf_adds(o, "The asan flavour of");
	for (int b = 0; b < a->nbuilds; b++)
		buf_addf(o, "%s `%s`", b == 0 ? "" : b == a->nbuilds - 1 ? " and" : ",", a->builds[b].name);
	buf_adds(o, ", ");
	review_md_thousands(o, r->asan_ran);
	buf_addf(o, " generated calls (seed %ld, the first of the corpus above", r->seed);
	if (r->asan_ran < r->asan_count) {
		buf_addf(o, "; stopped at %d memory errors, of ", REVIEW_ASAN_ENOUGH);
		review_md_thousands(o, r->asan_count);
	}
	buf_adds(o, "):");
	for (int b = 0; b < a->nbuilds; b++) {
		json_t *st = json_object_get(json_object_get(builds, a->builds[b].role), "statuses");
		json_int_t me = review_int(st, "memory-error");
		buf_addf(o, "%s `%s` %s", b ? ";" : "", a->builds[b].name, me ? "**" : "");
		review_md_thousands(o, me);
		buf_addf(o, " with a memory error%s", me ? "**" : "");
	}
	buf_adds(o, ".\n");
	json_array_foreach (json_object_get(r->asan_roots, "causes"), i, cause) {
		json_t *results = json_object_get(cause, "results"), *v;
		int memory = 0;
		size_t k;

		json_array_foreach (json_object_get(cause, "builds"), k, v)
			if (strcmp(review_str(json_object_get(results, json_string_value(v)), "status"),
			        "memory-error") == 0)
				memory = 1;
		if (!memory)
			continue; /* an output bug: the release builds' causes above show it */
		buf_addf(o, "\n##### Memory error %d, found on", ++n);
		json_array_foreach (json_object_get(cause, "builds"), k, v)
			buf_addf(o, "%s `%s`", k ? "," : "", json_string_value(v));
		buf_adds(o, "\n\n");
		review_md_case(o, json_object_get(cause, "minimal"));
		review_md_asan_results(r, o, results);
	}
	if (n > 0)
		return;
	/* memory errors that were not reproduced alone: as the sample ran them */
	int shown = 0;
	json_array_foreach (r->asan_samples, i, cause) {
		json_t *c = json_object_get(cause, "case"), *min, *res;
		const char *name;
		int memory = 0;

		json_object_foreach (json_object_get(cause, "results"), name, res)
			if (strcmp(review_str(res, "status"), "memory-error") == 0)
				memory = 1;
		if (!memory)
			continue;
		min = json_object();
		if (shown++ == 0)
			buf_adds(o,
			    "\nNot reproduced when run alone (such an error depends on what the cases "
			    "before it left on the heap), so not reduced; the first of them as the sample "
			    "ran them:\n");
		json_object_set(min, "code", review_get(c, "code"));
		json_object_set(min, "setup", review_get(c, "setup"));
		json_object_set(min, "flags", review_get(c, "flag_names"));
		json_object_set(min, "depth", review_get(c, "depth"));
		buf_adds(o, "\n");
		review_md_case(o, min);
		json_decref(min);
		review_md_asan_results(r, o, json_object_get(cause, "results"));
	}
}

/* "Base `x` (spec); candidates: `y` (...)": what was compared. */
static void review_md_builds(struct buf *o, const struct review *r)
{
	buf_addf(o, "Base `%s`", r->cur->builds[0].name);
	buf_addf(o, " (%s)", r->base_spec);
	buf_adds(o, "; candidates:");
	for (int c = 0; c < r->ncands; c++) {
		const struct review_cand *k = &r->cands[c];
		buf_addf(o, "%s `%s`", c ? ";" : "", k->name);
		if (k->prefix != NULL) {
			buf_addf(o, " (the build %s)", k->prefix);
		} else if (k->npatches > 1) {
			buf_addf(o, ", a series of %d commits:", k->npatches);
			for (int p = 0; p < k->npatches; p++)
				buf_addf(o, "%s `%s@%d` %s", p ? "," : "", k->name, p + 1,
				    review_base_name(k->patches[p]));
		} else {
			buf_addf(o, " (%s)", review_base_name(k->patches[0]));
		}
	}
	buf_adds(o, ".\n\n");
}

/* The verdict table: one row a candidate build, one column a suite. */
static void review_md_verdicts(struct buf *o, const struct review *r)
{
	long long stored_total = review_int(r->stored, "total");
	long long phpt_total = review_int(r->phpt, "total");

	buf_adds(o,
	    "| build | generated calls | stored cases | ext/json/tests | root causes |\n"
	    "|---|---:|---:|---|---:|\n");
	for (int b = 1; b < r->cur->nbuilds; b++) {
		const struct review_build *rb = &r->cur->builds[b];
		struct review_tally t = review_tally_of(r, rb);
		json_t *reg;
		size_t k;

		buf_addf(o, "| `%s` | ", rb->name);
		if (t.mismatches == 0) {
			buf_adds(o, "identical on ");
			review_md_thousands(o, r->count);
		} else {
			buf_adds(o, "**");
			review_md_thousands(o, t.mismatches);
			buf_adds(o, " differ** of ");
			review_md_thousands(o, r->count);
			if (t.crashes > 0) {
				buf_adds(o, " (");
				review_md_thousands(o, t.crashes);
				buf_adds(o, " crashes)");
			}
		}
		buf_adds(o, " | ");
		if (t.stored_differ == 0)
			buf_addf(o, "identical on %lld", stored_total);
		else
			buf_addf(o, "**%lld differ** of %lld", t.stored_differ, stored_total);
		buf_adds(o, " | ");
		if (json_array_size(t.regressions) == 0 && t.phpt_differ == 0) {
			buf_addf(o, "the base's results (%lld tests)", phpt_total);
		} else {
			buf_addf(o, "**%zu regressions**", json_array_size(t.regressions));
			json_array_foreach (t.regressions, k, reg)
				buf_addf(o, "%s %s", k ? "," : ":", json_string_value(reg));
		}
		buf_addf(o, " | %s%lld%s |\n", t.roots ? "**" : "", t.roots, t.roots ? "**" : "");
	}
}

/* Root cause number n (from 1): where it was found, its minimal case and
 * each build's result of it, or why it has none. */
static void review_md_cause(struct buf *o, const struct review *r, size_t n, json_t *cause)
{
	json_t *min = json_object_get(cause, "minimal"), *results = json_object_get(cause, "results");
	json_t *builds = json_object_get(cause, "builds"), *v;
	const char *series;
	size_t k;

	buf_addf(o, "\n#### Root cause %zu", n);
	json_object_foreach (json_object_get(cause, "first_commits"), series, v)
		buf_addf(o, ", `%s`: first in commit %" JSON_INTEGER_FORMAT " (`%s`)", series,
		    review_int(v, "commit"), review_base_name(review_str(v, "patch")));
	buf_adds(o, "\n\nFound on");
	json_array_foreach (builds, k, v)
		buf_addf(o, "%s `%s`", k ? "," : "", json_string_value(v));
	buf_addf(o, ": %" JSON_INTEGER_FORMAT " bucket%s (", review_int(cause, "buckets"),
	    review_int(cause, "buckets") == 1 ? "" : "s");
	json_array_foreach (json_object_get(cause, "bucket_ids"), k, v)
		buf_addf(o, "%s#%" JSON_INTEGER_FORMAT, k ? ", " : "", json_integer_value(v));
	buf_adds(o, ").\n\n");
	if (!json_is_object(min)) {
		const char *why = review_str(cause, "not_reduced");
		if (strcmp(why, "not_reproduced") == 0)
			buf_adds(o,
			    "Not reproduced when run alone: these mismatches need the cases run "
			    "before them, or are not deterministic; no minimal case (each bucket "
			    "shows its own).\n");
		else if (*why)
			buf_addf(o, "Not reduced: %s.\n", why);
		else
			buf_addf(
			    o, "Not reduced yet: the reducer did not settle within %ld s.\n", r->settle_s);
		return;
	}
	review_md_case(o, min);
	buf_adds(o, "\n| build | output | json_last_error() |\n|---|---|---|\n");
	for (int b = 0; b < r->cur->nbuilds; b++) {
		json_t *res = json_object_get(results, r->cur->builds[b].name);
		if (res == NULL)
			continue;
		buf_addf(o, "| `%s` | ", r->cur->builds[b].name);
		review_md_result(o, res);
		buf_adds(o, " |\n");
	}
	/* What released PHP answers to it (issue 49): is this new? */
	const char *released = review_str(cause, "released");
	if (*released)
		buf_addf(o, "\nReleased PHP: %s.\n", released);
}

static char *review_markdown(const struct review *r)
{
	struct buf o = BUF_INIT;
	json_t *cause;
	size_t i;

	buf_addf(&o, "### phpcmp review: %s\n\n",
	    review_verdict(r) ? "**differences** from the base" : "every candidate gives the base's outputs");
	review_md_builds(&o, r);
	review_md_verdicts(&o, r);
	buf_addf(&o,
	    "\nGenerated calls: seed %ld, generator version %" JSON_INTEGER_FORMAT "; every build "
	    "made the same corpus.\n",
	    r->seed, review_int(json_object_get(r->generated, "summary"), "generator_version"));
	/* the root causes, one per minimal case */
	json_array_foreach (json_object_get(r->roots, "causes"), i, cause)
		review_md_cause(&o, r, i + 1, cause);
	json_int_t pending = review_int(json_object_get(r->roots, "pending"), "generated") +
	    review_int(json_object_get(r->roots, "pending"), "stored");
	if (pending > 0)
		buf_addf(&o,
		    "\n%" JSON_INTEGER_FORMAT " bucket%s still being reduced when the review ended "
		    "(--settle %ld).\n",
		    pending, pending == 1 ? " was" : "s were", r->settle_s);

	review_md_asan(r, &o);
	buf_adds(&o, "\n#### ext/json/tests\n\n");
	review_md_body(&o, r->phpt_line);
	buf_adds(&o, "\n#### Instructions per json_encode() call\n\n");
	review_md_body(&o, r->measure_md);
	return buf_detach(&o, NULL);
}

static char *review_json_report(const struct review *r)
{
	json_t *o = json_object(), *builds = json_array(), *causes = json_object_get(r->roots, "causes");
	char *markdown = review_markdown(r);
	char *text;

	for (int b = 0; b < r->cur->nbuilds; b++) {
		const struct review_build *rb = &r->cur->builds[b];
		json_t *j = json_pack(
		    "{s:s,s:s,s:s}", "name", rb->name, "role", rb->role, "prefix", rb->prefix);
		if (rb->candidate >= 0) {
			struct review_tally t = review_tally_of(r, rb);
			json_object_set_new(j, "candidate", json_string(r->cands[rb->candidate].name));
			if (rb->commit > 0)
				json_object_set_new(j, "commit", json_integer(rb->commit));
			json_object_set_new(j, "differs", json_boolean(review_build_differs(r, rb)));
			json_object_set_new(j, "generated_mismatches", json_integer(t.mismatches));
			json_object_set_new(j, "crashes", json_integer(t.crashes));
			json_object_set_new(j, "stored_differ", json_integer(t.stored_differ));
			json_object_set_new(j, "roots", json_integer(t.roots));
			if (review_memory_errors(r, rb->name) >= 0)
				json_object_set_new(
				    j, "asan_memory_errors", json_integer(review_memory_errors(r, rb->name)));
			json_object_set(j, "phpt_regressions", t.regressions ? t.regressions : json_array());
		}
		json_array_append_new(builds, j);
	}
	json_object_set_new(o, "verdict", json_string(review_verdict(r) ? "differ" : "same"));
	json_object_set_new(o, "builds", builds);
	json_object_set(o, "causes", causes);
	json_object_set_new(o, "runs",
	    json_pack("{s:I,s:I,s:I,s:I}", "generated", (json_int_t)r->run_generated, "stored",
	        (json_int_t)r->run_stored, "phpt", (json_int_t)r->run_phpt, "measure",
	        (json_int_t)r->run_measure));
	json_object_set(o, "generated", json_object_get(r->generated, "summary"));
	json_object_set(o, "phpt", json_object_get(r->phpt, "summary"));
	json_object_set(o, "measurements", r->measurements);
	json_t *asan = json_object();
	json_object_set_new(asan, "skipped", r->asan_skipped ? json_string(r->asan_skipped) : json_null());
	if (r->asan_skipped == NULL) {
		json_t *names = json_array();
		for (int b = 0; b < r->asan.nbuilds; b++)
			json_array_append_new(names, json_string(r->asan.builds[b].name));
		json_object_set_new(asan, "builds", names);
		json_object_set_new(asan, "count", json_integer(r->asan_count));
		json_object_set(asan, "generated", review_get(r->asan_generated, "summary"));
		json_object_set(asan, "causes", review_get(r->asan_roots, "causes"));
		json_object_set(asan, "samples", r->asan_samples ? r->asan_samples : json_null());
	}
	json_object_set_new(o, "asan", asan);
	json_object_set_new(o, "markdown", json_string(markdown != NULL ? markdown : ""));
	free(markdown);
	text = json_dumps(o, JSON_INDENT(1));
	json_decref(o);
	return text;
}

int review_write(const struct review *r)
{
	char *text = r->json ? review_json_report(r) : review_markdown(r);
	FILE *f = stdout;
	int rc = 0;

	if (text == NULL)
		return cmd_error("review", "out of memory writing the report");
	if (r->out_path != NULL && (f = fopen(r->out_path, "w")) == NULL) {
		free(text);
		return cmd_error("review", "--out %s: %s", r->out_path, strerror(errno));
	}
	if (fputs(text, f) == EOF || (r->json && fputc('\n', f) == EOF))
		rc = cmd_error("review", "writing the report: %s", strerror(errno));
	if (f != stdout && fclose(f) != 0)
		rc = cmd_error("review", "--out %s: %s", r->out_path, strerror(errno));
	else if (f == stdout)
		fflush(stdout);
	free(text);
	return rc;
}

/* The review kept by the --url daemon (POST /api/reviews): the verdict, the
 * builds by both names, the runs and the Markdown report; 0, or -1 (said). */
int review_keep(struct review *r, int verdict)
{
	char *md = review_markdown(r), *text = NULL;
	json_t *builds = json_array(), *body = NULL, *ans = NULL;
	int rc = -1;

	for (int i = 0; i < r->rel.nbuilds && builds != NULL; i++) {
		const struct review_build *b = &r->rel.builds[i];
		json_t *patches = json_array();
		for (int p = 0; p < b->npatches; p++)
			json_array_append_new(patches, json_string(review_base_name(b->patches[p])));
		json_array_append_new(builds,
		    json_pack("{s:s s:s s:i s:o}", "name", b->name, "daemon_name", b->dname, "commit",
		        b->commit, "patches", patches));
	}
	if (md != NULL && builds != NULL)
		body = json_pack("{s:s s:s s:O s:{s:I s:I s:I s:I} s:s}", "label", r->label, "verdict",
		    verdict ? "differ" : "same", "builds", builds, "runs", "generated",
		    (json_int_t)r->run_generated, "stored", (json_int_t)r->run_stored, "phpt",
		    (json_int_t)r->run_phpt, "measure", (json_int_t)r->run_measure, "report_md", md);
	if (body == NULL || (text = json_dumps(body, JSON_COMPACT)) == NULL) {
		cmd_error("review", "out of memory keeping the review");
		goto out;
	}
	if ((ans = review_json(r, "POST", "/api/reviews", text, 201, 201)) == NULL)
		goto out;
	review_say(r, "the review is kept on the daemon: %s%s", r->url, review_str(ans, "url"));
	rc = 0;
out:
	json_decref(ans);
	json_decref(body);
	json_decref(builds);
	free(text);
	free(md);
	return rc;
}
