/*
 * The generator of json_encode cases (see gen.h): PRNG, plan, PHP source
 * rendering, hashing, digest records and coverage counters.  Pure C: no PHP
 * headers, no libc randomness, no floating point in any decision.
 */
#include "buf.h"
#include "flags.h"
#include "gen.h"
#include "proto.h"

#include <endian.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- PRNG: wyrand (one multiply per draw), seeded through splitmix64 ---- */

static uint64_t gen_mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Every (version, seed, index) gets its own stream: any case is made alone. */
static void gen_rng_seed(struct gen_rng *r, uint64_t seed, uint64_t index)
{
	r->s = gen_mix(
	    gen_mix(seed ^ ((uint64_t)GEN_VERSION << 48)) ^ gen_mix(index + 0x51ed270b27902bd3ull));
}

static uint64_t gen_next(struct gen_rng *r)
{
	__extension__ typedef unsigned __int128 u128;
	r->s += 0xa0761d6478bd642full;
	u128 t = (u128)r->s * (r->s ^ 0xe7037ed1a0b428dbull);
	return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* 0 .. n-1 (n <= 2^32), by multiplication: no division, no bias worth a loop. */
static uint32_t gen_below(struct gen_rng *r, uint32_t n)
{
	return (uint32_t)(((gen_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* True with probability 1/n. */
static int gen_one_in(struct gen_rng *r, uint32_t n)
{
	return gen_below(r, n) == 0;
}

/* ---- hashing ---- */

static uint64_t gen_load64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/*
 * Eight bytes at a time: xor, multiply by an odd constant, fold the high
 * half down.  Each step is a bijection of the state, so two inputs of the
 * same length that differ anywhere end in different states; the length is
 * mixed in last.
 */
uint64_t gen_hash(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;
	size_t n = len;
	while (n >= 8) {
		h = (h ^ gen_load64(p)) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
		p += 8;
		n -= 8;
	}
	if (n > 0) {
		uint64_t v = 0;
		for (size_t i = n; i > 0; i--)
			v = v << 8 | p[i - 1];
		h = (h ^ v) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	h = (h ^ (uint64_t)len) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 29);
}

static uint64_t gen_hash_u64(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 32);
}

/* ---- byte tables for strings ---- */

/* clang-format off */
static const char *const gen_ascii_words[] = {
	"id", "name", "value", "a", "b", "x", "key", "data", "type", "items",
	"Hello", "world", "42", "foo bar", "a.b", "x-y", "_", "CamelCase", "snake_case", "~",
	"!", "#", "%", "(", ")", "*", "+", ",", "-", ".",
	":", ";", "=", "?", "@", "[", "]", "^", "`", "{",
	"|", "}", " ", "  ", "0", "1", "9", "Z", "zz", "$",
};
/* clang-format on */

/* ("...\x9f" "e"): split, or \x9fe would be one escape. */
/* clang-format off */
static const char *const gen_text_words[] = {
	"Jos\xc3\xa9 M\xc3\xbcller-\xc3\x98ster", ("Stra\xc3\x9f" "e"), "\xc3\x85ngstr\xc3\xb6m",
	"na\xc3\xafve caf\xc3\xa9", "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82",
	"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "\xce\xb1\xce\xb2\xce\xb3",
	"https://example.org/fhir/R4/Patient/123", "https://example.org/a?b=1&c=2",
	"/usr/local/bin", "C:\\Users\\x", "<b>bold</b>", "it's", "\"quoted\"",
	"a/b", "line1\nline2", "tab\there", "\xf0\x9f\x98\x80 smile", "20 \xe2\x82\xac", "1 < 2 && 3 > 2",
};
/* clang-format on */

static const char gen_control_esc[] = { '\b', '\f', '\n', '\r', '\t' };

/* High-byte fragments for property names: bytes 0x80-0xff, valid UTF-8 ... */
/* clang-format off */
static const char *const gen_high_frags[] = {
	"\xc3\xa9", "\xc3\xbc", "\xc3\x98", "\xc3\xb1", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe6\x97\xa5",
	"\xf0\x9f\x98\x80", "\xce\xb1", "\xd0\x96",
};
/* clang-format on */

/* ... and not (a name like that makes the object JSON_ERROR_UTF8). */
static const char *const gen_bad_frags[] = {
	"\xff",
	"\xfe",
	"\x80",
	"\xc3",
	"\xed\xa0\x80",
	"\xc0\xaf",
};

/* clang-format off */
static const char *const gen_numeric_strings[] = {
	"0", "1", "-1", "123", "-0", "007", "1.5", "-2.5", "1e3", "1E-3",
	".5", "5.", "1.0", " 12", "12 ", "0x1A", "0b11", "1_000", "+3", "1e400",
	"-1e400", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
	"0.1", "1e16", "123abc", "NAN", "INF", "0.30000000000000004",
};
/* clang-format on */

/* Piece weights, summing to 256: mostly clean text, 2% invalid UTF-8. */
/* clang-format off */
static const uint8_t gen_piece_weights[GEN_P_COUNT] = {
	[GEN_P_ASCII] = 100, [GEN_P_QUOTE] = 10, [GEN_P_BACKSLASH] = 9, [GEN_P_SLASH] = 12,
	[GEN_P_TAG] = 9, [GEN_P_AMP] = 7, [GEN_P_APOS] = 7, [GEN_P_CONTROL_ESC] = 9,
	[GEN_P_CONTROL] = 6, [GEN_P_DEL] = 4, [GEN_P_UTF8_2] = 16, [GEN_P_UTF8_3] = 12,
	[GEN_P_UTF8_4] = 9, [GEN_P_LINE_SEP] = 9, [GEN_P_BAD_LONE] = 1, [GEN_P_BAD_TRUNC] = 1,
	[GEN_P_BAD_OVERLONG] = 1, [GEN_P_BAD_SURROGATE] = 1, [GEN_P_BAD_ABOVE] = 1, [GEN_P_TEXT] = 32,
};
/* clang-format on */

/* The weights unrolled: a piece is one table lookup (made by gen_init). */
static uint8_t gen_piece_table[256];

static unsigned gen_pick_piece(struct gen_rng *r)
{
	return gen_piece_table[gen_next(r) >> 56];
}

#define GEN_NELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define GEN_THROW_BIT 22

/*
 * Table words' lengths, measured once (gen_init): a word is then one memcpy,
 * not a strlen and a memcpy, in the generator's most frequent copy.
 */
static uint32_t gen_ascii_lens[GEN_NELEMS(gen_ascii_words)];
static uint32_t gen_text_lens[GEN_NELEMS(gen_text_words)];
static uint32_t gen_numeric_lens[GEN_NELEMS(gen_numeric_strings)];
static uint64_t gen_flag_allowed; /* the flags a case's draw may set (gen_init) */

static void gen_measure(const char *const *words, uint32_t *lens, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lens[i] = (uint32_t)strlen(words[i]);
}

/* ---- declared classes ---- */

static struct gen_class gen_classes[GEN_NCLASSES_ALL];
static char *gen_decl_src;
static size_t gen_decl_len, gen_decl_len_noenums; /* the enums come last */
static pthread_once_t gen_once = PTHREAD_ONCE_INIT;

static const char *const gen_enum_names[GEN_NENUMS] = { "GenEnumS", "GenEnumI", "GenEnumU" };
static const unsigned gen_enum_ncases[GEN_NENUMS] = { 4, 3, 2 };
/* clang-format off */
static const char *const gen_enum_decls[GEN_NENUMS] = {
	("enum GenEnumS: string { case A = 'plain'; case B = \"<a href=\\\"/x\\\">&'</a>\"; "
	    "case C = \"\\u{2028}\\u{e9}/\"; case D = \"\\xff\\xfe\"; }\n"),
	"enum GenEnumI: int { case A = 0; case B = -1; case C = PHP_INT_MAX; }\n",
	"enum GenEnumU { case A; case B; }\n",
};
/* clang-format on */

/* What GEN_CLASS_JSONSER_DTOR's jsonSerialize() holds in a local. */
static const char gen_dtor_decl[] =
    "class GenDtorThrow { public function __destruct() { "
    "throw new RuntimeException('GenDtorThrow refuses to be destroyed'); } }\n";

static void gen_buf_put(struct gen_buf *, const void *, size_t);
static void gen_buf_puts(struct gen_buf *, const char *);
static void gen_render_string(struct gen_buf *, const char *, size_t);

/* A property name: an identifier (letters, _, bytes 0x80-0xff), mostly with high bytes. */
static void gen_prop_name(struct gen_rng *r, struct gen_prop *p)
{
	char buf[64];
	size_t n = 0;
	int parts = 1 + (int)gen_below(r, 3), high = !gen_one_in(r, 6);
	for (int i = 0; i < parts; i++) {
		if (high && (i == 0 || gen_one_in(r, 2))) {
			const char *f = gen_one_in(r, 8)
			    ? gen_bad_frags[gen_below(r, GEN_NELEMS(gen_bad_frags))]
			    : gen_high_frags[gen_below(r, GEN_NELEMS(gen_high_frags))];
			memcpy(buf + n, f, strlen(f));
			n += strlen(f);
		} else {
			static const char first[] = "abcxyzABCXYZ_";
			buf[n++] = first[gen_below(r, sizeof(first) - 1)];
			if (i > 0 && gen_one_in(r, 3))
				buf[n++] = (char)('0' + gen_below(r, 10));
		}
	}
	if (n > sizeof(p->name) - 1)
		n = sizeof(p->name) - 1;
	/* A cut may leave a high fragment short: still a valid identifier byte. */
	memcpy(p->name, buf, n);
	p->name[n] = '\0';
	p->len = (uint8_t)n;
}

int64_t gen_nested_flags(const struct gen_class *k)
{
	/* gen_class_source's calls: none, JSON_PRETTY_PRINT, JSON_PRETTY_PRINT | JSON_PARTIAL_OUTPUT_ON_ERROR */
	static const int64_t flags[GEN_NESTED_VARIANTS] = { 0, 128, 128 | 512 };
	return flags[k->variant % GEN_NESTED_VARIANTS];
}

/* One class's declaration as PHP source with the names' raw bytes. */
static void gen_class_source(const struct gen_class *k, struct gen_buf *b)
{
	static const char *const vis[] = { "public", "protected", "private" };
	if (k->type == GEN_CLASS_DYNAMIC)
		gen_buf_puts(b, "#[AllowDynamicProperties]\n");
	gen_buf_puts(b, "class ");
	gen_buf_puts(b, k->name);
	if (k->type >= GEN_CLASS_JSONSER)
		gen_buf_puts(b, " implements JsonSerializable");
	gen_buf_puts(b, " {\n");
	for (int i = 0; i < k->nprops; i++) {
		gen_buf_puts(b, "\t");
		gen_buf_puts(b, vis[k->props[i].visibility]);
		gen_buf_puts(b, k->props[i].typed ? " mixed $" : " $");
		gen_buf_put(b, k->props[i].name, k->props[i].len);
		gen_buf_puts(b, k->props[i].typed ? ";\n" : " = null;\n");
	}
	/* Sets private and protected properties too: it runs in the class scope. */
	if (k->type == GEN_CLASS_JSONSER_MUTATE) {
		/* A second argument, by reference, binds the first property to it. */
		gen_buf_puts(b,
		    "\tpublic function __construct(array $v = [], &...$r) { foreach ($v as $k => $x) "
		    "$this->$k = $x; if ($r) $this->{");
		gen_render_string(b, k->props[0].name, k->props[0].len);
		gen_buf_puts(b, "} = &$r[0]; }\n");
		gen_buf_puts(b, "\tpublic function jsonSerialize(): mixed { $p = &$this->{");
		gen_render_string(b, k->props[0].name, k->props[0].len);
		/* Enough appended that the list's storage must grow: moved away
		 * under an encoder still walking it, unless the encoder holds it. */
		gen_buf_puts(b,
		    "}; if (is_array($p) && $p) { unset($p[array_key_first($p)]); "
		    "for ($i = 0; $i < 16; $i++) $p[] = $i; } return is_array($p) ? count($p) : $p; }\n}\n");
		return;
	}
	gen_buf_puts(
	    b, "\tpublic function __construct(array $v = []) { foreach ($v as $k => $x) $this->$k = $x; }\n");
	if (k->type == GEN_CLASS_JSONSER || k->type == GEN_CLASS_JSONSER_DTOR) {
		gen_buf_puts(b,
		    k->type == GEN_CLASS_JSONSER_DTOR
		        ? "\tpublic function jsonSerialize(): mixed { $guard = new GenDtorThrow(); return $this->{"
		        : "\tpublic function jsonSerialize(): mixed { return $this->{");
		gen_render_string(b, k->props[0].name, k->props[0].len);
		gen_buf_puts(b, "}; }\n");
	} else if (k->type == GEN_CLASS_JSONSER_NESTED) {
		/* A json_encode() inside the outer one: its own flags, its error
		 * code left behind for the outer call, its indentation.  Their
		 * flags: gen_nested_flags. */
		static const char *const call[GEN_NESTED_VARIANTS] = {
			"return json_encode($this->{%}); }\n",
			"return json_encode($this->{%}, JSON_PRETTY_PRINT); }\n",
			("return [json_encode($this->{%}, JSON_PRETTY_PRINT | JSON_PARTIAL_OUTPUT_ON_ERROR), "
			 "json_last_error(), $this->{%}]; }\n"),
		};
		gen_buf_puts(b, "\tpublic function jsonSerialize(): mixed { ");
		for (const char *at = call[k->variant % GEN_NESTED_VARIANTS]; *at; at++) {
			if (*at == '%')
				gen_render_string(b, k->props[0].name, k->props[0].len);
			else
				gen_buf_put(b, at, 1);
		}
	} else if (k->type == GEN_CLASS_JSONSER_THIS) {
		gen_buf_puts(b, "\tpublic function jsonSerialize(): mixed { return $this; }\n");
	} else if (k->type == GEN_CLASS_JSONSER_THROW) {
		gen_buf_puts(b, "\tpublic function jsonSerialize(): mixed { throw new RuntimeException('");
		gen_buf_puts(b, k->name);
		gen_buf_puts(b, " refuses to be encoded'); }\n");
	}
	gen_buf_puts(b, "}\n");
}

/*
 * The class table, the same on every machine: made from a fixed stream.
 * 30 plain classes, 4 with dynamic properties, 4 JsonSerializable returning
 * a property, one returning $this, one that throws, one whose local's
 * destructor throws after the return value is made, three that call
 * json_encode() on their property inside the outer call, one that writes
 * into its property (bound, in gen_mutating's shape, to the list around it).
 */
static void gen_init(void)
{
	struct gen_rng r;
	struct gen_buf b = { 0 };
	gen_measure(gen_ascii_words, gen_ascii_lens, GEN_NELEMS(gen_ascii_words));
	gen_measure(gen_text_words, gen_text_lens, GEN_NELEMS(gen_text_words));
	gen_measure(gen_numeric_strings, gen_numeric_lens, GEN_NELEMS(gen_numeric_strings));
	for (int f = 0; f < 23; f++)
		if (flags_name(1L << f) != NULL && f != GEN_THROW_BIT)
			gen_flag_allowed |= 1ull << f;
	for (unsigned p = 0, at = 0; p < GEN_P_COUNT; p++)
		for (unsigned k = 0; k < gen_piece_weights[p] && at < 256; k++)
			gen_piece_table[at++] = (uint8_t)p;
	gen_rng_seed(&r, 0x6c617373ull, 0);
	for (unsigned i = 0; i < GEN_NCLASSES; i++) {
		struct gen_class *k = &gen_classes[i];
		snprintf(k->name, sizeof(k->name), "GenC%u", i);
		k->type = i < 30 ? GEN_CLASS_PLAIN
		    : i < 34     ? GEN_CLASS_DYNAMIC
		    : i < 38     ? GEN_CLASS_JSONSER
		    : i == 38    ? GEN_CLASS_JSONSER_THIS
		    : i == 39    ? GEN_CLASS_JSONSER_THROW
		    : i == 40    ? GEN_CLASS_JSONSER_DTOR
		    : i < 44     ? GEN_CLASS_JSONSER_NESTED
		                 : GEN_CLASS_JSONSER_MUTATE;
		k->variant = (uint8_t)(i > 40 && i < 44 ? i - 41 : 0);
		k->nprops = (uint8_t)(1 + gen_below(&r, GEN_MAX_PROPS));
		for (int p = 0; p < k->nprops; p++) {
			struct gen_prop *pr = &k->props[p];
			int dup;
			do {
				gen_prop_name(&r, pr);
				dup = 0;
				for (int q = 0; q < p; q++)
					if (k->props[q].len == pr->len &&
					    !memcmp(k->props[q].name, pr->name, pr->len))
						dup = 1;
			} while (dup);
			unsigned v = gen_below(&r, 10);
			pr->visibility = v < 6 ? GEN_PUBLIC : v < 8 ? GEN_PROTECTED : GEN_PRIVATE;
			pr->typed = gen_one_in(&r, 4);
		}
		/* JsonSerializable classes return their first property: private, untyped. */
		if (k->type == GEN_CLASS_JSONSER || k->type == GEN_CLASS_JSONSER_DTOR ||
		    k->type == GEN_CLASS_JSONSER_NESTED || k->type == GEN_CLASS_JSONSER_MUTATE) {
			k->props[0].visibility = GEN_PRIVATE;
			k->props[0].typed = 0;
		}
	}
	/* The reducer's canonical classes (gen.h): made, not drawn. */
	for (unsigned i = 0; i < GEN_NCANON; i++) {
		static const char *const name[GEN_NCANON] = { "GenPubA", "GenPubX80", "GenTypedA", "GenProtA",
			"GenPrivA" };
		static const uint8_t vis[GEN_NCANON] = { GEN_PUBLIC, GEN_PUBLIC, GEN_PUBLIC, GEN_PROTECTED,
			GEN_PRIVATE };
		struct gen_class *k = &gen_classes[GEN_NCLASSES + i];
		snprintf(k->name, sizeof(k->name), "%s", name[i]);
		k->type = GEN_CLASS_PLAIN;
		k->nprops = 1;
		k->props[0].name[0] = i == 1 ? (char)0x80 : 'a';
		k->props[0].len = 1;
		k->props[0].visibility = vis[i];
		k->props[0].typed = i == 2;
	}
	gen_buf_puts(&b, gen_dtor_decl);
	for (unsigned i = 0; i < GEN_NCLASSES; i++)
		gen_class_source(&gen_classes[i], &b);
	gen_decl_len_noenums = b.len;
	for (unsigned i = 0; i < GEN_NENUMS; i++)
		gen_buf_puts(&b, gen_enum_decls[i]);
	gen_buf_put(&b, "", 1);
	if (!b.failed) {
		gen_decl_src = b.data;
		gen_decl_len = b.len - 1;
	} else {
		gen_buf_release(&b);
	}
}

static void gen_ensure_init(void)
{
	pthread_once(&gen_once, gen_init);
}

const struct gen_class *gen_class_at(unsigned i)
{
	gen_ensure_init();
	return i < GEN_NCLASSES_ALL ? &gen_classes[i] : NULL;
}

const char *gen_enum_name(unsigned i)
{
	return i < GEN_NENUMS ? gen_enum_names[i] : NULL;
}

unsigned gen_enum_cases(unsigned i)
{
	return i < GEN_NENUMS ? gen_enum_ncases[i] : 0;
}

const char *gen_declarations(size_t *len)
{
	gen_ensure_init();
	*len = gen_decl_len;
	return gen_decl_src;
}

/* ---- the version table: the first PHP of each construct the generator emits ---- */

#define GEN_PHP_ENUMS 80100

static const struct {
	const char *name;
	uint32_t php; /* PHP_VERSION_ID */
} gen_constructs[] = {
	{ "enums", GEN_PHP_ENUMS }, /* GEN_ENUM values and their declarations */
};

/* Whether a case for `php` may use a construct first in `first`. */
static int gen_php_has(uint32_t php, uint32_t first)
{
	return php == GEN_PHP_ALL || php >= first;
}

uint32_t gen_php_floor(uint32_t php)
{
	for (size_t i = 0; i < GEN_NELEMS(gen_constructs); i++)
		if (!gen_php_has(php, gen_constructs[i].php))
			return php;
	return GEN_PHP_ALL;
}

uint32_t gen_php_id(const char *version)
{
	unsigned major = 0, minor = 0, patch = 0;
	if (version == NULL || sscanf(version, "%u.%u.%u", &major, &minor, &patch) < 2 || major == 0 ||
	    minor > 99 || patch > 99)
		return 0;
	return major * 10000 + minor * 100 + patch;
}

size_t gen_left_out(uint32_t php, char *buf, size_t size)
{
	size_t len = 0;
	if (size > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < GEN_NELEMS(gen_constructs); i++) {
		if (gen_php_has(php, gen_constructs[i].php))
			continue;
		int w = snprintf(
		    buf + len, size > len ? size - len : 0, "%s%s", len ? ", " : "", gen_constructs[i].name);
		if (w < 0 || (size_t)w >= (size > len ? size - len : 0))
			break;
		len += (size_t)w;
	}
	return len;
}

const char *gen_declarations_php(uint32_t php, size_t *len)
{
	const char *src = gen_declarations(len);
	if (!gen_php_has(php, GEN_PHP_ENUMS))
		*len = gen_decl_len_noenums;
	return src;
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

static void gen_bytes(struct gen_case *c, const void *s, size_t n)
{
	if (c->nbytes + n > GEN_MAX_BYTES)
		n = GEN_MAX_BYTES - c->nbytes;
	memcpy(c->bytes + c->nbytes, s, n);
	c->nbytes += (uint32_t)n;
}

static void gen_byte(struct gen_case *c, unsigned char b)
{
	if (c->nbytes < GEN_MAX_BYTES)
		c->bytes[c->nbytes++] = (char)b;
}

size_t gen_utf8_put(uint32_t cp, unsigned char out[4])
{
	if (cp < 0x80) {
		out[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | cp >> 6);
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | cp >> 12);
		out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (unsigned char)(0xf0 | cp >> 18);
	out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

static void gen_utf8(struct gen_case *c, uint32_t cp)
{
	unsigned char u[4];
	size_t n = gen_utf8_put(cp, u);

	for (size_t x = 0; x < n; x++)
		gen_byte(c, u[x]);
}

static unsigned char gen_cont(struct gen_rng *r)
{
	return (unsigned char)(0x80 + gen_below(r, 0x40));
}

/* An invalid UTF-8 piece: its bytes drawn in the order they are written
 * (the corpus depends on the order of draws). */
static void gen_bad_utf8(struct gen_case *c, unsigned p)
{
	struct gen_rng *r = &c->rng;

	switch (p) {
	case GEN_P_BAD_TRUNC: {
		/* A lead byte with fewer continuation bytes than it announces. */
		unsigned need = 1 + gen_below(r, 3), have = gen_below(r, need);
		gen_byte(c,
		    (unsigned char)(need == 1 ? 0xc2 + gen_below(r, 30)
		            : need == 2       ? 0xe1 + gen_below(r, 12)
		                              : 0xf1 + gen_below(r, 3)));
		for (unsigned i = 0; i < have; i++)
			gen_byte(c, gen_cont(r));
		break;
	}
	case GEN_P_BAD_OVERLONG:
		switch (gen_below(r, 3)) {
		case 0:
			gen_byte(c, (unsigned char)(0xc0 + gen_below(r, 2)));
			break;
		case 1:
			gen_byte(c, 0xe0);
			gen_byte(c, (unsigned char)(0x80 + gen_below(r, 0x20)));
			break;
		default:
			gen_byte(c, 0xf0);
			gen_byte(c, (unsigned char)(0x80 + gen_below(r, 0x10)));
			gen_byte(c, gen_cont(r));
			break;
		}
		gen_byte(c, gen_cont(r));
		break;
	case GEN_P_BAD_SURROGATE:
		gen_byte(c, 0xed);
		gen_byte(c, (unsigned char)(0xa0 + gen_below(r, 0x20)));
		gen_byte(c, gen_cont(r));
		break;
	case GEN_P_BAD_ABOVE:
		switch (gen_below(r, 3)) {
		case 0:
			gen_byte(c, 0xf4);
			gen_byte(c, (unsigned char)(0x90 + gen_below(r, 0x30)));
			gen_byte(c, gen_cont(r));
			gen_byte(c, gen_cont(r));
			break;
		case 1:
			gen_byte(c, (unsigned char)(0xf5 + gen_below(r, 3)));
			gen_byte(c, gen_cont(r));
			gen_byte(c, gen_cont(r));
			gen_byte(c, gen_cont(r));
			break;
		default:
			gen_byte(c, (unsigned char)(0xf8 + gen_below(r, 8)));
			break;
		}
		break;
	}
}

static void gen_piece(struct gen_case *c, unsigned p)
{
	struct gen_rng *r = &c->rng;
	unsigned k;
	c->pieces |= 1ull << p;
	switch (p) {
	case GEN_P_ASCII:
		k = gen_below(r, GEN_NELEMS(gen_ascii_words));
		gen_bytes(c, gen_ascii_words[k], gen_ascii_lens[k]);
		break;
	case GEN_P_QUOTE:
		gen_byte(c, '"');
		break;
	case GEN_P_BACKSLASH:
		gen_byte(c, '\\');
		break;
	case GEN_P_SLASH:
		gen_byte(c, '/');
		break;
	case GEN_P_TAG:
		gen_byte(c, gen_one_in(r, 2) ? '<' : '>');
		break;
	case GEN_P_AMP:
		gen_byte(c, '&');
		break;
	case GEN_P_APOS:
		gen_byte(c, '\'');
		break;
	case GEN_P_CONTROL_ESC:
		gen_byte(c, (unsigned char)gen_control_esc[gen_below(r, 5)]);
		break;
	case GEN_P_CONTROL: {
		static const unsigned char other[] = { 0, 1, 2, 3, 4, 5, 6, 7, 0x0b, 0x0e, 0x0f, 0x10, 0x1b,
			0x1e, 0x1f };
		gen_byte(c, other[gen_below(r, sizeof(other))]);
		break;
	}
	case GEN_P_DEL:
		gen_byte(c, 0x7f);
		break;
	case GEN_P_UTF8_2:
		gen_utf8(c, 0x80 + gen_below(r, 0x800 - 0x80));
		break;
	case GEN_P_UTF8_3: {
		uint32_t cp;
		do
			cp = 0x800 + gen_below(r, 0x10000 - 0x800);
		while ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0x2028 || cp == 0x2029);
		gen_utf8(c, cp);
		break;
	}
	case GEN_P_UTF8_4:
		gen_utf8(c, 0x10000 + gen_below(r, 0x110000 - 0x10000));
		break;
	case GEN_P_LINE_SEP:
		gen_utf8(c, gen_one_in(r, 2) ? 0x2028 : 0x2029);
		break;
	case GEN_P_BAD_LONE:
		gen_byte(c, gen_cont(r));
		break;
	case GEN_P_BAD_TRUNC:
	case GEN_P_BAD_OVERLONG:
	case GEN_P_BAD_SURROGATE:
	case GEN_P_BAD_ABOVE:
		gen_bad_utf8(c, p);
		break;
	default:
		k = gen_below(r, GEN_NELEMS(gen_text_words));
		gen_bytes(c, gen_text_words[k], gen_text_lens[k]);
		break;
	}
}

/* A long string of ~200 bytes: the encoder's bulk paths. */
static void gen_long_string(struct gen_case *c)
{
	struct gen_rng *r = &c->rng;
	unsigned len = 150 + gen_below(r, 100), variant = gen_below(r, 5), i;
	uint32_t start = c->nbytes;
	if (variant == 3) {
		while (c->nbytes - start < len)
			gen_bytes(c, "https://example.org/fhir/R4/Patient/123/", 40);
		return;
	}
	/* Ten characters per draw: 6 bits each from a 64-letter alphabet. */
	static const char alphabet[64] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -";
	uint64_t bits = 0;
	if (c->nbytes + len <= GEN_MAX_BYTES) {
		/* Room for all of it: written straight, ten per draw, no bound per byte. */
		char *out = c->bytes + c->nbytes;
		for (i = 0; i + 10 <= len; i += 10) {
			bits = gen_next(r);
			for (unsigned k = 0; k < 10; k++, bits >>= 6)
				out[i + k] = alphabet[bits & 63];
		}
		if (i < len)
			for (bits = gen_next(r); i < len; i++, bits >>= 6)
				out[i] = alphabet[bits & 63];
		c->nbytes += len;
	} else {
		for (i = 0; i < len; i++, bits >>= 6) {
			if (i % 10 == 0)
				bits = gen_next(r);
			gen_byte(c, (unsigned char)alphabet[bits & 63]);
		}
	}
	if (variant == 1 && c->nbytes > start)
		c->bytes[start] = '"';
	else if (variant == 2 && c->nbytes > start)
		c->bytes[c->nbytes - 1] = '"';
	else if (variant == 4)
		gen_piece(c, gen_pick_piece(r));
}

/*
 * The lengths at which a scanner that works in 16-byte blocks (php-src's
 * SSE2/NEON escaping) changes path: anything up to 80, a multiple of 16 and
 * its neighbours, and the 4 KiB and 64 KiB marks give or take a block.
 */
static uint32_t gen_block_length(struct gen_rng *r)
{
	unsigned s = gen_below(r, 100);
	if (s < 50)
		return 1 + gen_below(r, 80);
	if (s < 85)
		return 16 * (1 + gen_below(r, 16)) + gen_below(r, 3) - 1;
	if (s < 97)
		return 4096 - 16 + gen_below(r, 33);
	return 65536 - 16 + gen_below(r, 33);
}

/* Where a special byte goes: the head, the tail, either side of a block edge, anywhere. */
static uint32_t gen_block_offset(struct gen_rng *r, uint32_t len)
{
	uint32_t edge = len < 18 ? len : 18, at;
	switch (gen_below(r, 4)) {
	case 0:
		return gen_below(r, edge);
	case 1:
		return len - 1 - gen_below(r, edge);
	case 2:
		if (len < 16)
			return gen_below(r, len);
		at = 16 * (1 + gen_below(r, len / 16)) + gen_below(r, 3) - 1;
		return at < len ? at : len - 1;
	default:
		return gen_below(r, len);
	}
}

/* n bytes of the run's filler: 'a', '/' (escaped unless asked not to) or 'é'. */
static void gen_block_fill(struct gen_case *c, unsigned fill, uint32_t n)
{
	char *out = c->bytes + c->nbytes;
	if (fill < 2) {
		memset(out, fill == 0 ? 'a' : '/', n);
	} else {
		for (uint32_t i = 0; i + 1 < n; i += 2)
			memcpy(out + i, "\xc3\xa9", 2);
		if (n % 2)
			out[n - 1] = 'a';
	}
	c->nbytes += n;
}

/*
 * A run of one character with 0-3 special pieces (escapes, controls, UTF-8,
 * an invalid byte) at block edges: the string's total length is the drawn
 * one unless a piece overhangs the end.
 */
static void gen_block_string(struct gen_case *c)
{
	struct gen_rng *r = &c->rng;
	uint32_t len = gen_block_length(r), at[3], n, cursor = 0;
	unsigned fill = gen_below(r, 10), draw = gen_below(r, 20);
	fill = fill < 7 ? 0 : fill < 9 ? 1 : 2;
	if (c->nbytes + len + 64 >= GEN_MAX_BYTES)
		len = 1 + len % 80;
	n = draw < 3 ? 0 : draw < 14 ? 1 : draw < 18 ? 2 : 3;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t v = gen_block_offset(r, len), j = k;
		for (; j > 0 && at[j - 1] > v; j--)
			at[j] = at[j - 1];
		at[j] = v;
	}
	for (uint32_t k = 0; k < n; k++) {
		unsigned p;
		if (at[k] > cursor)
			gen_block_fill(c, fill, at[k] - cursor);
		uint32_t before = c->nbytes;
		if (gen_one_in(r, 8)) {
			p = GEN_P_BAD_LONE + gen_below(r, 5);
		} else {
			do
				p = gen_pick_piece(r);
			while (p == GEN_P_ASCII || p == GEN_P_TEXT);
		}
		gen_piece(c, p);
		cursor = (at[k] > cursor ? at[k] : cursor) + (c->nbytes - before);
	}
	if (len > cursor)
		gen_block_fill(c, fill, len - cursor);
}

/* String bytes at the end of the arena; its offset, length into *len. */
static uint32_t gen_string_bytes(struct gen_case *c, int key, uint32_t *len)
{
	struct gen_rng *r = &c->rng;
	uint32_t start = c->nbytes;
	unsigned s = gen_below(r, 100);
	if (s < 4) {
		c->shapes |= 1u << GEN_S_EMPTY;
	} else if (s < 12) {
		unsigned k = gen_below(r, GEN_NELEMS(gen_numeric_strings));
		c->shapes |= 1u << GEN_S_NUMERIC;
		gen_bytes(c, gen_numeric_strings[k], gen_numeric_lens[k]);
	} else if (s < 15 && !key) {
		c->shapes |= 1u << GEN_S_LONG;
		gen_long_string(c);
	} else if (s < 20 && !key) {
		c->shapes |= 1u << GEN_S_BLOCK;
		gen_block_string(c);
	} else {
		unsigned n = 1 + gen_below(r, key ? 3 : 6);
		c->shapes |= 1u << GEN_S_PIECES;
		for (unsigned i = 0; i < n; i++)
			gen_piece(c, gen_pick_piece(r));
	}
	*len = c->nbytes - start;
	return start;
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
		e->key_len = gen_numeric_lens[w];
		gen_bytes(c, gen_numeric_strings[w], e->key_len);
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
	const struct gen_class *k = &gen_classes[ci];
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
	const struct gen_class *k = &gen_classes[ci];
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
		c->nodes[i].n = gen_below(r, gen_enum_ncases[c->nodes[i].cls]);
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

#define GEN_BIT(b) ((int64_t)1 << (b))
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
	gen_ensure_init();
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

uint64_t gen_case_hash(const struct gen_case *c)
{
	uint64_t h = GEN_HASH_INIT;
	h = gen_hash_u64(h, GEN_VERSION);
	h = gen_hash_u64(h, (uint64_t)c->flags);
	h = gen_hash_u64(h, (uint64_t)c->depth);
	h = gen_hash_u64(h, c->root);
	h = gen_hash_u64(h, c->npre);
	for (uint32_t k = 0; k < c->npre; k++) {
		h = gen_hash_u64(h, (uint64_t)c->pre_flags[k]);
		h = gen_hash_u64(h, (uint64_t)c->pre_depth[k]);
	}
	for (uint32_t i = 0; i < c->nnodes; i++) {
		const struct gen_node *n = &c->nodes[i];
		uint64_t v;
		if (n->kind == GEN_FLOAT)
			memcpy(&v, &n->v.d, sizeof(v));
		else
			v = (uint64_t)n->v.i;
		h = gen_hash_u64(h,
		    (uint64_t)n->kind | (uint64_t)n->cls << 8 | (uint64_t)n->pad << 24 |
		        (uint64_t)n->n << 32);
		h = gen_hash_u64(h, n->kind == GEN_STRING ? n->first : v);
	}
	for (uint32_t i = 0; i < c->nents; i++) {
		const struct gen_entry *e = &c->ents[i];
		h = gen_hash_u64(h, (uint64_t)e->value | (uint64_t)e->key_type << 32);
		h = gen_hash_u64(h,
		    e->key_type == GEN_KEY_STR ? (uint64_t)e->key_off | (uint64_t)e->key_len << 32
		                               : (uint64_t)e->key_int);
	}
	return gen_hash(c->bytes, c->nbytes, h);
}

void gen_title(uint64_t seed, uint64_t index, char *buf, size_t size)
{
	snprintf(buf, size, "generated v%d seed %llu #%llu", GEN_VERSION, (unsigned long long)seed,
	    (unsigned long long)index);
}

/* ---- rendering PHP source ---- */

void gen_buf_release(struct gen_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static void gen_buf_put(struct gen_buf *b, const void *s, size_t n)
{
	if (b->failed)
		return;
	if (buf_grow(&b->data, &b->cap, b->len + n + 1) < 0) {
		b->failed = 1;
		return;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static void gen_buf_puts(struct gen_buf *b, const char *s)
{
	gen_buf_put(b, s, strlen(s));
}

/* Length of a well-formed UTF-8 sequence at s (RFC 3629), 0 if there is none. */
static size_t gen_utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf && n >= 2 && (s[1] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
		return 2;
	}
	if (s[0] >= 0xe0 && s[0] <= 0xef && n >= 3 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		return *cp >= 0x800 && (*cp < 0xd800 || *cp > 0xdfff) ? 3 : 0;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4 && n >= 4 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 &&
	    (s[3] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
		    (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
		return *cp >= 0x10000 && *cp <= 0x10ffff ? 4 : 0;
	}
	return 0;
}

/* Characters a reader would not see: C1 controls, zero-width and bidi marks, U+2028/9. */
static int gen_invisible(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0xad || (cp >= 0x200b && cp <= 0x200f) ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) || cp == 0xfeff;
}

/*
 * A string's PHP source: its literal, but a run of GEN_RUN_MIN or more 'a'
 * (the filler a reduced case's unimportant characters become, docs/triage.md
 * "Normal form"), or of GEN_RUN_OTHER or more of any other character (a
 * block string's filler), as str_repeat('a', n), joined to the rest with
 * " . ", so a case whose bug needs a length stays short:
 * str_repeat('a', 15) . '"', str_repeat('é', 2048).
 */
#define GEN_RUN_MIN 8
#define GEN_RUN_OTHER 32

static void gen_render_literal(struct gen_buf *, const char *, size_t);

/* How many times the character at s[0] repeats from there (its bytes into *unit). */
static size_t gen_run_at(const char *s, size_t n, size_t *unit)
{
	uint32_t cp;
	size_t u = gen_utf8_len((const unsigned char *)s, n, &cp), run = 1;
	if (u == 0)
		u = 1;
	while ((run + 1) * u <= n && !memcmp(s, s + run * u, u))
		run++;
	*unit = u;
	return run;
}

static void gen_render_string(struct gen_buf *b, const char *s, size_t n)
{
	size_t at = 0, i = 0, unit;
	int sep = 0;
	char num[48];

	while (i < n) {
		size_t run = gen_run_at(s + i, n - i, &unit);
		if (run < (s[i] == 'a' ? GEN_RUN_MIN : GEN_RUN_OTHER)) {
			i += unit;
			continue;
		}
		if (i > at) {
			if (sep)
				gen_buf_puts(b, " . ");
			gen_render_literal(b, s + at, i - at);
			sep = 1;
		}
		if (sep)
			gen_buf_puts(b, " . ");
		gen_buf_puts(b, "str_repeat(");
		gen_render_literal(b, s + i, unit);
		snprintf(num, sizeof(num), ", %zu)", run);
		gen_buf_puts(b, num);
		sep = 1;
		i += run * unit;
		at = i;
	}
	if (at < n || !sep) {
		if (sep)
			gen_buf_puts(b, " . ");
		gen_render_literal(b, s + at, n - at);
	}
}

/*
 * A PHP string literal for any bytes: single-quoted when that is plain
 * printable ASCII, else double-quoted with escapes -- control bytes, DEL
 * and invalid UTF-8 as \xNN, invisible characters (U+2028...) as \u{...};
 * other UTF-8 stays as it is, so the source is readable UTF-8 text.
 */
static void gen_render_literal(struct gen_buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i;
	int plain = 1;
	for (i = 0; i < n && plain; i++)
		plain = u[i] >= 0x20 && u[i] < 0x7f && u[i] != '\'' && u[i] != '\\';
	if (plain) {
		gen_buf_put(b, "'", 1);
		gen_buf_put(b, s, n);
		gen_buf_put(b, "'", 1);
		return;
	}
	gen_buf_put(b, "\"", 1);
	for (i = 0; i < n;) {
		unsigned char ch = u[i];
		char esc[16];
		uint32_t cp;
		size_t len;
		switch (ch) {
		case '\\':
			gen_buf_put(b, "\\\\", 2);
			i++;
			continue;
		case '"':
			gen_buf_put(b, "\\\"", 2);
			i++;
			continue;
		case '$':
			gen_buf_put(b, "\\$", 2);
			i++;
			continue;
		case '\n':
			gen_buf_put(b, "\\n", 2);
			i++;
			continue;
		case '\r':
			gen_buf_put(b, "\\r", 2);
			i++;
			continue;
		case '\t':
			gen_buf_put(b, "\\t", 2);
			i++;
			continue;
		default:
			break;
		}
		if (ch < 0x20 || ch == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02X", ch);
			gen_buf_puts(b, esc);
			i++;
			continue;
		}
		len = gen_utf8_len(u + i, n - i, &cp);
		if (len == 0) {
			snprintf(esc, sizeof(esc), "\\x%02X", ch);
			gen_buf_puts(b, esc);
			i++;
		} else if (gen_invisible(cp)) {
			snprintf(esc, sizeof(esc), "\\u{%X}", (unsigned)cp);
			gen_buf_puts(b, esc);
			i += len;
		} else {
			gen_buf_put(b, s + i, len);
			i += len;
		}
	}
	gen_buf_put(b, "\"", 1);
}

void gen_format_double(double d, char *buf, size_t size)
{
	if (isnan(d)) {
		snprintf(buf, size, "NAN");
		return;
	}
	if (isinf(d)) {
		snprintf(buf, size, d > 0 ? "INF" : "-INF");
		return;
	}
	if (d == 0) {
		snprintf(buf, size, signbit(d) ? "-0.0" : "0.0");
		return;
	}
	/* The shortest form that reads back as the same double. */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*G", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	/* "3" would be an int in PHP. */
	if (!strpbrk(buf, ".E"))
		strncat(buf, ".0", size - strlen(buf) - 1);
}

/*
 * A case with references renders as a closure called at once: holes &$hN
 * in the literals, filled after the value is built ($hN = ...; in order),
 * and each container a back-reference names assigned to $tN where it is
 * written -- what PHP source needs to make a value that contains itself.
 */
struct gen_render_refs {
	uint32_t queue[GEN_MAX_NODES], head, tail;
	unsigned char target[GEN_MAX_NODES];
};

static void gen_render_node(
    const struct gen_case *c, uint32_t i, struct gen_buf *b, struct gen_render_refs *q);

/* The kinds of version 2 (gen_render_node's other cases). */
static int gen_render_new_kind(
    const struct gen_case *c, uint32_t i, struct gen_buf *b, struct gen_render_refs *q)
{
	const struct gen_node *n = &c->nodes[i];
	char num[64];
	if (n->kind == GEN_STRING && n->pad) {
		snprintf(num, sizeof(num), "str_repeat('x', %u)", (unsigned)n->n);
		gen_buf_puts(b, num);
		return 1;
	}
	if (n->kind == GEN_REF && n->cls == 2) {
		/* The same reference as an ancestor's: its variable, no fill of its own. */
		snprintf(num, sizeof(num), "&$h%u", (unsigned)n->v.i);
		gen_buf_puts(b, num);
		return 1;
	}
	if (n->kind == GEN_REF) {
		snprintf(num, sizeof(num), "&$h%u", (unsigned)i);
		gen_buf_puts(b, num);
		if (q != NULL && q->tail < GEN_MAX_NODES)
			q->queue[q->tail++] = i;
		return 1;
	}
	if (n->kind == GEN_BUILTIN) {
		static const char *const fmt[] = { NULL, "new SplFixedArray(%lld)",
			"new DateInterval('P%lldD')", "new DateTimeImmutable('@%lld')", "new WeakMap()" };
		if (n->cls >= 1 && n->cls <= 4) {
			snprintf(num, sizeof(num), fmt[n->cls], (long long)n->v.i);
			gen_buf_puts(b, num);
		} else {
			gen_buf_puts(b, "new ArrayObject(");
			gen_render_node(c, c->ents[n->first].value, b, q);
			gen_buf_puts(b, ")");
		}
		return 1;
	}
	if (q != NULL && q->target[i]) {
		snprintf(num, sizeof(num), "$t%u = ", (unsigned)i);
		gen_buf_puts(b, num);
	}
	return 0;
}

static void gen_render_node(
    const struct gen_case *c, uint32_t i, struct gen_buf *b, struct gen_render_refs *q)
{
	const struct gen_node *n = &c->nodes[i];
	char num[64];
	if (gen_render_new_kind(c, i, b, q))
		return;
	switch (n->kind) {
	case GEN_NULL:
		gen_buf_puts(b, "null");
		return;
	case GEN_FALSE:
		gen_buf_puts(b, "false");
		return;
	case GEN_TRUE:
		gen_buf_puts(b, "true");
		return;
	case GEN_INT:
		if (n->v.i == INT64_MIN)
			gen_buf_puts(b, "PHP_INT_MIN");
		else {
			snprintf(num, sizeof(num), "%lld", (long long)n->v.i);
			gen_buf_puts(b, num);
		}
		return;
	case GEN_FLOAT:
		gen_format_double(n->v.d, num, sizeof(num));
		gen_buf_puts(b, num);
		return;
	case GEN_STRING:
		gen_render_string(b, c->bytes + n->first, n->n);
		return;
	case GEN_ENUM:
		gen_buf_puts(b, gen_enum_names[n->cls]);
		gen_buf_puts(b, "::");
		gen_buf_put(b, &"ABCD"[n->n], 1);
		return;
	case GEN_RESOURCE:
		gen_buf_puts(b, "fopen('php://memory', 'r')");
		return;
	case GEN_STDCLASS:
		if (n->n == 0) {
			gen_buf_puts(b, "new stdClass");
			return;
		}
		gen_buf_puts(b, "(object)");
		break;
	case GEN_OBJECT:
		gen_buf_puts(b, "new ");
		gen_buf_puts(b, gen_classes[n->cls].name);
		if (n->n == 0) {
			gen_buf_puts(b, "()");
			return;
		}
		gen_buf_puts(b, "(");
		break;
	default:
		break;
	}
	gen_buf_puts(b, "[");
	uint32_t bound = GEN_MAX_NODES; /* an object's property bound by its constructor's 2nd argument */
	for (uint32_t e = 0, put = 0; e < n->n; e++) {
		const struct gen_entry *en = &c->ents[n->first + e];
		if (n->kind == GEN_OBJECT && gen_classes[n->cls].type == GEN_CLASS_JSONSER_MUTATE &&
		    en->key_type == GEN_KEY_PROP && en->key_int == 0 && c->nodes[en->value].kind == GEN_REF &&
		    c->nodes[en->value].cls == 2) {
			bound = (uint32_t)c->nodes[en->value].v.i;
			continue;
		}
		if (put++ > 0)
			gen_buf_puts(b, ", ");
		if (en->key_type == GEN_KEY_INT) {
			if (en->key_int == INT64_MIN)
				gen_buf_puts(b, "PHP_INT_MIN");
			else {
				snprintf(num, sizeof(num), "%lld", (long long)en->key_int);
				gen_buf_puts(b, num);
			}
			gen_buf_puts(b, " => ");
		} else if (en->key_type == GEN_KEY_STR) {
			gen_render_string(b, c->bytes + en->key_off, en->key_len);
			gen_buf_puts(b, " => ");
		} else if (en->key_type == GEN_KEY_PROP) {
			const struct gen_prop *p = &gen_classes[n->cls].props[en->key_int];
			gen_render_string(b, p->name, p->len);
			gen_buf_puts(b, " => ");
		}
		gen_render_node(c, en->value, b, q);
	}
	if (bound != GEN_MAX_NODES) {
		snprintf(num, sizeof(num), "], $h%u)", (unsigned)bound);
		gen_buf_puts(b, num);
		return;
	}
	gen_buf_puts(b, n->kind == GEN_OBJECT ? "])" : "]");
}

void gen_flags_source(int64_t flags, char *buf, size_t size)
{
	size_t len = 0;
	if (size == 0)
		return;
	buf[0] = '\0';
	for (int f = 0; f < 23; f++) {
		if (!(flags & GEN_BIT(f)) || flags_name(1L << f) == NULL)
			continue;
		int w = snprintf(buf + len, size - len, "%s%s", len ? " | " : "", flags_name(1L << f));
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
	if (len == 0)
		snprintf(buf, size, "0");
}

static int gen_render_expression(const struct gen_case *c, struct gen_buf *b);

/*
 * A sequence: the value in $v, each earlier call as a statement that
 * ignores what it returns or throws (gencore.c makes the same calls on the
 * same zval), and the value returned for the compared call.
 */
int gen_render_value(const struct gen_case *c, struct gen_buf *b)
{
	char flags[512], depth[32];
	if (c->npre == 0)
		return gen_render_expression(c, b);
	gen_buf_puts(b, "$v = ");
	gen_render_expression(c, b);
	gen_buf_puts(b, ";\n");
	for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++) {
		gen_flags_source(c->pre_flags[k], flags, sizeof flags);
		snprintf(depth, sizeof depth, ", %lld", (long long)c->pre_depth[k]);
		gen_buf_puts(b, "try { json_encode($v, ");
		gen_buf_puts(b, flags);
		if (c->pre_depth[k] != 512)
			gen_buf_puts(b, depth);
		gen_buf_puts(b, "); } catch (Throwable) {}\n");
	}
	gen_buf_puts(b, "return $v;");
	gen_buf_put(b, "", 0);
	return b->failed ? -1 : 0;
}

static int gen_render_expression(const struct gen_case *c, struct gen_buf *b)
{
	struct gen_render_refs *q;
	char num[64];
	if (c->nrefs == 0) {
		gen_render_node(c, c->root, b, NULL);
		gen_buf_put(b, "", 0);
		return b->failed ? -1 : 0;
	}
	q = calloc(1, sizeof(*q));
	if (q == NULL) {
		b->failed = 1;
		return -1;
	}
	for (uint32_t k = 0; k < c->nnodes; k++)
		if (c->nodes[k].kind == GEN_REF && c->nodes[k].cls == 1)
			q->target[c->nodes[k].v.i] = 1;
	gen_buf_puts(b, "(function () { $v = ");
	gen_render_node(c, c->root, b, q);
	gen_buf_puts(b, ";");
	while (q->head < q->tail) {
		uint32_t r = q->queue[q->head++];
		const struct gen_node *n = &c->nodes[r];
		snprintf(num, sizeof(num), " $h%u = ", (unsigned)r);
		gen_buf_puts(b, num);
		if (n->cls == 1) {
			snprintf(num, sizeof(num), "$t%u", (unsigned)n->v.i);
			gen_buf_puts(b, num);
		} else {
			gen_render_node(c, c->ents[n->first].value, b, q);
		}
		gen_buf_puts(b, ";");
	}
	gen_buf_puts(b, " return $v; })()");
	free(q);
	return b->failed ? -1 : 0;
}

/* Is this printable, valid UTF-8 without line separators (readable as source)? */
static int gen_readable(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = gen_utf8_len(u + i, n - i, &cp);
		if (len == 0 || gen_invisible(cp) || (cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f)
			return 0;
		i += len;
	}
	return 1;
}

int gen_render_setup(const struct gen_case *c, struct gen_buf *b)
{
	gen_buf_put(b, "", 0);
	if (c->features & 1u << GEN_F_JSONSER_DTOR)
		gen_buf_puts(b, gen_dtor_decl);
	for (unsigned i = 0; i < GEN_NCLASSES_ALL; i++) {
		struct gen_buf one = { 0 };
		if (!(c->classes & 1ull << i))
			continue;
		gen_class_source(&gen_classes[i], &one);
		if (one.failed) {
			b->failed = 1;
		} else if (gen_readable(one.data, one.len)) {
			gen_buf_put(b, one.data, one.len);
		} else {
			/* Names with invalid UTF-8 can't be written in UTF-8 source:
			 * declare the class through eval() of an escaped string. */
			gen_buf_puts(b, "eval(");
			gen_render_string(b, one.data, one.len);
			gen_buf_puts(b, ");\n");
		}
		gen_buf_release(&one);
	}
	for (unsigned i = 0; i < GEN_NENUMS; i++)
		if (c->enums & 1u << i)
			gen_buf_puts(b, gen_enum_decls[i]);
	return b->failed ? -1 : 0;
}

/* ---- digests ---- */

static void gen_put(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t gen_get(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The verdict's fields, hashed: status, output, error code and message, exception. */
void gen_outcome_digest(const struct gen_outcome *o, struct gen_digest *d)
{
	uint64_t h = GEN_HASH_INIT;
	int is_false = o->status != PROTO_STATUS_OK || o->output == NULL;
	int thrown = o->exc_class != NULL && o->exc_class[0] != '\0';
	unsigned char head[16] = { (unsigned char)o->status, (unsigned char)is_false };
	for (int i = 0; i < 8; i++)
		head[2 + i] = (unsigned char)((uint64_t)o->error_code >> (8 * i));
	head[10] = (unsigned char)thrown;
	h = gen_hash(head, sizeof(head), h);
	if (!is_false)
		h = gen_hash(o->output, o->output_len, h);
	if (o->error_msg)
		h = gen_hash(o->error_msg, o->error_msg_len, h ^ 1);
	if (thrown) {
		h = gen_hash(o->exc_class, strlen(o->exc_class), h ^ 2);
		if (o->exc_msg)
			h = gen_hash(o->exc_msg, o->exc_msg_len, h ^ 3);
	}
	d->result_hash = h;
	d->out_len = is_false ? 0 : (uint32_t)o->output_len;
	d->status = (uint8_t)o->status;
	d->error_code = (uint8_t)(o->error_code < 0 || o->error_code > 255 ? 255 : o->error_code);
	d->is_false = (uint8_t)is_false;
	d->exception = (uint8_t)thrown;
}

void gen_digest_pack(const struct gen_digest *d, unsigned char out[GEN_DIGEST_SIZE])
{
	gen_put(out, d->plan_hash, 8);
	gen_put(out + 8, d->result_hash, 8);
	gen_put(out + 16, d->out_len, 4);
	gen_put(out + 20, d->flags, 4);
	gen_put(out + 24, d->depth, 4);
	out[28] = d->status;
	out[29] = d->error_code;
	out[30] = d->is_false;
	out[31] = d->exception;
}

void gen_digest_unpack(struct gen_digest *d, const unsigned char in[GEN_DIGEST_SIZE])
{
	d->plan_hash = gen_get(in, 8);
	d->result_hash = gen_get(in + 8, 8);
	d->out_len = (uint32_t)gen_get(in + 16, 4);
	d->flags = (uint32_t)gen_get(in + 20, 4);
	d->depth = (uint32_t)gen_get(in + 24, 4);
	d->status = in[28];
	d->error_code = in[29];
	d->is_false = in[30];
	d->exception = in[31];
}

/* ---- coverage ---- */

/* Add one to the counter of each bit set in mask. */
static void gen_count_bits(uint64_t *counters, uint64_t mask)
{
	while (mask) {
		counters[__builtin_ctzll(mask)]++;
		mask &= mask - 1;
	}
}

void gen_count(const struct gen_case *c, uint64_t counters[GEN_COUNTERS])
{
	counters[GEN_C_CASES]++;
	gen_count_bits(counters + GEN_C_PIECE, c->pieces);
	gen_count_bits(counters + GEN_C_SHAPE, c->shapes);
	gen_count_bits(counters + GEN_C_KIND, c->kinds);
	gen_count_bits(counters + GEN_C_FEATURE, c->features);
	gen_count_bits(counters + GEN_C_FLAG, (uint64_t)c->flags & ((1ull << 23) - 1));
	gen_count_bits(counters + GEN_C_CLASS, c->classes & ((1ull << GEN_NCLASSES) - 1));
	gen_count_bits(counters + GEN_C_ENUM, c->enums);
}

const char *gen_counter_name(unsigned i, char *buf, size_t size)
{
	/* clang-format off */
	static const char *const pieces[GEN_P_COUNT] = {
		"ascii", "quote", "backslash", "slash", "tag", "amp", "apos", "control_short_escape",
		"control", "del", "utf8_2", "utf8_3", "utf8_4", "line_separator", "invalid_lone_continuation",
		"invalid_truncated", "invalid_overlong", "invalid_surrogate", "invalid_above_10ffff", "text",
	};
	/* clang-format on */
	static const char *const shapes[GEN_S_COUNT] = { "pieces", "empty", "numeric", "long", "block" };
	/* clang-format off */
	static const char *const kinds[GEN_KIND_COUNT] = {
		"null", "false", "true", "int", "float", "string", "list", "map", "stdclass",
		"object", "enum", "resource", "reference", "builtin_object",
	};
	/* clang-format on */
	/* clang-format off */
	static const char *const features[GEN_F_COUNT] = {
		"private_or_protected_set", "typed_uninitialized", "dynamic_properties", "json_serializable",
		"json_serializable_this", "json_serializable_throws", "nul_property_name", "int_key",
		"numeric_string_key", "empty_key", "negative_zero", "nan_or_inf", "small_depth",
		"nested_deeper_than_depth", "throw_on_error", "reference", "recursion", "buffer_growth",
		"json_serializable_destructor_throws", "sequence", "sequence_failing_call",
		"json_serializable_nested_encode", "json_serializable_mutates_list",
	};
	/* clang-format on */
	if (i == GEN_C_CASES)
		snprintf(buf, size, "cases");
	else if (i < GEN_C_SHAPE)
		snprintf(buf, size, "piece.%s", pieces[i - GEN_C_PIECE]);
	else if (i < GEN_C_KIND)
		snprintf(buf, size, "string.%s", shapes[i - GEN_C_SHAPE]);
	else if (i < GEN_C_FEATURE)
		snprintf(buf, size, "kind.%s", kinds[i - GEN_C_KIND]);
	else if (i < GEN_C_FLAG)
		snprintf(buf, size, "feature.%s", features[i - GEN_C_FEATURE]);
	else if (i < GEN_C_CLASS) {
		if (flags_name(1L << (i - GEN_C_FLAG)) == NULL)
			return NULL;
		snprintf(buf, size, "flag.%s", flags_name(1L << (i - GEN_C_FLAG)));
	} else if (i < GEN_C_ENUM)
		snprintf(buf, size, "class.GenC%u", i - GEN_C_CLASS);
	else if (i < GEN_COUNTERS)
		snprintf(buf, size, "enum.%s", gen_enum_names[i - GEN_C_ENUM]);
	else
		return NULL;
	return buf;
}
