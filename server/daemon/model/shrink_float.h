/* The shrinker's float steps (shrink_float.c). */
#ifndef PHPCMP_SHRINK_FLOAT_H
#define PHPCMP_SHRINK_FLOAT_H

#include "shrink_step.h"

/* A float's rank for the cutting steps: 0.0 < 1.0 < others < negatives. */
int shrink_float_rank(double d);
/* Each float of plan c (nodes order[0..tail)) lowered: the normal form's float steps. */
shrink_step_fn shrink_float_steps;

#endif
