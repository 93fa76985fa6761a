/*
 * libmicrohttpd glue: listening, request bodies (bounded), the front door's
 * checks, static files from the web directory, and every other request
 * handed to the handler it was given (the API's, api.c).
 *
 * Threading: MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION.
 * A POST /api/cases blocks its thread until both workers answer (a few ms,
 * up to the case timeout), so handlers must be allowed to block; a thread per
 * connection keeps /api/health and the page responsive while a slow case runs
 * elsewhere, without a hand-rolled queue.  Clients are a browser, CI and the
 * submit command: tens of connections.  Over --max-connections requests
 * being served, a new one gets a 503 with Retry-After and is closed.
 * Connections still sending their headers or body do not count toward
 * that: a watchdog thread cuts one whose headers are 10 s overdue (its body
 * 30 s), a body slower than HTTP_MIN_BODY_RATE after a grace, and one
 * address's slow bodies beyond --max-client-uploads; one address may hold
 * --max-client-connections, and MHD refuses beyond HTTP_OPEN_FACTOR x
 * max-connections open sockets (docs/hardening.md).
 *
 * Every request passes http_front_door() first: Host, NUL, Content-Length,
 * and for writes Origin / Sec-Fetch-Site and Content-Type.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <microhttpd.h>

#include "http.h"

#define HTTP_SPARE_CONNECTIONS 16
#define HTTP_IDLE_TIMEOUT_S 60
/* A request's headers must arrive within this of the connection opening
 * (or of the previous request's end, on a kept-alive connection), its body
 * within HTTP_BODY_DEADLINE_MS of the headers: a client sending one header
 * line every few seconds never trips the idle timeout above. */
#define HTTP_HEADER_DEADLINE_MS 10000
#define HTTP_BODY_DEADLINE_MS 30000
/* A body still arriving after HTTP_BODY_GRACE_MS must have come at
 * HTTP_MIN_BODY_RATE bytes a second on average, and one address may have
 * --max-client-uploads such bodies at once: a client dribbling a byte
 * every 2 s is cut after the grace, and one address cannot hold many
 * threads with bodies just fast enough.  A body that arrives at once (any
 * real client's) is never either. */
#define HTTP_BODY_GRACE_MS 2000
#define HTTP_MIN_BODY_RATE 4096
/* Connections open at once, slow ones included: this many times
 * max-connections (which counts requests being served), at least 1024. */
#define HTTP_OPEN_FACTOR 8
#define HTTP_MIN_OPEN 1024
/* A body over the limit is read and dropped up to this, then cut. */
#define HTTP_MAX_DISCARD (16u << 20)

/* One open connection, for the deadlines (http_watchdog). */
enum http_phase { PHASE_HEADERS, PHASE_BODY, PHASE_SERVING, PHASE_CUT };

struct http_sock {
	struct http_sock *prev, *next;
	int fd;
	enum http_phase phase;
	double since_ms;
	size_t body_bytes;      /* of the request in PHASE_BODY so far */
	int family;             /* the client's address (AF_INET, AF_INET6, 0: unknown) */
	unsigned char addr[16]; /* ... its bytes, for the per-address upload count */
	int over;               /* scratch: the watchdog's per-address count */
};

struct http {
	struct http_handler handler;
	const struct http_config *cfg; /* the caller's, for as long as it serves */
	struct MHD_Daemon *daemon;
	char web_root[PATH_MAX];     /* canonical; "" when the folder is missing */
	char modules_root[PATH_MAX]; /* node_modules beside it (canonical), or "" */
	int port;
	int listen_fd;        /* bound by http_bind until MHD takes it; -1 after */
	int requests;         /* being served now (atomic): headers read, not yet completed */
	pthread_mutex_t lock; /* socks */
	struct http_sock socks;
	pthread_t watchdog;
	int watching, stopping;
};

/* Per request, from its request line (http_uri) to completion. */
struct http_conn {
	char *body;
	size_t len, cap;
	size_t discarded;
	int too_large;
	int nul;     /* the request-target holds %00 */
	int checked; /* the front door (http_front_door) has let it in */
	int counted; /* in http->requests */
};

static const struct {
	const char *suffix, *type;
} http_mime[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".htm", "text/html; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".mjs", "text/javascript; charset=utf-8" },
	{ ".json", "application/json" },
	{ ".map", "application/json" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".ico", "image/x-icon" },
	{ ".jpg", "image/jpeg" },
	{ ".jpeg", "image/jpeg" },
	{ ".gif", "image/gif" },
	{ ".ico", "image/x-icon" },
	{ ".webp", "image/webp" },
	{ ".woff", "font/woff" },
	{ ".woff2", "font/woff2" },
	{ ".txt", "text/plain; charset=utf-8" },
	{ ".md", "text/markdown; charset=utf-8" },
	{ ".phpt", "text/plain; charset=utf-8" },
	{ ".wasm", "application/wasm" },
};

static enum MHD_Result http_collect_query(
    void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct http_request *req = cls;

	(void)kind;
	if (req->nquery >= HTTP_MAX_QUERY) {
		req->query_overflow = 1; /* a 400 (api_handle), not silently dropped */
		return MHD_NO;
	}
	req->query[req->nquery].key = key;
	req->query[req->nquery].value = value != NULL ? value : "";
	req->nquery++;
	return MHD_YES;
}

/*
 * On every answer, the page's and the API's alike: no other origin may
 * frame it (a page on another site cannot put #/buckets/1 under a
 * transparent button), scripts only from the daemon itself (an injected
 * <script> or inline handler does not run), no MIME sniffing.
 */
#define HTTP_CSP "frame-ancestors 'none'; script-src 'self'; object-src 'none'; base-uri 'self'"

const char *http_query(const struct http_request *req, const char *key)
{
	size_t i;

	for (i = 0; i < req->nquery; i++)
		if (strcmp(req->query[i].key, key) == 0)
			return req->query[i].value;
	return NULL;
}

static void http_secure(struct MHD_Response *r)
{
	MHD_add_response_header(r, "Content-Security-Policy", HTTP_CSP);
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
}

/* Queue resp (its body handed over to MHD) and release it. */
static enum MHD_Result http_send(struct MHD_Connection *conn, struct http_response *resp)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (resp->release != NULL) {
		/* A buffer shared with other answers (a download): sent from
		 * where it is, released when MHD is done with it. */
		r = MHD_create_response_from_buffer_with_free_callback_cls(
		    resp->shared_len, (void *)resp->shared, resp->release, resp->release_arg);
		if (r == NULL) {
			resp->release(resp->release_arg);
			free(resp->body);
			return MHD_NO;
		}
		free(resp->body);
	} else {
		r = MHD_create_response_from_buffer(resp->body_len, resp->body, MHD_RESPMEM_MUST_FREE);
		if (r == NULL) {
			free(resp->body);
			return MHD_NO;
		}
	}
	resp->body = NULL;
	http_secure(r);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    resp->content_type != NULL ? resp->content_type : "application/json");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (resp->allow != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, resp->allow);
	if (resp->location[0] != '\0')
		MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, resp->location);
	if (resp->disposition[0] != '\0')
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION, resp->disposition);
	if (resp->retry_after > 0) {
		char secs[16];
		snprintf(secs, sizeof secs, "%d", resp->retry_after);
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, secs);
	}
	if (resp->www_authenticate != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, resp->www_authenticate);
	ret = MHD_queue_response(conn, (unsigned)resp->status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result http_send_error(struct http *h, struct MHD_Connection *conn, int status,
    const char *code, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* The server's own refusal, in the shape of the handler's errors. */
static enum MHD_Result http_send_error(
    struct http *h, struct MHD_Connection *conn, int status, const char *code, const char *fmt, ...)
{
	struct http_response resp;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	memset(&resp, 0, sizeof resp);
	h->handler.error(&resp, status, code, msg);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		resp.allow = "GET, HEAD";
	return http_send(conn, &resp);
}

/* Over the connection limit: a 503 now, and the connection closed after it. */
static enum MHD_Result http_send_busy(struct http *h, struct MHD_Connection *conn, int max)
{
	struct http_response resp;
	struct MHD_Response *r;
	enum MHD_Result ret;
	char secs[] = "1", msg[160];

	memset(&resp, 0, sizeof resp);
	snprintf(msg, sizeof msg,
	    "the daemon is serving %d requests, its limit (max-connections); retry in %s s", max, secs);
	h->handler.error(&resp, MHD_HTTP_SERVICE_UNAVAILABLE, "busy", msg);
	r = MHD_create_response_from_buffer(resp.body_len, resp.body, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(resp.body);
		return MHD_NO;
	}
	http_secure(r);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, secs);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(conn, MHD_HTTP_SERVICE_UNAVAILABLE, r);
	MHD_destroy_response(r);
	return ret;
}

static const char *http_mime_type(const char *path)
{
	size_t n = strlen(path), k, i;

	for (i = 0; i < sizeof http_mime / sizeof http_mime[0]; i++) {
		k = strlen(http_mime[i].suffix);
		if (n >= k && strcasecmp(path + n - k, http_mime[i].suffix) == 0)
			return http_mime[i].type;
	}
	return "application/octet-stream";
}

/*
 * The page's libraries, installed from package.json by `npm ci` into the
 * node_modules folder beside the web folder (make web-deps).  Of that
 * folder, only these files are served, each under its /vendor/ name.
 */
static const struct {
	const char *url, *file;
} http_vendor[] = {
	{ "/vendor/diff.js", "diff/dist/diff.min.js" },
	{ "/vendor/uPlot.js", "uplot/dist/uPlot.iife.min.js" },
	{ "/vendor/uPlot.css", "uplot/dist/uPlot.min.css" },
};

/*
 * A path is served only if every segment is an ordinary name: no "..", no
 * ".", no hidden files (.git and the like), no empty segments.
 */
static int http_path_ok(const char *path)
{
	const char *p = path;

	if (*p != '/')
		return 0;
	while (*p == '/') {
		p++;
		if (*p == '.' || *p == '/' || *p == '\0')
			return 0;
		while (*p != '/' && *p != '\0') {
			if (*p == '\\' || (unsigned char)*p < 0x20)
				return 0;
			p++;
		}
	}
	return 1;
}

static enum MHD_Result http_static(
    struct http *h, struct MHD_Connection *conn, const char *method, const char *url)
{
	char want[PATH_MAX], real[PATH_MAX], etag[80];
	const char *path = strcmp(url, "/") == 0 ? "/index.html" : url;
	const char *inm, *root = h->web_root;
	struct MHD_Response *r;
	struct stat st;
	size_t rootlen, i;
	enum MHD_Result ret;
	int fd;

	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return http_send_error(h, conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method_not_allowed",
		    "%s is not allowed on %s", method, url);
	if (strstr(path, "/../") != NULL ||
	    (strlen(path) >= 3 && strcmp(path + strlen(path) - 3, "/..") == 0))
		return http_send_error(
		    h, conn, MHD_HTTP_BAD_REQUEST, "bad_request", "path: '..' segments are not allowed");
	if (!http_path_ok(path))
		goto notfound;
	if (strncmp(path, "/vendor/", 8) == 0) {
		for (i = 0; i < sizeof http_vendor / sizeof http_vendor[0]; i++)
			if (strcmp(path, http_vendor[i].url) == 0)
				break;
		root = h->modules_root;
		if (i == sizeof http_vendor / sizeof http_vendor[0] || root[0] == '\0' ||
		    (size_t)snprintf(want, sizeof want, "%s/%s", root, http_vendor[i].file) >= sizeof want)
			goto notfound;
	} else if (root[0] == '\0' ||
	    (size_t)snprintf(want, sizeof want, "%s%s", root, path) >= sizeof want) {
		goto notfound;
	}
	rootlen = strlen(root);
	/* Canonical, and still inside its folder after symlinks. */
	if (realpath(want, real) == NULL || strncmp(real, root, rootlen) != 0 || real[rootlen] != '/')
		goto notfound;
	if ((fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		goto notfound;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		goto notfound;
	}
	snprintf(etag, sizeof etag, "\"%jx-%jx-%lx\"", (uintmax_t)st.st_ino, (uintmax_t)st.st_size,
	    (long)st.st_mtim.tv_sec ^ st.st_mtim.tv_nsec);
	inm = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
	if (inm != NULL && strcmp(inm, etag) == 0) {
		close(fd);
		r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
		if (r == NULL)
			return MHD_NO;
		http_secure(r);
		MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
		ret = MHD_queue_response(conn, MHD_HTTP_NOT_MODIFIED, r);
		MHD_destroy_response(r);
		return ret;
	}
	/* MHD owns fd from here. */
	if ((r = MHD_create_response_from_fd((size_t)st.st_size, fd)) == NULL) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, http_mime_type(real));
	MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
	/* Revalidate each time: assets change with the checkout, not the URL. */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	http_secure(r);
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
notfound:
	return http_send_error(h, conn, MHD_HTTP_NOT_FOUND, "not_found", "no such file: %s", url);
}

/* Append upload data, or drop it once over the limit. */
static int http_body_append(struct http_conn *c, const char *data, size_t len)
{
	if (c->too_large || len > MAX_BODY_SIZE - c->len) {
		c->too_large = 1;
		c->discarded += len;
		return c->discarded <= HTTP_MAX_DISCARD ? 0 : -1;
	}
	if (buf_grow(&c->body, &c->cap, c->len + len + 1) < 0)
		return -1;
	memcpy(c->body + c->len, data, len);
	c->len += len;
	c->body[c->len] = '\0';
	return 0;
}

/*
 * The request line, before MHD decodes it: a %00 would cut the decoded
 * path or query value short (/index.html%00../x is /index.html), so it is
 * noted here and refused by the front door.  What this returns becomes the
 * request's *con_cls.
 */
static void *http_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct http_conn *c;

	(void)cls;
	(void)conn;
	if ((c = calloc(1, sizeof *c)) == NULL)
		return NULL;
	c->nul = uri != NULL && strstr(uri, "%00") != NULL;
	return c;
}

/* Is name (a Host header's name, without its port) one this daemon answers for? */
static int http_host_ok(const struct http_config *cfg, const char *name)
{
	char addr[16];
	int i;

	if (strcasecmp(name, "localhost") == 0 || strcasecmp(name, cfg->listen_addr) == 0)
		return 1;
	for (i = 0; i < cfg->nhosts; i++)
		if (strcasecmp(name, cfg->hosts[i]) == 0)
			return 1;
	/* On a wildcard address any of the machine's addresses reaches the
	 * daemon: an address is never a name a rebinding page can own. */
	if (strcmp(cfg->listen_addr, "0.0.0.0") == 0 || strcmp(cfg->listen_addr, "::") == 0)
		return inet_pton(AF_INET, name, addr) == 1 || inet_pton(AF_INET6, name, addr) == 1;
	return 0;
}

/*
 * Split a Host header into its name and port: "name", "name:port",
 * "[v6]" or "[v6]:port".  The port, when there is one, must be decimal
 * digits only (no "localhost:abc", no "127.0.0.1:1@evil.com").  0 with
 * name and *port (-1 when absent), or -1 with why set.
 */
static int http_host_split(const char *host, char *name, size_t namesize, long *port, const char **why)
{
	const char *end, *p;
	size_t n;

	*port = -1;
	if (host[0] == '[') {
		if ((end = strchr(host, ']')) == NULL) {
			*why = "an IPv6 address without its closing ']'";
			return -1;
		}
		host++;
		n = (size_t)(end - host);
		p = end + 1;
	} else {
		n = strcspn(host, ":");
		p = host + n;
	}
	if (n == 0 || n >= namesize) {
		*why = n == 0 ? "no name" : "a name over 255 bytes";
		return -1;
	}
	if (*p != '\0' && *p != ':') {
		*why = "bytes after the name that are not a port";
		return -1;
	}
	if (*p == ':') {
		p++;
		if (*p == '\0' || strspn(p, "0123456789") != strlen(p) || strlen(p) > 5) {
			*why = "a port that is not a number";
			return -1;
		}
		*port = strtol(p, NULL, 10);
	}
	memcpy(name, host, n);
	name[n] = '\0';
	return 0;
}

/* How many times each header a request must not repeat was sent. */
struct http_once {
	int host, origin, content_type;
};

static enum MHD_Result http_count_once(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct http_once *o = cls;

	(void)kind, (void)value;
	if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0)
		o->host++;
	else if (strcasecmp(key, "Origin") == 0)
		o->origin++;
	else if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_TYPE) == 0)
		o->content_type++;
	return MHD_YES;
}

struct http_lengths {
	int n, differ, chunked;
	const char *first;
};

static enum MHD_Result http_count_lengths(
    void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct http_lengths *l = cls;

	(void)kind;
	if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0)
		l->chunked = 1;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) != 0)
		return MHD_YES;
	if (value == NULL)
		value = "";
	if (l->n++ == 0)
		l->first = value;
	else if (strcmp(l->first, value) != 0)
		l->differ = 1;
	return MHD_YES;
}

/*
 * Checks every request passes before anything else looks at it
 * (docs/hardening.md, "Who may write"): one Host, Origin and Content-Type
 * header at most; a Host, always, that the daemon answers for (a page on a
 * name rebound to 127.0.0.1 sends its own), with no port or the daemon's
 * own (digits only); no NUL in the path or query, one Content-Length and not both it and chunked; and for a write,
 * no foreign Origin or cross-site Sec-Fetch-Site (what a browser sends for
 * another site's fetch, form or beacon) and Content-Type application/json
 * (which another site can only send after a CORS preflight the daemon never
 * grants).  Returns 0 to go on, or the status of the refusal queued.
 */
static int http_front_door(struct http *h, struct MHD_Connection *conn, struct http_conn *c, const char *url,
    const char *method, enum MHD_Result *ret)
{
	const struct http_config *cfg = h->cfg;
	const char *host, *origin, *site, *ct;
	struct http_lengths lengths = { 0, 0, 0, NULL };
	struct http_once once = { 0, 0, 0 };
	char own[300], name[256];
	const char *why = "";
	long port;
	size_t n;

	/* One of each: with two, this check and the handler could read different ones. */
	MHD_get_connection_values(conn, MHD_HEADER_KIND, http_count_once, &once);
	if (once.host > 1 || once.origin > 1 || once.content_type > 1) {
		*ret = http_send_error(h, conn, MHD_HTTP_BAD_REQUEST, "bad_request",
		    "%d %s headers: send one",
		    once.host > 1         ? once.host
		        : once.origin > 1 ? once.origin
		                          : once.content_type,
		    once.host > 1         ? "Host"
		        : once.origin > 1 ? "Origin"
		                          : "Content-Type");
		return MHD_HTTP_BAD_REQUEST;
	}
	host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	if (host == NULL) {
		*ret = http_send_error(h, conn, MHD_HTTP_BAD_REQUEST, "bad_request",
		    "no Host header: send the daemon's name and port (Host: %s:%d)", cfg->listen_addr,
		    h->port);
		return MHD_HTTP_BAD_REQUEST;
	}
	if (http_host_split(host, name, sizeof name, &port, &why) < 0) {
		*ret = http_send_error(
		    h, conn, MHD_HTTP_BAD_REQUEST, "bad_request", "Host %.100s: %s", host, why);
		return MHD_HTTP_BAD_REQUEST;
	}
	if (!http_host_ok(cfg, name)) {
		*ret = http_send_error(h, conn, MHD_HTTP_FORBIDDEN, "host_not_allowed",
		    "Host %.100s is not a name this daemon answers for (its address %s, localhost, "
		    "or a name given with --host)",
		    host, cfg->listen_addr);
		return MHD_HTTP_FORBIDDEN;
	}
	if (port >= 0 && h->port > 0 && port != h->port) {
		*ret = http_send_error(h, conn, MHD_HTTP_BAD_REQUEST, "bad_request",
		    "Host %.100s: port %ld is not this daemon's (%d)", host, port, h->port);
		return MHD_HTTP_BAD_REQUEST;
	}
	if (c->nul) {
		*ret = http_send_error(h, conn, MHD_HTTP_BAD_REQUEST, "bad_request",
		    "the path or a query value holds a NUL byte (%%00)");
		return MHD_HTTP_BAD_REQUEST;
	}
	MHD_get_connection_values(conn, MHD_HEADER_KIND, http_count_lengths, &lengths);
	if (lengths.differ || (lengths.n > 0 && lengths.chunked)) {
		*ret = http_send_error(h, conn, MHD_HTTP_BAD_REQUEST, "bad_request",
		    lengths.differ ? "two different Content-Length headers"
		                   : "both Content-Length and Transfer-Encoding");
		return MHD_HTTP_BAD_REQUEST;
	}
	/* Writes: POST, and DELETE (a browser sends it cross-site only after
	 * a CORS preflight the daemon never grants; refused here as well). */
	if (strcmp(method, "POST") != 0 && strcmp(method, "DELETE") != 0)
		return 0;
	origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	site = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-Fetch-Site");
	snprintf(own, sizeof own, "http://%.280s", host);
	if (origin != NULL && strcasecmp(origin, own) != 0) {
		*ret = http_send_error(h, conn, MHD_HTTP_FORBIDDEN, "cross_origin",
		    "a write from another origin (%.100s) is refused: only the daemon's own page "
		    "(%.100s) and clients that send no Origin may write",
		    origin, own);
		return MHD_HTTP_FORBIDDEN;
	}
	if (site != NULL && strcasecmp(site, "same-origin") != 0 && strcasecmp(site, "none") != 0) {
		*ret = http_send_error(h, conn, MHD_HTTP_FORBIDDEN, "cross_origin",
		    "a write with Sec-Fetch-Site: %.32s is refused: only the daemon's own page may write",
		    site);
		return MHD_HTTP_FORBIDDEN;
	}
	if (strcmp(method, "DELETE") == 0)
		return 0; /* no body */
	ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	n = ct != NULL ? strcspn(ct, "; \t") : 0;
	if (ct == NULL || n != strlen("application/json") || strncasecmp(ct, "application/json", n) != 0) {
		*ret = http_send_error(h, conn, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type",
		    "a write needs Content-Type: application/json (%s%.100s%s on %.100s)",
		    ct != NULL ? "got \"" : "none sent", ct != NULL ? ct : "", ct != NULL ? "\"" : "", url);
		return MHD_HTTP_UNSUPPORTED_MEDIA_TYPE;
	}
	return 0;
}

static double http_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The watchdog's record of conn's socket, or NULL. */
static struct http_sock *http_sock_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
	    conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci != NULL ? ci->socket_context : NULL;
}

/* Move conn's socket to phase (the watchdog's clock restarts). */
static void http_phase(struct http *h, struct MHD_Connection *conn, enum http_phase phase)
{
	struct http_sock *s = http_sock_of(conn);

	if (s == NULL)
		return;
	pthread_mutex_lock(&h->lock);
	if (s->phase != PHASE_CUT) {
		s->phase = phase;
		s->since_ms = http_now_ms();
		s->body_bytes = 0;
	}
	pthread_mutex_unlock(&h->lock);
}

/* Bytes of conn's body arrived (the watchdog's rate). */
static void http_body_progress(struct http *h, struct MHD_Connection *conn, size_t n)
{
	struct http_sock *s = http_sock_of(conn);

	if (s == NULL)
		return;
	pthread_mutex_lock(&h->lock);
	s->body_bytes += n;
	pthread_mutex_unlock(&h->lock);
}

static int http_same_addr(const struct http_sock *a, const struct http_sock *b)
{
	return a->family != 0 && a->family == b->family &&
	    memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16) == 0;
}

static void http_cut(struct http_sock *s)
{
	shutdown(s->fd, SHUT_RDWR);
	s->phase = PHASE_CUT;
}

/*
 * Bodies past their grace: too slow on average, cut; then, per address,
 * those beyond --max-client-uploads (the newest first, so the ones nearly
 * done finish).  Under h->lock.
 */
static void http_watch_bodies(struct http *h, double now)
{
	int max = h->cfg->max_client_uploads;
	struct http_sock *s, *t;

	for (s = h->socks.next; s != &h->socks; s = s->next) {
		s->over = 0;
		if (s->phase != PHASE_BODY || now - s->since_ms <= HTTP_BODY_GRACE_MS)
			continue;
		if ((double)s->body_bytes < (now - s->since_ms) / 1000.0 * HTTP_MIN_BODY_RATE) {
			http_cut(s);
			continue;
		}
		s->over = 1;
	}
	/* The list is newest first: a socket with max older slow bodies from
	 * its address behind it is over the limit. */
	for (s = h->socks.next; s != &h->socks; s = s->next) {
		int older = 0;
		if (!s->over)
			continue;
		for (t = s->next; t != &h->socks && older < max; t = t->next)
			if (t->over && t->phase == PHASE_BODY && http_same_addr(s, t))
				older++;
		if (older >= max)
			http_cut(s);
	}
}

/*
 * Cuts connections whose headers or body are overdue: shutdown() wakes the
 * connection's thread, which sees the end of the stream and closes it.  The
 * socket is touched only under h->lock, and http_notify unlinks it under
 * the same lock before MHD closes it, so a descriptor is never reused here.
 */
static void *http_watchdog(void *arg)
{
	struct http *h = arg;
	struct http_sock *s;
	double now;

	while (!__atomic_load_n(&h->stopping, __ATOMIC_RELAXED)) {
		usleep(200 * 1000);
		now = http_now_ms();
		pthread_mutex_lock(&h->lock);
		for (s = h->socks.next; s != &h->socks; s = s->next) {
			if ((s->phase == PHASE_HEADERS && now - s->since_ms > HTTP_HEADER_DEADLINE_MS) ||
			    (s->phase == PHASE_BODY && now - s->since_ms > HTTP_BODY_DEADLINE_MS))
				http_cut(s);
		}
		http_watch_bodies(h, now);
		pthread_mutex_unlock(&h->lock);
	}
	return NULL;
}

/*
 * Its answer is queued: the request no longer counts toward
 * --max-connections.  Sending it is MHD's from here; a client that reads
 * it slowly (or never) holds its own connection, not a place others need.
 */
static enum MHD_Result http_answered(struct http *h, struct http_conn *c, enum MHD_Result ret)
{
	if (c->counted) {
		__atomic_sub_fetch(&h->requests, 1, __ATOMIC_RELAXED);
		c->counted = 0;
	}
	return ret;
}

/* The client's address as text (measured cases' turns are fair between them). */
static void http_peer(struct MHD_Connection *conn, char *out, size_t size)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
	    conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	out[0] = '\0';
	if (ci == NULL || ci->client_addr == NULL)
		return;
	const struct sockaddr *sa = ci->client_addr;
	if (sa->sa_family == AF_INET)
		inet_ntop(
		    AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out, (socklen_t)size);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out,
		    (socklen_t)size);
}

static enum MHD_Result http_access(void *cls, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload_data, size_t *upload_data_size,
    void **con_cls)
{
	struct http *h = cls;
	struct http_conn *c = *con_cls;
	struct http_request req;
	struct http_response resp;
	const char *cl, *expect;
	char *end;
	unsigned long long n;

	(void)version;
	if (c == NULL)
		return MHD_NO; /* http_uri found no memory */
	if (!c->checked) {
		/*
		 * First call: headers only.  A declared oversize body is refused
		 * unread only when the client waits for our go-ahead (Expect:
		 * 100-continue) or it is absurdly large: closing a connection with
		 * unread data makes the kernel send a reset, and a client still
		 * writing its body then loses our 413.  Otherwise the body is read
		 * and dropped (never stored) and the 413 follows.
		 */
		enum MHD_Result ret;
		c->checked = 1;
		http_phase(h, conn, PHASE_BODY);
		if (http_front_door(h, conn, c, url, method, &ret) != 0)
			return ret;
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl != NULL) {
			errno = 0;
			n = strtoull(cl, &end, 10);
			if (errno != 0 || end == cl || n > MAX_BODY_SIZE) {
				c->too_large = 1;
				expect = MHD_lookup_connection_value(
				    conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
				if (errno != 0 || end == cl || n > HTTP_MAX_DISCARD ||
				    (expect != NULL && strcasecmp(expect, "100-continue") == 0))
					return http_send_error(h, conn, MHD_HTTP_CONTENT_TOO_LARGE,
					    "too_large", "request body is over the %u byte limit",
					    MAX_BODY_SIZE);
			}
		}
		return MHD_YES;
	}
	if (*upload_data_size != 0) {
		http_body_progress(h, conn, *upload_data_size);
		if (http_body_append(c, upload_data, *upload_data_size) < 0)
			return MHD_NO; /* out of memory, or an endless oversize body */
		*upload_data_size = 0;
		return MHD_YES;
	}
	http_phase(h, conn, PHASE_SERVING);
	/* Requests being served, not connections open: a client still sending
	 * its headers or its body holds no place (the deadlines, the minimum
	 * body rate and the per-client limits bound those), so /api/health is
	 * never behind them. */
	c->counted = 1;
	if (__atomic_add_fetch(&h->requests, 1, __ATOMIC_RELAXED) > h->cfg->max_connections)
		return http_send_busy(h, conn, h->cfg->max_connections);
	if (c->too_large)
		return http_send_error(h, conn, MHD_HTTP_CONTENT_TOO_LARGE, "too_large",
		    "request body is over the %u byte limit", MAX_BODY_SIZE);

	if (strcmp(url, "/api") != 0 && strncmp(url, "/api/", 5) != 0)
		return http_answered(h, c, http_static(h, conn, method, url));

	memset(&req, 0, sizeof req);
	memset(&resp, 0, sizeof resp);
	req.method = method;
	req.path = url;
	req.content_type = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	req.authorization = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	req.body = c->body != NULL ? c->body : "";
	req.body_len = c->len;
	http_peer(conn, req.peer, sizeof req.peer);
	req.server = h->cfg;
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, http_collect_query, &req);
	h->handler.answer(h->handler.arg, &req, &resp);
	if (resp.status >= 500)
		fprintf(stderr, "phpcmp: %s %s: %d %.*s\n", method, url, resp.status,
		    (int)(resp.body_len < 300 ? resp.body_len : 300), resp.body != NULL ? resp.body : "");
	return http_answered(h, c, http_send(conn, &resp));
}

static void http_completed(
    void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct http *h = cls;
	struct http_conn *c = *con_cls;

	(void)toe;
	/* Kept alive: the next request's headers are due in their turn. */
	http_phase(h, conn, PHASE_HEADERS);
	if (c != NULL) {
		if (c->counted)
			__atomic_sub_fetch(&h->requests, 1, __ATOMIC_RELAXED);
		free(c->body);
		free(c);
		*con_cls = NULL;
	}
}

static void http_notify(
    void *cls, struct MHD_Connection *conn, void **socket_context, enum MHD_ConnectionNotificationCode toe)
{
	struct http *h = cls;
	struct http_sock *s = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		if ((s = calloc(1, sizeof *s)) == NULL)
			return; /* no deadline for this one; MHD's idle timeout remains */
		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		s->fd = ci != NULL ? ci->connect_fd : -1;
		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		if (ci != NULL && ci->client_addr != NULL) {
			const struct sockaddr *sa = ci->client_addr;
			if (sa->sa_family == AF_INET) {
				s->family = AF_INET;
				memcpy(s->addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
			} else if (sa->sa_family == AF_INET6) {
				s->family = AF_INET6;
				memcpy(
				    s->addr, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
			}
		}
		s->phase = s->fd >= 0 ? PHASE_HEADERS : PHASE_CUT;
		s->since_ms = http_now_ms();
		pthread_mutex_lock(&h->lock);
		s->next = h->socks.next;
		s->prev = &h->socks;
		h->socks.next->prev = s;
		h->socks.next = s;
		pthread_mutex_unlock(&h->lock);
		*socket_context = s;
	} else if (s != NULL) {
		pthread_mutex_lock(&h->lock);
		s->prev->next = s->next;
		s->next->prev = s->prev;
		pthread_mutex_unlock(&h->lock);
		free(s);
		*socket_context = NULL;
	}
}

static void http_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("phpcmp: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/*
 * The listening address, taken before anything else starts: a port in use
 * stops `phpcmp serve` at once, before its builds' cores are compiled and
 * their workers started (it used to say so only after them).  Bound, not
 * yet listening: a client that connects during the start is refused, as
 * before, rather than left waiting in the backlog.
 */
struct http *http_bind(
    const struct http_config *cfg, const struct http_handler *handler, char *err, size_t errsize)
{
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	struct sockaddr_storage got;
	struct sockaddr *sa;
	socklen_t salen, gotlen = sizeof got;
	int one = 1, family;
	struct http *h;

	if ((h = calloc(1, sizeof *h)) == NULL) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	h->handler = *handler;
	h->cfg = cfg;
	h->listen_fd = -1;
	h->socks.next = h->socks.prev = &h->socks;
	pthread_mutex_init(&h->lock, NULL);
	if (cfg->port < 0 || cfg->port > 65535) {
		snprintf(err, errsize, "port %d is out of range", cfg->port);
		goto fail;
	}
	memset(&sin, 0, sizeof sin);
	memset(&sin6, 0, sizeof sin6);
	if (inet_pton(AF_INET, cfg->listen_addr, &sin.sin_addr) == 1) {
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)cfg->port);
		sa = (struct sockaddr *)&sin;
		salen = sizeof sin;
	} else if (inet_pton(AF_INET6, cfg->listen_addr, &sin6.sin6_addr) == 1) {
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons((uint16_t)cfg->port);
		sa = (struct sockaddr *)&sin6;
		salen = sizeof sin6;
	} else {
		snprintf(err, errsize, "listen address %s is not an IPv4 or IPv6 address", cfg->listen_addr);
		goto fail;
	}
	family = sa->sa_family;
	/* CLOEXEC: the workers never hold the daemon's port. */
	h->listen_fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (h->listen_fd < 0) {
		snprintf(err, errsize, "cannot listen on %s port %d: socket: %s", cfg->listen_addr, cfg->port,
		    strerror(errno));
		goto fail;
	}
	/* As libmicrohttpd does for a socket of its own: a restart does not
	 * wait for the last daemon's connections in TIME_WAIT; a socket that
	 * listens on the port still refuses the bind.  An IPv6 address is
	 * that address alone (no IPv4-mapped twin). */
	setsockopt(h->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (family == AF_INET6)
		setsockopt(h->listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	if (bind(h->listen_fd, sa, salen) < 0) {
		int e = errno;
		snprintf(err, errsize, "cannot listen on %s port %d: %s%s", cfg->listen_addr, cfg->port,
		    strerror(e),
		    e == EADDRINUSE ? " (another program holds it: stop it, or serve on another "
		                      "--port; nothing was started)"
		                    : "");
		goto fail;
	}
	if (getsockname(h->listen_fd, (struct sockaddr *)&got, &gotlen) == 0)
		h->port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
		                                          : ((struct sockaddr_in *)&got)->sin_port);
	else
		h->port = cfg->port;
	return h;
fail:
	http_stop(h);
	return NULL;
}

int http_start(struct http *h, char *err, size_t errsize)
{
	const struct http_config *cfg = h->cfg;
	int open_limit;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;

	/* A missing web folder is not fatal: the API still works. */
	if (realpath(cfg->web_dir, h->web_root) == NULL) {
		fprintf(stderr, "phpcmp: web folder %s: %s (serving the API only)\n", cfg->web_dir,
		    strerror(errno));
		h->web_root[0] = '\0';
	} else {
		char modules[PATH_MAX + 32];
		snprintf(modules, sizeof modules, "%s/../node_modules", h->web_root);
		if (realpath(modules, h->modules_root) == NULL) {
			fprintf(stderr, "phpcmp: %s: %s (the page's libraries are missing: make web-deps)\n",
			    modules, strerror(errno));
			h->modules_root[0] = '\0';
		}
	}
	if (listen(h->listen_fd, SOMAXCONN) < 0) {
		snprintf(err, errsize, "cannot listen on %s port %d: %s", cfg->listen_addr, h->port,
		    strerror(errno));
		return -1;
	}
	/* The logger first, so MHD's own messages about later options use it. */
	open_limit = cfg->max_connections * HTTP_OPEN_FACTOR;
	if (open_limit < HTTP_MIN_OPEN)
		open_limit = HTTP_MIN_OPEN;
	if (pthread_create(&h->watchdog, NULL, http_watchdog, h) != 0) {
		snprintf(err, errsize, "cannot start the connection watchdog");
		return -1;
	}
	h->watching = 1;
	h->daemon = MHD_start_daemon(flags, (uint16_t)h->port, NULL, NULL, http_access, h,
	    MHD_OPTION_EXTERNAL_LOGGER, http_log, h, MHD_OPTION_LISTEN_SOCKET, h->listen_fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)(open_limit + HTTP_SPARE_CONNECTIONS),
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)cfg->max_client_connections,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_IDLE_TIMEOUT_S, MHD_OPTION_NOTIFY_COMPLETED,
	    http_completed, h, MHD_OPTION_NOTIFY_CONNECTION, http_notify, h, MHD_OPTION_URI_LOG_CALLBACK,
	    http_uri, h, MHD_OPTION_END);
	/* The socket is MHD's now (MHD_stop_daemon closes it); after a failed
	 * start it may have been closed too, so it is not closed again here. */
	h->listen_fd = -1;
	if (h->daemon == NULL) {
		snprintf(err, errsize, "cannot serve on %s port %d", cfg->listen_addr, h->port);
		return -1;
	}
	return 0;
}

void http_stop(struct http *h)
{
	if (h == NULL)
		return;
	if (h->daemon != NULL)
		MHD_stop_daemon(h->daemon);
	if (h->listen_fd >= 0)
		close(h->listen_fd);
	if (h->watching) {
		__atomic_store_n(&h->stopping, 1, __ATOMIC_RELAXED);
		pthread_join(h->watchdog, NULL);
	}
	pthread_mutex_destroy(&h->lock);
	free(h);
}

int http_port(const struct http *h)
{
	return h->port;
}
