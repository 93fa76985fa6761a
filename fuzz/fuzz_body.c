/*
 * libFuzzer harness: the request-body parser of POST /api/cases
 * (api_case_from_request: JSON, field checks, flags).  A refused body must
 * come with a 4xx (5xx only for out of memory) and a JSON error; an
 * accepted one with a case whose code is not empty.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_request req;
	struct http_response resp;
	struct case_spec c;
	char *body = malloc(size + 1);

	if (!body)
		return 0;
	memcpy(body, data, size);
	body[size] = '\0'; /* the daemon's bodies are NUL-terminated, may hold NULs */
	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	req.method = "POST";
	req.path = "/api/cases";
	req.content_type = "application/json";
	req.body = body;
	req.body_len = size;
	/* A first byte 0x01..0x03 picks another Content-Type and is not body. */
	if (size > 0 && data[0] >= 1 && data[0] <= 3) {
		static const char *const types[] = { NULL, "text/plain", "Application/JSON; charset=utf-8" };
		req.content_type = types[data[0] - 1];
		req.body = body + 1;
		req.body_len = size - 1;
	}
	case_init(&c);
	if (api_case_from_request(&req, &c, &resp) == 0) {
		if (!c.code || !c.title || c.depth < 1 || c.iterations < 0 || c.flags < 0)
			abort();
	} else {
		json_t *j = resp.body ? json_loadb(resp.body, resp.body_len, 0, NULL) : NULL;
		if (resp.status < 400 || resp.status > 503 || !j || !json_object_get(j, "error")) {
			fprintf(stderr, "refused with status %d and body %s\n", resp.status,
			    resp.body ? resp.body : "(none)");
			abort();
		}
		json_decref(j);
	}
	free(resp.body);
	case_release(&c);
	free(body);
	return 0;
}
