/*
 * The worker core: the only code that talks to PHP.  It is compiled once per
 * build against that build's own headers (a core built with 8.2.36 headers
 * does not even load into 8.2.32) and linked against the build's libphp.so,
 * which the loader has already dlopened.
 *
 * Each case runs in a request of its own, so classes, functions and globals
 * of one case are gone in the next.  PHP output is captured through the SAPI
 * (never mixed into the protocol stream), diagnostics through zend_error_cb.
 */
#include <php.h>
#include <php_main.h>
#include <php_output.h>
#include <php_embed.h>
#include <zend_exceptions.h>
#include <zend_observer.h>
#include <ext/json/php_json.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include <ext/standard/md5.h>

#include "compat.h"
#include "core.h"
#include "gencore.h"
#include "phptcore.h"
#include "request.h"

#define MAX_PRINTED PROTO_MAX_PRINTED /* what a case may echo before we cut it */
#define MAX_WARNINGS PROTO_MAX_DIAG

static struct request_capture printed = { .max = MAX_PRINTED };
static struct request_capture warnings = { .max = MAX_WARNINGS };
static struct request_capture failure = { .max = MAX_WARNINGS };
static const struct core_options *options;
static void (*php_error_cb_orig)(int, phpcmp_error_file, const uint32_t, zend_string *);
static zend_function *fn_json_encode;

/*
 * The case's own code did not compile: what, where in the user's code
 * (the wrapper taken off).  Set by run_code and by the error callback for
 * an E_COMPILE_ERROR raised while compiling it (which bails out).
 */
static struct {
	const char *section;         /* "setup" / "value" while compiling it, else NULL */
	size_t prefix;               /* wrapper bytes before the user's code on its line 1 */
	long lines;                  /* lines of the user's code */
	long scan_line, scan_column; /* the scanner's place when a ParseError was thrown */
	int set;
	char where[8];
	char message[1024];
	long line, column;
} compile;

/* ---- SAPI hooks ---- */

static size_t core_ub_write(const char *str, size_t len)
{
	request_capture_add(&printed, str, len);
	return len;
}

static void core_flush(void *server_context)
{
	(void)server_context;
}

static void core_log_message(const char *message, int syslog_type)
{
	(void)syslog_type;
	request_capture_printf(&warnings, "%s\n", message);
}

static void core_ini_set(HashTable *h, const char *name, const char *value)
{
	zval v;
	ZVAL_NEW_STR(&v, zend_string_init(value, strlen(value), 1));
	zend_hash_str_update(h, name, strlen(name), &v);
}

/* Lowest-precedence ini values; php_ini_ignore keeps ini files out. */
static void core_ini_defaults(HashTable *h)
{
	core_ini_set(h, "memory_limit", options->memory_limit ? options->memory_limit : "128M");
	core_ini_set(h, "serialize_precision", "-1");
	core_ini_set(h, "precision", "14");
	core_ini_set(h, "error_reporting", "32767"); /* E_ALL */
	core_ini_set(h, "log_errors", "0");
	/* The baseline every request end restores: the embed SAPI's own
	 * default is 1, and a case's ini_set('display_errors', ...) went back
	 * to that, printing later cases' errors into their output. */
	core_ini_set(h, "display_errors", "0");
	core_ini_set(h, "html_errors", "0");
	core_ini_set(h, "date.timezone", "UTC");
	for (int i = 0; i < options->nini; i++) {
		const char *eq = strchr(options->ini[i], '=');
		if (!eq)
			continue;
		char name[256];
		size_t n = (size_t)(eq - options->ini[i]);
		if (n >= sizeof(name))
			continue;
		memcpy(name, options->ini[i], n);
		name[n] = '\0';
		core_ini_set(h, name, eq + 1);
	}
}

/*
 * Record every diagnostic; let PHP's own handler deal with fatal ones (it
 * bails out to our zend_try).  display_errors is off, so it prints nothing.
 */
static void core_error_cb(int type, phpcmp_error_file file, const uint32_t line, zend_string *message)
{
	int fatal = (type & REQUEST_FATAL_ERRORS) != 0;
	if (type == E_COMPILE_ERROR && compile.section != NULL && !compile.set) {
		compile.set = 1;
		snprintf(compile.where, sizeof(compile.where), "%s", compile.section);
		snprintf(compile.message, sizeof(compile.message), "%s", ZSTR_VAL(message));
		compile.line = (long)line >= 1 && (long)line <= compile.lines ? (long)line : compile.lines;
		compile.column = 0;
		request_capture_reset(&failure);
		request_capture_printf(&failure, "PHP Fatal error: %s in %s on line %ld\n", ZSTR_VAL(message),
		    compile.section, compile.line);
	}
	if (fatal || (EG(error_reporting) & type)) {
		struct request_capture *c = fatal ? &failure : &warnings;
		request_capture_printf(c, "PHP %s: %s in %s on line %u\n", request_error_label(type),
		    ZSTR_VAL(message), file ? PHPCMP_ERROR_FILE_CSTR(file) : "unknown", line);
	}
	if (fatal)
		php_error_cb_orig(type, file, line, message);
}

/* ---- running a case ---- */

struct outcome {
	int status;
	zval output; /* json_encode's return value */
	long error_code;
	zend_string *error_msg;
	char exc_class[256];
	zend_string *exc_msg;
};

/* Note the pending exception (class, message) and clear it.  Returns 1 if it
 * was exit() rather than a real exception. */
static int take_exception(struct outcome *o, const char *where)
{
	zend_object *ex = EG(exception);
	if (zend_is_unwind_exit(ex)) {
		zend_clear_exception();
		if (failure.len == 0)
			request_capture_printf(&failure, "exit() called in %s\n", where);
		return 1;
	}
	zval rv, obj;
	ZVAL_OBJ(&obj, ex);
	zval *msg = zend_read_property(ex->ce, Z_OBJ(obj), "message", sizeof("message") - 1, 1, &rv);
	snprintf(o->exc_class, sizeof(o->exc_class), "%s", ZSTR_VAL(ex->ce->name));
	if (o->exc_msg)
		zend_string_release(o->exc_msg);
	o->exc_msg = msg && Z_TYPE_P(msg) == IS_STRING ? zend_string_copy(Z_STR_P(msg)) : ZSTR_EMPTY_ALLOC();
	zval lrv;
	zval *line = zend_read_property(ex->ce, Z_OBJ(obj), "line", sizeof("line") - 1, 1, &lrv);
	zend_long lineno = line && Z_TYPE_P(line) == IS_LONG ? Z_LVAL_P(line) : 0;
	if (failure.len == 0) {
		/* Worded like PHP's own messages for the same failures. */
		if (instanceof_function(ex->ce, zend_ce_parse_error))
			request_capture_printf(&failure,
			    "PHP Parse error: %s in %s on line " ZEND_LONG_FMT "\n", ZSTR_VAL(o->exc_msg),
			    where, lineno);
		else
			request_capture_printf(&failure,
			    "PHP Fatal error: Uncaught %s: %s in %s on line " ZEND_LONG_FMT "\n",
			    ZSTR_VAL(ex->ce->name), ZSTR_VAL(o->exc_msg), where, lineno);
	}
	zend_clear_exception();
	return 0;
}

/*
 * Where the scanner was when a ParseError was made while compiling a case's
 * code: its line and column in the compiled source (PHP's own message has
 * the line only).  Caught as the exception object is created: compile
 * errors are thrown with no PHP frame, where zend_throw_exception_hook is
 * not called, and the scanner's state is gone once the compile returns.
 */
static zend_object *(*parse_error_new_orig)(zend_class_entry *);

static zend_object *core_parse_error_new(zend_class_entry *ce)
{
	if (compile.section != NULL && LANG_SCNG(yy_start) != NULL &&
	    LANG_SCNG(yy_text) >= LANG_SCNG(yy_start) && LANG_SCNG(yy_text) <= LANG_SCNG(yy_limit)) {
		const unsigned char *p = LANG_SCNG(yy_start), *bol = p;
		long line = 1;
		for (; p < LANG_SCNG(yy_text); p++)
			if (*p == '\n') {
				line++;
				bol = p + 1;
			}
		compile.scan_line = line;
		compile.scan_column = (long)(LANG_SCNG(yy_text) - bol) + 1;
	}
	return parse_error_new_orig(ce);
}

/* Compile src (prefix bytes of wrapper before the user's code on line 1);
 * NULL when it does not, the ParseError pending. */
static zend_op_array *compile_user(zend_string *src, const char *name, size_t prefix)
{
	compile.section = name;
	compile.prefix = prefix;
	compile.scan_line = compile.scan_column = 0;
	parse_error_new_orig = zend_ce_parse_error->create_object;
	zend_ce_parse_error->create_object = core_parse_error_new;
	zend_op_array *op = phpcmp_compile_string(src, name);
	zend_ce_parse_error->create_object = parse_error_new_orig;
	compile.section = NULL;
	return op;
}

/* The pending ParseError's message and line (in the compiled source), cleared. */
static void parse_error_take(char *msg, size_t msgsize, long *line)
{
	zend_object *ex = EG(exception);
	zval rv, lrv;
	zval *m = zend_read_property(ex->ce, ex, "message", sizeof("message") - 1, 1, &rv);
	zval *l = zend_read_property(ex->ce, ex, "line", sizeof("line") - 1, 1, &lrv);
	snprintf(msg, msgsize, "%s", m != NULL && Z_TYPE_P(m) == IS_STRING ? Z_STRVAL_P(m) : "syntax error");
	*line = l != NULL && Z_TYPE_P(l) == IS_LONG ? (long)Z_LVAL_P(l) : 0;
	zend_clear_exception();
}

/* The column in the user's code of the scanner's place, when it is on line (else 0). */
static long user_column(long line, size_t prefix)
{
	if (compile.scan_line != line || compile.scan_column <= 0)
		return 0;
	long col = compile.scan_column - (line == 1 ? (long)prefix : 0);
	return col >= 1 ? col : 1;
}

static void compile_error_set(const char *name, const char *msg, long line, long column)
{
	compile.set = 1;
	snprintf(compile.where, sizeof(compile.where), "%s", name);
	snprintf(compile.message, sizeof(compile.message), "%s", msg);
	compile.line = line;
	compile.column = column;
	request_capture_reset(&failure);
	request_capture_printf(&failure, "PHP Parse error: %s in %s on line %ld\n", msg, name, line);
}

/* Length of the user's last line plus one: the column just past its end. */
static long end_column(const char *code, size_t len)
{
	size_t i = len;
	while (i > 0 && code[i - 1] != '\n')
		i--;
	return (long)(len - i) + 1;
}

/*
 * A ParseError in the user's code.  Its line is the user's; on line 1 the
 * column loses the wrapper's prefix.  An error in the wrapper's own tail
 * (past the user's last line: the code ended inside an expression, so
 * PHP's message names the wrapper's ')') is found again by compiling the
 * code with a bare "return " in front and nothing after, whose message is
 * about the user's code alone.
 */
static void parse_error_map(const char *code, size_t len, const char *name, size_t prefix)
{
	char msg[1024];
	long line;
	parse_error_take(msg, sizeof(msg), &line);
	if (line >= 1 && line <= compile.lines) {
		compile_error_set(name, msg, line, user_column(line, prefix));
		return;
	}
	zend_string *src = zend_string_alloc(len + 7, 0);
	memcpy(ZSTR_VAL(src), "return ", 7);
	memcpy(ZSTR_VAL(src) + 7, code, len);
	ZSTR_VAL(src)[len + 7] = '\0';
	zend_op_array *op = compile_user(src, name, 7);
	zend_string_release(src);
	if (op == NULL && EG(exception) != NULL &&
	    instanceof_function(EG(exception)->ce, zend_ce_parse_error)) {
		char msg2[1024];
		long line2;
		parse_error_take(msg2, sizeof(msg2), &line2);
		if (line2 >= 1 && line2 <= compile.lines) {
			long col = user_column(line2, 7);
			if (col == 0 && line2 == compile.lines &&
			    (strstr(msg2, "end of file") != NULL || strncmp(msg2, "Unclosed", 8) == 0))
				col = end_column(code, len);
			compile_error_set(name, msg2, line2, col);
			return;
		}
	}
	if (op != NULL) {
		destroy_op_array(op);
		efree(op);
	}
	if (EG(exception))
		zend_clear_exception();
	compile_error_set(name, msg, compile.lines, end_column(code, len));
}

/* Does the compiled code leave other than by falling off its end (a return
 * of its own, a throw, exit)?  The last opline is the implicit final return. */
static int has_way_out(const zend_op_array *op)
{
	for (uint32_t i = 0; i + 1 < op->last; i++)
		switch (op->opcodes[i].opcode) {
		case ZEND_RETURN:
		case ZEND_RETURN_BY_REF:
		case ZEND_GENERATOR_RETURN:
		case ZEND_THROW:
			return 1;
		default:
			if (phpcmp_opline_exits(op, &op->opcodes[i]))
				return 1;
		}
	return 0;
}

/*
 * Compile and run code in the global scope.  Value code that does not end in
 * ';' is an expression, wrapped as `return (expr);` (the user's line N is
 * still line N); setup code is always statements.  0 on success, -1 when it
 * threw or did not compile (the exception is recorded; a compile error also
 * in `compile`, against the user's own lines and columns).  Value
 * statements with no return of their own would encode null: a compile
 * error too.
 */
static int run_code(
    const char *code, size_t len, const char *name, int statements, zval *ret, struct outcome *o)
{
	while (len > 0 && strchr(" \t\r\n", code[len - 1]))
		len--;
	int value_statements = !statements && len > 0 && code[len - 1] == ';';
	if (value_statements)
		statements = 1;
	compile.lines = 1;
	for (size_t i = 0; i < len; i++)
		compile.lines += code[i] == '\n';
	zend_string *src;
	size_t prefix = 0;
	if (statements) {
		src = zend_string_init(code, len, 0);
	} else {
		prefix = 8;
		src = zend_string_alloc(len + sizeof("return (\n);") - 1, 0);
		memcpy(ZSTR_VAL(src), "return (", 8);
		memcpy(ZSTR_VAL(src) + 8, code, len);
		memcpy(ZSTR_VAL(src) + 8 + len, "\n);", 4);
	}
	zend_op_array *op = compile_user(src, name, prefix);
	zend_string_release(src);
	if (!op) {
		if (EG(exception) && instanceof_function(EG(exception)->ce, zend_ce_parse_error)) {
			parse_error_map(code, len, name, prefix);
			snprintf(o->exc_class, sizeof(o->exc_class), "ParseError");
			if (o->exc_msg)
				zend_string_release(o->exc_msg);
			o->exc_msg = zend_string_init(compile.message, strlen(compile.message), 0);
		} else if (EG(exception)) {
			take_exception(o, name);
		}
		return -1;
	}
	if (value_statements && !has_way_out(op)) {
		destroy_op_array(op);
		efree(op);
		compile_error_set(name,
		    "no return: the value's statements end without `return EXPR;`, so json_encode would "
		    "encode null (return the value, or write an expression with no `;` at the end)",
		    compile.lines, 0);
		request_capture_reset(&failure);
		request_capture_printf(&failure, "phpcmp: %s: %s\n", name, compile.message);
		return -1;
	}
	ZVAL_UNDEF(ret);
	zend_execute(op, ret);
	destroy_op_array(op);
	efree(op);
	if (EG(exception)) {
		zval_ptr_dtor(ret);
		ZVAL_UNDEF(ret);
		take_exception(o, name);
		return -1;
	}
	return 0;
}

/* ---- measuring instructions (a worker running under callgrind) ---- */

static int dumps_made; /* callgrind numbers its dumps 1, 2, ... */

/* The "summary:" (or "totals:") count of one callgrind dump file, or -1. */
static int64_t dump_total(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int64_t total = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "summary:", 8) || (total < 0 && !strncmp(line, "totals:", 7)))
			total = strtoll(strchr(line, ':') + 1, NULL, 10);
	}
	fclose(f);
	return total;
}

/* Dump callgrind's counters (which also resets them); the file's path. */
static void dump(const char *event, char *path, size_t pathsize)
{
	CALLGRIND_DUMP_STATS_AT(event);
	dumps_made++;
	snprintf(path, pathsize, "%s.%d", options->dump_prefix, dumps_made);
}

/*
 * Instructions per json_encode call, the figure reviewers use: the
 * inclusive cost of json_encode's internal handler (zif_json_encode) over n
 * calls, divided by n.  The daemon starts this worker under callgrind with
 * --collect-atstart=no --toggle-collect=<the handler>, so callgrind counts
 * exactly what callgrind_annotate --inclusive=yes shows for that function.
 * The first dump throws away everything before (the result-producing call,
 * one more warm-up call: the first calls in a request cost more); the
 * second holds just the n measured calls.
 */
static int64_t measure_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * budget_ms > 0 (a submitted case's): the n calls are capped so that they
 * take about budget_ms in all.  The warm-up call's time says how many fit;
 * the clock, read between calls (outside zif_json_encode: not counted),
 * stops the loop should later calls cost more.  TAG_ITERATIONS_DONE says
 * how many were made.
 */
static void measure(
    zval *value, zend_long flags, zend_long depth, int64_t n, int64_t budget_ms, struct proto_buf *out)
{
	char path[4200];
	zval ret;
	int64_t t0, one, done = 0, budget_ns = budget_ms > 0 ? budget_ms * 1000000 : 0;

	if (!RUNNING_ON_VALGRIND || !options->dump_prefix) {
		request_capture_printf(
		    &warnings, "phpcmp: not a measuring worker; instructions not counted\n");
		return;
	}
	t0 = measure_now_ns();
	request_encode(value, flags, depth, &ret);
	zval_ptr_dtor(&ret);
	one = measure_now_ns() - t0;
	dump("phpcmp-warm-up", path, sizeof(path));
	unlink(path);
	if (budget_ns > 0 && one > 0 && n > budget_ns / one)
		n = budget_ns / one > 0 ? budget_ns / one : 1;
	t0 = measure_now_ns();
	while (done < n && !EG(exception)) {
		request_encode(value, flags, depth, &ret);
		zval_ptr_dtor(&ret);
		done++;
		if (budget_ns > 0 && measure_now_ns() - t0 >= budget_ns)
			break;
	}
	proto_buf_add_int(out, TAG_ITERATIONS_DONE, done);
	if (done > 0)
		n = done;
	dump("phpcmp-measured", path, sizeof(path));
	int64_t total = dump_total(path);
	if (total < 0) {
		request_capture_printf(&warnings, "phpcmp: cannot read the callgrind dump %s\n", path);
		return;
	}
	proto_buf_add_int(out, TAG_INSTR_TOTAL, total);
	proto_buf_add_int(out, TAG_INSTRUCTIONS, (total + n / 2) / n);
	proto_buf_add_str(out, TAG_DUMP_FILE, path);
}

static void run_case_body(const struct proto_msg *req, struct outcome *o, struct proto_buf *out)
{
	const struct proto_field *setup = proto_get(req, TAG_SETUP);
	const struct proto_field *code = proto_get(req, TAG_CODE);
	zval value, tmp;

	if (setup && setup->len > 0) {
		if (run_code(setup->data, setup->len, "setup", 1, &tmp, o) < 0) {
			o->status = PROTO_STATUS_ERROR;
			return;
		}
		zval_ptr_dtor(&tmp);
	}
	if (run_code(code ? code->data : "null", code ? code->len : 4, "value", 0, &value, o) < 0) {
		o->status = PROTO_STATUS_ERROR;
		return;
	}
	if (Z_ISUNDEF(value))
		ZVAL_NULL(&value);

	zend_long flags = (zend_long)proto_get_int(req, TAG_FLAGS, 0);
	zend_long depth = (zend_long)proto_get_int(req, TAG_DEPTH, 512);
	/* Declared after the case's own code ran: that code never sees it. */
	if (request_encoder_declare() < 0) {
		if (EG(exception))
			take_exception(o, "phpcmp encoder");
		if (failure.len == 0)
			request_capture_printf(
			    &failure, "phpcmp: cannot declare " REQUEST_ENCODER_NAME "()\n");
		zval_ptr_dtor(&value);
		o->status = PROTO_STATUS_ERROR;
		return;
	}
	request_encode(&value, flags, depth, &o->output);
	o->error_code = JSON_G(error_code);
	if (EG(exception) && take_exception(o, "json_encode")) {
		/* exit() inside jsonSerialize: the case failed. */
		o->status = PROTO_STATUS_ERROR;
	}
	zval msg;
	request_last_error_msg(&msg);
	if (Z_TYPE(msg) == IS_STRING)
		o->error_msg = zend_string_copy(Z_STR(msg));
	zval_ptr_dtor(&msg);
	int64_t iterations = proto_get_int(req, TAG_ITERATIONS, 0);
	if (iterations > 0 && o->status == PROTO_STATUS_OK && !o->exc_class[0])
		measure(&value, flags, depth, iterations, proto_get_int(req, TAG_MEASURE_BUDGET_MS, 0), out);
	zval_ptr_dtor(&value);
}

/*
 * An output over PROTO_MAX_OUTPUT is not sent (a frame holds 64 MiB at
 * most): the case is an error whose failure names the size and the md5 of
 * the bytes, so two builds' outputs still compare.
 */
static void output_too_large(struct outcome *o)
{
	PHP_MD5_CTX ctx;
	unsigned char digest[16];
	char hex[33];

	PHP_MD5Init(&ctx);
	PHP_MD5Update(&ctx, Z_STRVAL(o->output), Z_STRLEN(o->output));
	PHP_MD5Final(digest, &ctx);
	make_digest_ex(hex, digest, 16);
	request_capture_printf(&failure,
	    PROTO_OUTPUT_TOO_LARGE " (%zu bytes, md5 %s, over the %u byte limit)\n", Z_STRLEN(o->output), hex,
	    PROTO_MAX_OUTPUT);
	o->status = PROTO_STATUS_ERROR;
}

static void core_run_case(const struct proto_msg *req, struct proto_buf *out)
{
	struct outcome o;
	volatile int bailed = 0;
	memset(&o, 0, sizeof(o));
	ZVAL_UNDEF(&o.output);
	request_capture_reset(&printed);
	request_capture_reset(&warnings);
	request_capture_reset(&failure);
	memset(&compile, 0, sizeof(compile));
	gencore_leave();

	zend_try
	{
		run_case_body(req, &o, out);
	}
	zend_catch
	{
		/* Whatever o points to may be half-built: drop it, the request's
		 * shutdown frees the memory. */
		bailed = 1;
		/* A compile error bails out of compile_user() before it restores these. */
		if (zend_ce_parse_error->create_object == core_parse_error_new)
			zend_ce_parse_error->create_object = parse_error_new_orig;
		compile.section = NULL;
		o.status = PROTO_STATUS_ERROR;
		ZVAL_UNDEF(&o.output);
		o.error_msg = NULL;
		o.exc_msg = NULL;
		if (failure.len == 0)
			request_capture_printf(&failure, "PHP bailed out\n");
	}
	zend_end_try();
	zend_try
	{
		php_output_end_all(); /* a case may have left ob_start() buffers open */
	}
	zend_end_try();

	if (o.status == PROTO_STATUS_OK && Z_TYPE(o.output) == IS_STRING &&
	    Z_STRLEN(o.output) > PROTO_MAX_OUTPUT)
		output_too_large(&o);
	request_put_outcome(out, o.status, &o.output, o.error_code, o.error_msg, o.exc_class, o.exc_msg);
	request_capture_emit(out, TAG_PRINTED, &printed, PROTO_CUT_PRINTED);
	request_capture_emit(out, TAG_WARNINGS, &warnings, PROTO_CUT_WARNINGS);
	if (o.status != PROTO_STATUS_OK)
		request_capture_emit(out, TAG_FAILURE, &failure, PROTO_CUT_FAILURE);
	if (compile.set) {
		proto_buf_add_str(out, TAG_COMPILE_ERROR, compile.message);
		proto_buf_add_str(out, TAG_COMPILE_SECTION, compile.where);
		proto_buf_add_int(out, TAG_COMPILE_LINE, compile.line);
		proto_buf_add_int(out, TAG_COMPILE_COLUMN, compile.column);
	}

	/* Everything is copied out: end this request, open the next one now
	 * so the next case does not wait for it. */
	if (!bailed) {
		zval_ptr_dtor(&o.output);
		if (o.error_msg)
			zend_string_release(o.error_msg);
		if (o.exc_msg)
			zend_string_release(o.exc_msg);
	}
	php_request_shutdown(NULL);
	request_encoder_forget();
	php_request_startup();
	request_ready();
}

static int core_init(const struct core_options *opts, char *err, size_t errsize)
{
	options = opts;
	gencore_set_page(opts->page);
	php_embed_module.php_ini_ignore = 1;
	php_embed_module.ub_write = core_ub_write;
	php_embed_module.flush = core_flush;
	php_embed_module.log_message = core_log_message;
	php_embed_module.ini_defaults = core_ini_defaults;
	if (php_embed_init(0, NULL) != SUCCESS) {
		snprintf(err, errsize, "php_embed_init failed");
		return -1;
	}
	/* The embed SAPI hard-codes display_errors=1; diagnostics go to our
	 * error callback instead of into the case's output. */
	PG(display_errors) = 0;
	PG(log_errors) = 0;
	php_error_cb_orig = zend_error_cb;
	zend_error_cb = core_error_cb;
	fn_json_encode = zend_hash_str_find_ptr(CG(function_table), "json_encode", sizeof("json_encode") - 1);
	if (!fn_json_encode || request_init() < 0) {
		snprintf(err, errsize, "this libphp has no json_encode");
		return -1;
	}
	request_ready();
	return 0;
}

static void core_hello(struct proto_buf *out)
{
	zval *v = zend_get_constant_str("PHP_VERSION", sizeof("PHP_VERSION") - 1);
	proto_buf_add_str(out, TAG_PHP_VERSION, v && Z_TYPE_P(v) == IS_STRING ? Z_STRVAL_P(v) : "unknown");
	proto_buf_add_str(out, TAG_ZEND_VERSION, ZEND_VERSION);
	/* Where json_encode's handler sits in the library: callgrind names it
	 * by this offset in a stripped libphp (e.g. Debian's). */
	Dl_info info;
	if (dladdr((void *)fn_json_encode->internal_function.handler, &info) && info.dli_fbase)
		proto_buf_add_int(out, TAG_HANDLER_OFFSET,
		    (char *)(void *)fn_json_encode->internal_function.handler - (char *)info.dli_fbase);
}

static void core_shutdown(void)
{
	php_embed_shutdown();
}

/* Requests other than PROTO_CASE, by type. */
static int core_handle(const struct proto_msg *req, struct proto_buf *out)
{
	switch (req->type) {
	case PROTO_GEN_BATCH:
	case PROTO_GEN_DETAIL:
		return gencore_handle(req, out);
	case PROTO_PHPT:
		gencore_leave();
		return phptcore_handle(req, out);
	default:
		return 0;
	}
}

/* clang-format off */
static const struct core_api api = {
	.abi = CORE_ABI,
	.init = core_init,
	.hello = core_hello,
	.run_case = core_run_case,
	.handle = core_handle,
	.shutdown = core_shutdown,
	.prefork = gencore_prefork,
};
/* clang-format on */

ZEND_API const struct core_api *phpcmp_core_api(void);
ZEND_API const struct core_api *phpcmp_core_api(void)
{
	return &api;
}
