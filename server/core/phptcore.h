/*
 * .phpt scripts in the worker core (phptcore.c): core.c hands it the
 * PROTO_PHPT messages.  Only the core includes this (it needs PHP).
 */
#ifndef PHPCMP_PHPTCORE_H
#define PHPCMP_PHPTCORE_H

#include "proto.h"

/* Answer a PROTO_PHPT: fills out, returns PROTO_PHPT_RESULT. */
int phptcore_handle(const struct proto_msg *req, struct proto_buf *out);

/* core.c: the error types that end a script, and an error type's label as
 * php-cli prints it ("Warning", "Fatal error"...). */
#define CORE_FATAL_ERRORS \
	(E_ERROR | E_CORE_ERROR | E_COMPILE_ERROR | E_USER_ERROR | E_PARSE | E_RECOVERABLE_ERROR)
const char *core_error_label(int type);

#endif
