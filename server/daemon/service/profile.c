/*
 * Where the instructions went: a measured workload's kept callgrind files
 * (one per build) read with server/daemon/model/callgrind.c into per-function
 * self and inclusive costs, and the base against one candidate function by
 * function and file by file, largest change first.  Also the cost of one
 * source file's functions (json_encoder.c) for measure.c's table.
 *
 * Parsed on demand: a workload's dump is tens of kilobytes (callgrind
 * counts only inside zif_json_encode) and reads in well under a
 * millisecond, so nothing is cached in the database.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"
#include "services.h"

#define PROFILE_MAX_DUMP (256u << 20)
#define PROFILE_DEFAULT_LIMIT 50
#define PROFILE_MAX_LIMIT 5000

char *profile_read_dump(struct app *app, int64_t comparison_id, int role, size_t *len, struct svc_error *e)
{
	char path[PATH_MAX], real[PATH_MAX], dir[PATH_MAX], dirreal[PATH_MAX], err[512];
	int rc;
	char *buf;

	if ((rc = db_dump_file(app->db, comparison_id, role, path, sizeof(path), err, sizeof(err))) <= 0) {
		if (rc < 0)
			svc_fail(e, SVC_STORAGE, NULL, "%s", err);
		else
			svc_fail(e, SVC_NOT_FOUND, "no_callgrind",
			    "comparison %" PRId64 " has no callgrind file for %s (not a measured workload?)",
			    comparison_id, role_name(role));
		return NULL;
	}
	/* Read only files inside our own callgrind folder. */
	snprintf(dir, sizeof(dir), "%s/callgrind", app->config->state_dir);
	*len = 0;
	if (!realpath(path, real) || !realpath(dir, dirreal) ||
	    strncmp(real, dirreal, strlen(dirreal)) != 0 || real[strlen(dirreal)] != '/' ||
	    (buf = bytes_read_file(real, PROFILE_MAX_DUMP, len, err, sizeof(err))) == NULL) {
		svc_fail(e, SVC_NOT_FOUND, "no_callgrind",
		    "the callgrind file of comparison %" PRId64 " (%s) is gone", comparison_id,
		    role_name(role));
		return NULL;
	}
	return buf;
}

/* Read and parse one build's dump: 0, or -1 with e. */
static int profile_load(
    struct app *app, int64_t comparison_id, int role, struct cg_profile *p, struct svc_error *e)
{
	char err[256];
	size_t len;
	char *text = profile_read_dump(app, comparison_id, role, &len, e);

	if (!text)
		return -1;
	int rc = cg_parse(text, len, p, err, sizeof(err));
	free(text);
	if (rc < 0)
		return svc_fail(e, SVC_INTERNAL, "bad_callgrind",
		    "the callgrind file of comparison %" PRId64 " (%s) does not parse: %s", comparison_id,
		    role_name(role), err);
	return 0;
}

int profile_file_cost(
    struct app *app, int64_t comparison_id, int role, const char *suffix, int64_t *cost, struct svc_error *e)
{
	struct cg_profile p;

	*cost = -1;
	if (profile_load(app, comparison_id, role, &p, e) < 0)
		return -1;
	*cost = cg_file_self(&p, suffix);
	cg_release(&p);
	return 0;
}

static int profile_fn_cmp(const void *a, const void *b)
{
	const struct profile_fn *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (!x->file || !y->file)
		return (x->file != NULL) - (y->file != NULL);
	return strcmp(x->file, y->file);
}

/* p's functions keyed (name, file), sorted, the same key summed; NULL out of memory. */
static struct profile_fn *profile_keyed(const struct cg_profile *p, size_t *n)
{
	struct profile_fn *v = calloc(p->n ? p->n : 1, sizeof(*v));
	size_t o = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < p->n; i++) {
		const char *obj = p->funcs[i].object ? strrchr(p->funcs[i].object, '/') : NULL;
		v[i] = (struct profile_fn){ p->funcs[i].name, cg_source_key(p->funcs[i].file),
			obj ? obj + 1 : p->funcs[i].object, p->funcs[i].self, p->funcs[i].inclusive };
	}
	qsort(v, p->n, sizeof(*v), profile_fn_cmp);
	for (size_t i = 0; i < p->n; i++) {
		if (o > 0 && profile_fn_cmp(&v[o - 1], &v[i]) == 0) {
			v[o - 1].self += v[i].self;
			v[o - 1].inclusive += v[i].inclusive;
		} else {
			v[o++] = v[i];
		}
	}
	*n = o;
	return v;
}

static int64_t profile_abs(int64_t v)
{
	return v < 0 ? -v : v;
}

static int profile_row_cmp(const void *a, const void *b)
{
	const struct profile_row *x = a, *y = b;
	int64_t ax = profile_abs(x->dself), ay = profile_abs(y->dself);
	if (ax != ay)
		return ax < ay ? 1 : -1;
	ax = profile_abs(x->dincl), ay = profile_abs(y->dincl);
	if (ax != ay)
		return ax < ay ? 1 : -1;
	const struct profile_fn *fx = x->b ? x->b : x->c, *fy = y->b ? y->b : y->c;
	return profile_fn_cmp(fx, fy);
}

static int profile_file_cmp(const void *a, const void *b)
{
	const struct profile_file *x = a, *y = b;
	int64_t ax = profile_abs(x->c - x->b), ay = profile_abs(y->c - y->b);
	if (ax != ay)
		return ax < ay ? 1 : -1;
	return strcmp(x->file, y->file);
}

/* Self cost by source file (functions without one left out), |Δ| first:
 * *n of them; NULL out of memory. */
static struct profile_file *profile_files(const struct profile_row *rows, size_t n, size_t *nf)
{
	struct profile_file *f = calloc(n ? n : 1, sizeof(*f));

	*nf = 0;
	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct profile_fn *fn = rows[i].b ? rows[i].b : rows[i].c;
		if (!fn->file)
			continue;
		size_t j = 0;
		while (j < *nf && strcmp(f[j].file, fn->file) != 0)
			j++;
		if (j == *nf)
			f[(*nf)++] = (struct profile_file){ fn->file, 0, 0 };
		f[j].b += rows[i].b ? rows[i].b->self : 0;
		f[j].c += rows[i].c ? rows[i].c->self : 0;
	}
	qsort(f, *nf, sizeof(*f), profile_file_cmp);
	return f;
}

/* limit=N (1..PROFILE_MAX_LIMIT; NULL: the default); -1 with e. */
static long profile_limit(const char *s, struct svc_error *e)
{
	if (!s)
		return PROFILE_DEFAULT_LIMIT;
	int64_t n = id_parse_str(s);
	if (n < 1 || n > PROFILE_MAX_LIMIT)
		return svc_fail(
		    e, SVC_BAD_REQUEST, NULL, "limit: expected 1 to %d, got \"%.32s\"", PROFILE_MAX_LIMIT, s);
	return (long)n;
}

/* The two builds' functions side by side, one row a function (the base's,
 * the candidate's or both), biggest change of self cost first.  *n rows;
 * NULL when out of memory.  The rows point into *vb and *vc. */
static struct profile_row *profile_pair(const struct cg_profile *pb, const struct cg_profile *pc,
    struct profile_fn **vb, struct profile_fn **vc, size_t *n)
{
	size_t nb = 0, nc = 0, kept = 0;
	struct profile_row *rows;

	*n = 0;
	*vb = profile_keyed(pb, &nb);
	*vc = profile_keyed(pc, &nc);
	rows = calloc(nb + nc + 1, sizeof(*rows));
	if (!*vb || !*vc || !rows) {
		free(rows);
		return NULL;
	}
	for (size_t i = 0, j = 0; i < nb || j < nc;) {
		int d = i == nb ? 1 : j == nc ? -1 : profile_fn_cmp(&(*vb)[i], &(*vc)[j]);
		struct profile_row *r = &rows[(*n)++];
		r->b = d <= 0 ? &(*vb)[i++] : NULL;
		r->c = d >= 0 ? &(*vc)[j++] : NULL;
		r->dself = (r->c ? r->c->self : 0) - (r->b ? r->b->self : 0);
		r->dincl = (r->c ? r->c->inclusive : 0) - (r->b ? r->b->inclusive : 0);
	}
	/* A stripped build names a function without its file (exported
	 * symbols): pair it with the other build's same-named function. */
	for (size_t i = 0; i < *n; i++) {
		if (!rows[i].b || rows[i].c)
			continue;
		for (size_t j = 0; j < *n; j++) {
			if (rows[j].b || !rows[j].c || strcmp(rows[j].c->name, rows[i].b->name) != 0 ||
			    (rows[i].b->file && rows[j].c->file))
				continue;
			rows[i].c = rows[j].c;
			rows[j].c = NULL;
			rows[i].dself = rows[i].c->self - rows[i].b->self;
			rows[i].dincl = rows[i].c->inclusive - rows[i].b->inclusive;
			break;
		}
	}
	for (size_t i = 0; i < *n; i++)
		if (rows[i].b || rows[i].c)
			rows[kept++] = rows[i];
	*n = kept;
	qsort(rows, *n, sizeof(*rows), profile_row_cmp);
	return rows;
}

/* Keep the rows matching file (NULL: all), at most limit of them, and
 * count all that match. */
static void profile_filter(struct profile_report *r, const char *file, long limit)
{
	size_t shown = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		const struct profile_row *row = &r->rows[i];
		const struct profile_fn *f = row->b ? row->b : row->c;
		if (file && !cg_file_matches(f->file, file))
			continue;
		r->matched++;
		r->more += row->dself > 0;
		r->less += row->dself < 0;
		r->same += row->dself == 0;
		if ((long)shown < limit)
			r->rows[shown++] = *row;
	}
	r->nrows = shown;
}

/* One build's side of the answer: its total and what its dump resolves. */
static void profile_side(struct profile_side *side, const struct cg_profile *p, int role, const char *name)
{
	side->role = role;
	side->name = name;
	side->total = p->self_sum;
	side->json_encoder_c = cg_file_self(p, "ext/json/json_encoder.c");
	side->functions = p->n;
	for (size_t i = 0; i < p->n; i++) {
		side->named += strncmp(p->funcs[i].name, "0x", 2) != 0;
		side->with_file += p->funcs[i].file != NULL;
	}
}

void profile_release(struct profile_report *r)
{
	free(r->rows);
	free(r->files);
	free(r->vb);
	free(r->vc);
	cg_release(&r->pb);
	cg_release(&r->pc);
	db_case_release(&r->c);
	db_comparison_release(&r->cmp);
	memset(r, 0, sizeof *r);
}

int profile_functions(struct app *app, int64_t comparison_id, const char *vs, const char *limit_s,
    const char *file, struct profile_report *out, struct svc_error *e)
{
	struct db_comparison *cmp = &out->cmp;
	char err[512];
	int rc, role;
	long limit;

	memset(out, 0, sizeof *out);
	out->file = file;
	if ((limit = profile_limit(limit_s, e)) < 0)
		return -1;
	if (file && (file[0] == '\0' || strlen(file) > 200))
		return svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "file: expected a source file name or its end (ext/json/json_encoder.c), 1 to 200 bytes");
	if ((rc = db_comparison_get(app->db, 0, comparison_id, cmp, err, sizeof(err))) <= 0)
		return rc < 0 ? svc_fail(e, SVC_STORAGE, NULL, "%s", err)
		              : svc_fail(e, SVC_NOT_FOUND, NULL, "no comparison %" PRId64, comparison_id);
	role = vs ? role_parse(vs) : ROLE_HEAD;
	if (role < 0 || role == ROLE_BASE || role >= cmp->nbuilds) {
		svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "vs: expected a candidate role of comparison %" PRId64 " (head%s), got \"%.16s\"",
		    comparison_id, cmp->nbuilds > 2 ? ", cand2..." : "", vs ? vs : "");
		db_comparison_release(cmp);
		return -1;
	}
	if ((rc = db_case_get(app->db, cmp->case_id, &out->c, err, sizeof(err))) <= 0) {
		db_comparison_release(cmp);
		return rc < 0 ? svc_fail(e, SVC_STORAGE, NULL, "%s", err)
		              : svc_fail(e, SVC_NOT_FOUND, NULL, "the case of comparison %" PRId64 " is gone",
		                    comparison_id);
	}
	/* From here on a failure releases whatever was filled (the rest is zero). */
	if (profile_load(app, comparison_id, ROLE_BASE, &out->pb, e) < 0 ||
	    profile_load(app, comparison_id, role, &out->pc, e) < 0) {
		profile_release(out);
		return -1;
	}
	profile_side(&out->base, &out->pb, ROLE_BASE, cmp->build_names[ROLE_BASE]);
	profile_side(&out->candidate, &out->pc, role, cmp->build_names[role]);
	if ((out->rows = profile_pair(&out->pb, &out->pc, &out->vb, &out->vc, &out->nrows)) == NULL ||
	    (out->files = profile_files(out->rows, out->nrows, &out->nfiles)) == NULL) {
		profile_release(out);
		return svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
	}
	profile_filter(out, file, limit);
	return 0;
}
