/*
 * libFuzzer harness: a .phpt file read as run-tests.php reads it
 * (server/daemon/model/phpt.c).  A file that parses has its own FILE section
 * judged as output and diffed against its expectation: nothing may crash,
 * leak or read out of bounds, and a test always passes against its own
 * EXPECT text (a --REDIRECTTEST-- file aside: never judged).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phpt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct phpt t;
	size_t n;

	if (size > 8192)
		return 0;
	if (phpt_parse(&t, (const char *)data, size, NULL, NULL) == 0) {
		if (!t.sec[PHPT_FILE].data && !phpt_has(&t, PHPT_REDIRECTTEST) && !phpt_has(&t, PHPT_PHPDBG))
			abort();
		char *name = phpt_name(&t);
		free(name);
		if (phpt_has(&t, PHPT_EXPECT) || phpt_has(&t, PHPT_EXPECTF) ||
		    phpt_has(&t, PHPT_EXPECTREGEX)) {
			const struct phpt_text *f = &t.sec[PHPT_FILE];
			phpt_compare(&t, f->data ? f->data : "", f->len, NULL, 0);
			char *d = phpt_diff(&t, f->data ? f->data : "", f->len, &n);
			free(d);
		}
		/* (A --REDIRECTTEST-- file is not validated, as in run-tests.php, and
		 * never judged: it runs other folders' tests.  It may hold EXPECT
		 * beside EXPECTF, which the comparison prefers.) */
		if (phpt_has(&t, PHPT_EXPECT) && !phpt_has(&t, PHPT_REDIRECTTEST)) {
			const struct phpt_text *e = &t.sec[PHPT_EXPECT];
			if (phpt_compare(&t, e->data, e->len, NULL, 0) != PHPT_MATCH_PASS) {
				fprintf(stderr, "a test fails against its own EXPECT\n");
				abort();
			}
		}
	} else if (t.bork[0] == '\0') {
		/* -1 without a reason is out of memory only */
	}
	phpt_release(&t);
	return 0;
}
