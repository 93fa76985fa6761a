/*
 * Callgrind's output format, read for per-function costs (callgrind.h).
 * One pass over the lines; names are interned so a function is a triple
 * of pointers (object, file, name), and each recursion level an instance
 * of its merged function.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"

#define CG_MAX_LINE_NAMES (1u << 24) /* interned names: more is not a dump we wrote */
#define CG_MAX_POSITIONS 3           /* instr, bb, line */

/* ---- small open-addressing tables ---- */

struct cg_str {
	char *s;
	size_t len;
	uint64_t h;
};

struct cg_id {
	int64_t id; /* 0: empty slot (ids are >= 0; stored as id + 1) */
	const char *name;
};

/* One recursion level of a function, and the merged function it belongs to. */
/* What both hash tables below are keyed by: interned pointers, so equal
 * pointers are equal strings.  fn NULL: an empty slot. */
struct cg_key {
	const char *ob, *fl, *fn;
};

struct cg_inst {
	struct cg_key k;
	int64_t self, calls;
	size_t func;
};

struct cg_fkey {
	struct cg_key k;
	size_t func; /* index */
};

struct cg_state {
	struct cg_str *strs;
	size_t nstrs, capstrs;
	struct cg_id *ids[3]; /* files, functions, objects */
	size_t nids[3], capids[3];
	struct cg_inst *insts;
	size_t ninsts, capinsts;
	struct cg_fkey *fkeys;
	size_t capfkeys;
	size_t capfuncs;
};

enum { CG_NS_FILE, CG_NS_FN, CG_NS_OB };

static uint64_t cg_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static uint64_t cg_hash_ptrs(const void *a, const void *b, const void *c)
{
	uint64_t h = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)(uintptr_t)b * 0xc2b2ae3d27d4eb4full + (h >> 29);
	h ^= (uint64_t)(uintptr_t)c * 0x165667b19e3779f9ull + (h >> 31);
	return h ^ (h >> 32);
}

/* The one copy of s[0..len) (NUL-terminated); NULL out of memory. */
static const char *cg_intern(struct cg_state *st, const char *s, size_t len)
{
	if (st->nstrs * 2 >= st->capstrs) {
		size_t cap = st->capstrs ? st->capstrs * 2 : 256;
		if (cap > CG_MAX_LINE_NAMES)
			return NULL;
		struct cg_str *t = calloc(cap, sizeof(*t));
		if (!t)
			return NULL;
		for (size_t i = 0; i < st->capstrs; i++) {
			if (!st->strs[i].s)
				continue;
			size_t j = st->strs[i].h & (cap - 1);
			while (t[j].s)
				j = (j + 1) & (cap - 1);
			t[j] = st->strs[i];
		}
		free(st->strs);
		st->strs = t;
		st->capstrs = cap;
	}
	uint64_t h = cg_hash(s, len);
	size_t j = h & (st->capstrs - 1);
	for (; st->strs[j].s; j = (j + 1) & (st->capstrs - 1))
		if (st->strs[j].h == h && st->strs[j].len == len && memcmp(st->strs[j].s, s, len) == 0)
			return st->strs[j].s;
	char *c = malloc(len + 1);
	if (!c)
		return NULL;
	memcpy(c, s, len);
	c[len] = '\0';
	st->strs[j] = (struct cg_str){ c, len, h };
	st->nstrs++;
	return c;
}

/* id -> name in namespace ns: define (name != NULL) or look up; NULL if undefined / no memory. */
static const char *cg_id(struct cg_state *st, int ns, int64_t id, const char *name)
{
	struct cg_id **tab = &st->ids[ns];
	size_t *n = &st->nids[ns], *cap = &st->capids[ns];

	if (name && *n * 2 >= *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct cg_id *t = calloc(nc, sizeof(*t));
		if (!t)
			return NULL;
		for (size_t i = 0; i < *cap; i++) {
			if (!(*tab)[i].id)
				continue;
			size_t j = cg_hash_ptrs((void *)(uintptr_t)(*tab)[i].id, NULL, NULL) & (nc - 1);
			while (t[j].id)
				j = (j + 1) & (nc - 1);
			t[j] = (*tab)[i];
		}
		free(*tab);
		*tab = t;
		*cap = nc;
	}
	if (*cap == 0)
		return NULL;
	size_t j = cg_hash_ptrs((void *)(uintptr_t)(id + 1), NULL, NULL) & (*cap - 1);
	for (; (*tab)[j].id; j = (j + 1) & (*cap - 1))
		if ((*tab)[j].id == id + 1) {
			if (name) /* a redefinition: the later name wins, as in callgrind_annotate */
				(*tab)[j].name = name;
			return (*tab)[j].name;
		}
	if (!name)
		return NULL;
	(*tab)[j] = (struct cg_id){ id + 1, name };
	(*n)++;
	return name;
}

/* "php_json_encode_zval'2" -> "php_json_encode_zval" (interned); fn itself if no level. */
static const char *cg_merged_name(struct cg_state *st, const char *fn)
{
	size_t len = strlen(fn), i = len;
	while (i > 0 && fn[i - 1] >= '0' && fn[i - 1] <= '9')
		i--;
	if (i == len || i < 2 || fn[i - 1] != '\'')
		return fn;
	return cg_intern(st, fn, i - 1);
}

/*
 * The slot of key k in an open-addressing table (*tab, *cap slots of elem
 * bytes, each beginning with a struct cg_key), first grown to stay at most
 * half full with one more than used entries.  *found: k is in that slot;
 * else the slot is empty, for the caller to fill.  NULL out of memory.
 */
static void *cg_slot(void **tab, size_t *cap, size_t used, size_t elem, const struct cg_key *k, int *found)
{
	if (used * 2 >= *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		char *t = calloc(nc, elem);
		if (!t)
			return NULL;
		for (size_t i = 0; i < *cap; i++) {
			const struct cg_key *e = (const struct cg_key *)((char *)*tab + i * elem);
			if (!e->fn)
				continue;
			size_t j = cg_hash_ptrs(e->ob, e->fl, e->fn) & (nc - 1);
			while (((struct cg_key *)(t + j * elem))->fn)
				j = (j + 1) & (nc - 1);
			memcpy(t + j * elem, e, elem);
		}
		free(*tab);
		*tab = t;
		*cap = nc;
	}
	for (size_t j = cg_hash_ptrs(k->ob, k->fl, k->fn) & (*cap - 1);; j = (j + 1) & (*cap - 1)) {
		struct cg_key *e = (struct cg_key *)((char *)*tab + j * elem);
		*found = e->fn != NULL;
		if (!e->fn || (e->ob == k->ob && e->fl == k->fl && e->fn == k->fn))
			return e;
	}
}

/* The merged function (object, file, name); its index, or (size_t)-1 out of memory. */
static size_t cg_func_of(
    struct cg_state *st, struct cg_profile *p, const char *ob, const char *fl, const char *fn)
{
	struct cg_key k = { ob, fl, fn };
	int found;
	struct cg_fkey *slot = cg_slot((void **)&st->fkeys, &st->capfkeys, p->n, sizeof(*slot), &k, &found);
	if (!slot)
		return (size_t)-1;
	if (found)
		return slot->func;
	if (p->n == st->capfuncs) {
		size_t nc = st->capfuncs ? st->capfuncs * 2 : 64;
		struct cg_func *f = realloc(p->funcs, nc * sizeof(*f));
		if (!f)
			return (size_t)-1;
		p->funcs = f;
		st->capfuncs = nc;
	}
	p->funcs[p->n] = (struct cg_func){ fn, fl && strcmp(fl, "???") != 0 ? fl : NULL, ob, 0, 0 };
	*slot = (struct cg_fkey){ k, p->n };
	return p->n++;
}

/* The instance (recursion level) for (ob, fl, fn); NULL out of memory. */
static struct cg_inst *cg_inst_of(
    struct cg_state *st, struct cg_profile *p, const char *ob, const char *fl, const char *fn)
{
	struct cg_key k = { ob, fl, fn };
	int found;
	struct cg_inst *slot = cg_slot(
	    (void **)&st->insts, &st->capinsts, st->ninsts, sizeof(*slot), &k, &found);
	if (!slot || found)
		return slot;
	const char *merged = cg_merged_name(st, fn);
	if (!merged)
		return NULL;
	size_t func = cg_func_of(st, p, ob, fl, merged);
	if (func == (size_t)-1)
		return NULL;
	*slot = (struct cg_inst){ k, 0, 0, func };
	st->ninsts++;
	return slot;
}

/* ---- lines ---- */

static int cg_fail(char *err, size_t errsize, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int cg_fail(char *err, size_t errsize, size_t line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errsize, "line %zu: ", line);
	if (n >= 0 && (size_t)n < errsize) {
		va_start(ap, fmt);
		vsnprintf(err + n, errsize - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int cg_is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* An unsigned decimal or 0x number at *s, advancing it; 0 or -1 (none, or overflow). */
static int cg_number(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	int hex = 0, any = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		hex = 1, p += 2;
	for (; p < end; p++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (hex && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (hex && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		uint64_t base = hex ? 16 : 10;
		if (x > (UINT64_MAX - (uint64_t)d) / base)
			return -1;
		x = x * base + (uint64_t)d;
		any = 1;
	}
	if (!any)
		return -1;
	*s = p;
	*v = x;
	return 0;
}

/* A cost line: npos subpositions, then costs; the cost of event column ev (0 if absent). */
static int cg_cost_line(const char *s, const char *end, int npos, int ev, int64_t *cost)
{
	uint64_t v;

	for (int i = 0; i < npos; i++) {
		while (s < end && cg_is_space(*s))
			s++;
		if (s < end && *s == '*') {
			s++;
		} else {
			if (s < end && (*s == '+' || *s == '-'))
				s++;
			if (cg_number(&s, end, &v) < 0)
				return -1;
		}
		if (s < end && !cg_is_space(*s))
			return -1;
	}
	*cost = 0;
	for (int i = 0;; i++) {
		while (s < end && cg_is_space(*s))
			s++;
		if (s == end)
			return 0;
		if (cg_number(&s, end, &v) < 0 || v > INT64_MAX || (s < end && !cg_is_space(*s)))
			return -1;
		if (i == ev)
			*cost = (int64_t)v;
	}
}

/*
 * A position name: "(id) name" defines id, "(id)" refers to it, anything
 * else is the name itself.  Interned; NULL with err.
 */
static const char *cg_name(struct cg_state *st, int ns, const char *s, const char *end, size_t line,
    const char *spec, char *err, size_t errsize)
{
	while (s < end && cg_is_space(*s))
		s++;
	if (end - s >= 2 && s[0] == '(' && s[1] >= '0' && s[1] <= '9') {
		const char *p = s + 1;
		uint64_t id;
		if (cg_number(&p, end, &id) < 0 || id > INT64_MAX - 1 || p == end || *p != ')') {
			cg_fail(err, errsize, line, "%s: a bad name id", spec);
			return NULL;
		}
		p++;
		while (p < end && cg_is_space(*p))
			p++;
		if (p == end) {
			const char *name = cg_id(st, ns, (int64_t)id, NULL);
			if (!name)
				cg_fail(err, errsize, line, "%s(%llu) is used before it is defined", spec,
				    (unsigned long long)id);
			return name;
		}
		const char *name = cg_intern(st, p, (size_t)(end - p));
		if (!name || !cg_id(st, ns, (int64_t)id, name)) {
			cg_fail(err, errsize, line, "out of memory");
			return NULL;
		}
		return name;
	}
	const char *name = cg_intern(st, s, (size_t)(end - s));
	if (!name)
		cg_fail(err, errsize, line, "out of memory");
	return name;
}

/* "positions: instr line": how many subpositions a cost line starts with. */
static int cg_positions(const char *s, const char *end)
{
	int n = 0;
	while (s < end) {
		while (s < end && cg_is_space(*s))
			s++;
		const char *w = s;
		while (s < end && !cg_is_space(*s))
			s++;
		if (s > w)
			n++;
	}
	return n;
}

/* "events: Ir Dr": the column of Ir, else 0 (its name in event); -1 if there are none. */
static int cg_events(const char *s, const char *end, char *event, size_t size)
{
	int col = -1, n = 0, have_ir = 0;
	while (s < end) {
		while (s < end && cg_is_space(*s))
			s++;
		const char *w = s;
		while (s < end && !cg_is_space(*s))
			s++;
		if (s == w)
			break;
		int is_ir = (size_t)(s - w) == 2 && memcmp(w, "Ir", 2) == 0;
		if (n == 0 || (is_ir && !have_ir)) {
			snprintf(event, size, "%.*s", (int)(s - w), w);
			col = n;
			have_ir = is_ir;
		}
		n++;
	}
	return col;
}

static int64_t cg_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Where cg_parse is in the file: the names in force, the instance cost lines go to. */
struct cg_reader {
	struct cg_state *st;
	struct cg_profile *p;
	const char *ob, *fl, *fn;
	struct cg_inst *cur; /* the instance cost lines go to */
	int npos, ev, in_call;
	size_t line;
	char *err;
	size_t errsize;
};

/* A cost line ("16 3", "+2 1"): to the current instance's self cost, or its calls' after calls=. */
static int cg_read_cost(struct cg_reader *r, const char *l, const char *e)
{
	int64_t cost;

	if (r->ev < 0)
		return cg_fail(r->err, r->errsize, r->line, "a cost line before the events: line");
	if (cg_cost_line(l, e, r->npos, r->ev, &cost) < 0)
		return cg_fail(r->err, r->errsize, r->line, "a malformed cost line (positions: %d)", r->npos);
	if (!r->cur)
		return cg_fail(r->err, r->errsize, r->line, "a cost line before any fn=");
	if (r->in_call)
		r->cur->calls = cg_add(r->cur->calls, cost);
	else
		r->cur->self = cg_add(r->cur->self, cost);
	r->in_call = 0;
	return 0;
}

/* A position spec (fl=, fn=, ob=, calls= ... the key before eq): 0, -1 failed, 1 not one. */
static int cg_read_spec(struct cg_reader *r, const char *l, const char *eq, const char *e)
{
	size_t klen = (size_t)(eq - l);
	const char *v = eq + 1, *name;
	char spec[8];

	snprintf(spec, sizeof(spec), "%.*s=", (int)(klen < 6 ? klen : 6), l);
#define KEY(k) (klen == sizeof(k) - 1 && memcmp(l, k, klen) == 0)
	if (KEY("fl") || KEY("fi") || KEY("fe") || KEY("cfi") || KEY("cfl")) {
		if (!(name = cg_name(r->st, CG_NS_FILE, v, e, r->line, spec, r->err, r->errsize)))
			return -1;
		if (KEY("fl"))
			r->fl = name; /* fi=/fe= (inlined code) keep the function's own file */
	} else if (KEY("fn") || KEY("cfn")) {
		if (!(name = cg_name(r->st, CG_NS_FN, v, e, r->line, spec, r->err, r->errsize)))
			return -1;
		if (KEY("fn")) {
			r->fn = name;
			if (!(r->cur = cg_inst_of(r->st, r->p, r->ob, r->fl, r->fn)))
				return cg_fail(r->err, r->errsize, r->line, "out of memory");
		}
	} else if (KEY("ob") || KEY("cob")) {
		if (!(name = cg_name(r->st, CG_NS_OB, v, e, r->line, spec, r->err, r->errsize)))
			return -1;
		if (KEY("ob"))
			r->ob = name;
	} else if (KEY("calls")) {
		if (!r->cur)
			return cg_fail(r->err, r->errsize, r->line, "calls= before any fn=");
		r->in_call = 1;
	} else if (KEY("jump") || KEY("jcnd")) {
		/* jumps: no cost of their own */
	} else {
		return 1;
	}
#undef KEY
	return 0;
}

/* A header line (events:, positions:, summary: ... the key before colon): 0, -1 failed, 1 not one. */
static int cg_read_header(struct cg_reader *r, const char *l, const char *colon, const char *e)
{
	struct cg_profile *p = r->p;
	const char *v = colon + 1;
	size_t klen = (size_t)(colon - l);

	if (klen == 6 && memcmp(l, "events", 6) == 0) {
		if ((r->ev = cg_events(v, e, p->event, sizeof(p->event))) < 0)
			return cg_fail(r->err, r->errsize, r->line, "events: names no event");
	} else if (klen == 9 && memcmp(l, "positions", 9) == 0) {
		r->npos = cg_positions(v, e);
		if (r->npos < 1 || r->npos > CG_MAX_POSITIONS)
			return cg_fail(
			    r->err, r->errsize, r->line, "positions: expected instr, bb and/or line");
	} else if ((klen == 7 && memcmp(l, "summary", 7) == 0) ||
	    (klen == 6 && memcmp(l, "totals", 6) == 0 && p->summary < 0)) {
		int64_t cost;
		/* the same columns as a cost line, without positions */
		if (r->ev < 0 || cg_cost_line(v, e, 0, r->ev, &cost) < 0)
			return cg_fail(r->err, r->errsize, r->line, "a malformed %.*s: line", (int)klen, l);
		p->summary = cost;
	} else if (klen == 0 || memchr(l, ' ', klen) || memchr(l, '\t', klen)) {
		return 1;
	}
	/* other headers (version, creator, cmd, pid, part, desc, event) carry no costs */
	return 0;
}

/* One line of the file (without its end of line): 0, or -1 with err. */
static int cg_read_line(struct cg_reader *r, const char *l, const char *e)
{
	const char *eq, *colon;
	char c;
	int rc = 1;

	if (memchr(l, '\0', (size_t)(e - l)))
		goto bad_line;
	if (e == l || *l == '#')
		return 0;
	c = *l;
	if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*')
		return cg_read_cost(r, l, e);
	if (r->in_call)
		return cg_fail(r->err, r->errsize, r->line, "calls= is not followed by its cost line");
	eq = memchr(l, '=', (size_t)(e - l));
	colon = memchr(l, ':', (size_t)(e - l));
	if (eq && (!colon || eq < colon))
		rc = cg_read_spec(r, l, eq, e);
	else if (colon)
		rc = cg_read_header(r, l, colon, e);
	if (rc <= 0)
		return rc;
bad_line:
	return cg_fail(
	    r->err, r->errsize, r->line, "not a callgrind line: \"%.*s\"", (int)(e - l < 40 ? e - l : 40), l);
}

/*
 * Per function, from its instances: self costs summed; the outermost level
 * (the unsuffixed name) holds the deeper ones, and a deeper level's own
 * inclusive cost counts its self-recursive calls twice, so it stands in
 * only where the outermost is missing.  0, or -1 out of memory.
 */
static int cg_totals(struct cg_state *st, struct cg_profile *p)
{
	char *outer = calloc(p->n ? p->n : 1, 1);

	if (!outer)
		return -1;
	for (size_t i = 0; i < st->capinsts; i++) {
		struct cg_inst *in = &st->insts[i];
		if (!in->k.fn)
			continue;
		struct cg_func *f = &p->funcs[in->func];
		int64_t incl = cg_add(in->self, in->calls);
		f->self = cg_add(f->self, in->self);
		p->self_sum = cg_add(p->self_sum, in->self);
		if (in->k.fn == f->name) {
			f->inclusive = incl;
			outer[in->func] = 1;
		} else if (!outer[in->func] && incl > f->inclusive) {
			f->inclusive = incl;
		}
	}
	free(outer);
	for (size_t i = 0; i < p->n; i++) {
		struct cg_func *f = &p->funcs[i];
		if (f->inclusive < f->self)
			f->inclusive = f->self;
		if (p->summary >= 0 && f->inclusive > p->summary && f->self <= p->summary)
			f->inclusive = p->summary;
	}
	return 0;
}

int cg_parse(const char *text, size_t len, struct cg_profile *p, char *err, size_t errsize)
{
	struct cg_reader r = { .p = p, .npos = 1, .ev = -1, .err = err, .errsize = errsize };
	const char *s = text, *end = text + len;

	memset(p, 0, sizeof(*p));
	p->summary = -1;
	p->priv = r.st = calloc(1, sizeof(*r.st));
	if (!r.st)
		return cg_fail(err, errsize, 0, "out of memory");
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		const char *l = s;
		s = nl ? nl + 1 : end;
		r.line++;
		if (e > l && e[-1] == '\r')
			e--;
		if (cg_read_line(&r, l, e) < 0)
			goto fail;
	}
	if (r.in_call) {
		cg_fail(err, errsize, r.line, "calls= is not followed by its cost line");
		goto fail;
	}
	if (r.ev < 0) {
		cg_fail(err, errsize, r.line, "no events: line (not a callgrind file)");
		goto fail;
	}
	if (cg_totals(r.st, p) < 0) {
		cg_fail(err, errsize, r.line, "out of memory");
		goto fail;
	}
	p->nlines = r.line;
	return 0;
fail:
	cg_release(p);
	return -1;
}

void cg_release(struct cg_profile *p)
{
	struct cg_state *st = p->priv;
	if (st) {
		for (size_t i = 0; i < st->capstrs; i++)
			free(st->strs[i].s);
		free(st->strs);
		for (int ns = 0; ns < 3; ns++)
			free(st->ids[ns]);
		free(st->insts);
		free(st->fkeys);
		free(st);
	}
	free(p->funcs);
	memset(p, 0, sizeof(*p));
	p->summary = -1;
}

int cg_file_matches(const char *file, const char *suffix)
{
	size_t fl, sl = strlen(suffix);
	if (!file || sl == 0 || (fl = strlen(file)) < sl || strcmp(file + fl - sl, suffix) != 0)
		return 0;
	return fl == sl || file[fl - sl - 1] == '/' || suffix[0] == '/';
}

const char *cg_source_key(const char *file)
{
	static const char *const tops[] = { "/Zend/", "/ext/", "/main/", "/sapi/", "/TSRM/" };
	const char *best = NULL;

	if (!file)
		return NULL;
	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++)
		for (const char *at = strstr(file, tops[i]); at; at = strstr(at + 1, tops[i]))
			if (!best || at > best)
				best = at;
	return best ? best + 1 : file;
}

int64_t cg_file_self(const struct cg_profile *p, const char *suffix)
{
	int64_t sum = -1;
	for (size_t i = 0; i < p->n; i++)
		if (cg_file_matches(p->funcs[i].file, suffix))
			sum = cg_add(sum < 0 ? 0 : sum, p->funcs[i].self);
	return sum;
}
