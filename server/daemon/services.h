/*
 * Services (layer 4): triage rules, measurements, exports, auth.
 */
#ifndef PHPCMP_SERVICES_H
#define PHPCMP_SERVICES_H

#include "engine.h"
#include "http.h"

/* ---- auth.c ---- */
#define AUTH_NAME_MAX 64

/* Who sent a request: the token's owner, or nobody when writes are open. */
struct auth_who {
	int64_t token_id;             /* 0: no token was sent */
	char name[AUTH_NAME_MAX + 1]; /* the person or CI job; "" without a token */
};

/* 127.0.0.0/8, ::1 or ::ffff:127.x: only this machine can connect. */
int auth_is_loopback(const char *addr);
/* At startup: a non-loopback listen address needs at least one token. */
int auth_startup(struct app *, char *err, size_t errsize);
/*
 * May req write?  0 with who filled (name "" when writes are open and no
 * token was sent), or -1 with resp filled (401 naming what is wrong, 503 if
 * the token table cannot be read).  api_handle calls it for every write.
 */
int auth_identity(struct app *, const struct http_request *, struct auth_who *, struct http_response *);
/* Do writes need a token now (not loopback, or a token exists)?  1, 0, -1 with err. */
int auth_writes_closed(struct app *, char *err, size_t errsize);
/* May req read?  Open unless --read-auth; 0, or -1 with resp filled. */
int auth_read(struct app *, const struct http_request *, struct http_response *);
/* `phpcmp token add|list|revoke ...`: an exit status. */
int auth_token_command(int argc, char **argv);

/* ---- measure.c ---- */
/* Instruction-count reports of a run: JSON table, php-src-style Markdown. */
void measure_table(struct app *, int64_t run_id, const struct http_request *, struct http_response *);
void measure_report_md(struct app *, int64_t run_id, const struct http_request *, struct http_response *);
/* A workload's counts per build across runs (?source=FILE or ?case=ID). */
void measure_history(struct app *, const struct http_request *, struct http_response *);
/* The callgrind output file behind one build's count, for download. */
void measure_dump(struct app *, int64_t comparison_id, const char *role, struct http_response *);

/* ---- triage.c ---- */
/* The API (docs/api.md, Triage). */
void triage_buckets(struct app *, const struct http_request *, struct http_response *);
void triage_bucket(struct app *, int64_t id, struct http_response *);
void triage_mismatches(struct app *, int64_t id, const struct http_request *, struct http_response *);
/* POST a change to bucket id, or (id 0) to the buckets listed in the body's "ids". */
void triage_post(struct app *, int64_t id, const struct http_request *, struct http_response *);
void triage_events(struct app *, const struct http_request *, struct http_response *);
/* The bucket of a comparison as JSON (null when it has none). */
struct json_t *triage_case_bucket(struct app *, int64_t comparison_id);
/* Who makes this request (the person triage records): 0 with who, or -1 after answering 400. */
int triage_who(
    const struct http_request *, struct json_t *body, char *who, size_t whosize, struct http_response *);

/* ---- export.c ---- */
/* GET /api/cases/{id}/phpt and /casefile: format "phpt" or "casefile". */
void export_case(
    struct app *, int64_t case_id, const char *format, const struct http_request *, struct http_response *);

#endif
