/*
 * The shrinker's string steps (shrink_string.c), each a shrink_step_fn
 * (shrink_step.h): shrink_cut_strings, strings and string keys shortened
 * (chunks, characters, bytes); shrink_norm_lower_chars, the normal form's,
 * their characters lowered.
 */
#ifndef PHPCMP_SHRINK_STRING_H
#define PHPCMP_SHRINK_STRING_H

#include "shrink_step.h"

shrink_step_fn shrink_cut_strings, shrink_norm_lower_chars;

#endif
