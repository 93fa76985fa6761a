/*
 * Background runs: a queue of runs kept in the database, executed one at a
 * time by a single runner thread, each case on both builds at once.
 *
 * A suite is a source of cases behind a small iterator (open, next, close),
 * so later suites ("generated": seeded values produced on the fly, "measure":
 * workloads under callgrind) plug into the same runner, progress, cancel and
 * shutdown handling.  "generated" (genrun.c) runs batches of cases on both
 * builds at once instead, so it takes the whole run through `execute`.
 *
 * The queue lives in the runs table (status 'queued'), not in memory: what
 * the API shows is what the runner will do, and a restart finds nothing
 * half-done (main marks leftovers 'interrupted').
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "fanout.h"
#include "gen.h"

#define RUNS_MAX_CASE_FILES 100000
#define RUNS_MAX_DIR_DEPTH 8
#define RUNS_MAX_NOTES 1024 /* bytes of skipped-file notes kept on a run */

struct runs {
	struct app *app;
	pthread_t thread;
	int thread_started;
	pthread_mutex_t lock; /* guards the fields below */
	pthread_cond_t cond;
	int stopping;
	int wake;        /* a run was queued since the runner last looked */
	int64_t current; /* the run being executed, 0 when idle */
	int cancel_current;
};

/* ---- suites ---- */

struct suite_iter {
	struct runs *runs;
	int64_t total;
	char notes[RUNS_MAX_NOTES]; /* problems worth recording on the run */
	int unloaded;               /* case files that did not load (stored, measure) */
	void *state;
};

struct suite {
	const char *name;
	int measures;              /* run cases' --MEASURE-- (callgrind), else ignore it */
	const char *const *params; /* body fields allowed besides "suite" */
	int (*open)(struct suite_iter *, const struct db_run *, char *err, size_t errsize);
	/* 1 with a case (the caller releases it), 0 at the end, -1 with err. */
	int (*next)(struct suite_iter *, struct case_spec *, char *err, size_t errsize);
	void (*close)(struct suite_iter *);
	/* Optional: check the parameters as a whole (0; -1 with err: RUNS_BAD_REQUEST;
	 * -2 with err: RUNS_NOT_SERVED). */
	int (*check)(const struct run_params *, char *err, size_t errsize);
	/* Optional: run the whole run itself instead of case by case (genrun.c
	 * runs batches); an enum runs_end, err saying why it failed. */
	int (*execute)(struct suite_iter *, const struct db_run *, char *err, size_t errsize);
	/* Optional: 0 when a stopped run of it cannot resume here (err why). */
	int (*resumable)(const struct db_run *, char *err, size_t errsize);
	int asan_sample;    /* its runs are followed by --asan-sample of their cases on the asan flavours */
	int fresh_coverage; /* a resumed run counts coverage afresh (it runs every case again) */
};

/* ---- the stored suite: every *.phpt under the cases folder ---- */

struct stored_state {
	struct path_list cases; /* relative to the cases folder, sorted (casefile_find) */
	size_t pos;
	int workloads_only; /* the measure suite: cases with --MEASURE-- */
};

/* Add "a: b" to the run's notes, "; "-separated, as long as they fit. */
static void runs_note(struct suite_iter *it, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(it->notes);

	if (len + 4 >= sizeof it->notes)
		return;
	if (len > 0) {
		memcpy(it->notes + len, "; ", 3);
		len += 2;
	}
	snprintf(it->notes + len, sizeof it->notes - len, fmt, a, b);
}

static int stored_validate(struct suite_iter *, char *err, size_t errsize);

static void stored_close(struct suite_iter *it)
{
	struct stored_state *s = it->state;

	if (s == NULL)
		return;
	path_list_release(&s->cases);
	free(s);
	it->state = NULL;
}

static int stored_open_kind(struct suite_iter *it, int workloads_only, char *err, size_t errsize)
{
	struct stored_state *s;

	if ((s = calloc(1, sizeof *s)) == NULL) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	s->workloads_only = workloads_only;
	it->state = s;
	if (casefile_find(it->runs->app->config->cases_dir, "cases folder ", RUNS_MAX_DIR_DEPTH,
	        RUNS_MAX_CASE_FILES, &s->cases, err, errsize) < 0) {
		stored_close(it);
		return -1;
	}
	/* Parse each once now, so the total counts only cases that will run. */
	if (stored_validate(it, err, errsize) < 0) {
		stored_close(it);
		return -1;
	}
	it->total = (int64_t)s->cases.n;
	return 0;
}

static int stored_open(struct suite_iter *it, const struct db_run *run, char *err, size_t errsize)
{
	(void)run;
	return stored_open_kind(it, 0, err, errsize);
}

/* The measure suite: the stored workloads, each measured under callgrind. */
static int measure_open(struct suite_iter *it, const struct db_run *run, char *err, size_t errsize)
{
	(void)run;
	return stored_open_kind(it, 1, err, errsize);
}

/* Parse a case file; 0, or -1 with why. */
static int stored_load(struct suite_iter *it, const char *rel, struct case_spec *c, char *why, size_t whysize)
{
	char path[4096];
	size_t len;
	char *text;
	int rc;

	snprintf(path, sizeof path, "%s/%s", it->runs->app->config->cases_dir, rel);
	case_init(c);
	if ((text = bytes_read_file(path, MAX_BODY_SIZE, &len, why, whysize)) == NULL)
		return -1;
	rc = casefile_parse(text, len, c, why, whysize);
	free(text);
	if (rc < 0) {
		case_release(c);
		return -1;
	}
	return 0;
}

/* Keep the files that parse; note the others on the run. */
static int stored_validate(struct suite_iter *it, char *err, size_t errsize)
{
	struct stored_state *s = it->state;
	struct case_spec c;
	char why[512];
	size_t i, kept = 0;

	(void)err;
	(void)errsize;
	for (i = 0; i < s->cases.n; i++) {
		if (stored_load(it, s->cases.path[i], &c, why, sizeof why) < 0) {
			runs_note(it, "%s: %s", s->cases.path[i], why);
			it->unloaded++;
			free(s->cases.path[i]);
			continue;
		}
		int skip = s->workloads_only && c.iterations <= 0;
		case_release(&c);
		if (skip) {
			free(s->cases.path[i]);
			continue;
		}
		s->cases.path[kept++] = s->cases.path[i];
	}
	s->cases.n = kept;
	return 0;
}

/* The next case file that parses; a file that doesn't (changed since) is noted and skipped. */
static int stored_next(struct suite_iter *it, struct case_spec *c, char *err, size_t errsize)
{
	struct stored_state *s = it->state;
	char why[512];
	const char *rel;

	while (s->pos < s->cases.n) {
		rel = s->cases.path[s->pos++];
		case_release(c);
		if (stored_load(it, rel, c, why, sizeof why) < 0) {
			runs_note(it, "%s: %s", rel, why);
			it->unloaded++;
			continue;
		}
		free(c->source);
		if ((c->source = strdup(rel)) == NULL) {
			case_release(c);
			snprintf(err, errsize, "out of memory");
			return -1;
		}
		return 1;
	}
	return 0;
}

static const char *const stored_params[] = { "coverage", NULL };
static const char *const measure_params[] = { NULL };

/* ---- the generated suite: seeded values, in batches (genrun.c) ---- */

static const char *const generated_params[] = { "seed", "seeds", "count", "start", "coverage", "max_failures",
	"php", NULL };

static int generated_open(struct suite_iter *it, const struct db_run *run, char *err, size_t errsize)
{
	char why[256];

	if (genrun_check(&run->params, why, sizeof why) < 0) {
		snprintf(err, errsize, "bad parameters for the generated suite: %s", why);
		return -1;
	}
	it->total = run->params.count * run->params.nseeds;
	return 0;
}

static void generated_close(struct suite_iter *it)
{
	(void)it;
}

static int runs_should_stop(struct runs *, int *cancelled);

static int generated_stop(void *arg, int *cancelled)
{
	return runs_should_stop(arg, cancelled);
}

static int generated_execute(struct suite_iter *, const struct db_run *, char *err, size_t errsize);

/* ---- the phpt suite: php-src's .phpt tests on every build (phptrun.c) ---- */

static const char *const phpt_params[] = { "dir", "files", "coverage", NULL };

static int phpt_open(struct suite_iter *it, const struct db_run *run, char *err, size_t errsize)
{
	return (it->state = phptrun_open(&run->params, &it->total, err, errsize)) != NULL ? 0 : -1;
}

static void phpt_close(struct suite_iter *it)
{
	phptrun_close(it->state);
}

static int phpt_execute(struct suite_iter *, const struct db_run *, char *err, size_t errsize);

static const struct suite runs_suites[] = {
	{ .name = "stored",
	    .params = stored_params,
	    .open = stored_open,
	    .next = stored_next,
	    .close = stored_close },
	{ .name = "measure",
	    .measures = 1,
	    .params = measure_params,
	    .open = measure_open,
	    .next = stored_next,
	    .close = stored_close },
	{ .name = "generated",
	    .params = generated_params,
	    .open = generated_open,
	    .close = generated_close,
	    .check = genrun_check,
	    .execute = generated_execute,
	    .resumable = genrun_resumable,
	    .asan_sample = 1 },
	{ .name = "phpt",
	    .params = phpt_params,
	    .open = phpt_open,
	    .close = phpt_close,
	    .check = phptrun_check,
	    .execute = phpt_execute,
	    .fresh_coverage = 1 },
};

static const struct suite *runs_suite(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof runs_suites / sizeof runs_suites[0]; i++)
		if (strcmp(runs_suites[i].name, name) == 0)
			return &runs_suites[i];
	return NULL;
}

const char *const *runs_suite_fields(const char *name)
{
	const struct suite *suite = runs_suite(name);
	return suite != NULL ? suite->params : NULL;
}

/* ---- running a case on both builds ---- */

struct pair_job {
	struct worker *worker;
	const struct config *config;
	const struct case_spec *c;
	struct result *r;
	int rc;
};

static void runs_pair_job(void *arg)
{
	struct pair_job *job = arg;
	const char *php = job->worker->build->php_version;

	/* A case that needs a newer PHP than the build's is not run there (--MIN_PHP--). */
	if (job->c->min_php != 0 && gen_php_id(php) != 0 && gen_php_id(php) < job->c->min_php) {
		result_unsupported_php(job->r, job->c->min_php, php);
		job->rc = 1;
		return;
	}
	job->rc = worker_run_case(job->worker, job->config, job->c, job->r);
}

/* A forgotten callgrind file: removed if it is a name directly inside our
 * callgrind folder (unlink never follows a link). */
static void runs_unlink_dump(void *arg, const char *path)
{
	const char *dir = arg;
	size_t n = strlen(dir);

	if (strncmp(path, dir, n) == 0 && path[n] == '/' && path[n + 1] != '\0' &&
	    strchr(path + n + 1, '/') == NULL && strcmp(path + n + 1, "..") != 0)
		unlink(path);
}

void runs_drop_dump(struct app *app, const char *path)
{
	char dir[PATH_MAX];

	if (path == NULL)
		return;
	snprintf(dir, sizeof dir, "%s/callgrind", app->config->state_dir);
	runs_unlink_dump(dir, path);
}

void runs_prune_dumps(struct app *app)
{
	char dir[PATH_MAX], err[512];
	int n;

	snprintf(dir, sizeof dir, "%s/callgrind", app->config->state_dir);
	do
		n = db_dumps_beyond(
		    app->db, app->config->max_callgrind_dumps, runs_unlink_dump, dir, err, sizeof err);
	while (n == 64);
	if (n < 0)
		fprintf(stderr, "phpcmp: cannot bound the callgrind files: %s\n", err);
}

/* run_workers: the run thread's pairs, on a coverage run's own workers (coverage.c). */
static int runs_pair_now(struct app *app, struct build *const builds[], int n, const struct case_spec *c,
    struct result res[MAX_BUILDS], int run_workers)
{
	struct pair_job jobs[MAX_BUILDS];
	int i, rc = 0;

	for (i = 0; i < n; i++) {
		jobs[i].worker = run_workers ? coverage_worker(app, i) : build_worker(app, builds[i]);
		jobs[i].config = app->config;
		jobs[i].c = c;
		jobs[i].r = &res[i];
		jobs[i].rc = 0;
	}
	/* Every build but the first on its own thread; the first on this one. */
	fanout_run(runs_pair_job, jobs, sizeof jobs[0], n);
	for (i = 0; i < n; i++)
		if (jobs[i].rc < 0)
			rc = -1;
	/* What compiled on one build and not on another is unsupported there. */
	if (rc == 0)
		result_mark_unsupported(res, n);
	return rc;
}

/* A measured case (on the measuring workers) waits its turn as client. */
static int runs_pair_on(struct app *app, struct build *const builds[], int n, const struct case_spec *c,
    struct result res[MAX_BUILDS], int run_workers, const char *client)
{
	if (c->iterations <= 0)
		return runs_pair_now(app, builds, n, c, res, run_workers);
	/* One measured case at a time on the measuring workers, the turns fair
	 * between clients: a client's many wait behind each other, not others. */
	fairq_enter(&app->measure_q, client != NULL ? client : "run");
	int rc = runs_pair_now(app, builds, n, c, res, run_workers);
	fairq_leave(&app->measure_q);
	return rc;
}

int runs_pair_as(struct app *app, struct build *const builds[], int n, const struct case_spec *c,
    struct result res[MAX_BUILDS], const char *client)
{
	return runs_pair_on(app, builds, n, c, res, 0, client);
}

int runs_pair(struct app *app, struct build *const builds[], int n, const struct case_spec *c,
    struct result res[MAX_BUILDS])
{
	return runs_pair_as(app, builds, n, c, res, NULL);
}

/* ---- the runner ---- */

static int runs_should_stop(struct runs *rs, int *cancelled)
{
	int stop;

	pthread_mutex_lock(&rs->lock);
	stop = rs->stopping;
	*cancelled = rs->cancel_current;
	pthread_mutex_unlock(&rs->lock);
	return stop || *cancelled;
}

static void runs_log_error(int64_t id, const char *what, const char *err)
{
	fprintf(stderr, "phpcmp: run %" PRId64 ": %s: %s\n", id, what, err);
}

enum runs_end { END_DONE, END_FAILED, END_CANCELLED, END_INTERRUPTED };

static int runs_end_of(enum genrun_end e);

static int generated_execute(struct suite_iter *it, const struct db_run *run, char *err, size_t errsize)
{
	return runs_end_of(genrun_execute(it->runs->app, run, generated_stop, it->runs, err, errsize));
}

static int phpt_execute(struct suite_iter *it, const struct db_run *run, char *err, size_t errsize)
{
	return runs_end_of(
	    phptrun_execute(it->runs->app, run, it->state, generated_stop, it->runs, err, errsize));
}

static int runs_end_of(enum genrun_end e)
{
	switch (e) {
	case GENRUN_DONE:
		return END_DONE;
	case GENRUN_CANCELLED:
		return END_CANCELLED;
	case GENRUN_INTERRUPTED:
		return END_INTERRUPTED;
	default:
		return END_FAILED;
	}
}

/* clang-format off */
static const char *const runs_end_status[] = {
	[END_DONE] = "done", [END_FAILED] = "failed",
	[END_CANCELLED] = "cancelled", [END_INTERRUPTED] = "interrupted",
};
/* clang-format on */

/* Case c of run run on every build (builds), its comparison stored: END_DONE, or END_FAILED with err. */
static enum runs_end runs_one_case(struct app *app, const struct db_run *run, const struct suite *suite,
    struct build *const builds[MAX_BUILDS], struct case_spec *c, char *err, size_t errsize)
{
	struct result res[MAX_BUILDS];
	int64_t case_id, comparison_id;
	enum runs_end end = END_DONE;
	int i;

	for (i = 0; i < MAX_BUILDS; i++)
		result_init(&res[i]);
	/* The stored suite checks what workloads answer, not what they
	 * cost: measuring is the measure suite's (callgrind is ~50x slower). */
	struct case_spec to_run = *c;
	if (!suite->measures)
		to_run.iterations = 0;
	if (runs_pair_on(app, builds, app->run_nbuilds, &to_run, res, 1, NULL) < 0) {
		for (i = 0; i < MAX_BUILDS; i++)
			if (res[i].failure != NULL)
				break;
		snprintf(err, errsize, "a worker cannot be started: %s",
		    i < MAX_BUILDS ? res[i].failure : "unknown reason");
		end = END_FAILED;
	} else if (db_comparison_store(app->db, c, run->id, builds, res,
	               verdict_compare_all(res, app->run_nbuilds, NULL) |
	                   verdict_expected_all(c->expect, c->expectf, res, app->run_nbuilds),
	               &case_id, &comparison_id, err, errsize) < 0) {
		end = END_FAILED;
	} else if (c->iterations > 0) {
		runs_prune_dumps(app);
	}
	for (i = 0; i < MAX_BUILDS; i++)
		result_release(&res[i]);
	return end;
}

/* A suite's cases one by one (suite->next) to the end, or until stopped: how it ended, err why. */
static enum runs_end runs_case_by_case(struct runs *rs, const struct db_run *run, const struct suite *suite,
    struct suite_iter *it, int resumed, char *err, size_t errsize)
{
	struct build *const *builds = rs->app->run_builds;
	enum runs_end end = END_DONE;
	struct case_spec c;
	int rc, cancelled = 0;

	for (;;) {
		if (runs_should_stop(rs, &cancelled))
			return cancelled ? END_CANCELLED : END_INTERRUPTED;
		case_init(&c);
		if ((rc = suite->next(it, &c, err, errsize)) <= 0) {
			case_release(&c);
			return rc < 0 ? END_FAILED : END_DONE;
		}
		/* Resumed: a case compared before the run stopped is not run again
		 * (its comparison is stored whole or not at all: one transaction). */
		if (resumed && (rc = db_run_has_case(rs->app->db, run->id, &c, err, errsize)) != 0) {
			case_release(&c);
			if (rc < 0)
				return END_FAILED;
			continue;
		}
		end = runs_one_case(rs->app, run, suite, builds, &c, err, errsize);
		case_release(&c);
		if (end != END_DONE)
			return end;
	}
}

/* The builds the run recorded (base first), each active in this daemon, into
 * builds[]: their count; -1 with err (storage), -2 with err naming the one
 * retired or not loaded. */
static int runs_recorded_builds(
    struct app *app, const struct db_run *run, struct build *builds[MAX_BUILDS], char *err, size_t errsize)
{
	int64_t ids[MAX_BUILDS];
	int i, n = db_run_builds(app->db, run->id, ids, err, errsize);

	if (n < 0)
		return -1;
	if ((i = build_active_set(app->config, ids, n, builds)) >= 0) {
		snprintf(err, errsize,
		    "run %" PRId64 " was made with build %s, which is not among this daemon's active "
		    "builds (retired, or not loaded)",
		    run->id, i < run->nbuilds && run->build_names[i][0] != '\0' ? run->build_names[i] : "?");
		return -2;
	}
	if (n < 2) {
		snprintf(err, errsize, "run %" PRId64 " names %d builds; a comparison needs two", run->id, n);
		return -2;
	}
	return n;
}

/*
 * After a generated run that ended: --asan-sample of its cases (its first
 * seed, from its start) on the asan flavours of its builds, queued as a
 * run of its own ("asan_sample_of": the run), so a use after free or a read
 * past a buffer that changes no output is a mismatch there (status
 * memory-error), bucketed and reduced like any other (docs/generated.md).
 */
static void runs_queue_asan_sample(struct runs *rs, const struct db_run *run)
{
	struct app *app = rs->app;
	struct build *asan[MAX_BUILDS] = { 0 };
	struct run_params sample = { .given = RUN_SEED | RUN_COUNT | RUN_START | RUN_ASAN_SAMPLE_OF,
		.nseeds = 1 };
	char err[512];
	int64_t id;
	int i;

	const struct suite *suite = runs_suite(run->suite);

	if (app->config->asan_sample <= 0 || suite == NULL || !suite->asan_sample || app->run_nbuilds < 2 ||
	    app->run_builds[ROLE_BASE]->asan_of != 0)
		return;
	for (i = 0; i < app->run_nbuilds; i++)
		if ((asan[i] = build_asan_of(app->config, app->run_builds[i])) == NULL) {
			fprintf(stderr,
			    "phpcmp: run %" PRId64
			    ": no asan sample: build %s has no asan flavour (--asan)\n",
			    run->id, app->run_builds[i]->name);
			return;
		}
	if (run->params.nseeds == 0)
		return;
	sample.seeds[0] = run->params.seeds[0];
	sample.count = run->params.count;
	if (sample.count > app->config->asan_sample)
		sample.count = app->config->asan_sample;
	sample.start = run->params.start;
	sample.asan_sample_of = run->id;
	pthread_mutex_lock(&rs->lock);
	if (db_run_create(app->db, "generated", &sample, asan, &id, err, sizeof err) < 0) {
		runs_log_error(run->id, "asan sample", err);
	} else {
		rs->wake = 1;
		pthread_cond_signal(&rs->cond);
		fprintf(stderr,
		    "phpcmp: run %" PRId64 ": its asan sample of %" PRId64 " cases is run %" PRId64 "\n",
		    run->id, sample.count, id);
	}
	pthread_mutex_unlock(&rs->lock);
}

/* Execute one queued run to its end. */
static void runs_execute(struct runs *rs, struct db_run *run)
{
	struct app *app = rs->app;
	const struct suite *suite = runs_suite(run->suite);
	struct suite_iter it;
	char err[RUNS_MAX_NOTES * 2 + 512], notes[RUNS_MAX_NOTES + 16], dberr[512];
	size_t len;
	enum runs_end end = END_DONE;
	int rc, opened = 0;
	int resumed = run->done > 0; /* POST /api/runs/{id}/resume: skip what it compared */
	int coverage = run->params.coverage;

	memset(&it, 0, sizeof it);
	it.runs = rs;
	err[0] = notes[0] = '\0';
	if (suite == NULL) {
		snprintf(err, sizeof err, "unknown suite %s", run->suite);
	} else if (suite->open(&it, run, err, sizeof err) == 0) {
		opened = 1;
	}
	/* queued -> running; 0 means it was cancelled meanwhile. */
	if (it.notes[0] != '\0')
		snprintf(notes, sizeof notes, "skipped %s", it.notes);
	rc = db_run_start(app->db, run->id, it.total, notes, dberr, sizeof dberr);
	if (rc <= 0) {
		if (rc < 0)
			runs_log_error(run->id, "start", dberr);
		goto out;
	}
	/* Its builds are the ones it recorded, each still active here. */
	if (!opened || (rc = runs_recorded_builds(app, run, app->run_builds, err, sizeof err)) < 0) {
		end = END_FAILED;
		goto finish;
	}
	app->run_nbuilds = rc;
	if (coverage &&
	    coverage_begin(app, run->id, resumed && !suite->fresh_coverage, err, sizeof err) < 0) {
		end = END_FAILED;
		goto finish;
	}
	if (suite->execute != NULL) {
		end = (enum runs_end)suite->execute(&it, run, err, sizeof err);
		goto finish;
	}
	end = runs_case_by_case(rs, run, suite, &it, resumed, err, sizeof err);
finish:
	/* The coverage workers stop (writing their counters) and gcovr reads them. */
	if (coverage) {
		char cerr[512] = "";
		if (coverage_end(app, run, cerr, sizeof cerr) < 0 || cerr[0] != '\0') {
			len = strlen(err);
			snprintf(err + len, sizeof err - len, "%s%s", len > 0 ? "; " : "", cerr);
			runs_log_error(run->id, "coverage", cerr);
		}
	}
	if (end == END_INTERRUPTED && err[0] == '\0')
		snprintf(err, sizeof err, "the daemon stopped before the run finished");
	/* A case file that does not load is no verdict: the run ran the others
	 * and fails, naming each file and line, so CI does not pass it by. */
	if (it.unloaded > 0) {
		if (end == END_DONE)
			end = END_FAILED;
		len = strlen(err);
		snprintf(err + len, sizeof err - len,
		    "%s%d case file%s did not load (the other cases ran): %s", len > 0 ? "; " : "",
		    it.unloaded, it.unloaded == 1 ? "" : "s", it.notes);
		notes[0] = '\0';
	}
	/* Notes from the suite (skipped files) are kept beside any error. */
	if (notes[0] != '\0') {
		len = strlen(err);
		snprintf(err + len, sizeof err - len, "%s%s", len > 0 ? "; " : "", notes);
	}
	if (end == END_FAILED)
		runs_log_error(run->id, "failed", err);
	if (db_run_finish(
	        app->db, run->id, runs_end_status[end], err[0] != '\0' ? err : NULL, dberr, sizeof dberr) < 0)
		runs_log_error(run->id, "finish", dberr);
	else if (end == END_DONE)
		runs_queue_asan_sample(rs, run);
out:
	if (opened)
		suite->close(&it);
	app->run_nbuilds = 0;
}

static void *runs_main(void *arg)
{
	struct runs *rs = arg;
	struct db_run run;
	char err[512];
	int rc;

	pthread_mutex_lock(&rs->lock);
	for (;;) {
		while (!rs->stopping && !rs->wake)
			pthread_cond_wait(&rs->cond, &rs->lock);
		if (rs->stopping)
			break;
		rs->wake = 0;
		pthread_mutex_unlock(&rs->lock);

		/* Drain the queue, oldest first. */
		while ((rc = db_run_next_queued(rs->app->db, &run, err, sizeof err)) == 1) {
			pthread_mutex_lock(&rs->lock);
			if (rs->stopping) {
				pthread_mutex_unlock(&rs->lock);
				db_run_release(&run);
				break;
			}
			rs->current = run.id;
			rs->cancel_current = 0;
			pthread_mutex_unlock(&rs->lock);

			runs_execute(rs, &run);

			pthread_mutex_lock(&rs->lock);
			rs->current = 0;
			pthread_mutex_unlock(&rs->lock);
			db_run_release(&run);
		}
		if (rc < 0)
			fprintf(stderr, "phpcmp: runs: %s\n", err);
		pthread_mutex_lock(&rs->lock);
	}
	pthread_mutex_unlock(&rs->lock);
	return NULL;
}

struct runs *runs_start(struct app *app, char *err, size_t errsize)
{
	struct runs *rs;

	if ((rs = calloc(1, sizeof *rs)) == NULL) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	rs->app = app;
	pthread_mutex_init(&rs->lock, NULL);
	pthread_cond_init(&rs->cond, NULL);
	if (pthread_create(&rs->thread, NULL, runs_main, rs) != 0) {
		snprintf(err, errsize, "cannot start the run thread: %s", strerror(errno));
		pthread_cond_destroy(&rs->cond);
		pthread_mutex_destroy(&rs->lock);
		free(rs);
		return NULL;
	}
	rs->thread_started = 1;
	return rs;
}

void runs_stop(struct runs *rs)
{
	if (rs == NULL)
		return;
	pthread_mutex_lock(&rs->lock);
	rs->stopping = 1;
	pthread_cond_broadcast(&rs->cond);
	pthread_mutex_unlock(&rs->lock);
	if (rs->thread_started)
		pthread_join(rs->thread, NULL);
	pthread_cond_destroy(&rs->cond);
	pthread_mutex_destroy(&rs->lock);
	free(rs);
}

/* Under rs->lock: RUNS_OK when one more run may be queued, else RUNS_TOO_MANY or RUNS_FAILED with err. */
static int runs_queue_room(struct runs *rs, char *err, size_t errsize)
{
	int max = rs->app->config->max_queued_runs, n;

	if ((n = db_runs_queued(rs->app->db, err, errsize)) < 0)
		return RUNS_FAILED;
	if (n >= max) {
		snprintf(err, errsize,
		    "%d runs are already waiting, the limit (max-queued-runs); "
		    "retry when one has started",
		    n);
		return RUNS_TOO_MANY;
	}
	return 0;
}

int runs_create(struct runs *rs, const char *suite_name, const struct run_params *params,
    const char *const names[], int nnames, int64_t *id, char *err, size_t errsize)
{
	const struct suite *suite = runs_suite(suite_name);
	struct build *builds[MAX_BUILDS];
	int n, status;

	if (suite == NULL) {
		snprintf(err, errsize, "suite: unknown suite \"%.64s\"", suite_name);
		return RUNS_BAD_REQUEST;
	}
	if (suite->check != NULL) {
		int checked = suite->check(params, err, errsize);
		if (checked == -2)
			return RUNS_NOT_SERVED; /* one error, whether the path exists or not */
		if (checked < 0)
			return RUNS_BAD_REQUEST;
	}
	if ((params->given & RUN_BASE) && nnames > 0) {
		snprintf(err, errsize, "base, builds: give one or the other");
		return RUNS_BAD_REQUEST;
	}
	n = params->given & RUN_BASE
	    ? reference_run_builds(rs->app->config, params->base, builds, err, errsize)
	    : nnames > 0 ? build_list_named(rs->app->config, names, nnames, builds, err, errsize)
	                 : build_list(rs->app->config, builds);
	if (n < 0)
		return RUNS_BAD_REQUEST;
	/* A reference answers cases, and generated ones through the daemon: no
	 * instruction counts, no php-src test runner (engine/reference.c). */
	if (builds[0]->is_reference && (suite->measures || strcmp(suite->name, "phpt") == 0)) {
		snprintf(err, errsize,
		    "base: %s is a reference runtime (released PHP under WebAssembly): it has no "
		    "instruction counts and runs no .phpt tests; the %s suite cannot take it as its base",
		    builds[0]->name, suite->name);
		return RUNS_UNPROCESSABLE;
	}
	if (coverage_check(builds, n, params, err, errsize) < 0)
		return RUNS_CONFLICT;
	/* Counted and queued under the lock, so concurrent posts cannot overshoot. */
	pthread_mutex_lock(&rs->lock);
	if ((status = runs_queue_room(rs, err, errsize)) == 0) {
		if (db_run_create(rs->app->db, suite->name, params, builds, id, err, errsize) < 0) {
			status = RUNS_FAILED;
		} else {
			rs->wake = 1;
			pthread_cond_signal(&rs->cond);
		}
	}
	pthread_mutex_unlock(&rs->lock);
	return status;
}

int runs_cancel(struct runs *rs, int64_t id, char *err, size_t errsize)
{
	struct db_run run;
	int rc;

	pthread_mutex_lock(&rs->lock);
	if (rs->current == id) {
		rs->cancel_current = 1;
		pthread_mutex_unlock(&rs->lock);
		return 0;
	}
	/* Under the lock: the runner cannot pick this run up in between. */
	rc = db_run_cancel_queued(rs->app->db, id, err, errsize);
	pthread_mutex_unlock(&rs->lock);
	if (rc == 1)
		return 0;
	if (rc < 0)
		return RUNS_FAILED;
	if ((rc = db_run_get(rs->app->db, id, &run, err, errsize)) < 0)
		return RUNS_FAILED;
	if (rc == 0) {
		snprintf(err, errsize, "no run %" PRId64, id);
		return RUNS_NOT_FOUND;
	}
	snprintf(err, errsize, "run %" PRId64 " is already %s", id, run.status);
	db_run_release(&run);
	return RUNS_CONFLICT;
}

int runs_resume(struct runs *rs, int64_t id, char *err, size_t errsize)
{
	struct build *builds[MAX_BUILDS];
	struct db_run run;
	int rc, status;

	if ((rc = db_run_get(rs->app->db, id, &run, err, errsize)) < 0)
		return RUNS_FAILED;
	if (rc == 0) {
		snprintf(err, errsize, "no run %" PRId64, id);
		return RUNS_NOT_FOUND;
	}
	const struct suite *suite = runs_suite(run.suite);
	if (suite != NULL && suite->resumable != NULL && !suite->resumable(&run, err, errsize)) {
		db_run_release(&run);
		return RUNS_CONFLICT;
	}
	/* It resumes on the builds it was made with, when they are all here. */
	rc = runs_recorded_builds(rs->app, &run, builds, err, errsize);
	db_run_release(&run);
	if (rc < 0)
		return rc == -2 ? RUNS_CONFLICT : RUNS_FAILED;
	pthread_mutex_lock(&rs->lock);
	if ((status = runs_queue_room(rs, err, errsize)) == 0) {
		if ((rc = db_run_resume(rs->app->db, id, builds, err, errsize)) < 0) {
			status = RUNS_FAILED;
		} else if (rc == 1) {
			rs->wake = 1;
			pthread_cond_signal(&rs->cond);
		} else {
			status = RUNS_CONFLICT;
			snprintf(err, errsize,
			    "run %" PRId64 " is %s: only an interrupted, failed or cancelled run can be "
			    "resumed",
			    id, run.status);
		}
	}
	pthread_mutex_unlock(&rs->lock);
	return status;
}
