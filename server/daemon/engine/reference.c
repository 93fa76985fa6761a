/*
 * Reference runtimes (issue 49, docs/references.md): released PHP under
 * Node and WebAssembly (@php-wasm/node-X-Y), each version a build of kind
 * "reference" named php-X.Y, run by server/reference/worker.mjs, which
 * speaks the native workers' protocol on fd 3.  To the rest of the daemon
 * a reference is a build like any other, with three differences: it is in
 * no run unless a run names it as its "base", it has no instruction counts
 * and no memory-error oracle, and it cannot make generated cases itself.
 *
 * That last one is made up for here: a PROTO_GEN_BATCH to a reference is
 * rendered into PHP source by the daemon (the generator's own renderer,
 * gen_render_value, with gen_declarations_php once per batch), sent as
 * PROTO_REF_BATCH in slices of REFERENCE_SLICE cases, and the answers are
 * hashed with gen_outcome_digest, as a native core hashes its own
 * (gencore.c), into the PROTO_GEN_DIGESTS a native core would send, with
 * the same coverage counters (gen_count) -- so genrun.c works unchanged.
 * A PROTO_GEN_DETAIL becomes a PROTO_CASE of the rendered case, answered
 * with a native core's detail fields added (TAG_GEN_CODE, TAG_GEN_SETUP,
 * TAG_GEN_PLAN_HASH, TAG_GEN_RESULT_HASH).
 *
 * A reference has no shared progress page (it is no fork server): its
 * worker gets a page of the daemon's own memory, which this file writes
 * as a native core writes its page.  A slice whose worker dies or hangs is
 * run again one case per request on the restarted worker until the case
 * that kills it is found; the page then says how far the batch got, and
 * genrun.c goes on from the next case as it does after a native crash.  A
 * case that only kills a reference in company (after other cases in the
 * same request) is not found so: its slice's cases get their single
 * answers, and the death shows only in the worker's restarts.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "columns.h"
#include "engine.h"
#include "gen.h"
#include "proto.h"

/* Cases per PROTO_REF_BATCH: bounds a frame (a case's answer may be 64 KiB
 * and more) and what a death costs to run again one by one. */
#define REFERENCE_SLICE 512
/* A slice's time limit: timeout-ms, and this per case. */
#define REFERENCE_MS_PER_CASE 10

/* ---- which references, and each as a build ---- */

/* "node-8-5" -> "8.5"; 0, or -1 when the name is not a runtime package's. */
static int reference_package_version(const char *name, char ver[8])
{
	if (strncmp(name, "node-", 5) != 0 || name[5] < '5' || name[5] > '9' || name[6] != '-' ||
	    name[7] < '0' || name[7] > '9' || name[8] != '\0')
		return -1;
	snprintf(ver, 8, "%c.%c", name[5], name[7]);
	return 0;
}

/* ver is in the --references list ("all", "none", "7.4,8.1"). */
static int reference_wanted(const struct config *cfg, const char *ver)
{
	const char *list = cfg->references != NULL ? cfg->references : "all";
	size_t n = strlen(ver);

	if (strcmp(list, "all") == 0)
		return 1;
	for (const char *p = list; *p != '\0'; p += strcspn(p, ","), p += *p == ',')
		if (strncmp(p, ver, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

static int reference_cmp(const void *a, const void *b)
{
	return strcmp(a, b); /* "7.4" < "8.0" < "8.5": one digit each */
}

int reference_installed(const struct config *cfg, char vers[REFERENCE_MAX][8])
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (cfg->references == NULL || strcmp(cfg->references, "none") == 0 || cfg->modules_dir == NULL)
		return 0;
	snprintf(dir, sizeof dir, "%s/@php-wasm", cfg->modules_dir);
	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL && n < REFERENCE_MAX) {
		char ver[8], pkg[PATH_MAX + 300];
		struct stat st;
		if (reference_package_version(e->d_name, ver) < 0 || !reference_wanted(cfg, ver))
			continue;
		snprintf(pkg, sizeof pkg, "%s/%s/package.json", dir, e->d_name);
		if (stat(pkg, &st) == 0 && S_ISREG(st.st_mode))
			memcpy(vers[n++], ver, 8);
	}
	closedir(d);
	qsort(vers, (size_t)n, sizeof vers[0], reference_cmp);
	return n;
}

static int reference_sha256(const char *path, char out[65])
{
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	size_t got;
	FILE *f = fopen(path, "rb");
	EVP_MD_CTX *ctx = f != NULL ? EVP_MD_CTX_new() : NULL;
	int ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);

	while (ok && (got = fread(buf, 1, sizeof buf, f)) > 0)
		ok = EVP_DigestUpdate(ctx, buf, got);
	ok = ok && !ferror(f) && EVP_DigestFinal_ex(ctx, md, &mdlen);
	for (unsigned i = 0; ok && i < mdlen; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	EVP_MD_CTX_free(ctx);
	if (f != NULL)
		fclose(f);
	return ok ? 0 : -1;
}

/* node on PATH (or as given, with a slash) as an absolute path: 0, or -1. */
static int reference_node(const char *node, char out[PATH_MAX])
{
	char cand[PATH_MAX + 300];
	const char *path = getenv("PATH");

	if (strchr(node, '/') != NULL)
		return realpath(node, out) != NULL && access(out, X_OK) == 0 ? 0 : -1;
	for (const char *p = path != NULL ? path : "/usr/bin:/bin"; *p != '\0';
	     p += strcspn(p, ":"), p += *p == ':') {
		size_t n = strcspn(p, ":");
		if (n == 0)
			continue;
		snprintf(cand, sizeof cand, "%.*s/%s", (int)n, p, node);
		if (access(cand, X_OK) == 0 && realpath(cand, out) != NULL)
			return 0;
	}
	return -1;
}

int reference_discover(struct build *b, const struct config *cfg, const char *ver, char *err, size_t errsize)
{
	char pkg[PATH_MAX + 64], node[PATH_MAX];

	memset(b, 0, sizeof *b);
	b->is_reference = 1;
	snprintf(b->ref_php, sizeof b->ref_php, "%s", ver);
	snprintf(b->name, sizeof b->name, "php-%s", ver);
	snprintf(b->kind, sizeof b->kind, "reference");
	snprintf(pkg, sizeof pkg, "%s/@php-wasm/node-%c-%c", cfg->modules_dir, ver[0], ver[2]);
	if (realpath(pkg, b->prefix) == NULL) {
		snprintf(err, errsize, "reference %s: %s: %s", b->name, pkg, strerror(errno));
		return -1;
	}
	/* Its identity: the pinned package (its package.json names the exact version). */
	if (snprintf(b->lib_path, sizeof b->lib_path, "%.4000s/package.json", b->prefix) >=
	        (int)sizeof b->lib_path ||
	    reference_sha256(b->lib_path, b->sha256) < 0) {
		snprintf(err, errsize, "reference %s: cannot read %s", b->name, b->lib_path);
		return -1;
	}
	/* What runs it: node, where a build has its compiled core. */
	if (reference_node(cfg->node_bin != NULL ? cfg->node_bin : "node", node) < 0) {
		snprintf(b->core_path, sizeof b->core_path, "%s", cfg->node_bin ? cfg->node_bin : "node");
		snprintf(err, errsize, "reference %s: no node at %s (--node PATH)", b->name, b->core_path);
		return -1;
	}
	snprintf(b->core_path, sizeof b->core_path, "%s", node);
	return 0;
}

/* ---- generated cases for a reference ---- */

/* A payload made into a message of this type (the copy owned by m): 0, or -1. */
static int reference_msg(struct proto_msg *m, uint16_t type, const struct proto_buf *b)
{
	char *p = malloc(b->len > 0 ? b->len : 1);

	memset(m, 0, sizeof *m);
	if (p == NULL || b->failed) {
		free(p);
		return -1;
	}
	memcpy(p, b->data, b->len);
	return proto_decode(m, type, p, b->len);
}

/* A native core's refusal (PROTO_FAIL with TAG_MESSAGE) as *reply: 1. */
static int reference_refuse(struct proto_msg *reply, const char *msg)
{
	struct proto_buf b;
	int rc;

	proto_buf_init(&b);
	proto_buf_add_str(&b, TAG_MESSAGE, msg);
	rc = reference_msg(reply, PROTO_FAIL, &b);
	proto_buf_release(&b);
	return rc == 0 ? 1 : -1;
}

/* One record's tagged fields (a PROTO_RESULT's) as an outcome. */
struct reference_fields {
	const char *f[TAG_REF_RESULTS + 1];
	uint32_t len[TAG_REF_RESULTS + 1];
};

static int reference_fields(const unsigned char *p, size_t n, struct reference_fields *out)
{
	memset(out, 0, sizeof *out);
	while (n > 0) {
		uint16_t tag;
		uint32_t len;
		if (n < 6)
			return -1;
		tag = (uint16_t)(p[0] | p[1] << 8);
		len = (uint32_t)p[2] | (uint32_t)p[3] << 8 | (uint32_t)p[4] << 16 | (uint32_t)p[5] << 24;
		if (len > n - 6)
			return -1;
		if (tag <= TAG_REF_RESULTS && out->f[tag] == NULL) {
			out->f[tag] = (const char *)p + 6;
			out->len[tag] = len;
		}
		p += 6 + len;
		n -= 6 + len;
	}
	return 0;
}

static int64_t reference_int(const struct reference_fields *r, uint16_t tag, int64_t def)
{
	uint64_t v = 0;
	if (r->f[tag] == NULL || r->len[tag] != 8)
		return def;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | (unsigned char)r->f[tag][i];
	return (int64_t)v;
}

/* A result's fields hashed as gencore.c hashes its outcome. */
static void reference_outcome_digest(const struct reference_fields *r, struct gen_digest *d)
{
	/* A thrown exception's message is always there in a native core's
	 * outcome, empty when it had none. */
	struct gen_outcome o = {
		.status = (int)reference_int(r, TAG_STATUS, PROTO_STATUS_ERROR),
		.output = r->f[TAG_OUTPUT],
		.output_len = r->len[TAG_OUTPUT],
		.error_code = reference_int(r, TAG_ERROR_CODE, 0),
		.error_msg = r->f[TAG_ERROR_MSG],
		.error_msg_len = r->len[TAG_ERROR_MSG],
		.exc_class = NULL,
		.exc_msg = r->f[TAG_EXC_MSG] != NULL ? r->f[TAG_EXC_MSG] : "",
		.exc_msg_len = r->len[TAG_EXC_MSG],
	};
	char cls[256];
	if (r->f[TAG_EXC_CLASS] != NULL && r->len[TAG_EXC_CLASS] > 0) {
		snprintf(cls, sizeof cls, "%.*s", (int)r->len[TAG_EXC_CLASS], r->f[TAG_EXC_CLASS]);
		o.exc_class = cls;
	}
	gen_outcome_digest(&o, d);
}

/* A generated-run request's fields. */
struct reference_req {
	uint64_t seed;
	int64_t start, count;
	uint32_t php; /* the cases' (TAG_GEN_PHP) */
	uint32_t own; /* the reference's PHP_VERSION_ID */
};

/* Read and check req as gencore.c does: 0, or 1 with the refusal in *reply (-1 out of memory). */
static int reference_req(const struct worker *w, uint16_t type, const struct proto_buf *req,
    struct reference_req *q, struct proto_msg *reply)
{
	struct proto_msg m;
	char msg[256];

	if (reference_msg(&m, type, req) < 0)
		return reference_refuse(reply, "generator: malformed request");
	q->seed = (uint64_t)proto_get_int(&m, TAG_GEN_SEED, 0);
	q->start = proto_get_int(&m, TAG_GEN_START, -1);
	q->count = type == PROTO_GEN_BATCH ? proto_get_int(&m, TAG_GEN_COUNT, 0) : 1;
	q->php = gen_php_floor((uint32_t)proto_get_int(&m, TAG_GEN_PHP, GEN_PHP_ALL));
	int version = (int)proto_get_int(&m, TAG_GEN_VERSION, -1);
	proto_msg_release(&m);
	struct build_info info;
	worker_build_info(w->build, &info);
	q->own = gen_php_id(info.php_version);
	if (version != GEN_VERSION) {
		snprintf(
		    msg, sizeof msg, "generator: this worker has generator version %d only", GEN_VERSION);
		return reference_refuse(reply, msg);
	}
	if (q->start < 0 || q->count < 1 || q->count > PROTO_PAGE_RECORDS)
		return reference_refuse(reply, "generator: bad batch range");
	if (q->own != 0 && gen_php_floor(q->own) != GEN_PHP_ALL &&
	    (q->php == GEN_PHP_ALL || q->php > q->own)) {
		gen_php_refusal(q->php, q->own, info.php_version, msg, sizeof msg);
		return reference_refuse(reply, msg);
	}
	return 0;
}

static void reference_put_u64s(struct proto_buf *out, uint16_t tag, const uint64_t *v, size_t n)
{
	unsigned char *buf = malloc(8 * n);
	if (buf == NULL) {
		out->failed = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			buf[8 * i + b] = (unsigned char)(v[i] >> (8 * b));
	proto_buf_add(out, tag, buf, 8 * n);
	free(buf);
}

/* What one slice needs: each case made, its plan hash, flags and depth in digests[]. */
struct reference_slice {
	struct gen_case *gc;
	struct proto_buf cases; /* records: u32 length, then TAG_CODE, TAG_FLAGS, TAG_DEPTH */
	struct gen_digest *d;   /* the slice's digests (plan, flags, depth set here) */
};

/* Cases [from, from+n) rendered into s->cases; coverage counted into counters. 0 or -1. */
static int reference_render(const struct reference_req *q, int64_t from, int64_t n, struct reference_slice *s,
    uint64_t counters[GEN_COUNTERS])
{
	struct gen_buf code = { 0 };
	struct proto_buf rec;

	proto_buf_release(&s->cases);
	proto_buf_init(&s->cases);
	for (int64_t i = 0; i < n; i++) {
		gen_case_make_php(s->gc, q->seed, (uint64_t)(from + i), q->php);
		if (counters != NULL)
			gen_count(s->gc, counters);
		memset(&s->d[i], 0, sizeof s->d[i]);
		s->d[i].plan_hash = gen_case_hash(s->gc);
		s->d[i].flags = (uint32_t)s->gc->flags;
		s->d[i].depth = (uint32_t)s->gc->depth;
		code.len = 0;
		if (gen_render_value(s->gc, &code) < 0 || code.failed)
			break;
		proto_buf_init(&rec);
		proto_buf_add(&rec, TAG_CODE, code.data, code.len);
		proto_buf_add_int(&rec, TAG_FLAGS, s->gc->flags);
		proto_buf_add_int(&rec, TAG_DEPTH, s->gc->depth);
		unsigned char len[4] = { (unsigned char)rec.len, (unsigned char)(rec.len >> 8),
			(unsigned char)(rec.len >> 16), (unsigned char)(rec.len >> 24) };
		/* The record list is one field's bytes: appended raw. */
		size_t need = s->cases.len + 4 + rec.len;
		if (rec.failed || need > PROTO_MAX_PAYLOAD) {
			proto_buf_release(&rec);
			s->cases.failed = 1;
			break;
		}
		if (need > s->cases.cap) {
			size_t cap = s->cases.cap ? 2 * s->cases.cap : 65536;
			while (cap < need)
				cap *= 2;
			char *p = realloc(s->cases.data, cap);
			if (p == NULL) {
				proto_buf_release(&rec);
				s->cases.failed = 1;
				break;
			}
			s->cases.data = p;
			s->cases.cap = cap;
		}
		memcpy(s->cases.data + s->cases.len, len, 4);
		memcpy(s->cases.data + s->cases.len + 4, rec.data, rec.len);
		s->cases.len = need;
		proto_buf_release(&rec);
	}
	gen_buf_release(&code);
	return s->cases.failed ? -1 : 0;
}

/*
 * One slice on the reference: 1 with every case's result hash in s->d, 0
 * the worker died or timed out (*r says so), -1 with err (a refusal, a
 * malformed answer: the batch cannot go on).
 */
static int reference_slice_call(struct worker *w, const struct config *cfg, const char *setup,
    size_t setup_len, int64_t n, struct reference_slice *s, struct result *r, char *err, size_t errsize)
{
	struct proto_buf req;
	struct proto_msg reply;
	int rc;

	proto_buf_init(&req);
	proto_buf_add(&req, TAG_GEN_SETUP, setup, setup_len);
	proto_buf_add(&req, TAG_REF_CASES, s->cases.data, s->cases.len);
	rc = worker_exchange(
	    w, cfg, PROTO_REF_BATCH, &req, cfg->case_timeout_ms + (int)n * REFERENCE_MS_PER_CASE, &reply, r);
	proto_buf_release(&req);
	if (rc < 0) {
		snprintf(err, errsize, "%s", r->failure != NULL ? r->failure : "the reference cannot start");
		return -1;
	}
	if (rc == 0)
		return 0;
	const struct proto_field *f = proto_get(&reply, TAG_REF_RESULTS);
	if (reply.type != PROTO_REF_RESULTS || f == NULL) {
		const struct proto_field *m = proto_get(&reply, TAG_FAILURE);
		if (m == NULL)
			m = proto_get(&reply, TAG_MESSAGE);
		snprintf(err, errsize, "the reference refused the batch: %.*s", m ? (int)m->len : 0,
		    m ? m->data : "unexpected reply");
		proto_msg_release(&reply);
		return -1;
	}
	const unsigned char *p = (const unsigned char *)f->data;
	size_t left = f->len;
	int64_t i;
	for (i = 0; i < n && left >= 4; i++) {
		struct reference_fields fl;
		uint32_t len = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		    (uint32_t)p[3] << 24;
		if (len > left - 4 || reference_fields(p + 4, len, &fl) < 0)
			break;
		reference_outcome_digest(&fl, &s->d[i]);
		p += 4 + len;
		left -= 4 + len;
	}
	proto_msg_release(&reply);
	if (i != n || left != 0) {
		snprintf(err, errsize, "the reference's batch answer is malformed (%lld of %lld records)",
		    (long long)i, (long long)n);
		return -1;
	}
	return 1;
}

/* PROTO_GEN_BATCH for a reference (see the top of the file). */
static int reference_batch(struct worker *w, const struct config *cfg, const struct reference_req *q,
    struct proto_msg *reply, struct result *r)
{
	struct reference_slice s = { 0 };
	struct proto_page *pg = w->page;
	uint64_t *counters = calloc(GEN_COUNTERS, sizeof *counters), times[GEN_PHASES] = { 0 };
	unsigned char *records = malloc((size_t)q->count * GEN_DIGEST_SIZE);
	size_t setup_len = 0;
	const char *setup = gen_declarations_php(q->own, &setup_len);
	char err[600] = "";
	int rc = -1;
	double t0 = clock_ms();

	s.gc = malloc(sizeof *s.gc);
	s.d = calloc(REFERENCE_SLICE, sizeof *s.d);
	proto_buf_init(&s.cases);
	if (counters == NULL || records == NULL || s.gc == NULL || s.d == NULL || setup == NULL) {
		rc = reference_refuse(reply, "generator: out of memory");
		goto out;
	}
	if (pg != NULL) {
		pg->batch_start = q->start;
		pg->done = 0;
	}
	for (int64_t at = 0; at < q->count;) {
		int64_t n = q->count - at < REFERENCE_SLICE ? q->count - at : REFERENCE_SLICE;
		double tr = clock_ms();
		if (reference_render(q, q->start + at, n, &s, NULL) < 0) {
			rc = reference_refuse(reply, "generator: out of memory rendering the cases");
			goto out;
		}
		times[GEN_T_GENERATE] += (uint64_t)((clock_ms() - tr) * 1e6);
		double te = clock_ms();
		int got = reference_slice_call(w, cfg, setup, setup_len, n, &s, r, err, sizeof err);
		times[GEN_T_ENCODE] += (uint64_t)((clock_ms() - te) * 1e6);
		if (got < 0) {
			rc = reference_refuse(reply, err);
			goto out;
		}
		if (got == 0) {
			/* Died or hung in the slice: its cases one by one on the
			 * restarted worker, up to the one that does it. */
			result_release(r);
			for (int64_t k = 0; k < n; k++) {
				if (reference_render(q, q->start + at + k, 1, &s, NULL) < 0) {
					rc = reference_refuse(
					    reply, "generator: out of memory rendering the cases");
					goto out;
				}
				got = reference_slice_call(
				    w, cfg, setup, setup_len, 1, &s, r, err, sizeof err);
				if (got < 0) {
					rc = reference_refuse(reply, err);
					goto out;
				}
				if (got == 0) {
					/* The page: the cases before it, and coverage up to and with it. */
					int64_t done = at + k;
					if (pg == NULL) {
						rc = 0;
						goto out;
					}
					for (int64_t j = 0; j <= done; j++) {
						gen_case_make_php(
						    s.gc, q->seed, (uint64_t)(q->start + j), q->php);
						gen_count(s.gc, pg->counters);
					}
					memcpy(pg->records, records, (size_t)done * GEN_DIGEST_SIZE);
					pg->done = done;
					rc = 0;
					goto out;
				}
				gen_digest_pack(&s.d[0], records + (size_t)(at + k) * GEN_DIGEST_SIZE);
				result_release(r);
			}
		} else {
			for (int64_t k = 0; k < n; k++)
				gen_digest_pack(&s.d[k], records + (size_t)(at + k) * GEN_DIGEST_SIZE);
			result_release(r);
		}
		at += n;
	}
	/* Coverage of the whole batch, as a native core counts it. */
	for (int64_t i = 0; i < q->count; i++) {
		gen_case_make_php(s.gc, q->seed, (uint64_t)(q->start + i), q->php);
		gen_count(s.gc, counters);
	}
	if (pg != NULL)
		pg->batch_start = -1;
	times[GEN_T_TOTAL] = (uint64_t)((clock_ms() - t0) * 1e6);
	struct proto_buf out;
	proto_buf_init(&out);
	proto_buf_add_int(&out, TAG_GEN_VERSION, GEN_VERSION);
	proto_buf_add_int(&out, TAG_GEN_START, q->start);
	proto_buf_add_int(&out, TAG_GEN_COUNT, q->count);
	proto_buf_add(&out, TAG_GEN_RECORDS, records, (size_t)q->count * GEN_DIGEST_SIZE);
	reference_put_u64s(&out, TAG_GEN_COVERAGE, counters, GEN_COUNTERS);
	reference_put_u64s(&out, TAG_GEN_TIMES, times, GEN_PHASES);
	result_init(r);
	rc = reference_msg(reply, PROTO_GEN_DIGESTS, &out) == 0 ? 1
	                                                        : reference_refuse(reply, "out of memory");
	proto_buf_release(&out);
out:
	proto_buf_release(&s.cases);
	free(s.gc);
	free(s.d);
	free(counters);
	free(records);
	return rc;
}

/* PROTO_GEN_DETAIL for a reference: the rendered case as a PROTO_CASE. */
static int reference_detail(struct worker *w, const struct config *cfg, const struct reference_req *q,
    int timeout_ms, struct proto_msg *reply, struct result *r)
{
	struct gen_case *gc = malloc(sizeof *gc);
	struct gen_buf code = { 0 }, setup = { 0 };
	struct proto_buf req, out;
	struct proto_msg res;
	int rc;

	if (gc == NULL)
		return reference_refuse(reply, "generator: out of memory");
	gen_case_make_php(gc, q->seed, (uint64_t)q->start, q->php);
	if (gen_render_value(gc, &code) < 0 || gen_render_setup(gc, &setup) < 0 || code.failed ||
	    setup.failed) {
		gen_buf_release(&code);
		gen_buf_release(&setup);
		free(gc);
		return reference_refuse(reply, "generator: out of memory rendering the case");
	}
	proto_buf_init(&req);
	proto_buf_add(&req, TAG_CODE, code.data, code.len);
	if (setup.len > 0)
		proto_buf_add(&req, TAG_SETUP, setup.data, setup.len);
	proto_buf_add_int(&req, TAG_FLAGS, gc->flags);
	proto_buf_add_int(&req, TAG_DEPTH, gc->depth);
	rc = worker_exchange(w, cfg, PROTO_CASE, &req, timeout_ms, &res, r);
	proto_buf_release(&req);
	if (rc == 1 && res.type == PROTO_RESULT) {
		/* Its answer, then what a native core's detail adds. */
		struct reference_fields fl;
		struct gen_digest d;
		proto_buf_init(&out);
		for (size_t i = 0; i < res.nfields; i++)
			proto_buf_add(&out, res.fields[i].tag, res.fields[i].data, res.fields[i].len);
		if (reference_fields((const unsigned char *)res.payload, res.payload_len, &fl) == 0)
			reference_outcome_digest(&fl, &d);
		else
			memset(&d, 0, sizeof d);
		proto_buf_add(&out, TAG_GEN_CODE, code.data, code.len);
		proto_buf_add(&out, TAG_GEN_SETUP, setup.data ? setup.data : "", setup.len);
		if (proto_get(&res, TAG_FLAGS) == NULL)
			proto_buf_add_int(&out, TAG_FLAGS, gc->flags);
		if (proto_get(&res, TAG_DEPTH) == NULL)
			proto_buf_add_int(&out, TAG_DEPTH, gc->depth);
		proto_buf_add_int(&out, TAG_GEN_PLAN_HASH, (int64_t)gen_case_hash(gc));
		proto_buf_add_int(&out, TAG_GEN_RESULT_HASH, (int64_t)d.result_hash);
		proto_msg_release(&res);
		if (reference_msg(reply, PROTO_RESULT, &out) < 0)
			rc = reference_refuse(reply, "out of memory");
		proto_buf_release(&out);
	} else if (rc == 1) {
		*reply = res; /* a refusal: as it came */
	}
	gen_buf_release(&code);
	gen_buf_release(&setup);
	free(gc);
	return rc;
}

int reference_call(struct worker *w, const struct config *cfg, uint16_t type, const struct proto_buf *req,
    int timeout_ms, struct proto_msg *reply, struct result *r)
{
	struct reference_req q;
	int rc;

	if (type != PROTO_GEN_BATCH && type != PROTO_GEN_DETAIL)
		return worker_exchange(w, cfg, type, req, timeout_ms, reply, r);
	result_init(r);
	/* Its hello says its PHP version, which the cases' checks need. */
	struct build_info info;
	worker_build_info(w->build, &info);
	if (info.php_version[0] == '\0' && worker_prestart(w, cfg) < 0) {
		char why[700];
		snprintf(why, sizeof why, "worker failed to start: %s", w->last_failure);
		r->status = STATUS_ERROR;
		r->output_is_false = 1;
		r->failure = strdup(why);
		r->warnings = strdup("");
		return -1;
	}
	if ((rc = reference_req(w, type, req, &q, reply)) != 0)
		return rc;
	if (type == PROTO_GEN_BATCH)
		return reference_batch(w, cfg, &q, reply, r);
	return reference_detail(w, cfg, &q, timeout_ms, reply, r);
}

/* ---- a run's "base" ---- */

int reference_run_builds(
    struct config *cfg, const char *base, struct build *builds[MAX_BUILDS], char *err, size_t errsize)
{
	struct build *active[MAX_BUILDS], *b = build_find(cfg, base);
	int n = 1, nactive = build_list(cfg, active);

	if (b == NULL || __atomic_load_n(&b->retired, __ATOMIC_ACQUIRE) || b->asan_of != 0) {
		snprintf(err, errsize,
		    "base: no active build or reference runtime is named \"%.64s\" (GET /api/builds)", base);
		return -1;
	}
	builds[0] = b;
	for (int i = 0; i < nactive && n < MAX_BUILDS; i++)
		if (active[i] != b)
			builds[n++] = active[i];
	for (int i = n; i < MAX_BUILDS; i++)
		builds[i] = NULL;
	if (n < 2) {
		snprintf(err, errsize, "base: %s and no other active build: a comparison needs two", base);
		return -1;
	}
	return n;
}
