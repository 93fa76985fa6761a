/*
 * A .phpt script run in the worker core as php-cli runs it for
 * run-tests.php (docs/phpt.md): the script is written to the worker's
 * private folder (so __FILE__ and __DIR__ name that copy), the settings
 * are made as `php -d name=value` would make them, and it runs in a
 * request of its own with PHP's diagnostics displayed into the output,
 * which is captured as the SAPI writes it, shutdown functions and
 * destructors included.  The daemon (phptrun.c) sequences SKIPIF, FILE
 * and CLEAN and judges the output; nothing here knows about sections.
 *
 * core.c keeps a request open between messages: this file ends it, makes
 * the settings (before the request starts, as Apache's SAPI does with
 * php_admin_value, so settings read at request startup take effect), runs
 * the script in a new request, ends that one (which restores every
 * setting) and opens the next for whatever comes after.
 */
#include <php.h>
#include <php_main.h>
#include <php_ini.h>
#include <php_output.h>
#include <php_open_temporary_file.h>
#include <SAPI.h>
#include <zend_ini.h>
#include <zend_ini_scanner.h>
#include <zend_exceptions.h>
#include <zend_smart_str.h>
#include <ext/standard/html.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "phptcore.h"
#include "phptini.h"
#include "request.h"

#define PHPT_MAX_SETTINGS 128

/* What the script printed, in malloc memory so it outlives the request. */
static struct request_capture out_buf = { .max = PROTO_MAX_PRINTED };

static size_t phpt_ub_write(const char *str, size_t len)
{
	request_capture_add(&out_buf, str, len);
	return len;
}

/*
 * Diagnostics as php_error_cb shows them with display_errors=1 and
 * html_errors=0 ("\nWarning: ... in FILE on line N\n"), the last error
 * kept for error_get_last(); fatal ones go to the callback core.c
 * installed, which records them and hands them to PHP's own (which
 * displays them the same way and bails out).
 */
static void (*prev_error_cb)(int, phpcmp_error_file, const uint32_t, zend_string *);

static void phpt_error_cb(int orig_type, phpcmp_error_file file, const uint32_t line, zend_string *message)
{
	int type = orig_type & E_ALL;
	int display = 1;

	if (type & REQUEST_FATAL_ERRORS) {
		prev_error_cb(orig_type, file, line, message);
		return;
	}
	if (!file)
		file = PHPCMP_ERROR_FILE_UNKNOWN;
	if (PG(ignore_repeated_errors) && PG(last_error_message)) {
		display = !zend_string_equals(PG(last_error_message), message) ||
		    (!PG(ignore_repeated_source) &&
		        (PG(last_error_lineno) != (int)line || !phpcmp_last_error_file_is(file)));
	}
	if (EG(error_handling) == EH_THROW &&
	    (type == E_WARNING || type == E_CORE_WARNING || type == E_COMPILE_WARNING ||
	        type == E_USER_WARNING)) {
		if (!EG(exception))
			zend_throw_error_exception(EG(exception_class), message, 0, type);
		return;
	}
	if (display) {
		if (PG(last_error_message))
			zend_string_release(PG(last_error_message));
		PG(last_error_type) = type;
		PG(last_error_message) = zend_string_copy(message);
		phpcmp_last_error_file_set(file);
		PG(last_error_lineno) = line;
	}
	if (!display || !(EG(error_reporting) & type) || !PG(display_errors) || PG(during_request_startup))
		return;
	const char *prepend = INI_STR("error_prepend_string"), *append = INI_STR("error_append_string");
	smart_str s = { 0 };
	if (PG(html_errors)) {
		zend_string *esc = php_escape_html_entities(
		    (unsigned char *)ZSTR_VAL(message), ZSTR_LEN(message), 0, ENT_COMPAT, NULL);
		smart_str_appends(&s, prepend ? prepend : "");
		smart_str_appends(&s, "<br />\n<b>");
		smart_str_appends(&s, request_error_label(type));
		smart_str_appends(&s, "</b>:  ");
		smart_str_append(&s, esc);
		smart_str_appends(&s, " in <b>");
		smart_str_appends(&s, PHPCMP_ERROR_FILE_CSTR(file));
		smart_str_appends(&s, "</b> on line <b>");
		smart_str_append_unsigned(&s, line);
		smart_str_appends(&s, "</b><br />\n");
		smart_str_appends(&s, append ? append : "");
		zend_string_release(esc);
	} else {
		smart_str_appends(&s, prepend ? prepend : "");
		smart_str_appendc(&s, '\n');
		smart_str_appends(&s, request_error_label(type));
		smart_str_appends(&s, ": ");
		smart_str_append(&s, message);
		smart_str_appends(&s, " in ");
		smart_str_appends(&s, PHPCMP_ERROR_FILE_CSTR(file));
		smart_str_appends(&s, " on line ");
		smart_str_append_unsigned(&s, line);
		smart_str_appendc(&s, '\n');
		smart_str_appends(&s, append ? append : "");
	}
	smart_str_0(&s);
	if (s.s) {
		PHPWRITE(ZSTR_VAL(s.s), ZSTR_LEN(s.s));
		smart_str_free(&s);
	}
}

/*
 * STDIN, STDOUT and STDERR, as php-cli defines them (cli_register_file_handles)
 * under run-tests.php: the test's stdout and stderr are the same pipe as
 * its output (2>&1), written at once, past any output buffer; its stdin is
 * empty.  Here: streams that write straight into the captured output, and
 * one that is at its end.
 */
static ssize_t stdio_write(php_stream *stream, const char *buf, size_t count)
{
	(void)stream;
	request_capture_add(&out_buf, buf, count);
	return (ssize_t)count;
}

static ssize_t stdio_read(php_stream *stream, char *buf, size_t count)
{
	(void)buf;
	(void)count;
	stream->eof = 1;
	return 0;
}

static int stdio_close(php_stream *stream, int close_handle)
{
	(void)stream;
	(void)close_handle;
	return 0;
}

static int stdio_flush(php_stream *stream)
{
	(void)stream;
	return 0;
}

static const php_stream_ops stdio_ops = {
	stdio_write,
	stdio_read,
	stdio_close,
	stdio_flush,
	"STDIO",
	NULL,
	NULL,
	NULL,
	NULL,
};

static void register_stdio(void)
{
	static const char *const names[] = { "STDIN", "STDOUT", "STDERR" };
	static const char *const modes[] = { "rb", "wb", "wb" };
	for (int i = 0; i < 3; i++) {
		php_stream *st = php_stream_alloc(&stdio_ops, NULL, NULL, modes[i]);
		if (!st)
			return;
		zend_constant c;
		php_stream_to_zval(st, &c.value);
		ZEND_CONSTANT_SET_FLAGS(&c, CONST_CS, 0);
		c.name = zend_string_init_interned(names[i], strlen(names[i]), 0);
		zend_register_constant(&c);
	}
}

/* ---- settings ---- */

/* Settings phpcmp's sandbox makes (phptini_sandbox_held) a test may name
 * only with the value already in force.  run-tests.php itself clears
 * open_basedir and disable_functions; phpcmp keeps them. */
struct setting {
	char *name, *value;
	size_t value_len;
};

struct settings {
	struct setting s[PHPT_MAX_SETTINGS];
	int n;
	char refused[512];
};

static void settings_release(struct settings *st)
{
	for (int i = 0; i < st->n; i++) {
		free(st->s[i].name);
		free(st->s[i].value);
	}
	st->n = 0;
}

static void refuse(struct settings *st, const char *name, const char *why)
{
	if (!st->refused[0])
		snprintf(st->refused, sizeof(st->refused), "%s: %s", name, why);
}

/* The INI parser's callback: one evaluated name = value. */
static void settings_parsed(zval *name, zval *value, zval *unused, int callback_type, void *arg)
{
	struct settings *st = arg;
	(void)unused;
	if (callback_type != ZEND_INI_PARSER_ENTRY || Z_TYPE_P(name) != IS_STRING)
		return;
	if (!value || Z_TYPE_P(value) != IS_STRING) {
		refuse(st, Z_STRVAL_P(name), "not a plain value");
		return;
	}
	if (st->n == PHPT_MAX_SETTINGS) {
		refuse(st, Z_STRVAL_P(name), "too many settings");
		return;
	}
	struct setting *s = &st->s[st->n];
	s->name = strndup(Z_STRVAL_P(name), Z_STRLEN_P(name));
	s->value = malloc(Z_STRLEN_P(value) + 1);
	if (!s->name || !s->value) {
		free(s->name);
		free(s->value);
		refuse(st, Z_STRVAL_P(name), "out of memory");
		return;
	}
	memcpy(s->value, Z_STRVAL_P(value), Z_STRLEN_P(value) + 1);
	s->value_len = Z_STRLEN_P(value);
	st->n++;
}

/*
 * Each "name=value" line as php-cli's -d gives it to PHP's INI parser
 * (main/php_ini_builder.c): a value starting with anything but a letter,
 * a digit or a quote is quoted; a line without '=' means name=1.  So
 * "error_reporting=E_ALL & ~E_DEPRECATED" is evaluated and "On" is "1",
 * exactly as under run-tests.php.  Parsed while a request is open (the
 * parser allocates from the request's heap and evaluates constants).
 */
static void settings_parse(struct settings *st, const char *lines, size_t len)
{
	const char *p = lines, *end = lines + len;
	while (p < end && !st->refused[0]) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n > 0) {
			const char *eq = memchr(p, '=', n);
			smart_str ini = { 0 };
			if (!eq) {
				smart_str_appendl(&ini, p, n);
				smart_str_appends(&ini, "=1\n");
			} else {
				const char *v = eq + 1;
				size_t vn = n - (size_t)(v - p);
				int quote = vn > 0 && !isalnum((unsigned char)*v) && *v != '"' && *v != '\'';
				smart_str_appendl(&ini, p, (size_t)(v - p));
				if (quote)
					smart_str_appendc(&ini, '"');
				smart_str_appendl(&ini, v, vn);
				if (quote)
					smart_str_appendc(&ini, '"');
				smart_str_appendc(&ini, '\n');
			}
			smart_str_0(&ini);
			int before = st->n;
			if (zend_parse_ini_string(ZSTR_VAL(ini.s), 1, ZEND_INI_SCANNER_NORMAL,
			        settings_parsed, st) == FAILURE ||
			    (st->n == before && !st->refused[0])) {
				char name[128];
				snprintf(name, sizeof(name), "%.*s", (int)(eq ? (size_t)(eq - p) : n), p);
				refuse(st, name, "PHP's INI parser does not accept this line");
			}
			smart_str_free(&ini);
		}
		p += n + 1;
	}
}

/* Between requests: make each setting as PHP_INI_SYSTEM at the activate
 * stage; the next request's shutdown restores them all. */
static void settings_apply(struct settings *st)
{
	for (int i = 0; i < st->n && !st->refused[0]; i++) {
		struct setting *s = &st->s[i];
		if (!strcmp(s->name, "extension") || !strcmp(s->name, "zend_extension")) {
			refuse(st, s->name, "loads an extension: only at startup");
			return;
		}
		/* The allow-list again, on the names PHP's parser gave (the
		 * daemon checked its own reading of the lines: phptini.h). */
		char why[300];
		if (phptini_check(s->name, s->value, why, sizeof(why)) == PHPTINI_REFUSED) {
			refuse(st, s->name, why[0] ? why : "refused");
			return;
		}
		zend_ini_entry *e = zend_hash_str_find_ptr(EG(ini_directives), s->name, strlen(s->name));
		if (phptini_sandbox_held(s->name) &&
		    (!e || !e->value || strcmp(ZSTR_VAL(e->value), s->value))) {
			refuse(st, s->name, "held by phpcmp's sandbox");
			return;
		}
		if (!e)
			continue; /* php -d accepts unknown names too, to no effect */
		/* At the activate stage PHP_INI_SYSTEM also makes the entry
		 * system-only for the request (php_admin_value); php -d does not:
		 * ini_set() may still change it.  Its own modifiability is put
		 * back (and restored again at the request's end). */
		uint8_t modifiable = e->modifiable;
		if (zend_alter_ini_entry_chars(
		        e->name, s->value, s->value_len, PHP_INI_SYSTEM, PHP_INI_STAGE_ACTIVATE) == FAILURE) {
			e->modifiable = modifiable;
			refuse(st, s->name, "PHP refuses this value after startup");
			return;
		}
		e->modifiable = modifiable;
	}
}

/* ---- the script ---- */

static int name_ok(const char *s, size_t n)
{
	if (n == 0 || n > 200 || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		        c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

static int write_script(const char *path, const char *code, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -1;
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, code + done, len - done);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	return close(fd);
}

static void fail(struct proto_buf *out, const char *fmt, const char *arg)
{
	char msg[4400];
	snprintf(msg, sizeof(msg), fmt, arg);
	proto_buf_add_int(out, TAG_STATUS, PROTO_STATUS_ERROR);
	proto_buf_add_str(out, TAG_FAILURE, msg);
}

/* core.c's settings between messages: diagnostics never displayed. */
static void quiet(void)
{
	PG(display_errors) = 0;
	PG(log_errors) = 0;
}

/*
 * One script in a request of its own (core.c's open request ended first,
 * the next one opened after), its output in out_buf.  0 when it ran; -1
 * with st->refused set, or with why filled.
 */
static int run_in_request(const char *dir, const char *path, const struct proto_field *ini,
    struct settings *st, int *exit_status, char *why, size_t whysize)
{
	int ran = 0;

	if (ini)
		settings_parse(st, ini->data, ini->len);
	request_capture_reset(&out_buf);
	php_request_shutdown(NULL); /* the request core.c left open */
	if (!st->refused[0])
		settings_apply(st);
	if (!st->refused[0]) {
		size_t (*saved_write)(const char *, size_t) = sapi_module.ub_write;
		prev_error_cb = zend_error_cb;
		sapi_module.ub_write = phpt_ub_write;
		zend_error_cb = phpt_error_cb;
		/* run-tests runs a test with the working directory in php-src's
		 * tree; here it is the private folder, where the copy is (so
		 * relative paths stay inside open_basedir) */
		char old_cwd[4096];
		volatile int moved = getcwd(old_cwd, sizeof(old_cwd)) != NULL && chdir(dir) == 0;
		if (php_request_startup() == SUCCESS) {
			register_stdio();
			/* Opened as php-cli opens a script (a FILE *, no stream
			 * resource), so resource ids count as they do there. */
			zend_file_handle fh;
			FILE *fp = fopen(path, "rb");
			if (fp)
				zend_stream_init_fp(&fh, fp, path);
			else
				zend_stream_init_filename(&fh, path);
			phpcmp_file_handle_primary(&fh);
			zend_try
			{
				php_execute_script(&fh);
			}
			zend_end_try();
			zend_destroy_file_handle(&fh);
			*exit_status = EG(exit_status);
			ran = 1;
		}
		php_request_shutdown(NULL); /* shutdown functions, destructors, buffers: still captured */
		if (moved && chdir(old_cwd) < 0) {
			/* the private folder stays the working directory: harmless */
		}
		sapi_module.ub_write = saved_write;
		zend_error_cb = prev_error_cb;
	} else {
		/* Settings made before the refusal are undone by a request's end. */
		if (php_request_startup() == SUCCESS)
			php_request_shutdown(NULL);
	}
	quiet();
	php_request_startup();
	if (!ran && !st->refused[0])
		snprintf(why, whysize, "php_request_startup failed");
	return ran ? 0 : -1;
}

/* Write one named script of the message into dir: 0, or -1 with out failed. */
static int put_script(const char *dir, const struct proto_field *name, const struct proto_field *code,
    char *path, size_t pathsize, struct proto_buf *out)
{
	if (!name || !code || !name_ok(name->data, name->len)) {
		fail(out, "%s", "a PROTO_PHPT script needs a plain file name and its text");
		return -1;
	}
	snprintf(path, pathsize, "%s/%.*s", dir, (int)name->len, name->data);
	if (write_script(path, code->data, code->len) < 0) {
		fail(out, "cannot write the script into the private folder: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int phptcore_handle(const struct proto_msg *req, struct proto_buf *out)
{
	const struct proto_field *ini = proto_get(req, TAG_PHPT_INI);
	const struct proto_field *clean_name = proto_get(req, TAG_PHPT_CLEAN_NAME);
	char path[4400] = "", clean_path[4400] = "", why[256] = "";
	struct settings *st = NULL;
	int exit_status = 0;

	if (req->type != PROTO_PHPT)
		return 0;
	/* A copy: PHP keeps the string in request memory, freed below. */
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", php_get_temporary_directory());
	/* Files next to the test first (the daemon sends those it names). */
	char aux_paths[PROTO_MAX_FIELDS][300];
	int naux = 0;
	for (size_t i = 0; i < req->nfields; i++) {
		const struct proto_field *f = &req->fields[i];
		if (f->tag != TAG_PHPT_AUX)
			continue;
		const char *nul = memchr(f->data, '\0', f->len);
		size_t nlen = nul ? (size_t)(nul - f->data) : 0;
		if (!nul || !name_ok(f->data, nlen) || naux == PROTO_MAX_FIELDS) {
			fail(out, "%s", "a TAG_PHPT_AUX needs a plain file name, a NUL, its bytes");
			goto done;
		}
		snprintf(aux_paths[naux], sizeof(aux_paths[naux]), "%s/%.*s", dir, (int)nlen, f->data);
		if (write_script(aux_paths[naux], nul + 1, f->len - nlen - 1) < 0) {
			fail(out, "cannot write a file next to the test into the private folder: %s",
			    strerror(errno));
			goto done;
		}
		naux++;
	}
	if (put_script(dir, proto_get(req, TAG_PHPT_NAME), proto_get(req, TAG_PHPT_CODE), path, sizeof(path),
	        out) < 0 ||
	    (clean_name &&
	        put_script(dir, clean_name, proto_get(req, TAG_PHPT_CLEAN_CODE), clean_path,
	            sizeof(clean_path), out) < 0))
		goto done;
	if (!(st = calloc(1, sizeof(*st)))) {
		fail(out, "%s", "out of memory");
		goto done;
	}
	if (run_in_request(dir, path, ini, st, &exit_status, why, sizeof(why)) < 0) {
		proto_buf_add_int(out, TAG_STATUS, PROTO_STATUS_ERROR);
		if (st->refused[0])
			proto_buf_add_str(out, TAG_PHPT_REFUSED, st->refused);
		proto_buf_add_str(out, TAG_FAILURE, st->refused[0] ? st->refused : why);
		goto done;
	}
	proto_buf_add_int(out, TAG_STATUS, PROTO_STATUS_OK);
	proto_buf_add_int(out, TAG_PHPT_EXIT, exit_status);
	proto_buf_add(out, TAG_PRINTED, out_buf.data ? out_buf.data : "", out_buf.len);
	if (out_buf.truncated)
		proto_buf_add_str(out, TAG_FAILURE, "output over the 1 MiB limit: cut");
	/* CLEAN in the same message: it sees what FILE left in the private
	 * folder, which the loader empties after each message. */
	if (clean_path[0]) {
		int clean_exit = 0;
		settings_release(st);
		memset(st, 0, sizeof(*st));
		if (run_in_request(dir, clean_path, proto_get(req, TAG_PHPT_CLEAN_INI), st, &clean_exit, why,
		        sizeof(why)) == 0)
			proto_buf_add(
			    out, TAG_PHPT_CLEAN_PRINTED, out_buf.data ? out_buf.data : "", out_buf.len);
	}
done:
	if (st) {
		settings_release(st);
		free(st);
	}
	if (clean_path[0])
		unlink(clean_path);
	if (path[0])
		unlink(path);
	for (int i = 0; i < naux; i++)
		unlink(aux_paths[i]);
	return PROTO_PHPT_RESULT;
}
