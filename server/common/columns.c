/*
 * The JSON the database keeps in columns (columns.h): each written here,
 * from the C structs storage and the engine hold.
 */
#include <stdlib.h>

#include <jansson.h>

#include "columns.h"

/* The object's text (flags: jansson's dump flags), the object released. */
static char *column_text(json_t *o, size_t flags)
{
	char *text = o != NULL ? json_dumps(o, flags) : NULL;

	json_decref(o);
	return text;
}

char *column_case_error(const struct result res[], int n, const char *const names[])
{
	int i = result_case_error(res, n);
	const struct result *r;

	if (i < 0)
		return NULL;
	r = &res[i];
	return column_text(
	    json_pack("{s:o s:s s:o s:o s:s s:s}", "message", text_json(r->compile_error), "section",
	        r->compile_section, "line", r->compile_line > 0 ? json_integer(r->compile_line) : json_null(),
	        "column", r->compile_column > 0 ? json_integer(r->compile_column) : json_null(), "role",
	        role_name(i), "build", names != NULL && names[i] != NULL ? names[i] : role_name(i)),
	    JSON_COMPACT);
}

/*
 * A reduced case's result as its reduction keeps it.  An output over
 * RESULT_INLINE_MAX is not kept here, as the API does not inline it (a
 * candidate reading past its buffer gave megabytes of heap per reduction,
 * 1.4 MB on average, in every root listing): null, "omitted":["output"]
 * and its size; the bytes are in the reduced case's comparison (output_url).
 */
static json_t *column_reduced_result(const struct result *r)
{
	int is_false = r->output_is_false || r->output.data == NULL;
	int big = !is_false && r->output.len > RESULT_INLINE_MAX;
	json_t *o = json_pack("{s:s s:o s:o s:o s:b s:I s:o s:o}", "status", result_status_name(r->status),
	    "output", is_false || big ? json_null() : text_display(r->output.data, r->output.len),
	    "output_size", is_false ? json_null() : json_integer((json_int_t)r->output.len), "omitted",
	    big ? json_pack("[s]", "output") : json_array(), "output_is_false", is_false, "error_code",
	    (json_int_t)r->error_code, "error_msg", text_json(r->error_msg), "exception",
	    text_json(r->exc_class));

	if (o != NULL && r->status == STATUS_CRASH)
		json_object_set_new(o, "signal", json_integer(r->signal));
	return o;
}

char *column_reduced_outputs(int role, const struct result res[2])
{
	return column_text(json_pack("{s:o s:o}", "base", column_reduced_result(&res[0]), role_name(role),
	                       column_reduced_result(&res[1])),
	    JSON_COMPACT | JSON_SORT_KEYS);
}

static json_t *column_pair(const struct column_change *c)
{
	return json_pack("[o o]", c->from != NULL ? text_json(c->from) : json_null(),
	    c->to != NULL ? text_json(c->to) : json_null());
}

char *column_triage_changes(const struct column_triage *t)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	if (t->state.changed)
		json_object_set_new(o, "state", column_pair(&t->state));
	if (t->assignee.changed)
		json_object_set_new(o, "assignee", column_pair(&t->assignee));
	if (t->notes.changed)
		json_object_set_new(o, "notes", column_pair(&t->notes));
	if (t->answered_reappearance)
		json_object_set_new(o, "reappeared", json_false());
	if (t->root > 0)
		json_object_set_new(o, "root", json_integer(t->root));
	return column_text(o, JSON_COMPACT | JSON_SORT_KEYS);
}
