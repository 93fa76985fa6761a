/* Unit tests for server/common/gen.c (the case generator), printing TAP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "tap.h"

/*
 * The hash of the first 10,000 cases of seed 1 (gen_case_hash of each, in
 * order).  It changes only when what the generator makes changes -- and then
 * GEN_VERSION must change too, or stored (version, seed, index) references
 * would name other values.
 */
#define PINNED_VERSION 3
#define PINNED_CORPUS 0x6062ba9542a46883ull
/* The corpus made for PHP 8.0 (seed 1, cases 0..9999), and the source every
 * PHP 8.0+ gets: the declarations and 2,000 cases' rendered values and setups
 * (test_versions_74: writing the 7.4 way must not move 8.0+ by one byte). */
#define PINNED_CORPUS_80 0x7174179be5fedeb0ull
#define PINNED_SOURCE 0x24319f9c4d297929ull

static struct gen_case a, b;

static int utf8_valid(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		size_t len;
		uint32_t cp;
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		if (u[i] >= 0xc2 && u[i] <= 0xdf)
			len = 2, cp = u[i] & 0x1f;
		else if (u[i] >= 0xe0 && u[i] <= 0xef)
			len = 3, cp = u[i] & 0x0f;
		else if (u[i] >= 0xf0 && u[i] <= 0xf4)
			len = 4, cp = u[i] & 0x07;
		else
			return 0;
		if (i + len > n)
			return 0;
		for (size_t k = 1; k < len; k++) {
			if ((u[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (u[i + k] & 0x3f);
		}
		if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return 0;
		i += len;
	}
	return 1;
}

/* Source text a reader can trust: valid UTF-8, no NUL or raw control bytes but \n and \t. */
static int readable(const char *s, size_t n)
{
	if (!utf8_valid(s, n))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7f)
			return 0;
	/* C1 controls (U+0080..U+009F) would be invisible. */
	for (size_t i = 0; i + 1 < n; i++)
		if ((unsigned char)s[i] == 0xc2 && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f)
			return 0;
	/* U+2028/U+2029 raw would be invisible line breaks. */
	return memmem(s, n, "\xe2\x80\xa8", 3) == NULL && memmem(s, n, "\xe2\x80\xa9", 3) == NULL;
}

static void test_determinism(void)
{
	uint64_t h[200];
	int same = 1, alone = 1, differ = 0;
	for (int i = 0; i < 200; i++) {
		gen_case_make(&a, 42, (uint64_t)i);
		h[i] = gen_case_hash(&a);
	}
	for (int i = 0; i < 200; i++) {
		gen_case_make(&b, 42, (uint64_t)i);
		same &= gen_case_hash(&b) == h[i];
	}
	/* Out of order, one at a time: nothing carries over from case to case. */
	for (int i = 199; i >= 0; i -= 7) {
		gen_case_make(&b, 42, (uint64_t)i);
		alone &= gen_case_hash(&b) == h[i];
	}
	for (int i = 1; i < 200; i++)
		differ += h[i] != h[i - 1];
	ok(same, "the same (seed, index) makes the same case twice");
	ok(alone, "a case made alone, out of order, is the one made in sequence");
	ok(differ == 199, "consecutive indexes make different cases (%d/199)", differ);
	gen_case_make(&a, 42, 7);
	gen_case_make(&b, 43, 7);
	ok(gen_case_hash(&a) != gen_case_hash(&b), "another seed makes another case");

	struct gen_buf r1 = { 0 }, r2 = { 0 };
	gen_case_make(&a, 5, 123);
	gen_render_value(&a, &r1);
	gen_case_make(&b, 5, 123);
	gen_render_value(&b, &r2);
	ok(r1.len == r2.len && memcmp(r1.data, r2.data, r1.len) == 0, "the same case renders the same PHP");
	gen_buf_release(&r1);
	gen_buf_release(&r2);
}

static void test_pinned(void)
{
	uint64_t h = GEN_HASH_INIT;
	for (uint64_t i = 0; i < 10000; i++) {
		gen_case_make(&a, 1, i);
		uint64_t ch = gen_case_hash(&a);
		h = gen_hash(&ch, sizeof ch, h);
	}
	/* A new GEN_VERSION fails here until the pin is updated with it: a
	 * changed generator must never pass unnoticed (it used to be a SKIP). */
	ok(GEN_VERSION == PINNED_VERSION,
	    "the pinned corpus is for generator version %d, GEN_VERSION is %d "
	    "(re-pin: PINNED_VERSION %d, PINNED_CORPUS 0x%016llx)",
	    PINNED_VERSION, GEN_VERSION, GEN_VERSION, (unsigned long long)h);
	ok(GEN_VERSION == PINNED_VERSION && h == PINNED_CORPUS,
	    "seed 1, cases 0..9999 hash to the pinned corpus hash "
	    "(got 0x%016llx: the generator changed -- bump GEN_VERSION and re-pin)",
	    (unsigned long long)h);
}

static void test_coverage(void)
{
	static uint64_t c[GEN_COUNTERS];
	char name[96], missing[512] = "";
	int all = 1;
	const int n = 20000;
	for (int i = 0; i < n; i++) {
		gen_case_make(&a, 9, (uint64_t)i);
		gen_count(&a, c);
	}
	ok(c[GEN_C_CASES] == (uint64_t)n, "counted %d cases", n);
	for (unsigned i = 1; i < GEN_COUNTERS; i++) {
		if (gen_counter_name(i, name, sizeof name) == NULL)
			continue;
		if (c[i] == 0 || strstr(name, "(null)") != NULL) { /* never reached, or a name missing */
			all = 0;
			if (strlen(missing) + strlen(name) + 2 < sizeof missing) {
				strcat(missing, " ");
				strcat(missing, name);
			}
		}
	}
	ok(all, "%d cases reach every piece, string shape, kind, feature, flag, class and enum%s%s", n,
	    all ? "" : "; never:", missing);
	/* Each of the 14 flags with probability 1/4; JSON_THROW_ON_ERROR 1/16. */
	int flags_ok = 1;
	for (unsigned bit = 0; bit < 23; bit++) {
		if (gen_counter_name(GEN_C_FLAG + bit, name, sizeof name) == NULL)
			continue;
		double p = (double)c[GEN_C_FLAG + bit] / n, want = bit == 22 ? 1.0 / 16 : 1.0 / 4;
		if (fabs(p - want) > 0.015) {
			flags_ok = 0;
			printf("# %s: %.4f, expected %.4f\n", name, p, want);
		}
	}
	ok(flags_ok, "each flag's frequency is its probability (1/4; JSON_THROW_ON_ERROR 1/16)");
	double invalid = (double)c[GEN_C_PIECE + GEN_P_BAD_LONE] / n;
	ok(invalid > 0.01 && invalid < 0.2,
	    "invalid UTF-8 is there but not everywhere (%.3f of cases have a lone continuation byte)",
	    invalid);
	double small = (double)c[GEN_C_FEATURE + GEN_F_SMALL_DEPTH] / n;
	ok(fabs(small - 0.125) < 0.015, "a small depth in 1/8 of the cases (%.4f)", small);
}

/* Version 2's kinds: each renders the PHP that makes it, and every back-reference names a container around it. */
static void test_v2_kinds(void)
{
	int seen[6] = { 0 }, good = 1, targets = 1;
	for (int i = 0; i < 5000; i++) {
		struct gen_buf code = { 0 }, setup = { 0 };
		gen_case_make(&a, 77, (uint64_t)i);
		gen_render_value(&a, &code);
		gen_render_setup(&a, &setup);
		if (a.features & 1u << GEN_F_RECURSION) {
			seen[0]++;
			good &= strstr(code.data, "(function () { $v = ") != NULL &&
			    strstr(code.data, "$t") != NULL && strstr(code.data, " return $v; })()") != NULL;
		}
		if (a.features & 1u << GEN_F_REFERENCE) {
			seen[1]++;
			good &= strstr(code.data, "&$h") != NULL;
		}
		if (a.features & 1u << GEN_F_GROW) {
			seen[2]++;
			good &= strncmp(code.data, "[str_repeat('x', ", 17) == 0 ||
			    strstr(code.data, "[str_repeat('x', ") != NULL;
		}
		if (a.features & 1u << GEN_F_JSONSER_DTOR) {
			seen[3]++;
			good &= strstr(setup.data, "class GenDtorThrow") != NULL;
		}
		if (strstr(code.data, "new ArrayObject(") != NULL)
			seen[4]++;
		if (strstr(code.data, "new WeakMap()") != NULL)
			seen[5]++;
		for (uint32_t k = 0; k < a.nnodes; k++)
			if (a.nodes[k].kind == GEN_REF && a.nodes[k].cls == 1 &&
			    (uint64_t)a.nodes[k].v.i >= k)
				targets = 0; /* an ancestor is made before what it contains */
		gen_buf_release(&code);
		gen_buf_release(&setup);
	}
	ok(good,
	    "references, recursion, padding and the throwing destructor render as their PHP "
	    "(%d recursive, %d with references, %d padded, %d destructor cases)",
	    seen[0], seen[1], seen[2], seen[3]);
	ok(seen[0] > 50 && seen[1] > 200 && seen[2] > 300 && seen[3] > 20 && seen[4] > 50 && seen[5] > 20,
	    "5,000 cases have each of them (ArrayObject %d, WeakMap %d)", seen[4], seen[5]);
	ok(targets, "every back-reference names a node made before it (a container around it)");
}

static void test_render(void)
{
	int good = 1, setup_good = 1, nonempty = 0;
	for (int i = 0; i < 5000; i++) {
		struct gen_buf code = { 0 }, setup = { 0 };
		gen_case_make(&a, 77, (uint64_t)i);
		if (gen_render_value(&a, &code) < 0 || gen_render_setup(&a, &setup) < 0) {
			good = 0;
			break;
		}
		/* One line, but a sequence: a statement per line. */
		const char *nl = memchr(code.data, '\n', code.len);
		if (!readable(code.data, code.len) || (a.npre == 0 && nl != NULL) ||
		    (a.npre > 0 &&
		        (strncmp(code.data, "$v = ", 5) != 0 || nl == NULL ||
		            memchr(code.data, '\n', (size_t)(nl - code.data)) != NULL))) {
			if (good)
				printf("# case %d renders unreadable: %.200s\n", i, code.data);
			good = 0;
		}
		if (setup.len > 0) {
			nonempty++;
			if (!readable(setup.data, setup.len)) {
				if (setup_good)
					printf("# case %d's setup is unreadable: %.300s\n", i, setup.data);
				setup_good = 0;
			}
		}
		gen_buf_release(&code);
		gen_buf_release(&setup);
	}
	ok(good,
	    "values render as one line of valid UTF-8 without control bytes or raw U+2028 (a "
	    "sequence: the value on the first line)");
	ok(setup_good && nonempty > 100,
	    "class declarations render as readable UTF-8 (eval() of an "
	    "escaped string where names are not UTF-8), %d setups",
	    nonempty);
}

/* A hand-made plan: the escaping of strings and the special numbers. */
static void test_render_exact(void)
{
	static const char bytes[] = "a\"\\$\n\x01\x7f\xe2\x80\xa8\xff \xc3\xa9"
	                            "id";
	struct gen_buf out = { 0 };
	memset(&a, 0, sizeof a);
	a.nodes[0].kind = GEN_MAP;
	a.nodes[0].first = 0;
	a.nodes[0].n = 3;
	a.nodes[1].kind = GEN_STRING;
	a.nodes[1].first = 0;
	a.nodes[1].n = sizeof bytes - 3;
	a.nodes[2].kind = GEN_FLOAT;
	a.nodes[2].v.d = -0.0;
	a.nodes[3].kind = GEN_FLOAT;
	a.nodes[3].v.d = 1e16;
	memcpy(a.bytes, bytes, sizeof bytes - 1);
	a.nbytes = sizeof bytes - 1;
	a.nnodes = 4;
	a.ents[0] = (struct gen_entry){ .value = 1, .key_type = GEN_KEY_INT, .key_int = INT64_MIN };
	a.ents[1] = (struct gen_entry){
		.value = 2, .key_type = GEN_KEY_STR, .key_off = sizeof bytes - 3, .key_len = 2
	};
	a.ents[2] = (struct gen_entry){ .value = 3, .key_type = GEN_KEY_INT, .key_int = -5 };
	a.nents = 3;
	a.root = 0;
	gen_render_value(&a, &out);
	const char *want =
	    "[PHP_INT_MIN => \"a\\\"\\\\\\$\\n\\x01\\x7F\\u{2028}\\xFF \xc3\xa9\", 'id' => -0.0, -5 => 1E+16]";
	ok(out.data != NULL && strcmp(out.data, want) == 0, "a map renders exactly (%s)",
	    out.data ? out.data : "(null)");
	gen_buf_release(&out);
}

static void test_doubles(void)
{
	static const double special[] = { 0.1, 1.5, 3.0, 1e15, 1e16, 1e22, 1e308, 1.7976931348623157e308,
		5e-324, 2.2250738585072014e-308, 0.30000000000000004, 9007199254740993.0, -1e-300,
		123456789.12345678 };
	char buf[64];
	int round = 1, looks = 1;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < sizeof special / sizeof special[0] + 20000; i++) {
		double d;
		if (i < sizeof special / sizeof special[0]) {
			d = special[i];
		} else {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(&d, &x, sizeof d);
			if (!isfinite(d))
				continue;
		}
		gen_format_double(d, buf, sizeof buf);
		double back = strtod(buf, NULL);
		if (memcmp(&back, &d, sizeof d) != 0) {
			if (round)
				printf("# %.17g rendered %s\n", d, buf);
			round = 0;
		}
		if (!strpbrk(buf, ".E"))
			looks = 0;
	}
	ok(round, "every finite double renders as text that reads back bit for bit");
	ok(looks, "and always as a float literal (a '.' or an exponent), never an int");
	gen_format_double(-0.0, buf, sizeof buf);
	ok(strcmp(buf, "-0.0") == 0, "-0.0 renders as -0.0");
	gen_format_double(NAN, buf, sizeof buf);
	ok(strcmp(buf, "NAN") == 0, "NAN renders as NAN");
	gen_format_double(-INFINITY, buf, sizeof buf);
	ok(strcmp(buf, "-INF") == 0, "-INF renders as -INF");
}

static void test_classes(void)
{
	int high = 0, hidden = 0, unique = 1, ident = 1, sizes = 1;
	size_t len;
	const char *decl = gen_declarations(&len);
	for (unsigned i = 0; i < GEN_NCLASSES; i++) {
		const struct gen_class *k = gen_class_at(i);
		int has_high = 0;
		sizes &= k->nprops >= 1 && k->nprops <= GEN_MAX_PROPS;
		for (unsigned p = 0; p < k->nprops; p++) {
			const unsigned char *n = (const unsigned char *)k->props[p].name;
			hidden += k->props[p].visibility != GEN_PUBLIC;
			for (unsigned j = 0; j < k->props[p].len; j++) {
				has_high |= n[j] >= 0x80;
				int letter = (n[j] >= 'a' && n[j] <= 'z') || (n[j] >= 'A' && n[j] <= 'Z') ||
				    n[j] == '_' || n[j] >= 0x80;
				if (!letter && !(j > 0 && n[j] >= '0' && n[j] <= '9'))
					ident = 0;
			}
			for (unsigned q = 0; q < p; q++)
				if (k->props[q].len == k->props[p].len &&
				    !memcmp(k->props[q].name, n, k->props[p].len))
					unique = 0;
		}
		high += has_high;
		if (decl == NULL || strstr(decl, k->name) == NULL)
			sizes = 0;
	}
	ok(sizes, "%d declared classes of 1..%d properties, all in the declarations", GEN_NCLASSES,
	    GEN_MAX_PROPS);
	ok(ident && unique, "property names are PHP identifiers, unique within their class");
	ok(high >= 30, "%d of %d classes name a property with bytes 0x80-0xff", high, GEN_NCLASSES);
	ok(hidden > 10, "%d properties are private or protected", hidden);
}

static void test_hash_and_digest(void)
{
	char x[100], y[100];
	int differ = 1;
	memset(x, 'a', sizeof x);
	for (size_t i = 0; i < sizeof x; i++) {
		memcpy(y, x, sizeof x);
		y[i] ^= 1;
		differ &= gen_hash(x, sizeof x, GEN_HASH_INIT) != gen_hash(y, sizeof y, GEN_HASH_INIT);
	}
	ok(differ, "changing any one byte changes the hash");
	ok(gen_hash("ab", 2, GEN_HASH_INIT) != gen_hash("ab\0", 3, GEN_HASH_INIT),
	    "the length is part of the hash");

	struct gen_digest d = { 0x0102030405060708ull, 0xfffefdfcfbfaf9f8ull, 123456, 0x7fff, 512, 2, 11, 1,
		1 },
	                  e;
	unsigned char packed[GEN_DIGEST_SIZE];
	gen_digest_pack(&d, packed);
	gen_digest_unpack(&e, packed);
	ok(packed[0] == 0x08 && packed[7] == 0x01, "digests are packed little-endian");
	ok(e.plan_hash == d.plan_hash && e.result_hash == d.result_hash && e.out_len == d.out_len &&
	        e.flags == d.flags && e.depth == d.depth && e.status == d.status &&
	        e.error_code == d.error_code && e.is_false == d.is_false && e.exception == d.exception,
	    "a digest survives pack and unpack");
}

/*
 * Version 3: sequences of calls, a jsonSerialize() that calls json_encode(),
 * strings at block lengths.  Each shows in the source the way gencore.c
 * runs it, at the rate gen.c draws it.
 */
static void test_v3_kinds(void)
{
	int n = 20000, seq = 0, two = 0, fail = 0, nested = 0, seq_good = 1, block = 0, edge = 0;
	int k4 = 0, k64 = 0, long_good = 1, mutate = 0, mutate_good = 1;
	for (int i = 0; i < n; i++) {
		struct gen_buf code = { 0 }, setup = { 0 };
		gen_case_make(&a, 3, (uint64_t)i);
		gen_render_value(&a, &code);
		gen_render_setup(&a, &setup);
		if (a.npre > 0) {
			seq++;
			two += a.npre == 2;
			fail += (a.features & 1u << GEN_F_SEQ_FAIL) != 0;
			/* "$v = …;\n" then one try per earlier call, then "return $v;". */
			const char *at = strstr(code.data, ";\ntry { json_encode($v, ");
			int calls = 0;
			for (const char *t = code.data; (t = strstr(t, "try { json_encode($v, ")) != NULL;
			     t++)
				calls++;
			size_t len = strlen(code.data);
			int this_good = at != NULL && calls == (int)a.npre && len > 10 &&
			    strcmp(code.data + len - 10, "return $v;") == 0 &&
			    strstr(code.data, "); } catch (Throwable) {}\n") != NULL;
			if (!this_good && seq_good)
				printf("# case %d: %.300s\n", i, code.data + (len > 300 ? len - 300 : 0));
			seq_good &= this_good;
			if (a.pre_depth[0] != 512) {
				char want[64];
				snprintf(want, sizeof want, ", %lld); } catch", (long long)a.pre_depth[0]);
				seq_good &= strstr(code.data, want) != NULL;
			}
		}
		if (a.features & 1u << GEN_F_NESTED) {
			nested++;
			/* (Escaped inside eval() where a property name is not UTF-8.) */
			seq_good &= strstr(setup.data, "{ return json_encode(") != NULL ||
			    strstr(setup.data, "{ return [json_encode(") != NULL;
		}
		if (a.features & 1u << GEN_F_MUTATE) {
			/* [&$hR] and $hR = [... new GenC44([...], $hR) ...]: one reference, bound by the constructor. */
			char want[64];
			mutate++;
			const char *at = strstr(code.data, "= [&$h");
			unsigned r = at ? (unsigned)strtoul(at + 6, NULL, 10) : 0;
			snprintf(want, sizeof want, "], $h%u)", r);
			mutate_good &= at != NULL && strstr(code.data, want) != NULL &&
			    strstr(setup.data, "&...") != NULL &&
			    strstr(setup.data, "array_key_first(") != NULL;
		}
		if (a.shapes & 1u << GEN_S_BLOCK) {
			block++;
			for (uint32_t k = 0; k < a.nnodes; k++) {
				const struct gen_node *x = &a.nodes[k];
				if (x->kind != GEN_STRING || x->pad)
					continue;
				if (x->n >= 4096 - 16 && x->n <= 4096 + 16 + 12)
					k4++;
				if (x->n >= 65536 - 16 && x->n <= 65536 + 16 + 12)
					k64++;
				if (x->n % 16 == 0 || x->n % 16 == 1 || x->n % 16 == 15)
					edge++;
			}
			/* A long run renders short: no string literal of kilobytes. */
			long_good &= code.len < 8192;
		}
		gen_buf_release(&code);
		gen_buf_release(&setup);
	}
	ok(seq > n / 10 && seq < n / 6 && two > seq / 6 && two < seq / 3 && fail > seq / 2,
	    "one case in 8 is a sequence (%d of %d; %d of two earlier calls, %d with a failing one)", seq, n,
	    two, fail);
	ok(seq_good,
	    "a sequence renders as the value in $v, one caught json_encode($v, …) per earlier call "
	    "(its depth when not 512) and return $v; a nested class calls json_encode() in jsonSerialize()");
	ok(nested > n / 200, "jsonSerialize() calls json_encode() in %d cases", nested);
	ok(mutate > n / 80 && mutate < n / 20 && mutate_good,
	    "%d cases hold a list that an element's jsonSerialize() writes into through the list's own "
	    "reference (bound by the constructor's second argument)",
	    mutate);
	ok(block > n / 50 && edge > 0 && k4 > 0 && k64 > 0 && long_good,
	    "block strings in %d cases: %d at a block edge, %d around 4 KiB, %d around 64 KiB, "
	    "all rendered in under 8 KiB of source",
	    block, edge, k4, k64);

	char flags[256];
	gen_flags_source(0, flags, sizeof flags);
	ok(strcmp(flags, "0") == 0, "no flags render as 0");
	gen_flags_source(128 | 512 | (1 << 22), flags, sizeof flags);
	ok(strcmp(flags, "JSON_PRETTY_PRINT | JSON_PARTIAL_OUTPUT_ON_ERROR | JSON_THROW_ON_ERROR") == 0,
	    "flags render by name, joined with | (%s)", flags);
}

/* A long run of one character renders as str_repeat() of that character, the rest as literals. */
static void test_render_runs(void)
{
	struct gen_buf out = { 0 };
	memset(&a, 0, sizeof a);
	memset(a.bytes, '/', 4095);
	a.bytes[4095] = '"';
	memcpy(a.bytes + 4096, "\xc3\xa9\xc3\xa9\xc3\xa9", 6);
	a.nnodes = 1;
	a.nodes[0].kind = GEN_STRING;
	a.nodes[0].n = 4102;
	a.nbytes = 4102;
	a.flags = 0;
	a.depth = 512;
	gen_render_value(&a, &out);
	ok(out.data && strcmp(out.data, "str_repeat('/', 4095) . \"\\\"ééé\"") == 0,
	    "4,095 slashes, a quote and 3 'é' render as %s", out.data ? out.data : "(null)");
	gen_buf_release(&out);
	for (int i = 0; i < 40; i++)
		memcpy(a.bytes + 2 * i, "\xc3\xa9", 2);
	a.nodes[0].n = 80;
	gen_render_value(&a, &out);
	ok(out.data && strcmp(out.data, "str_repeat(\"é\", 40)") == 0, "40 'é' render as %s",
	    out.data ? out.data : "(null)");
	gen_buf_release(&out);
}

/*
 * Cases for an older PHP (issue 45): made for PHP 8.0 they never use a
 * construct of 8.1 (an enum value, an enum declaration); made for 8.1, 8.2
 * or GEN_PHP_ALL they are the pinned corpus, byte for byte.
 */
static void test_versions(void)
{
	uint64_t h81 = GEN_HASH_INIT, h82 = GEN_HASH_INIT, hall = GEN_HASH_INIT;
	int enum_nodes = 0, enum_text = 0, enum_bits = 0, readable80 = 1, differ = 0, strings = 0;
	char left[64];
	for (uint64_t i = 0; i < 10000; i++) {
		uint64_t x;
		gen_case_make_php(&a, 1, i, 80100);
		x = gen_case_hash(&a);
		h81 = gen_hash(&x, sizeof x, h81);
		gen_case_make_php(&a, 1, i, 80232);
		x = gen_case_hash(&a);
		h82 = gen_hash(&x, sizeof x, h82);
		gen_case_make(&b, 1, i);
		x = gen_case_hash(&b);
		hall = gen_hash(&x, sizeof x, hall);

		gen_case_make_php(&a, 1, i, 80010);
		for (uint32_t k = 0; k < a.nnodes; k++)
			enum_nodes += a.nodes[k].kind == GEN_ENUM;
		enum_bits += a.enums != 0 || (a.kinds & 1u << GEN_ENUM) != 0;
		differ += gen_case_hash(&a) != x;
		if (b.enums != 0 && a.enums == 0)
			strings++;
		if (i % 10 == 0) {
			struct gen_buf v = { 0 }, st = { 0 };
			gen_render_value(&a, &v);
			gen_render_setup(&a, &st);
			readable80 &= !v.failed && !st.failed;
			enum_text += v.data != NULL && strstr(v.data, "GenEnum") != NULL;
			enum_text += st.data != NULL && strstr(st.data, "enum ") != NULL;
			gen_buf_release(&v);
			gen_buf_release(&st);
		}
	}
	ok(h81 == PINNED_CORPUS && h82 == PINNED_CORPUS && hall == PINNED_CORPUS,
	    "made for PHP 8.1, 8.2 or every PHP: the pinned corpus, unchanged");
	ok(enum_nodes == 0 && enum_bits == 0, "made for PHP 8.0.10: no enum in 10,000 cases (%d nodes)",
	    enum_nodes);
	ok(enum_text == 0 && readable80, "made for PHP 8.0.10: no enum in the rendered value or setup");
	ok(strings > 0 && differ > 0 && differ < 10000,
	    "the cases that had an enum differ for 8.0 (%d with an enum; %d differ), the rest do not",
	    strings, differ);

	size_t len, len80;
	const char *all = gen_declarations(&len);
	const char *d80 = gen_declarations_php(80000, &len80);
	ok(all == d80 && len80 < len && memmem(d80, len80, "enum ", 5) == NULL &&
	        memmem(all, len, "enum GenEnumS", 13) != NULL,
	    "the declarations for PHP 8.0 leave the enums out, and only them");
	gen_declarations_php(80100, &len80);
	ok(len80 == len, "the declarations for PHP 8.1 are whole");

	ok(gen_left_out(80000, left, sizeof left) > 0 && strcmp(left, "enums") == 0,
	    "for PHP 8.0 the generator says it left out: %s", left);
	ok(gen_left_out(80100, left, sizeof left) == 0 && left[0] == '\0' &&
	        gen_left_out(GEN_PHP_ALL, left, sizeof left) == 0,
	    "for PHP 8.1 and newer nothing is left out");
	ok(gen_php_floor(80010) == 80010 && gen_php_floor(80100) == GEN_PHP_ALL &&
	        gen_php_floor(80232) == GEN_PHP_ALL,
	    "the floor: 8.0.10 stays, 8.1 and 8.2 make every construct");
	ok(gen_php_id("8.2.32") == 80232 && gen_php_id("8.1.0RC1") == 80100 &&
	        gen_php_id("8.0.10") == 80010 && gen_php_id("8.4.0-dev") == 80400 && gen_php_id("") == 0 &&
	        gen_php_id(NULL) == 0,
	    "PHP versions read as PHP_VERSION_ID");
}

/* How often needle occurs in the n bytes at s. */
static int count_in(const char *s, size_t n, const char *needle)
{
	int k = 0;
	size_t m = strlen(needle);
	for (const char *at = s; at != NULL && (size_t)(at - s) + m <= n; at++) {
		at = memmem(at, n - (size_t)(at - s), needle, m);
		if (at == NULL)
			break;
		k++;
	}
	return k;
}

/* Is every "#[" alone on its line (after tabs), "]" ending it: a comment to PHP 7.4? */
static int attributes_alone(const char *s, size_t n)
{
	for (const char *at = s; (at = memmem(at, n - (size_t)(at - s), "#[", 2)) != NULL; at += 2) {
		const char *bol = at, *eol = memchr(at, '\n', n - (size_t)(at - s));
		while (bol > s && bol[-1] == '\t')
			bol--;
		if ((bol > s && bol[-1] != '\n') || eol == NULL || eol[-1] != ']')
			return 0;
	}
	return 1;
}

/*
 * Cases for PHP 7.4 (the php-7.4 reference, issue 49): no construct of 8.0
 * or 8.1 -- no `mixed`, no catch without a variable, no WeakMap, no enum --
 * the typed properties unset() by the constructor instead, jsonSerialize()
 * with #[\ReturnTypeWillChange] alone on its line; and none of it moves a
 * byte of what PHP 8.0 and newer get.
 */
static void test_versions_74(void)
{
	uint64_t h80 = GEN_HASH_INIT, src = GEN_HASH_INIT;
	int weakmaps = 0, differ = 0, differ_weak = 0, bad = 0, enums = 0, typed_setups = 0, catches = 0,
	    failed = 0;
	char left[64];
	size_t len, len74;
	const char *all = gen_declarations(&len);
	const char *d74 = gen_declarations_php(70433, &len74);

	src = gen_hash(all, len, src);
	for (uint64_t i = 0; i < 10000; i++) {
		uint64_t x;
		int weak = 0;
		gen_case_make_php(&b, 1, i, 80000);
		x = gen_case_hash(&b);
		h80 = gen_hash(&x, sizeof x, h80);
		for (uint32_t k = 0; k < b.nnodes; k++)
			weak |= b.nodes[k].kind == GEN_BUILTIN && b.nodes[k].cls == 4;
		gen_case_make_php(&a, 1, i, 70400);
		for (uint32_t k = 0; k < a.nnodes; k++)
			weakmaps += a.nodes[k].kind == GEN_BUILTIN && a.nodes[k].cls == 4;
		enums += a.enums != 0 || (a.kinds & 1u << GEN_ENUM) != 0;
		differ += gen_case_hash(&a) != x;
		differ_weak += (gen_case_hash(&a) != x) != weak;
		if (i % 5 == 0) {
			struct gen_buf v = { 0 }, st = { 0 }, v8 = { 0 }, st8 = { 0 };
			gen_render_value(&a, &v);
			gen_render_setup(&a, &st);
			failed += v.failed || st.failed;
			if (v.data != NULL) {
				bad += count_in(v.data, v.len, "catch (Throwable)") +
				    count_in(v.data, v.len, "WeakMap") + count_in(v.data, v.len, "GenEnum");
				catches += count_in(v.data, v.len, "catch (Throwable $ignored)");
			}
			if (st.data != NULL) {
				/* A setup declaring through eval() writes its newlines \n. */
				bad += count_in(st.data, st.len, "mixed") +
				    count_in(st.data, st.len, "enum ") +
				    (strstr(st.data, "eval(") == NULL && !attributes_alone(st.data, st.len));
				typed_setups += count_in(st.data, st.len, "unset($this->{") > 0;
			}
			gen_case_make_php(&b, 1, i, i % 2 ? GEN_PHP_ALL : 80000);
			gen_render_value(&b, &v8);
			gen_render_setup(&b, &st8);
			src = gen_hash(v8.data, v8.len, src);
			src = gen_hash(st8.data ? st8.data : "", st8.len, src);
			gen_buf_release(&v);
			gen_buf_release(&st);
			gen_buf_release(&v8);
			gen_buf_release(&st8);
		}
	}
	ok(h80 == PINNED_CORPUS_80, "made for PHP 8.0: the pinned 8.0 corpus (got 0x%016llx)",
	    (unsigned long long)h80);
	ok(src == PINNED_SOURCE,
	    "PHP 8.0+ and every construct: the declarations and 2,000 rendered cases, pinned (got 0x%016llx)",
	    (unsigned long long)src);
	ok(weakmaps == 0 && enums == 0, "made for PHP 7.4: no WeakMap, no enum in 10,000 cases");
	ok(differ > 0 && differ_weak == 0,
	    "exactly the cases with a WeakMap for 8.0 differ for 7.4 (%d, %d otherwise)", differ,
	    differ_weak);
	ok(bad == 0 && failed == 0 && catches > 0 && typed_setups > 0,
	    "rendered for PHP 7.4: no `mixed`, bare catch, WeakMap or enum (%d found); %d sequences "
	    "catch (Throwable $ignored), %d setups unset() typed properties",
	    bad, catches, typed_setups);

	int jsonser = 0, typed_classes = 0;
	for (unsigned i = 0; i < GEN_NCLASSES; i++) {
		const struct gen_class *k = gen_class_at(i);
		int typed = 0;
		jsonser += k->type >= GEN_CLASS_JSONSER;
		for (unsigned p = 0; p < k->nprops; p++)
			typed |= k->props[p].typed;
		typed_classes += typed;
	}
	ok(d74 != NULL && d74 != all && count_in(d74, len74, "mixed") == 0 &&
	        count_in(d74, len74, "enum ") == 0 && count_in(d74, len74, "): ") == 0 &&
	        count_in(d74, len74, "catch") == 0 && count_in(d74, len74, "?->") == 0 &&
	        count_in(d74, len74, "match") == 0,
	    "the declarations for PHP 7.4: no `mixed`, no return type, no enum");
	ok(d74 != NULL &&
	        count_in(d74, len74, "\t#[\\ReturnTypeWillChange]\n\tpublic function jsonSerialize() { ") ==
	            jsonser &&
	        count_in(d74, len74, "public function __construct(array $v = []") == GEN_NCLASSES &&
	        count_in(d74, len74, "unset($this->{") == typed_classes && attributes_alone(d74, len74),
	    "... %d jsonSerialize() with #[\\ReturnTypeWillChange] alone on its line, %d constructors "
	    "unset() their typed properties",
	    jsonser, typed_classes);
	ok(gen_declarations_php(70400, &len74) == d74 && gen_declarations_php(80000, &len74) == all,
	    "every PHP before 8.0 gets the 7.4 declarations, 8.0 the whole ones' prefix");
	ok(gen_left_out(70433, left, sizeof left) > 0 && strcmp(left, "enums, WeakMap") == 0,
	    "for PHP 7.4 the generator says it left out: %s", left);
	ok(gen_php_floor(70433) == 70433, "the floor: 7.4.33 stays");
}

int main(void)
{
	test_determinism();
	test_pinned();
	test_versions();
	test_versions_74();
	test_v2_kinds();
	test_v3_kinds();
	test_render_runs();
	test_coverage();
	test_render();
	test_render_exact();
	test_doubles();
	test_classes();
	test_hash_and_digest();
	return tap_done();
}
