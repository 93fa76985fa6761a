/*
 * Workers, the daemon's side: one process per build, started with
 * posix_spawn (the daemon is multithreaded and never loads libphp itself),
 * fed one case at a time over a socketpair on the worker's fd 3.
 *
 * A worker that dies (a crash inside the encoder, say) or overruns the time
 * limit gives that case a crash/timeout result; it is started again on the
 * next case, after a backoff that grows while it keeps dying without
 * finishing a case.
 *
 * Each (non-measuring) worker gets a progress page (proto.h), a memfd
 * mapped here and in the worker, which makes the worker a fork server: a
 * case that kills the child serving cases comes back as PROTO_DIED from
 * its parent, which forks a fresh child at once, so the worker process
 * stays and the next case runs in about a millisecond.  Generated runs
 * read from the page how far a batch got (genrun.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "proto.h"

#define STARTUP_TIMEOUT_MS 15000
#define BACKOFF_MAX_MS 2000
#define RENEW_TIMEOUT_MS 5000 /* a renew is answered at once: only a wedged worker takes this */
/* How long a worker asked to stop may take to exit on its own (PHP's
 * shutdown, a coverage build writing its counters, a sanitizer's report)
 * before it is killed. */
#define STOP_GRACE_MS 3000
/* What a dead worker wrote to stderr, kept for its crash result: the first
 * and the last STDERR_KEEP / 2 bytes. */
#define STDERR_KEEP 4096

/* clang-format off */
static const char *const state_names[] = {
	[WORKER_STOPPED] = "stopped", [WORKER_READY] = "ready", [WORKER_BUSY] = "busy",
	[WORKER_BACKOFF] = "backoff", [WORKER_FAILED] = "failed",
};
/* clang-format on */

const char *worker_state_name(enum worker_state s)
{
	return (unsigned)s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "unknown";
}

/* Guards what hellos write into a struct build (worker_build_info). */
static pthread_mutex_t worker_info_lock = PTHREAD_MUTEX_INITIALIZER;

void worker_build_info(const struct build *b, struct build_info *out)
{
	pthread_mutex_lock(&worker_info_lock);
	snprintf(out->php_version, sizeof(out->php_version), "%s", b->php_version);
	out->handler_offset = b->handler_offset;
	snprintf(out->sandbox, sizeof(out->sandbox), "%s", b->sandbox);
	pthread_mutex_unlock(&worker_info_lock);
}

int worker_init(struct worker *w, struct build *b)
{
	memset(w, 0, sizeof(*w));
	w->build = b;
	w->pid = -1;
	w->fd = -1;
	w->page_fd = -1;
	w->errfd = -1;
	w->state = WORKER_STOPPED;
	/* A write to a worker that just died is an EPIPE, not a signal: the
	 * daemon's main() ignores SIGPIPE at startup; a library function does
	 * not change the process's signal dispositions. */
	return pthread_mutex_init(&w->lock, NULL) == 0 ? 0 : -1;
}

/*
 * A worker's stderr: a pipe, both ends non-blocking (a case filling it
 * loses what it writes, never blocks the worker), emptied before each
 * request; what a request's worker wrote before it died is kept, bounded.
 */
struct stderr_text {
	char head[STDERR_KEEP / 2], tail[STDERR_KEEP / 2]; /* tail: a ring */
	size_t nhead, total;
};

static void stderr_add(struct stderr_text *t, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++, t->total++) {
		if (t->nhead < sizeof(t->head))
			t->head[t->nhead++] = p[i];
		else
			t->tail[(t->total - t->nhead) % sizeof(t->tail)] = p[i];
	}
}

/* Read what is there (to EOF once the worker is gone); into t, or dropped. */
static void worker_read_stderr(struct worker *w, struct stderr_text *t)
{
	char buf[4096];
	ssize_t n;
	size_t seen = 0;
	if (w->errfd < 0)
		return;
	/* Bounded: a worker writing without end cannot keep us here. */
	while (
	    seen < 1024 * 1024 && ((n = read(w->errfd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))) {
		if (n > 0 && t)
			stderr_add(t, buf, (size_t)n);
		seen += n > 0 ? (size_t)n : 0;
	}
}

/* The kept text, NUL-terminated, into out (STDERR_KEEP + 64 bytes hold it all). */
static size_t stderr_format(const struct stderr_text *t, char *out, size_t size)
{
	size_t len = 0, intail = t->total - t->nhead;
	memcpy(out, t->head, t->nhead);
	len = t->nhead;
	if (intail > sizeof(t->tail)) {
		int n = snprintf(
		    out + len, size - len, "\n[... %zu bytes left out ...]\n", intail - sizeof(t->tail));
		len += n > 0 && (size_t)n < size - len ? (size_t)n : 0;
		intail = sizeof(t->tail);
	}
	size_t start = (t->total - t->nhead - intail) % sizeof(t->tail);
	for (size_t i = 0; i < intail && len + 1 < size; i++)
		out[len++] = t->tail[(start + i) % sizeof(t->tail)];
	while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == '\0'))
		len--;
	out[len] = '\0';
	return len;
}

enum reap { REAP_KILL, REAP_GRACE };

/*
 * Close the socket and reap the process: REAP_KILL kills it first (it hung,
 * or is dead already); REAP_GRACE lets it end on its own (it sees the
 * socket close and shuts PHP down: php_embed_shutdown, a coverage build's
 * counters, a sanitizer's report) for up to STOP_GRACE_MS, then kills it.
 * Its wait status, or -1.  Its stderr to t (may be NULL), then closed.
 */
static int worker_reap(struct worker *w, enum reap how, struct stderr_text *t)
{
	int status = -1;
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	if (w->pid > 0) {
		pid_t got = 0;
		if (how == REAP_GRACE) {
			/* A coverage build writes every object's counters: more time. */
			int grace = w->gcov_prefix[0] != '\0' ? 10 * STOP_GRACE_MS : STOP_GRACE_MS;
			for (int waited = 0; waited < grace; waited += 5) {
				while ((got = waitpid(w->pid, &status, WNOHANG)) < 0 && errno == EINTR)
					;
				if (got != 0)
					break;
				/* Keep its stderr flowing while it shuts down. */
				worker_read_stderr(w, t);
				usleep(5000);
			}
		}
		if (got == 0) {
			kill(w->pid, SIGKILL);
			while ((got = waitpid(w->pid, &status, 0)) < 0 && errno == EINTR)
				;
		}
		if (got < 0)
			status = -1;
	}
	if (w->measuring && w->final_dump[0] != '\0' && w->pid > 0) {
		char path[sizeof w->final_dump + 16];
		snprintf(path, sizeof path, "%s%d", w->final_dump, (int)w->pid);
		unlink(path);
	}
	w->pid = -1;
	worker_read_stderr(w, t);
	if (w->errfd >= 0)
		close(w->errfd);
	w->errfd = -1;
	confine_release(w); /* its private folder goes with it */
	return status;
}

static void describe_exit(int status, char *buf, size_t bufsize)
{
	if (status < 0)
		snprintf(buf, bufsize, "worker vanished");
	else if (WIFSIGNALED(status))
		snprintf(buf, bufsize, "killed by signal %d (SIG%s)", WTERMSIG(status),
		    sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(buf, bufsize, "worker exited with status %d", WEXITSTATUS(status));
}

pid_t worker_serving_pid(struct worker *w)
{
	pid_t pid = __atomic_load_n(&w->pid, __ATOMIC_RELAXED);
	if (pid > 0 && w->page != NULL && w->page->child_pid > 0)
		return (pid_t)w->page->child_pid;
	return pid;
}

/* The progress page, made once per worker and kept across its restarts. */
static int worker_page(struct worker *w)
{
	void *p;
	int fd;

	if (w->page != NULL || w->measuring)
		return 0;
	if (w->build->is_reference) {
		/* Not shared: reference.c writes it as a native core would its own. */
		p = mmap(NULL, sizeof(struct proto_page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
		if (p == MAP_FAILED)
			return -1;
		w->page = p;
		w->page_fd = -1;
		w->page->magic = PROTO_PAGE_MAGIC;
		return 0;
	}
	fd = memfd_create("phpcmp-page", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)sizeof(struct proto_page)) < 0 ||
	    (p = mmap(NULL, sizeof(struct proto_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
	        MAP_FAILED) {
		close(fd);
		return -1;
	}
	w->page = p;
	w->page_fd = fd;
	w->page->magic = PROTO_PAGE_MAGIC;
	return 0;
}

/* Why w could not start (now): -1, for `return worker_failed(...)`. */
static int worker_failed(struct worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int worker_failed(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->last_failure, sizeof(w->last_failure), fmt, ap);
	va_end(ap);
	w->last_failure_at = time(NULL);
	return -1;
}

/* The text a worker's command line and environment point into, kept while it is spawned. */
struct spawn_text {
	char toggle[64], outfile[4200], outopt[4300], dumpdir[4096];
	char gcov_prefix[4200], gcov_strip[64], preload[600];
};

/*
 * A fixed, minimal environment: instruction counts and PHP's behaviour
 * must not depend on whoever started the daemon.  Into envp (16 slots,
 * NULL-terminated).
 */
static void worker_env(const struct worker *w, struct spawn_text *t, const char *envp[16])
{
	int envc = 0;

	envp[envc++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	envp[envc++] = "LC_ALL=C";
	envp[envc++] = "TZ=UTC";
	/* A reference's node reads no /etc/ssl/openssl.cnf (landlock refuses it). */
	if (w->build->is_reference)
		envp[envc++] = "OPENSSL_CONF=/dev/null";
	if (w->gcov_prefix[0] != '\0') {
		/* A coverage build's counters: into the folder coverage.c chose. */
		snprintf(t->gcov_prefix, sizeof(t->gcov_prefix), "GCOV_PREFIX=%s", w->gcov_prefix);
		snprintf(t->gcov_strip, sizeof(t->gcov_strip), "GCOV_PREFIX_STRIP=%d", w->gcov_strip);
		envp[envc++] = t->gcov_prefix;
		envp[envc++] = t->gcov_strip;
	}
	/* A sanitizer build: its runtimes first in the worker, and their
	 * options (sanitize.c).  Never under valgrind, which cannot run them. */
	const char *const *senv = w->measuring ? NULL : sanitize_env(w->build);
	if (senv != NULL) {
		snprintf(t->preload, sizeof(t->preload), "LD_PRELOAD=%s", w->build->sanitizer_preload);
		envp[envc++] = t->preload;
		for (; *senv != NULL && envc < 15; senv++)
			envp[envc++] = *senv;
	}
	envp[envc] = NULL;
}

/*
 * A measuring worker runs under callgrind, counting only inside
 * json_encode's handler: by name where the library has symbols, by its
 * offset where it is stripped.  Its arguments onto argv; 0, or -1.
 */
static int worker_callgrind_args(
    struct worker *w, const struct config *cfg, struct spawn_text *t, const char **argv, int *argc)
{
	snprintf(t->dumpdir, sizeof(t->dumpdir), "%s/callgrind", cfg->state_dir);
	if (mkdir(t->dumpdir, 0755) < 0 && errno != EEXIST)
		return worker_failed(w, "cannot create %.400s: %s", t->dumpdir, strerror(errno));
	snprintf(t->toggle, sizeof(t->toggle), "--toggle-collect=0x%016llx",
	    (unsigned long long)w->build->handler_offset);
	snprintf(t->outfile, sizeof(t->outfile), "%s/%s.%%p", t->dumpdir, w->build->name);
	argv[(*argc)++] = cfg->valgrind_bin ? cfg->valgrind_bin : "valgrind";
	argv[(*argc)++] = "-q";
	argv[(*argc)++] = "--vgdb=no"; /* no FIFOs in the private folder */
	argv[(*argc)++] = "--tool=callgrind";
	argv[(*argc)++] = "--collect-atstart=no";
	argv[(*argc)++] = "--toggle-collect=zif_json_encode";
	argv[(*argc)++] = t->toggle;
	snprintf(t->outopt, sizeof(t->outopt), "--callgrind-out-file=%s", t->outfile);
	argv[(*argc)++] = t->outopt;
	/* The dump callgrind writes as the worker exits: counters after
	 * the last measured case, which nothing keeps (worker_reap). */
	snprintf(w->final_dump, sizeof(w->final_dump), "%s/%s.", t->dumpdir, w->build->name);
	return 0;
}

/* A started worker's first message: its hello (what it learnt of the build), else why not. 0 or -1. */
static int worker_hello(struct worker *w)
{
	struct proto_msg hello;
	/* Under callgrind a worker starts many times slower; several at once
	 * (a candidate each) on a busy machine slower still. */
	/* A reference's node loads a runtime of tens of MB first: seconds, more while others do. */
	int r = proto_recv(w->fd, &hello,
	    w->measuring || w->build->is_reference ? 4 * STARTUP_TIMEOUT_MS : STARTUP_TIMEOUT_MS);
	if (r == 1 && hello.type == PROTO_HELLO) {
		const struct proto_field *v = proto_get(&hello, TAG_PHP_VERSION);
		const struct proto_field *sb = proto_get(&hello, TAG_SANDBOX);
		/* The worker and the measuring worker (each under its own lock)
		 * both write the build; health reads it: one lock for all three. */
		pthread_mutex_lock(&worker_info_lock);
		if (v)
			snprintf(w->build->php_version, sizeof(w->build->php_version), "%.*s", (int)v->len,
			    v->data);
		w->build->handler_offset = proto_get_int(&hello, TAG_HANDLER_OFFSET, 0);
		if (!w->measuring)
			snprintf(w->build->sandbox, sizeof(w->build->sandbox), "%.*s", sb ? (int)sb->len : 4,
			    sb ? sb->data : "none");
		const struct proto_field *ref = proto_get(&hello, TAG_REFERENCE);
		if (ref != NULL && w->build->is_reference)
			snprintf(w->build->reference, sizeof(w->build->reference), "%.*s", (int)ref->len,
			    ref->data);
		pthread_mutex_unlock(&worker_info_lock);
		proto_msg_release(&hello);
		w->state = WORKER_READY;
		return 0;
	}
	if (r == 1 && hello.type == PROTO_FAIL) {
		const struct proto_field *m = proto_get(&hello, TAG_MESSAGE);
		worker_failed(w, "%.*s", m ? (int)m->len : 0, m ? m->data : "");
		proto_msg_release(&hello);
		worker_reap(w, REAP_GRACE, NULL); /* it exits by itself */
		return -1;
	}
	if (r == 1)
		proto_msg_release(&hello);
	int timed_out = r < 0 && errno == ETIMEDOUT;
	struct stderr_text err = { .nhead = 0 };
	int status = worker_reap(w, timed_out ? REAP_KILL : REAP_GRACE, &err);
	char why[128], text[STDERR_KEEP + 64];
	describe_exit(status, why, sizeof(why));
	stderr_format(&err, text, sizeof(text));
	return worker_failed(w, "worker did not start: %s%s%.300s",
	    timed_out ? "no hello within the startup timeout" : why, text[0] ? "; stderr: " : "", text);
}

/* Spawn argv with the socket on fd 3 and stderr to the pipe; then its hello. */
static int worker_spawn(struct worker *w, const char **argv, const char **envp, int sv[2], int ep[2])
{
	posix_spawn_file_actions_t fa;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 3); /* dup2 clears CLOEXEC */
	if (w->page != NULL && w->page_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, w->page_fd, PROTO_PAGE_FD);
	/* Nothing else the daemon holds or inherited (its parent's pipes, a
	 * listening socket without CLOEXEC) reaches the worker: only the
	 * protocol socket and, for a fork server, its progress page. */
	posix_spawn_file_actions_addclosefrom_np(
	    &fa, w->page != NULL && w->page_fd >= 0 ? PROTO_PAGE_FD + 1 : 4);
	/* posix_spawn's argv and envp are not const for historical reasons only. */
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, (char *const *)envp);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	close(ep[1]);
	if (rc != 0) {
		close(sv[0]);
		close(ep[0]);
		return worker_failed(w, "cannot start %s: %s", argv[0], strerror(rc));
	}
	w->pid = pid;
	w->fd = sv[0];
	w->errfd = ep[0];
	return worker_hello(w);
}

/* A reference runtime (reference.c): the sandbox's loader, then node running the worker script. */
static int worker_start_reference(struct worker *w, const struct config *cfg, const char **envp, int sv[2],
    int ep[2], struct confine_args *sbx)
{
	const char *argv[2 * CONFINE_MAX_ARGS + 32];
	struct reference_text t;
	int argc = 0;

	for (int i = 0; i < sbx->npre; i++)
		argv[argc++] = sbx->pre[i];
	argc += confine_reference_argv(w, cfg, argv + argc, (int)(sizeof argv / sizeof argv[0]) - argc, &t);
	argv[argc] = NULL;
	worker_page(w);
	return worker_spawn(w, argv, envp, sv, ep);
}

static int worker_start(struct worker *w, const struct config *cfg)
{
	int sv[2] = { -1, -1 }, ep[2] = { -1, -1 };
	const char *argv[24 + 2 * BUILD_MAX_INI + 2 * CONFINE_MAX_ARGS], *envp[16];
	struct confine_args sbx;
	struct spawn_text t;
	int argc = 0;

	/* A retired build's workers stay stopped (DELETE /api/builds/NAME). */
	if (__atomic_load_n(&w->build->retired, __ATOMIC_ACQUIRE)) {
		snprintf(w->last_failure, sizeof w->last_failure, "build %s is retired", w->build->name);
		w->last_failure_at = time(NULL);
		return -1;
	}
	worker_env(w, &t, envp);
	/* The sandbox (docs/sandbox.md): a private folder, arguments, and for
	 * a measuring worker a first loader that confines valgrind itself. */
	if ((w->build->is_reference ? confine_reference : confine_prepare)(
	        w, cfg, &sbx, w->last_failure, sizeof(w->last_failure)) < 0) {
		w->last_failure_at = time(NULL);
		return -1;
	}
	for (int i = 0; i < sbx.npre; i++)
		argv[argc++] = sbx.pre[i];
	if (w->measuring && worker_callgrind_args(w, cfg, &t, argv, &argc) < 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return worker_failed(w, "socketpair: %s", strerror(errno));
	/* Its stderr: what an assertion, a sanitizer, zend_mm or PHP outside a
	 * request prints there goes into a crash's failure text. */
	if (pipe2(ep, O_CLOEXEC | O_NONBLOCK) < 0) {
		close(sv[0]);
		close(sv[1]);
		return worker_failed(w, "pipe: %s", strerror(errno));
	}
	if (w->build->is_reference)
		return worker_start_reference(w, cfg, envp, sv, ep, &sbx);
	argv[argc++] = cfg->worker_bin;
	argv[argc++] = "--lib";
	argv[argc++] = w->build->lib_path;
	argv[argc++] = "--core";
	argv[argc++] = w->build->core_path;
	argv[argc++] = "--memory-limit";
	argv[argc++] = cfg->memory_limit;
	for (int i = 0; i < w->build->nini; i++) {
		argv[argc++] = "--ini";
		argv[argc++] = w->build->ini[i];
	}
	if (w->measuring) {
		argv[argc++] = "--dump-prefix";
		argv[argc++] = t.outfile;
	}
	for (int i = 0; i < sbx.n; i++)
		argv[argc++] = sbx.v[i];
	if (worker_page(w) == 0 && w->page != NULL) {
		w->page->child_pid = 0;
		w->page->busy = 0;
		w->page->batch_start = -1;
		argv[argc++] = "--page-fd";
		argv[argc++] = "4";
	}
	argv[argc] = NULL;
	return worker_spawn(w, argv, envp, sv, ep);
}

int worker_prestart(struct worker *w, const struct config *cfg)
{
	pthread_mutex_lock(&w->lock);
	int rc = w->pid > 0 ? 0 : worker_start(w, cfg);
	if (rc < 0)
		w->state = WORKER_FAILED;
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* How long to wait before restarting a worker that keeps dying; 0 on the first death. */
static long worker_backoff_ms(const struct worker *w)
{
	if (w->consecutive_deaths < 2)
		return 0;
	int shift = w->consecutive_deaths - 2;
	long ms = shift > 10 ? BACKOFF_MAX_MS : 50L << shift;
	return ms > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : ms;
}

/* Called and returns with w->lock held, which it lets go while it sleeps:
 * health and the daemon's stop are not kept waiting up to 2 s. */
static void worker_backoff(struct worker *w)
{
	long ms = worker_backoff_ms(w);

	if (ms == 0)
		return;
	w->state = WORKER_BACKOFF;
	pthread_mutex_unlock(&w->lock);
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&w->lock);
}

static char *field_strdup(const struct proto_msg *m, uint16_t tag)
{
	const struct proto_field *f = proto_get(m, tag);
	if (!f)
		return NULL;
	char *s = malloc(f->len + 1);
	if (s) {
		memcpy(s, f->data, f->len);
		s[f->len] = '\0';
	}
	return s;
}

/*
 * A sanitizer's report during the request (TAG_SANITIZER, server/worker/
 * sanitizer.c) makes the result a memory-error whatever else it says: the
 * report is its failure text, followed by what the case's own failure was.
 */
static void worker_memory_error(struct result *r, const struct proto_msg *m)
{
	const struct proto_field *f = proto_get(m, TAG_SANITIZER);
	if (f == NULL)
		return;
	const char *was = r->failure;
	size_t wlen = was != NULL ? strlen(was) : 0;
	char *text = malloc(f->len + wlen + 32);
	if (text == NULL)
		return;
	int n = snprintf(text, f->len + 1, "%.*s", (int)f->len, f->data);
	if (wlen > 0)
		snprintf(text + n, wlen + 32, "\n(the case also failed: %s)", was);
	free(r->failure);
	r->failure = text;
	r->status = STATUS_MEMORY_ERROR;
}

void worker_result_from_msg(struct result *r, const struct proto_msg *m)
{
	const struct proto_field *f;
	r->status = proto_get_int(m, TAG_STATUS, STATUS_ERROR) == PROTO_STATUS_OK ? STATUS_OK : STATUS_ERROR;
	if ((f = proto_get(m, TAG_OUTPUT)))
		bytes_set(&r->output, f->data, f->len);
	else
		r->output_is_false = 1;
	r->error_code = (long)proto_get_int(m, TAG_ERROR_CODE, 0);
	r->error_msg = field_strdup(m, TAG_ERROR_MSG);
	r->exc_class = field_strdup(m, TAG_EXC_CLASS);
	r->exc_msg = field_strdup(m, TAG_EXC_MSG);
	if ((f = proto_get(m, TAG_PRINTED)))
		bytes_set(&r->printed, f->data, f->len);
	r->warnings = field_strdup(m, TAG_WARNINGS);
	if (!r->warnings)
		r->warnings = strdup("");
	r->failure = field_strdup(m, TAG_FAILURE);
	r->instructions = proto_get_int(m, TAG_INSTRUCTIONS, -1);
	r->instr_total = proto_get_int(m, TAG_INSTR_TOTAL, -1);
	r->iterations = proto_get_int(m, TAG_ITERATIONS_DONE, -1);
	r->dump_file = field_strdup(m, TAG_DUMP_FILE);
	r->compile_error = field_strdup(m, TAG_COMPILE_ERROR);
	if ((f = proto_get(m, TAG_COMPILE_SECTION)) != NULL)
		snprintf(r->compile_section, sizeof r->compile_section, "%.*s", (int)f->len, f->data);
	r->compile_line = (long)proto_get_int(m, TAG_COMPILE_LINE, 0);
	r->compile_column = (long)proto_get_int(m, TAG_COMPILE_COLUMN, 0);
	worker_memory_error(r, m);
}

static void result_failed(struct result *r, enum result_status status, const char *fmt, const char *arg)
{
	char buf[600];
	snprintf(buf, sizeof(buf), fmt, arg);
	r->status = status;
	r->output_is_false = 1;
	free(r->failure);
	r->failure = strdup(buf);
	if (!r->warnings)
		r->warnings = strdup("");
}

/* The build's measuring worker (under callgrind), created on first use. */
static struct worker *worker_measurer(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	if (!w->measurer) {
		struct worker *m = calloc(1, sizeof(*m));
		if (m && worker_init(m, w->build) == 0) {
			m->measuring = 1;
			snprintf(m->gcov_prefix, sizeof(m->gcov_prefix), "%s", w->gcov_prefix);
			m->gcov_strip = w->gcov_strip;
			w->measurer = m;
		} else {
			free(m);
		}
	}
	pthread_mutex_unlock(&w->lock);
	return w->measurer;
}

/* Under callgrind a case runs ~50x slower, and valgrind itself starts first. */
/*
 * A measured case leaves two callgrind dumps: "<build>.<pid>.<N-1>", the
 * warm-up the core throws away (but a sandboxed worker may not delete), and
 * "<build>.<pid>.<N>", the one stored.  The warm-up goes here.
 */
static void worker_drop_warmup(const struct worker *w, const char *dump)
{
	char prefix[sizeof w->final_dump + 32], path[sizeof prefix + 32];
	size_t n;
	long k;
	char *end;

	if (dump == NULL || w->final_dump[0] == '\0')
		return;
	snprintf(prefix, sizeof prefix, "%s%d.", w->final_dump, (int)w->pid);
	n = strlen(prefix);
	if (strncmp(dump, prefix, n) != 0)
		return;
	k = strtol(dump + n, &end, 10);
	if (end == dump + n || *end != '\0' || k < 2)
		return;
	snprintf(path, sizeof path, "%s%ld", prefix, k - 1);
	unlink(path);
}

static int case_timeout(const struct worker *w, const struct config *cfg)
{
	if (!w->measuring)
		return cfg->case_timeout_ms;
	return cfg->measure_timeout_ms > 0 ? cfg->measure_timeout_ms : 120000;
}

int worker_run_case(struct worker *w, const struct config *cfg, const struct case_spec *c, struct result *r)
{
	return worker_run_case_within(w, cfg, c, 0, r);
}

int worker_run_case_within(
    struct worker *w, const struct config *cfg, const struct case_spec *c, int timeout_ms, struct result *r)
{
	struct proto_buf req;
	struct proto_msg reply;

	if (c->iterations > 0 && w->build->is_reference) {
		/* WebAssembly under node: no callgrind, no instruction counts. */
		result_init(r);
		result_failed(
		    r, STATUS_ERROR, "%s: a reference runtime has no instruction counts", w->build->name);
		return 0;
	}
	if (c->iterations > 0 && !w->measuring) {
		struct worker *m = worker_measurer(w);
		if (!m) {
			result_init(r);
			result_failed(r, STATUS_ERROR, "%s", "out of memory for a measuring worker");
			return -1;
		}
		return worker_run_case_within(m, cfg, c, timeout_ms, r);
	}
	/* A caller's bound only ever shortens the configured one. */
	if (timeout_ms <= 0 || timeout_ms > case_timeout(w, cfg))
		timeout_ms = case_timeout(w, cfg);
	/* A measured case with a cost budget (a submitted one): its calls stop at the budget,
	 * and making its value gets a case's time on top, not the measure timeout's minutes. */
	if (w->measuring && c->measure_budget_ms > 0 &&
	    c->measure_budget_ms + (long)cfg->case_timeout_ms < timeout_ms)
		timeout_ms = (int)(c->measure_budget_ms + cfg->case_timeout_ms);
	proto_buf_init(&req);
	proto_buf_add_str(&req, TAG_CODE, c->code ? c->code : "null");
	if (c->setup)
		proto_buf_add_str(&req, TAG_SETUP, c->setup);
	proto_buf_add_int(&req, TAG_FLAGS, c->flags);
	proto_buf_add_int(&req, TAG_DEPTH, c->depth);
	if (c->iterations > 0)
		proto_buf_add_int(&req, TAG_ITERATIONS, c->iterations);
	if (c->iterations > 0 && c->measure_budget_ms > 0)
		proto_buf_add_int(&req, TAG_MEASURE_BUDGET_MS, c->measure_budget_ms);
	int rc = worker_call(w, cfg, PROTO_CASE, &req, timeout_ms, &reply, r);
	proto_buf_release(&req);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		if (reply.type == PROTO_RESULT) {
			worker_result_from_msg(r, &reply);
			if (w->measuring)
				worker_drop_warmup(w, r->dump_file);
		} else {
			/* The worker is fine but could not frame its result. */
			const struct proto_field *m = proto_get(&reply, TAG_MESSAGE);
			char msg[256];
			snprintf(msg, sizeof(msg), "%.*s", m ? (int)m->len : 0, m ? m->data : "");
			result_failed(r, STATUS_ERROR, "the worker could not send its result: %s",
			    msg[0] ? msg : "result too large for a frame");
		}
		proto_msg_release(&reply);
	}
	return 0;
}

int worker_renew(struct worker *w, const struct config *cfg)
{
	struct proto_msg reply;
	struct result r;
	int forked, rc;

	/* A reference's worker runs each case in a request of its own: as
	 * fresh as a new process, which would take a second to start. */
	if (w->build->is_reference)
		return 0;
	pthread_mutex_lock(&w->lock);
	forked = w->pid > 0 && w->page != NULL && w->page->child_pid > 0 && w->page->child_pid != w->pid;
	if (w->pid > 0 && !forked) {
		/* No fork server (under valgrind): stopped, the next case starts a new one. */
		worker_reap(w, REAP_GRACE, NULL);
		w->state = WORKER_STOPPED;
	}
	pthread_mutex_unlock(&w->lock);
	if (!forked)
		return 0;
	rc = worker_call(w, cfg, PROTO_RENEW, NULL, RENEW_TIMEOUT_MS, &reply, &r);
	if (rc == 1) {
		if (reply.type != PROTO_RESULT)
			rc = -1;
		proto_msg_release(&reply);
	}
	result_release(&r);
	if (rc != 1) {
		/* It did not answer as a fork server's child does: stopped, as above. */
		pthread_mutex_lock(&w->lock);
		if (w->pid > 0) {
			worker_reap(w, REAP_KILL, NULL);
			w->state = WORKER_STOPPED;
		}
		pthread_mutex_unlock(&w->lock);
		return -1;
	}
	return 0;
}

void worker_release(struct worker *w)
{
	if (w->measurer) {
		worker_release(w->measurer);
		free(w->measurer);
		w->measurer = NULL;
	}
	pthread_mutex_lock(&w->lock);
	if (w->pid > 0) {
		/* Closing the socket asks the worker to shut PHP down and exit
		 * through its normal path; killed only if it does not. */
		worker_reap(w, REAP_GRACE, NULL);
	}
	w->state = WORKER_STOPPED;
	if (w->page != NULL) {
		munmap(w->page, sizeof(struct proto_page));
		close(w->page_fd);
		w->page = NULL;
		w->page_fd = -1;
	}
	pthread_mutex_unlock(&w->lock);
	pthread_mutex_destroy(&w->lock);
}

void worker_stop(struct worker *w)
{
	struct worker *m;

	pthread_mutex_lock(&w->lock);
	if (w->pid > 0)
		worker_reap(w, REAP_GRACE, NULL);
	w->state = WORKER_STOPPED;
	m = w->measurer;
	pthread_mutex_unlock(&w->lock);
	if (m != NULL)
		worker_stop(m);
}

/* "killed by signal 6 (SIGABRT)", then what the worker said, as r's failure. */
static void result_add_stderr(struct result *r, const char *why, const struct stderr_text *err)
{
	if (err->total == 0)
		return;
	size_t size = strlen(why) + STDERR_KEEP + 256;
	char *text = malloc(size);
	if (text) {
		int n = snprintf(text, size, "%s\nworker stderr (%zu bytes):\n", why, err->total);
		stderr_format(err, text + n, size - (size_t)n);
		free(r->failure);
		r->failure = text;
	}
}

/*
 * A fork server's child died while idle (killed from outside): its
 * PROTO_DIED is waiting on the socket before any reply.  Read those; 0, or
 * -1 when the worker itself is gone or out of step (reaped here).
 */
static int worker_drain(struct worker *w)
{
	struct pollfd p = { .fd = w->fd, .events = POLLIN };
	while (poll(&p, 1, 0) == 1) {
		struct proto_msg m;
		int rc = proto_recv(w->fd, &m, 100);
		if (rc == 1 && m.type == PROTO_DIED && proto_get(&m, TAG_RETIRE) == NULL) {
			proto_msg_release(&m);
			w->restarts++;
			continue;
		}
		if (rc == 1)
			proto_msg_release(&m);
		worker_reap(w, REAP_KILL, NULL);
		return -1;
	}
	return 0;
}

/* A fork server's child died on this request (its PROTO_DIED, released here): a crash, or a
 * memory error a sanitizer reported; its parent forks another. */
static void worker_child_died(struct worker *w, struct proto_msg *reply, struct result *r)
{
	int status = (int)proto_get_int(reply, TAG_DIED_STATUS, -1);
	int retired = proto_get(reply, TAG_RETIRE) != NULL;
	char dwhy[128];
	struct stderr_text derr = { .nhead = 0 };

	describe_exit(status, dwhy, sizeof(dwhy));
	r->signal = status >= 0 && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	worker_read_stderr(w, &derr); /* what the child wrote */
	result_failed(r, STATUS_CRASH, "%s", dwhy);
	result_add_stderr(r, dwhy, &derr);
	/* A sanitizer ended it: a memory-error with the report. */
	worker_memory_error(r, reply);
	proto_msg_release(reply);
	worker_failed(w, "%s", dwhy);
	w->restarts++;
	w->consecutive_deaths++;
	w->state = WORKER_READY;
	if (retired) {
		/* Its folder could not be emptied: replaced, the folder removed. */
		worker_reap(w, REAP_KILL, NULL);
		w->state = WORKER_STOPPED;
	}
}

/*
 * No answer: the request timed out (a fork server's child killed alone
 * when its parent says so, else the worker), or the socket closed (the
 * worker crashed or exited).  r says which, with what it wrote to stderr.
 */
static void worker_lost(struct worker *w, int timed_out, int timeout_ms, struct result *r)
{
	struct stderr_text err = { .nhead = 0 };
	char why[128];

	if (timed_out) {
		int kept = 0;
		/* A fork server: kill the child only, its parent says when it is gone. */
		pid_t child = w->page != NULL ? (pid_t)w->page->child_pid : 0;
		if (child > 0 && child != w->pid && kill(child, SIGKILL) == 0) {
			struct proto_msg m;
			if (proto_recv(w->fd, &m, 2000) == 1) {
				kept = m.type == PROTO_DIED && proto_get_int(&m, TAG_DIED_BUSY, 0) &&
				    proto_get(&m, TAG_RETIRE) == NULL;
				proto_msg_release(&m);
			}
		}
		snprintf(why, sizeof(why), "timed out after %d ms; worker killed", timeout_ms);
		if (kept) {
			w->restarts++;
			worker_read_stderr(w, &err); /* what the child wrote */
			result_failed(r, STATUS_TIMEOUT, "%s", why);
			result_add_stderr(r, why, &err);
			worker_failed(w, "request timed out after %d ms", timeout_ms);
			w->consecutive_deaths++;
			w->state = WORKER_READY;
			return;
		}
		worker_reap(w, REAP_KILL, &err);
		worker_failed(w, "request timed out after %d ms", timeout_ms);
	} else {
		/* The socket is closed: the worker is gone or going (a crash, or
		 * exit() of its own); wait for its real status. */
		int status = worker_reap(w, REAP_GRACE, &err);
		describe_exit(status, why, sizeof(why));
		r->signal = status >= 0 && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		worker_failed(w, "%s", why);
	}
	result_failed(r, timed_out ? STATUS_TIMEOUT : STATUS_CRASH, "%s", why);
	result_add_stderr(r, why, &err);
	w->consecutive_deaths++;
	w->state = WORKER_STOPPED;
}

int (*worker_reference_call)(struct worker *, const struct config *, uint16_t type,
    const struct proto_buf *req, int timeout_ms, struct proto_msg *reply, struct result *r);

int worker_call(struct worker *w, const struct config *cfg, uint16_t type, const struct proto_buf *req,
    int timeout_ms, struct proto_msg *reply, struct result *r)
{
	/* A reference cannot make generated cases: reference.c renders them. */
	if (w->build->is_reference && worker_reference_call != NULL)
		return worker_reference_call(w, cfg, type, req, timeout_ms, reply, r);
	return worker_exchange(w, cfg, type, req, timeout_ms, reply, r);
}

int worker_exchange(struct worker *w, const struct config *cfg, uint16_t type, const struct proto_buf *req,
    int timeout_ms, struct proto_msg *reply, struct result *r)
{
	int ret;

	result_init(r);
	pthread_mutex_lock(&w->lock);
	if (w->pid > 0 && w->page != NULL && worker_drain(w) < 0)
		w->consecutive_deaths++;
	if (w->pid < 0)
		worker_backoff(w); /* another call may have started it meanwhile */
	if (w->pid < 0) {
		if (worker_start(w, cfg) < 0) {
			w->consecutive_deaths++;
			w->state = WORKER_FAILED;
			result_failed(r, STATUS_ERROR, "worker failed to start: %s", w->last_failure);
			ret = -1;
			goto out;
		}
		if (w->cases_run > 0 || w->consecutive_deaths > 0)
			w->restarts++;
	}
	w->state = WORKER_BUSY;
	/* Whatever it wrote to stderr before this request is not this one's. */
	worker_read_stderr(w, NULL);
	double t0 = clock_ms();
	int r_send = proto_send(w->fd, type, req);
	int r_recv = r_send < 0 ? -1 : proto_recv(w->fd, reply, timeout_ms);
	/* A fork server's child that died idle, before it read this request:
	 * the next child answers it. */
	while (r_recv == 1 && reply->type == PROTO_DIED && !proto_get_int(reply, TAG_DIED_BUSY, 1) &&
	    proto_get(reply, TAG_RETIRE) == NULL) {
		proto_msg_release(reply);
		w->restarts++;
		int left = timeout_ms < 0 ? -1 : timeout_ms - (int)(clock_ms() - t0);
		r_recv = proto_recv(w->fd, reply, left < 0 && timeout_ms >= 0 ? 0 : left);
	}
	int timed_out = r_recv < 0 && errno == ETIMEDOUT;
	r->wall_ms = clock_ms() - t0;
	if (type != PROTO_RENEW)
		w->cases_run++;
	if (r_recv == 1 && reply->type == PROTO_DIED) {
		worker_child_died(w, reply, r);
		ret = 0;
		goto out;
	}
	if (r_recv == 1) {
		w->consecutive_deaths = 0;
		w->state = WORKER_READY;
		ret = 1;
		if (proto_get(reply, TAG_RETIRE) != NULL) {
			/* It could not empty its folder: replaced (after its own
			 * normal exit), the folder removed. */
			worker_reap(w, REAP_GRACE, NULL);
			w->state = WORKER_STOPPED;
			worker_failed(w, "retired: its private folder could not be emptied");
		}
		goto out;
	}
	worker_lost(w, timed_out, timeout_ms, r);
	ret = 0;
out:
	pthread_mutex_unlock(&w->lock);
	return ret;
}
