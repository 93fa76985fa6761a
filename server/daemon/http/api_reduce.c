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

json_t *api_reduce_lead(struct app *app, json_t *bucket)
{
	char err[512];
	json_t *red, *o;
	const char *key;
	json_t *v;

	if (bucket == NULL || !json_is_object(bucket))
		return bucket;
	red = db_reduce_bucket(app->db, json_integer_value(json_object_get(bucket, "id")), err, sizeof err);
	if (red == NULL)
		return bucket;
	/* minimal first, then the bucket as it was, then the rest of what reduction knows. */
	o = json_object();
	json_object_set(o, "minimal", json_object_get(red, "minimal"));
	json_object_foreach (bucket, key, v) {
		json_object_set(o, key, v);
	}
	json_object_set(o, "root_id", json_object_get(red, "root_id"));
	json_object_set(o, "joined", json_object_get(red, "joined"));
	json_object_set(o, "samples", json_object_get(red, "samples"));
	json_decref(red);
	json_decref(bucket);
	return o;
}

void api_route_roots(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	const char *v = http_query(req, "run");
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
		int rc = db_run_get(app->db, run, &r, err, sizeof err);
		if (rc <= 0) {
			if (rc < 0)
				api_fail(resp, err);
			else
				api_error(resp, 404, "not_found", "no run %" PRId64, run);
			return;
		}
		db_run_release(&r);
	}
	if (db_reduce_roots(app->db, run, &o, err, sizeof err) < 0) {
		api_fail(resp, err);
		return;
	}
	json_object_set_new(json_object_get(o, "reduction"), "reducer", reduce_status(app->reducer));
	api_json(resp, 200, o);
}
