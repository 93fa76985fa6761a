/* Folder tree removal without following links; see rmtree.h. */
#include "rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Empty the directory open on fd, which this call owns and closes: one
 * descriptor per level, so a deep tree needs depth descriptors at most. */
static int rmtree_fd(int fd, int depth)
{
	int rc = 0, sub, saved;
	DIR *d;
	struct dirent *e;

	if (depth > RMTREE_MAX_DEPTH) {
		close(fd);
		errno = ELOOP;
		return -1;
	}
	if ((d = fdopendir(fd)) == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	rewinddir(d);
	while ((errno = 0, e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(fd, e->d_name, 0) == 0 || errno == ENOENT)
			continue;
		if (errno != EISDIR && errno != EPERM) {
			rc = -1;
			continue;
		}
		/* A directory: empty it through a descriptor opened without
		 * following links, then remove it. */
		sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || rmtree_fd(sub, depth + 1) < 0)
			rc = -1;
		if (unlinkat(fd, e->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT)
			rc = -1;
	}
	if (errno != 0)
		rc = -1;
	saved = errno;
	closedir(d);
	errno = saved;
	return rc;
}

int rmtree_contents(int dirfd)
{
	int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	return fd < 0 ? -1 : rmtree_fd(fd, 0);
}

int rmtree(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	int rc = rmtree_fd(fd, 0);
	if (rmdir(path) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}
