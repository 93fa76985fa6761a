/*
 * Released PHP's answers to a stored case (issue 49): the case run on every
 * reference runtime at once (php-7.4 ... php-8.5, builds of kind
 * "reference", engine/reference.c), each answer kept in reference_results
 * by case, reference and its exact PHP version, and answered from there
 * the next time; grouped and summed up in a line by model/released.c
 * against the case's latest comparison.  GET /api/cases/{id}/references,
 * POST /api/cases?references=1 and every root cause's "released" line use
 * it (http/api_references.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout.h"
#include "gen.h"
#include "services.h"

/* The active references, oldest first by name (php-7.4 < php-8.0): their count. */
static int references_list(struct config *cfg, struct build *out[RELEASED_MAX])
{
	int n = 0;

	pthread_mutex_lock(&cfg->builds_lock);
	for (int i = 0; i < cfg->nbuilds && n < RELEASED_MAX; i++)
		if (cfg->builds[i].is_reference &&
		    !__atomic_load_n(&cfg->builds[i].retired, __ATOMIC_ACQUIRE))
			out[n++] = &cfg->builds[i];
	pthread_mutex_unlock(&cfg->builds_lock);
	return n;
}

/*
 * Reference requests running cases at once are bounded like submitted
 * cases (--max-case-requests): each holds a thread per reference.
 */
static int references_running;

struct ref_job {
	struct app *app;
	struct build *b;
	const struct case_spec *c;
	struct result *r;
	int rc;
};

static void references_job(void *arg)
{
	struct ref_job *job = arg;
	struct build_info info;

	worker_build_info(job->b, &info);
	/* A case that needs a newer PHP than the release's is not run there (--MIN_PHP--). */
	if (job->c->min_php != 0 && gen_php_id(info.php_version) != 0 &&
	    gen_php_id(info.php_version) < job->c->min_php) {
		result_unsupported_php(job->r, job->c->min_php, info.php_version);
		job->rc = 0;
		return;
	}
	job->rc = worker_run_case(build_worker(job->app, job->b), job->app->config, job->c, job->r);
}

/* A stored case compiled on some build: where a release does not compile it, it is unsupported there. */
static void references_unsupported(struct result *r)
{
	const size_t plen = strlen(RESULT_UNSUPPORTED);
	size_t len;
	char *why, *failure;

	if (r->unsupported != NULL || r->compile_error == NULL)
		return;
	len = strlen(r->compile_error) + 64;
	why = malloc(len);
	failure = malloc(len + plen);
	if (why == NULL || failure == NULL) {
		free(why);
		free(failure);
		return;
	}
	snprintf(why, len, "does not compile: %s", r->compile_error);
	snprintf(failure, len + plen, "%s%s", RESULT_UNSUPPORTED, why);
	free(r->failure);
	r->failure = failure;
	r->unsupported = why;
}

/* Run c on the references at ask[0..n) (their answers in out->a[idx[k]]) and store each answer. */
static int references_run(struct app *app, struct ref_answers *out, const struct case_spec *c,
    struct build *const refs[], const int idx[], int n, struct svc_error *e)
{
	struct ref_job jobs[RELEASED_MAX];
	struct case_spec run = *c;
	char err[512];
	int max = app->config->max_case_requests;

	/* The answer, never a measurement: a reference counts no instructions. */
	run.iterations = 0;
	run.measure_budget_ms = 0;
	if (__atomic_add_fetch(&references_running, 1, __ATOMIC_SEQ_CST) > max) {
		__atomic_sub_fetch(&references_running, 1, __ATOMIC_SEQ_CST);
		return svc_fail(e, SVC_BUSY, "busy",
		    "%d cases are already being run on the references for other requests, the limit "
		    "(max-case-requests); retry after 1 s",
		    max);
	}
	for (int k = 0; k < n; k++) {
		struct ref_answer *a = &out->a[idx[k]];
		result_release(&a->r);
		result_init(&a->r);
		jobs[k] = (struct ref_job){ app, refs[idx[k]], &run, &a->r, 0 };
	}
	fanout_run(references_job, jobs, sizeof jobs[0], n);
	__atomic_sub_fetch(&references_running, 1, __ATOMIC_SEQ_CST);
	for (int k = 0; k < n; k++) {
		struct ref_answer *a = &out->a[idx[k]];
		struct build_info info;

		worker_build_info(refs[idx[k]], &info);
		snprintf(a->php_version, sizeof a->php_version, "%s", info.php_version);
		snprintf(a->runtime, sizeof a->runtime, "%s", refs[idx[k]]->reference);
		if (jobs[k].rc < 0) {
			/* Its worker did not start: listed with why, asked again next time. */
			snprintf(a->error, sizeof a->error, "%s",
			    a->r.failure != NULL ? a->r.failure : "its worker cannot be started");
			continue;
		}
		references_unsupported(&a->r);
		a->answered = 1;
		if (a->php_version[0] != '\0' &&
		    db_reference_put(app->db, out->case_id, a->name, a->php_version, a->runtime, &a->r, err,
		        sizeof err) < 0)
			return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	}
	return 0;
}

int references_of_case(
    struct app *app, int64_t case_id, int compute, struct ref_answers *out, struct svc_error *e)
{
	struct build *refs[RELEASED_MAX];
	struct db_case dc;
	int ask[RELEASED_MAX], nask = 0, rc;
	char err[512];

	memset(out, 0, sizeof *out);
	out->case_id = case_id;
	for (int i = 0; i < RELEASED_MAX; i++)
		result_init(&out->a[i].r);
	for (int i = 0; i < MAX_BUILDS; i++)
		result_init(&out->cmp.results[i]);
	rc = db_case_get(app->db, case_id, &dc, err, sizeof err);
	if (rc <= 0) {
		db_case_release(&dc);
		return rc < 0 ? svc_fail(e, SVC_STORAGE, NULL, "%s", err)
		              : svc_fail(e, SVC_NOT_FOUND, NULL, "no case %" PRId64, case_id);
	}
	if ((rc = db_comparison_get(app->db, case_id, 0, &out->cmp, err, sizeof err)) < 0) {
		db_case_release(&dc);
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	}
	out->have_cmp = rc == 1;
	out->n = references_list(app->config, refs);
	for (int i = 0; i < out->n; i++) {
		struct ref_answer *a = &out->a[i];
		struct build_info info;
		char version[64] = "";

		worker_build_info(refs[i], &info);
		snprintf(a->name, sizeof a->name, "%s", refs[i]->name);
		snprintf(a->php_version, sizeof a->php_version, "%s", info.php_version);
		snprintf(a->runtime, sizeof a->runtime, "%s", refs[i]->reference);
		/* Its version known (its worker said it): that version's answer; else the newest kept. */
		rc = db_reference_get(app->db, case_id, a->name, a->php_version, &a->r, version,
		    sizeof version, err, sizeof err);
		if (rc < 0) {
			db_case_release(&dc);
			return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
		}
		if (rc == 1) {
			a->answered = a->from_store = 1;
			snprintf(a->php_version, sizeof a->php_version, "%s", version);
		} else {
			ask[nask++] = i;
		}
	}
	out->pending = nask;
	if (compute && nask > 0) {
		rc = references_run(app, out, &dc.spec, refs, ask, nask, e);
		out->pending = 0;
		if (rc < 0) {
			db_case_release(&dc);
			return -1;
		}
	}
	db_case_release(&dc);
	references_group(out);
	return 0;
}

void references_group(struct ref_answers *out)
{
	const char *names[MAX_BUILDS] = { NULL };
	struct released *rs = &out->grouped;

	memset(rs, 0, sizeof *rs);
	for (int i = 0; i < out->n; i++) {
		rs->refs[rs->n].name = out->a[i].name;
		rs->refs[rs->n].php_version = out->a[i].php_version;
		rs->refs[rs->n].r = out->a[i].answered ? &out->a[i].r : NULL;
		rs->refs[rs->n].index = i;
		rs->n++;
	}
	for (int i = 0; out->have_cmp && i < out->cmp.nbuilds && i < MAX_BUILDS; i++)
		names[i] = out->cmp.build_names[i];
	/* A case that did not compile has no build's answer to set beside them. */
	released_compute(
	    rs, out->cmp.results, out->have_cmp && out->cmp.error == NULL ? out->cmp.nbuilds : 0, names);
}

void references_release(struct ref_answers *out)
{
	for (int i = 0; i < RELEASED_MAX; i++)
		result_release(&out->a[i].r);
	db_comparison_release(&out->cmp);
	memset(out, 0, sizeof *out);
}
