/*
 * What the shrinker's step families share (shrink_cut.c, shrink_string.c,
 * shrink_call.c, shrink_norm.c, shrink_float.c; shrink.c runs them): the
 * table of candidates a step adds to, and a step's shape.  Private to the
 * shrinker: the reducer and the tests use shrink.h.
 */
#ifndef PHPCMP_SHRINK_STEP_H
#define PHPCMP_SHRINK_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "gen.h"
#include "shrink.h"

struct shrink_cands {
	struct shrink_edit *out;
	size_t n, max;
};

/* One candidate added (nothing when the table is full). */
static inline void shrink_add(
    struct shrink_cands *s, uint8_t op, uint32_t a, uint32_t b, uint32_t lo, uint32_t hi, int64_t v, double d)
{
	struct shrink_edit *x;

	if (s->n >= s->max)
		return;
	x = &s->out[s->n++];
	x->op = op;
	x->a = a;
	x->b = b;
	x->lo = lo;
	x->hi = hi;
	x->v = v;
	x->d = d;
}

/*
 * A group of steps: adds its candidates for plan c, whose nodes
 * order[0..tail) lists breadth first.  Each step file declares its steps
 * as shrink_step_fn; shrink.c lists them in the order they are tried.
 */
typedef void shrink_step_fn(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail);
typedef shrink_step_fn *shrink_step;

#endif
