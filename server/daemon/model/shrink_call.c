/*
 * The shrinker's steps on the call rather than the value (shrink.h): the
 * compared call's flags dropped and its depth restored, a sequence's
 * earlier calls dropped or made plainer; in the normal form, a flag made
 * a lower one of its family and a depth error made "\x80" with the depth
 * 512.
 */
#include <stdint.h>

#include "shrink_call.h"
#include "shrink_step.h"

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
				shrink_add(s, SHRINK_FLAG_LOWER, 0, call, bit, to, 0, 0);
	}
}

/* Each flag dropped. */
void shrink_cut_flags(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	(void)order;
	(void)tail;
	for (unsigned bit = 0; bit < 23; bit++)
		if (c->flags & ((int64_t)1 << bit))
			shrink_add(s, SHRINK_FLAG, 0, 0, bit, 0, 0, 0);
}

/* The default depth first; else one less: members of one bug found at
 * depths 2, 3 … (a depth error beside it) meet at the least depth that
 * still shows it, with the nesting ddmin can then drop.  (512 ranks
 * below any other depth, a lower depth below a higher: it ends.) */
void shrink_cut_depth(struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	(void)order;
	(void)tail;
	if (c->depth != 512)
		shrink_add(s, SHRINK_DEPTH, 0, 0, 0, 0, 512, 0);
	if (c->depth > 1 && c->depth < 512)
		shrink_add(s, SHRINK_DEPTH, 0, 0, 0, 0, c->depth - 1, 0);
}

/* A sequence: an earlier call dropped (the case stays one call when
 * the bug needs none), else made plainer. */
void shrink_cut_sequence(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	(void)order;
	(void)tail;
	for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++) {
		shrink_add(s, SHRINK_PRE_DROP, SHRINK_NONE, SHRINK_NONE, k, 0, 0, 0);
		/* The last earlier call compared instead (a mismatch of its own,
		 * which a JSON_THROW_ON_ERROR call after it leaves in place). */
		if (k + 1 == c->npre)
			shrink_add(s, SHRINK_PRE_DROP, SHRINK_NONE, SHRINK_NONE, k, 1, 0, 0);
		for (unsigned bit = 0; bit < 23; bit++)
			if (c->pre_flags[k] & ((int64_t)1 << bit))
				shrink_add(s, SHRINK_PRE_FLAG, SHRINK_NONE, SHRINK_NONE, k, bit, 0, 0);
		if (c->pre_depth[k] != 512)
			shrink_add(s, SHRINK_PRE_DEPTH, SHRINK_NONE, SHRINK_NONE, k, 0, 512, 0);
		if (c->pre_depth[k] > 1 && c->pre_depth[k] < 512)
			shrink_add(
			    s, SHRINK_PRE_DEPTH, SHRINK_NONE, SHRINK_NONE, k, 0, c->pre_depth[k] - 1, 0);
	}
}

/* A depth error made the same "\x80" in one step, with that call's depth
 * made 512 ([[]] at depth 1 → ["\x80"]): the depth falling to 512 is
 * what makes it smaller, whatever the node was ([] ranks below any
 * string, so no step of the value alone leads there). */
void shrink_norm_depth_errors(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		if (c->depth != 512)
			shrink_add(s, SHRINK_ERROR, order[q], 0, 1, 1, 0, 0);
		for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++)
			if (c->pre_depth[k] != 512)
				shrink_add(s, SHRINK_ERROR, order[q], 0, 1, 2 + k, 0, 0);
	}
}

/* Each flag replaced by the lower ones of its family not set, on the
 * compared call and on each earlier one. */
void shrink_norm_lower_flags(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	(void)order;
	(void)tail;
	add_lower_flags(s, c->flags, 0);
	for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++)
		add_lower_flags(s, c->pre_flags[k], 1 + k);
}
