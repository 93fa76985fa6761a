/*
 * The one "run this on every build, a thread per build, and wait" of the
 * daemon: a case on each build's worker (runs.c: a run's cases and a
 * submitted one), a reduction's pair (reduce.c), a generated batch on each
 * build (genrun.c), a .phpt test on each build (phptrun.c).
 */
#ifndef PHPCMP_FANOUT_H
#define PHPCMP_FANOUT_H

#include <stddef.h>

#include "model.h"

/* How many items fan out: any beyond run on the caller's thread. */
#define FANOUT_MAX MAX_BUILDS

/*
 * fn(item) on each of n items (items: an array of n elements of size
 * bytes, one a build), all at once: the first on the caller's thread, every
 * other on a thread of its own (default attributes, so the default stack);
 * returns once every fn has returned.  An item whose thread cannot be
 * started (or past the FANOUT_MAX-th) runs on the caller's thread once
 * the first is done, in order.  Nothing is cancelled and nothing is
 * reported here: each item carries its own outcome (a return code, an
 * error text) for the caller to read afterwards.
 */
void fanout_run(void (*fn)(void *item), void *items, size_t size, int n);

#endif
