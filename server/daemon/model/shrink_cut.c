/*
 * The shrinker's deletion steps on the tree (shrink.h), the biggest cuts
 * first: the root replaced by a child, a container's entries dropped
 * ddmin style, a key written twice made one, a container replaced by a
 * child or a key, numbers toward 0 and 1, kinds made simpler, built-in
 * objects by their properties.  (Strings: shrink_string.c; the call's
 * flags, depth and earlier calls: shrink_call.c.)
 */
#include <stdint.h>

#include "shrink_cut.h"
#include "shrink_float.h"
#include "shrink_step.h"
#include "shrink_value.h"

/* The root replaced by one of its children. */
void shrink_cut_root_children(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	(void)order;
	(void)tail;
	const struct gen_node *r = &c->nodes[c->root];

	if (shrink_is_container(r->kind) || shrink_is_holder(r))
		for (uint32_t x = 0; x < r->n; x++)
			shrink_add(s, SHRINK_REPLACE, c->root, c->ents[r->first + x].value, 0, 0, 0, 0);
}

/* Entries dropped: all, then halves ... one at a time. */
void shrink_cut_entries(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (!shrink_is_container(n->kind) || n->n == 0)
			continue;
		for (uint32_t size = n->n; size >= 1; size = size == 1 ? 0 : size / 2)
			for (uint32_t at = 0; at < n->n; at += size)
				shrink_add(s, SHRINK_DROP, order[q], 0, at,
				    at + size < n->n ? at + size : n->n, 0, 0);
	}
}

/* A key written twice in a literal (['k' => 1, 0 => 2, 'k' => 3]): the
 * value PHP keeps (the later) in the place it keeps (the earlier's),
 * the later entry dropped; the same value, one node fewer. */
void shrink_cut_dedups(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind != GEN_MAP && n->kind != GEN_STDCLASS)
			continue;
		for (uint32_t x = 0; x < n->n; x++)
			for (uint32_t z = x + 1; z < n->n; z++)
				if (shrink_same_key(c, &c->ents[n->first + x], &c->ents[n->first + z])) {
					shrink_add(s, SHRINK_DEDUP, order[q], n->first + x, z, 0, 0, 0);
					break;
				}
	}
}

/* A container replaced by one of its children. */
void shrink_cut_children(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 1; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (shrink_is_container(n->kind) || shrink_is_holder(n))
			for (uint32_t x = 0; x < n->n; x++)
				shrink_add(
				    s, SHRINK_REPLACE, order[q], c->ents[n->first + x].value, 0, 0, 0, 0);
	}
}

/* A container replaced by one of its keys (a key may be what matters). */
void shrink_cut_key_values(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind != GEN_MAP && n->kind != GEN_STDCLASS && n->kind != GEN_OBJECT)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			const struct gen_entry *en = &c->ents[n->first + x];
			if ((en->key_type == GEN_KEY_STR && en->key_len > 0) || en->key_type == GEN_KEY_PROP)
				shrink_add(s, SHRINK_KEY_VALUE, order[q], n->first + x, 0, 0, 0, 0);
		}
	}
}

/* Numbers toward 0 and 1; keys toward 0; other scalars to null; kinds simpler. */
void shrink_cut_simpler(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		switch (n->kind) {
		case GEN_INT:
			if (n->v.i != 0)
				shrink_add(s, SHRINK_INT, order[q], 0, 0, 0, 0, 0);
			if (n->v.i != 0 && n->v.i != 1)
				shrink_add(s, SHRINK_INT, order[q], 0, 0, 0, 1, 0);
			break;
		case GEN_BUILTIN:
			/* SplFixedArray(0), DateInterval('P0D'), DateTimeImmutable('@0'). */
			if (n->cls != 0 && n->cls != 4 && n->v.i != 0)
				shrink_add(s, SHRINK_INT, order[q], 0, 0, 0, 0, 0);
			/* An ArrayObject: the stdClass of its storage, which json_encode shows. */
			if (n->cls == 0 && n->n == 1) {
				uint8_t sk = c->nodes[c->ents[n->first].value].kind;
				if (sk == GEN_LIST || sk == GEN_MAP || sk == GEN_STDCLASS)
					shrink_add(s, SHRINK_UNBOX, order[q], 0, SHRINK_NONE, 0, 0, 0);
			}
			if (n->cls != 0) {
				/* One of its properties (each distinct value once), then all of them. */
				struct shrink_bprop p[SHRINK_BPROP_MAX];
				unsigned np = shrink_builtin_props(n, p);
				for (unsigned x = 0; x < np; x++) {
					unsigned y = 0;
					while (y < x && !shrink_bprop_same(&p[y], &p[x]))
						y++;
					if (y == x)
						shrink_add(s, SHRINK_UNBOX, order[q], 0, x, 0, 0, 0);
				}
				shrink_add(s, SHRINK_UNBOX, order[q], 0, SHRINK_NONE, 0, 0, 0);
			}
			break;
		case GEN_FLOAT: {
			int rank = shrink_float_rank(n->v.d);
			if (rank > 0)
				shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, 0.0);
			if (rank > 1)
				shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, 1.0);
			if (rank == 3)
				shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, -n->v.d);
			break;
		}
		case GEN_TRUE:
		case GEN_FALSE:
		case GEN_ENUM:
		case GEN_RESOURCE:
			shrink_add(s, SHRINK_TO_NULL, order[q], 0, 0, 0, 0, 0);
			break;
		case GEN_OBJECT: {
			const struct gen_class *cl = gen_class_at(n->cls);
			shrink_add(s, SHRINK_KIND, order[q], 0, GEN_STDCLASS, 0, 0, 0);
			/* A nested call's object: the list its jsonSerialize() returns. */
			if (cl->type == GEN_CLASS_JSONSER_NESTED && cl->variant % GEN_NESTED_VARIANTS == 2)
				shrink_add(s, SHRINK_UNBOX, order[q], 0, SHRINK_NONE, 0, 0, 0);
			break;
		}
		case GEN_STDCLASS:
			shrink_add(s, SHRINK_KIND, order[q], 0, GEN_MAP, 0, 0, 0);
			break;
		case GEN_MAP:
			if (n->n > 0) /* an empty one is [] either way */
				shrink_add(s, SHRINK_KIND, order[q], 0, GEN_LIST, 0, 0, 0);
			for (uint32_t x = 0; x < n->n; x++) {
				const struct gen_entry *en = &c->ents[n->first + x];
				/* An int key other than 0, or a string key: 0 (a string key only when empty, after shortening). */
				if ((en->key_type == GEN_KEY_INT && en->key_int != 0) ||
				    (en->key_type == GEN_KEY_STR && en->key_len == 0))
					shrink_add(s, SHRINK_KEY_INT, order[q], n->first + x, 0, 0, 0, 0);
			}
			break;
		default:
			break;
		}
	}
}

/* Both at once: a container replaced by a child and the depth one less
 * (a bug at the depth limit: [[]] at depth 2 and [] at depth 1 meet; a
 * later error after a depth error: [[[X]], INF] at depth 3 and [X, INF]
 * at depth 1). */
void shrink_cut_children_depth(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail && c->depth > 1 && c->depth < 512; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (shrink_is_container(n->kind) || shrink_is_holder(n))
			for (uint32_t x = 0; x < n->n; x++)
				shrink_add(s, SHRINK_REPLACE, order[q], c->ents[n->first + x].value, 0, 0,
				    c->depth - 1, 0);
	}
}
