/* A turn fair between clients: fairq.h. */
#include "fairq.h"

#include <stdio.h>
#include <string.h>

struct fairq_waiter {
	struct fairq_waiter *next;
	char key[FAIRQ_KEY];
	unsigned long long arrival;
	int granted;
};

void fairq_init(struct fairq *q)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
}

void fairq_destroy(struct fairq *q)
{
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
}

/* key's last turn, 0 when none is remembered. */
static unsigned long long fairq_last(const struct fairq *q, const char *key)
{
	for (int i = 0; i < FAIRQ_RECENT; i++)
		if (q->recent[i].turn != 0 && strcmp(q->recent[i].key, key) == 0)
			return q->recent[i].turn;
	return 0;
}

/* Remember key's turn, in its slot, a free one or the oldest. */
static void fairq_note(struct fairq *q, const char *key, unsigned long long turn)
{
	int slot = 0;
	for (int i = 0; i < FAIRQ_RECENT; i++) {
		if (q->recent[i].turn != 0 && strcmp(q->recent[i].key, key) == 0) {
			slot = i;
			break;
		}
		if (q->recent[i].turn < q->recent[slot].turn)
			slot = i;
	}
	snprintf(q->recent[slot].key, sizeof(q->recent[slot].key), "%s", key);
	q->recent[slot].turn = turn;
}

/* Under mu: the free turn to the waiter whose client waited longest since its last. */
static void fairq_grant(struct fairq *q)
{
	struct fairq_waiter **best = NULL;
	unsigned long long best_last = 0;

	if (q->busy || q->head == NULL)
		return;
	for (struct fairq_waiter **p = &q->head; *p != NULL; p = &(*p)->next) {
		unsigned long long last = fairq_last(q, (*p)->key);
		/* arrival order breaks ties: the first found of the least served */
		if (best == NULL || last < best_last) {
			best = p;
			best_last = last;
		}
	}
	struct fairq_waiter *w = *best;
	*best = w->next;
	q->waiting--;
	w->granted = 1;
	q->busy = 1;
	fairq_note(q, w->key, ++q->turns);
	pthread_cond_broadcast(&q->cv);
}

void fairq_enter(struct fairq *q, const char *key)
{
	struct fairq_waiter w = { NULL, "", 0, 0 };
	struct fairq_waiter **tail;

	snprintf(w.key, sizeof(w.key), "%s", key ? key : "");
	pthread_mutex_lock(&q->mu);
	w.arrival = ++q->arrivals;
	for (tail = &q->head; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = &w;
	q->waiting++;
	fairq_grant(q);
	while (!w.granted)
		pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
}

void fairq_leave(struct fairq *q)
{
	pthread_mutex_lock(&q->mu);
	q->busy = 0;
	fairq_grant(q);
	pthread_mutex_unlock(&q->mu);
}

int fairq_waiting(struct fairq *q)
{
	pthread_mutex_lock(&q->mu);
	int n = q->waiting;
	pthread_mutex_unlock(&q->mu);
	return n;
}
