/*
 * libFuzzer harness: the callgrind dump reader (server/daemon/model/callgrind.c).
 * Any input parses or fails with a "line N: ..." message; a parsed profile
 * keeps its invariants: inclusive >= self >= 0, the selves sum to self_sum,
 * every function has a name.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cg_profile p;
	char err[160];

	memset(err, 0x55, sizeof(err));
	if (cg_parse((const char *)data, size, &p, err, sizeof(err)) < 0) {
		if (!memchr(err, '\0', sizeof(err)) || strncmp(err, "line ", 5) != 0)
			abort();
		if (p.funcs != NULL || p.n != 0)
			abort();
		return 0;
	}
	int64_t sum = 0;
	for (size_t i = 0; i < p.n; i++) {
		const struct cg_func *f = &p.funcs[i];
		if (!f->name || f->self < 0 || f->inclusive < f->self)
			abort();
		sum = sum > INT64_MAX - f->self ? INT64_MAX : sum + f->self;
	}
	if (sum != p.self_sum)
		abort();
	(void)cg_file_self(&p, "json_encoder.c");
	cg_release(&p);
	return 0;
}
