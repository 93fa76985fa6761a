/*
 * The commands that are clients of a daemon (the cli layer, under main.c):
 * `phpcmp review` (review.c).  They use the leaf library and HTTP, never the
 * daemon's own layers: what they know of a daemon is its API.
 */
#ifndef PHPCMP_CLI_H
#define PHPCMP_CLI_H

/* phpcmp review ARGS (argv without "review"): 0 every candidate the same
 * as the base, 1 differences, 2 an error. */
int review_command(int argc, char **argv);

#endif
