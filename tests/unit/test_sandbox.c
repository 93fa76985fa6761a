/*
 * Unit tests for server/worker/sandbox.c: the worker's sandbox tried for
 * real, without PHP.  Each check forks a child that applies layers the way
 * the loader does (sandbox_apply) and then makes one system call a hostile
 * case would; the child exits with the errno it got (0: the call worked)
 * or dies of a signal.  Every layer is also tried on its own, so that each
 * is shown to hold without the others.  Prints TAP.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rmtree.h"
#include "sandbox.h"
#include "tap.h"

extern char **environ;

static char dir[256];     /* the private folder */
static char outside[300]; /* a path outside it */
static struct sockaddr_in listener;
static int landlock_abi, netns_ok;

struct check {
	unsigned layers;
	int (*pre)(void); /* before the sandbox; its result is passed on */
	int (*try)(int);  /* under it: the errno it got, 0 if allowed */
	long long cpu_s, as, fsize, nofile, nproc;
	int no_landlock;
	int fork_server; /* seccomp and rlimits deferred: try() runs in a child of the sandboxed process */
};

/* Exit status of the child (its errno), or 1000 + signal. */
static int run(const struct check *c)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct sandbox sb;
		char err[512];
		int pre = c->pre ? c->pre() : -1;
		sandbox_init(&sb);
		sb.layers = c->layers;
		sb.dir = dir;
		sb.cpu_s = c->cpu_s ? c->cpu_s : SANDBOX_UNLIMITED;
		sb.as = c->as ? c->as : SANDBOX_UNLIMITED;
		sb.fsize = c->fsize ? c->fsize : SANDBOX_UNLIMITED;
		sb.nofile = c->nofile ? c->nofile : SANDBOX_UNLIMITED;
		sb.nproc = c->nproc ? c->nproc : SANDBOX_UNLIMITED;
		sb.no_landlock = c->no_landlock;
		if (c->fork_server)
			sb.deferred = SANDBOX_SECCOMP | SANDBOX_RLIMITS;
		if (sandbox_apply(&sb, err, sizeof(err)) < 0) {
			fprintf(stderr, "# %s\n", err);
			_exit(200);
		}
		if (c->fork_server) {
			/* Like loader.c's fork server: the parent (seccomp's shared
			 * part in force) forks, the child adds its own part. */
			int st;
			pid_t child = fork();
			if (child < 0)
				_exit(201);
			if (child == 0) {
				if (sandbox_apply_deferred(&sb, err, sizeof(err)) < 0) {
					fprintf(stderr, "# %s\n", err);
					_exit(200);
				}
				sandbox_case_begin(&sb);
				_exit(c->try(pre));
			}
			while (waitpid(child, &st, 0) < 0 && errno == EINTR)
				;
			if (WIFSIGNALED(st))
				raise(WTERMSIG(st));
			_exit(WEXITSTATUS(st));
		}
		sandbox_case_begin(&sb);
		_exit(c->try(pre));
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFSIGNALED(status) ? 1000 + WTERMSIG(status) : WEXITSTATUS(status);
}

static void expect(const struct check *c, int want, const char *what)
{
	char buf[300];
	int got = run(c);
	if (got == want) {
		ok(1, what);
		return;
	}
	snprintf(buf, sizeof(buf), "%s (got %s %d)", what, got >= 1000 ? "signal" : "errno",
	    got >= 1000 ? got - 1000 : got);
	ok(0, buf);
}

#define ERR(call) ((call) < 0 ? errno : 0)

/* ---- what a hostile case tries ---- */

static int try_socket_inet(int pre)
{
	(void)pre;
	return ERR(socket(AF_INET, SOCK_STREAM, 0));
}
static int try_socket_unix(int pre)
{
	(void)pre;
	return ERR(socket(AF_UNIX, SOCK_STREAM, 0));
}
static int pre_socket(void)
{
	return socket(AF_INET, SOCK_STREAM, 0);
}
static int try_connect(int fd)
{
	return ERR(connect(fd, (struct sockaddr *)&listener, sizeof(listener)));
}
static int try_socket_connect(int pre)
{
	(void)pre;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	return fd < 0 ? errno : try_connect(fd);
}
static int try_execve(int pre)
{
	char *const argv[] = { (char *)"/bin/true", NULL };
	(void)pre;
	return ERR(execve("/bin/true", argv, environ));
}
static int try_fork(int pre)
{
	(void)pre;
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	return p < 0 ? errno : 0;
}
static int try_spawn(int pre)
{
	char *const argv[] = { (char *)"/bin/true", NULL };
	pid_t p;
	(void)pre;
	return posix_spawn(&p, "/bin/true", NULL, NULL, argv, environ);
}
static void *thread_fn(void *arg)
{
	return arg;
}
static int try_thread(int pre)
{
	pthread_t t;
	(void)pre;
	int rc = pthread_create(&t, NULL, thread_fn, NULL);
	if (rc == 0)
		pthread_join(t, NULL);
	return rc;
}
static int try_kill_parent(int pre)
{
	(void)pre;
	return ERR(kill(getppid(), 0));
}
static int try_kill_group(int pre)
{
	(void)pre;
	return ERR(kill(0, 0));
}
static int try_kill_all(int pre)
{
	(void)pre;
	return ERR(kill(-1, 0));
}
static int try_kill_self(int pre)
{
	(void)pre;
	return ERR(kill(getpid(), 0));
}
static int try_ptrace(int pre)
{
	(void)pre;
	return ERR(ptrace(PTRACE_ATTACH, getppid(), NULL, NULL));
}
static int try_prlimit_parent(int pre)
{
	struct rlimit rl = { 1, 1 };
	(void)pre;
	return ERR(prlimit(getppid(), RLIMIT_NOFILE, &rl, NULL));
}
static int try_write_outside(int pre)
{
	(void)pre;
	int fd = open(outside, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	return fd < 0 ? errno : 0;
}
static int try_write_inside(int pre)
{
	char path[400];
	(void)pre;
	snprintf(path, sizeof(path), "%s/inside", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	return fd < 0 ? errno : ERR(write(fd, "x", 1));
}
static int try_read_passwd(int pre)
{
	(void)pre;
	return ERR(open("/etc/passwd", O_RDONLY));
}
static int try_read_usr(int pre)
{
	(void)pre;
	return ERR(open("/usr/lib/os-release", O_RDONLY));
}
static int try_io_uring(int pre)
{
	(void)pre;
	return ERR(syscall(SYS_io_uring_setup, 1, NULL));
}
static int try_unshare(int pre)
{
	(void)pre;
	return ERR(unshare(CLONE_NEWNS));
}
static int try_mount(int pre)
{
	(void)pre;
	return ERR(mount("none", dir, "tmpfs", 0, NULL));
}
static int try_big_alloc(int pre)
{
	(void)pre;
	void *p = malloc(2UL << 30);
	if (!p)
		return ENOMEM;
	free(p);
	return 0;
}
static int try_big_file(int pre)
{
	char path[400], buf[64 << 10];
	(void)pre;
	snprintf(path, sizeof(path), "%s/big", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 100 + errno;
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 64; i++) /* 4 MiB */
		if (write(fd, buf, sizeof(buf)) < 0)
			return errno;
	return 0;
}
static int try_many_files(int pre)
{
	(void)pre;
	for (int i = 0; i < 100; i++)
		if (open("/dev/null", O_RDONLY) < 0)
			return errno;
	return 0;
}
static int try_core(int pre)
{
	struct rlimit rl;
	(void)pre;
	return getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_cur == 0 && rl.rlim_max == 0 ? 0 : 1;
}
static int try_spin(int pre)
{
	(void)pre;
	for (volatile unsigned long i = 0;; i++)
		;
	return 0;
}
static int try_capabilities(int pre)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	(void)pre;
	if (syscall(SYS_capget, &h, d) < 0)
		return errno;
	return d[0].effective || d[1].effective || d[0].permitted || d[1].permitted ? 1 : 0;
}

/* ---- the checks ---- */

static void test_all_layers(void)
{
	const unsigned all = SANDBOX_ALL & ~(unsigned)SANDBOX_PHP;
	struct check c = { .layers = all };

	c.try = try_socket_inet;
	expect(&c, EPERM, "all layers: socket(AF_INET) is refused");
	c.try = try_socket_unix;
	expect(&c, EPERM, "all layers: socket(AF_UNIX) is refused");
	c.pre = pre_socket;
	c.try = try_connect;
	expect(&c, EPERM, "all layers: connect() of a socket made before the sandbox is refused");
	c.pre = NULL;
	c.try = try_execve;
	expect(&c, EPERM, "all layers: execve(/bin/true) is refused");
	c.try = try_fork;
	expect(&c, EPERM, "all layers: fork() is refused");
	c.try = try_spawn;
	expect(&c, EPERM, "all layers: posix_spawn (clone with CLONE_VFORK) is refused");
	c.try = try_thread;
	expect(&c, 0, "all layers: a thread can still be made (clone with CLONE_THREAD)");
	c.try = try_kill_parent;
	expect(&c, EPERM, "all layers: kill(parent) is refused");
	c.try = try_kill_group;
	expect(&c, EPERM, "all layers: kill(0), the process group with the daemon in it, is refused");
	c.try = try_kill_all;
	expect(&c, EPERM, "all layers: kill(-1) is refused");
	c.try = try_kill_self;
	expect(&c, 0, "all layers: kill(self) is allowed (raise, abort)");
	c.try = try_ptrace;
	expect(&c, EPERM, "all layers: ptrace(ATTACH, parent) is refused");
	c.try = try_prlimit_parent;
	expect(&c, EPERM, "all layers: prlimit on the parent is refused");
	c.try = try_io_uring;
	expect(&c, EPERM, "all layers: io_uring_setup is refused");
	c.try = try_unshare;
	expect(&c, EPERM, "all layers: unshare is refused");
	c.try = try_mount;
	expect(&c, EPERM, "all layers: mount is refused");
	c.try = try_capabilities;
	expect(&c, 0, "all layers: no capability is left");
	if (landlock_abi < 1) {
		skip("all layers: writing outside the private folder is refused", "no landlock");
		skip("all layers: reading /etc/passwd is refused", "no landlock");
	} else {
		c.try = try_write_outside;
		expect(&c, EACCES, "all layers: writing outside the private folder is refused");
		c.try = try_read_passwd;
		expect(&c, EACCES, "all layers: reading /etc/passwd is refused");
	}
	c.try = try_write_inside;
	expect(&c, 0, "all layers: writing in the private folder works");
	c.try = try_read_usr;
	expect(&c, 0, "all layers: reading below /usr works");
}

static void test_rlimits(void)
{
	struct check c = { .layers = SANDBOX_RLIMITS, .as = 1LL << 30 };

	c.try = try_big_alloc;
	expect(&c, ENOMEM, "rlimits: malloc(2 GB) fails under limit-as 1G");
	c.as = 0;
	c.fsize = 1LL << 20;
	c.try = try_big_file;
	expect(&c, EFBIG, "rlimits: writing past limit-fsize 1M fails with EFBIG (no SIGXFSZ)");
	c.fsize = 0;
	c.nofile = 32;
	c.try = try_many_files;
	expect(&c, EMFILE, "rlimits: opening past limit-nofile 32 fails with EMFILE");
	c.nofile = 0;
	c.try = try_core;
	expect(&c, 0, "rlimits: no core files");
	c.cpu_s = 1;
	c.try = try_spin;
	expect(&c, 1000 + SIGXCPU, "rlimits: a case spinning past limit-cpu 1 dies of SIGXCPU");
}

/* Each layer without the others. */
/* A fork server's child: the shared seccomp part inherited, its own added. */
static void test_fork_server(void)
{
	struct check c = { .layers = SANDBOX_ALL & ~(unsigned)SANDBOX_PHP, .fork_server = 1 };

	c.try = try_fork;
	expect(&c, EPERM, "fork server: its child's fork() is refused (the parent's worked)");
	c.try = try_socket_inet;
	expect(&c, EPERM, "fork server: its child's socket() is refused (inherited part)");
	c.try = try_execve;
	expect(&c, EPERM, "fork server: its child's execve() is refused (inherited part)");
	c.try = try_kill_parent;
	expect(&c, EPERM, "fork server: its child's kill(fork server) is refused (its own part)");
	c.try = try_write_outside;
	expect(&c, EACCES, "fork server: its child writes nothing outside the private folder");
	c.no_landlock = 1;
	expect(&c, EACCES, "fork server without landlock: its child's files are read-only (its own part)");
	c.try = try_write_inside;
	c.no_landlock = 0;
	expect(&c, 0, "fork server: its child writes in the private folder");
}

static void test_layers_alone(void)
{
	struct check c = { 0 };

	if (!netns_ok) {
		skip("netns alone: connect to the host's 127.0.0.1 fails", "no network namespace here");
	} else {
		c.layers = SANDBOX_NETNS;
		c.try = try_socket_connect;
		expect(&c, ENETUNREACH, "netns alone: a socket works but 127.0.0.1 is unreachable");
	}
	c.layers = SANDBOX_SECCOMP;
	c.try = try_socket_inet;
	expect(&c, EPERM, "seccomp alone: socket() is refused");
	c.try = try_execve;
	expect(&c, EPERM, "seccomp alone: execve() is refused");
	c.try = try_kill_parent;
	expect(&c, EPERM, "seccomp alone: kill(parent) is refused");
	c.try = try_write_outside;
	expect(&c, 0, "seccomp alone: files are landlock's business (a write outside works)");
	unlink(outside);

	c.layers = SANDBOX_LANDLOCK;
	if (landlock_abi < 1) {
		skip("landlock alone", "no landlock in this kernel");
	} else {
		c.try = try_write_outside;
		expect(&c, EACCES, "landlock alone: writing outside the private folder is refused");
		c.try = try_read_passwd;
		expect(&c, EACCES, "landlock alone: reading /etc/passwd is refused");
		c.try = try_write_inside;
		expect(&c, 0, "landlock alone: writing in the private folder works");
		if (landlock_abi >= 4) {
			c.try = try_socket_connect;
			expect(&c, EACCES, "landlock alone (ABI >= 4): a TCP connect is refused");
		}
		if (landlock_abi >= 6) {
			c.try = try_kill_parent;
			expect(
			    &c, EPERM, "landlock alone (ABI >= 6): signalling out of the domain is refused");
		}
	}

	/* No landlock in the kernel: seccomp makes every write refused. */
	c.layers = SANDBOX_SECCOMP | SANDBOX_LANDLOCK;
	c.no_landlock = 1;
	c.try = try_write_outside;
	expect(&c, EACCES, "without landlock: seccomp refuses writing outside the folder");
	c.try = try_write_inside;
	expect(&c, EACCES, "without landlock: ... and inside it (the folder is read-only too)");
	c.try = try_read_passwd;
	expect(&c, 0, "without landlock: reads still work (open_basedir is left to refuse them)");
	c.no_landlock = 0;

	c.layers = SANDBOX_CAPS;
	c.try = try_capabilities;
	expect(&c, 0, "caps alone: every capability is dropped");
}

/* rmtree and the folder emptying between cases: links are not followed. */
static void test_rmtree(void)
{
	char path[1024], target[600], link[1024];
	struct stat st;

	snprintf(target, sizeof(target), "%s.target", dir);
	mkdir(target, 0700);
	snprintf(path, sizeof(path), "%s/keep", target);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	snprintf(path, sizeof(path), "%s/a", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/a/b", dir);
	mkdir(path, 0700);
	snprintf(link, sizeof(link), "%s/a/b/to-target", dir);
	ok(symlink(target, link) == 0, "rmtree: a tree with a link to a folder outside it");
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	ok(rmtree_contents(fd) == 0, "rmtree: the tree is emptied");
	close(fd);
	snprintf(path, sizeof(path), "%s/a", dir);
	ok(stat(path, &st) < 0 && errno == ENOENT, "rmtree: nothing is left in it");
	snprintf(path, sizeof(path), "%s/keep", target);
	ok(stat(path, &st) == 0, "rmtree: the folder a link pointed to is untouched");
	ok(rmtree(target) == 0 && stat(target, &st) < 0, "rmtree: removes a folder itself");
	ok(rmtree(target) == 0, "rmtree: a folder that is not there is not an error");
}

int main(void)
{
	int lfd;
	socklen_t len = sizeof(listener);

	snprintf(dir, sizeof(dir), "/tmp/phpcmp-test-sandbox-XXXXXX");
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(outside, sizeof(outside), "%s.outside", dir);
	/* Something to connect to on the host's loopback. */
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&listener, 0, sizeof(listener));
	listener.sin_family = AF_INET;
	listener.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&listener, sizeof(listener)) < 0 || listen(lfd, 8) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&listener, &len) < 0) {
		printf("Bail out! listen: %s\n", strerror(errno));
		return 1;
	}
	landlock_abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, 1);
	pid_t p = fork();
	if (p == 0)
		_exit(unshare(CLONE_NEWNET) == 0 || unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : 1);
	int status;
	waitpid(p, &status, 0);
	netns_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	printf("# landlock ABI %d, network namespace %s\n", landlock_abi, netns_ok ? "yes" : "no");

	test_all_layers();
	test_fork_server();
	test_rlimits();
	test_layers_alone();
	test_rmtree();

	struct stat st;
	ok(stat(outside, &st) < 0, "nothing was written outside the private folder by a sandboxed child");
	unlink(outside);
	rmtree(dir);
	close(lfd);
	return tap_done();
}
