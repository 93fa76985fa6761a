/*
 * What the shrinker reads of a plan's values (shrink_value.c): json_encode's
 * errors, the normal form's order, keys as PHP reads them, a built-in
 * object's JSON-visible properties.  Private to the shrinker.
 */
#ifndef PHPCMP_SHRINK_VALUE_H
#define PHPCMP_SHRINK_VALUE_H

#include <stdint.h>

#include "gen.h"
#include "shrink.h"

#define FLAG_FORCE_OBJECT ((int64_t)1 << 4)  /* JSON_FORCE_OBJECT */
#define FLAG_NUMERIC_CHECK ((int64_t)1 << 5) /* JSON_NUMERIC_CHECK */

/* json_encode's error codes (php_json.h): the depth's, and those a value may fail on by itself. */
enum {
	JSON_E_DEPTH = 1,
	JSON_E_UTF8 = 5,
	JSON_E_RECURSION = 6,
	JSON_E_INF_OR_NAN = 7,
	JSON_E_UNSUPPORTED = 8,
	JSON_E_ENUM = 11
};

/* A list, map, stdClass or declared-class object. */
int shrink_is_container(uint8_t kind);
/* A reference to a value, an ArrayObject: one entry, never dropped, replaced by it. */
int shrink_is_holder(const struct gen_node *n);

/* Node n's place in the order of values (SHRINK_SET's basic values, then the rest). */
uint32_t shrink_value_rank(const struct gen_node *n);
/* A value json_encode fails on by itself, INF aside. */
int shrink_fails_alone(const struct gen_case *c, const struct gen_node *n);
/* The error codes json_encode may report for node i and what it holds (1 << code each). */
unsigned shrink_error_codes(const struct gen_case *c, uint32_t i, unsigned level, int inf);
/* The depth error error step e may take away (1 << JSON_E_DEPTH, else 0). */
unsigned shrink_depth_code(const struct gen_case *c, const struct shrink_edit *e);
/* A depth below 512, on the compared call or an earlier one. */
int shrink_small_depth(const struct gen_case *c);

/* A byte's place in the order of characters: 'a', '0', then by value. */
unsigned shrink_byte_rank(unsigned char b);
/* Two entries of one container in the normal form's order (<0, 0, >0). */
int shrink_cmp_entries(const struct gen_case *c, const struct gen_entry *x, const struct gen_entry *y);
/* Two declared classes (gen_class_at's indices) in the normal form's order. */
int shrink_class_cmp(unsigned i, unsigned j);
/* May object n become one of class type `to`? */
int shrink_class_type_fits(const struct gen_case *c, const struct gen_node *n, unsigned to);

/* Is the n bytes p a key PHP stores as an int ("1", "-5"; not "01")?  Its value in *v. */
int shrink_decimal_key(const char *p, uint32_t n, int64_t *v);
/* Does map n hold the int key v (or a string key PHP makes v) besides at entry x0? */
int shrink_map_has_int_key(const struct gen_case *c, const struct gen_node *n, uint32_t x0, int64_t v);
/* Do entries x and y of a map or stdClass literal name the same key? */
int shrink_same_key(const struct gen_case *c, const struct gen_entry *x, const struct gen_entry *y);

/*
 * A built-in object's JSON-visible properties as 8.2's json_encode shows
 * them (builds/src-8.2.32/bin/php: DateInterval's f is a float, days and
 * from_string false; DateTimeImmutable('@t') is in UTC; SplFixedArray(n)
 * is n nulls; WeakMap none): what its plain stand-in is made of, so the
 * reducer can swap the object for them ("replace declared-class objects
 * by stdClass or arrays when the signature holds", built-in ones too).
 */
struct shrink_bprop {
	const char *name; /* NULL: a list element */
	uint8_t kind;     /* GEN_NULL, GEN_FALSE, GEN_INT, GEN_FLOAT, GEN_STRING */
	int64_t i;
	double d;
	char s[96]; /* room for any struct tm -Wformat-truncation can imagine */
};

#define SHRINK_BPROP_MAX 10

/* Built-in object n's properties into p (SHRINK_BPROP_MAX of room): their count. */
unsigned shrink_builtin_props(const struct gen_node *n, struct shrink_bprop *p);
/* Two properties of the same value. */
int shrink_bprop_same(const struct shrink_bprop *x, const struct shrink_bprop *y);

#endif
