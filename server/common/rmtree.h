/*
 * Removing a folder tree that untrusted code may have filled: never follows
 * a symbolic link, never leaves the tree (every step is relative to an open
 * directory descriptor), bounded in depth.  Compiled into the daemon (which
 * removes a worker's private folder) and the worker loader (which empties
 * it between cases).
 */
#ifndef PHPCMP_RMTREE_H
#define PHPCMP_RMTREE_H

#define RMTREE_MAX_DEPTH 64

/* Remove everything inside the open directory dirfd; 0, or -1 (errno) if
 * something could not be removed.  dirfd stays open. */
int rmtree_contents(int dirfd);

/* Remove path and everything below it; 0 (also when it does not exist) or -1. */
int rmtree(const char *path);

#endif
