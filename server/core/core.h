/*
 * The interface between the worker loader (build-independent, never
 * includes PHP headers) and the worker core (compiled once per build
 * against that build's headers, see build.c).  The loader dlopens the core
 * and calls phpcmp_core_api() to get this table.
 */
#ifndef PHPCMP_CORE_H
#define PHPCMP_CORE_H

#include <stddef.h>

#include "proto.h"

#define CORE_ABI 4
#define CORE_MAX_INI 32

struct core_options {
	const char *memory_limit;      /* PHP memory_limit */
	const char *ini[CORE_MAX_INI]; /* extra "name=value" settings */
	int nini;
	const char *dump_prefix; /* under callgrind: --callgrind-out-file */
	struct proto_page *page; /* the progress page (proto.h), or NULL */
};

struct core_api {
	int abi; /* CORE_ABI */
	/* Start PHP (php_embed_init).  0, or -1 with a message. */
	int (*init)(const struct core_options *, char *err, size_t errsize);
	/* Fields of the PROTO_HELLO message: versions of the loaded library. */
	void (*hello)(struct proto_buf *out);
	/* Run one PROTO_CASE message in a fresh request; fill a PROTO_RESULT. */
	void (*run_case)(const struct proto_msg *req, struct proto_buf *out);
	/* Any other request type (PROTO_GEN_*...): fill out and return the
	 * reply's type, or 0 for a type the core does not know. */
	int (*handle)(const struct proto_msg *req, struct proto_buf *out);
	void (*shutdown)(void);
	/* A fork server's parent, once, before its children: make now what
	 * each child's first request would make again (the generator's
	 * classes), so a crash's fresh child starts where it left. */
	void (*prefork)(void);
};

const struct core_api *phpcmp_core_api(void);

#endif
