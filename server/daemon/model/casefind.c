/*
 * The case files in a folder and its subfolders (model.h, casefind.c): what
 * a stored run runs (engine/runs.c) and what `phpcmp submit DIR` posts
 * (cli/submit.c), found the same way.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model.h"
#include "phpt.h"

struct casefile_found {
	const char *root, *label;
	int max_depth;
	size_t max_files;
	char **paths;
	size_t n, cap;
};

static int casefile_found_add(struct casefile_found *f, const char *rel)
{
	if (f->n == f->cap) {
		size_t cap = f->cap != 0 ? f->cap * 2 : 64;
		char **p = realloc(f->paths, cap * sizeof *p);
		if (p == NULL)
			return -1;
		f->paths = p;
		f->cap = cap;
	}
	if ((f->paths[f->n] = strdup(rel)) == NULL)
		return -1;
	f->n++;
	return 0;
}

/* The case files under root/rel into f. */
static int casefile_scan(struct casefile_found *f, const char *rel, int depth, char *err, size_t errsize)
{
	char dir[PATH_MAX], sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc = 0;

	snprintf(dir, sizeof dir, "%s%s%s", f->root, *rel != '\0' ? "/" : "", rel);
	if ((d = opendir(dir)) == NULL) {
		snprintf(err, errsize, "%s%s: %s", f->label, dir, strerror(errno));
		return -1;
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof sub, "%s%s%s", rel, *rel != '\0' ? "/" : "", de->d_name) >=
		    sizeof sub)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth < f->max_depth) {
			rc = casefile_scan(f, sub, depth + 1, err, errsize);
		} else if (S_ISREG(st.st_mode) && phpt_is_test_path(de->d_name)) {
			if (f->max_files != 0 && f->n >= f->max_files) {
				snprintf(
				    err, errsize, "more than %zu case files under %s", f->max_files, f->root);
				rc = -1;
			} else if (casefile_found_add(f, sub) < 0) {
				snprintf(err, errsize, "out of memory");
				rc = -1;
			}
		}
	}
	closedir(d);
	return rc;
}

static int casefile_path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

ssize_t casefile_find(const char *root, const char *label, int max_depth, size_t max_files, char ***paths,
    char *err, size_t errsize)
{
	struct casefile_found f = { root, label, max_depth, max_files, NULL, 0, 0 };

	*paths = NULL;
	if (casefile_scan(&f, "", 0, err, errsize) < 0) {
		casefile_found_release(f.paths, f.n);
		return -1;
	}
	qsort(f.paths, f.n, sizeof *f.paths, casefile_path_cmp);
	*paths = f.paths;
	return (ssize_t)f.n;
}

void casefile_found_release(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
