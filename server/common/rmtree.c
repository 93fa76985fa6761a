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
 * Open the directory name under parent for emptying, never through a link
 * (O_NOFOLLOW: a link, or a directory swapped for one, is ELOOP/ENOTDIR),
 * and when it is ours, give it back the owner's rights a case took away
 * (mkdir($d, 0300), 0): by fchmod on the descriptor opened, so the mode
 * change lands on exactly that directory, never where a link points.  A
 * mode-0 directory cannot be opened for reading by its owner (root can):
 * then it is opened O_PATH, its mode fixed through /proc/self/fd (the
 * opened inode, not a name), and reopened through that descriptor.  A
 * directory of another user is never chmodded (a root daemon needs no
 * rights to remove it).  The descriptor, or -1 with errno.
 */
static int rmtree_open_dir(int parent, const char *name)
{
	struct stat st;
	char proc[64];
	int fd, pfd, saved;

	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 0700) != 0700)
			fchmod(fd, (st.st_mode & 07777) | 0700);
		return fd;
	}
	if (errno != EACCES)
		return -1;
	if ((pfd = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	fd = -1;
	errno = EACCES;
	if (fstat(pfd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
		if (chmod(proc, (st.st_mode & 07777) | 0700) == 0)
			fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	saved = errno;
	close(pfd);
	errno = saved;
	return fd;
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
		/* A directory: opened without following links (and its owner's
		 * rights given back), then moved up or emptied and removed. */
		sub = rmtree_open_dir(fd, e->d_name);
		if (depth + 1 >= RMTREE_MAX_DEPTH) {
			if (sub >= 0)
				close(sub);
			snprintf(name, sizeof name, ".rmtree-%u", w->seq++);
			if (renameat(fd, e->d_name, w->rootfd, name) == 0)
				w->moved++;
			else
				rc = -1;
			continue;
		}
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

int rmtree_owned_at(int parent, const char *name)
{
	struct stat st;
	int fd, rc, saved;

	if ((fd = rmtree_open_dir(parent, name)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		saved = st.st_uid != geteuid() ? EPERM : errno;
		close(fd);
		errno = saved;
		return -1;
	}
	rc = rmtree_contents(fd);
	saved = errno;
	close(fd);
	errno = saved;
	if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

int rmtree(const char *path)
{
	int fd, rc;

	if ((fd = rmtree_open_dir(AT_FDCWD, path)) < 0)
		return errno == ENOENT ? 0 : -1;
	rc = rmtree_contents(fd);
	close(fd);
	if (rmdir(path) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}
