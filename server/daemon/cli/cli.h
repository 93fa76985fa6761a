/*
 * The commands that are clients of a daemon (the cli layer, under main.c):
 * `phpcmp submit` (submit.c) and `phpcmp review` (review.c), and what they
 * share of HTTP (client.c).  They use the model, the leaf library and
 * HTTP (libcurl), never the daemon's own layers: what they know of a daemon
 * is its API.
 */
#ifndef PHPCMP_CLI_H
#define PHPCMP_CLI_H

#include <stddef.h>

struct curl_slist;

/* Where a client finds the daemon unless told ($PHPCMP_URL, --url). */
#define CLIENT_DEFAULT_URL "http://127.0.0.1:8080"

/* libcurl's CURLOPT_WRITEFUNCTION into a struct buf (CURLOPT_WRITEDATA): at
 * most 64 MiB, past that the transfer fails and the buf says failed. */
size_t client_write(char *ptr, size_t size, size_t nmemb, void *buf);
/* A request's headers (curl_slist_free_all them; NULL: none): a JSON body's
 * (json), and "Authorization: Bearer $PHPCMP_TOKEN" when with_token and it is set. */
struct curl_slist *client_headers(int json, int with_token);

/* phpcmp submit ARGS (argv without "submit"): 0 every case the same, 1 some
 * case differs, 2 an error. */
int submit_command(int argc, char **argv);

/* phpcmp review ARGS (argv without "review"): 0 every candidate the same
 * as the base, 1 differences, 2 an error. */
int review_command(int argc, char **argv);

#endif
