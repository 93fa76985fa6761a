/*
 * Triage: mismatches grouped in buckets (server/common/bucket.c makes the key),
 * each bucket's state, assignee and notes, and the audit trail of who
 * changed what (docs/api.md, "Triage").  The rules live here (what a state,
 * a name, a change may be; who makes it); the tables are behind db_* in
 * db_triage.c.
 *
 * States: new -> confirmed / expected / ignored / fixed (any state may be
 * set from any other).  A mismatch stored in a bucket marked fixed, in a
 * run started after it was marked (or submitted after it), flags the bucket
 * as reappeared; the flag stays until someone sets a state again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "services.h"

#define TRIAGE_DEFAULT_LIMIT 50
#define TRIAGE_MAX_LIMIT 500
#define TRIAGE_MAX_IDS 500 /* buckets in one bulk change */
#define TRIAGE_NAME_MAX 64 /* "by" and "assignee" */
#define TRIAGE_NOTES_MAX 16384

static const char *const triage_states[] = { "new", "confirmed", "expected", "ignored", "fixed", NULL };

/* ---- requests ---- */

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

/*
 * ?state=new,confirmed (any of the five), or "open" (new, confirmed, or
 * fixed and reappeared), or "reappeared".  Into the ?9/?10 parameters of
 * STATE_FILTER; -1 after answering.
 */
static int triage_state_filter(
    const struct http_request *req, char *set, size_t setsize, int *special, struct http_response *resp)
{
	const char *v = http_query(req, "state"), *p, *q;
	size_t n, i;

	set[0] = '\0';
	*special = 0;
	if (v == NULL || *v == '\0')
		return 0;
	if (strcmp(v, "open") == 0) {
		*special = 2;
		return 0;
	}
	if (strcmp(v, "reappeared") == 0) {
		*special = 1;
		return 0;
	}
	snprintf(set, setsize, ",");
	for (p = v; *p != '\0'; p = *q != '\0' ? q + 1 : q) {
		q = p + strcspn(p, ",");
		n = (size_t)(q - p);
		for (i = 0; triage_states[i] != NULL; i++)
			if (strlen(triage_states[i]) == n && strncmp(triage_states[i], p, n) == 0)
				break;
		if (triage_states[i] == NULL) {
			api_error(resp, 400, "bad_request",
			    "state: \"%.*s\" is not one of new, confirmed, expected, "
			    "ignored, fixed (or open, reappeared)",
			    (int)(n < 32 ? n : 32), p);
			return -1;
		}
		if (strlen(set) + n + 2 < setsize)
			strcat(strncat(set, p, n), ",");
	}
	return 0;
}

void triage_buckets(struct app *app, const struct http_request *req, struct http_response *resp)
{
	struct db_bucket_filter f = { .cursor_count = INT64_MAX, .cursor_id = INT64_MAX };
	char set[96], err[512], next[256], cursor[64];
	const char *cur = http_query(req, "cursor");
	int more, rc;
	json_t *list, *counts;

	if (triage_limit(req, &f.limit, resp) < 0 ||
	    triage_state_filter(req, set, sizeof set, &f.special, resp) < 0)
		return;
	f.states = set;
	if (cur != NULL) {
		/* Opaque to clients (they follow "next"): "ID" or "COUNT.ID" for a run's listing. */
		const char *dot = strchr(cur, '.');
		char head[24];
		if (dot != NULL && (size_t)(dot - cur) < sizeof head) {
			memcpy(head, cur, (size_t)(dot - cur));
			head[dot - cur] = '\0';
			f.cursor_count = id_parse_str(head);
			f.cursor_id = id_parse_str(dot + 1);
		} else {
			f.cursor_id = id_parse_str(cur);
		}
		if (f.cursor_id < 1 || (dot != NULL && f.cursor_count < 1)) {
			api_error(
			    resp, 400, "bad_request", "cursor: not a cursor this API gave (follow \"next\")");
			return;
		}
	}
	if (triage_run_param(req, &f.run, resp) < 0)
		return;
	rc = db_buckets_list(app->db, &f, &list, &counts, cursor, sizeof cursor, &more, err, sizeof err);
	if (rc == -2) {
		api_error(resp, 404, "not_found", "no run %" PRId64, f.run);
		return;
	}
	if (rc < 0) {
		api_fail(resp, err);
		return;
	}
	snprintf(next, sizeof next, "/api/buckets?");
	/* The state filter as given: checked above to be names and commas only. */
	if (http_query(req, "state") != NULL && *http_query(req, "state") != '\0')
		snprintf(next + strlen(next), sizeof next - strlen(next), "state=%.80s&",
		    http_query(req, "state"));
	if (f.run > 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=%" PRId64 "&", f.run);
	else if (f.run == 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=submitted&");
	snprintf(next + strlen(next), sizeof next - strlen(next), "limit=%d&cursor=%s", f.limit, cursor);
	api_json(resp, 200,
	    json_pack("{s:o s:o s:o}", "buckets", list, "counts", counts, "next",
	        more ? json_string(next) : json_null()));
}

void triage_bucket(struct app *app, int64_t id, struct http_response *resp)
{
	char err[512];
	json_t *o;
	int rc = db_bucket_get(app->db, id, &o, err, sizeof err);

	if (rc > 0)
		api_json(resp, 200, o);
	else if (rc == 0)
		api_error(resp, 404, "not_found", "no bucket %" PRId64, id);
	else
		api_fail(resp, err);
}

void triage_mismatches(
    struct app *app, int64_t id, const struct http_request *req, struct http_response *resp)
{
	char err[512], next[160];
	int64_t before, run, last;
	int limit, more, rc;
	json_t *list;

	if (triage_limit(req, &limit, resp) < 0 || (before = triage_before(req, resp)) < 0 ||
	    triage_run_param(req, &run, resp) < 0)
		return;
	rc = db_bucket_mismatches(app->db, id, run, before, limit, &list, &last, &more, err, sizeof err);
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
	snprintf(next, sizeof next, "/api/buckets/%" PRId64 "/mismatches?", id);
	if (run > 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=%" PRId64 "&", run);
	else if (run == 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "run=submitted&");
	snprintf(next + strlen(next), sizeof next - strlen(next), "limit=%d&before=%" PRId64, limit, last);
	api_json(resp, 200,
	    json_pack("{s:o s:o}", "mismatches", list, "next", more ? json_string(next) : json_null()));
}

void triage_events(struct app *app, const struct http_request *req, struct http_response *resp)
{
	char err[512], next[160];
	const char *bv = http_query(req, "bucket");
	int64_t before, bucket = 0, last;
	int limit, more;
	json_t *list;

	if (triage_limit(req, &limit, resp) < 0 || (before = triage_before(req, resp)) < 0)
		return;
	if (bv != NULL && (bucket = id_parse_str(bv)) < 1) {
		api_error(resp, 400, "bad_request", "bucket: expected a positive integer id");
		return;
	}
	if (db_triage_events(app->db, bucket, before, limit, &list, &last, &more, err, sizeof err) < 0) {
		api_fail(resp, err);
		return;
	}
	snprintf(next, sizeof next, "/api/triage/events?");
	if (bucket > 0)
		snprintf(next + strlen(next), sizeof next - strlen(next), "bucket=%" PRId64 "&", bucket);
	snprintf(next + strlen(next), sizeof next - strlen(next), "limit=%d&before=%" PRId64, limit, last);
	api_json(resp, 200,
	    json_pack("{s:o s:o}", "events", list, "next", more ? json_string(next) : json_null()));
}

json_t *triage_case_bucket(struct app *app, int64_t comparison_id)
{
	return db_bucket_of_comparison(app->db, comparison_id);
}

/* ---- changing triage ---- */

/*
 * A person's name ("by", "assignee"): 1..TRIAGE_NAME_MAX bytes of UTF-8
 * without control characters, trimmed.  0 with out filled, -1 after
 * answering 400.
 */
static int triage_name(json_t *v, const char *field, char *out, size_t outsize, struct http_response *resp)
{
	const char *s;
	size_t n, i;

	if (!json_is_string(v)) {
		api_error(resp, 400, "bad_request", "%s: expected a person's name (a string)", field);
		return -1;
	}
	s = json_string_value(v);
	n = json_string_length(v);
	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0) {
		api_error(resp, 400, "bad_request", "%s: must not be empty", field);
		return -1;
	}
	if (n > TRIAGE_NAME_MAX || n >= outsize) {
		api_error(resp, 400, "bad_request", "%s: at most %d bytes", field, TRIAGE_NAME_MAX);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
			api_error(resp, 400, "bad_request", "%s: must not contain control characters", field);
			return -1;
		}
	}
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

/*
 * Who is making this request: the one place that answers it.  A request
 * with an API token (auth.c put its owner in req->who) is that person; "by",
 * when sent too, must name the same one.  Without a token (writes are open
 * on loopback until a token exists) the body's "by" names the person and is
 * required.  0 with who filled, -1 after answering 400.
 */
int triage_who(
    const struct http_request *req, json_t *body, char *who, size_t whosize, struct http_response *resp)
{
	json_t *by = json_object_get(body, "by");
	char named[TRIAGE_NAME_MAX + 1];

	if (req->who != NULL && req->who->name[0] != '\0') {
		if (by != NULL && !json_is_null(by)) {
			if (triage_name(by, "by", named, sizeof named, resp) < 0)
				return -1;
			if (strcmp(named, req->who->name) != 0) {
				api_error(resp, 400, "bad_request",
				    "by: \"%s\" is not the token's owner \"%s\"", named, req->who->name);
				return -1;
			}
		}
		snprintf(who, whosize, "%s", req->who->name);
		return 0;
	}
	if (by == NULL || json_is_null(by)) {
		api_error(
		    resp, 400, "bad_request", "by: required: the person making the change (e.g. \"alice\")");
		return -1;
	}
	return triage_name(by, "by", who, whosize, resp);
}

static int triage_parse_change(const struct http_request *req, json_t *body, int bulk,
    struct db_triage_change *ch, struct http_response *resp)
{
	static const char *const known[] = { "by", "state", "assignee", "notes", "ids", NULL };
	const char *key;
	json_t *v;
	size_t i;

	memset(ch, 0, sizeof *ch);
	json_object_foreach(body, key, v)
	{
		for (i = 0; known[i] != NULL; i++)
			if (strcmp(key, known[i]) == 0)
				break;
		if (known[i] == NULL || (!bulk && strcmp(key, "ids") == 0)) {
			api_error(resp, 400, "bad_request", "unknown field \"%.64s\"", key);
			return -1;
		}
	}
	if (triage_who(req, body, ch->by, sizeof ch->by, resp) < 0)
		return -1;
	if ((v = json_object_get(body, "state")) != NULL) {
		if (json_is_string(v))
			for (i = 0; triage_states[i] != NULL; i++)
				if (strcmp(json_string_value(v), triage_states[i]) == 0)
					ch->state = triage_states[i];
		if (ch->state == NULL) {
			api_error(resp, 400, "bad_request",
			    "state: expected one of new, confirmed, expected, ignored, fixed");
			return -1;
		}
	}
	if ((v = json_object_get(body, "assignee")) != NULL) {
		ch->set_assignee = 1;
		if (!json_is_null(v) && !(json_is_string(v) && json_string_length(v) == 0) &&
		    triage_name(v, "assignee", ch->assignee, sizeof ch->assignee, resp) < 0)
			return -1;
	}
	if ((v = json_object_get(body, "notes")) != NULL) {
		if (!json_is_string(v)) {
			api_error(resp, 400, "bad_request", "notes: expected a string");
			return -1;
		}
		if (json_string_length(v) > TRIAGE_NOTES_MAX) {
			api_error(resp, 400, "bad_request", "notes: at most %d bytes", TRIAGE_NOTES_MAX);
			return -1;
		}
		if (strlen(json_string_value(v)) != json_string_length(v)) {
			api_error(resp, 400, "bad_request", "notes: must not contain NUL bytes");
			return -1;
		}
		ch->notes = json_string_value(v);
	}
	if (ch->state == NULL && !ch->set_assignee && ch->notes == NULL) {
		api_error(resp, 400, "bad_request", "nothing to change: give state, assignee or notes");
		return -1;
	}
	return 0;
}

/* The ids of a bulk change: 1..TRIAGE_MAX_IDS positive integers (duplicates once). */
static int64_t *triage_ids(json_t *body, size_t *n, struct http_response *resp)
{
	json_t *v = json_object_get(body, "ids"), *item;
	int64_t *ids;
	size_t i, j, k = 0;

	if (v == NULL || !json_is_array(v) || json_array_size(v) == 0 ||
	    json_array_size(v) > TRIAGE_MAX_IDS) {
		api_error(
		    resp, 400, "bad_request", "ids: required: a list of 1 .. %d bucket ids", TRIAGE_MAX_IDS);
		return NULL;
	}
	if ((ids = malloc(json_array_size(v) * sizeof *ids)) == NULL) {
		api_error(resp, 500, "internal", "out of memory");
		return NULL;
	}
	json_array_foreach(v, i, item)
	{
		if (!json_is_integer(item) || json_integer_value(item) < 1) {
			api_error(
			    resp, 400, "bad_request", "ids[%zu]: expected a positive integer bucket id", i);
			free(ids);
			return NULL;
		}
		for (j = 0; j < k && ids[j] != json_integer_value(item); j++)
			;
		if (j == k)
			ids[k++] = json_integer_value(item);
	}
	*n = k;
	return ids;
}

void triage_post(struct app *app, int64_t id, const struct http_request *req, struct http_response *resp)
{
	struct db_triage_change ch;
	char err[512] = "";
	int64_t *ids = NULL, one = id, missing;
	size_t n = 1;
	int rc, changed;
	json_t *body, *o;

	if ((body = api_body(req, resp)) == NULL)
		return;
	if (triage_parse_change(req, body, id == 0, &ch, resp) < 0)
		goto out;
	if (id == 0) {
		if ((ids = triage_ids(body, &n, resp)) == NULL)
			goto out;
	} else {
		ids = &one;
	}
	rc = db_triage_change(app->db, ids, n, &ch, id > 0, &changed, &missing, &o, err, sizeof err);
	if (rc == -2)
		api_error(resp, 404, "not_found", "no bucket %" PRId64 "%s", missing,
		    n > 1 ? " (nothing was changed)" : "");
	else if (rc < 0)
		api_fail(resp, err);
	else if (id > 0) {
		json_object_set_new(o, "changed", json_boolean(changed > 0));
		api_json(resp, 200, o);
	} else
		api_json(resp, 200, json_pack("{s:i s:o}", "changed", changed, "buckets", o));
out:
	if (ids != &one)
		free(ids);
	json_decref(body);
}
