/*
 * Line and branch coverage of ext/json for a run's corpus (docs/coverage.md).
 *
 * A coverage build (gcc --coverage, docs/builds.md) writes its counters
 * (.gcda files) when a worker exits normally, to the paths compiled in
 * (its shared build tree) unless GCOV_PREFIX says otherwise.  So:
 *   - the daemon's own workers of such a build write under
 *     STATE/coverage/idle/NAME (single cases; never the build tree);
 *   - a run with "coverage": true gets workers of its own for each
 *     coverage build, writing under STATE/coverage/run-N/ROLE, stopped
 *     (their normal exit: the counters are written) at the run's end;
 *     nothing else runs on them, so the counters are the run's alone;
 *   - gcovr then reads that folder (the .gcno notes linked from the tree)
 *     and writes its HTML, Cobertura XML and JSON there; the summary (per
 *     function, the unreached lines and branches) goes to the database.
 * The folders the counters go to are made here first (a mirror of the
 * tree's obj/): the workers keep landlock, whose rules let them create and
 * write files in that folder but make no folder (confine.c), and without
 * landlock their seccomp filter forbids mkdir.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "gcovr.h"
#include "engine.h"
#include "rmtree.h"

/* The sources reported on, relative to the build tree's src/. */
static const char *const coverage_files[] = { "ext/json/json_encoder.c", "ext/json/json.c" };
#define COVERAGE_NFILES (sizeof(coverage_files) / sizeof(coverage_files[0]))
/* The library's objects (libtool's .libs), relative to the tree. */
#define COVERAGE_OBJDIR "obj/ext/json/.libs"

struct worker *coverage_worker(struct app *app, int i)
{
	return app->run_workers[i] != NULL ? app->run_workers[i] : build_worker(app, app->run_builds[i]);
}

/* snprintf for paths (long ones are cut, never overrun): vsnprintf's
 * result is the caller's to ignore, which keeps -Wformat-truncation quiet. */
__attribute__((format(printf, 3, 4))) static void pathf(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out, size, fmt, ap);
	va_end(ap);
}

static int coverage_have_build(struct build *const builds[], int n)
{
	for (int i = 0; i < n; i++)
		if (builds[i]->coverage_tree[0] != '\0')
			return 1;
	return 0;
}

/* Leading folders of an absolute path: what GCOV_PREFIX_STRIP takes off. */
static int coverage_depth(const char *path)
{
	int n = 0;
	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1] != '/' && p[1] != '\0')
			n++;
	return n;
}

static int mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* nftw has no user argument: the mirror being made (one at a time). */
static pthread_mutex_t mirror_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *mirror_src, *mirror_dst;
static int mirror_failed;

static int mirror_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char out[PATH_MAX];
	(void)st;
	(void)ftw;
	if (type != FTW_D)
		return 0;
	snprintf(out, sizeof(out), "%s%s", mirror_dst, path + strlen(mirror_src));
	if (mkdir(out, 0755) < 0 && errno != EEXIST)
		mirror_failed = errno;
	return 0;
}

/* dir/obj/... for every folder of tree/obj/, where the counters land. */
static int coverage_mirror(const char *tree, const char *dir, char *err, size_t errsize)
{
	char src[PATH_MAX], dst[PATH_MAX];
	snprintf(src, sizeof(src), "%s/obj", tree);
	snprintf(dst, sizeof(dst), "%s/obj", dir);
	if (mkdirs(dst) < 0) {
		snprintf(err, errsize, "cannot create %.300s: %s", dst, strerror(errno));
		return -1;
	}
	pthread_mutex_lock(&mirror_lock);
	mirror_src = src;
	mirror_dst = dst;
	mirror_failed = 0;
	int rc = nftw(src, mirror_one, 16, FTW_PHYS);
	int failed = mirror_failed;
	pthread_mutex_unlock(&mirror_lock);
	if (rc != 0 || failed) {
		snprintf(err, errsize, "cannot mirror %.300s's folders: %s", src,
		    strerror(failed ? failed : errno));
		return -1;
	}
	return 0;
}

/*
 * This daemon's coverage folder, absolute (GCOV_PREFIX must be):
 * STATE/coverage/DB-HASH, so that daemons sharing a state dir (the test
 * suite's) with databases of their own never mix their runs' counters.
 */
static int coverage_state(const struct config *cfg, char *out, size_t size, char *err, size_t errsize)
{
	char abs[PATH_MAX], db[PATH_MAX];
	if (realpath(cfg->state_dir, abs) == NULL) {
		snprintf(err, errsize, "state dir %.300s: %s", cfg->state_dir, strerror(errno));
		return -1;
	}
	if (realpath(cfg->db_path, db) == NULL)
		snprintf(db, sizeof(db), "%s", cfg->db_path);
	uint32_t h = 2166136261u; /* FNV-1a of the database's path */
	for (const char *p = db; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	pathf(out, size, "%s/coverage/db-%08x", abs, (unsigned)h);
	return 0;
}

/* Point w's counters at dir (made, with the mirror of the tree). */
static int coverage_point(struct worker *w, const char *dir, char *err, size_t errsize)
{
	if (coverage_mirror(w->build->coverage_tree, dir, err, errsize) < 0)
		return -1;
	snprintf(w->gcov_prefix, sizeof(w->gcov_prefix), "%s", dir);
	w->gcov_strip = coverage_depth(w->build->coverage_tree);
	return 0;
}

int coverage_idle(struct worker *w, const struct config *cfg, char *err, size_t errsize)
{
	char base[PATH_MAX], dir[PATH_MAX + 256];
	if (w->build->coverage_tree[0] == '\0')
		return 0;
	if (coverage_state(cfg, base, sizeof(base), err, errsize) < 0)
		return -1;
	/* Single cases' counters: kept for nothing, cleared at each start. */
	pathf(dir, sizeof(dir), "%s/idle/%s", base, w->build->name);
	rmtree(dir);
	return coverage_point(w, dir, err, errsize);
}

int coverage_check(struct build *const builds[], int n, const struct run_params *p, char *err, size_t errsize)
{
	if (!p->coverage)
		return 0;
	if (!coverage_have_build(builds, n)) {
		snprintf(err, errsize,
		    "coverage: no build of the run is a coverage flavour "
		    "(scripts/build-php.sh --flavour coverage, docs/coverage.md)");
		return -1;
	}
	/* Landlock stays on: the counters' folder is the one place besides
	 * its private folder a coverage build's worker may write (confine.c). */
	return 0;
}

static void coverage_run_dir(const char *base, int64_t run_id, int role, char *out, size_t size)
{
	snprintf(out, size, "%s/run-%" PRId64 "/%s", base, run_id, role_name(role));
}

int coverage_begin(struct app *app, int64_t run_id, int resumed, char *err, size_t errsize)
{
	const struct config *cfg = app->config;
	char base[PATH_MAX], dir[PATH_MAX + 256];
	if (coverage_state(cfg, base, sizeof(base), err, errsize) < 0)
		return -1;
	for (int i = 0; i < app->run_nbuilds; i++) {
		struct build *b = app->run_builds[i];
		if (b->coverage_tree[0] == '\0')
			continue;
		struct worker *w = calloc(1, sizeof(*w));
		if (w == NULL || worker_init(w, b) < 0) {
			free(w);
			snprintf(err, errsize, "out of memory");
			return -1;
		}
		app->run_workers[i] = w;
		coverage_run_dir(base, run_id, i, dir, sizeof(dir));
		/* A resumed run adds to its counters (gcov merges into a .gcda);
		 * a new one starts from none (a database made again at this path). */
		if (!resumed)
			rmtree(dir);
		if (coverage_point(w, dir, err, errsize) < 0)
			return -1;
	}
	return 0;
}

/* Run argv in dir, its output to dir/gcovr.log; the exit status or -1. */
static int coverage_spawn(const char *const argv[], const char *dir)
{
	char log[PATH_MAX + 32];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;
	pathf(log, sizeof(log), "%s/gcovr.log", dir);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	posix_spawn_file_actions_addchdir_np(&fa, dir);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* gcovr over a run's counters of one build: the summary (JSON text, malloc'd) or NULL with err. */
static char *coverage_report(const struct build *b, const char *dir, char *err, size_t errsize)
{
	char *summary;
	char objdir[PATH_MAX + 64], pattern[PATH_MAX + 64], root[PATH_MAX + 16], filter[PATH_MAX + 64];
	char gcda[PATH_MAX + 64], link[PATH_MAX + 64], out[PATH_MAX + 64];
	glob_t g;
	pathf(objdir, sizeof(objdir), "%s/" COVERAGE_OBJDIR, dir);
	pathf(gcda, sizeof(gcda), "%s/json_encoder.gcda", objdir);
	if (access(gcda, R_OK) != 0) {
		snprintf(err, errsize,
		    "no counters were written (%.300s): did the build's workers run and exit normally?",
		    gcda);
		return NULL;
	}
	/* gcov wants the notes beside the counters. */
	snprintf(pattern, sizeof(pattern), "%s/" COVERAGE_OBJDIR "/*.gcno", b->coverage_tree);
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			pathf(link, sizeof(link), "%s/%s", objdir, strrchr(g.gl_pathv[i], '/') + 1);
			unlink(link);
			if (symlink(g.gl_pathv[i], link) < 0) {
				snprintf(err, errsize, "cannot link %.300s: %s", link, strerror(errno));
				globfree(&g);
				return NULL;
			}
		}
		globfree(&g);
	}
	snprintf(root, sizeof(root), "%s/src", b->coverage_tree);
	snprintf(filter, sizeof(filter), "%s/ext/json/json(_encoder)?\\.c$", root);
	const char *argv[] = { "gcovr", "--root", root, "--filter", filter, "--json", "coverage.json",
		"--json-pretty", "--cobertura", "coverage.xml", "--html-details", "index.html",
		"--html-title", "phpcmp: ext/json coverage", objdir, NULL };
	int rc = coverage_spawn(argv, dir);
	if (rc != 0) {
		snprintf(err, errsize, "gcovr %s (see %.300s/gcovr.log)",
		    rc < 0 ? "could not run (apt-get install gcovr)" : "failed", dir);
		return NULL;
	}
	pathf(out, sizeof(out), "%s/coverage.json", dir);
	if (gcovr_summarise(out, coverage_files, COVERAGE_NFILES, root, dir, &summary, err, errsize) < 0)
		return NULL;
	return summary;
}

/*
 * Keep only ext/json's counters (the notes linked beside them): the rest of
 * the library's (~1.4 MB a run) is never reported on.  A resumed run's
 * workers get the folders again (coverage_point).
 */
static void coverage_prune(const char *dir)
{
	char json[PATH_MAX + 64], keep[PATH_MAX + 64], obj[PATH_MAX + 64], ext[PATH_MAX + 64];
	pathf(json, sizeof(json), "%s/obj/ext/json", dir);
	pathf(keep, sizeof(keep), "%s/json-counters", dir);
	pathf(obj, sizeof(obj), "%s/obj", dir);
	pathf(ext, sizeof(ext), "%s/obj/ext", dir);
	if (rename(json, keep) < 0)
		return;
	rmtree(obj);
	if (mkdirs(ext) < 0 || rename(keep, json) < 0)
		fprintf(stderr, "phpcmp: coverage: could not put back %s\n", json);
}

int coverage_end(struct app *app, const struct db_run *run, char *err, size_t errsize)
{
	const struct config *cfg = app->config;
	char base[PATH_MAX], dir[PATH_MAX + 256], why[512];
	int failed = 0;
	if (coverage_state(cfg, base, sizeof(base), err, errsize) < 0)
		failed = 1;
	for (int i = 0; i < app->run_nbuilds; i++) {
		struct build *b = app->run_builds[i];
		struct worker *w = app->run_workers[i];
		if (w == NULL)
			continue;
		app->run_workers[i] = NULL;
		/* Its normal exit writes the counters. */
		worker_release(w);
		free(w);
		if (failed)
			continue;
		coverage_run_dir(base, run->id, i, dir, sizeof(dir));
		why[0] = '\0';
		char *text = coverage_report(b, dir, why, sizeof(why));
		coverage_prune(dir);
		if (db_coverage_store(
		        app->db, run->id, role_name(i), b->name, text, text ? NULL : why, err, errsize) < 0)
			failed = 1;
		else if (text == NULL)
			snprintf(err, errsize, "coverage of %s: %s", b->name, why);
		free(text);
	}
	return failed ? -1 : 0;
}

int coverage_file(struct app *app, int64_t run_id, const char *role, const char *name, char *path,
    size_t size, char *err, size_t errsize)
{
	char base[PATH_MAX];
	int r = role_parse(role);
	if (r < 0) {
		snprintf(err, errsize, "unknown role \"%.32s\" (base, head, cand2..cand7)", role);
		return -1;
	}
	/* gcovr's own names only: no folder, no dot first. */
	if (name[0] == '\0' || name[0] == '.' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	        strlen(name) ||
	    strstr(name, "gcovr.log") != NULL) {
		snprintf(err, errsize, "bad file name \"%.64s\"", name);
		return -1;
	}
	if (coverage_state(app->config, base, sizeof(base), err, errsize) < 0)
		return -2;
	char dir[PATH_MAX + 256];
	coverage_run_dir(base, run_id, r, dir, sizeof(dir));
	snprintf(path, size, "%s/%s", dir, name);
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errsize, "run %" PRId64 " has no coverage file %s/%s", run_id, role, name);
		return -2;
	}
	return 0;
}

char *coverage_report_md(struct app *app, int64_t run_id)
{
	struct gcovr_file_totals files[COVERAGE_NFILES];
	struct db_coverage *rows;
	struct buf out = BUF_INIT;
	char err[256];
	size_t n, len;

	if (db_coverage_list(app->db, run_id, &rows, &n, err, sizeof(err)) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *build = rows[i].build;
		if (rows[i].error != NULL) {
			buf_addf(&out, "\nCoverage of %s: not measured (%s).\n", build, rows[i].error);
			continue;
		}
		buf_addf(&out, "\nCoverage of ext/json on %s (gcov):", build);
		int nf = gcovr_summary_files(rows[i].files, files, COVERAGE_NFILES);
		for (int k = 0; k < nf; k++) {
			const struct gcovr_file_totals *f = &files[k];
			buf_addf(&out, "%s `%s` lines %ld/%ld (%.1f %%), branches %ld/%ld (%.1f %%)",
			    k ? ";" : "", f->file, f->lines_hit, f->lines_total,
			    f->lines_total ? 100.0 * f->lines_hit / f->lines_total : 100.0, f->branches_hit,
			    f->branches_total,
			    f->branches_total ? 100.0 * f->branches_hit / f->branches_total : 100.0);
		}
		buf_addf(&out, ".\n");
	}
	db_coverage_list_release(rows, n);
	if (out.len == 0) {
		buf_release(&out);
		return NULL;
	}
	return buf_detach(&out, &len);
}
