/*
 * phpcmp bisect: the first commit of a php-src history whose answer to one
 * case differs from the good commit's (docs/review.md).
 *
 *   phpcmp bisect --src ~/php-src --good REF --bad REF
 *                 (--case FILE | --code CODE [--flags F]) [-- PATH...]
 *
 * The candidates are computed once (git rev-list --first-parent GOOD..BAD
 * [-- PATH...]); the good commit is the full build (cached; none at all when
 * its tree is the default 8.2.32 source's), every other commit the good
 * commit's source and its diff, built over the good tree in seconds
 * (scripts/build-commit.sh).  The answers come from a daemon of the
 * command's own (this executable's `serve` on a free loopback port, the good
 * and bad builds at its start, each step's build registered with POST
 * /api/builds, the case posted to /api/cases on the good build and it, then
 * retired): the same sandbox and the same results as any case.  An answer
 * is the output, json_last_error() and the status.  Binary search, at most
 * ceil(log2 N) + 2 builds for N commits; a commit that does not build is
 * skipped (a neighbour is tried instead, as git bisect skip) and said so.
 * The repository is only read (git rev-parse, rev-list, diff, archive).
 *
 * Exit 0: the first bad commit found; 1: none can be named (the same answer
 * at both ends, or the commits left do not build); 2: an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>

#include "buf.h"
#include "cli.h"
#include "clock.h"
#include "cmdline.h"
#include "flags.h"
#include "model.h"
#include "rmtree.h"

#define BISECT_START_TIMEOUT_S 600 /* a cold start compiles a worker core per build */
#define BISECT_SUBJECT 200
#define BISECT_MAX_PATHS 32

enum bisect_mark { BISECT_UNTESTED, BISECT_GOOD, BISECT_BAD, BISECT_SKIPPED };

/* One build the bisection made, and its answer. */
struct bisect_build {
	char name[32];
	char commit[GITSRC_ID_MAX];
	char prefix[PATH_MAX];
	int built;      /* 0: did not build */
	json_t *answer; /* {status, output, error_code}, once asked */
};

struct bisect {
	const char *src, *good_ref, *bad_ref, *case_path, *code, *flags_arg, *work_arg, *state;
	char *paths[BISECT_MAX_PATHS];
	int npaths;
	char good[GITSRC_ID_MAX], bad[GITSRC_ID_MAX];
	struct gitsrc_list list;
	enum bisect_mark *marks;
	char *body; /* the case as POST /api/cases takes it, without "builds" */
	struct bisect_build *builds;
	int nbuilds, cap;
	char root[PATH_MAX], exe[PATH_MAX], work[PATH_MAX], builds_dir[PATH_MAX + 16];
	struct proc_daemon d; /* its own daemon (proc.c) */
	CURL *curl;
	double t0;
};

static double bisect_now(void)
{
	return clock_ms() / 1000.0;
}

static void bisect_say(const struct bisect *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bisect_say(const struct bisect *b, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bisect [%6.1f s] ", bisect_now() - b->t0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void bisect_usage(FILE *f)
{
	fputs("usage: phpcmp bisect --src REPO --good REF --bad REF (--case FILE | --code CODE\n"
	      "                     [--flags F]) [options] [-- PATH...]\n"
	      "\n"
	      "The first commit of GOOD..BAD (first-parent) whose answer to the case (its\n"
	      "output, json_last_error() and status) differs from GOOD's, by binary search:\n"
	      "at most ceil(log2 N) + 2 builds for N commits, each over GOOD's build in\n"
	      "seconds (scripts/build-commit.sh).  REPO is never changed.  docs/review.md.\n"
	      "\n"
	      "  --src REPO            a php-src git repository (a checkout or bare)\n"
	      "  --good REF            a commit with the old answer (built in full, once)\n"
	      "  --bad REF             a later commit with another answer\n"
	      "  --case FILE           a stored-format case file (docs/cases.md)\n"
	      "  --code CODE           or the value to json_encode(), as PHP code\n"
	      "  --flags F             its flags (JSON_A|JSON_B or a number; 0)\n"
	      "  -- PATH...            only commits touching these paths (git bisect start -- PATH)\n"
	      "  --work DIR            keep the work folder (daemon log, database, build links)\n"
	      "  --state DIR           compiled worker cores, shared with `phpcmp serve` (state)\n"
	      "Exit 0: the first bad commit found; 1: none can be named (the same answer at\n"
	      "both ends, or only commits that do not build left); 2: an error.\n",
	    f);
}

static int bisect_parse(struct bisect *b, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			bisect_usage(stdout);
			exit(0);
		} else if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++) {
				if (b->npaths == BISECT_MAX_PATHS)
					return cmd_error(
					    "bisect", "at most %d paths after --", BISECT_MAX_PATHS);
				b->paths[b->npaths++] = argv[i];
			}
			break;
		} else if (v == NULL) {
			return cmd_error("bisect",
			    "%s: unknown option, or its value is missing (phpcmp bisect --help)", a);
		} else if (strcmp(a, "--src") == 0) {
			b->src = v;
		} else if (strcmp(a, "--good") == 0) {
			b->good_ref = v;
		} else if (strcmp(a, "--bad") == 0) {
			b->bad_ref = v;
		} else if (strcmp(a, "--case") == 0) {
			b->case_path = v;
		} else if (strcmp(a, "--code") == 0) {
			b->code = v;
		} else if (strcmp(a, "--flags") == 0) {
			b->flags_arg = v;
		} else if (strcmp(a, "--work") == 0) {
			b->work_arg = v;
		} else if (strcmp(a, "--state") == 0) {
			b->state = v;
		} else {
			return cmd_error("bisect", "%s: unknown option (phpcmp bisect --help)", a);
		}
		i++;
	}
	if (b->src == NULL || b->good_ref == NULL || b->bad_ref == NULL)
		return cmd_error("bisect", "--src, --good and --bad are required (phpcmp bisect --help)");
	if ((b->case_path == NULL) == (b->code == NULL))
		return cmd_error("bisect", "one of --case FILE or --code CODE");
	if (b->case_path != NULL && b->flags_arg != NULL)
		return cmd_error("bisect", "--flags goes with --code (a case file has its own)");
	return 0;
}

/* The case as the API's body: from the case file, or --code and --flags. */
static int bisect_case_body(struct bisect *b)
{
	json_t *o = json_object();
	char err[512];
	long flags = 0;

	if (o == NULL)
		return cmd_error("bisect", "out of memory");
	if (b->case_path != NULL) {
		struct case_spec c;
		size_t len;
		char *text = bytes_read_file(b->case_path, MAX_BODY_SIZE, &len, err, sizeof err);
		int bad = 0;

		case_init(&c);
		if (text == NULL || casefile_parse(text, len, &c, err, sizeof err) < 0) {
			free(text);
			json_decref(o);
			return cmd_error("bisect", "--case %s: %s", b->case_path, err);
		}
		free(text);
		if (c.code != NULL)
			bad |= json_object_set_new(o, "code", json_string(c.code));
		if (c.setup != NULL)
			bad |= json_object_set_new(o, "setup", json_string(c.setup));
		if (c.title != NULL)
			bad |= json_object_set_new(o, "title", json_string(c.title));
		json_object_set_new(o, "flags", json_integer(c.flags));
		json_object_set_new(o, "depth", json_integer(c.depth));
		case_release(&c);
		if (bad) {
			json_decref(o);
			return cmd_error("bisect",
			    "--case %s: not valid UTF-8, which the JSON API cannot carry", b->case_path);
		}
	} else {
		if (b->flags_arg != NULL && flags_parse(b->flags_arg, &flags, err, sizeof err) < 0) {
			json_decref(o);
			return cmd_error("bisect", "--flags %s: %s", b->flags_arg, err);
		}
		if (json_object_set_new(o, "code", json_string(b->code)) < 0) {
			json_decref(o);
			return cmd_error(
			    "bisect", "--code: not valid UTF-8, which the JSON API cannot carry");
		}
		json_object_set_new(o, "flags", json_integer(flags));
		json_object_set_new(o, "title", json_string("phpcmp bisect"));
	}
	b->body = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return b->body != NULL ? 0 : cmd_error("bisect", "out of memory");
}

/* ---- processes ---- */

static int bisect_make_work(struct bisect *b)
{
	const char *tmpdir = getenv("TMPDIR");

	if (b->work_arg != NULL) {
		if (mkdir(b->work_arg, 0700) < 0 && errno != EEXIST)
			return cmd_error("bisect", "--work %s: %s", b->work_arg, strerror(errno));
		if (realpath(b->work_arg, b->work) == NULL)
			return cmd_error("bisect", "--work %s: %s", b->work_arg, strerror(errno));
	} else {
		snprintf(
		    b->work, sizeof b->work, "%s/phpcmp-bisect-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
		if (mkdtemp(b->work) == NULL)
			return cmd_error("bisect", "%s: %s", b->work, strerror(errno));
	}
	snprintf(b->builds_dir, sizeof b->builds_dir, "%s/builds", b->work);
	if (mkdir(b->builds_dir, 0700) < 0 && errno != EEXIST)
		return cmd_error("bisect", "%s: %s", b->builds_dir, strerror(errno));
	return 0;
}

static void bisect_short(const char *id, char out[13])
{
	snprintf(out, 13, "%.12s", id);
}

/* Build one commit (scripts/build-commit.sh, its lines on the terminal): the
 * build, built or not; NULL on an error that is not the commit's. */
static struct bisect_build *bisect_build(struct bisect *b, const char *name, const char *commit)
{
	char script[PATH_MAX + 40], link[PATH_MAX + 64], shortid[13];
	char *argv[16];
	struct bisect_build *bb;
	double t = bisect_now();
	int n = 0, rc;
	pid_t pid;

	if (b->nbuilds == b->cap) {
		int cap = b->cap ? 2 * b->cap : 16;
		struct bisect_build *grown = realloc(b->builds, (size_t)cap * sizeof *grown);
		if (grown == NULL) {
			cmd_error("bisect", "out of memory");
			return NULL;
		}
		b->builds = grown;
		b->cap = cap;
	}
	bb = &b->builds[b->nbuilds++];
	memset(bb, 0, sizeof *bb);
	snprintf(bb->name, sizeof bb->name, "%s", name);
	snprintf(bb->commit, sizeof bb->commit, "%s", commit);
	snprintf(script, sizeof script, "%s/scripts/build-commit.sh", b->root);
	argv[n++] = (char *)"/bin/bash";
	argv[n++] = script;
	argv[n++] = (char *)"--src";
	argv[n++] = (char *)b->src;
	argv[n++] = (char *)"--base";
	argv[n++] = b->good;
	if (strcmp(commit, b->good) != 0) {
		argv[n++] = (char *)"--commit";
		argv[n++] = (char *)commit;
	}
	argv[n++] = (char *)"--name";
	argv[n++] = bb->name;
	argv[n++] = (char *)"--builds";
	argv[n++] = b->builds_dir;
	argv[n] = NULL;
	bisect_short(commit, shortid);
	bisect_say(b, "building %s (commit %s)", name, shortid);
	if ((pid = proc_spawn("bisect", argv, NULL, NULL)) < 0)
		return NULL;
	rc = proc_wait(pid);
	snprintf(link, sizeof link, "%s/%s", b->builds_dir, bb->name);
	if (rc != 0) {
		bisect_say(b,
		    "%s (commit %s) does not build: scripts/build-commit.sh exited %d, its output is above",
		    name, shortid, rc);
		return bb;
	}
	if (realpath(link, bb->prefix) == NULL) {
		cmd_error("bisect", "%s: %s", link, strerror(errno));
		return NULL;
	}
	bb->built = 1;
	bisect_say(b, "%s built in %.1f s: %s", name, bisect_now() - t, bb->prefix);
	return bb;
}

/* `phpcmp serve` with the good and bad builds, on a free loopback port. */
static int bisect_serve(struct bisect *b, const struct bisect_build *good, const struct bisect_build *bad)
{
	char db[PATH_MAX + 16], state[PATH_MAX + 16], core[PATH_MAX + 16], worker[PATH_MAX + 16];
	char web[PATH_MAX + 16], cases[PATH_MAX + 16], exe_dir[PATH_MAX];
	char gb[PATH_MAX + 40], bb[PATH_MAX + 40];
	char *argv[] = { b->exe, (char *)"serve", (char *)"--listen", (char *)"127.0.0.1", (char *)"--port",
		(char *)"0", (char *)"--db", db, (char *)"--state", state, (char *)"--core-src", core,
		(char *)"--worker", worker, (char *)"--web", web, (char *)"--cases", cases,
		(char *)"--builds-dir", b->builds_dir, (char *)"--reduce-max-executions", (char *)"0",
		(char *)"--build", gb, (char *)"--build", bb, NULL };

	snprintf(exe_dir, sizeof exe_dir, "%s", b->exe);
	snprintf(db, sizeof db, "%s/bisect.db", b->work);
	if (b->state != NULL)
		snprintf(state, sizeof state, "%s", b->state);
	else
		snprintf(state, sizeof state, "%s/state", b->root);
	if (mkdir(state, 0755) < 0 && errno != EEXIST)
		return cmd_error("bisect", "%s: %s", state, strerror(errno));
	snprintf(core, sizeof core, "%s/server/core", b->root);
	snprintf(worker, sizeof worker, "%s/phpcmp-worker", dirname(exe_dir));
	snprintf(web, sizeof web, "%s/web", b->root);
	/* no stored case is run: an empty folder */
	snprintf(cases, sizeof cases, "%s/cases", b->work);
	if (mkdir(cases, 0700) < 0 && errno != EEXIST)
		return cmd_error("bisect", "%s: %s", cases, strerror(errno));
	snprintf(gb, sizeof gb, "%s=%s", good->name, good->prefix);
	snprintf(bb, sizeof bb, "%s=%s", bad->name, bad->prefix);
	snprintf(b->d.log_path, sizeof b->d.log_path, "%s/daemon.log", b->work);
	bisect_say(b, "starting a daemon of the good and bad builds (its log: %s)", b->d.log_path);
	if (proc_daemon_start(&b->d, "bisect", argv, db, NULL, BISECT_START_TIMEOUT_S) < 0)
		return -1;
	bisect_say(b, "daemon ready at %s", b->d.url);
	return 0;
}

static void bisect_stop(struct bisect *b)
{
	proc_daemon_stop(&b->d);
}

/* ---- HTTP ---- */

/* One request to the bisection's daemon: the answer as JSON when its
 * status is want (or want2), NULL (said) otherwise. */
static json_t *bisect_json(
    struct bisect *b, const char *method, const char *path, const char *body, long want, long want2)
{
	return client_json(b->curl, "bisect", method, b->d.url, path, body, b->d.token, want, want2);
}

/* The case on the good build and bb: bb's answer, and good's the first
 * time.  0, or -1 said. */
static int bisect_ask(struct bisect *b, struct bisect_build *good, struct bisect_build *bb)
{
	json_error_t je;
	json_t *body = json_loads(b->body, 0, &je), *ans, *res, *r;
	const char *role;
	char *text;

	if (body == NULL)
		return cmd_error("bisect", "out of memory");
	json_object_set_new(body, "builds", json_pack("[ss]", good->name, bb->name));
	text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (text == NULL)
		return cmd_error("bisect", "out of memory");
	/* 409: a differ verdict with ?fail_on_differ; 201 otherwise */
	ans = bisect_json(b, "POST", "/api/cases", text, 201, 201);
	free(text);
	if (ans == NULL)
		return -1;
	res = json_object_get(ans, "results");
	json_object_foreach (res, role, r) {
		const char *name = json_string_value(json_object_get(r, "build"));
		struct bisect_build *to = name != NULL && strcmp(name, bb->name) == 0 ? bb
		    : name != NULL && strcmp(name, good->name) == 0                   ? good
		                                                                      : NULL;
		if (to == NULL || to->answer != NULL)
			continue;
		to->answer = json_pack("{s:O s:O s:O}", "status", json_object_get(r, "status"), "output",
		    json_object_get(r, "output") ? json_object_get(r, "output") : json_null(), "error_code",
		    json_object_get(r, "error_code") ? json_object_get(r, "error_code") : json_null());
	}
	json_decref(ans);
	if (bb->answer == NULL || good->answer == NULL)
		return cmd_error("bisect", "POST /api/cases: no result for %s",
		    bb->answer == NULL ? bb->name : good->name);
	return 0;
}

/* A step's build on the daemon for one case: registered, asked, retired. */
static int bisect_ask_registered(struct bisect *b, struct bisect_build *good, struct bisect_build *bb)
{
	char path[96];
	json_t *reg = json_pack("{s:s s:s}", "name", bb->name, "prefix", bb->name), *ans;
	char *text = reg != NULL ? json_dumps(reg, JSON_COMPACT) : NULL;
	int rc;

	json_decref(reg);
	if (text == NULL)
		return cmd_error("bisect", "out of memory");
	ans = bisect_json(b, "POST", "/api/builds", text, 201, 201);
	free(text);
	if (ans == NULL)
		return -1;
	json_decref(ans);
	rc = bisect_ask(b, good, bb);
	snprintf(path, sizeof path, "/api/builds/%s", bb->name);
	ans = bisect_json(b, "DELETE", path, NULL, 200, 404);
	json_decref(ans);
	return ans == NULL ? -1 : rc;
}

/* ---- the result ---- */

/* An answer on one line: the output (bytes below 0x20 and 0x7F as \xNN),
 * json_last_error() and the status. */
static void bisect_print_answer(FILE *f, const json_t *a)
{
	const json_t *out = json_object_get(a, "output");

	if (json_is_string(out)) {
		const unsigned char *s = (const unsigned char *)json_string_value(out);
		size_t n = json_string_length(out);
		fputs("output ", f);
		for (size_t i = 0; i < n && i < 300; i++)
			if (s[i] < 0x20 || s[i] == 0x7f)
				fprintf(f, "\\x%02X", s[i]);
			else
				fputc(s[i], f);
		if (n > 300)
			fputs("...", f);
	} else {
		fputs("output false", f);
	}
	fprintf(f, ", json_last_error() %" JSON_INTEGER_FORMAT ", status %s\n",
	    json_integer_value(json_object_get(a, "error_code")),
	    json_string_value(json_object_get(a, "status")) ? json_string_value(json_object_get(a, "status"))
	                                                    : "?");
}

static void bisect_print_commit(const struct bisect *b, const char *what, const char *id)
{
	char subject[BISECT_SUBJECT];

	gitsrc_subject(b->src, id, subject, sizeof subject);
	printf("%s%s %s\n", what, id, subject);
}

/* ---- the search ---- */

static int bisect_log2_ceil(size_t n)
{
	int k = 0;

	while (((size_t)1 << k) < n)
		k++;
	return k;
}

/* The answer of commit i of the list (built and asked, or skipped):
 * BISECT_GOOD/BAD/SKIPPED, or -1 on an error. */
static int bisect_test(struct bisect *b, size_t i, struct bisect_build *good, struct bisect_build *bad)
{
	char name[32];
	struct bisect_build *bb;
	size_t gi = (size_t)(good - b->builds), bi = (size_t)(bad - b->builds);

	snprintf(name, sizeof name, "c-%.12s", b->list.ids[i]);
	if ((bb = bisect_build(b, name, b->list.ids[i])) == NULL)
		return -1;
	good = &b->builds[gi]; /* bisect_build may have moved them */
	bad = &b->builds[bi];
	if (!bb->built)
		return BISECT_SKIPPED;
	/* The same library as an end's (a commit that changes nothing libphp
	 * is made of): that end's answer. */
	if (strcmp(bb->prefix, good->prefix) == 0)
		return BISECT_GOOD;
	if (strcmp(bb->prefix, bad->prefix) == 0)
		return BISECT_BAD;
	if (bisect_ask_registered(b, good, bb) < 0)
		return -1;
	return json_equal(bb->answer, good->answer) ? BISECT_GOOD : BISECT_BAD;
}

static int bisect_run(struct bisect *b)
{
	struct bisect_build *good, *bad;
	size_t n = b->list.n, nbuilt;
	long lo = -1, hi = (long)n; /* lo: known good (-1: GOOD), hi: known bad (n: BAD itself) */
	int rc, amb = 0;
	char shortid[13];

	if ((good = bisect_build(b, "good", b->good)) == NULL)
		return 2;
	if (!good->built)
		return cmd_error(
		           "bisect", "the good commit %s does not build: nothing to compare with", b->good),
		       2;
	if ((bad = bisect_build(b, "bad", b->bad)) == NULL)
		return 2;
	good = &b->builds[0];
	if (!bad->built)
		return cmd_error("bisect", "the bad commit %s does not build: give a bad commit that builds",
		           b->bad),
		       2;
	if (n > 0 && strcmp(b->list.ids[n - 1], b->bad) == 0) {
		hi = (long)n - 1;
		b->marks[n - 1] = BISECT_BAD;
	}
	if (bisect_serve(b, good, bad) < 0)
		return 2;
	if (bisect_ask(b, good, bad) < 0)
		return 2;
	printf("good %.12s: ", b->good);
	bisect_print_answer(stdout, good->answer);
	printf("bad  %.12s: ", b->bad);
	bisect_print_answer(stdout, bad->answer);
	if (json_equal(good->answer, bad->answer)) {
		printf("the same answer at the good and the bad commit: nothing to bisect\n");
		printf("builds: %d\n", b->nbuilds);
		return 1;
	}
	for (;;) {
		long mid = lo + (hi - lo) / 2, pick = -1;
		int steps;

		/* the untested commit nearest the middle that builds, as git bisect skip */
		for (long d = 0; d < hi - lo && pick < 0; d++) {
			if (mid + d > lo && mid + d < hi && b->marks[mid + d] == BISECT_UNTESTED)
				pick = mid + d;
			else if (mid - d > lo && mid - d < hi && b->marks[mid - d] == BISECT_UNTESTED)
				pick = mid - d;
		}
		if (pick < 0)
			break;
		bisect_short(b->list.ids[pick], shortid);
		steps = bisect_log2_ceil((size_t)(hi - lo));
		bisect_say(b, "%ld commits left, ~%d step%s: testing %s", hi - lo, steps,
		    steps == 1 ? "" : "s", shortid);
		if ((rc = bisect_test(b, (size_t)pick, &b->builds[0], &b->builds[1])) < 0)
			return 2;
		b->marks[pick] = (enum bisect_mark)rc;
		if (rc == BISECT_GOOD)
			lo = pick;
		else if (rc == BISECT_BAD)
			hi = pick;
		bisect_say(b, "%s: %s", shortid,
		    rc == BISECT_GOOD      ? "the good answer"
		        : rc == BISECT_BAD ? "another answer (bad)"
		                           : "skipped (does not build)");
	}
	good = &b->builds[0];
	for (long i = lo + 1; i < hi; i++)
		if (b->marks[i] == BISECT_SKIPPED)
			amb = 1;
	if (amb) {
		printf(
		    "the first bad commit could be any of (those that do not build, and the first bad one after them):\n");
		for (long i = lo + 1; i < hi; i++)
			bisect_print_commit(b, "  skipped ", b->list.ids[i]);
		bisect_print_commit(b, "  bad     ", hi < (long)n ? b->list.ids[hi] : b->bad);
	} else if (hi == (long)n) {
		/* only with paths: no commit touching them gives another answer */
		bisect_print_commit(b, "first bad commit: ", b->bad);
		printf("(no earlier commit touching the paths given differs: the bad commit itself)\n");
	} else {
		bisect_print_commit(b, "first bad commit: ", b->list.ids[hi]);
	}
	if (!amb) {
		const char *id = hi < (long)n ? b->list.ids[hi] : b->bad;
		struct bisect_build *fb = NULL;
		for (int i = 0; i < b->nbuilds; i++)
			if (strcmp(b->builds[i].commit, id) == 0 && b->builds[i].answer != NULL)
				fb = &b->builds[i];
		printf("  at the good commit %.12s: ", b->good);
		bisect_print_answer(stdout, good->answer);
		printf("  at the first bad  %.12s: ", id);
		bisect_print_answer(stdout, fb != NULL ? fb->answer : b->builds[1].answer);
	}
	nbuilt = 0;
	for (int i = 0; i < b->nbuilds; i++)
		nbuilt += b->builds[i].built;
	printf(
	    "builds: %d for %zu commits (at most %d without skips)", b->nbuilds, n, bisect_log2_ceil(n) + 2);
	if ((size_t)b->nbuilds > nbuilt)
		printf(", %zu did not build", (size_t)b->nbuilds - nbuilt);
	putchar('\n');
	for (int i = 0; i < b->nbuilds; i++) {
		char subject[BISECT_SUBJECT];
		gitsrc_subject(b->src, b->builds[i].commit, subject, sizeof subject);
		printf("  %-16s %.12s %s%s\n", b->builds[i].name, b->builds[i].commit,
		    b->builds[i].built ? "" : "(does not build) ", subject);
	}
	return amb ? 1 : 0;
}

int bisect_command(int argc, char **argv)
{
	struct bisect b;
	int rc = 2;

	memset(&b, 0, sizeof b);
	b.t0 = bisect_now();
	if (bisect_parse(&b, argc, argv) < 0)
		return 2;
	if (gitsrc_check(b.src) < 0 || gitsrc_commit(b.src, b.good_ref, b.good) < 0 ||
	    gitsrc_commit(b.src, b.bad_ref, b.bad) < 0)
		return 2;
	if (gitsrc_is_ancestor(b.src, b.good, b.bad) != 1) {
		cmd_error("bisect", "--good %s is not an ancestor of --bad %s", b.good_ref, b.bad_ref);
		return 2;
	}
	if (bisect_case_body(&b) < 0 ||
	    proc_find_root("bisect", b.exe, sizeof b.exe, b.root, sizeof b.root) < 0)
		goto out;
	if (gitsrc_range(b.src, b.good, b.bad, b.paths, b.npaths, &b.list) < 0)
		goto out;
	if (b.list.n == 0) {
		cmd_error("bisect", "no commit in %s..%s%s", b.good_ref, b.bad_ref,
		    b.npaths > 0 ? " touches the paths given" : "");
		goto out;
	}
	if ((b.marks = calloc(b.list.n, sizeof *b.marks)) == NULL) {
		cmd_error("bisect", "out of memory");
		goto out;
	}
	bisect_say(&b, "%zu commits in %.12s..%.12s (first-parent%s), at most %d builds", b.list.n, b.good,
	    b.bad, b.npaths > 0 ? ", touching the paths given" : "", bisect_log2_ceil(b.list.n) + 2);
	if (bisect_make_work(&b) < 0)
		goto out;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || (b.curl = curl_easy_init()) == NULL) {
		cmd_error("bisect", "cannot initialise libcurl");
		goto out;
	}
	rc = bisect_run(&b);
	fflush(stdout);
out:
	bisect_stop(&b);
	if (b.curl != NULL) {
		curl_easy_cleanup(b.curl);
		curl_global_cleanup();
	}
	if (b.work[0] != '\0') {
		if (rc == 2)
			fprintf(stderr, "phpcmp bisect: the work folder is kept: %s\n", b.work);
		else if (b.work_arg == NULL)
			rmtree(b.work);
	}
	for (int i = 0; i < b.nbuilds; i++)
		json_decref(b.builds[i].answer);
	free(b.builds);
	free(b.marks);
	free(b.body);
	gitsrc_list_release(&b.list);
	bisect_say(&b, "done (exit %d)", rc);
	return rc;
}
