/*
 * The shrinker's string steps (shrink.h, docs/triage.md "Normal form"):
 * strings and string keys cut (chunks, halves ... single characters and
 * bytes), then, in the normal form, their characters lowered to a small
 * canonical set ('a' < '0' < every other byte by value), runs filled with
 * 'a' and special characters moved past the 'a' after them.
 */
#include <stdint.h>
#include <string.h>

#include "model.h"
#include "shrink_step.h"
#include "shrink_string.h"
#include "shrink_value.h"

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
			shrink_add(s, SHRINK_BYTES, node, entry, at, at + size < n ? at + size : n, 0, 0);
	/* Runs of one byte cut by whole 16-byte blocks: every byte after keeps
	 * its offset within a block (a bug at a block edge stays). */
	for (uint32_t at = 0, run; at < n; at += run) {
		for (run = 1; at + run < n && p[at + run] == p[at]; run++)
			;
		if (run >= 32)
			shrink_add(s, SHRINK_BYTES, node, entry, at, at + run / 16 * 16 - 16, 0, 0);
		if (run >= 16)
			shrink_add(s, SHRINK_BYTES, node, entry, at, at + 16, 0, 0);
	}
	/* A block string of kilobytes: a character at a time would fill the
	 * candidate table, so the first character of each run of one
	 * character (a special is a run of its own) is all it gets. */
	if (n > SHRINK_LONG) {
		for (uint32_t at = 0, prev = 0, plen = 0; at < n; at += (uint32_t)len) {
			len = utf8_seq((const unsigned char *)p + at, n - at, &cp);
			len = len > 1 ? len : 1;
			if (plen != len || memcmp(p + prev, p + at, len) != 0 || at == 0)
				shrink_add(s, SHRINK_BYTES, node, entry, at, at + (uint32_t)len, 0, 0);
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
			shrink_add(s, SHRINK_BYTES, node, entry, at, at + (uint32_t)len, 0, 0);
	}
	for (uint32_t at = 0; at < n; at++)
		shrink_add(s, SHRINK_BYTES, node, entry, at, at + 1, 0, 0);
}

/* Strings and string keys shortened. */
void shrink_cut_strings(
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

/* The longest padding string written as its bytes ('aaa…') rather than
 * str_repeat('x', n): where that source is no longer than the call's. */
#define SHRINK_PAD_PLAIN 16

static void add_char(struct shrink_cands *s, uint32_t node, uint32_t entry, uint32_t at, uint32_t len,
    const unsigned char *rep, uint32_t rlen)
{
	uint64_t v = (uint64_t)rlen << 32;
	for (uint32_t x = 0; x < rlen; x++)
		v |= (uint64_t)rep[x] << (8 * x);
	shrink_add(s, SHRINK_CHAR, node, entry, at, at + len, (int64_t)v, 0);
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
 * in shrink_byte_rank's order at the first byte it changes.
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
		shrink_add(s, SHRINK_FILL, node, entry, 0, n, 0, 0);
		shrink_add(s, SHRINK_FILL, node, entry, 0, n, 1, 0);
	}
	for (uint32_t at = 0; at < n; at += run * unit) {
		unit = (uint32_t)utf8_seq(u + at, n - at, &cp);
		unit = unit > 1 ? unit : 1;
		for (run = 1; at + (run + 1) * unit <= n && !memcmp(u + at, u + at + run * unit, unit); run++)
			;
		/* (A long string's single specials too: it has no per-character steps.) */
		if ((run >= 2 || n > SHRINK_LONG) && run * unit < n && u[at] != 'a') {
			shrink_add(s, SHRINK_FILL, node, entry, at, at + run * unit, 0, 0);
			if (unit > 1)
				shrink_add(s, SHRINK_FILL, node, entry, at, at + run * unit, 1, 0);
		}
		/* All of a run but its last character (str_repeat('/', 4097): a slash is needed). */
		if (run >= 2 && u[at] != 'a')
			shrink_add(s, SHRINK_FILL, node, entry, at, at + (run - 1) * unit, 0, 0);
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
			shrink_add(s, SHRINK_MOVE, node, entry, at, at + unit, end, 0);
	}
	if (n > SHRINK_LONG)
		return;
	for (uint32_t at = 0; at < n; at += len) {
		unsigned char b = u[at];
		len = (uint32_t)utf8_seq(u + at, n - at, &cp);
		if (len <= 1) {
			len = 1;
			for (size_t x = 0; x < sizeof ascii; x++)
				if (shrink_byte_rank(ascii[x]) < shrink_byte_rank(b) &&
				    (b < 0x80 || x == 0 || x == 2))
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

/* Characters of strings and string keys lowered. */
void shrink_norm_lower_chars(
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
			shrink_add(s, SHRINK_FILL, order[q], SHRINK_NONE, 0, n->n, 1, 0);
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
