/*
 * The shrinker's steps on the call (shrink_call.c), each a shrink_step_fn
 * (shrink_step.h): shrink_cut_flags, each flag dropped; shrink_cut_depth,
 * the depth restored to 512, else one less; shrink_cut_sequence, a
 * sequence's earlier calls dropped (the last compared instead), their
 * flags dropped, their depth restored; the normal form's
 * shrink_norm_depth_errors, a depth error made "\x80" with that call's
 * depth 512, and shrink_norm_lower_flags, each flag made a lower one of its
 * family, on every call.
 */
#ifndef PHPCMP_SHRINK_CALL_H
#define PHPCMP_SHRINK_CALL_H

#include "shrink_step.h"

shrink_step_fn shrink_cut_flags, shrink_cut_depth, shrink_cut_sequence, shrink_norm_depth_errors,
    shrink_norm_lower_flags;

#endif
