/*
 * The shrinker's driver (shrink.h): the order its steps are tried in, the
 * candidates and the remainders of a plan, the greedy reduction to a
 * fixpoint (shrink_run), and what an edit or a plan reads as.
 *
 * The shrinker's files, a family of steps each (docs/triage.md "Reduction"):
 *   shrink.c         this driver: the steps' order, shrink_run, shrink_remainders
 *   shrink_apply.c   an edit applied: the plan copied from its root, compactly
 *   shrink_value.c   what the steps read of a plan: errors, the order of values, keys
 *   shrink_cut.c     the deletion steps on the tree, the biggest cuts first
 *   shrink_string.c  strings and keys cut, their characters lowered
 *   shrink_call.c    flags, depth and a sequence's earlier calls
 *   shrink_norm.c    the normal form's steps on values, classes and keys
 *   shrink_float.c   the normal form's floats
 *   shrink_step.h    what the step files share: the table they add candidates to
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "shrink.h"
#include "shrink_call.h"
#include "shrink_cut.h"
#include "shrink_float.h"
#include "shrink_norm.h"
#include "shrink_step.h"
#include "shrink_string.h"
#include "shrink_value.h"

/* The cutting steps, in the order they are tried (shrink.h): the biggest cuts first. */
static const shrink_step cut_steps[] = { shrink_cut_root_children, shrink_cut_entries, shrink_cut_dedups,
	shrink_cut_children, shrink_cut_key_values, shrink_cut_strings, shrink_cut_simpler, shrink_cut_flags,
	shrink_cut_depth, shrink_cut_sequence, shrink_cut_children_depth };

/* The normal form's steps, in the order they are tried (shrink.h), after the cutting ones. */
static const shrink_step norm_steps[] = { shrink_norm_basic_values, shrink_norm_errors,
	shrink_norm_key_errors, shrink_norm_depth_errors, shrink_norm_lower_chars, shrink_norm_hoists,
	shrink_norm_swaps, shrink_norm_lower_classes, shrink_norm_plain_objects, shrink_norm_lower_flags,
	shrink_float_steps, shrink_norm_numeric_strings, shrink_norm_enums, shrink_norm_ints,
	shrink_norm_map_keys, shrink_norm_forced_objects };

/* The candidates; the normal form's too when normal. */
static size_t candidates(const struct gen_case *c, struct shrink_edit *out, size_t max, int normal)
{
	struct shrink_cands s = { out, 0, max };
	uint32_t order[GEN_MAX_NODES], head = 0, tail = 0;

	/* Breadth first: the biggest parts of the tree come first. */
	order[tail++] = c->root;
	while (head < tail) {
		const struct gen_node *n = &c->nodes[order[head++]];
		if (!shrink_is_container(n->kind) && !shrink_is_holder(n))
			continue;
		for (uint32_t x = 0; x < n->n && tail < GEN_MAX_NODES; x++)
			order[tail++] = c->ents[n->first + x].value;
	}
	for (size_t i = 0; i < sizeof cut_steps / sizeof cut_steps[0]; i++)
		cut_steps[i](&s, c, order, tail);
	for (size_t i = 0; normal && i < sizeof norm_steps / sizeof norm_steps[0]; i++)
		norm_steps[i](&s, c, order, tail);
	return s.n;
}

size_t shrink_candidates(const struct gen_case *c, struct shrink_edit *out, size_t max)
{
	return candidates(c, out, max, 1);
}

size_t shrink_remainders(const struct gen_case *c, struct shrink_edit *out, size_t max)
{
	struct shrink_cands s = { out, 0, max };

	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		if (i != c->root && n->kind != GEN_NULL)
			shrink_add(&s, SHRINK_SET, i, 0, SHRINK_B_NULL, 0, 0, 0);
		if (n->kind == GEN_OBJECT)
			for (unsigned k = GEN_NCLASSES; k < GEN_NCLASSES_ALL; k++)
				if (shrink_class_cmp(k, n->cls) < 0 &&
				    shrink_class_type_fits(c, n, gen_class_at(k)->type))
					shrink_add(&s, SHRINK_CLASS, i, 0, k, 1, 0, 0);
	}
	/* Each value that fails by itself (INF aside), and each nested call's
	 * object holding an error (INF counted: what it encodes is out of the
	 * reducer's reach), made the error step's least values: INF, and
	 * "\x80" where that is lower too (an object, a reference, a resource).
	 * One bug shows through whichever error it meets, and which one changes
	 * the mismatch's kind (a guard a failing call leaves set: a later call's
	 * recursion error against the base's UTF-8 error or its partial output),
	 * so the error step alone cannot move there.  After the others: a root
	 * already explained by a null or a class keeps that. */
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		int nested = n->kind == GEN_OBJECT && gen_class_at(n->cls)->type == GEN_CLASS_JSONSER_NESTED;
		if (i == c->root ||
		    !(shrink_fails_alone(c, n) || (nested && shrink_error_codes(c, i, 0, 1) != 0)))
			continue;
		shrink_add(&s, SHRINK_ERROR, i, 0, 0, 0, 0, 0);
		if (shrink_value_rank(n) == SHRINK_B_COUNT + 3)
			shrink_add(&s, SHRINK_ERROR, i, 0, 1, 0, 0, 0);
	}
	/* In a sequence, each object whose jsonSerialize() writes (what a later
	 * call shows of it is whether an earlier call reached it) made INF, the
	 * last earlier call compared instead: whether that call reaches the
	 * value then shows as its own error code (a candidate that goes on past
	 * a depth error where the base stops reaches it, and reports INF). */
	for (uint32_t i = 0; i < c->nnodes && c->npre > 0; i++) {
		const struct gen_node *n = &c->nodes[i];
		if (i != c->root && n->kind == GEN_OBJECT &&
		    gen_class_at(n->cls)->type == GEN_CLASS_JSONSER_MUTATE)
			shrink_add(&s, SHRINK_ERROR, i, 0, 0, 0, 1, 0);
	}
	/* Each earlier call dropped: a mismatch the compared call shows after a
	 * call that left its error code (a flag that throws where false is due,
	 * and leaves json_last_error() as it was) is of another kind than the
	 * same call alone, which shows the bug by itself. */
	for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++)
		shrink_add(&s, SHRINK_PRE_DROP, SHRINK_NONE, SHRINK_NONE, k, 0, 0, 0);
	return s.n;
}

#define SHRINK_MAX_CANDIDATES 16384
#define SHRINK_SEEN (1u << 14) /* plans remembered per reduction (a budget is far below) */

/*
 * The plans a reduction has already run (or started from): a candidate
 * that rebuilds one of them (another edit to the same plan: "drop every
 * entry" and "replace by []", a later pass's retry of a place nothing has
 * changed around) is skipped, not run again; and no step can bring back a
 * plan it left, so the search never goes round in a circle.
 */
struct seen {
	uint64_t *h;
	uint32_t n;
};

/* 1 when hash h was there already; else it is added (while there is room). */
static int seen_check(struct seen *t, uint64_t h)
{
	uint32_t at;

	if (t->h == NULL)
		return 0;
	h |= 1; /* 0 marks a free slot */
	for (at = (uint32_t)(h >> 17) & (SHRINK_SEEN - 1); t->h[at] != 0; at = (at + 1) & (SHRINK_SEEN - 1))
		if (t->h[at] == h)
			return 1;
	if (t->n >= SHRINK_SEEN / 2)
		return 0;
	t->h[at] = h;
	t->n++;
	return 0;
}

int shrink_run(const struct gen_case *start, struct gen_case *best,
    int (*accept)(void *arg, const struct gen_case *candidate, const struct shrink_recode *recode), void *arg,
    struct shrink_stats *st)
{
	struct shrink_recode recode;
	struct shrink_edit *edits = malloc(SHRINK_MAX_CANDIDATES * sizeof *edits);
	struct gen_case *cand = malloc(sizeof *cand);
	struct seen seen = { calloc(SHRINK_SEEN, sizeof(uint64_t)), 0 };
	size_t i = 0, n;
	int progress = 0, r, normal = 0;

	memset(st, 0, sizeof *st);
	if (edits == NULL || cand == NULL || seen.h == NULL || shrink_apply(start, NULL, best) < 0) {
		free(edits);
		free(cand);
		free(seen.h);
		return -1;
	}
	seen_check(&seen, gen_case_hash(best));
	for (;;) {
		n = candidates(best, edits, SHRINK_MAX_CANDIDATES, normal);
		if (i >= n) {
			/* The deletion steps to their fixpoint first, then all of them
			 * with the normal form's (the first's retries are remembered). */
			if (!progress && !normal) {
				normal = 1;
				i = 0;
				continue;
			}
			if (!progress) {
				st->complete = 1;
				break;
			}
			i = 0;
			progress = 0;
			continue;
		}
		if (shrink_apply(best, &edits[i], cand) < 0) {
			i++;
			continue;
		}
		if (seen_check(&seen, gen_case_hash(cand))) {
			st->seen++;
			i++;
			continue;
		}
		st->tried++;
		recode.from = edits[i].op == SHRINK_ERROR
		    ? shrink_error_codes(best, edits[i].a, 0, 1) | shrink_depth_code(best, &edits[i])
		    : edits[i].op == SHRINK_KEY_ERROR ? 1u << JSON_E_UTF8
		                                      : 0;
		recode.to = edits[i].lo == 0 ? JSON_E_INF_OR_NAN : JSON_E_UTF8;
		r = accept(arg, cand, recode.from != 0 ? &recode : NULL);
		if (r < 0)
			break;
		if (r > 0) {
			memcpy(best, cand, sizeof *best);
			st->accepted++;
			progress = 1;
		} else {
			i++;
		}
	}
	free(edits);
	free(cand);
	free(seen.h);
	return 0;
}

/* A flag's name by its bit's position, "?" when it has none. */
static const char *shrink_flag_name(unsigned bit)
{
	const char *name = flags_name(1L << bit);
	return name != NULL ? name : "?";
}

/* An edit of a string's or a key's bytes. */
static void shrink_describe_bytes(const struct shrink_edit *e, char *buf, size_t size)
{
	const char *what = e->b == SHRINK_NONE ? "string" : "key";
	unsigned which = e->b == SHRINK_NONE ? e->a : e->b;

	switch (e->op) {
	case SHRINK_BYTES:
		snprintf(buf, size, "bytes %u..%u of %s %u dropped", e->lo, e->hi - 1, what, which);
		break;
	case SHRINK_CHAR:
		snprintf(buf, size, "bytes %u..%u of %s %u := %u bytes %llx", e->lo, e->hi - 1, what, which,
		    (unsigned)((uint64_t)e->v >> 32), (unsigned long long)((uint64_t)e->v & 0xffffffffu));
		break;
	case SHRINK_FILL:
		snprintf(buf, size, "bytes %u..%u of %s %u := 'a' for each %s", e->lo, e->hi - 1, what, which,
		    e->v ? "byte" : "character");
		break;
	default: /* SHRINK_MOVE */
		snprintf(buf, size, "bytes %u..%u of %s %u moved to end at %lld", e->lo, e->hi - 1, what,
		    which, (long long)e->v);
	}
}

/* An edit of the call's flags or depth, or of an earlier call. */
static void shrink_describe_call(const struct shrink_edit *e, char *buf, size_t size)
{
	switch (e->op) {
	case SHRINK_FLAG:
		snprintf(buf, size, "flag %s dropped", shrink_flag_name(e->lo));
		break;
	case SHRINK_FLAG_LOWER:
		snprintf(buf, size, e->b == 0 ? "flag %s made %s" : "earlier call's flag %s made %s",
		    shrink_flag_name(e->lo), shrink_flag_name(e->hi));
		break;
	case SHRINK_DEPTH:
		snprintf(buf, size, "depth := %lld", (long long)(e->v > 0 ? e->v : 512));
		break;
	case SHRINK_PRE_DROP:
		snprintf(buf, size,
		    e->hi == 1 ? "earlier call %u compared instead" : "earlier call %u dropped", e->lo + 1);
		break;
	case SHRINK_PRE_FLAG:
		snprintf(buf, size, "earlier call %u: flag %s dropped", e->lo + 1, shrink_flag_name(e->hi));
		break;
	default: /* SHRINK_PRE_DEPTH */
		snprintf(buf, size, "earlier call %u: depth := %lld", e->lo + 1, (long long)e->v);
	}
}

void shrink_describe(const struct shrink_edit *e, char *buf, size_t size)
{
	static const char *const basic[SHRINK_B_COUNT] = { "null", "false", "true", "0", "0.0", "\"\"",
		"[]" };

	switch (e->op) {
	case SHRINK_BYTES:
	case SHRINK_CHAR:
	case SHRINK_FILL:
	case SHRINK_MOVE:
		shrink_describe_bytes(e, buf, size);
		break;
	case SHRINK_FLAG:
	case SHRINK_FLAG_LOWER:
	case SHRINK_DEPTH:
	case SHRINK_PRE_DROP:
	case SHRINK_PRE_FLAG:
	case SHRINK_PRE_DEPTH:
		shrink_describe_call(e, buf, size);
		break;
	case SHRINK_REPLACE:
		if (e->v > 0)
			snprintf(buf, size, "node %u replaced by its part %u, depth := %lld", e->a, e->b,
			    (long long)e->v);
		else
			snprintf(buf, size, "node %u replaced by its part %u", e->a, e->b);
		break;
	case SHRINK_DROP:
		snprintf(buf, size, "entries %u..%u of node %u dropped", e->lo, e->hi - 1, e->a);
		break;
	case SHRINK_INT:
		snprintf(buf, size, "int %u := %lld", e->a, (long long)e->v);
		break;
	case SHRINK_FLOAT:
		snprintf(buf, size, "float %u := %g", e->a, e->d);
		break;
	case SHRINK_KIND:
		snprintf(buf, size, "node %u made kind %u", e->a, e->lo);
		break;
	case SHRINK_KEY_INT:
		snprintf(buf, size, "key %u := %lld", e->b, (long long)e->v);
		break;
	case SHRINK_TO_NULL:
		snprintf(buf, size, "node %u := null", e->a);
		break;
	case SHRINK_KEY_VALUE:
		snprintf(buf, size, "node %u replaced by key %u", e->a, e->b);
		break;
	case SHRINK_SET:
		snprintf(buf, size, "node %u := %s", e->a, e->lo < SHRINK_B_COUNT ? basic[e->lo] : "?");
		break;
	case SHRINK_CLASS:
		snprintf(buf, size, "object %u made class %u%s", e->a, e->lo,
		    e->hi ? ", its entries dropped" : "");
		break;
	case SHRINK_SWAP:
		snprintf(buf, size, "entries %u and %u of node %u swapped", e->lo, e->lo + 1, e->a);
		break;
	case SHRINK_KEEP_ONE:
		snprintf(buf, size, "map %u made entry %u alone, key %lld", e->a, e->b, (long long)e->v);
		break;
	case SHRINK_ERROR:
		snprintf(buf, size, "node %u := %s%s%s", e->a, e->lo == 0 ? "INF" : "\"\\x80\"",
		    e->hi == 0       ? ""
		        : e->hi == 1 ? ", depth := 512"
		                     : ", an earlier call's depth := 512",
		    e->v == 1 ? ", the last earlier call compared instead" : "");
		break;
	case SHRINK_DEDUP:
		snprintf(buf, size,
		    "map %u: entry %u's key written again at %u: that value kept in its place", e->a, e->b,
		    e->lo);
		break;
	case SHRINK_HOIST:
		snprintf(buf, size, "list %u: element %u of entry %u's array moved out after it", e->a, e->lo,
		    e->b);
		break;
	case SHRINK_KEY_ERROR:
		snprintf(buf, size, "entry %u of node %u: key := 'a', value := %s", e->b, e->a,
		    e->lo == 0 ? "INF" : "\"\\x80\"");
		break;
	case SHRINK_NUMBER:
		if (e->lo)
			snprintf(buf, size, "string %u := %g", e->a, e->d);
		else
			snprintf(buf, size, "string %u := %lld", e->a, (long long)e->v);
		break;
	case SHRINK_UNBOX:
		if (e->lo == SHRINK_NONE)
			snprintf(buf, size, "built-in object %u made plain", e->a);
		else
			snprintf(buf, size, "built-in object %u replaced by its property %u", e->a, e->lo);
		break;
	default:
		snprintf(buf, size, "?");
	}
}

char *shrink_canonical(const struct gen_case *c)
{
	struct gen_buf v = { 0 };
	char flags[512], *out;
	size_t n;

	if (gen_render_value(c, &v) < 0) {
		gen_buf_release(&v);
		return NULL;
	}
	flags_format((long)c->flags, flags, sizeof flags);
	n = v.len + strlen(flags) + 32;
	if ((out = malloc(n)) != NULL)
		snprintf(out, n, "%s\n%s\n%lld", v.data, flags, (long long)c->depth);
	gen_buf_release(&v);
	return out;
}
