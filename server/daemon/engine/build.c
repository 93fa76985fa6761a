/*
 * Builds: a name and a prefix holding libphp*.so and its headers.  Two
 * layouts are known: Debian's (usr/lib/libphp8.2.so, usr/include/php/<api>/)
 * and a `make install` prefix (lib/libphp.so, include/php/).  The worker core
 * is compiled once per build against that build's own headers: PHP's ABI
 * differs even between patch releases.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <openssl/evp.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "rmtree.h"

extern char **environ;

/* The first existing match of pattern under prefix, into out. */
static int first_match(const char *prefix, const char *pattern, char *out, size_t outsize)
{
	char pat[PATH_MAX];
	glob_t g;
	int found = 0;
	snprintf(pat, sizeof(pat), "%s/%s", prefix, pattern);
	if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
		found = snprintf(out, outsize, "%s", g.gl_pathv[0]) < (int)outsize;
	}
	globfree(&g);
	return found;
}

static int sha256_file(const char *path, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[1 << 16];
	unsigned int mdlen = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	ssize_t n;
	while (ok && (n = read(fd, buf, sizeof(buf))) > 0)
		ok = EVP_DigestUpdate(ctx, buf, (size_t)n);
	ok = ok && n == 0 && EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	close(fd);
	if (!ok)
		return -1;
	for (unsigned i = 0; i < mdlen && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/* Whether the header defines `name` as 1 (php_config.h's ZEND_DEBUG). */
static int header_defines(const char *path, const char *name)
{
	char line[512], want[128];
	int found = 0;
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return 0;
	snprintf(want, sizeof(want), "#define %s 1", name);
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strncmp(line, want, strlen(want)) == 0;
	fclose(f);
	return found;
}

/*
 * The build's kind: its origin (scripts/build-php.sh writes
 * phpcmp-build.txt into a prefix it makes: "source"; Debian's layout:
 * "debian"; any other make install: "prefix") and its flavour (from
 * phpcmp-build.txt, else debug when its php_config.h says ZEND_DEBUG).
 *
 * A coverage flavour of scripts/build-php.sh (docs/builds.md): its prefix's
 * phpcmp-build.txt says flavour=coverage and the tree above the prefix holds
 * ext/json's notes.  Coverage runs (coverage.c) need that tree.
 */
static void build_find_kind(struct build *b)
{
	char path[PATH_MAX + 64], line[512], flavour[32] = "";
	int coverage = 0;
	snprintf(path, sizeof(path), "%s/phpcmp-build.txt", b->prefix);
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(path, sizeof(path), "%s/main/php_config.h", b->include_dir);
		snprintf(b->kind, sizeof(b->kind), "%s %s",
		    strstr(b->lib_path, "/usr/lib/") ? "debian" : "prefix",
		    header_defines(path, "ZEND_DEBUG") ? "debug" : "release");
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strcmp(line, "flavour=coverage\n") == 0)
			coverage = 1;
		if (strncmp(line, "flavour=", 8) == 0)
			snprintf(flavour, sizeof(flavour), "%.*s", (int)strcspn(line + 8, "\n"), line + 8);
	}
	fclose(f);
	snprintf(b->kind, sizeof(b->kind), "source %s", flavour[0] ? flavour : "release");
	char *slash = strrchr(b->prefix, '/');
	if (!coverage || slash == NULL || slash == b->prefix)
		return;
	snprintf(path, sizeof(path), "%.*s/obj/ext/json/.libs/json_encoder.gcno", (int)(slash - b->prefix),
	    b->prefix);
	if (access(path, R_OK) == 0)
		snprintf(
		    b->coverage_tree, sizeof(b->coverage_tree), "%.*s", (int)(slash - b->prefix), b->prefix);
}

/*
 * The PHP versions the worker cores are written for: server/core/compat.h
 * keeps the same two numbers (scripts/core-compat-check.sh checks they
 * agree).  A build outside them is refused when it is found, with its
 * version, rather than by a compiler error when its core is compiled.
 */
#define BUILD_PHP_OLDEST 80000
#define BUILD_PHP_NEWEST 80699

/* 0 when the PHP of a build's headers (include_dir/main/php_version.h) is
 * one the cores support, else -1 with err saying which it is. */
static int build_php_version_check(const char *name, const char *include_dir, char *err, size_t errsize)
{
	char path[PATH_MAX + 32], line[256], version[64] = "";
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/main/php_version.h", include_dir);
	if ((f = fopen(path, "r")) == NULL) {
		snprintf(err, errsize, "build %s: %s: %s (no PHP version in its headers)", name, path,
		    strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "#define PHP_VERSION \"%63[^\"]\"", version) == 1)
			continue;
		sscanf(line, "#define PHP_VERSION_ID %ld", &id);
	}
	fclose(f);
	if (id < 0 || version[0] == '\0') {
		snprintf(err, errsize, "build %s: %s has no PHP_VERSION or PHP_VERSION_ID", name, path);
		return -1;
	}
	if (id < BUILD_PHP_OLDEST) {
		snprintf(err, errsize,
		    "build %s: PHP %s is older than %d.%d, the oldest PHP phpcmp's cores support "
		    "(docs/builds.md#versions)",
		    name, version, BUILD_PHP_OLDEST / 10000, BUILD_PHP_OLDEST / 100 % 100);
		return -1;
	}
	if (id > BUILD_PHP_NEWEST) {
		snprintf(err, errsize,
		    "build %s: PHP %s is newer than %d.%d, the newest PHP phpcmp's cores are written for "
		    "(docs/builds.md#versions)",
		    name, version, BUILD_PHP_NEWEST / 10000, BUILD_PHP_NEWEST / 100 % 100);
		return -1;
	}
	return 0;
}

int build_discover(struct build *b, const char *name, const char *prefix, char *err, size_t errsize)
{
	/* clang-format off */
	static const char *const libs[] = {
		"lib/libphp.so", "lib/libphp*.so", "usr/lib/libphp*.so",
		"usr/lib/*/libphp*.so", "lib/*/libphp*.so",
	};
	/* clang-format on */
	/* clang-format off */
	static const char *const includes[] = {
		"include/php/main/php.h", "include/php/*/main/php.h",
		"usr/include/php/*/main/php.h", "usr/include/php/main/php.h",
	};
	/* clang-format on */
	char abs[PATH_MAX];

	memset(b, 0, sizeof(*b));
	if (snprintf(b->name, sizeof(b->name), "%s", name) >= (int)sizeof(b->name) || !name[0]) {
		snprintf(err, errsize, "build name \"%s\" is empty or too long", name);
		return -1;
	}
	if (!realpath(prefix, abs)) {
		snprintf(err, errsize, "build %s: prefix %s: %s", name, prefix, strerror(errno));
		return -1;
	}
	snprintf(b->prefix, sizeof(b->prefix), "%s", abs);
	size_t i;
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (first_match(abs, libs[i], b->lib_path, sizeof(b->lib_path)))
			break;
	if (i == sizeof(libs) / sizeof(libs[0])) {
		snprintf(err, errsize,
		    "build %s: no libphp*.so under %s (looked in lib/ and usr/lib/; "
		    "configure PHP with --enable-embed=shared)",
		    name, abs);
		return -1;
	}
	for (i = 0; i < sizeof(includes) / sizeof(includes[0]); i++)
		if (first_match(abs, includes[i], b->include_dir, sizeof(b->include_dir)))
			break;
	if (i == sizeof(includes) / sizeof(includes[0])) {
		snprintf(
		    err, errsize, "build %s: no PHP headers (include/php/main/php.h) under %s", name, abs);
		return -1;
	}
	/* .../main/php.h -> the include root */
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(b->include_dir, '/');
		if (slash == NULL) {
			snprintf(
			    err, errsize, "build %s: headers at %s: no include folder", name, b->include_dir);
			return -1;
		}
		*slash = '\0';
	}
	if (build_php_version_check(name, b->include_dir, err, errsize) < 0)
		return -1;
	if (sha256_file(b->lib_path, b->sha256) < 0) {
		snprintf(err, errsize, "build %s: cannot read %s: %s", name, b->lib_path, strerror(errno));
		return -1;
	}
	build_find_kind(b);
	if (sanitize_detect(b, err, errsize) < 0)
		return -1;
	return 0;
}

static int newer_than(const char *src, const struct stat *out)
{
	struct stat st;
	return stat(src, &st) == 0 && st.st_mtim.tv_sec >= out->st_mtim.tv_sec;
}

/*
 * The compiler reads the build's headers, which are a pull request's as
 * much as its library: it runs under the worker's own sandbox
 * (phpcmp-worker --sandbox-exec: no network, no capabilities, landlock
 * letting it read /usr, the build's prefix and headers and the core's
 * sources, and write its output folder and a scratch folder of its own:
 * CORE.PID.d, as two daemons may compile one core at once),
 * so a header that includes /etc/shadow gets nothing into the log
 * (unless the operator chose the compiler: PHPCMP_CC).  The
 * words before the compiler's into argv: their count (0 with the sandbox
 * off), or -1 when the scratch folder cannot be made.
 */
struct core_confine_paths {
	char scratch[PATH_MAX + 16], src[PATH_MAX], out[PATH_MAX];
};

static int core_confine(
    const struct build *b, const struct config *cfg, const char *argv[], struct core_confine_paths *p)
{
	char *scratch = p->scratch, *src = p->src, *out = p->out;
	int n = 0;

	/* A compiler of the operator's own (PHPCMP_CC: a wrapper, ccache) may
	 * need files of its own: it runs as given. */
	if (strcmp(cfg->sandbox.layers, "none") == 0 || cfg->worker_bin == NULL ||
	    getenv("PHPCMP_CC") != NULL)
		return 0;
	snprintf(scratch, sizeof p->scratch, "%s.%d.d", b->core_path, (int)getpid());
	rmtree(scratch);
	if (mkdir(scratch, 0700) < 0)
		return -1;
	snprintf(src, sizeof p->src, "%s/..", cfg->core_src);
	snprintf(out, sizeof p->out, "%s", b->core_path);
	char *slash = strrchr(out, '/');
	if (slash != NULL)
		*slash = '\0';
	/* clang-format off */
	const char *pre[] = {
		cfg->worker_bin, "--sandbox-exec", "netns,caps,landlock", "--sandbox-dir", scratch,
		"--allow-read", b->prefix, "--allow-read", b->include_dir, "--allow-read", src,
		"--allow-read", b->lib_path, "--allow-write", out, "--",
	};
	/* clang-format on */
	for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++)
		argv[n++] = pre[k];
	return n;
}

/* Start argv with its stdout and stderr to errfile.  The pid, or -1. */
static pid_t spawn_command(const char *const argv[], const char *errfile)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	/* posix_spawn's argv is not const for historical reasons only. */
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return pid;
}

/* A wait status as an exit status (128 + signal when killed). */
static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The core's file list (server/core/SOURCES, paths relative to server/): up to
 * BUILD_MAX_SOURCES paths into list, their text in store.  The count, or -1. */
#define BUILD_MAX_SOURCES 32
static int build_sources(const char *core_src, char *store, size_t storesize,
    const char *list[BUILD_MAX_SOURCES], char *err, size_t errsize)
{
	char path[PATH_MAX + 16], *text, *line, *save = NULL;
	size_t len;
	int n = 0;

	snprintf(path, sizeof(path), "%s/SOURCES", core_src);
	if ((text = bytes_read_file(path, storesize - 1, &len, err, errsize)) == NULL)
		return -1;
	memcpy(store, text, len + 1);
	free(text);
	for (line = strtok_r(store, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (*line == '\0' || *line == '#')
			continue;
		line[strcspn(line, " \t\r")] = '\0';
		if (n == BUILD_MAX_SOURCES) {
			snprintf(err, errsize, "%s: more than %d files", path, BUILD_MAX_SOURCES);
			return -1;
		}
		list[n++] = line;
	}
	return n;
}

/*
 * Start compiling b's worker core unless the cached one is fresh: the
 * compiler's pid, 0 when nothing is to do, -1 on error.  The compiler
 * writes a temporary file (its name has this daemon's pid) that
 * core_finish renames into place: a second daemon on the same state folder
 * compiling the same core never sees half a file.
 */
static pid_t core_start(struct build *b, const struct config *cfg, char *err, size_t errsize)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 16], log[PATH_MAX + 16];
	char inc[6][PATH_MAX + 2], core_inc[PATH_MAX + 16], common_inc[PATH_MAX + 16], libdir[PATH_MAX + 2];
	char store[4096], paths[BUILD_MAX_SOURCES][PATH_MAX + 16];
	const char *files[BUILD_MAX_SOURCES];
	struct stat st;
	int nfiles;

	if ((nfiles = build_sources(cfg->core_src, store, sizeof(store), files, err, errsize)) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s/cores", cfg->state_dir);
	if (mkdir(cfg->state_dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errsize, "cannot create %s: %s", cfg->state_dir, strerror(errno));
		return -1;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errsize, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	/* Keyed by the library's hash: a rebuilt libphp gets a fresh core. */
	if (snprintf(b->core_path, sizeof(b->core_path), "%s/%s-%.16s.so", dir, b->name, b->sha256) >=
	    (int)sizeof(b->core_path)) {
		snprintf(err, errsize, "state directory path too long");
		return -1;
	}
	/* Every file the core is made of: a change to any of them recompiles it. */
	int fresh = stat(b->core_path, &st) == 0;
	for (int i = 0; i < nfiles; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/../%s", cfg->core_src, files[i]);
		fresh = fresh && !newer_than(paths[i], &st);
	}
	if (fresh)
		return 0;

	const char *subdirs[] = { "", "/main", "/Zend", "/TSRM", "/ext", "/sapi/embed" };
	for (int i = 0; i < 6; i++)
		snprintf(inc[i], sizeof(inc[i]), "-I%s%s", b->include_dir, subdirs[i]);
	/* The core's own headers and the leaf library's (server/common). */
	snprintf(core_inc, sizeof(core_inc), "-I%s", cfg->core_src);
	snprintf(common_inc, sizeof(common_inc), "-I%s/../common", cfg->core_src);
	char libcopy[PATH_MAX];
	snprintf(libcopy, sizeof(libcopy), "%s", b->lib_path);
	char *slash = strrchr(libcopy, '/');
	if (slash == NULL) {
		snprintf(err, errsize, "build %s: library path %s has no folder", b->name, b->lib_path);
		return -1;
	}
	*slash = '\0';
	snprintf(libdir, sizeof(libdir), "-L%s", libcopy);
	char libname[PATH_MAX];
	snprintf(libname, sizeof(libname), "-l:%s", slash + 1);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", b->core_path, (int)getpid());
	snprintf(log, sizeof(log), "%s.log", b->core_path);
	const char *cc = getenv("PHPCMP_CC") ? getenv("PHPCMP_CC") : "cc";
	const char *argv[48 + BUILD_MAX_SOURCES];
	struct core_confine_paths confined;
	int argc = core_confine(b, cfg, argv, &confined);
	if (argc < 0) {
		snprintf(err, errsize, "build %s: cannot create %s: %s", b->name, confined.scratch,
		    strerror(errno));
		return -1;
	}
	/* -Wno-unused-parameter: PHP's own headers trip it. */
	/* clang-format off */
	const char *cc_args[] = {
		cc, "-std=gnu11", "-D_GNU_SOURCE", "-O2", "-g", "-fPIC", "-shared",
		"-Wall", "-Wextra", "-Wno-unused-parameter",
		core_inc, common_inc, inc[0], inc[1], inc[2], inc[3], inc[4], inc[5],
		"-o", tmp,
	};
	/* clang-format on */
	for (size_t k = 0; k < sizeof cc_args / sizeof cc_args[0]; k++)
		argv[argc++] = cc_args[k];
	for (int i = 0; i < nfiles; i++) {
		size_t n = strlen(paths[i]);
		if (n > 2 && strcmp(paths[i] + n - 2, ".c") == 0)
			argv[argc++] = paths[i];
	}
	argv[argc++] = libdir;
	argv[argc++] = libname;
	argv[argc] = NULL;
	pid_t pid = spawn_command(argv, log);
	if (pid < 0)
		snprintf(
		    err, errsize, "build %s: cannot run %s: %s; see %s", b->name, cc, strerror(errno), log);
	return pid;
}

/* The compiler of b's core ended with this wait status: rename its output. */
static int core_finish(struct build *b, int status, char *err, size_t errsize)
{
	char tmp[PATH_MAX + 16], log[PATH_MAX + 16], scratch[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", b->core_path, (int)getpid());
	snprintf(log, sizeof(log), "%s.log", b->core_path);
	snprintf(scratch, sizeof scratch, "%s.%d.d", b->core_path, (int)getpid());
	rmtree(scratch);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		unlink(tmp);
		snprintf(err, errsize, "build %s: compiling the worker core failed (exit %d); see %s",
		    b->name, exit_code(status), log);
		return -1;
	}
	if (rename(tmp, b->core_path) < 0) {
		snprintf(err, errsize, "build %s: %s: %s", b->name, b->core_path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* How many compilers run at once: the CPUs online (PHPCMP_CORE_JOBS overrides). */
static int core_jobs(int n)
{
	const char *env = getenv("PHPCMP_CORE_JOBS");
	long jobs = env != NULL ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	if (jobs < 1)
		jobs = 1;
	return jobs < n ? (int)jobs : n;
}

int build_compile_cores(
    struct build *const bs[], int n, const struct config *cfg, int *failed, char *err, size_t errsize)
{
	pid_t pids[MAX_BUILDS];
	int first = 0, next = 0, jobs;
	char one[3 * PATH_MAX]; /* any one message in full: copied to err when it is the first */

	*failed = -1;
	if (n > MAX_BUILDS) {
		snprintf(err, errsize, "at most %d builds", MAX_BUILDS);
		return -1;
	}
	jobs = core_jobs(n);
	/*
	 * Up to jobs compilers at a time, waited for in the order started (only
	 * our own pids: waitpid(-1) could reap a child that is not ours).  A
	 * failure starts no more, but the running ones are waited for: no
	 * compiler outlives this call.
	 */
	while (first < next || (next < n && *failed < 0)) {
		while (next - first < jobs && next < n && *failed < 0) {
			pids[next] = core_start(bs[next], cfg, one, sizeof(one));
			if (pids[next] < 0) {
				*failed = next;
				snprintf(err, errsize, "%s", one);
			}
			next++;
		}
		for (; first < next && pids[first] <= 0; first++)
			;
		if (first == next)
			continue;
		int status;
		while (waitpid(pids[first], &status, 0) < 0) {
			if (errno == EINTR)
				continue;
			status = 127 << 8; /* ECHILD: reaped elsewhere, so unknown: failed */
			break;
		}
		pids[first] = 0;
		if (core_finish(bs[first], status, one, sizeof(one)) < 0 && *failed < 0) {
			*failed = first;
			snprintf(err, errsize, "%s", one);
		}
		first++;
	}
	return *failed < 0 ? 0 : -1;
}

int build_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n >= sizeof(((struct build *)0)->name))
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		        (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-' ||
		        (s[i] == '@' && i > 0)))
			return 0;
	return 1;
}

int build_list(struct config *cfg, struct build *builds[MAX_BUILDS])
{
	int i, n = 0;

	pthread_mutex_lock(&cfg->builds_lock);
	for (i = 0; i < cfg->nbuilds && n < MAX_BUILDS; i++)
		if (!__atomic_load_n(&cfg->builds[i].retired, __ATOMIC_ACQUIRE) &&
		    cfg->builds[i].asan_of == 0 && !cfg->builds[i].is_reference)
			builds[n++] = &cfg->builds[i];
	pthread_mutex_unlock(&cfg->builds_lock);
	for (i = n; i < MAX_BUILDS; i++)
		builds[i] = NULL;
	return n;
}

int build_list_named(struct config *cfg, const char *const names[], int n, struct build *builds[MAX_BUILDS],
    char *err, size_t errsize)
{
	struct build *active[MAX_BUILDS];
	int i, j, k, nactive;

	if (n < 2 || n > MAX_BUILDS) {
		snprintf(err, errsize, "builds: expected a list of 2 to %d build names, the base first",
		    MAX_BUILDS);
		return -1;
	}
	nactive = build_list(cfg, active);
	for (i = 0; i < n; i++) {
		for (j = 0; j < nactive && strcmp(active[j]->name, names[i]) != 0; j++)
			;
		if (j == nactive) {
			snprintf(err, errsize,
			    "builds[%d]: no active build is named \"%.64s\" (GET /api/builds)", i, names[i]);
			return -1;
		}
		for (k = 0; k < i; k++)
			if (builds[k] == active[j]) {
				snprintf(err, errsize, "builds[%d]: %s is named twice", i, active[j]->name);
				return -1;
			}
		builds[i] = active[j];
	}
	for (; i < MAX_BUILDS; i++)
		builds[i] = NULL;
	return n;
}

struct build *build_find(struct config *cfg, const char *name)
{
	struct build *found = NULL;

	pthread_mutex_lock(&cfg->builds_lock);
	for (int i = cfg->nbuilds - 1; i >= 0 && found == NULL; i--)
		if (strcmp(cfg->builds[i].name, name) == 0)
			found = &cfg->builds[i];
	pthread_mutex_unlock(&cfg->builds_lock);
	return found;
}

int build_name_active(struct config *cfg, const char *name)
{
	int found = 0;

	pthread_mutex_lock(&cfg->builds_lock);
	for (int i = 0; i < cfg->nbuilds && !found; i++)
		found = strcmp(cfg->builds[i].name, name) == 0 &&
		    !__atomic_load_n(&cfg->builds[i].retired, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&cfg->builds_lock);
	return found;
}

struct build *build_asan_of(struct config *cfg, const struct build *b)
{
	struct build *found = NULL;
	int slot = build_slot(cfg, b);

	pthread_mutex_lock(&cfg->builds_lock);
	for (int i = 0; i < cfg->nbuilds && found == NULL; i++)
		if (cfg->builds[i].asan_of == slot + 1 &&
		    !__atomic_load_n(&cfg->builds[i].retired, __ATOMIC_ACQUIRE))
			found = &cfg->builds[i];
	pthread_mutex_unlock(&cfg->builds_lock);
	return found;
}

struct build *build_active_by_id(struct config *cfg, int64_t db_id)
{
	struct build *found = NULL;

	pthread_mutex_lock(&cfg->builds_lock);
	for (int i = 0; i < cfg->nbuilds && found == NULL; i++)
		if (cfg->builds[i].db_id == db_id &&
		    !__atomic_load_n(&cfg->builds[i].retired, __ATOMIC_ACQUIRE))
			found = &cfg->builds[i];
	pthread_mutex_unlock(&cfg->builds_lock);
	return found;
}

int build_active_set(struct config *cfg, const int64_t ids[], int n, struct build *out[MAX_BUILDS])
{
	int i, missing = -1;

	for (i = 0; i < MAX_BUILDS; i++)
		out[i] = i < n ? build_active_by_id(cfg, ids[i]) : NULL;
	for (i = n - 1; i >= 0; i--)
		if (out[i] == NULL)
			missing = i;
	return missing;
}

int build_slot(const struct config *cfg, const struct build *b)
{
	return (int)(b - cfg->builds);
}

struct worker *build_worker(struct app *app, const struct build *b)
{
	return &app->workers[build_slot(app->config, b)];
}
