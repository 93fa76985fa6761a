/*
 * Shrinking a generated case (server/common/gen.h's plan) toward a minimal
 * one: pure C, no PHP, no I/O, so the daemon's reducer (reduce.c) and the
 * unit test share it.
 *
 * The reducer works on the tree the generator built, not on text: it asks
 * for the simplification candidates of the current plan, in order, and tries
 * each (the candidate is run on both builds and kept only if it shows the
 * same mismatch signature).  A candidate is an edit of the plan; applying it
 * rebuilds the plan compactly (only what the root reaches), so an accepted
 * candidate is a plan like any other, smaller in some way.
 *
 * The order (biggest cuts first): the root replaced by one of its children;
 * each container's entries dropped in chunks (halves, quarters ... one at a
 * time, ddmin style); any container replaced by one of its children;
 * strings and string keys shortened (chunks, then single bytes); numbers
 * moved toward 0 or 1 (INF for -INF, 1.0 for other floats); declared-class
 * a container replaced by one of its keys as a string; a built-in object
 * (SplFixedArray, DateInterval, DateTimeImmutable, WeakMap) replaced by one
 * of its JSON-visible properties, or by a stdClass (a list for
 * SplFixedArray) of them all, an ArrayObject by the stdClass of its
 * storage, an object whose jsonSerialize() returns [json_encode($p),
 * json_last_error(), $p] by that list (where $p's text is known: null, a
 * bool, an int); objects made stdClass, stdClass made arrays, arrays made lists;
 * a key written twice in a map literal made the one entry PHP keeps; each
 * flag bit dropped; the depth restored to 512, or a container replaced by a
 * child with the depth one less; a sequence's earlier calls dropped (the
 * last one compared instead), their flag bits dropped, their depth
 * restored.
 *
 * Then the normal form's steps, so that every member of one bug reduces to
 * the same case, not to the first local minimum it meets (Hypothesis's
 * shortlex idea, docs/triage.md "Normal form"): every value replaced by a
 * basic one below it in the order null < false < true < 0 < 0.0 < "" < [] <
 * other ints < other floats < other strings < the rest; a value
 * json_encode fails on by itself (invalid UTF-8, NAN, a resource, a unit
 * enum case, a recursion), a container and the root replaced by INF, the
 * least of them, else by "\x80", the least that fails an array's element
 * loop (an error-precedence bug's members meet whichever error they met,
 * and a bug of one error alone keeps its own, INF not showing it; the
 * candidate's error code may move with the step: struct shrink_recode), an
 * invalid key's error moved to its value; an array's element moved out
 * after it (less nesting); each character of a string or key lowered to
 * the least one of a small canonical set that keeps it ('a' < '0' < every
 * other byte by value: a lone continuation byte to 0x80, an astral
 * character to U+10000 ...); a declared-class object
 * given a lower class of its kind or one standing for it (fewer
 * properties, fewer non-public ..., down to the reducer's canonical classes
 * of one property 'a': gen.h's GenPubA ...), or made the stdClass
 * json_encode shows of it; neighbouring entries put in order; a special
 * character moved past the 'a' run after it (the specials of a long string
 * gather at its end, in their order); enum cases lowered, backed ones made
 * their value; a stdClass, and an ArrayObject's storage, made an array
 * under JSON_FORCE_OBJECT (an array is the simpler kind; the flag keeps it
 * an object); a map's string key made the least int key it does not hold;
 * a jsonSerialize() class lowered to one returning its property; each flag (of every
 * call) replaced by a lower one of its family; under
 * JSON_NUMERIC_CHECK a numeric string made its number; floats (0.5 and
 * 1.0e-5 the least after 0.0 and 1.0: the least written with a '.', with
 * an exponent; a small one to a power of ten, its exponent lowered) and
 * ints lowered by size.
 * The deletion steps reach their fixpoint first.  shrink_run
 * remembers the plans it tried, so no plan is run twice and no step undoes
 * another.
 */
#ifndef PHPCMP_SHRINK_H
#define PHPCMP_SHRINK_H

#include <stddef.h>
#include <stdint.h>

#include "gen.h"

enum shrink_op {
	SHRINK_REPLACE,   /* node a replaced by node b (a descendant); v > 0: depth := v too */
	SHRINK_DROP,      /* container a: entries [lo, hi) dropped */
	SHRINK_BYTES,     /* string node a (or key of entry b when b != none): bytes [lo, hi) dropped */
	SHRINK_INT,       /* int node a := v */
	SHRINK_FLOAT,     /* float node a := d */
	SHRINK_KIND,      /* container a becomes kind lo (hi 1: a declared-class object the stdClass
	                   * json_encode shows of it; hi 3: the stdClass of its whole property
	                   * table, names mangled as (array) has them; hi 2: a map a list, or a
	                   * stdClass a map, with JSON_FORCE_OBJECT) */
	SHRINK_KEY_INT,   /* entry b's key becomes the int v */
	SHRINK_FLAG,      /* flag bit lo dropped */
	SHRINK_DEPTH,     /* depth := v (512 when v <= 0) */
	SHRINK_TO_NULL,   /* node a (an enum case, a resource, a bool) := null */
	SHRINK_KEY_VALUE, /* container a replaced by the string of entry b's key */
	SHRINK_UNBOX,     /* built-in object a (cls 1-4) := the plain value of its JSON-visible
	                   * properties (lo = SHRINK_NONE), or property lo's value alone; an
	                   * ArrayObject (cls 0) := the stdClass of its storage (hi 2: its
	                   * storage array, with JSON_FORCE_OBJECT); a nested call's object
	                   * := the list its jsonSerialize() returns */
	SHRINK_PRE_DROP,  /* a sequence's earlier call lo dropped (hi 1: the last, its flags and
	                   * depth the compared call's: compared instead) */
	SHRINK_PRE_FLAG,  /* earlier call lo: flag bit hi dropped */
	SHRINK_PRE_DEPTH, /* earlier call lo: depth := v (512, else one less) */
	SHRINK_DEDUP,     /* map or stdClass a: its entry b's key written again at entry lo: entry
	                   * lo dropped, its value entry b's (what PHP makes of the literal) */
	/* The normal form's steps (after all of the above): */
	SHRINK_SET,        /* node a := the basic value lo (enum shrink_basic) */
	SHRINK_ERROR,      /* node a (a value json_encode fails on, a container, the root) := INF
	                    * (lo 0), else "\x80" (lo 1): the least values it fails on; hi 1: and
	                    * depth := 512, hi 2 + k: and earlier call k's depth := 512 (a depth
	                    * error made that one); v 1 (a remainder's): and the last earlier
	                    * call compared instead */
	SHRINK_CHAR,       /* string a (or key of entry b when b != none): bytes [lo, hi) := the
	                   * v >> 32 bytes of v (little endian): a lower character */
	SHRINK_CLASS,      /* declared-class object a: class := lo, property i becoming
	                   * property (v >> 3i) & 7 (hi 1: none of them set) */
	SHRINK_FLAG_LOWER, /* flag bit lo replaced by the lower bit hi: of the compared call (b 0) or
	                    * of earlier call b - 1 */
	SHRINK_SWAP,       /* container a: entries lo and lo + 1 swapped (the lower first) */
	SHRINK_KEEP_ONE,   /* map a: entry b alone, its key := the int v */
	SHRINK_FILL,       /* string a (or key of entry b when b != none): every character of
	                    * bytes [lo, hi) := 'a' (v 1: every byte, the length kept): a long
	                    * run lowered in one step */
	SHRINK_MOVE,       /* string a (or key of entry b when b != none): the character at bytes
	                    * [lo, hi) moved past the run of 'a' after it, to end at v */
	SHRINK_NUMBER,     /* string a (numeric, under JSON_NUMERIC_CHECK) := the number PHP reads
	                    * from it: the int v (lo 0) or the float d (lo 1) */
	SHRINK_KEY_ERROR,  /* container a's entry b (its key invalid UTF-8): key := 'a', value :=
	                    * INF (lo 0), else "\x80" (lo 1) */
	SHRINK_HOIST       /* list a: element lo of the array that is entry b's value moved out,
	                    * to follow that array (less nesting) */
};

/* The basic values, in the normal form's order (SHRINK_SET's lo). */
enum shrink_basic {
	SHRINK_B_NULL,
	SHRINK_B_FALSE,
	SHRINK_B_TRUE,
	SHRINK_B_ZERO,       /* 0 */
	SHRINK_B_ZERO_FLOAT, /* 0.0 */
	SHRINK_B_EMPTY,      /* "" */
	SHRINK_B_LIST,       /* [] */
	SHRINK_B_COUNT
};

#define SHRINK_NONE UINT32_MAX

struct shrink_edit {
	uint8_t op;
	uint32_t a, b, lo, hi;
	int64_t v;
	double d;
};

/*
 * The candidates of plan c, in order, into out (at most max): their count.
 * Every candidate makes the plan strictly smaller in one measure (nodes,
 * bytes, flag bits, a number's size or a kind's rank), so accepting
 * candidates always ends.
 */
size_t shrink_candidates(const struct gen_case *c, struct shrink_edit *out, size_t max);
/*
 * What is left of plan c without one of its parts, into out (at most max):
 * their count.  Each value but the root made null; each object of a
 * declared class made each canonical class below its own that its type
 * fits (gen.h: GenPubA ...), its properties unset; each value failing by
 * itself, and each nested call's object holding an error, made INF, and
 * "\x80" where that is lower; in a sequence, each object whose
 * jsonSerialize() writes made INF, the last earlier call compared instead
 * (a call's side effect seen as its own error); each earlier call
 * dropped: each lower in the
 * normal form's order, so a root joins the lower case, never the reverse.
 * Not a reduction step (a remainder may show another kind of mismatch):
 * the reducer asks whether what is left is an older root's case
 * (engine/reduce.c, reduce_explained).
 */
size_t shrink_remainders(const struct gen_case *c, struct shrink_edit *out, size_t max);
/* Plan c with edit e applied (e NULL: just compacted) into out; -1 if e does not apply. */
int shrink_apply(const struct gen_case *c, const struct shrink_edit *e, struct gen_case *out);
/* What a candidate does, for logs and tests ("drop 2 entries of node 3"...). */
void shrink_describe(const struct shrink_edit *e, char *buf, size_t size);

/*
 * What an error step (SHRINK_ERROR, SHRINK_KEY_ERROR) may change about the
 * mismatch besides the value: the candidate's error code, from one
 * json_encode reports for what the step replaces (from: 1 << code each,
 * RECODE_EXCEPTION for a jsonSerialize() that throws, the depth error's
 * code for a container under a depth below 512) to the code of the
 * value that replaces it (to: INF 7, "\x80" 5).  A bug of error precedence
 * (a later error replacing the first one's code) shows the code of
 * whichever error came second; its members meet at one case only when the
 * step may make that error the canonical one (docs/triage.md).
 */
struct shrink_recode {
	unsigned from;
	int to;
};

/*
 * Greedy reduction to a fixpoint: from plan start, try the candidates in
 * order; accept(arg, candidate, recode) answers 1 (it keeps the mismatch,
 * or for an error step (recode not NULL) the same mismatch with the
 * candidate's error code changed as recode allows: it becomes
 * the current plan, and the next candidates are its own, from the same
 * position), 0 (rejected: the next candidate) or -1 (out of budget: stop).
 * Ends when a whole pass over the candidates accepts none.  The smallest
 * plan found into best; -1 only when out of memory.
 */
struct shrink_stats {
	int64_t tried, accepted;
	int64_t seen; /* candidates skipped: a plan already tried (or the current one's past) */
	int complete; /* a fixpoint was reached (not stopped by the budget) */
};
int shrink_run(const struct gen_case *start, struct gen_case *best,
    int (*accept)(void *arg, const struct gen_case *candidate, const struct shrink_recode *recode), void *arg,
    struct shrink_stats *st);

/*
 * The canonical form of a (reduced) plan, the part of a root-cause key the
 * reproducer gives: its value source, flags by name and depth, as
 * "value\nflags\ndepth" (malloc'd, NULL when out of memory).  Two plans with
 * the same canonical form are the same PHP case.
 */
char *shrink_canonical(const struct gen_case *c);

#endif
