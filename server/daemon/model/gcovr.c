/*
 * gcovr's JSON report read into the coverage summary and the page's
 * annotated sources (gcovr.h).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gcovr.h"

static json_t *gcovr_ratio(long hit, long total)
{
	/* No percentage: a float of one decimal is no exact JSON number. */
	return json_pack("{s:i, s:i}", "hit", (json_int_t)hit, "total", (json_int_t)total);
}

struct gcovr_fn {
	const char *name;
	long line, calls, lhit, ltotal, bhit, btotal;
	json_t *ulines, *ubranches;
};

static int gcovr_fn_cmp(const void *a, const void *b)
{
	const struct gcovr_fn *x = a, *y = b;
	return (x->line > y->line) - (x->line < y->line);
}

/*
 * One file of gcovr's JSON into the summary: its lines and branches, and
 * per function (a function's lines: from its first line to the next
 * function's, as gcovr names only where each starts).  Lines gcovr calls
 * non-code or excluded are not counted.
 */
static json_t *gcovr_file_summary(json_t *file)
{
	json_t *lines = json_object_get(file, "lines"), *fns = json_object_get(file, "functions");
	size_t nf = json_array_size(fns), i, k;
	struct gcovr_fn *acc = calloc(nf + 1, sizeof(*acc));
	long lhit = 0, ltotal = 0, bhit = 0, btotal = 0;
	json_t *ulines = json_array(), *ubranches = json_array(), *l, *f;
	if (acc == NULL)
		return NULL;
	json_array_foreach (fns, i, f) {
		acc[i].name = json_string_value(json_object_get(f, "name"));
		acc[i].line = (long)json_integer_value(json_object_get(f, "lineno"));
		acc[i].calls = (long)json_integer_value(json_object_get(f, "execution_count"));
		acc[i].ulines = json_array();
		acc[i].ubranches = json_array();
	}
	qsort(acc, nf, sizeof(*acc), gcovr_fn_cmp);
	json_array_foreach (lines, i, l) {
		if (json_is_true(json_object_get(l, "gcovr/noncode")) ||
		    json_is_true(json_object_get(l, "gcovr/excluded")))
			continue;
		long n = (long)json_integer_value(json_object_get(l, "line_number"));
		long count = (long)json_integer_value(json_object_get(l, "count"));
		struct gcovr_fn *fa = NULL;
		for (k = 0; k < nf && acc[k].line <= n; k++)
			fa = &acc[k];
		ltotal++;
		if (fa)
			fa->ltotal++;
		if (count > 0) {
			lhit++;
			if (fa)
				fa->lhit++;
		} else {
			json_array_append_new(ulines, json_integer(n));
			if (fa)
				json_array_append_new(fa->ulines, json_integer(n));
		}
		json_t *br, *bs = json_object_get(l, "branches");
		size_t j;
		json_array_foreach (bs, j, br) {
			btotal++;
			if (fa)
				fa->btotal++;
			if (json_integer_value(json_object_get(br, "count")) > 0) {
				bhit++;
				if (fa)
					fa->bhit++;
				continue;
			}
			json_t *u = json_pack("{s:i, s:i}", "line", (json_int_t)n, "branch", (json_int_t)j);
			json_array_append(ubranches, u);
			if (fa)
				json_array_append(fa->ubranches, u);
			json_decref(u);
		}
	}
	json_t *farr = json_array();
	for (k = 0; k < nf; k++) {
		json_array_append_new(farr,
		    json_pack("{s:s, s:i, s:i, s:o, s:o, s:o, s:o}", "name", acc[k].name ? acc[k].name : "?",
		        "line", (json_int_t)acc[k].line, "calls", (json_int_t)acc[k].calls, "lines",
		        gcovr_ratio(acc[k].lhit, acc[k].ltotal), "branches",
		        gcovr_ratio(acc[k].bhit, acc[k].btotal), "unreached_lines", acc[k].ulines,
		        "unreached_branches", acc[k].ubranches));
	}
	free(acc);
	return json_pack("{s:O, s:o, s:o, s:o, s:o, s:o}", "file", json_object_get(file, "file"), "lines",
	    gcovr_ratio(lhit, ltotal), "branches", gcovr_ratio(bhit, btotal), "functions", farr,
	    "unreached_lines", ulines, "unreached_branches", ubranches);
}

/*
 * The page's view of a source: each line's text, its count (null: not
 * code) and its branches' counts, as DIR/NAME.json (NAME: the file's base
 * name).
 */
static int gcovr_write_source(const char *src_root, json_t *file, const char *dir)
{
	const char *rel = json_string_value(json_object_get(file, "file"));
	char path[PATH_MAX + 64], out[PATH_MAX + 64];
	if (rel == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/%s", src_root, rel);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	json_t *rows = json_array(), *by_line = json_object(), *l;
	size_t i;
	json_array_foreach (json_object_get(file, "lines"), i, l) {
		char key[32];
		snprintf(key, sizeof(key), "%" JSON_INTEGER_FORMAT,
		    json_integer_value(json_object_get(l, "line_number")));
		if (!json_is_true(json_object_get(l, "gcovr/noncode")))
			json_object_set(by_line, key, l);
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	for (long no = 1; (n = getline(&line, &cap, f)) >= 0; no++) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		char key[32];
		snprintf(key, sizeof(key), "%ld", no);
		json_t *g = json_object_get(by_line, key), *counts = json_array(), *br;
		size_t j;
		json_array_foreach (json_object_get(g, "branches"), j, br)
			json_array_append_new(
			    counts, json_integer(json_integer_value(json_object_get(br, "count"))));
		json_array_append_new(rows,
		    json_pack("{s:i, s:s%, s:o, s:o}", "n", (json_int_t)no, "text", line, (size_t)n, "count",
		        g ? json_integer(json_integer_value(json_object_get(g, "count"))) : json_null(),
		        "branches", counts));
	}
	free(line);
	fclose(f);
	json_decref(by_line);
	const char *slash = strrchr(rel, '/');
	snprintf(out, sizeof(out), "%s/%s.json", dir, slash ? slash + 1 : rel);
	json_t *doc = json_pack("{s:s, s:o}", "file", rel, "lines", rows);
	int rc = doc && json_dump_file(doc, out, JSON_COMPACT) == 0 ? 0 : -1;
	json_decref(doc);
	return rc;
}

int gcovr_summarise(const char *report_path, const char *const files[], size_t nfiles, const char *src_root,
    const char *outdir, char **summary, char *err, size_t errsize)
{
	json_error_t je;
	json_t *doc = json_load_file(report_path, 0, &je), *list, *file;

	*summary = NULL;
	if (doc == NULL) {
		snprintf(err, errsize, "gcovr's %.300s: %s", report_path, je.text);
		return -1;
	}
	list = json_array();
	for (size_t k = 0; list != NULL && k < nfiles; k++) {
		size_t i;
		json_array_foreach (json_object_get(doc, "files"), i, file) {
			const char *name = json_string_value(json_object_get(file, "file"));
			if (name == NULL || strcmp(name, files[k]) != 0)
				continue;
			json_array_append_new(list, gcovr_file_summary(file));
			gcovr_write_source(src_root, file, outdir);
		}
	}
	json_decref(doc);
	*summary = list != NULL ? json_dumps(list, JSON_COMPACT) : NULL;
	json_decref(list);
	if (*summary == NULL) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	return 0;
}

int gcovr_summary_files(const char *summary, struct gcovr_file_totals out[], int max)
{
	json_t *files = summary != NULL ? json_loads(summary, 0, NULL) : NULL, *f;
	size_t i;
	int n = 0;

	if (!json_is_array(files)) {
		json_decref(files);
		return -1;
	}
	json_array_foreach (files, i, f) {
		json_t *l = json_object_get(f, "lines"), *b = json_object_get(f, "branches");
		const char *name = json_string_value(json_object_get(f, "file"));
		if (n == max)
			break;
		snprintf(out[n].file, sizeof out[n].file, "%s", name != NULL ? name : "?");
		out[n].lines_hit = (long)json_integer_value(json_object_get(l, "hit"));
		out[n].lines_total = (long)json_integer_value(json_object_get(l, "total"));
		out[n].branches_hit = (long)json_integer_value(json_object_get(b, "hit"));
		out[n].branches_total = (long)json_integer_value(json_object_get(b, "total"));
		n++;
	}
	json_decref(files);
	return n;
}
