/*
 * The generator's hashes and records (see gen.h): a fast 64-bit hash, a
 * case's plan hash, one case's outcome as a digest (the same for a native
 * worker core and a reference runtime) packed into GEN_DIGEST_SIZE bytes,
 * and the coverage counters a run sums up.
 */
#include "flags.h"
#include "gen.h"
#include "proto.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

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
		snprintf(buf, size, "enum.%s", gen_enum_name(i - GEN_C_ENUM));
	else
		return NULL;
	return buf;
}
