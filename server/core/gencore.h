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

#endif
