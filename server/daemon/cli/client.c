/*
 * What the client commands (submit, review) share of HTTP: a response body
 * bounded in size, and the request headers (JSON, the token).
 */
#include <stdio.h>
#include <stdlib.h>

#include <curl/curl.h>

#include "buf.h"
#include "cli.h"

#define CLIENT_MAX_RESPONSE (64u << 20)

size_t client_write(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct buf *b = arg;
	size_t n = size * nmemb;

	if (n > CLIENT_MAX_RESPONSE - b->len)
		b->failed = 1;
	buf_add(b, ptr, n);
	return b->failed ? 0 : n;
}

struct curl_slist *client_headers(int json, int with_token)
{
	struct curl_slist *headers = NULL;
	const char *token = getenv("PHPCMP_TOKEN");

	if (json) {
		headers = curl_slist_append(headers, "Content-Type: application/json");
		headers = curl_slist_append(headers, "Expect:"); /* no 100-continue round trip */
	}
	if (with_token && token != NULL && *token != '\0') {
		char authorization[400];
		snprintf(authorization, sizeof authorization, "Authorization: Bearer %.300s", token);
		headers = curl_slist_append(headers, authorization);
	}
	return headers;
}
