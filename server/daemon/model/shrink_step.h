/*
 * What the shrinker's step families share (shrink.c, shrink_float.c): the
 * table of candidates a step adds to.  Private to the shrinker: the reducer
 * and the tests use shrink.h.
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

/* shrink_float.c: the floats' steps. */
/* A float's rank for the cutting steps: 0.0 < 1.0 < others < negatives. */
int shrink_float_rank(double d);
/* Each float of plan c (nodes order[0..tail)) lowered: the normal form's float steps. */
void shrink_float_steps(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail);

#endif
