/*
 * The commands that are clients of a daemon (the cli layer, under main.c):
 * `phpcmp submit` (submit.c), `phpcmp review` (review.c) and `phpcmp bisect`
 * (bisect.c), what they share of HTTP (client.c), the processes review and
 * bisect start (proc.c: a daemon of their own among them), and the php-src git
 * repository review --src and bisect read (gitsrc.c).  They use the model, the leaf library and
 * HTTP (libcurl), never the daemon's own layers: what they know of a daemon
 * is its API.
 */
#ifndef PHPCMP_CLI_H
#define PHPCMP_CLI_H

#include <stddef.h>

struct curl_slist;
struct json_t;

/* Where a client finds the daemon unless told ($PHPCMP_URL, --url). */
#define CLIENT_DEFAULT_URL "http://127.0.0.1:8080"

/* libcurl's CURLOPT_WRITEFUNCTION into a struct buf (CURLOPT_WRITEDATA): at
 * most 64 MiB, past that the transfer fails and the buf says failed. */
size_t client_write(char *ptr, size_t size, size_t nmemb, void *buf);
/* A request's headers (curl_slist_free_all them; NULL: none): a JSON body's
 * (json), and "Authorization: Bearer TOKEN" when token is set and not empty
 * (getenv("PHPCMP_TOKEN") for a daemon of the user's, a proc_daemon's own). */
struct curl_slist *client_headers(int json, const char *token);
/* One request on curl (a CURL *, reset first): the HTTP status, or -1 on a
 * transport error (said as `phpcmp who`); the body in *text (caller frees)
 * when text is not NULL.  User agent phpcmp-WHO, no proxy, 900 s at most. */
long client_request(void *curl, const char *who, const char *method, const char *url, const char *body,
    const char *token, char **text);
/* base + path; the answer as JSON when its status is want or want2, NULL
 * (said, with the status and the start of the body) otherwise. */
struct json_t *client_json(void *curl, const char *who, const char *method, const char *base,
    const char *path, const char *body, const char *token, long want, long want2);
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

/* ---- proc.c: the processes review and bisect start ---- */

#include <limits.h>
#include <sys/types.h>

/* This executable's path into exe, and phpcmp's folder (where scripts/
 * are) into root: $PHPCMP_ROOT, or the first of the executable's three
 * parents holding scripts/build-php.sh.  0, or -1 said as `phpcmp who`. */
int proc_find_root(const char *who, char *exe, size_t exesize, char *root, size_t rootsize);
/* argv (argv[0] a path) with its standard output to stderr (the command's
 * result owns stdout), or stdout and stderr to log; envp NULL: ours.  Its
 * pid, or -1 said as `phpcmp who`. */
pid_t proc_spawn(const char *who, char *const argv[], const char *log, char *const envp[]);
/* Its exit status (128 + signal when killed), or -1. */
int proc_wait(pid_t pid);

/* A daemon of the command's own: `phpcmp serve` on a free loopback port,
 * answering only the token made for it (reads too). */
struct proc_daemon {
	pid_t pid; /* 0: not running */
	char url[128];
	char log_path[PATH_MAX + 32]; /* the caller names it before the start */
	char token[128];
};
/* Make d's token in db (`ARGV[0] token add`), start argv (`PHPCMP serve
 * ... --db DB`, NULL-ended; --read-auth on added) with its output in
 * d->log_path, and wait up to timeout_s for its URL.  0, or -1 said. */
int proc_daemon_start(struct proc_daemon *d, const char *who, char *const argv[], const char *db,
    char *const envp[], int timeout_s);
/* SIGTERM, then SIGKILL after 30 s; reaped. */
void proc_daemon_stop(struct proc_daemon *d);

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
