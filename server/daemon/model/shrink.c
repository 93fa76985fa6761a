/*
 * Shrinking a generated case toward a minimal one (shrink.h): the
 * candidates of a plan in order, and a plan rebuilt with one applied.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "shrink.h"
#include "shrink_step.h"

#define FLAG_FORCE_OBJECT ((int64_t)1 << 4)  /* JSON_FORCE_OBJECT */
#define FLAG_NUMERIC_CHECK ((int64_t)1 << 5) /* JSON_NUMERIC_CHECK */

/* ---- applying an edit: the plan copied from its root, compactly ---- */

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

/*
 * A built-in object's JSON-visible properties as 8.2's json_encode shows
 * them (builds/src-8.2.32/bin/php: DateInterval's f is a float, days and
 * from_string false; DateTimeImmutable('@t') is in UTC; SplFixedArray(n)
 * is n nulls; WeakMap none): what its plain stand-in is made of, so the
 * reducer can swap the object for them ("replace declared-class objects
 * by stdClass or arrays when the signature holds", built-in ones too).
 */
struct bprop {
	const char *name; /* NULL: a list element */
	uint8_t kind;     /* GEN_NULL, GEN_FALSE, GEN_INT, GEN_FLOAT, GEN_STRING */
	int64_t i;
	double d;
	char s[96]; /* room for any struct tm -Wformat-truncation can imagine */
};

#define BPROP_MAX 10

static unsigned builtin_props(const struct gen_node *n, struct bprop *p)
{
	static const char *const di[] = { "y", "m", "d", "h", "i", "s", "f", "invert", "days",
		"from_string" };
	unsigned np = 0;

	memset(p, 0, BPROP_MAX * sizeof *p);
	switch (n->cls) {
	case 1: /* SplFixedArray(n): [null, ...] */
		for (; np < BPROP_MAX && (int64_t)np < n->v.i; np++)
			p[np].kind = GEN_NULL;
		break;
	case 2: /* DateInterval('PnD') */
		for (; np < 10; np++) {
			p[np].name = di[np];
			p[np].kind = np == 6 ? GEN_FLOAT : np >= 8 ? GEN_FALSE : GEN_INT;
		}
		p[2].i = n->v.i;
		break;
	case 3: { /* DateTimeImmutable('@t') */
		time_t t = (time_t)n->v.i;
		struct tm tm;
		if (gmtime_r(&t, &tm) == NULL)
			break;
		p[0].name = "date";
		p[0].kind = GEN_STRING;
		snprintf(p[0].s, sizeof p[0].s, "%04d-%02d-%02d %02d:%02d:%02d.000000", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		p[1].name = "timezone_type";
		p[1].kind = GEN_INT;
		p[1].i = 1;
		p[2].name = "timezone";
		p[2].kind = GEN_STRING;
		memcpy(p[2].s, "+00:00", 7);
		np = 3;
		break;
	}
	default: /* WeakMap: no properties; ArrayObject (cls 0) is a holder instead */
		break;
	}
	return np;
}

static int bprop_same(const struct bprop *x, const struct bprop *y)
{
	return x->kind == y->kind && x->i == y->i && x->d == y->d && strcmp(x->s, y->s) == 0;
}

/* Node j := property p's value (a scalar). */
static void put_bprop(struct copy *k, uint32_t j, const struct bprop *p)
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
	struct bprop p[BPROP_MAX];
	unsigned np = builtin_props(n, p);
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

/* ---- the candidates ---- */

static void add(
    struct shrink_cands *s, uint8_t op, uint32_t a, uint32_t b, uint32_t lo, uint32_t hi, int64_t v, double d)
{
	shrink_add(s, op, a, b, lo, hi, v, d);
}

static int is_container(uint8_t kind)
{
	return kind == GEN_LIST || kind == GEN_MAP || kind == GEN_STDCLASS || kind == GEN_OBJECT;
}

/* A reference to a value, an ArrayObject: one entry, never dropped, replaced by it. */
static int is_holder(const struct gen_node *n)
{
	return (n->kind == GEN_REF || n->kind == GEN_BUILTIN) && n->cls == 0;
}

#define SHRINK_LONG 1024

/*
 * Chunks of a string's n bytes p: all of it, halves, quarters ...; then
 * each whole UTF-8 character (a chunk may cut one, making the string invalid
 * UTF-8, a different error); then single bytes.
 */
static void add_chunks(struct shrink_cands *s, uint32_t node, uint32_t entry, const char *p, uint32_t n)
{
	uint32_t cp;
	size_t len;

	/* (A string of kilobytes: chunks down to 1/64 of it, no finer: the
	 * budget would go on chunks that each cut it below a length that
	 * matters.) */
	for (uint32_t size = n; size >= 2 && (n <= SHRINK_LONG || size >= n / 64); size /= 2)
		for (uint32_t at = 0; at < n; at += size)
			add(s, SHRINK_BYTES, node, entry, at, at + size < n ? at + size : n, 0, 0);
	/* Runs of one byte cut by whole 16-byte blocks: every byte after keeps
	 * its offset within a block (a bug at a block edge stays). */
	for (uint32_t at = 0, run; at < n; at += run) {
		for (run = 1; at + run < n && p[at + run] == p[at]; run++)
			;
		if (run >= 32)
			add(s, SHRINK_BYTES, node, entry, at, at + run / 16 * 16 - 16, 0, 0);
		if (run >= 16)
			add(s, SHRINK_BYTES, node, entry, at, at + 16, 0, 0);
	}
	/* A block string of kilobytes: a character at a time would fill the
	 * candidate table, so the first character of each run of one
	 * character (a special is a run of its own) is all it gets. */
	if (n > SHRINK_LONG) {
		for (uint32_t at = 0, prev = 0, plen = 0; at < n; at += (uint32_t)len) {
			len = utf8_seq((const unsigned char *)p + at, n - at, &cp);
			len = len > 1 ? len : 1;
			if (plen != len || memcmp(p + prev, p + at, len) != 0 || at == 0)
				add(s, SHRINK_BYTES, node, entry, at, at + (uint32_t)len, 0, 0);
			prev = at;
			plen = (uint32_t)len;
		}
		return;
	}
	for (uint32_t at = 0; at < n; at += (uint32_t)len) {
		len = utf8_seq((const unsigned char *)p + at, n - at, &cp);
		if (len <= 1)
			len = 1;
		else
			add(s, SHRINK_BYTES, node, entry, at, at + (uint32_t)len, 0, 0);
	}
	for (uint32_t at = 0; at < n; at++)
		add(s, SHRINK_BYTES, node, entry, at, at + 1, 0, 0);
}

/* ---- the normal form's candidates: every leaf, character, class and flag lowered ---- */

/*
 * A node's place in the order of values: null < false < true < 0 < 0.0 <
 * "" < [] < other ints < other floats < other strings < everything else
 * (lists, maps, objects, enum cases ...).  SHRINK_SET only moves down.
 */
static uint32_t value_rank(const struct gen_node *n)
{
	switch (n->kind) {
	case GEN_NULL:
		return SHRINK_B_NULL;
	case GEN_FALSE:
		return SHRINK_B_FALSE;
	case GEN_TRUE:
		return SHRINK_B_TRUE;
	case GEN_INT:
		return n->v.i == 0 ? SHRINK_B_ZERO : SHRINK_B_COUNT;
	case GEN_FLOAT:
		return n->v.d == 0.0 && !signbit(n->v.d) ? SHRINK_B_ZERO_FLOAT : SHRINK_B_COUNT + 1;
	case GEN_STRING:
		return n->n == 0 ? SHRINK_B_EMPTY : SHRINK_B_COUNT + 2;
	case GEN_LIST:
	case GEN_MAP:
		return n->n == 0 ? SHRINK_B_LIST : SHRINK_B_COUNT + 3;
	default:
		return SHRINK_B_COUNT + 3;
	}
}

/* json_encode's error codes (php_json.h): the depth's, and those a value may fail on by itself. */
enum {
	JSON_E_DEPTH = 1,
	JSON_E_UTF8 = 5,
	JSON_E_RECURSION = 6,
	JSON_E_INF_OR_NAN = 7,
	JSON_E_UNSUPPORTED = 8,
	JSON_E_ENUM = 11
};

/*
 * The code json_encode reports for value n by itself, whatever holds it
 * (1 << code; 0 none): a string of invalid UTF-8 (5), INF or NAN (7), a
 * resource (8), a unit enum case (11), a recursion's back-reference (6);
 * RECODE_EXCEPTION for an object whose jsonSerialize() throws.
 */
static unsigned own_code(const struct gen_case *c, const struct gen_node *n)
{
	switch (n->kind) {
	case GEN_STRING:
		return utf8_valid(c->bytes + n->first, n->n) ? 0 : 1u << JSON_E_UTF8;
	case GEN_FLOAT:
		return isfinite(n->v.d) ? 0 : 1u << JSON_E_INF_OR_NAN;
	case GEN_RESOURCE:
		return 1u << JSON_E_UNSUPPORTED;
	case GEN_ENUM:
		return n->cls == 2 ? 1u << JSON_E_ENUM : 0; /* GenEnumU */
	case GEN_REF:
		return n->cls != 0 ? 1u << JSON_E_RECURSION : 0;
	case GEN_OBJECT:
		return gen_class_at(n->cls)->type == GEN_CLASS_JSONSER_THROW ? RECODE_EXCEPTION : 0;
	default:
		return 0;
	}
}

/* A value json_encode fails on by itself, INF aside (the one they all become). */
static int fails_alone(const struct gen_case *c, const struct gen_node *n)
{
	return own_code(c, n) != 0 && !(n->kind == GEN_FLOAT && isinf(n->v.d));
}

/*
 * The codes json_encode may report for node i and what it holds (1 << code
 * each, own_code's): its values' own, and invalid UTF-8 in a key; INF
 * counted only when inf is set.  Not 0: node i holds an error (the error
 * step is offered); what an error step may change the candidate's code
 * from (struct shrink_recode).
 */
static unsigned error_codes(const struct gen_case *c, uint32_t i, unsigned level, int inf)
{
	const struct gen_node *n = &c->nodes[i];
	unsigned codes = inf || fails_alone(c, n) ? own_code(c, n) : 0;

	if (level > 64 || (n->kind == GEN_REF && n->cls != 0) || (!is_container(n->kind) && !is_holder(n)))
		return codes;
	for (uint32_t x = 0; x < n->n; x++) {
		const struct gen_entry *en = &c->ents[n->first + x];
		if (en->key_type == GEN_KEY_STR && !utf8_valid(c->bytes + en->key_off, en->key_len))
			codes |= 1u << JSON_E_UTF8;
		codes |= error_codes(c, en->value, level + 1, inf);
	}
	return codes;
}

/*
 * The depth error an error step e may take away (1 << JSON_E_DEPTH, else
 * 0): one that restores a depth, or replaces a container under a depth
 * below 512.  A bug that shows through whichever error it meets (a throw
 * where false is due) then meets INF from a depth error too.
 */
static unsigned depth_code(const struct gen_case *c, const struct shrink_edit *e)
{
	const struct gen_node *n = e->a < c->nnodes ? &c->nodes[e->a] : NULL;

	if (e->hi != 0 || (c->depth != 512 && n != NULL && (is_container(n->kind) || is_holder(n))))
		return 1u << JSON_E_DEPTH;
	return 0;
}

/* A depth below 512, on the compared call or an earlier one (a depth error). */
static int small_depth(const struct gen_case *c)
{
	if (c->depth != 512)
		return 1;
	for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++)
		if (c->pre_depth[k] != 512)
			return 1;
	return 0;
}

/* The longest padding string written as its bytes ('aaa…') rather than
 * str_repeat('x', n): where that source is no longer than the call's. */
#define SHRINK_PAD_PLAIN 16

/*
 * A byte's place in the order of characters: 'a', then '0', then every
 * other byte by value (so a filler becomes 'a', any ASCII byte is below any
 * byte >= 0x80, and a valid character's bytes order as its code point).
 */
static unsigned byte_rank(unsigned char b)
{
	return b == 'a' ? 0 : b == '0' ? 1 : 2u + b;
}

static void add_char(struct shrink_cands *s, uint32_t node, uint32_t entry, uint32_t at, uint32_t len,
    const unsigned char *rep, uint32_t rlen)
{
	uint64_t v = (uint64_t)rlen << 32;
	for (uint32_t x = 0; x < rlen; x++)
		v |= (uint64_t)rep[x] << (8 * x);
	add(s, SHRINK_CHAR, node, entry, at, at + len, (int64_t)v, 0);
}

/* The character at `at` (len bytes) replaced by code point m (>= 0x80, no surrogate). */
static void add_code_point(
    struct shrink_cands *s, uint32_t node, uint32_t entry, uint32_t at, uint32_t len, uint32_t m)
{
	unsigned char rep[4];

	if (m >= 0x80 && (m < 0xd800 || m > 0xdfff))
		add_char(s, node, entry, at, len, rep, (uint32_t)gen_utf8_put(m, rep));
}

/* Value v with each set bit cleared, highest first, plus `offset`, as lower code points than cp. */
static void add_bits_cleared(struct shrink_cands *s, uint32_t node, uint32_t entry, uint32_t at, uint32_t len,
    uint32_t cp, uint32_t v, uint32_t offset)
{
	for (int bit = 20; bit >= 0; bit--) {
		uint32_t m = v & ~(UINT32_C(1) << bit);
		if (m == v)
			continue;
		m += offset;
		if (m < 0x80)
			m |= 0x80;
		/* (Powers of two are offered already.) */
		if (m < cp && (m & (m - 1)) != 0)
			add_code_point(s, node, entry, at, len, m);
	}
}

/*
 * The character cp (len bytes at `at`) lowered by its bits, for a bug of
 * some bits of the code point or of the UTF-16 units json_encode writes
 * as \uXXXX (a mask in an escape's hex digits, a table indexed by them):
 * each power of two from U+0100 below it (U+0080, U+0800 and U+10000 are
 * offered already), then cp with each set bit cleared, highest first
 * (U+0080 set again when that leaves ASCII; no surrogate); a character
 * above U+FFFF also by the bits above U+10000 and as the BMP characters
 * its two units' bits make.  Every character with the bits meets at the
 * least power of two that has them, or at the fewest bits.
 */
static void add_lower_code_points(
    struct shrink_cands *s, uint32_t node, uint32_t entry, uint32_t at, uint32_t len, uint32_t cp)
{
	for (uint32_t p = 0x100; p < cp; p <<= 1)
		if (p != 0x800 && p != 0x10000)
			add_code_point(s, node, entry, at, len, p);
	add_bits_cleared(s, node, entry, at, len, cp, cp, 0);
	if (cp >= 0x10000) {
		uint32_t off = cp - 0x10000;
		add_bits_cleared(s, node, entry, at, len, cp, off, 0x10000);
		add_bits_cleared(s, node, entry, at, len, cp, 0xd800 | off >> 10, 0);
		add_bits_cleared(s, node, entry, at, len, cp, 0xdc00 | (off & 0x3ff), 0);
	}
}

/*
 * An ASCII byte b (at `at`) lowered by its bits, as a code point is
 * (add_lower_code_points), for a bug of some bits of the byte (a mask in
 * the hex digits of its \u00XX escape, a table indexed by it): each power
 * of two below it, least first, then b with each set bit cleared, highest
 * first.  Every byte with the bits meets at the least power of two that
 * has them ("\x06", "\x0F" and "\x1E" of one escape bug at "\x01"), or at
 * the fewest bits; NUL, 'a', '0', \b and space are offered already.
 */
static void add_lower_bytes(
    struct shrink_cands *s, uint32_t node, uint32_t entry, uint32_t at, unsigned char b)
{
	unsigned char m;

	for (m = 1; m < b; m <<= 1)
		if (m != 0x08 && m != ' ') /* (offered already) */
			add_char(s, node, entry, at, 1, &m, 1);
	for (int bit = 6; bit >= 0; bit--) {
		m = (unsigned char)(b & ~(1u << bit));
		if (m != b && m != 0 && (m & (m - 1)) != 0 && m != 'a' && m != '0')
			add_char(s, node, entry, at, 1, &m, 1);
	}
}

/*
 * Each character of a string lowered to a smaller one of a small canonical
 * set, smallest first, so that the members of one class of bytes meet at its
 * least one: an ASCII byte to 'a', '0', NUL, \b (the least short escape) or
 * a space; a byte that is no UTF-8 character (a lone continuation, a lead cut
 * short, 0xF8..0xFF) to 'a', NUL, or the least byte at a UTF-8 class
 * boundary below it (0x80 0x90 0xA0 0xC0 0xC2 0xE0 0xED 0xF0 0xF4 0xF5 0xF8);
 * a valid multi-byte character to 'a', NUL, as many 'a' as its bytes, the least character of its
 * length or a shorter one (U+0080, U+0800, U+2028 for U+2029, U+10000).
 * Every candidate leaves the string shorter, or the same length and lower
 * in byte_rank's order at the first byte it changes.
 */
static void add_lower_chars(struct shrink_cands *s, uint32_t node, uint32_t entry, const char *p, uint32_t n)
{
	static const unsigned char ascii[] = { 'a', '0', 0x00, 0x08, ' ' };
	static const unsigned char high[] = { 0x80, 0x90, 0xa0, 0xc0, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xf5,
		0xf8 };
	static const unsigned char u80[] = { 0xc2, 0x80 }, u800[] = { 0xe0, 0xa0, 0x80 },
	                           u2028[] = { 0xe2, 0x80, 0xa8 }, u10000[] = { 0xf0, 0x90, 0x80, 0x80 };
	const unsigned char *u = (const unsigned char *)p;
	uint32_t cp, len, run, unit;

	/* Runs first, all of the string, then each run of one character: a
	 * block string's filler becomes 'a' in one step, not one per byte. */
	for (run = 0; run < n && u[run] == 'a'; run++)
		;
	if (run < n && n > 1) {
		add(s, SHRINK_FILL, node, entry, 0, n, 0, 0);
		add(s, SHRINK_FILL, node, entry, 0, n, 1, 0);
	}
	for (uint32_t at = 0; at < n; at += run * unit) {
		unit = (uint32_t)utf8_seq(u + at, n - at, &cp);
		unit = unit > 1 ? unit : 1;
		for (run = 1; at + (run + 1) * unit <= n && !memcmp(u + at, u + at + run * unit, unit); run++)
			;
		/* (A long string's single specials too: it has no per-character steps.) */
		if ((run >= 2 || n > SHRINK_LONG) && run * unit < n && u[at] != 'a') {
			add(s, SHRINK_FILL, node, entry, at, at + run * unit, 0, 0);
			if (unit > 1)
				add(s, SHRINK_FILL, node, entry, at, at + run * unit, 1, 0);
		}
		/* All of a run but its last character (str_repeat('/', 4097): a slash is needed). */
		if (run >= 2 && u[at] != 'a')
			add(s, SHRINK_FILL, node, entry, at, at + (run - 1) * unit, 0, 0);
	}
	/* Each special character past the 'a' after it: shortlex puts 'a' first. */
	for (uint32_t at = 0; at < n; at += unit) {
		uint32_t end;
		unit = (uint32_t)utf8_seq(u + at, n - at, &cp);
		unit = unit > 1 ? unit : 1;
		if (u[at] == 'a')
			continue;
		for (end = at + unit; end < n && u[end] == 'a'; end++)
			;
		if (end > at + unit)
			add(s, SHRINK_MOVE, node, entry, at, at + unit, end, 0);
	}
	if (n > SHRINK_LONG)
		return;
	for (uint32_t at = 0; at < n; at += len) {
		unsigned char b = u[at];
		len = (uint32_t)utf8_seq(u + at, n - at, &cp);
		if (len <= 1) {
			len = 1;
			for (size_t x = 0; x < sizeof ascii; x++)
				if (byte_rank(ascii[x]) < byte_rank(b) && (b < 0x80 || x == 0 || x == 2))
					add_char(s, node, entry, at, 1, &ascii[x], 1);
			for (size_t x = 0; x < sizeof high && high[x] < b; x++)
				add_char(s, node, entry, at, 1, &high[x], 1);
			if (b < 0x80 && b != 'a')
				add_lower_bytes(s, node, entry, at, b);
			continue;
		}
		add_char(s, node, entry, at, len, &ascii[0], 1);
		add_char(s, node, entry, at, len, &ascii[2], 1);
		/* The same length in 'a' (a bug that needs the length, not the character). */
		add_char(s, node, entry, at, len, (const unsigned char *)"aaaa", len);
		if (len > 2 || cp > 0x80)
			add_char(s, node, entry, at, len, u80, 2);
		if (len > 3 || (len == 3 && cp > 0x800))
			add_char(s, node, entry, at, len, u800, 3);
		if (cp == 0x2029)
			add_char(s, node, entry, at, len, u2028, 3);
		if (len == 4 && cp > 0x10000)
			add_char(s, node, entry, at, len, u10000, 4);
		add_lower_code_points(s, node, entry, at, len, cp);
	}
}

/* The nodes of the subtree at i (a back-reference counts one). */
static uint32_t subtree_nodes(const struct gen_case *c, uint32_t i, unsigned level)
{
	const struct gen_node *n = &c->nodes[i];
	uint32_t total = 1;

	if (level > 64 || (n->kind == GEN_REF && n->cls == 1))
		return total;
	if (is_container(n->kind) || is_holder(n))
		for (uint32_t x = 0; x < n->n; x++)
			total += subtree_nodes(c, c->ents[n->first + x].value, level + 1);
	return total;
}

static int cmp_u64(uint64_t x, uint64_t y)
{
	return x < y ? -1 : x > y;
}

/* Two strings in the order of characters: shorter first, then byte_rank's order. */
static int cmp_bytes(const char *p, uint32_t n, const char *q, uint32_t m)
{
	if (n != m)
		return n < m ? -1 : 1;
	for (uint32_t x = 0; x < n; x++)
		if (p[x] != q[x])
			return byte_rank((unsigned char)p[x]) < byte_rank((unsigned char)q[x]) ? -1 : 1;
	return 0;
}

/*
 * Two entries of one container in the normal form's order: the value's
 * rank, kind, size (nodes, then its length or entries), its scalar, then
 * the key.  Entries are swapped (SHRINK_SWAP) only when the second is
 * strictly below the first, so members whose parts came in another order
 * meet too.
 */
static int cmp_entries(const struct gen_case *c, const struct gen_entry *x, const struct gen_entry *y)
{
	const struct gen_node *a = &c->nodes[x->value], *b = &c->nodes[y->value];
	int r;

	if ((r = cmp_u64(value_rank(a), value_rank(b))) != 0 || (r = cmp_u64(a->kind, b->kind)) != 0 ||
	    (r = cmp_u64(subtree_nodes(c, x->value, 0), subtree_nodes(c, y->value, 0))) != 0)
		return r;
	if (a->kind == GEN_STRING &&
	    (r = cmp_bytes(c->bytes + a->first, a->n, c->bytes + b->first, b->n)) != 0)
		return r;
	if ((r = cmp_u64(a->n, b->n)) != 0 || (r = cmp_u64(a->cls, b->cls)) != 0)
		return r;
	if (a->kind == GEN_INT || a->kind == GEN_FLOAT || a->kind == GEN_BUILTIN) {
		uint64_t u, v;
		memcpy(&u, &a->v, sizeof u);
		memcpy(&v, &b->v, sizeof v);
		if ((r = cmp_u64(u, v)) != 0)
			return r;
	}
	if ((r = cmp_u64(x->key_type, y->key_type)) != 0)
		return r;
	if (x->key_type == GEN_KEY_STR)
		return cmp_bytes(c->bytes + x->key_off, x->key_len, c->bytes + y->key_off, y->key_len);
	return cmp_u64((uint64_t)x->key_int, (uint64_t)y->key_int);
}

/*
 * Two declared classes in the normal form's order: the lower type first
 * (plain < dynamic < JsonSerializable ...), then fewer properties, fewer
 * non-public, fewer typed, shorter names, the names by byte_rank's order
 * (so 'a' first, then "\x80" ...), then the index.  The reducer's
 * canonical classes (gen.h: GenPubA ...) are the least of their shapes.
 */
static int class_cmp(unsigned i, unsigned j)
{
	const struct gen_class *x = gen_class_at(i), *y = gen_class_at(j);
	uint64_t key[2][4] = { { 0 } };
	int r;

	for (int s = 0; s < 2; s++) {
		const struct gen_class *k = s ? y : x;
		key[s][0] = k->nprops;
		for (unsigned p = 0; p < k->nprops; p++) {
			key[s][1] += k->props[p].visibility != GEN_PUBLIC;
			key[s][2] += k->props[p].typed;
			key[s][3] += k->props[p].len;
		}
	}
	if ((r = cmp_u64(x->type, y->type)) != 0)
		return r;
	for (int f = 0; f < 4; f++)
		if ((r = cmp_u64(key[0][f], key[1][f])) != 0)
			return r;
	for (unsigned p = 0; p < x->nprops; p++)
		if ((r = cmp_bytes(x->props[p].name, x->props[p].len, y->props[p].name, y->props[p].len)) !=
		    0)
			return r;
	return cmp_u64(i, j);
}

/*
 * Object n's set properties placed in class to (the first free property of
 * the same visibility each): the packed map (3 bits a property), -1 when
 * one has no place.
 */
static int64_t class_map(const struct gen_case *c, const struct gen_node *n, unsigned to)
{
	const struct gen_class *from = gen_class_at(n->cls), *k = gen_class_at(to);
	unsigned used = 0;
	uint64_t map = 0;

	for (uint32_t x = 0; x < n->n; x++) {
		const struct gen_entry *en = &c->ents[n->first + x];
		unsigned p, q;
		if (en->key_type != GEN_KEY_PROP)
			continue;
		p = (unsigned)en->key_int;
		for (q = 0; q < k->nprops; q++)
			if (!(used & 1u << q) && k->props[q].visibility == from->props[p].visibility)
				break;
		if (q == k->nprops)
			return -1;
		used |= 1u << q;
		map |= (uint64_t)q << (3 * p);
	}
	return (int64_t)map;
}

/*
 * The families of flags that can stand in for each other (a bug shown with
 * one of them may show with another): the HEX_ escapes; the UNESCAPED_
 * ones; what to do on an error (PARTIAL_OUTPUT_ON_ERROR, INVALID_UTF8_
 * IGNORE and SUBSTITUTE).  0: a flag of its own (FORCE_OBJECT,
 * NUMERIC_CHECK, PRETTY_PRINT, PRESERVE_ZERO_FRACTION, THROW_ON_ERROR).
 */
static int flag_family(unsigned bit)
{
	switch (bit) {
	case 0: /* JSON_HEX_TAG */
	case 1: /* JSON_HEX_AMP */
	case 2: /* JSON_HEX_APOS */
	case 3: /* JSON_HEX_QUOT */
		return 1;
	case 6:  /* JSON_UNESCAPED_SLASHES */
	case 8:  /* JSON_UNESCAPED_UNICODE */
	case 11: /* JSON_UNESCAPED_LINE_TERMINATORS */
		return 2;
	case 9:  /* JSON_PARTIAL_OUTPUT_ON_ERROR */
	case 20: /* JSON_INVALID_UTF8_IGNORE */
	case 21: /* JSON_INVALID_UTF8_SUBSTITUTE */
		return 3;
	default:
		return 0;
	}
}

/* Each flag of flags replaced by the lower ones of its family not set: on
 * the compared call (call 0) or on earlier call call - 1. */
static void add_lower_flags(struct shrink_cands *s, int64_t flags, uint32_t call)
{
	for (unsigned bit = 1; bit < 23; bit++) {
		if (!(flags & ((int64_t)1 << bit)))
			continue;
		for (unsigned to = 0; to < bit; to++)
			if (!(flags & ((int64_t)1 << to)) && flag_family(to) != 0 &&
			    flag_family(to) == flag_family(bit))
				add(s, SHRINK_FLAG_LOWER, 0, call, bit, to, 0, 0);
	}
}

#define SHRINK_CLASS_TRIES 12

/* Does object n hold a dynamic property (a key that is no declared property)? */
static int has_dynamic(const struct gen_case *c, const struct gen_node *n)
{
	for (uint32_t x = 0; x < n->n; x++)
		if (c->ents[n->first + x].key_type != GEN_KEY_PROP)
			return 1;
	return 0;
}

/*
 * May an object of class `from` become one of class type `to`?  The same
 * type; a plain class for a dynamic one, or for one whose jsonSerialize()
 * returns $this, when no dynamic property is set (json_encode sees the
 * same declared properties); a jsonSerialize() that throws for one whose
 * local's destructor throws (an exception either way); one that returns
 * its first property for one that returns what it makes of it (a nested
 * call's text or list, after writing into it): a bug of how json_encode
 * calls jsonSerialize() meets at one class.  Each lower in class_cmp's
 * order (type first).
 */
static int class_type_fits(const struct gen_case *c, const struct gen_node *n, unsigned to)
{
	unsigned from = gen_class_at(n->cls)->type;

	if (to == from)
		return 1;
	if (to == GEN_CLASS_PLAIN && (from == GEN_CLASS_DYNAMIC || from == GEN_CLASS_JSONSER_THIS))
		return !has_dynamic(c, n);
	if (to == GEN_CLASS_JSONSER && (from == GEN_CLASS_JSONSER_NESTED || from == GEN_CLASS_JSONSER_MUTATE))
		return 1;
	return to == GEN_CLASS_JSONSER_THROW && from == GEN_CLASS_JSONSER_DTOR;
}

/* Object n: the classes below its own it fits (its type, or one standing for it), lowest first (at most 12). */
static void add_lower_classes(struct shrink_cands *s, const struct gen_case *c, uint32_t node)
{
	const struct gen_node *n = &c->nodes[node];
	unsigned last = GEN_NCLASSES_ALL;

	for (int tries = 0; tries < SHRINK_CLASS_TRIES; tries++) {
		unsigned pick = GEN_NCLASSES_ALL;
		int64_t map = -1;
		for (unsigned i = 0; i < GEN_NCLASSES_ALL; i++) {
			int64_t m;
			if (class_cmp(i, n->cls) >= 0 ||
			    (pick != GEN_NCLASSES_ALL && class_cmp(i, pick) >= 0) ||
			    (last != GEN_NCLASSES_ALL && class_cmp(i, last) <= 0))
				continue;
			if (!class_type_fits(c, n, gen_class_at(i)->type) || (m = class_map(c, n, i)) < 0)
				continue;
			pick = i, map = m;
		}
		if (pick == GEN_NCLASSES_ALL)
			return;
		add(s, SHRINK_CLASS, node, 0, pick, 0, map, 0);
		last = pick;
	}
}

/*
 * Object n, holding set properties: each canonical class it may become
 * (gen.h), with none of them set — fewer nodes, whichever class: a bug
 * shown by a failing value in a property (new GenPubA(['a' => INF])) meets
 * the same bug shown by a failing name (new GenPubX80()).
 */
static void add_canonical_bare(struct shrink_cands *s, const struct gen_case *c, uint32_t node)
{
	const struct gen_node *n = &c->nodes[node];

	if (n->n == 0)
		return;
	for (unsigned i = GEN_NCLASSES; i < GEN_NCLASSES_ALL; i++)
		if (class_type_fits(c, n, gen_class_at(i)->type))
			add(s, SHRINK_CLASS, node, 0, i, 1, 0, 0);
}

size_t shrink_remainders(const struct gen_case *c, struct shrink_edit *out, size_t max)
{
	struct shrink_cands s = { out, 0, max };

	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		if (i != c->root && n->kind != GEN_NULL)
			add(&s, SHRINK_SET, i, 0, SHRINK_B_NULL, 0, 0, 0);
		if (n->kind == GEN_OBJECT)
			for (unsigned k = GEN_NCLASSES; k < GEN_NCLASSES_ALL; k++)
				if (class_cmp(k, n->cls) < 0 && class_type_fits(c, n, gen_class_at(k)->type))
					add(&s, SHRINK_CLASS, i, 0, k, 1, 0, 0);
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
		if (i == c->root || !(fails_alone(c, n) || (nested && error_codes(c, i, 0, 1) != 0)))
			continue;
		add(&s, SHRINK_ERROR, i, 0, 0, 0, 0, 0);
		if (value_rank(n) == SHRINK_B_COUNT + 3)
			add(&s, SHRINK_ERROR, i, 0, 1, 0, 0, 0);
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
			add(&s, SHRINK_ERROR, i, 0, 0, 0, 1, 0);
	}
	/* Each earlier call dropped: a mismatch the compared call shows after a
	 * call that left its error code (a flag that throws where false is due,
	 * and leaves json_last_error() as it was) is of another kind than the
	 * same call alone, which shows the bug by itself. */
	for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++)
		add(&s, SHRINK_PRE_DROP, SHRINK_NONE, SHRINK_NONE, k, 0, 0, 0);
	return s.n;
}

/*
 * Int v's lower values by size (|v|, then the positive first), as edits op
 * of (a, b): -1, |v|, then for each set bit, highest first, the largest int
 * below v's bits above it (the bit cleared, every lower bit set): a bug of
 * every int from T up meets at T.  Nothing for 0, 1 and -1.
 */
static void add_lower_ints(struct shrink_cands *s, enum shrink_op op, uint32_t a, uint32_t b, int64_t v)
{
	uint64_t mag;

	if (v == 0 || v == 1 || v == -1)
		return;
	mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	add(s, op, a, b, 0, 0, -1, 0);
	if (v < 0 && mag <= (uint64_t)INT64_MAX)
		add(s, op, a, b, 0, 0, (int64_t)mag, 0);
	for (int bit = 63; bit >= 0; bit--) {
		uint64_t low = ((uint64_t)1 << bit) - 1, m = (mag & ~low & ~((uint64_t)1 << bit)) | low;
		if (!(mag & (uint64_t)1 << bit) || m <= 1 || m == mag || m > (uint64_t)INT64_MAX)
			continue;
		add(s, op, a, b, 0, 0, v < 0 ? -(int64_t)m : (int64_t)m, 0);
	}
}

/* Is the n bytes p a key PHP stores as an int ("1", "-5"; not "01", "+1", "-0", " 1")?  Its value in *v. */
static int decimal_key(const char *p, uint32_t n, int64_t *v)
{
	uint32_t at;
	uint64_t mag = 0;

	if (n == 0 || n > 20)
		return 0;
	at = p[0] == '-' ? 1 : 0;
	if (at == n || (p[at] == '0' && n > at + 1) || (at == 1 && p[1] == '0'))
		return 0;
	for (uint32_t x = at; x < n; x++) {
		if (p[x] < '0' || p[x] > '9' || mag > (UINT64_MAX - 9) / 10)
			return 0;
		mag = mag * 10 + (uint64_t)(p[x] - '0');
	}
	if (at == 0 ? mag > (uint64_t)INT64_MAX : mag > (uint64_t)INT64_MAX + 1)
		return 0;
	*v = at == 0 ? (int64_t)mag : (int64_t)(0 - mag);
	return 1;
}

/* Does map n hold the int key v (or a string key PHP makes v) besides at entry x0? */
static int map_has_int_key(const struct gen_case *c, const struct gen_node *n, uint32_t x0, int64_t v)
{
	for (uint32_t x = 0; x < n->n; x++) {
		const struct gen_entry *en = &c->ents[n->first + x];
		int64_t w;
		if (x == x0)
			continue;
		if ((en->key_type == GEN_KEY_INT && en->key_int == v) ||
		    (en->key_type == GEN_KEY_STR && decimal_key(c->bytes + en->key_off, en->key_len, &w) &&
		        w == v))
			return 1;
	}
	return 0;
}

/* Do entries x and y of a map or stdClass literal name the same key (5 and "5" do)? */
static int same_key(const struct gen_case *c, const struct gen_entry *x, const struct gen_entry *y)
{
	int64_t vx = x->key_int, vy = y->key_int;
	int ix = x->key_type == GEN_KEY_INT ||
	    (x->key_type == GEN_KEY_STR && decimal_key(c->bytes + x->key_off, x->key_len, &vx));
	int iy = y->key_type == GEN_KEY_INT ||
	    (y->key_type == GEN_KEY_STR && decimal_key(c->bytes + y->key_off, y->key_len, &vy));

	if (ix || iy)
		return ix && iy && vx == vy;
	return x->key_type == GEN_KEY_STR && y->key_type == GEN_KEY_STR && x->key_len == y->key_len &&
	    memcmp(c->bytes + x->key_off, c->bytes + y->key_off, x->key_len) == 0;
}

/*
 * Is the n bytes p a numeric string as PHP's is_numeric_string() reads it
 * (whitespace around it, a sign, digits with a '.' and an exponent; no hex,
 * nothing else)?  1: an int (*v), 2: a float (*d, an int too big for one
 * too), 0: not numeric.
 */
static int numeric_string(const char *p, uint32_t n, int64_t *v, double *d)
{
	char buf[128], *end;
	uint32_t at = 0, e, digits = 0;
	int is_int = 1;

	while (at < n && strchr(" \t\n\r\v\f", p[at]) != NULL && p[at] != '\0')
		at++;
	for (e = n; e > at && strchr(" \t\n\r\v\f", p[e - 1]) != NULL && p[e - 1] != '\0'; e--)
		;
	if (e - at == 0 || e - at >= sizeof buf)
		return 0;
	for (uint32_t x = at; x < e; x++) {
		char ch = p[x];
		if (ch >= '0' && ch <= '9')
			digits++;
		else if ((ch == '+' || ch == '-') && (x == at || p[x - 1] == 'e' || p[x - 1] == 'E'))
			;
		else if (ch == '.' || ch == 'e' || ch == 'E')
			is_int = 0;
		else
			return 0;
	}
	if (digits == 0)
		return 0;
	memcpy(buf, p + at, e - at);
	buf[e - at] = '\0';
	if (is_int) {
		errno = 0;
		long long x = strtoll(buf, &end, 10);
		if (*end == '\0' && errno == 0) {
			*v = x;
			return 1;
		}
	}
	*d = strtod(buf, &end);
	return *end == '\0' ? 2 : 0;
}

/* A group of steps: adds its candidates for plan c, whose nodes order[0..tail) lists breadth first. */
typedef void (*shrink_step)(
    struct shrink_cands *, const struct gen_case *, const uint32_t *order, uint32_t tail);

/* Each value replaced by a basic one below it (the value beside the key that matters: null). */
static void norm_basic_values(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		uint32_t rank = value_rank(&c->nodes[order[q]]);
		for (uint32_t b = 0; b < SHRINK_B_COUNT && b < rank; b++)
			add(s, SHRINK_SET, order[q], 0, b, 0, 0, 0);
	}
}

/* A value json_encode fails on by itself, and any container (holding
 * one, or too deep), object, enum case or resource, made INF, the
 * least of the values it fails on, else "\x80", the least it fails on
 * inside an array (INF only sets the error and writes 0: the element
 * loop goes on).  The members of a bug of error precedence ("which
 * error wins", a throw where false is due, a guard left set by a
 * failure) then meet at one case whichever error they met.  Kept only
 * when the mismatch holds, so a bug of one error alone (invalid UTF-8
 * under INVALID_UTF8_IGNORE) keeps its own. */
static void norm_errors(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		/* (Both below "the rest" of value_rank's order: only ever down.)
		 * Only where an error can be: a case with none pays nothing. */
		int rest = value_rank(n) == SHRINK_B_COUNT + 3, alone = fails_alone(c, n);
		if (!alone && !(rest && (error_codes(c, order[q], 0, 0) != 0 || (q == 0 && small_depth(c)))))
			continue;
		add(s, SHRINK_ERROR, order[q], 0, 0, 0, 0, 0);
		if (rest)
			add(s, SHRINK_ERROR, order[q], 0, 1, 0, 0, 0);
	}
}

/* A key json_encode fails on (invalid UTF-8) made 'a', its value the
 * error's least value: a key's error meets a value's. */
static void norm_key_errors(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind != GEN_MAP && n->kind != GEN_STDCLASS)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			const struct gen_entry *en = &c->ents[n->first + x];
			if (en->key_type != GEN_KEY_STR || utf8_valid(c->bytes + en->key_off, en->key_len))
				continue;
			add(s, SHRINK_KEY_ERROR, order[q], n->first + x, 0, 0, 0, 0);
			add(s, SHRINK_KEY_ERROR, order[q], n->first + x, 1, 0, 0, 0);
		}
	}
}

/* A depth error made the same "\x80" in one step, with that call's depth
 * made 512 ([[]] at depth 1 → ["\x80"]): the depth falling to 512 is
 * what makes it smaller, whatever the node was ([] ranks below any
 * string, so no step of the value alone leads there). */
static void norm_depth_errors(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		if (c->depth != 512)
			add(s, SHRINK_ERROR, order[q], 0, 1, 1, 0, 0);
		for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++)
			if (c->pre_depth[k] != 512)
				add(s, SHRINK_ERROR, order[q], 0, 1, 2 + k, 0, 0);
	}
}

/* Characters of strings and string keys lowered. */
static void norm_lower_chars(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind == GEN_STRING && n->n > 0 && !n->pad)
			add_lower_chars(s, order[q], SHRINK_NONE, c->bytes + n->first, n->n);
		/* A short padding string (str_repeat('x', n), longer in source than
		 * its n bytes) as a plain one of 'a': the string it is, written as
		 * any other, so it meets the same bug found in a plain string. */
		if (n->kind == GEN_STRING && n->pad && n->n <= SHRINK_PAD_PLAIN)
			add(s, SHRINK_FILL, order[q], SHRINK_NONE, 0, n->n, 1, 0);
		if (n->kind != GEN_MAP && n->kind != GEN_STDCLASS && n->kind != GEN_OBJECT)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			const struct gen_entry *en = &c->ents[n->first + x];
			if (en->key_type == GEN_KEY_STR && en->key_len > 0)
				add_lower_chars(
				    s, order[q], n->first + x, c->bytes + en->key_off, en->key_len);
		}
	}
}

/* Less nesting: an element of a list's array moved out to follow that
 * array ([[INF]] becomes [[], INF]). */
static void norm_hoists(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind != GEN_LIST)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			const struct gen_node *in = &c->nodes[c->ents[n->first + x].value];
			if (in->kind == GEN_LIST || in->kind == GEN_MAP || in->kind == GEN_STDCLASS)
				for (uint32_t z = 0; z < in->n; z++)
					add(s, SHRINK_HOIST, order[q], n->first + x, z, 0, 0, 0);
		}
	}
}

/* Entries in order: each pair of neighbours the wrong way round swapped. */
static void norm_swaps(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		/* (A declared-class object's properties come out in declaration
		 * order whatever order it was given them in.) */
		if (!is_container(n->kind) || n->kind == GEN_OBJECT)
			continue;
		for (uint32_t x = 0; x + 1 < n->n; x++)
			if (cmp_entries(c, &c->ents[n->first + x + 1], &c->ents[n->first + x]) < 0)
				add(s, SHRINK_SWAP, order[q], 0, x, 0, 0, 0);
	}
}

/* Declared-class objects: a lower class of the same kind. */
static void norm_lower_classes(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++)
		if (c->nodes[order[q]].kind == GEN_OBJECT) {
			add_lower_classes(s, c, order[q]);
			add_canonical_bare(s, c, order[q]);
		}
}

/* A declared-class object (plain, dynamic, or returning $this) made the
 * stdClass json_encode shows of it: its public properties, set or null. */
static void norm_plain_objects(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		unsigned type;
		if (n->kind != GEN_OBJECT)
			continue;
		type = gen_class_at(n->cls)->type;
		if (type == GEN_CLASS_PLAIN || type == GEN_CLASS_DYNAMIC || type == GEN_CLASS_JSONSER_THIS) {
			const struct gen_class *cl = gen_class_at(n->cls);
			int hidden = 0;
			add(s, SHRINK_KIND, order[q], 0, GEN_STDCLASS, 1, 0, 0);
			/* A class with protected or private properties: also the
			 * stdClass of all of them, their names mangled (a bug in how
			 * json_encode skips them then meets at (object)["\0" => null]
			 * whatever class it was found with). */
			for (unsigned p = 0; p < cl->nprops; p++)
				hidden |= cl->props[p].visibility != GEN_PUBLIC;
			if (hidden)
				add(s, SHRINK_KIND, order[q], 0, GEN_STDCLASS, 3, 0, 0);
		}
	}
}

/* Each flag replaced by the lower ones of its family not set, on the
 * compared call and on each earlier one. */
static void norm_lower_flags(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	(void)order;
	(void)tail;
	add_lower_flags(s, c->flags, 0);
	for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++)
		add_lower_flags(s, c->pre_flags[k], 1 + k);
}

/* (Floats: shrink_float.c.) */

/* Under JSON_NUMERIC_CHECK, a numeric string made the number json_encode
 * writes for it (other ints and floats rank below other strings): '.3'
 * meets 0.3, then the floats' steps.  A string PHP reads as INF or NAN is
 * written as a string: left alone. */
static void norm_numeric_strings(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail && (c->flags & FLAG_NUMERIC_CHECK); q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		int64_t v;
		double d;
		int r;
		if (n->kind != GEN_STRING || n->pad ||
		    (r = numeric_string(c->bytes + n->first, n->n, &v, &d)) == 0)
			continue;
		if (r == 1)
			add(s, SHRINK_NUMBER, order[q], 0, 0, 0, v, 0);
		else if (isfinite(d))
			add(s, SHRINK_NUMBER, order[q], 0, 1, 0, 0, d);
	}
}

/* Enum cases: an earlier case of the same enum; a backed one its value. */
static void norm_enums(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind != GEN_ENUM)
			continue;
		for (uint32_t x = 0; x < n->n; x++)
			add(s, SHRINK_INT, order[q], 0, 0, 0, x, 0);
		if (n->cls <= 1)
			add(s, SHRINK_UNBOX, order[q], 0, SHRINK_NONE, 0, 0, 0);
	}
}

/* Ints by size. */
static void norm_ints(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind == GEN_INT)
			add_lower_ints(s, SHRINK_INT, order[q], 0, n->v.i);
	}
}

/* Map keys: a decimal string key made the int key PHP makes of it (one
 * bug's members then meet whether their key was written '1' or 1), an
 * int key lowered like an int, 1 first (a key bug of every key of a map
 * that is no list meets at [1 => …]); never onto a key the map holds. */
static void norm_map_keys(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind != GEN_MAP)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			const struct gen_entry *en = &c->ents[n->first + x];
			int64_t v;
			if (en->key_type == GEN_KEY_STR &&
			    decimal_key(c->bytes + en->key_off, en->key_len, &v) &&
			    !map_has_int_key(c, n, x, v))
				add(s, SHRINK_KEY_INT, order[q], n->first + x, 0, 0, v, 0);
			else if (en->key_type == GEN_KEY_STR) {
				/* Any other string key: the least int key the map does not
				 * hold (an int key is the simpler: ['' => null, 'a' => null]
				 * and ['' => null, 0 => null] meet at the latter). */
				for (v = 0; map_has_int_key(c, n, x, v); v++)
					;
				add(s, SHRINK_KEY_INT, order[q], n->first + x, 0, 0, v, 0);
			}
			if (en->key_type != GEN_KEY_INT || en->key_int == 0)
				continue;
			if (en->key_int != 1 && !map_has_int_key(c, n, x, 1))
				add(s, SHRINK_KEY_INT, order[q], n->first + x, 0, 0, 1, 0);
			add_lower_ints(s, SHRINK_KEY_INT, order[q], n->first + x, en->key_int);
		}
		/* One entry alone under key 1, the least key of a map that is no
		 * list ([0 => null, '' => null] and ['1' => null] meet at [1 => null]);
		 * then the map made a list with JSON_FORCE_OBJECT, which encodes it
		 * as an object too ([1 => null] and [null] with the flag meet at the
		 * latter: a list is the simpler kind). */
		for (uint32_t x = 0; x < n->n && n->n > 1; x++)
			add(s, SHRINK_KEEP_ONE, order[q], n->first + x, 0, 0, 1, 0);
		if (!(c->flags & FLAG_FORCE_OBJECT) && n->n > 0)
			add(s, SHRINK_KIND, order[q], 0, GEN_LIST, 2, 0, 0);
	}
}

/* A stdClass made a map with JSON_FORCE_OBJECT, which encodes it as an
 * object too: a bug of every object's entries ((object)[0 => null],
 * ArrayObject's storage, a declared class made stdClass) meets the
 * arrays' members at [null] with the flag (arrays are the simpler kind).
 * A bug of the property table's path alone keeps its stdClass.  An
 * ArrayObject likewise made its storage array under the flag. */
static void norm_forced_objects(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail && !(c->flags & FLAG_FORCE_OBJECT); q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind == GEN_STDCLASS && n->n > 0)
			add(s, SHRINK_KIND, order[q], 0, GEN_MAP, 2, 0, 0);
		/* An ArrayObject: its storage array, which json_encode shows as
		 * the same object under the flag (int keys kept, as the storage
		 * has them: its stdClass would make them strings). */
		if (n->kind == GEN_BUILTIN && n->cls == 0 && n->n == 1) {
			uint8_t sk = c->nodes[c->ents[n->first].value].kind;
			if (sk == GEN_LIST || sk == GEN_MAP)
				add(s, SHRINK_UNBOX, order[q], 0, SHRINK_NONE, 2, 0, 0);
		}
	}
}

/* The normal form's steps, in the order they are tried (shrink.h), after the cutting ones. */
static const shrink_step norm_steps[] = { norm_basic_values, norm_errors, norm_key_errors, norm_depth_errors,
	norm_lower_chars, norm_hoists, norm_swaps, norm_lower_classes, norm_plain_objects, norm_lower_flags,
	shrink_float_steps, norm_numeric_strings, norm_enums, norm_ints, norm_map_keys, norm_forced_objects };

/* The candidates; the normal form's too when normal. */
/* The root replaced by one of its children. */
static void cut_root_children(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	(void)order;
	(void)tail;
	const struct gen_node *r = &c->nodes[c->root];

	if (is_container(r->kind) || is_holder(r))
		for (uint32_t x = 0; x < r->n; x++)
			add(s, SHRINK_REPLACE, c->root, c->ents[r->first + x].value, 0, 0, 0, 0);
}

/* Entries dropped: all, then halves ... one at a time. */
static void cut_entries(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (!is_container(n->kind) || n->n == 0)
			continue;
		for (uint32_t size = n->n; size >= 1; size = size == 1 ? 0 : size / 2)
			for (uint32_t at = 0; at < n->n; at += size)
				add(s, SHRINK_DROP, order[q], 0, at, at + size < n->n ? at + size : n->n, 0,
				    0);
	}
}

/* A key written twice in a literal (['k' => 1, 0 => 2, 'k' => 3]): the
 * value PHP keeps (the later) in the place it keeps (the earlier's),
 * the later entry dropped; the same value, one node fewer. */
static void cut_dedups(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind != GEN_MAP && n->kind != GEN_STDCLASS)
			continue;
		for (uint32_t x = 0; x < n->n; x++)
			for (uint32_t z = x + 1; z < n->n; z++)
				if (same_key(c, &c->ents[n->first + x], &c->ents[n->first + z])) {
					add(s, SHRINK_DEDUP, order[q], n->first + x, z, 0, 0, 0);
					break;
				}
	}
}

/* A container replaced by one of its children. */
static void cut_children(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 1; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (is_container(n->kind) || is_holder(n))
			for (uint32_t x = 0; x < n->n; x++)
				add(s, SHRINK_REPLACE, order[q], c->ents[n->first + x].value, 0, 0, 0, 0);
	}
}

/* A container replaced by one of its keys (a key may be what matters). */
static void cut_key_values(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind != GEN_MAP && n->kind != GEN_STDCLASS && n->kind != GEN_OBJECT)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			const struct gen_entry *en = &c->ents[n->first + x];
			if ((en->key_type == GEN_KEY_STR && en->key_len > 0) || en->key_type == GEN_KEY_PROP)
				add(s, SHRINK_KEY_VALUE, order[q], n->first + x, 0, 0, 0, 0);
		}
	}
}

/* Strings and string keys shortened. */
static void cut_strings(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind == GEN_STRING && n->n > 0)
			add_chunks(s, order[q], SHRINK_NONE, c->bytes + n->first, n->n);
		if (n->kind != GEN_MAP && n->kind != GEN_STDCLASS && n->kind != GEN_OBJECT)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			const struct gen_entry *en = &c->ents[n->first + x];
			if (en->key_type == GEN_KEY_STR && en->key_len > 0)
				add_chunks(s, order[q], n->first + x, c->bytes + en->key_off, en->key_len);
		}
	}
}

/* Numbers toward 0 and 1; keys toward 0; other scalars to null; kinds simpler. */
static void cut_simpler(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		switch (n->kind) {
		case GEN_INT:
			if (n->v.i != 0)
				add(s, SHRINK_INT, order[q], 0, 0, 0, 0, 0);
			if (n->v.i != 0 && n->v.i != 1)
				add(s, SHRINK_INT, order[q], 0, 0, 0, 1, 0);
			break;
		case GEN_BUILTIN:
			/* SplFixedArray(0), DateInterval('P0D'), DateTimeImmutable('@0'). */
			if (n->cls != 0 && n->cls != 4 && n->v.i != 0)
				add(s, SHRINK_INT, order[q], 0, 0, 0, 0, 0);
			/* An ArrayObject: the stdClass of its storage, which json_encode shows. */
			if (n->cls == 0 && n->n == 1) {
				uint8_t sk = c->nodes[c->ents[n->first].value].kind;
				if (sk == GEN_LIST || sk == GEN_MAP || sk == GEN_STDCLASS)
					add(s, SHRINK_UNBOX, order[q], 0, SHRINK_NONE, 0, 0, 0);
			}
			if (n->cls != 0) {
				/* One of its properties (each distinct value once), then all of them. */
				struct bprop p[BPROP_MAX];
				unsigned np = builtin_props(n, p);
				for (unsigned x = 0; x < np; x++) {
					unsigned y = 0;
					while (y < x && !bprop_same(&p[y], &p[x]))
						y++;
					if (y == x)
						add(s, SHRINK_UNBOX, order[q], 0, x, 0, 0, 0);
				}
				add(s, SHRINK_UNBOX, order[q], 0, SHRINK_NONE, 0, 0, 0);
			}
			break;
		case GEN_FLOAT: {
			int rank = shrink_float_rank(n->v.d);
			if (rank > 0)
				add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, 0.0);
			if (rank > 1)
				add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, 1.0);
			if (rank == 3)
				add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, -n->v.d);
			break;
		}
		case GEN_TRUE:
		case GEN_FALSE:
		case GEN_ENUM:
		case GEN_RESOURCE:
			add(s, SHRINK_TO_NULL, order[q], 0, 0, 0, 0, 0);
			break;
		case GEN_OBJECT: {
			const struct gen_class *cl = gen_class_at(n->cls);
			add(s, SHRINK_KIND, order[q], 0, GEN_STDCLASS, 0, 0, 0);
			/* A nested call's object: the list its jsonSerialize() returns. */
			if (cl->type == GEN_CLASS_JSONSER_NESTED && cl->variant % GEN_NESTED_VARIANTS == 2)
				add(s, SHRINK_UNBOX, order[q], 0, SHRINK_NONE, 0, 0, 0);
			break;
		}
		case GEN_STDCLASS:
			add(s, SHRINK_KIND, order[q], 0, GEN_MAP, 0, 0, 0);
			break;
		case GEN_MAP:
			if (n->n > 0) /* an empty one is [] either way */
				add(s, SHRINK_KIND, order[q], 0, GEN_LIST, 0, 0, 0);
			for (uint32_t x = 0; x < n->n; x++) {
				const struct gen_entry *en = &c->ents[n->first + x];
				/* An int key other than 0, or a string key: 0 (a string key only when empty, after shortening). */
				if ((en->key_type == GEN_KEY_INT && en->key_int != 0) ||
				    (en->key_type == GEN_KEY_STR && en->key_len == 0))
					add(s, SHRINK_KEY_INT, order[q], n->first + x, 0, 0, 0, 0);
			}
			break;
		default:
			break;
		}
	}
}

/* Each flag dropped. */
static void cut_flags(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	(void)order;
	(void)tail;
	for (unsigned bit = 0; bit < 23; bit++)
		if (c->flags & ((int64_t)1 << bit))
			add(s, SHRINK_FLAG, 0, 0, bit, 0, 0, 0);
}

/* The default depth first; else one less: members of one bug found at
 * depths 2, 3 … (a depth error beside it) meet at the least depth that
 * still shows it, with the nesting ddmin can then drop.  (512 ranks
 * below any other depth, a lower depth below a higher: it ends.) */
static void cut_depth(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	(void)order;
	(void)tail;
	if (c->depth != 512)
		add(s, SHRINK_DEPTH, 0, 0, 0, 0, 512, 0);
	if (c->depth > 1 && c->depth < 512)
		add(s, SHRINK_DEPTH, 0, 0, 0, 0, c->depth - 1, 0);
}

/* A sequence: an earlier call dropped (the case stays one call when
 * the bug needs none), else made plainer. */
static void cut_sequence(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	(void)order;
	(void)tail;
	for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++) {
		add(s, SHRINK_PRE_DROP, SHRINK_NONE, SHRINK_NONE, k, 0, 0, 0);
		/* The last earlier call compared instead (a mismatch of its own,
		 * which a JSON_THROW_ON_ERROR call after it leaves in place). */
		if (k + 1 == c->npre)
			add(s, SHRINK_PRE_DROP, SHRINK_NONE, SHRINK_NONE, k, 1, 0, 0);
		for (unsigned bit = 0; bit < 23; bit++)
			if (c->pre_flags[k] & ((int64_t)1 << bit))
				add(s, SHRINK_PRE_FLAG, SHRINK_NONE, SHRINK_NONE, k, bit, 0, 0);
		if (c->pre_depth[k] != 512)
			add(s, SHRINK_PRE_DEPTH, SHRINK_NONE, SHRINK_NONE, k, 0, 512, 0);
		if (c->pre_depth[k] > 1 && c->pre_depth[k] < 512)
			add(s, SHRINK_PRE_DEPTH, SHRINK_NONE, SHRINK_NONE, k, 0, c->pre_depth[k] - 1, 0);
	}
}

/* Both at once: a container replaced by a child and the depth one less
 * (a bug at the depth limit: [[]] at depth 2 and [] at depth 1 meet; a
 * later error after a depth error: [[[X]], INF] at depth 3 and [X, INF]
 * at depth 1). */
static void cut_children_depth(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail && c->depth > 1 && c->depth < 512; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (is_container(n->kind) || is_holder(n))
			for (uint32_t x = 0; x < n->n; x++)
				add(s, SHRINK_REPLACE, order[q], c->ents[n->first + x].value, 0, 0,
				    c->depth - 1, 0);
	}
}

/* The cutting steps, in the order they are tried (shrink.h): the biggest cuts first. */
static const shrink_step cut_steps[] = { cut_root_children, cut_entries, cut_dedups, cut_children,
	cut_key_values, cut_strings, cut_simpler, cut_flags, cut_depth, cut_sequence, cut_children_depth };

static size_t candidates(const struct gen_case *c, struct shrink_edit *out, size_t max, int normal)
{
	struct shrink_cands s = { out, 0, max };
	uint32_t order[GEN_MAX_NODES], head = 0, tail = 0;

	/* Breadth first: the biggest parts of the tree come first. */
	order[tail++] = c->root;
	while (head < tail) {
		const struct gen_node *n = &c->nodes[order[head++]];
		if (!is_container(n->kind) && !is_holder(n))
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
		    ? error_codes(best, edits[i].a, 0, 1) | depth_code(best, &edits[i])
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
