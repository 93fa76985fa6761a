/*
 * One PHP request in the worker core: what core.c (a submitted case),
 * gencore.c (generated cases) and phptcore.c (.phpt scripts) share of it
 * (request.h).  It calls none of them.
 */
#include <php.h>
#include <php_main.h>
#include <SAPI.h>
#include <zend_exceptions.h>
#include <zend_observer.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "compat.h"
#include "request.h"

static zend_function *fn_json_last_error_msg;
static zend_function *fn_openssl_error_string; /* NULL: no openssl, or disabled */

/* ---- captures ---- */

void request_capture_reset(struct request_capture *c)
{
	c->len = 0;
	c->truncated = 0;
}

void request_capture_add(struct request_capture *c, const char *s, size_t n)
{
	if (c->len + n > c->max) {
		n = c->max - c->len;
		c->truncated = 1;
	}
	if (buf_grow(&c->data, &c->cap, c->len + n) < 0) {
		c->truncated = 1;
		return;
	}
	memcpy(c->data + c->len, s, n);
	c->len += n;
}

void request_capture_printf(struct request_capture *c, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		request_capture_add(c, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

void request_capture_emit(struct proto_buf *out, uint16_t tag, struct request_capture *c, const char *note)
{
	if (c->truncated) {
		/* Past the cap itself, so the note is not cut away too. */
		size_t max = c->max;
		c->max = c->len + strlen(note);
		request_capture_add(c, note, strlen(note));
		c->max = max;
	}
	proto_buf_add(out, tag, c->data ? c->data : "", c->len);
}

/* ---- errors ---- */

const char *request_error_label(int type)
{
	switch (type) {
	case E_ERROR:
	case E_CORE_ERROR:
	case E_COMPILE_ERROR:
	case E_USER_ERROR:
		return "Fatal error";
	case E_RECOVERABLE_ERROR:
		return "Recoverable fatal error";
	case E_WARNING:
	case E_CORE_WARNING:
	case E_COMPILE_WARNING:
	case E_USER_WARNING:
		return "Warning";
	case E_PARSE:
		return "Parse error";
	case E_NOTICE:
	case E_USER_NOTICE:
		return "Notice";
	case E_STRICT:
		return "Strict Standards";
	case E_DEPRECATED:
	case E_USER_DEPRECATED:
		return "Deprecated";
	default:
		return "Unknown error";
	}
}

/* ---- the request's state ---- */

int request_init(void)
{
	fn_json_last_error_msg = zend_hash_str_find_ptr(
	    CG(function_table), "json_last_error_msg", sizeof("json_last_error_msg") - 1);
	if (!fn_json_last_error_msg)
		return -1;
	fn_openssl_error_string = zend_hash_str_find_ptr(
	    CG(function_table), "openssl_error_string", sizeof("openssl_error_string") - 1);
	return 0;
}

/*
 * What a request's end does not reset, reset by hand:
 * - PG(during_request_startup): php_execute_script clears it, and the
 *   core never calls that; left set, every warning reads "PHP Request
 *   Startup: ..." instead of "hex2bin(): ..." as php-cli prints it.
 * - OpenSSL's error queue, and the openssl extension's copy of it
 *   (process-wide globals): openssl_error_string() drains both.
 * - The response code: sapi_activate() resets the headers and the status
 *   line but not SG(sapi_headers).http_response_code, so a case's
 *   http_response_code(418) or header("Location: ...") (302) would show in
 *   every later case's http_response_code().  0 is what the embed SAPI
 *   starts with (http_response_code() returns false).
 */
void request_ready(void)
{
	PG(during_request_startup) = 0;
	SG(sapi_headers).http_response_code = 0;
	if (fn_openssl_error_string != NULL) {
		zval rv;
		for (int i = 0; i < 256; i++) {
			ZVAL_UNDEF(&rv);
			zend_call_known_function(fn_openssl_error_string, NULL, NULL, &rv, 0, NULL, NULL);
			int more = Z_TYPE(rv) == IS_STRING;
			zval_ptr_dtor(&rv);
			if (!more)
				break;
		}
		if (EG(exception))
			zend_clear_exception();
	}
}

/* ---- json_encode ---- */

/*
 * json_encode is called from PHP code, as in php-cli: from a real user
 * frame, never from C.  The frame is that of a small PHP function compiled
 * into each request before its first encode (a request's functions are gone
 * at its end).  request_encode() pushes the function's frame on the VM stack
 * and runs it the way zend_call_function() runs a user function, minus
 * zend_call_function()'s last step: called with no PHP frame below it, that
 * turns a pending exception into a fatal error.  Here the exception stays
 * in EG(exception), exactly as after a script's top-level code (zend_execute),
 * for the caller to read and clear.  Inside, every frame is a real one:
 * json_encode's own (pushed by the VM's call opcode), jsonSerialize()'s,
 * those of functions it calls, so exceptions, warnings, exit() and nested
 * calls behave as in php-cli, and a debug build's assertions hold.  (A
 * zeroed zend_execute_data under the call, what this used to do, aborted
 * --enable-debug builds and crashed --coverage ones; issue 16.)
 */
static const char encoder_src[] = "namespace phpcmp;\n"
                                  "function encode($value, $flags, $depth) {\n"
                                  "\treturn \\json_encode($value, $flags, $depth);\n"
                                  "}\n";
static zend_function *encoder_fn; /* declared in the current request, or NULL */

void request_encoder_forget(void)
{
	encoder_fn = NULL;
}

int request_encoder_declare(void)
{
	volatile int compiled = 0;
	/* Looked up every time, not trusted from an earlier request: the
	 * phpt runner (phptcore.c) opens requests of its own. */
	zend_function *have = zend_hash_str_find_ptr(
	    EG(function_table), REQUEST_ENCODER_NAME, sizeof(REQUEST_ENCODER_NAME) - 1);
	if (have && have->type == ZEND_USER_FUNCTION && have->op_array.num_args == 3) {
		encoder_fn = have;
		return 0;
	}
	zend_try
	{
		zend_string *src = zend_string_init(encoder_src, sizeof(encoder_src) - 1, 0);
		zend_op_array *op = phpcmp_compile_string(src, "phpcmp encoder");
		zend_string_release(src);
		/* A top-level function is declared when it is compiled; the
		 * file's own code does nothing and is not run. */
		if (op) {
			destroy_op_array(op);
			efree(op);
			compiled = 1;
		}
	}
	zend_end_try();
	if (!compiled)
		return -1; /* after a bailout the caller must end the request */
	zend_function *fn = zend_hash_str_find_ptr(
	    EG(function_table), REQUEST_ENCODER_NAME, sizeof(REQUEST_ENCODER_NAME) - 1);
	if (!fn || fn->type != ZEND_USER_FUNCTION || fn->op_array.num_args != 3)
		return -1;
	encoder_fn = fn;
	return 0;
}

void request_encode(zval *value, zend_long flags, zend_long depth, zval *ret)
{
	zend_function *fn = encoder_fn;
	zend_execute_data *call = zend_vm_stack_push_call_frame(
	    ZEND_CALL_TOP_FUNCTION | ZEND_CALL_DYNAMIC, fn, 3, NULL);
	ZVAL_COPY_DEREF(ZEND_CALL_ARG(call, 1), value);
	ZVAL_LONG(ZEND_CALL_ARG(call, 2), flags);
	ZVAL_LONG(ZEND_CALL_ARG(call, 3), depth);
	ZVAL_UNDEF(ret);
	zend_init_func_execute_data(call, &fn->op_array, ret);
	ZEND_OBSERVER_FCALL_BEGIN(call);
	zend_execute_ex(call);
	zend_vm_stack_free_call_frame(call);
}

/*
 * json_last_error_msg() from C.  It takes no argument, calls no PHP code and
 * cannot throw, so it needs no frame below it (php-src calls internal
 * functions from C the same way).
 */
void request_last_error_msg(zval *ret)
{
	ZVAL_UNDEF(ret);
	zend_call_known_function(fn_json_last_error_msg, NULL, NULL, ret, 0, NULL, NULL);
}

/* ---- the outcome ---- */

void request_put_outcome(struct proto_buf *out, int status, const zval *output, long error_code,
    const zend_string *error_msg, const char *exc_class, const zend_string *exc_msg)
{
	proto_buf_add_int(out, TAG_STATUS, status);
	if (status == PROTO_STATUS_OK && Z_TYPE_P(output) == IS_STRING)
		proto_buf_add(out, TAG_OUTPUT, Z_STRVAL_P(output), Z_STRLEN_P(output));
	proto_buf_add_int(out, TAG_ERROR_CODE, error_code);
	if (error_msg)
		proto_buf_add(out, TAG_ERROR_MSG, ZSTR_VAL(error_msg), ZSTR_LEN(error_msg));
	if (exc_class[0]) {
		proto_buf_add_str(out, TAG_EXC_CLASS, exc_class);
		if (exc_msg)
			proto_buf_add(out, TAG_EXC_MSG, ZSTR_VAL(exc_msg), ZSTR_LEN(exc_msg));
	}
}
