/*
 * A stored case exported as a file (docs/api.md, "Exports"):
 *
 *   GET /api/cases/{id}/phpt      a php-src run-tests .phpt for ext/json/tests,
 *                                 --EXPECT-- from the base build's result
 *   GET /api/cases/{id}/casefile  the case in phpcmp's own cases/ format
 *
 * The .phpt runs the case the way the worker core does (server/core/core.c):
 * setup first, in the global scope; the value code as an expression, or, when
 * it ends in ';', as statements in the global scope (eval of a nowdoc: the
 * same compile-and-run of a string the core does); then json_encode() with
 * the case's flags and depth, and json_last_error() / json_last_error_msg().
 * The expected text is what those statements print on the base build: what
 * the case printed, then var_dump()'s rendering of the results, or the
 * exception json_encode() threw.  run-tests compares trimmed output, so the
 * file ends without caring about a final newline.  When base raised
 * warnings (their text names file and line), --INI-- turns display_errors
 * off so that --EXPECT-- stays exact.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "services.h"

#define EXPORT_DEFAULT_DEPTH 512

/* One line of text: newlines become spaces. */
static void out_line(struct buf *o, const char *s)
{
	for (; *s != '\0'; s++)
		buf_add(o, *s == '\n' || *s == '\r' ? " " : s, 1);
}

/* var_dump() of a string: string(N) "bytes" */
static void out_dump_string(struct buf *o, const char *data, size_t len)
{
	buf_addf(o, "string(%zu) \"", len);
	buf_add(o, data != NULL ? data : "", len);
	buf_adds(o, "\"\n");
}

/* JSON_A | JSON_B (| other bits as a number), or 0. */
static void out_flags(struct buf *o, long flags)
{
	const char *name;
	long value, rest = flags;
	size_t i;
	int any = 0;

	for (i = 0; (name = flags_name_at(i, &value)) != NULL; i++) {
		if (value != 0 && (flags & value) == value) {
			buf_addf(o, "%s%s", any ? " | " : "", name);
			rest &= ~value;
			any = 1;
		}
	}
	if (rest != 0 || !any)
		buf_addf(o, "%s%ld", any ? " | " : "", rest);
}

/* Does the core run this value code as statements?  (Trailing ';', as run_code decides.) */
static int export_is_statements(const char *code)
{
	size_t n = strlen(code);

	while (n > 0 && strchr(" \t\r\n", code[n - 1]) != NULL)
		n--;
	return n > 0 && code[n - 1] == ';';
}

/* An expression that reads well on one line after "$value = ". */
static int export_one_line(const char *code)
{
	return strchr(code, '\n') == NULL && strchr(code, '\r') == NULL && strstr(code, "//") == NULL &&
	    strchr(code, '#') == NULL && strstr(code, "/*") == NULL && strstr(code, "?>") == NULL;
}

/* The version of the configured build with this name, or "" (a copy: its
 * workers may be writing it, see worker_build_info). */
static const char *export_version(struct app *app, const char *name, struct build_info *info)
{
	int i;

	info->php_version[0] = '\0';
	for (i = 0; i < app->config->nbuilds; i++)
		if (strcmp(app->config->builds[i].name, name) == 0)
			worker_build_info(&app->config->builds[i], info);
	return info->php_version;
}

/* The .phpt text; NULL when out of memory. */
static char *export_phpt_text(
    struct app *app, const struct db_case *dc, const struct db_comparison *cmp, size_t *len)
{
	const struct case_spec *c = &dc->spec;
	const struct result *base = &cmp->results[ROLE_BASE];
	struct buf o = BUF_INIT;
	struct build_info info;
	char marker[32];
	int k = 0;

	buf_adds(&o, "--TEST--\njson_encode(): ");
	out_line(&o, c->title != NULL && *c->title != '\0' ? c->title : "phpcmp case");
	buf_adds(&o, "\n--DESCRIPTION--\n");
	buf_addf(&o, "Exported from phpcmp case #%" PRId64 " (comparison #%" PRId64, dc->id, cmp->id);
	if (cmp->run_id > 0)
		buf_addf(&o, ", run #%" PRId64, cmp->run_id);
	buf_adds(&o, ").\n");
	if (c->source != NULL) {
		buf_adds(&o, "Stored case: cases/");
		out_line(&o, c->source);
		buf_adds(&o, "\n");
	}
	buf_addf(&o, "Expected output: build %s (PHP %s).\n", cmp->build_names[ROLE_BASE],
	    export_version(app, cmp->build_names[ROLE_BASE], &info));
	if (strcmp(cmp->verdict, "same") == 0)
		buf_addf(&o, "Build %s (PHP %s) gives the same.\n", cmp->build_names[ROLE_HEAD],
		    export_version(app, cmp->build_names[ROLE_HEAD], &info));
	else
		buf_addf(&o, "Build %s (PHP %s) differs in: %s.\n", cmp->build_names[ROLE_HEAD],
		    export_version(app, cmp->build_names[ROLE_HEAD], &info), cmp->differs);
	buf_adds(&o, "--EXTENSIONS--\njson\n");
	if (base->warnings != NULL && *base->warnings != '\0')
		buf_adds(&o, "--INI--\ndisplay_errors=0\n");

	buf_adds(&o, "--FILE--\n<?php\n");
	if (c->setup != NULL && *c->setup != '\0') {
		buf_adds(&o, c->setup);
		buf_adds(&o, "\n\n");
	}
	if (export_is_statements(c->code)) {
		/* A nowdoc marker that no line of the code contains. */
		do
			snprintf(marker, sizeof marker, k == 0 ? "CODE" : "CODE_%d", k);
		while (strstr(c->code, marker) != NULL && ++k < 1000);
		buf_addf(&o, "$value = eval(<<<'%s'\n", marker);
		buf_adds(&o, c->code);
		buf_addf(&o, "\n%s);\n", marker);
	} else if (export_one_line(c->code)) {
		buf_adds(&o, "$value = ");
		buf_adds(&o, c->code);
		buf_adds(&o, ";\n");
	} else {
		buf_adds(&o, "$value = (\n");
		buf_adds(&o, c->code);
		buf_adds(&o, "\n);\n");
	}
	if (base->exc_class != NULL) {
		buf_adds(&o, "try {\n    var_dump(json_encode($value, ");
		out_flags(&o, c->flags);
		if (c->depth != EXPORT_DEFAULT_DEPTH)
			buf_addf(&o, ", %ld", c->depth);
		buf_adds(&o,
		    "));\n    var_dump(json_last_error(), json_last_error_msg());\n"
		    "} catch (Throwable $e) {\n    echo get_class($e), ': ', $e->getMessage(), \"\\n\";\n}\n");
	} else {
		buf_adds(&o, "var_dump(json_encode($value, ");
		out_flags(&o, c->flags);
		if (c->depth != EXPORT_DEFAULT_DEPTH)
			buf_addf(&o, ", %ld", c->depth);
		buf_adds(&o, "));\nvar_dump(json_last_error(), json_last_error_msg());\n");
	}
	buf_adds(&o, "?>\n--EXPECT--\n");
	buf_add(&o, base->printed.data != NULL ? base->printed.data : "", base->printed.len);
	if (base->exc_class != NULL) {
		buf_adds(&o, base->exc_class);
		buf_adds(&o, ": ");
		buf_adds(&o, base->exc_msg != NULL ? base->exc_msg : "");
		buf_adds(&o, "\n");
	} else {
		if (base->output_is_false || base->output.data == NULL)
			buf_adds(&o, "bool(false)\n");
		else
			out_dump_string(&o, base->output.data, base->output.len);
		buf_addf(&o, "int(%ld)\n", base->error_code);
		out_dump_string(&o, base->error_msg, base->error_msg != NULL ? strlen(base->error_msg) : 0);
	}
	if (o.failed) {
		free(o.data);
		return NULL;
	}
	*len = o.len;
	return o.data;
}

/* A file name piece from a title: [a-z0-9_], at most 40. */
static void export_slug(const char *title, char *out, size_t size)
{
	size_t o = 0;
	int gap = 0;

	for (; title != NULL && *title != '\0' && o + 2 < size && o < 40; title++) {
		char ch = *title;
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
			if (gap && o > 0)
				out[o++] = '_';
			out[o++] = ch;
			gap = 0;
		} else {
			gap = 1;
		}
	}
	out[o] = '\0';
}

int export_case(struct app *app, int64_t case_id, int64_t comparison_id, const char *format,
    struct export_file *out, struct svc_error *e)
{
	struct db_case dc;
	struct db_comparison cmp;
	char err[512], slug[48], *text;
	size_t len = 0;
	int rc, have_cmp = 0, ret = -1;

	memset(out, 0, sizeof *out);
	if ((rc = db_case_get(app->db, case_id, &dc, err, sizeof err)) <= 0) {
		if (rc < 0)
			svc_fail(e, SVC_STORAGE, NULL, "%s", err);
		else
			svc_fail(e, SVC_NOT_FOUND, NULL, "no case %" PRId64, case_id);
		db_case_release(&dc);
		return -1;
	}
	export_slug(dc.spec.title, slug, sizeof slug);
	if (strcmp(format, "casefile") == 0) {
		/* The stored format's title is one line, not blank at either end. */
		char *t = dc.spec.title, *p;
		if (t != NULL) {
			for (p = t; *p != '\0'; p++)
				if (*p == '\n' || *p == '\r' || *p == '\t')
					*p = ' ';
			while (*t == ' ')
				memmove(t, t + 1, strlen(t));
			for (p = t + strlen(t); p > t && p[-1] == ' '; p--)
				p[-1] = '\0';
			if (*t == '\0') {
				free(dc.spec.title);
				dc.spec.title = strdup("submitted case");
			}
		}
		if ((text = casefile_format(&dc.spec)) == NULL) {
			svc_fail(e, SVC_CONFLICT, NULL,
			    "case %" PRId64 " cannot be written in the stored format: "
			    "a line of its code, setup or expect reads as a section header (--NAME--) or ends in CR",
			    case_id);
			goto out;
		}
		len = strlen(text);
		snprintf(out->disposition, sizeof out->disposition,
		    "inline; filename=\"%s%s%" PRId64 ".phpt\"", slug, slug[0] != '\0' ? "-" : "case-",
		    case_id);
	} else {
		rc = db_comparison_get(app->db, case_id, comparison_id, &cmp, err, sizeof err);
		have_cmp = 1;
		if (rc <= 0) {
			if (rc < 0)
				svc_fail(e, SVC_STORAGE, NULL, "%s", err);
			else if (comparison_id > 0)
				svc_fail(e, SVC_NOT_FOUND, NULL,
				    "case %" PRId64 " has no comparison %" PRId64, case_id, comparison_id);
			else
				svc_fail(
				    e, SVC_CONFLICT, NULL, "case %" PRId64 " has no results yet", case_id);
			goto out;
		}
		if (cmp.results[ROLE_BASE].status != STATUS_OK) {
			svc_fail(e, SVC_CONFLICT, NULL,
			    "the base build's result is \"%s\", not ok: there is no output "
			    "to expect (%.200s)",
			    result_status_name(cmp.results[ROLE_BASE].status),
			    cmp.results[ROLE_BASE].failure != NULL ? cmp.results[ROLE_BASE].failure
			                                           : "no detail");
			goto out;
		}
		if ((text = export_phpt_text(app, &dc, &cmp, &len)) == NULL) {
			svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
			goto out;
		}
		snprintf(out->disposition, sizeof out->disposition,
		    "attachment; filename=\"json_encode_phpcmp_%" PRId64 "%s%s.phpt\"", case_id,
		    slug[0] != '\0' ? "_" : "", slug);
	}
	out->text = text;
	out->len = len;
	ret = 0;
out:
	if (have_cmp)
		db_comparison_release(&cmp);
	db_case_release(&dc);
	return ret;
}
