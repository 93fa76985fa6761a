/*
 * The worker's sandbox (see sandbox.h and docs/sandbox.md).  Compiled into
 * the worker loader only: it never touches PHP's headers; PHP's own
 * settings go in as ini entries, the probe case through the core's API.
 *
 * Order matters: the network namespace first (unshare needs the
 * capabilities dropped later), landlock, the capabilities, the seccomp
 * filter (which refuses unshare, capset and friends), and the rlimits
 * last, so that a small address-space limit cannot starve the setting up
 * of the other layers.
 */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "rmtree.h"

/* Landlock's ABI as of Linux 6.12; Debian 12's headers stop at ABI 2. */
#define LL_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define LL_NET_BIND_TCP (1ULL << 0)  /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)
#define LL_FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_FILE_RIGHTS                                                                               \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | \
	    LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

struct ll_ruleset_attr {
	uint64_t handled_access_fs, handled_access_net, scoped;
};

/*
 * Functions of PHP 8.2 that reach beyond computing a value: run programs,
 * signal or fork processes, open connections or resolve names, change file
 * metadata or links.  Reading and writing file contents stays (fopen on
 * php://memory makes resources to encode; the private folder is for
 * writing), bounded by open_basedir.  Names of absent extensions are
 * ignored by PHP.
 */
static const char sandbox_default_disabled[] =
    /* processes */
    "exec,passthru,shell_exec,system,proc_open,popen,proc_nice,proc_terminate,"
    "proc_close,proc_get_status,pcntl_exec,pcntl_fork,pcntl_rfork,pcntl_alarm,"
    "pcntl_signal,pcntl_signal_dispatch,pcntl_sigprocmask,pcntl_sigwaitinfo,"
    "pcntl_sigtimedwait,pcntl_async_signals,pcntl_setpriority,pcntl_getpriority,"
    "pcntl_unshare,posix_getpgid,posix_getsid,"
    "pcntl_wait,pcntl_waitpid,pcntl_wifexited,posix_kill,posix_mkfifo,posix_mknod,"
    "posix_setpgid,posix_setsid,posix_setuid,posix_setgid,posix_seteuid,"
    "posix_setegid,posix_setrlimit,posix_initgroups,dl,mail,mb_send_mail,"
    /* network */
    "fsockopen,pfsockopen,stream_socket_client,stream_socket_server,"
    "stream_socket_pair,stream_socket_accept,socket_create,socket_create_listen,"
    "socket_create_pair,socket_connect,socket_bind,socket_listen,socket_accept,"
    "socket_addrinfo_connect,socket_addrinfo_bind,gethostbyname,gethostbynamel,"
    "gethostbyaddr,dns_get_record,dns_check_record,checkdnsrr,getmxrr,dns_get_mx,"
    "curl_init,curl_exec,curl_multi_init,curl_multi_exec,ftp_connect,"
    "ftp_ssl_connect,openlog,syslog,"
    /* filesystem: metadata, links, where the process is */
    "chmod,chown,chgrp,lchown,lchgrp,link,symlink,touch,chdir,chroot,umask,"
    "move_uploaded_file,disk_free_space,disk_total_space,diskfreespace,readlink,"
    "linkinfo";

void sandbox_init(struct sandbox *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->cpu_s = sb->as = sb->fsize = sb->nofile = sb->nproc = sb->disk = SANDBOX_UNLIMITED;
	sb->dirfd = -1;
}

int sandbox_parse_layers(const char *list, unsigned *mask)
{
	unsigned m = 0;
	const char *p = list;

	if (!strcmp(list, "all")) {
		*mask = SANDBOX_ALL;
		return 0;
	}
	if (!strcmp(list, "none")) {
		*mask = 0;
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ",");
		int i;
		for (i = 0; i < SANDBOX_NLAYERS; i++)
			if (strlen(sandbox_layer_name(i)) == n && !strncmp(p, sandbox_layer_name(i), n))
				break;
		if (i == SANDBOX_NLAYERS)
			return -1;
		m |= 1u << i;
		p += n;
		if (*p == ',')
			p++;
	}
	*mask = m;
	return 0;
}

/* A count or size: digits with an optional K/M/G suffix, or "unlimited". */
static int sandbox_parse_limit(const char *s, long long *out)
{
	char *end;
	long long v;

	if (!strcmp(s, "unlimited") || !strcmp(s, "-1")) {
		*out = SANDBOX_UNLIMITED;
		return 0;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || v < 0)
		return -1;
	switch (*end) {
	case 'K':
	case 'k':
		v = v > LLONG_MAX >> 10 ? -1 : v << 10;
		end++;
		break;
	case 'M':
	case 'm':
		v = v > LLONG_MAX >> 20 ? -1 : v << 20;
		end++;
		break;
	case 'G':
	case 'g':
		v = v > LLONG_MAX >> 30 ? -1 : v << 30;
		end++;
		break;
	default:
		break;
	}
	if (*end || v < 0)
		return -1;
	*out = v;
	return 0;
}

int sandbox_arg(struct sandbox *sb, int argc, char **argv, int *i, char *err, size_t errsize)
{
	/* clang-format off */
	static const struct { const char *name; size_t off; } limits[] = {
		{ "--limit-cpu", offsetof(struct sandbox, cpu_s) },
		{ "--limit-as", offsetof(struct sandbox, as) },
		{ "--limit-fsize", offsetof(struct sandbox, fsize) },
		{ "--limit-nofile", offsetof(struct sandbox, nofile) },
		{ "--limit-nproc", offsetof(struct sandbox, nproc) },
		{ "--limit-disk", offsetof(struct sandbox, disk) },
	};
	/* clang-format on */
	const char *opt = argv[*i], *val = *i + 1 < argc ? argv[*i + 1] : NULL;

	if (strncmp(opt, "--sandbox", 9) && strncmp(opt, "--limit-", 8) && strcmp(opt, "--allow-read") &&
	    strcmp(opt, "--allow-write") && strcmp(opt, "--disable-functions"))
		return 0;
	if (!val) {
		snprintf(err, errsize, "%s needs a value", opt);
		return -1;
	}
	(*i)++;
	if (!strcmp(opt, "--sandbox") || !strcmp(opt, "--sandbox-exec") ||
	    !strcmp(opt, "--sandbox-inherited")) {
		unsigned *mask = !strcmp(opt, "--sandbox") ? &sb->layers
		    : !strcmp(opt, "--sandbox-exec")       ? &sb->before_exec
		                                           : &sb->inherited;
		if (sandbox_parse_layers(val, mask) < 0) {
			snprintf(err, errsize,
			    "%s: unknown layer in \"%s\" (netns, caps, seccomp, "
			    "landlock, rlimits, php, all, none)",
			    opt, val);
			return -1;
		}
		return 1;
	}
	if (!strcmp(opt, "--sandbox-report-env")) {
		sb->report_env = val;
		return 1;
	}
	if (!strcmp(opt, "--sandbox-dir")) {
		sb->dir = val;
		return 1;
	}
	if (!strcmp(opt, "--disable-functions")) {
		sb->disable_functions = strcmp(val, "none") ? val : "";
		return 1;
	}
	if (!strcmp(opt, "--allow-read") || !strcmp(opt, "--allow-write")) {
		int w = !strcmp(opt, "--allow-write");
		if ((w ? sb->nrw : sb->nro) >= SANDBOX_MAX_PATHS) {
			snprintf(err, errsize, "%s: at most %d", opt, SANDBOX_MAX_PATHS);
			return -1;
		}
		if (w)
			sb->rw[sb->nrw++] = val;
		else
			sb->ro[sb->nro++] = val;
		return 1;
	}
	for (size_t k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
		if (strcmp(opt, limits[k].name))
			continue;
		if (sandbox_parse_limit(val, (long long *)((char *)sb + limits[k].off)) < 0) {
			snprintf(
			    err, errsize, "%s: expected a number (K/M/G) or unlimited, got \"%s\"", opt, val);
			return -1;
		}
		return 1;
	}
	(*i)--;
	snprintf(err, errsize, "unknown sandbox option %s", opt);
	return -1;
}

/* Resolve and open the private folder (once). */
static int sandbox_open_dir(struct sandbox *sb, char *err, size_t errsize)
{
	if (sb->dirfd >= 0)
		return 0;
	if (!sb->dir) {
		snprintf(err, errsize, "sandbox: no private folder (--sandbox-dir)");
		return -1;
	}
	if (!realpath(sb->dir, sb->dir_real) ||
	    (sb->dirfd = open(sb->dir_real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    fstat(sb->dirfd, &sb->dirst) < 0) {
		snprintf(err, errsize, "sandbox: private folder %s: %s", sb->dir, strerror(errno));
		return -1;
	}
	return 0;
}

int sandbox_php_ini(struct sandbox *sb, struct core_options *opts, char *err, size_t errsize)
{
	/* Static: the core keeps pointers to them until PHP shuts down. */
	static char basedir[4200], tmp[4200], upload[4200], session[4200];
	static char disabled[8192];
	static const char *const fixed[] = {
		"allow_url_fopen=0",
		"allow_url_include=0",
		"enable_dl=0",
		"ffi.enable=0",
	};
	const char *list = sb->disable_functions ? sb->disable_functions : sandbox_default_disabled;

	if (!(sb->layers & SANDBOX_PHP))
		return 0;
	if (sandbox_open_dir(sb, err, errsize) < 0)
		return -1;
	if (opts->nini + 5 + (int)(sizeof(fixed) / sizeof(fixed[0])) > CORE_MAX_INI ||
	    strlen(list) + 32 > sizeof(disabled)) {
		snprintf(err, errsize, "sandbox: too many ini settings");
		return -1;
	}
	snprintf(basedir, sizeof(basedir), "open_basedir=%s", sb->dir_real);
	snprintf(tmp, sizeof(tmp), "sys_temp_dir=%s", sb->dir_real);
	snprintf(upload, sizeof(upload), "upload_tmp_dir=%s", sb->dir_real);
	snprintf(session, sizeof(session), "session.save_path=%s", sb->dir_real);
	snprintf(disabled, sizeof(disabled), "disable_functions=%s", list);
	opts->ini[opts->nini++] = basedir;
	opts->ini[opts->nini++] = tmp;
	opts->ini[opts->nini++] = upload;
	opts->ini[opts->nini++] = session;
	opts->ini[opts->nini++] = disabled;
	for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
		opts->ini[opts->nini++] = fixed[k];
	return 0;
}

static void sandbox_note(struct sandbox *sb, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(sb->report);
	snprintf(sb->report + n, sizeof(sb->report) - n, fmt, a, b);
}

/* ---- netns ---- */

/*
 * The private folder as a tmpfs of --limit-disk bytes (and 4,096 files)
 * in a mount namespace of the worker's own: what a worker leaves on disk is
 * bounded in total, not only per file (limit-fsize), and nothing of it
 * outlives the worker (the tmpfs goes with its last process).  Needs
 * CAP_SYS_ADMIN (a root daemon); otherwise the report says disk(off: ...)
 * and only limit-fsize holds.
 */
static void sandbox_disk(struct sandbox *sb)
{
	char opts[96];
	const char *why = NULL;

	if (sb->disk == SANDBOX_UNLIMITED || sb->dirfd < 0)
		return;
	snprintf(opts, sizeof(opts), "size=%lld,nr_inodes=4096,mode=0700", sb->disk);
	if (unshare(CLONE_NEWNS) < 0)
		why = "unshare";
	else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		why = "mount --make-rprivate /";
	else if (mount("phpcmp", sb->dir_real, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0)
		why = "mount tmpfs";
	if (why) {
		char what[160];
		snprintf(what, sizeof(what), "%s: %s", why, strerror(errno));
		sandbox_note(sb, "disk(off: %s) ", what, "");
		return;
	}
	/* The folder is the tmpfs from here on. */
	close(sb->dirfd);
	if ((sb->dirfd = open(sb->dir_real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    fstat(sb->dirfd, &sb->dirst) < 0) {
		sandbox_note(sb, "disk(off: reopen: %s) ", strerror(errno), "");
		return;
	}
	snprintf(opts, sizeof(opts), "%lldM", sb->disk >> 20);
	sandbox_note(sb, "disk(%s) ", opts, "");
}

static void sandbox_netns(struct sandbox *sb)
{
	/* Root (or CAP_SYS_ADMIN) gets a plain network namespace; anyone
	 * else may get one inside a user namespace of their own. */
	if (unshare(CLONE_NEWNET) == 0) {
		sb->applied |= SANDBOX_NETNS;
		sandbox_note(sb, "netns ", "", "");
		sandbox_disk(sb);
	} else if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
		sb->applied |= SANDBOX_NETNS;
		sandbox_note(sb, "netns ", "", "");
		if (sb->disk != SANDBOX_UNLIMITED)
			sandbox_note(sb, "disk(off: not root) ", "", "");
	} else {
		sandbox_note(sb, "netns(off: %s) ", strerror(errno), "");
	}
}

/* ---- rlimits ---- */

static int sandbox_setrlimit(int res, const char *name, long long v, int soft_only, char *err, size_t errsize)
{
	struct rlimit rl = { (rlim_t)v, (rlim_t)v };
	if (v == SANDBOX_UNLIMITED)
		return 0;
	if (soft_only && getrlimit(res, &rl) == 0)
		rl.rlim_cur = (rlim_t)v;
	if (setrlimit(res, &rl) < 0) {
		snprintf(err, errsize, "sandbox: rlimits: %s %lld: %s", name, v, strerror(errno));
		return -1;
	}
	return 0;
}

static int sandbox_rlimits(struct sandbox *sb, char *err, size_t errsize)
{
	/* Soft and hard alike, so that nothing can raise them again -- but
	 * valgrind refuses to move the hard limit on files (it keeps
	 * descriptors of its own above it) and enforces the soft one itself. */
	if (sandbox_setrlimit(RLIMIT_AS, "limit-as", sb->as, 0, err, errsize) < 0 ||
	    sandbox_setrlimit(RLIMIT_FSIZE, "limit-fsize", sb->fsize, 0, err, errsize) < 0 ||
	    sandbox_setrlimit(RLIMIT_NOFILE, "limit-nofile", sb->nofile, sb->valgrind, err, errsize) < 0 ||
	    sandbox_setrlimit(RLIMIT_NPROC, "limit-nproc", sb->nproc, 0, err, errsize) < 0 ||
	    sandbox_setrlimit(RLIMIT_CORE, "core files", 0, 0, err, errsize) < 0)
		return -1;
	/* Over the file size limit a write fails with EFBIG (a PHP warning)
	 * instead of killing the worker. */
	signal(SIGXFSZ, SIG_IGN);
	sb->applied |= SANDBOX_RLIMITS;
	sandbox_note(sb, "rlimits ", "", "");
	return 0;
}

void sandbox_case_begin(struct sandbox *sb)
{
	struct rusage ru;
	struct rlimit rl;

	if (!(sb->applied & SANDBOX_RLIMITS) || sb->cpu_s == SANDBOX_UNLIMITED)
		return;
	/* RLIMIT_CPU counts the process's whole life: move the soft limit
	 * to what this request may use on top of what is spent. */
	if (getrusage(RUSAGE_SELF, &ru) < 0 || getrlimit(RLIMIT_CPU, &rl) < 0)
		return;
	rlim_t used = (rlim_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1);
	rl.rlim_cur = used + (rlim_t)sb->cpu_s;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_CPU, &rl);
}

int sandbox_case_end(struct sandbox *sb)
{
	struct stat st;

	if (sb->dirfd < 0 || fstat(sb->dirfd, &st) < 0)
		return 0;
	/* Anything created or removed changes the folder's times: only then
	 * is there something to clear for the next case. */
	if (st.st_mtim.tv_sec == sb->dirst.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == sb->dirst.st_mtim.tv_nsec &&
	    st.st_ctim.tv_sec == sb->dirst.st_ctim.tv_sec && st.st_ctim.tv_nsec == sb->dirst.st_ctim.tv_nsec)
		return 0;
	int rc = rmtree_contents(sb->dirfd);
	fstat(sb->dirfd, &sb->dirst);
	return rc;
}

/* ---- landlock ---- */

static int ll_rule(int ruleset, const char *path, uint64_t access, uint64_t handled)
{
	struct landlock_path_beneath_attr pb;
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1; /* nothing there to allow */
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		access &= LL_FILE_RIGHTS;
	pb.allowed_access = access & handled;
	pb.parent_fd = fd;
	int rc = pb.allowed_access
	    ? (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0)
	    : 0;
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

/*
 * Reads below /usr (libraries loaded later: gconv, zoneinfo, locales) and
 * the build's own files; everything in the private folder; the callgrind
 * folder for a measuring worker.  With exec (valgrind starting under it):
 * executing from /usr and reading /proc, which valgrind needs.
 */
static int sandbox_landlock(struct sandbox *sb, int for_exec, char *err, size_t errsize)
{
	struct ll_ruleset_attr attr = { 0, 0, 0 };
	size_t size = sizeof(uint64_t);
	uint64_t fs_all, rw_dir;
	int abi, rs;
	const char *failed = NULL;

	abi = sb->no_landlock
	    ? (errno = ENOSYS, -1)
	    : (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		sandbox_note(sb, "landlock(off: %s) ", strerror(errno), "");
		return 1;
	}
	sb->landlock_abi = abi;
	fs_all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0..12 */
	if (abi >= 2)
		fs_all |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs_all |= LL_FS_TRUNCATE;
	if (abi >= 5)
		fs_all |= LL_FS_IOCTL_DEV;
	attr.handled_access_fs = fs_all;
	if (abi >= 4) {
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
		size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
		size = 3 * sizeof(uint64_t);
	}
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rs < 0) {
		snprintf(err, errsize, "sandbox: landlock: create_ruleset: %s", strerror(errno));
		return -1;
	}
	rw_dir = fs_all &
	    ~(uint64_t)(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
	        LANDLOCK_ACCESS_FS_MAKE_BLOCK | LL_FS_IOCTL_DEV);
	uint64_t ro = LL_FS_READ | (for_exec ? LANDLOCK_ACCESS_FS_EXECUTE : 0);
	if (ll_rule(rs, "/usr", ro, fs_all) < 0)
		failed = "/usr";
	else if (ll_rule(rs, "/etc/ld.so.cache", LANDLOCK_ACCESS_FS_READ_FILE, fs_all) < 0)
		failed = "/etc/ld.so.cache";
	else if (ll_rule(rs, "/dev/null", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE,
	             fs_all) < 0)
		failed = "/dev/null";
	else if (ll_rule(rs, "/dev/urandom", LANDLOCK_ACCESS_FS_READ_FILE, fs_all) < 0 ||
	    ll_rule(rs, "/dev/random", LANDLOCK_ACCESS_FS_READ_FILE, fs_all) < 0 ||
	    ll_rule(rs, "/dev/zero", LANDLOCK_ACCESS_FS_READ_FILE, fs_all) < 0)
		failed = "/dev";
	else if ((for_exec || sb->valgrind) && ll_rule(rs, "/proc", LL_FS_READ, fs_all) < 0)
		failed = "/proc";
	else if (sb->proc_self && ll_rule(rs, "/proc/self", LL_FS_READ, fs_all) < 0)
		failed = "/proc/self";
	else if (ll_rule(rs, sb->dir_real, rw_dir, fs_all) < 0)
		failed = sb->dir_real;
	for (int k = 0; !failed && k < sb->nro; k++)
		if (ll_rule(rs, sb->ro[k], ro, fs_all) < 0)
			failed = sb->ro[k];
	for (int k = 0; !failed && k < sb->nrw; k++)
		if (ll_rule(rs, sb->rw[k],
		        LL_FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_MAKE_REG |
		            LL_FS_TRUNCATE,
		        fs_all) < 0)
			failed = sb->rw[k];
	if (failed) {
		snprintf(err, errsize, "sandbox: landlock: rule for %.200s: %s", failed, strerror(errno));
		close(rs);
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
		snprintf(err, errsize, "sandbox: landlock: restrict_self: %s", strerror(errno));
		close(rs);
		return -1;
	}
	close(rs);
	sb->applied |= SANDBOX_LANDLOCK;
	char abibuf[16];
	snprintf(abibuf, sizeof(abibuf), "%d", abi);
	sandbox_note(sb, "landlock(abi %s) ", abibuf, "");
	return 0;
}

/* ---- capabilities ---- */

static int sandbox_caps(struct sandbox *sb, char *err, size_t errsize)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	/* The bounding set first (dropping needs CAP_SETPCAP, still held),
	 * so that no exec could give anything back. */
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL)
			break;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(err, errsize, "sandbox: caps: %s", strerror(errno));
		return -1;
	}
	sb->applied |= SANDBOX_CAPS;
	sandbox_note(sb, "caps ", "", "");
	return 0;
}

/* ---- seccomp ---- */

/* Refused whatever their arguments. */
/* clang-format off */
static const char *const seccomp_denied[] = {
	/* network */
	"socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
	"sendto", "sendmsg", "sendmmsg", "recvfrom", "recvmsg", "recvmmsg", "setsockopt",
	/* new programs and processes (clone: see below) */
	"execve", "execveat", "fork", "vfork",
	/* other processes */
	"ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp",
	"pidfd_open", "pidfd_send_signal", "pidfd_getfd", "setpgid", "ioprio_set",
	/* the system */
	"mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "reboot",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
	"io_uring_register", "keyctl", "add_key", "request_key", "acct", "swapon",
	"swapoff", "sethostname", "setdomainname", "settimeofday", "clock_settime",
	"clock_adjtime", "adjtimex", "mknod", "mknodat", "iopl", "ioperm", "quotactl",
	"name_to_handle_at", "open_by_handle_at", "syslog", "vhangup", "uselib",
	"fanotify_init", "personality", "capset", "fsopen", "fsmount", "fsconfig",
	"move_mount", "open_tree", "fspick", "mount_setattr", "lookup_dcookie",
};
/* clang-format on */

/* Without landlock: the filesystem is read-only through these. */
/* clang-format off */
static const char *const seccomp_fs_denied[] = {
	"creat", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir",
	"mkdirat", "rmdir", "link", "linkat", "symlink", "symlinkat", "chmod",
	"fchmod", "fchmodat", "chown", "fchown", "fchownat", "lchown", "truncate",
	"utime", "utimes", "utimensat", "futimesat", "setxattr", "lsetxattr",
	"fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
};
/* clang-format on */

static int seccomp_deny(
    scmp_filter_ctx ctx, const char *name, int err, unsigned n, const struct scmp_arg_cmp *cmp)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR)
		return 0; /* not on this architecture */
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(err), nr, n, cmp);
}

/*
 * The filter's parts: SECCOMP_SHARED, what is the same for every process
 * (a fork server's parent installs it once and each child inherits it:
 * the kernel's filter checks and JIT, and libseccomp's compile, cost
 * ~0.5 ms a process), and SECCOMP_OWN, what names this process or must
 * not bind the fork server itself (no new processes, signals to itself
 * only, read-only files), a small filter each child adds.
 */
enum { SECCOMP_SHARED = 1, SECCOMP_OWN = 2, SECCOMP_ALL = 3 };

/* The filter of `part` for a process whose pid is `self`, in *out (released by the caller). */
static int seccomp_build(scmp_filter_ctx *out, int fs_readonly, int part, uint32_t self)
{
	scmp_filter_ctx ctx;
	int rc = 0;
	size_t k;

	if (!(*out = ctx = seccomp_init(SCMP_ACT_ALLOW)))
		return -ENOMEM;
	/* Foreign system call ABIs (int 0x80, x32) get no second chance. */
	seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	for (k = 0;
	     rc == 0 && (part & SECCOMP_SHARED) && k < sizeof(seccomp_denied) / sizeof(seccomp_denied[0]);
	     k++)
		rc = seccomp_deny(ctx, seccomp_denied[k], EPERM, 0, NULL);
	/* Threads may be made, processes not; clone3 hides its flags in
	 * memory, so it is "not implemented" and glibc falls back to clone. */
	struct scmp_arg_cmp no_thread = SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
	if (rc == 0 && (part & SECCOMP_OWN))
		rc = seccomp_deny(ctx, "clone", EPERM, 1, &no_thread);
	if (rc == 0 && (part & SECCOMP_SHARED))
		rc = seccomp_deny(ctx, "clone3", ENOSYS, 0, NULL);
	/* Signals to this process only: kill(0) and kill(-1) would reach the
	 * daemon (same process group, same user). */
	struct scmp_arg_cmp other = SCMP_A0_32(SCMP_CMP_NE, self);
	static const char *const signalling[] = { "kill", "tkill", "tgkill", "rt_sigqueueinfo",
		"rt_tgsigqueueinfo" };
	for (k = 0; rc == 0 && (part & SECCOMP_OWN) && k < sizeof(signalling) / sizeof(signalling[0]); k++)
		rc = seccomp_deny(ctx, signalling[k], EPERM, 1, &other);
	/* Limits and scheduling of this process only (pid 0). */
	struct scmp_arg_cmp a0_other = SCMP_A0_32(SCMP_CMP_NE, 0);
	struct scmp_arg_cmp a1_other = SCMP_A1_32(SCMP_CMP_NE, 0);
	/* clang-format off */
	static const char *const self_only[] = {
		"prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam",
		"sched_setattr", "migrate_pages", "move_pages",
	};
	/* clang-format on */
	for (k = 0; rc == 0 && (part & SECCOMP_SHARED) && k < sizeof(self_only) / sizeof(self_only[0]); k++)
		rc = seccomp_deny(ctx, self_only[k], EPERM, 1, &a0_other);
	if (rc == 0 && (part & SECCOMP_SHARED))
		rc = seccomp_deny(ctx, "setpriority", EPERM, 1, &a1_other);
	/* Typing into a terminal someone else reads. */
	struct scmp_arg_cmp sti = SCMP_A1_32(SCMP_CMP_EQ, TIOCSTI);
	if (rc == 0 && (part & SECCOMP_SHARED))
		rc = seccomp_deny(ctx, "ioctl", EPERM, 1, &sti);
	/* The fork server empties the private folder after a crash. */
	if (fs_readonly && (part & SECCOMP_OWN)) {
		static const struct {
			const char *name;
			unsigned arg;
		} opens[] = {
			{ "open", 1 },
			{ "openat", 2 },
		};
		static const unsigned long wflags[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND };
		for (k = 0; rc == 0 && k < sizeof(seccomp_fs_denied) / sizeof(seccomp_fs_denied[0]); k++)
			rc = seccomp_deny(ctx, seccomp_fs_denied[k], EACCES, 0, NULL);
		for (k = 0; rc == 0 && k < 2; k++)
			for (size_t f = 0; rc == 0 && f < sizeof(wflags) / sizeof(wflags[0]); f++) {
				struct scmp_arg_cmp c = { opens[k].arg, SCMP_CMP_MASKED_EQ, wflags[f],
					wflags[f] };
				rc = seccomp_deny(ctx, opens[k].name, EACCES, 1, &c);
			}
		if (rc == 0)
			rc = seccomp_deny(ctx, "openat2", ENOSYS, 0, NULL);
	}
	return rc;
}

/*
 * A fork server's children each add SECCOMP_OWN, which differs between
 * them only in the pid it compares with.  libseccomp's compile in every
 * child (its allocations dirty pages the fork shares: a copy each) was
 * ~3 of the ~12 ms of CPU a crash cost, so the parent compiles it once,
 * twice with two pids that are no real pid: the instructions where the
 * two programs differ are the pid's, and a child patches in its own.
 */
#define SECCOMP_PID_A 0x7ffffff1u
#define SECCOMP_PID_B 0x7ffffff2u

/* ctx's BPF program into a malloc'd array; its length, or -1. */
static long seccomp_program(scmp_filter_ctx ctx, struct sock_filter **prog)
{
	int fd = memfd_create("phpcmp-seccomp", MFD_CLOEXEC);
	off_t size;
	long n = -1;

	*prog = NULL;
	if (fd < 0)
		return -1;
	if (seccomp_export_bpf(ctx, fd) == 0 && (size = lseek(fd, 0, SEEK_END)) > 0 &&
	    size % (off_t)sizeof(struct sock_filter) == 0 &&
	    size / (off_t)sizeof(struct sock_filter) <= BPF_MAXINSNS &&
	    (*prog = malloc((size_t)size)) != NULL && pread(fd, *prog, (size_t)size, 0) == size)
		n = (long)(size / (off_t)sizeof(struct sock_filter));
	close(fd);
	if (n < 0) {
		free(*prog);
		*prog = NULL;
	}
	return n;
}

/* The children's SECCOMP_OWN, compiled here; left NULL (each child compiles its own) on any doubt. */
static void seccomp_precompile(struct sandbox *sb, int fs_readonly)
{
	static const uint32_t pids[3] = { SECCOMP_PID_A, SECCOMP_PID_B, 0 };
	struct sock_filter *p[3] = { NULL, NULL, NULL };
	long n[3] = { -1, -1, -1 }, nself = 0;

	for (int v = 0; v < 3; v++) {
		scmp_filter_ctx ctx = NULL;
		if (seccomp_build(&ctx, fs_readonly, SECCOMP_OWN, v < 2 ? pids[v] : (uint32_t)getpid()) == 0)
			n[v] = seccomp_program(ctx, &p[v]);
		seccomp_release(ctx);
	}
	int ok = n[0] > 0 && n[0] == n[1] && n[0] == n[2];
	for (long i = 0; ok && i < n[0]; i++) {
		struct sock_filter *a = &p[0][i], *b = &p[1][i];
		if (a->code == b->code && a->jt == b->jt && a->jf == b->jf && a->k == b->k)
			continue;
		ok = a->code == b->code && a->jt == b->jt && a->jf == b->jf && a->k == SECCOMP_PID_A &&
		    b->k == SECCOMP_PID_B && nself < SANDBOX_OWN_SELF_MAX;
		if (ok) {
			sb->own_self[nself++] = (unsigned short)i;
			b->k = (uint32_t)getpid();
		}
	}
	/* Patched with this process's pid, it is what libseccomp makes for it. */
	ok = ok && nself > 0 && memcmp(p[1], p[2], (size_t)n[0] * sizeof(struct sock_filter)) == 0;
	free(p[1]);
	free(p[2]);
	if (!ok) {
		free(p[0]);
		return;
	}
	sb->own_prog = p[0];
	sb->own_len = (unsigned short)n[0];
	sb->own_nself = (int)nself;
	sb->own_readonly = fs_readonly;
}

/* In a child: the parent's program with this child's pid, as seccomp_load would load it. */
static int seccomp_load_own(struct sandbox *sb)
{
	const uint32_t self = (uint32_t)getpid();
	for (int i = 0; i < sb->own_nself; i++)
		sb->own_prog[sb->own_self[i]].k = self;
	struct sock_fprog fprog = { .len = sb->own_len, .filter = sb->own_prog };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0)
		return -errno;
	return 0;
}

static int sandbox_seccomp(struct sandbox *sb, int fs_readonly, int part, char *err, size_t errsize)
{
	scmp_filter_ctx ctx = NULL;
	int rc;

	if (part == SECCOMP_OWN && sb->own_prog != NULL && sb->own_readonly == fs_readonly)
		rc = seccomp_load_own(sb);
	else if ((rc = seccomp_build(&ctx, fs_readonly, part, (uint32_t)getpid())) == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0) {
		snprintf(err, errsize, "sandbox: seccomp: %s", strerror(-rc));
		return -1;
	}
	if (part == SECCOMP_SHARED) {
		sb->seccomp_shared = 1;
		return 0;
	}
	sb->applied |= SANDBOX_SECCOMP;
	sandbox_note(sb, fs_readonly ? "seccomp(+read-only files) " : "seccomp ", "", "");
	return 0;
}

/* ---- putting it together ---- */

static int sandbox_layers(struct sandbox *sb, unsigned layers, int for_exec, char *err, size_t errsize)
{
	int ll = 1; /* 1: landlock not in force */

	if (layers && sandbox_open_dir(sb, err, errsize) < 0)
		return -1;
	if (layers & SANDBOX_NETNS)
		sandbox_netns(sb);
	if (layers & SANDBOX_LANDLOCK) {
		if ((ll = sandbox_landlock(sb, for_exec, err, errsize)) < 0)
			return -1;
		sb->landlock_off = ll == 1;
	}
	if ((layers & SANDBOX_CAPS) && sandbox_caps(sb, err, errsize) < 0)
		return -1;
	/* Landlock asked for but missing: seccomp keeps the files read-only
	 * instead -- except under valgrind, which writes callgrind's dumps.
	 * (Landlock may have been applied by an earlier call: a fork server's.) */
	if (layers & SANDBOX_SECCOMP)
		sb->files_readonly = (sb->layers & SANDBOX_LANDLOCK) && sb->landlock_off && !sb->valgrind;
	if ((layers & SANDBOX_SECCOMP) &&
	    sandbox_seccomp(
	        sb, sb->files_readonly, sb->seccomp_shared ? SECCOMP_OWN : SECCOMP_ALL, err, errsize) < 0)
		return -1;
	if ((layers & SANDBOX_RLIMITS) && sandbox_rlimits(sb, err, errsize) < 0)
		return -1;
	return 0;
}

int sandbox_apply(struct sandbox *sb, char *err, size_t errsize)
{
	unsigned layers = sb->layers & ~sb->inherited & ~(unsigned)SANDBOX_PHP & ~sb->deferred;

	sb->valgrind = RUNNING_ON_VALGRIND ? 1 : 0;
	sb->report[0] = '\0';
	for (int i = 0; i < SANDBOX_NLAYERS; i++)
		if (sb->inherited & sb->layers & (1u << i))
			sandbox_note(sb, "%s(before valgrind) ", sandbox_layer_name(i), "");
	sb->applied = sb->inherited & sb->layers;
	if (sb->valgrind && (layers & SANDBOX_LANDLOCK)) {
		/* Valgrind 3.19 knows neither landlock's system calls nor how
		 * to pass them on: only the loader before it can apply it
		 * (--sandbox-exec landlock, then --sandbox-inherited). */
		layers &= ~(unsigned)SANDBOX_LANDLOCK;
		sandbox_note(sb, "landlock(off: under valgrind) ", "", "");
	}
	if (sandbox_layers(sb, layers, 0, err, errsize) < 0)
		return -1;
	/* A fork server: the shared part of seccomp now, once for every child. */
	if (sb->deferred & sb->layers & ~sb->inherited & SANDBOX_SECCOMP) {
		sb->files_readonly = (sb->layers & SANDBOX_LANDLOCK) && sb->landlock_off && !sb->valgrind;
		if (sandbox_seccomp(sb, sb->files_readonly, SECCOMP_SHARED, err, errsize) < 0)
			return -1;
		seccomp_precompile(sb, sb->files_readonly);
	}
	if (sb->layers & SANDBOX_PHP) {
		sb->applied |= SANDBOX_PHP;
		/* Named last, after the layers a fork server's child adds. */
		if (!(sb->deferred & sb->layers & ~sb->inherited & ~(unsigned)SANDBOX_PHP))
			sandbox_note(sb, "php", "", "");
	}
	size_t n = strlen(sb->report);
	while (n > 0 && sb->report[n - 1] == ' ')
		sb->report[--n] = '\0';
	if (!sb->layers)
		snprintf(sb->report, sizeof(sb->report), "none");
	return 0;
}

int sandbox_apply_deferred(struct sandbox *sb, char *err, size_t errsize)
{
	unsigned layers = sb->deferred & sb->layers & ~sb->inherited & ~(unsigned)SANDBOX_PHP;
	size_t n = strlen(sb->report);

	if (!layers)
		return 0;
	if (n > 0 && n + 1 < sizeof(sb->report)) {
		sb->report[n++] = ' ';
		sb->report[n] = '\0';
	}
	if (sandbox_layers(sb, layers, 0, err, errsize) < 0)
		return -1;
	if (sb->layers & SANDBOX_PHP)
		sandbox_note(sb, "php", "", "");
	n = strlen(sb->report);
	while (n > 0 && sb->report[n - 1] == ' ')
		sb->report[--n] = '\0';
	return 0;
}

int sandbox_exec(struct sandbox *sb, char **argv, char *err, size_t errsize)
{
	if (sandbox_layers(sb, sb->before_exec, 1, err, errsize) < 0)
		return -1;
	/* What is in force, for the command to report in its hello
	 * (--sandbox-report-env): a reference's node cannot see it otherwise. */
	size_t n = strlen(sb->report);
	while (n > 0 && sb->report[n - 1] == ' ')
		sb->report[--n] = '\0';
	if (sb->report_env != NULL)
		setenv(sb->report_env, sb->before_exec ? sb->report : "none", 1);
	/* Valgrind writes its client's /proc/self stand-ins to $TMPDIR. */
	if (sb->dirfd >= 0)
		setenv("TMPDIR", sb->dir_real, 1);
	execvp(argv[0], argv);
	snprintf(err, errsize, "sandbox: cannot run %.200s: %s", argv[0], strerror(errno));
	return -1;
}

/* ---- the probe ---- */

static volatile sig_atomic_t probe_fd = -1;

/* A signal during the probe: say so on the protocol socket, then die of it. */
static void probe_died(int sig)
{
	static const char text[] = "sandbox: the worker died of signal NN running the probe case "
	                           "under the sandbox (see docs/sandbox.md to loosen a layer)";
	unsigned char frame[PROTO_HEADER_SIZE + 6 + sizeof(text) - 1];
	char msg[sizeof(text)];
	uint32_t len = sizeof(text) - 1;
	memcpy(msg, text, sizeof(text));
	char *nn = strstr(msg, "NN");
	nn[0] = (char)('0' + sig / 10 % 10);
	nn[1] = (char)('0' + sig % 10);
	/* The frame by hand: nothing here may allocate. */
	uint32_t magic = PROTO_MAGIC, plen = len + 6;
	uint16_t version = PROTO_VERSION, type = PROTO_FAIL, tag = TAG_MESSAGE;
	memcpy(frame, &magic, 4);
	memcpy(frame + 4, &version, 2);
	memcpy(frame + 6, &type, 2);
	memcpy(frame + 8, &plen, 4);
	memcpy(frame + 12, &tag, 2);
	memcpy(frame + 14, &len, 4);
	memcpy(frame + 18, msg, len);
	if (probe_fd >= 0 && write(probe_fd, frame, sizeof(frame)) < 0) {
		/* nobody to tell */
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

int sandbox_selftest(struct sandbox *sb, const struct core_api *api, char *err, size_t errsize)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS, SIGXCPU };
	/* A float formatted, a UTF-8 string, an array, and with the php layer
	 * (sys_get_temp_dir() is then the private folder) a 2-byte write
	 * there, which only the read-only fallback refuses.  Judged by what
	 * the sandbox can break — the case ran to its end, the file is there
	 * (or, read-only, is not) — never by json_encode's output: the build
	 * under test may well encode wrongly (a candidate whose encoder drops
	 * a quote is a result, not a worker that cannot start), so the value
	 * returned is a plain int, and nothing of the encoder's is compared. */
	const int php = (sb->applied & SANDBOX_PHP) != 0;
	const char *code = php ? "count([1.5, (string)1.5, \"\\u{e9}\", strlen(\"\\u{e9}\")]) + "
	                         "(int)@file_put_contents(sys_get_temp_dir() . '/phpcmp-probe', 'ok')"
	                       : "count([1.5, (string)1.5, \"\\u{e9}\", strlen(\"\\u{e9}\")])";
	const int want_file = php && !sb->files_readonly;
	char probe_path[PATH_MAX];
	struct stat probe_st;
	int file_ok = 1;
	struct proto_buf req, out;
	struct proto_msg msg, res;
	struct sigaction sa, old[sizeof(sigs) / sizeof(sigs[0])];
	int rc = -1;

	if (!sb->layers)
		return 0;
	proto_buf_init(&req);
	proto_buf_init(&out);
	proto_buf_add_str(&req, TAG_CODE, code);
	proto_buf_add_int(&req, TAG_FLAGS, 0);
	proto_buf_add_int(&req, TAG_DEPTH, 512);
	char *payload = malloc(req.len);
	if (!payload || req.failed) {
		free(payload);
		snprintf(err, errsize, "sandbox: out of memory for the probe");
		goto out;
	}
	memcpy(payload, req.data, req.len);
	if (proto_decode(&msg, PROTO_CASE, payload, req.len) < 0) {
		snprintf(err, errsize, "sandbox: cannot build the probe");
		goto out;
	}
	/* Its own stack: under a tight address-space limit the probe may die
	 * of a stack that could not grow. */
	static char altstack[64 << 10];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) }, old_ss;
	sigaltstack(&ss, &old_ss);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_died;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	probe_fd = 3;
	for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
		sigaction(sigs[k], &sa, &old[k]);
	sandbox_case_begin(sb);
	api->run_case(&msg, &out);
	if (php) {
		int there;
		snprintf(probe_path, sizeof probe_path, "%s/phpcmp-probe", sb->dir);
		there = stat(probe_path, &probe_st) == 0 && S_ISREG(probe_st.st_mode) &&
		    probe_st.st_size == 2;
		file_ok = there == want_file;
	}
	sandbox_case_end(sb);
	for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
		sigaction(sigs[k], &old[k], NULL);
	sigaltstack(&old_ss, NULL);
	probe_fd = -1;
	proto_msg_release(&msg);
	char *copy = malloc(out.len ? out.len : 1);
	if (!copy || out.failed) {
		free(copy);
		snprintf(err, errsize, "sandbox: the probe's result is too large");
		goto out;
	}
	memcpy(copy, out.data, out.len);
	if (proto_decode(&res, PROTO_RESULT, copy, out.len) < 0) {
		snprintf(err, errsize, "sandbox: the probe's result is malformed");
		goto out;
	}
	const struct proto_field *o = proto_get(&res, TAG_OUTPUT);
	const struct proto_field *f = proto_get(&res, TAG_FAILURE);
	if (proto_get_int(&res, TAG_STATUS, PROTO_STATUS_ERROR) != PROTO_STATUS_OK || !o || !file_ok) {
		snprintf(err, errsize,
		    "sandbox: the probe case failed under the sandbox (%s): %.*s%s%.*s%s "
		    "(see docs/sandbox.md to loosen a layer)",
		    sb->report, f ? (int)(f->len > 300 ? 300 : f->len) : 0, f ? f->data : "",
		    o ? "output " : "no output", o ? (int)(o->len > 100 ? 100 : o->len) : 0, o ? o->data : "",
		    file_ok         ? ""
		        : want_file ? "; its 2-byte write into the private folder failed"
		                    : "; it wrote into the private folder, which should be read-only");
	} else {
		rc = 0;
	}
	proto_msg_release(&res);
out:
	proto_buf_release(&req);
	proto_buf_release(&out);
	return rc;
}
