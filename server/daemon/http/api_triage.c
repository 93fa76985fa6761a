/*
 * /api/buckets and /api/triage/events (docs/api.md, Triage) over the triage
 * rules (triage.c) and the triage tables (db_triage.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

#define TRIAGE_DEFAULT_LIMIT 50
#define TRIAGE_MAX_LIMIT 500

static int triage_limit(const struct http_request *req, int *limit, struct http_response *resp)
{
	const char *v = http_query(req, "limit");
	int64_t n;

	*limit = TRIAGE_DEFAULT_LIMIT;
	if (v == NULL)
		return 0;
	n = id_parse_str(v);
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
	if ((n = id_parse_str(v)) < 1) {
		api_error(resp, 400, "bad_request", "before: expected a positive integer id");
		return -1;
	}
	return n;
}

/* ?run=ID or ?run=submitted: *run (0 submitted, -1 absent), -1 after answering 400. */
static int triage_run_param(const struct http_request *req, int64_t *run, struct http_response *resp)
{
	const char *v = http_query(req, "run");

	*run = -1;
	if (v == NULL)
		return 0;
	if (strcmp(v, "submitted") == 0) {
		*run = 0;
		return 0;
	}
	if ((*run = id_parse_str(v)) < 1) {
		api_error(resp, 400, "bad_request", "run: expected a run id or \"submitted\"");
		return -1;
	}
	return 0;
}

/* ?state=...: the rule is triage_state_filter(); -1 after answering 400. */
static int triage_state_param(
    const struct http_request *req, char *set, size_t setsize, int *special, struct http_response *resp)
{
	struct svc_error e;

	if (triage_state_filter(http_query(req, "state"), set, setsize, special, &e) < 0) {
		api_svc(resp, &e);
		return -1;
	}
	return 0;
}

/* ---- the JSON of buckets, their mismatches and audit trail (docs/api.md, "A bucket") ---- */

static json_t *triage_pair_run(int64_t run_id, const char *at, int64_t comparison_id)
{
	return json_pack("{s:o s:o s:I}", "run_id", api_id_or_null(run_id), "at", text_json(at),
	    "comparison_id", (json_int_t)comparison_id);
}

json_t *api_bucket_json(const struct db_bucket *b)
{
	char url[64], api_url[64];
	json_t *o, *key = b->key != NULL ? json_loads(b->key, 0, NULL) : NULL;

	snprintf(url, sizeof url, "/#/buckets/%" PRId64, b->id);
	snprintf(api_url, sizeof api_url, "/api/buckets/%" PRId64, b->id);
	o = json_pack("{s:I s:s s:s s:o s:o s:o s:o s:I}", "id", (json_int_t)b->id, "url", url, "api_url",
	    api_url, "key", key != NULL ? key : json_null(), "state", text_json(b->state), "assignee",
	    text_json(b->assignee), "notes", text_json(b->notes), "mismatches", (json_int_t)b->mismatches);
	if (o == NULL)
		return NULL;
	json_object_set_new(o, "representative",
	    json_pack("{s:o s:I s:o}", "case_id", api_id_or_null(b->case_id), "comparison_id",
	        (json_int_t)b->first_comparison_id, "title", text_json(b->title)));
	json_object_set_new(
	    o, "first_seen", triage_pair_run(b->first_run_id, b->first_seen, b->first_comparison_id));
	json_object_set_new(
	    o, "last_seen", triage_pair_run(b->last_run_id, b->last_seen, b->last_comparison_id));
	/* The candidate build its mismatches are of (null: stored before candidates). */
	json_object_set_new(o, "candidate", text_json(b->candidate));
	json_object_set_new(o, "updated_at", text_json(b->updated_at));
	json_object_set_new(o, "updated_by", text_json(b->updated_by));
	json_object_set_new(o, "reappeared",
	    !b->reappeared
	        ? json_null()
	        : json_pack("{s:I s:o s:o}", "comparison_id", (json_int_t)b->reappeared_comparison_id,
	              "run_id", api_id_or_null(b->reappeared_run_id), "at", text_json(b->reappeared_at)));
	if (b->in_run) {
		json_object_set_new(o, "run",
		    json_pack("{s:o s:I s:o}", "id", api_id_or_null(b->run_id), "mismatches",
		        (json_int_t)b->run_mismatches, "representative",
		        json_pack("{s:o s:I s:o}", "case_id", api_id_or_null(b->run_case_id), "comparison_id",
		            (json_int_t)b->run_comparison_id, "title", text_json(b->run_title))));
		json_object_set_new(o, "earlier_runs", json_integer(b->earlier_runs));
	}
	return o;
}

static json_t *triage_event_json(const struct db_triage_event *e)
{
	json_t *changes = e->changes != NULL ? json_loads(e->changes, 0, NULL) : NULL;

	return json_pack("{s:I s:I s:o s:o s:o s:o s:o s:o}", "id", (json_int_t)e->id, "bucket_id",
	    (json_int_t)e->bucket_id, "at", text_json(e->at), "by", text_json(e->by), "action",
	    text_json(e->action), "changes", changes != NULL ? changes : json_object(), "run_id",
	    api_id_or_null(e->run_id), "comparison_id", api_id_or_null(e->comparison_id));
}

/* The bucket with its runs and audit trail. */
static json_t *triage_bucket_full_json(const struct db_bucket_full *f)
{
	json_t *o = api_bucket_json(&f->b), *runs = json_array(), *events = json_array();

	for (size_t i = 0; i < f->nruns; i++)
		json_array_append_new(runs,
		    json_pack("{s:o s:I s:I s:o}", "run_id", api_id_or_null(f->runs[i].run_id), "mismatches",
		        (json_int_t)f->runs[i].mismatches, "first_comparison_id",
		        (json_int_t)f->runs[i].first_comparison_id, "run_created_at",
		        text_json(f->runs[i].run_created_at)));
	for (size_t i = 0; i < f->nevents; i++)
		json_array_append_new(events, triage_event_json(&f->events[i]));
	if (o == NULL) {
		json_decref(runs);
		json_decref(events);
		return NULL;
	}
	json_object_set_new(o, "runs", runs);
	json_object_set_new(o, "events", events);
	return o;
}

/* {"new":{"buckets":n,"mismatches":m},...,"reappeared":{"buckets":k}} */
static json_t *triage_counts_json(const struct db_bucket_counts *c)
{
	json_t *o = json_object();

	for (size_t i = 0; i < c->nstates; i++)
		json_object_set_new(o, c->states[i].state,
		    json_pack("{s:I s:I}", "buckets", (json_int_t)c->states[i].buckets, "mismatches",
		        (json_int_t)c->states[i].mismatches));
	json_object_set_new(o, "reappeared", json_pack("{s:I}", "buckets", (json_int_t)c->reappeared));
	return o;
}

static json_t *triage_mismatch_json(const struct db_bucket_mismatch *m)
{
	char url[64];

	snprintf(url, sizeof url, "/#/cases/%" PRId64 "?comparison=%" PRId64, m->case_id, m->comparison_id);
	/* differs as a list, like the case listings */
	return json_pack("{s:I s:I s:o s:o s:o s:o s:I s:o s:o s:s}", "comparison_id",
	    (json_int_t)m->comparison_id, "case_id", (json_int_t)m->case_id, "run_id",
	    api_id_or_null(m->run_id), "differs", api_list(m->differs != NULL ? m->differs : ""),
	    "created_at", text_json(m->created_at), "title", text_json(m->title), "flags",
	    (json_int_t)m->flags, "flag_names", text_flag_names(m->flags), "file", text_json(m->file), "url",
	    url);
}

json_t *api_case_bucket(struct app *app, int64_t comparison_id)
{
	struct db_bucket b;
	json_t *o = NULL;

	if (db_bucket_of_comparison(app->db, comparison_id, &b) > 0)
		o = api_bucket_json(&b);
	db_bucket_release(&b);
	return o != NULL ? o : json_null();
}

/* ---- the endpoints ---- */

static void triage_buckets(struct app *app, const struct http_request *req, struct http_response *resp)
{
	struct db_bucket_filter f = { .cursor_count = INT64_MAX, .cursor_id = INT64_MAX };
	char set[96], err[512], next[256], cursor[64];
	const char *cur = http_query(req, "cursor");
	struct db_bucket *rows;
	struct db_bucket_counts counts;
	size_t n;
	int more, rc;
	json_t *list;

	if (triage_limit(req, &f.limit, resp) < 0 ||
	    triage_state_param(req, set, sizeof set, &f.special, resp) < 0)
		return;
	f.states = set;
	if (cur != NULL) {
		/* Opaque to clients (they follow "next"): "COUNT.ID" for a run's listing, "LAST.ID"
		 * for all buckets (LAST 0: a phpt bucket, no comparison), or the older "ID". */
		const char *dot = strchr(cur, '.');
		char head[24] = "";
		if (dot != NULL && (size_t)(dot - cur) < sizeof head) {
			memcpy(head, cur, (size_t)(dot - cur));
			head[dot - cur] = '\0';
			f.cursor_count = strcmp(head, "0") == 0 ? 0 : id_parse_str(head);
			f.cursor_id = id_parse_str(dot + 1);
		} else {
			f.cursor_id = id_parse_str(cur);
		}
		if (f.cursor_id < 1 || (dot != NULL && f.cursor_count < 1 && strcmp(head, "0") != 0)) {
			api_error(
			    resp, 400, "bad_request", "cursor: not a cursor this API gave (follow \"next\")");
			return;
		}
	}
	if (triage_run_param(req, &f.run, resp) < 0)
		return;
	/* ?candidate=NAME: that candidate build's buckets (names: letters, digits, . _ -). */
	if ((f.candidate = http_query(req, "candidate")) != NULL &&
	    (f.candidate[0] == '\0' || strlen(f.candidate) > 63 ||
	        strspn(f.candidate, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	            strlen(f.candidate))) {
		api_error(resp, 400, "bad_request", "candidate: expected a build's name");
		return;
	}
	rc = db_buckets_list(app->db, &f, &rows, &n, &counts, cursor, sizeof cursor, &more, err, sizeof err);
	if (rc == -2) {
		api_error(resp, 404, "not_found", "no run %" PRId64, f.run);
		return;
	}
	if (rc < 0) {
		api_fail(resp, err);
		return;
	}
	/* Each bucket led by its minimal case (api_reduce.c). */
	list = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(list, api_reduce_lead(app, api_bucket_json(&rows[i])));
		db_bucket_release(&rows[i]);
	}
	free(rows);
	snprintf(next, sizeof next, "/api/buckets?");
	/* The state filter as given: checked above to be names and commas only. */
	if (http_query(req, "state") != NULL && *http_query(req, "state") != '\0')
		snprintf(next + strlen(next), sizeof next - strlen(next), "state=%.80s&",
		    http_query(req, "state"));
	if (f.candidate != NULL)
		snprintf(next + strlen(next), sizeof next - strlen(next), "candidate=%s&", f.candidate);
	if (f.run > 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=%" PRId64 "&", f.run);
	else if (f.run == 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=submitted&");
	snprintf(next + strlen(next), sizeof next - strlen(next), "limit=%d&cursor=%s", f.limit, cursor);
	api_json(resp, 200,
	    json_pack("{s:o s:o s:o}", "buckets", list, "counts", triage_counts_json(&counts), "next",
	        more ? json_string(next) : json_null()));
}

static void triage_bucket(struct app *app, int64_t id, struct http_response *resp)
{
	struct db_bucket_full full;
	char err[512];
	json_t *o, *tests;
	int rc = db_bucket_get(app->db, id, &full, err, sizeof err);

	if (rc == 0) {
		api_error(resp, 404, "not_found", "no bucket %" PRId64, id);
		return;
	}
	if (rc < 0) {
		api_fail(resp, err);
		return;
	}
	o = triage_bucket_full_json(&full);
	db_bucket_full_release(&full);
	/* a phpt bucket (bucket_phpt_key): the tests in it, newest run first */
	const char *suite = json_string_value(json_object_get(json_object_get(o, "key"), "suite"));
	if (suite != NULL && strcmp(suite, "phpt") == 0) {
		struct db_phpt_bucket_test *list;
		size_t n;
		if (db_phpt_bucket_tests(app->db, id, 100, &list, &n, err, sizeof err) < 0) {
			json_decref(o);
			api_fail(resp, err);
			return;
		}
		tests = json_array();
		for (size_t i = 0; i < n; i++) {
			json_t *row = json_pack("{s:I s:s s:s s:s s:s s:s? s:s?}", "run_id",
			    (json_int_t)list[i].run_id, "test", list[i].test, "name", list[i].name, "role",
			    list[i].role, "status", list[i].status, "base_status", list[i].base_status,
			    "reason", list[i].reason);
			if (row != NULL)
				json_array_append_new(tests, row);
		}
		db_phpt_bucket_tests_free(list, n);
		json_object_set_new(o, "phpt_tests", tests);
	}
	api_json(resp, 200, api_reduce_lead(app, o));
}

static void triage_mismatches(
    struct app *app, int64_t id, const struct http_request *req, struct http_response *resp)
{
	char err[512], next[160];
	int64_t before, run, last;
	struct db_bucket_mismatch *rows;
	size_t n;
	int limit, more, rc;
	json_t *list;

	if (triage_limit(req, &limit, resp) < 0 || (before = triage_before(req, resp)) < 0 ||
	    triage_run_param(req, &run, resp) < 0)
		return;
	rc = db_bucket_mismatches(app->db, id, run, before, limit, &rows, &n, &last, &more, err, sizeof err);
	if (rc == -2) {
		api_error(resp, 404, "not_found", "no run %" PRId64, run);
		return;
	}
	if (rc == 0) {
		api_error(resp, 404, "not_found", "no bucket %" PRId64, id);
		return;
	}
	if (rc < 0) {
		api_fail(resp, err);
		return;
	}
	list = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(list, triage_mismatch_json(&rows[i]));
		db_bucket_mismatch_release(&rows[i]);
	}
	free(rows);
	snprintf(next, sizeof next, "/api/buckets/%" PRId64 "/mismatches?", id);
	if (run > 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=%" PRId64 "&", run);
	else if (run == 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=submitted&");
	snprintf(next + strlen(next), sizeof next - strlen(next), "limit=%d&before=%" PRId64, limit, last);
	api_json(resp, 200,
	    json_pack("{s:o s:o}", "mismatches", list, "next", more ? json_string(next) : json_null()));
}

static void triage_events(struct app *app, const struct http_request *req, struct http_response *resp)
{
	char err[512], next[160];
	const char *bv = http_query(req, "bucket");
	int64_t before, bucket = 0, last;
	struct db_triage_event *rows;
	size_t n;
	int limit, more;
	json_t *list;

	if (triage_limit(req, &limit, resp) < 0 || (before = triage_before(req, resp)) < 0)
		return;
	if (bv != NULL && (bucket = id_parse_str(bv)) < 1) {
		api_error(resp, 400, "bad_request", "bucket: expected a positive integer id");
		return;
	}
	if (db_triage_events(app->db, bucket, before, limit, &rows, &n, &last, &more, err, sizeof err) < 0) {
		api_fail(resp, err);
		return;
	}
	list = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(list, triage_event_json(&rows[i]));
		db_triage_event_release(&rows[i]);
	}
	free(rows);
	snprintf(next, sizeof next, "/api/triage/events?");
	if (bucket > 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "bucket=%" PRId64 "&", bucket);
	snprintf(next + strlen(next), sizeof next - strlen(next), "limit=%d&before=%" PRId64, limit, last);
	api_json(resp, 200,
	    json_pack("{s:o s:o}", "events", list, "next", more ? json_string(next) : json_null()));
}

/*
 * A change's body read into what it states (the rules are triage_change's):
 * only the known fields, each of its JSON type.  0, or -1 with e.
 */
static int triage_read(json_t *body, int bulk, struct triage_input *in, struct svc_error *e)
{
	static const char *const known[] = { "by", "state", "assignee", "notes", "ids", "joined", NULL };
	const char *key;
	json_t *v;
	size_t i;

	memset(in, 0, sizeof *in);
	json_object_foreach (body, key, v) {
		for (i = 0; known[i] != NULL; i++)
			if (strcmp(key, known[i]) == 0)
				break;
		if (known[i] == NULL || (!bulk && (strcmp(key, "ids") == 0 || strcmp(key, "joined") == 0))) {
			svc_fail(e, SVC_BAD_REQUEST, NULL, "unknown field \"%.64s\"", key);
			return -1;
		}
	}
	if ((v = json_object_get(body, "joined")) != NULL) {
		if (!json_is_boolean(v)) {
			svc_fail(e, SVC_BAD_REQUEST, NULL, "joined: expected true or false");
			return -1;
		}
		in->with_joined = json_is_true(v);
	}
	if ((v = json_object_get(body, "by")) != NULL && !json_is_null(v)) {
		if (!json_is_string(v)) {
			svc_fail(e, SVC_BAD_REQUEST, NULL, "by: expected a person's name (a string)");
			return -1;
		}
		in->by = json_string_value(v);
		in->by_len = json_string_length(v);
	}
	if ((v = json_object_get(body, "state")) != NULL) {
		if (!json_is_string(v)) {
			svc_fail(e, SVC_BAD_REQUEST, NULL,
			    "state: expected one of new, confirmed, expected, ignored, fixed");
			return -1;
		}
		in->state = json_string_value(v);
	}
	if ((v = json_object_get(body, "assignee")) != NULL) {
		in->set_assignee = 1;
		if (!json_is_null(v) && !json_is_string(v)) {
			svc_fail(e, SVC_BAD_REQUEST, NULL, "assignee: expected a person's name (a string)");
			return -1;
		}
		if (json_is_string(v)) {
			in->assignee = json_string_value(v);
			in->assignee_len = json_string_length(v);
		}
	}
	if ((v = json_object_get(body, "notes")) != NULL) {
		if (!json_is_string(v)) {
			svc_fail(e, SVC_BAD_REQUEST, NULL, "notes: expected a string");
			return -1;
		}
		in->notes = json_string_value(v);
		in->notes_len = json_string_length(v);
	}
	return 0;
}

/* The bulk form's "ids": 1..TRIAGE_MAX_IDS positive integers, each once (malloc'd, *n of them); NULL with e. */
static int64_t *triage_read_ids(json_t *body, size_t *n, struct svc_error *e)
{
	json_t *v = json_object_get(body, "ids"), *item;
	int64_t *ids;
	size_t i;

	if (triage_ids_count(json_is_array(v) ? json_array_size(v) : 0, e) < 0)
		return NULL;
	if ((ids = malloc(json_array_size(v) * sizeof *ids)) == NULL) {
		svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
		return NULL;
	}
	json_array_foreach (v, i, item) {
		if (!json_is_integer(item) || json_integer_value(item) < 1) {
			svc_fail(
			    e, SVC_BAD_REQUEST, NULL, "ids[%zu]: expected a positive integer bucket id", i);
			free(ids);
			return NULL;
		}
		ids[i] = json_integer_value(item);
	}
	*n = triage_ids_once(ids, json_array_size(v));
	return ids;
}

/*
 * A triage change: id > 0 one bucket, 0 the bulk form (body's "ids"), root
 * > 0 a root cause and every bucket that joined it (POST
 * /api/roots/{id}/triage).
 */
static void triage_post(
    struct app *app, int64_t id, int64_t root, const struct http_request *req, struct http_response *resp)
{
	struct db_triage_change ch;
	struct triage_input in;
	struct svc_error e;
	char err[512] = "";
	int64_t *ids = NULL, one = id > 0 ? id : root, missing;
	size_t n = 1;
	struct db_triage_result out;
	int rc, changed;
	json_t *body, *o, *list;

	if ((body = api_body(req, resp)) == NULL)
		return;
	if (triage_read(body, id == 0 && root == 0, &in, &e) < 0 ||
	    triage_change(req->who, &in, &ch, &e) < 0) {
		api_svc(resp, &e);
		goto out;
	}
	if (id == 0 && root == 0) {
		if ((ids = triage_read_ids(body, &n, &e)) == NULL) {
			api_svc(resp, &e);
			goto out;
		}
	} else {
		ids = &one;
	}
	if (root > 0) {
		ch.root = root;
		ch.with_joined = 1;
	}
	rc = db_triage_change(app->db, ids, n, &ch, id > 0, &changed, &missing, &out, err, sizeof err);
	if (rc == -2)
		api_error(resp, 404, "not_found", "no bucket %" PRId64 "%s", missing,
		    n > 1 ? " (nothing was changed)" : "");
	else if (rc == -3)
		api_error(resp, 409, "not_a_root",
		    "bucket %" PRId64 " joined root %" PRId64 ": triage the root (POST /api/roots/%" PRId64
		    "/triage)",
		    root, missing, missing);
	else if (rc < 0)
		api_fail(resp, err);
	else if (id > 0) {
		o = triage_bucket_full_json(&out.full);
		json_object_set_new(o, "changed", json_boolean(changed > 0));
		api_json(resp, 200, o);
	} else {
		list = json_array();
		for (size_t i = 0; i < out.n; i++)
			json_array_append_new(list, api_bucket_json(&out.list[i]));
		if (root > 0)
			api_json(resp, 200,
			    json_pack("{s:I s:i s:o}", "root_id", (json_int_t)root, "changed", changed,
			        "buckets", list));
		else
			api_json(resp, 200, json_pack("{s:i s:o}", "changed", changed, "buckets", list));
	}
	if (rc == 0)
		db_triage_result_release(&out);
out:
	if (ids != &one)
		free(ids);
	json_decref(body);
}

void api_route_buckets(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	triage_buckets(app, req, resp);
}

void api_route_buckets_triage(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	triage_post(app, 0, 0, req, resp);
}

void api_route_bucket(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)req;
	triage_bucket(app, a->id, resp);
}

void api_route_bucket_mismatches(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	triage_mismatches(app, a->id, req, resp);
}

void api_route_bucket_triage(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	triage_post(app, a->id, 0, req, resp);
}

void api_route_triage_events(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	(void)a;
	triage_events(app, req, resp);
}

void api_route_root_triage(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	triage_post(app, 0, a->id, req, resp);
}
