/*
 * One PHP request in the worker core (request.c): what core.c, gencore.c and
 * phptcore.c share of it.  Capped captures of what a request prints, the
 * error types that end a script and their labels, the state a request's end
 * does not reset, the json_encode call from a real PHP frame, and a
 * PROTO_RESULT's outcome fields.  Only the core includes this (it needs
 * PHP); it is the floor below core.c, gencore.c and phptcore.c and calls
 * none of them.
 */
#ifndef PHPCMP_REQUEST_H
#define PHPCMP_REQUEST_H

#include "proto.h"

/* A capped byte buffer in plain malloc memory, so it outlives the request:
 * set max, the rest starts zeroed. */
struct request_capture {
	char *data;
	size_t len, cap, max;
	int truncated; /* bytes past max (or past memory) were dropped */
};

void request_capture_reset(struct request_capture *c);
void request_capture_add(struct request_capture *c, const char *s, size_t n);
void request_capture_printf(struct request_capture *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The capture as field tag of out; a truncated one ends with note (past
 * the cap, so the note is not cut away too). */
void request_capture_emit(struct proto_buf *out, uint16_t tag, struct request_capture *c, const char *note);

/* The error types that end a script, and an error type's label as php-cli
 * prints it ("Warning", "Fatal error"...). */
#define REQUEST_FATAL_ERRORS \
	(E_ERROR | E_CORE_ERROR | E_COMPILE_ERROR | E_USER_ERROR | E_PARSE | E_RECOVERABLE_ERROR)
const char *request_error_label(int type);

/* Once, after php_embed_init: find the functions called from C
 * (json_last_error_msg; openssl_error_string when there is one).  0, or -1:
 * this libphp has no json_last_error_msg. */
int request_init(void);

/* A request just opened is made ready for a case (the state no request end
 * resets: see request.c). */
void request_ready(void);

/*
 * json_encode from a real PHP frame: request_encoder_declare() once in a
 * request before the first request_encode() (0, or -1: it could not be
 * declared; after a bailout the caller must end the request),
 * request_encoder_forget() when a request ends.  request_encode() leaves an
 * exception (or exit()) in EG(exception) and ret undefined; a fatal error
 * bails out.  request_last_error_msg(): json_last_error_msg().
 */
#define REQUEST_ENCODER_NAME "phpcmp\\encode"
int request_encoder_declare(void);
void request_encoder_forget(void);
void request_encode(zval *value, zend_long flags, zend_long depth, zval *ret);
void request_last_error_msg(zval *ret);

/* A PROTO_RESULT's first fields, as core.c and gencore.c send them: status,
 * the output (a string, status ok), the json error code and message, the
 * exception's class and message (exc_msg NULL: not sent). */
void request_put_outcome(struct proto_buf *out, int status, const zval *output, long error_code,
    const zend_string *error_msg, const char *exc_class, const zend_string *exc_msg);

#endif
