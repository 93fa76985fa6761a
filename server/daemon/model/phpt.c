/*
 * .phpt files as run-tests.php 8.2 reads and judges them (phpt.h).  Every
 * rule below names the run-tests.php code it follows; docs/phpt.md has the
 * whole list.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "phpt.h"

static const char *const section_names[PHPT_NSECTIONS] = {
	[PHPT_TEST] = "TEST",
	[PHPT_EXPECT] = "EXPECT",
	[PHPT_EXPECTF] = "EXPECTF",
	[PHPT_EXPECTREGEX] = "EXPECTREGEX",
	[PHPT_EXPECTREGEX_EXTERNAL] = "EXPECTREGEX_EXTERNAL",
	[PHPT_EXPECT_EXTERNAL] = "EXPECT_EXTERNAL",
	[PHPT_EXPECTF_EXTERNAL] = "EXPECTF_EXTERNAL",
	[PHPT_EXPECTHEADERS] = "EXPECTHEADERS",
	[PHPT_POST] = "POST",
	[PHPT_POST_RAW] = "POST_RAW",
	[PHPT_GZIP_POST] = "GZIP_POST",
	[PHPT_DEFLATE_POST] = "DEFLATE_POST",
	[PHPT_PUT] = "PUT",
	[PHPT_GET] = "GET",
	[PHPT_COOKIE] = "COOKIE",
	[PHPT_ARGS] = "ARGS",
	[PHPT_FILE] = "FILE",
	[PHPT_FILEEOF] = "FILEEOF",
	[PHPT_FILE_EXTERNAL] = "FILE_EXTERNAL",
	[PHPT_REDIRECTTEST] = "REDIRECTTEST",
	[PHPT_CAPTURE_STDIO] = "CAPTURE_STDIO",
	[PHPT_STDIN] = "STDIN",
	[PHPT_CGI] = "CGI",
	[PHPT_PHPDBG] = "PHPDBG",
	[PHPT_INI] = "INI",
	[PHPT_ENV] = "ENV",
	[PHPT_EXTENSIONS] = "EXTENSIONS",
	[PHPT_SKIPIF] = "SKIPIF",
	[PHPT_XFAIL] = "XFAIL",
	[PHPT_XLEAK] = "XLEAK",
	[PHPT_CLEAN] = "CLEAN",
	[PHPT_CREDITS] = "CREDITS",
	[PHPT_DESCRIPTION] = "DESCRIPTION",
	[PHPT_CONFLICTS] = "CONFLICTS",
	[PHPT_WHITESPACE_SENSITIVE] = "WHITESPACE_SENSITIVE",
	[PHPT_FLAKY] = "FLAKY",
};

const char *phpt_section_name(enum phpt_section s)
{
	return (unsigned)s < PHPT_NSECTIONS ? section_names[s] : "?";
}

int phpt_has(const struct phpt *t, enum phpt_section s)
{
	return t->sec[s].data != NULL;
}

int phpt_not_empty(const struct phpt *t, enum phpt_section s)
{
	const struct phpt_text *x = &t->sec[s];
	return x->data && x->len > 0 && !(x->len == 1 && x->data[0] == '0');
}

static int text_set(struct phpt_text *x, const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (!p)
		return -1;
	memcpy(p, s, n);
	p[n] = '\0';
	free(x->data);
	x->data = p;
	x->len = n;
	return 0;
}

static int text_append(struct phpt_text *x, const char *s, size_t n)
{
	char *p = realloc(x->data, x->len + n + 1);
	if (!p)
		return -1;
	memcpy(p + x->len, s, n);
	x->len += n;
	p[x->len] = '\0';
	x->data = p;
	return 0;
}

static void text_clear(struct phpt_text *x)
{
	free(x->data);
	x->data = NULL;
	x->len = 0;
}

void phpt_release(struct phpt *t)
{
	for (int i = 0; i < PHPT_NSECTIONS; i++)
		text_clear(&t->sec[i]);
}

static int bork(struct phpt *t, const char *fmt, const char *arg)
{
	snprintf(t->bork, sizeof(t->bork), fmt, arg);
	return -1;
}

/* preg_match('/^--([_A-Z]+)--/', line): the name's length, or 0. */
static size_t section_header(const char *line, size_t n)
{
	size_t i = 2;
	if (n < 5 || line[0] != '-' || line[1] != '-')
		return 0;
	while (i < n && (line[i] == '_' || (line[i] >= 'A' && line[i] <= 'Z')))
		i++;
	if (i == 2 || i + 2 > n || line[i] != '-' || line[i + 1] != '-')
		return 0;
	return i - 2;
}

static int section_lookup(const char *name, size_t n)
{
	for (int i = 0; i < PHPT_NSECTIONS; i++)
		if (strlen(section_names[i]) == n && memcmp(section_names[i], name, n) == 0)
			return i;
	return -1;
}

/* PCRE's \s without UTF: space, \t \n \v \f \r. */
static int pcre_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* preg_match('/^===DONE===\s*$/', line) */
static int done_line(const char *line, size_t n)
{
	if (n < 10 || memcmp(line, "===DONE===", 10) != 0)
		return 0;
	for (size_t i = 10; i < n; i++)
		if (!pcre_space(line[i]))
			return 0;
	return 1;
}

/* TestFile::readFile: lines as fgets gives them (each with its "\n"). */
static int read_sections(struct phpt *t, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int section = PHPT_TEST, secfile = 0, secdone = 0;

	if (len == 0)
		return bork(
		    t, "cannot read test%s", ""); /* fgets() false: feof() is only true after a read */
	const char *nl = memchr(p, '\n', len);
	size_t n = nl ? (size_t)(nl - p) + 1 : len;
	if (n < 8 || memcmp(p, "--TEST--", 8) != 0)
		return bork(t, "tests must start with --TEST--%s", "");
	if (text_set(&t->sec[PHPT_TEST], "", 0) < 0)
		return -1;
	p += n;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		size_t hn = section_header(p, n);
		if (hn) {
			char name[64];
			int s = section_lookup(p + 2, hn);
			snprintf(name, sizeof(name), "%.*s", (int)(hn < 60 ? hn : 60), p + 2);
			if (s >= 0 && phpt_not_empty(t, s))
				return bork(t, "duplicated %s section", name);
			/* Duplicates are checked first, against every stored name
			 * (TEST included); TEST itself is not an allowed header. */
			if (s < 0 || s == PHPT_TEST)
				return bork(t, "Unknown section \"%s\"", name);
			if (text_set(&t->sec[s], "", 0) < 0)
				return -1;
			section = s;
			secfile = s == PHPT_FILE || s == PHPT_FILEEOF || s == PHPT_FILE_EXTERNAL;
			secdone = 0;
			p += n;
			continue;
		}
		if (!secdone && text_append(&t->sec[section], p, n) < 0)
			return -1;
		if (secfile && done_line(p, n))
			secdone = 1;
		p += n;
	}
	return 0;
}

/* PHP's trim() character list. */
static int php_trim_char(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0' || c == '\x0b';
}

static int load_external(
    struct phpt *t, enum phpt_section ext, enum phpt_section into, phpt_loader load, void *ctx)
{
	/* trim(str_replace('..', '', section)) */
	const struct phpt_text *x = &t->sec[ext];
	char *name = malloc(x->len + 1);
	size_t n = 0;
	if (!name)
		return -1;
	for (size_t i = 0; i < x->len; i++) {
		if (x->data[i] == '.' && i + 1 < x->len && x->data[i + 1] == '.') {
			i++;
			continue;
		}
		name[n++] = x->data[i];
	}
	size_t a = 0;
	while (a < n && php_trim_char(name[a]))
		a++;
	while (n > a && php_trim_char(name[n - 1]))
		n--;
	memmove(name, name + a, n - a);
	name[n - a] = '\0';
	char *data = NULL;
	size_t dlen = 0;
	if (!load || memchr(name, '\0', n - a) || load(ctx, name, &data, &dlen) < 0) {
		snprintf(t->bork, sizeof(t->bork), "could not load --%s-- %s", section_names[ext], name);
		free(name);
		return -1;
	}
	free(name);
	free(t->sec[into].data);
	t->sec[into].data = data;
	t->sec[into].len = dlen;
	return 0;
}

/* TestFile::validateAndProcess */
static int validate(struct phpt *t, phpt_loader load, void *ctx)
{
	if (phpt_has(t, PHPT_REDIRECTTEST))
		return 0;
	int files = phpt_has(t, PHPT_FILE) + phpt_has(t, PHPT_FILEEOF) + phpt_has(t, PHPT_FILE_EXTERNAL);
	if (!phpt_has(t, PHPT_PHPDBG) && files != 1)
		return bork(t, "missing section --FILE--%s", "");
	if (phpt_has(t, PHPT_FILEEOF)) {
		/* preg_replace("/[\r\n]+$/", '', FILEEOF): $ also matches before a
		 * final "\n", which the greedy class has eaten anyway. */
		struct phpt_text *x = &t->sec[PHPT_FILEEOF];
		size_t n = x->len;
		while (n > 0 && (x->data[n - 1] == '\r' || x->data[n - 1] == '\n'))
			n--;
		if (text_set(&t->sec[PHPT_FILE], x->data, n) < 0)
			return -1;
		text_clear(x);
	}
	static const enum phpt_section ext[][2] = {
		{ PHPT_FILE_EXTERNAL, PHPT_FILE },
		{ PHPT_EXPECT_EXTERNAL, PHPT_EXPECT },
		{ PHPT_EXPECTF_EXTERNAL, PHPT_EXPECTF },
		{ PHPT_EXPECTREGEX_EXTERNAL, PHPT_EXPECTREGEX },
	};
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (phpt_has(t, ext[i][0]) && load_external(t, ext[i][0], ext[i][1], load, ctx) < 0)
			return -1;
	if (phpt_has(t, PHPT_EXPECT) + phpt_has(t, PHPT_EXPECTF) + phpt_has(t, PHPT_EXPECTREGEX) != 1)
		return bork(t, "missing section --EXPECT--, --EXPECTF-- or --EXPECTREGEX--%s", "");
	if (phpt_has(t, PHPT_PHPDBG) && !phpt_has(t, PHPT_STDIN)) {
		const struct phpt_text *d = &t->sec[PHPT_PHPDBG];
		if (text_set(&t->sec[PHPT_STDIN], d->data, d->len) < 0 ||
		    text_append(&t->sec[PHPT_STDIN], "\n", 1) < 0)
			return -1;
	}
	return 0;
}

int phpt_parse(struct phpt *t, const char *buf, size_t len, phpt_loader load, void *ctx)
{
	memset(t, 0, sizeof(*t));
	if (len > PHPT_MAX_FILE)
		return bork(t, "test file over %s", "4 MiB");
	if (read_sections(t, buf, len) < 0 || validate(t, load, ctx) < 0)
		return -1;
	return 0;
}

char *phpt_normalise(const char *s, size_t len, size_t *outlen)
{
	size_t a = 0, b = len, n = 0;
	while (a < b && php_trim_char(s[a]))
		a++;
	while (b > a && php_trim_char(s[b - 1]))
		b--;
	char *r = malloc(b - a + 1);
	if (!r)
		return NULL;
	for (size_t i = a; i < b; i++) {
		if (s[i] == '\r' && i + 1 < b && s[i + 1] == '\n')
			continue;
		r[n++] = s[i];
	}
	r[n] = '\0';
	*outlen = n;
	return r;
}

char *phpt_name(const struct phpt *t)
{
	const struct phpt_text *x = &t->sec[PHPT_TEST];
	size_t a = 0, b = x->len;
	if (!x->data)
		return strdup("");
	while (a < b && php_trim_char(x->data[a]))
		a++;
	while (b > a && php_trim_char(x->data[b - 1]))
		b--;
	return strndup(x->data + a, b - a);
}

static const char *const phpt_status_names[PS_COUNT] = {
	"PASS",
	"FAIL",
	"SKIP",
	"BORK",
	"XFAIL",
	"XPASS",
	"crash",
	"timeout",
	"error",
	"memory-error",
};

const char *phpt_status_name(enum phpt_status s)
{
	return (unsigned)s < PS_COUNT ? phpt_status_names[s] : "error";
}

int phpt_status_parse(const char *name)
{
	for (int k = 0; name != NULL && k < PS_COUNT; k++)
		if (strcmp(name, phpt_status_names[k]) == 0)
			return k;
	return -1;
}

int phpt_is_test_path(const char *path)
{
	size_t n = strlen(path);
	return n > 5 && strcmp(path + n - 5, ".phpt") == 0;
}

/* ---- EXPECTF ---- */

/* A buffer's bytes, "" when nothing was added; NULL only out of memory. */
static char *buf_text(struct buf *b, size_t *len)
{
	buf_add(b, "", 0);
	return buf_detach(b, len);
}

/* preg_quote($s, '/') */
static void preg_quote(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\0') {
			buf_add(b, "\\000", 4);
			continue;
		}
		if (strchr(".\\+*?[^]$(){}=!<>|:-#/", c))
			buf_add(b, "\\", 1);
		buf_add(b, &c, 1);
	}
}

static const char *placeholder(char c)
{
	switch (c) {
	case 'e':
		return "\\/"; /* preg_quote(DIRECTORY_SEPARATOR, '/') */
	case 's':
		return "[^\\r\\n]+";
	case 'S':
		return "[^\\r\\n]*";
	case 'a':
		return ".+";
	case 'A':
		return ".*";
	case 'w':
		return "\\s*";
	case 'i':
		return "[+-]?\\d+";
	case 'd':
		return "\\d+";
	case 'x':
		return "[0-9a-fA-F]+";
	case 'f':
		return "[+-]?(?:\\d+|(?=\\.\\d))(?:\\.\\d+)?(?:[Ee][+-]?\\d+)?";
	case 'c':
		return ".";
	case '0':
		return "\\x00";
	default:
		return NULL;
	}
}

static const char *find2(const char *s, size_t from, size_t len, const char *two)
{
	for (size_t i = from; i + 1 < len; i++)
		if (s[i] == two[0] && s[i + 1] == two[1])
			return s + i;
	return NULL;
}

char *phpt_expectf_regex(const char *w, size_t length, size_t *outlen)
{
	struct buf q = BUF_INIT, r = BUF_INIT;
	size_t off = 0;

	/* preg_quote everything but the %r...%r parts, which become groups */
	while (off < length) {
		size_t start, end;
		const char *s = find2(w, off, length, "%r");
		if (s) {
			start = (size_t)(s - w);
			const char *e = find2(w, start + 2, length, "%r");
			if (e) {
				end = (size_t)(e - w);
			} else {
				end = start = length; /* unbalanced: ignored */
			}
		} else {
			start = end = length;
		}
		preg_quote(&q, w + off, start - off);
		if (end > start) {
			buf_add(&q, "(", 1);
			buf_add(&q, w + start + 2, end - start - 2);
			buf_add(&q, ")", 1);
		}
		off = end + 2;
	}
	size_t qlen;
	char *quoted = buf_text(&q, &qlen);
	if (!quoted)
		return NULL;
	/* strtr() with the placeholders: every key is two bytes, scanned left
	 * to right, replaced text never rescanned. */
	for (size_t i = 0; i < qlen; i++) {
		const char *ph = quoted[i] == '%' && i + 1 < qlen ? placeholder(quoted[i + 1]) : NULL;
		if (ph) {
			buf_adds(&r, ph);
			i++;
		} else {
			buf_add(&r, quoted + i, 1);
		}
	}
	free(quoted);
	return buf_text(&r, outlen);
}

/* ---- preg_match ---- */

/* '/^' . re . '$/s' compiled as PHP would: NULL (why in err) where
 * preg_match would warn and give false. */
static pcre2_code *regex_compile(const char *re, size_t relen, char *err, size_t errsize)
{
	/* PHP looks for the closing delimiter first: an unescaped "/" inside
	 * ends the pattern and what follows it ("...$/s") is an unknown
	 * modifier, so preg_match warns and gives false. */
	for (size_t i = 0; i < relen; i++) {
		if (re[i] == '\\' && i + 1 < relen) {
			i++;
		} else if (re[i] == '/') {
			if (err)
				snprintf(
				    err, errsize, "preg_match(): unknown modifier after an unescaped '/'");
			return NULL;
		}
	}
	struct buf p = BUF_INIT;
	buf_add(&p, "^", 1);
	buf_add(&p, re, relen);
	buf_add(&p, "$", 1);
	size_t plen;
	char *pat = buf_text(&p, &plen);
	if (!pat)
		return NULL;
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)pat, plen, PCRE2_DOTALL, &ec, &eo, NULL);
	free(pat);
	if (!code && err) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof(msg));
		snprintf(err, errsize, "preg_match(): compilation failed: %s at offset %zu", (char *)msg,
		    (size_t)eo);
	}
	return code;
}

/* 1, 0, or -1 for a match error (PHP's limits: pcre.backtrack_limit and
 * pcre.recursion_limit's defaults). */
static int regex_match(const pcre2_code *code, const char *subject, size_t sublen, char *err, size_t errsize)
{
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
	int rc = -1;
	if (mc && md) {
		pcre2_set_match_limit(mc, 1000000);
		pcre2_set_depth_limit(mc, 100000);
		rc = pcre2_match(code, (PCRE2_SPTR)subject, sublen, 0, 0, md, mc);
		if (rc >= 0) {
			rc = 1;
		} else if (rc == PCRE2_ERROR_NOMATCH) {
			rc = 0;
		} else {
			if (err) {
				PCRE2_UCHAR msg[256];
				pcre2_get_error_message(rc, msg, sizeof(msg));
				snprintf(err, errsize, "preg_match(): %s", (char *)msg);
			}
			rc = -1;
		}
	}
	pcre2_match_data_free(md);
	pcre2_match_context_free(mc);
	return rc;
}

int phpt_preg_match(
    const char *re, size_t relen, const char *subject, size_t sublen, char *err, size_t errsize)
{
	pcre2_code *code = regex_compile(re, relen, err, errsize);
	if (!code)
		return -1;
	int rc = regex_match(code, subject, sublen, err, errsize);
	pcre2_code_free(code);
	return rc;
}

/* ---- comparison ---- */

static char *memdup0(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* The wanted text (trim'd; EXPECT also \r\n-normalised, as run-tests keeps
 * it for the diff) and its regex (NULL for EXPECT). */
static int wanted_of(const struct phpt *t, char **wanted, size_t *wlen, char **re, size_t *relen)
{
	*wanted = *re = NULL;
	if (phpt_has(t, PHPT_EXPECTF) || phpt_has(t, PHPT_EXPECTREGEX)) {
		const struct phpt_text *x = phpt_has(t, PHPT_EXPECTF) ? &t->sec[PHPT_EXPECTF]
		                                                      : &t->sec[PHPT_EXPECTREGEX];
		size_t a = 0, b = x->len;
		while (a < b && php_trim_char(x->data[a]))
			a++;
		while (b > a && php_trim_char(x->data[b - 1]))
			b--;
		*wanted = memdup0(x->data + a, b - a); /* may hold NULs */
		size_t nlen;
		char *norm = phpt_normalise(x->data + a, b - a, &nlen); /* already trimmed: only \r\n */
		if (!*wanted || !norm) {
			free(*wanted);
			free(norm);
			return -1;
		}
		*wlen = b - a;
		if (phpt_has(t, PHPT_EXPECTF)) {
			*re = phpt_expectf_regex(norm, nlen, relen);
			free(norm);
			if (!*re) {
				free(*wanted);
				return -1;
			}
		} else {
			*re = norm;
			*relen = nlen;
		}
		return 0;
	}
	const struct phpt_text *x = &t->sec[PHPT_EXPECT];
	*wanted = phpt_normalise(x->data ? x->data : "", x->len, wlen);
	return *wanted ? 0 : -1;
}

enum phpt_match phpt_compare(const struct phpt *t, const char *out, size_t outlen, char *err, size_t errsize)
{
	char *wanted, *re, *o;
	size_t wlen, relen = 0, olen;
	enum phpt_match m = PHPT_MATCH_FAIL;

	if (err && errsize)
		err[0] = '\0';
	if (wanted_of(t, &wanted, &wlen, &re, &relen) < 0)
		return PHPT_MATCH_FAIL;
	o = phpt_normalise(out, outlen, &olen);
	if (o) {
		if (re)
			m = phpt_preg_match(re, relen, o, olen, err, errsize) == 1 ? PHPT_MATCH_PASS
			                                                           : PHPT_MATCH_FAIL;
		else
			m = wlen == olen && memcmp(wanted, o, olen) == 0 ? PHPT_MATCH_PASS : PHPT_MATCH_FAIL;
	}
	free(o);
	free(wanted);
	free(re);
	return m;
}

int phpt_expectf_match(const char *wanted, size_t wlen, const char *out, size_t outlen)
{
	size_t nlen, relen, olen;
	char *norm = phpt_normalise(wanted, wlen, &nlen), *re = NULL, *o = NULL;
	int rc = -1;

	if (norm != NULL && (re = phpt_expectf_regex(norm, nlen, &relen)) != NULL &&
	    (o = phpt_normalise(out, outlen, &olen)) != NULL)
		rc = phpt_preg_match(re, relen, o, olen, NULL, 0) == 1;
	free(norm);
	free(re);
	free(o);
	return rc;
}

/* ---- the diff: generate_diff / generate_array_diff ---- */

struct lines {
	const char **s;
	size_t *n;
	size_t count;
};

/* explode("\n", s) over s's bytes (pointers into s) */
#define PHPT_DIFF_MAX_LINES 20000

static int explode(struct lines *l, const char *s, size_t len)
{
	size_t count = 1;
	for (size_t i = 0; i < len; i++)
		count += s[i] == '\n';
	l->s = malloc(count * sizeof(*l->s));
	l->n = malloc(count * sizeof(*l->n));
	if (!l->s || !l->n)
		return -1;
	l->count = 0;
	const char *p = s, *end = s + len;
	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		l->s[l->count] = p;
		l->n[l->count++] = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

static void lines_free(struct lines *l)
{
	free(l->s);
	free(l->n);
}

struct differ {
	struct lines r, o, w; /* compared (regex or wanted), output, wanted as shown */
	int is_reg;
	pcre2_code **code; /* each r line compiled once (is_reg) */
	char *compiled;    /* 1: tried (code NULL: it does not compile) */
};

static int comp_line(const struct differ *d, size_t i1, size_t i2)
{
	if (d->is_reg) {
		if (!d->compiled[i1]) {
			d->code[i1] = regex_compile(d->r.s[i1], d->r.n[i1], NULL, 0);
			d->compiled[i1] = 1;
		}
		return d->code[i1] && regex_match(d->code[i1], d->o.s[i2], d->o.n[i2], NULL, 0) == 1;
	}
	return d->r.n[i1] == d->o.n[i2] && memcmp(d->r.s[i1], d->o.s[i2], d->o.n[i2]) == 0;
}

/* count_array_diff.  $st = $steps / 2 is a float when steps is odd; it is
 * passed on to the int parameter $steps, which truncates it. */
static long count_array_diff(const struct differ *d, long idx1, long idx2, long cnt1, long cnt2, long steps)
{
	long equal = 0;
	while (idx1 < cnt1 && idx2 < cnt2 && comp_line(d, (size_t)idx1, (size_t)idx2)) {
		idx1++;
		idx2++;
		equal++;
		steps--;
	}
	if (--steps > 0) {
		long eq1 = 0, eq2 = 0;
		double st = (double)steps / 2;
		for (long ofs1 = idx1 + 1; ofs1 < cnt1 && st-- > 0; ofs1++) {
			long eq = count_array_diff(d, ofs1, idx2, cnt1, cnt2, (long)st);
			if (eq > eq1)
				eq1 = eq;
		}
		long st2 = steps;
		for (long ofs2 = idx2 + 1; ofs2 < cnt2 && st2-- > 0; ofs2++) {
			long eq = count_array_diff(d, idx1, ofs2, cnt1, cnt2, st2);
			if (eq > eq2)
				eq2 = eq;
		}
		if (eq1 > eq2)
			equal += eq1;
		else if (eq2 > 0)
			equal += eq2;
	}
	return equal;
}

#define CONTEXT_LINES 3

struct diffout {
	struct buf b;
	int nlines;
	int width;
};

static void out_line(struct diffout *o, const char *s, size_t n)
{
	if (o->nlines++)
		buf_add(&o->b, "\n", 1);
	buf_add(&o->b, s, n);
}

static void out_numbered(struct diffout *o, long num, char sign, const char *s, size_t n)
{
	char head[32];
	int hn = snprintf(head, sizeof(head), "%0*ld%c ", o->width, num, sign);
	if (o->nlines++)
		buf_add(&o->b, "\n", 1);
	buf_add(&o->b, head, (size_t)hn);
	buf_add(&o->b, s, n);
}

static void out_context(struct diffout *o, const struct lines *w, long k)
{
	char pad[32];
	int n = o->width + 2 < (int)sizeof(pad) ? o->width + 2 : (int)sizeof(pad) - 1;
	memset(pad, ' ', (size_t)n);
	if (o->nlines++)
		buf_add(&o->b, "\n", 1);
	buf_add(&o->b, pad, (size_t)n);
	if (k >= 0 && (size_t)k < w->count)
		buf_add(&o->b, w->s[k], w->n[k]);
}

/* $add_context_lines */
static void add_context(struct diffout *o, const struct lines *w, long *old_k1, long new_k1)
{
	if (*old_k1 >= new_k1 || !CONTEXT_LINES)
		return;
	long end = new_k1 - 1;
	long range_end = end < *old_k1 + CONTEXT_LINES ? end : *old_k1 + CONTEXT_LINES;
	if (*old_k1 >= 0)
		while (*old_k1 < range_end)
			out_context(o, w, (*old_k1)++);
	if (end - CONTEXT_LINES > *old_k1) {
		*old_k1 = end - CONTEXT_LINES;
		if (*old_k1 > 0)
			out_line(o, "--", 2);
	}
	if (*old_k1 < 0)
		*old_k1 = 0;
	while (*old_k1 < end)
		out_context(o, w, (*old_k1)++);
	*old_k1 = new_k1;
}

/* "NNN- " and the wanted line numbered num (as shown: $w, not the regex) */
static void out_removed(struct diffout *o, const struct differ *d, long num)
{
	size_t k = (size_t)(num - 1);
	out_numbered(o, num, '-', k < d->w.count ? d->w.s[k] : "", k < d->w.count ? d->w.n[k] : 0);
}

static char *array_diff(const struct differ *d, size_t *difflen)
{
	long cnt1 = (long)d->r.count, cnt2 = (long)d->o.count, idx1 = 0, idx2 = 0;
	long max = (cnt1 > cnt2 ? cnt1 : cnt2) + 1;
	char digits[32];
	struct diffout o = { .width = snprintf(digits, sizeof(digits), "%ld", max) };
	if (o.width < 3)
		o.width = 3;
	/* old1/old2: the removed and added lines, keyed as PHP keys them:
	 * in "$old1[$idx1] = sprintf(..., $idx1 + 1) . $w[$idx1++]" the key is
	 * read after the right-hand side, so a line's key is its index + 1,
	 * the same as its printed number.  mapping: idx2 -> idx1. */
	long *old1 = malloc((size_t)(cnt1 + 1) * sizeof(long)), n1 = 0;
	long *old2 = malloc((size_t)(cnt2 + 1) * sizeof(long)), n2 = 0;
	long *mapping = malloc((size_t)(cnt2 + 2) * sizeof(long));
	char *mapset = calloc((size_t)cnt2 + 2, 1);
	char *res = NULL;
	if (!old1 || !old2 || !mapping || !mapset)
		goto done;

	while (idx1 < cnt1 && idx2 < cnt2) {
		mapping[idx2] = idx1;
		mapset[idx2] = 1;
		if (comp_line(d, (size_t)idx1, (size_t)idx2)) {
			idx1++;
			idx2++;
			continue;
		}
		long c1 = count_array_diff(d, idx1 + 1, idx2, cnt1, cnt2, 10);
		long c2 = count_array_diff(d, idx1, idx2 + 1, cnt1, cnt2, 10);
		if (c1 > c2) {
			old1[n1++] = ++idx1;
		} else if (c2 > 0) {
			old2[n2++] = ++idx2;
		} else {
			old1[n1++] = ++idx1;
			old2[n2++] = ++idx2;
		}
	}
	mapping[idx2] = idx1;
	mapset[idx2] = 1;

	/* The merge of old1 and old2.  PHP's next() gives each entry's text,
	 * never falsy (it starts with a line number), so only the end of a
	 * list stops it.  A null $k1 == $l1 + 1 would hold only for l1 == -1,
	 * which never happens (l1 starts at -2, then holds keys >= 1). */
	long i1 = 0, i2 = 0, l1 = -2, l2 = -2, old_k1 = -1;
	while (i1 < n1 || i2 < n2) {
		int has1 = i1 < n1, has2 = i2 < n2;
		long k1 = has1 ? old1[i1] : -1, k2 = has2 ? old2[i2] : -1;
		long m2 = has2 && mapset[k2] ? mapping[k2] : 0;
		if ((has1 && k1 == l1 + 1) || !has2) {
			add_context(&o, &d->w, &old_k1, k1);
			l1 = k1;
			out_removed(&o, d, k1);
			old_k1 = k1;
			i1++;
		} else if ((has2 && k2 == l2 + 1) || !has1) {
			add_context(&o, &d->w, &old_k1, m2);
			l2 = k2;
			out_numbered(&o, k2, '+', d->o.s[k2 - 1], d->o.n[k2 - 1]);
			i2++;
		} else if (k1 < m2) {
			add_context(&o, &d->w, &old_k1, k1);
			l1 = k1;
			out_removed(&o, d, k1);
			i1++;
		} else {
			add_context(&o, &d->w, &old_k1, m2);
			l2 = k2;
			out_numbered(&o, k2, '+', d->o.s[k2 - 1], d->o.n[k2 - 1]);
			i2++;
		}
	}
	while (idx1 < cnt1) {
		add_context(&o, &d->w, &old_k1, idx1 + 1);
		out_removed(&o, d, idx1 + 1);
		idx1++;
	}
	while (idx2 < cnt2) {
		if (mapset[idx2])
			add_context(&o, &d->w, &old_k1, mapping[idx2] + 1);
		out_numbered(&o, idx2 + 1, '+', d->o.s[idx2], d->o.n[idx2]);
		idx2++;
	}
	{
		long lim = old_k1 + CONTEXT_LINES + 1 < cnt1 + 1 ? old_k1 + CONTEXT_LINES + 1 : cnt1 + 1;
		add_context(&o, &d->w, &old_k1, lim);
		if (CONTEXT_LINES && old_k1 < cnt1 + 1)
			out_line(&o, "--", 2);
	}
	res = buf_text(&o.b, difflen);
done:
	free(o.b.data);
	free(old1);
	free(old2);
	free(mapping);
	free(mapset);
	return res;
}

char *phpt_diff(const struct phpt *t, const char *out, size_t outlen, size_t *difflen)
{
	char *wanted, *re, *o;
	size_t wlen, relen = 0, olen;
	struct differ d = { 0 };
	char *res = NULL;

	if (wanted_of(t, &wanted, &wlen, &re, &relen) < 0)
		return NULL;
	o = phpt_normalise(out, outlen, &olen);
	if (!o)
		goto done;
	d.is_reg = re != NULL;
	if (explode(&d.w, wanted, wlen) < 0 || explode(&d.o, o, olen) < 0 ||
	    explode(&d.r, re ? re : wanted, re ? relen : wlen) < 0)
		goto done;
	if (d.r.count + d.o.count > PHPT_DIFF_MAX_LINES) {
		/* run-tests' search is quadratic and worse; past this the daemon
		 * would spend minutes on it */
		char note[160];
		int n = snprintf(note, sizeof(note),
		    "(phpcmp: no diff for %zu expected and %zu actual lines, over %u in all)", d.r.count,
		    d.o.count, PHPT_DIFF_MAX_LINES);
		res = strndup(note, (size_t)n);
		if (res)
			*difflen = (size_t)n;
		goto done;
	}
	d.code = calloc(d.r.count, sizeof(*d.code));
	d.compiled = calloc(d.r.count, 1);
	if (!d.code || !d.compiled)
		goto done;
	res = array_diff(&d, difflen);
done:
	if (d.code)
		for (size_t i = 0; i < d.r.count; i++)
			pcre2_code_free(d.code[i]);
	free(d.code);
	free(d.compiled);
	lines_free(&d.w);
	lines_free(&d.o);
	lines_free(&d.r);
	free(wanted);
	free(re);
	free(o);
	return res;
}
