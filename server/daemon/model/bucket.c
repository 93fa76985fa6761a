/*
 * Bucket keys: which mismatches "differ the same way" (docs/api.md, Triage).
 *
 * A mismatch's key is canonical JSON (sorted keys, no spaces) made only of
 * what its two results and its flags say, never of ids or times, so the same
 * bug found again by a later run lands in the same bucket and keeps its
 * triage.  It holds:
 *
 *   v           the key's version (BUCKET_KEY_VERSION)
 *   differs     the verdict's differing fields ("output", "error_code", ...)
 *   status      each side's status; "crash:11" for a crash by signal 11
 *   memory_error (when a side's status is memory-error) each side's
 *               sanitizer report in brief, "kind|access|function file" of
 *               its top frame (sanitizer.c), e.g. "heap-buffer-overflow|READ
 *               of size 1|php_json_escape_string json_encoder.c", or null
 *   error_code  each side's json_last_error()
 *   exception   each side's exception class, or null
 *   output      (when output differs) the shape of the FIRST differing bytes
 *               on each side: "false" when json_encode returned false, the
 *               status when the case did not run to the end
 *   flags       the flags that matter, each true or false
 *
 * The shape of a difference: skip the common prefix (backed up to the start
 * of a UTF-8 character or backslash escape), cut both outputs into tokens
 * (an escape, a whole character, a byte) and find the first edit: of those
 * after which both sides go on with the same token (looking BUCKET_WINDOW
 * tokens ahead), the one whose shape is shortest, then of fewest tokens
 * i + j (bucket_shape).  Those bytes are written as classes so that
 * what a generated case happens to contain does not split one bug into many
 * buckets:
 *
 *   a  ASCII letters        0  digits          _  space      N  newline
 *   T  tab                  C  other control byte or DEL
 *   U  a UTF-8 character    L  U+2028 / U+2029
 *   X  a byte that is not valid UTF-8
 *   \u a \uXXXX escape      \c a two-byte escape (\/, \", \n...)
 *   any other ASCII punctuation as itself
 *
 * runs of one class collapsed ("aaa" -> "a"), at most BUCKET_SHAPE_MAX
 * characters ("~" ends a shape cut there).
 *
 * The flags that matter: a flag is part of the key when it controls
 * something present in the differing bytes (UNESCAPED_SLASHES for "/",
 * HEX_TAG for "<" or ">", the escaping and UTF-8 flags for a \u escape...,
 * see bucket_char_mask); the four error-handling flags (THROW_ON_ERROR,
 * PARTIAL_OUTPUT_ON_ERROR, INVALID_UTF8_IGNORE, INVALID_UTF8_SUBSTITUTE)
 * whenever an error is involved (a side's status is not ok, its output is
 * false, its error code is not 0, or an exception).  The other flags of the
 * case do not split a bucket.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "model.h"

#define BUCKET_WINDOW 32     /* tokens looked at after the first difference, per side */
#define BUCKET_CLASS_MAX 128 /* an exception class name in a key */

/* Flag bits, as in flags.c (PHP 8.2's ext/json/php_json.h). */
#define F_HEX_TAG (1L << 0)
#define F_HEX_AMP (1L << 1)
#define F_HEX_APOS (1L << 2)
#define F_HEX_QUOT (1L << 3)
#define F_FORCE_OBJECT (1L << 4)
#define F_NUMERIC_CHECK (1L << 5)
#define F_UNESC_SLASHES (1L << 6)
#define F_PRETTY_PRINT (1L << 7)
#define F_UNESC_UNICODE (1L << 8)
#define F_PARTIAL_OUTPUT (1L << 9)
#define F_ZERO_FRACTION (1L << 10)
#define F_UNESC_LINE_T (1L << 11)
#define F_UTF8_IGNORE (1L << 20)
#define F_UTF8_SUBST (1L << 21)
#define F_THROW (1L << 22)

#define F_HEX_ALL (F_HEX_TAG | F_HEX_AMP | F_HEX_APOS | F_HEX_QUOT)
#define F_ERRORS (F_THROW | F_PARTIAL_OUTPUT | F_UTF8_IGNORE | F_UTF8_SUBST)
/* What a \uXXXX escape in the output may come from. */
#define F_ESCAPE (F_HEX_ALL | F_UNESC_UNICODE | F_UNESC_LINE_T | F_UTF8_SUBST)

/* The flags that control an ASCII byte of the output. */
static long bucket_char_mask(unsigned char c)
{
	switch (c) {
	case '/':
		return F_UNESC_SLASHES;
	case '<':
	case '>':
		return F_HEX_TAG;
	case '&':
		return F_HEX_AMP;
	case '\'':
		return F_HEX_APOS;
	case '"':
		return F_HEX_QUOT;
	case '{':
	case '}':
	case '[':
	case ']':
		return F_FORCE_OBJECT;
	case ':':
	case ',':
		return F_FORCE_OBJECT | F_PRETTY_PRINT;
	case ' ':
	case '\n':
		return F_PRETTY_PRINT;
	case '.':
	case '-':
	case '+':
		return F_NUMERIC_CHECK | F_ZERO_FRACTION;
	}
	if (c >= '0' && c <= '9')
		return F_NUMERIC_CHECK | F_ZERO_FRACTION;
	return 0;
}

struct shape {
	char *s;
	size_t len, size; /* size includes the NUL */
	int full;
};

static void shape_add(struct shape *sh, const char *t, int is_class)
{
	size_t n = strlen(t);

	if (sh->full)
		return;
	/* Runs of one class collapse. */
	if (is_class && sh->len > 0 && sh->s[sh->len - 1] == t[0] &&
	    (sh->len < 2 || sh->s[sh->len - 2] != '\\'))
		return;
	if (sh->len + n > BUCKET_SHAPE_MAX || sh->len + n + 2 > sh->size) {
		if (sh->len + 2 <= sh->size) {
			sh->s[sh->len++] = '~';
			sh->s[sh->len] = '\0';
		}
		sh->full = 1;
		return;
	}
	memcpy(sh->s + sh->len, t, n);
	sh->len += n;
	sh->s[sh->len] = '\0';
}

/* Bytes as classes (see the top of this file); the flags they involve into *mask. */
static void bucket_shape_of(const unsigned char *x, size_t n, char *out, size_t outsize, long *mask)
{
	struct shape sh = { out, 0, outsize, 0 };
	char t[3];
	uint32_t cp;
	size_t i = 0, k;

	if (outsize == 0)
		return;
	out[0] = '\0';
	while (i < n && !sh.full) {
		unsigned char c = x[i];
		if (c == '\\' && i + 1 < n && x[i + 1] == 'u') {
			shape_add(&sh, "\\u", 0);
			*mask |= F_ESCAPE;
			for (i += 2, k = 0; k < 4 && i < n && strchr("0123456789abcdefABCDEF", x[i]) != NULL;
			     k++)
				i++;
			continue;
		}
		if (c == '\\' && i + 1 < n && x[i + 1] >= 0x20 && x[i + 1] < 0x7f) {
			t[0] = '\\', t[1] = (char)x[i + 1], t[2] = '\0';
			shape_add(&sh, t, 0);
			*mask |= bucket_char_mask(x[i + 1]);
			i += 2;
			continue;
		}
		if (c >= 0x80) {
			if ((k = utf8_seq(x + i, n - i, &cp)) == 0) {
				shape_add(&sh, "X", 1);
				*mask |= F_UTF8_IGNORE | F_UTF8_SUBST;
				i++;
			} else {
				int lt = cp == 0x2028 || cp == 0x2029;
				shape_add(&sh, lt ? "L" : "U", 1);
				*mask |= F_UNESC_UNICODE | (lt ? F_UNESC_LINE_T : 0) |
				    (cp == 0xfffd ? F_UTF8_SUBST : 0);
				i += k;
			}
			continue;
		}
		*mask |= bucket_char_mask(c);
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
			shape_add(&sh, "a", 1);
		else if (c >= '0' && c <= '9')
			shape_add(&sh, "0", 1);
		else if (c == ' ')
			shape_add(&sh, "_", 1);
		else if (c == '\n')
			shape_add(&sh, "N", 1);
		else if (c == '\t')
			shape_add(&sh, "T", 1);
		else if (c < 0x20 || c == 0x7f)
			shape_add(&sh, "C", 1);
		else {
			t[0] = (char)c, t[1] = '\0';
			shape_add(&sh, t, 0);
		}
		i++;
	}
}

/* A token of an output: a backslash escape, a whole UTF-8 character, or one byte. */
struct token {
	size_t off, len;
};

/* Up to max tokens of x[from..n); their count.  *end: 1 when they reach n. */
static size_t bucket_tokens(
    const unsigned char *x, size_t from, size_t n, struct token *t, size_t max, int *end)
{
	size_t i = from, k = 0, len, h;
	uint32_t cp;

	while (i < n && k < max) {
		len = 1;
		if (x[i] == '\\' && i + 1 < n) {
			len = 2;
			if (x[i + 1] == 'u')
				for (h = 0; h < 4 && i + len < n &&
				     strchr("0123456789abcdefABCDEF", x[i + len]) != NULL;
				     h++)
					len++;
		} else if (x[i] >= 0x80 && (len = utf8_seq(x + i, n - i, &cp)) == 0) {
			len = 1;
		}
		t[k].off = i;
		t[k].len = len;
		k++;
		i += len;
	}
	*end = i >= n;
	return k;
}

/* cost[i]: the length of the shape of the first i tokens t of x from p (cost[0] is 0). */
static void bucket_costs(const unsigned char *x, size_t p, const struct token *t, size_t n, size_t *cost)
{
	char buf[BUCKET_SHAPE_MAX + 2];
	long mask = 0;

	cost[0] = 0;
	for (size_t i = 1; i <= n; i++) {
		bucket_shape_of(x + p, t[i - 1].off + t[i - 1].len - p, buf, sizeof buf, &mask);
		cost[i] = strlen(buf);
	}
}

void bucket_shape(
    const char *sa, size_t la, const char *sb, size_t lb, char *outa, char *outb, size_t outsize, long *mask)
{
	const unsigned char *a = (const unsigned char *)sa, *b = (const unsigned char *)sb;
	struct token ta[BUCKET_WINDOW], tb[BUCKET_WINDOW];
	size_t costa[BUCKET_WINDOW + 1], costb[BUCKET_WINDOW + 1];
	size_t p = 0, q, k, bs, na, nb, i = 0, j = 0, ci, cj, best = 0, ea, eb;
	int enda, endb, found = 0;

	while (p < la && p < lb && a[p] == b[p])
		p++;
	/* Start at a whole token: a continuation byte at p belongs to the character before... */
	for (k = 0;
	     k < 3 && p > 0 && ((p < la && (a[p] & 0xc0) == 0x80) || (p < lb && (b[p] & 0xc0) == 0x80)); k++)
		p--;
	/* ... and p inside an escape (its backslash not itself escaped) to the escape. */
	for (q = p; q > 0 && p - q < 6; q--) {
		if (a[q - 1] != '\\')
			continue;
		for (bs = 0; q - 1 >= bs + 1 && a[q - 2 - bs] == '\\'; bs++)
			;
		if (bs % 2 != 0)
			continue;
		k = q < la && a[q] == 'u' ? 6 : 2; /* a[q] is shared when q < p */
		if (q - 1 + k > p)
			p = q - 1;
		break;
	}
	/*
	 * The first edit: the cheapest (i, j) after which both sides go on with
	 * the same token (or both end).  Its cost is what its shape says — the
	 * class characters of both sides' skipped tokens, a run of one class
	 * counting once — then the fewest tokens i + j, then the fewest on the
	 * base.  Counting tokens alone took 16 digits the head inserted after
	 * "0.1" for the base deleting ',"=_":{"' (8 tokens), since a digit
	 * happened to follow there.
	 */
	na = bucket_tokens(a, p, la, ta, BUCKET_WINDOW, &enda);
	nb = bucket_tokens(b, p, lb, tb, BUCKET_WINDOW, &endb);
	bucket_costs(a, p, ta, na, costa);
	bucket_costs(b, p, tb, nb, costb);
	for (ci = 0; ci <= na; ci++) {
		for (cj = 0; cj <= nb; cj++) {
			size_t cost = costa[ci] + costb[cj];
			int sync;
			if (ci + cj == 0)
				continue;
			if (ci == na && cj == nb)
				sync = enda && endb;
			else if (ci < na && cj < nb)
				sync = ta[ci].len == tb[cj].len &&
				    memcmp(a + ta[ci].off, b + tb[cj].off, ta[ci].len) == 0;
			else
				sync = 0;
			if (!sync)
				continue;
			if (!found || cost < best ||
			    (cost == best && (ci + cj < i + j || (ci + cj == i + j && ci < i)))) {
				found = 1;
				best = cost;
				i = ci;
				j = cj;
			}
		}
	}
	if (found) {
		ea = i < na ? ta[i].off : (na > 0 ? ta[na - 1].off + ta[na - 1].len : p);
		eb = j < nb ? tb[j].off : (nb > 0 ? tb[nb - 1].off + tb[nb - 1].len : p);
	} else {
		ea = na > 0 ? ta[na - 1].off + ta[na - 1].len : p;
		eb = nb > 0 ? tb[nb - 1].off + tb[nb - 1].len : p;
	}
	bucket_shape_of(a + p, ea - p, outa, outsize, mask);
	bucket_shape_of(b + p, eb - p, outb, outsize, mask);
}

/* An exception class as it goes in a key: PHP name characters only. */
static json_t *bucket_class(const char *cls)
{
	char buf[BUCKET_CLASS_MAX + 1];
	size_t i;

	if (cls == NULL)
		return json_null();
	for (i = 0; cls[i] != '\0' && i < BUCKET_CLASS_MAX; i++) {
		unsigned char c = (unsigned char)cls[i];
		buf[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		        c == '_' || c == '\\'
		    ? (char)c
		    : '?';
	}
	buf[i] = '\0';
	return json_string(buf);
}

/* A signature's shape: a run of one escape ("\\u\\u\\u") as one, like a run of one class. */
static void bucket_collapse_escapes(char *sh)
{
	size_t r = 0, w = 0, n = strlen(sh);

	while (r < n) {
		if (sh[r] == '\\' && r + 1 < n && w >= 2 && sh[w - 2] == '\\' && sh[w - 1] == sh[r + 1]) {
			r += 2;
			continue;
		}
		sh[w++] = sh[r++];
	}
	sh[w] = '\0';
}

static json_t *bucket_status(const struct result *r)
{
	char buf[32];

	if (r->status == STATUS_CRASH) {
		snprintf(buf, sizeof buf, "crash:%d", r->signal);
		return json_string(buf);
	}
	return json_string(result_status_name(r->status));
}

/* A memory error in brief: kind, access, the top frame without its line
 * (a patch moving the code keeps the bucket); null for any other status. */
static json_t *bucket_memory_error(const struct result *r)
{
	struct sanitizer_summary s;
	char buf[320];

	if (r->status != STATUS_MEMORY_ERROR)
		return json_null();
	if (sanitizer_summarize(r->failure, &s) < 0)
		return json_string("unknown");
	if (s.nframes > 0) {
		char *colon = strrchr(s.frames[0], ':');
		if (colon != NULL && strchr(colon, ' ') == NULL)
			*colon = '\0';
	}
	snprintf(buf, sizeof buf, "%s|%s|%s", s.kind, s.access, s.nframes > 0 ? s.frames[0] : "");
	return json_string(buf);
}

static int bucket_errorish(const struct result *r)
{
	return r->status != STATUS_OK || r->output_is_false || r->output.data == NULL || r->error_code != 0 ||
	    r->exc_class != NULL;
}

static char *bucket_build(long flags, const struct result res[2], unsigned diff, int with_flags)
{
	const struct result *a = &res[ROLE_BASE], *b = &res[ROLE_HEAD];
	char fields[128], shapes[2][BUCKET_SHAPE_MAX + 2], *p, *q, *text = NULL;
	json_t *key = NULL, *list, *fl, *out;
	long mask = 0, bit;
	const char *name;
	size_t i;
	int role;

	if ((key = json_object()) == NULL)
		return NULL;
	verdict_fields(diff, fields, sizeof fields);
	if ((list = json_array()) == NULL)
		goto out;
	for (p = fields; *p != '\0'; p = *q != '\0' ? q + 1 : q) {
		q = p + strcspn(p, ",");
		json_array_append_new(list, json_stringn(p, (size_t)(q - p)));
	}
	json_object_set_new(key, "v", json_integer(BUCKET_KEY_VERSION));
	json_object_set_new(key, "differs", list);
	/* A signature keeps what differs only: what both sides share (an error
	 * code 5 on both, say) is the case's context, which a reduction may drop. */
	if (with_flags || (diff & DIFF_STATUS) || a->status != STATUS_OK || b->status != STATUS_OK)
		json_object_set_new(key, "status", json_pack("[o o]", bucket_status(a), bucket_status(b)));
	if (a->status == STATUS_MEMORY_ERROR || b->status == STATUS_MEMORY_ERROR)
		json_object_set_new(
		    key, "memory_error", json_pack("[o o]", bucket_memory_error(a), bucket_memory_error(b)));
	if (with_flags || (diff & DIFF_ERROR_CODE))
		json_object_set_new(key, "error_code",
		    json_pack("[I I]", (json_int_t)a->error_code, (json_int_t)b->error_code));
	if (with_flags || (diff & DIFF_EXCEPTION))
		json_object_set_new(key, "exception",
		    json_pack("[o o]", bucket_class(a->exc_class), bucket_class(b->exc_class)));
	if (diff & DIFF_OUTPUT) {
		int whole[2];
		for (role = 0; role < 2; role++) {
			const struct result *r = &res[role];
			whole[role] = 1;
			if (r->status != STATUS_OK)
				snprintf(
				    shapes[role], sizeof shapes[role], "%s", result_status_name(r->status));
			else if (r->output_is_false || r->output.data == NULL)
				snprintf(shapes[role], sizeof shapes[role], "false");
			else
				whole[role] = 0;
		}
		if (!whole[0] && !whole[1])
			bucket_shape(a->output.data, a->output.len, b->output.data, b->output.len, shapes[0],
			    shapes[1], sizeof shapes[0], &mask);
		else
			for (role = 0; role < 2; role++)
				if (!whole[role])
					snprintf(shapes[role], sizeof shapes[role], "string");
		if ((out = json_array()) == NULL)
			goto out;
		for (role = 0; role < 2; role++) {
			if (!with_flags)
				bucket_collapse_escapes(shapes[role]);
			json_array_append_new(out, json_string(shapes[role]));
		}
		json_object_set_new(key, "output", out);
	}
	if ((diff & (DIFF_STATUS | DIFF_ERROR_CODE | DIFF_ERROR_MSG | DIFF_EXCEPTION)) ||
	    bucket_errorish(a) || bucket_errorish(b))
		mask |= F_ERRORS;
	if (with_flags) {
		if ((fl = json_object()) == NULL)
			goto out;
		for (i = 0; (name = flags_name_at(i, &bit)) != NULL; i++)
			if (mask & bit)
				json_object_set_new(fl, name, json_boolean((flags & bit) != 0));
		json_object_set_new(key, "flags", fl);
	}
	text = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS);
out:
	json_decref(key);
	return text;
}

/*
 * A phpt regression or improvement (server/daemon/engine/phptrun.c): a bucket per
 * candidate, test and status pair.  {"candidate":..., "status":[base,
 * candidate], "suite":"phpt", "test":..., "v":1}: no run id, so the same
 * test failing the same way in a later run joins the bucket and its triage.
 */
char *bucket_phpt_key(
    const char *candidate, const char *test, const char *base_status, const char *cand_status)
{
	json_t *key = json_pack("{s:s s:[s s] s:s s:s s:i}", "candidate", candidate ? candidate : "",
	    "status", base_status, cand_status, "suite", "phpt", "test", test, "v", BUCKET_KEY_VERSION);
	char *text = key != NULL ? json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(key);
	return text;
}

char *bucket_key(long flags, const struct result res[2], unsigned diff)
{
	return bucket_build(flags, res, diff, 1);
}

/*
 * The mismatch signature a reduction must keep: the key without its flags
 * (which flags happened to be set is what a reduction takes away; the
 * reduced case's own flags are in its root-cause key, reduce.c), and with
 * the statuses, error codes and exceptions only where they differ; when a
 * side did not run to its end, the statuses only.
 */
char *bucket_signature(const struct result res[2], unsigned diff)
{
	const struct result *a = &res[ROLE_BASE], *b = &res[ROLE_HEAD];
	char *text = NULL;
	json_t *key;

	/* A memory error ran to its end: its output, codes and report count. */
	if ((a->status == STATUS_OK || a->status == STATUS_MEMORY_ERROR) &&
	    (b->status == STATUS_OK || b->status == STATUS_MEMORY_ERROR))
		return bucket_build(0, res, diff, 0);
	/* A side that did not run to its end (a crash, a timeout) has no output,
	 * error code or exception to compare: what the other side returned (an
	 * error 5 for a bad byte beside the one that crashes) is context, and
	 * the statuses alone are the mismatch.  Otherwise each crash would keep
	 * its case's unrelated errors and reduce to a root of its own. */
	key = json_pack("{s:i s:[s] s:[o o]}", "v", BUCKET_KEY_VERSION, "differs", "status", "status",
	    bucket_status(a), bucket_status(b));
	if (key != NULL)
		text = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(key);
	return text;
}

/* What one side returned, in a reduction's target: "false" or "string". */
static json_t *bucket_output_kind(const struct result *r)
{
	return json_string(r->output_is_false || r->output.data == NULL ? "false" : "string");
}

/*
 * What a reduction must keep (reduce.c): the kind of the mismatch, not the
 * shape of its difference.  Every member of one bug then meets at one
 * normal form, whatever its bytes made of the first difference (a key's
 * escape split one key bug by the value beside it; a property name's
 * characters split one declared-class bug into the classes of their
 * bytes).  It holds each side's status (and memory error in brief); when
 * both ran to their end, the candidate's error code when the codes differ
 * and its exception class when the exceptions do (the base's is the case's
 * context: another error the candidate never reaches); and when neither
 * differs, which of the output and the error message differ, each side's
 * output "false" or "string".  The root a reduced case makes is keyed by
 * its own signature (bucket_signature), so two bugs that differ the same
 * way in kind but not in shape still end in two roots.
 */
char *bucket_reduction_target(const struct result res[2], unsigned diff)
{
	const struct result *a = &res[ROLE_BASE], *b = &res[ROLE_HEAD];
	char *text = NULL;
	json_t *key = json_pack(
	    "{s:i s:[o o]}", "v", BUCKET_KEY_VERSION, "status", bucket_status(a), bucket_status(b));

	if (key == NULL)
		return NULL;
	if (a->status == STATUS_MEMORY_ERROR || b->status == STATUS_MEMORY_ERROR)
		json_object_set_new(
		    key, "memory_error", json_pack("[o o]", bucket_memory_error(a), bucket_memory_error(b)));
	if ((a->status == STATUS_OK || a->status == STATUS_MEMORY_ERROR) &&
	    (b->status == STATUS_OK || b->status == STATUS_MEMORY_ERROR)) {
		if (diff & DIFF_ERROR_CODE)
			json_object_set_new(key, "error_code", json_integer((json_int_t)b->error_code));
		if (diff & DIFF_EXCEPTION)
			json_object_set_new(key, "exception", bucket_class(b->exc_class));
		if (!(diff & (DIFF_STATUS | DIFF_ERROR_CODE | DIFF_EXCEPTION))) {
			json_object_set_new(key, "output_differs", json_boolean((diff & DIFF_OUTPUT) != 0));
			json_object_set_new(
			    key, "message_differs", json_boolean((diff & DIFF_ERROR_MSG) != 0));
			json_object_set_new(
			    key, "output", json_pack("[o o]", bucket_output_kind(a), bucket_output_kind(b)));
		}
	}
	text = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(key);
	return text;
}

char *bucket_target_recoded(const char *target, unsigned from, int to)
{
	json_t *key = json_loads(target, 0, NULL),
	       *code = key != NULL ? json_object_get(key, "error_code") : NULL;
	json_t *exc = key != NULL ? json_object_get(key, "exception") : NULL;
	json_int_t was = json_is_integer(code) ? json_integer_value(code) : -1;
	int thrown = (from & RECODE_EXCEPTION) && exc != NULL && !json_is_null(exc);
	char *text = NULL;

	if (thrown || (was >= 0 && was < 31 && (from & (1u << was)) && was != to)) {
		if (thrown)
			json_object_del(key, "exception");
		if (json_object_set_new(key, "error_code", json_integer(to)) == 0)
			text = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS);
	}
	json_decref(key);
	return text;
}
