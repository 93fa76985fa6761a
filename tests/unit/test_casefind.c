/* Unit tests for server/daemon/model/casefind.c (the case files under a folder), printing TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"
#include "tap.h"

static char top[] = "/tmp/phpcmp-casefind-XXXXXX";

static void put(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs("--TEST--\nx\n--VALUE--\n1\n", f);
		fclose(f);
	}
}

static void folder(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	mkdir(p, 0700);
}

/* The paths found, appended to a list holding one entry already, joined
 * with spaces; "" for none, "ERR" on an error (the list as it was). */
static const char *found(const char *root, int depth, size_t max, char *err, size_t errsize)
{
	static char out[1024];
	struct path_list l = { NULL, 0, 0 };

	if (path_list_add(&l, "before") < 0)
		return "OOM";
	if (casefile_find(root, "cases folder ", depth, max, &l, err, errsize) < 0) {
		int kept = l.n == 1 && strcmp(l.path[0], "before") == 0;
		path_list_release(&l);
		return kept ? "ERR" : "ERR, and the list changed";
	}
	out[0] = '\0';
	/* l.path[0] is the entry that was there first: the found ones follow it. */
	for (size_t i = 1; i < l.n; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i > 1 ? " " : "", l.path[i]);
	if (l.n == 0 || strcmp(l.path[0], "before") != 0)
		snprintf(out, sizeof out, "the entry before was moved");
	path_list_release(&l);
	return out;
}

int main(void)
{
	char err[512] = "", missing[600];
	const char *got;

	if (mkdtemp(top) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	folder("b");
	folder("b/c");
	folder("b/c/d");
	folder(".hidden");
	put("z.phpt");
	put("a.phpt");
	put("b/m.phpt");
	put("b/c/d/deep.phpt");
	put(".dot.phpt");
	put(".hidden/h.phpt");
	put("notes.txt");
	put("x.phpt.bak");
	put(".phpt");

	got = found(top, 8, 0, err, sizeof err);
	ok(strcmp(got, "a.phpt b/c/d/deep.phpt b/m.phpt z.phpt") == 0,
	    "*.phpt under the folder, relative and sorted; hidden entries and other names skipped (%s)", got);
	got = found(top, 1, 0, err, sizeof err);
	ok(strcmp(got, "a.phpt b/m.phpt z.phpt") == 0, "folders deeper than max_depth are not read (%s)",
	    got);
	got = found(top, 0, 0, err, sizeof err);
	ok(strcmp(got, "a.phpt z.phpt") == 0, "max_depth 0: the folder alone (%s)", got);
	got = found(top, 8, 4, err, sizeof err);
	ok(strcmp(got, "a.phpt b/c/d/deep.phpt b/m.phpt z.phpt") == 0, "max_files files are allowed (%s)",
	    got);
	got = found(top, 8, 3, err, sizeof err);
	ok(strcmp(got, "ERR") == 0 && strstr(err, "more than 3 case files under ") != NULL &&
	        strstr(err, top) != NULL,
	    "one more than max_files is an error naming the folder (%s)", err);
	snprintf(missing, sizeof missing, "%s/nope", top);
	got = found(missing, 8, 0, err, sizeof err);
	ok(strcmp(got, "ERR") == 0 && strncmp(err, "cases folder ", 13) == 0 &&
	        strstr(err, "/nope: ") != NULL,
	    "a folder that cannot be read: the label, the folder and why (%s)", err);
	folder("empty");
	snprintf(missing, sizeof missing, "%s/empty", top);
	got = found(missing, 8, 0, err, sizeof err);
	ok(strcmp(got, "") == 0, "an empty folder: none, no error");
	{
		/* An empty list and an empty folder: nothing to sort (a NULL array is not qsort's). */
		struct path_list l = { NULL, 0, 0 };
		int rc = casefile_find(missing, "", 8, 0, &l, err, sizeof err);
		ok(rc == 0 && l.n == 0, "an empty folder into an empty list: 0, the list still empty");
		path_list_release(&l);
	}

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", top);
	return tap_done();
}
