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

int path_list_add(struct path_list *l, const char *path)
{
	if (l->n == l->cap) {
		size_t cap = l->cap != 0 ? l->cap * 2 : 64;
		char **p = realloc(l->path, cap * sizeof *p);
		if (p == NULL)
			return -1;
		l->path = p;
		l->cap = cap;
	}
	if ((l->path[l->n] = strdup(path)) == NULL)
		return -1;
	l->n++;
	return 0;
}

void path_list_release(struct path_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->path[i]);
	free(l->path);
	memset(l, 0, sizeof *l);
}

struct casefile_walk {
	const char *root, *label;
	int max_depth;
	size_t max_files, first; /* first: where this walk's paths start in out */
	struct path_list *out;
};

/* The case files under root/rel into w->out. */
static int casefile_scan(struct casefile_walk *w, const char *rel, int depth, char *err, size_t errsize)
{
	char dir[PATH_MAX], sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc = 0;

	snprintf(dir, sizeof dir, "%s%s%s", w->root, *rel != '\0' ? "/" : "", rel);
	if ((d = opendir(dir)) == NULL) {
		snprintf(err, errsize, "%s%s: %s", w->label, dir, strerror(errno));
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
		if (S_ISDIR(st.st_mode) && depth < w->max_depth) {
			rc = casefile_scan(w, sub, depth + 1, err, errsize);
		} else if (S_ISREG(st.st_mode) && phpt_is_test_path(de->d_name)) {
			if (w->max_files != 0 && w->out->n - w->first >= w->max_files) {
				snprintf(
				    err, errsize, "more than %zu case files under %s", w->max_files, w->root);
				rc = -1;
			} else if (path_list_add(w->out, sub) < 0) {
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

int casefile_find(const char *root, const char *label, int max_depth, size_t max_files, struct path_list *out,
    char *err, size_t errsize)
{
	struct casefile_walk w = { root, label, max_depth, max_files, out->n, out };

	if (casefile_scan(&w, "", 0, err, errsize) < 0) {
		while (out->n > w.first)
			free(out->path[--out->n]);
		return -1;
	}
	if (out->n > w.first) /* out->path may be NULL when nothing was found: no qsort on it */
		qsort(out->path + w.first, out->n - w.first, sizeof *out->path, casefile_path_cmp);
	return 0;
}
