/*
 * Measured cases' turns, fair between clients (server/daemon/engine/fairq.c,
 * issue 19 item 5): while the turn is held, waiters queue up in a known
 * order; the order in which they then get the turn is checked.  Before,
 * the measuring workers' mutex served them as they came (a client's
 * thirty cases ahead of another's one).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fairq.h"
#include "tap.h"

static struct fairq q;
static pthread_mutex_t order_mu = PTHREAD_MUTEX_INITIALIZER;
static char order[64][16];
static int norder;

struct waiter {
	char name[16]; /* "A1": client A, its first */
	pthread_t t;
};

static void *waiter_run(void *arg)
{
	struct waiter *w = arg;
	char key[8];
	snprintf(key, sizeof key, "%c", w->name[0]);
	fairq_enter(&q, key);
	pthread_mutex_lock(&order_mu);
	snprintf(order[norder++], sizeof order[0], "%s", w->name);
	pthread_mutex_unlock(&order_mu);
	fairq_leave(&q);
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Queue names (one thread each, in this order) behind a held turn, release, and say the order served. */
static void served(const char *const names[], int n, char *out, size_t size)
{
	struct waiter w[32];
	norder = 0;
	fairq_enter(&q, "holder");
	for (int i = 0; i < n; i++) {
		snprintf(w[i].name, sizeof w[i].name, "%s", names[i]);
		pthread_create(&w[i].t, NULL, waiter_run, &w[i]);
		/* each in the queue before the next: a known arrival order */
		for (int k = 0; k < 2000 && fairq_waiting(&q) < i + 1; k++)
			sleep_ms(1);
	}
	fairq_leave(&q);
	for (int i = 0; i < n; i++)
		pthread_join(w[i].t, NULL);
	out[0] = '\0';
	for (int i = 0; i < norder; i++)
		snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? " " : "", order[i]);
}

int main(void)
{
	char got[512];

	fairq_init(&q);
	{
		/* The case: one client's many, then another's one. */
		const char *const names[] = { "A1", "A2", "A3", "A4", "A5", "A6", "B1" };
		served(names, 7, got, sizeof got);
		ok(strcmp(got, "A1 B1 A2 A3 A4 A5 A6") == 0,
		    "a client's one measured case waits behind one of another's six, not all: %s", got);
	}
	{
		const char *const names[] = { "A1", "A2", "A3", "B1", "B2", "B3", "C1", "C2", "C3" };
		served(names, 9, got, sizeof got);
		/* Remembered from above: A had the last turn, B one before; C none. */
		ok(strcmp(got, "C1 B1 A1 C2 B2 A2 C3 B3 A3") == 0,
		    "three clients take turns round-robin, the least recently served first: %s", got);
		fairq_destroy(&q);
		fairq_init(&q);
		served(names, 9, got, sizeof got);
		ok(strcmp(got, "A1 B1 C1 A2 B2 C2 A3 B3 C3") == 0,
		    "none served before: round-robin in arrival order, each client's in its own: %s", got);
	}
	{
		const char *const names[] = { "D1", "D2", "D3" };
		served(names, 3, got, sizeof got);
		ok(strcmp(got, "D1 D2 D3") == 0, "one client alone: its cases in order: %s", got);
	}
	{
		/* More clients than are remembered: still everyone served, once each. */
		char names_buf[80][16];
		const char *names[30];
		for (int i = 0; i < 30; i++) {
			snprintf(names_buf[i], sizeof names_buf[i], "%c1", 'a' + (i % 26));
			names[i] = names_buf[i];
		}
		served(names, 30, got, sizeof got);
		ok(norder == 30, "30 waiters, 30 turns (%d)", norder);
	}
	ok(fairq_waiting(&q) == 0, "nobody left waiting");
	fairq_destroy(&q);
	return tap_done();
}
