/*
 * The phpt suite: php-src's .phpt tests on every build, as run-tests.php
 * runs them (docs/phpt.md).  POST /api/runs {"suite":"phpt"} with "dir"
 * (a folder of .phpt files; default $PHPCMP_PHPT_DIR or the 8.2.32
 * source's ext/json/tests that scripts/php-tests.sh extracts) or "files"
 * (a list of .phpt paths).  Only tests in the folders the daemon serves
 * are read: the default one and each --phpt-dir, resolved once at startup
 * and held open; a request's folder must resolve (realpath) into one of
 * them, and every file is then opened beneath that folder's descriptor
 * without following a symbolic link (openat2 RESOLVE_BENEATH), regular
 * files only, size-bounded (docs/phpt.md, "Which tests a run reads").
 *
 * Each test is read and validated here (server/daemon/model/phpt.c), then on
 * each build at once (a thread per build) its SKIPIF, FILE and CLEAN run
 * in that build's sandboxed worker as PROTO_PHPT scripts
 * (server/core/phptcore.c), the output is judged here, and the statuses
 * of both builds and the verdict between them are stored in one
 * transaction (phpt_tests, phpt_results).  The run's summary holds every
 * test's statuses, so GET /api/runs/{id} shows them; report.md gives the
 * run-tests-style counts.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "columns.h"
#include "engine.h"
#include "fanout.h"
#include "phpt.h"
#include "phptini.h"
#include "beneath.h"
#include "proto.h"

#define PHPTRUN_DEFAULT_DIR "tests/php-8.2.32/ext/json/tests" /* under scripts/php-tests.sh's cache */
#define PHPTRUN_MAX_REASON 4096
#define PHPTRUN_MAX_KEPT (256u << 10) /* output and diff kept per test and build */

/* ---- the folders a run may read (docs/phpt.md, "Which tests a run reads") ---- */

#define PHPTRUN_MAX_SERVED (MAX_PHPT_DIRS + 1)

static struct served {
	char path[PATH_MAX]; /* realpath'd at startup */
	int fd;              /* O_PATH, held for the daemon's life */
} served[PHPTRUN_MAX_SERVED];
static int nserved;
static pthread_mutex_t served_lock = PTHREAD_MUTEX_INITIALIZER;

/* $PHPCMP_PHPT_DIR, else where scripts/php-tests.sh extracts the 8.2.32
 * source's tests: ${PHPCMP_PHP_CACHE:-${XDG_CACHE_HOME:-~/.cache}/phpcmp/php}/tests/... */
static const char *default_dir(void)
{
	static char dir[PATH_MAX];
	const char *d = getenv("PHPCMP_PHPT_DIR"), *cache = getenv("PHPCMP_PHP_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (d && *d)
		return d;
	if (cache && *cache)
		snprintf(dir, sizeof(dir), "%s/%s", cache, PHPTRUN_DEFAULT_DIR);
	else if (xdg && *xdg)
		snprintf(dir, sizeof(dir), "%s/phpcmp/php/%s", xdg, PHPTRUN_DEFAULT_DIR);
	else
		snprintf(dir, sizeof(dir), "%s/.cache/phpcmp/php/%s", home && *home ? home : "",
		    PHPTRUN_DEFAULT_DIR);
	return dir;
}

/* Folders never served: the kernel's views of processes and devices. */
static int forbidden(const char *real)
{
	static const char *const roots[] = { "/proc", "/sys", "/dev" };
	if (strcmp(real, "/") == 0)
		return 1;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		size_t n = strlen(roots[i]);
		if (strncmp(real, roots[i], n) == 0 && (real[n] == '\0' || real[n] == '/'))
			return 1;
	}
	return 0;
}

/* Under served_lock: add a folder (resolved here); 0, or -1 with err. */
static int served_add(const char *given, char *err, size_t errsize)
{
	char *real = realpath(given, NULL);
	struct stat st;
	if (!real) {
		snprintf(err, errsize, "phpt-dir %.300s: %s", given, strerror(errno));
		return -1;
	}
	if (forbidden(real)) {
		snprintf(err, errsize, "phpt-dir %.300s: %.300s cannot be served (/, /proc, /sys, /dev)",
		    given, real);
		free(real);
		return -1;
	}
	for (int i = 0; i < nserved; i++)
		if (strcmp(served[i].path, real) == 0) {
			free(real);
			return 0;
		}
	int fd = open(real, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || strlen(real) >= PATH_MAX ||
	    nserved == PHPTRUN_MAX_SERVED) {
		snprintf(err, errsize, "phpt-dir %.300s: %s", given,
		    fd < 0 ? strerror(errno) : "not a folder, or too many folders");
		if (fd >= 0)
			close(fd);
		free(real);
		return -1;
	}
	snprintf(served[nserved].path, sizeof(served[nserved].path), "%s", real);
	served[nserved++].fd = fd;
	free(real);
	return 0;
}

int phptrun_serve(const struct config *c, char *err, size_t errsize)
{
	char ignored[512];
	pthread_mutex_lock(&served_lock);
	/* The default folder when it is there (a run that names no folder
	 * looks again: scripts/php-tests.sh may extract it later). */
	served_add(default_dir(), ignored, sizeof(ignored));
	for (int i = 0; i < c->nphpt_dirs; i++) {
		if (served_add(c->phpt_dirs[i], err, errsize) < 0) {
			pthread_mutex_unlock(&served_lock);
			return -1;
		}
	}
	pthread_mutex_unlock(&served_lock);
	return 0;
}

void phptrun_unserve(void)
{
	pthread_mutex_lock(&served_lock);
	for (int i = 0; i < nserved; i++)
		close(served[i].fd);
	nserved = 0;
	pthread_mutex_unlock(&served_lock);
}

/* The one refusal for any path outside the served folders: it names them
 * and says nothing of the path (whether it exists, what it is). */
static void not_served(const char *field, char *err, size_t errsize)
{
	size_t len = (size_t)snprintf(
	    err, errsize, "%s: not in a folder this daemon serves (phpcmp serve --phpt-dir); served:", field);
	pthread_mutex_lock(&served_lock);
	for (int i = 0; i < nserved && len < errsize; i++)
		len += (size_t)snprintf(err + len, errsize - len, "%s %s", i ? "," : "", served[i].path);
	if (nserved == 0 && len < errsize)
		snprintf(err + len, errsize - len, " none");
	pthread_mutex_unlock(&served_lock);
}

/*
 * A folder a request names, within a served one: 0 with *root and rel
 * (its path below that folder, "." for the folder itself), -1 for
 * anything else, whatever the reason.  realpath resolves it (symbolic
 * links inside a served folder that stay inside are followed); nothing
 * under /proc is looked at.
 */
/* The path with ".", ".." and repeated slashes taken away as text (from
 * the working directory when relative): does it name /proc, /sys or /dev?
 * So realpath never walks /proc/<pid>/root of another mount namespace. */
static int lexically_forbidden(const char *path)
{
	char buf[2 * PATH_MAX + 2], cwd[PATH_MAX], *comp[PATH_MAX / 2], *save = NULL;
	size_t n = 0;
	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return 1;
	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", path[0] == '/' ? "" : cwd, path) >= sizeof(buf))
		return 1;
	for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			n -= n > 0;
			continue;
		}
		if (n == sizeof(comp) / sizeof(comp[0]))
			return 1;
		comp[n++] = c;
	}
	return n > 0 && (!strcmp(comp[0], "proc") || !strcmp(comp[0], "sys") || !strcmp(comp[0], "dev"));
}

static int served_find(const char *path, int *root, char *rel, size_t relsize)
{
	if (lexically_forbidden(path))
		return -1;
	char *real = realpath(path, NULL);
	int found = -1;
	if (!real)
		return -1;
	pthread_mutex_lock(&served_lock);
	for (int i = 0; i < nserved && found < 0 && !forbidden(real); i++) {
		size_t n = strlen(served[i].path);
		if (strncmp(real, served[i].path, n) == 0 && (real[n] == '\0' || real[n] == '/') &&
		    (size_t)snprintf(rel, relsize, "%s", real[n] ? real + n + 1 : ".") < relsize) {
			*root = i;
			found = 0;
		}
	}
	pthread_mutex_unlock(&served_lock);
	free(real);
	return found;
}

/* The default folder, served when it is there (looked for again here). */
static int served_default(int *root, char *rel, size_t relsize)
{
	char ignored[512];
	pthread_mutex_lock(&served_lock);
	served_add(default_dir(), ignored, sizeof(ignored));
	pthread_mutex_unlock(&served_lock);
	return served_find(default_dir(), root, rel, relsize);
}

static int served_fd(int root)
{
	pthread_mutex_lock(&served_lock);
	int fd = root >= 0 && root < nserved ? served[root].fd : -1;
	pthread_mutex_unlock(&served_lock);
	return fd;
}

/* ---- the tests of a run ---- */

struct phptrun_state {
	char dir[PATH_MAX]; /* "" when the run names files; else the folder, resolved */
	char **files;       /* each test's path, for reasons and the worker's file names */
	char **names;       /* what the test is called in results: relative to dir, or the path */
	char **rel;         /* its path beneath its served folder */
	int *root;          /* which served folder */
	size_t n;
};

static void state_free(struct phptrun_state *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->files[i]);
		free(s->names[i]);
		free(s->rel[i]);
	}
	free(s->files);
	free(s->names);
	free(s->rel);
	free(s->root);
	free(s);
}

static int state_add(struct phptrun_state *s, const char *path, const char *name, int root, const char *rel)
{
	if (s->n == RUN_MAX_TESTS)
		return -1;
	if (s->n % 64 == 0) {
		char **f = realloc(s->files, (s->n + 64) * sizeof(*f));
		if (!f)
			return -1;
		s->files = f;
		char **nm = realloc(s->names, (s->n + 64) * sizeof(*nm));
		if (!nm)
			return -1;
		s->names = nm;
		char **r = realloc(s->rel, (s->n + 64) * sizeof(*r));
		if (!r)
			return -1;
		s->rel = r;
		int *ro = realloc(s->root, (s->n + 64) * sizeof(*ro));
		if (!ro)
			return -1;
		s->root = ro;
	}
	s->files[s->n] = strdup(path);
	s->names[s->n] = strdup(name);
	s->rel[s->n] = strdup(rel);
	s->root[s->n] = root;
	if (!s->files[s->n] || !s->names[s->n] || !s->rel[s->n]) {
		free(s->files[s->n]);
		free(s->names[s->n]);
		free(s->rel[s->n]);
		return -1;
	}
	s->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder's *.phpt (not its subfolders: run-tests' own order, by name),
 * read through its descriptor beneath the served folder root. */
static int state_scan(struct phptrun_state *s, int root, const char *reldir, char *err, size_t errsize)
{
	int fd = beneath_open(served_fd(root), reldir, O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	if (!d) {
		snprintf(err, errsize, "dir: cannot open %.300s: %s", s->dir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (!phpt_is_test_path(e->d_name) || e->d_name[0] == '.')
			continue;
		if (n == RUN_MAX_TESTS ||
		    (n % 64 == 0 && !(names = realloc(names, (n + 64) * sizeof(*names)))) ||
		    !(names[n] = strdup(e->d_name))) {
			closedir(d);
			snprintf(err, errsize, "dir: more than %d tests, or out of memory", RUN_MAX_TESTS);
			for (size_t i = 0; i < n; i++)
				free(names[i]);
			free(names);
			return -1;
		}
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX + 256], rel[PATH_MAX + 256];
		snprintf(path, sizeof(path), "%s/%s", s->dir, names[i]);
		snprintf(rel, sizeof(rel), "%s/%s", reldir, names[i]);
		if (rc == 0 && state_add(s, path, names[i], root, rel) < 0) {
			snprintf(err, errsize, "out of memory");
			rc = -1;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

/* A .phpt path a request names: its folder within a served one (0 with
 * *root and rel, the file's path beneath it), else -1. */
static int served_file(const char *path, int *root, char *rel, size_t relsize)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (!phpt_is_test_path(base) || served_find(dir, root, rel, relsize) < 0)
		return -1;
	size_t n = strlen(rel);
	return (size_t)snprintf(rel + n, relsize - n, "/%s", base) < relsize - n ? 0 : -1;
}

int phptrun_check(const struct run_params *p, char *err, size_t errsize)
{
	char rel[PATH_MAX];
	int root;

	for (size_t i = 0; i < p->nfiles; i++) {
		if (served_file(p->files[i], &root, rel, sizeof(rel)) < 0) {
			char field[32];
			snprintf(field, sizeof(field), "files[%zu]", i);
			not_served(field, err, errsize);
			return -2;
		}
	}
	if (p->dir != NULL && served_find(p->dir, &root, rel, sizeof(rel)) < 0) {
		not_served("dir", err, errsize);
		return -2;
	}
	return 0;
}

/* The run's tests, confined again (a queued or resumed run's parameters
 * were checked by another daemon, or another configuration). */
void *phptrun_open(const struct run_params *p, int64_t *total, char *err, size_t errsize)
{
	struct phptrun_state *s = calloc(1, sizeof(*s));
	char rel[PATH_MAX];
	int root;

	if (!s) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	if (p->nfiles > 0) {
		for (size_t i = 0; i < p->nfiles; i++) {
			const char *f = p->files[i];
			if (served_file(f, &root, rel, sizeof(rel)) < 0) {
				char field[32];
				snprintf(field, sizeof(field), "files[%zu]", i);
				not_served(field, err, errsize);
				goto fail;
			}
			if (state_add(s, f, f, root, rel) < 0) {
				snprintf(err, errsize, "out of memory");
				goto fail;
			}
		}
	} else {
		const char *d = p->dir;
		if (d ? served_find(d, &root, rel, sizeof(rel)) < 0
		      : served_default(&root, rel, sizeof(rel)) < 0) {
			if (d)
				not_served("dir", err, errsize);
			else
				snprintf(err, errsize,
				    "dir: cannot open the default folder %.300s (scripts/php-tests.sh "
				    "extracts the 8.2.32 source's tests)",
				    default_dir());
			goto fail;
		}
		pthread_mutex_lock(&served_lock);
		int long_path = snprintf(s->dir, sizeof(s->dir), "%s%s%s", served[root].path,
		                    strcmp(rel, ".") ? "/" : "",
		                    strcmp(rel, ".") ? rel : "") >= (int)sizeof(s->dir);
		pthread_mutex_unlock(&served_lock);
		if (long_path) {
			not_served("dir", err, errsize);
			goto fail;
		}
		if (state_scan(s, root, rel, err, errsize) < 0)
			goto fail;
		if (s->n == 0) {
			snprintf(err, errsize, "dir: no .phpt files in %.300s", s->dir);
			goto fail;
		}
	}
	*total = (int64_t)s->n;
	return s;
fail:
	state_free(s);
	return NULL;
}

void phptrun_close(void *state)
{
	state_free(state);
}

/* ---- one test ---- */

struct loader_ctx {
	int dirfd; /* the test's folder, beneath its served one */
	char why[256];
};

/* *_EXTERNAL: the file next to the test (phpt.c has removed ".." already),
 * opened beneath its folder, no symbolic link, a regular file. */
static int load_external(void *arg, const char *name, char **data, size_t *len)
{
	struct loader_ctx *l = arg;
	char why[200];
	if (strchr(name, '/') || !*name || !strcmp(name, ".") || !strcmp(name, "..")) {
		snprintf(l->why, sizeof(l->why), "%.100s: not a file name beside the test", name);
		return -1;
	}
	if ((*data = beneath_read(l->dirfd, name, PHPT_MAX_FILE, len, why, sizeof(why))) == NULL) {
		snprintf(l->why, sizeof(l->why), "%.40s: %s", name, why);
		return -1;
	}
	return 0;
}

/* run-tests.php's $ini_overwrites, less what the sandbox holds
 * (open_basedir=, disable_functions=: docs/phpt.md). */
static const char *const ini_overwrites[] = {
	"output_handler=",
	"output_buffering=Off",
	"error_reporting=32767",
	"display_errors=1",
	"display_startup_errors=1",
	"log_errors=0",
	"html_errors=0",
	"track_errors=0",
	"report_memleaks=1",
	"report_zend_debug=0",
	"docref_root=",
	"docref_ext=.html",
	"error_prepend_string=",
	"error_append_string=",
	"auto_prepend_file=",
	"auto_append_file=",
	"ignore_repeated_errors=0",
	"precision=14",
	"serialize_precision=-1",
	"memory_limit=128M",
	"opcache.fast_shutdown=0",
	"opcache.file_update_protection=0",
	"opcache.revalidate_freq=0",
	"opcache.jit_hot_loop=1",
	"opcache.jit_hot_func=1",
	"opcache.jit_hot_return=1",
	"opcache.jit_hot_side_exit=1",
	"zend.assertions=1",
	"zend.exception_ignore_args=0",
	"zend.exception_string_param_max_len=15",
	"short_open_tag=0",
};

struct ini {
	char **name, **value;
	size_t n, cap;
};

static void ini_release(struct ini *ini)
{
	for (size_t i = 0; i < ini->n; i++) {
		free(ini->name[i]);
		free(ini->value[i]);
	}
	free(ini->name);
	free(ini->value);
	memset(ini, 0, sizeof(*ini));
}

static char *trimmed(const char *s, size_t n)
{
	while (n > 0 && strchr(" \t\n\r\v", *s) && *s) {
		s++;
		n--;
	}
	while (n > 0 && strchr(" \t\n\r\v", s[n - 1]) && s[n - 1])
		n--;
	return strndup(s, n);
}

/* settings2array: "name=value" lines, both trimmed; a later name replaces
 * an earlier one in place (a PHP array keeps the first position). */
static int ini_add_lines(struct ini *ini, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		size_t n = 0;
		while (p + n < end && p[n] != '\n' && p[n] != '\r')
			n++;
		const char *eq = memchr(p, '=', n);
		if (eq) {
			char *name = trimmed(p, (size_t)(eq - p)),
			     *value = trimmed(eq + 1, (size_t)(p + n - eq - 1));
			if (!name || !value) {
				free(name);
				free(value);
				return -1;
			}
			size_t i;
			for (i = 0; i < ini->n; i++)
				if (strcmp(ini->name[i], name) == 0 && strcmp(name, "extension") &&
				    strcmp(name, "zend_extension"))
					break;
			if (i < ini->n) {
				free(ini->value[i]);
				ini->value[i] = value;
				free(name);
			} else {
				if (ini->n == ini->cap) {
					size_t cap = ini->cap ? ini->cap * 2 : 64;
					char **a = realloc(ini->name, cap * sizeof(*a));
					if (!a)
						return -1;
					ini->name = a;
					char **b = realloc(ini->value, cap * sizeof(*b));
					if (!b)
						return -1;
					ini->value = b;
					ini->cap = cap;
				}
				ini->name[ini->n] = name;
				ini->value[ini->n++] = value;
			}
		}
		p += n;
		while (p < end && (*p == '\n' || *p == '\r'))
			p++;
	}
	return 0;
}

static int ini_defaults(struct ini *ini)
{
	for (size_t i = 0; i < sizeof(ini_overwrites) / sizeof(ini_overwrites[0]); i++)
		if (ini_add_lines(ini, ini_overwrites[i], strlen(ini_overwrites[i])) < 0)
			return -1;
	return 0;
}

static char *ini_text(const struct ini *ini)
{
	size_t len = 1;
	for (size_t i = 0; i < ini->n; i++)
		len += strlen(ini->name[i]) + strlen(ini->value[i]) + 2;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	for (size_t i = 0; i < ini->n; i++)
		p += sprintf(p, "%s=%s\n", ini->name[i], ini->value[i]);
	*p = '\0';
	return s;
}

/* Files next to a test that its sections name (an .inc it includes, a data
 * file it reads): sent with each of its scripts, written beside them. */
#define PHPTRUN_MAX_AUX 32
#define PHPTRUN_MAX_AUX_BYTES (8u << 20)

struct aux {
	char *field[PHPTRUN_MAX_AUX]; /* "name\0bytes" */
	size_t len[PHPTRUN_MAX_AUX];
	int n;
};

static void aux_release(struct aux *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->field[i]);
	a->n = 0;
}

static int names_file(const struct phpt *t, const char *name)
{
	static const enum phpt_section secs[] = { PHPT_FILE, PHPT_SKIPIF, PHPT_CLEAN, PHPT_INI };
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		const struct phpt_text *x = &t->sec[secs[i]];
		if (x->data && n <= x->len && memmem(x->data, x->len, name, n))
			return 1;
	}
	return 0;
}

static void aux_collect(struct aux *a, const struct phpt *t, int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	size_t total = 0;
	char why[200];
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)) != NULL && a->n < PHPTRUN_MAX_AUX) {
		const char *nm = e->d_name;
		size_t n = strlen(nm), len;
		if (nm[0] == '.' || phpt_is_test_path(nm) || n > 200 || !names_file(t, nm))
			continue;
		for (size_t i = 0; i < n; i++)
			if (!strchr(
			        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", nm[i]))
				goto next;
		/* beside the test, no symbolic link, a regular file: else left out */
		char *data = beneath_read(dirfd, nm, 1u << 20, &len, why, sizeof(why));
		if (!data || total + len > PHPTRUN_MAX_AUX_BYTES) {
			free(data);
			continue;
		}
		char *f = malloc(n + 1 + len);
		if (f) {
			memcpy(f, nm, n + 1);
			memcpy(f + n + 1, data, len);
			a->field[a->n] = f;
			a->len[a->n++] = n + 1 + len;
			total += len;
		}
		free(data);
	next:;
	}
	closedir(d);
}

/* What one build made of a test. */
struct outcome {
	enum phpt_status status;
	char reason[PHPTRUN_MAX_REASON];
	char *output; /* FILE's output as printed (malloc'd), NULL if it did not run */
	size_t output_len;
	char *diff; /* FAIL/XFAIL: run-tests' .diff */
	double wall_ms;
	int signal;
	int memory_error; /* a sanitizer's report came with FILE's answer (in reason) */
};

static void outcome_release(struct outcome *o)
{
	free(o->output);
	free(o->diff);
	o->output = o->diff = NULL;
}

/* One script on a build: 1 with the output (malloc'd), 0 when the worker
 * died or timed out (o set), -1 when it did not run (o set: refused ini
 * is SKIP, anything else an error). */
/* A CLEAN to run right after the script, in the same message (so it sees
 * what the script left in the private folder). */
struct clean_req {
	const char *file, *code, *ini;
	char *printed; /* what it printed (malloc'd), NULL if it did not run */
	size_t printed_len;
};

static int run_script(struct app *app, int role, const char *file, const char *code, size_t code_len,
    const char *ini, const struct aux *aux, struct clean_req *clean, struct outcome *o, char **printed,
    size_t *printed_len)
{
	struct worker *w = coverage_worker(app, role);
	struct proto_buf req;
	struct proto_msg reply;
	struct result r;
	int rc;

	proto_buf_init(&req);
	proto_buf_add_str(&req, TAG_PHPT_NAME, file);
	proto_buf_add(&req, TAG_PHPT_CODE, code, code_len);
	proto_buf_add_str(&req, TAG_PHPT_INI, ini);
	for (int i = 0; aux && i < aux->n; i++)
		proto_buf_add(&req, TAG_PHPT_AUX, aux->field[i], aux->len[i]);
	if (clean) {
		proto_buf_add_str(&req, TAG_PHPT_CLEAN_NAME, clean->file);
		proto_buf_add_str(&req, TAG_PHPT_CLEAN_CODE, clean->code);
		proto_buf_add_str(&req, TAG_PHPT_CLEAN_INI, clean->ini);
	}
	rc = worker_call(w, app->config, PROTO_PHPT, &req, app->config->case_timeout_ms, &reply, &r);
	proto_buf_release(&req);
	o->wall_ms += r.wall_ms;
	if (rc <= 0) {
		o->status = rc < 0                    ? PS_ERROR
		    : r.status == STATUS_TIMEOUT      ? PS_TIMEOUT
		    : r.status == STATUS_MEMORY_ERROR ? PS_MEMORY_ERROR
		                                      : PS_CRASH;
		o->signal = r.signal;
		snprintf(o->reason, sizeof(o->reason), "%s (%s)", r.failure ? r.failure : "the worker failed",
		    file);
		result_release(&r);
		return rc < 0 ? -1 : 0;
	}
	result_release(&r);
	/* A sanitizer's report: kept for after the judging (run_test). */
	const struct proto_field *report = proto_get(&reply, TAG_SANITIZER);
	if (report != NULL) {
		o->memory_error = 1;
		snprintf(o->reason, sizeof(o->reason), "%.*s", (int)report->len, report->data);
	}
	const struct proto_field *refused = proto_get(&reply, TAG_PHPT_REFUSED);
	const struct proto_field *failure = proto_get(&reply, TAG_FAILURE);
	const struct proto_field *out = proto_get(&reply, TAG_PRINTED);
	if (reply.type != PROTO_PHPT_RESULT || proto_get_int(&reply, TAG_STATUS, 1) != PROTO_STATUS_OK) {
		if (refused) {
			o->status = PS_SKIP;
			snprintf(o->reason, sizeof(o->reason), "INI %.*s", (int)refused->len, refused->data);
		} else {
			o->status = PS_ERROR;
			snprintf(o->reason, sizeof(o->reason), "%.*s", failure ? (int)failure->len : 0,
			    failure ? failure->data : "");
			if (!o->reason[0])
				snprintf(o->reason, sizeof(o->reason),
				    "the worker did not run %s (answer type %d)", file, reply.type);
		}
		proto_msg_release(&reply);
		return -1;
	}
	const struct proto_field *cout = proto_get(&reply, TAG_PHPT_CLEAN_PRINTED);
	if (clean && cout && (clean->printed = malloc(cout->len + 1)) != NULL) {
		memcpy(clean->printed, cout->data, cout->len);
		clean->printed[cout->len] = '\0';
		clean->printed_len = cout->len;
	}
	*printed_len = out ? out->len : 0;
	*printed = malloc(*printed_len + 1);
	if (*printed) {
		memcpy(*printed, out ? out->data : "", *printed_len);
		(*printed)[*printed_len] = '\0';
	}
	proto_msg_release(&reply);
	if (!*printed) {
		o->status = PS_ERROR;
		snprintf(o->reason, sizeof(o->reason), "out of memory");
		return -1;
	}
	return 1;
}

/* The extensions a build has loaded, lower case, "\n" around each; cached per run. */
struct build_facts {
	char *extensions;
	int tried;
};

static const char *extensions_of(struct app *app, int role, struct build_facts *f)
{
	static const char code[] =
	    "<?php foreach (get_loaded_extensions() as $e) "
	    "{ $e = strtolower($e); echo \"\\n$e\"; if ($e === 'zend opcache') echo \"\\nopcache\"; } "
	    "echo \"\\n\";";
	if (!f->tried) {
		struct outcome o = { 0 };
		char *out = NULL;
		size_t len = 0;
		f->tried = 1;
		if (run_script(app, role, "phpcmp-extensions.php", code, sizeof(code) - 1, "", NULL, NULL, &o,
		        &out, &len) == 1)
			f->extensions = out;
		else
			free(out);
	}
	return f->extensions;
}

static int ci_prefix(const char *s, const char *p)
{
	return strncasecmp(s, p, strlen(p)) == 0;
}

/* "/^word\s*(.+)/i": the text after the word and spaces, up to the line's end; NULL if none. */
static const char *after_word(const char *s, size_t wlen, size_t *n)
{
	s += wlen;
	while (*s && strchr(" \t\n\r\v\f", *s))
		s++;
	*n = strcspn(s, "\n");
	return *n ? s : NULL;
}

static void base_name(const char *path, char *out, size_t outsize)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	if (n > 5 && strcmp(b + n - 5, ".phpt") == 0)
		n -= 4; /* keep the dot: "x." as run-tests' basename($file, 'phpt') */
	/* Only plain names reach the worker. */
	size_t k = 0;
	for (size_t i = 0; i < n && k + 1 < outsize; i++) {
		char c = b[i];
		out[k++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		        c == '.' || c == '_' || c == '-'
		    ? c
		    : '_';
	}
	out[k] = '\0';
	if (out[0] == '.' || !out[0])
		out[0] = '_';
}

/* The sections phpcmp cannot give a test (they need a web SAPI or php-cli). */
static const char *unsupported(const struct phpt *t)
{
	static const struct {
		enum phpt_section s;
		const char *why;
	} cgi[] = {
		{ PHPT_GET, "--GET-- needs php-cgi" },
		{ PHPT_POST, "--POST-- needs php-cgi" },
		{ PHPT_POST_RAW, "--POST_RAW-- needs php-cgi" },
		{ PHPT_GZIP_POST, "--GZIP_POST-- needs php-cgi" },
		{ PHPT_DEFLATE_POST, "--DEFLATE_POST-- needs php-cgi" },
		{ PHPT_PUT, "--PUT-- needs php-cgi" },
		{ PHPT_COOKIE, "--COOKIE-- needs php-cgi" },
		{ PHPT_EXPECTHEADERS, "--EXPECTHEADERS-- needs php-cgi" },
	};
	if (phpt_has(t, PHPT_CGI))
		return "--CGI-- needs php-cgi";
	for (size_t i = 0; i < sizeof(cgi) / sizeof(cgi[0]); i++)
		if (phpt_not_empty(t, cgi[i].s))
			return cgi[i].why;
	if (phpt_has(t, PHPT_PHPDBG))
		return "--PHPDBG-- needs phpdbg";
	if (phpt_has(t, PHPT_REDIRECTTEST))
		return "--REDIRECTTEST-- runs other folders' tests: not supported";
	if (phpt_has(t, PHPT_ARGS))
		return "--ARGS-- needs php-cli";
	if (phpt_has(t, PHPT_STDIN))
		return "--STDIN-- needs php-cli";
	if (phpt_has(t, PHPT_CAPTURE_STDIO))
		return "--CAPTURE_STDIO-- needs php-cli";
	if (phpt_not_empty(t, PHPT_ENV))
		return "--ENV-- needs php-cli (a process environment per test)";
	return NULL;
}

struct test_job {
	struct app *app;
	int role;
	const struct phpt *t;
	const char *file;
	const struct aux *aux;
	struct build_facts *facts;
	struct outcome o;
};

static void judge(struct test_job *j, const char *out, size_t len, int xfail, const char *xfail_reason)
{
	struct outcome *o = &j->o;
	char why[256];
	int pass = phpt_compare(j->t, out, len, why, sizeof(why)) == PHPT_MATCH_PASS;
	if (pass) {
		o->status = xfail ? PS_XPASS : PS_PASS;
		if (xfail)
			snprintf(o->reason, sizeof(o->reason), "XFAIL section but test passes");
		return;
	}
	o->status = xfail ? PS_XFAIL : PS_FAIL;
	if (xfail)
		snprintf(o->reason, sizeof(o->reason), "XFAIL REASON: %s", xfail_reason);
	else if (why[0])
		snprintf(o->reason, sizeof(o->reason), "%s", why);
	size_t dl;
	o->diff = phpt_diff(j->t, out, len, &dl);
}

/* An --INI-- setting that could name a file or widen access (phptini.h): 1 with the test
 * refused (BORK), 0 none, -1 out of memory. */
static int refused_ini(const struct phpt *t, struct outcome *o)
{
	struct ini own = { 0 };
	int rc = 0;

	if (!phpt_has(t, PHPT_INI))
		return 0;
	if (ini_add_lines(&own, t->sec[PHPT_INI].data, t->sec[PHPT_INI].len) < 0) {
		ini_release(&own);
		return -1;
	}
	for (size_t k = 0; k < own.n && rc == 0; k++) {
		char refused[300];
		if (phptini_check(own.name[k], own.value[k], refused, sizeof(refused)) != PHPTINI_REFUSED)
			continue;
		o->status = PS_BORK;
		snprintf(o->reason, sizeof(o->reason), "INI %.100s: %s", own.name[k], refused);
		rc = 1;
	}
	ini_release(&own);
	return rc;
}

/* --EXTENSIONS-- the build does not have: 1 with the test skipped (run-tests.php's reason), else 0. */
static int missing_extensions(struct test_job *j)
{
	const struct phpt *t = j->t;
	struct outcome *o = &j->o;
	const char *have, *p;
	char missing[1024] = "";
	int nmissing = 0;

	if (!phpt_has(t, PHPT_EXTENSIONS))
		return 0;
	have = extensions_of(j->app, j->role, j->facts);
	p = t->sec[PHPT_EXTENSIONS].data;
	while (*p) {
		size_t n = strcspn(p, "\r\n");
		char *e = trimmed(p, n), want[300];
		if (e && *e) {
			for (char *c = e; *c; c++)
				*c = (char)tolower((unsigned char)*c);
			snprintf(want, sizeof(want), "\n%s\n", e);
			if (!have || !strstr(have, want)) {
				size_t ml = strlen(missing);
				snprintf(missing + ml, sizeof(missing) - ml, "%s%s", nmissing ? ", " : "", e);
				nmissing++;
			}
		}
		free(e);
		p += n;
		while (*p == '\r' || *p == '\n')
			p++;
	}
	if (nmissing == 0)
		return 0;
	o->status = PS_SKIP;
	snprintf(o->reason, sizeof(o->reason), "Required extension%s missing: %s", nmissing > 1 ? "s" : "",
	    missing);
	return 1;
}

/*
 * --SKIPIF--, with the default settings only (orig; display_startup_errors=0),
 * read as run-tests.php reads it: 1 with the test's outcome settled (skipped,
 * BORK, or the run failed), 0 to go on (xfail may be set by "xfail"), -1
 * out of memory.
 */
static int run_skipif(struct test_job *j, const char *base, const char *orig, int *xfail, char **xfail_reason)
{
	const struct phpt *t = j->t;
	struct outcome *o = &j->o;
	char file[300], *skip_ini, *out = NULL, *s;
	size_t len = 0, n;
	const char *r;
	int rc;

	if (!(skip_ini = malloc(strlen(orig) + 64)))
		return -1;
	sprintf(skip_ini, "%sdisplay_errors=1\ndisplay_startup_errors=0\n", orig);
	snprintf(file, sizeof(file), "%sskip.php", base);
	rc = run_script(j->app, j->role, file, t->sec[PHPT_SKIPIF].data, t->sec[PHPT_SKIPIF].len, skip_ini,
	    j->aux, NULL, o, &out, &len);
	free(skip_ini);
	if (rc <= 0) {
		free(out);
		return 1;
	}
	s = phpt_normalise(out, len, &len);
	free(out);
	if (!s)
		return -1;
	rc = 0;
	if (ci_prefix(s, "skip")) {
		o->status = PS_SKIP;
		r = after_word(s, 4, &n);
		snprintf(o->reason, sizeof(o->reason), "%.*s", r ? (int)n : 0, r ? r : "");
		rc = 1;
	} else if (ci_prefix(s, "info") && after_word(s, 4, &n)) {
		/* info: a note only */
	} else if (ci_prefix(s, "warn") && strchr(" \t\n\r\v\f", s[4]) && s[4] && after_word(s, 4, &n)) {
		/* warn: run-tests marks the result WARN too; phpcmp keeps the status */
	} else if (ci_prefix(s, "xfail")) {
		const char *x = s + 5;
		*xfail = 1;
		free(*xfail_reason);
		while (*x && strchr(" \t\n\r\v\f", *x))
			x++;
		*xfail_reason = strdup(x);
	} else if (ci_prefix(s, "flaky")) {
		/* flaky: run-tests retries a failure once; phpcmp does not */
	} else if (len > 0) {
		o->status = PS_BORK;
		snprintf(o->reason, sizeof(o->reason), "invalid output from SKIPIF: %s", s);
		rc = 1;
	}
	free(s);
	return rc;
}

/* run_test of run-tests.php, from the SKIPIF on, on one build. */
static void run_test(struct test_job *j)
{
	const struct phpt *t = j->t;
	struct outcome *o = &j->o;
	struct ini ini = { 0 };
	char base[256], file[300], *orig = NULL, *full = NULL, *out = NULL;
	size_t len = 0;
	const char *why;
	int stop, xfail = phpt_has(t, PHPT_XFAIL);
	char *xfail_reason = xfail ? trimmed(t->sec[PHPT_XFAIL].data, t->sec[PHPT_XFAIL].len) : NULL;

	base_name(j->file, base, sizeof(base));
	if ((why = unsupported(t)) != NULL) {
		o->status = PS_SKIP;
		snprintf(o->reason, sizeof(o->reason), "%s", why);
		goto out;
	}
	/* Settings that could name a file or widen access: the test is
	 * refused before anything of it runs (phptini.h). */
	if ((stop = refused_ini(t, o)) != 0 || (stop = missing_extensions(j)) != 0) {
		if (stop < 0)
			goto oom;
		goto out;
	}
	if (ini_defaults(&ini) < 0 || !(orig = ini_text(&ini)))
		goto oom;
	if (phpt_has(t, PHPT_INI) && ini_add_lines(&ini, t->sec[PHPT_INI].data, t->sec[PHPT_INI].len) < 0)
		goto oom;
	if (!(full = ini_text(&ini)))
		goto oom;

	if (phpt_not_empty(t, PHPT_SKIPIF) &&
	    (stop = run_skipif(j, base, orig, &xfail, &xfail_reason)) != 0) {
		if (stop < 0)
			goto oom;
		goto out;
	}

	/* FILE, and CLEAN (non-empty, trimmed, default settings) with it */
	char clean_file[300], *clean_code = NULL, *clean_out = NULL;
	size_t clean_len = 0;
	struct clean_req clean = { 0 };
	if (phpt_not_empty(t, PHPT_CLEAN) &&
	    (clean_code = trimmed(t->sec[PHPT_CLEAN].data, t->sec[PHPT_CLEAN].len))) {
		snprintf(clean_file, sizeof(clean_file), "%sclean.php", base);
		clean = (struct clean_req){ .file = clean_file, .code = clean_code, .ini = orig };
	}
	snprintf(file, sizeof(file), "%sphp", base);
	int rc = run_script(j->app, j->role, file, t->sec[PHPT_FILE].data, t->sec[PHPT_FILE].len, full,
	    j->aux, clean_code ? &clean : NULL, o, &out, &len);
	free(clean_code);
	clean_out = clean.printed;
	clean_len = clean.printed_len;
	if (rc <= 0) {
		free(clean_out);
		goto out;
	}
	o->output = out;
	o->output_len = len;
	out = NULL;

	char report[PHPTRUN_MAX_REASON];
	snprintf(report, sizeof(report), "%s", o->memory_error ? o->reason : "");
	judge(j, o->output, o->output_len, xfail, xfail_reason ? xfail_reason : "");
	/* A memory error, even in a test that passes: the report is the reason. */
	if (o->memory_error) {
		o->status = PS_MEMORY_ERROR;
		snprintf(o->reason, sizeof(o->reason), "%s", report);
	}
	/* $clean_output is truthy: not "" and not "0" */
	if (o->status == PS_PASS && clean_out && clean_len > 0 && !(clean_len == 1 && clean_out[0] == '0')) {
		o->status = PS_BORK;
		snprintf(o->reason, sizeof(o->reason), "invalid output from CLEAN: %.*s",
		    (int)(clean_len > 2000 ? 2000 : clean_len), clean_out);
	}
	free(clean_out);
	goto out;
oom:
	o->status = PS_ERROR;
	snprintf(o->reason, sizeof(o->reason), "out of memory");
out:
	free(out);
	free(orig);
	free(full);
	free(xfail_reason);
	ini_release(&ini);
}

static void test_job_run(void *arg)
{
	run_test(arg);
}

/* ---- verdicts ---- */

static int failing(enum phpt_status s)
{
	return s == PS_FAIL || s == PS_CRASH || s == PS_TIMEOUT || s == PS_BORK || s == PS_MEMORY_ERROR;
}

/* One candidate (o[c]) against the base (o[0]). */
static const char *verdict_of(const struct outcome o[MAX_BUILDS], int c)
{
	enum phpt_status b = o[ROLE_BASE].status, h = o[c].status;
	if (b == PS_PASS && failing(h))
		return "regression";
	if (h == PS_PASS && failing(b))
		return "improvement";
	if (b != h)
		return "differ";
	if (b == PS_FAIL &&
	    (o[0].output_len != o[c].output_len ||
	        (o[0].output && o[c].output && memcmp(o[0].output, o[c].output, o[0].output_len))))
		return "differ";
	return "same";
}

/* The test's verdict over every candidate: a regression on any, else an
 * improvement on any, else differ on any, else same. */
static const char *verdict_overall(const char *v[MAX_BUILDS], int nb)
{
	static const char *const order[] = { "regression", "improvement", "differ" };
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (int c = 1; c < nb; c++)
			if (!strcmp(v[c], order[k]))
				return order[k];
	return "same";
}

/* ---- storage (db_phpt.c) ---- */

static int store_test(struct app *app, const struct db_run *run, int nb, const char *test, const char *name,
    const char *source, size_t source_len, const char *verdict, const char *v[MAX_BUILDS],
    const struct outcome o[MAX_BUILDS], int64_t bucket_ids[MAX_BUILDS], char *err, size_t errsize)
{
	struct db_phpt_result r[MAX_BUILDS];
	char *keys[MAX_BUILDS] = { 0 };
	int rc = 0;

	for (int role = 0; role < nb; role++) {
		size_t dl = o[role].diff ? strlen(o[role].diff) : 0;
		const char *vr = role == ROLE_BASE ? NULL : v[role];
		/* a bucket per candidate, test and status pair (bucket.c) */
		if (vr && (!strcmp(vr, "regression") || !strcmp(vr, "improvement")) &&
		    !(keys[role] = bucket_phpt_key(run->build_names[role], test,
		          phpt_status_name(o[ROLE_BASE].status), phpt_status_name(o[role].status)))) {
			snprintf(err, errsize, "out of memory");
			rc = -1;
		}
		r[role] = (struct db_phpt_result){
			.status = phpt_status_name(o[role].status),
			.reason = o[role].reason,
			.output = o[role].output,
			.output_len = o[role].output_len > PHPTRUN_MAX_KEPT ? PHPTRUN_MAX_KEPT
			                                                    : o[role].output_len,
			.diff = o[role].diff,
			.diff_len = dl > PHPTRUN_MAX_KEPT ? PHPTRUN_MAX_KEPT : dl,
			.wall_ms = o[role].wall_ms,
			.signal = o[role].signal,
			.verdict = vr,
			.bucket_key = keys[role],
			.candidate = run->build_names[role],
		};
		bucket_ids[role] = 0;
	}
	if (rc == 0)
		rc = db_phpt_store(app->db, run->id, test, name, verdict, source, source_len, r, nb,
		    bucket_ids, err, errsize);
	for (int role = 0; role < nb; role++)
		free(keys[role]);
	return rc;
}

/* ---- the summary: every test's statuses, counts per build (columns.c) ---- */

static int summary_begin(
    struct phpt_tally *t, const struct phptrun_state *s, const struct db_run *run, int nb)
{
	memset(t, 0, sizeof *t);
	t->total = (int64_t)s->n;
	t->nbuilds = nb;
	for (int role = 0; role < nb; role++)
		snprintf(t->build_names[role], sizeof t->build_names[role], "%s", run->build_names[role]);
	return s->dir[0] != '\0' && (t->dir = strdup(s->dir)) == NULL ? -1 : 0;
}

static int summary_add(struct phpt_tally *t, const char *test, const char *name, const char *verdict,
    const char *v[MAX_BUILDS], const struct outcome o[MAX_BUILDS], const int64_t bucket_ids[MAX_BUILDS])
{
	struct phpt_tally_result r[MAX_BUILDS];

	for (int role = 0; role < t->nbuilds; role++)
		r[role] = (struct phpt_tally_result){ .status = o[role].status,
			.reason = (char *)o[role].reason,
			.diff = o[role].diff,
			.output = o[role].output,
			.output_len = o[role].output_len,
			.verdict = v[role],
			.bucket_id = bucket_ids[role] };
	return phpt_tally_add(t, test, name, verdict, r);
}

static int summary_save(
    struct app *app, const struct db_run *run, const struct phpt_tally *t, char *err, size_t errsize)
{
	char *text = column_phpt_summary(t);
	int rc;

	if (text == NULL) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	rc = db_run_summary(app->db, run->id, text, err, errsize);
	free(text);
	return rc;
}

/*
 * The test's folder beneath its served one (l->dirfd, left open for what
 * the test names beside it), then the test through that descriptor, parsed
 * into t (*parsed 0, or -1: t->bork says why).  Its text (malloc'd), or NULL
 * with why (t zeroed).
 */
static char *phptrun_read(struct phptrun_state *s, size_t i, struct phpt *t, struct loader_ctx *l,
    size_t *len, int *parsed, char *why, size_t whysize)
{
	char reldir[PATH_MAX], *text;
	snprintf(reldir, sizeof(reldir), "%s", s->rel[i]);
	char *slash = strrchr(reldir, '/');
	const char *base = slash ? s->rel[i] + (slash - reldir) + 1 : s->rel[i];
	if (slash)
		*slash = '\0';
	else
		snprintf(reldir, sizeof(reldir), ".");
	l->dirfd = beneath_open(served_fd(s->root[i]), reldir, O_PATH | O_DIRECTORY);
	if (l->dirfd < 0)
		snprintf(why, whysize, "its folder: %s",
		    errno == ELOOP || errno == EXDEV ? "a symbolic link on the way (refused)"
		                                     : strerror(errno));
	text = l->dirfd >= 0 ? beneath_read(l->dirfd, base, PHPT_MAX_FILE, len, why, whysize) : NULL;
	*parsed = text ? phpt_parse(t, text, *len, load_external, l) : -1;
	if (!text)
		memset(t, 0, sizeof(*t));
	return text;
}

/*
 * Test i of the run (s->rel[i] beneath its served folder): read, run on
 * every build at once, judged, stored, added to the summary.  GENRUN_DONE,
 * or GENRUN_FAILED with err.
 */
static enum genrun_end phptrun_test(struct app *app, const struct db_run *run, struct phptrun_state *s,
    size_t i, int nb, struct build_facts facts[MAX_BUILDS], struct phpt_tally *sum, char *err, size_t errsize)
{
	struct phpt t;
	struct loader_ctx l;
	enum genrun_end end = GENRUN_DONE;
	struct test_job jobs[MAX_BUILDS];
	struct outcome o[MAX_BUILDS];
	size_t len = 0;
	char *name = NULL;
	int parsed;

	memset(jobs, 0, sizeof(jobs));
	memset(&l, 0, sizeof(l));
	char why[256] = "", *text = phptrun_read(s, i, &t, &l, &len, &parsed, why, sizeof(why));
	name = parsed == 0 ? phpt_name(&t) : strdup("");
	struct aux aux = { .n = 0 };
	if (parsed == 0)
		aux_collect(&aux, &t, l.dirfd);
	if (l.dirfd >= 0)
		close(l.dirfd);
	for (int role = 0; role < nb; role++) {
		jobs[role] = (struct test_job){ .app = app,
			.role = role,
			.t = &t,
			.file = s->files[i],
			.aux = &aux,
			.facts = &facts[role] };
		if (!text) {
			jobs[role].o.status = PS_BORK;
			snprintf(jobs[role].o.reason, sizeof(jobs[role].o.reason), "cannot read %s: %s",
			    s->files[i], why);
		} else if (parsed < 0) {
			jobs[role].o.status = PS_BORK;
			snprintf(jobs[role].o.reason, sizeof(jobs[role].o.reason), "%s%s%s",
			    t.bork[0] ? t.bork : "out of memory", l.why[0] ? ": " : "", l.why);
		}
	}
	if (parsed == 0) {
		/* Every build at once: each candidate on a thread, the base here. */
		fanout_run(test_job_run, jobs, sizeof jobs[0], nb);
	}
	for (int role = 0; role < nb; role++)
		o[role] = jobs[role].o;
	const char *v[MAX_BUILDS] = { 0 };
	int64_t bucket_ids[MAX_BUILDS] = { 0 };
	for (int role = 1; role < nb; role++)
		v[role] = verdict_of(o, role);
	const char *verdict = verdict_overall(v, nb);
	for (int role = 0; role < nb; role++) {
		if (o[role].status == PS_ERROR) {
			snprintf(err, errsize, "%s on %s: %s", s->names[i], role_name(role), o[role].reason);
			end = GENRUN_FAILED;
		}
	}
	if (end == GENRUN_DONE) {
		if (store_test(app, run, nb, s->names[i], name ? name : "", text, len, verdict, v, o,
		        bucket_ids, err, errsize) < 0)
			end = GENRUN_FAILED;
		else if (summary_add(sum, s->names[i], name ? name : "", verdict, v, o, bucket_ids) < 0) {
			snprintf(err, errsize, "out of memory");
			end = GENRUN_FAILED;
		}
	}
	for (int role = 0; role < nb; role++)
		outcome_release(&jobs[role].o);
	aux_release(&aux);
	if (end == GENRUN_DONE && i % 25 == 24 && i + 1 < s->n) {
		/* progress for GET /api/runs/{id}; the final one below */
		char dberr[256];
		summary_save(app, run, sum, dberr, sizeof(dberr));
	}
	free(name);
	free(text);
	phpt_release(&t);
	return end;
}

enum genrun_end phptrun_execute(struct app *app, const struct db_run *run, void *state,
    int (*stop)(void *arg, int *cancelled), void *arg, char *err, size_t errsize)
{
	struct phptrun_state *s = state;
	struct build_facts facts[MAX_BUILDS] = { 0 };
	/* every build of the run: the base and each candidate */
	int nb = app->run_nbuilds;
	if (nb > MAX_BUILDS)
		nb = MAX_BUILDS;
	if (nb < 2) {
		snprintf(err, errsize, "a phpt run needs a base and a candidate (%d builds)", nb);
		return GENRUN_FAILED;
	}
	struct phpt_tally sum;
	enum genrun_end end = GENRUN_DONE;
	int cancelled = 0;

	if (summary_begin(&sum, s, run, nb) < 0) {
		snprintf(err, errsize, "out of memory");
		phpt_tally_release(&sum);
		return GENRUN_FAILED;
	}
	/* A resumed run (POST /api/runs/{id}/resume) starts over: its tests
	 * take a few seconds, and the summary is made as they run. */
	if (run->done > 0 && db_phpt_restart(app->db, run->id, err, errsize) < 0) {
		phpt_tally_release(&sum);
		return GENRUN_FAILED;
	}

	for (size_t i = 0; i < s->n && end == GENRUN_DONE; i++) {
		if (stop(arg, &cancelled)) {
			end = cancelled ? GENRUN_CANCELLED : GENRUN_INTERRUPTED;
			break;
		}
		end = phptrun_test(app, run, s, i, nb, facts, &sum, err, errsize);
	}
	char dberr[256];
	if (summary_save(app, run, &sum, dberr, sizeof(dberr)) < 0 && end == GENRUN_DONE) {
		snprintf(err, errsize, "%s", dberr);
		end = GENRUN_FAILED;
	}
	phpt_tally_release(&sum);
	for (int role = 0; role < nb; role++)
		free(facts[role].extensions);
	return end;
}

/* ---- report.md ---- */

/*
 * "ext/json/tests: 76 — base 72 passed, 4 skipped; head 71 passed, 1 failed (x.phpt)",
 * from a phpt run's summary.  NULL when the run is not a phpt run.
 */
char *phptrun_report_line(const struct db_run *run)
{
	static const struct {
		enum phpt_status status;
		const char *word;
	} words[] = {
		{ PS_PASS, "passed" },
		{ PS_FAIL, "failed" },
		{ PS_SKIP, "skipped" },
		{ PS_BORK, "borked" },
		{ PS_XFAIL, "expected to fail" },
		{ PS_XPASS, "passed though expected to fail" },
		{ PS_CRASH, "crashed" },
		{ PS_TIMEOUT, "timed out" },
	};
	struct phpt_tally sum;
	char label[512];

	if (strcmp(run->suite, "phpt") != 0 || column_phpt_summary_read(run->summary, &sum) < 0)
		return NULL;
	if (sum.dir != NULL) {
		/* the folder from its last "ext/" on, wherever the tree is */
		const char *e = NULL;
		for (const char *at = strstr(sum.dir, "/ext/"); at; at = strstr(at + 1, "/ext/"))
			e = at;
		snprintf(label, sizeof(label), "%s", e ? e + 1 : sum.dir);
	} else {
		snprintf(label, sizeof(label), "files");
	}
	size_t cap = 4096, len = 0;
	char *out = malloc(cap);
	if (!out) {
		phpt_tally_release(&sum);
		return NULL;
	}
	len += (size_t)snprintf(out, cap, "%s: %" PRId64, label, sum.total);
	for (int role = 0; role < run->nbuilds && role < MAX_BUILDS; role++) {
		len += (size_t)snprintf(
		    out + len, cap - len, "%s%s", role == 0 ? " — " : "; ", run->build_names[role]);
		int first = 1;
		for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
			enum phpt_status st = words[k].status;
			int64_t n = role < sum.nbuilds ? sum.counts[role][st] : 0;
			if (!n)
				continue;
			int bad = role != 0 && st != PS_PASS && st != PS_SKIP;
			len += (size_t)snprintf(out + len, cap - len, "%s %s%" PRId64 " %s%s",
			    first ? "" : ",", bad ? "**" : "", n, words[k].word, bad ? "**" : "");
			first = 0;
			/* the failing tests by name */
			if (st != PS_FAIL && st != PS_CRASH && st != PS_TIMEOUT && st != PS_BORK)
				continue;
			int listed = 0;
			for (size_t i = 0; i < sum.nrows; i++) {
				if (sum.rows[i].r[role].status != st)
					continue;
				const char *tn = sum.rows[i].test, *b = strrchr(tn, '/');
				if (len + 300 > cap)
					break;
				len += (size_t)snprintf(
				    out + len, cap - len, "%s%s", listed ? ", " : " (", b ? b + 1 : tn);
				if (++listed == 10)
					break;
			}
			if (listed)
				len += (size_t)snprintf(out + len, cap - len, ")");
		}
		if (first)
			len += (size_t)snprintf(out + len, cap - len, " nothing run");
		if (len + 600 > cap)
			break;
	}
	phpt_tally_release(&sum);
	return out;
}

/* report.md of a phpt run: 1 with *md (malloc'd), 0 when the run is not
 * a phpt run (or unknown), -1 out of memory. */
int phptrun_report_md(struct app *app, int64_t run_id, char **md)
{
	struct db_run run;
	char err[256];

	*md = NULL;
	memset(&run, 0, sizeof(run));
	if (db_run_get(app->db, run_id, &run, err, sizeof(err)) != 1)
		return 0;
	if (strcmp(run.suite, "phpt") != 0) {
		db_run_release(&run);
		return 0;
	}
	char *line = phptrun_report_line(&run);
	if (!line)
		line = strdup(strcmp(run.status, "queued") == 0 || strcmp(run.status, "running") == 0
		        ? "(no results yet)"
		        : "(no test ran)");
	/* "base: a (PHP 8.2.32), head: b (PHP 8.2.32), cand2: c (...)" */
	char builds[MAX_BUILDS * 160] = "";
	size_t bl = 0;
	for (int role = 0; role < run.nbuilds && role < MAX_BUILDS; role++)
		bl += (size_t)snprintf(builds + bl, sizeof(builds) - bl, "%s%s: %s (PHP %s)",
		    role ? ", " : "", role_name(role), run.build_names[role], run.build_versions[role]);
	char note[1200];
	size_t cap = (line ? strlen(line) : 0) + sizeof(builds) + sizeof(note) + 1024;
	if (line && (*md = malloc(cap)) != NULL)
		snprintf(*md, cap,
		    "### phpcmp run %" PRId64 ": php-src's .phpt tests\n\n"
		    "%s; run-tests.php's statuses through the embed SAPI.\n\n"
		    "%s%s\n",
		    run.id, builds, line, run_status_note(run.status, run.error, note, sizeof note));
	free(line);
	db_run_release(&run);
	return *md ? 1 : -1;
}
