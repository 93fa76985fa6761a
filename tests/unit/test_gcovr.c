/* Unit tests for gcovr's JSON report read into the coverage summary and
 * the page's annotated sources (server/daemon/model/gcovr.c), on a report of
 * gcovr's own shape written here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "gcovr.h"
#include "tap.h"

/* gcovr --json's shape: files, each its lines (counts, branches) and functions. */
static const char report[] =
    "{\"gcovr/format_version\":\"0.5\",\"files\":["
    "{\"file\":\"ext/json/other.c\",\"lines\":[],\"functions\":[]},"
    "{\"file\":\"ext/json/json_encoder.c\",\"functions\":["
    "{\"name\":\"b\",\"lineno\":4,\"execution_count\":0},{\"name\":\"a\",\"lineno\":1,\"execution_count\":3}],"
    "\"lines\":["
    "{\"line_number\":1,\"count\":3,\"branches\":[{\"count\":3},{\"count\":0}]},"
    "{\"line_number\":2,\"count\":3,\"branches\":[]},"
    "{\"line_number\":3,\"count\":0,\"branches\":[],\"gcovr/noncode\":true},"
    "{\"line_number\":4,\"count\":0,\"branches\":[]},"
    "{\"line_number\":5,\"count\":0,\"branches\":[],\"gcovr/excluded\":true}]}]}";
static const char source[] = "int a(void)\n{ return 1; }\n/* note */\nint b(void) { return 2; }\n\n";

static char *write_file(const char *dir, const char *name, const char *text)
{
	char *path = malloc(strlen(dir) + strlen(name) + 2);
	FILE *f;

	sprintf(path, "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

int main(void)
{
	char dir[] = "/tmp/phpcmp-gcovr-XXXXXX", err[256] = "", *summary = NULL, *report_path, *src_path,
	     *page;
	const char *const files[] = { "ext/json/json_encoder.c", "ext/json/json.c" };
	struct gcovr_file_totals totals[2];
	json_t *sum, *fn, *doc;

	if (mkdtemp(dir) == NULL)
		return 1;
	report_path = write_file(dir, "coverage.json", report);
	char sub[64];
	snprintf(sub, sizeof sub, "%s/ext", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof sub, "%s/ext/json", dir);
	mkdir(sub, 0700);
	src_path = write_file(dir, "ext/json/json_encoder.c", source);
	ok(gcovr_summarise(report_path, files, 2, dir, dir, &summary, err, sizeof err) == 0 &&
	        summary != NULL,
	    "a report read (%s)", summary != NULL ? "" : err);
	sum = summary != NULL ? json_loads(summary, 0, NULL) : NULL;
	ok(json_array_size(sum) == 1 &&
	        strcmp(json_string_value(json_object_get(json_array_get(sum, 0), "file")),
	            "ext/json/json_encoder.c") == 0,
	    "only the files asked for, those the report has");
	json_t *f = json_array_get(sum, 0);
	ok(json_integer_value(json_object_get(json_object_get(f, "lines"), "hit")) == 2 &&
	        json_integer_value(json_object_get(json_object_get(f, "lines"), "total")) == 3 &&
	        json_integer_value(json_object_get(json_object_get(f, "branches"), "hit")) == 1 &&
	        json_integer_value(json_object_get(json_object_get(f, "branches"), "total")) == 2,
	    "lines and branches hit: a non-code line and an excluded one not counted");
	ok(json_integer_value(json_array_get(json_object_get(f, "unreached_lines"), 0)) == 4 &&
	        json_integer_value(json_object_get(
	            json_array_get(json_object_get(f, "unreached_branches"), 0), "line")) == 1,
	    "the unreached line and branch named");
	fn = json_object_get(f, "functions");
	ok(json_array_size(fn) == 2 &&
	        strcmp(json_string_value(json_object_get(json_array_get(fn, 0), "name")), "a") == 0 &&
	        json_integer_value(
	            json_object_get(json_object_get(json_array_get(fn, 0), "lines"), "total")) == 2 &&
	        json_integer_value(json_object_get(json_object_get(json_array_get(fn, 1), "lines"), "hit")) ==
	            0 &&
	        json_integer_value(
	            json_array_get(json_object_get(json_array_get(fn, 1), "unreached_lines"), 0)) == 4,
	    "functions in line order, each its lines up to the next one's");
	ok(gcovr_summary_files(summary, totals, 2) == 1 &&
	        strcmp(totals[0].file, "ext/json/json_encoder.c") == 0 && totals[0].lines_hit == 2 &&
	        totals[0].lines_total == 3 && totals[0].branches_total == 2,
	    "a stored summary's totals read back");
	ok(gcovr_summary_files("{}", totals, 2) < 0 && gcovr_summary_files(NULL, totals, 2) < 0,
	    "a summary that is none: -1");
	page = malloc(strlen(dir) + 32);
	sprintf(page, "%s/json_encoder.c.json", dir);
	doc = json_load_file(page, 0, NULL);
	json_t *rows = json_object_get(doc, "lines");
	ok(json_array_size(rows) == 5 &&
	        json_integer_value(json_object_get(json_array_get(rows, 0), "count")) == 3 &&
	        json_is_null(json_object_get(json_array_get(rows, 2), "count")) &&
	        strcmp(json_string_value(json_object_get(json_array_get(rows, 3), "text")),
	            "int b(void) { return 2; }") == 0 &&
	        json_array_size(json_object_get(json_array_get(rows, 0), "branches")) == 2,
	    "the page's source: each line's text, count (null: not code) and branches");
	free(summary);
	ok(gcovr_summarise("/nonexistent/coverage.json", files, 2, dir, dir, &summary, err, sizeof err) < 0 &&
	        strstr(err, "gcovr's") != NULL,
	    "a report that cannot be read: -1 and why (%s)", err);
	json_decref(doc);
	json_decref(sum);
	unlink(page);
	unlink(src_path);
	unlink(report_path);
	snprintf(sub, sizeof sub, "%s/ext/json", dir);
	rmdir(sub);
	snprintf(sub, sizeof sub, "%s/ext", dir);
	rmdir(sub);
	rmdir(dir);
	free(page);
	free(src_path);
	free(report_path);
	return tap_done();
}
