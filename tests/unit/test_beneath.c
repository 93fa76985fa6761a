/* Unit tests for server/daemon/model/beneath.c (files opened beneath a folder, no link followed), printing TAP. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "beneath.h"
#include "tap.h"

static char top[] = "/tmp/phpcmp-beneath-XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void link_to(const char *target, const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", top, rel);
	if (symlink(target, p) < 0)
		perror("symlink");
}

/* Open rel beneath root with both ways: each must give want (1 opened, 0 refused). */
static void opens(int root, const char *rel, int flags, int want)
{
	int (*ways[2])(int, const char *, int) = { beneath_open, beneath_walk };
	const char *names[2] = { "beneath_open", "beneath_walk" };
	for (int i = 0; i < 2; i++) {
		errno = 0;
		int fd = ways[i](root, rel, flags);
		ok((fd >= 0) == want, "%s(\"%s\"): %s", names[i], rel, fd >= 0 ? "opened" : strerror(errno));
		if (fd >= 0)
			close(fd);
	}
}

int main(void)
{
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 1;
	}
	char p[512];
	snprintf(p, sizeof(p), "%s/a", top);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/a/b", top);
	mkdir(p, 0755);
	put("a/b/file", "hello");
	put("secret", "SECRET");
	put("a/big", "0123456789abcdef");
	link_to("b", "a/link");
	link_to("b/file", "a/flink");
	link_to("../secret", "a/leak");
	link_to("/etc", "a/out");
	snprintf(p, sizeof(p), "%s/a/fifo", top);
	if (mkfifo(p, 0600) < 0)
		perror("mkfifo");

	snprintf(p, sizeof(p), "%s/a", top);
	int root = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ok(root >= 0, "the root folder opens");

	opens(root, "b/file", O_RDONLY, 1);
	opens(root, "./b/./file", O_RDONLY, 1);
	opens(root, ".", O_RDONLY | O_DIRECTORY, 1);
	opens(root, "b", O_PATH | O_DIRECTORY, 1);
	opens(root, "link/file", O_RDONLY, 0); /* a link on the way */
	opens(root, "link", O_PATH | O_DIRECTORY, 0);
	opens(root, "flink", O_RDONLY, 0); /* a link at the end */
	opens(root, "leak", O_RDONLY, 0);
	opens(root, "out/passwd", O_RDONLY, 0);
	opens(root, "../secret", O_RDONLY, 0); /* out by .. */
	opens(root, "b/../../secret", O_RDONLY, 0);
	opens(root, "/etc/passwd", O_RDONLY, 0); /* absolute */

	int dir = beneath_open(root, ".", O_PATH | O_DIRECTORY);
	char why[128];
	size_t len = 0;
	char *s = beneath_read(dir, "big", 100, &len, why, sizeof(why));
	ok(s && len == 16 && !strcmp(s, "0123456789abcdef"), "a regular file is read whole");
	free(s);
	s = beneath_read(dir, "big", 10, &len, why, sizeof(why));
	ok(!s && !strcmp(why, "too large (refused)"), "over its bound: %s", why);
	s = beneath_read(dir, "leak", 100, &len, why, sizeof(why));
	ok(!s && !strcmp(why, "a symbolic link (refused)"), "a link: %s", why);
	time_t t0 = time(NULL);
	s = beneath_read(dir, "fifo", 100, &len, why, sizeof(why));
	ok(!s && !strcmp(why, "not a regular file (refused)") && time(NULL) - t0 < 2, "a FIFO, at once: %s",
	    why);
	s = beneath_read(dir, "b", 100, &len, why, sizeof(why));
	ok(!s && !strcmp(why, "not a regular file (refused)"), "a folder: %s", why);
	s = beneath_read(dir, "b/file", 100, &len, why, sizeof(why));
	ok(!s, "a name with a slash is refused: %s", why);
	s = beneath_read(dir, "missing", 100, &len, why, sizeof(why));
	ok(!s && !strcmp(why, strerror(ENOENT)), "a missing file: %s", why);
	close(dir);
	close(root);

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		perror("rm");
	return tap_done();
}
