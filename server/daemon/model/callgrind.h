/*
 * A reader of callgrind's output format (valgrind's docs/cl-format): the
 * per-function self and inclusive cost of one event (Ir) from a dump, with
 * the function's source file and ELF object where callgrind knew them.
 * Pure: no files, the caller passes the text.  The daemon's function diff
 * and json_encoder.c column (server/daemon/service/measure.c) are built on it.
 *
 * Understood: the "key: value" header (events:, positions:, summary:,
 * totals:; others ignored), name compression "spec=(id) name" and "(id)"
 * with one id space for files (fl fi fe cfi cfl), one for functions (fn
 * cfn) and one for objects (ob cob), subposition compression (+N -N * 0x),
 * calls= and the inclusive cost line after it, jump=/jcnd= (ignored), more
 * than one part (summed).
 *
 * Recursion levels callgrind separates (fn'2) are merged into one
 * function: its self cost is the sum of the levels', its inclusive cost the
 * outermost level's (which contains the deeper ones).
 */
#ifndef PHPCMP_CALLGRIND_H
#define PHPCMP_CALLGRIND_H

#include <stddef.h>
#include <stdint.h>

struct cg_func {
	const char *name;   /* the level-merged name: "php_json_encode_zval", or "0x00000000001b45a0" */
	const char *file;   /* the function's source file (its fl=), NULL where callgrind had none ("???") */
	const char *object; /* its ELF object (ob=), NULL if never named */
	int64_t self;       /* the event's cost in the function itself */
	int64_t inclusive;  /* self plus what it called */
};

struct cg_profile {
	struct cg_func *funcs; /* in order of first appearance */
	size_t n;
	char event[32];   /* the event counted: Ir where the file has it, else its first */
	int64_t summary;  /* the summary:/totals: line's figure, -1 if none */
	int64_t self_sum; /* the sum of every function's self cost */
	size_t nlines;    /* lines read */
	void *priv;       /* the interned names */
};

/* Parse a dump of len bytes (need not be NUL-terminated): 0, or -1 with
 * err ("line N: ...") and p released. */
int cg_parse(const char *text, size_t len, struct cg_profile *p, char *err, size_t errsize);
void cg_release(struct cg_profile *p);

/* Does file name `file` end with `suffix` at a path boundary ("ext/json/json_encoder.c")? */
int cg_file_matches(const char *file, const char *suffix);

/*
 * A source file as the builds share it: php-src's files from their top
 * folder on ("ext/json/json_encoder.c"), wherever each build's tree is;
 * other files as callgrind named them. The last top folder in the name
 * counts, so a tree under a checkout called ".../main/" keys right.
 */
const char *cg_source_key(const char *file);

/* The self cost of the functions whose file matches suffix; -1 if no function's does. */
int64_t cg_file_self(const struct cg_profile *p, const char *suffix);

#endif
