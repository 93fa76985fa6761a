/*
 * Files opened beneath a folder's descriptor and nowhere else: no symbolic
 * link followed, no "..", regular files only, size-bounded, never blocking
 * on a FIFO or a device.  The phpt runner reads tests and their support
 * files this way as root (server/daemon/engine/phptrun.c, docs/phpt.md).
 */
#ifndef PHPCMP_BENEATH_H
#define PHPCMP_BENEATH_H

#include <stddef.h>

/* rel (relative, "a/b/c" or ".") beneath the folder rootfd with flags
 * (O_CLOEXEC added): openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS, or beneath_walk where the kernel has no openat2.
 * A descriptor, or -1 with errno (ELOOP/EXDEV for a link or a ".."). */
int beneath_open(int rootfd, const char *rel, int flags);
/* The same one component at a time, each opened with O_NOFOLLOW (the
 * folders on the way O_PATH | O_DIRECTORY); ".." is EXDEV. */
int beneath_walk(int rootfd, const char *rel, int flags);
/* The regular file name (no '/') beside the folder dirfd, opened with
 * O_NOFOLLOW | O_NONBLOCK, at most max bytes: malloc'd, NUL-terminated,
 * *len set; NULL with why ("a symbolic link (refused)", "not a regular
 * file (refused)", "too large (refused)", strerror). */
char *beneath_read(int dirfd, const char *name, size_t max, size_t *len, char *why, size_t whysize);

#endif
