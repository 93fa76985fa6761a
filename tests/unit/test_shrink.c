/* Unit tests for server/daemon/model/shrink.c and its step files (reducing a generated case), printing TAP. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "shrink.h"

static int tap_n, tap_failed;

static void ok(int cond, const char *what)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_n, what);
}

static struct gen_case a, b, best;

static char *render(const struct gen_case *c)
{
	struct gen_buf v = { 0 };
	gen_render_value(c, &v);
	return v.data;
}

/* Oracles standing in for a planted bug: does the candidate still show it? */
struct oracle {
	int (*bug)(const struct gen_case *);
	int64_t calls, budget;
	/* A stand-in that tells error codes apart: the candidate's code when the
	 * plan shows the bug (0: it does not), the code the reduction keeps. */
	int (*code)(const struct gen_case *);
	int target;
};

static int has_byte(const struct gen_case *c, unsigned char byte)
{
	for (uint32_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].kind == GEN_STRING &&
		    memchr(c->bytes + c->nodes[i].first, byte, c->nodes[i].n))
			return 1;
	for (uint32_t i = 0; i < c->nents; i++)
		if (c->ents[i].key_type == GEN_KEY_STR &&
		    memchr(c->bytes + c->ents[i].key_off, byte, c->ents[i].key_len))
			return 1;
	return 0;
}

static int bug_del(const struct gen_case *c)
{
	return has_byte(c, 0x7f);
}

static int bug_inf(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].kind == GEN_FLOAT && isinf(c->nodes[i].v.d))
			return 1;
	return 0;
}

/* A whole double directly in a list, with JSON_PRESERVE_ZERO_FRACTION (1 << 10). */
static int bug_zero_fraction(const struct gen_case *c)
{
	if (!(c->flags & (1 << 10)))
		return 0;
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		if (n->kind != GEN_LIST)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			const struct gen_node *v = &c->nodes[c->ents[n->first + x].value];
			if (v->kind == GEN_FLOAT && isfinite(v->v.d) && v->v.d == floor(v->v.d))
				return 1;
		}
	}
	return 0;
}

/* The planted bug's reach: a whole double anywhere below a list (a DateInterval's f is 0.0). */
static int below_list_zero(const struct gen_case *c, uint32_t i, int in_list)
{
	const struct gen_node *n = &c->nodes[i];
	if (in_list && n->kind == GEN_FLOAT && isfinite(n->v.d) && n->v.d == floor(n->v.d))
		return 1;
	if (in_list && n->kind == GEN_BUILTIN && n->cls == 2)
		return 1;
	if (n->kind != GEN_LIST && n->kind != GEN_MAP && n->kind != GEN_STDCLASS && n->kind != GEN_OBJECT &&
	    !(n->kind == GEN_BUILTIN && n->cls == 0))
		return 0;
	for (uint32_t x = 0; x < n->n; x++)
		if (below_list_zero(c, c->ents[n->first + x].value, in_list || n->kind == GEN_LIST))
			return 1;
	return 0;
}

static int bug_zero_fraction_deep(const struct gen_case *c)
{
	return (c->flags & (1 << 10)) && below_list_zero(c, c->root, 0);
}

/* A hand-made plan: [built-in object cls (v)], with JSON_PRESERVE_ZERO_FRACTION. */
static void builtin_in_list(struct gen_case *c, uint16_t cls, int64_t v)
{
	memset(c, 0, sizeof *c);
	c->depth = 512;
	c->flags = 1 << 10;
	c->nnodes = 2;
	c->nents = 1;
	c->nodes[0].kind = GEN_LIST;
	c->nodes[0].n = 1;
	c->ents[0].value = 1;
	c->nodes[1].kind = GEN_BUILTIN;
	c->nodes[1].cls = cls;
	c->nodes[1].v.i = v;
	c->kinds = (1u << GEN_LIST) | (1u << GEN_BUILTIN);
}

/* Node `node`'s first SHRINK_UNBOX candidate with property lo (SHRINK_NONE: all) applied to c into out. */
static int apply_unbox(const struct gen_case *c, struct shrink_edit *edits, uint32_t lo, struct gen_case *out)
{
	size_t n = shrink_candidates(c, edits, 16384);
	for (size_t x = 0; x < n; x++)
		if (edits[x].op == SHRINK_UNBOX && edits[x].lo == lo)
			return shrink_apply(c, &edits[x], out);
	return -2;
}

/* As the reducer's reduce_try: the same code kept, or an error step's recode to the new value's. */
static int accept(void *arg, const struct gen_case *cand, const struct shrink_recode *recode)
{
	struct oracle *o = arg;
	int code;
	if (o->budget > 0 && o->calls >= o->budget)
		return -1;
	o->calls++;
	if (o->code == NULL)
		return o->bug(cand);
	code = o->code(cand);
	if (code != 0 && recode != NULL && code != o->target && (recode->from & 1u << o->target) &&
	    code == recode->to)
		o->target = code;
	return code != 0 && code == o->target;
}

/* The first case of seed 1 with the bug, reduced: its value source and flags. */
static void reduce_first(
    int (*bug)(const struct gen_case *), const char *want, long want_flags, const char *what)
{
	struct oracle o = { .bug = bug };
	struct shrink_stats st;
	char msg[256], *src;
	uint64_t i;

	for (i = 0; i < 100000; i++) {
		gen_case_make(&a, 1, i);
		if (bug(&a))
			break;
	}
	ok(i < 100000, "a case with the bug exists");
	ok(shrink_run(&a, &best, accept, &o, &st) == 0 && st.complete, "reduction reaches a fixpoint");
	src = render(&best);
	snprintf(msg, sizeof msg, "%s: #%llu reduced to %s flags %lld depth %lld in %lld steps, %lld tries",
	    what, (unsigned long long)i, src, (long long)best.flags, (long long)best.depth,
	    (long long)st.accepted, (long long)st.tried);
	ok(strcmp(src, want) == 0 && best.flags == want_flags && best.depth == 512, msg);
	ok(bug(&best), "the reduced case still has the bug");
	free(src);
}

/* ---- the normal form: members of one bug reduce to the same case ---- */

/* Each string value and string key of c, to f: 1 stops. */
static int any_string(
    const struct gen_case *c, int keys, int values, int (*f)(const unsigned char *, uint32_t))
{
	for (uint32_t i = 0; values && i < c->nnodes; i++)
		if (c->nodes[i].kind == GEN_STRING &&
		    f((const unsigned char *)c->bytes + c->nodes[i].first, c->nodes[i].n))
			return 1;
	for (uint32_t i = 0; keys && i < c->nents; i++)
		if (c->ents[i].key_type == GEN_KEY_STR &&
		    f((const unsigned char *)c->bytes + c->ents[i].key_off, c->ents[i].key_len))
			return 1;
	return 0;
}

/* A byte 0x80..0xBF that is no part of a valid UTF-8 character (a lone continuation). */
static int lone_continuation(const unsigned char *p, uint32_t n)
{
	for (uint32_t at = 0; at < n;) {
		size_t len = utf8_seq(p + at, n - at, NULL);
		if (len == 0 && p[at] >= 0x80 && p[at] <= 0xbf)
			return 1;
		at += len ? (uint32_t)len : 1;
	}
	return 0;
}

static int bug_lone(const struct gen_case *c)
{
	return any_string(c, 1, 1, lone_continuation);
}

/* A valid character above U+FFFF (json_encode writes it as a surrogate pair). */
static int astral(const unsigned char *p, uint32_t n)
{
	for (uint32_t at = 0; at < n;) {
		size_t len = utf8_seq(p + at, n - at, NULL);
		if (len == 4)
			return 1;
		at += len ? (uint32_t)len : 1;
	}
	return 0;
}

static int bug_astral(const struct gen_case *c)
{
	return any_string(c, 1, 1, astral);
}

/*
 * The first (or only) UTF-16 unit of each valid multi-byte character, to
 * f (json_encode's \\u escape writes it as four hex digits).
 */
static int any_utf16_unit(const unsigned char *p, uint32_t n, int (*f)(uint32_t unit))
{
	for (uint32_t at = 0; at < n;) {
		uint32_t cp;
		size_t len = utf8_seq(p + at, n - at, &cp);
		if (len >= 2 && f(cp >= 0x10000 ? 0xd800 | ((cp - 0x10000) >> 10) : cp))
			return 1;
		at += len ? (uint32_t)len : 1;
	}
	return 0;
}

/* A mask bug in the escape's first hex digit (0xe for 0xf): its bit 12 set. */
static int digit1_odd(uint32_t unit)
{
	return (unit >> 12) & 1;
}

static int mask_high(const unsigned char *p, uint32_t n)
{
	return any_utf16_unit(p, n, digit1_odd);
}

static int bug_mask_high(const struct gen_case *c)
{
	return any_string(c, 1, 1, mask_high);
}

/* ... and in the last one: an odd code point. */
static int digit4_odd(uint32_t unit)
{
	return unit & 1;
}

static int mask_low(const unsigned char *p, uint32_t n)
{
	return any_utf16_unit(p, n, digit4_odd);
}

static int bug_mask_low(const struct gen_case *c)
{
	return any_string(c, 1, 1, mask_low);
}

/* A control byte json_encode writes as \u00XX whose escape's last hex digit
 * is masked (digits[us & 0x10] for digits[us & 0xf], a real mutant of
 * json_encoder.c): every such byte but NUL shows it. */
static int escaped_control(const unsigned char *p, uint32_t n)
{
	for (uint32_t at = 0; at < n; at++)
		if (p[at] >= 0x01 && p[at] < 0x20 && !strchr("\b\t\n\f\r", p[at]))
			return 1;
	return 0;
}

static int bug_escape_digit(const struct gen_case *c)
{
	return any_string(c, 1, 1, escaped_control);
}

static int slash(const unsigned char *p, uint32_t n)
{
	return memchr(p, '/', n) != NULL;
}

/* A key with '/' in it (keys are escaped by another path). */
static int bug_key_slash(const struct gen_case *c)
{
	return any_string(c, 1, 0, slash);
}

/* JSON_HEX_AMP, _APOS or _QUOT (1 << 1, 2, 3) set: any of them shows it. */
static int bug_hex_flag(const struct gen_case *c)
{
	return (c->flags & 0xe) != 0 && c->nnodes > 0;
}

/* An int of at least 1000 anywhere. */
static int bug_big_int(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].kind == GEN_INT && c->nodes[i].v.i >= 1000)
			return 1;
	return 0;
}

/* An object of a plain declared class that declares a protected property. */
static int bug_protected(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_class *k;
		if (c->nodes[i].kind != GEN_OBJECT)
			continue;
		k = gen_class_at(c->nodes[i].cls);
		for (unsigned p = 0; k->type == GEN_CLASS_PLAIN && p < k->nprops; p++)
			if (k->props[p].visibility == GEN_PROTECTED)
				return 1;
	}
	return 0;
}

/* A plan of one string (or, key != NULL, [key => value kind]), flags 0. */
static void plan_string(struct gen_case *c, const char *s, size_t n)
{
	memset(c, 0, sizeof *c);
	c->depth = 512;
	c->nnodes = 1;
	c->nodes[0].kind = GEN_STRING;
	c->nodes[0].n = (uint32_t)n;
	memcpy(c->bytes, s, n);
	c->nbytes = (uint32_t)n;
	c->kinds = 1u << GEN_STRING;
}

static void plan_keyed(struct gen_case *c, const char *key, uint8_t kind, double d)
{
	memset(c, 0, sizeof *c);
	c->depth = 512;
	c->nnodes = 2;
	c->nents = 1;
	c->nodes[0].kind = GEN_MAP;
	c->nodes[0].n = 1;
	c->ents[0].key_type = GEN_KEY_STR;
	c->ents[0].key_len = (uint32_t)strlen(key);
	memcpy(c->bytes, key, strlen(key));
	c->nbytes = (uint32_t)strlen(key);
	c->ents[0].value = 1;
	c->nodes[1].kind = kind;
	c->nodes[1].first = c->nbytes;
	if (kind == GEN_FLOAT)
		c->nodes[1].v.d = d;
	else if (kind == GEN_INT)
		c->nodes[1].v.i = (int64_t)d;
	c->kinds = 1u << GEN_MAP | 1u << kind;
}

/* new GenC<cls>() alone. */
static void plan_object(struct gen_case *c, unsigned cls)
{
	memset(c, 0, sizeof *c);
	c->depth = 512;
	c->nnodes = 1;
	c->nodes[0].kind = GEN_OBJECT;
	c->nodes[0].cls = (uint16_t)cls;
	c->classes = 1ull << cls;
	c->kinds = 1u << GEN_OBJECT;
}

/* Object plan c's first declared property set, to node 1 (the caller fills it in). */
static void set_first_prop(struct gen_case *c)
{
	c->nodes[0].n = 1;
	c->nents = 1;
	c->ents[0].key_type = GEN_KEY_PROP;
	c->ents[0].key_int = 0;
	c->ents[0].value = 1;
	c->nnodes = 2;
}

/* A stand-in's error codes while same_normal_form_coded runs it (NULL: a plain bug). */
static int (*coded)(const struct gen_case *);

/* Plan p reduced under bug: its canonical form (value, flags, depth), malloc'd. */
static char *normal_form(int (*bug)(const struct gen_case *), const struct gen_case *p, int64_t *tries)
{
	struct oracle o = { .bug = bug, .code = coded, .target = coded != NULL ? coded(p) : 0 };
	struct shrink_stats st;

	if (shrink_run(p, &best, accept, &o, &st) != 0 || !st.complete || !bug(&best))
		return strdup("(no fixpoint)");
	if (tries != NULL)
		*tries += st.tried;
	return shrink_canonical(&best);
}

/*
 * Starting values one by one (made by make(i) into a, i < nstart), then the
 * first ngen generated cases of seed 1 with the bug: all must reach the same
 * normal form, want.
 */
static void same_normal_form(const char *what, int (*bug)(const struct gen_case *), void (*make)(unsigned),
    unsigned nstart, unsigned ngen, const char *want)
{
	char *first = NULL, msg[512];
	unsigned n = 0, same = 0;
	int64_t tries = 0;

	for (unsigned i = 0; i < nstart; i++) {
		char *f;
		make(i);
		if (!bug(&a))
			continue;
		f = normal_form(bug, &a, &tries);
		if (first == NULL)
			first = strdup(f);
		if (strcmp(f, first) == 0)
			same++;
		else
			printf("# %s: start %u reduced to %s\n", what, i, f);
		n++;
		free(f);
	}
	for (uint64_t i = 0, found = 0; i < 100000 && found < ngen; i++) {
		char *f;
		gen_case_make(&a, 1, i);
		if (!bug(&a))
			continue;
		found++;
		f = normal_form(bug, &a, &tries);
		if (first == NULL)
			first = strdup(f);
		if (strcmp(f, first) == 0)
			same++;
		else
			printf("# %s: generated #%llu reduced to %s\n", what, (unsigned long long)i, f);
		n++;
		free(f);
	}
	snprintf(msg, sizeof msg, "%s: %u of %u starts reach %s (%lld tries in all)", what, same, n,
	    first ? first : "-", (long long)tries);
	for (char *x = msg; *x; x++)
		if (*x == '\n')
			*x = ' ';
	ok(n == nstart + ngen && same == n && first != NULL && strcmp(first, want) == 0, msg);
	free(first);
}

static void make_lone(unsigned i)
{
	static const char *const s[] = { "\x88", "\x9f", "ab\xbf",
		"\xe9\x9f" /* a lead cut short, a lone byte */, "x\xc3\xa9\xb0" };
	if (i < 5)
		plan_string(&a, s[i], strlen(s[i]));
	else
		plan_keyed(&a, "\xa5k", GEN_FLOAT, 2.5);
}

static void make_astral(unsigned i)
{
	static const char *const s[] = { "\xf3\xb7\x87\x8c" /* U+F71CC */, "\xf0\xbf\x9e\x80" /* U+3F780 */,
		"\xf0\xab\xb8\xbf" /* U+2BE3F */, "a\xf4\x8f\xbf\xbfz" /* U+10FFFF */ };
	plan_string(&a, s[i], strlen(s[i]));
}

/* Characters with bit 12 of their first UTF-16 unit set, in strings and a key. */
static void make_mask_high(unsigned i)
{
	static const char *const s[] = { "\xe3\xa1\xb2" /* U+3872 */, "\xe1\xb8\xa7" /* U+1E27 */,
		"\xed\x96\x82" /* U+D582 */, "\xf0\x90\x80\x80" /* U+10000 */, "a\xe5\x9d\xa0z" /* U+5760 */,
		"\xf3\xb7\x87\x8c" /* U+F71CC */ };
	if (i < 6)
		plan_string(&a, s[i], strlen(s[i]));
	else
		plan_keyed(&a, "\xe9\xbb\xa0" /* U+9EE0 */, GEN_NULL, 0);
}

/* Odd code points, and characters above U+FFFF whose first unit is odd (U+40400: \ud8c1\udc00). */
static void make_mask_low(unsigned i)
{
	static const char *const s[] = { "\xe1\xb8\xa7" /* U+1E27 */, "\xc3\xbf" /* U+00FF */,
		"\xe4\xb8\x81" /* U+4E01 */, "\xf1\x80\x90\x80" /* U+40400 */,
		"a\xf3\xb7\x97\x8cz" /* U+F75CC: \\udb9d */ };
	if (i < 5)
		plan_string(&a, s[i], strlen(s[i]));
	else
		plan_keyed(&a, "\xe9\xbb\xa1" /* U+9EE1 */, GEN_NULL, 0);
}

/* Stand-in for e326.10.rel-ne (a non-empty string written as ""): any non-empty string. */
static int nonempty(const unsigned char *p, uint32_t n)
{
	(void)p;
	return n > 0;
}

static int bug_nonempty(const struct gen_case *c)
{
	return any_string(c, 0, 1, nonempty);
}

/* Padding strings (str_repeat('x', n)) of 1, 5 and 16 bytes, and plain ones. */
static void make_nonempty(unsigned i)
{
	static const uint32_t pad[] = { 1, 5, 16 };
	static const char *const s[] = { "q", "xyz" };
	if (i < 3) {
		char x[16];
		memset(x, 'x', sizeof x);
		plan_string(&a, x, pad[i]);
		a.nodes[0].pad = 1;
	} else {
		plan_string(&a, s[i - 3], strlen(s[i - 3]));
	}
}

/* Control bytes of both halves, in strings and a key. */
static void make_escape_digit(unsigned i)
{
	static const char *const s[] = { "\x06", "\x1e", "a\x0f", "\x1b\x1b", "\x10" };
	if (i < 5)
		plan_string(&a, s[i], strlen(s[i]));
	else
		plan_keyed(&a, "k\x17", GEN_INT, 3);
}

static void make_key_slash(unsigned i)
{
	if (i == 0)
		plan_keyed(&a, "/", GEN_FLOAT, 0.0);
	else if (i == 1)
		plan_keyed(&a, "//", GEN_NULL, 0);
	else if (i == 2)
		plan_keyed(&a, "a/b", GEN_STRING, 0);
	else
		plan_keyed(&a, "/", GEN_INT, 77);
}

static void make_hex(unsigned i)
{
	plan_string(&a, "'\"&", 3);
	a.flags = i == 0 ? 1 << 3 : i == 1 ? 1 << 2 : (1 << 3) | (1 << 0) | (1 << 6);
}

static void make_int(unsigned i)
{
	static const int64_t v[] = { 5000, 123456, 1000, INT64_MAX, 1001 };
	plan_keyed(&a, "k", GEN_INT, 0);
	a.nodes[1].v.i = v[i];
}

/* A string of at least 16 bytes ending in '"' (a bug at the encoder's 16-byte block). */
static int long_quoted(const unsigned char *p, uint32_t n)
{
	return n >= 16 && p[n - 1] == '"';
}

static int bug_block(const struct gen_case *c)
{
	return any_string(c, 0, 1, long_quoted);
}

static void make_block(unsigned i)
{
	static const char *const s[] = { "0123456789abcdefghij\"", "\"xyz \xc3\xa9 xyz/xyz<>xyz xyz\"",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"" };
	plan_string(&a, s[i], strlen(s[i]));
}

/* A string of at least 4 KiB (a bug in a second scan path for long input). */
static int at_least_4k(const unsigned char *p, uint32_t n)
{
	(void)p;
	return n >= 4096;
}

static int bug_long(const struct gen_case *c)
{
	return any_string(c, 0, 1, at_least_4k);
}

static void make_long(unsigned i)
{
	static char s[70000];
	size_t n = i == 0 ? 4100 : i == 1 ? 5000 : 65540;
	if (i == 1)
		for (size_t k = 0; k < n; k += 2)
			memcpy(s + k, "\xc3\xa9", 2);
	else
		memset(s, i == 0 ? '/' : 'a', n);
	s[7] = '\n';
	plan_string(&a, s, n);
}

/* A string longer than 4 KiB with a slash anywhere (a long-input path that forgets the slash). */
static int long_slash(const unsigned char *p, uint32_t n)
{
	return n > 4096 && memchr(p, '/', n) != NULL;
}

static int bug_long_slash(const struct gen_case *c)
{
	return any_string(c, 0, 1, long_slash);
}

static void make_long_slash(unsigned i)
{
	static char s[70000];
	size_t n = i == 0 ? 4100 : i == 1 ? 5000 : 65540;
	memset(s, i == 1 ? 'x' : 'a', sizeof s);
	s[i == 0 ? 3 : i == 1 ? 4999 : 30000] = '/';
	s[17] = '"';
	if (i == 3)
		memset(s, '/', n = 4097); /* all slashes */
	plan_string(&a, s, n);
}

/* The first byte JSON escapes at offset 15 of a block, more than 16 bytes from the block's start. */
static int edge_special(const unsigned char *p, uint32_t n)
{
	uint32_t i = 0;
	while (i < n && !(p[i] < 0x20 || p[i] == '"' || p[i] == '\\' || p[i] == '/' || p[i] >= 0x80))
		i++;
	return i < n && i % 16 == 15 && n - (i - 15) > 16;
}

static int bug_edge(const struct gen_case *c)
{
	return any_string(c, 0, 1, edge_special);
}

static void make_edge(unsigned i)
{
	static char s[400];
	static const uint32_t at[] = { 239, 47, 15 }, len[] = { 241, 51, 36 };
	static const char special[] = { '\0', '"', '\\' };
	memset(s, 'a', sizeof s);
	s[at[i]] = special[i];
	plan_string(&a, s, len[i]);
}

/* A sequence whose earlier call fails on its depth, before a last call on an array. */
static int bug_seq_depth(const struct gen_case *c)
{
	int failing = 0;
	for (uint32_t k = 0; k < c->npre; k++)
		failing |= c->pre_depth[k] < 512;
	return failing && (c->nodes[c->root].kind == GEN_LIST || c->nodes[c->root].kind == GEN_MAP);
}

/* INF and a DEL in one value, whichever comes first (an error beside an escape). */
static int bug_pair(const struct gen_case *c)
{
	return bug_inf(c) && bug_del(c);
}

/* [INF, "\x7F"] or the other way round, or inside more. */
static void make_pair(unsigned i)
{
	memset(&a, 0, sizeof a);
	a.depth = 512;
	a.nnodes = 4;
	a.nents = 3;
	a.nodes[0].kind = GEN_LIST;
	a.nodes[0].n = 3;
	for (uint32_t x = 0; x < 3; x++)
		a.ents[x].value = x + 1;
	a.nodes[1].kind = GEN_STRING;
	a.nodes[1].n = 2;
	memcpy(a.bytes, i == 0 ? "\x7fz" : "z\x7f", 2);
	a.nbytes = 2;
	a.nodes[2].kind = GEN_INT;
	a.nodes[2].v.i = 5;
	a.nodes[3].kind = GEN_FLOAT;
	a.nodes[3].v.d = i == 0 ? INFINITY : -INFINITY;
	if (i == 1) { /* INF first */
		a.ents[0].value = 3;
		a.ents[2].value = 1;
	}
	a.kinds = 1u << GEN_LIST | 1u << GEN_STRING | 1u << GEN_INT | 1u << GEN_FLOAT;
}

/* A finite float of at least 1e20 (written in exponent notation). */
static int bug_big_float(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].kind == GEN_FLOAT && isfinite(c->nodes[i].v.d) &&
		    fabs(c->nodes[i].v.d) >= 1e20)
			return 1;
	return 0;
}

static void make_big_float(unsigned i)
{
	static const double v[] = { 3.5e300, -1.7976931348623157e308, 123456789012345678901234.0, 1e20 };
	plan_keyed(&a, "k", GEN_FLOAT, v[i]);
}

/* Stand-in for e88.50.const-m1 (zend_gcvt's exponent character 'e' made
 * 'd'): a float json_encode writes with an exponent, below 1e-4 or from
 * 1e17 up. */
static int bug_exp_float(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		double m = fabs(c->nodes[i].v.d);
		if (c->nodes[i].kind == GEN_FLOAT && isfinite(m) && m != 0.0 && (m < 1e-4 || m >= 1e17))
			return 1;
	}
	return 0;
}

static void make_exp_float(unsigned i)
{
	static const double v[] = { 3.7e-9, -2.5e-7, 5e-324, 1.2345678901234568e+20, 6e22, 1.5e-5 };
	plan_keyed(&a, "k", GEN_FLOAT, v[i]);
}

/*
 * serialize_precision=17 on the candidate (issue 47): json_encode writes a
 * float with 17 significant digits (zend_gcvt, trailing zeros dropped)
 * where the base writes its shortest form.  Does that differ for m?
 */
static int precision17_differs(double m)
{
	char a17[64], shortest[64];
	char *x;

	if (!isfinite(m) || m == 0.0)
		return 0;
	m = fabs(m);
	snprintf(a17, sizeof a17, "%.16e", m);
	for (int p = 1; p <= 17; p++) {
		snprintf(shortest, sizeof shortest, "%.*e", p - 1, m);
		if (strtod(shortest, NULL) == m)
			break;
	}
	/* Compare the digits, trailing zeros dropped, and the exponents. */
	for (char *t = a17; t != NULL; t = t == a17 ? shortest : NULL) {
		char *e = strchr(t, 'e'), *z = e;
		while (z > t + 1 && z[-1] == '0')
			z--;
		if (z > t && z[-1] == '.')
			z--;
		memmove(z, e, strlen(e) + 1);
	}
	x = a17;
	return strcmp(x, shortest) != 0;
}

/* A float written without an exponent (1e-4 <= |d| < 1e17) that precision 17 writes differently. */
static int bug_precision17(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		double m = fabs(c->nodes[i].v.d);
		if (c->nodes[i].kind == GEN_FLOAT && m >= 1e-4 && m < 1e17 && precision17_differs(m))
			return 1;
	}
	return 0;
}

/* The same, a float written with an exponent. */
static int bug_precision17_exp(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		double m = fabs(c->nodes[i].v.d);
		if (c->nodes[i].kind == GEN_FLOAT && (m < 1e-4 || m >= 1e17) && precision17_differs(m))
			return 1;
	}
	return 0;
}

static void make_precision17(unsigned i)
{
	static const double v[] = { 49074.87906170046, 522181.4549456321, -0.3, 12.3, 0.00037, 7.1,
		0.87906170046, 1234567.891, 0.7 };
	plan_keyed(&a, "k", GEN_FLOAT, v[i]);
}

static void make_precision17_exp(unsigned i)
{
	static const double v[] = { 3.3e-9, -2.3e-7, 1e23, 1.1e-6, 4.7e-5 };
	plan_keyed(&a, "k", GEN_FLOAT, v[i]);
}

/* A case of the unbacked enum GenEnumU (json_encode refuses it). */
static int bug_enum_u(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].kind == GEN_ENUM && c->nodes[i].cls == 2)
			return 1;
	return 0;
}

/* An astral character in a string, a key, or the name of a property json_encode shows of an object. */
static int bug_astral_shown(const struct gen_case *c)
{
	if (bug_astral(c))
		return 1;
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_class *k;
		if (c->nodes[i].kind != GEN_OBJECT)
			continue;
		k = gen_class_at(c->nodes[i].cls);
		if (k->type != GEN_CLASS_PLAIN && k->type != GEN_CLASS_DYNAMIC &&
		    k->type != GEN_CLASS_JSONSER_THIS)
			continue;
		for (unsigned p = 0; p < k->nprops; p++)
			if (k->props[p].visibility == GEN_PUBLIC && !k->props[p].typed &&
			    astral((const unsigned char *)k->props[p].name, k->props[p].len))
				return 1;
	}
	return 0;
}

/* new GenC<n>() for the i-th class whose shown property names hold an astral character. */
static void make_astral_object(unsigned i)
{
	unsigned found = 0;
	for (unsigned cls = 0; cls < GEN_NCLASSES; cls++) {
		plan_object(&a, cls);
		if (bug_astral_shown(&a) && found++ == i)
			return;
	}
}

/* Bytes that are no UTF-8 character, in a string or in a backed enum's value (GenEnumS::D is "\xff\xfe"). */
static int invalid_utf8(const unsigned char *p, uint32_t n)
{
	return !utf8_valid((const char *)p, n);
}

static int bug_invalid(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].kind == GEN_ENUM && c->nodes[i].cls == 0 && c->nodes[i].n == 3)
			return 1;
	return any_string(c, 1, 1, invalid_utf8);
}

static void make_enum_d(unsigned i)
{
	memset(&a, 0, sizeof a);
	a.depth = 512;
	a.nnodes = 1;
	a.nodes[0].kind = GEN_ENUM;
	a.nodes[0].cls = 0;
	a.nodes[0].n = 3 - i; /* GenEnumS::D */
	a.enums = 1;
	a.kinds = 1u << GEN_ENUM;
}

/* new GenC<cls>() of the i-th generated class, last first, whose bare object shows bug. */
static void plan_nth_class(unsigned i, int (*bug)(const struct gen_case *))
{
	unsigned found = 0;
	for (unsigned cls = GEN_NCLASSES; cls-- > 0;) {
		plan_object(&a, cls);
		if (bug(&a) && found++ == i)
			return;
	}
}

static void make_protected(unsigned i)
{
	plan_nth_class(i, bug_protected);
}

/* A key PHP stores as an int: its value in *v. */
static int int_key(const struct gen_case *c, const struct gen_entry *en, int64_t *v)
{
	char buf[32];
	if (en->key_type == GEN_KEY_INT) {
		*v = en->key_int;
		return 1;
	}
	if (en->key_type != GEN_KEY_STR || en->key_len == 0 || en->key_len >= sizeof buf)
		return 0;
	memcpy(buf, c->bytes + en->key_off, en->key_len);
	buf[en->key_len] = '\0';
	{
		char *end, back[32];
		long long x = strtoll(buf, &end, 10);
		snprintf(back, sizeof back, "%lld", x);
		if (*end != '\0' || strcmp(back, buf) != 0)
			return 0;
		*v = x;
		return 1;
	}
}

/* Stand-in for a numeric key's bug (e274.6.delete): some array json_encode shows as an object with a numeric key. */
static int bug_numeric_key(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		int numeric = 0, list = 1;
		if (n->kind == GEN_LIST && n->n > 0 && (c->flags & 16))
			return 1;
		if (n->kind != GEN_MAP)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			int64_t v;
			int is_int = int_key(c, &c->ents[n->first + x], &v);
			numeric |= is_int;
			if (!is_int || v != (int64_t)x)
				list = 0;
		}
		if (numeric && (!list || (c->flags & 16)))
			return 1;
	}
	return 0;
}

static void make_numeric_key(unsigned i)
{
	static const char *const keys[] = { "7", "-3", "12" };
	if (i < 3) {
		plan_keyed(&a, keys[i], i == 0 ? GEN_FLOAT : GEN_NULL, 2.5);
		return;
	}
	/* [0 => null, '' => null], [4 => 'x'], [null] with JSON_FORCE_OBJECT */
	plan_keyed(&a, "", GEN_NULL, 0);
	if (i == 3) {
		a.nodes[0].n = 2;
		a.ents[1] = a.ents[0];
		a.ents[1].value = 2;
		a.nodes[2].kind = GEN_NULL;
		a.nnodes = 3;
		a.ents[0].key_type = GEN_KEY_INT;
		a.ents[0].key_int = 0;
		a.nents = 2;
	} else if (i == 4) {
		a.ents[0].key_type = GEN_KEY_INT;
		a.ents[0].key_int = 4;
	} else {
		a.nodes[0].kind = GEN_LIST;
		a.ents[0].key_type = GEN_KEY_NONE;
		a.flags = 16;
	}
}

/* Stand-in for e277.5 (the ':' after an object's key): json_encode shows
 * some container with an entry as an object -- a stdClass, a map that is no
 * list, any array under JSON_FORCE_OBJECT. */
static int bug_object_entry(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		int list = 1;
		if (n->n == 0)
			continue;
		if (n->kind == GEN_STDCLASS || (n->kind == GEN_LIST && (c->flags & 16)))
			return 1;
		if (n->kind != GEN_MAP)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			int64_t v;
			if (!int_key(c, &c->ents[n->first + x], &v) || v != (int64_t)x)
				list = 0;
		}
		if (!list || (c->flags & 16))
			return 1;
	}
	return 0;
}

/* (object)[0 => null], (object)['a' => 2.5], ['k' => null], [null] with JSON_FORCE_OBJECT,
 * (object)[5 => 3] under JSON_PRETTY_PRINT. */
static void make_object_entry(unsigned i)
{
	plan_keyed(&a, i == 1 ? "a" : "k", i == 1 ? GEN_FLOAT : GEN_NULL, 2.5);
	if (i == 0 || i == 1 || i == 4) {
		a.nodes[0].kind = GEN_STDCLASS;
		a.kinds = 1u << GEN_STDCLASS | 1u << a.nodes[1].kind;
	}
	if (i == 0 || i == 4) {
		a.ents[0].key_type = GEN_KEY_INT;
		a.ents[0].key_int = i == 0 ? 0 : 5;
	}
	if (i == 3) {
		a.nodes[0].kind = GEN_LIST;
		a.ents[0].key_type = GEN_KEY_NONE;
		a.flags = 16;
	}
	if (i == 4) {
		a.nodes[1].kind = GEN_INT;
		a.nodes[1].v.i = 3;
		a.flags = 128;
	}
}

/* A class whose jsonSerialize() returns [json_encode($this->p, ...), json_last_error(), $this->p]
 * (the third nested call), p untyped; GEN_NCLASSES when none. */
static unsigned nested_list_class(void)
{
	for (unsigned cls = 0; cls < GEN_NCLASSES; cls++) {
		const struct gen_class *k = gen_class_at(cls);
		if (k->type == GEN_CLASS_JSONSER_NESTED && k->variant % GEN_NESTED_VARIANTS == 2 &&
		    k->nprops > 0 && !k->props[0].typed)
			return cls;
	}
	return GEN_NCLASSES;
}

/* Stand-in for e232.29 (the comma between a list's elements): json_encode shows a list of two or
 * more -- an array that is one, or what a third-nested-call object returns (its property null,
 * a bool or an int). */
static int bug_list_comma(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		const struct gen_class *k = n->kind == GEN_OBJECT ? gen_class_at(n->cls) : NULL;
		int list = 1;
		if (k != NULL && k->type == GEN_CLASS_JSONSER_NESTED &&
		    k->variant % GEN_NESTED_VARIANTS == 2) {
			uint8_t pk = GEN_NULL;
			int set = 0;
			for (uint32_t x = 0; x < n->n; x++)
				if (c->ents[n->first + x].key_type == GEN_KEY_PROP &&
				    c->ents[n->first + x].key_int == 0)
					pk = c->nodes[c->ents[n->first + x].value].kind, set = 1;
			if ((set || !k->props[0].typed) &&
			    (pk == GEN_NULL || pk == GEN_FALSE || pk == GEN_TRUE || pk == GEN_INT))
				return 1;
		}
		if (n->n < 2 || (c->flags & 16) || (n->kind != GEN_LIST && n->kind != GEN_MAP))
			continue;
		for (uint32_t x = 0; x < n->n && n->kind == GEN_MAP; x++) {
			int64_t v;
			if (!int_key(c, &c->ents[n->first + x], &v) || v != (int64_t)x)
				list = 0;
		}
		if (list)
			return 1;
	}
	return 0;
}

/* new GenC<nested list>(), the same with its property true, [7 => 'x', 0 => 1.5] made
 * [0 => 'x', 1 => 1.5] by hand: a map that is a list. */
static void make_list_comma(unsigned i)
{
	plan_object(&a, nested_list_class());
	if (i == 1) {
		set_first_prop(&a);
		a.nodes[1].kind = GEN_TRUE;
		a.kinds |= 1u << GEN_TRUE;
	} else if (i == 2) {
		plan_keyed(&a, "0", GEN_STRING, 0);
		a.nodes[0].n = 2;
		a.ents[1] = a.ents[0];
		a.ents[0].key_type = GEN_KEY_INT;
		a.ents[0].key_int = 0;
		a.ents[1].key_type = GEN_KEY_INT;
		a.ents[1].key_int = 1;
		a.ents[1].value = 2;
		a.nodes[2].kind = GEN_FLOAT;
		a.nodes[2].v.d = 1.5;
		a.nnodes = 3;
		a.nents = 2;
		a.kinds |= 1u << GEN_FLOAT;
	}
}

/* A container of kind `kind` with two entries (keys: a string, or NULL for the int key in ik),
 * values null and null, flags as given. */
static void plan_two(uint8_t kind, const char *k0, int64_t i0, const char *k1, int64_t i1, int64_t flags)
{
	const char *key[2] = { k0, k1 };
	int64_t ik[2] = { i0, i1 };

	memset(&a, 0, sizeof a);
	a.depth = 512;
	a.flags = flags;
	a.nnodes = 3;
	a.nents = 2;
	a.nodes[0].kind = kind;
	a.nodes[0].n = 2;
	for (int x = 0; x < 2; x++) {
		struct gen_entry *en = &a.ents[x];
		en->value = (uint32_t)(1 + x);
		if (kind == GEN_LIST) {
			en->key_type = GEN_KEY_NONE;
		} else if (key[x] != NULL) {
			en->key_type = GEN_KEY_STR;
			en->key_off = a.nbytes;
			en->key_len = (uint32_t)strlen(key[x]);
			memcpy(a.bytes + a.nbytes, key[x], en->key_len);
			a.nbytes += en->key_len;
		} else {
			en->key_type = GEN_KEY_INT;
			en->key_int = ik[x];
		}
	}
	a.kinds = 1u << kind | 1u << GEN_NULL;
}

/* Does literal n write a key twice (PHP keeps one entry: '' and '', 5 and '5')? */
static int has_duplicate_key(const struct gen_case *c, const struct gen_node *n)
{
	for (uint32_t x = 0; x < n->n; x++)
		for (uint32_t y = x + 1; y < n->n; y++) {
			const struct gen_entry *ex = &c->ents[n->first + x], *ey = &c->ents[n->first + y];
			int64_t vx, vy;
			int ix = int_key(c, ex, &vx), iy = int_key(c, ey, &vy);
			if (ix && iy && vx == vy)
				return 1;
			if (!ix && !iy && ex->key_type == GEN_KEY_STR && ey->key_type == GEN_KEY_STR &&
			    ex->key_len == ey->key_len &&
			    memcmp(c->bytes + ex->key_off, c->bytes + ey->key_off, ex->key_len) == 0)
				return 1;
		}
	return 0;
}

/* Stand-in for e249.20 (no comma after an entry with a string key): json_encode writes a string
 * key (a map's non-decimal one, any stdClass key) with an entry after it. */
static int bug_string_key_comma(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		if ((n->kind != GEN_MAP && n->kind != GEN_STDCLASS) || has_duplicate_key(c, n))
			continue;
		for (uint32_t x = 0; x + 1 < n->n; x++) {
			int64_t v;
			const struct gen_entry *en = &c->ents[n->first + x];
			if (en->key_type == GEN_KEY_STR && (n->kind == GEN_STDCLASS || !int_key(c, en, &v)))
				return 1;
		}
	}
	return 0;
}

/* ['' => null, 'a' => null], ['' => null, 0 => null], (object)['k' => null, 'j' => null],
 * ['x' => null, 5 => null] with JSON_FORCE_OBJECT. */
static void make_string_key_comma(unsigned i)
{
	if (i == 0)
		plan_two(GEN_MAP, "", 0, "a", 0, 0);
	else if (i == 1)
		plan_two(GEN_MAP, "", 0, NULL, 0, 0);
	else if (i == 2)
		plan_two(GEN_STDCLASS, "k", 0, "j", 0, 0);
	else
		plan_two(GEN_MAP, "x", 0, NULL, 5, 16);
}

/* Stand-in for e264.30 (the comma between int-keyed entries of an object): json_encode writes two
 * int keys in an object -- a list or map under JSON_FORCE_OBJECT, a map that is no list, an
 * ArrayObject's storage (a stdClass's keys are strings). */
static int bug_int_keys_object(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		int forced = (c->flags & 16) != 0, ints = 0, list = 1;
		if (n->kind == GEN_BUILTIN && n->cls == 0 && n->n == 1) {
			n = &c->nodes[c->ents[n->first].value];
			forced = 1;
		}
		if (n->kind == GEN_LIST && forced && n->n >= 2)
			return 1;
		if (n->kind != GEN_MAP)
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			int64_t v;
			int is_int = int_key(c, &c->ents[n->first + x], &v);
			ints += is_int;
			if (!is_int || v != (int64_t)x)
				list = 0;
		}
		if (ints >= 2 && (forced || !list))
			return 1;
	}
	return 0;
}

/* new ArrayObject([null, null]), [null, null] with JSON_FORCE_OBJECT, [3 => null, 7 => null],
 * new ArrayObject([4 => null, 'k' => null, 9 => null]). */
static void make_int_keys_object(unsigned i)
{
	if (i == 1) {
		plan_two(GEN_LIST, NULL, 0, NULL, 0, 16);
		return;
	}
	if (i == 2) {
		plan_two(GEN_MAP, NULL, 3, NULL, 7, 0);
		return;
	}
	if (i == 0)
		plan_two(GEN_LIST, NULL, 0, NULL, 0, 0);
	else {
		plan_two(GEN_MAP, NULL, 4, "k", 0, 0);
		a.nodes[0].n = 3;
		a.ents[2].key_type = GEN_KEY_INT;
		a.ents[2].key_int = 9;
		a.ents[2].value = 3;
		a.nents = 3;
		a.nnodes = 4;
	}
	/* The container becomes the ArrayObject's storage, node n; the ArrayObject node 0. */
	for (uint32_t x = a.nnodes; x > 0; x--)
		a.nodes[x] = a.nodes[x - 1];
	for (uint32_t x = a.nents; x > 0; x--) {
		a.ents[x] = a.ents[x - 1];
		a.ents[x].value++;
	}
	a.nodes[1].first = 1;
	memset(&a.nodes[0], 0, sizeof a.nodes[0]);
	a.nodes[0].kind = GEN_BUILTIN;
	a.nodes[0].n = 1;
	a.ents[0].value = 1;
	a.ents[0].key_type = GEN_KEY_NONE;
	a.nnodes++;
	a.nents++;
	a.kinds |= 1u << GEN_BUILTIN;
}

/* Stand-in for e583.3 (the recursion guard left set after a jsonSerialize() that returns something
 * else than $this): an object whose class returns its property or something made of it. */
static int bug_serializable(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		unsigned t = n->kind == GEN_OBJECT ? gen_class_at(n->cls)->type : GEN_CLASS_PLAIN;
		if (t == GEN_CLASS_JSONSER || t == GEN_CLASS_JSONSER_NESTED || t == GEN_CLASS_JSONSER_MUTATE)
			return 1;
	}
	return 0;
}

/* The last class of each of those three types, bare. */
static void make_serializable(unsigned i)
{
	static const unsigned type[3] = { GEN_CLASS_JSONSER, GEN_CLASS_JSONSER_NESTED,
		GEN_CLASS_JSONSER_MUTATE };
	unsigned pick = 0;
	for (unsigned cls = 0; cls < GEN_NCLASSES; cls++)
		if (gen_class_at(cls)->type == type[i % 3])
			pick = cls;
	plan_object(&a, pick);
}

/* The deepest nesting of arrays at node i (an array holding nothing more is 1). */
static unsigned nesting_at(const struct gen_case *c, uint32_t i)
{
	const struct gen_node *n = &c->nodes[i];
	unsigned most = 0;
	if (n->kind != GEN_LIST && n->kind != GEN_MAP)
		return 0;
	for (uint32_t x = 0; x < n->n; x++) {
		unsigned d = nesting_at(c, c->ents[n->first + x].value);
		if (d > most)
			most = d;
	}
	return most + 1;
}

/* Stand-in for e292.21.rel-ge: an array nested exactly as deep as the depth limit is an error. */
static int bug_depth_limit(const struct gen_case *c)
{
	return c->depth < 512 && nesting_at(c, c->root) == (unsigned)c->depth;
}

/* [], [[]], [[[]]] ... i + 1 deep, at depth i + 1. */
static void make_depth_limit(unsigned i)
{
	memset(&a, 0, sizeof a);
	a.nnodes = i + 1;
	a.nents = i;
	for (unsigned x = 0; x <= i; x++) {
		a.nodes[x].kind = GEN_LIST;
		a.nodes[x].n = x < i ? 1 : 0;
		a.nodes[x].first = x < i ? x : i;
		if (x < i)
			a.ents[x].value = x + 1;
	}
	a.depth = i + 1;
	a.kinds = 1u << GEN_LIST;
}

/*
 * Stand-in for j216.43.logic-and (error precedence: every error throws
 * where false is due): the plan fails on json_encode for any reason —
 * invalid UTF-8, INF or NAN, a resource, a unit enum case, a recursion,
 * nesting deeper than its depth.
 */
static int bug_any_error(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		if ((n->kind == GEN_STRING &&
		        invalid_utf8((const unsigned char *)c->bytes + n->first, n->n)) ||
		    (n->kind == GEN_FLOAT && !isfinite(n->v.d)) || n->kind == GEN_RESOURCE ||
		    (n->kind == GEN_ENUM && n->cls == 2) || (n->kind == GEN_REF && n->cls == 1))
			return 1;
	}
	return c->depth < 512 && nesting_at(c, c->root) > (unsigned)c->depth;
}

/* [5, "a\xff"]: an int, then a string with an invalid byte, into a. */
static void plan_bad_pair(void)
{
	memset(&a, 0, sizeof a);
	a.depth = 512;
	a.nnodes = 3;
	a.nents = 2;
	a.nodes[0].kind = GEN_LIST;
	a.nodes[0].n = 2;
	a.ents[0].value = 1;
	a.ents[1].value = 2;
	a.nodes[1].kind = GEN_INT;
	a.nodes[1].v.i = 5;
	a.nodes[2].kind = GEN_STRING;
	a.nodes[2].n = 2;
	memcpy(a.bytes, "a\xff", 2);
	a.nbytes = 2;
}

/* Node x of a := GenEnumU::B (a unit enum case: json_encode's error 11). */
static void put_enum_u(uint32_t x)
{
	a.nodes[x].kind = GEN_ENUM;
	a.nodes[x].cls = 2;
	a.nodes[x].n = 1;
	a.enums = 1u << 2;
}

/* Node x of a := a value json_encode fails on: NAN (i 1), a resource (2), GenEnumU::B (3). */
static void put_failing(uint32_t x, unsigned i)
{
	if (i == 1) {
		a.nodes[x].kind = GEN_FLOAT;
		a.nodes[x].v.d = NAN;
	} else if (i == 2) {
		a.nodes[x].kind = GEN_RESOURCE;
	} else {
		put_enum_u(x);
	}
}

/* "\x80", NAN, a resource, GenEnumU::B, [5, "a\xff"], [[]] at depth 1. */
static void make_any_error(unsigned i)
{
	memset(&a, 0, sizeof a);
	a.depth = 512;
	a.nnodes = 1;
	switch (i) {
	case 0:
		plan_string(&a, "\x80", 1);
		return;
	case 1:
	case 2:
	case 3:
		put_failing(0, i);
		break;
	case 4:
		plan_bad_pair();
		break;
	default:
		make_depth_limit(1);
		a.depth = 1;
		return;
	}
	for (uint32_t x = 0; x < a.nnodes; x++)
		a.kinds |= 1u << a.nodes[x].kind;
}

/*
 * Stand-in for guard-kept (a failure inside an array's element loop leaves
 * its guard set): a list whose element fails the loop — invalid UTF-8, a
 * resource, a unit enum case, nesting deeper than the depth; INF and NAN
 * do not (they set the error, write 0 and go on).
 */
static int bug_element_fails(const struct gen_case *c)
{
	const struct gen_node *r = &c->nodes[c->root];
	if (r->kind != GEN_LIST || r->n == 0)
		return 0;
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		if (i != c->root &&
		    ((n->kind == GEN_STRING &&
		         invalid_utf8((const unsigned char *)c->bytes + n->first, n->n)) ||
		        n->kind == GEN_RESOURCE || (n->kind == GEN_ENUM && n->cls == 2)))
			return 1;
	}
	return c->depth < 512 && nesting_at(c, c->root) > (unsigned)c->depth;
}

/* [GenEnumU::B], [fopen(...)], [5, "a\xff"], [[5]] at depth 1. */
static void make_element_fails(unsigned i)
{
	memset(&a, 0, sizeof a);
	a.depth = 512;
	a.nnodes = 2;
	a.nents = 1;
	a.nodes[0].kind = GEN_LIST;
	a.nodes[0].n = 1;
	a.ents[0].value = 1;
	switch (i) {
	case 0:
		put_enum_u(1);
		break;
	case 1:
		a.nodes[1].kind = GEN_RESOURCE;
		break;
	case 2:
		plan_bad_pair();
		break;
	default:
		a.nnodes = 3;
		a.nents = 2;
		a.nodes[1].kind = GEN_LIST;
		a.nodes[1].n = 1;
		a.nodes[1].first = 1;
		a.ents[1].value = 2;
		a.nodes[2].kind = GEN_INT;
		a.nodes[2].v.i = 5;
		a.depth = 1;
		break;
	}
	for (uint32_t x = 0; x < a.nnodes; x++)
		a.kinds |= 1u << a.nodes[x].kind;
}

/* JSON_PRESERVE_ZERO_FRACTION (1 << 10), JSON_NUMERIC_CHECK (1 << 5) */
#define PZF (1 << 10)
#define NUMERIC (1 << 5)

/* A float json_encode writes with a '.' or an exponent: not whole, or of 1e17 or more. */
static int dotted(double d)
{
	return isfinite(d) && (d != trunc(d) || fabs(d) >= 1e17);
}

/* A numeric string (digits, a sign, '.', an exponent; no hex, INF or NAN) that reads as a dotted float. */
static int dotted_string(const unsigned char *p, uint32_t n)
{
	char buf[64], *end;
	double d;
	if (n == 0 || n >= sizeof buf || strspn((const char *)p, "0123456789+-.eE") < n)
		return 0;
	memcpy(buf, p, n);
	buf[n] = '\0';
	d = strtod(buf, &end);
	if (*end != '\0')
		return 0;
	if (strpbrk(buf, ".eE") == NULL) { /* an int, unless too big for one */
		errno = 0;
		(void)strtoll(buf, &end, 10);
		if (errno == 0)
			return 0;
	}
	return dotted(d);
}

/*
 * Stand-in for e90.48.logic-or: under JSON_PRESERVE_ZERO_FRACTION a float
 * written with a '.' or an exponent gets ".0" more (under
 * JSON_NUMERIC_CHECK a numeric string reading as one too).
 */
static int bug_float_dot(const struct gen_case *c)
{
	if (!(c->flags & PZF))
		return 0;
	for (uint32_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].kind == GEN_FLOAT && dotted(c->nodes[i].v.d))
			return 1;
	return (c->flags & NUMERIC) && any_string(c, 0, 1, dotted_string);
}

/* 90.5, 0.1, 5e-324, -2.5, ['k' => 1e17], '.3' and '9223372036854775808' and ' 1.5e3 ' under NUMERIC_CHECK. */
static void make_float_dot(unsigned i)
{
	static const double v[] = { 90.5, 0.1, 5e-324, -2.5, 1e17 };
	static const char *const str[] = { ".3", "9223372036854775808", "1.5e-3" };
	if (i < 4) {
		plan_keyed(&a, "k", GEN_FLOAT, v[i]);
		memcpy(&a.nodes[0], &a.nodes[1], sizeof a.nodes[0]);
		a.nnodes = 1;
		a.nents = 0;
		a.nbytes = 0;
		a.kinds = 1u << GEN_FLOAT;
	} else if (i == 4) {
		plan_keyed(&a, "k", GEN_FLOAT, v[i]);
	} else {
		plan_string(&a, str[i - 5], strlen(str[i - 5]));
		a.flags = NUMERIC;
	}
	a.flags |= PZF;
}

/* A class json_encode reads declared properties of: plain, or dynamic or returning $this with none set dynamically. */
static int shows_declared(const struct gen_case *c, const struct gen_node *n)
{
	unsigned type = gen_class_at(n->cls)->type;
	for (uint32_t x = 0; x < n->n; x++)
		if (c->ents[n->first + x].key_type != GEN_KEY_PROP)
			return 0;
	return type == GEN_CLASS_PLAIN || type == GEN_CLASS_DYNAMIC || type == GEN_CLASS_JSONSER_THIS;
}

/* Is object n's property p set (its entry in *en)? */
static int prop_set(
    const struct gen_case *c, const struct gen_node *n, unsigned p, const struct gen_entry **en)
{
	for (uint32_t x = 0; x < n->n; x++)
		if (c->ents[n->first + x].key_type == GEN_KEY_PROP && c->ents[n->first + x].key_int == p) {
			*en = &c->ents[n->first + x];
			return 1;
		}
	return 0;
}

/*
 * Stand-in for e243.7.delete (json_encode no longer skips the mangled names
 * of an object's protected and private properties): an object json_encode
 * reads with a key starting with NUL — a stdClass's, or a declared class's
 * non-public property that is set or untyped.
 */
static int bug_mangled_shown(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		const struct gen_entry *en;
		if (n->kind == GEN_STDCLASS) {
			for (uint32_t x = 0; x < n->n; x++) {
				en = &c->ents[n->first + x];
				if (en->key_type == GEN_KEY_STR && en->key_len > 0 &&
				    c->bytes[en->key_off] == '\0')
					return 1;
			}
		} else if (n->kind == GEN_OBJECT && shows_declared(c, n)) {
			const struct gen_class *k = gen_class_at(n->cls);
			for (unsigned p = 0; p < k->nprops; p++)
				if (k->props[p].visibility != GEN_PUBLIC &&
				    (!k->props[p].typed || prop_set(c, n, p, &en)))
					return 1;
		}
	}
	return 0;
}

/* The generator's classes that show the bug, last first (a private or a protected property). */
static void make_mangled_shown(unsigned i)
{
	plan_nth_class(i, bug_mangled_shown);
}

/*
 * Stand-in for e146.7.negate's output roots (declared properties skipped):
 * a declared-class object json_encode reads the declared properties of,
 * with a public property it shows (set, or untyped) whose name it writes —
 * valid UTF-8, or any under JSON_INVALID_UTF8_IGNORE / _SUBSTITUTE
 * (1 << 20, 21).
 */
static int bug_props_hidden(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		const struct gen_class *k;
		const struct gen_entry *en;
		if (n->kind != GEN_OBJECT || !shows_declared(c, n))
			continue;
		k = gen_class_at(n->cls);
		for (unsigned p = 0; p < k->nprops; p++)
			if (k->props[p].visibility == GEN_PUBLIC &&
			    (!k->props[p].typed || prop_set(c, n, p, &en)) &&
			    (utf8_valid(k->props[p].name, k->props[p].len) || (c->flags & (3 << 20))))
				return 1;
	}
	return 0;
}

/* new GenC25(), new GenC33() (dynamic), new GenC26() + INVALID_UTF8_IGNORE, new GenC38() (returns $this), [new GenC21()]. */
static void make_props_hidden(unsigned i)
{
	static const unsigned cls[] = { 25, 33, 26, 38, 21 };
	plan_object(&a, cls[i]);
	if (i == 2)
		a.flags = 1 << 20;
	if (i == 3) { /* GenC38's public property is typed: set it */
		set_first_prop(&a);
		a.kinds |= 1u << GEN_NULL;
	}
	if (i == 4) {
		memmove(&a.nodes[1], &a.nodes[0], sizeof a.nodes[0]);
		memset(&a.nodes[0], 0, sizeof a.nodes[0]);
		a.nodes[0].kind = GEN_LIST;
		a.nodes[0].n = 1;
		a.ents[0].value = 1;
		a.nents = 1;
		a.nnodes = 2;
		a.kinds |= 1u << GEN_LIST;
	}
}

/* Stand-in for e146.7's exception roots: a shown declared property holds an object whose jsonSerialize() throws. */
static int bug_throw_hidden(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		if (n->kind != GEN_OBJECT || !shows_declared(c, n))
			continue;
		for (uint32_t x = 0; x < n->n; x++) {
			const struct gen_entry *en = &c->ents[n->first + x];
			const struct gen_node *v = &c->nodes[en->value];
			if (gen_class_at(n->cls)->props[en->key_int].visibility == GEN_PUBLIC &&
			    v->kind == GEN_OBJECT &&
			    (gen_class_at(v->cls)->type == GEN_CLASS_JSONSER_THROW ||
			        gen_class_at(v->cls)->type == GEN_CLASS_JSONSER_DTOR))
				return 1;
		}
	}
	return 0;
}

/* new GenC25(['ØA9' => new GenC40()]), new GenC33(['ñ_' => new GenC39()]), new GenC26(["\xFE" => new GenC40()]). */
static void make_throw_hidden(unsigned i)
{
	static const unsigned outer[] = { 25, 33, 26 }, inner[] = { 40, 39, 40 };
	plan_object(&a, outer[i]);
	set_first_prop(&a);
	a.nodes[1].kind = GEN_OBJECT;
	a.nodes[1].cls = (uint16_t)inner[i];
	a.classes |= 1ull << inner[i];
	if (inner[i] == 40)
		a.features |= 1u << GEN_F_JSONSER_DTOR;
}

/* A value json_encode fails on by itself: invalid UTF-8, INF or NAN, a resource, a unit enum case. */
static int fails_itself(const struct gen_case *c, const struct gen_node *v)
{
	return (v->kind == GEN_STRING && invalid_utf8((const unsigned char *)c->bytes + v->first, v->n)) ||
	    (v->kind == GEN_FLOAT && !isfinite(v->v.d)) || v->kind == GEN_RESOURCE ||
	    (v->kind == GEN_ENUM && v->cls == 2);
}

/*
 * Stand-in for e146.7.negate's error roots: json_encode fails on a declared
 * property the candidate skips — a shown public property named with
 * invalid UTF-8, or holding a value that fails by itself.
 */
static int bug_hidden_error(const struct gen_case *c)
{
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		const struct gen_class *k;
		if (n->kind != GEN_OBJECT || !shows_declared(c, n))
			continue;
		k = gen_class_at(n->cls);
		for (unsigned p = 0; p < k->nprops; p++) {
			const struct gen_entry *en = NULL;
			int set = prop_set(c, n, p, &en);
			if (k->props[p].visibility != GEN_PUBLIC || (k->props[p].typed && !set))
				continue;
			if (!utf8_valid(k->props[p].name, k->props[p].len) ||
			    (set && fails_itself(c, &c->nodes[en->value])))
				return 1;
		}
	}
	return 0;
}

/*
 * new GenC26(), new GenC32() (dynamic), new GenC25(['ØA9' => "\x80"]),
 * new GenC21(['ЖZЖ' => NAN]), new GenPubA(['a' => NAN]) (no lower class:
 * it meets GenPubX80 only with its property dropped in the same step).
 */
static void make_hidden_error(unsigned i)
{
	static const unsigned cls[] = { 26, 32, 25, 21, GEN_NCLASSES };
	plan_object(&a, cls[i]);
	if (i < 2)
		return;
	set_first_prop(&a);
	if (i == 2) {
		a.nodes[1].kind = GEN_STRING;
		a.nodes[1].n = 1;
		a.bytes[0] = (char)0x80;
		a.nbytes = 1;
	} else {
		a.nodes[1].kind = GEN_FLOAT;
		a.nodes[1].v.d = NAN;
	}
	a.kinds |= 1u << a.nodes[1].kind;
}

/*
 * What is left without one part (shrink_remainders, what the reducer's
 * roots are explained by): new GenProtA(['a' => INF]) leaves
 * new GenProtA(['a' => null]) and the canonical classes below it; GenPubA
 * nothing; a generated plain class of two properties each canonical class,
 * GenPubA first; every remainder of 300 generated plans applies and keeps
 * the root's kind.
 */
/* Plan c with its first candidate of op applied, rendered (malloc'd; "-" when there is none). */
static char *first_of(const struct gen_case *c, struct shrink_edit *edits, uint8_t op)
{
	size_t n = shrink_candidates(c, edits, 16384);
	for (size_t x = 0; x < n; x++)
		if (edits[x].op == op)
			return shrink_apply(c, &edits[x], &b) == 0 ? render(&b) : strdup("(fails)");
	return strdup("-");
}

/* The steps that move an error or a value without changing what PHP makes of it. */
static void test_moves(struct shrink_edit *edits)
{
	char *x;

	plan_keyed(&a, "\x80", GEN_NULL, 0);
	x = first_of(&a, edits, SHRINK_KEY_ERROR);
	ok(strcmp(x, "['a' => INF]") == 0, "an invalid key's error moved to its value: ['a' => INF]");
	free(x);
	plan_keyed(&a, "k", GEN_NULL, 0);
	x = first_of(&a, edits, SHRINK_KEY_ERROR);
	ok(strcmp(x, "-") == 0, "a valid key: no such step");
	free(x);

	/* ['k' => null, 0 => 1.5, 'k' => 2]: PHP's ['k' => 2, 0 => 1.5]. */
	plan_keyed(&a, "k", GEN_NULL, 0);
	a.nodes[0].n = 3;
	a.nents = 3;
	a.ents[1].key_type = GEN_KEY_INT;
	a.ents[1].value = 2;
	a.ents[2] = a.ents[0];
	a.ents[2].value = 3;
	a.nnodes = 4;
	a.nodes[2].kind = GEN_FLOAT;
	a.nodes[2].v.d = 1.5;
	a.nodes[3].kind = GEN_INT;
	a.nodes[3].v.i = 2;
	a.kinds |= 1u << GEN_FLOAT | 1u << GEN_INT;
	x = render(&a);
	printf("# a key written twice: %s\n", x);
	free(x);
	x = first_of(&a, edits, SHRINK_DEDUP);
	ok(strcmp(x, "['k' => 2, 0 => 1.5]") == 0,
	    "a key written twice: the later value in the earlier place");
	free(x);
	a.ents[2].key_type = GEN_KEY_STR; /* "0" is the int key 0 */
	a.ents[2].key_off = a.nbytes;
	a.ents[2].key_len = 1;
	a.bytes[a.nbytes++] = '0';
	x = first_of(&a, edits, SHRINK_DEDUP);
	ok(strcmp(x, "['k' => null, 0 => 2]") == 0, "\"0\" written after 0: the same key");
	free(x);

	/* [[INF]] at depth 1 */
	make_depth_limit(1);
	a.depth = 1;
	a.nodes[1].n = 1;
	a.nodes[1].first = 1;
	a.nents = 2;
	a.ents[1].value = 2;
	a.nnodes = 3;
	a.nodes[2].kind = GEN_FLOAT;
	a.nodes[2].v.d = INFINITY;
	a.kinds |= 1u << GEN_FLOAT;
	x = first_of(&a, edits, SHRINK_HOIST);
	ok(strcmp(x, "[[], INF]") == 0, "an array's element moved out after it: [[INF]] becomes [[], INF]");
	free(x);

	/* A sequence's last earlier call compared instead of the compared one. */
	for (uint64_t i = 0; i < 100000; i++) {
		gen_case_make(&a, 1, i);
		if (a.npre >= 1 && (a.pre_flags[a.npre - 1] != a.flags || a.pre_depth[a.npre - 1] != a.depth))
			break;
	}
	{
		size_t n = shrink_candidates(&a, edits, 16384), x2, found = 0;
		for (x2 = 0; x2 < n; x2++)
			if (edits[x2].op == SHRINK_PRE_DROP && edits[x2].hi == 1 &&
			    shrink_apply(&a, &edits[x2], &b) == 0)
				found++;
		ok(found == 1 && b.npre + 1 == a.npre && b.flags == a.pre_flags[a.npre - 1] &&
		        b.depth == a.pre_depth[a.npre - 1],
		    "a sequence's last earlier call compared instead: one call fewer, its flags and depth");
	}

	/* new ArrayObject([null, 1]): json_encode shows its storage as an object, {"0":null,"1":1}. */
	memset(&a, 0, sizeof a);
	a.depth = 512;
	a.nnodes = 4;
	a.nents = 3;
	a.nodes[0].kind = GEN_BUILTIN;
	a.nodes[0].n = 1;
	a.ents[0].value = 1;
	a.nodes[1].kind = GEN_LIST;
	a.nodes[1].n = 2;
	a.nodes[1].first = 1;
	a.ents[1].value = 2;
	a.ents[2].value = 3;
	a.nodes[3].kind = GEN_INT;
	a.nodes[3].v.i = 1;
	a.kinds = 1u << GEN_BUILTIN | 1u << GEN_LIST | 1u << GEN_NULL | 1u << GEN_INT;
	x = render(&a);
	printf("# an ArrayObject: %s\n", x);
	free(x);
	x = first_of(&a, edits, SHRINK_UNBOX);
	ok(strcmp(x, "(object)[0 => null, 1 => 1]") == 0,
	    "an ArrayObject of a list made the stdClass of its storage, keys its indexes");
	printf("# made: %s\n", x);
	free(x);

	/* An earlier call's flag lowered in its family (JSON_INVALID_UTF8_SUBSTITUTE -> _IGNORE). */
	for (uint64_t i = 0; i < 200000; i++) {
		gen_case_make(&a, 1, i);
		if (a.npre >= 1 && (a.pre_flags[0] & (1 << 21)) && !(a.pre_flags[0] & (1 << 20)))
			break;
	}
	{
		size_t n = shrink_candidates(&a, edits, 16384), found = 0;
		for (size_t x2 = 0; x2 < n; x2++)
			if (edits[x2].op == SHRINK_FLAG_LOWER && edits[x2].b == 1 && edits[x2].lo == 21 &&
			    edits[x2].hi == 20 && shrink_apply(&a, &edits[x2], &b) == 0 &&
			    b.pre_flags[0] == ((a.pre_flags[0] & ~(1 << 21)) | 1 << 20) && b.flags == a.flags)
				found++;
		ok(a.npre >= 1 && found == 1,
		    "an earlier call's JSON_INVALID_UTF8_SUBSTITUTE made _IGNORE, the compared call's flags kept");
	}
}

static void test_remainders(struct shrink_edit *edits)
{
	unsigned plain = GEN_NCLASSES;
	unsigned left[3] = { 0 };
	size_t n;
	char *x;
	int applies = 1;

	plan_object(&a, GEN_NCLASSES + 3);
	set_first_prop(&a);
	a.nodes[1].kind = GEN_FLOAT;
	a.nodes[1].v.d = INFINITY;
	a.kinds |= 1u << GEN_FLOAT;
	n = shrink_remainders(&a, edits, 16);
	for (size_t k = 0; k < n; k++) {
		char *y = shrink_apply(&a, &edits[k], &b) == 0 ? render(&b) : NULL;
		left[0] += y != NULL && strcmp(y, "new GenProtA(['a' => null])") == 0;
		left[1] += y != NULL && strcmp(y, "new GenPubA()") == 0;
		left[2] += y == NULL || strcmp(y, "new GenProtA()") == 0;
		free(y);
	}
	ok(n == 4 && left[0] == 1 && left[1] == 1 && left[2] == 0,
	    "remainders of new GenProtA(['a' => INF]): new GenProtA(['a' => null]) and the 3 "
	    "canonical classes below it (new GenPubA() ...), not itself");
	plan_object(&a, GEN_NCLASSES);
	ok(shrink_remainders(&a, edits, 16) == 0, "new GenPubA(), the least class, leaves nothing");

	for (unsigned k = 0; k < GEN_NCLASSES && plain == GEN_NCLASSES; k++)
		if (gen_class_at(k)->type == GEN_CLASS_PLAIN && gen_class_at(k)->nprops >= 2)
			plain = k;
	plan_object(&a, plain);
	n = shrink_remainders(&a, edits, 16);
	x = n == GEN_NCANON && shrink_apply(&a, &edits[0], &b) == 0 ? render(&b) : NULL;
	ok(x != NULL && strcmp(x, "new GenPubA()") == 0,
	    "remainders of a generated plain class of two properties: the 5 canonical classes, new GenPubA() first");
	free(x);

	/* A value holding an error made the error step's least values. */
	{
		unsigned thrower = GEN_NCLASSES;
		int inf = 0, bad = 0, recursion = 0;
		for (unsigned k = 0; k < GEN_NCLASSES && thrower == GEN_NCLASSES; k++)
			if (gen_class_at(k)->type == GEN_CLASS_JSONSER_THROW)
				thrower = k;
		plan_object(&a, GEN_NCLASSES);
		set_first_prop(&a);
		a.nodes[1].kind = GEN_OBJECT;
		a.nodes[1].cls = (uint16_t)thrower;
		a.classes |= 1ull << thrower;
		n = shrink_remainders(&a, edits, 64);
		for (size_t k = 0; k < n; k++) {
			char *y = shrink_apply(&a, &edits[k], &b) == 0 ? render(&b) : NULL;
			inf += y != NULL && strcmp(y, "new GenPubA(['a' => INF])") == 0;
			bad += y != NULL && strcmp(y, "new GenPubA(['a' => \"\\x80\"])") == 0;
			free(y);
		}
		ok(thrower < GEN_NCLASSES && inf == 1 && bad == 1,
		    "remainders of new GenPubA(['a' => new GenCn()]), a jsonSerialize() that throws: "
		    "its value made INF and \"\\x80\"");
		/* A recursion (a back-reference, rendered through a closure) made "\x80". */
		for (uint64_t i = 0; i < 20000 && recursion == 0; i++) {
			gen_case_make(&a, 5, i);
			if (a.root >= a.nnodes || a.nodes[a.root].kind != GEN_LIST)
				continue;
			for (uint32_t j = 0; j < a.nnodes && recursion == 0; j++) {
				if (a.nodes[j].kind != GEN_REF || a.nodes[j].cls != 1)
					continue;
				n = shrink_remainders(&a, edits, 16384);
				for (size_t k = 0; k < n && recursion == 0; k++)
					if (edits[k].op == SHRINK_ERROR && edits[k].a == j &&
					    edits[k].lo == 1 && shrink_apply(&a, &edits[k], &b) == 0)
						recursion = b.nrefs < a.nrefs ? 1 : -1;
			}
		}
		ok(recursion == 1,
		    "a generated recursion's back-reference: a remainder makes it \"\\x80\", one reference fewer");
	}

	/* A sequence's writing object (what the compared call shows of it is whether the earlier
	 * call reached it) made INF, the earlier call compared: [[], new GenCn()] with
	 * PRESERVE_ZERO_FRACTION at depth 1 first leaves [[], INF] under those. */
	{
		unsigned mutating = GEN_NCLASSES;
		int seen = 0;
		for (unsigned k = 0; k < GEN_NCLASSES && mutating == GEN_NCLASSES; k++)
			if (gen_class_at(k)->type == GEN_CLASS_JSONSER_MUTATE)
				mutating = k;
		memset(&a, 0, sizeof a);
		a.depth = 512;
		a.nnodes = 3;
		a.nents = 2;
		a.nodes[0].kind = GEN_LIST;
		a.nodes[0].n = 2;
		a.ents[0].value = 1;
		a.ents[1].value = 2;
		a.nodes[1].kind = GEN_LIST;
		a.nodes[1].first = 2;
		a.nodes[2].kind = GEN_OBJECT;
		a.nodes[2].cls = (uint16_t)mutating;
		a.nodes[2].first = 2;
		a.kinds = 1u << GEN_LIST | 1u << GEN_OBJECT;
		a.classes = 1ull << mutating;
		a.npre = 1;
		a.pre_flags[0] = 1 << 10;
		a.pre_depth[0] = 1;
		n = shrink_remainders(&a, edits, 64);
		for (size_t k = 0; k < n; k++) {
			char *y = edits[k].op == SHRINK_ERROR && shrink_apply(&a, &edits[k], &b) == 0
			    ? render(&b)
			    : NULL;
			seen += y != NULL && strcmp(y, "[[], INF]") == 0 && b.npre == 0 &&
			    b.flags == 1 << 10 && b.depth == 1;
			free(y);
		}
		ok(mutating < GEN_NCLASSES && seen == 1,
		    "remainders of a sequence holding an object whose jsonSerialize() writes: that "
		    "object made INF, the earlier call (its flags and depth) compared");
		seen = 0;
		for (size_t k = 0; k < n; k++)
			seen += edits[k].op == SHRINK_PRE_DROP && shrink_apply(&a, &edits[k], &b) == 0 &&
			    b.npre == 0 && b.flags == 0 && b.depth == 512;
		ok(seen == 1, "... and the compared call alone (the earlier call dropped)");
		a.npre = 0;
		n = shrink_remainders(&a, edits, 64);
		seen = 0;
		for (size_t k = 0; k < n; k++)
			seen += edits[k].op == SHRINK_ERROR || edits[k].op == SHRINK_PRE_DROP;
		ok(seen == 0, "... and neither without an earlier call");
	}

	for (uint64_t i = 0; i < 300 && applies; i++) {
		gen_case_make(&a, 5, i);
		n = shrink_remainders(&a, edits, 16384);
		for (size_t k = 0; k < n && applies; k++)
			applies = shrink_apply(&a, &edits[k], &b) == 0 &&
			    b.nodes[b.root].kind == a.nodes[a.root].kind;
	}
	ok(applies, "every remainder of 300 generated plans applies and keeps the root's kind");
}

/*
 * Stand-in for e188.7.negate (error precedence: the candidate goes on after
 * a depth error where the base stops, so a later error replaces the depth
 * error's code).  The errors of a plan in the order json_encode meets them:
 * a container nested deeper than the depth (1), invalid UTF-8 in a key or
 * string (5), a recursion (6), INF or NAN (7: sets the code and goes on), a
 * resource (8), a unit enum case (11); the others stop the encoder.
 */
struct error_walk {
	int after_depth; /* a depth error was met */
	int code;        /* the candidate's code so far */
	int stopped;
	int depth_stops; /* json_encode's own walk: a depth error stops it */
};

static void walk_errors(const struct gen_case *c, uint32_t i, unsigned nesting, struct error_walk *w)
{
	const struct gen_node *n = &c->nodes[i];
	int code = 0;

	if (w->stopped || nesting > 64)
		return;
	if (n->kind == GEN_STRING && invalid_utf8((const unsigned char *)c->bytes + n->first, n->n))
		code = 5;
	else if (n->kind == GEN_FLOAT && !isfinite(n->v.d))
		code = 7;
	else if (n->kind == GEN_RESOURCE)
		code = 8;
	else if (n->kind == GEN_ENUM && n->cls == 2)
		code = 11;
	else if (n->kind == GEN_REF && n->cls != 0)
		code = 6;
	else if ((n->kind == GEN_LIST || n->kind == GEN_MAP) && nesting + 1 > (unsigned)c->depth)
		code = 1;
	if (code != 0) {
		w->code = code;
		w->after_depth |= code == 1;
		/* Before the depth error every error but INF stops both builds alike. */
		w->stopped = code != 1 && code != 7 && (!w->after_depth || code != 7);
		w->stopped |= code == 1 && w->depth_stops;
	}
	if (w->stopped ||
	    (n->kind != GEN_LIST && n->kind != GEN_MAP && n->kind != GEN_STDCLASS && n->kind != GEN_OBJECT &&
	        !(n->kind == GEN_REF && n->cls == 0)))
		return;
	for (uint32_t x = 0; x < n->n && !w->stopped; x++) {
		const struct gen_entry *en = &c->ents[n->first + x];
		if (en->key_type == GEN_KEY_STR &&
		    invalid_utf8((const unsigned char *)c->bytes + en->key_off, en->key_len)) {
			w->code = 5;
			w->stopped = 1;
			break;
		}
		walk_errors(c, en->value, nesting + (n->kind == GEN_LIST || n->kind == GEN_MAP), w);
	}
}

/* The candidate's code where it differs from the base's (a later error after a depth error), else 0. */
static int code_after_depth(const struct gen_case *c)
{
	struct error_walk w = { 0, 0, 0, 0 };

	if (c->depth >= 512)
		return 0;
	walk_errors(c, c->root, 0, &w);
	return w.after_depth && w.code != 1 ? w.code : 0;
}

static int bug_after_depth(const struct gen_case *c)
{
	return code_after_depth(c) != 0;
}

/* [[[]], X] at depth 1, X: "a\xff", NAN, a resource, GenEnumU::B, ["\xc3" => 1]. */
static void make_after_depth(unsigned i)
{
	memset(&a, 0, sizeof a);
	a.depth = 1;
	a.nnodes = 5;
	a.nents = 3;
	a.nodes[0].kind = GEN_LIST;
	a.nodes[0].n = 2;
	a.ents[0].value = 1;
	a.ents[1].value = 3;
	a.nodes[1].kind = GEN_LIST;
	a.nodes[1].n = 1;
	a.nodes[1].first = 2;
	a.ents[2].value = 2;
	a.nodes[2].kind = GEN_LIST;
	a.nodes[2].first = 3;
	a.kinds = 1u << GEN_LIST;
	switch (i) {
	case 0:
		a.nodes[3].kind = GEN_STRING;
		a.nodes[3].n = 2;
		memcpy(a.bytes, "a\xff", 2);
		a.nbytes = 2;
		break;
	case 1:
	case 2:
	case 3:
		put_failing(3, i);
		break;
	default:
		a.nodes[3].kind = GEN_MAP;
		a.nodes[3].n = 1;
		a.nodes[3].first = 3;
		a.ents[3].key_type = GEN_KEY_STR;
		a.ents[3].key_off = 0;
		a.ents[3].key_len = 1;
		a.ents[3].value = 4;
		memcpy(a.bytes, "\xc3", 1);
		a.nbytes = 1;
		a.nodes[4].kind = GEN_INT;
		a.nodes[4].v.i = 1;
		a.nents = 4;
		break;
	}
	if (a.nodes[4].kind == GEN_NULL && i < 4)
		a.nnodes = 4;
	a.kinds |= 1u << a.nodes[3].kind | 1u << a.nodes[4].kind;
}

/*
 * Stand-in for j216.18.flag-prev's throw half (under JSON_THROW_ON_ERROR
 * the candidate returns false and sets the code where the base throws):
 * the candidate's code is whichever error the case meets, a depth error's
 * too, so its members meet at INF only if the error step may take a depth
 * error's code away.
 */
static int code_thrown(const struct gen_case *c)
{
	struct error_walk w = { 0, 0, 0, 1 };

	if (!(c->flags & (1L << 22))) /* JSON_THROW_ON_ERROR */
		return 0;
	if (c->npre == 0)
		walk_errors(c, c->root, 0, &w);
	return w.code;
}

static int bug_thrown(const struct gen_case *c)
{
	return code_thrown(c) != 0;
}

/* make_any_error's starts ("\x80" ... [[]] at depth 1), under JSON_THROW_ON_ERROR. */
static void make_thrown(unsigned i)
{
	make_any_error(i);
	a.flags |= 1L << 22;
}

/* same_normal_form for a stand-in with error codes (the reduction keeps its start's code). */
static void same_normal_form_coded(const char *what, int (*code)(const struct gen_case *),
    int (*bug)(const struct gen_case *), void (*make)(unsigned), unsigned nstart, unsigned ngen,
    const char *want)
{
	coded = code;
	same_normal_form(what, bug, make, nstart, ngen, want);
	coded = NULL;
}

int main(void)
{
	struct shrink_edit *edits = malloc(16384 * sizeof *edits);
	int same = 1, smaller = 1;

	/* Compacting changes nothing: the same source, the same setup. */
	for (uint64_t i = 0; i < 2000; i++) {
		char *x, *y;
		gen_case_make(&a, 7, i);
		if (shrink_apply(&a, NULL, &b) < 0) {
			same = 0;
			break;
		}
		x = render(&a), y = render(&b);
		same &= strcmp(x, y) == 0 && a.classes == b.classes && a.enums == b.enums &&
		    a.flags == b.flags;
		free(x), free(y);
	}
	ok(same, "a plan compacted renders the same value, classes and enums (2,000 cases)");

	/* ... and the same setup for the PHP it is made for: a 7.4 case's classes
	 * are declared the 7.4 way (the plan's php carried over). */
	same = 1;
	for (uint64_t i = 0; i < 300 && same; i++) {
		struct gen_buf sa = { 0 }, sb = { 0 };
		gen_case_make_php(&a, 7, i, 70400);
		b.php = 0;
		same = shrink_apply(&a, NULL, &b) == 0 && b.php == 70400 && gen_render_setup(&a, &sa) == 0 &&
		    gen_render_setup(&b, &sb) == 0 && sa.len == sb.len &&
		    (sa.len == 0 || memcmp(sa.data, sb.data, sa.len) == 0);
		gen_buf_release(&sa);
		gen_buf_release(&sb);
	}
	ok(same, "a 7.4 plan compacted keeps its PHP and declares its classes the same way (300 cases)");

	/* Every candidate applies and makes the canonical form different. */
	for (uint64_t i = 0; i < 200 && smaller; i++) {
		gen_case_make(&a, 3, i);
		char *ca = shrink_canonical(&a);
		size_t n = shrink_candidates(&a, edits, 16384);
		for (size_t k = 0; k < n && smaller; k++) {
			char *cb;
			if (shrink_apply(&a, &edits[k], &b) < 0)
				continue;
			cb = shrink_canonical(&b);
			if (strcmp(ca, cb) == 0) {
				char d[128];
				shrink_describe(&edits[k], d, sizeof d);
				printf("# no change: case %llu, %s\n", (unsigned long long)i, d);
				smaller = 0;
			}
			free(cb);
		}
		free(ca);
	}
	ok(smaller, "every candidate changes the case (200 cases)");

	reduce_first(bug_del, "\"\\x7F\"", 0, "DEL anywhere");
	reduce_first(bug_inf, "INF", 0, "INF anywhere");
	reduce_first(
	    bug_zero_fraction, "[0.0]", 1 << 10, "a whole double in a list with PRESERVE_ZERO_FRACTION");

	/* Built-in objects: replaced by their JSON-visible properties, or by one of them. */
	{
		struct oracle o = { .bug = bug_zero_fraction_deep };
		struct shrink_stats st;
		char *src;
		int r;

		builtin_in_list(&a, 2, 3);
		r = apply_unbox(&a, edits, SHRINK_NONE, &b);
		src = render(&b);
		printf("# DateInterval('P3D') made plain: %s\n", src);
		ok(r == 0 && strstr(src, "'d' => 3") && strstr(src, "'f' => 0.0") &&
		        strstr(src, "'from_string' => false") && strncmp(src, "[(object)", 9) == 0,
		    "[DateInterval('P3D')] made plain: a stdClass of its ten properties, f a float");
		free(src);
		r = apply_unbox(&a, edits, 6, &b);
		src = render(&b);
		ok(r == 0 && strcmp(src, "[0.0]") == 0,
		    "[DateInterval('P3D')] replaced by its property f: [0.0]");
		free(src);
		ok(shrink_run(&a, &best, accept, &o, &st) == 0 && st.complete,
		    "its reduction reaches a fixpoint");
		src = render(&best);
		ok(strcmp(src, "[0.0]") == 0 && best.flags == 1 << 10,
		    "[DateInterval('P3D')] with the zero-fraction bug reduces to [0.0], the flag kept");
		free(src);

		builtin_in_list(&a, 3, 1234567890);
		r = apply_unbox(&a, edits, SHRINK_NONE, &b);
		src = render(&b);
		printf("# DateTimeImmutable('@1234567890') made plain: %s\n", src);
		ok(r == 0 && strstr(src, "'2009-02-13 23:31:30.000000'") &&
		        strstr(src, "'timezone_type' => 1") && strstr(src, "'+00:00'"),
		    "DateTimeImmutable('@t') made plain: date (UTC), timezone_type 1, timezone +00:00");
		free(src);
		builtin_in_list(&a, 1, 2);
		r = apply_unbox(&a, edits, SHRINK_NONE, &b);
		src = render(&b);
		ok(r == 0 && strcmp(src, "[[null, null]]") == 0, "SplFixedArray(2) made plain: [null, null]");
		free(src);
		builtin_in_list(&a, 4, 0);
		r = apply_unbox(&a, edits, SHRINK_NONE, &b);
		src = render(&b);
		printf("# WeakMap made plain: %s\n", src);
		ok(r == 0 && strcmp(src, "[new stdClass]") == 0 && apply_unbox(&a, edits, 0, &b) == -2,
		    "WeakMap made plain: an empty stdClass (no property to pick)");
		free(src);
	}

	/* The throwing destructor's declaration goes with the last object using it. */
	{
		struct gen_buf su = { 0 };
		uint64_t i;
		int made = 0, before;
		for (i = 0; i < 100000; i++) {
			gen_case_make(&a, 1, i);
			if (a.features & 1u << GEN_F_JSONSER_DTOR)
				break;
		}
		gen_render_setup(&a, &su);
		before = su.data != NULL && strstr(su.data, "class GenDtorThrow") != NULL;
		gen_buf_release(&su);
		shrink_apply(&a, NULL, &b);
		for (int guard = 0; guard < 64; guard++) {
			size_t n = shrink_candidates(&b, edits, 16384), x;
			for (x = 0; x < n; x++)
				if (edits[x].op == SHRINK_KIND && b.nodes[edits[x].a].kind == GEN_OBJECT &&
				    gen_class_at(b.nodes[edits[x].a].cls)->type == GEN_CLASS_JSONSER_DTOR)
					break;
			if (x == n)
				break;
			shrink_apply(&b, &edits[x], &a);
			memcpy(&b, &a, sizeof b);
			made++;
		}
		gen_render_setup(&b, &su);
		ok(before && made > 0 && !(b.features & 1u << GEN_F_JSONSER_DTOR) &&
		        (su.data == NULL || strstr(su.data, "GenDtorThrow") == NULL),
		    "the destructor's class is no longer declared once no object uses it");
		gen_buf_release(&su);
	}

	/* The budget stops it, keeping the best so far. */
	{
		struct oracle o = { .bug = bug_del, .budget = 3 };
		struct shrink_stats st;
		for (uint64_t i = 0;; i++) {
			gen_case_make(&a, 1, i);
			if (bug_del(&a))
				break;
		}
		shrink_run(&a, &best, accept, &o, &st);
		ok(!st.complete && st.tried == 4 && o.calls == 3 && bug_del(&best),
		    "a budget of 3 stops after 3 runs, the best kept");
	}
	{
		char *c;
		gen_case_make(&a, 1, 0);
		shrink_apply(&a, NULL, &b);
		b.flags = (1 << 0) | (1 << 10);
		b.depth = 3;
		c = shrink_canonical(&b);
		ok(c != NULL && strstr(c, "\nJSON_HEX_TAG|JSON_PRESERVE_ZERO_FRACTION\n3") != NULL,
		    "canonical: value, flags by name, depth");
		free(c);
	}
	/* A depth other than 512: the default first, then one less (never below 1). */
	{
		size_t n;
		int64_t seen[2] = { 0, 0 };
		int k = 0;
		gen_case_make(&a, 1, 0);
		shrink_apply(&a, NULL, &b);
		b.depth = 3;
		n = shrink_candidates(&b, edits, 16384);
		for (size_t x = 0; x < n; x++)
			if (edits[x].op == SHRINK_DEPTH && k < 2)
				seen[k++] = edits[x].v;
		ok(k == 2 && seen[0] == 512 && seen[1] == 2, "depth 3: candidates depth 512, then depth 2");
		{
			size_t last = 0;
			for (size_t x = 0; x < n; x++)
				if (edits[x].op == SHRINK_DEPTH)
					last = x;
			shrink_apply(&b, &edits[last], &a);
			ok(edits[last].op == SHRINK_DEPTH && a.depth == 2, "the edit lowers the depth");
		}
		b.depth = 1;
		n = shrink_candidates(&b, edits, 16384);
		k = 0;
		for (size_t x = 0; x < n; x++)
			if (edits[x].op == SHRINK_DEPTH)
				k++, seen[0] = edits[x].v;
		ok(k == 1 && seen[0] == 512, "depth 1: only back to 512");
	}

	/* The normal form: one bug, one minimal case, whichever member it starts from. */
	same_normal_form("a lone continuation byte", bug_lone, make_lone, 6, 10, "\"\\x80\"\n0\n512");
	same_normal_form(
	    "a character above U+FFFF", bug_astral, make_astral, 4, 10, "\"\xf0\x90\x80\x80\"\n0\n512");
	/* A mask in the escape's hex digits: the least power of two with the bit, or the fewest bits. */
	same_normal_form("bit 12 of a character's UTF-16 unit (an escape's first hex digit masked)",
	    bug_mask_high, make_mask_high, 7, 10, "\"\xe1\x80\x80\"\n0\n512");
	same_normal_form("an odd code point (an escape's last hex digit masked)", bug_mask_low, make_mask_low,
	    6, 10, "\"\\u{81}\"\n0\n512");
	same_normal_form("a non-empty string, padding ones too (str_repeat('x', n) up to 16)", bug_nonempty,
	    make_nonempty, 5, 10, "'a'\n0\n512");
	same_normal_form("a control byte's \\u00XX escape masked", bug_escape_digit, make_escape_digit, 6, 10,
	    "\"\\x01\"\n0\n512");
	same_normal_form("a key with a slash", bug_key_slash, make_key_slash, 4, 10, "['/' => null]\n0\n512");
	same_normal_form(
	    "JSON_HEX_AMP, _APOS or _QUOT", bug_hex_flag, make_hex, 3, 0, "null\nJSON_HEX_AMP\n512");
	{
		char *src;
		plan_string(&a, "xaaaaaaaay'aaaaaaaaaaaa", 23);
		src = render(&a);
		ok(strcmp(src, "'x' . str_repeat('a', 8) . \"y'\" . str_repeat('a', 12)") == 0,
		    "runs of 8 or more 'a' render as str_repeat(): 'x' . str_repeat('a', 8) . \"y'\" . str_repeat('a', 12)");
		printf("# rendered %s\n", src);
		free(src);
		plan_string(&a, "aaaaaaa", 7);
		src = render(&a);
		ok(strcmp(src, "'aaaaaaa'") == 0, "7 'a' stay a literal");
		free(src);
	}
	same_normal_form("a 16-byte string ending in a quote", bug_block, make_block, 3, 3,
	    "str_repeat('a', 15) . '\"'\n0\n512");
	same_normal_form(
	    "a string of 4 KiB or more", bug_long, make_long, 3, 3, "str_repeat('a', 4096)\n0\n512");
	same_normal_form("a slash in a string over 4 KiB, wherever it is", bug_long_slash, make_long_slash, 4,
	    0, "str_repeat('a', 4096) . '/'\n0\n512");
	same_normal_form("the first special byte at offset 15 of a block", bug_edge, make_edge, 3, 0,
	    "str_repeat('a', 15) . \"\\x00a\"\n0\n512");
	same_normal_form("a sequence whose earlier call fails on its depth", bug_seq_depth, NULL, 0, 6,
	    "$v = [];\ntry { json_encode($v, 0, 1); } catch (Throwable) {}\nreturn $v;\n0\n512");
	same_normal_form(
	    "INF and DEL together, either first", bug_pair, make_pair, 2, 0, "[INF, \"\\x7F\"]\n0\n512");
	same_normal_form("a float of at least 1e20", bug_big_float, make_big_float, 4, 0, "1E+20\n0\n512");
	same_normal_form("a float written with an exponent (small or large)", bug_exp_float, make_exp_float,
	    6, 8, "1E-05\n0\n512");
	same_normal_form("a case of GenEnumU", bug_enum_u, NULL, 0, 8, "GenEnumU::A\n0\n512");
	ok(precision17_differs(0.1) && precision17_differs(1e-5) && precision17_differs(49074.87906170046) &&
	        !precision17_differs(0.5) && !precision17_differs(0.001) && !precision17_differs(49074.0),
	    "serialize_precision=17's stand-in: 0.1, 1E-05 and 49074.87906170046 differ, 0.5, 0.001 and 49074.0 do not");
	same_normal_form("a float precision 17 writes otherwise (no exponent)", bug_precision17,
	    make_precision17, 9, 8, "0.1\n0\n512");
	same_normal_form("a float precision 17 writes otherwise (an exponent)", bug_precision17_exp,
	    make_precision17_exp, 5, 4, "1E-05\n0\n512");
	{
		/* Deterministic: the same start reduces to the same case, in the same tries. */
		int64_t t1 = 0, t2 = 0;
		char *f1, *f2;
		make_precision17(0);
		f1 = normal_form(bug_precision17, &a, &t1);
		f2 = normal_form(bug_precision17, &a, &t2);
		ok(strcmp(f1, f2) == 0 && t1 == t2 && strcmp(f1, "0.1\n0\n512") == 0,
		    "49074.87906170046 reduces to 0.1 twice alike");
		printf("# 49074.87906170046 -> 0.1 in %lld tries\n", (long long)t1);
		free(f1);
		free(f2);
	}
	{
		unsigned nobj = 0;
		for (unsigned cls = 0; cls < GEN_NCLASSES; cls++) {
			plan_object(&a, cls);
			nobj += bug_astral_shown(&a);
		}
		printf("# %u classes show an astral property name\n", nobj);
		same_normal_form("an astral character, in a property name too", bug_astral_shown,
		    make_astral_object, nobj, 4, "\"\xf0\x90\x80\x80\"\n0\n512");
	}
	same_normal_form("invalid UTF-8, in a backed enum's value too", bug_invalid, make_enum_d, 1, 6,
	    "\"\\x80\"\n0\n512");
	same_normal_form("an int of at least 1000", bug_big_int, make_int, 5, 5, "1000\n0\n512");
	same_normal_form("an array exactly as deep as the depth limit", bug_depth_limit, make_depth_limit, 4,
	    0, "[]\n0\n1");
	same_normal_form(
	    "an error of any kind (error precedence)", bug_any_error, make_any_error, 6, 10, "INF\n0\n512");
	same_normal_form("a failing element of a list (not INF: guard-kept's stand-in)", bug_element_fails,
	    make_element_fails, 4, 0, "[\"\\x80\"]\n0\n512");
	same_normal_form("a numeric key of an array shown as an object", bug_numeric_key, make_numeric_key, 6,
	    8, "[null]\nJSON_FORCE_OBJECT\n512");
	same_normal_form("an object's entry (the ':' after its key: e277.5's stand-in), a stdClass's too",
	    bug_object_entry, make_object_entry, 5, 10, "[null]\nJSON_FORCE_OBJECT\n512");
	ok(nested_list_class() < GEN_NCLASSES, "a class returns [json_encode($p), json_last_error(), $p]");
	same_normal_form("a list of two or more (the comma between elements: e232.29's stand-in), the "
	                 "one a nested call's object returns too",
	    bug_list_comma, make_list_comma, 3, 10, "[null, null]\n0\n512");
	same_normal_form("an entry with a string key and one after it (no comma: e249.20's stand-in)",
	    bug_string_key_comma, make_string_key_comma, 4, 10, "['' => null, 0 => null]\n0\n512");
	same_normal_form("two int keys in an object, an ArrayObject's too (e264.30's stand-in)",
	    bug_int_keys_object, make_int_keys_object, 4, 10, "[null, null]\nJSON_FORCE_OBJECT\n512");
	same_normal_form("a jsonSerialize() that returns its property or what it makes of it (e583.3's "
	                 "stand-in)",
	    bug_serializable, make_serializable, 3, 6, "new GenC37()\n0\n512");
	same_normal_form("an object's mangled property names shown: a stdClass of them, its key NUL",
	    bug_mangled_shown, make_mangled_shown, 6, 10, "(object)[\"\\x00\" => null]\n0\n512");
	same_normal_form("a plain class declaring a protected property: the canonical GenProtA",
	    bug_protected, make_protected, 4, 5, "new GenProtA()\n0\n512");
	same_normal_form("a float written with a fraction or an exponent, under PRESERVE_ZERO_FRACTION "
	                 "(e90.48's stand-in)",
	    bug_float_dot, make_float_dot, 8, 6, "0.5\nJSON_PRESERVE_ZERO_FRACTION\n512");
	same_normal_form("a declared public property not shown (e146.7's stand-in)", bug_props_hidden,
	    make_props_hidden, 5, 8, "new GenPubA()\n0\n512");
	same_normal_form("json_encode fails on a declared property, by its name or its value (e146.7's "
	                 "error roots)",
	    bug_hidden_error, make_hidden_error, 5, 8, "new GenPubX80()\n0\n512");
	same_normal_form("a throwing jsonSerialize() in a declared property (e146.7's exceptions)",
	    bug_throw_hidden, make_throw_hidden, 3, 4, "new GenPubA(['a' => new GenC39()])\n0\n512");
	same_normal_form_coded("a later error's code replacing a depth error's (e188.7's stand-in)",
	    code_after_depth, bug_after_depth, make_after_depth, 5, 6, "[[], INF]\n0\n1");
	same_normal_form_coded("a throw where false is due, the code any error's (j216.18's stand-in)",
	    code_thrown, bug_thrown, make_thrown, 6, 10, "INF\nJSON_THROW_ON_ERROR\n512");
	test_remainders(edits);
	test_moves(edits);
	free(edits);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
