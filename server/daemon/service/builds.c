/*
 * Builds that come and go while the daemon runs (docs/builds.md, "On a
 * running daemon"): POST /api/builds registers a build whose prefix lies
 * in the builds folder (--builds-dir), DELETE /api/builds/NAME retires one.
 *
 * A build takes the next slot of config->builds and keeps it: a retired
 * build stays there (its history, runs and triage name it), so what a run
 * or a case in progress holds of it stays valid; its workers are stopped
 * and do not start again -- unless the same library (prefix and sha256) is
 * registered again, under any name: its slot then takes it back, so a
 * register/retire loop uses no slot up (builds_revive).  The daemon compiles its own worker core against
 * the build's headers (as at startup), never PHP: the build is made on the
 * command line by whoever put it in the builds folder.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "fanout.h"
#include "services.h"

/* One registration at a time: each takes the next slot, and compiling a
 * core for the same library twice would race on its file. */
static pthread_mutex_t builds_add_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The prefix as given (relative to the builds folder, or absolute and in
 * it), checked to name something in that folder, resolved into abs; 0, or
 * -1 with e.  Checked by its name, not where it leads: an entry of the
 * folder may be a link to a build elsewhere (scripts/build-php.sh links
 * its cached trees there), put by whoever may write the folder, never by
 * a request.
 */
static int builds_prefix(
    const struct config *cfg, const char *prefix, char abs[PATH_MAX], struct svc_error *e)
{
	char dir[PATH_MAX], joined[PATH_MAX + 8];
	const char *p, *rel = prefix;
	size_t n;

	if (realpath(cfg->builds_dir, dir) == NULL)
		return svc_fail(e, SVC_CONFLICT, "no_builds_dir", "the builds folder %s: %s (--builds-dir)",
		    cfg->builds_dir, strerror(errno));
	n = strlen(dir);
	if (prefix[0] == '/') {
		if (strncmp(prefix, dir, n) != 0 || prefix[n] != '/')
			return svc_fail(e, SVC_BAD_REQUEST, NULL,
			    "prefix: a build's prefix must lie in the daemon's builds folder (%s); give it "
			    "relative to that folder",
			    dir);
		rel = prefix + n + 1;
	}
	/* No "..": whether a folder outside exists is not told either. */
	for (p = rel; *p != '\0'; p += strcspn(p, "/"), p += *p == '/')
		if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
			return svc_fail(e, SVC_BAD_REQUEST, NULL, "prefix: no \"..\" in a build's prefix");
	snprintf(joined, sizeof joined, "%s/%s", dir, rel);
	if (rel[0] == '\0' || realpath(joined, abs) == NULL)
		return svc_fail(e, SVC_NOT_FOUND, NULL,
		    "prefix: nothing named %.200s in the builds folder (%s)", rel, dir);
	return 0;
}

/* Fill the next slot (not yet counted: no reader sees it) and start its worker. */
static int builds_fill(struct app *app, int slot, const char *name, const char *prefix, struct svc_error *e)
{
	struct config *cfg = app->config;
	struct build *b = &cfg->builds[slot], *compile[1];
	char err[1024];
	int failed, i;

	if (build_discover(b, name, prefix, err, sizeof err) < 0)
		return svc_fail(e, SVC_UNPROCESSABLE, "not_a_build", "%s", err);
	/* The same library under another name: the core compiled for it serves. */
	for (i = 0; i < slot; i++)
		if (strcmp(cfg->builds[i].sha256, b->sha256) == 0 &&
		    strcmp(cfg->builds[i].prefix, b->prefix) == 0)
			break;
	if (i < slot) {
		memcpy(b->core_path, cfg->builds[i].core_path, sizeof b->core_path);
	} else {
		compile[0] = b;
		if (build_compile_cores(compile, 1, cfg, &failed, err, sizeof err) < 0)
			return svc_fail(
			    e, SVC_UNPROCESSABLE, "not_a_build", "build %s: worker core: %s", name, err);
	}
	if (worker_init(&app->workers[slot], b) < 0)
		return svc_fail(e, SVC_INTERNAL, NULL, "build %s: worker: cannot initialise", name);
	if (coverage_idle(&app->workers[slot], cfg, err, sizeof err) < 0 ||
	    (worker_prestart(&app->workers[slot], cfg) < 0 &&
	        snprintf(err, sizeof err, "%s", app->workers[slot].last_failure) >= 0)) {
		worker_release(&app->workers[slot]);
		return svc_fail(
		    e, SVC_UNPROCESSABLE, "not_a_build", "build %s: its worker cannot start: %s", name, err);
	}
	if (db_build_record(app->db, b, err, sizeof err) < 0) {
		worker_release(&app->workers[slot]);
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	}
	return 0;
}

/* A retired build's new name, and its row in the builds table (a new
 * db id when the name is new). */
static int db_build_record_named(
    struct app *app, struct build *b, const char *name, char *err, size_t errsize)
{
	pthread_mutex_lock(&app->config->builds_lock);
	snprintf(b->name, sizeof b->name, "%s", name);
	pthread_mutex_unlock(&app->config->builds_lock);
	return db_build_record(app->db, b, err, errsize);
}

/*
 * The library at prefix (abs) is a retired build's (the same prefix and
 * sha256, not an asan flavour): that slot takes it back under name, its
 * worker started again.  1 revived (*out), 0 no such slot, -1 with e.
 * What a case or run still holding the slot reads is the same library.
 */
static int builds_revive(
    struct app *app, const char *name, const char *abs, struct build **out, struct svc_error *e)
{
	struct config *cfg = app->config;
	struct build *probe = calloc(1, sizeof *probe), *b = NULL;
	char err[1024];
	int slot;

	if (probe == NULL)
		return svc_fail(e, SVC_INTERNAL, NULL, "out of memory");
	if (build_discover(probe, name, abs, err, sizeof err) < 0) {
		free(probe);
		return svc_fail(e, SVC_UNPROCESSABLE, "not_a_build", "%s", err);
	}
	for (slot = 0; slot < cfg->nbuilds && b == NULL; slot++)
		if (__atomic_load_n(&cfg->builds[slot].retired, __ATOMIC_ACQUIRE) &&
		    cfg->builds[slot].asan_of == 0 && strcmp(cfg->builds[slot].prefix, probe->prefix) == 0 &&
		    strcmp(cfg->builds[slot].sha256, probe->sha256) == 0)
			b = &cfg->builds[slot];
	free(probe);
	if (b == NULL)
		return 0;
	slot = build_slot(cfg, b);
	if (db_build_record_named(app, b, name, err, sizeof err) < 0)
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	/* Active again first: a retired build's worker does not start. */
	pthread_mutex_lock(&cfg->builds_lock);
	__atomic_store_n(&b->retired, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cfg->builds_lock);
	if (worker_prestart(&app->workers[slot], cfg) < 0) {
		pthread_mutex_lock(&cfg->builds_lock);
		__atomic_store_n(&b->retired, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&cfg->builds_lock);
		worker_stop(&app->workers[slot]);
		return svc_fail(e, SVC_UNPROCESSABLE, "not_a_build", "build %s: its worker cannot start: %s",
		    name, app->workers[slot].last_failure);
	}
	fprintf(stderr, "phpcmp: build %s added again: %s (sha256 %.12s)\n", name, b->lib_path, b->sha256);
	*out = b;
	return 1;
}

/* The names the daemon gives flavours (config.c: "NAME.asan"). */
static int builds_flavour_name(const char *name)
{
	size_t n = strlen(name);
	return n >= 5 && strcmp(name + n - 5, ".asan") == 0;
}

int builds_add(struct app *app, const char *name, const char *prefix, struct build **out, struct svc_error *e)
{
	struct config *cfg = app->config;
	struct build *active[MAX_BUILDS];
	char abs[PATH_MAX];
	int n, slot, rc = -1;

	if (!build_name_ok(name, strlen(name)))
		return svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "name: 1 to 63 of A-Z a-z 0-9 . _ - (and @ after the first, as in pr@2)");
	if (builds_prefix(cfg, prefix, abs, e) < 0)
		return -1;
	pthread_mutex_lock(&builds_add_lock);
	n = build_list(cfg, active);
	/* Flavours count: a run naming head.asan must get --asan's build. */
	if (build_name_active(cfg, name)) {
		svc_fail(e, SVC_CONFLICT, "build_exists",
		    "a build named %s is active; retire it first (DELETE /api/builds/%s)", name, name);
		goto out;
	}
	if (builds_flavour_name(name)) {
		svc_fail(e, SVC_BAD_REQUEST, NULL,
		    "name: a name ending in \".asan\" is an asan flavour's (--asan NAME=PREFIX); choose "
		    "another");
		goto out;
	}
	if (n >= MAX_BUILDS) {
		svc_fail(e, SVC_CONFLICT, "too_many_builds",
		    "%d builds are active, the most a daemon compares; retire one first", n);
		goto out;
	}
	int revived = builds_revive(app, name, abs, out, e);
	if (revived != 0) {
		rc = revived > 0 ? 0 : -1;
		goto out;
	}
	slot = cfg->nbuilds; /* only registrations change it, one at a time */
	if (slot >= MAX_BUILD_SLOTS) {
		svc_fail(e, SVC_CONFLICT, "too_many_builds",
		    "this daemon has registered %d builds, the most in one life; restart it to register more",
		    slot);
		goto out;
	}
	if (builds_fill(app, slot, name, abs, e) < 0) {
		memset(&cfg->builds[slot], 0, sizeof cfg->builds[slot]);
		goto out;
	}
	/* Counted last, the slot whole: from here on runs and cases see it. */
	pthread_mutex_lock(&cfg->builds_lock);
	cfg->nbuilds = slot + 1;
	pthread_mutex_unlock(&cfg->builds_lock);
	fprintf(stderr, "phpcmp: build %s added: %s (sha256 %.12s)\n", name, cfg->builds[slot].lib_path,
	    cfg->builds[slot].sha256);
	*out = &cfg->builds[slot];
	rc = 0;
out:
	pthread_mutex_unlock(&builds_add_lock);
	return rc;
}

int builds_retire(struct app *app, const char *name, struct svc_error *e)
{
	struct config *cfg = app->config;
	struct build *active[MAX_BUILDS], *b = NULL, *asan;
	char err[512];
	int i, n, in_use;

	pthread_mutex_lock(&builds_add_lock);
	n = build_list(cfg, active);
	for (i = 0; i < n && b == NULL; i++)
		if (strcmp(active[i]->name, name) == 0)
			b = active[i];
	if (b == NULL) {
		pthread_mutex_unlock(&builds_add_lock);
		return svc_fail(e, SVC_NOT_FOUND, NULL, "no active build is named %.64s", name);
	}
	if (b == active[ROLE_BASE] || n <= 2) {
		pthread_mutex_unlock(&builds_add_lock);
		return svc_fail(e, SVC_CONFLICT, "build_needed",
		    b == active[ROLE_BASE]
		        ? "%s is the daemon's base: every run without \"builds\" compares with it"
		        : "%s is one of the last two active builds: a comparison needs two",
		    name);
	}
	/* A run waiting for it or running on it would lose its build midway. */
	if ((in_use = db_build_runs_pending(app->db, b->db_id, err, sizeof err)) != 0) {
		pthread_mutex_unlock(&builds_add_lock);
		if (in_use < 0)
			return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
		return svc_fail(e, SVC_CONFLICT, "build_in_use",
		    "%d queued or running run(s) compare %s: cancel them or let them end first", in_use,
		    name);
	}
	asan = build_asan_of(cfg, b);
	pthread_mutex_lock(&cfg->builds_lock);
	__atomic_store_n(&b->retired, 1, __ATOMIC_RELEASE);
	if (asan != NULL) /* its asan flavour (--asan) goes with it */
		__atomic_store_n(&asan->retired, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cfg->builds_lock);
	pthread_mutex_unlock(&builds_add_lock);
	/* Its shared workers now (a case in progress ends first); the
	 * reducer's own when it next looks (reduce_retired). */
	worker_stop(build_worker(app, b));
	if (asan != NULL)
		worker_stop(build_worker(app, asan));
	reduce_wake(app->reducer);
	fprintf(stderr, "phpcmp: build %s retired\n", name);
	return 0;
}

/* ---- reference runtimes (engine/reference.c, issue 49) ---- */

struct builds_ref_job {
	struct app *app;
	struct worker *w;
	double ms;
};

static struct builds_ref_starts {
	pthread_t thread;
	int started;
	struct builds_ref_job jobs[REFERENCE_MAX];
	int njobs;
} builds_refs;

static void builds_ref_start(void *arg)
{
	struct builds_ref_job *j = arg;
	double t0 = clock_ms();
	char err[512];

	if (__atomic_load_n(&j->app->stopping, __ATOMIC_SEQ_CST))
		return;
	if (worker_prestart(j->w, j->app->config) < 0) {
		fprintf(
		    stderr, "phpcmp: reference %s cannot start: %s\n", j->w->build->name, j->w->last_failure);
		return;
	}
	j->ms = clock_ms() - t0;
	fprintf(stderr, "phpcmp: reference %s: PHP %s (%s) in %.0f ms\n", j->w->build->name,
	    j->w->build->php_version, j->w->build->reference, j->ms);
	/* Its exact PHP version, from its hello, into its row. */
	if (db_build_record(j->app->db, j->w->build, err, sizeof err) < 0)
		fprintf(stderr, "phpcmp: reference %s: %s\n", j->w->build->name, err);
}

/* Two at a time: each loads its runtime on about one CPU. */
static void *builds_ref_thread(void *arg)
{
	struct builds_ref_starts *st = arg;
	for (int i = 0; i < st->njobs; i += 2)
		fanout_run(builds_ref_start, &st->jobs[i], sizeof st->jobs[0], st->njobs - i < 2 ? 1 : 2);
	return NULL;
}

int builds_references(struct app *app, char *err, size_t errsize)
{
	struct config *cfg = app->config;
	char vers[REFERENCE_MAX][8], why[1024];
	int n = reference_installed(cfg, vers);

	worker_reference_call = reference_call;

	for (int i = 0; i < n && cfg->nbuilds < MAX_BUILD_SLOTS; i++) {
		int slot = cfg->nbuilds;
		struct build *b = &cfg->builds[slot];
		struct worker *w = &app->workers[slot];
		int found = reference_discover(b, cfg, vers[i], why, sizeof why);
		if (build_name_active(cfg, b->name)) {
			fprintf(stderr, "phpcmp: reference %s left out: a build has its name\n", b->name);
			memset(b, 0, sizeof *b);
			continue;
		}
		if (worker_init(w, b) < 0) {
			snprintf(err, errsize, "reference %s: worker: cannot initialise", b->name);
			return -1;
		}
		if (found < 0) {
			/* Listed, failed, with why: its worker does not start. */
			snprintf(w->last_failure, sizeof w->last_failure, "%.500s", why);
			w->last_failure_at = time(NULL);
			w->state = WORKER_FAILED;
			fprintf(stderr, "phpcmp: %s\n", why);
		} else {
			/* A row now: a run may name it before it has started. */
			if (db_build_record(app->db, b, err, errsize) < 0)
				return -1;
			builds_refs.jobs[builds_refs.njobs++] = (struct builds_ref_job){ .app = app, .w = w };
		}
		pthread_mutex_lock(&cfg->builds_lock);
		cfg->nbuilds = slot + 1;
		pthread_mutex_unlock(&cfg->builds_lock);
	}
	if (builds_refs.njobs > 0 &&
	    pthread_create(&builds_refs.thread, NULL, builds_ref_thread, &builds_refs) == 0)
		builds_refs.started = 1;
	return 0;
}

void builds_references_stop(struct app *app)
{
	(void)app; /* app->stopping is set: the starts not begun are skipped */
	if (builds_refs.started)
		pthread_join(builds_refs.thread, NULL);
	builds_refs.started = 0;
}
