/*
 * Shared by the generator's files only (callers use gen.h): the PRNG every
 * drawing file inlines, and what one file offers another.  The files, bottom
 * up (none uses a file above it):
 *   gen_php.c     the version table: the first PHP of each construct
 *   gen_class.c   the declared classes and enums (a table drawn once)
 *   gen_string.c  a plan's string bytes: pieces, long and block strings
 *   gen_render.c  a plan, the classes and the declarations as PHP source
 *   gen.c         the plan maker: values, keys, objects, flags, sequences
 *   gen_digest.c  hashing, the digest records, the coverage counters
 */
#ifndef PHPCMP_GEN_INTERNAL_H
#define PHPCMP_GEN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gen.h"

#define GEN_NELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define GEN_BIT(b) ((int64_t)1 << (b))
#define GEN_THROW_BIT 22 /* JSON_THROW_ON_ERROR: never drawn with the other flags */

/* ---- PRNG: wyrand (one multiply per draw), seeded through splitmix64 ---- */

/* Inlined even at -O0: no static copy in each file (scripts/check-layers.py counts copies). */
#define GEN_INLINE static inline __attribute__((always_inline))

GEN_INLINE uint64_t gen_mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Every (version, seed, index) gets its own stream: any case is made alone. */
GEN_INLINE void gen_rng_seed(struct gen_rng *r, uint64_t seed, uint64_t index)
{
	r->s = gen_mix(
	    gen_mix(seed ^ ((uint64_t)GEN_VERSION << 48)) ^ gen_mix(index + 0x51ed270b27902bd3ull));
}

GEN_INLINE uint64_t gen_next(struct gen_rng *r)
{
	__extension__ typedef unsigned __int128 u128;
	r->s += 0xa0761d6478bd642full;
	u128 t = (u128)r->s * (r->s ^ 0xe7037ed1a0b428dbull);
	return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* 0 .. n-1 (n <= 2^32), by multiplication: no division, no bias worth a loop. */
GEN_INLINE uint32_t gen_below(struct gen_rng *r, uint32_t n)
{
	return (uint32_t)(((gen_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* True with probability 1/n. */
GEN_INLINE int gen_one_in(struct gen_rng *r, uint32_t n)
{
	return gen_below(r, n) == 0;
}

/* ---- gen_php.c ---- */

#define GEN_PHP_ENUMS 80100
/* Left out before 8.0: GEN_BUILTIN 4, new WeakMap() (a string in its place). */
#define GEN_PHP_WEAKMAP 80000
/* Written the 7.4 way before 8.0 (gen_render.c), the same answers: a `mixed`
 * property (untyped, no default, unset() by the constructor: uninitialized
 * as a typed one), jsonSerialize() without `: mixed` (#[\ReturnTypeWillChange]
 * on its own line, a comment to 7.4), catch (Throwable $ignored). */
#define GEN_PHP_80_SYNTAX 80000

/* Whether a case for `php` may use a construct first in `first`. */
int gen_php_has(uint32_t php, uint32_t first);

/* ---- gen_string.c: the bytes of a plan's strings, at the end of its arena ---- */

/* The tables' lengths, measured once (gen.c's gen_init calls it, under its pthread_once). */
void gen_string_init(void);
void gen_bytes(struct gen_case *c, const void *s, size_t n);
void gen_byte(struct gen_case *c, unsigned char b);
/* A piece (enum gen_piece), weighted: mostly clean text, 2% invalid UTF-8. */
unsigned gen_pick_piece(struct gen_rng *r);
void gen_piece(struct gen_case *c, unsigned p);
/* A string's bytes (key: a map key or property name, never long or block); its offset, length into *len. */
uint32_t gen_string_bytes(struct gen_case *c, int key, uint32_t *len);
/* Numeric string k of the first twelve ("0", "1", "-1" ...); its length. */
uint32_t gen_numeric_key(struct gen_case *c, unsigned k);

#endif
