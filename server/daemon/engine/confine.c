/*
 * The workers' sandbox, the daemon's side: the settings (config keys and
 * flags), each worker's private folder (created here before the worker
 * starts, removed when it is reaped), and the sandbox arguments of the
 * worker's command line.  The worker applies them: server/worker/sandbox.c,
 * docs/sandbox.md.
 *
 * A measuring worker runs the loader under valgrind, which knows neither
 * landlock's system calls nor how to pass them on: a first loader applies
 * landlock, the network namespace and the capability drop, then execs
 * valgrind, and the loader under valgrind does the rest.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine.h"
#include "layers.h"
#include "rmtree.h"

/* What only a loader outside valgrind can apply. */

void confine_defaults(struct sandbox_config *s)
{
	const char *tmp = getenv("TMPDIR");

	memset(s, 0, sizeof(*s));
	snprintf(s->layers, sizeof(s->layers), "all");
	s->dir = tmp && tmp[0] == '/' ? tmp : "/tmp";
	s->cpu_s = 10;
	s->as = 1LL << 30;
	s->measure_as = 4LL << 30;
	s->fsize = 16LL << 20;
	s->disk = 64LL << 20;
	s->nofile = 64;
	s->nproc = 0;
	s->disable_functions = NULL;
}

/* A list of layer names, "all" or "none"; normalised into out. */
static int confine_parse_layers(const char *v, char *out, size_t outsize)
{
	char buf[128];
	unsigned mask = 0;

	if (!strcmp(v, "all") || !strcmp(v, "none")) {
		snprintf(out, outsize, "%s", v);
		return 0;
	}
	if (strlen(v) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		size_t i;
		for (i = 0; i < SANDBOX_NLAYERS; i++)
			if (!strcmp(t, sandbox_layer_name(i)))
				break;
		if (i == SANDBOX_NLAYERS)
			return -1;
		mask |= 1u << i;
	}
	out[0] = '\0';
	for (size_t i = 0; i < SANDBOX_NLAYERS; i++)
		if (mask & (1u << i))
			snprintf(out + strlen(out), outsize - strlen(out), "%s%s", out[0] ? "," : "",
			    sandbox_layer_name(i));
	if (!out[0])
		snprintf(out, outsize, "none");
	return 0;
}

/* Digits with an optional K/M/G, or "unlimited". */
static int confine_parse_size(const char *v, long long *out)
{
	char *end;
	long long n;

	if (!strcmp(v, "unlimited")) {
		*out = -1;
		return 0;
	}
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || end == v || n < 0)
		return -1;
	int shift = *end == 'K' || *end == 'k' ? 10
	    : *end == 'M' || *end == 'm'       ? 20
	    : *end == 'G' || *end == 'g'       ? 30
	                                       : 0;
	if (shift)
		end++;
	if (*end || n > LLONG_MAX >> shift)
		return -1;
	*out = n << shift;
	return 0;
}

int confine_option(struct sandbox_config *s, const char *key, const char *value, char *err, size_t errsize)
{
	/* clang-format off */
	static const struct { const char *key; size_t off; int size; } limits[] = {
		{ "limit-cpu", offsetof(struct sandbox_config, cpu_s), 0 },
		{ "limit-as", offsetof(struct sandbox_config, as), 1 },
		{ "measure-limit-as", offsetof(struct sandbox_config, measure_as), 1 },
		{ "limit-fsize", offsetof(struct sandbox_config, fsize), 1 },
		{ "limit-nofile", offsetof(struct sandbox_config, nofile), 0 },
		{ "limit-nproc", offsetof(struct sandbox_config, nproc), 0 },
		{ "limit-disk", offsetof(struct sandbox_config, disk), 1 },
	};
	/* clang-format on */

	if (!strcmp(key, "sandbox")) {
		if (confine_parse_layers(value, s->layers, sizeof(s->layers)) < 0) {
			snprintf(err, errsize,
			    "sandbox: expected all, none or a list of netns, caps, seccomp, "
			    "landlock, rlimits, php; got \"%s\"",
			    value);
			return -1;
		}
		return 1;
	}
	if (!strcmp(key, "sandbox-dir")) {
		if (value[0] != '/') {
			snprintf(err, errsize, "sandbox-dir: expected an absolute path, got \"%s\"", value);
			return -1;
		}
		s->dir = value;
		return 1;
	}
	if (!strcmp(key, "disable-functions")) {
		if (strlen(value) > 4000 ||
		    strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_,") !=
		        strlen(value)) {
			if (strcmp(value, "none")) {
				snprintf(err, errsize,
				    "disable-functions: expected none or function names separated "
				    "by commas");
				return -1;
			}
		}
		s->disable_functions = value;
		return 1;
	}
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		if (strcmp(key, limits[i].key))
			continue;
		long long *p = (long long *)((char *)s + limits[i].off);
		long long v;
		if (confine_parse_size(value, &v) < 0 || (!limits[i].size && v > INT_MAX)) {
			snprintf(err, errsize, "%s: expected %s or unlimited, got \"%s\"", key,
			    limits[i].size ? "a size like 512M" : "a number", value);
			return -1;
		}
		if (!strcmp(key, "limit-nofile") && v >= 0 && v < 16) {
			snprintf(err, errsize, "limit-nofile: at least 16 (the worker itself holds a few)");
			return -1;
		}
		*p = v;
		return 1;
	}
	return 0;
}

/* PHP's memory_limit in bytes, -1 for none. */
static long long confine_php_size(const char *v)
{
	long long n;
	if (!strcmp(v, "-1") || confine_parse_size(v, &n) < 0)
		return -1;
	return n;
}

int confine_check(const struct config *cfg, char *err, size_t errsize)
{
	const struct sandbox_config *s = &cfg->sandbox;
	long long mem = confine_php_size(cfg->memory_limit);

	if (!strcmp(s->layers, "none"))
		return 0;
	/* The library and the engine need some 60 MB of address space of
	 * their own besides what memory_limit lets a case have. */
	if (s->as >= 0 && mem >= 0 && mem + (256LL << 20) > s->as) {
		snprintf(err, errsize,
		    "memory-limit %s does not fit in limit-as %lld MB (it needs 256 MB more "
		    "than memory-limit): raise limit-as",
		    cfg->memory_limit, s->as >> 20);
		return -1;
	}
	if (access(s->dir, W_OK | X_OK) < 0) {
		snprintf(err, errsize, "sandbox-dir %s: %s", s->dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The daemon's own folder in the sandbox folder (issue 19, item 6):
 * SANDBOX-DIR/phpcmp-PID-XXXXXX (mkdtemp), mode 0700, owned by the daemon's
 * user, held open with an exclusive flock for the daemon's life; each
 * worker's private folder is made in it (BUILD-XXXXXX).  The sandbox folder
 * may be shared (/tmp), by other users and by other daemons: the startup
 * sweep removes a folder only if it is of this layout (the name's six
 * mkdtemp characters after the pid, nothing more), its daemon is gone (no
 * process of that pid, and no one holds its lock: a daemon in another pid
 * namespace, or a pid used again, keeps its folder), it is a directory
 * (opened with O_NOFOLLOW, never a link) owned by this daemon's user, of
 * mode 0700.  Every step is relative to that descriptor (rmtree_contents):
 * a link swapped in never redirects a chmod or an unlink.  Anything else
 * named phpcmp-PID-... (another user's, another mode, the layout before:
 * phpcmp-PID-BUILD-XXXXXX) is left alone, logged when it looks like this
 * layout.
 */
static pthread_mutex_t confine_setup_lock = PTHREAD_MUTEX_INITIALIZER;
static int confine_swept;
static const char *confine_base;      /* the sandbox folder */
static char confine_parent[PATH_MAX]; /* this daemon's folder, or "" */
static char confine_parent_err[512];  /* why it could not be made */
static int confine_parent_fd = -1;    /* open, flocked */

/* "phpcmp-PID-XXXXXX" (XXXXXX: mkdtemp's characters): PID, else 0. */
static long confine_layout_pid(const char *name)
{
	char *end;
	long pid;
	if (strncmp(name, "phpcmp-", 7) != 0)
		return 0;
	pid = strtol(name + 7, &end, 10);
	if (end == name + 7 || *end != '-' || pid <= 0 || strlen(end + 1) != 6)
		return 0;
	for (const char *c = end + 1; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			return 0;
	return pid;
}

static void confine_sweep(const char *base)
{
	int basefd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = basefd >= 0 ? fdopendir(basefd) : NULL;
	struct dirent *e;

	if (!d) {
		if (basefd >= 0)
			close(basefd);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		long pid = confine_layout_pid(e->d_name);
		struct stat st;
		int fd;
		if (pid == 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		fd = openat(basefd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ELOOP || errno == ENOTDIR)
				fprintf(stderr,
				    "phpcmp: left %s/%s alone: named like the folder of daemon %ld but not a "
				    "directory (a link?)\n",
				    base, e->d_name, pid);
			continue;
		}
		if (fstat(fd, &st) < 0) {
			close(fd);
			continue;
		}
		if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0700) {
			fprintf(stderr,
			    "phpcmp: left %s/%s alone: named like the folder of daemon %ld but %s\n", base,
			    e->d_name, pid,
			    st.st_uid != geteuid() ? "owned by another user" : "not of mode 0700");
			close(fd);
			continue;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			/* its daemon still runs (in another pid namespace) */
			close(fd);
			continue;
		}
		int rc = rmtree_contents(fd), saved = errno;
		close(fd);
		if (rc == 0 && unlinkat(basefd, e->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT) {
			rc = -1;
			saved = errno;
		}
		if (rc == 0)
			fprintf(stderr,
			    "phpcmp: removed %s/%s: the folder of the workers of daemon %ld, which is gone\n",
			    base, e->d_name, pid);
		else
			fprintf(stderr,
			    "phpcmp: cannot remove %s/%s (left by daemon %ld, which is gone): %s\n", base,
			    e->d_name, pid, strerror(saved));
	}
	closedir(d);
}

/* Sweep (once), then make this daemon's folder (at the first worker, and
 * again at the next if it could not be made); under confine_setup_lock. */
static void confine_setup(void)
{
	struct stat st;
	int fd;

	if (!confine_swept) {
		confine_sweep(confine_base);
		confine_swept = 1;
	}
	if (confine_parent_fd >= 0)
		return;
	if (snprintf(confine_parent, sizeof(confine_parent), "%s/phpcmp-%ld-XXXXXX", confine_base,
	        (long)getpid()) >= (int)sizeof(confine_parent) ||
	    mkdtemp(confine_parent) == NULL) {
		snprintf(confine_parent_err, sizeof(confine_parent_err),
		    "sandbox: cannot create the daemon's folder in %.300s: %s", confine_base,
		    strerror(errno));
		confine_parent[0] = '\0';
		return;
	}
	fd = open(confine_parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* 0700 whatever the umask; the lock says "in use" to other daemons. */
	if (fd < 0 || fchmod(fd, 0700) < 0 || fstat(fd, &st) < 0 ||
	    (st.st_uid != geteuid() && (errno = EPERM)) || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		snprintf(confine_parent_err, sizeof(confine_parent_err),
		    "sandbox: cannot hold the daemon's folder %.300s: %s", confine_parent, strerror(errno));
		if (fd >= 0)
			close(fd);
		rmdir(confine_parent);
		confine_parent[0] = '\0';
		return;
	}
	confine_parent_fd = fd;
}

void confine_finish(void)
{
	pthread_mutex_lock(&confine_setup_lock);
	if (confine_parent_fd < 0) {
		pthread_mutex_unlock(&confine_setup_lock);
		return;
	}
	/* Every worker is reaped: their folders are gone, or go now. */
	rmtree_contents(confine_parent_fd);
	if (rmdir(confine_parent) < 0 && errno != ENOENT)
		fprintf(stderr, "phpcmp: cannot remove %s: %s\n", confine_parent, strerror(errno));
	close(confine_parent_fd);
	confine_parent_fd = -1;
	confine_parent[0] = '\0';
	pthread_mutex_unlock(&confine_setup_lock);
}

void confine_release(struct worker *w)
{
	if (w->sandbox_dir[0]) {
		rmtree(w->sandbox_dir);
		w->sandbox_dir[0] = '\0';
	}
}

static const char *confine_num(struct confine_args *a, long long v)
{
	char *p = a->store + a->used;
	size_t left = sizeof(a->store) - a->used;
	int n = v < 0 ? snprintf(p, left, "unlimited") : snprintf(p, left, "%lld", v);
	if (n < 0 || (size_t)n >= left)
		return "unlimited"; /* cannot happen: store is sized for every number */
	a->used += (size_t)n + 1;
	return p;
}

static void confine_add(const char **v, int *n, const char *opt, const char *val)
{
	v[(*n)++] = opt;
	v[(*n)++] = val;
}

/* Every option both loaders take: the folder, the paths, the limits. */
static void confine_common(
    struct worker *w, const struct config *cfg, struct confine_args *a, const char **v, int *n)
{
	confine_add(v, n, "--sandbox-dir", w->sandbox_dir);
	confine_add(v, n, "--limit-disk", confine_num(a, cfg->sandbox.disk));
	confine_add(v, n, "--allow-read", cfg->worker_bin);
	/* The build's prefix: its library and what that may read as it starts
	 * (opened inside the sandbox: loader.c); nothing else of the host. */
	confine_add(v, n, "--allow-read", w->build->prefix);
	confine_add(v, n, "--allow-read", w->build->lib_path);
	confine_add(v, n, "--allow-read", w->build->core_path);
	if (w->measuring)
		confine_add(v, n, "--allow-write", a->dumpdir);
	/* A coverage build's counters, in the folder coverage.c chose and made
	 * (a mirror of the tree's obj/): files created and written there, no
	 * folder, no link; landlock stays on for everything else. */
	if (w->gcov_prefix[0] != '\0')
		confine_add(v, n, "--allow-write", w->gcov_prefix);
}

int confine_prepare(
    struct worker *w, const struct config *cfg, struct confine_args *a, char *err, size_t errsize)
{
	const struct sandbox_config *s = &cfg->sandbox;
	char layers[128];
	unsigned mask = 0;

	memset(a, 0, sizeof(*a));
	confine_release(w);
	if (!strcmp(s->layers, "none"))
		return 0;
	confine_base = s->dir;
	pthread_mutex_lock(&confine_setup_lock);
	confine_setup();
	if (confine_parent_fd < 0) {
		snprintf(err, errsize, "%s", confine_parent_err);
		pthread_mutex_unlock(&confine_setup_lock);
		return -1;
	}
	pthread_mutex_unlock(&confine_setup_lock);
	if (snprintf(w->sandbox_dir, sizeof(w->sandbox_dir), "%s/%s-XXXXXX", confine_parent,
	        w->build->name) >= (int)sizeof(w->sandbox_dir) ||
	    !mkdtemp(w->sandbox_dir)) {
		snprintf(err, errsize, "sandbox: cannot create a private folder in %.300s: %s",
		    confine_parent, strerror(errno));
		w->sandbox_dir[0] = '\0';
		return -1;
	}
	snprintf(a->dumpdir, sizeof(a->dumpdir), "%s/callgrind", cfg->state_dir);
	snprintf(layers, sizeof(layers), "%s", s->layers);
	if (!strcmp(layers, "all"))
		mask = SANDBOX_ALL;
	else
		for (size_t i = 0; i < SANDBOX_NLAYERS; i++)
			if (strstr(layers, sandbox_layer_name(i)))
				mask |= 1u << i;

	if (w->measuring && (mask & SANDBOX_BEFORE_EXEC)) {
		/* netns, caps and landlock go before valgrind. */
		char *pre = a->store + a->used, *inh;
		pre[0] = '\0';
		for (unsigned i = 0; i < SANDBOX_NLAYERS; i++)
			if ((mask & SANDBOX_BEFORE_EXEC) & (1u << i))
				snprintf(
				    pre + strlen(pre), 64, "%s%s", pre[0] ? "," : "", sandbox_layer_name(i));
		a->used += strlen(pre) + 1;
		inh = pre;
		a->pre[a->npre++] = cfg->worker_bin;
		confine_add(a->pre, &a->npre, "--sandbox-exec", pre);
		confine_common(w, cfg, a, a->pre, &a->npre);
		a->pre[a->npre++] = "--";
		confine_add(a->v, &a->n, "--sandbox-inherited", inh);
	}
	confine_add(a->v, &a->n, "--sandbox", s->layers);
	confine_common(w, cfg, a, a->v, &a->n);
	confine_add(a->v, &a->n, "--limit-cpu",
	    confine_num(a,
	        s->cpu_s < 0 || !w->measuring ? s->cpu_s
	                                      : s->cpu_s + (cfg->measure_timeout_ms + 999) / 1000));
	confine_add(a->v, &a->n, "--limit-as", confine_num(a, w->measuring ? s->measure_as : s->as));
	confine_add(a->v, &a->n, "--limit-fsize", confine_num(a, s->fsize));
	confine_add(a->v, &a->n, "--limit-nofile", confine_num(a, s->nofile));
	confine_add(a->v, &a->n, "--limit-nproc", confine_num(a, s->nproc));
	if (s->disable_functions)
		confine_add(a->v, &a->n, "--disable-functions", s->disable_functions);
	return 0;
}

long long confine_reference_as(const struct config *cfg)
{
	(void)cfg;
	/* V8 reserves guard regions of gigabytes for each WebAssembly memory
	 * (bounds checks by trap): an RLIMIT_AS that fits memory as used
	 * stops it starting (docs/sandbox.md). */
	return -1;
}

int confine_reference_argv(
    const struct worker *w, const struct config *cfg, const char **argv, int max, struct reference_text *t)
{
	char src[PATH_MAX], mods[PATH_MAX];
	int n = 0;

	/* Node's permission model compares resolved paths (worker.mjs's header
	 * has this command line). */
	if (realpath(cfg->reference_src, src) == NULL)
		snprintf(src, sizeof src, "%s", cfg->reference_src);
	if (realpath(cfg->modules_dir, mods) == NULL)
		snprintf(mods, sizeof mods, "%s", cfg->modules_dir);
	snprintf(t->script, sizeof t->script, "%s/worker.mjs", src);
	snprintf(t->read_src, sizeof t->read_src, "--allow-fs-read=%s/", src);
	snprintf(t->read_mods, sizeof t->read_mods, "--allow-fs-read=%s/", mods);
	/* Node's permission model: reads only below those two folders, no
	 * writes, no child processes, workers, WASI or addons (worker.mjs). */
	const char *v[] = { w->build->core_path, "--experimental-permission", t->read_src, t->read_mods,
		"--max-old-space-size=256", "--max-semi-space-size=16",
		"--disallow-code-generation-from-strings", "--disable-proto=throw", "--no-warnings",
		"--no-addons", t->script, "--php", w->build->ref_php, "--memory-limit",
		cfg->memory_limit != NULL ? cfg->memory_limit : "128M" };
	if ((size_t)max <= sizeof v / sizeof v[0])
		return 0;
	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
		argv[n++] = v[k];
	argv[n] = NULL;
	return n;
}

/*
 * A reference runtime's worker (reference.c): node, which the loader
 * cannot confine from inside (it is no libphp), runs under
 * `phpcmp-worker --sandbox-exec LAYERS ... -- NODE ...`: a network
 * namespace, no capabilities, landlock (reading /usr -- node and its
 * libraries -- the node binary wherever it is, server/reference and the
 * node_modules the runtimes are in; writing only the private folder) and
 * rlimits.  Not seccomp: it forbids the exec of node itself.  Node's own
 * permission model is the worker's (server/reference/worker.mjs).  The
 * limits that fit a V8 process: no limit on processes (V8's threads count
 * as processes; child processes are node's permission model's to refuse)
 * and the address space as --limit-as says (confine_reference_as).  The words
 * before node's into a->pre; 0 with the sandbox off.
 */
int confine_reference(
    struct worker *w, const struct config *cfg, struct confine_args *a, char *err, size_t errsize)
{
	const struct sandbox_config *s = &cfg->sandbox;
	static const char *const order[] = { "netns", "caps", "landlock", "rlimits" };
	char *layers;
	unsigned mask = 0;

	if (confine_prepare(w, cfg, a, err, errsize) < 0)
		return -1;
	/* After confine_prepare, which starts a afresh (valgrind saw it read before). */
	if (sizeof a->store - a->used < 4 * 16) {
		snprintf(err, errsize, "sandbox: no room for a reference's layers");
		return -1;
	}
	layers = a->store + a->used;
	a->n = 0; /* a native worker's loader options: none of them apply */
	if (!strcmp(s->layers, "none"))
		return 0;
	if (!strcmp(s->layers, "all"))
		mask = SANDBOX_ALL;
	else
		for (size_t i = 0; i < SANDBOX_NLAYERS; i++)
			if (strstr(s->layers, sandbox_layer_name(i)))
				mask |= 1u << i;
	layers[0] = '\0';
	for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
		for (size_t i = 0; i < SANDBOX_NLAYERS; i++)
			if ((mask & (1u << i)) && !strcmp(sandbox_layer_name(i), order[k]))
				snprintf(layers + strlen(layers), 16, "%s%s", layers[0] ? "," : "", order[k]);
	if (layers[0] == '\0')
		return 0; /* seccomp or php alone: neither applies to node */
	a->used += strlen(layers) + 1;
	a->pre[a->npre++] = cfg->worker_bin;
	confine_add(a->pre, &a->npre, "--sandbox-exec", layers);
	confine_add(a->pre, &a->npre, "--sandbox-dir", w->sandbox_dir);
	/* The layers in force, for worker.mjs's hello (GET /api/builds' "sandbox"). */
	confine_add(a->pre, &a->npre, "--sandbox-report-env", "PHPCMP_SANDBOX");
	confine_add(a->pre, &a->npre, "--limit-disk", confine_num(a, s->disk));
	confine_add(a->pre, &a->npre, "--allow-read", cfg->worker_bin);
	confine_add(a->pre, &a->npre, "--allow-read", w->build->core_path); /* node (reference.c) */
	confine_add(a->pre, &a->npre, "--allow-read", cfg->reference_src);
	confine_add(a->pre, &a->npre, "--allow-read", cfg->modules_dir);
	confine_add(a->pre, &a->npre, "--limit-as", confine_num(a, confine_reference_as(cfg)));
	confine_add(a->pre, &a->npre, "--limit-fsize", confine_num(a, s->fsize));
	confine_add(a->pre, &a->npre, "--limit-nofile",
	    confine_num(a, s->nofile < 0 || s->nofile >= 256 ? s->nofile : 256));
	confine_add(a->pre, &a->npre, "--limit-nproc", "unlimited");
	a->pre[a->npre++] = "--";
	return 0;
}
