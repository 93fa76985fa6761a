/*
 * The bytes of a generated case's strings (see gen.h, enum gen_piece and
 * enum gen_shape): pieces that cover every escaping branch of the encoder
 * (quotes, slashes, controls, UTF-8 of each length, invalid UTF-8 of each
 * kind), numeric strings, long strings for the bulk paths and block
 * strings sized at the 16-byte, 4 KiB and 64 KiB edges.  They go at the end
 * of the case's byte arena; gen.c makes the nodes that point at them.
 */
#include "gen.h"
#include "gen_internal.h"

#include <string.h>

/* ---- byte tables ---- */

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

/* The weights unrolled: a piece is one table lookup (made by gen_string_init). */
static uint8_t gen_piece_table[256];

unsigned gen_pick_piece(struct gen_rng *r)
{
	return gen_piece_table[gen_next(r) >> 56];
}

/*
 * Table words' lengths, measured once (gen_string_init): a word is then one memcpy,
 * not a strlen and a memcpy, in the generator's most frequent copy.
 */
static uint32_t gen_ascii_lens[GEN_NELEMS(gen_ascii_words)];
static uint32_t gen_text_lens[GEN_NELEMS(gen_text_words)];
static uint32_t gen_numeric_lens[GEN_NELEMS(gen_numeric_strings)];

static void gen_measure(const char *const *words, uint32_t *lens, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lens[i] = (uint32_t)strlen(words[i]);
}

void gen_string_init(void)
{
	gen_measure(gen_ascii_words, gen_ascii_lens, GEN_NELEMS(gen_ascii_words));
	gen_measure(gen_text_words, gen_text_lens, GEN_NELEMS(gen_text_words));
	gen_measure(gen_numeric_strings, gen_numeric_lens, GEN_NELEMS(gen_numeric_strings));
	for (unsigned p = 0, at = 0; p < GEN_P_COUNT; p++)
		for (unsigned k = 0; k < gen_piece_weights[p] && at < 256; k++)
			gen_piece_table[at++] = (uint8_t)p;
}

/* ---- the arena ---- */

void gen_bytes(struct gen_case *c, const void *s, size_t n)
{
	if (c->nbytes + n > GEN_MAX_BYTES)
		n = GEN_MAX_BYTES - c->nbytes;
	memcpy(c->bytes + c->nbytes, s, n);
	c->nbytes += (uint32_t)n;
}

void gen_byte(struct gen_case *c, unsigned char b)
{
	if (c->nbytes < GEN_MAX_BYTES)
		c->bytes[c->nbytes++] = (char)b;
}

/* ---- pieces ---- */

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

void gen_piece(struct gen_case *c, unsigned p)
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
uint32_t gen_string_bytes(struct gen_case *c, int key, uint32_t *len)
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

uint32_t gen_numeric_key(struct gen_case *c, unsigned k)
{
	gen_bytes(c, gen_numeric_strings[k], gen_numeric_lens[k]);
	return gen_numeric_lens[k];
}
