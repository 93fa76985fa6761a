/*
 * The normal form's steps on values (shrink.h, docs/triage.md "Normal
 * form"), after the deletion steps: every value lowered in the order of
 * values, errors made the least ones, nesting lessened, entries put in
 * order, declared classes lowered or made stdClass, numeric strings made
 * numbers, enum cases and ints lowered, map keys made ints.  (Characters:
 * shrink_string.c; flags and depth errors: shrink_call.c; floats:
 * shrink_float.c.)
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "shrink_norm.h"
#include "shrink_step.h"
#include "shrink_value.h"

#define SHRINK_CLASS_TRIES 12

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
			if (shrink_class_cmp(i, n->cls) >= 0 ||
			    (pick != GEN_NCLASSES_ALL && shrink_class_cmp(i, pick) >= 0) ||
			    (last != GEN_NCLASSES_ALL && shrink_class_cmp(i, last) <= 0))
				continue;
			if (!shrink_class_type_fits(c, n, gen_class_at(i)->type) ||
			    (m = class_map(c, n, i)) < 0)
				continue;
			pick = i, map = m;
		}
		if (pick == GEN_NCLASSES_ALL)
			return;
		shrink_add(s, SHRINK_CLASS, node, 0, pick, 0, map, 0);
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
		if (shrink_class_type_fits(c, n, gen_class_at(i)->type))
			shrink_add(s, SHRINK_CLASS, node, 0, i, 1, 0, 0);
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
	shrink_add(s, op, a, b, 0, 0, -1, 0);
	if (v < 0 && mag <= (uint64_t)INT64_MAX)
		shrink_add(s, op, a, b, 0, 0, (int64_t)mag, 0);
	for (int bit = 63; bit >= 0; bit--) {
		uint64_t low = ((uint64_t)1 << bit) - 1, m = (mag & ~low & ~((uint64_t)1 << bit)) | low;
		if (!(mag & (uint64_t)1 << bit) || m <= 1 || m == mag || m > (uint64_t)INT64_MAX)
			continue;
		shrink_add(s, op, a, b, 0, 0, v < 0 ? -(int64_t)m : (int64_t)m, 0);
	}
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

/* Each value replaced by a basic one below it (the value beside the key that matters: null). */
void shrink_norm_basic_values(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		uint32_t rank = shrink_value_rank(&c->nodes[order[q]]);
		for (uint32_t b = 0; b < SHRINK_B_COUNT && b < rank; b++)
			shrink_add(s, SHRINK_SET, order[q], 0, b, 0, 0, 0);
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
void shrink_norm_errors(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		/* (Both below "the rest" of shrink_value_rank's order: only ever down.)
		 * Only where an error can be: a case with none pays nothing. */
		int rest = shrink_value_rank(n) == SHRINK_B_COUNT + 3, alone = shrink_fails_alone(c, n);
		if (!alone &&
		    !(rest &&
		        (shrink_error_codes(c, order[q], 0, 0) != 0 || (q == 0 && shrink_small_depth(c)))))
			continue;
		shrink_add(s, SHRINK_ERROR, order[q], 0, 0, 0, 0, 0);
		if (rest)
			shrink_add(s, SHRINK_ERROR, order[q], 0, 1, 0, 0, 0);
	}
}

/* A key json_encode fails on (invalid UTF-8) made 'a', its value the
 * error's least value: a key's error meets a value's. */
void shrink_norm_key_errors(
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
			shrink_add(s, SHRINK_KEY_ERROR, order[q], n->first + x, 0, 0, 0, 0);
			shrink_add(s, SHRINK_KEY_ERROR, order[q], n->first + x, 1, 0, 0, 0);
		}
	}
}

/* Less nesting: an element of a list's array moved out to follow that
 * array ([[INF]] becomes [[], INF]). */
void shrink_norm_hoists(
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
					shrink_add(s, SHRINK_HOIST, order[q], n->first + x, z, 0, 0, 0);
		}
	}
}

/* Entries in order: each pair of neighbours the wrong way round swapped. */
void shrink_norm_swaps(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		/* (A declared-class object's properties come out in declaration
		 * order whatever order it was given them in.) */
		if (!shrink_is_container(n->kind) || n->kind == GEN_OBJECT)
			continue;
		for (uint32_t x = 0; x + 1 < n->n; x++)
			if (shrink_cmp_entries(c, &c->ents[n->first + x + 1], &c->ents[n->first + x]) < 0)
				shrink_add(s, SHRINK_SWAP, order[q], 0, x, 0, 0, 0);
	}
}

/* Declared-class objects: a lower class of the same kind. */
void shrink_norm_lower_classes(
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
void shrink_norm_plain_objects(
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
			shrink_add(s, SHRINK_KIND, order[q], 0, GEN_STDCLASS, 1, 0, 0);
			/* A class with protected or private properties: also the
			 * stdClass of all of them, their names mangled (a bug in how
			 * json_encode skips them then meets at (object)["\0" => null]
			 * whatever class it was found with). */
			for (unsigned p = 0; p < cl->nprops; p++)
				hidden |= cl->props[p].visibility != GEN_PUBLIC;
			if (hidden)
				shrink_add(s, SHRINK_KIND, order[q], 0, GEN_STDCLASS, 3, 0, 0);
		}
	}
}

/* Under JSON_NUMERIC_CHECK, a numeric string made the number json_encode
 * writes for it (other ints and floats rank below other strings): '.3'
 * meets 0.3, then the floats' steps.  A string PHP reads as INF or NAN is
 * written as a string: left alone. */
void shrink_norm_numeric_strings(
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
			shrink_add(s, SHRINK_NUMBER, order[q], 0, 0, 0, v, 0);
		else if (isfinite(d))
			shrink_add(s, SHRINK_NUMBER, order[q], 0, 1, 0, 0, d);
	}
}

/* Enum cases: an earlier case of the same enum; a backed one its value. */
void shrink_norm_enums(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind != GEN_ENUM)
			continue;
		for (uint32_t x = 0; x < n->n; x++)
			shrink_add(s, SHRINK_INT, order[q], 0, 0, 0, x, 0);
		if (n->cls <= 1)
			shrink_add(s, SHRINK_UNBOX, order[q], 0, SHRINK_NONE, 0, 0, 0);
	}
}

/* Ints by size. */
void shrink_norm_ints(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
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
void shrink_norm_map_keys(
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
			    shrink_decimal_key(c->bytes + en->key_off, en->key_len, &v) &&
			    !shrink_map_has_int_key(c, n, x, v))
				shrink_add(s, SHRINK_KEY_INT, order[q], n->first + x, 0, 0, v, 0);
			else if (en->key_type == GEN_KEY_STR) {
				/* Any other string key: the least int key the map does not
				 * hold (an int key is the simpler: ['' => null, 'a' => null]
				 * and ['' => null, 0 => null] meet at the latter). */
				for (v = 0; shrink_map_has_int_key(c, n, x, v); v++)
					;
				shrink_add(s, SHRINK_KEY_INT, order[q], n->first + x, 0, 0, v, 0);
			}
			if (en->key_type != GEN_KEY_INT || en->key_int == 0)
				continue;
			if (en->key_int != 1 && !shrink_map_has_int_key(c, n, x, 1))
				shrink_add(s, SHRINK_KEY_INT, order[q], n->first + x, 0, 0, 1, 0);
			add_lower_ints(s, SHRINK_KEY_INT, order[q], n->first + x, en->key_int);
		}
		/* One entry alone under key 1, the least key of a map that is no
		 * list ([0 => null, '' => null] and ['1' => null] meet at [1 => null]);
		 * then the map made a list with JSON_FORCE_OBJECT, which encodes it
		 * as an object too ([1 => null] and [null] with the flag meet at the
		 * latter: a list is the simpler kind). */
		for (uint32_t x = 0; x < n->n && n->n > 1; x++)
			shrink_add(s, SHRINK_KEEP_ONE, order[q], n->first + x, 0, 0, 1, 0);
		if (!(c->flags & FLAG_FORCE_OBJECT) && n->n > 0)
			shrink_add(s, SHRINK_KIND, order[q], 0, GEN_LIST, 2, 0, 0);
	}
}

/* A stdClass made a map with JSON_FORCE_OBJECT, which encodes it as an
 * object too: a bug of every object's entries ((object)[0 => null],
 * ArrayObject's storage, a declared class made stdClass) meets the
 * arrays' members at [null] with the flag (arrays are the simpler kind).
 * A bug of the property table's path alone keeps its stdClass.  An
 * ArrayObject likewise made its storage array under the flag. */
void shrink_norm_forced_objects(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail && !(c->flags & FLAG_FORCE_OBJECT); q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		if (n->kind == GEN_STDCLASS && n->n > 0)
			shrink_add(s, SHRINK_KIND, order[q], 0, GEN_MAP, 2, 0, 0);
		/* An ArrayObject: its storage array, which json_encode shows as
		 * the same object under the flag (int keys kept, as the storage
		 * has them: its stdClass would make them strings). */
		if (n->kind == GEN_BUILTIN && n->cls == 0 && n->n == 1) {
			uint8_t sk = c->nodes[c->ents[n->first].value].kind;
			if (sk == GEN_LIST || sk == GEN_MAP)
				shrink_add(s, SHRINK_UNBOX, order[q], 0, SHRINK_NONE, 2, 0, 0);
		}
	}
}
