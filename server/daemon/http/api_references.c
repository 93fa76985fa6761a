/*
 * Released PHP on the API (issue 49, docs/api.md "Released PHP"): GET
 * /api/cases/{id}/references, the "references" of POST
 * /api/cases?references=1, and the "released" line of every root cause.
 * The answers come from service/references.c (kept, or run on every
 * reference at once); this file only says them as JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

#define API_REFERENCES_NOTE                                                                      \
	"released PHP under WebAssembly (php-wasm): output, json_last_error and exceptions; no " \
	"instruction counts, no memory-error oracle"

/* The roles of mask as, base first: ["base", "head"]. */
static json_t *api_roles(unsigned as)
{
	json_t *a = json_array();

	for (int i = 0; i < MAX_BUILDS; i++)
		if ((as >> i) & 1)
			json_array_append_new(a, json_string(role_name(i)));
	return a;
}

/* A reference's answer in a case result's shape, with its PHP version. */
static json_t *api_reference_result(const struct ref_answer *a)
{
	json_t *o = api_result_json(&a->r, a->name, 0, "reference", 0);

	if (o == NULL)
		return NULL;
	/* An answer too big to inline has no comparison to link to: its size and md5 say it. */
	json_object_del(o, "output_url");
	json_object_del(o, "printed_url");
	json_object_set_new(o, "php_version", json_string(a->php_version));
	return o;
}

static json_t *api_references_object(const struct ref_answers *ra)
{
	const struct released *rs = &ra->grouped;
	json_t *refs = json_array(), *groups = json_array(), *o;

	for (int k = 0; k < rs->n; k++) {
		const struct released_ref *ref = &rs->refs[k];
		const struct ref_answer *a = &ra->a[ref->index];
		json_t *one = json_pack("{s:s s:s s:o s:o s:o s:o s:b s:o s:b}", "name", a->name,
		    "php_version", a->php_version, "runtime",
		    a->runtime[0] != '\0' ? json_string(a->runtime) : json_null(), "result",
		    a->answered ? api_reference_result(a) : json_null(), "as", api_roles(ref->as), "group",
		    ref->group >= 0 ? json_integer(ref->group) : json_null(), "stored", a->from_store,
		    "error", a->error[0] != '\0' ? json_string(a->error) : json_null(), "pending",
		    !a->answered && a->error[0] == '\0');
		json_array_append_new(refs, one);
	}
	for (int g = 0; g < rs->ngroups; g++) {
		const struct released_group *gr = &rs->groups[g];
		json_t *names = json_array(), *versions = json_array();
		for (int m = 0; m < gr->n; m++) {
			const struct released_ref *ref = &rs->refs[gr->members[m]];
			json_array_append_new(names, json_string(ref->name));
			json_array_append_new(versions, json_string(ref->php_version));
		}
		json_array_append_new(groups,
		    json_pack("{s:s s:o s:o s:o s:o}", "label", gr->label, "names", names, "versions",
		        versions, "as", api_roles(gr->as), "result",
		        api_reference_result(&ra->a[rs->refs[gr->members[0]].index])));
	}
	o = json_pack("{s:I s:s s:o s:o s:o}", "case_id", (json_int_t)ra->case_id, "note",
	    API_REFERENCES_NOTE, "references", refs, "groups", groups, "summary",
	    rs->n > 0 && ra->pending == 0 ? json_string(rs->summary) : json_null());
	/* The roles the answers are set beside: the case's latest comparison's builds. */
	if (o != NULL) {
		json_t *builds = json_object();
		for (int i = 0; ra->have_cmp && i < ra->cmp.nbuilds && i < MAX_BUILDS; i++)
			json_object_set_new(builds, role_name(i), json_string(ra->cmp.build_names[i]));
		json_object_set_new(o, "builds", builds);
		json_object_set_new(o, "comparison_id", api_id_or_null(ra->have_cmp ? ra->cmp.id : 0));
	}
	return o;
}

json_t *api_references_json(struct app *app, int64_t case_id, struct http_response *resp)
{
	struct ref_answers ra;
	struct svc_error e;
	json_t *o;

	if (references_of_case(app, case_id, 1, &ra, &e) < 0) {
		references_release(&ra);
		api_svc(resp, &e);
		return NULL;
	}
	o = api_references_object(&ra);
	references_release(&ra);
	if (o == NULL)
		api_fail(resp, "out of memory");
	return o;
}

json_t *api_released_line(struct app *app, int64_t case_id)
{
	struct ref_answers ra;
	struct svc_error e;
	json_t *line = json_null();

	memset(&ra, 0, sizeof ra);
	if (case_id > 0 && references_of_case(app, case_id, 0, &ra, &e) == 0 && ra.n > 0 && ra.pending == 0)
		line = json_string(ra.grouped.summary);
	references_release(&ra);
	return line;
}

void api_route_case_references(
    struct app *app, const struct http_request *req, const struct api_args *a, struct http_response *resp)
{
	json_t *o;

	/* It takes no query: one given is a mistake said, not ignored. */
	if (req->nquery > 0) {
		api_error(resp, 400, "bad_request", "unknown query parameter %.64s: GET %s takes none",
		    req->query[0].key, "/api/cases/{id}/references");
		return;
	}
	if ((o = api_references_json(app, a->id, resp)) != NULL)
		api_json(resp, 200, o);
}
