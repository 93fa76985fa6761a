/*
 * Where the instructions went: a measured workload's kept callgrind files
 * (one per build) read with server/common/callgrind.c into per-function
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

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

struct profile_fn {
	const char *name, *file, *object; /* file: cg_source_key's */
	int64_t self, inclusive;
};

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

/* One line of the diff: a function in the base, the candidate or both. */
struct profile_row {
	const struct profile_fn *b, *c; /* NULL: absent from that build */
	int64_t dself, dincl;
};

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

static json_t *profile_pct(int64_t base, int64_t delta)
{
	return base > 0 ? json_real(round((double)delta / (double)base * 10000.0) / 100.0) : json_null();
}

static json_t *profile_costs(const struct profile_fn *f)
{
	return f ? json_pack("{s:I, s:I}", "self", (json_int_t)f->self, "inclusive", (json_int_t)f->inclusive)
	         : json_null();
}

static const char *profile_change(const struct profile_row *r)
{
	return !r->b ? "new" : !r->c ? "gone" : r->dself > 0 ? "more" : r->dself < 0 ? "less" : "same";
}

/* What a build's dump resolves: functions, named ones (not an 0x offset), with a source file. */
static json_t *profile_symbols(const struct cg_profile *p)
{
	size_t named = 0, files = 0;
	for (size_t i = 0; i < p->n; i++) {
		named += strncmp(p->funcs[i].name, "0x", 2) != 0;
		files += p->funcs[i].file != NULL;
	}
	return json_pack("{s:I, s:I, s:I}", "functions", (json_int_t)p->n, "named", (json_int_t)named,
	    "with_file", (json_int_t)files);
}

struct profile_file_row {
	const char *file;
	int64_t b, c;
};

static int profile_file_row_cmp(const void *a, const void *b)
{
	const struct profile_file_row *x = a, *y = b;
	int64_t ax = profile_abs(x->c - x->b), ay = profile_abs(y->c - y->b);
	if (ax != ay)
		return ax < ay ? 1 : -1;
	return strcmp(x->file, y->file);
}

/* Self cost by source file (functions without one left out), |Δ| first. */
static json_t *profile_files(const struct profile_row *rows, size_t n)
{
	struct profile_file_row *f = calloc(n ? n : 1, sizeof(*f));
	size_t nf = 0;
	json_t *out = json_array();

	if (!f || !out) {
		free(f);
		json_decref(out);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct profile_fn *fn = rows[i].b ? rows[i].b : rows[i].c;
		if (!fn->file)
			continue;
		size_t j = 0;
		while (j < nf && strcmp(f[j].file, fn->file) != 0)
			j++;
		if (j == nf)
			f[nf++] = (struct profile_file_row){ fn->file, 0, 0 };
		f[j].b += rows[i].b ? rows[i].b->self : 0;
		f[j].c += rows[i].c ? rows[i].c->self : 0;
	}
	qsort(f, nf, sizeof(*f), profile_file_row_cmp);
	for (size_t j = 0; j < nf; j++)
		json_array_append_new(out,
		    json_pack("{s:s, s:I, s:I, s:I, s:o}", "file", f[j].file, "base_self", (json_int_t)f[j].b,
		        "candidate_self", (json_int_t)f[j].c, "delta", (json_int_t)(f[j].c - f[j].b),
		        "delta_pct", profile_pct(f[j].b, f[j].c - f[j].b)));
	free(f);
	return out;
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

/* The functions matching file (NULL: all), at most limit of them, and the
 * counts of all that match. */
static json_t *profile_rows_json(const struct profile_row *rows, size_t n, const char *file, long limit)
{
	json_t *fns = json_array();
	size_t shown = 0, matched = 0, more = 0, less = 0, same = 0;

	for (size_t i = 0; i < n; i++) {
		const struct profile_row *r = &rows[i];
		const struct profile_fn *f = r->b ? r->b : r->c;
		if (file && !cg_file_matches(f->file, file))
			continue;
		matched++;
		more += r->dself > 0;
		less += r->dself < 0;
		same += r->dself == 0;
		if ((long)shown >= limit)
			continue;
		shown++;
		json_array_append_new(fns,
		    json_pack("{s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:s}", "name", f->name, "file",
		        f->file ? json_string(f->file) : json_null(), "object",
		        f->object ? json_string(f->object) : json_null(), "base", profile_costs(r->b),
		        "candidate", profile_costs(r->c), "delta_self", (json_int_t)r->dself,
		        "delta_inclusive", (json_int_t)r->dincl, "delta_self_pct",
		        profile_pct(r->b ? r->b->self : 0, r->dself), "change", profile_change(r)));
	}
	return json_pack("{s:o, s:{s:I, s:I, s:I, s:I}, s:b}", "functions", fns, "counts", "functions",
	    (json_int_t)matched, "more", (json_int_t)more, "less", (json_int_t)less, "same", (json_int_t)same,
	    "truncated", matched > shown);
}

/* One build's side of the answer: its role, name, total and symbols. */
static json_t *profile_side(const struct cg_profile *p, int role, const char *name)
{
	int64_t enc = cg_file_self(p, "ext/json/json_encoder.c");
	return json_pack("{s:s, s:s, s:I, s:o, s:o}", "role", role_name(role), "name", name, "total",
	    (json_int_t)p->self_sum, "json_encoder_c", enc >= 0 ? json_integer(enc) : json_null(), "symbols",
	    profile_symbols(p));
}

int profile_functions(struct app *app, int64_t comparison_id, const char *vs, const char *limit_s,
    const char *file, json_t **out, struct svc_error *e)
{
	struct db_comparison cmp;
	struct db_case c;
	struct cg_profile pb, pc;
	struct profile_fn *vb = NULL, *vc = NULL;
	char err[512];
	int rc, role;
	long limit;
	size_t n;

	*out = NULL;
	if ((limit = profile_limit(limit_s, e)) < 0)
		return -1;
	if (file && (file[0] == '\0' || strlen(file) > 200))
		return svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "file: expected a source file name or its end (ext/json/json_encoder.c), 1 to 200 bytes");
	if ((rc = db_comparison_get(app->db, 0, comparison_id, &cmp, err, sizeof(err))) <= 0)
		return rc < 0 ? svc_fail(e, SVC_STORAGE, NULL, "%s", err)
		              : svc_fail(e, SVC_NOT_FOUND, NULL, "no comparison %" PRId64, comparison_id);
	role = vs ? role_parse(vs) : ROLE_HEAD;
	if (role < 0 || role == ROLE_BASE || role >= cmp.nbuilds) {
		svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "vs: expected a candidate role of comparison %" PRId64 " (head%s), got \"%.16s\"",
		    comparison_id, cmp.nbuilds > 2 ? ", cand2..." : "", vs ? vs : "");
		db_comparison_release(&cmp);
		return -1;
	}
	if ((rc = db_case_get(app->db, cmp.case_id, &c, err, sizeof(err))) <= 0) {
		db_comparison_release(&cmp);
		return rc < 0 ? svc_fail(e, SVC_STORAGE, NULL, "%s", err)
		              : svc_fail(e, SVC_NOT_FOUND, NULL, "the case of comparison %" PRId64 " is gone",
		                    comparison_id);
	}
	if (profile_load(app, comparison_id, ROLE_BASE, &pb, e) < 0)
		goto fail_case;
	if (profile_load(app, comparison_id, role, &pc, e) < 0) {
		cg_release(&pb);
		goto fail_case;
	}

	struct profile_row *rows = profile_pair(&pb, &pc, &vb, &vc, &n);
	if (rows) {
		json_t *files = profile_files(rows, n);
		*out = json_pack("{s:I, s:I, s:s, s:I, s:s, s:o, s:o, s:o, s:o}", "comparison_id",
		    (json_int_t)comparison_id, "case_id", (json_int_t)cmp.case_id, "title",
		    c.spec.title ? c.spec.title : "", "iterations", (json_int_t)c.spec.iterations, "event",
		    pb.event, "base", profile_side(&pb, ROLE_BASE, cmp.build_names[ROLE_BASE]), "candidate",
		    profile_side(&pc, role, cmp.build_names[role]), "file",
		    file ? json_string(file) : json_null(), "files", files ? files : json_array());
		json_t *listed = profile_rows_json(rows, n, file, limit);
		/* The comparison's builds, for a switch between candidates. */
		json_t *builds = json_array();
		for (int r = 0; r < cmp.nbuilds; r++)
			json_array_append_new(builds,
			    json_pack("{s:s, s:s}", "role", role_name(r), "name", cmp.build_names[r]));
		int whole = *out && listed && json_object_update(*out, listed) == 0;
		if (whole)
			whole = json_object_set_new(*out, "builds", builds) == 0;
		else
			json_decref(builds);
		if (!whole) {
			json_decref(*out);
			*out = NULL;
		}
		json_decref(listed);
	}
	free(vb);
	free(vc);
	free(rows);
	cg_release(&pb);
	cg_release(&pc);
	db_case_release(&c);
	db_comparison_release(&cmp);
	if (!*out)
		return svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
	return 0;

fail_case:
	db_case_release(&c);
	db_comparison_release(&cmp);
	return -1;
}
