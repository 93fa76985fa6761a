/*
 * Removing a folder tree that untrusted code may have filled: never follows
 * a symbolic link, never leaves the tree (every step is relative to an open
 * directory descriptor), at most RMTREE_MAX_DEPTH descriptors open whatever
 * the tree's depth (deeper directories are moved up and removed in a later
 * pass), and directories a case made unreadable (mode 0300, 0) are given
 * their owner's rights back first, by fchmod on the descriptor opened with
 * O_NOFOLLOW, and only when they are this process's user's.  Compiled into the daemon (which
 * removes a worker's private folder) and the worker loader (which empties
 * it between cases).
 */
#ifndef PHPCMP_RMTREE_H
#define PHPCMP_RMTREE_H

#define RMTREE_MAX_DEPTH 16

/* Remove everything inside the open directory dirfd; 0, or -1 (errno) if
 * something could not be removed.  dirfd stays open. */
int rmtree_contents(int dirfd);

/* Remove the directory name under the open directory parent and everything
 * below it, only if it is a directory (not a link) owned by this process's
 * user: 0 (also when it does not exist), or -1 with errno (EPERM: another
 * user's; ELOOP or ENOTDIR: a link or not a directory). */
int rmtree_owned_at(int parent, const char *name);

/* Remove path and everything below it; 0 (also when it does not exist) or -1. */
int rmtree(const char *path);

#endif
