/*
 * The generated suite: seeded json_encode cases (server/common/gen.c) run on
 * the base and every candidate in batches, compared by digest.
 *
 * Each worker generates and encodes a batch of cases itself and answers
 * with a 32-byte digest per case (PROTO_GEN_BATCH); every build works on
 * the same batch at once, and every build's cases must hash alike (the
 * corpus hash).  A case where a candidate's digest differs from the base's
 * is a mismatch of that candidate: every mismatch is listed with its batch
 * (generated_mismatches: seed, index, signature, the differing candidates,
 * every digest), and only a bounded sample per signature is stored in full
 * during the run (PROTO_GEN_DETAIL on each build); the rest are made again
 * from (seed, index) when asked for.  Every case's result hash is kept in
 * generated_batches, one row per batch.
 *
 * A case that kills a worker (or runs past its time) ends that build's
 * request; the worker's progress page says which case it was, so the case
 * gets its crash (timeout) result and the batch goes on from the next case
 * on the fork server's fresh child: no bisection.  max_failures, when
 * given, stops the run after that many on one build.
 *
 * Memory does not grow with the run: a batch of digests per build, one of
 * hashes and of listed mismatches, fixed counters and signatures, and at
 * most GEN_TALLY_LIST mismatches named in the summary.
 *
 * Resumed (POST /api/runs/{id}/resume), a run skips the batches it stored
 * (each batch's hashes, mismatches and progress are one transaction) and
 * does not store a mismatch twice: a batch cut short after some of its
 * samples were stored runs again, and those are found in the run and left
 * alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "columns.h"
#include "engine.h"
#include "fanout.h"
#include "proto.h"
#include "gen.h"

#define GENRUN_BATCH 8192           /* cases per request */
#define GENRUN_SANITIZER_BATCH 1024 /* with a sanitizer build in the run (genrun_open) */
#define GENRUN_MS_PER_CASE 2        /* a batch's time limit: timeout-ms + this per case */
#define GENRUN_MAX_SIGS 256         /* signatures counted (and sampled) one by one; the rest: "other" */
#define GENRUN_CANDS_SIZE 48        /* "head,cand2,...,cand7" */
#define GENRUN_SUMMARY_MS 1000      /* how often the summary is rewritten */

/* A case that crashed or timed out on one build, with its result. */
struct genrun_failure {
	int64_t index;
	struct result r;
};

/* One build's share of a batch. */
struct genrun_side {
	struct worker *worker;
	const struct config *cfg;
	uint64_t seed;
	int64_t start, count;
	unsigned char *records;          /* count digests */
	uint64_t coverage[GEN_COUNTERS]; /* this batch's */
	uint64_t times[GEN_PHASES];
	double wall_ms;
	struct genrun_failure *failures;
	size_t nfailures, capfailures;
	struct gen_case *scratch;          /* to describe a case the worker died on */
	uint32_t php;                      /* the cases' PHP (genrun_php) */
	double crash_ms[GEN_CRASH_PHASES]; /* this batch's crashes, summed (genrun_crash_time) */
	int64_t crashes_timed;
	int rc; /* 0 ok, -1 fatal (err) */
	char err[512];
};

/* A whole run. */
struct genrun {
	struct app *app;
	const struct db_run *run;
	const struct run_params *p; /* the run's: seeds, count, start, max_failures */
	struct genrun_side side[MAX_BUILDS];
	uint64_t *hashes;
	int resumed;          /* the run had progress when it started */
	int64_t batch;        /* cases per request: GENRUN_BATCH or GENRUN_SANITIZER_BATCH */
	int nbuilds;          /* the base and its candidates: side[0..nbuilds-1] */
	struct gen_tally t;   /* the summary's counts (columns.h) */
	struct gen_sig *sigs; /* t.sigs: the signatures counted one by one, GENRUN_MAX_SIGS */
	double started_ms, last_summary_ms;
	struct db_gen_mismatch *batch_mis; /* this batch's mismatches, listed with it */
	size_t nbatch_mis;
	unsigned char *batch_digests; /* theirs: nbuilds digests each, base first */
	char *batch_cands;            /* theirs: GENRUN_CANDS_SIZE each, the differing roles */
	uint32_t php;                 /* the cases' PHP: the oldest build's (genrun_php) */
	char generated_for[160];      /* the summary's "PHP 8.0.10: enums left out", "" */
};

/* Lazily materialised mismatches: one at a time, so none is stored twice. */
static pthread_mutex_t genrun_materialise_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- parameters ---- */

int genrun_check(const struct run_params *p, char *err, size_t errsize)
{
	if (p->nseeds == 0) {
		snprintf(err, errsize, "seed: required (or seeds: [...])");
		return -1;
	}
	if (!(p->given & RUN_COUNT)) {
		snprintf(err, errsize, "count: required, an integer 1 .. %d", RUN_MAX_COUNT);
		return -1;
	}
	return 0;
}

/* ---- one case in full ---- */

/*
 * A generated run made by another generator version (its summary's
 * generator_version) cannot go on here: the rest of its cases are gone
 * with that version (the mismatches it stored stay, in full).  0 and err
 * set when so.
 */
int genrun_resumable(const struct db_run *run, char *err, size_t errsize)
{
	int64_t version = column_generated_version(run->summary);

	if (version < 0 || version == GEN_VERSION)
		return 1;
	snprintf(err, errsize,
	    "run %" PRId64 " was made with generator version %" PRId64
	    ", which is gone: this daemon's generator is version %d; its stored cases stay, "
	    "start a new run for the rest",
	    run->id, version, GEN_VERSION);
	return 0;
}

int genrun_version(void)
{
	return GEN_VERSION;
}

uint32_t genrun_php(struct build *const *builds, int n)
{
	return genrun_php_upto(builds, n, 0);
}

uint32_t genrun_php_upto(struct build *const *builds, int n, uint32_t php)
{
	uint32_t oldest = php;
	for (int i = 0; i < n; i++) {
		uint32_t id = gen_php_id(builds[i]->php_version);
		if (id != 0 && (oldest == GEN_PHP_ALL || id < oldest))
			oldest = id;
	}
	return gen_php_floor(oldest);
}

int genrun_case_spec(uint64_t seed, uint64_t index, uint32_t php, struct case_spec *c)
{
	struct gen_case *gc = malloc(sizeof(*gc));
	struct gen_buf code = { 0 }, setup = { 0 };
	char title[96];
	int rc = -1;

	case_init(c);
	if (gc == NULL)
		return -1;
	gen_case_make_php(gc, seed, index, php);
	gen_title(seed, index, title, sizeof title);
	if (gen_render_value(gc, &code) < 0 || gen_render_setup(gc, &setup) < 0)
		goto out;
	c->title = strdup(title);
	c->code = code.data;
	code.data = NULL;
	if (setup.len > 0) {
		c->setup = setup.data;
		setup.data = NULL;
	}
	c->flags = (long)gc->flags;
	c->depth = (long)gc->depth;
	rc = c->title != NULL ? 0 : -1;
out:
	gen_buf_release(&code);
	gen_buf_release(&setup);
	free(gc);
	return rc;
}

int genrun_detail(
    struct app *app, struct build *b, uint64_t seed, uint64_t index, uint32_t php, struct result *r)
{
	struct worker *w = build_worker(app, b);
	struct proto_buf req;
	struct proto_msg reply;
	int rc;

	proto_buf_init(&req);
	proto_buf_add_int(&req, TAG_GEN_VERSION, GEN_VERSION);
	proto_buf_add_int(&req, TAG_GEN_SEED, (int64_t)seed);
	proto_buf_add_int(&req, TAG_GEN_START, (int64_t)index);
	if (php != GEN_PHP_ALL) /* absent for every construct: the messages of 8.1+ runs unchanged */
		proto_buf_add_int(&req, TAG_GEN_PHP, php);
	rc = worker_call(w, app->config, PROTO_GEN_DETAIL, &req, app->config->case_timeout_ms, &reply, r);
	proto_buf_release(&req);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return 0; /* r: crash or timeout */
	if (reply.type == PROTO_RESULT) {
		worker_result_from_msg(r, &reply);
	} else {
		const struct proto_field *m = proto_get(&reply, TAG_MESSAGE);
		char buf[600];
		snprintf(buf, sizeof buf, "the worker refused the case: %.*s", m ? (int)m->len : 0,
		    m ? m->data : "");
		r->status = STATUS_ERROR;
		r->output_is_false = 1;
		free(r->failure);
		r->failure = strdup(buf);
		if (r->warnings == NULL)
			r->warnings = strdup("");
	}
	proto_msg_release(&reply);
	return 0;
}

/* ---- one build's share of a batch ---- */

static void genrun_side_fail(struct genrun_side *s, const char *fmt, const char *arg)
{
	s->rc = -1;
	snprintf(s->err, sizeof s->err, fmt, arg);
}

static uint64_t genrun_u64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * A sanitizer build's batch: the cases that had a report get the status
 * memory-error in their digests, so they differ from the base's and are
 * run again alone (PROTO_GEN_DETAIL), which gives each its own report,
 * even when the output was the same.  Case i of the batch (index start+i)
 * of the count whose records are at records.
 */
static void genrun_memory_error(int64_t index, int64_t start, int64_t count, unsigned char *records)
{
	int64_t i = index - start;
	if (i < 0 || i >= count)
		return;
	struct gen_digest d;
	unsigned char *rec = records + (size_t)i * GEN_DIGEST_SIZE;
	gen_digest_unpack(&d, rec);
	d.status = STATUS_MEMORY_ERROR;
	gen_digest_pack(&d, rec);
}

/* Of a batch's reply: the cases its TAG_SANITIZER_INDEX names. */
static void genrun_memory_errors(
    const struct proto_msg *reply, int64_t start, int64_t count, unsigned char *records)
{
	const struct proto_field *f = proto_get(reply, TAG_SANITIZER_INDEX);
	for (size_t k = 0; f != NULL && k + 8 <= f->len; k += 8)
		genrun_memory_error(
		    (int64_t)genrun_u64((const unsigned char *)f->data + k), start, count, records);
}

/*
 * Ask for digests of [start, start+count) into s->records + offset.
 * 1 done, 0 the worker died or timed out (failure in *r), -1 fatal (s->err).
 */
static int genrun_call(
    struct genrun_side *s, int64_t start, int64_t count, unsigned char *records, struct result *r)
{
	struct proto_buf req;
	struct proto_msg reply;
	const struct proto_field *rec, *cov, *tim;
	/* A sanitizer build runs several times slower, and each report costs
	 * its symbolized stacks: ten times the time per case. */
	int per_case = GENRUN_MS_PER_CASE * (s->worker->build->sanitizer_preload[0] != '\0' ? 10 : 1);
	int rc, timeout = s->cfg->case_timeout_ms + (int)(count * per_case);

	proto_buf_init(&req);
	proto_buf_add_int(&req, TAG_GEN_VERSION, GEN_VERSION);
	proto_buf_add_int(&req, TAG_GEN_SEED, (int64_t)s->seed);
	proto_buf_add_int(&req, TAG_GEN_START, start);
	proto_buf_add_int(&req, TAG_GEN_COUNT, count);
	if (s->php != GEN_PHP_ALL)
		proto_buf_add_int(&req, TAG_GEN_PHP, s->php);
	rc = worker_call(s->worker, s->cfg, PROTO_GEN_BATCH, &req, timeout, &reply, r);
	proto_buf_release(&req);
	if (rc < 0) {
		genrun_side_fail(s, "%s", r->failure != NULL ? r->failure : "the worker cannot start");
		return -1;
	}
	if (rc == 0)
		return 0;
	if (reply.type != PROTO_GEN_DIGESTS) {
		const struct proto_field *m = proto_get(&reply, TAG_MESSAGE);
		char msg[300];
		snprintf(msg, sizeof msg, "%.*s", m ? (int)m->len : 0, m ? m->data : "unexpected reply");
		genrun_side_fail(s, "the worker refused the batch: %s", msg);
		proto_msg_release(&reply);
		return -1;
	}
	rec = proto_get(&reply, TAG_GEN_RECORDS);
	cov = proto_get(&reply, TAG_GEN_COVERAGE);
	tim = proto_get(&reply, TAG_GEN_TIMES);
	if (proto_get_int(&reply, TAG_GEN_START, -1) != start ||
	    proto_get_int(&reply, TAG_GEN_COUNT, -1) != count || rec == NULL ||
	    rec->len != (uint64_t)count * GEN_DIGEST_SIZE || cov == NULL || cov->len != 8 * GEN_COUNTERS ||
	    tim == NULL || tim->len != 8 * GEN_PHASES) {
		genrun_side_fail(s, "%s", "the worker's batch reply is malformed (a stale worker core?)");
		proto_msg_release(&reply);
		return -1;
	}
	memcpy(records, rec->data, rec->len);
	genrun_memory_errors(&reply, start, count, records);
	for (int i = 0; i < GEN_COUNTERS; i++)
		s->coverage[i] += genrun_u64((const unsigned char *)cov->data + 8 * i);
	for (int i = 0; i < GEN_PHASES; i++)
		s->times[i] += genrun_u64((const unsigned char *)tim->data + 8 * i);
	proto_msg_release(&reply);
	return 1;
}

/* A digest for a case the worker died on: what the daemon knows of it. */
static void genrun_failed_digest(
    struct genrun_side *s, int64_t index, const struct result *r, int count, unsigned char *out)
{
	struct gen_digest d;
	unsigned char key[8] = { (unsigned char)r->status, (unsigned char)r->signal };
	gen_case_make_php(s->scratch, s->seed, (uint64_t)index, s->php);
	if (count)
		gen_count(s->scratch, s->coverage);
	memset(&d, 0, sizeof d);
	d.plan_hash = gen_case_hash(s->scratch);
	d.result_hash = gen_hash(key, sizeof key, GEN_HASH_INIT);
	d.flags = (uint32_t)s->scratch->flags;
	d.depth = (uint32_t)s->scratch->depth;
	d.status = (uint8_t)r->status;
	d.is_false = 1;
	gen_digest_pack(&d, out);
}

/* Keep the case the worker died on (r is moved: released with the batch). */
static int genrun_failed(struct genrun_side *s, int64_t i, struct result *r, int count)
{
	if (s->nfailures == s->capfailures) {
		size_t cap = s->capfailures ? 2 * s->capfailures : 8;
		struct genrun_failure *p = realloc(s->failures, cap * sizeof(*p));
		if (p == NULL) {
			result_release(r);
			genrun_side_fail(s, "%s", "out of memory");
			return -1;
		}
		s->failures = p;
		s->capfailures = cap;
	}
	genrun_failed_digest(s, s->start + i, r, count, s->records + (size_t)i * GEN_DIGEST_SIZE);
	s->failures[s->nfailures].index = s->start + i;
	s->failures[s->nfailures].r = *r;
	s->nfailures++;
	return 0;
}

/* Without a progress page: the rest of the batch one case per request. */
static void genrun_singles(struct genrun_side *s, int64_t from)
{
	for (int64_t i = from; i < s->count && s->rc == 0; i++) {
		struct result r;
		unsigned char *rec = s->records + (size_t)i * GEN_DIGEST_SIZE;
		int rc = genrun_call(s, s->start + i, 1, rec, &r);
		if (rc == 0) {
			if (genrun_failed(s, i, &r, 1) < 0)
				return;
			continue;
		}
		result_release(&r);
	}
}

/*
 * The batch on one build.  A case that kills the worker (or hangs it) ends
 * the request there; the progress page says which case it was and holds
 * the digests and coverage of the cases before it, so the case gets its
 * crash (timeout) result and the batch goes on from the next case on the
 * fork server's fresh child: one request more per crash, no bisection.
 */
static void genrun_side_run(void *arg)
{
	struct genrun_side *s = arg;
	double t0 = clock_ms();
	int64_t at = 0;

	double noticed = 0, died = 0;

	s->rc = 0;
	memset(s->coverage, 0, sizeof s->coverage);
	memset(s->crash_ms, 0, sizeof s->crash_ms);
	s->crashes_timed = 0;
	while (at < s->count && s->rc == 0) {
		struct result r;
		struct proto_page *pg = s->worker->page;
		if (pg != NULL) {
			pg->batch_start = -1;
			pg->done = 0;
			pg->nmemory_errors = 0;
			pg->declared_ms = 0;
		}
		double sent = clock_ms();
		int rc = genrun_call(
		    s, s->start + at, s->count - at, s->records + (size_t)at * GEN_DIGEST_SIZE, &r);
		pg = s->worker->page;
		/* The crash before this request: its phases, once the child resumed. */
		/* Died again: the spare after it may have started (ready_ms). */
		double ready = pg == NULL ? 0 : rc == 0 ? pg->died_ready_ms : pg->ready_ms;
		if (noticed > 0 && pg != NULL && pg->declared_ms > 0 && ready >= died) {
			s->crash_ms[GEN_C_NOTICE] += noticed - died;
			s->crash_ms[GEN_C_DAEMON] += sent - noticed;
			s->crash_ms[GEN_C_REPLACE] += ready - died;
			s->crash_ms[GEN_C_RESUME] += pg->declared_ms - died;
			s->crashes_timed++;
		}
		noticed = 0;
		if (rc != 0) {
			result_release(&r);
			break;
		}
		if (pg != NULL) {
			noticed = clock_ms();
			died = pg->died_ms;
		}
		int64_t k = pg != NULL && pg->batch_start == s->start + at ? pg->done : -1;
		if (k < 0 || k >= s->count - at) {
			/* No page to read (or it says nothing): the old way. */
			result_release(&r);
			genrun_singles(s, at);
			break;
		}
		memcpy(s->records + (size_t)at * GEN_DIGEST_SIZE, pg->records, (size_t)k * GEN_DIGEST_SIZE);
		/* The reports before the death: the page names their cases. */
		int32_t nerr = pg->nmemory_errors;
		for (int32_t e = 0; e < nerr && e < PROTO_PAGE_MEMORY_ERRORS; e++)
			genrun_memory_error(pg->memory_errors[e], s->start + at, k,
			    s->records + (size_t)at * GEN_DIGEST_SIZE);
		/* The page's counters include the case it died on. */
		for (int i = 0; i < GEN_COUNTERS; i++)
			s->coverage[i] += pg->counters[i];
		if (genrun_failed(s, at + k, &r, 0) < 0)
			break;
		at += k + 1;
	}
	s->wall_ms = clock_ms() - t0;
}

static void genrun_side_clear(struct genrun_side *s)
{
	for (size_t i = 0; i < s->nfailures; i++)
		result_release(&s->failures[i].r);
	s->nfailures = 0;
}

static const struct result *genrun_side_failure(const struct genrun_side *s, int64_t index)
{
	for (size_t i = 0; i < s->nfailures; i++)
		if (s->failures[i].index == index)
			return &s->failures[i].r;
	return NULL;
}

/* ---- the summary ---- */

/* The daemon's own memory: peak and current resident set, in KiB. */
static void genrun_rss(long *peak, long *now)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	*peak = *now = -1;
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "VmHWM:", 6) == 0)
			*peak = atol(line + 6);
		else if (strncmp(line, "VmRSS:", 6) == 0)
			*now = atol(line + 6);
	}
	fclose(f);
}

static void genrun_save_summary(struct genrun *g, int final)
{
	const char *names[MAX_BUILDS];
	struct gen_summary_context c = { .params = g->p, .build_names = names, .final = final };

	if (g->generated_for[0] != '\0')
		c.generated_for = g->generated_for;
	char err[512], *text;
	double t0;

	for (int b = 0; b < g->nbuilds; b++)
		names[b] = g->app->run_builds[b]->name;
	c.elapsed_ms = clock_ms() - g->started_ms;
	genrun_rss(&c.peak_rss_kb, &c.rss_kb);
	text = column_generated_summary(&g->t, &c);
	t0 = clock_ms();
	if (text != NULL && db_run_summary(g->app->db, g->run->id, text, err, sizeof err) < 0)
		fprintf(stderr, "phpcmp: run %" PRId64 ": summary: %s\n", g->run->id, err);
	g->t.db_ms += clock_ms() - t0;
	g->last_summary_ms = clock_ms();
	free(text);
}

/* ---- comparing a batch ---- */

/*
 * A generated case of a run in full: both builds' results (a failure the
 * batch met is taken from `sides`, the rest asked of the workers again),
 * stored as a case with its comparison in the run, not counted (its batch
 * counts it).  *case_id 0: a resumed run had stored it before.
 */
static int genrun_store_full(struct app *app, struct build *const builds[MAX_BUILDS], int n, int64_t run_id,
    int resumed, const struct genrun_side *sides, uint32_t run_php, uint64_t seed, int64_t index,
    int64_t *case_id, unsigned *diff, char *err, size_t errsize)
{
	struct result res[MAX_BUILDS];
	struct case_spec c;
	int64_t comparison_id;
	int b, rc;

	*case_id = 0;
	*diff = 0;
	for (b = 0; b < MAX_BUILDS; b++)
		result_init(&res[b]);
	uint32_t php = genrun_php_upto(builds, n, run_php);
	if (genrun_case_spec(seed, (uint64_t)index, php, &c) < 0) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	/* Resumed: stored before the run stopped. */
	if (resumed && (rc = db_run_has_case(app->db, run_id, &c, err, errsize)) != 0)
		goto out;
	rc = -1;
	for (b = 0; b < n; b++) {
		const struct result *f = sides != NULL ? genrun_side_failure(&sides[b], index) : NULL;
		if (f != NULL) {
			/* A copy: the batch still owns the failure. */
			res[b].status = f->status;
			res[b].signal = f->signal;
			res[b].output_is_false = 1;
			res[b].failure = f->failure ? strdup(f->failure) : NULL;
			res[b].warnings = strdup("");
			res[b].wall_ms = f->wall_ms;
		} else if (genrun_detail(app, builds[b], seed, (uint64_t)index, php, &res[b]) < 0) {
			snprintf(err, errsize, "build %s: %s", builds[b]->name,
			    res[b].failure != NULL ? res[b].failure : "the worker cannot start");
			goto out;
		}
	}
	*diff = verdict_compare_all(res, n, NULL);
	if (db_comparison_store_uncounted(
	        app->db, &c, run_id, builds, res, *diff, case_id, &comparison_id, err, errsize) < 0 ||
	    db_generated_case(app->db, *case_id, GEN_VERSION, seed, (uint64_t)index, err, errsize) < 0)
		goto out;
	rc = 0;
out:
	case_release(&c);
	for (b = 0; b < MAX_BUILDS; b++)
		result_release(&res[b]);
	return rc < 0 ? -1 : 0;
}

/* A mismatch of this batch in full: a sample of its signature, or one of the first listed. */
static int genrun_mismatch(struct genrun *g, uint64_t seed, int64_t index, const char *candidates,
    int64_t *case_id, char *err, size_t errsize)
{
	char differs[128];
	unsigned diff;

	if (genrun_store_full(g->app, g->app->run_builds, g->nbuilds, g->run->id, g->resumed, g->side,
	        g->p->php, seed, index, case_id, &diff, err, errsize) < 0)
		return -1;
	if (*case_id == 0)
		return 0;
	g->t.sampled++;
	/* Digests differ but the cases run alone agree: something leaked
	 * between cases of a batch, or a build is not deterministic. */
	if (diff == 0)
		g->t.unconfirmed++;
	if (g->t.nlisted < GEN_TALLY_LIST) {
		struct gen_listed *l = &g->t.listed[g->t.nlisted++];
		l->seed = seed;
		l->index = index;
		l->case_id = *case_id;
		verdict_fields(diff, differs, sizeof differs);
		snprintf(l->differs, sizeof l->differs, "%s", diff ? differs : "none when run alone");
		snprintf(l->candidates, sizeof l->candidates, "%s", candidates);
	}
	return 0;
}

static const char *genrun_status_name(unsigned s)
{
	static const char *const names[] = { "ok", "error", "crash", "timeout", "memory-error" };
	return s < 5 ? names[s] : "other";
}

/* One candidate's part of a signature: "fields|base status,code,exc|candidate's". */
static size_t genrun_sig_part(
    const struct gen_digest *a, const struct gen_digest *b, char *out, size_t outsize)
{
	char fields[64] = "";
	size_t n = 0;

	if (a->status != b->status)
		n += (size_t)snprintf(fields + n, sizeof fields - n, "%sstatus", n ? "," : "");
	if (a->error_code != b->error_code)
		n += (size_t)snprintf(fields + n, sizeof fields - n, "%serror_code", n ? "," : "");
	if (a->exception != b->exception)
		n += (size_t)snprintf(fields + n, sizeof fields - n, "%sexception", n ? "," : "");
	if (a->is_false != b->is_false || a->out_len != b->out_len || n == 0)
		n += (size_t)snprintf(fields + n, sizeof fields - n, "%soutput", n ? "," : "");
	int w = snprintf(out, outsize, "%s|%s,%u,%u|%s,%u,%u", fields, genrun_status_name(a->status),
	    (unsigned)a->error_code, (unsigned)a->exception, genrun_status_name(b->status),
	    (unsigned)b->error_code, (unsigned)b->exception);
	return w < 0 ? 0 : (size_t)w < outsize ? (size_t)w : outsize - 1;
}

/*
 * The signature of a mismatch (struct gen_sig): each differing
 * candidate's part, ";" between them; a later candidate's is named by its
 * role ("cand2:output|ok,0,0|ok,0,0"), the first candidate's is not, so a
 * two-build run's signatures are "output|ok,0,0|ok,0,0" as before.
 * `differs` has a bit per differing candidate (1 << role).
 */
static void genrun_signature(
    const struct gen_digest *d, int nbuilds, unsigned differs, char *out, size_t outsize)
{
	size_t n = 0;

	out[0] = '\0';
	for (int b = 1; b < nbuilds && n + 1 < outsize; b++) {
		if (!(differs & (1u << b)))
			continue;
		if (n > 0)
			out[n++] = ';';
		if (b != ROLE_HEAD) {
			int w = snprintf(out + n, outsize - n, "%s:", role_name(b));
			n = w > 0 && n + (size_t)w < outsize ? n + (size_t)w : outsize - 1;
		}
		n += genrun_sig_part(&d[ROLE_BASE], &d[b], out + n, outsize - n);
	}
}

/* The signature's entry, added if there is room; NULL: counted as "other". */
static struct gen_sig *genrun_sig_find(struct genrun *g, const char *key)
{
	for (int i = 0; i < g->t.nsigs; i++)
		if (strcmp(g->sigs[i].key, key) == 0)
			return &g->sigs[i];
	if (g->t.nsigs == GENRUN_MAX_SIGS)
		return NULL;
	struct gen_sig *sg = &g->sigs[g->t.nsigs++];
	memset(sg, 0, sizeof *sg);
	snprintf(sg->key, sizeof sg->key, "%s", key);
	return sg;
}

static int genrun_same(const struct gen_digest *a, const struct gen_digest *b)
{
	return a->result_hash == b->result_hash && a->status == b->status && a->error_code == b->error_code &&
	    a->out_len == b->out_len && a->is_false == b->is_false && a->exception == b->exception;
}

/* Compare both builds' digests of the batch; store what differs. */
static int genrun_compare(struct genrun *g, int si, char *err, size_t errsize)
{
	struct genrun_side *base = &g->side[ROLE_BASE];
	int64_t n = base->count, same = 0;
	double t0 = clock_ms(), t1;
	int nb = g->nbuilds;
	unsigned differs;

	for (int64_t i = 0; i < n; i++) {
		struct gen_digest d[MAX_BUILDS];
		for (int b = 0; b < nb; b++) {
			gen_digest_unpack(&d[b], g->side[b].records + (size_t)i * GEN_DIGEST_SIZE);
			if (d[ROLE_BASE].plan_hash != d[b].plan_hash) {
				snprintf(err, errsize,
				    "the generator made different cases on builds %s and %s "
				    "(seed %" PRIu64 ", index %" PRId64 "): stale worker cores?",
				    g->app->run_builds[ROLE_BASE]->name, g->app->run_builds[b]->name,
				    base->seed, base->start + i);
				return -1;
			}
		}
		g->t.corpus[si] = gen_hash(
		    &d[ROLE_BASE].plan_hash, sizeof d[ROLE_BASE].plan_hash, g->t.corpus[si]);
		for (int b = 0; b < nb; b++) {
			g->t.build[b].statuses[d[b].status < 5 ? d[b].status : STATUS_ERROR]++;
			if (d[b].status == PROTO_STATUS_OK)
				g->t.build[b].errors[d[b].error_code < GEN_TALLY_ERRORS ? d[b].error_code
				                                                        : GEN_TALLY_ERRORS]++;
			g->t.build[b].exceptions += d[b].exception;
		}
		g->hashes[i] = d[ROLE_BASE].result_hash;
		differs = 0;
		for (int b = 1; b < nb; b++)
			if (!genrun_same(&d[ROLE_BASE], &d[b])) {
				g->t.build[b].mismatches++;
				differs |= 1u << b;
			}
		if (differs == 0) {
			same++;
			continue;
		}
		g->t.mismatches++;
		char key[GEN_TALLY_SIG_SIZE];
		genrun_signature(d, nb, differs, key, sizeof key);
		struct gen_sig *sg = genrun_sig_find(g, key);
		size_t k = g->nbatch_mis++;
		struct db_gen_mismatch *m = &g->batch_mis[k];
		unsigned char *digests = g->batch_digests + k * (size_t)nb * GEN_DIGEST_SIZE;
		char *cands = g->batch_cands + k * GENRUN_CANDS_SIZE;
		size_t used = 0;
		memset(m, 0, sizeof *m);
		m->seed = base->seed;
		m->index = base->start + i;
		m->signature = sg != NULL ? sg->key : "other";
		/* Every build's digest side by side, and the roles that differ. */
		cands[0] = '\0';
		for (int b = 0; b < nb; b++) {
			memcpy(digests + (size_t)b * GEN_DIGEST_SIZE,
			    g->side[b].records + (size_t)i * GEN_DIGEST_SIZE, GEN_DIGEST_SIZE);
			if (differs & (1u << b))
				used += (size_t)snprintf(cands + used, GENRUN_CANDS_SIZE - used, "%s%s",
				    used ? "," : "", role_name(b));
		}
		m->digests = digests;
		m->ndigests = nb;
		m->candidates = cands;
		if (sg != NULL)
			sg->count++;
		else
			g->t.other_sig++;
		if ((sg != NULL && sg->samples < GEN_TALLY_SAMPLES) || g->t.nlisted < GEN_TALLY_LIST) {
			t1 = clock_ms();
			if (genrun_mismatch(g, base->seed, m->index, cands, &m->case_id, err, errsize) < 0)
				return -1;
			if (sg != NULL && m->case_id > 0 && sg->samples < GEN_TALLY_SAMPLES)
				sg->sample_ids[sg->samples++] = m->case_id;
			g->t.mismatch_ms += clock_ms() - t1;
		}
	}
	g->t.compare_ms += clock_ms() - t0;
	/* The hashes as 8-byte little-endian words, whatever this machine is. */
	unsigned char *bytes = (unsigned char *)g->hashes;
	for (int64_t i = 0; i < n; i++) {
		uint64_t v = g->hashes[i];
		for (int k = 0; k < 8; k++)
			bytes[8 * i + k] = (unsigned char)(v >> (8 * k));
	}
	t1 = clock_ms();
	if (db_generated_batch(g->app->db, g->run->id, base->seed, base->start, n, bytes, (size_t)n * 8, same,
	        g->batch_mis, g->nbatch_mis, err, errsize) < 0)
		return -1;
	g->nbatch_mis = 0;
	g->t.db_ms += clock_ms() - t1;
	g->t.done += n;
	return 0;
}

/* ---- the run ---- */

/*
 * A batch a resumed run stored before: its cases are made again here, for
 * the corpus hash and the coverage (the results' tallies of the summary
 * count only what this execution ran).  1 skipped, 0 not stored, -1.
 */
static int genrun_skip_stored(
    struct genrun *g, int si, uint64_t seed, int64_t start, int64_t count, char *err, size_t errsize)
{
	int64_t stored = db_generated_batch_stored(g->app->db, g->run->id, seed, start, err, errsize);
	struct gen_case *gc = g->side[ROLE_BASE].scratch;

	if (stored <= 0)
		return stored < 0 ? -1 : 0;
	for (int64_t i = 0; i < count; i++) {
		gen_case_make_php(gc, seed, (uint64_t)(start + i), g->php);
		gen_count(gc, g->t.coverage);
		uint64_t h = gen_case_hash(gc);
		g->t.corpus[si] = gen_hash(&h, sizeof h, g->t.corpus[si]);
	}
	g->t.done += count;
	g->t.skipped += count;
	return 1;
}

static void genrun_release(struct genrun *g)
{
	for (int b = 0; b < MAX_BUILDS; b++) {
		genrun_side_clear(&g->side[b]);
		free(g->side[b].failures);
		free(g->side[b].records);
		free(g->side[b].scratch);
	}
	free(g->hashes);
	free(g->sigs);
	free(g->batch_mis);
	free(g->batch_digests);
	free(g->batch_cands);
}

/* A run's state, its parameters read and its buffers made: NULL with err. */
static struct genrun *genrun_open(struct app *app, const struct db_run *run, char *err, size_t errsize)
{
	struct genrun *g = calloc(1, sizeof(*g));

	if (g == NULL) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	g->app = app;
	g->run = run;
	g->resumed = run->done > 0;
	g->p = &run->params;
	if (genrun_check(g->p, err, errsize) < 0) {
		free(g);
		return NULL;
	}
	g->hashes = malloc(GENRUN_BATCH * sizeof(*g->hashes));
	g->nbuilds = app->run_nbuilds;
	/* A sanitizer build's batch stops (is cancelled, or crosses
	 * max_failures) sooner in smaller requests, and its summary, saved
	 * after each, shows its memory errors as they come: a review's asan
	 * sample stops near its limit, not a batch of 8,192 later. */
	g->batch = GENRUN_BATCH;
	for (int b = 0; b < g->nbuilds; b++)
		if (app->run_builds[b]->sanitizer_preload[0] != '\0')
			g->batch = GENRUN_SANITIZER_BATCH;
	g->php = genrun_php_upto(app->run_builds, g->nbuilds, g->p->php);
	if (g->php != GEN_PHP_ALL) {
		char left[96];
		gen_left_out(g->php, left, sizeof left);
		snprintf(g->generated_for, sizeof g->generated_for, "PHP %u.%u.%u: %s left out",
		    g->php / 10000, g->php / 100 % 100, g->php % 100, left);
	}
	g->t.sigs = g->sigs = calloc(GENRUN_MAX_SIGS, sizeof(*g->sigs));
	g->t.nbuilds = app->run_nbuilds;
	g->batch_mis = calloc(GENRUN_BATCH, sizeof(*g->batch_mis));
	g->batch_digests = malloc((size_t)GENRUN_BATCH * (size_t)g->nbuilds * GEN_DIGEST_SIZE);
	g->batch_cands = malloc((size_t)GENRUN_BATCH * GENRUN_CANDS_SIZE);
	if (g->sigs == NULL || g->batch_mis == NULL || g->batch_digests == NULL || g->batch_cands == NULL)
		g->hashes = (free(g->hashes), NULL);
	for (int b = 0; b < g->nbuilds; b++) {
		g->side[b].worker = coverage_worker(app, b);
		g->side[b].cfg = app->config;
		g->side[b].php = g->php;
		g->side[b].records = malloc((size_t)GENRUN_BATCH * GEN_DIGEST_SIZE);
		g->side[b].scratch = malloc(sizeof(struct gen_case));
		if (g->side[b].records == NULL || g->side[b].scratch == NULL)
			g->hashes = (free(g->hashes), NULL);
	}
	if (g->hashes == NULL) {
		snprintf(err, errsize, "out of memory");
		genrun_release(g);
		free(g);
		return NULL;
	}
	return g;
}

/*
 * One batch (seed si, from start + off) on every build at once, each
 * candidate on a thread and the base here; its counts added to the run's,
 * its mismatches compared and stored.  GENRUN_DONE to go on, GENRUN_FAILED
 * with err (a build failed, or crossed max_failures).
 */
static enum genrun_end genrun_batch(struct genrun *g, int si, int64_t off, char *err, size_t errsize)
{
	struct build *const *builds = g->app->run_builds;
	enum genrun_end end = GENRUN_DONE;
	int side_failed = 0;

	for (int b = 0; b < g->nbuilds; b++) {
		struct genrun_side *s = &g->side[b];
		genrun_side_clear(s);
		s->seed = g->p->seeds[si];
		s->start = g->p->start + off;
		s->count = g->p->count - off < g->batch ? g->p->count - off : g->batch;
		memset(s->times, 0, sizeof s->times);
	}
	fanout_run(genrun_side_run, g->side, sizeof g->side[0], g->nbuilds);
	for (int b = 0; b < g->nbuilds; b++) {
		struct genrun_side *s = &g->side[b];
		side_failed |= s->rc < 0;
		if (s->rc < 0) {
			snprintf(err, errsize, "build %s: %s", builds[b]->name, s->err);
			end = GENRUN_FAILED;
		}
		g->t.build[b].busy_ms += s->wall_ms;
		for (int k = 0; k < GEN_CRASH_PHASES; k++)
			g->t.build[b].crash_ms[k] += s->crash_ms[k];
		g->t.build[b].crashes_timed += s->crashes_timed;
		for (int k = 0; k < GEN_PHASES; k++)
			g->t.build[b].times[k] += s->times[k];
		g->t.build[b].failures += (int64_t)s->nfailures;
		if (g->p->max_failures > 0 && g->t.build[b].failures > g->p->max_failures &&
		    end == GENRUN_DONE) {
			snprintf(err, errsize,
			    "build %s crashed or timed out on more than %" PRId64
			    " generated cases (max_failures); stopping",
			    builds[b]->name, g->p->max_failures);
			end = GENRUN_FAILED;
		}
	}
	if (side_failed)
		return end;
	/* Coverage is the base's: both made the same cases (checked).  A batch
	 * past max_failures is still compared: its mismatches are the run's. */
	for (int k = 0; k < GEN_COUNTERS; k++)
		g->t.coverage[k] += g->side[ROLE_BASE].coverage[k];
	return genrun_compare(g, si, err, errsize) < 0 ? GENRUN_FAILED : end;
}

enum genrun_end genrun_execute(struct app *app, const struct db_run *run, int (*stop)(void *, int *),
    void *arg, char *err, size_t errsize)
{
	struct genrun *g = genrun_open(app, run, err, errsize);
	enum genrun_end end = GENRUN_DONE;
	int cancelled = 0;

	if (g == NULL)
		return GENRUN_FAILED;
	g->started_ms = g->last_summary_ms = clock_ms();
	genrun_save_summary(g, 0);
	for (int si = 0; si < g->p->nseeds && end == GENRUN_DONE; si++) {
		g->t.corpus[si] = GEN_HASH_INIT;
		for (int64_t off = 0; off < g->p->count; off += g->batch) {
			if (stop(arg, &cancelled)) {
				end = cancelled ? GENRUN_CANCELLED : GENRUN_INTERRUPTED;
				break;
			}
			if (g->resumed) {
				int64_t n = g->p->count - off < g->batch ? g->p->count - off : g->batch;
				int rc = genrun_skip_stored(
				    g, si, g->p->seeds[si], g->p->start + off, n, err, errsize);
				if (rc < 0) {
					end = GENRUN_FAILED;
					break;
				}
				if (rc > 0)
					continue;
			}
			if ((end = genrun_batch(g, si, off, err, errsize)) != GENRUN_DONE)
				break;
			if (clock_ms() - g->last_summary_ms >= GENRUN_SUMMARY_MS || g->batch < GENRUN_BATCH)
				genrun_save_summary(g, 0);
		}
		if (end == GENRUN_DONE)
			g->t.seeds_done = si + 1;
	}
	genrun_save_summary(g, 1);
	genrun_release(g);
	free(g);
	return end;
}

/* ---- a run's mismatches, listed and stored in full on request ---- */

/*
 * A listed mismatch in full: its stored case, or made again from (seed,
 * index) on every build and stored now.  2 stored now, 1 stored before
 * (*case_id either way), 0 when it cannot be made (the daemon runs other
 * builds than the run did), -1.
 */
static int genrun_materialise(struct app *app, int64_t run_id, uint64_t seed, int64_t index, int64_t *case_id,
    char *err, size_t errsize)
{
	int64_t ids[MAX_BUILDS];
	struct build *builds[MAX_BUILDS];
	unsigned diff;
	int rc, n;

	pthread_mutex_lock(&genrun_materialise_lock);
	rc = db_run_generated_case(app->db, run_id, GEN_VERSION, seed, index, case_id, err, errsize);
	if (rc == 0) {
		/* Made again only on the very builds the run had, in its order,
		 * while each is active here. */
		rc = n = db_run_builds(app->db, run_id, ids, err, errsize);
		if (n > 0 && build_active_set(app->config, ids, n, builds) >= 0)
			rc = 0;
		/* The run's own "php", if it asked for cases an older PHP compiles. */
		uint32_t run_php = 0;
		struct db_run run;
		if (rc > 0 && db_run_get(app->db, run_id, &run, err, errsize) > 0) {
			run_php = run.params.php;
			db_run_release(&run);
		}
		if (rc > 0)
			rc = genrun_store_full(app, builds, n, run_id, 0, NULL, run_php, seed, index, case_id,
			         &diff, err, errsize) < 0
			    ? -1
			    : *case_id > 0 ? 2
			                   : 0;
	}
	if (rc > 0 && db_generated_link(app->db, run_id, seed, index, *case_id, err, errsize) < 0)
		rc = -1;
	pthread_mutex_unlock(&genrun_materialise_lock);
	return rc;
}

static int genrun_listed_case(void *arg, const struct db_gen_mismatch *m)
{
	*(int64_t *)arg = m->case_id;
	return 0;
}

enum genrun_stored genrun_case_store(struct app *app, int64_t run_id, uint64_t seed, int64_t index,
    int64_t *case_id, char *err, size_t errsize)
{
	int rc;

	*case_id = 0;
	rc = db_generated_mismatch(app->db, run_id, seed, index, genrun_listed_case, case_id, err, errsize);
	if (rc <= 0)
		return rc < 0 ? GENRUN_STORE_FAILED : GENRUN_NOT_LISTED;
	if (*case_id > 0)
		return GENRUN_STORED_BEFORE;
	rc = genrun_materialise(app, run_id, seed, index, case_id, err, errsize);
	return rc < 0 ? GENRUN_STORE_FAILED
	    : rc == 0 ? GENRUN_OTHER_BUILDS
	    : rc == 2 ? GENRUN_STORED_NOW
	              : GENRUN_STORED_BEFORE;
}

struct genrun_page {
	struct db_gen_mismatch *rows;
	size_t n, cap;
	const struct db_case_filter *f;
	db_case_row_fn fn;
	void *arg;
	const struct db_gen_mismatch *m; /* the mismatch being listed */
};

static int genrun_page_row(void *arg, const struct db_gen_mismatch *m)
{
	struct genrun_page *p = arg;
	if (p->n < p->cap) {
		p->rows[p->n] = *m;
		p->rows[p->n].signature = NULL; /* the statement's text is gone after this row */
		p->rows[p->n].candidates = NULL;
		p->rows[p->n].digests = NULL;
		p->n++;
	}
	return 0;
}

static int genrun_page_case(void *arg, const struct db_case_row *row)
{
	struct genrun_page *p = arg;
	struct db_case_row r = *row;
	r.cursor = p->m->seq;
	r.generated = 1;
	r.gen_seed = p->m->seed;
	r.gen_index = p->m->index;
	if (p->f->verdict != NULL && (r.verdict == NULL || strcmp(r.verdict, p->f->verdict) != 0))
		return 0;
	return p->fn(p->arg, &r);
}

/*
 * Read-only: a mismatch not stored in full is listed by what the generator
 * knows (title, seed, index) with id 0; genrun_case_store makes it a case.
 */
int genrun_cases_list(
    struct app *app, const struct db_case_filter *f, db_case_row_fn fn, void *arg, char *err, size_t errsize)
{
	struct genrun_page p = { .f = f, .fn = fn, .arg = arg };
	struct gen_case *gc = NULL;
	int rc = 0;

	/* Generated cases are never stored cases, and all of a run's are mismatches. */
	if ((f->source != 0 && (f->source & 2) == 0) ||
	    (f->verdict != NULL && strcmp(f->verdict, "same") == 0))
		return 0;
	p.cap = f->limit > 0 ? (size_t)f->limit : 1;
	if ((p.rows = calloc(p.cap, sizeof(*p.rows))) == NULL) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	if (db_generated_mismatches(
	        app->db, f->run_id, f->before, f->limit, genrun_page_row, &p, err, errsize) < 0)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < p.n; i++) {
		int found = 0;
		p.m = &p.rows[i];
		if (p.m->case_id > 0 &&
		    (found = db_run_case_row(
		         app->db, f->run_id, p.m->case_id, genrun_page_case, &p, err, errsize)) < 0)
			rc = -1;
		if (rc == 0 && found == 0) {
			char title[96];
			struct db_case_row r;
			gen_title(p.m->seed, (uint64_t)p.m->index, title, sizeof title);
			memset(&r, 0, sizeof r);
			r.title = title;
			r.verdict = "differ";
			r.differs = "";
			/* The case's flags, from the generator (made again: a case is a
			 * function of seed and index). */
			if (gc == NULL && (gc = malloc(sizeof(*gc))) == NULL) {
				snprintf(err, errsize, "out of memory");
				rc = -1;
				break;
			}
			gen_case_make(gc, p.m->seed, (uint64_t)p.m->index);
			r.flags = (long)gc->flags;
			r.run_id = f->run_id;
			r.cursor = p.m->seq;
			r.generated = 1;
			r.gen_seed = p.m->seed;
			r.gen_index = p.m->index;
			if ((f->verdict == NULL || strcmp(f->verdict, "differ") == 0) && fn(arg, &r) < 0)
				rc = -1;
		}
	}
	free(gc);
	free(p.rows);
	return rc;
}
