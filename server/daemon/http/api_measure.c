/* /api/runs/:id/measurements, report.md, /api/workloads/history, /api/comparisons/:id/callgrind/:role
 * and /api/comparisons/:id/functions. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

/* Instructions per call and the like: two decimals; null where unknown. */
static json_t *api_measure_num(double v)
{
	return isnan(v) ? json_null() : json_real(round(v * 100) / 100);
}

static json_t *api_measure_row(
    const struct db_run *run, const struct measure_table *t, const struct measure_row *r)
{
	json_t *row = json_pack("{s:I, s:I, s:s, s:o, s:I}", "case_id", (json_int_t)r->case_id,
	    "comparison_id", (json_int_t)r->comparison_id, "title", r->title, "source",
	    r->source ? json_string(r->source) : json_null(), "iterations", (json_int_t)r->iterations);
	if (row == NULL)
		return NULL;
	for (int role = 0; role < t->nbuilds; role++) {
		char url[128];
		api_result_url(r->comparison_id, "callgrind", role_name(role), url, sizeof url);
		json_object_set_new(row, role_name(role),
		    json_pack("{s:s, s:o, s:o, s:o}", "status", r->status[role], "instructions",
		        api_measure_num(r->per_call[role]), "callgrind_url",
		        isnan(r->per_call[role]) ? json_null() : json_string(url), "json_encoder_c",
		        api_measure_num(r->enc[role])));
	}
	json_object_set_new(row, "delta_pct", api_measure_num(r->delta_pct));
	json_object_set_new(row, "change", json_string(r->change));
	/* Each candidate against the base, by build name. */
	json_t *cands = json_object();
	for (int role = ROLE_HEAD; role < t->nbuilds; role++)
		json_object_set_new(cands, run->build_names[role],
		    json_pack("{s:s s:o s:o s:s s:o s:o s:s}", "role", role_name(role), "instructions",
		        api_measure_num(r->per_call[role]), "delta_pct", api_measure_num(r->delta[role]),
		        "change", r->change_of[role], "json_encoder_c", api_measure_num(r->enc[role]),
		        "json_encoder_c_delta_pct", api_measure_num(r->enc_delta[role]),
		        "json_encoder_c_change", r->enc_change_of[role]));
	json_object_set_new(row, "candidates", cands);
	return row;
}

static json_t *api_measure_json(const struct db_run *run, const struct measure_table *t)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < t->n; i++)
		json_array_append_new(rows, api_measure_row(run, t, &t->rows[i]));
	json_t *body = json_pack("{s:I, s:s, s:s, s:f, s:o, s:{s:i, s:i, s:i, s:i}}", "run_id",
	    (json_int_t)run->id, "suite", run->suite, "status", run->status, "threshold_pct", t->threshold,
	    "workloads", rows, "counts", "regressions", t->regressions, "improvements", t->improvements,
	    "unchanged", t->unchanged, "unmeasured", t->unmeasured);
	json_t *builds = json_object(), *list = json_array(), *cand_counts = json_object();
	for (int role = 0; role < t->nbuilds; role++) {
		json_object_set_new(builds, role_name(role),
		    json_pack(
		        "{s:s, s:s}", "name", run->build_names[role], "version", run->build_versions[role]));
		/* json_encoder.c is known where the build kept its symbols (not Debian's stripped ones) */
		json_array_append_new(list,
		    json_pack("{s:s s:s s:s s:b}", "role", role_name(role), "name", run->build_names[role],
		        "version", run->build_versions[role], "json_encoder_c", t->enc_known[role] > 0));
		if (role != ROLE_BASE)
			json_object_set_new(cand_counts, run->build_names[role],
			    json_pack("{s:i, s:i, s:i, s:i}", "regressions", t->by[role].regressions,
			        "improvements", t->by[role].improvements, "unchanged", t->by[role].unchanged,
			        "unmeasured", t->by[role].unmeasured));
	}
	json_object_set_new(body, "builds", builds);
	json_object_set_new(body, "build_list", list);
	json_object_set_new(body, "candidate_counts", cand_counts);
	return body;
}

void api_route_run_measurements(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	struct svc_error e;
	struct db_run run;
	struct measure_table t;

	if (measure_table(app, a->id, http_query(req, "threshold"), &run, &t, &e) < 0) {
		api_svc(resp, &e);
		return;
	}
	json_t *o = api_measure_json(&run, &t);
	measure_release(&run, &t);
	api_json(resp, 200, o); /* NULL: a 500 */
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

static int api_history_point(void *arg, const struct measure_point *pt)
{
	const struct db_workload_point *p = pt->p;
	json_t *points = arg;
	json_t *o = json_pack("{s:I, s:s, s:I, s:I, s:s}", "run_id", (json_int_t)p->run_id, "run_created_at",
	    p->run_created_at ? p->run_created_at : "", "case_id", (json_int_t)p->case_id, "comparison_id",
	    (json_int_t)p->comparison_id, "title", p->title ? p->title : "");
	if (!o)
		return -1;
	for (int role = 0; role < p->nbuilds; role++)
		json_object_set_new(o, role_name(role),
		    json_pack("{s:s, s:s, s:s, s:o}", "build", p->build_name[role] ? p->build_name[role] : "",
		        "version", p->build_version[role] ? p->build_version[role] : "", "sha256_prefix",
		        p->build_sha[role] ? p->build_sha[role] : "", "instructions",
		        api_measure_num(pt->per_call[role])));
	return json_array_append_new(points, o);
}

void api_route_workload_history(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	const char *source = http_query(req, "source");
	struct svc_error e;
	json_t *points = json_array();
	int64_t case_id;

	(void)a;
	if (measure_history(app, source, http_query(req, "case"), http_query(req, "limit"), &case_id,
	        api_history_point, points, &e) < 0) {
		json_decref(points);
		api_svc(resp, &e);
		return;
	}
	api_json(resp, 200,
	    json_pack("{s:o, s:o, s:o}", "source", source ? json_string(source) : json_null(), "case_id",
	        case_id ? json_integer(case_id) : json_null(), "points", points));
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
	    "comparison_id", (json_int_t)p->cmp.id, "case_id", (json_int_t)p->cmp.case_id, "title",
	    p->c.spec.title ? p->c.spec.title : "", "iterations", (json_int_t)p->c.spec.iterations, "event",
	    p->pb.event, "base", api_profile_side(&p->base), "candidate", api_profile_side(&p->candidate),
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
