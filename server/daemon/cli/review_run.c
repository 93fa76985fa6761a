/*
 * phpcmp review: its daemon (its own, or --url's), the API requests, the
 * runs on every build and the roots they found.
 */
#include "review.h"

/* The folder of ext/json/tests (scripts/php-tests.sh extracts it, cached). */
static int review_phpt_dir(struct review *r, char *out, size_t size)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof cmd, "'%s/scripts/php-tests.sh'", r->root);
	if ((p = popen(cmd, "r")) == NULL)
		return cmd_error("review", "scripts/php-tests.sh: %s", strerror(errno));
	n = fread(out, 1, size - 32, p);
	if (pclose(p) != 0 || n == 0)
		return cmd_error(
		    "review", "scripts/php-tests.sh failed: php-src's ext/json/tests are not there");
	out[n] = '\0';
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		out[--n] = '\0';
	strcat(out, "/ext/json/tests");
	return 0;
}

int review_serve(struct review *r)
{
	char db[PATH_MAX + 16], state[PATH_MAX + 16], core[PATH_MAX + 16], worker[PATH_MAX + 16];
	char web[PATH_MAX + 16], cases[PATH_MAX + 16], exe_dir[PATH_MAX], phpt[PATH_MAX],
	    phpt_env[PATH_MAX + 32];
	char builds[MAX_BUILDS][PATH_MAX + 80];
	char *argv[40 + 2 * MAX_BUILDS];
	char **envp;
	int n = 0, nenv = 0;
	extern char **environ;

	if (review_phpt_dir(r, phpt, sizeof phpt) < 0)
		return -1;
	snprintf(exe_dir, sizeof exe_dir, "%s", r->exe);
	snprintf(db, sizeof db, "%s/%s.db", r->work, r->cur->asan ? "asan" : "phpcmp");
	snprintf(state, sizeof state, "%s", r->state != NULL ? r->state : "");
	if (r->state == NULL)
		snprintf(state, sizeof state, "%s/state", r->root);
	if (mkdir(state, 0755) < 0 && errno != EEXIST)
		return cmd_error("review", "%s: %s", state, strerror(errno));
	snprintf(core, sizeof core, "%s/server/core", r->root);
	snprintf(worker, sizeof worker, "%s/phpcmp-worker", dirname(exe_dir));
	snprintf(web, sizeof web, "%s/web", r->root);
	if (r->cases != NULL)
		snprintf(cases, sizeof cases, "%s", r->cases);
	else
		snprintf(cases, sizeof cases, "%s/cases", r->root);
	snprintf(r->cur->d.log_path, sizeof r->cur->d.log_path, "%s/%sdaemon.log", r->work,
	    r->cur->asan ? "asan-" : "");
	argv[n++] = r->exe;
	argv[n++] = (char *)"serve";
	argv[n++] = (char *)"--listen";
	argv[n++] = (char *)"127.0.0.1";
	argv[n++] = (char *)"--port";
	argv[n++] = (char *)"0";
	argv[n++] = (char *)"--db";
	argv[n++] = db;
	argv[n++] = (char *)"--state";
	argv[n++] = state;
	argv[n++] = (char *)"--core-src";
	argv[n++] = core;
	argv[n++] = (char *)"--worker";
	argv[n++] = worker;
	argv[n++] = (char *)"--web";
	argv[n++] = web;
	argv[n++] = (char *)"--cases";
	argv[n++] = cases;
	/* A review waits for its reducer anyway (--settle): its reductions are
	 * bounded by executions, not by a serving daemon's 2 s, so that a busy
	 * machine gives the same root causes, only later. */
	argv[n++] = (char *)"--reduce-budget-ms";
	argv[n++] = (char *)REVIEW_REDUCE_BUDGET_MS;
	for (int i = 0; i < r->cur->nbuilds; i++) {
		snprintf(
		    builds[i], sizeof builds[i], "%s=%s", r->cur->builds[i].name, r->cur->builds[i].prefix);
		argv[n++] = (char *)"--build";
		argv[n++] = builds[i];
	}
	argv[n] = NULL;
	/* the environment, with the phpt folder the daemon serves by default */
	while (environ[nenv] != NULL)
		nenv++;
	if ((envp = calloc((size_t)nenv + 2, sizeof *envp)) == NULL)
		return cmd_error("review", "out of memory");
	snprintf(phpt_env, sizeof phpt_env, "PHPCMP_PHPT_DIR=%s", phpt);
	n = 0;
	for (int i = 0; i < nenv; i++)
		if (strncmp(environ[i], "PHPCMP_PHPT_DIR=", 16) != 0)
			envp[n++] = environ[i];
	envp[n++] = phpt_env;
	envp[n] = NULL;
	review_say(r, "starting a daemon of %d %s builds (its log: %s)", r->cur->nbuilds, r->cur->what,
	    r->cur->d.log_path);
	int rc = proc_daemon_start(&r->cur->d, "review", argv, db, envp, REVIEW_START_TIMEOUT_S);
	free(envp);
	if (rc == 0)
		review_say(r, "daemon ready at %s", r->cur->d.url);
	return rc;
}

void review_stop(struct review *r)
{
	proc_daemon_stop(&r->cur->d);
}

/* ---- HTTP ---- */

/* The token to send: a --url daemon may want the user's; its own daemon
 * wants its own. */
static const char *review_token(const struct review *r)
{
	return r->url != NULL ? getenv("PHPCMP_TOKEN") : r->cur->d.token;
}

/* One request to the review's daemon (client_request). */
static long review_request(
    struct review *r, const char *method, const char *path, const char *body, char **text)
{
	char url[512];

	snprintf(url, sizeof url, "%s%s", r->cur->d.url, path);
	return client_request(r->curl, "review", method, url, body, review_token(r), text);
}

/* A request whose answer is JSON with an expected status; NULL (said) otherwise. */
json_t *review_json(
    struct review *r, const char *method, const char *path, const char *body, long want, long want2)
{
	return client_json(
	    r->curl, "review", method, r->cur->d.url, path, body, review_token(r), want, want2);
}

/* ---- a running daemon (--url) ---- */

/* Its builds folder (where the builds go: the one place it registers them
 * from), checked to be on this machine, and the builds' names there. */
int review_attach(struct review *r)
{
	json_t *list = review_json(r, "GET", "/api/builds", NULL, 200, 200), *b;
	struct stat st;
	size_t i;

	if (list == NULL)
		return cmd_error("review",
		    "%s: GET /api/builds failed (a phpcmp daemon with builds that come and go?)", r->url);
	snprintf(r->builds_dir, sizeof r->builds_dir, "%s", review_str(list, "builds_dir"));
	if (r->builds_dir[0] != '/' || stat(r->builds_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		json_decref(list);
		return cmd_error("review",
		    "%s: its builds folder %s is not a folder on this machine: run the "
		    "review where the daemon runs",
		    r->url, r->builds_dir[0] ? r->builds_dir : "(none given)");
	}
	if (r->label_arg != NULL)
		snprintf(r->label, sizeof r->label, "%s", r->label_arg);
	else /* one name from review to review: their worker cores stay cached */
		snprintf(r->label, sizeof r->label, "review");
	for (int k = 0; k < r->rel.nbuilds; k++) {
		struct review_build *rb = &r->rel.builds[k];
		if (snprintf(rb->dname, sizeof rb->dname, "%s-%s", r->label, rb->name) >=
		    (int)sizeof rb->dname) {
			json_decref(list);
			return cmd_error("review", "--label %s: %s-%s is over 63 bytes, a build name's most",
			    r->label, r->label, rb->name);
		}
		json_array_foreach (json_object_get(list, "builds"), i, b)
			if (strcmp(review_str(b, "name"), rb->dname) == 0 &&
			    strcmp(review_str(b, "state"), "active") == 0) {
				json_decref(list);
				return cmd_error("review",
				    "%s: a build named %s is active there already (another "
				    "review with --label %s?)",
				    r->url, rb->dname, r->label);
			}
	}
	json_decref(list);
	review_say(r, "reviewing on %s: builds in %s, named %s-*", r->url, r->builds_dir, r->label);
	return 0;
}

/* Each release build registered with the --url daemon (POST /api/builds). */
int review_register(struct review *r)
{
	for (int k = 0; k < r->rel.nbuilds; k++) {
		struct review_build *rb = &r->rel.builds[k];
		char cwd[PATH_MAX], prefix[2 * PATH_MAX + 2];
		json_t *body, *ans;
		char *text;

		/* Built here: its link in the builds folder.  Given: as given (made
		 * absolute, links kept), which the daemon takes only from that folder. */
		if (rb->given_prefix == NULL)
			snprintf(prefix, sizeof prefix, "%s", rb->dname);
		else if (rb->given_prefix[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
			snprintf(prefix, sizeof prefix, "%s", rb->given_prefix);
		else
			snprintf(prefix, sizeof prefix, "%s/%s", cwd, rb->given_prefix);
		body = json_pack("{s:s s:s}", "name", rb->dname, "prefix", prefix);
		text = body != NULL ? json_dumps(body, JSON_COMPACT) : NULL;
		json_decref(body);
		if (text == NULL)
			return cmd_error("review", "out of memory");
		ans = review_json(r, "POST", "/api/builds", text, 201, 201);
		free(text);
		if (ans == NULL)
			return -1;
		rb->registered = 1;
		review_say(r, "%s registered as %s (%s)", rb->name, rb->dname, review_str(ans, "role"));
		json_decref(ans);
	}
	return 0;
}

/* Every build the review registered, retired (DELETE /api/builds/NAME):
 * their runs, roots and triage stay on the daemon. */
void review_retire(struct review *r)
{
	for (int k = r->rel.nbuilds - 1; k >= 0; k--) {
		struct review_build *rb = &r->rel.builds[k];
		char path[128];
		json_t *ans;

		if (!rb->registered)
			continue;
		snprintf(path, sizeof path, "/api/builds/%s", rb->dname);
		if ((ans = review_json(r, "DELETE", path, NULL, 200, 404)) != NULL)
			rb->registered = 0;
		json_decref(ans);
	}
}

/* The daemon's names of the builds in a text it wrote, made the review's
 * ("review-pr@2" -> "pr@2"), in place. */
static void review_unlabel(const struct review *r, char *text)
{
	char prefix[sizeof r->label + 1];
	size_t n;
	char *p;

	if (r->url == NULL || text == NULL)
		return;
	n = (size_t)snprintf(prefix, sizeof prefix, "%s-", r->label);
	while ((p = strstr(text, prefix)) != NULL)
		memmove(p, p + n, strlen(p + n) + 1);
}

/* ---- the runs ---- */

/* The names of the current set's builds on the daemon, in order: a run's or a case's "builds". */
static json_t *review_build_names(const struct review *r)
{
	json_t *names = json_array();
	for (int i = 0; i < r->cur->nbuilds; i++)
		json_array_append_new(names, json_string(r->cur->builds[i].dname));
	return names;
}

/* POST /api/runs with body (an object, taken), naming the builds on a --url daemon. */
static int64_t review_post_run(struct review *r, json_t *body)
{
	char *text;
	json_t *run;

	if (body != NULL && r->url != NULL && !r->cur->asan)
		json_object_set_new(body, "builds", review_build_names(r));
	text = body != NULL ? json_dumps(body, JSON_COMPACT) : NULL;
	json_decref(body);
	if (text == NULL)
		return cmd_error("review", "out of memory");
	run = review_json(r, "POST", "/api/runs", text, 202, 202);
	free(text);
	int64_t id = run != NULL ? review_int(run, "id") : 0;

	json_decref(run);
	return id > 0 ? id : -1;
}

/*
 * Poll a run until it ends; the run as it ended, or NULL (said).  With
 * stop_at > 0 (the asan sample) the run is cancelled once its candidates
 * have had that many memory errors: each costs the sample about 0.6 s
 * (measured; docs/review.md), and more of the same say no more.
 */
static json_t *review_wait_run(struct review *r, int64_t id, const char *what, json_int_t stop_at)
{
	char path[64];
	double next_say = review_now() + 15;
	int cancelled = 0;

	snprintf(path, sizeof path, "/api/runs/%" PRId64, id);
	for (;;) {
		json_t *run = review_json(r, "GET", path, NULL, 200, 200), *b;
		json_t *counts = json_object_get(run, "counts");
		json_int_t errors = 0;
		const char *status, *role;

		if (run == NULL)
			return NULL;
		status = review_str(run, "status");
		json_object_foreach (json_object_get(json_object_get(run, "summary"), "builds"), role, b)
			if (strcmp(role, "base") != 0)
				errors += review_int(json_object_get(b, "statuses"), "memory-error");
		if (strcmp(status, "done") == 0 || (cancelled && strcmp(status, "cancelled") == 0)) {
			if (stop_at > 0)
				review_say(r,
				    "%s: %s after %" JSON_INTEGER_FORMAT " cases, %" JSON_INTEGER_FORMAT
				    " with a memory error on a candidate",
				    what, cancelled ? "stopped" : "done", review_int(run, "done"), errors);
			else
				review_say(r,
				    "%s: done, %" JSON_INTEGER_FORMAT " same, %" JSON_INTEGER_FORMAT
				    " differ",
				    what, review_int(counts, "same"), review_int(counts, "differ"));
			return run;
		}
		if (strcmp(status, "queued") != 0 && strcmp(status, "running") != 0) {
			cmd_error("review", "the %s run (%s) ended %s: %s", what, path, status,
			    review_str(run, "error"));
			json_decref(run);
			return NULL;
		}
		if (stop_at > 0 && !cancelled && errors >= stop_at) {
			char cancel[96];
			json_t *c;
			snprintf(cancel, sizeof cancel, "%s/cancel", path);
			if ((c = review_json(r, "POST", cancel, "{}", 200, 409)) == NULL) {
				json_decref(run);
				return NULL;
			}
			json_decref(c);
			cancelled = 1;
		}
		if (review_now() >= next_say) {
			review_say(r, "%s: %s, %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT, what,
			    status, review_int(run, "done"), review_int(run, "total"));
			next_say = review_now() + 15;
		}
		json_decref(run);
		usleep(250 * 1000);
	}
}

/* The roots of one run, once the reducer is done with its buckets (or the
 * settle time is over: then the report says how many are pending). */
static json_t *review_settled_roots(struct review *r, int64_t run, double until)
{
	char path[64];
	double next_say = review_now() + 15;

	snprintf(path, sizeof path, "/api/roots?run=%" PRId64, run);
	for (;;) {
		json_t *roots = review_json(r, "GET", path, NULL, 200, 200);
		json_int_t pending;

		if (roots == NULL)
			return NULL;
		pending = review_int(json_object_get(roots, "reduction"), "buckets_pending");
		if (pending == 0 || review_now() >= until)
			return roots;
		if (review_now() >= next_say) {
			review_say(r, "reducing: %" JSON_INTEGER_FORMAT " buckets pending", pending);
			next_say = review_now() + 15;
		}
		json_decref(roots);
		sleep(1);
	}
}

static const struct review_build *review_build_by_role(const struct review *r, const char *role)
{
	for (int i = 0; i < r->cur->nbuilds; i++)
		if (strcmp(r->cur->builds[i].role, role) == 0)
			return &r->cur->builds[i];
	return NULL;
}

static const struct review_build *review_build_by_name(const struct review *r, const char *name)
{
	for (int i = 0; i < r->cur->nbuilds; i++)
		if (strcmp(r->cur->builds[i].name, name) == 0)
			return &r->cur->builds[i];
	return NULL;
}

static const struct review_build *review_build_by_dname(const struct review *r, const char *dname)
{
	for (int i = 0; i < r->cur->nbuilds; i++)
		if (strcmp(r->cur->builds[i].dname, dname) == 0)
			return &r->cur->builds[i];
	return NULL;
}

/* Each build's role, as the daemon gives it. */
int review_roles(struct review *r)
{
	json_t *builds, *b;
	size_t i;

	/* A --url daemon has builds of its own: the review's runs and cases name
	 * theirs ("builds"), so their roles are their places in that list. */
	if (r->url != NULL && !r->cur->asan) {
		for (int k = 0; k < r->cur->nbuilds; k++) {
			struct review_build *rb = &r->cur->builds[k];
			if (k <= 1)
				snprintf(rb->role, sizeof rb->role, "%s", k == 0 ? "base" : "head");
			else
				snprintf(rb->role, sizeof rb->role, "cand%d", k);
		}
		return 0;
	}
	json_decref(r->health);
	if ((r->health = review_json(r, "GET", "/api/health", NULL, 200, 200)) == NULL)
		return -1;
	builds = json_object_get(r->health, "builds");
	json_array_foreach (builds, i, b) {
		struct review_build *rb = (struct review_build *)review_build_by_name(
		    r, review_str(b, "name"));
		if (rb != NULL)
			snprintf(rb->role, sizeof rb->role, "%s", review_str(b, "role"));
	}
	for (int k = 0; k < r->cur->nbuilds; k++)
		if (r->cur->builds[k].role[0] == '\0')
			return cmd_error(
			    "review", "the daemon does not list build %s", r->cur->builds[k].name);
	return 0;
}

/*
 * A cause's minimal case once more on every build (POST /api/cases):
 * "results" by build name, "differs_on" (the builds whose answer is not
 * the base's) and, per series, the first commit that differs:
 * "first_commits" {"pr": {"commit": 2, "patch": "0002-b.patch"}}.
 */
static int review_rerun(struct review *r, json_t *cause)
{
	json_t *min = json_object_get(cause, "minimal"), *ans, *results, *cands, *differs, *firsts, *v;
	json_t *body = json_pack("{s:O,s:O,s:O,s:O}", "code", review_get(min, "code"), "setup",
	    review_get(min, "setup"), "flags", review_get(min, "flags_value"), "depth",
	    review_get(min, "depth"));
	if (body != NULL && r->url != NULL)
		json_object_set_new(body, "builds", review_build_names(r));
	char *text = body != NULL ? json_dumps(body, JSON_COMPACT) : NULL;
	const char *key;

	json_decref(body);
	if (text == NULL)
		return cmd_error("review", "out of memory");
	/* references=1: what released PHP answers to it, for the cause's line (issue 49). */
	ans = review_json(r, "POST", "/api/cases?references=1", text, 201, 201);
	free(text);
	if (ans == NULL)
		return -1;
	results = json_object();
	differs = json_array();
	firsts = json_object();
	json_object_foreach (json_object_get(ans, "results"), key, v) {
		const struct review_build *b = review_build_by_role(r, key);
		if (b != NULL)
			json_object_set(results, b->name, v);
	}
	cands = json_object_get(ans, "candidates");
	for (int b = 1; b < r->cur->nbuilds; b++) {
		const struct review_build *rb = &r->cur->builds[b];
		const struct review_cand *c = &r->cands[rb->candidate];
		json_t *verdict = json_object_get(cands, rb->dname);

		if (verdict == NULL || strcmp(review_str(verdict, "verdict"), "same") == 0)
			continue;
		json_array_append_new(differs, json_string(rb->name));
		/* builds are in commit order: the first that differs is the commit */
		if (rb->commit > 0 && json_object_get(firsts, c->name) == NULL)
			json_object_set_new(firsts, c->name,
			    json_pack(
			        "{s:i,s:s}", "commit", rb->commit, "patch", c->patches[rb->commit - 1]));
	}
	json_object_set_new(cause, "results", results);
	json_object_set_new(cause, "differs_on", differs);
	json_object_set_new(cause, "first_commits", firsts);
	json_t *released = json_object_get(json_object_get(ans, "references"), "summary");
	json_object_set(cause, "released", json_is_string(released) ? released : json_null());
	json_decref(ans);
	return 0;
}

/* A cause: the builds it was found on, its buckets, its minimal case (or null). */
static json_t *review_cause_new(json_t *minimal)
{
	json_t *cause = json_object();

	json_object_set_new(cause, "builds", json_array());
	json_object_set_new(cause, "bucket_ids", json_array());
	json_object_set_new(cause, "buckets", json_integer(0));
	json_object_set(cause, "minimal", minimal != NULL ? minimal : json_null());
	return cause;
}

/*
 * The review's roots, merged over the generated and stored runs (a bucket
 * is listed once, with "runs": its mismatches in each), then grouped into
 * "causes", one per minimal case (review_rerun).
 */
static int review_collect_roots(
    struct review *r, const int64_t *runs, const char *const *names, int nruns, json_t **out)
{
	double until = review_now() + (double)r->settle_s;
	json_t *all = json_array(), *pending = json_object();

	*out = json_object();
	json_object_set_new(*out, "roots", all);
	json_object_set_new(*out, "pending", pending);
	for (int k = 0; k < nruns; k++) {
		json_t *got = review_settled_roots(r, runs[k], until), *root;
		size_t i;

		if (got == NULL)
			return -1;
		json_object_set(
		    pending, names[k], review_get(json_object_get(got, "reduction"), "buckets_pending"));
		json_array_foreach (json_object_get(got, "roots"), i, root) {
			json_t *mine = NULL, *o;
			size_t j;
			/* A stored case's miss of its --EXPECT-- is no cause of the
			 * review's: on a candidate it is that build's difference from
			 * the base (a root of its own), on the base it is none of the
			 * pull request's doing. */
			if (strncmp(review_str(root, "candidate"), "expected:", 9) == 0)
				continue;
			json_array_foreach (all, j, o)
				if (review_int(o, "bucket_id") == review_int(root, "bucket_id"))
					mine = o;
			if (mine == NULL) {
				const struct review_build *b = review_build_by_dname(
				    r, review_str(root, "candidate"));
				/* On a --url daemon a bucket of the first candidate's (no
				 * candidate in its key) may be older than the review and
				 * name the build that found it first: here it is the head's. */
				if (b == NULL && r->url != NULL && r->cur->nbuilds > 1)
					b = &r->cur->builds[1];
				mine = json_deep_copy(root);
				/* the review's name of the build, not the --url daemon's */
				if (b != NULL)
					json_object_set_new(mine, "candidate", json_string(b->name));
				json_object_set_new(mine, "runs", json_object());
				json_array_append_new(all, mine);
			} else {
				json_object_set_new(mine, "mismatches",
				    json_integer(
				        review_int(mine, "mismatches") + review_int(root, "mismatches")));
			}
			json_object_set_new(json_object_get(mine, "runs"), names[k],
			    json_integer(review_int(root, "mismatches")));
		}
		json_decref(got);
	}
	/* one cause per minimal case: a bug on pr@2 and pr@3 (or on two
	 * candidates) is one cause, run once more on every build */
	json_t *causes = json_array();
	json_object_set_new(*out, "causes", causes);
	for (size_t i = 0; i < json_array_size(all); i++) {
		json_t *root = json_array_get(all, i), *min = json_object_get(root, "minimal");
		json_t *cause = NULL, *c;
		char *key;
		size_t j;

		if (!json_is_object(min) || !json_is_string(json_object_get(min, "code"))) {
			/* not reduced (yet, or not reproduced alone: the reducer's state
			 * says which): its own cause, with no case to run */
			cause = review_cause_new(NULL);
			if (json_is_object(min))
				json_object_set(cause, "not_reduced", json_object_get(min, "state"));
			json_array_append_new(
			    json_object_get(cause, "builds"), json_string(review_str(root, "candidate")));
			json_array_append(
			    json_object_get(cause, "bucket_ids"), json_object_get(root, "bucket_id"));
			json_object_set(cause, "buckets", json_object_get(root, "buckets"));
			json_array_append_new(causes, cause);
			continue;
		}
		c = json_pack("[O,O,O,O]", review_get(min, "code"), review_get(min, "setup"),
		    review_get(min, "flags_value"), review_get(min, "depth"));
		key = c != NULL ? json_dumps(c, JSON_COMPACT) : NULL;
		json_decref(c);
		json_array_foreach (causes, j, c)
			if (key != NULL && strcmp(review_str(c, "key"), key) == 0)
				cause = c;
		if (cause == NULL) {
			cause = review_cause_new(min);
			json_object_set_new(cause, "key", json_string(key != NULL ? key : ""));
			if (review_rerun(r, cause) < 0) {
				free(key);
				json_decref(cause);
				return -1;
			}
			json_array_append_new(causes, cause);
		}
		free(key);
		json_array_append_new(
		    json_object_get(cause, "builds"), json_string(review_str(root, "candidate")));
		json_array_append(json_object_get(cause, "bucket_ids"), json_object_get(root, "bucket_id"));
		json_object_set_new(cause, "buckets",
		    json_integer(review_int(cause, "buckets") + review_int(root, "buckets")));
	}
	for (size_t i = 0; i < json_array_size(causes); i++)
		json_object_del(json_array_get(causes, i), "key");
	return 0;
}

int review_run_all(struct review *r)
{
	char body[160];

	/* queued at once, run one after the other in this order by the daemon */
	if ((r->run_generated = review_post_run(r,
	         json_pack("{s:s s:I s:I}", "suite", "generated", "seed", (json_int_t)r->seed, "count",
	             (json_int_t)r->count))) < 0 ||
	    (r->run_stored = review_post_run(r, json_pack("{s:s}", "suite", "stored"))) < 0 ||
	    (r->run_phpt = review_post_run(r, json_pack("{s:s}", "suite", "phpt"))) < 0 ||
	    (r->run_measure = review_post_run(r, json_pack("{s:s}", "suite", "measure"))) < 0)
		return -1;
	snprintf(body, sizeof body, "%ld generated cases (seed %ld)", r->count, r->seed);
	if ((r->generated = review_wait_run(r, r->run_generated, body, 0)) == NULL ||
	    (r->stored = review_wait_run(r, r->run_stored, "the stored cases", 0)) == NULL ||
	    (r->phpt = review_wait_run(r, r->run_phpt, "ext/json/tests", 0)) == NULL ||
	    (r->measure = review_wait_run(r, r->run_measure, "the measure workloads", 0)) == NULL)
		return -1;
	char path[96];
	snprintf(path, sizeof path, "/api/runs/%" PRId64 "/report.md", r->run_phpt);
	if (review_request(r, "GET", path, NULL, &r->phpt_line) != 200)
		return cmd_error("review", "GET %s failed", path);
	snprintf(path, sizeof path, "/api/runs/%" PRId64 "/measurements", r->run_measure);
	if ((r->measurements = review_json(r, "GET", path, NULL, 200, 200)) == NULL)
		return -1;
	snprintf(path, sizeof path, "/api/runs/%" PRId64 "/report.md?columns=candidates&json_encoder=1",
	    r->run_measure);
	if (review_request(r, "GET", path, NULL, &r->measure_md) != 200)
		return cmd_error("review", "GET %s failed", path);
	review_unlabel(r, r->phpt_line);
	review_unlabel(r, r->measure_md);
	review_say(r, "waiting for the reducer (at most %ld s)", r->settle_s);
	const int64_t runs[] = { r->run_generated, r->run_stored };
	const char *const names[] = { "generated", "stored" };
	return review_collect_roots(r, runs, names, 2, &r->roots);
}

/* Cases of the asan sample with a memory error on build name (its asan
 * flavour), or -1 when the sample has no such build. */
json_int_t review_memory_errors(const struct review *r, const char *name)
{
	json_t *builds = json_object_get(json_object_get(r->asan_generated, "summary"), "builds");

	for (int b = 0; b < r->asan.nbuilds; b++)
		if (strcmp(r->asan.builds[b].name, name) == 0)
			return review_int(
			    json_object_get(json_object_get(builds, r->asan.builds[b].role), "statuses"),
			    "memory-error");
	return -1;
}

/* A memory error often shows only after the cases before it in the same
 * worker (the heap they left): not reproduced alone, it is not reduced.  The
 * first few mismatches of the sample are kept as run, with every build's
 * result. */
static int review_asan_samples(struct review *r, int64_t run)
{
	char path[128];
	json_t *list, *c;
	size_t i;

	r->asan_samples = json_array();
	snprintf(
	    path, sizeof path, "/api/runs/%" PRId64 "/cases?verdict=differ&limit=%d", run, REVIEW_SAMPLES);
	if ((list = review_json(r, "GET", path, NULL, 200, 200)) == NULL)
		return -1;
	json_array_foreach (json_object_get(list, "cases"), i, c) {
		json_t *full, *results = json_object(), *v, *gen = json_object_get(c, "generated");
		const char *role;

		if (json_is_null(json_object_get(c, "id")) && gen != NULL) {
			/* Not stored in full by the run: stored now, answered in full. */
			char body[96];
			snprintf(path, sizeof path, "/api/runs/%" PRId64 "/cases", run);
			snprintf(body, sizeof body,
			    "{\"seed\":%" JSON_INTEGER_FORMAT ",\"index\":%" JSON_INTEGER_FORMAT "}",
			    review_int(gen, "seed"), review_int(gen, "index"));
			full = review_json(r, "POST", path, body, 201, 200);
		} else {
			snprintf(path, sizeof path,
			    "/api/cases/%" JSON_INTEGER_FORMAT "?comparison=%" JSON_INTEGER_FORMAT,
			    review_int(c, "id"), review_int(c, "comparison_id"));
			full = review_json(r, "GET", path, NULL, 200, 200);
		}
		if (full == NULL) {
			json_decref(results);
			json_decref(list);
			return -1;
		}
		json_object_foreach (json_object_get(full, "results"), role, v) {
			const struct review_build *b = review_build_by_role(r, role);
			if (b != NULL)
				json_object_set(results, b->name, v);
		}
		json_t *res;
		const char *name;
		int memory = 0;
		json_object_foreach (results, name, res)
			if (strcmp(review_str(res, "status"), "memory-error") == 0)
				memory = 1;
		if (memory) /* an output mismatch is the release builds' cause again */
			json_array_append_new(r->asan_samples,
			    json_pack("{s:O,s:O}", "case", review_get(full, "case"), "results", results));
		json_decref(results);
		json_decref(full);
	}
	json_decref(list);
	/* the shortest few: the report shows their code */
	while (json_array_size(r->asan_samples) > REVIEW_SHOWN_SAMPLES) {
		size_t longest = 0, most = 0;
		for (i = 0; i < json_array_size(r->asan_samples); i++) {
			json_t *kept = json_object_get(json_array_get(r->asan_samples, i), "case");
			size_t len = strlen(review_str(kept, "code")) + strlen(review_str(kept, "setup"));
			if (len >= most) {
				most = len;
				longest = i;
			}
		}
		json_array_remove(r->asan_samples, longest);
	}
	return 0;
}

int review_run_asan(struct review *r)
{
	char what[96];
	int64_t id;

	r->cur = &r->asan;
	for (int i = 0; i < r->asan.nbuilds; i++)
		if (review_build_one(r, &r->asan.builds[i]) < 0)
			return -1;
	if (review_serve(r) < 0 || review_roles(r) < 0)
		return -1;
	snprintf(what, sizeof what, "asan: %ld generated cases (seed %ld)", r->asan_count, r->seed);
	if ((id = review_post_run(r,
	         json_pack("{s:s s:I s:I}", "suite", "generated", "seed", (json_int_t)r->seed, "count",
	             (json_int_t)r->asan_count))) < 0 ||
	    (r->asan_generated = review_wait_run(r, id, what, REVIEW_ASAN_ENOUGH)) == NULL)
		return -1;
	/* What the sample ran: all of it, or up to where it was stopped. */
	r->asan_ran = review_int(r->asan_generated, "done");
	/* Its output mismatches are the release builds' causes again: the
	 * reducer is waited for only when there is a memory error to explain. */
	json_int_t errors = 0;
	for (int b = 1; b < r->asan.nbuilds; b++)
		errors += review_memory_errors(r, r->asan.builds[b].name);
	if (errors > 0) {
		review_say(r, "asan: waiting for the reducer (at most %ld s)", r->settle_s);
		const char *const names[] = { "generated" };
		if (review_collect_roots(r, &id, names, 1, &r->asan_roots) < 0 ||
		    review_asan_samples(r, id) < 0)
			return -1;
	}
	review_stop(r);
	r->cur = &r->rel;
	return 0;
}
