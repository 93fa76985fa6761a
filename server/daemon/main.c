/*
 * phpcmp: the daemon (`serve`), the CI client (`submit`: cli/submit.c), `review` (cli/review.c),
 * `token` and `help`.
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
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "http.h"
#include "services.h"

#define MAIN_MAX_CONFIG_SIZE (64u << 10)
#define MAIN_MAX_TIMEOUT_MS 3600000
#define MAIN_MAX_BOUND 100000

/* Strings read from a config file live until exit. */
struct main_strings {
	char *s[256];
	int n;
};

struct main_build_arg {
	const char *name, *prefix;
	int asan_of; /* an --asan flavour: 1 + the index of its build; 0 for --build */
};

struct main_opts {
	struct config cfg;
	const char *config_file;
	const char *base_name; /* --base NAME: that build is the base; NULL: the first */
	int nbuild_args;
	struct main_build_arg build_args[2 * MAX_BUILDS]; /* --build, then the --asan flavours */
	int nasan_args;
	struct main_build_arg asan_args[MAX_BUILDS]; /* --asan NAME=PREFIX, by build name */
	struct main_strings strings;
	int nini_args; /* --ini NAME:k=v, by build name */
	const char *ini_args[MAX_BUILDS * BUILD_MAX_INI];
};

static int main_sigpipe[2] = { -1, -1 };
static volatile sig_atomic_t main_stop_signal;

static int main_error(const char *fmt, ...)
{
	va_list ap;

	fputs("phpcmp: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

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

/* ---- configuration ---- */

static const char *main_keep(struct main_opts *o, const char *s, size_t len)
{
	char *p;

	if (o->strings.n >= (int)(sizeof o->strings.s / sizeof o->strings.s[0]))
		return NULL;
	if ((p = strndup(s, len)) == NULL)
		return NULL;
	o->strings.s[o->strings.n++] = p;
	return p;
}

static void main_opts_release(struct main_opts *o)
{
	int i;

	for (i = 0; i < o->strings.n; i++)
		free(o->strings.s[i]);
	o->strings.n = 0;
	free(o->cfg.builds);
	o->cfg.builds = NULL;
	pthread_mutex_destroy(&o->cfg.builds_lock);
}

static int main_parse_int(const char *what, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		return main_error("%s: expected an integer %ld .. %ld, got \"%s\"", what, min, max, s);
	*out = v;
	return 0;
}

/* NAME=PREFIX; from_file builds are replaced by any given on the command line. */
static int main_add_build(struct main_opts *o, const char *spec)
{
	const char *eq = strchr(spec, '=');
	const char *name;
	int i;

	if (eq == NULL || eq[1] == '\0' || !build_name_ok(spec, (size_t)(eq - spec)))
		return main_error(
		    "build: expected NAME=PREFIX (NAME of letters, digits, . _ -), got \"%s\"", spec);
	if (o->nbuild_args >= MAX_BUILDS)
		return main_error(
		    "build: at most %d builds (a base and %d candidates)", MAX_BUILDS, MAX_BUILDS - 1);
	if ((name = main_keep(o, spec, (size_t)(eq - spec))) == NULL)
		return main_error("out of memory");
	for (i = 0; i < o->nbuild_args; i++)
		if (strcmp(o->build_args[i].name, name) == 0)
			return main_error("build: %s is given twice", name);
	o->build_args[o->nbuild_args].name = name;
	o->build_args[o->nbuild_args].prefix = eq + 1;
	o->nbuild_args++;
	return 0;
}

/* on/yes/true/1 -> 1, off/no/false/0 -> 0, else -1 with a message. */
static int main_parse_onoff(const char *key, const char *value)
{
	if (strcmp(value, "on") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "true") == 0 ||
	    strcmp(value, "1") == 0)
		return 1;
	if (strcmp(value, "off") == 0 || strcmp(value, "no") == 0 || strcmp(value, "false") == 0 ||
	    strcmp(value, "0") == 0)
		return 0;
	return main_error("%s: expected on or off, got \"%s\"", key, value);
}

/* Bytes: digits with an optional K/M/G (powers of 1024); 0, or at least 256K. */
static int main_parse_bytes(const char *what, const char *s, int64_t *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift != 0)
		end++;
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v > (1ULL << 50) >> shift ||
	    (v != 0 && (v << shift) < (256u << 10)))
		return main_error(
		    "%s: expected 0 or a size of at least 256K, like 512M or 4G, got \"%s\"", what, s);
	*out = (int64_t)(v << shift);
	return 0;
}

/* NAME:key=value; checked against the builds once they are known. */
static int main_add_ini(struct main_opts *o, const char *spec)
{
	const char *colon = strchr(spec, ':'), *eq = colon != NULL ? strchr(colon, '=') : NULL;
	size_t klen = eq != NULL ? (size_t)(eq - colon - 1) : 0;

	if (colon == NULL || eq == NULL || !build_name_ok(spec, (size_t)(colon - spec)) || klen == 0 ||
	    strspn(colon + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != klen)
		return main_error(
		    "ini: expected NAME:KEY=VALUE (a build name, a PHP ini name), got \"%s\"", spec);
	if (strlen(colon + 1) >= sizeof(((struct build *)0)->ini[0]))
		return main_error("ini: \"%s\" is too long", spec);
	if (o->nini_args >= (int)(sizeof o->ini_args / sizeof o->ini_args[0]))
		return main_error("ini: at most %d settings per build", BUILD_MAX_INI);
	o->ini_args[o->nini_args++] = spec;
	return 0;
}

/* A PHP ini size: digits with an optional K/M/G, or -1 for no limit. */
static int main_size_ok(const char *v)
{
	size_t n = strspn(v, "0123456789");

	if (strcmp(v, "-1") == 0)
		return 1;
	if (n == 0)
		return 0;
	return v[n] == '\0' || (strchr("KkMmGg", v[n]) != NULL && v[n + 1] == '\0');
}

/* The options that set one field of the configuration: a string, a whole
 * number in [min, max], on/off, or a size in bytes, with its default as the
 * option would be written (NULL: zero).  Adding such an option is one row
 * here (and its line in docs/config.md). */
enum main_option_kind { OPT_STRING, OPT_INT, OPT_ONOFF, OPT_BYTES };
/* A field's offset, and a compiler warning if it is not of the kind's type
 * (pointers to distinct types compared, never evaluated: inside sizeof). */
#define OPT_FIELD(field, type) \
	(offsetof(struct config, field) + 0 * sizeof(&((struct config *)0)->field == (type *)0))
#define OPT(key, kind, field, min, max, def)                                \
	{                                                                   \
		key, kind, OPT_FIELD(field, OPT_TYPE_##kind), min, max, def \
	}
#define OPT_TYPE_OPT_STRING const char *
#define OPT_TYPE_OPT_INT int
#define OPT_TYPE_OPT_ONOFF int
#define OPT_TYPE_OPT_BYTES int64_t
static const struct main_option {
	const char *key;
	enum main_option_kind kind;
	size_t offset;
	long min, max;
	const char *def;
} main_options[] = {
	OPT("listen", OPT_STRING, listen_addr, 0, 0, "127.0.0.1"),
	OPT("port", OPT_INT, port, 0, 65535, "8080"),
	OPT("db", OPT_STRING, db_path, 0, 0, "phpcmp.db"),
	OPT("cases", OPT_STRING, cases_dir, 0, 0, "cases"),
	OPT("web", OPT_STRING, web_dir, 0, 0, "web"),
	OPT("state", OPT_STRING, state_dir, 0, 0, "state"),
	OPT("builds-dir", OPT_STRING, builds_dir, 0, 0, "builds"),
	OPT("timeout-ms", OPT_INT, case_timeout_ms, 1, MAIN_MAX_TIMEOUT_MS, "5000"),
	OPT("read-auth", OPT_ONOFF, read_auth, 0, 0, NULL),
	OPT("run-stored", OPT_ONOFF, run_stored, 0, 0, NULL),
	OPT("max-connections", OPT_INT, max_connections, 1, MAIN_MAX_BOUND, "128"),
	OPT("max-client-connections", OPT_INT, max_client_connections, 1, MAIN_MAX_BOUND, "256"),
	OPT("max-callgrind-dumps", OPT_INT, max_callgrind_dumps, 1, MAIN_MAX_BOUND, "1000"),
	OPT("max-client-uploads", OPT_INT, max_client_uploads, 1, MAIN_MAX_BOUND, "16"),
	OPT("max-case-requests", OPT_INT, max_case_requests, 1, MAIN_MAX_BOUND, "64"),
	OPT("reduce-budget-ms", OPT_INT, reduce_budget_ms, 1, MAIN_MAX_TIMEOUT_MS, "2000"),
	OPT("reduce-max-executions", OPT_INT, reduce_max_executions, 0, MAIN_MAX_BOUND, "400"),
	OPT("reduce-case-timeout-ms", OPT_INT, reduce_case_timeout_ms, 1, MAIN_MAX_TIMEOUT_MS, "1000"),
	OPT("reduce-max-pending", OPT_INT, reduce_max_pending, 1, MAIN_MAX_BOUND, "64"),
	OPT("asan-sample", OPT_INT, asan_sample, 0, RUN_MAX_COUNT, NULL),
	OPT("measure-budget-ms", OPT_INT, measure_budget_ms, 1, MAIN_MAX_TIMEOUT_MS, "5000"),
	OPT("reduce-sample", OPT_INT, reduce_sample, 0, 100, "1"),
	OPT("max-queued-runs", OPT_INT, max_queued_runs, 1, MAIN_MAX_BOUND, "16"),
	/* years of a team's cases, and never a full disk by surprise */
	OPT("db-max-size", OPT_BYTES, db_max_bytes, 0, 0, "4G"),
	OPT("measure-timeout-ms", OPT_INT, measure_timeout_ms, 1, MAIN_MAX_TIMEOUT_MS, "120000"),
	OPT("valgrind", OPT_STRING, valgrind_bin, 0, 0, "valgrind"),
	OPT("worker", OPT_STRING, worker_bin, 0, 0, "build/phpcmp-worker"),
	OPT("core-src", OPT_STRING, core_src, 0, 0, "server/core"),
};
#undef OPT
#undef OPT_FIELD
#undef OPT_TYPE_OPT_STRING
#undef OPT_TYPE_OPT_INT
#undef OPT_TYPE_OPT_ONOFF
#undef OPT_TYPE_OPT_BYTES

/* One row of main_options applied to the configuration. */
static int main_set_field(struct config *c, const struct main_option *opt, const char *value)
{
	char *field = (char *)c + opt->offset;
	long n = 0;
	int on;

	switch (opt->kind) {
	case OPT_STRING:
		*(const char **)(void *)field = value;
		return 0;
	case OPT_INT:
		if (main_parse_int(opt->key, value, opt->min, opt->max, &n) < 0)
			return -1;
		*(int *)(void *)field = (int)n;
		return 0;
	case OPT_ONOFF:
		if ((on = main_parse_onoff(opt->key, value)) < 0)
			return -1;
		*(int *)(void *)field = on;
		return 0;
	case OPT_BYTES:
		return main_parse_bytes(opt->key, value, (int64_t *)(void *)field);
	}
	return main_error("%s: unknown kind of option", opt->key);
}

/* --asan NAME=PREFIX: the asan flavour of a --build. */
static int main_add_asan(struct main_opts *o, const char *value)
{
	const char *eq = strchr(value, '=');

	if (eq == NULL || eq[1] == '\0' || !build_name_ok(value, (size_t)(eq - value)))
		return main_error("asan: expected NAME=PREFIX (NAME a --build's), got \"%s\"", value);
	if (o->nasan_args >= MAX_BUILDS)
		return main_error("asan: at most %d, one per build", MAX_BUILDS);
	if ((o->asan_args[o->nasan_args].name = main_keep(o, value, (size_t)(eq - value))) == NULL)
		return main_error("out of memory");
	o->asan_args[o->nasan_args++].prefix = eq + 1;
	return 0;
}

/* --host NAME: one more name the daemon answers to. */
static int main_add_host(struct config *c, const char *value)
{
	if (c->nhosts >= MAX_HOSTS)
		return main_error("host: at most %d names", MAX_HOSTS);
	if (value[strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")] != '\0')
		return main_error(
		    "host: \"%s\" is not a host name (letters, digits, '.', '-'; no port)", value);
	c->hosts[c->nhosts++] = value;
	return 0;
}

/* One option by name (flags and config file keys alike). */
static int main_set(struct main_opts *o, const char *key, const char *value)
{
	struct config *c = &o->cfg;
	char err[256];
	int rc;

	if (value[0] == '\0')
		return main_error("%s: empty value", key);
	for (size_t i = 0; i < sizeof main_options / sizeof main_options[0]; i++)
		if (strcmp(key, main_options[i].key) == 0)
			return main_set_field(c, &main_options[i], value);
	if (strcmp(key, "build") == 0)
		return main_add_build(o, value);
	if (strcmp(key, "base") == 0) {
		if (!build_name_ok(value, strlen(value)))
			return main_error("base: expected a build's NAME, got \"%s\"", value);
		o->base_name = value;
		return 0;
	}
	if (strcmp(key, "memory-limit") == 0) {
		if (!main_size_ok(value))
			return main_error(
			    "memory-limit: expected a PHP size like 128M or -1, got \"%s\"", value);
		c->memory_limit = value;
		return 0;
	}
	if (strcmp(key, "asan") == 0)
		return main_add_asan(o, value);
	if (strcmp(key, "ini") == 0)
		return main_add_ini(o, value);
	if (strcmp(key, "phpt-dir") == 0) {
		if (c->nphpt_dirs >= MAX_PHPT_DIRS)
			return main_error("phpt-dir: at most %d folders", MAX_PHPT_DIRS);
		c->phpt_dirs[c->nphpt_dirs++] = value;
		return 0;
	}
	if (strcmp(key, "host") == 0)
		return main_add_host(c, value);
	if (strcmp(key, "config") == 0)
		return main_error("config: a config file cannot name another");
	rc = confine_option(&c->sandbox, key, value, err, sizeof err);
	if (rc < 0)
		return main_error("%s", err);
	if (rc == 0)
		return main_error("unknown option \"%s\"", key);
	return 0;
}

static char *main_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* `key = value` lines; # starts a comment line. */
static int main_read_config(struct main_opts *o, const char *path)
{
	char line[4096], *key, *value, *eq;
	const char *kept;
	int lineno = 0, rc = -1;
	struct stat st;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL)
		return main_error("config %s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > MAIN_MAX_CONFIG_SIZE) {
		main_error("config %s: not a regular file of at most %u bytes", path, MAIN_MAX_CONFIG_SIZE);
		goto fail;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			main_error("config %s:%d: line too long", path, lineno);
			goto fail;
		}
		key = main_trim(line);
		if (*key == '\0' || *key == '#')
			continue;
		if ((eq = strchr(key, '=')) == NULL) {
			main_error("config %s:%d: expected key = value", path, lineno);
			goto fail;
		}
		*eq = '\0';
		key = main_trim(key);
		value = main_trim(eq + 1);
		if ((kept = main_keep(o, value, strlen(value))) == NULL) {
			main_error("config %s:%d: too many entries", path, lineno);
			goto fail;
		}
		if (main_set(o, key, kept) < 0) {
			main_error("config %s:%d: in this line", path, lineno);
			goto fail;
		}
	}
	rc = 0;
fail:
	fclose(f);
	return rc;
}

/* Each --asan NAME=PREFIX after the builds, as "NAME.asan", its build's
 * flavour (the builds' order is final by now: --base applied). */
static int main_asan_builds(struct main_opts *o)
{
	int i, k, nbuilds = o->nbuild_args;

	for (i = 0; i < o->nasan_args; i++) {
		struct main_build_arg *a = &o->asan_args[i], *b;
		char name[80];

		for (k = 0; k < nbuilds && strcmp(o->build_args[k].name, a->name) != 0; k++)
			;
		if (k == nbuilds)
			return main_error("asan: \"%s\" names no configured build", a->name);
		for (int j = 0; j < i; j++)
			if (strcmp(o->asan_args[j].name, a->name) == 0)
				return main_error("asan: %s is given twice", a->name);
		snprintf(name, sizeof name, "%s.asan", a->name);
		if (!build_name_ok(name, strlen(name)))
			return main_error("asan: %s: the name %s is too long", a->name, name);
		b = &o->build_args[o->nbuild_args++];
		if ((b->name = main_keep(o, name, strlen(name))) == NULL)
			return main_error("out of memory");
		b->prefix = a->prefix;
		b->asan_of = k + 1;
	}
	if (o->cfg.asan_sample > 0 && o->nasan_args == 0)
		return main_error(
		    "asan-sample: needs the asan flavour of the builds (--asan NAME=PREFIX each)");
	return 0;
}

static int main_parse_serve(struct main_opts *o, int argc, char **argv)
{
	struct config *c = &o->cfg;
	int i, cli_builds = 0;
	const char *key;

	memset(o, 0, sizeof *o);
	pthread_mutex_init(&c->builds_lock, NULL);
	if ((c->builds = calloc(MAX_BUILD_SLOTS, sizeof *c->builds)) == NULL)
		return main_error("out of memory");
	for (size_t k = 0; k < sizeof main_options / sizeof main_options[0]; k++)
		if (main_options[k].def != NULL &&
		    main_set_field(c, &main_options[k], main_options[k].def) < 0)
			return -1;
	c->memory_limit = "128M";
	confine_defaults(&c->sandbox);

	/* The file first, so that flags override it. */
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			o->config_file = argv[i + 1];
		else if (strncmp(argv[i], "--config=", 9) == 0)
			o->config_file = argv[i] + 9;
	}
	if (o->config_file != NULL && main_read_config(o, o->config_file) < 0)
		return -1;
	for (i = 0; i < argc; i++) {
		const char *arg = argv[i], *value, *eq;
		char name[64];

		if (strncmp(arg, "--", 2) != 0) {
			main_error("unexpected argument \"%s\" (see phpcmp help)", arg);
			return -1;
		}
		if ((eq = strchr(arg, '=')) != NULL) {
			if ((size_t)(eq - arg - 2) >= sizeof name)
				return main_error("unknown option %s", arg);
			memcpy(name, arg + 2, (size_t)(eq - arg - 2));
			name[eq - arg - 2] = '\0';
			value = eq + 1;
		} else {
			if (strlen(arg + 2) >= sizeof name)
				return main_error("unknown option %s", arg);
			snprintf(name, sizeof name, "%s", arg + 2);
			if (i + 1 >= argc)
				return main_error("%s needs a value", arg);
			value = argv[++i];
		}
		key = name;
		if (strcmp(key, "config") == 0)
			continue;
		if (strcmp(key, "build") == 0 && cli_builds++ == 0)
			o->nbuild_args = 0; /* command-line builds replace the file's */
		if (main_set(o, key, value) < 0)
			return -1;
	}
	if (o->nbuild_args == 0) {
		o->build_args[0].name = "base";
		o->build_args[0].prefix = "builds/base";
		o->build_args[1].name = "head";
		o->build_args[1].prefix = "builds/head";
		o->nbuild_args = 2;
	}
	if (o->nbuild_args < 2)
		return main_error(
		    "two builds or more are needed (a base and a candidate), %d given", o->nbuild_args);
	/* --base NAME: that build first, the others in their order. */
	if (o->base_name != NULL) {
		for (i = 0; i < o->nbuild_args; i++)
			if (strcmp(o->build_args[i].name, o->base_name) == 0)
				break;
		if (i == o->nbuild_args)
			return main_error("base: \"%s\" names no configured build", o->base_name);
		struct main_build_arg base = o->build_args[i];
		memmove(&o->build_args[1], &o->build_args[0], sizeof o->build_args[0] * (size_t)i);
		o->build_args[0] = base;
	}
	if (main_asan_builds(o) < 0)
		return -1;
	{
		char err[512];
		if (confine_check(c, err, sizeof err) < 0)
			return main_error("%s", err);
	}
	return 0;
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
		return main_error("pipe: %s", strerror(errno));
	fcntl(main_sigpipe[1], F_SETFL, O_NONBLOCK);
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = main_on_signal;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0)
		return main_error("sigaction: %s", strerror(errno));
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
static int main_builds(struct app *app, struct main_opts *o, int *nworkers)
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
			return main_error("ini: \"%s\" names no configured build", o->ini_args[j]);
	}
	/* Before any worker starts: a worker dying mid-write is an EPIPE the
	 * daemon handles, not a signal that ends it (worker_init used to set
	 * this, a process-wide side effect of a library call). */
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < o->nbuild_args; i++) {
		struct build *b = &c->builds[i];

		if (build_discover(b, o->build_args[i].name, o->build_args[i].prefix, err, sizeof err) < 0)
			return main_error(
			    "build %s (%s): %s", o->build_args[i].name, o->build_args[i].prefix, err);
		b->asan_of = o->build_args[i].asan_of;
		if (b->asan_of > 0 && strstr(b->sanitizer_preload, "libasan") == NULL)
			return main_error("asan %s (%s): not an AddressSanitizer build (its libphp needs no "
			                  "libasan; scripts/build-php.sh --flavour asan)",
			    c->builds[b->asan_of - 1].name, o->build_args[i].prefix);
		for (j = 0; j < o->nini_args; j++) {
			size_t n = strlen(b->name);
			if (strncmp(o->ini_args[j], b->name, n) != 0 || o->ini_args[j][n] != ':')
				continue;
			if (b->nini >= BUILD_MAX_INI)
				return main_error(
				    "ini: at most %d settings for build %s", BUILD_MAX_INI, b->name);
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
		return main_error(
		    "build %s: worker core: %s", failed >= 0 ? compile[failed]->name : "?", err);
	for (i = 0; i < o->nbuild_args; i++) {
		struct build *b = &c->builds[i];
		if ((j = same_library_before(c, i)) < i)
			memcpy(b->core_path, c->builds[j].core_path, sizeof b->core_path); /* j < i */
		if (worker_init(&app->workers[i], b) < 0)
			return main_error("build %s: worker: cannot initialise", b->name);
		if (coverage_idle(&app->workers[i], c, err, sizeof err) < 0)
			return main_error("build %s: coverage counters: %s", b->name, err);
		*nworkers = i + 1;
		if (worker_prestart(&app->workers[i], c) < 0)
			return main_error(
			    "build %s: the worker cannot start: %s", b->name, app->workers[i].last_failure);
		if (db_build_record(app->db, b, err, sizeof err) < 0)
			return main_error("build %s: %s", b->name, err);
		fprintf(stderr, "phpcmp: %s: PHP %s, %s (sha256 %.12s), sandbox: %s\n", b->name,
		    b->php_version[0] != '\0' ? b->php_version : "?", b->lib_path, b->sha256, b->sandbox);
	}
	return 0;
}

/* Everything serve runs, in order: the database and the port first (a
 * daemon that would be open to the network, or whose port is in use,
 * stops there: no run marked interrupted, no core compiled, no worker
 * started: issue 23), then the builds' workers, the runs and the reducer,
 * then HTTP.  -1 when something could not start (said on stderr); *http
 * and *nworkers hold what started, for main_stop. */
static int main_start(struct app *app, struct main_opts *o, struct http **http, int *nworkers)
{
	char err[1024];
	int n;

	if (main_signals() < 0)
		return -1;
	if ((app->db = db_open(o->cfg.db_path, err, sizeof err)) == NULL)
		return main_error("%s", err);
	if (db_set_max_bytes(app->db, o->cfg.db_max_bytes, err, sizeof err) < 0 ||
	    auth_startup(app, err, sizeof err) < 0)
		return main_error("%s", err);
	if ((*http = http_bind(app, err, sizeof err)) == NULL)
		return main_error("%s", err);
	if ((n = db_runs_interrupt(app->db, err, sizeof err)) < 0)
		return main_error("%s", err);
	if (n > 0)
		fprintf(
		    stderr, "phpcmp: %d run(s) left unfinished by the last daemon marked interrupted\n", n);
	/* Callgrind files past the bound (a lower --max-callgrind-dumps). */
	runs_prune_dumps(app);
	if (phptrun_serve(&o->cfg, err, sizeof err) < 0)
		return main_error("%s", err);
	if ((app->workers = calloc(MAX_BUILD_SLOTS, sizeof *app->workers)) == NULL)
		return main_error("out of memory");
	if (main_builds(app, o, nworkers) < 0)
		return -1;
	if ((app->runs = runs_start(app, err, sizeof err)) == NULL)
		return main_error("%s", err);
	if ((app->reducer = reduce_start(app, err, sizeof err)) == NULL)
		return main_error("%s", err);
	if (o->cfg.run_stored) {
		/* The page opens with every stored case's verdict. */
		struct run_params none = { 0 };
		int64_t run_id;
		if (runs_create(app->runs, "stored", &none, NULL, 0, &run_id, err, sizeof err) != 0)
			fprintf(stderr, "phpcmp: could not queue the stored cases: %s\n", err);
	}
	if (http_start(*http, err, sizeof err) < 0)
		return main_error("%s", err);
	return 0;
}

/* Reverse order: no new requests, then no runs, then no workers.  A
 * request waiting for a run (?wait=) ends first. */
static void main_stop(struct app *app, struct main_opts *o, struct http *http, int nworkers)
{
	char err[1024];

	__atomic_store_n(&app->stopping, 1, __ATOMIC_SEQ_CST);
	http_stop(http);
	runs_stop(app->runs);
	reduce_stop(app->reducer);
	if (app->db != NULL && db_runs_interrupt(app->db, err, sizeof err) < 0)
		main_error("%s", err);
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
	struct main_opts o;
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
	if (main_parse_serve(&o, argc, argv) < 0) {
		main_opts_release(&o);
		return 2;
	}
	app.config = &o.cfg;
	app.started_ms = (int64_t)clock_ms();
	if (main_start(&app, &o, &http, &nworkers) == 0) {
		fprintf(stderr, "phpcmp %s: serving http://%s%s%s:%d/ (database %s)\n", PHPCMP_VERSION,
		    strchr(o.cfg.listen_addr, ':') != NULL ? "[" : "", o.cfg.listen_addr,
		    strchr(o.cfg.listen_addr, ':') != NULL ? "]" : "", http_port(http), o.cfg.db_path);
		sig = main_wait_signal();
		fprintf(stderr, "phpcmp: %s, stopping\n",
		    sig == SIGINT        ? "SIGINT"
		        : sig == SIGTERM ? "SIGTERM"
		                         : "signal");
		rc = 0;
	}
	main_stop(&app, &o, http, nworkers);
	main_opts_release(&o);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		main_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "serve") == 0)
		return main_serve(argc - 2, argv + 2);
	if (strcmp(argv[1], "submit") == 0)
		return submit_command(argc - 2, argv + 2);
	if (strcmp(argv[1], "review") == 0)
		return review_command(argc - 2, argv + 2);
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
	main_error("unknown command \"%s\"", argv[1]);
	main_usage(stderr);
	return 2;
}
