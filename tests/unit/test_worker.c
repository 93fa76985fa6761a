/*
 * Unit tests for the daemon's side of a worker (server/daemon/engine/worker.c),
 * printing TAP: no process-wide signal disposition (SIGPIPE), a write to a
 * worker that is gone is EPIPE, and the restart backoff sleeps without the
 * worker's lock (health and the daemon's stop are not kept waiting).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine.h"
#include "proto.h"
#include "tap.h"

static struct config cfg;
static struct build build;
static struct worker w;
static struct result res;
static int call_rc;

static void *call(void *arg)
{
	struct proto_msg reply;

	(void)arg;
	call_rc = worker_call(&w, &cfg, PROTO_CASE, NULL, 1000, &reply, &res);
	return NULL;
}

int main(void)
{
	struct sigaction sa;
	pthread_t t;
	int sv[2];

	sigaction(SIGPIPE, NULL, &sa);
	ok(sa.sa_handler == SIG_DFL, "SIGPIPE is at its default to begin with");
	snprintf(build.name, sizeof build.name, "test");
	ok(worker_init(&w, &build) == 0, "worker_init");
	sigaction(SIGPIPE, NULL, &sa);
	ok(sa.sa_handler == SIG_DFL, "worker_init leaves the process's SIGPIPE disposition alone");

	/* A worker that is gone: EPIPE once SIGPIPE is ignored, as the daemon's
	 * main() does at startup (the process's business, not worker_init's). */
	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
		close(sv[1]);
		errno = 0;
		ok(proto_send(sv[0], PROTO_CASE, NULL) < 0 && errno == EPIPE,
		    "proto_send to a closed peer is EPIPE");
		close(sv[0]);
	} else {
		ok(0, "socketpair");
	}

	/* A worker that keeps dying backs off, and lets go of its lock meanwhile. */
	confine_defaults(&cfg.sandbox);
	snprintf(cfg.sandbox.layers, sizeof cfg.sandbox.layers, "none");
	cfg.worker_bin = "/nonexistent/phpcmp-worker";
	cfg.state_dir = "/tmp";
	cfg.memory_limit = "128M";
	cfg.case_timeout_ms = 1000;
	w.consecutive_deaths = 6; /* 50 ms << 4 = 800 ms */
	pthread_create(&t, NULL, call, NULL);
	usleep(200 * 1000);
	int got = pthread_mutex_trylock(&w.lock);
	enum worker_state state = w.state;
	if (got == 0)
		pthread_mutex_unlock(&w.lock);
	ok(got == 0, "the lock is free while the worker backs off");
	ok(state == WORKER_BACKOFF, "and its state says backoff");
	pthread_join(t, NULL);
	ok(call_rc == -1 && res.status == STATUS_ERROR && w.state == WORKER_FAILED,
	    "after the backoff the (impossible) start fails as before");
	result_release(&res);
	worker_release(&w);
	return tap_done();
}
