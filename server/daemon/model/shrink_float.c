/*
 * The shrinker's float steps (shrink.h, docs/triage.md "Normal form"):
 * floats moved toward the simplest one that keeps the mismatch, as
 * json_encode writes them, in decimal.
 *
 * The order (each candidate only moves down it): 0.0, 1.0, then 0.5 (the
 * least float written with a '.'), 1.0e-5 (the least written with an
 * exponent); whole floats by size (the positive first); the others by how
 * many significant digits their shortest form has, then how far their
 * exponent is from 10^-1, then their digits.  Like Hypothesis's float
 * shrinker (its integer part first, then fewer bits of fraction, then the
 * integer part lowered with the fraction kept), but in decimal digits,
 * which is what a bug in writing floats sees: a precision bug's members
 * (serialize_precision=17: 49074.87906170046, 522181.4549456321 ...) meet
 * at 0.1, not at as many random doubles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shrink_float.h"
#include "shrink_step.h"

#define SHRINK_LEAST_EXP 1e-5 /* the least float json_encode writes with an exponent (1.0e-5) */
#define SHRINK_DIGITS 17      /* a double's digits, at most */

int shrink_float_rank(double d)
{
	if (d == 0.0 && !signbit(d))
		return 0;
	if (d == 1.0)
		return 1;
	if (isnan(d) || !signbit(d))
		return 2;
	return 3;
}

/*
 * Finite m > 0's shortest decimal form (the fewest digits that read back
 * as m, what json_encode writes at serialize_precision -1): its digits,
 * trailing zeros dropped, into dig (at least SHRINK_DIGITS + 1 bytes), and
 * the exponent of the first (m = 0.d1d2... x 10^(e + 1)).  The digits'
 * count.
 */
static int float_digits(double m, char *dig, int *e)
{
	char buf[64];
	int n = 0;

	for (int p = 1; p <= SHRINK_DIGITS; p++) {
		snprintf(buf, sizeof buf, "%.*e", p - 1, m);
		if (strtod(buf, NULL) == m || p == SHRINK_DIGITS)
			break;
	}
	for (const char *x = buf; *x != '\0' && *x != 'e'; x++)
		if (*x >= '0' && *x <= '9')
			dig[n++] = *x;
	while (n > 1 && dig[n - 1] == '0')
		n--;
	dig[n] = '\0';
	*e = atoi(strchr(buf, 'e') + 1);
	return n;
}

/* m rounded to k significant digits (to nearest). */
static double float_round(double m, int k)
{
	char buf[64];

	snprintf(buf, sizeof buf, "%.*e", k - 1, m);
	return strtod(buf, NULL);
}

/*
 * The float whose integer part is the decimal w (0 <= w < 2^53) and whose
 * fraction is m's (its digits dig from the first after the point, exponent
 * e as float_digits gives), read as PHP reads that literal.
 */
static double float_with_whole(uint64_t w, const char *dig, int n, int e)
{
	char buf[96];
	int at = snprintf(buf, sizeof buf, "%llu.", (unsigned long long)w);

	for (int x = e + 1; x < n && at < (int)sizeof buf - 1; x++)
		buf[at++] = dig[x];
	buf[at] = '\0';
	return strtod(buf, NULL);
}

/* A float that is not whole, from 1e-4 up to 1e17 (json_encode writes it
 * with a '.', no exponent): its integer part, its fraction alone, fewer
 * significant digits, a power of ten below 1, its integer part lowered
 * with the fraction kept. */
static void float_fraction_steps(struct shrink_cands *s, uint32_t node, double d)
{
	double m = fabs(d), w = trunc(m);
	char dig[SHRINK_DIGITS + 2];
	int e, n = float_digits(m, dig, &e);

	if (w >= 1.0) {
		shrink_add(s, SHRINK_FLOAT, node, 0, 0, 0, 0, w);
		/* The fraction alone (its digits as written: no rounding noise of m - w). */
		shrink_add(s, SHRINK_FLOAT, node, 0, 0, 0, 0, float_with_whole(0, dig, n, e));
	}
	/* Fewer significant digits, the fewest first (a whole result is the
	 * integer part's business). */
	for (int k = 1; k < n; k++) {
		double r = float_round(m, k);
		if (r != m && r != trunc(r))
			shrink_add(s, SHRINK_FLOAT, node, 0, 0, 0, 0, r);
	}
	if (m < 1.0) {
		/* The power of ten just below it, then 10^-x for each x from 1
		 * (0.1, the least of them) up to its exponent. */
		double p = pow(10.0, e);
		if (float_round(p, 1) != m)
			shrink_add(s, SHRINK_FLOAT, node, 0, 0, 0, 0, float_round(p, 1));
		for (int x = 1; x < -e; x++)
			shrink_add(s, SHRINK_FLOAT, node, 0, 0, 0, 0, float_round(pow(10.0, -x), 1));
		return;
	}
	/* The integer part lowered like an int's bits, the fraction kept. */
	{
		uint64_t mag = (uint64_t)w;
		for (int bit = 53; bit >= 0; bit--) {
			uint64_t low = ((uint64_t)1 << bit) - 1,
			         x = (mag & ~low & ~((uint64_t)1 << bit)) | low;
			if ((mag & (uint64_t)1 << bit) && x >= 1 && x != mag)
				shrink_add(s, SHRINK_FLOAT, node, 0, 0, 0, 0, float_with_whole(x, dig, n, e));
		}
	}
}

void shrink_float_steps(
    struct shrink_cands *s, const struct gen_case *c, const uint32_t *order, uint32_t tail)
{
	for (uint32_t q = 0; q < tail; q++) {
		const struct gen_node *n = &c->nodes[order[q]];
		double d, m, w;
		if (n->kind != GEN_FLOAT || !isfinite(n->v.d) || shrink_float_rank(n->v.d) < 2)
			continue;
		d = n->v.d;
		m = fabs(d);
		w = trunc(m);
		/* 0.5 first: the least float after 0.0 and 1.0 (the least that is
		 * not whole, the least json_encode writes with a '.'): a bug of
		 * every float written with a fraction or an exponent meets there. */
		if (d != 0.5)
			shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, 0.5);
		/* 1.0e-5 next for a float written with an exponent (decimal point
		 * below -3 or above 17 digits: zend_gcvt at serialize_precision
		 * -1): the least of them (one digit, the smallest exponent), where
		 * a bug of every float so written meets. */
		if (d != SHRINK_LEAST_EXP && m != 0.0 && (m < 1e-4 || m >= 1e17))
			shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, SHRINK_LEAST_EXP);
		if (signbit(d))
			shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, m);
		if (m != 0.0 && m < 1e-4) { /* (-0.0 is written "-0.0": no exponent) */
			/* A small float: 10^e just below it (one digit), then the
			 * exponent's size lowered like an int's bits (10^-9 to
			 * 10^-7, 10^-8 ...): the non-whole floats order by
			 * exponent, then digits, after 0.5. */
			int e = (int)floor(log10(m)), k = -e;
			if (pow(10.0, e) != m && pow(10.0, e) > 0.0)
				shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, pow(10.0, e));
			for (int bit = 9; bit >= 0; bit--) {
				int low = (1 << bit) - 1, x = (k & ~low & ~(1 << bit)) | low;
				if ((k & 1 << bit) && x >= 1 && x != k)
					shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, pow(10.0, -x));
			}
			continue;
		}
		if (w != m) {
			if (m != 0.5) /* (the least of them: no step leaves it) */
				float_fraction_steps(s, order[q], m);
			continue;
		}
		if (m <= 9007199254740992.0) {
			uint64_t mag = (uint64_t)m;
			for (int bit = 53; bit >= 0; bit--) {
				uint64_t low = ((uint64_t)1 << bit) - 1,
				         x = (mag & ~low & ~((uint64_t)1 << bit)) | low;
				if ((mag & (uint64_t)1 << bit) && x > 1 && x != mag)
					shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, (double)x);
			}
			continue;
		}
		{
			/* 10^e just below |d|, then the exponent lowered like an int's bits. */
			int e = (int)floor(log10(m));
			if (pow(10.0, e) < m)
				shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, pow(10.0, e));
			for (int bit = 8; bit >= 0; bit--) {
				int low = (1 << bit) - 1, x = (e & ~low & ~(1 << bit)) | low;
				if ((e & 1 << bit) && x >= 1 && x != e)
					shrink_add(s, SHRINK_FLOAT, order[q], 0, 0, 0, 0, pow(10.0, x));
			}
		}
	}
}
