/*
 * A plan's values as json_encode and the normal form see them, for the
 * shrinker's steps, its edits and its driver (shrink_value.h): which
 * values fail and with what error code, the normal form's order of values,
 * characters, entries and classes, keys as PHP reads them, and a built-in
 * object's JSON-visible properties.  Reads plans; makes no candidates.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "shrink.h"
#include "shrink_value.h"

int shrink_is_container(uint8_t kind)
{
	return kind == GEN_LIST || kind == GEN_MAP || kind == GEN_STDCLASS || kind == GEN_OBJECT;
}

/* A reference to a value, an ArrayObject: one entry, never dropped, replaced by it. */
int shrink_is_holder(const struct gen_node *n)
{
	return (n->kind == GEN_REF || n->kind == GEN_BUILTIN) && n->cls == 0;
}

/*
 * A node's place in the order of values: null < false < true < 0 < 0.0 <
 * "" < [] < other ints < other floats < other strings < everything else
 * (lists, maps, objects, enum cases ...).  SHRINK_SET only moves down.
 */
uint32_t shrink_value_rank(const struct gen_node *n)
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
int shrink_fails_alone(const struct gen_case *c, const struct gen_node *n)
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
unsigned shrink_error_codes(const struct gen_case *c, uint32_t i, unsigned level, int inf)
{
	const struct gen_node *n = &c->nodes[i];
	unsigned codes = inf || shrink_fails_alone(c, n) ? own_code(c, n) : 0;

	if (level > 64 || (n->kind == GEN_REF && n->cls != 0) ||
	    (!shrink_is_container(n->kind) && !shrink_is_holder(n)))
		return codes;
	for (uint32_t x = 0; x < n->n; x++) {
		const struct gen_entry *en = &c->ents[n->first + x];
		if (en->key_type == GEN_KEY_STR && !utf8_valid(c->bytes + en->key_off, en->key_len))
			codes |= 1u << JSON_E_UTF8;
		codes |= shrink_error_codes(c, en->value, level + 1, inf);
	}
	return codes;
}

/*
 * The depth error an error step e may take away (1 << JSON_E_DEPTH, else
 * 0): one that restores a depth, or replaces a container under a depth
 * below 512.  A bug that shows through whichever error it meets (a throw
 * where false is due) then meets INF from a depth error too.
 */
unsigned shrink_depth_code(const struct gen_case *c, const struct shrink_edit *e)
{
	const struct gen_node *n = e->a < c->nnodes ? &c->nodes[e->a] : NULL;

	if (e->hi != 0 ||
	    (c->depth != 512 && n != NULL && (shrink_is_container(n->kind) || shrink_is_holder(n))))
		return 1u << JSON_E_DEPTH;
	return 0;
}

/* A depth below 512, on the compared call or an earlier one (a depth error). */
int shrink_small_depth(const struct gen_case *c)
{
	if (c->depth != 512)
		return 1;
	for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++)
		if (c->pre_depth[k] != 512)
			return 1;
	return 0;
}

/*
 * A byte's place in the order of characters: 'a', then '0', then every
 * other byte by value (so a filler becomes 'a', any ASCII byte is below any
 * byte >= 0x80, and a valid character's bytes order as its code point).
 */
unsigned shrink_byte_rank(unsigned char b)
{
	return b == 'a' ? 0 : b == '0' ? 1 : 2u + b;
}

/* The nodes of the subtree at i (a back-reference counts one). */
static uint32_t subtree_nodes(const struct gen_case *c, uint32_t i, unsigned level)
{
	const struct gen_node *n = &c->nodes[i];
	uint32_t total = 1;

	if (level > 64 || (n->kind == GEN_REF && n->cls == 1))
		return total;
	if (shrink_is_container(n->kind) || shrink_is_holder(n))
		for (uint32_t x = 0; x < n->n; x++)
			total += subtree_nodes(c, c->ents[n->first + x].value, level + 1);
	return total;
}

static int cmp_u64(uint64_t x, uint64_t y)
{
	return x < y ? -1 : x > y;
}

/* Two strings in the order of characters: shorter first, then shrink_byte_rank's order. */
static int cmp_bytes(const char *p, uint32_t n, const char *q, uint32_t m)
{
	if (n != m)
		return n < m ? -1 : 1;
	for (uint32_t x = 0; x < n; x++)
		if (p[x] != q[x])
			return shrink_byte_rank((unsigned char)p[x]) < shrink_byte_rank((unsigned char)q[x])
			    ? -1
			    : 1;
	return 0;
}

/*
 * Two entries of one container in the normal form's order: the value's
 * rank, kind, size (nodes, then its length or entries), its scalar, then
 * the key.  Entries are swapped (SHRINK_SWAP) only when the second is
 * strictly below the first, so members whose parts came in another order
 * meet too.
 */
int shrink_cmp_entries(const struct gen_case *c, const struct gen_entry *x, const struct gen_entry *y)
{
	const struct gen_node *a = &c->nodes[x->value], *b = &c->nodes[y->value];
	int r;

	if ((r = cmp_u64(shrink_value_rank(a), shrink_value_rank(b))) != 0 ||
	    (r = cmp_u64(a->kind, b->kind)) != 0 ||
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
 * non-public, fewer typed, shorter names, the names by shrink_byte_rank's order
 * (so 'a' first, then "\x80" ...), then the index.  The reducer's
 * canonical classes (gen.h: GenPubA ...) are the least of their shapes.
 */
int shrink_class_cmp(unsigned i, unsigned j)
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
 * calls jsonSerialize() meets at one class.  Each lower in shrink_class_cmp's
 * order (type first).
 */
int shrink_class_type_fits(const struct gen_case *c, const struct gen_node *n, unsigned to)
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

unsigned shrink_builtin_props(const struct gen_node *n, struct shrink_bprop *p)
{
	static const char *const di[] = { "y", "m", "d", "h", "i", "s", "f", "invert", "days",
		"from_string" };
	unsigned np = 0;

	memset(p, 0, SHRINK_BPROP_MAX * sizeof *p);
	switch (n->cls) {
	case 1: /* SplFixedArray(n): [null, ...] */
		for (; np < SHRINK_BPROP_MAX && (int64_t)np < n->v.i; np++)
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

int shrink_bprop_same(const struct shrink_bprop *x, const struct shrink_bprop *y)
{
	return x->kind == y->kind && x->i == y->i && x->d == y->d && strcmp(x->s, y->s) == 0;
}

/* Is the n bytes p a key PHP stores as an int ("1", "-5"; not "01", "+1", "-0", " 1")?  Its value in *v. */
int shrink_decimal_key(const char *p, uint32_t n, int64_t *v)
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
int shrink_map_has_int_key(const struct gen_case *c, const struct gen_node *n, uint32_t x0, int64_t v)
{
	for (uint32_t x = 0; x < n->n; x++) {
		const struct gen_entry *en = &c->ents[n->first + x];
		int64_t w;
		if (x == x0)
			continue;
		if ((en->key_type == GEN_KEY_INT && en->key_int == v) ||
		    (en->key_type == GEN_KEY_STR &&
		        shrink_decimal_key(c->bytes + en->key_off, en->key_len, &w) && w == v))
			return 1;
	}
	return 0;
}

/* Do entries x and y of a map or stdClass literal name the same key (5 and "5" do)? */
int shrink_same_key(const struct gen_case *c, const struct gen_entry *x, const struct gen_entry *y)
{
	int64_t vx = x->key_int, vy = y->key_int;
	int ix = x->key_type == GEN_KEY_INT ||
	    (x->key_type == GEN_KEY_STR && shrink_decimal_key(c->bytes + x->key_off, x->key_len, &vx));
	int iy = y->key_type == GEN_KEY_INT ||
	    (y->key_type == GEN_KEY_STR && shrink_decimal_key(c->bytes + y->key_off, y->key_len, &vy));

	if (ix || iy)
		return ix && iy && vx == vy;
	return x->key_type == GEN_KEY_STR && y->key_type == GEN_KEY_STR && x->key_len == y->key_len &&
	    memcmp(c->bytes + x->key_off, c->bytes + y->key_off, x->key_len) == 0;
}
