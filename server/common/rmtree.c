/* Folder tree removal without following links; see rmtree.h. */
#include "rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Passes over the top folder; each removes RMTREE_MAX_DEPTH levels at least. */
#define RMTREE_MAX_PASSES 4096

struct rmtree_walk {
	int rootfd;   /* the folder being emptied */
	int moved;    /* directories moved up to it during this pass */
	unsigned seq; /* for their names */
};

/*
 * A directory a case made without read, write or search rights for its
 * owner (mkdir($d, 0300)) cannot be listed or emptied: give its owner
 * those rights back first.  Only a directory, never through a link.
 */
static void rmtree_make_usable(int parent, const char *name)
{
	struct stat st;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	    (st.st_mode & 0700) != 0700)
		fchmodat(parent, name, (st.st_mode & 07777) | 0700, 0);
}

/* Empty the directory open on fd, which this call owns and closes: one
 * descriptor per level.  At RMTREE_MAX_DEPTH a directory is not entered but
 * moved up to the top folder, for a later pass: no depth is out of reach,
 * and no more than RMTREE_MAX_DEPTH descriptors are ever open. */
static int rmtree_fd(int fd, int depth, struct rmtree_walk *w)
{
	int rc = 0, sub, saved;
	char name[32];
	DIR *d;
	struct dirent *e;

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
		rmtree_make_usable(fd, e->d_name);
		if (depth + 1 >= RMTREE_MAX_DEPTH) {
			snprintf(name, sizeof name, ".rmtree-%u", w->seq++);
			if (renameat(fd, e->d_name, w->rootfd, name) == 0)
				w->moved++;
			else
				rc = -1;
			continue;
		}
		/* A directory: empty it through a descriptor opened without
		 * following links, then remove it. */
		sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0 || rmtree_fd(sub, depth + 1, w) < 0)
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
	struct rmtree_walk w = { dirfd, 0, 0 };
	int fd, rc, pass = 0;

	do {
		if ((fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0)
			return -1;
		w.moved = 0;
		rc = rmtree_fd(fd, 0, &w);
	} while (w.moved > 0 && ++pass < RMTREE_MAX_PASSES);
	/* A directory moved up during the last pass is removed by a new one. */
	if (rc == 0 && w.moved > 0)
		rc = (errno = ELOOP, -1);
	return rc;
}

int rmtree(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0 && errno == EACCES) {
		chmod(path, 0700);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	rc = rmtree_contents(fd);
	close(fd);
	if (rmdir(path) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}
