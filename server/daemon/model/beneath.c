/* Files opened beneath a folder's descriptor: beneath.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "beneath.h"

int beneath_open(int rootfd, const char *rel, int flags)
{
	struct open_how how = { .flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
	if (fd >= 0 || errno != ENOSYS)
		return fd;
	return beneath_walk(rootfd, rel, flags);
}

/* The next component of a path being cut by strtok_r, "." skipped. */
static char *next_component(char *path, char **save)
{
	char *c = strtok_r(path, "/", save);
	while (c && strcmp(c, ".") == 0)
		c = strtok_r(NULL, "/", save);
	return c;
}

int beneath_walk(int rootfd, const char *rel, int flags)
{
	char path[PATH_MAX], *save = NULL;
	if (rel[0] == '/' || (size_t)snprintf(path, sizeof(path), "%s", rel) >= sizeof(path)) {
		errno = EXDEV;
		return -1;
	}
	int cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *c = next_component(path, &save);
	while (cur >= 0) {
		char *next = c ? next_component(NULL, &save) : NULL;
		if ((c && strcmp(c, "..") == 0) || (next && strcmp(next, "..") == 0)) {
			close(cur);
			errno = EXDEV;
			return -1;
		}
		int fd = !c ? openat(cur, ".", flags | O_CLOEXEC)
		    : next  ? openat(cur, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		            : openat(cur, c, flags | O_NOFOLLOW | O_CLOEXEC);
		int saved = errno;
		close(cur);
		errno = saved;
		if (!c || !next)
			return fd;
		cur = fd;
		c = next;
	}
	return -1;
}

char *beneath_read(int dirfd, const char *name, size_t max, size_t *len, char *why, size_t whysize)
{
	struct stat st = { 0 };
	int fd = strchr(name, '/') || !*name
	    ? (errno = EINVAL, -1)
	    : openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whysize, "%s", errno == ELOOP ? "a symbolic link (refused)" : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		snprintf(why, whysize, "%s",
		    !S_ISREG(st.st_mode) ? "not a regular file (refused)" : "too large (refused)");
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	char *buf = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (buf && got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (!buf) {
		snprintf(why, whysize, "out of memory");
		return NULL;
	}
	buf[got] = '\0';
	*len = got;
	return buf;
}
