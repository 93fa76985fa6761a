/*
 * The shrinker's deletion steps on the tree (shrink_cut.c), each a
 * shrink_step_fn (shrink_step.h): the root replaced by one of its children
 * (shrink_cut_root_children); a container's entries dropped, all, halves
 * ... one at a time (shrink_cut_entries); a key written twice made the
 * entry PHP keeps (shrink_cut_dedups); a container replaced by one of its
 * children (shrink_cut_children) or keys (shrink_cut_key_values); numbers
 * toward 0 and 1, kinds simpler, built-in objects unboxed
 * (shrink_cut_simpler); a container replaced by a child and the depth one
 * less (shrink_cut_children_depth).
 */
#ifndef PHPCMP_SHRINK_CUT_H
#define PHPCMP_SHRINK_CUT_H

#include "shrink_step.h"

shrink_step_fn shrink_cut_root_children, shrink_cut_entries, shrink_cut_dedups, shrink_cut_children,
    shrink_cut_key_values, shrink_cut_simpler, shrink_cut_children_depth;

#endif
