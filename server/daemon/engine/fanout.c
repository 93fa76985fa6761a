/* Run a function on every build at once, a thread each: fanout.h. */
#include "fanout.h"

#include <pthread.h>

struct fanout_task {
	void (*fn)(void *);
	void *item;
	pthread_t thread;
	int started;
};

static void *fanout_thread(void *arg)
{
	struct fanout_task *t = arg;

	t->fn(t->item);
	return NULL;
}

void fanout_run(void (*fn)(void *item), void *items, size_t size, int n)
{
	struct fanout_task tasks[FANOUT_MAX];
	char *base = items;

	if (n <= 0)
		return;
	for (int i = 1; i < n && i < FANOUT_MAX; i++) {
		tasks[i] = (struct fanout_task){ .fn = fn, .item = base + (size_t)i * size };
		tasks[i].started = pthread_create(&tasks[i].thread, NULL, fanout_thread, &tasks[i]) == 0;
	}
	fn(base);
	for (int i = 1; i < n; i++) {
		if (i < FANOUT_MAX && tasks[i].started)
			pthread_join(tasks[i].thread, NULL);
		else
			fn(base + (size_t)i * size); /* no thread: run it here */
	}
}
