/* The one monotonic clock (clock.c); also compiled into the worker loader and each core. */
#ifndef PHPCMP_CLOCK_H
#define PHPCMP_CLOCK_H

/* CLOCK_MONOTONIC in milliseconds, with the fraction. */
double clock_ms(void);

#endif
