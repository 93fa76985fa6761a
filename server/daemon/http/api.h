/*
 * The JSON API (docs/api.md), HTTP's upper floors: api.c routes each
 * request to its resource's file (api_<resource>.c, api_internal.h), and
 * api_reply.c makes every answer.  This is what the daemon hands the
 * server (http.h).
 */
#ifndef PHPCMP_API_H
#define PHPCMP_API_H

#include "http.h"

struct app;
/* The API as the server's handler: each request answered for app, and the
 * server's own refusals in the API's error shape. */
struct http_handler api_http_handler(struct app *);

#endif
