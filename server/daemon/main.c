/*
 * phpcmp: the daemon (`serve`), the CI client (`submit`: cli/submit.c), `review` (cli/review.c),
 * `bisect` (cli/bisect.c), `token` and `help`.
 *
 * serve: read the configuration (file, then flags), open the database, find
 * and prepare each build and its worker, start the runner and the HTTP
 * server, then wait for SIGINT/SIGTERM and take it all down in reverse.
 * Nothing below main() exits: errors come back up as -1 and a message.
 */
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "api.h"
#include "http.h"
#include "cmdline.h"
#include "services.h"

static int main_sigpipe[2] = { -1, -1 };
static volatile sig_atomic_t main_stop_signal;

static void main_usage(FILE *f)
{
	fputs("usage: phpcmp serve [options]      run the daemon\n"
	      "       phpcmp submit [--url URL] PATH...\n"
	      "                                   run case files (or folders of them) on the\n"
	      "                                   daemon's builds; exit 0 all same, 1 any\n"
	      "                                   differ, 2 any error (phpcmp submit --help)\n"
	      "       phpcmp review --base SPEC --candidate NAME=PATCH[,PATCH...]...\n"
	      "                                   build, run everything on every build, and write\n"
	      "                                   the verdict as a pull-request comment; exit 0\n"
	      "                                   same, 1 differences, 2 error (phpcmp review --help)\n"
	      "       phpcmp bisect --src REPO --good REF --bad REF (--case FILE | --code CODE)\n"
	      "                                   the first commit of a php-src history whose\n"
	      "                                   answer differs (phpcmp bisect --help)\n"
	      "       phpcmp token add NAME | list | revoke NAME|ID  [--db PATH]\n"
	      "                                   API tokens (see docs/hardening.md)\n"
	      "       phpcmp help\n"
	      "\n"
	      "serve options (a config file takes the same keys as `key = value` lines,\n"
	      "without the dashes; flags override it):\n"
	      "  --config FILE         read options from FILE first\n"
	      "  --listen ADDR         IPv4 or IPv6 address to listen on (127.0.0.1)\n"
	      "  --port N              TCP port, 0 for any free one (8080)\n"
	      "  --db PATH             SQLite database (phpcmp.db)\n"
	      "  --build NAME=PREFIX   a libphp build (repeatable, 2 to 8): the first is the\n"
	      "                        base, every other a candidate compared with it\n"
	      "                        (base=builds/base head=builds/head)\n"
	      "  --base NAME           which of the builds is the base (the first)\n"
	      "  --cases DIR           stored cases (cases)\n"
	      "  --web DIR             the page's files (web)\n"
	      "  --state DIR           compiled worker cores (state)\n"
	      "  --builds-dir DIR      where POST /api/builds may find a build's prefix (builds)\n"
	      "  --timeout-ms N        per-case time limit (5000)\n"
	      "  --memory-limit X      PHP memory_limit for cases (128M)\n"
	      "  --ini NAME:KEY=VALUE  a PHP ini setting for build NAME only (repeatable),\n"
	      "                        e.g. head:serialize_precision=17\n"
	      "  --measure-timeout-ms N  time limit of a measured case under callgrind (120000)\n"
	      "  --measure-budget-ms N  a submitted case's measured calls stop after about this\n"
	      "                        long, the count capped and said so (5000)\n"
	      "  --asan NAME=PREFIX    the AddressSanitizer flavour of build NAME (repeatable;\n"
	      "                        scripts/build-php.sh --flavour asan)\n"
	      "  --asan-sample N       after each generated run, N of its cases on the asan\n"
	      "                        flavours of its builds: memory errors (0: none)\n"
	      "  --read-auth on|off    reading the API needs a token too (off)\n"
	      "  --run-stored on|off   queue a run of the stored cases at startup (off;\n"
	      "                        `make run` turns it on)\n"
	      "  --phpt-dir DIR        a folder of .phpt tests a phpt run may read, besides\n"
	      "                        the default ext/json/tests (repeatable)\n"
	      "  --host NAME           a host name the daemon answers for besides its listen\n"
	      "                        address and localhost (repeatable); other Host headers\n"
	      "                        are refused (DNS rebinding)\n"
	      "  --max-connections N   HTTP requests served at once; beyond, 503 (128)\n"
	      "  --max-client-connections N  connections open from one address (256)\n"
	      "  --max-client-uploads N  request bodies one address may send slowly at once (16)\n"
	      "  --max-callgrind-dumps N  measured results' callgrind files kept, the newest (1000)\n"
	      "  --max-case-requests N POST /api/cases running at once; beyond, 503 (64)\n"
	      "  --max-queued-runs N   runs waiting to start; beyond, 429 (16)\n"
	      "  --reduce-budget-ms N  wall time to reduce one mismatch (2000)\n"
	      "  --reduce-max-executions N  cases run to reduce one mismatch; 0: off (400)\n"
	      "  --reduce-sample N     members reduced per bucket besides its first (1)\n"
	      "  --reduce-case-timeout-ms N  time limit of one case run by the reducer (1000)\n"
	      "  --reduce-max-pending N  buckets of submitted cases waiting for reduction;\n"
	      "                        the rest are skipped (64)\n"
	      "  --db-max-size N[KMG]  cap on the database file; 0 for none (4G)\n"
	      "  --valgrind PATH       valgrind for measuring workers (valgrind, from PATH)\n"
	      "  --worker PATH         worker loader executable (build/phpcmp-worker)\n"
	      "  --core-src DIR        worker core sources (server/core)\n"
	      "sandbox options (docs/sandbox.md; sizes take K/M/G, limits take unlimited):\n"
	      "  --sandbox LAYERS      all, none, or some of netns,caps,seccomp,landlock,\n"
	      "                        rlimits,php (all)\n"
	      "  --sandbox-dir DIR     where each worker's private folder is made ($TMPDIR or /tmp)\n"
	      "  --limit-cpu S         CPU seconds per case (10; a measured case: + its timeout)\n"
	      "  --limit-as SIZE       address space of a worker (1G)\n"
	      "  --measure-limit-as SIZE  the same for a measuring worker under valgrind (4G)\n"
	      "  --limit-fsize SIZE    largest file a worker may write (16M)\n"
	      "  --limit-disk SIZE     what a worker's private folder may hold in all (64M)\n"
	      "  --limit-nofile N      open files of a worker (64)\n"
	      "  --limit-nproc N       processes of the user a worker may add to (0)\n"
	      "  --disable-functions LIST  PHP functions to disable, or none (built-in list)\n"
	      "\n"
	      "submit options:\n"
	      "  --url URL             the daemon ($PHPCMP_URL or " CLIENT_DEFAULT_URL ")\n"
	      "  $PHPCMP_TOKEN         sent as \"Authorization: Bearer ...\" when set\n",
	    f);
}

/* ---- serve ---- */

static void main_on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;

	/* Only note it: the main thread does the work. */
	main_stop_signal = sig;
	if (write(main_sigpipe[1], &c, 1) < 0) {
		/* full pipe: a stop is already pending */
	}
	errno = saved;
}

static int main_signals(void)
{
	struct sigaction sa;

	if (pipe2(main_sigpipe, O_CLOEXEC) < 0)
		return cmd_error(NULL, "pipe: %s", strerror(errno));
	fcntl(main_sigpipe[1], F_SETFL, O_NONBLOCK);
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = main_on_signal;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0)
		return cmd_error(NULL, "sigaction: %s", strerror(errno));
	/* A worker dying mid-write must not kill the daemon; EPIPE is handled. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/*
 * Wait for SIGINT/SIGTERM.  poll with a timeout rather than a blocking read:
 * a runtime that defers signal handlers to its next intercepted call (TSan)
 * would otherwise never run ours while read restarts under SA_RESTART.
 */
static int main_wait_signal(void)
{
	struct pollfd pfd = { .fd = main_sigpipe[0], .events = POLLIN };

	while (main_stop_signal == 0)
		poll(&pfd, 1, 1000);
	return main_stop_signal;
}

/* The first build before builds[i] with the same library (i if none). */
static int same_library_before(const struct config *c, int i)
{
	int j;
	for (j = 0; j < i; j++)
		if (strcmp(c->builds[j].sha256, c->builds[i].sha256) == 0 &&
		    strcmp(c->builds[j].prefix, c->builds[i].prefix) == 0)
			break;
	return j;
}

/*
 * Find and compile each build and start its worker now, so a build that
 * cannot load stops the daemon here with the reason, and the PHP version
 * from the worker's hello is known to health and the builds table.
 */
static int main_builds(struct app *app, struct serve_opts *o, int *nworkers)
{
	struct config *c = &o->cfg;
	char err[1024];
	int i, j, k;

	/* Every --ini names one of the builds. */
	for (j = 0; j < o->nini_args; j++) {
		for (k = 0; k < o->nbuild_args; k++) {
			size_t n = strlen(o->build_args[k].name);
			if (strncmp(o->ini_args[j], o->build_args[k].name, n) == 0 &&
			    o->ini_args[j][n] == ':')
				break;
		}
		if (k == o->nbuild_args)
			return cmd_error(NULL, "ini: \"%s\" names no configured build", o->ini_args[j]);
	}
	/* Before any worker starts: a worker dying mid-write is an EPIPE the
	 * daemon handles, not a signal that ends it (worker_init used to set
	 * this, a process-wide side effect of a library call). */
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < o->nbuild_args; i++) {
		struct build *b = &c->builds[i];

		if (build_discover(b, o->build_args[i].name, o->build_args[i].prefix, err, sizeof err) < 0)
			return cmd_error(
			    NULL, "build %s (%s): %s", o->build_args[i].name, o->build_args[i].prefix, err);
		b->asan_of = o->build_args[i].asan_of;
		if (b->asan_of > 0 && strstr(b->sanitizer_preload, "libasan") == NULL)
			return cmd_error(NULL,
			    "asan %s (%s): not an AddressSanitizer build (its libphp needs no "
			    "libasan; scripts/build-php.sh --flavour asan)",
			    c->builds[b->asan_of - 1].name, o->build_args[i].prefix);
		for (j = 0; j < o->nini_args; j++) {
			size_t n = strlen(b->name);
			if (strncmp(o->ini_args[j], b->name, n) != 0 || o->ini_args[j][n] != ':')
				continue;
			if (b->nini >= BUILD_MAX_INI)
				return cmd_error(
				    NULL, "ini: at most %d settings for build %s", BUILD_MAX_INI, b->name);
			snprintf(b->ini[b->nini++], sizeof b->ini[0], "%s", o->ini_args[j] + n + 1);
		}
		c->nbuilds = i + 1;
		/* Said, not refused: comparing outputs across kinds is fine, only
		 * their instruction counts do not compare (docs/builds.md). */
		if (i > 0 && b->asan_of == 0 && strcmp(b->kind, c->builds[0].kind) != 0)
			fprintf(stderr,
			    "phpcmp: warning: build %s is a %s build, the base %s a %s build: "
			    "their instruction counts do not compare\n",
			    b->name, b->kind, c->builds[0].name, c->builds[0].kind);
	}
	/* Every build's worker core, compiled side by side (a cold start with
	 * several builds waited for one compiler after another). */
	struct build *compile[MAX_BUILDS];
	int ncompile = 0, failed;
	for (i = 0; i < o->nbuild_args; i++) {
		/* The same library under another name: the core compiled for it serves. */
		if (same_library_before(c, i) == i)
			compile[ncompile++] = &c->builds[i];
	}
	if (build_compile_cores(compile, ncompile, c, &failed, err, sizeof err) < 0)
		return cmd_error(
		    NULL, "build %s: worker core: %s", failed >= 0 ? compile[failed]->name : "?", err);
	for (i = 0; i < o->nbuild_args; i++) {
		struct build *b = &c->builds[i];
		if ((j = same_library_before(c, i)) < i)
			memcpy(b->core_path, c->builds[j].core_path, sizeof b->core_path); /* j < i */
		if (worker_init(&app->workers[i], b) < 0)
			return cmd_error(NULL, "build %s: worker: cannot initialise", b->name);
		if (coverage_idle(&app->workers[i], c, err, sizeof err) < 0)
			return cmd_error(NULL, "build %s: coverage counters: %s", b->name, err);
		*nworkers = i + 1;
		if (worker_prestart(&app->workers[i], c) < 0)
			return cmd_error(NULL, "build %s: the worker cannot start: %s", b->name,
			    app->workers[i].last_failure);
		if (db_build_record(app->db, b, err, sizeof err) < 0)
			return cmd_error(NULL, "build %s: %s", b->name, err);
		fprintf(stderr, "phpcmp: %s: PHP %s, %s (sha256 %.12s), sandbox: %s\n", b->name,
		    b->php_version[0] != '\0' ? b->php_version : "?", b->lib_path, b->sha256, b->sandbox);
	}
	return 0;
}

/*
 * Every build's prefix is there, before anything is made: a relative one
 * (the default builds/base) is relative to where serve runs, which is said
 * with what to do.  0, or -1 said.
 */
static int main_check_prefixes(const struct serve_opts *o)
{
	char cwd[PATH_MAX];
	struct stat st;

	for (int i = 0; i < o->nbuild_args; i++) {
		const char *prefix = o->build_args[i].prefix;
		if (stat(prefix, &st) == 0)
			continue;
		int e = errno;
		if (prefix[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
			return cmd_error(
			    NULL, "build %s: prefix %s: %s", o->build_args[i].name, prefix, strerror(e));
		return cmd_error(NULL,
		    "build %s: prefix %s: %s (in %s, where serve runs: run it from the repository root, "
		    "where `make builds` puts the default builds in builds/, or give --build %s=/absolute/prefix)",
		    o->build_args[i].name, prefix, strerror(e), cwd, o->build_args[i].name);
	}
	return 0;
}

/* Everything serve runs, in order: the builds' prefixes, the port, then
 * the database (a daemon whose port is in use stops before it creates or
 * migrates the database: issue 46; one that would be open to the network
 * stops before a run is marked interrupted, a core compiled or a worker
 * started: issue 23), then the builds' workers, the runs and the reducer,
 * then HTTP.  -1 when something could not start (said on stderr); *http
 * and *nworkers hold what started, for main_stop. */
static int main_start(struct app *app, struct serve_opts *o, struct http **http, int *nworkers)
{
	struct http_handler handler;
	char err[1024];
	int n;

	if (main_signals() < 0)
		return -1;
	if (main_check_prefixes(o) < 0)
		return -1;
	/* Bound, not yet serving (http_start, last). */
	handler = api_http_handler(app);
	if ((*http = http_bind(&o->http, &handler, err, sizeof err)) == NULL)
		return cmd_error(NULL, "%s", err);
	if ((app->db = db_open(o->cfg.db_path, err, sizeof err)) == NULL)
		return cmd_error(NULL, "%s", err);
	if (db_set_max_bytes(app->db, o->cfg.db_max_bytes, err, sizeof err) < 0 ||
	    auth_startup(app, o->http.listen_addr, err, sizeof err) < 0)
		return cmd_error(NULL, "%s", err);
	if ((n = db_runs_interrupt(app->db, err, sizeof err)) < 0)
		return cmd_error(NULL, "%s", err);
	if (n > 0)
		fprintf(
		    stderr, "phpcmp: %d run(s) left unfinished by the last daemon marked interrupted\n", n);
	/* Callgrind files past the bound (a lower --max-callgrind-dumps). */
	runs_prune_dumps(app);
	if (phptrun_serve(&o->cfg, err, sizeof err) < 0)
		return cmd_error(NULL, "%s", err);
	if ((app->workers = calloc(MAX_BUILD_SLOTS, sizeof *app->workers)) == NULL)
		return cmd_error(NULL, "out of memory");
	if (main_builds(app, o, nworkers) < 0)
		return -1;
	/* Released PHP under node (--references): after the builds, never failing the start. */
	if (builds_references(app, err, sizeof err) < 0)
		return cmd_error(NULL, "%s", err);
	if ((app->runs = runs_start(app, err, sizeof err)) == NULL)
		return cmd_error(NULL, "%s", err);
	if ((app->reducer = reduce_start(app, err, sizeof err)) == NULL)
		return cmd_error(NULL, "%s", err);
	if (o->cfg.run_stored) {
		/* The page opens with every stored case's verdict. */
		struct run_params none = { 0 };
		int64_t run_id;
		if (runs_create(app->runs, "stored", &none, NULL, 0, &run_id, err, sizeof err) != 0)
			fprintf(stderr, "phpcmp: could not queue the stored cases: %s\n", err);
	}
	if (http_start(*http, err, sizeof err) < 0)
		return cmd_error(NULL, "%s", err);
	return 0;
}

/* Reverse order: no new requests, then no runs, then no workers.  A
 * request waiting for a run (?wait=) ends first. */
static void main_stop(struct app *app, struct serve_opts *o, struct http *http, int nworkers)
{
	char err[1024];

	__atomic_store_n(&app->stopping, 1, __ATOMIC_SEQ_CST);
	http_stop(http);
	runs_stop(app->runs);
	reduce_stop(app->reducer);
	builds_references_stop(app);
	if (app->db != NULL && db_runs_interrupt(app->db, err, sizeof err) < 0)
		cmd_error(NULL, "%s", err);
	/* Every build's worker, those POST /api/builds added too. */
	if (app->runs != NULL)
		nworkers = o->cfg.nbuilds;
	for (int i = 0; i < nworkers; i++)
		worker_release(&app->workers[i]);
	free(app->workers);
	confine_finish();
	fairq_destroy(&app->measure_q);
	db_close(app->db);
	phptrun_unserve();
}

static int main_serve(int argc, char **argv)
{
	struct serve_opts o;
	struct app app;
	struct http *http = NULL;
	int nworkers = 0, rc = 1, sig;

	memset(&app, 0, sizeof app);
	fairq_init(&app.measure_q);
	/* Results and answers of a few MiB come and go on many threads:
	 * glibc's mmap threshold would grow to their size and keep freed ones
	 * in each thread's arena.  Fixed, every buffer over 256 KiB is its own
	 * mapping, returned to the system when freed (issue 9: 64 concurrent
	 * large outputs held 871 MiB resident, then 205 MiB, without it). */
	mallopt(M_MMAP_THRESHOLD, 256 << 10);
	mallopt(M_ARENA_MAX, 4);
	if (serve_opts_parse(&o, argc, argv) < 0) {
		serve_opts_release(&o);
		return 2;
	}
	app.config = &o.cfg;
	app.started_ms = (int64_t)clock_ms();
	if (main_start(&app, &o, &http, &nworkers) == 0) {
		fprintf(stderr, "phpcmp %s: serving http://%s%s%s:%d/ (database %s)\n", PHPCMP_VERSION,
		    strchr(o.http.listen_addr, ':') != NULL ? "[" : "", o.http.listen_addr,
		    strchr(o.http.listen_addr, ':') != NULL ? "]" : "", http_port(http), o.cfg.db_path);
		sig = main_wait_signal();
		fprintf(stderr, "phpcmp: %s, stopping\n",
		    sig == SIGINT        ? "SIGINT"
		        : sig == SIGTERM ? "SIGTERM"
		                         : "signal");
		rc = 0;
	}
	main_stop(&app, &o, http, nworkers);
	serve_opts_release(&o);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		main_usage(stderr);
		return 2;
	}
	/* What serve and token make -- the database and its -wal/-shm, the
	 * state folder, the worker cores, the logs -- is this user's alone: a
	 * token's name, reviews and cases are not every local user's to read
	 * (docs/hardening.md). */
	if (strcmp(argv[1], "serve") == 0 || strcmp(argv[1], "token") == 0)
		umask(077);
	if (strcmp(argv[1], "serve") == 0)
		return main_serve(argc - 2, argv + 2);
	if (strcmp(argv[1], "submit") == 0)
		return submit_command(argc - 2, argv + 2);
	if (strcmp(argv[1], "review") == 0)
		return review_command(argc - 2, argv + 2);
	if (strcmp(argv[1], "bisect") == 0)
		return bisect_command(argc - 2, argv + 2);
	if (strcmp(argv[1], "token") == 0)
		return auth_token_command(argc - 2, argv + 2);
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		main_usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("phpcmp %s\n", PHPCMP_VERSION);
		return 0;
	}
	cmd_error(NULL, "unknown command \"%s\"", argv[1]);
	main_usage(stderr);
	return 2;
}
