/*
 * The normal form's steps on values (shrink_norm.c), each a shrink_step_fn
 * (shrink_step.h): each value made a basic one below it
 * (shrink_norm_basic_values); a value that fails, or a container holding
 * one, made INF, else "\x80" (shrink_norm_errors), an invalid key likewise
 * (shrink_norm_key_errors); an element of a list's array moved out after
 * it (shrink_norm_hoists); neighbouring entries put in order
 * (shrink_norm_swaps); a declared class lowered (shrink_norm_lower_classes)
 * or made the stdClass json_encode shows (shrink_norm_plain_objects); under
 * JSON_NUMERIC_CHECK a numeric string made its number
 * (shrink_norm_numeric_strings); enum cases (shrink_norm_enums) and ints
 * (shrink_norm_ints) lowered; map keys made ints, a map one entry or a list
 * (shrink_norm_map_keys); a stdClass or an ArrayObject made its array under
 * JSON_FORCE_OBJECT (shrink_norm_forced_objects).
 */
#ifndef PHPCMP_SHRINK_NORM_H
#define PHPCMP_SHRINK_NORM_H

#include "shrink_step.h"

shrink_step_fn shrink_norm_basic_values, shrink_norm_errors, shrink_norm_key_errors, shrink_norm_hoists,
    shrink_norm_swaps, shrink_norm_lower_classes, shrink_norm_plain_objects, shrink_norm_numeric_strings,
    shrink_norm_enums, shrink_norm_ints, shrink_norm_map_keys, shrink_norm_forced_objects;

#endif
