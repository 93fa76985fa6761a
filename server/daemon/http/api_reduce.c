/*
 * The reductions on the API (docs/api.md, "Reduction"): a bucket's JSON
 * led by its minimal case, and GET /api/roots, the mismatches grouped by
 * root cause with the reducer's progress.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

/* A reduction as the API shows it (docs/api.md, "Reduction"). */
static json_t *api_reduction_json(const struct db_reduction_row *r)
{
	json_t *o = json_object(), *out = NULL;
	char url[192];

	json_object_set_new(o, "state", text_json(r->state));
	json_object_set_new(o, "code", text_json(r->code));
	json_object_set_new(o, "setup", text_json(r->setup));
	json_object_set_new(o, "flags", text_flag_names(r->has_flags ? r->flags : 0));
	json_object_set_new(o, "flags_value", r->has_flags ? json_integer(r->flags) : json_null());
	json_object_set_new(o, "depth", r->has_depth ? json_integer(r->depth) : json_null());
	json_object_set_new(
	    o, "value_bytes", json_integer(r->code != NULL ? (json_int_t)strlen(r->code) : 0));
	/* The stored JSON of each build's result; an output too big to keep inline
	 * points at the exact bytes in the reduced case's comparison. */
	if (r->outputs != NULL)
		out = json_loads(r->outputs, 0, NULL);
	if (out != NULL && r->reduced_comparison_id > 0) {
		const char *role;
		json_t *res;
		json_object_foreach (out, role, res) {
			if (json_array_size(json_object_get(res, "omitted")) == 0)
				continue;
			api_result_url(r->reduced_comparison_id, "output", role, url, sizeof url);
			json_object_set_new(res, "output_url", json_string(url));
		}
	}
	json_object_set_new(o, "outputs", out != NULL ? out : json_null());
	json_object_set_new(o, "case_id", api_id_or_null(r->case_id));
	if (r->case_id > 0) {
		snprintf(url, sizeof url, "/#/cases/%" PRId64, r->case_id);
		json_object_set_new(o, "url", json_string(url));
		snprintf(url, sizeof url, "/api/cases/%" PRId64 "/phpt", r->case_id);
		json_object_set_new(o, "phpt_url", json_string(url));
	}
	json_object_set_new(o, "confirmation", text_json(r->confirmation));
	json_object_set_new(o, "steps", json_integer(r->steps));
	json_object_set_new(o, "executions", json_integer(r->executions));
	json_object_set_new(o, "seconds", json_real(r->seconds));
	json_object_set_new(o, "complete", json_boolean(r->complete));
	json_object_set_new(o, "found_as",
	    json_pack("{s:o s:o s:o}", "title", text_json(r->found_title), "case_id",
	        api_id_or_null(r->found_case_id), "comparison_id", api_id_or_null(r->found_comparison_id)));
	json_object_set_new(o, "signature", text_json(r->signature));
	json_object_set_new(o, "root_key", text_json(r->root_key));
	return o;
}

json_t *api_reduce_lead(struct app *app, json_t *bucket)
{
	struct db_reduce_bucket red;
	char err[512];
	json_t *o, *samples, *joined, *v;
	const char *key;

	if (bucket == NULL || !json_is_object(bucket))
		return bucket;
	if (db_reduce_bucket(
	        app->db, json_integer_value(json_object_get(bucket, "id")), &red, err, sizeof err) < 0)
		return bucket;
	/* minimal first, then the bucket as it was, then the rest of what reduction knows. */
	o = json_object();
	json_object_set_new(
	    o, "minimal", red.minimal != NULL ? api_reduction_json(red.minimal) : json_null());
	json_object_foreach (bucket, key, v) {
		json_object_set(o, key, v);
	}
	json_object_set_new(o, "root_id", api_id_or_null(red.root_id));
	json_object_set_new(
	    o, "released", api_released_line(app, red.minimal != NULL ? red.minimal->case_id : 0));
	joined = json_array();
	for (size_t i = 0; i < red.njoined; i++)
		json_array_append_new(joined,
		    json_pack("{s:I s:I}", "id", (json_int_t)red.joined[i].id, "mismatches",
		        (json_int_t)red.joined[i].mismatches));
	json_object_set_new(o, "joined", joined);
	samples = json_array();
	for (size_t i = 0; i < red.nsamples; i++)
		json_array_append_new(samples, api_reduction_json(&red.samples[i]));
	json_object_set_new(o, "samples", samples);
	db_reduce_bucket_release(&red);
	json_decref(bucket);
	return o;
}

json_t *api_reduction_totals(const struct db_roots *roots)
{
	return json_pack("{s:I s:I s:I s:f s:I s:f s:I}", "buckets_pending", (json_int_t)roots->pending,
	    "reductions", (json_int_t)roots->reductions, "executions", (json_int_t)roots->executions,
	    "seconds", roots->seconds, "most_executions", (json_int_t)roots->most_executions, "most_seconds",
	    roots->most_seconds, "unreduced", (json_int_t)roots->nunreduced);
}

/* One root of GET /api/roots (an unreduced one with why and reason). */
static json_t *api_root_json(const struct db_root *r)
{
	json_t *ids = json_array(), *states = json_object(), *o;

	for (int64_t k = 0; k < r->buckets; k++)
		json_array_append_new(ids, json_integer(r->bucket_ids[k]));
	for (size_t k = 0; k < r->nstates; k++)
		json_object_set_new(states, r->states[k].name, json_integer(r->states[k].buckets));
	o = json_pack("{s:I s:o s:I s:I s:o s:o s:o}", "bucket_id", (json_int_t)r->bucket_id,
	    /* the candidate build its mismatches are of (null: stored before candidates) */
	    "candidate", text_json(r->candidate), "buckets", (json_int_t)r->buckets, "mismatches",
	    (json_int_t)r->mismatches, "bucket_ids", ids, "states", states, "minimal",
	    r->minimal != NULL ? api_reduction_json(r->minimal) : json_null());
	if (o != NULL && r->why != NULL) {
		json_object_set_new(o, "why", json_string(r->why));
		json_object_set_new(o, "reason", json_string(r->reason));
	}
	return o;
}

/* GET /api/roots: {"roots": [...], "unreduced": [...], "buckets", "reduction"} (docs/api.md). */
static json_t *api_roots_json(struct app *app, const struct db_roots *roots)
{
	json_t *list = json_array(), *unreduced = json_array();

	for (size_t i = 0; i < roots->n; i++) {
		json_t *o = api_root_json(&roots->roots[i]);
		const struct db_reduction_row *m = roots->roots[i].minimal;
		/* What released PHP answers to its minimal case, once asked (api_references.c). */
		if (o != NULL)
			json_object_set_new(
			    o, "released", api_released_line(app, m != NULL ? m->case_id : 0));
		json_array_append_new(list, o);
	}
	for (size_t i = 0; i < roots->nunreduced; i++)
		json_array_append_new(unreduced, api_root_json(&roots->unreduced[i]));
	return json_pack("{s:o s:o s:I s:o}", "roots", list, "unreduced", unreduced, "buckets",
	    (json_int_t)roots->buckets, "reduction", api_reduction_totals(roots));
}

/* The reducer's figures since the daemon started; null without one. */
static json_t *api_reducer_json(struct reducer *rd)
{
	struct reduce_stats st;

	if (!reduce_status(rd, &st))
		return json_null();
	return json_pack("{s:b s:I s:I s:f s:o}", "enabled", st.enabled, "reductions",
	    (json_int_t)st.reductions, "executions", (json_int_t)st.executions, "seconds", st.seconds,
	    "busy_bucket_id", st.busy_bucket_id > 0 ? json_integer(st.busy_bucket_id) : json_null());
}

void api_route_roots(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	const char *v = http_query(req, "run");
	struct db_roots roots;
	char err[512];
	int64_t run = -1;
	json_t *o;

	(void)a;
	if (v != NULL && (run = id_parse_str(v)) < 1) {
		api_error(resp, 400, "bad_request", "run: expected a run id");
		return;
	}
	if (run > 0) {
		struct db_run r;
		if (api_run_find(app, run, &r, resp) < 0)
			return;
		db_run_release(&r);
	}
	if (db_reduce_roots(app->db, run, 1, &roots, err, sizeof err) < 0) {
		api_fail(resp, err);
		return;
	}
	o = api_roots_json(app, &roots);
	db_roots_release(&roots);
	json_object_set_new(json_object_get(o, "reduction"), "reducer", api_reducer_json(app->reducer));
	api_json(resp, 200, o);
}
