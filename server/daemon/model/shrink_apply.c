/*
 * An edit applied (shrink.h, shrink_apply): plan c copied from its root,
 * compactly (only what the root reaches), with the edit's change made on
 * the way.  What each edit (enum shrink_op) does is here; which edits are
 * offered, and in what order, is the step files' (shrink.c lists them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "shrink.h"
#include "shrink_value.h"

struct copy {
	const struct gen_case *in;
	const struct shrink_edit *e;
	struct gen_case *out;
	int fail;
	/* Plans with references: each container's new index, and whether it is
	 * being copied (around the node at hand: a back-reference's target). */
	uint32_t map[GEN_MAX_NODES];
	unsigned char onstack[GEN_MAX_NODES];
};

/* Room for node j's cnt entries at the end of the copy's entries: 0 with
 * *first, or -1 (k->fail set) when they do not fit. */
static int reserve_entries(struct copy *k, uint32_t j, uint32_t cnt, uint32_t *first)
{
	struct gen_case *o = k->out;
	if (o->nents + cnt > GEN_MAX_ENTRIES) {
		k->fail = 1;
		return -1;
	}
	*first = o->nents;
	o->nents += cnt;
	o->nodes[j].first = *first;
	o->nodes[j].n = cnt;
	return 0;
}

static uint32_t copy_bytes(struct copy *k, const char *s, uint32_t n, uint32_t lo, uint32_t hi)
{
	struct gen_case *o = k->out;
	uint32_t off = o->nbytes, keep = n - (hi - lo);

	if ((size_t)o->nbytes + keep > GEN_MAX_BYTES) {
		k->fail = 1;
		return off;
	}
	memcpy(o->bytes + o->nbytes, s, lo);
	memcpy(o->bytes + o->nbytes + lo, s + hi, n - hi);
	o->nbytes += keep;
	return off;
}

/* A string's n bytes s with [lo, hi) replaced by the rlen bytes rep (the normal form's lower character). */
static uint32_t copy_bytes_with(
    struct copy *k, const char *s, uint32_t n, uint32_t lo, uint32_t hi, const char *rep, uint32_t rlen)
{
	struct gen_case *o = k->out;
	uint32_t off = o->nbytes, keep = n - (hi - lo) + rlen;

	if ((size_t)o->nbytes + keep > GEN_MAX_BYTES) {
		k->fail = 1;
		return off;
	}
	memcpy(o->bytes + o->nbytes, s, lo);
	memcpy(o->bytes + o->nbytes + lo, rep, rlen);
	memcpy(o->bytes + o->nbytes + lo + rlen, s + hi, n - hi);
	o->nbytes += keep;
	return off;
}

/* Edit e's replacement character (SHRINK_CHAR) into rep: its length. */
static uint32_t char_of(const struct shrink_edit *e, char rep[4])
{
	uint32_t len = (uint32_t)((uint64_t)e->v >> 32);
	for (uint32_t x = 0; x < 4; x++)
		rep[x] = (char)((uint64_t)e->v >> (8 * x) & 0xff);
	return len > 4 ? 4 : len;
}

/* A string (or key) copied, with edit e's change to it when e is about it. */
static uint32_t copy_string(struct copy *k, const char *s, uint32_t n, int mine, uint32_t *len)
{
	const struct shrink_edit *e = k->e;
	char rep[4];
	uint32_t rlen;

	if (mine && e->op == SHRINK_BYTES) {
		*len = n - (e->hi - e->lo);
		return copy_bytes(k, s, n, e->lo, e->hi);
	}
	if (mine && e->op == SHRINK_FILL && e->hi <= n && e->lo < e->hi) {
		struct gen_case *o = k->out;
		uint32_t off = o->nbytes, at = 0, chars = 0, cp;
		if ((size_t)o->nbytes + n > GEN_MAX_BYTES) {
			k->fail = 1;
			*len = 0;
			return off;
		}
		/* Never longer than the original: a character becomes one byte. */
		memcpy(o->bytes + off, s, e->lo);
		for (at = e->lo; at < e->hi; chars++) {
			size_t l = utf8_seq((const unsigned char *)s + at, e->hi - at, &cp);
			at += l > 1 && e->v == 0 ? (uint32_t)l : 1;
		}
		memset(o->bytes + off + e->lo, 'a', chars);
		memcpy(o->bytes + off + e->lo + chars, s + e->hi, n - e->hi);
		*len = n - (e->hi - e->lo) + chars;
		o->nbytes += *len;
		return off;
	}
	if (mine && e->op == SHRINK_MOVE && e->lo < e->hi && e->hi < (uint64_t)e->v && (uint64_t)e->v <= n) {
		struct gen_case *o = k->out;
		uint32_t off = o->nbytes, v = (uint32_t)e->v, w = e->hi - e->lo;
		if ((size_t)o->nbytes + n > GEN_MAX_BYTES) {
			k->fail = 1;
			*len = 0;
			return off;
		}
		memcpy(o->bytes + off, s, e->lo);
		memcpy(o->bytes + off + e->lo, s + e->hi, v - e->hi);
		memcpy(o->bytes + off + e->lo + (v - e->hi), s + e->lo, w);
		memcpy(o->bytes + off + v, s + v, n - v);
		*len = n;
		o->nbytes += n;
		return off;
	}
	if (mine && e->op == SHRINK_CHAR && e->hi <= n && e->lo < e->hi) {
		rlen = char_of(e, rep);
		*len = n - (e->hi - e->lo) + rlen;
		return copy_bytes_with(k, s, n, e->lo, e->hi, rep, rlen);
	}
	*len = n;
	return copy_bytes(k, s, n, 0, 0);
}

/* Node j := the basic value b (SHRINK_SET). */
static void put_basic(struct copy *k, uint32_t j, uint32_t b)
{
	static const uint8_t kind[SHRINK_B_COUNT] = { GEN_NULL, GEN_FALSE, GEN_TRUE, GEN_INT, GEN_FLOAT,
		GEN_STRING, GEN_LIST };
	struct gen_node *x = &k->out->nodes[j];

	memset(x, 0, sizeof *x);
	if (b >= SHRINK_B_COUNT) {
		k->fail = 1;
		return;
	}
	x->kind = kind[b];
	x->first = k->out->nbytes; /* "" and []: no bytes, no entries */
	if (x->kind == GEN_LIST)
		x->first = k->out->nents;
	k->out->kinds |= 1u << x->kind;
}

/* Node j := property p's value (a scalar). */
static void put_bprop(struct copy *k, uint32_t j, const struct shrink_bprop *p)
{
	struct gen_node *x = &k->out->nodes[j];

	memset(x, 0, sizeof *x);
	x->kind = p->kind;
	k->out->kinds |= 1u << p->kind;
	if (p->kind == GEN_INT)
		x->v.i = p->i;
	else if (p->kind == GEN_FLOAT)
		x->v.d = p->d;
	else if (p->kind == GEN_STRING) {
		x->n = (uint32_t)strlen(p->s);
		x->first = copy_bytes(k, p->s, x->n, 0, 0);
	}
}

/* Node j, built-in object n, := property `which` alone, or (SHRINK_NONE) all of them. */
static uint32_t unbox(struct copy *k, const struct gen_node *n, uint32_t j, uint32_t which)
{
	struct gen_case *o = k->out;
	struct shrink_bprop p[SHRINK_BPROP_MAX];
	unsigned np = shrink_builtin_props(n, p);
	uint32_t first;

	if (which != SHRINK_NONE) {
		if (which >= np)
			k->fail = 1;
		else
			put_bprop(k, j, &p[which]);
		return j;
	}
	memset(&o->nodes[j], 0, sizeof o->nodes[j]);
	o->nodes[j].kind = n->cls == 1 ? GEN_LIST : GEN_STDCLASS;
	o->kinds |= 1u << o->nodes[j].kind;
	if (o->nnodes + np > GEN_MAX_NODES) {
		k->fail = 1;
		return j;
	}
	if (reserve_entries(k, j, np, &first) < 0)
		return j;
	for (unsigned x = 0; x < np; x++) {
		struct gen_entry *en = &o->ents[first + x];
		memset(en, 0, sizeof *en);
		if (p[x].name != NULL) {
			en->key_type = GEN_KEY_STR;
			en->key_len = (uint32_t)strlen(p[x].name);
			en->key_off = copy_bytes(k, p[x].name, en->key_len, 0, 0);
		}
		en->value = o->nnodes++;
		put_bprop(k, en->value, &p[x]);
	}
	return j;
}

static uint32_t copy_node(struct copy *k, uint32_t i, unsigned level);

/*
 * Node j, a case of a backed enum, := its value, which json_encode writes
 * for it (gen.c's GenEnumS and GenEnumI: keep the two in step).
 */
static void unbox_enum(struct copy *k, const struct gen_node *n, uint32_t j)
{
	static const char *const str[4] = { "plain", "<a href=\"/x\">&'</a>", "\xe2\x80\xa8\xc3\xa9/",
		"\xff\xfe" };
	static const int64_t num[3] = { 0, -1, INT64_MAX };
	struct gen_node *x = &k->out->nodes[j];

	memset(x, 0, sizeof *x);
	if (n->cls == 0 && n->n < 4) {
		x->kind = GEN_STRING;
		x->n = (uint32_t)strlen(str[n->n]);
		x->first = copy_bytes(k, str[n->n], x->n, 0, 0);
	} else if (n->cls == 1 && n->n < 3) {
		x->kind = GEN_INT;
		x->v.i = num[n->n];
	} else {
		k->fail = 1;
	}
	k->out->kinds |= 1u << x->kind;
}

/* Does plain_object keep declared property p (set, when set[p] names an entry)? */
static int plain_keeps(const struct gen_prop *pr, uint32_t set, int all)
{
	return (all || pr->visibility == GEN_PUBLIC) && (set != SHRINK_NONE || !pr->typed);
}

/*
 * Node j, declared-class object n (in's node i), := a stdClass of what
 * json_encode shows of it: its public properties in declaration order (a
 * set one with its value, an unset untyped one null, an unset typed one
 * left out), then its dynamic ones.  With `all`, of its whole property
 * table instead, as (array) names it: a protected property "\0*\0name",
 * a private one "\0Class\0name" — keys json_encode skips in any object,
 * so the base shows what it showed, through the same test of the key.
 */
static uint32_t plain_object(
    struct copy *k, const struct gen_node *n, uint32_t i, uint32_t j, unsigned level, int all)
{
	const struct gen_case *in = k->in;
	struct gen_case *o = k->out;
	const struct gen_class *cl = gen_class_at(n->cls);
	uint32_t set[GEN_MAX_PROPS], cnt = 0, first, y = 0;

	for (unsigned p = 0; p < GEN_MAX_PROPS; p++)
		set[p] = SHRINK_NONE;
	for (uint32_t x = 0; x < n->n; x++) {
		const struct gen_entry *en = &in->ents[n->first + x];
		if (en->key_type == GEN_KEY_PROP && en->key_int >= 0 && en->key_int < cl->nprops)
			set[en->key_int] = n->first + x;
		else if (en->key_type == GEN_KEY_STR)
			cnt++;
	}
	for (unsigned p = 0; p < cl->nprops; p++)
		cnt += plain_keeps(&cl->props[p], set[p], all);
	memset(&o->nodes[j], 0, sizeof o->nodes[j]);
	o->nodes[j].kind = GEN_STDCLASS;
	o->kinds |= 1u << GEN_STDCLASS;
	if (reserve_entries(k, j, cnt, &first) < 0)
		return j;
	for (unsigned p = 0; p < cl->nprops && !k->fail; p++) {
		const struct gen_prop *pr = &cl->props[p];
		struct gen_entry *dst;
		char name[48];
		int len;
		if (!plain_keeps(pr, set[p], all))
			continue;
		if (pr->visibility == GEN_PUBLIC)
			len = snprintf(name, sizeof name, "%.*s", (int)pr->len, pr->name);
		else
			len = snprintf(name, sizeof name, "%c%s%c%.*s", 0,
			    pr->visibility == GEN_PRIVATE ? cl->name : "*", 0, (int)pr->len, pr->name);
		dst = &o->ents[first + y++];
		memset(dst, 0, sizeof *dst);
		dst->key_type = GEN_KEY_STR;
		dst->key_len = (uint32_t)len;
		dst->key_off = copy_bytes(k, name, (uint32_t)len, 0, 0);
		if (set[p] != SHRINK_NONE) {
			uint32_t v = copy_node(k, in->ents[set[p]].value, level + 1);
			o->ents[first + y - 1].value = v;
		} else if (o->nnodes < GEN_MAX_NODES) {
			uint32_t v = o->nnodes++;
			memset(&o->nodes[v], 0, sizeof o->nodes[v]);
			o->kinds |= 1u << GEN_NULL;
			o->ents[first + y - 1].value = v;
		} else {
			k->fail = 1;
		}
	}
	/* The dynamic properties, after the declared ones (y of them), in their order. */
	for (uint32_t x = 0; x < n->n && !k->fail; x++) {
		const struct gen_entry *en = &in->ents[n->first + x];
		uint32_t v;
		if (en->key_type != GEN_KEY_STR)
			continue;
		o->ents[first + y] = *en;
		o->ents[first + y].key_off = copy_bytes(k, in->bytes + en->key_off, en->key_len, 0, 0);
		v = copy_node(k, en->value, level + 1);
		o->ents[first + y].value = v;
		y++;
	}
	if (in->nrefs > 0 && i < GEN_MAX_NODES)
		k->onstack[i] = 0;
	return j;
}

/*
 * Node j, an object whose jsonSerialize() returns [json_encode($this->p,
 * PRETTY_PRINT | PARTIAL_OUTPUT_ON_ERROR), json_last_error(), $this->p]
 * (gen.c's third nested call), := that list as a literal -- when the
 * inner call's text is known without PHP: p null (set, or unset and
 * untyped), a bool or an int, error 0.  What the outer call encodes is
 * that list, so a bug of lists meets its other members there.
 */
static uint32_t unbox_nested(struct copy *k, const struct gen_node *n, uint32_t i, uint32_t j, unsigned level)
{
	const struct gen_case *in = k->in;
	struct gen_case *o = k->out;
	const struct gen_class *cl = gen_class_at(n->cls);
	uint32_t prop = SHRINK_NONE, first, v;
	char text[32] = "null";

	if (cl->type != GEN_CLASS_JSONSER_NESTED || cl->variant % GEN_NESTED_VARIANTS != 2 ||
	    cl->nprops == 0) {
		k->fail = 1;
		return j;
	}
	for (uint32_t x = 0; x < n->n; x++)
		if (in->ents[n->first + x].key_type == GEN_KEY_PROP && in->ents[n->first + x].key_int == 0)
			prop = in->ents[n->first + x].value;
	if (prop == SHRINK_NONE) {
		k->fail = cl->props[0].typed; /* reading it would throw */
	} else if (in->nodes[prop].kind == GEN_FALSE || in->nodes[prop].kind == GEN_TRUE) {
		snprintf(text, sizeof text, "%s", in->nodes[prop].kind == GEN_TRUE ? "true" : "false");
	} else if (in->nodes[prop].kind == GEN_INT) {
		snprintf(text, sizeof text, "%lld", (long long)in->nodes[prop].v.i);
	} else if (in->nodes[prop].kind != GEN_NULL) {
		k->fail = 1;
	}
	memset(&o->nodes[j], 0, sizeof o->nodes[j]);
	o->nodes[j].kind = GEN_LIST;
	o->kinds |= 1u << GEN_LIST | 1u << GEN_STRING | 1u << GEN_INT;
	if (k->fail || o->nnodes + 3 > GEN_MAX_NODES || reserve_entries(k, j, 3, &first) < 0) {
		k->fail = 1;
		return j;
	}
	memset(&o->ents[first], 0, 3 * sizeof o->ents[first]);
	v = o->nnodes++; /* the inner call's text */
	memset(&o->nodes[v], 0, sizeof o->nodes[v]);
	o->nodes[v].kind = GEN_STRING;
	o->nodes[v].n = (uint32_t)strlen(text);
	o->nodes[v].first = copy_bytes(k, text, o->nodes[v].n, 0, 0);
	o->ents[first].value = v;
	v = o->nnodes++; /* json_last_error() */
	memset(&o->nodes[v], 0, sizeof o->nodes[v]);
	o->nodes[v].kind = GEN_INT;
	o->ents[first + 1].value = v;
	if (prop != SHRINK_NONE) {
		v = copy_node(k, prop, level + 1);
	} else {
		v = o->nnodes++;
		memset(&o->nodes[v], 0, sizeof o->nodes[v]);
		o->kinds |= 1u << GEN_NULL;
	}
	o->ents[first + 2].value = v;
	if (in->nrefs > 0 && i < GEN_MAX_NODES)
		k->onstack[i] = 0;
	return j;
}

/* Node j := the least value json_encode fails on: INF (lo 0), else "\x80" (SHRINK_ERROR). */
static void put_error(struct copy *k, uint32_t j, uint32_t lo)
{
	struct gen_node *n = &k->out->nodes[j];

	memset(n, 0, sizeof *n);
	if (lo == 0) {
		n->kind = GEN_FLOAT;
		n->v.d = INFINITY;
	} else {
		n->kind = GEN_STRING;
		n->first = copy_bytes(k, "\x80", 1, 0, 0);
		n->n = 1;
	}
	k->out->kinds |= 1u << n->kind;
}

/* A back-reference names its container's (or reference's) new index, or
 * becomes null when an edit took it away from around it. */
static void copy_back_ref(struct copy *k, const struct gen_node *n, uint32_t j)
{
	struct gen_case *o = k->out;
	uint32_t t = (uint32_t)n->v.i;

	o->nodes[j] = *n;
	if (t < GEN_MAX_NODES && k->onstack[t]) {
		o->nodes[j].v.i = k->map[t];
		o->nrefs++;
		o->kinds |= 1u << GEN_REF;
	} else {
		memset(&o->nodes[j], 0, sizeof o->nodes[j]);
		o->kinds |= 1u << GEN_NULL;
	}
}

/* Node n (in's node i) replaced as a whole by the edit (it is the edit's node): into the copy's
 * node j.  1 when this edit is such a replacement, 0 when the node is copied as usual. */
static int copy_replaced(struct copy *k, const struct gen_node *n, uint32_t i, uint32_t j, unsigned level)
{
	const struct gen_case *in = k->in;
	const struct shrink_edit *e = k->e;
	struct gen_case *o = k->out;

	if (e->op == SHRINK_KEY_VALUE) {
		/* The container gives way to one of its keys, as a string value. */
		const struct gen_entry *en = &in->ents[e->b];
		const char *key = in->bytes + en->key_off;
		uint32_t len = en->key_len;
		if (en->key_type == GEN_KEY_PROP) {
			key = gen_class_at(n->cls)->props[en->key_int].name;
			len = gen_class_at(n->cls)->props[en->key_int].len;
		}
		memset(&o->nodes[j], 0, sizeof o->nodes[j]);
		o->nodes[j].kind = GEN_STRING;
		o->kinds |= 1u << GEN_STRING;
		o->nodes[j].first = copy_bytes(k, key, len, 0, 0);
		o->nodes[j].n = len;
		return 1;
	}
	if (e->op == SHRINK_KIND && (e->hi == 1 || e->hi == 3)) {
		if (n->kind != GEN_OBJECT) {
			k->fail = 1;
			return 1;
		}
		plain_object(k, n, i, j, level, e->hi == 3);
		return 1;
	}
	if (e->op == SHRINK_NUMBER) {
		memset(&o->nodes[j], 0, sizeof o->nodes[j]);
		if (n->kind != GEN_STRING)
			k->fail = 1;
		o->nodes[j].kind = e->lo ? GEN_FLOAT : GEN_INT;
		if (e->lo)
			o->nodes[j].v.d = e->d;
		else
			o->nodes[j].v.i = e->v;
		o->kinds |= 1u << o->nodes[j].kind;
		return 1;
	}
	if (e->op == SHRINK_UNBOX && n->kind == GEN_ENUM) {
		unbox_enum(k, n, j);
		return 1;
	}
	if (e->op == SHRINK_UNBOX && n->kind == GEN_OBJECT) {
		unbox_nested(k, n, i, j, level);
		return 1;
	}
	if (e->op == SHRINK_UNBOX) {
		if (n->kind != GEN_BUILTIN || n->cls == 0) {
			k->fail = 1;
			return 1;
		}
		unbox(k, n, j, e->lo);
		return 1;
	}
	return 0;
}

/*
 * The entries of container n (in's node i) into the copy's node j, of kind
 * `kind` now: entries [lo, hi) dropped, or entry `keep` alone; each key as
 * the kind and the edit make it, each value copied (an entry moved out of
 * a child array after it).
 */
static void copy_entries(struct copy *k, const struct gen_node *n, uint32_t i, uint32_t j, uint8_t kind,
    uint32_t lo, uint32_t hi, uint32_t keep, int storage, unsigned level)
{
	const struct gen_case *in = k->in;
	const struct shrink_edit *e = k->e;
	struct gen_case *o = k->out;
	uint32_t first, cnt;

	cnt = keep != SHRINK_NONE ? 1 : n->n - (hi - lo);
	if (e != NULL && e->op == SHRINK_HOIST && e->a == i)
		cnt++;
	if (reserve_entries(k, j, cnt, &first) < 0)
		return;
	for (uint32_t x = 0, y = 0; x < n->n && !k->fail; x++) {
		uint32_t ei = n->first + x;
		if (e != NULL && e->op == SHRINK_SWAP && e->a == i && e->lo + 1 < n->n &&
		    (x == e->lo || x == e->lo + 1))
			ei = n->first + (x == e->lo ? e->lo + 1 : e->lo);
		const struct gen_entry *src = &in->ents[ei];
		struct gen_entry *dst;
		uint32_t v;
		if ((x >= lo && x < hi) || (keep != SHRINK_NONE && ei != keep))
			continue;
		dst = &o->ents[first + y++];
		*dst = *src;
		if (keep != SHRINK_NONE) {
			dst->key_type = GEN_KEY_INT;
			dst->key_int = e->v;
		}
		if (kind == GEN_LIST) {
			dst->key_type = GEN_KEY_NONE;
		} else if (storage == 1 && src->key_type == GEN_KEY_NONE) {
			dst->key_type = GEN_KEY_INT; /* a list's element: its index */
			dst->key_int = x;
		} else if (src->key_type == GEN_KEY_PROP && kind != GEN_OBJECT) {
			/* A declared property becomes a plain key of the same name. */
			const struct gen_prop *p = &gen_class_at(n->cls)->props[src->key_int];
			dst->key_type = GEN_KEY_STR;
			dst->key_off = copy_bytes(k, p->name, p->len, 0, 0);
			dst->key_len = p->len;
		} else if (src->key_type == GEN_KEY_PROP && e != NULL && e->op == SHRINK_CLASS && e->a == i) {
			/* The same property's place in the new class. */
			dst->key_int = (int64_t)((uint64_t)e->v >> (3 * src->key_int) & 7);
		} else if (src->key_type == GEN_KEY_STR) {
			if (e != NULL && e->op == SHRINK_KEY_INT && e->b == ei && kind == GEN_MAP) {
				dst->key_type = GEN_KEY_INT;
				dst->key_int = e->v;
			} else {
				dst->key_off = copy_string(k, in->bytes + src->key_off, src->key_len,
				    e != NULL && e->b == ei && e->a == i, &dst->key_len);
			}
		} else if (src->key_type == GEN_KEY_INT && e != NULL && e->op == SHRINK_KEY_INT &&
		    e->b == ei) {
			dst->key_int = e->v;
		}
		if (e != NULL && e->op == SHRINK_KEY_ERROR && e->a == i && e->b == ei) {
			/* The invalid key's error moved to the value: key 'a'. */
			dst->key_type = GEN_KEY_STR;
			dst->key_off = copy_bytes(k, "a", 1, 0, 0);
			dst->key_len = 1;
			if (o->nnodes >= GEN_MAX_NODES) {
				k->fail = 1;
				return;
			}
			v = o->nnodes++;
			put_error(k, v, e->lo);
		} else if (e != NULL && e->op == SHRINK_DEDUP && e->a == i && e->b == ei) {
			v = copy_node(k, in->ents[n->first + e->lo].value, level + 1);
		} else {
			v = copy_node(k, src->value, level + 1);
		}
		o->ents[first + y - 1].value = v;
		if (e != NULL && e->op == SHRINK_HOIST && e->a == i && e->b == ei) {
			/* The moved entry, after the container it came out of. */
			const struct gen_node *from = &in->nodes[src->value];
			if (kind != GEN_LIST || e->lo >= from->n) {
				k->fail = 1;
				return;
			}
			dst = &o->ents[first + y++];
			*dst = in->ents[from->first + e->lo];
			dst->key_type = GEN_KEY_NONE;
			v = copy_node(k, in->ents[from->first + e->lo].value, level + 1);
			o->ents[first + y - 1].value = v;
		}
	}
}

/*
 * What the edit does to node n (in's node i, copied as node j) short of
 * replacing it: a number, an enum case, its kind (returned), or which of
 * its entries go: [*lo, *hi) dropped, or *keep alone.
 */
static uint8_t copy_edited(struct copy *k, const struct gen_node *n, uint32_t i, uint32_t j, uint8_t kind,
    uint32_t *lo, uint32_t *hi, uint32_t *keep)
{
	const struct gen_case *in = k->in;
	const struct shrink_edit *e = k->e;
	struct gen_case *o = k->out;

	if (e != NULL && e->a == i) {
		if (e->op == SHRINK_INT && (kind == GEN_INT || kind == GEN_BUILTIN))
			o->nodes[j].v.i = e->v;
		else if (e->op == SHRINK_INT && kind == GEN_ENUM && e->v >= 0 &&
		    e->v < (int64_t)gen_enum_cases(n->cls))
			o->nodes[j].n = (uint32_t)e->v; /* an earlier case of the same enum */
		else if (e->op == SHRINK_FLOAT && kind == GEN_FLOAT)
			o->nodes[j].v.d = e->d;
		else if (e->op == SHRINK_TO_NULL)
			kind = GEN_NULL;
		else if (e->op == SHRINK_KIND)
			kind = (uint8_t)e->lo;
		else if (e->op == SHRINK_DROP)
			*lo = e->lo, *hi = e->hi;
		else if (e->op == SHRINK_CLASS && e->hi == 1)
			*lo = 0, *hi = n->n; /* a canonical class, its entries dropped */
		else if (e->op == SHRINK_KEEP_ONE && kind == GEN_MAP && e->b >= n->first &&
		    e->b < n->first + n->n)
			*keep = e->b;
	}
	/* A key written twice (SHRINK_DEDUP): the later entry dropped, its value the earlier's. */
	if (e != NULL && e->op == SHRINK_DEDUP && e->a == i && e->lo < n->n)
		*lo = e->lo, *hi = e->lo + 1;
	/* The container an entry is moved out of (SHRINK_HOIST): without it. */
	if (e != NULL && e->op == SHRINK_HOIST && e->b < in->nents && in->ents[e->b].value == i &&
	    e->lo < n->n)
		*lo = e->lo, *hi = e->lo + 1;
	return kind;
}

static uint32_t copy_node(struct copy *k, uint32_t i, unsigned level)
{
	const struct gen_case *in = k->in;
	const struct shrink_edit *e = k->e;
	struct gen_case *o = k->out;
	const struct gen_node *n;
	uint32_t j, lo = 0, hi = 0, keep = SHRINK_NONE;
	uint8_t kind;
	/* An ArrayObject's storage: made the stdClass json_encode shows of it (1), or kept as its
	 * array under JSON_FORCE_OBJECT, which encodes it as the same object (2). */
	int storage = 0;

	if (e != NULL && e->op == SHRINK_REPLACE && i == e->a)
		i = e->b;
	else if (e != NULL && e->op == SHRINK_UNBOX && i == e->a && i < in->nnodes &&
	    in->nodes[i].kind == GEN_BUILTIN && in->nodes[i].cls == 0 && in->nodes[i].n == 1) {
		i = in->ents[in->nodes[i].first].value;
		storage = e->hi == 2 ? 2 : 1;
	}
	if (i >= in->nnodes || o->nnodes >= GEN_MAX_NODES || level > 64) {
		k->fail = 1;
		return 0;
	}
	n = &in->nodes[i];
	j = o->nnodes++;
	if (e != NULL && e->op == SHRINK_SET && e->a == i) {
		put_basic(k, j, e->lo);
		return j;
	}
	if (e != NULL && e->op == SHRINK_ERROR && e->a == i) {
		put_error(k, j, e->lo);
		return j;
	}
	if (n->kind == GEN_REF && (n->cls == 1 || n->cls == 2)) {
		copy_back_ref(k, n, j);
		return j;
	}
	if (in->nrefs > 0 && i < GEN_MAX_NODES) {
		k->map[i] = j;
		k->onstack[i] = 1;
	}
	if (n->kind == GEN_REF)
		o->nrefs++;
	if (e != NULL && e->a == i && copy_replaced(k, n, i, j, level))
		return j;
	o->nodes[j] = *n;
	kind = n->kind;
	if (storage) {
		if (kind != GEN_LIST && kind != GEN_MAP && (kind != GEN_STDCLASS || storage == 2)) {
			k->fail = 1;
			return j;
		}
		if (storage == 1)
			kind = GEN_STDCLASS;
	}
	kind = copy_edited(k, n, i, j, kind, &lo, &hi, &keep);
	o->nodes[j].kind = kind;
	o->kinds |= 1u << kind;
	if (kind == GEN_STRING) {
		uint32_t len;
		int mine = e != NULL && e->a == i && e->b == SHRINK_NONE;
		o->nodes[j].first = copy_string(k, in->bytes + n->first, n->n, mine, &len);
		o->nodes[j].n = len;
		/* A padding string filled is written as its bytes, no longer as
		 * str_repeat('x', n). */
		if (mine && e->op == SHRINK_FILL)
			o->nodes[j].pad = 0;
		return j;
	}
	if (kind == GEN_ENUM)
		o->enums |= 1u << n->cls;
	/* A reference to a value and an ArrayObject hold one entry, like a container. */
	int holder = (kind == GEN_REF || kind == GEN_BUILTIN) && n->cls == 0;
	if (kind != GEN_LIST && kind != GEN_MAP && kind != GEN_STDCLASS && kind != GEN_OBJECT && !holder)
		return j;
	if (kind == GEN_OBJECT && e != NULL && e->op == SHRINK_CLASS && e->a == i) {
		if (n->kind != GEN_OBJECT || e->lo >= GEN_NCLASSES_ALL) {
			k->fail = 1;
			return j;
		}
		o->nodes[j].cls = (uint16_t)e->lo;
	}
	if (kind == GEN_OBJECT)
		o->classes |= 1ull << o->nodes[j].cls;
	copy_entries(k, n, i, j, kind, lo, hi, keep, storage, level);
	if (in->nrefs > 0 && i < GEN_MAX_NODES)
		k->onstack[i] = 0;
	return j;
}

int shrink_apply(const struct gen_case *c, const struct shrink_edit *e, struct gen_case *out)
{
	static __thread struct copy k; /* ~2.5 KB: not on the stack */
	uint32_t dropped = SHRINK_NONE;
	int compared = 0;

	k.in = c;
	k.e = e;
	k.out = out;
	k.fail = 0;
	if (c->nrefs > 0)
		memset(k.onstack, 0, sizeof k.onstack);

	out->seed = c->seed;
	out->index = c->index;
	out->flags = c->flags;
	out->depth = c->depth;
	out->nnodes = out->nents = out->nbytes = 0;
	out->nesting = c->nesting; /* not recomputed: only the rendering uses a reduced plan */
	out->pieces = c->pieces;
	out->shapes = c->shapes;
	out->features = c->features;
	out->kinds = 0;
	out->classes = 0;
	out->enums = 0;
	out->nrefs = out->npath = 0;
	out->rng = c->rng;
	out->php = c->php; /* the PHP the case is made for: its setup declares for it */
	out->npre = 0;
	/* The earlier call the edit takes out (SHRINK_NONE: none), and whether it is the last
	 * one, compared instead (SHRINK_PRE_DROP hi 1; SHRINK_ERROR v 1). */
	if (e != NULL && e->op == SHRINK_PRE_DROP) {
		dropped = e->lo;
		compared = e->hi == 1 && e->lo + 1 == c->npre;
	} else if (e != NULL && e->op == SHRINK_ERROR && e->v == 1) {
		if (c->npre == 0 || c->npre > GEN_MAX_PRE)
			return -1;
		dropped = c->npre - 1;
		compared = 1;
	}
	for (uint32_t p = 0; p < c->npre && p < GEN_MAX_PRE; p++) {
		if (p == dropped)
			continue;
		out->pre_flags[out->npre] = c->pre_flags[p];
		out->pre_depth[out->npre] = c->pre_depth[p];
		if (e != NULL && e->op == SHRINK_PRE_FLAG && e->lo == p)
			out->pre_flags[out->npre] &= ~((int64_t)1 << e->hi);
		if (e != NULL && e->op == SHRINK_FLAG_LOWER && e->b == 1 + p)
			out->pre_flags[out->npre] = (out->pre_flags[out->npre] & ~((int64_t)1 << e->lo)) |
			    (int64_t)1 << e->hi;
		if (e != NULL && e->op == SHRINK_PRE_DEPTH && e->lo == p)
			out->pre_depth[out->npre] = e->v;
		if (e != NULL && e->op == SHRINK_ERROR && e->hi == 2 + p)
			out->pre_depth[out->npre] = 512;
		out->npre++;
	}
	if (out->npre == 0)
		out->features &= ~(1u << GEN_F_SEQUENCE | 1u << GEN_F_SEQ_FAIL);
	if (compared) {
		out->flags = c->pre_flags[dropped];
		out->depth = c->pre_depth[dropped];
	}
	if (e != NULL && e->op == SHRINK_FLAG)
		out->flags &= ~((int64_t)1 << e->lo);
	if (e != NULL && e->op == SHRINK_FLAG_LOWER && e->b == 0)
		out->flags = (out->flags & ~((int64_t)1 << e->lo)) | (int64_t)1 << e->hi;
	if (e != NULL && e->op == SHRINK_DEPTH)
		out->depth = e->v > 0 ? e->v : 512;
	if (e != NULL && e->op == SHRINK_ERROR && e->hi == 1)
		out->depth = 512;
	if (e != NULL && e->op == SHRINK_REPLACE && e->v > 0)
		out->depth = e->v; /* one nesting level fewer, one depth less */
	if (e != NULL && (e->op == SHRINK_KIND || e->op == SHRINK_UNBOX) && e->hi == 2)
		out->flags |= FLAG_FORCE_OBJECT; /* the array is still encoded as an object */
	out->root = copy_node(&k, c->root, 0);
	/* The throwing destructor's class is declared (gen_render_setup) only
	 * while an object whose jsonSerialize() uses it is left: a part without
	 * one has the setup of the same value made afresh. */
	out->features &= ~(1u << GEN_F_JSONSER_DTOR);
	for (unsigned i = 0; i < GEN_NCLASSES_ALL; i++)
		if ((out->classes & 1ull << i) && gen_class_at(i)->type == GEN_CLASS_JSONSER_DTOR)
			out->features |= 1u << GEN_F_JSONSER_DTOR;
	return k.fail ? -1 : 0;
}
