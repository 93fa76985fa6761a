/*
 * Stored cases: a phpt-like file of sections, each a header line "--NAME--"
 * followed by its body, up to the next header or the end of the file.
 *
 *   --TEST--     title, one line                      required
 *   --FLAGS--    "JSON_A|JSON_B" or a number          default 0
 *   --DEPTH--    1 .. 2147483647                      default 512
 *   --MEASURE--  iterations: a measured workload      optional
 *   --SETUP--    PHP code run first (no <?php)        optional
 *   --VALUE--    an expression, or statements ending in `return ...;`
 *   --EXPECT--   the expected output                  optional
 *   --EXPECTF--  the expected output with run-tests.php's placeholders
 *                (%s %d %i %f %c %e %a %A %w %x %r...%r), instead of EXPECT
 *   --MIN_PHP--  "8.1" or "8.1.2": the oldest PHP the case is for; on an
 *                older build it does not run (unsupported)  optional
 *
 * The newline ending a body's last line is not part of the body (as in
 * phpt), so "--EXPECT--\n{}\n" expects "{}".  A header line may carry
 * trailing blanks or a CR; any other line is body text, byte for byte.
 * Like phpt there is no escaping: a body line that looks like a header
 * cannot be stored, and casefile_format refuses it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define CASEFILE_DEFAULT_DEPTH 512
#define CASEFILE_MAX_DEPTH 2147483647L
#define CASEFILE_MAX_ITERATIONS 1000000L /* a measured run stays minutes, not hours */
#define CASEFILE_MAX_FLAGS_TEXT 1024

enum casefile_section {
	SEC_TEST,
	SEC_FLAGS,
	SEC_DEPTH,
	SEC_MEASURE,
	SEC_SETUP,
	SEC_VALUE,
	SEC_EXPECT,
	SEC_EXPECTF,
	SEC_MIN_PHP,
	SEC_N
};

static const char *const casefile_names[SEC_N] = {
	"TEST",
	"FLAGS",
	"DEPTH",
	"MEASURE",
	"SETUP",
	"VALUE",
	"EXPECT",
	"EXPECTF",
	"MIN_PHP",
};

struct casefile_span {
	int present;
	int line; /* of the header */
	const char *body;
	size_t len;
};

void case_init(struct case_spec *c)
{
	memset(c, 0, sizeof(*c));
	c->depth = CASEFILE_DEFAULT_DEPTH;
}

void case_release(struct case_spec *c)
{
	free(c->title);
	free(c->code);
	free(c->setup);
	free(c->expect);
	free(c->source);
	case_init(c);
}

static int casefile_is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v';
}

/*
 * Is this line (without its '\n') a section header?  "--NAME--" where NAME
 * is [A-Z][A-Z0-9_]*, then optional blanks or CR.  ASCII tests, not
 * <ctype.h>, so the locale can't change what is a header.
 */
static int casefile_header(const char *line, size_t len, const char **name, size_t *namelen)
{
	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (len < 5 || memcmp(line, "--", 2) != 0 || memcmp(line + len - 2, "--", 2) != 0)
		return 0;
	if (!(line[2] >= 'A' && line[2] <= 'Z'))
		return 0;
	for (size_t i = 3; i < len - 2; i++) {
		char ch = line[i];
		if (!((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'))
			return 0;
	}
	*name = line + 2;
	*namelen = len - 4;
	return 1;
}

static char *casefile_dup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

static void casefile_trim(const char **s, size_t *len)
{
	while (*len > 0 && casefile_is_blank(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len > 0 && casefile_is_blank((*s)[*len - 1]))
		(*len)--;
}

/* A decimal in [1, max]; 0 or -1. */
static int casefile_positive(const char *s, size_t len, long max, long *out)
{
	long v = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (max - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < 1)
		return -1;
	*out = v;
	return 0;
}

/* Split the text into sections; errors carry the line they are about. */
static int casefile_split(
    const char *text, size_t len, struct casefile_span sec[SEC_N], char *err, size_t errsize)
{
	const char *pos = text, *end = text + len;
	int lineno = 0, cur = -1;

	while (pos < end) {
		const char *eol = memchr(pos, '\n', (size_t)(end - pos));
		const char *next = eol ? eol + 1 : end;
		const char *name;
		size_t namelen;
		int idx;

		lineno++;
		if (!casefile_header(pos, (size_t)((eol ? eol : end) - pos), &name, &namelen)) {
			if (cur < 0) {
				snprintf(err, errsize,
				    "line %d: text before the first section "
				    "(a case file starts with --TEST--)",
				    lineno);
				return -1;
			}
			pos = next;
			continue;
		}
		for (idx = 0; idx < SEC_N; idx++)
			if (strlen(casefile_names[idx]) == namelen &&
			    memcmp(casefile_names[idx], name, namelen) == 0)
				break;
		if (idx == SEC_N) {
			snprintf(err, errsize,
			    "line %d: unknown section --%.*s-- (known: "
			    "TEST, FLAGS, DEPTH, MEASURE, SETUP, VALUE, EXPECT, EXPECTF, MIN_PHP)",
			    lineno, namelen > 64 ? 64 : (int)namelen, name);
			return -1;
		}
		if (sec[idx].present) {
			snprintf(err, errsize, "line %d: duplicate section --%s-- (first at line %d)", lineno,
			    casefile_names[idx], sec[idx].line);
			return -1;
		}
		if (cur >= 0)
			sec[cur].len = (size_t)(pos - sec[cur].body);
		sec[idx].present = 1;
		sec[idx].line = lineno;
		sec[idx].body = next;
		cur = idx;
		pos = next;
	}
	if (cur >= 0)
		sec[cur].len = (size_t)(end - sec[cur].body);
	/* The last line's newline (LF or CRLF) ends the body, it isn't in it. */
	for (int i = 0; i < SEC_N; i++) {
		if (sec[i].len > 0 && sec[i].body[sec[i].len - 1] == '\n') {
			sec[i].len--;
			if (sec[i].len > 0 && sec[i].body[sec[i].len - 1] == '\r')
				sec[i].len--;
		}
	}
	return 0;
}

static int casefile_code(
    const struct casefile_span *s, const char *what, char **out, char *err, size_t errsize)
{
	if (s->len > MAX_CODE_SIZE) {
		snprintf(err, errsize, "line %d: --%s-- is %zu bytes, over the %u-byte limit", s->line, what,
		    s->len, MAX_CODE_SIZE);
		return -1;
	}
	if (!(*out = casefile_dup(s->body, s->len))) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	return 0;
}

/* --TEST--: the title, one line. */
static int casefile_title(const struct casefile_span *sec, char **title, char *err, size_t errsize)
{
	const char *v = sec->body;
	size_t vlen = sec->len;

	casefile_trim(&v, &vlen);
	if (vlen == 0)
		snprintf(err, errsize, "line %d: --TEST-- is empty", sec->line);
	else if (memchr(v, '\n', vlen))
		snprintf(err, errsize, "line %d: --TEST-- must be one line", sec->line + 1);
	else if (vlen > MAX_TITLE_SIZE)
		snprintf(err, errsize, "line %d: --TEST-- is %zu bytes, over the %d-byte limit",
		    sec->line + 1, vlen, MAX_TITLE_SIZE);
	else if (!(*title = casefile_dup(v, vlen)))
		snprintf(err, errsize, "out of memory");
	else
		return 0;
	return -1;
}

/* --FLAGS--: JSON_* names joined by |. */
static int casefile_flags(const struct casefile_span *sec, long *flags, char *err, size_t errsize)
{
	const char *v = sec->body;
	size_t vlen = sec->len;
	char ferr[160], *ftext;
	int rc;

	casefile_trim(&v, &vlen);
	if (vlen > CASEFILE_MAX_FLAGS_TEXT) {
		snprintf(err, errsize, "line %d: --FLAGS-- is over %d bytes", sec->line + 1,
		    CASEFILE_MAX_FLAGS_TEXT);
		return -1;
	}
	if (!(ftext = casefile_dup(v, vlen))) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	rc = flags_parse(ftext, flags, ferr, sizeof(ferr));
	free(ftext);
	if (rc < 0) {
		snprintf(err, errsize, "line %d: --FLAGS--: %s", sec->line + 1, ferr);
		return -1;
	}
	return 0;
}

/* --DEPTH-- and --MEASURE--: a whole number from 1 to max ("an integer",
 * "an iteration count" in the error). */
static int casefile_number(const struct casefile_span *sec, const char *name, const char *what, long max,
    long *out, char *err, size_t errsize)
{
	const char *v = sec->body;
	size_t vlen = sec->len;

	casefile_trim(&v, &vlen);
	if (casefile_positive(v, vlen, max, out) == 0)
		return 0;
	snprintf(err, errsize, "line %d: --%s-- must be %s from 1 to %ld, got \"%.*s\"", sec->line + 1, name,
	    what, max, vlen > 32 ? 32 : (int)vlen, v);
	return -1;
}

int case_min_php_parse(const char *text, uint32_t *out)
{
	unsigned major = 0, minor = 0, patch = 0, dots = 0;
	char tail = 0;
	int got;

	if (text == NULL || strlen(text) > 32 || strspn(text, "0123456789.") != strlen(text))
		return -1;
	for (const char *p = text; *p; p++)
		dots += *p == '.';
	got = sscanf(text, "%u.%u.%u%c", &major, &minor, &patch, &tail);
	if (got != (int)dots + 1 || got < 2 || got > 3 || major < 5 || major > 99 || minor > 99 || patch > 99)
		return -1;
	*out = major * 10000 + minor * 100 + patch;
	return 0;
}

/* --MIN_PHP--: "8.1" or "8.1.2" as a PHP_VERSION_ID (80100, 80102). */
static int casefile_min_php(const struct casefile_span *sec, uint32_t *out, char *err, size_t errsize)
{
	const char *v = sec->body;
	size_t vlen = sec->len;
	char text[40];

	casefile_trim(&v, &vlen);
	snprintf(text, sizeof text, "%.*s", vlen > 32 ? 32 : (int)vlen, v);
	if (vlen > 32 || case_min_php_parse(text, out) < 0) {
		snprintf(err, errsize,
		    "line %d: --MIN_PHP-- must be a PHP version such as 8.1 or 8.1.2, got \"%s\"",
		    sec->line + 1, text);
		return -1;
	}
	return 0;
}

/* Every section but --TEST-- and --VALUE--' presence, which the caller checked. */
static int casefile_sections(struct casefile_span *sec, struct case_spec *c, char *err, size_t errsize)
{
	const char *v;
	size_t vlen;

	if (casefile_title(&sec[SEC_TEST], &c->title, err, errsize) < 0)
		return -1;
	if (sec[SEC_FLAGS].present && casefile_flags(&sec[SEC_FLAGS], &c->flags, err, errsize) < 0)
		return -1;
	if (sec[SEC_DEPTH].present &&
	    casefile_number(
	        &sec[SEC_DEPTH], "DEPTH", "an integer", CASEFILE_MAX_DEPTH, &c->depth, err, errsize) < 0)
		return -1;
	if (sec[SEC_MEASURE].present &&
	    casefile_number(&sec[SEC_MEASURE], "MEASURE", "an iteration count", CASEFILE_MAX_ITERATIONS,
	        &c->iterations, err, errsize) < 0)
		return -1;
	/* An empty --SETUP-- is the same as none. */
	if (sec[SEC_SETUP].present && sec[SEC_SETUP].len > 0 &&
	    casefile_code(&sec[SEC_SETUP], "SETUP", &c->setup, err, errsize) < 0)
		return -1;
	v = sec[SEC_VALUE].body;
	vlen = sec[SEC_VALUE].len;
	casefile_trim(&v, &vlen);
	if (vlen == 0) {
		snprintf(err, errsize, "line %d: --VALUE-- is empty", sec[SEC_VALUE].line);
		return -1;
	}
	if (casefile_code(&sec[SEC_VALUE], "VALUE", &c->code, err, errsize) < 0)
		return -1;
	if (sec[SEC_EXPECT].present && sec[SEC_EXPECTF].present) {
		snprintf(err, errsize, "line %d: --EXPECTF-- beside --EXPECT-- (line %d): give one of them",
		    sec[SEC_EXPECTF].line, sec[SEC_EXPECT].line);
		return -1;
	}
	if (sec[SEC_MIN_PHP].present && casefile_min_php(&sec[SEC_MIN_PHP], &c->min_php, err, errsize) < 0)
		return -1;
	/* Kept as is, even empty: the bytes json_encode must return, or (EXPECTF)
	 * the pattern they must match (phpt_expectf_match: trimmed, as run-tests). */
	for (int i = SEC_EXPECT; i <= SEC_EXPECTF; i++) {
		if (!sec[i].present)
			continue;
		if (!(c->expect = casefile_dup(sec[i].body, sec[i].len))) {
			snprintf(err, errsize, "out of memory");
			return -1;
		}
		c->expectf = i == SEC_EXPECTF;
	}
	return 0;
}

int casefile_parse(const char *text, size_t len, struct case_spec *c, char *err, size_t errsize)
{
	struct casefile_span sec[SEC_N];
	const char *nul;

	case_init(c);
	memset(sec, 0, sizeof(sec));
	if (len > MAX_BODY_SIZE) {
		snprintf(err, errsize, "case file is %zu bytes, over the %u-byte limit", len, MAX_BODY_SIZE);
		return -1;
	}
	/* Fields are C strings: a NUL would silently cut one short. */
	if ((nul = memchr(text, '\0', len)) != NULL) {
		int line = 1;
		for (const char *p = text; p < nul; p++)
			line += *p == '\n';
		snprintf(err, errsize, "line %d: NUL byte (write it as \"\\0\" in PHP code)", line);
		return -1;
	}
	if (casefile_split(text, len, sec, err, errsize) < 0)
		return -1;
	if (!sec[SEC_TEST].present) {
		snprintf(err, errsize, "missing --TEST-- section (the case's title)");
		return -1;
	}
	if (!sec[SEC_VALUE].present) {
		snprintf(err, errsize, "missing --VALUE-- section (the code producing the value)");
		return -1;
	}
	if (casefile_sections(sec, c, err, errsize) < 0) {
		case_release(c);
		return -1;
	}
	return 0;
}

/* ---- formatting */

static void casefile_section(struct buf *b, const char *name, const char *body)
{
	buf_add(b, "--", 2);
	buf_add(b, name, strlen(name));
	buf_add(b, "--\n", 3);
	buf_add(b, body, strlen(body));
	buf_add(b, "\n", 1);
}

/*
 * Can this body be written so that parsing gives it back?  Not if a line
 * would read as a header, nor if it ends in CR (the parser takes a final
 * CRLF as the body's end).
 */
static int casefile_storable(const char *body)
{
	const char *p = body, *name;
	size_t n = strlen(body), namelen;

	if (n > 0 && body[n - 1] == '\r')
		return 0;
	for (;;) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);

		if (casefile_header(p, ll, &name, &namelen))
			return 0;
		if (!eol)
			return 1;
		p = eol + 1;
	}
}

/*
 * NULL when out of memory or when the case can't be stored faithfully: no
 * code, a title that is empty, multi-line or too long, flags < 0, depth or
 * iterations out of range, or a body casefile_storable refuses.
 */
char *casefile_format(const struct case_spec *c)
{
	struct buf b = BUF_INIT;
	const char *title = c->title;
	char num[64], flagbuf[512];
	size_t tlen;

	if (!c->code || !title)
		return NULL;
	for (const char *p = c->code;; p++) {
		if (!*p)
			return NULL; /* blank code: the parser would call it empty */
		if (!casefile_is_blank(*p))
			break;
	}
	tlen = strlen(title);
	if (tlen == 0 || tlen > MAX_TITLE_SIZE || strpbrk(title, "\r\n") || casefile_is_blank(title[0]) ||
	    casefile_is_blank(title[tlen - 1]))
		return NULL;
	if (c->flags < 0 || c->depth < 1 || c->depth > CASEFILE_MAX_DEPTH || c->iterations < 0 ||
	    c->iterations > CASEFILE_MAX_ITERATIONS)
		return NULL;
	/* The title too: an indented "  --DEPTH--" title is fine in a file,
	 * but written back at the start of its line it becomes a header
	 * (found by fuzz/fuzz_casefile.c). */
	if (!casefile_storable(title) || !casefile_storable(c->code) ||
	    (c->setup && !casefile_storable(c->setup)) || (c->expect && !casefile_storable(c->expect)))
		return NULL;

	casefile_section(&b, "TEST", title);
	if (c->flags != 0) {
		flags_format(c->flags, flagbuf, sizeof(flagbuf));
		casefile_section(&b, "FLAGS", flagbuf);
	}
	if (c->depth != CASEFILE_DEFAULT_DEPTH) {
		snprintf(num, sizeof(num), "%ld", c->depth);
		casefile_section(&b, "DEPTH", num);
	}
	if (c->iterations > 0) {
		snprintf(num, sizeof(num), "%ld", c->iterations);
		casefile_section(&b, "MEASURE", num);
	}
	if (c->setup && c->setup[0])
		casefile_section(&b, "SETUP", c->setup);
	casefile_section(&b, "VALUE", c->code);
	if (c->expect)
		casefile_section(&b, c->expectf ? "EXPECTF" : "EXPECT", c->expect);
	if (c->min_php != 0) {
		snprintf(num, sizeof(num), "%u.%u.%u", (unsigned)(c->min_php / 10000),
		    (unsigned)(c->min_php / 100 % 100), (unsigned)(c->min_php % 100));
		casefile_section(&b, "MIN_PHP", num);
	}
	if (b.failed) {
		free(b.data);
		return NULL;
	}
	return b.data;
}
