/*
 * The one fan-out (server/daemon/engine/fanout.c): every item runs once,
 * the first on the caller's thread and every other on a thread of its own,
 * all at once, all done when fanout_run returns.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "fanout.h"
#include "tap.h"

struct item {
	pthread_t by;  /* the thread it ran on */
	int runs;      /* how many times it ran */
	int others;    /* other items running when it finished waiting */
	double pad[3]; /* items of a size other than a pointer's */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int arrived, expected;

/* Waits (up to 5 s) until every item has started: they run at once. */
static void item_run(void *arg)
{
	struct item *it = arg;
	struct timespec until;

	it->by = pthread_self();
	it->runs++;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&mu);
	arrived++;
	pthread_cond_broadcast(&cv);
	while (arrived < expected)
		if (pthread_cond_timedwait(&cv, &mu, &until) != 0)
			break;
	it->others = arrived - 1;
	pthread_mutex_unlock(&mu);
}

static void plain_run(void *arg)
{
	struct item *it = arg;

	it->by = pthread_self();
	it->runs++;
}

int main(void)
{
	struct item items[FANOUT_MAX];
	pthread_t me = pthread_self();

	for (int n = 1; n <= FANOUT_MAX; n++) {
		memset(items, 0, sizeof items);
		arrived = 0;
		expected = n;
		fanout_run(item_run, items, sizeof items[0], n);
		int once = 1, together = 1, apart = 1;
		for (int i = 0; i < n; i++) {
			once &= items[i].runs == 1;
			together &= items[i].others == n - 1;
			for (int k = 0; k < i; k++)
				apart &= !pthread_equal(items[i].by, items[k].by);
		}
		for (int i = n; i < FANOUT_MAX; i++)
			once &= items[i].runs == 0;
		ok(once, "%d item(s): each ran once, none past n", n);
		ok(pthread_equal(items[0].by, me), "%d item(s): the first on the caller's thread", n);
		ok(apart && together, "%d item(s): each on a thread of its own, all at once", n);
	}

	/* More items than threads: those past FANOUT_MAX run on the caller's. */
	struct item many[FANOUT_MAX + 2];
	memset(many, 0, sizeof many);
	fanout_run(plain_run, many, sizeof many[0], FANOUT_MAX + 2);
	int once = 1;
	for (int i = 0; i < FANOUT_MAX + 2; i++)
		once &= many[i].runs == 1;
	ok(once, "%d items: each ran once", FANOUT_MAX + 2);
	ok(pthread_equal(many[FANOUT_MAX].by, me) && pthread_equal(many[FANOUT_MAX + 1].by, me),
	    "the items past FANOUT_MAX on the caller's thread");

	/* None: nothing runs. */
	memset(many, 0, sizeof many);
	fanout_run(plain_run, many, sizeof many[0], 0);
	ok(many[0].runs == 0, "0 items: nothing ran");
	return tap_done();
}
