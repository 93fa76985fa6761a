/*
 * genphp SEED START COUNT: generated cases (server/common/gen.c) as one PHP
 * CLI script printing the hand method's `index json_last_error md5(output)`
 * line per case -- an independent check of a generated run's counts with a
 * build's own bin/php (tests/integration/heavy.test.mjs): only the
 * generator is shared with phpcmp, not the worker, its digests or the
 * daemon's comparison.
 *
 *   genphp 1 0 5000 > cases.php && bin/php -n cases.php [FIRST] > lines.txt
 *
 * FIRST (default START) skips the cases before it: after a crash, the
 * script goes on from the case after the last line printed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gen.h"

int main(int argc, char **argv)
{
	static struct gen_case c;
	size_t len;
	const char *decl;

	if (argc != 4) {
		fprintf(stderr, "usage: genphp SEED START COUNT\n");
		return 2;
	}
	uint64_t seed = strtoull(argv[1], NULL, 10);
	uint64_t start = strtoull(argv[2], NULL, 10), count = strtoull(argv[3], NULL, 10);
	if ((decl = gen_declarations(&len)) == NULL)
		return 1;
	printf("<?php\n%.*s\n$first = (int)($argv[1] ?? %llu);\n", (int)len, decl, (unsigned long long)start);
	for (uint64_t i = start; i < start + count; i++) {
		struct gen_buf code = { 0 };
		gen_case_make(&c, seed, i);
		if (gen_render_value(&c, &code) < 0 || code.failed)
			return 1;
		/* A sequence's source is statements ending in `return $v;`: a
		 * closure called at once makes its earlier calls, then the value. */
		printf("if ($first <= %llu) {\n"
		       "\ttry { $j = json_encode(%s%.*s%s, %llu, %llu); $e = json_last_error(); }\n"
		       "\tcatch (Throwable $x) { $j = get_class($x) . ': ' . $x->getMessage(); $e = 'x'; }\n"
		       "\techo '%llu ', $e, ' ', md5($j === false ? 'false' : $j), \"\\n\";\n}\n",
		    (unsigned long long)i, c.npre > 0 ? "(function () { " : "", (int)code.len, code.data,
		    c.npre > 0 ? " })()" : "", (unsigned long long)c.flags, (unsigned long long)c.depth,
		    (unsigned long long)i);
		gen_buf_release(&code);
	}
	return 0;
}
