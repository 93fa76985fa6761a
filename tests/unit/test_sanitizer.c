/* Unit tests for server/daemon/model/sanitizer.c: reports as gcc 12's
 * libsanitizer writes them, printing TAP. */
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "tap.h"

static const char asan_report[] =
    "=================================================================\n"
    "==8706==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x606000012834 at pc "
    "0x7f1 bp 0x7ff sp 0x7fe\n"
    "READ of size 1 at 0x606000012834 thread T0\n"
    "    #0 0x7f3c in php_json_escape_string /work/cache/php/trees/k/src/ext/json/json_encoder.c:349\n"
    "    #1 0x7f3d in php_json_encode_zval /work/cache/php/trees/k/src/ext/json/json_encoder.c:638:3\n"
    "    #2 0x7f3e in zif_json_encode /work/cache/php/trees/k/src/ext/json/json.c:214\n"
    "    #3 0x7f3f in execute_ex /work/cache/php/trees/k/src/Zend/zend_vm_execute.h:55\n"
    "\n"
    "0x606000012834 is located 4 bytes to the right of 48-byte region\n"
    "allocated by thread T0 here:\n"
    "    #0 0x7f40 in __interceptor_malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:69\n"
    "SUMMARY: AddressSanitizer: heap-buffer-overflow json_encoder.c:349 in php_json_escape_string\n";

static const char unsymbolized[] = "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n"
                                   "    #0 0x7f3c  (/x/lib/libphp.so+0x1234)\n";

static const char ubsan_report[] =
    "/x/src/Zend/zend_operators.c:2011:13: runtime error: shift exponent 64 is too large for "
    "64-bit type 'long int'\n"
    "    #0 0x7f in shift_left_function /x/src/Zend/zend_operators.c:2011\n";

int main(void)
{
	struct sanitizer_summary s;

	ok(sanitizer_summarize(asan_report, &s) == 0, "an ASan report is one");
	ok(strcmp(s.kind, "heap-buffer-overflow") == 0, "kind: %s", s.kind);
	ok(strcmp(s.access, "READ of size 1") == 0, "access: %s", s.access);
	ok(s.nframes == SANITIZER_FRAMES, "the top %d frames of the first stack only: %d", SANITIZER_FRAMES,
	    s.nframes);
	ok(strcmp(s.frames[0], "php_json_escape_string json_encoder.c:349") == 0, "frame 0: %s", s.frames[0]);
	ok(strcmp(s.frames[1], "php_json_encode_zval json_encoder.c:638") == 0,
	    "frame 1 without its column: %s", s.frames[1]);
	ok(strcmp(s.frames[2], "zif_json_encode json.c:214") == 0, "frame 2: %s", s.frames[2]);

	ok(sanitizer_summarize(unsymbolized, &s) == 0 && strcmp(s.kind, "SEGV") == 0 && s.access[0] == '\0',
	    "a SEGV: kind %s, no access", s.kind);
	ok(s.nframes == 1 && strcmp(s.frames[0], "libphp.so+0x1234") == 0,
	    "an unsymbolized frame names its module: %s", s.frames[0]);

	ok(sanitizer_summarize(ubsan_report, &s) == 0 && strcmp(s.kind, "undefined-behavior") == 0,
	    "a UBSan report: %s", s.kind);
	ok(strncmp(s.access, "shift exponent 64", 17) == 0, "its message is the access: %s", s.access);
	ok(s.nframes >= 1 && strcmp(s.frames[0], "zend_operators.c:2011") == 0, "its place first: %s",
	    s.frames[0]);

	ok(sanitizer_summarize("Warning: something\n", &s) == -1 && s.kind[0] == '\0',
	    "other text is no report");
	ok(sanitizer_summarize(NULL, &s) == -1, "NULL is no report");
	return tap_done();
}
