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
 *
 * No line it writes ever reads as a run-tests.php section header (or
 * ===DONE===): such code goes through one-space-indented nowdocs, such
 * expected text into an exact --EXPECTF-- (export_unsafe and below).
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

/*
 * php-src's run-tests.php reads a .phpt line by line (fgets: lines end at
 * "\n"), and any line matching /^--([_A-Z]+)--/ starts a new section,
 * whatever follows on it; inside --FILE-- a line matching /^===DONE===\s*$/
 * ends the test code (the lines after it are dropped).  A case's code,
 * setup or output holding such a line, written as it is, would turn data
 * into another section: --CLEAN-- code a reviewer runs outside any sandbox.
 */
static int export_reads_as_header(const char *line, size_t n)
{
	size_t i = 2;

	if (n < 2 || line[0] != '-' || line[1] != '-')
		return 0;
	while (i < n && ((line[i] >= 'A' && line[i] <= 'Z') || line[i] == '_'))
		i++;
	return i > 2 && i + 1 < n && line[i] == '-' && line[i + 1] == '-';
}

static int export_reads_as_done(const char *line, size_t n)
{
	size_t i;

	if (n < 10 || memcmp(line, "===DONE===", 10) != 0)
		return 0;
	for (i = 10; i < n; i++)
		if (strchr(" \t\n\r\v\f", line[i]) == NULL)
			return 0;
	return 1;
}

/* Does any line of s read as a section header (or, in_file, as ===DONE===)? */
static int export_unsafe(const char *s, size_t len, int in_file)
{
	const char *line = s, *end = s + len, *nl;
	size_t n;

	while (line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		n = nl != NULL ? (size_t)(nl - line) : (size_t)(end - line);
		if (export_reads_as_header(line, n) || (in_file && export_reads_as_done(line, n)))
			return 1;
		line += n + 1;
	}
	return 0;
}

/*
 * code as a nowdoc whose every line is indented by one space, the closing
 * marker too: PHP (>= 7.3) strips the closing marker's indentation from
 * every line, so the string is code exactly, and no line of the file starts
 * with "--" or "===".  PHP's heredoc lines also end at a lone CR, so one is
 * indented too.  0, or -1 when no marker is free.
 */
static int export_nowdoc(struct buf *o, const char *code, const char *name)
{
	char marker[40];
	const char *p;
	int k = 0;

	do
		snprintf(marker, sizeof marker, k == 0 ? "%s" : "%s_%d", name, k);
	while (strstr(code, marker) != NULL && ++k < 1000);
	if (strstr(code, marker) != NULL)
		return -1;
	buf_addf(o, "<<<'%s'\n ", marker);
	for (p = code; *p != '\0'; p++) {
		buf_add(o, p, 1);
		if (*p == '\n' || (*p == '\r' && p[1] != '\n'))
			buf_add(o, " ", 1);
	}
	buf_addf(o, "\n %s", marker);
	return 0;
}

/*
 * Expected text for --EXPECTF--, matching exactly the bytes of exp: every
 * '%' (EXPECTF's own escapes) as the regex %r\x25%r, and the first '-' of a
 * line that would read as a header as %r-%r.
 */
static void export_expectf(struct buf *o, const char *exp, size_t len)
{
	const char *line = exp, *end = exp + len, *nl;
	size_t n, i;

	while (line < end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		n = nl != NULL ? (size_t)(nl - line) + 1 : (size_t)(end - line);
		i = 0;
		if (export_reads_as_header(line, n)) {
			buf_adds(o, "%r-%r");
			i = 1;
		}
		for (; i < n; i++) {
			if (line[i] == '%')
				buf_adds(o, "%r\\x25%r");
			else
				buf_add(o, line + i, 1);
		}
		line += n;
	}
}

/* The version of the configured build with this name, or "" (a copy: its
 * workers may be writing it, see worker_build_info). */
static const char *export_version(struct app *app, const char *name, struct build_info *info)
{
	struct build *b = build_find(app->config, name);

	info->php_version[0] = '\0';
	if (b != NULL)
		worker_build_info(b, info);
	return info->php_version;
}

/* The .phpt text; NULL when out of memory, or with *refused set when it cannot be written safely. */
/* --TEST--, --DESCRIPTION--, --EXTENSIONS-- and --INI--: what the case is and where it came from. */
static void export_head(
    struct buf *o, struct app *app, const struct db_case *dc, const struct db_comparison *cmp)
{
	const struct case_spec *c = &dc->spec;
	const struct result *base = &cmp->results[ROLE_BASE];
	struct build_info info;

	buf_adds(o, "--TEST--\njson_encode(): ");
	out_line(o, c->title != NULL && *c->title != '\0' ? c->title : "phpcmp case");
	buf_adds(o, "\n--DESCRIPTION--\n");
	buf_addf(o, "Exported from phpcmp case #%" PRId64 " (comparison #%" PRId64, dc->id, cmp->id);
	if (cmp->run_id > 0)
		buf_addf(o, ", run #%" PRId64, cmp->run_id);
	buf_adds(o, ").\n");
	if (c->source != NULL) {
		buf_adds(o, "Stored case: cases/");
		out_line(o, c->source);
		buf_adds(o, "\n");
	}
	buf_addf(o, "Expected output: build %s (PHP %s).\n", cmp->build_names[ROLE_BASE],
	    export_version(app, cmp->build_names[ROLE_BASE], &info));
	if (strcmp(cmp->verdict, "same") == 0)
		buf_addf(o, "Build %s (PHP %s) gives the same.\n", cmp->build_names[ROLE_HEAD],
		    export_version(app, cmp->build_names[ROLE_HEAD], &info));
	else
		buf_addf(o, "Build %s (PHP %s) differs in: %s.\n", cmp->build_names[ROLE_HEAD],
		    export_version(app, cmp->build_names[ROLE_HEAD], &info), cmp->differs);
	buf_adds(o, "--EXTENSIONS--\njson\n");
	if (base->warnings != NULL && *base->warnings != '\0')
		buf_adds(o, "--INI--\ndisplay_errors=0\n");
}

/* The case's setup and `$value = ...` into file: as written by hand, or
 * (escaped) through nowdocs.  -1: no nowdoc marker fits. */
static int export_value_code(struct buf *file, const struct case_spec *c, int escaped)
{
	char marker[32];
	int k = 0;

	if (escaped)
		buf_adds(
		    file, "/* Written through nowdocs: a line of this case reads as a .phpt section. */\n");
	if (c->setup != NULL && *c->setup != '\0') {
		if (escaped) {
			buf_adds(file, "eval(");
			if (export_nowdoc(file, c->setup, "SETUP") < 0)
				return -1;
			buf_adds(file, ");\n\n");
		} else {
			buf_adds(file, c->setup);
			buf_adds(file, "\n\n");
		}
	}
	if (export_is_statements(c->code)) {
		buf_adds(file, "$value = eval(");
		if (escaped) {
			if (export_nowdoc(file, c->code, "CODE") < 0)
				return -1;
		} else {
			/* A nowdoc marker that no line of the code contains. */
			do
				snprintf(marker, sizeof marker, k == 0 ? "CODE" : "CODE_%d", k);
			while (strstr(c->code, marker) != NULL && ++k < 1000);
			if (strstr(c->code, marker) != NULL)
				return -1;
			buf_addf(file, "<<<'%s'\n", marker);
			buf_adds(file, c->code);
			buf_addf(file, "\n%s", marker);
		}
		buf_adds(file, ");\n");
	} else if (escaped) {
		buf_adds(file, "$value = eval(\"return (\\n\" . ");
		if (export_nowdoc(file, c->code, "CODE") < 0)
			return -1;
		buf_adds(file, " . \"\\n);\");\n");
	} else if (export_one_line(c->code)) {
		buf_adds(file, "$value = ");
		buf_adds(file, c->code);
		buf_adds(file, ";\n");
	} else {
		buf_adds(file, "$value = (\n");
		buf_adds(file, c->code);
		buf_adds(file, "\n);\n");
	}
	return 0;
}

/* The json_encode() call and its dumps, in a try when the base threw. */
static void export_call(struct buf *o, const struct case_spec *c, int threw)
{
	buf_adds(o, threw ? "try {\n    var_dump(json_encode($value, " : "var_dump(json_encode($value, ");
	out_flags(o, c->flags);
	if (c->depth != EXPORT_DEFAULT_DEPTH)
		buf_addf(o, ", %ld", c->depth);
	if (threw)
		buf_adds(o,
		    "));\n    var_dump(json_last_error(), json_last_error_msg());\n"
		    "} catch (Throwable $e) {\n    echo get_class($e), ': ', $e->getMessage(), \"\\n\";\n}\n");
	else
		buf_adds(o, "));\nvar_dump(json_last_error(), json_last_error_msg());\n");
}

/* What the base printed, as the test's expected output. */
static void export_expected(struct buf *exp, const struct result *base)
{
	buf_add(exp, base->printed.data != NULL ? base->printed.data : "", base->printed.len);
	if (base->exc_class != NULL) {
		buf_adds(exp, base->exc_class);
		buf_adds(exp, ": ");
		buf_adds(exp, base->exc_msg != NULL ? base->exc_msg : "");
		buf_adds(exp, "\n");
		return;
	}
	if (base->output_is_false || base->output.data == NULL)
		buf_adds(exp, "bool(false)\n");
	else
		out_dump_string(exp, base->output.data, base->output.len);
	buf_addf(exp, "int(%ld)\n", base->error_code);
	out_dump_string(exp, base->error_msg, base->error_msg != NULL ? strlen(base->error_msg) : 0);
}

static char *export_phpt_text(
    struct app *app, const struct db_case *dc, const struct db_comparison *cmp, size_t *len, int *refused)
{
	const struct result *base = &cmp->results[ROLE_BASE];
	struct buf o = BUF_INIT, file = BUF_INIT, exp = BUF_INIT;
	int escaped;

	export_head(&o, app, dc, cmp);
	for (escaped = 0; escaped < 2; escaped++) {
		/* As written by hand first; escaped when a line would read as a section. */
		buf_release(&file);
		if (export_value_code(&file, &dc->spec, escaped) < 0)
			goto refuse;
		if (file.failed || !export_unsafe(file.data, file.len, 1))
			break;
	}
	if (escaped == 2)
		goto refuse;
	buf_adds(&o, "--FILE--\n<?php\n");
	buf_add(&o, file.data, file.len);
	export_call(&o, &dc->spec, base->exc_class != NULL);
	buf_adds(&o, "?>\n");

	export_expected(&exp, base);
	if (!exp.failed && export_unsafe(exp.data, exp.len, 0)) {
		buf_adds(&o, "--EXPECTF--\n");
		export_expectf(&o, exp.data, exp.len);
	} else {
		buf_adds(&o, "--EXPECT--\n");
		buf_add(&o, exp.data, exp.len);
	}
	if (o.failed || file.failed || exp.failed) {
		buf_release(&o);
		buf_release(&file);
		buf_release(&exp);
		return NULL;
	}
	buf_release(&file);
	buf_release(&exp);
	*len = o.len;
	return o.data;
refuse:
	buf_release(&o);
	buf_release(&file);
	buf_release(&exp);
	*refused = 1;
	return NULL;
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
	int rc, have_cmp = 0, ret = -1, refused = 0;

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
		if ((text = export_phpt_text(app, &dc, &cmp, &len, &refused)) == NULL) {
			if (refused)
				svc_fail(e, SVC_CONFLICT, NULL,
				    "case %" PRId64 " cannot be written as a .phpt: its code holds every "
				    "nowdoc marker tried (CODE, CODE_1 ... CODE_999)",
				    case_id);
			else
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
