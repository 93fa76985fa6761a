/*
 * A sanitizer build's reports, read back by the worker that had them
 * (server/worker/sanitizer.c, docs/sandbox.md).  Without a sanitizer
 * runtime in the process every call does nothing.
 */
#ifndef PHPCMP_WORKER_SANITIZER_H
#define PHPCMP_WORKER_SANITIZER_H

#include "proto.h"

/* 1 when a sanitizer's runtime is in the process (preloaded by the daemon,
 * before libphp is opened), else 0: the sandbox then lets the process read
 * its own /proc entry. */
int sanitizer_present(void);
/* In the fork server, PHP started inside the sandbox: 1 with a runtime
 * (its report buffer made, UBSan started, the symbolizers primed on lib
 * and every module, the address space it reserved, its shadow memory, in
 * *reserved bytes), 0 without, -1 with err. */
int sanitizer_setup(void *lib, struct proto_page *page, long long *reserved, char *err, size_t errsize);
/* In each fork-server child, first thing: the reports into the buffer. */
void sanitizer_child(void);
/* Whether a report is waiting. */
int sanitizer_pending(void);
/* The waiting report(s) as TAG_SANITIZER (and TAG_SANITIZER_INDEX for the
 * cases of a generated batch that had one, from the progress page) into
 * out, the buffer emptied: 0 when there was none, 2 when every one was an
 * AddressSanitizer report of a bad read (the process may go on), else 1. */
int sanitizer_take(struct proto_buf *out);

#endif
