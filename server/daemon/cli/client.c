/*
 * What the client commands (submit, review) share of HTTP: a response body
 * bounded in size, the request headers (JSON, the token), the daemon's URL
 * and what to do when a request fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <jansson.h>

#include "buf.h"
#include "cli.h"
#include "cmdline.h"
#include "model.h"

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

struct curl_slist *client_headers(int json, const char *token)
{
	struct curl_slist *headers = NULL;

	if (json) {
		headers = curl_slist_append(headers, "Content-Type: application/json");
		headers = curl_slist_append(headers, "Expect:"); /* no 100-continue round trip */
	}
	if (token != NULL && *token != '\0') {
		char authorization[400];
		snprintf(authorization, sizeof authorization, "Authorization: Bearer %.300s", token);
		headers = curl_slist_append(headers, authorization);
	}
	return headers;
}

int client_url(const char *in, char *out, size_t size, char *err, size_t errsize)
{
	const char *sep = strstr(in, "://");
	size_t len;

	if (*in == '\0') {
		snprintf(err, errsize, "the URL is empty: expected http://HOST:PORT");
		return -1;
	}
	if (sep != NULL &&
	    !((sep - in == 4 && strncasecmp(in, "http", 4) == 0) ||
	        (sep - in == 5 && strncasecmp(in, "https", 5) == 0))) {
		snprintf(err, errsize, "%.200s: expected http://HOST:PORT or https://HOST:PORT", in);
		return -1;
	}
	len = strlen(in);
	while (len > 0 && in[len - 1] == '/')
		len--;
	if ((size_t)snprintf(out, size, "%s%.*s", sep == NULL ? "http://" : "", (int)len, in) >= size) {
		snprintf(err, errsize, "the URL is too long");
		return -1;
	}
	return 0;
}

const char *client_connect_hint(int curlcode)
{
	switch (curlcode) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_OPERATION_TIMEDOUT:
		return "; is the daemon running? `make run` serves one on " CLIENT_DEFAULT_URL
		       ", and --url URL (or $PHPCMP_URL) names another";
	}
	return "";
}

const char *client_status_hint(long status)
{
	const char *token = getenv("PHPCMP_TOKEN");

	if (status != 401)
		return "";
	if (token != NULL && *token != '\0')
		return " (the token in $PHPCMP_TOKEN was refused: unknown or revoked; an operator makes "
		       "another with `phpcmp token add NAME --db DB`)";
	return " (set $PHPCMP_TOKEN to a token: an operator makes one with `phpcmp token add NAME --db DB`)";
}

long client_request(void *curl, const char *who, const char *method, const char *url, const char *body,
    const char *token, char **text)
{
	struct buf resp = BUF_INIT;
	struct curl_slist *headers = client_headers(body != NULL, token);
	char agent[64];
	long status = -1;
	CURLcode cc;

	snprintf(agent, sizeof agent, "phpcmp-%s/%s", who, PHPCMP_VERSION);
	curl_easy_reset(curl);
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, client_write);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &resp);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, 900L);
	curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(curl, CURLOPT_USERAGENT, agent);
	if (body != NULL)
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
	if (headers != NULL)
		curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
	if ((cc = curl_easy_perform(curl)) != CURLE_OK)
		cmd_error(who, "%s %s: %s", method, url, curl_easy_strerror(cc));
	else
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(headers);
	if (resp.failed)
		status = -1;
	if (text != NULL)
		*text = status < 0 ? NULL : buf_detach(&resp, NULL);
	buf_release(&resp);
	return status;
}

json_t *client_json(void *curl, const char *who, const char *method, const char *base, const char *path,
    const char *body, const char *token, long want, long want2)
{
	char url[512], *text = NULL;
	json_error_t je;
	json_t *j;

	snprintf(url, sizeof url, "%s%s", base, path);
	long status = client_request(curl, who, method, url, body, token, &text);
	if (status < 0) {
		free(text);
		return NULL;
	}
	j = text != NULL ? json_loads(text, 0, &je) : NULL;
	if (status != want && status != want2) {
		cmd_error(who, "%s %s: HTTP %ld: %.400s", method, path, status, text != NULL ? text : "");
		json_decref(j);
		j = NULL;
	} else if (j == NULL) {
		cmd_error(who, "%s %s: the answer is not JSON", method, path);
	}
	free(text);
	return j;
}
