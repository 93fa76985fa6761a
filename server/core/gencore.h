/*
 * Generated runs in the worker core (gencore.c): core.c hands it the
 * PROTO_GEN_* messages.  Only the core includes this (it needs PHP).
 */
#ifndef PHPCMP_GENCORE_H
#define PHPCMP_GENCORE_H

#include "proto.h"

/* Most cases one PROTO_GEN_BATCH may ask for (32 bytes each in the reply). */
#define GENCORE_MAX_BATCH 65536

/* Where a batch says how far it got (proto.h's progress page), or NULL. */
void gencore_set_page(struct proto_page *page);

/* Answer a PROTO_GEN_BATCH or PROTO_GEN_DETAIL: fills out, returns the reply type. */
int gencore_handle(const struct proto_msg *req, struct proto_buf *out);
/* The fork server's parent: declare the generator's classes for its
 * children's first batch (core_api.prefork). */
void gencore_prefork(void);
/* Before any other message: a request with the classes declared (a fresh
 * fork server child's) is restarted, so no normal case sees them. */
void gencore_leave(void);

/*
 * json_encode from a real PHP frame (core.c): core_encoder_declare() once
 * in a request before the first core_encode() (0, or -1: it could not be
 * declared), core_encoder_forget() when a request ends.  core_encode()
 * leaves an exception (or exit()) in EG(exception) and ret undefined; a
 * fatal error bails out.  core_last_error_msg(): json_last_error_msg().
 * Only core.c and gencore.c, which include PHP's headers, call these.
 */
int core_encoder_declare(void);
void core_encoder_forget(void);
void core_encode(zval *value, zend_long flags, zend_long depth, zval *ret);
void core_last_error_msg(zval *ret);

/* core.c: a PROTO_RESULT's first fields, as core.c and gencore.c send
 * them: status, the output (a string, status ok), the json error code and
 * message, the exception's class and message (exc_msg NULL: not sent). */
void core_put_outcome(struct proto_buf *out, int status, const zval *output, long error_code,
    const zend_string *error_msg, const char *exc_class, const zend_string *exc_msg);

/* core.c: a request just opened is made ready for a case (the state no
 * request end resets: see there). */
void core_request_ready(void);

#endif
