/*
 * HTTP (layer 6), its ground floor: http.c serves requests with
 * libmicrohttpd and hands each to the handler it was given (the API's:
 * api.h); it knows nothing of what the answers mean.
 */
#ifndef PHPCMP_HTTP_H
#define PHPCMP_HTTP_H

#include <stddef.h>

#include "model.h"

#define HTTP_MAX_QUERY 16
#define HTTP_MAX_HOSTS 8

/* Where and how the daemon serves (phpcmp serve's options, docs/config.md). */
struct http_config {
	const char *listen_addr;    /* default 127.0.0.1 */
	int port;                   /* default 8080; 0: any free port (http_port says which) */
	const char *web_dir;        /* the page; default web */
	int max_connections;        /* HTTP requests served at once; over it 503; default 128 */
	int max_client_connections; /* connections open from one address; default 256 */
	int max_client_uploads;     /* bodies one address sends past the grace at once; default 16 */
	/* Host names the daemon answers for besides its listen address and
	 * localhost (--host, repeatable): any other Host header is refused. */
	int nhosts;
	const char *hosts[HTTP_MAX_HOSTS];
};

struct http_request {
	const char *method;
	const char *path;         /* decoded, without the query string */
	const char *content_type; /* NULL when not sent */
	const char *body;         /* NUL-terminated, may hold NULs */
	size_t body_len;
	size_t nquery;
	int query_overflow;               /* more than HTTP_MAX_QUERY parameters were sent */
	const char *authorization;        /* the Authorization header, NULL when not sent */
	const struct auth_who *who;       /* set by api_handle for writes: who sent it (services.h) */
	char peer[48];                    /* the client's address ("127.0.0.2", "::1"), "" unknown */
	const struct http_config *server; /* the daemon's serving settings (health shows its limits) */
	struct {
		const char *key, *value;
	} query[HTTP_MAX_QUERY];
};

struct http_response {
	int status;
	char *body; /* malloc'd, owned by the response */
	size_t body_len;
	const char *content_type;     /* default application/json */
	const char *allow;            /* Allow header for 405 */
	char location[96];            /* Location header when not empty */
	char disposition[160];        /* Content-Disposition when not empty */
	int retry_after;              /* Retry-After seconds when > 0 (429, 503) */
	const char *www_authenticate; /* WWW-Authenticate header for 401 */
	/* Instead of body: bytes shared with other answers, not copied; sent
	 * as they are, then release(release_arg) once MHD is done with them. */
	const char *shared;
	size_t shared_len;
	void (*release)(void *);
	void *release_arg;
};

/* What answers the requests: answer always fills resp; error fills resp
 * with the handler's error shape, for the server's own refusals (a bad
 * Host, a body too large, over the connection limit...). */
struct http_handler {
	void (*answer)(void *arg, const struct http_request *, struct http_response *resp);
	void (*error)(struct http_response *resp, int status, const char *code, const char *message);
	void *arg;
};

/* A query parameter's value, or NULL. */
const char *http_query(const struct http_request *, const char *key);

struct http;
/* Bind the listening address (before the workers start: a port in use is
 * said at once), then serve on it; http_stop after either.  cfg must
 * outlive the server; the handler is copied. */
struct http *http_bind(const struct http_config *cfg, const struct http_handler *, char *err, size_t errsize);
int http_start(struct http *, char *err, size_t errsize);
void http_stop(struct http *);
/* The port actually bound (for --port 0). */
int http_port(const struct http *);

#endif
