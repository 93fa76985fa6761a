/*
 * A turn, one at a time, fair between clients (issue 19, item 5): the
 * measuring workers (one per build, under callgrind) serve one measured
 * case after another, and a client that sends many must not make another
 * wait behind all of them.  Each waiter names its client (a token's name,
 * else the peer's address; a run's own cases "run"); when the turn is
 * free it goes to the waiter whose client was served least recently
 * (never, first), the earliest of that client's: waiting clients take
 * turns round-robin, and a client's own cases keep their order.
 */
#ifndef PHPCMP_FAIRQ_H
#define PHPCMP_FAIRQ_H

#include <pthread.h>

#define FAIRQ_KEY 96    /* a client's name, cut beyond */
#define FAIRQ_RECENT 64 /* clients whose last turn is remembered */

struct fairq_waiter;

struct fairq {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int busy;                    /* a turn is taken */
	struct fairq_waiter *head;   /* waiting, in arrival order */
	int waiting;                 /* how many */
	unsigned long long arrivals; /* arrival numbers */
	unsigned long long turns;    /* turn numbers */
	struct {
		char key[FAIRQ_KEY];
		unsigned long long turn; /* its last turn; 0: unused slot */
	} recent[FAIRQ_RECENT];
};

void fairq_init(struct fairq *);
void fairq_destroy(struct fairq *);
/* Wait for the turn as client key; fairq_leave gives it back. */
void fairq_enter(struct fairq *, const char *key);
void fairq_leave(struct fairq *);
/* How many wait (for tests and health). */
int fairq_waiting(struct fairq *);

#endif
