/*
 * Instruction-count reports: the reviewer's callgrind table for a run
 * (workload | base | head | delta %), as JSON for the page and as the
 * Markdown table php-src's benchmark CI puts in job summaries; a workload's
 * history across runs; and the callgrind files behind the counts.
 *
 * Instructions per call are instr_total / iterations, from the exact totals
 * kept in the database, so the table shows the same figure
 * callgrind_annotate --inclusive=yes gives for zif_json_encode divided by the
 * iteration count.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "services.h"

#define MEASURE_DEFAULT_THRESHOLD 1.0 /* percent: below this a change is noise */
#define MEASURE_HISTORY_MAX 500
#define MEASURE_ENCODER_FILE "ext/json/json_encoder.c"

/* threshold=PCT (0..1000, NULL: the default 1); -1 with e. */
static double measure_threshold(const char *s, struct svc_error *e)
{
	char *end;
	if (s == NULL)
		return MEASURE_DEFAULT_THRESHOLD;
	errno = 0;
	double t = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(t >= 0 && t <= 1000))
		return svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "threshold: expected a percentage from 0 to 1000, got \"%.32s\"", s);
	return t;
}

/* A build's count per call: total over the calls measured; NAN when not measured. */
static double measure_per_call(int64_t total, int64_t iterations)
{
	return total >= 0 && iterations > 0 ? (double)total / (double)iterations : NAN;
}

static int measure_collect(void *arg, const struct db_measurement *m)
{
	struct measure_table *t = arg;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct measure_row *p = realloc(t->rows, cap * sizeof(*p));
		if (!p)
			return -1;
		t->rows = p;
		t->cap = cap;
	}
	struct measure_row *r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	r->case_id = m->case_id;
	r->comparison_id = m->comparison_id;
	r->iterations = m->iterations;
	r->title = strdup(m->title ? m->title : "");
	r->source = m->source ? strdup(m->source) : NULL;
	if (!r->title)
		return -1;
	for (int role = 0; role < MAX_BUILDS; role++) {
		snprintf(
		    r->status[role], sizeof(r->status[role]), "%s", m->status[role] ? m->status[role] : "");
		r->per_call[role] = measure_per_call(m->instr_total[role], m->iterations);
	}
	double b = r->per_call[ROLE_BASE];
	for (int role = 0; role < MAX_BUILDS; role++) {
		double h = r->per_call[role];
		r->delta[role] = role != ROLE_BASE && !isnan(b) && !isnan(h) && b > 0 ? (h - b) / b * 100.0
		                                                                      : NAN;
	}
	r->delta_pct = r->delta[ROLE_HEAD];
	t->n++;
	return 0;
}

static void measure_rows_release(struct measure_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].title);
		free(t->rows[i].source);
	}
	free(t->rows);
}

/* A candidate's change: "regression", "improvement", "unchanged" or "unmeasured", counting it. */
static const char *measure_classify_one(struct measure_table *t, const struct measure_row *r, int role)
{
	struct measure_counts *c = &t->by[role];
	double d = r->delta[role];

	if (isnan(d)) {
		c->unmeasured++;
		return "unmeasured";
	}
	if (fabs(d) < t->threshold) {
		c->unchanged++;
		return "unchanged";
	}
	if (d > 0) {
		c->regressions++;
		return "regression";
	}
	c->improvements++;
	return "improvement";
}

/* The first candidate's change, counting every candidate's. */
static const char *measure_classify(struct measure_table *t, const struct measure_row *r)
{
	const char *head = measure_classify_one(t, r, ROLE_HEAD);

	for (int role = ROLE_HEAD + 1; role < t->nbuilds; role++)
		measure_classify_one(t, r, role);
	t->regressions = t->by[ROLE_HEAD].regressions;
	t->improvements = t->by[ROLE_HEAD].improvements;
	t->unchanged = t->by[ROLE_HEAD].unchanged;
	t->unmeasured = t->by[ROLE_HEAD].unmeasured;
	return head;
}

static const char *measure_change_name(const struct measure_table *t, double d)
{
	return isnan(d)              ? "unmeasured"
	    : fabs(d) < t->threshold ? "unchanged"
	    : d > 0                  ? "regression"
	                             : "improvement";
}

/*
 * The instructions of json_encoder.c's functions per call, from each
 * measured build's kept callgrind file (profile.c).  A stripped library's
 * dump names no source files: its figure stays unknown (NAN).
 */
static void measure_encoder(struct app *app, struct measure_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct measure_row *r = &t->rows[i];
		for (int role = 0; role < MAX_BUILDS; role++) {
			struct svc_error e;
			int64_t cost = -1;
			r->enc[role] = r->enc_delta[role] = NAN;
			if (role >= t->nbuilds || isnan(r->per_call[role]) ||
			    profile_file_cost(app, r->comparison_id, role, MEASURE_ENCODER_FILE, &cost, &e) <
			        0 ||
			    cost < 0)
				continue;
			r->enc[role] = (double)cost / (double)r->iterations;
			t->enc_known[role]++;
		}
		double b = r->enc[ROLE_BASE];
		for (int role = ROLE_HEAD; role < t->nbuilds; role++)
			if (!isnan(b) && !isnan(r->enc[role]) && b > 0)
				r->enc_delta[role] = (r->enc[role] - b) / b * 100.0;
	}
}

void measure_release(struct db_run *run, struct measure_table *t)
{
	db_run_release(run);
	measure_rows_release(t);
}

/* Load the run and its measured rows; 0, or -1 with e. */
static int measure_load(struct app *app, int64_t run_id, const char *threshold, struct db_run *run,
    struct measure_table *t, struct svc_error *e)
{
	char err[512];
	int rc;

	memset(t, 0, sizeof(*t));
	if ((t->threshold = measure_threshold(threshold, e)) < 0)
		return -1;
	if ((rc = db_run_get(app->db, run_id, run, err, sizeof(err))) <= 0) {
		if (rc == 0)
			return svc_fail(e, SVC_NOT_FOUND, NULL, "no run %" PRId64, run_id);
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	}
	t->nbuilds = run->nbuilds;
	if (db_run_measurements(app->db, run_id, measure_collect, t, err, sizeof(err)) < 0) {
		svc_fail(e, SVC_STORAGE, NULL, "%s", err);
		measure_release(run, t);
		return -1;
	}
	measure_encoder(app, t);
	return 0;
}

int measure_table(struct app *app, int64_t run_id, const char *threshold, struct db_run *run,
    struct measure_table *t, struct svc_error *e)
{
	if (measure_load(app, run_id, threshold, run, t, e) < 0)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		struct measure_row *r = &t->rows[i];
		r->change = measure_classify(t, r);
		for (int role = ROLE_HEAD; role < t->nbuilds; role++) {
			r->change_of[role] = measure_change_name(t, r->delta[role]);
			r->enc_change_of[role] = measure_change_name(t, r->enc_delta[role]);
		}
	}
	return 0;
}

/* 1234.5 -> "1,234.50", 3298 -> "3,298" (a whole count as one, as the docs
 * show it); Markdown tables read better with separators. */
static void measure_fmt(double v, char *buf, size_t size)
{
	if (isnan(v)) {
		snprintf(buf, size, "—");
		return;
	}
	char raw[64];
	snprintf(raw, sizeof(raw), v == floor(v) ? "%.0f" : "%.2f", v);
	text_grouped(raw, buf, size);
}

/* Table cells must not break the table. */
static void measure_cell(struct buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			buf_addf(out, "\\|");
		else if (*s == '\n' || *s == '\r')
			buf_addf(out, " ");
		else
			buf_addf(out, "%c", *s);
	}
}

/* A change as the reviewer's table writes it: "−19.2 %", "+7.3 %", "0.0 %", "—". */
static void measure_pct(struct buf *out, double d)
{
	if (isnan(d))
		buf_addf(out, "—");
	else if (fabs(d) < 0.05)
		buf_addf(out, "0.0 %%");
	else if (d < 0)
		buf_addf(out, "−%.1f %%", -d);
	else
		buf_addf(out, "+%.1f %%", d);
}

/*
 * The reviewer's table: a column per candidate with its Δ % vs the base,
 * and the base's own figure (instructions per call) first.
 */
static void measure_report_candidates(
    struct buf *out, const struct db_run *run, struct measure_table *t, int enc)
{
	char b[64];

	buf_addf(out, "### phpcmp run %" PRId64 ": instructions per `json_encode()` call\n\n", run->id);
	buf_addf(out, "base: %s (PHP %s); candidates: ", run->build_names[ROLE_BASE],
	    run->build_versions[ROLE_BASE]);
	for (int role = ROLE_HEAD; role < t->nbuilds; role++)
		buf_addf(out, "%s%s (PHP %s)", role > ROLE_HEAD ? ", " : "", run->build_names[role],
		    run->build_versions[role]);
	buf_addf(out,
	    ". Callgrind, inclusive instructions of `zif_json_encode` ÷ iterations; each candidate's "
	    "column is its Δ %% vs the base; noteworthy at |Δ| ≥ %.2f %%.\n\n",
	    t->threshold);
	if (enc)
		buf_addf(out,
		    "The `json_encoder.c` columns count only the instructions of the functions of "
		    "ext/json/json_encoder.c (their self cost, inlined helpers included), from each "
		    "build's kept callgrind file.\n\n");
	buf_addf(out, "| json_encode() of | %s (instructions) |", run->build_names[ROLE_BASE]);
	if (enc)
		buf_addf(out, " %s json_encoder.c |", run->build_names[ROLE_BASE]);
	for (int role = ROLE_HEAD; role < t->nbuilds; role++) {
		buf_addf(out, " ");
		measure_cell(out, run->build_names[role]);
		buf_addf(out, " |");
		if (enc) {
			buf_addf(out, " ");
			measure_cell(out, run->build_names[role]);
			buf_addf(out, " json_encoder.c |");
		}
	}
	buf_addf(out, "\n|---|---:|%s", enc ? "---:|" : "");
	for (int role = ROLE_HEAD; role < t->nbuilds; role++)
		buf_addf(out, "%s", enc ? "---:|---:|" : "---:|");
	buf_addf(out, "\n");
	for (size_t i = 0; i < t->n; i++) {
		struct measure_row *r = &t->rows[i];
		measure_classify(t, r);
		measure_fmt(r->per_call[ROLE_BASE], b, sizeof(b));
		buf_addf(out, "| ");
		measure_cell(out, r->title);
		buf_addf(out, " | %s |", b);
		if (enc) {
			measure_fmt(r->enc[ROLE_BASE], b, sizeof(b));
			buf_addf(out, " %s |", isnan(r->enc[ROLE_BASE]) ? "n/a" : b);
		}
		for (int role = ROLE_HEAD; role < t->nbuilds; role++) {
			buf_addf(out, " ");
			measure_pct(out, r->delta[role]);
			buf_addf(out, " |");
			if (enc) {
				buf_addf(out, " ");
				if (isnan(r->enc_delta[role]))
					buf_addf(out, "n/a");
				else
					measure_pct(out, r->enc_delta[role]);
				buf_addf(out, " |");
			}
		}
		buf_addf(out, "\n");
	}
	buf_addf(out, "\n");
	for (int role = ROLE_HEAD; role < t->nbuilds; role++) {
		const struct measure_counts *c = &t->by[role];
		buf_addf(out, "- %s: %d regression%s, %d improvement%s, %d unchanged", run->build_names[role],
		    c->regressions, c->regressions == 1 ? "" : "s", c->improvements,
		    c->improvements == 1 ? "" : "s", c->unchanged);
		if (c->unmeasured)
			buf_addf(out, ", %d not measured", c->unmeasured);
		buf_addf(out, "\n");
	}
	for (int role = 0; enc && role < t->nbuilds; role++)
		if (t->enc_known[role] == 0)
			buf_addf(out,
			    "- %s: json_encoder.c unavailable (n/a): its callgrind files name no source files "
			    "(a stripped library, such as Debian's; build from source to keep them)\n",
			    run->build_names[role]);
	if (strcmp(run->status, "done") != 0) {
		char note[1200];
		run_status_note(run->status, run->error, note, sizeof note);
		buf_addf(out, "%s%s\n", note[0] == ' ' ? "\n" : "", note[0] == ' ' ? note + 1 : note);
	}
}

int measure_report_md(struct app *app, int64_t run_id, const char *threshold, const char *columns,
    const char *encoder, char **text, size_t *len, struct svc_error *e)
{
	struct db_run run;
	struct measure_table t;
	struct buf out = BUF_INIT;
	char b[64], h[64];

	if (columns != NULL && strcmp(columns, "candidates") != 0 && strcmp(columns, "builds") != 0)
		return svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "columns: expected candidates (a Δ %% column per candidate) or builds, got \"%.32s\"",
		    columns);
	if (encoder != NULL && strcmp(encoder, "0") != 0 && strcmp(encoder, "1") != 0)
		return svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "json_encoder: expected 1 (add json_encoder.c's columns) or 0, got \"%.32s\"", encoder);
	int enc = encoder != NULL && strcmp(encoder, "1") == 0;
	if (enc && columns != NULL && strcmp(columns, "builds") == 0)
		return svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "json_encoder=1 adds columns to the candidates table: not with columns=builds");
	switch (phptrun_report_md(app, run_id, text)) { /* a phpt run's report is phptrun's */
	case 1: {
		char *cov = coverage_report_md(app, run_id);
		if (cov != NULL) {
			buf_adds(&out, *text);
			buf_adds(&out, cov);
			free(cov);
			free(*text);
			if ((*text = buf_detach(&out, len)) == NULL)
				return svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
			return 0;
		}
		*len = strlen(*text);
		return 0;
	}
	case -1:
		return svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
	}
	if (measure_load(app, run_id, threshold, &run, &t, e) < 0)
		return -1;
	/* A stored or generated run reports its verdicts, not instructions (runreport.c). */
	if (strcmp(run.suite, "stored") == 0 || strcmp(run.suite, "generated") == 0) {
		if (run_report_md(app, &run, text, len, e) < 0) {
			measure_release(&run, &t);
			return -1;
		}
		buf_adds(&out, *text);
		free(*text);
		goto done;
	}
	/* More than one candidate, or asked for: the reviewer's table. */
	if ((columns != NULL && strcmp(columns, "candidates") == 0) ||
	    (columns == NULL && (t.nbuilds > 2 || enc))) {
		measure_report_candidates(&out, &run, &t, enc);
		goto done;
	}
	buf_addf(&out, "### phpcmp run %" PRId64 ": instructions per `json_encode()` call\n\n", run.id);
	buf_addf(&out,
	    "base: %s (PHP %s), head: %s (PHP %s); callgrind, inclusive instructions of "
	    "`zif_json_encode` ÷ iterations; noteworthy at |Δ| ≥ %.2f %%.\n\n",
	    run.build_names[ROLE_BASE], run.build_versions[ROLE_BASE], run.build_names[ROLE_HEAD],
	    run.build_versions[ROLE_HEAD], t.threshold);
	buf_addf(&out, "| json_encode() of | base | head | Δ %% |\n|---|---:|---:|---:|\n");
	for (size_t i = 0; i < t.n; i++) {
		struct measure_row *r = &t.rows[i];
		const char *change = measure_classify(&t, r);
		measure_fmt(r->per_call[ROLE_BASE], b, sizeof(b));
		measure_fmt(r->per_call[ROLE_HEAD], h, sizeof(h));
		buf_addf(&out, "| ");
		measure_cell(&out, r->title);
		buf_addf(&out, " | %s | %s | ", b, h);
		if (isnan(r->delta_pct))
			buf_addf(&out, "— |\n");
		else if (strcmp(change, "unchanged") == 0)
			buf_addf(&out, "%+.2f %% |\n", r->delta_pct);
		else
			buf_addf(&out, "**%+.2f %%** |\n", r->delta_pct);
	}
	buf_addf(&out, "\n%d regression%s, %d improvement%s, %d unchanged", t.regressions,
	    t.regressions == 1 ? "" : "s", t.improvements, t.improvements == 1 ? "" : "s", t.unchanged);
	if (t.unmeasured)
		buf_addf(&out, ", %d not measured (see the run's cases)", t.unmeasured);
	char note[1200];
	buf_addf(&out, ".%s\n", run_status_note(run.status, run.error, note, sizeof note));
done:
	measure_release(&run, &t);
	char *cov = coverage_report_md(app, run_id); /* a coverage run's figures */
	if (cov != NULL)
		buf_adds(&out, cov);
	free(cov);
	if ((*text = buf_detach(&out, len)) == NULL)
		return svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
	return 0;
}

struct measure_history_ctx {
	measure_point_fn fn;
	void *arg;
};

static int measure_history_point(void *arg, const struct db_workload_point *p)
{
	struct measure_history_ctx *h = arg;
	struct measure_point pt = { .p = p };

	for (int role = 0; role < MAX_BUILDS; role++)
		pt.per_call[role] = role < p->nbuilds ? measure_per_call(p->instr_total[role], p->iterations)
		                                      : NAN;
	return h->fn(h->arg, &pt);
}

int measure_history(struct app *app, const char *source, const char *cs, const char *ls, int64_t *case_id,
    measure_point_fn fn, void *arg, struct svc_error *e)
{
	struct measure_history_ctx h = { fn, arg };
	char err[512];
	long limit = 100;

	*case_id = 0;
	if ((source == NULL) == (cs == NULL))
		return svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "give exactly one of source (a file under cases/) or case (an id)");
	if (cs != NULL) {
		if ((*case_id = id_parse_str(cs)) < 1)
			return svc_fail(
			    e, SVC_BAD_REQUEST, NULL, "case: expected a positive integer, got \"%.32s\"", cs);
	}
	if (ls != NULL) {
		int64_t n = id_parse_str(ls);
		limit = n >= 1 && n <= MEASURE_HISTORY_MAX ? (int)n : 0;
		if (limit < 1)
			return svc_fail(e, SVC_BAD_REQUEST, NULL, "limit: expected 1 to %d, got \"%.32s\"",
			    MEASURE_HISTORY_MAX, ls);
	}
	if (db_workload_history(
	        app->db, source, *case_id, (int)limit, measure_history_point, &h, err, sizeof(err)) < 0)
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	return 0;
}

int measure_dump(
    struct app *app, int64_t comparison_id, const char *role, struct export_file *out, struct svc_error *e)
{
	int r = role_parse(role);

	memset(out, 0, sizeof *out);
	if (r < 0)
		return svc_fail(
		    e, SVC_NOT_FOUND, NULL, "no build role \"%.16s\" (base, head, cand2...)", role);
	if ((out->text = profile_read_dump(app, comparison_id, r, &out->len, e)) == NULL) {
		e->code = NULL; /* the download's 404 stays a plain not_found */
		return -1;
	}
	snprintf(out->disposition, sizeof(out->disposition),
	    "attachment; filename=\"callgrind.out.phpcmp-%" PRId64 "-%s\"", comparison_id, role);
	return 0;
}
