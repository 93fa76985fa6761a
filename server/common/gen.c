/*
 * The plan maker (see gen.h): a case's flags, depth and value tree drawn
 * from its own stream -- scalars, lists, maps, stdClass objects, instances
 * of gen_class.c's classes, enums, references and values that contain
 * themselves, built-in objects, padded lists, sequences of calls.  Strings'
 * bytes come from gen_string.c; what a PHP cannot compile is asked of
 * gen_php.c.  Pure C: no PHP headers, no libc randomness, no floating point
 * in any decision.
 */
#include "flags.h"
#include "gen.h"
#include "gen_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static uint64_t gen_flag_allowed; /* the flags a case's draw may set (gen_init) */
static pthread_once_t gen_once = PTHREAD_ONCE_INIT;

static void gen_init(void)
{
	gen_string_init();
	for (int f = 0; f < 23; f++)
		if (flags_name(1L << f) != NULL && f != GEN_THROW_BIT)
			gen_flag_allowed |= 1ull << f;
}

/* ---- building a plan ---- */

/* Room for another node and entry (and some bytes) in this case. */
static int gen_room(const struct gen_case *c, uint32_t nodes, uint32_t bytes)
{
	return c->nnodes + nodes < GEN_MAX_NODES && c->nents + nodes < GEN_MAX_ENTRIES &&
	    c->nbytes + bytes < GEN_MAX_BYTES;
}

static uint32_t gen_node(struct gen_case *c, uint8_t kind)
{
	uint32_t i = c->nnodes++;
	struct gen_node *n = &c->nodes[i];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	c->kinds |= 1u << kind;
	return i;
}

static uint32_t gen_string(struct gen_case *c)
{
	uint32_t len, off = gen_string_bytes(c, 0, &len), i = gen_node(c, GEN_STRING);
	c->nodes[i].first = off;
	c->nodes[i].n = len;
	return i;
}

static int64_t gen_int_value(struct gen_rng *r)
{
	switch (gen_below(r, 12)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return -1;
	case 3:
		return INT64_MAX;
	case 4:
		return INT64_MIN;
	case 5:
		return (int64_t)1 << 53;
	case 6:
		return ((int64_t)1 << 53) + 1;
	case 7:
		return -((int64_t)1 << 31);
	case 8:
		return (int64_t)gen_next(r);
	case 9:
		return (int64_t)(int32_t)(uint32_t)gen_next(r);
	default:
		return (int64_t)gen_below(r, 1000);
	}
}

static double gen_float_value(struct gen_case *c)
{
	/* clang-format off */
	static const double pool[] = {
		0.0, 1.0, 0.1, 1.5, -2.5, 3.0, 100.0, 1e15, 1e16, 1e22, 1e308, 1.7976931348623157e308,
		5e-324, 2.2250738585072014e-308, 1e-7, 123456789.12345678, 0.30000000000000004,
		9007199254740993.0, -1e-300, 0.5, 1e100, 2.5e-5,
	};
	/* clang-format on */
	struct gen_rng *r = &c->rng;
	uint64_t bits;
	double d;
	switch (gen_below(r, 10)) {
	case 0:
		c->features |= 1u << GEN_F_NEG_ZERO;
		return -0.0;
	case 1:
		if (!gen_one_in(r, 3))
			return pool[gen_below(r, GEN_NELEMS(pool))];
		c->features |= 1u << GEN_F_NAN_INF;
		switch (gen_below(r, 3)) {
		case 0:
			return NAN;
		case 1:
			return INFINITY;
		default:
			return -INFINITY;
		}
	case 2:
	case 3: {
		/* Any mantissa and sign, an everyday magnitude (2^-40 .. 2^40): all
		 * 17 digits to print.  The extremes come from the pool. */
		uint64_t e = 1023 - 40 + gen_below(r, 81);
		bits = (gen_next(r) & 0x800fffffffffffffull) | e << 52;
		memcpy(&d, &bits, sizeof(d));
		return d;
	}
	case 4:
		return (double)(int32_t)gen_below(r, 2000) / 8.0 - 100.0; /* exact binary fractions */
	case 5:
		return (double)(int64_t)gen_below(r, 100000); /* integral: .0 or not */
	default:
		return pool[gen_below(r, GEN_NELEMS(pool))];
	}
}

static uint32_t gen_value(struct gen_case *c, unsigned level, uint32_t *nesting);

/* Reserve n entries of a container node. */
static uint32_t gen_container(struct gen_case *c, uint8_t kind, uint32_t n)
{
	uint32_t i = gen_node(c, kind);
	c->nodes[i].first = c->nents;
	c->nodes[i].n = n;
	c->nents += n;
	memset(&c->ents[c->nodes[i].first], 0, n * sizeof(struct gen_entry));
	return i;
}

/* How many elements a container gets: small, shrinking with the level. */
static uint32_t gen_size(struct gen_case *c, unsigned level)
{
	struct gen_rng *r = &c->rng;
	uint32_t n = gen_one_in(r, 12) ? 6 + gen_below(r, 7) : gen_below(r, level <= 1 ? 7 : 5);
	while (n > 0 && !gen_room(c, 4 * n + 8, 64 * n + 512))
		n /= 2;
	return n;
}

/* v in decimal, as "%lld" prints it (without snprintf's cost per key); its length. */
static uint32_t gen_decimal(char out[32], int64_t v)
{
	char tmp[24];
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	uint32_t n = 0, len = 0;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u > 0);
	if (v < 0)
		out[len++] = '-';
	while (n > 0)
		out[len++] = tmp[--n];
	out[len] = '\0';
	return len;
}

/* A key for a map or a stdClass property. */
static void gen_key(struct gen_case *c, struct gen_entry *e, int object)
{
	struct gen_rng *r = &c->rng;
	unsigned k = gen_below(r, 100);
	char num[32];
	if (k < 35) {
		static const char *const idents[] = { "id", "name", "a", "b", "c", "key", "value", "x", "_",
			"type", "items", "total", "resourceType", "entry", "k1", "k2" };
		const char *s = idents[gen_below(r, GEN_NELEMS(idents))];
		e->key_type = GEN_KEY_STR;
		e->key_off = c->nbytes;
		e->key_len = (uint32_t)strlen(s);
		gen_bytes(c, s, e->key_len);
	} else if (k < 47) {
		int64_t v = gen_one_in(r, 3) ? gen_int_value(r) : (int64_t)gen_below(r, 10);
		c->features |= 1u << GEN_F_INT_KEY;
		if (object) {
			/* A property name is a string even when it spells a number. */
			e->key_type = GEN_KEY_STR;
			e->key_off = c->nbytes;
			e->key_len = gen_decimal(num, v);
			gen_bytes(c, num, e->key_len);
		} else {
			e->key_type = GEN_KEY_INT;
			e->key_int = v;
		}
	} else if (k < 57) {
		unsigned w = gen_below(r, 12);
		c->features |= 1u << GEN_F_NUMERIC_KEY;
		e->key_type = GEN_KEY_STR;
		e->key_off = c->nbytes;
		e->key_len = gen_numeric_key(c, w);
	} else if (k < 61) {
		c->features |= 1u << GEN_F_EMPTY_KEY;
		e->key_type = GEN_KEY_STR;
		e->key_off = c->nbytes;
		e->key_len = 0;
	} else if (k < 63 && object) {
		/* "\0..." names a mangled (private) property: the encoder skips it. */
		c->features |= 1u << GEN_F_NUL_PROP;
		e->key_type = GEN_KEY_STR;
		e->key_off = c->nbytes;
		gen_byte(c, 0);
		gen_bytes(c, "hidden", 6);
		e->key_len = c->nbytes - e->key_off;
	} else {
		e->key_type = GEN_KEY_STR;
		e->key_off = gen_string_bytes(c, 1, &e->key_len);
	}
}

/* ---- references, recursion, built-in classes, buffer growth (version 2) ---- */

/* The containers being filled, outermost first: what a back-reference may name. */
static void gen_path_push(struct gen_case *c, uint32_t i)
{
	if (c->npath < GEN_NELEMS(c->path))
		c->path[c->npath] = i;
	c->npath++;
}

static void gen_path_pop(struct gen_case *c, uint32_t i)
{
	(void)i;
	c->npath--;
}

/*
 * An element of a list, map or stdClass: mostly a value, now and then a
 * reference to one (&$h) or a reference to a container it sits in (the
 * value contains itself: JSON_ERROR_RECURSION).  Declared classes' properties
 * never get one (their constructor copies values, dropping the reference).
 */
static uint32_t gen_child(struct gen_case *c, unsigned level, uint32_t *nesting)
{
	struct gen_rng *r = &c->rng;
	unsigned k = gen_below(r, 160); /* 1/160 a back-reference, 2/160 a reference */
	uint32_t i, in = c->npath < GEN_NELEMS(c->path) ? c->npath : GEN_NELEMS(c->path);
	if (k >= 3 || !gen_room(c, 24, 1024))
		return gen_value(c, level, nesting);
	c->features |= 1u << GEN_F_REFERENCE;
	c->nrefs++;
	if (k == 0 && in > 0) {
		i = gen_node(c, GEN_REF);
		c->nodes[i].cls = 1;
		c->nodes[i].v.i = c->path[gen_below(r, in)];
		c->features |= 1u << GEN_F_RECURSION;
		*nesting = 0;
		return i;
	}
	i = gen_container(c, GEN_REF, 1);
	c->ents[c->nodes[i].first].value = gen_value(c, level, nesting);
	return i;
}

/* A list or a map of children, itself no back-reference's target (see gen_builtin). */
static uint32_t gen_array_node(struct gen_case *c, unsigned level, uint32_t *nesting)
{
	struct gen_rng *r = &c->rng;
	uint32_t n = gen_size(c, level), child, deepest = 0, i;
	int map = gen_one_in(r, 2);
	i = gen_container(c, map ? GEN_MAP : GEN_LIST, n);
	for (uint32_t e = 0; e < n; e++) {
		struct gen_entry *en = &c->ents[c->nodes[i].first + e];
		if (map)
			gen_key(c, en, 0);
		en->value = gen_child(c, level + 1, &child);
		if (child > deepest)
			deepest = child;
	}
	*nesting = deepest + 1;
	return i;
}

/*
 * Objects whose properties come from a handler: ArrayObject (get_properties_for,
 * encoded as its storage) and SplFixedArray (its own get_properties).
 */
static uint32_t gen_builtin(struct gen_case *c, unsigned level, uint32_t *nesting)
{
	struct gen_rng *r = &c->rng;
	uint32_t i, child;
	unsigned k = gen_below(r, 8);
	if (k >= 3) {
		/* 1 SplFixedArray(n) (JsonSerializable since 8.1), 2 DateInterval('PnD')
		 * (its own get_properties), 3 DateTimeImmutable('@t') (a fresh table
		 * per call), 4 WeakMap (no table at all: NULL for JSON). */
		static const uint8_t which[] = { 1, 2, 3, 4, 4 };
		if (which[k - 3] == 4 && !gen_php_has(c->php, GEN_PHP_WEAKMAP)) {
			*nesting = 0; /* before 8.0: a string in the WeakMap's place */
			return gen_string(c);
		}
		i = gen_node(c, GEN_BUILTIN);
		c->nodes[i].cls = which[k - 3];
		c->nodes[i].v.i = c->nodes[i].cls == 3 ? (int64_t)gen_below(r, 2000000000) : gen_below(r, 4);
		*nesting = 1;
		return i;
	}
	i = gen_container(c, GEN_BUILTIN, 1);
	/* The storage is entry 0's array; the object stands in its place.  It is
	 * never a back-reference's target: ArrayObject may copy it. */
	c->ents[c->nodes[i].first].value = gen_array_node(c, level, &child);
	*nesting = child;
	return i;
}

/*
 * A list whose first element is a run of 'x' long enough that the encoder's
 * buffer (231 bytes, then 4071) fills up inside the values after it: each
 * append site's growth arm.  The values are dense strings or any values.
 */
static uint32_t gen_grow(struct gen_case *c, uint32_t *nesting)
{
	struct gen_rng *r = &c->rng;
	uint32_t n = 2 + gen_below(r, 4), i, child, deepest = 0, len;
	uint32_t pad = gen_one_in(r, 4) ? 3840 + gen_below(r, 232) : gen_below(r, 232);
	c->features |= 1u << GEN_F_GROW;
	i = gen_container(c, GEN_LIST, n);
	uint32_t s = gen_node(c, GEN_STRING);
	c->nodes[s].pad = 1;
	c->nodes[s].first = c->nbytes;
	if (pad > GEN_MAX_BYTES / 2 - c->nbytes)
		pad = c->nbytes < GEN_MAX_BYTES / 2 ? GEN_MAX_BYTES / 2 - c->nbytes : 0;
	memset(c->bytes + c->nbytes, 'x', pad);
	c->nbytes += pad;
	c->nodes[s].n = c->nbytes - c->nodes[s].first;
	c->ents[c->nodes[i].first].value = s;
	gen_path_push(c, i);
	for (uint32_t e = 1; e < n; e++) {
		uint32_t v;
		child = 0;
		if (gen_one_in(r, 2) && gen_room(c, 4, 1024)) {
			unsigned np = 6 + gen_below(r, 18);
			v = gen_node(c, GEN_STRING);
			c->nodes[v].first = c->nbytes;
			c->shapes |= 1u << GEN_S_PIECES;
			for (unsigned k = 0; k < np; k++)
				gen_piece(c, gen_pick_piece(r));
			len = c->nbytes - c->nodes[v].first;
			c->nodes[v].n = len;
		} else {
			v = gen_child(c, 2, &child);
		}
		c->ents[c->nodes[i].first + e].value = v;
		if (child > deepest)
			deepest = child;
	}
	gen_path_pop(c, i);
	*nesting = deepest + 1;
	return i;
}

/*
 * [&$h] where $h is a list holding, among a few values, an object whose
 * first property is bound to $h itself and whose jsonSerialize() removes
 * an element of it and appends 16, so its storage grows and moves: the
 * list the encoder is walking is written to in the middle of the walk (bug
 * #77843's shape; 8.2 holds a reference to the array while it walks it,
 * so the write separates it).  Its PHP:
 * (function () { $v = [&$h1]; $h1 = [1, new GenC44([], $h1)]; return $v; })()
 */
static uint32_t gen_mutating(struct gen_case *c, uint32_t *nesting)
{
	struct gen_rng *r = &c->rng;
	const unsigned ci = GEN_NCLASSES - 1;
	const struct gen_class *k = gen_class_at(ci);
	uint32_t n = 1 + gen_below(r, 4), at = gen_below(r, n), child, deepest = 0;
	uint32_t outer = gen_container(c, GEN_LIST, 1), ref = gen_container(c, GEN_REF, 1), inner;
	c->features |= 1u << GEN_F_MUTATE | 1u << GEN_F_REFERENCE;
	c->classes |= 1ull << ci;
	c->nrefs += 2;
	c->ents[c->nodes[outer].first].value = ref;
	inner = gen_container(c, GEN_LIST, n);
	c->ents[c->nodes[ref].first].value = inner;
	for (uint32_t e = 0; e < n; e++) {
		uint32_t v;
		if (e == at) {
			uint32_t set[GEN_MAX_PROPS], nset = 1;
			set[0] = 0;
			for (uint32_t p = 1; p < k->nprops; p++)
				if (gen_one_in(r, 2))
					set[nset++] = p;
			v = gen_container(c, GEN_OBJECT, nset);
			c->nodes[v].cls = (uint16_t)ci;
			for (uint32_t x = 0; x < nset; x++) {
				struct gen_entry *en = &c->ents[c->nodes[v].first + x];
				en->key_type = GEN_KEY_PROP;
				en->key_int = set[x];
				if (x == 0) {
					uint32_t back = gen_node(c, GEN_REF);
					c->nodes[back].cls = 2;
					c->nodes[back].v.i = ref;
					en->value = back;
				} else {
					en->value = gen_value(c, 4, &child);
				}
			}
		} else {
			v = gen_value(c, 3, &child);
			if (child > deepest)
				deepest = child;
		}
		c->ents[c->nodes[inner].first + e].value = v;
	}
	*nesting = deepest + 2;
	return outer;
}

static uint32_t gen_object(struct gen_case *c, unsigned level, uint32_t *nesting)
{
	struct gen_rng *r = &c->rng;
	unsigned ci = gen_below(r, GEN_NCLASSES);
	const struct gen_class *k = gen_class_at(ci);
	uint32_t set[GEN_MAX_PROPS], nset = 0, ndyn = 0, child, deepest = 0;

	c->classes |= 1ull << ci;
	if (k->type == GEN_CLASS_JSONSER)
		c->features |= 1u << GEN_F_JSONSER;
	else if (k->type == GEN_CLASS_JSONSER_THIS)
		c->features |= 1u << GEN_F_JSONSER_THIS;
	else if (k->type == GEN_CLASS_JSONSER_THROW)
		c->features |= 1u << GEN_F_JSONSER_THROW;
	else if (k->type == GEN_CLASS_JSONSER_DTOR)
		c->features |= 1u << GEN_F_JSONSER_DTOR;
	else if (k->type == GEN_CLASS_JSONSER_NESTED)
		c->features |= 1u << GEN_F_NESTED;
	else if (k->type == GEN_CLASS_JSONSER_MUTATE)
		c->features |= 1u << GEN_F_JSONSER;
	int returns_prop = k->type == GEN_CLASS_JSONSER || k->type == GEN_CLASS_JSONSER_DTOR ||
	    k->type == GEN_CLASS_JSONSER_NESTED || k->type == GEN_CLASS_JSONSER_MUTATE;
	for (uint32_t p = 0; p < k->nprops; p++) {
		/* A JsonSerializable's value is always set; others now and then left out. */
		if ((returns_prop && p == 0) || !gen_one_in(r, 5))
			set[nset++] = p;
		else if (k->props[p].typed)
			c->features |= 1u << GEN_F_UNINIT;
	}
	if (k->type == GEN_CLASS_DYNAMIC && gen_one_in(r, 2))
		ndyn = 1 + gen_below(r, 3);
	if (!gen_room(c, 4 * (nset + ndyn) + 8, 64 * (nset + ndyn) + 512))
		nset = ndyn = 0;
	uint32_t i = gen_container(c, GEN_OBJECT, nset + ndyn);
	c->nodes[i].cls = (uint16_t)ci;
	gen_path_push(c, i);
	for (uint32_t e = 0; e < nset; e++) {
		struct gen_entry *en = &c->ents[c->nodes[i].first + e];
		en->key_type = GEN_KEY_PROP;
		en->key_int = set[e];
		if (k->props[set[e]].visibility != GEN_PUBLIC)
			c->features |= 1u << GEN_F_PRIVATE;
		en->value = gen_value(c, level + 1, &child);
		if (child > deepest)
			deepest = child;
	}
	for (uint32_t e = nset; e < nset + ndyn; e++) {
		struct gen_entry *en = &c->ents[c->nodes[i].first + e];
		gen_key(c, en, 1);
		/* Names the constructor can't assign ("", "\0...") or that are
		 * declared become a plain "dyn" name. */
		const char *name = c->bytes + en->key_off;
		int bad = en->key_len == 0 || name[0] == '\0';
		for (unsigned p = 0; p < k->nprops && !bad; p++)
			bad = k->props[p].len == en->key_len && !memcmp(k->props[p].name, name, en->key_len);
		if (bad) {
			en->key_off = c->nbytes;
			en->key_len = 3;
			gen_bytes(c, "dyn", 3);
		}
		c->features |= 1u << GEN_F_DYNAMIC;
		en->value = gen_value(c, level + 1, &child);
		if (child > deepest)
			deepest = child;
	}
	gen_path_pop(c, i);
	/* A JsonSerializable's value is encoded in its place, not inside an object. */
	*nesting = returns_prop ? deepest : deepest + 1;
	return i;
}

static uint32_t gen_scalar(struct gen_case *c)
{
	struct gen_rng *r = &c->rng;
	uint32_t i;
	switch (gen_below(r, 40)) {
	case 0:
	case 1:
	case 2:
		return gen_node(c, GEN_NULL);
	case 3:
	case 4:
		return gen_node(c, GEN_FALSE);
	case 5:
	case 6:
		return gen_node(c, GEN_TRUE);
	case 7:
	case 8:
	case 9:
	case 10:
	case 11:
	case 12:
		i = gen_node(c, GEN_INT);
		c->nodes[i].v.i = gen_int_value(r);
		return i;
	case 13:
	case 14:
	case 15:
	case 16:
	case 17:
	case 18:
		i = gen_node(c, GEN_FLOAT);
		c->nodes[i].v.d = gen_float_value(c);
		return i;
	case 19: {
		/* A pure enum is an error (JSON_ERROR_NON_BACKED_ENUM): the rarest. */
		static const uint8_t which[] = { 0, 0, 1, 2 };
		if (!gen_php_has(c->php, GEN_PHP_ENUMS))
			return gen_string(c); /* before 8.1: a string in the enum's place */
		i = gen_node(c, GEN_ENUM);
		c->nodes[i].cls = which[gen_below(r, 4)];
		c->nodes[i].n = gen_below(r, gen_enum_cases(c->nodes[i].cls));
		c->enums |= 1u << c->nodes[i].cls;
		return i;
	}
	case 20:
	case 21:
		if (gen_one_in(r, 12))
			return gen_node(c, GEN_RESOURCE);
		return gen_node(c, GEN_NULL);
	default:
		return gen_string(c);
	}
}

/*
 * One value at nesting level `level` (1 = the top).  Containers get rarer
 * the deeper they are and stop at level 5; *nesting is the value's depth as
 * json_encode counts it (arrays and objects add one).
 */
static uint32_t gen_value(struct gen_case *c, unsigned level, uint32_t *nesting)
{
	static const unsigned container_pct[] = { 0, 85, 55, 35, 18, 0 };
	struct gen_rng *r = &c->rng;
	uint32_t i, n, child, deepest = 0;
	unsigned pct = level < GEN_NELEMS(container_pct) ? container_pct[level] : 0;

	*nesting = 0;
	if (!gen_room(c, 16, 1024))
		return gen_node(c, GEN_NULL);
	if (level == 1 && gen_one_in(r, 10))
		return gen_grow(c, nesting);
	if (level == 1 && gen_one_in(r, 40) && gen_room(c, 64, 4096))
		return gen_mutating(c, nesting);
	if (gen_below(r, 100) >= pct)
		return gen_scalar(c);
	switch (gen_below(r, 20)) {
	case 0:
	case 1:
	case 2:
	case 3:
	case 4:
		n = gen_size(c, level);
		i = gen_container(c, GEN_LIST, n);
		gen_path_push(c, i);
		for (uint32_t e = 0; e < n; e++) {
			c->ents[c->nodes[i].first + e].value = gen_child(c, level + 1, &child);
			if (child > deepest)
				deepest = child;
		}
		gen_path_pop(c, i);
		break;
	case 5:
	case 6:
	case 7:
	case 8:
	case 9:
	case 10:
	case 11:
	case 12:
	case 13:
	case 14: {
		int object = gen_below(r, 10) < 4;
		n = gen_size(c, level);
		i = gen_container(c, object ? GEN_STDCLASS : GEN_MAP, n);
		gen_path_push(c, i);
		for (uint32_t e = 0; e < n; e++) {
			struct gen_entry *en = &c->ents[c->nodes[i].first + e];
			gen_key(c, en, object);
			en->value = gen_child(c, level + 1, &child);
			if (child > deepest)
				deepest = child;
		}
		gen_path_pop(c, i);
		break;
	}
	default:
		if (gen_one_in(r, 8))
			return gen_builtin(c, level, nesting);
		return gen_object(c, level, nesting);
	}
	*nesting = deepest + 1;
	return i;
}

/*
 * Flag b is set when bits 2b..2b+1 of the draw are both 0 (b < 23, a named
 * flag, not JSON_THROW_ON_ERROR): the 23-step loop this replaced, done with
 * a few word operations -- the pairs that are 00, each squeezed to one bit.
 */
static uint64_t gen_flag_draw(uint64_t bits)
{
	uint64_t x = ~(bits | bits >> 1) & 0x5555555555555555ull;
	x = (x | x >> 1) & 0x3333333333333333ull;
	x = (x | x >> 2) & 0x0f0f0f0f0f0f0f0full;
	x = (x | x >> 4) & 0x00ff00ff00ff00ffull;
	x = (x | x >> 8) & 0x0000ffff0000ffffull;
	x = (x | x >> 16) & 0x00000000ffffffffull;
	return x & gen_flag_allowed;
}

/* JSON_PARTIAL_OUTPUT_ON_ERROR, JSON_INVALID_UTF8_IGNORE and _SUBSTITUTE: without them a call fails. */
#define GEN_LENIENT (GEN_BIT(9) | GEN_BIT(20) | GEN_BIT(21))

/*
 * An earlier call of a sequence: mostly the same call made to fail where
 * the compared one may not (the lenient flags dropped, a smaller depth), so
 * that what a failed call leaves -- a recursion guard still set, the error
 * code -- meets the next call; else other flags (pretty printing toggled, a
 * fresh draw).  Now and then it throws instead of returning false.
 */
static void gen_pre_call(struct gen_case *c, uint32_t k)
{
	struct gen_rng *r = &c->rng;
	int64_t f = c->flags & ~GEN_BIT(GEN_THROW_BIT), depth = 512;
	switch (gen_below(r, 4)) {
	case 0:
	case 1:
		f &= ~GEN_LENIENT;
		break;
	case 2:
		f ^= GEN_BIT(7); /* JSON_PRETTY_PRINT */
		break;
	default:
		f = (int64_t)gen_flag_draw(gen_next(r));
		break;
	}
	if (gen_one_in(r, 8))
		f |= GEN_BIT(GEN_THROW_BIT);
	if (gen_one_in(r, 4))
		depth = 1 + gen_below(r, 3);
	if (depth < c->depth || (c->flags & GEN_LENIENT & ~f))
		c->features |= 1u << GEN_F_SEQ_FAIL;
	c->pre_flags[k] = f;
	c->pre_depth[k] = depth;
}

void gen_case_make(struct gen_case *c, uint64_t seed, uint64_t index)
{
	gen_case_make_php(c, seed, index, GEN_PHP_ALL);
}

void gen_case_make_php(struct gen_case *c, uint64_t seed, uint64_t index, uint32_t php)
{
	struct gen_rng *r;
	pthread_once(&gen_once, gen_init);
	c->php = gen_php_floor(php);
	c->seed = seed;
	c->index = index;
	c->nnodes = c->nents = c->nbytes = 0;
	c->pieces = 0;
	c->shapes = c->kinds = c->features = c->enums = 0;
	c->nrefs = c->npath = c->npre = 0;
	c->classes = 0;
	gen_rng_seed(&c->rng, seed, index);
	r = &c->rng;

	/* Each of the 14 output-shaping flags with probability 1/4; throwing
	 * instead of returning false, 1/16. */
	c->flags = (int64_t)gen_flag_draw(gen_next(r));
	if (gen_one_in(r, 16)) {
		c->flags |= (int64_t)1 << GEN_THROW_BIT;
		c->features |= 1u << GEN_F_THROW_FLAG;
	}
	c->depth = 512;
	if (gen_one_in(r, 8)) {
		c->depth = 1 + gen_below(r, 4);
		c->features |= 1u << GEN_F_SMALL_DEPTH;
	}
	c->root = gen_value(c, 1, &c->nesting);
	if (c->nesting > (uint64_t)c->depth)
		c->features |= 1u << GEN_F_DEPTH_HIT;
	/* One case in eight is a sequence: one earlier call, now and then two. */
	if (gen_one_in(r, 8)) {
		c->npre = gen_one_in(r, 4) ? 2 : 1;
		c->features |= 1u << GEN_F_SEQUENCE;
		for (uint32_t k = 0; k < c->npre; k++)
			gen_pre_call(c, k);
	}
}

void gen_title(uint64_t seed, uint64_t index, char *buf, size_t size)
{
	snprintf(buf, size, "generated v%d seed %llu #%llu", GEN_VERSION, (unsigned long long)seed,
	    (unsigned long long)index);
}
