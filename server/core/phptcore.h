/*
 * .phpt scripts in the worker core (phptcore.c): core.c hands it the
 * PROTO_PHPT messages.  Only the core includes this (it needs PHP).
 */
#ifndef PHPCMP_PHPTCORE_H
#define PHPCMP_PHPTCORE_H

#include "proto.h"

/* Answer a PROTO_PHPT: fills out, returns PROTO_PHPT_RESULT. */
int phptcore_handle(const struct proto_msg *req, struct proto_buf *out);

#endif
