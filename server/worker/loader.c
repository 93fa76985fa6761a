/*
 * phpcmp-worker: the worker process the daemon starts (fork+exec) once per
 * build.  It holds no PHP code itself: it dlopens the build's libphp, then
 * that build's compiled core (core.c, linked against libphp.so, which the
 * dynamic linker matches by SONAME to the library already loaded), and
 * serves PROTO_CASE frames on fd 3 until the daemon closes it.
 *
 *   phpcmp-worker --lib LIBPHP.so --core CORE.so [--memory-limit 128M] [--ini k=v]...
 *                 [--dump-prefix FILE]   (measuring workers, run under callgrind)
 *                 [--sandbox LAYERS --sandbox-dir DIR --limit-... N]  (sandbox.h)
 *   phpcmp-worker --sandbox-exec LAYERS [sandbox options] -- COMMAND...
 *       applies those layers, then runs COMMAND (valgrind, for measuring;
 *       node, for a reference runtime, with --sandbox-report-env NAME: the
 *       layers in force in NAME, for its hello)
 *   phpcmp-worker --lib LIBPHP.so --core CORE.so --eval CODE [--flags N] [--depth N]
 *       runs one case with no daemon and prints json_encode's output: for
 *       debugging a build, and for measuring by hand under callgrind.
 *
 * Given a progress page (--page-fd, proto.h), the loader is a fork server:
 * it starts PHP once, applies the sandbox layers that allow fork (netns,
 * landlock, caps), then forks the child that serves frames, which applies
 * the rest (seccomp, which forbids fork, and rlimits) and says hello.  A
 * child that dies of a signal is reported to the daemon (PROTO_DIED) and a
 * fresh one forked from the initialised parent at once: a crashing case
 * costs a fork, not a new process that loads and starts PHP.  The child
 * dies with the parent (PR_SET_PDEATHSIG); a child that exits, exits the
 * parent too (the daemon closed the socket, or the child could not start).
 *
 * stdin, stdout and stderr are the daemon's business (it points them at
 * /dev/null): a case writing to php://stdout can't corrupt the protocol.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <valgrind/valgrind.h>

#include "clock.h"
#include "core.h"
#include "sandbox.h"
#include "sanitizer.h"

#define PROTO_FD 3

static void fail(const char *fmt, const char *arg)
{
	char msg[1024];
	struct proto_buf b;
	snprintf(msg, sizeof(msg), fmt, arg ? arg : "");
	proto_buf_init(&b);
	proto_buf_add_str(&b, TAG_MESSAGE, msg);
	proto_send(PROTO_FD, PROTO_FAIL, &b);
	proto_buf_release(&b);
	fprintf(stderr, "phpcmp-worker: %s\n", msg);
	_exit(1);
}

/* --eval: one case, its output on stdout, its failure on stderr. */
static int eval_case(const struct core_api *api, const char *code, int64_t flags, int64_t depth)
{
	struct proto_buf req, out;
	struct proto_msg msg, res;
	proto_buf_init(&req);
	proto_buf_init(&out);
	proto_buf_add_str(&req, TAG_CODE, code);
	proto_buf_add_int(&req, TAG_FLAGS, flags);
	proto_buf_add_int(&req, TAG_DEPTH, depth);
	char *payload = malloc(req.len ? req.len : 1);
	if (!payload || req.failed)
		return 2;
	memcpy(payload, req.data, req.len);
	if (proto_decode(&msg, PROTO_CASE, payload, req.len) < 0)
		return 2;
	api->run_case(&msg, &out);
	char *copy = malloc(out.len ? out.len : 1);
	if (!copy)
		return 2;
	memcpy(copy, out.data, out.len);
	if (proto_decode(&res, PROTO_RESULT, copy, out.len) < 0)
		return 2;
	const struct proto_field *f;
	if ((f = proto_get(&res, TAG_PRINTED)) && f->len)
		fwrite(f->data, 1, f->len, stdout);
	if ((f = proto_get(&res, TAG_OUTPUT))) {
		fwrite(f->data, 1, f->len, stdout);
		fputc('\n', stdout);
	} else {
		fputs("false\n", stdout);
	}
	if ((f = proto_get(&res, TAG_FAILURE)))
		fwrite(f->data, 1, f->len, stderr);
	int status = (int)proto_get_int(&res, TAG_STATUS, PROTO_STATUS_ERROR);
	proto_msg_release(&msg);
	proto_msg_release(&res);
	proto_buf_release(&req);
	proto_buf_release(&out);
	api->shutdown();
	return status == PROTO_STATUS_OK ? 0 : 1;
}

/*
 * A fork server learns of a child's death early: the child's handler of
 * the crash signals names itself and the signal on the progress page,
 * wakes the fork server (a futex on the page) and dies of the same signal,
 * so the spare takes over while the kernel still tears the dead child
 * down (~1-2 ms of the crash's path on a 2-core VM: the time from the
 * fault to waitpid's return).  The fork server's SIGCHLD wakes it too: a
 * child killed outright (SIGKILL: a timeout, an rlimit) is waited for as
 * before.  No descriptor: the page is already shared.
 */
static struct proto_page *notice_page;

static void notice_wake(void)
{
	__atomic_add_fetch(&notice_page->notice_seq, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &notice_page->notice_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static void notice_sigchld(int sig)
{
	int saved = errno;
	(void)sig;
	notice_wake();
	errno = saved;
}

/* Crash signals whose default action ends the process: said once, then taken as before. */
static const int notice_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

static void notice_crash(int sig)
{
	static volatile sig_atomic_t said;
	if (!said) {
		said = 1;
		notice_page->notice_sig = sig;
		__atomic_store_n(&notice_page->notice_pid, (int32_t)getpid(), __ATOMIC_SEQ_CST);
		notice_wake();
	}
	signal(sig, SIG_DFL);
	raise(sig); /* blocked here: delivered, and fatal, on return */
}

/* In a child about to serve: its crash signals say so first (not a sanitizer's: its own handler reports). */
static void notice_install(void)
{
	static char altstack[16 << 10]; /* a stack overflow's SIGSEGV needs one */
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = notice_crash;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t k = 0; k < sizeof(notice_sigs) / sizeof(notice_sigs[0]); k++)
		sigaddset(&sa.sa_mask, notice_sigs[k]);
	if (sigaltstack(&ss, NULL) < 0)
		return;
	for (size_t k = 0; k < sizeof(notice_sigs) / sizeof(notice_sigs[0]); k++)
		sigaction(notice_sigs[k], &sa, NULL);
}

/*
 * Wait for the child pid to die: 1 with *status made from the signal its
 * handler named (it is still being torn down: reap it later), 0 with the
 * status waitpid gave.
 */
static int notice_wait(pid_t pid, int *status)
{
	for (;;) {
		int32_t seq = __atomic_load_n(&notice_page->notice_seq, __ATOMIC_SEQ_CST);
		pid_t got = waitpid(pid, status, WNOHANG);
		if (got == pid)
			return 0;
		if (got < 0 && errno != EINTR)
			fail("fork server: waitpid: %s", strerror(errno));
		int sig = notice_page->notice_sig;
		if (__atomic_load_n(&notice_page->notice_pid, __ATOMIC_SEQ_CST) == (int32_t)pid && sig > 0 &&
		    sig < 128) {
			notice_page->notice_pid = 0;
			*status = sig; /* as waitpid says it: killed by sig, no core (RLIMIT_CORE 0) */
			return 1;
		}
		/* Woken by a notice or a SIGCHLD (seq moved), or by a signal. */
		syscall(SYS_futex, &notice_page->notice_seq, FUTEX_WAIT, seq, NULL, NULL, 0);
	}
}

/* Serve frames on PROTO_FD until the daemon closes it: 0, or 1 when a
 * fresh process is to take over: a sanitizer reported more than a bad
 * read during the last request (the process is not to be trusted any
 * more), or a fork server's child was asked to renew. */
static int serve(const struct core_api *api, struct sandbox *sb, struct proto_page *page, int forked)
{
	int poisoned = 0;
	struct proto_buf out;
	proto_buf_init(&out);
	for (;;) {
		struct proto_msg req;
		int r = proto_recv(PROTO_FD, &req, -1);
		if (r <= 0)
			break; /* the daemon closed the socket (or sent garbage): done */
		if (page != NULL)
			page->busy = 1;
		proto_buf_release(&out);
		if (req.type == PROTO_RENEW && forked) {
			/* The next request on a process that has run no case (the
			 * reducer's confirmation): this child leaves, and the spare,
			 * forked from a parent that never runs cases, takes over.  (A
			 * worker that is no fork server answers PROTO_FAIL below: the
			 * daemon stops it instead.) */
			proto_msg_release(&req);
			int sent = proto_send(PROTO_FD, PROTO_RESULT, &out);
			if (page != NULL)
				page->busy = 0;
			proto_buf_release(&out);
			return sent == 0;
		}
		int type = PROTO_RESULT;
		sandbox_case_begin(sb);
		if (req.type == PROTO_CASE)
			api->run_case(&req, &out);
		else if ((type = api->handle(&req, &out)) == 0) {
			type = PROTO_FAIL;
			proto_buf_add_str(&out, TAG_MESSAGE, "unexpected message type");
		}
		/* A folder that cannot be emptied would hand this case's files to
		 * the next: say so and exit; the daemon starts another worker and
		 * removes the folder.  (In a fork server the child's exit, not a
		 * signal, exits the parent too.) */
		int retire = sandbox_case_end(sb) < 0;
		if (retire)
			proto_buf_add_int(&out, TAG_RETIRE, 1);
		/* A memory error, even with the right output, is the answer's too;
		 * one that may have broken the heap ends this child. */
		poisoned = sanitizer_take(&out) == 1;
		proto_msg_release(&req);
		int sent = proto_send(PROTO_FD, out.failed ? PROTO_FAIL : type, &out);
		if (page != NULL)
			page->busy = 0;
		if (sent < 0 || retire || poisoned)
			break;
	}
	proto_buf_release(&out);
	return poisoned;
}

static void say_hello(const struct core_api *api, struct sandbox *sb)
{
	struct proto_buf out;
	proto_buf_init(&out);
	api->hello(&out);
	proto_buf_add_str(&out, TAG_SANDBOX, sb->report);
	if (proto_send(PROTO_FD, PROTO_HELLO, &out) < 0)
		_exit(1);
	proto_buf_release(&out);
}

/*
 * The fork server's child: the rest of the sandbox, then it waits on `go`
 * (a spare, forked before it is needed), then frames.
 */
static void fork_child(const struct core_api *api, struct sandbox *sb, struct proto_page *page, pid_t parent,
    int go, int notices)
{
	char err[512] = "", byte;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	sanitizer_child();
	if (sandbox_apply_deferred(sb, err, sizeof(err)) < 0)
		fail("%s", err);
	/* The parent's go (or its end: then PDEATHSIG is on its way). */
	while (read(go, &byte, 1) < 0 && errno == EINTR)
		;
	close(go);
	signal(SIGCHLD, SIG_DFL);
	if (notices)
		notice_install();
	page->child_pid = (int32_t)getpid();
	page->ready_ms = clock_ms();
	if (!page->hello) {
		if (sandbox_selftest(sb, api, err, sizeof(err)) < 0)
			fail("%s", err);
		say_hello(api, sb);
		page->hello = 1;
	}
	/* Answered and to be replaced (a heap ASan found broken, or renewed): no shutdown. */
	if (serve(api, sb, page, 1))
		_exit(PROTO_EXIT_REPLACE);
	api->shutdown();
	exit(0);
}

/* A spare child, forked now, waiting for the byte the parent writes on go[1] (it keeps
 * go[0] open until it wrote: a spare that died makes no SIGPIPE). */
static pid_t fork_spare(
    const struct core_api *api, struct sandbox *sb, struct proto_page *page, int go[2], int notices)
{
	int *p = go;
	if (pipe(p) < 0)
		fail("fork server: pipe: %s", strerror(errno));
	pid_t self = getpid(), pid = fork();
	if (pid < 0)
		fail("fork server: fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[1]);
		fork_child(api, sb, page, self, p[0], notices);
	}
	return pid;
}

/* Let the spare go: it is the child now. */
static pid_t fork_go(struct proto_page *page, pid_t spare, int go[2])
{
	/* A spare that died waiting: the next waitpid says so at once. */
	if (write(go[1], "g", 1) < 0)
		fail("fork server: cannot start a child: %s", strerror(errno));
	close(go[0]);
	close(go[1]);
	page->child_pid = (int32_t)spare;
	return spare;
}

/*
 * The next child is forked while the current one serves (a spare): when
 * one dies, the spare takes over at once -- its fork, sandbox and page
 * faults are off the crash's path -- and the next spare is forked once
 * the daemon has the PROTO_DIED.  The reducer's crashes and a generated
 * run's both come through here.
 */
static int fork_server(const struct core_api *api, struct sandbox *sb, struct proto_page *page, int notices)
{
	int go[2];
	struct sigaction sa;
	notice_page = page;
	page->notice_pid = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = notice_sigchld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	api->prefork();
	pid_t pid = fork_go(page, fork_spare(api, sb, page, go, notices), go), spare = -1, dying = 0;
	for (;;) {
		int status;
		/* The first child says hello before a spare is made: a child that
		 * cannot start costs no second fork. */
		if (spare < 0 && page->hello)
			spare = fork_spare(api, sb, page, go, notices);
		/* The child that said it died, now gone. */
		while (dying > 0 && waitpid(dying, &status, 0) < 0)
			if (errno != EINTR)
				fail("fork server: waitpid: %s", strerror(errno));
		dying = 0;
		int early = notice_wait(pid, &status);
		page->died_ms = clock_ms();
		page->died_ready_ms = page->ready_ms;
		page->child_pid = 0;
		/* A child that answered despite a sanitizer's report exits to be
		 * replaced: the spare takes over, nothing to say (its reply said it). */
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		if (page->hello && code == PROTO_EXIT_REPLACE) {
			if (spare < 0)
				spare = fork_spare(api, sb, page, go, notices);
			pid = fork_go(page, spare, go);
			spare = -1;
			continue;
		}
		/* The first child could not start (it said why), or a child exited
		 * between requests: the daemon closed the socket.  A child that
		 * exited in a request, whatever its exit code, is a death, as is
		 * one a sanitizer ended (exitcode PROTO_EXIT_SANITIZER) with a
		 * report waiting. */
		if (!page->hello ||
		    (!WIFSIGNALED(status) && !page->busy &&
		        !(code == PROTO_EXIT_SANITIZER && sanitizer_pending())))
			_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
		int busy = page->busy;
		page->busy = 0;
		pid_t dead = pid;
		if (early)
			dying = dead;
		if (spare < 0)
			spare = fork_spare(api, sb, page, go, notices);
		/* The spare may wake now: it reads no request before the
		 * PROTO_DIED below, which the daemon waits for. */
		pid = fork_go(page, spare, go);
		spare = -1;
		/* The child died mid-case (crash, timeout): what it left in the
		 * private folder must not reach the next child's cases.  A folder
		 * that cannot be emptied retires the worker (TAG_RETIRE): the
		 * daemon reaps it and removes the folder. */
		int retire = sandbox_case_end(sb) < 0;
		struct proto_buf b;
		proto_buf_init(&b);
		proto_buf_add_int(&b, TAG_DIED_STATUS, status);
		proto_buf_add_int(&b, TAG_DIED_BUSY, busy);
		proto_buf_add_int(&b, TAG_DIED_PID, dead);
		sanitizer_take(&b);
		if (retire)
			proto_buf_add_int(&b, TAG_RETIRE, 1);
		int rc = proto_send(PROTO_FD, PROTO_DIED, &b);
		proto_buf_release(&b);
		if (rc < 0 || retire)
			_exit(1);
	}
}

/* The worker's command line (the sandbox's own options go to sandbox_arg). */
struct loader_args {
	const char *lib, *core, *eval;
	int64_t flags, depth;
	char **exec_argv; /* after "--": a measuring worker's command */
	int page_fd;
};

static void loader_parse(
    int argc, char **argv, struct loader_args *a, struct core_options *opts, struct sandbox *sb)
{
	for (int i = 1; i < argc; i++) {
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--lib") && val)
			a->lib = argv[++i];
		else if (!strcmp(argv[i], "--core") && val)
			a->core = argv[++i];
		else if (!strcmp(argv[i], "--memory-limit") && val)
			opts->memory_limit = argv[++i];
		else if (!strcmp(argv[i], "--eval") && val)
			a->eval = argv[++i];
		else if (!strcmp(argv[i], "--flags") && val)
			a->flags = strtoll(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--depth") && val)
			a->depth = strtoll(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--dump-prefix") && val)
			opts->dump_prefix = argv[++i];
		else if (!strcmp(argv[i], "--page-fd") && val)
			a->page_fd = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ini") && val && opts->nini < CORE_MAX_INI)
			opts->ini[opts->nini++] = argv[++i];
		else if (!strcmp(argv[i], "--")) {
			a->exec_argv = argv + i + 1;
			break;
		} else {
			char serr[256];
			int r = sandbox_arg(sb, argc, argv, &i, serr, sizeof(serr));
			if (r < 0)
				fail("%s", serr);
			if (r == 0)
				fail("bad argument: %s", argv[i]);
		}
	}
}

/* libphp, then the worker core compiled against it; the core's API. */
static const struct core_api *loader_open(const char *lib, const char *core, void **libh, const char *sandbox)
{
	char why[1024];
	if (!(*libh = dlopen(lib, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(why, sizeof why, "%s (loaded inside the sandbox: %s)", dlerror(), sandbox);
		fail("cannot load the PHP library: %s", why);
	}
	void *handle = dlopen(core, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		snprintf(why, sizeof why, "%s (loaded inside the sandbox: %s)", dlerror(), sandbox);
		fail("cannot load the worker core: %s", why);
	}
	const struct core_api *(*get_api)(void) = (const struct core_api *(*)(void))dlsym(
	    handle, "phpcmp_core_api");
	if (!get_api)
		fail("the worker core has no phpcmp_core_api: %s", dlerror());
	const struct core_api *api = get_api();
	if (api->abi != CORE_ABI)
		fail("the worker core is stale (ABI mismatch); recompile it%s", NULL);
	return api;
}

/* The progress page the daemon shares on page_fd (-1: none). */
static struct proto_page *loader_page(int page_fd)
{
	if (page_fd < 0)
		return NULL;
	void *p = mmap(NULL, sizeof(struct proto_page), PROT_READ | PROT_WRITE, MAP_SHARED, page_fd, 0);
	close(page_fd);
	if (p == MAP_FAILED)
		fail("cannot map the progress page: %s", strerror(errno));
	struct proto_page *page = p;
	if (page->magic != PROTO_PAGE_MAGIC)
		fail("the progress page is not one%s", NULL);
	page->hello = 0;
	page->child_pid = 0;
	return page;
}

int main(int argc, char **argv)
{
	struct loader_args a = { .depth = 512, .page_fd = -1 };
	struct core_options opts = { .memory_limit = "128M" };
	struct sandbox sb;

	sandbox_init(&sb);
	loader_parse(argc, argv, &a, &opts, &sb);
	/* A measuring worker: the layers valgrind cannot apply, then valgrind. */
	if (sb.before_exec || a.exec_argv) {
		char serr[512];
		if (!a.exec_argv || !*a.exec_argv)
			fail("--sandbox-exec needs -- COMMAND%s", NULL);
		sandbox_exec(&sb, a.exec_argv, serr, sizeof(serr));
		fail("%s", serr);
	}
	/* Like callgrind's --callgrind-out-file, %p in the dump prefix is our pid. */
	char dump_prefix[4096];
	const char *pct = opts.dump_prefix ? strstr(opts.dump_prefix, "%p") : NULL;
	if (pct) {
		snprintf(dump_prefix, sizeof(dump_prefix), "%.*s%d%s", (int)(pct - opts.dump_prefix),
		    opts.dump_prefix, (int)getpid(), pct + 2);
		opts.dump_prefix = dump_prefix;
	}
	if (!a.lib || !a.core)
		fail("usage: phpcmp-worker --lib LIBPHP.so --core CORE.so%s", NULL);

	char err[512] = "";
	if (sandbox_php_ini(&sb, &opts, err, sizeof(err)) < 0)
		fail("%s", err);
	/* The progress page; a fork server only where it can fork (not under
	 * valgrind, which measures one process, nor for --eval). */
	struct proto_page *page = loader_page(a.page_fd);
	opts.page = page;
	int forking = page != NULL && !a.eval && !opts.dump_prefix && !RUNNING_ON_VALGRIND;
	/* rlimits wait for PHP to be up (a sanitizer's shadow memory is
	 * counted first); a fork server's children add seccomp's own part. */
	sb.deferred = forking ? SANDBOX_SECCOMP | SANDBOX_RLIMITS : SANDBOX_RLIMITS;
	/* A sanitizer's symbolizer lists this process's modules once libphp
	 * is in (sanitizer_setup): its own /proc entry stays readable. */
	sb.proc_self = sanitizer_present();
	/* The build's own code runs from the first dlopen on (its
	 * constructors, then module start-up): it starts inside the sandbox,
	 * never with the daemon's privileges (docs/sandbox.md). */
	if (sandbox_apply(&sb, err, sizeof(err)) < 0)
		fail("%s", err);
	void *libh;
	const struct core_api *api = loader_open(a.lib, a.core, &libh, sb.report);
	if (api->init(&opts, err, sizeof(err)) < 0)
		fail("PHP failed to start: %s", err);
	/* A sanitizer build: its reports into a buffer of ours, read back
	 * after each request (a fork server's children only). */
	long long reserved = 0;
	int sanitized = forking ? sanitizer_setup(libh, page, &reserved, err, sizeof(err)) : 0;
	if (sanitized < 0)
		fail("%s", err);
	/* limit-as bounds what the cases use, on top of the shadow memory. */
	if (sanitized > 0 && sb.as != SANDBOX_UNLIMITED)
		sb.as += reserved;
	/* PHP is up: the rlimits (a fork server's children apply theirs). */
	if (!forking && sandbox_apply_deferred(&sb, err, sizeof(err)) < 0)
		fail("%s", err);
	if (forking)
		return fork_server(api, &sb, page, !sanitized);
	if (sandbox_selftest(&sb, api, err, sizeof(err)) < 0)
		fail("%s", err);

	if (a.eval) {
		if (sb.layers)
			fprintf(stderr, "phpcmp-worker: sandbox: %s\n", sb.report);
		return eval_case(api, a.eval, a.flags, a.depth);
	}
	say_hello(api, &sb);
	serve(api, &sb, page, 0);
	api->shutdown();
	return 0;
}
