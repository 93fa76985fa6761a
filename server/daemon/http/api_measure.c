/* /api/runs/:id/measurements, report.md, /api/workloads/history, /api/comparisons/:id/callgrind/:role
 * and /api/comparisons/:id/functions. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

void api_route_run_measurements(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;
	json_t *o;

	if (measure_table(app, a->id, http_query(req, "threshold"), &o, &e) < 0)
		api_svc(resp, &e);
	else
		api_json(resp, 200, o);
}

void api_route_run_report(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;

	if (measure_report_md(app, a->id, http_query(req, "threshold"), http_query(req, "columns"),
	        http_query(req, "json_encoder"), &resp->body, &resp->body_len, &e) < 0) {
		api_svc(resp, &e);
		return;
	}
	resp->status = 200;
	resp->content_type = "text/markdown; charset=utf-8";
}

void api_route_workload_history(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;
	json_t *o;

	(void)a;
	if (measure_history(app, http_query(req, "source"), http_query(req, "case"), http_query(req, "limit"),
	        &o, &e) < 0)
		api_svc(resp, &e);
	else
		api_json(resp, 200, o);
}

void api_route_callgrind(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct export_file f;
	struct svc_error e;

	(void)req;
	if (measure_dump(app, a->id, a->role, &f, &e) < 0) {
		api_svc(resp, &e);
		return;
	}
	resp->status = 200;
	resp->body = f.text;
	resp->body_len = f.len;
	resp->content_type = "application/octet-stream";
	snprintf(resp->disposition, sizeof resp->disposition, "%s", f.disposition);
}

/* A change in percent of base, two decimals; null without a base. */
static json_t *api_profile_pct(int64_t base, int64_t delta)
{
	return base > 0 ? json_real(round((double)delta / (double)base * 10000.0) / 100.0) : json_null();
}

static json_t *api_profile_costs(const struct profile_fn *f)
{
	return f ? json_pack("{s:I, s:I}", "self", (json_int_t)f->self, "inclusive", (json_int_t)f->inclusive)
	         : json_null();
}

static json_t *api_profile_side(const struct profile_side *s)
{
	return json_pack("{s:s, s:s, s:I, s:o, s:{s:I, s:I, s:I}}", "role", role_name(s->role), "name",
	    s->name, "total", (json_int_t)s->total, "json_encoder_c",
	    s->json_encoder_c >= 0 ? json_integer(s->json_encoder_c) : json_null(), "symbols", "functions",
	    (json_int_t)s->functions, "named", (json_int_t)s->named, "with_file", (json_int_t)s->with_file);
}

static json_t *api_profile_row(const struct profile_row *r)
{
	const struct profile_fn *f = r->b ? r->b : r->c;
	const char *change = !r->b ? "new"
	    : !r->c                ? "gone"
	    : r->dself > 0         ? "more"
	    : r->dself < 0         ? "less"
	                           : "same";

	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:s}", "name", f->name, "file",
	    f->file ? json_string(f->file) : json_null(), "object",
	    f->object ? json_string(f->object) : json_null(), "base", api_profile_costs(r->b), "candidate",
	    api_profile_costs(r->c), "delta_self", (json_int_t)r->dself, "delta_inclusive",
	    (json_int_t)r->dincl, "delta_self_pct", api_profile_pct(r->b ? r->b->self : 0, r->dself),
	    "change", change);
}

static json_t *api_profile_json(const struct profile_report *p)
{
	json_t *fns = json_array(), *files = json_array(), *builds = json_array();

	for (size_t i = 0; i < p->nrows; i++)
		json_array_append_new(fns, api_profile_row(&p->rows[i]));
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct profile_file *f = &p->files[i];
		json_array_append_new(files,
		    json_pack("{s:s, s:I, s:I, s:I, s:o}", "file", f->file, "base_self", (json_int_t)f->b,
		        "candidate_self", (json_int_t)f->c, "delta", (json_int_t)(f->c - f->b), "delta_pct",
		        api_profile_pct(f->b, f->c - f->b)));
	}
	/* The comparison's builds, for a switch between candidates. */
	for (int r = 0; r < p->cmp.nbuilds; r++)
		json_array_append_new(
		    builds, json_pack("{s:s, s:s}", "role", role_name(r), "name", p->cmp.build_names[r]));
	return json_pack(
	    "{s:I, s:I, s:s, s:I, s:s, s:o, s:o, s:o, s:o, s:o, s:{s:I, s:I, s:I, s:I}, s:b, s:o}",
	    "comparison_id", (json_int_t)p->comparison_id, "case_id", (json_int_t)p->cmp.case_id, "title",
	    p->c.spec.title ? p->c.spec.title : "", "iterations", (json_int_t)p->c.spec.iterations, "event",
	    p->event, "base", api_profile_side(&p->base), "candidate", api_profile_side(&p->candidate),
	    "file", p->file ? json_string(p->file) : json_null(), "functions", fns, "files", files, "counts",
	    "functions", (json_int_t)p->matched, "more", (json_int_t)p->more, "less", (json_int_t)p->less,
	    "same", (json_int_t)p->same, "truncated", p->matched > p->nrows, "builds", builds);
}

void api_route_functions(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;
	struct profile_report p;
	json_t *o;

	if (profile_functions(app, a->id, http_query(req, "vs"), http_query(req, "limit"),
	        http_query(req, "file"), &p, &e) < 0) {
		api_svc(resp, &e);
		return;
	}
	o = api_profile_json(&p);
	profile_release(&p);
	api_json(resp, 200, o); /* NULL: a 500 */
}
