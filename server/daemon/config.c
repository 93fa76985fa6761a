/* phpcmp serve's settings (config.h): the options' table, the config file. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "cmdline.h"
#include "services.h"

#define CONFIG_MAX_FILE_SIZE (64u << 10)
#define CONFIG_MAX_TIMEOUT_MS 3600000
#define CONFIG_MAX_BOUND 100000

static const char *config_keep(struct serve_opts *o, const char *s, size_t len)
{
	char *p;

	if (o->strings.n >= (int)(sizeof o->strings.s / sizeof o->strings.s[0]))
		return NULL;
	if ((p = strndup(s, len)) == NULL)
		return NULL;
	o->strings.s[o->strings.n++] = p;
	return p;
}

void serve_opts_release(struct serve_opts *o)
{
	int i;

	for (i = 0; i < o->strings.n; i++)
		free(o->strings.s[i]);
	o->strings.n = 0;
	free(o->cfg.builds);
	o->cfg.builds = NULL;
	pthread_mutex_destroy(&o->cfg.builds_lock);
}

/* NAME=PREFIX; from_file builds are replaced by any given on the command line. */
static int config_add_build(struct serve_opts *o, const char *spec)
{
	const char *eq = strchr(spec, '=');
	const char *name;
	int i;

	if (eq == NULL || eq[1] == '\0' || !build_name_ok(spec, (size_t)(eq - spec)))
		return cmd_error(
		    NULL, "build: expected NAME=PREFIX (NAME of letters, digits, . _ -), got \"%s\"", spec);
	if (o->nbuild_args >= MAX_BUILDS)
		return cmd_error(
		    NULL, "build: at most %d builds (a base and %d candidates)", MAX_BUILDS, MAX_BUILDS - 1);
	if ((name = config_keep(o, spec, (size_t)(eq - spec))) == NULL)
		return cmd_error(NULL, "out of memory");
	for (i = 0; i < o->nbuild_args; i++)
		if (strcmp(o->build_args[i].name, name) == 0)
			return cmd_error(NULL, "build: %s is given twice", name);
	o->build_args[o->nbuild_args].name = name;
	o->build_args[o->nbuild_args].prefix = eq + 1;
	o->nbuild_args++;
	return 0;
}

/* on/yes/true/1 -> 1, off/no/false/0 -> 0, else -1 with a message. */
static int config_parse_onoff(const char *key, const char *value)
{
	if (strcmp(value, "on") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "true") == 0 ||
	    strcmp(value, "1") == 0)
		return 1;
	if (strcmp(value, "off") == 0 || strcmp(value, "no") == 0 || strcmp(value, "false") == 0 ||
	    strcmp(value, "0") == 0)
		return 0;
	return cmd_error(NULL, "%s: expected on or off, got \"%s\"", key, value);
}

/* Bytes: digits with an optional K/M/G (powers of 1024); 0, or at least 256K. */
static int config_parse_bytes(const char *what, const char *s, int64_t *out)
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
		return cmd_error(
		    NULL, "%s: expected 0 or a size of at least 256K, like 512M or 4G, got \"%s\"", what, s);
	*out = (int64_t)(v << shift);
	return 0;
}

/* NAME:key=value; checked against the builds once they are known. */
static int config_add_ini(struct serve_opts *o, const char *spec)
{
	const char *colon = strchr(spec, ':'), *eq = colon != NULL ? strchr(colon, '=') : NULL;
	size_t klen = eq != NULL ? (size_t)(eq - colon - 1) : 0;

	if (colon == NULL || eq == NULL || !build_name_ok(spec, (size_t)(colon - spec)) || klen == 0 ||
	    strspn(colon + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != klen)
		return cmd_error(
		    NULL, "ini: expected NAME:KEY=VALUE (a build name, a PHP ini name), got \"%s\"", spec);
	if (strlen(colon + 1) >= sizeof(((struct build *)0)->ini[0]))
		return cmd_error(NULL, "ini: \"%s\" is too long", spec);
	if (o->nini_args >= (int)(sizeof o->ini_args / sizeof o->ini_args[0]))
		return cmd_error(NULL, "ini: at most %d settings per build", BUILD_MAX_INI);
	o->ini_args[o->nini_args++] = spec;
	return 0;
}

/* A PHP ini size: digits with an optional K/M/G, or -1 for no limit. */
static int config_size_ok(const char *v)
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
	(offsetof(struct serve_opts, field) + 0 * sizeof(&((struct serve_opts *)0)->field == (type *)0))
#define OPT(key, kind, field, min, max, def)                                \
	{                                                                   \
		key, kind, OPT_FIELD(field, OPT_TYPE_##kind), min, max, def \
	}
#define OPT_TYPE_OPT_STRING const char *
#define OPT_TYPE_OPT_INT int
#define OPT_TYPE_OPT_ONOFF int
#define OPT_TYPE_OPT_BYTES int64_t
static const struct config_option {
	const char *key;
	enum main_option_kind kind;
	size_t offset;
	long min, max;
	const char *def;
} config_options[] = {
	OPT("listen", OPT_STRING, http.listen_addr, 0, 0, "127.0.0.1"),
	OPT("port", OPT_INT, http.port, 0, 65535, "8080"),
	OPT("db", OPT_STRING, cfg.db_path, 0, 0, "phpcmp.db"),
	OPT("cases", OPT_STRING, cfg.cases_dir, 0, 0, "cases"),
	OPT("web", OPT_STRING, http.web_dir, 0, 0, "web"),
	OPT("state", OPT_STRING, cfg.state_dir, 0, 0, "state"),
	OPT("builds-dir", OPT_STRING, cfg.builds_dir, 0, 0, "builds"),
	OPT("timeout-ms", OPT_INT, cfg.case_timeout_ms, 1, CONFIG_MAX_TIMEOUT_MS, "5000"),
	OPT("read-auth", OPT_ONOFF, cfg.read_auth, 0, 0, NULL),
	OPT("run-stored", OPT_ONOFF, cfg.run_stored, 0, 0, NULL),
	OPT("max-connections", OPT_INT, http.max_connections, 1, CONFIG_MAX_BOUND, "128"),
	OPT("max-client-connections", OPT_INT, http.max_client_connections, 1, CONFIG_MAX_BOUND, "256"),
	OPT("max-callgrind-dumps", OPT_INT, cfg.max_callgrind_dumps, 1, CONFIG_MAX_BOUND, "1000"),
	OPT("max-client-uploads", OPT_INT, http.max_client_uploads, 1, CONFIG_MAX_BOUND, "16"),
	OPT("max-case-requests", OPT_INT, cfg.max_case_requests, 1, CONFIG_MAX_BOUND, "64"),
	OPT("reduce-budget-ms", OPT_INT, cfg.reduce_budget_ms, 1, CONFIG_MAX_TIMEOUT_MS, "2000"),
	OPT("reduce-max-executions", OPT_INT, cfg.reduce_max_executions, 0, CONFIG_MAX_BOUND, "400"),
	OPT("reduce-case-timeout-ms", OPT_INT, cfg.reduce_case_timeout_ms, 1, CONFIG_MAX_TIMEOUT_MS, "1000"),
	OPT("reduce-max-pending", OPT_INT, cfg.reduce_max_pending, 1, CONFIG_MAX_BOUND, "64"),
	OPT("asan-sample", OPT_INT, cfg.asan_sample, 0, RUN_MAX_COUNT, NULL),
	OPT("measure-budget-ms", OPT_INT, cfg.measure_budget_ms, 1, CONFIG_MAX_TIMEOUT_MS, "5000"),
	OPT("reduce-sample", OPT_INT, cfg.reduce_sample, 0, 100, "1"),
	OPT("max-queued-runs", OPT_INT, cfg.max_queued_runs, 1, CONFIG_MAX_BOUND, "16"),
	/* years of a team's cases, and never a full disk by surprise */
	OPT("db-max-size", OPT_BYTES, cfg.db_max_bytes, 0, 0, "4G"),
	OPT("measure-timeout-ms", OPT_INT, cfg.measure_timeout_ms, 1, CONFIG_MAX_TIMEOUT_MS, "120000"),
	OPT("valgrind", OPT_STRING, cfg.valgrind_bin, 0, 0, "valgrind"),
	OPT("worker", OPT_STRING, cfg.worker_bin, 0, 0, "build/phpcmp-worker"),
	OPT("core-src", OPT_STRING, cfg.core_src, 0, 0, "server/core"),
	OPT("node", OPT_STRING, cfg.node_bin, 0, 0, "node"),
};
#undef OPT
#undef OPT_FIELD
#undef OPT_TYPE_OPT_STRING
#undef OPT_TYPE_OPT_INT
#undef OPT_TYPE_OPT_ONOFF
#undef OPT_TYPE_OPT_BYTES

/* One row of config_options applied to the settings. */
static int config_set_field(struct serve_opts *o, const struct config_option *opt, const char *value)
{
	char *field = (char *)o + opt->offset;
	long n = 0;
	int on;

	switch (opt->kind) {
	case OPT_STRING:
		*(const char **)(void *)field = value;
		return 0;
	case OPT_INT:
		if (cmd_long(NULL, opt->key, value, opt->min, opt->max, &n) < 0)
			return -1;
		*(int *)(void *)field = (int)n;
		return 0;
	case OPT_ONOFF:
		if ((on = config_parse_onoff(opt->key, value)) < 0)
			return -1;
		*(int *)(void *)field = on;
		return 0;
	case OPT_BYTES:
		return config_parse_bytes(opt->key, value, (int64_t *)(void *)field);
	}
	return cmd_error(NULL, "%s: unknown kind of option", opt->key);
}

/* --asan NAME=PREFIX: the asan flavour of a --build. */
static int config_add_asan(struct serve_opts *o, const char *value)
{
	const char *eq = strchr(value, '=');

	if (eq == NULL || eq[1] == '\0' || !build_name_ok(value, (size_t)(eq - value)))
		return cmd_error(NULL, "asan: expected NAME=PREFIX (NAME a --build's), got \"%s\"", value);
	if (o->nasan_args >= MAX_BUILDS)
		return cmd_error(NULL, "asan: at most %d, one per build", MAX_BUILDS);
	if ((o->asan_args[o->nasan_args].name = config_keep(o, value, (size_t)(eq - value))) == NULL)
		return cmd_error(NULL, "out of memory");
	o->asan_args[o->nasan_args++].prefix = eq + 1;
	return 0;
}

/* --references all|none|7.4,8.1,...: which reference runtimes to load (reference.c). */
static int config_references(struct config *c, const char *value)
{
	const char *p = value;

	if (strcmp(value, "all") != 0 && strcmp(value, "none") != 0)
		for (;;) {
			/* X.Y: a major and a minor version, e.g. 8.5 */
			if (!(p[0] >= '5' && p[0] <= '9' && p[1] == '.' && p[2] >= '0' && p[2] <= '9'))
				return cmd_error(NULL,
				    "references: expected all, none or versions like 7.4,8.1,8.5, got \"%s\"",
				    value);
			p += 3;
			if (*p == '\0')
				break;
			if (*p++ != ',')
				return cmd_error(NULL,
				    "references: expected all, none or versions like 7.4,8.1,8.5, got \"%s\"",
				    value);
		}
	c->references = value;
	return 0;
}

/* Where reference runtimes come from: the page's node_modules (beside
 * --web, as the daemon serves /vendor/ from it) and server/reference
 * (beside --core-src). */
static int config_reference_paths(struct serve_opts *o)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/../node_modules", o->http.web_dir);
	if ((o->cfg.modules_dir = config_keep(o, path, strlen(path))) == NULL)
		return cmd_error(NULL, "out of memory");
	snprintf(path, sizeof path, "%s/../reference", o->cfg.core_src);
	if ((o->cfg.reference_src = config_keep(o, path, strlen(path))) == NULL)
		return cmd_error(NULL, "out of memory");
	return 0;
}

/* --host NAME: one more name the daemon answers to. */
static int config_add_host(struct http_config *c, const char *value)
{
	if (c->nhosts >= HTTP_MAX_HOSTS)
		return cmd_error(NULL, "host: at most %d names", HTTP_MAX_HOSTS);
	if (value[strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")] != '\0')
		return cmd_error(
		    NULL, "host: \"%s\" is not a host name (letters, digits, '.', '-'; no port)", value);
	c->hosts[c->nhosts++] = value;
	return 0;
}

/* One option by name (flags and config file keys alike). */
static int config_set(struct serve_opts *o, const char *key, const char *value)
{
	struct config *c = &o->cfg;
	char err[256];
	int rc;

	if (value[0] == '\0')
		return cmd_error(NULL, "%s: empty value", key);
	for (size_t i = 0; i < sizeof config_options / sizeof config_options[0]; i++)
		if (strcmp(key, config_options[i].key) == 0)
			return config_set_field(o, &config_options[i], value);
	if (strcmp(key, "build") == 0)
		return config_add_build(o, value);
	if (strcmp(key, "base") == 0) {
		if (!build_name_ok(value, strlen(value)))
			return cmd_error(NULL, "base: expected a build's NAME, got \"%s\"", value);
		o->base_name = value;
		return 0;
	}
	if (strcmp(key, "memory-limit") == 0) {
		if (!config_size_ok(value))
			return cmd_error(
			    NULL, "memory-limit: expected a PHP size like 128M or -1, got \"%s\"", value);
		c->memory_limit = value;
		return 0;
	}
	if (strcmp(key, "asan") == 0)
		return config_add_asan(o, value);
	if (strcmp(key, "references") == 0)
		return config_references(c, value);
	if (strcmp(key, "ini") == 0)
		return config_add_ini(o, value);
	if (strcmp(key, "phpt-dir") == 0) {
		if (c->nphpt_dirs >= MAX_PHPT_DIRS)
			return cmd_error(NULL, "phpt-dir: at most %d folders", MAX_PHPT_DIRS);
		c->phpt_dirs[c->nphpt_dirs++] = value;
		return 0;
	}
	if (strcmp(key, "host") == 0)
		return config_add_host(&o->http, value);
	if (strcmp(key, "config") == 0)
		return cmd_error(NULL, "config: a config file cannot name another");
	rc = confine_option(&c->sandbox, key, value, err, sizeof err);
	if (rc < 0)
		return cmd_error(NULL, "%s", err);
	if (rc == 0)
		return cmd_error(NULL, "unknown option \"%s\"", key);
	return 0;
}

static char *config_trim(char *s)
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
static int config_read_config(struct serve_opts *o, const char *path)
{
	char line[4096], *key, *value, *eq;
	const char *kept;
	int lineno = 0, rc = -1;
	struct stat st;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL)
		return cmd_error(NULL, "config %s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > CONFIG_MAX_FILE_SIZE) {
		cmd_error(
		    NULL, "config %s: not a regular file of at most %u bytes", path, CONFIG_MAX_FILE_SIZE);
		goto fail;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			cmd_error(NULL, "config %s:%d: line too long", path, lineno);
			goto fail;
		}
		key = config_trim(line);
		if (*key == '\0' || *key == '#')
			continue;
		if ((eq = strchr(key, '=')) == NULL) {
			cmd_error(NULL, "config %s:%d: expected key = value", path, lineno);
			goto fail;
		}
		*eq = '\0';
		key = config_trim(key);
		value = config_trim(eq + 1);
		if ((kept = config_keep(o, value, strlen(value))) == NULL) {
			cmd_error(NULL, "config %s:%d: too many entries", path, lineno);
			goto fail;
		}
		if (config_set(o, key, kept) < 0) {
			cmd_error(NULL, "config %s:%d: in this line", path, lineno);
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
static int config_asan_builds(struct serve_opts *o)
{
	int i, k, nbuilds = o->nbuild_args;

	for (i = 0; i < o->nasan_args; i++) {
		struct serve_build_arg *a = &o->asan_args[i], *b;
		char name[80];

		for (k = 0; k < nbuilds && strcmp(o->build_args[k].name, a->name) != 0; k++)
			;
		if (k == nbuilds)
			return cmd_error(NULL, "asan: \"%s\" names no configured build", a->name);
		for (int j = 0; j < i; j++)
			if (strcmp(o->asan_args[j].name, a->name) == 0)
				return cmd_error(NULL, "asan: %s is given twice", a->name);
		snprintf(name, sizeof name, "%s.asan", a->name);
		if (!build_name_ok(name, strlen(name)))
			return cmd_error(NULL, "asan: %s: the name %s is too long", a->name, name);
		b = &o->build_args[o->nbuild_args++];
		if ((b->name = config_keep(o, name, strlen(name))) == NULL)
			return cmd_error(NULL, "out of memory");
		b->prefix = a->prefix;
		b->asan_of = k + 1;
	}
	if (o->cfg.asan_sample > 0 && o->nasan_args == 0)
		return cmd_error(
		    NULL, "asan-sample: needs the asan flavour of the builds (--asan NAME=PREFIX each)");
	return 0;
}

int serve_opts_parse(struct serve_opts *o, int argc, char **argv)
{
	struct config *c = &o->cfg;
	int i, cli_builds = 0;
	const char *key;

	memset(o, 0, sizeof *o);
	pthread_mutex_init(&c->builds_lock, NULL);
	if ((c->builds = calloc(MAX_BUILD_SLOTS, sizeof *c->builds)) == NULL)
		return cmd_error(NULL, "out of memory");
	for (size_t k = 0; k < sizeof config_options / sizeof config_options[0]; k++)
		if (config_options[k].def != NULL &&
		    config_set_field(o, &config_options[k], config_options[k].def) < 0)
			return -1;
	c->memory_limit = "128M";
	c->references = "all";
	confine_defaults(&c->sandbox);

	/* The file first, so that flags override it. */
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			o->config_file = argv[i + 1];
		else if (strncmp(argv[i], "--config=", 9) == 0)
			o->config_file = argv[i] + 9;
	}
	if (o->config_file != NULL && config_read_config(o, o->config_file) < 0)
		return -1;
	for (i = 0; i < argc; i++) {
		const char *arg = argv[i], *value, *eq;
		char name[64];

		if (strncmp(arg, "--", 2) != 0) {
			cmd_error(NULL, "unexpected argument \"%s\" (see phpcmp help)", arg);
			return -1;
		}
		if ((eq = strchr(arg, '=')) != NULL) {
			if ((size_t)(eq - arg - 2) >= sizeof name)
				return cmd_error(NULL, "unknown option %s", arg);
			memcpy(name, arg + 2, (size_t)(eq - arg - 2));
			name[eq - arg - 2] = '\0';
			value = eq + 1;
		} else {
			if (strlen(arg + 2) >= sizeof name)
				return cmd_error(NULL, "unknown option %s", arg);
			snprintf(name, sizeof name, "%s", arg + 2);
			if (i + 1 >= argc)
				return cmd_error(NULL, "%s needs a value", arg);
			value = argv[++i];
		}
		key = name;
		if (strcmp(key, "config") == 0)
			continue;
		if (strcmp(key, "build") == 0 && cli_builds++ == 0)
			o->nbuild_args = 0; /* command-line builds replace the file's */
		if (config_set(o, key, value) < 0)
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
		return cmd_error(
		    NULL, "two builds or more are needed (a base and a candidate), %d given", o->nbuild_args);
	/* --base NAME: that build first, the others in their order. */
	if (o->base_name != NULL) {
		for (i = 0; i < o->nbuild_args; i++)
			if (strcmp(o->build_args[i].name, o->base_name) == 0)
				break;
		if (i == o->nbuild_args)
			return cmd_error(NULL, "base: \"%s\" names no configured build", o->base_name);
		struct serve_build_arg base = o->build_args[i];
		memmove(&o->build_args[1], &o->build_args[0], sizeof o->build_args[0] * (size_t)i);
		o->build_args[0] = base;
	}
	if (config_asan_builds(o) < 0 || config_reference_paths(o) < 0)
		return -1;
	{
		char err[512];
		if (confine_check(c, err, sizeof err) < 0)
			return cmd_error(NULL, "%s", err);
	}
	/* What the services need of the listen address: whether other machines
	 * can reach the daemon (then writes need a token). */
	c->beyond_loopback = !auth_is_loopback(o->http.listen_addr);
	return 0;
}
