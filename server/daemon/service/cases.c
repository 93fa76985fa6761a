/*
 * One case run on every build and stored: POST /api/cases's use case
 * (admission, the fan-out to the workers, the verdict, storage), a
 * generated case as source (POST /api/generated) and a generated run's
 * listed mismatch stored in full (POST /api/runs/{id}/cases), which run
 * their case on the workers under the same bound.  Typed data in and out,
 * and svc_error (services.h); api_cases.c parses the request and renders
 * the answer.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "services.h"

/*
 * Submitted cases in progress at once are bounded (--max-case-requests):
 * each holds a thread waiting for the workers, which run one case at a time.
 * 0 with a slot taken (cases_slot_give() it back), or -1 with SVC_BUSY.
 */
static int cases_slot_take(struct app *app, struct svc_error *e)
{
	int max = app->config->max_case_requests;

	if (__atomic_add_fetch(&app->case_requests, 1, __ATOMIC_SEQ_CST) <= max)
		return 0;
	__atomic_sub_fetch(&app->case_requests, 1, __ATOMIC_SEQ_CST);
	return svc_fail(e, SVC_BUSY, "busy",
	    "%d cases are already being run for other requests, the limit "
	    "(max-case-requests); retry after 1 s",
	    max);
}

static void cases_slot_give(struct app *app)
{
	__atomic_sub_fetch(&app->case_requests, 1, __ATOMIC_SEQ_CST);
}

/*
 * Cases whose results are held at once, from the workers' answer until the
 * reply is built: the workers run one case at a time each, so a few in the
 * pipeline keep them busy, and the daemon's memory is bounded by this many
 * pairs of results (each up to 16 MiB of output, 1 MiB printed, and their
 * copy read back) however many requests wait for a slot.  The caller gives
 * it back (cases_done) once its reply is built.
 */
#define CASES_PIPELINE_MAX 4
static pthread_mutex_t cases_pipeline_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cases_pipeline_free = PTHREAD_COND_INITIALIZER;
static int cases_pipeline_used;

static void cases_pipeline_take(void)
{
	pthread_mutex_lock(&cases_pipeline_lock);
	while (cases_pipeline_used >= CASES_PIPELINE_MAX)
		pthread_cond_wait(&cases_pipeline_free, &cases_pipeline_lock);
	cases_pipeline_used++;
	pthread_mutex_unlock(&cases_pipeline_lock);
}

static void cases_pipeline_give(void)
{
	pthread_mutex_lock(&cases_pipeline_lock);
	cases_pipeline_used--;
	pthread_cond_signal(&cases_pipeline_free);
	pthread_mutex_unlock(&cases_pipeline_lock);
}

void cases_done(struct app *app, struct case_outcome *out)
{
	free(out->case_error);
	free(out->phpt);
	if (out->piped)
		cases_pipeline_give();
	if (out->slot)
		cases_slot_give(app);
	memset(out, 0, sizeof *out);
}

/* SVC_UNPROCESSABLE case_error: the case's code did not compile on one of the n builds, as stored. */
static int cases_error(struct build *const builds[MAX_BUILDS], int n, const struct result *res,
    struct case_outcome *out, struct svc_error *e)
{
	const char *names[MAX_BUILDS] = { NULL };

	for (int i = 0; i < n && i < MAX_BUILDS && builds[i] != NULL; i++)
		names[i] = builds[i]->name;
	if ((out->case_error = column_case_error(res, n, names)) == NULL)
		return svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
	return svc_fail(e, SVC_UNPROCESSABLE, "case_error", "the case does not compile");
}

int cases_submit(struct app *app, struct case_spec *c, const char *const names[], int nnames,
    const char *client, struct case_outcome *out, struct svc_error *e)
{
	struct build *builds[MAX_BUILDS];
	struct result res[MAX_BUILDS];
	char err[512];
	int i, n, rc = -1;

	memset(out, 0, sizeof *out);
	for (i = 0; i < MAX_BUILDS; i++)
		result_init(&res[i]);
	n = nnames > 0 ? build_list_named(app->config, names, nnames, builds, err, sizeof err)
	               : build_list(app->config, builds);
	if (n < 0)
		return svc_fail(e, SVC_BAD_REQUEST, NULL, "%s", err);
	if (cases_slot_take(app, e) < 0)
		return -1;
	out->slot = 1;
	/* A submitted case's measured calls are bounded by their cost, not only their count. */
	if (c->iterations > 0)
		c->measure_budget_ms = app->config->measure_budget_ms;
	/* Measured cases run on their own workers, for seconds: not gated. */
	if (c->iterations <= 0) {
		cases_pipeline_take();
		out->piped = 1;
	}
	if (runs_pair_as(app, builds, n, c, res, client) < 0) {
		for (i = 0; i < MAX_BUILDS; i++)
			if (res[i].status == STATUS_ERROR && res[i].failure != NULL)
				break;
		svc_fail(e, SVC_UNAVAILABLE, "worker_unavailable", "a worker cannot be started: %s",
		    i < MAX_BUILDS ? res[i].failure : "unknown reason");
		goto out;
	}
	/* The builds against the base, and each against the case's --EXPECT--. */
	out->diff = verdict_compare_all(res, n, NULL) | verdict_expected_all(c->expect, c->expectf, res, n);
	out->broken = out->diff == 0 && res[ROLE_BASE].status != STATUS_OK;
	/* A case whose code does not compile is the sender's error: nothing stored. */
	if (result_case_error(res, n) >= 0) {
		cases_error(builds, n, res, out, e);
		goto out;
	}
	if (db_comparison_store(app->db, c, 0, builds, res, out->diff, &out->case_id, &out->comparison_id,
	        err, sizeof err) < 0) {
		for (i = 0; i < MAX_BUILDS; i++)
			runs_drop_dump(app, res[i].dump_file);
		svc_fail(e, SVC_STORAGE, NULL, "%s", err);
		goto out;
	}
	if (c->iterations > 0)
		runs_prune_dumps(app);
	out->stored_now = 1;
	rc = 0;
out:
	for (i = 0; i < MAX_BUILDS; i++)
		result_release(&res[i]);
	return rc;
}

/* The comparison a run's case row names (db_run_case_row's callback). */
static int cases_comparison_of(void *arg, const struct db_case_row *row)
{
	*(int64_t *)arg = row->comparison_id;
	return 0;
}

int cases_store_listed(struct app *app, int64_t run_id, uint64_t seed, uint64_t index,
    struct case_outcome *out, struct svc_error *e)
{
	char err[512];
	int rc;

	memset(out, 0, sizeof *out);
	/* Making it runs a case on the workers like a submitted case: the same bound. */
	if (cases_slot_take(app, e) < 0)
		return -1;
	rc = genrun_case_store(app, run_id, seed, (int64_t)index, &out->case_id, err, sizeof err);
	cases_slot_give(app);
	switch (rc) {
	case GENRUN_NOT_LISTED:
		return svc_fail(e, SVC_NOT_FOUND, NULL,
		    "run %" PRId64 " lists no mismatch at seed %" PRIu64 ", index %" PRIu64, run_id, seed,
		    index);
	case GENRUN_OTHER_BUILDS:
		return svc_fail(e, SVC_CONFLICT, "other_builds",
		    "run %" PRId64 " ran on builds this daemon does not have active; POST /api/generated "
		    "{\"seed\",\"index\"} runs the case on these",
		    run_id);
	case GENRUN_STORE_FAILED:
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	default:
		break;
	}
	out->stored_now = rc == GENRUN_STORED_NOW;
	if (db_run_case_row(
	        app->db, run_id, out->case_id, cases_comparison_of, &out->comparison_id, err, sizeof err) < 0)
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	return 0;
}

int cases_generated(
    struct app *app, uint64_t seed, uint64_t index, struct case_outcome *out, struct svc_error *e)
{
	struct build *builds[MAX_BUILDS];
	struct result res[MAX_BUILDS], gen[MAX_BUILDS];
	struct case_spec c;
	char err[512];
	int i, n, rc = -1;

	memset(out, 0, sizeof *out);
	case_init(&c);
	for (i = 0; i < MAX_BUILDS; i++) {
		result_init(&res[i]);
		result_init(&gen[i]);
	}
	n = build_list(app->config, builds);
	uint32_t php = genrun_php(builds, n);
	if (genrun_case_spec(seed, index, php, &c) < 0) {
		svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
		goto out;
	}
	/* It runs a case on the workers like a submitted case: the same bound. */
	if (cases_slot_take(app, e) < 0)
		goto out;
	out->slot = 1;
	if (runs_pair(app, builds, n, &c, res) < 0) {
		svc_fail(e, SVC_UNAVAILABLE, "worker_unavailable", "a worker cannot be started");
		goto out;
	}
	for (i = 0; i < n; i++) {
		result_release(&gen[i]);
		if (genrun_detail(app, builds[i], seed, index, php, &gen[i]) < 0) {
			svc_fail(e, SVC_UNAVAILABLE, "worker_unavailable", "a worker cannot be started");
			goto out;
		}
	}
	out->diff = verdict_compare_all(res, n, NULL);
	if (db_comparison_store(app->db, &c, 0, builds, res, out->diff, &out->case_id, &out->comparison_id,
	        err, sizeof err) < 0 ||
	    db_generated_case(
	        app->db, out->case_id, genrun_version(), seed, (int64_t)index, err, sizeof err) < 0) {
		svc_fail(e, SVC_STORAGE, NULL, "%s", err);
		goto out;
	}
	out->phpt = casefile_format(&c);
	out->nbuilds = n;
	for (i = 0; i < n; i++)
		out->reproduces[i] = verdict_compare(&res[i], &gen[i]) == 0;
	out->stored_now = 1;
	rc = 0;
out:
	for (i = 0; i < MAX_BUILDS; i++) {
		result_release(&res[i]);
		result_release(&gen[i]);
	}
	case_release(&c);
	return rc;
}
