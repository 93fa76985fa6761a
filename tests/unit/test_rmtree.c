/*
 * Removing a tree someone else can write into (server/common/rmtree.c):
 * issue 19's finding 6, a stale sandbox folder whose entries are swapped
 * between a mode-0 directory and a link to a directory outside while the
 * daemon (root) empties it.  The old code stat'ed the name without
 * following links, then chmod'ed the name, following one swapped in: the
 * target outside got mode 0700.  Now every chmod is on a descriptor opened
 * with O_NOFOLLOW, and rmtree_owned_at removes only its own user's
 * directories, never through a link.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rmtree.h"
#include "tap.h"

static char dir[256];

/*
 * The attacker winning the race, every time: these stand in for libc's
 * (the program's own definitions are what rmtree.o calls) and, while a
 * swap is armed, exchange a directory and a link with RENAME_EXCHANGE just
 * before the mode change reaches the kernel, as a swapper that wins the
 * race does.  Then the real system call.
 */
static const char *swap_a, *swap_b, *swap_to; /* directory, link, where the link points */
static int swaps;

static void swap_now(void)
{
	/* The remover may have taken the link already: the attacker makes another. */
	if (swap_a != NULL && (symlink(swap_to, swap_b) == 0 || errno == EEXIST) &&
	    renameat2(AT_FDCWD, swap_a, AT_FDCWD, swap_b, RENAME_EXCHANGE) == 0)
		swaps++;
	swap_a = swap_b = NULL;
}

int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	swap_now();
	if (flags != 0)
		return errno = EINVAL, -1;
	return (int)syscall(SYS_fchmodat, dirfd, path, mode);
}

int chmod(const char *path, mode_t mode)
{
	swap_now();
	return (int)syscall(SYS_fchmodat, AT_FDCWD, path, mode);
}

int fchmod(int fd, mode_t mode)
{
	swap_now();
	return (int)syscall(SYS_fchmod, fd, mode);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

/*
 * The race: in folder "stale", NPAIRS pairs of names "dN" (a directory of
 * mode 0) and "lN" (a link to outside/); a swapper flips each pair with
 * RENAME_EXCHANGE as fast as it can, recreating whichever the remover
 * took; the remover empties "stale" again and again for up to `seconds`.
 * Returns 1 if outside's mode ever changed.
 */
#define NPAIRS 64

static int race(double seconds, const char *outside, int *rounds)
{
	char stale[512], d[NPAIRS][600], l[NPAIRS][600];
	pid_t swapper;
	int fd, i, changed = 0;
	double end = now_s() + seconds;

	snprintf(stale, sizeof stale, "%s/stale", dir);
	mkdir(stale, 0700);
	for (i = 0; i < NPAIRS; i++) {
		snprintf(d[i], sizeof d[i], "%s/d%d", stale, i);
		snprintf(l[i], sizeof l[i], "%s/l%d", stale, i);
	}
	if ((swapper = fork()) == 0) {
		for (;;) {
			for (i = 0; i < NPAIRS; i++) {
				if (mkdir(d[i], 0) < 0 && errno != EEXIST)
					_exit(1);
				if (symlink(outside, l[i]) < 0 && errno != EEXIST)
					_exit(1);
			}
			for (int k = 0; k < 16; k++)
				for (i = 0; i < NPAIRS; i++)
					renameat2(AT_FDCWD, d[i], AT_FDCWD, l[i], RENAME_EXCHANGE);
		}
	}
	*rounds = 0;
	while (now_s() < end && !changed) {
		if ((fd = open(stale, O_RDONLY | O_DIRECTORY)) < 0)
			break;
		rmtree_contents(fd);
		close(fd);
		changed = mode_of(outside) != 0755;
		++*rounds;
	}
	kill(swapper, SIGKILL);
	waitpid(swapper, NULL, 0);
	rmtree(stale);
	return changed;
}

/* A mode-0 directory "d" and a link "l" to a directory outside; the swap
 * happens at the remover's chmod. */
static void test_swap_at_chmod(void)
{
	char stale[512], d[600], l[600], outside[512];
	int fd;

	snprintf(outside, sizeof outside, "%s/outside-swap", dir);
	mkdir(outside, 0755);
	chmod(outside, 0755);
	snprintf(stale, sizeof stale, "%s/stale-swap", dir);
	mkdir(stale, 0700);
	snprintf(d, sizeof d, "%s/d", stale);
	snprintf(l, sizeof l, "%s/l", stale);
	mkdir(d, 0);
	chmod(d, 0);
	symlink(outside, l);
	swap_a = d, swap_b = l, swap_to = outside, swaps = 0;
	fd = open(stale, O_RDONLY | O_DIRECTORY);
	rmtree_contents(fd);
	close(fd);
	swap_a = swap_b = NULL;
	ok(swaps == 1, "the link was swapped in at the remover's chmod");
	ok(mode_of(outside) == 0755,
	    "a link swapped in for a mode-0 directory just before its chmod: the directory it points to "
	    "keeps its mode (0755, got %o)",
	    (unsigned)mode_of(outside));
	ok(access(outside, F_OK) == 0, "...and is still there");
	ok(rmtree(stale) == 0 && access(stale, F_OK) < 0, "the stale folder is removed on a second try");
}

static void test_race(void)
{
	char outside[512];
	int rounds = 0, changed;

	snprintf(outside, sizeof outside, "%s/outside", dir);
	mkdir(outside, 0755);
	chmod(outside, 0755);
	changed = race(2.0, outside, &rounds);
	ok(!changed,
	    "a real swapper racing the remover for 2 s: the directory a link points to keeps its mode "
	    "(0755; %d rounds, got %o)",
	    rounds, (unsigned)mode_of(outside));
	ok(access(outside, F_OK) == 0, "...and is still there");
}

/* rmtree_owned_at, as the daemon's startup sweep uses it. */
static void test_owned(void)
{
	char path[600], outside[512], keep[600];
	int base;

	base = open(dir, O_RDONLY | O_DIRECTORY);
	snprintf(outside, sizeof outside, "%s/outside2", dir);
	mkdir(outside, 0755);
	chmod(outside, 0755);
	snprintf(keep, sizeof keep, "%s/keep", outside);
	close(open(keep, O_WRONLY | O_CREAT, 0600));

	/* A link named like a stale folder: not followed, not removed through. */
	snprintf(path, sizeof path, "%s/phpcmp-1-link", dir);
	symlink(outside, path);
	int rc = rmtree_owned_at(base, "phpcmp-1-link"), err = errno;
	ok(rc < 0 && (err == ELOOP || err == ENOTDIR), "a link named like a stale folder is refused (%s)",
	    strerror(err));
	ok(access(keep, F_OK) == 0 && mode_of(outside) == 0755,
	    "the folder it points to keeps its file and its mode");

	/* Our own stale folder, with directories a case made unusable. */
	snprintf(path, sizeof path, "%s/phpcmp-1-own", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/phpcmp-1-own/a", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/phpcmp-1-own/a/f", dir);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	snprintf(path, sizeof path, "%s/phpcmp-1-own/a", dir);
	chmod(path, 0);
	snprintf(path, sizeof path, "%s/phpcmp-1-own", dir);
	chmod(path, 0300);
	ok(rmtree_owned_at(base, "phpcmp-1-own") == 0 && access(path, F_OK) < 0,
	    "our own stale folder (mode 0300, a mode-0 directory in it) is removed");

	/* Another user's: left alone (only root can make one here). */
	snprintf(path, sizeof path, "%s/phpcmp-1-theirs", dir);
	mkdir(path, 0700);
	snprintf(keep, sizeof keep, "%s/phpcmp-1-theirs/f", dir);
	close(open(keep, O_WRONLY | O_CREAT, 0600));
	if (geteuid() == 0 && chown(path, 65534, 65534) == 0) {
		rc = rmtree_owned_at(base, "phpcmp-1-theirs");
		err = errno;
		ok(rc < 0 && err == EPERM, "another user's folder is refused with EPERM");
		ok(access(keep, F_OK) == 0 && mode_of(path) == 0700,
		    "...its contents and its mode untouched");
	} else {
		skip("another user's folder is refused", "not root: cannot give a folder away");
		skip("...its contents untouched", "not root");
	}
	ok(rmtree_owned_at(base, "phpcmp-1-none") == 0, "a name that is not there is not an error");
	close(base);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/phpcmp-test-rmtree-XXXXXX");
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_owned();
	test_swap_at_chmod();
	test_race();
	/* Clean up as root would: give the planted folder back first. */
	char path[600];
	snprintf(path, sizeof path, "%s/phpcmp-1-theirs", dir);
	if (chown(path, geteuid(), getegid()) != 0) {
		/* not root: it was never given away */
	}
	ok(rmtree(dir) == 0, "the test folder is removed");
	return tap_done();
}
