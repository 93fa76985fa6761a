/*
 * The commands that are clients of a daemon (the cli layer, under main.c):
 * `phpcmp submit` (submit.c), `phpcmp review` (review.c) and `phpcmp bisect`
 * (bisect.c), what they share of HTTP (client.c), and the php-src git
 * repository review --src and bisect read (gitsrc.c).  They use the model, the leaf library and
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
/* A daemon's URL as a client takes it into out: "HOST:PORT" without a
 * scheme gets http://, trailing slashes go.  0, or -1 with why in err (a
 * scheme other than http or https). */
int client_url(const char *in, char *out, size_t size, char *err, size_t errsize);
/* What to do about a request that got no answer (libcurl's CURLcode): ";
 * is the daemon running? ..." when it could not connect, else "". */
const char *client_connect_hint(int curlcode);
/* What to do about an HTTP error status: for 401, " (set $PHPCMP_TOKEN ...)"
 * or that the one set was refused; else "". */
const char *client_status_hint(long status);

/* phpcmp submit ARGS (argv without "submit"): 0 every case the same, 1 some
 * case differs, 2 an error. */
int submit_command(int argc, char **argv);

/* phpcmp review ARGS (argv without "review"): 0 every candidate the same
 * as the base, 1 differences, 2 an error. */
int review_command(int argc, char **argv);

/* phpcmp bisect ARGS (argv without "bisect"): 0 the first bad commit found,
 * 1 none can be named (the same answer at both ends, or only commits that
 * do not build left), 2 an error. */
int bisect_command(int argc, char **argv);

/* ---- gitsrc.c: a php-src repository, read only (git -C SRC ...) ---- */

#define GITSRC_ID_MAX 72 /* a commit id (40 or 64 hex digits) and its NUL */

struct gitsrc_list {
	char (*ids)[GITSRC_ID_MAX];
	size_t n;
};

/* 0 when src is a git repository (a checkout or bare), -1 said. */
int gitsrc_check(const char *src);
/* The full id of the commit ref names: 0, or -1 said. */
int gitsrc_commit(const char *src, const char *ref, char id[GITSRC_ID_MAX]);
int gitsrc_merge_base(const char *src, const char *a, const char *b, char id[GITSRC_ID_MAX]);
/* 1 when commit a is an ancestor of b (or b itself), 0 not, -1 git failed. */
int gitsrc_is_ancestor(const char *src, const char *a, const char *b);
/* The commit's subject line (or "(no subject)"). */
void gitsrc_subject(const char *src, const char *commit, char *out, size_t size);
/* git rev-list --first-parent --reverse FROM..TO [-- PATHS]: oldest first.
 * 0 (release it), or -1 said. */
int gitsrc_range(const char *src, const char *from, const char *to, char *const paths[], int npaths,
    struct gitsrc_list *l);
void gitsrc_list_release(struct gitsrc_list *l);

#endif
