/*
 * What a sanitizer report says, in a few fields a bucket and a case page
 * can use: the kind of error, the access, the top frames.  The report is
 * AddressSanitizer's or UBSan's text as a worker of a sanitizer build sent
 * it (server/worker/sanitizer.c); gcc's libsanitizer writes e.g.
 *
 *   ==12==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6060... at pc ...
 *   READ of size 1 at 0x606000012834 thread T0
 *       #0 0x7f... in php_json_escape_string /x/src/ext/json/json_encoder.c:349
 *       #1 0x7f... in php_json_encode_zval /x/src/ext/json/json_encoder.c:638
 *
 * or, for UBSan, "/x/src/Zend/zend.c:12:5: runtime error: shift exponent ...".
 * Frames keep the function and the file's last component with its line (no
 * addresses, no folders): the same bug gives the same frames on any
 * machine and any build tree.
 */
#include <stdio.h>
#include <string.h>

#include "model.h"

/* The text of one line (up to its '\n') into out, bounded. */
static void line_copy(const char *s, char *out, size_t size)
{
	size_t n = strcspn(s, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* "#N 0x... in FUNC /path/file.c:L[:C]" -> "FUNC file.c:L"; 0, or -1. */
static int frame_parse(const char *line, char *out, size_t size)
{
	char buf[512];
	line_copy(line, buf, sizeof buf);
	char *in = strstr(buf, " in ");
	if (in == NULL) {
		/* "#0 0x7f3c  (/x/lib/libphp.so+0x1234)" when not symbolized: the
		 * module's name and the offset in it. */
		char *open = strchr(buf, '('), *close = open ? strchr(open, ')') : NULL;
		if (close == NULL)
			return -1;
		*close = '\0';
		char *slash = strrchr(open, '/');
		snprintf(out, size, "%.150s", slash ? slash + 1 : open + 1);
		return 0;
	}
	char *func = in + 4, *sp = strchr(func, ' '), *where = sp;
	if (sp != NULL) {
		*sp = '\0';
		where = sp + 1;
		char *slash = strrchr(where, '/');
		if (slash != NULL)
			where = slash + 1;
		char *col = strchr(where, ':');
		if (col != NULL && (col = strchr(col + 1, ':')) != NULL)
			*col = '\0'; /* drop the column */
		size_t n = strlen(where);
		if (n > 0 && where[n - 1] == ')')
			where[n - 1] = '\0';
	}
	snprintf(out, size, "%.96s%s%.60s", func, where && *where ? " " : "", where ? where : "");
	return 0;
}

int sanitizer_summarize(const char *report, struct sanitizer_summary *s)
{
	const char *p;
	memset(s, 0, sizeof(*s));
	if (report == NULL)
		return -1;
	if ((p = strstr(report, "ERROR: AddressSanitizer: ")) != NULL) {
		p += strlen("ERROR: AddressSanitizer: ");
		size_t n = strcspn(p, " \n");
		snprintf(s->kind, sizeof s->kind, "%.*s", (int)(n < 63 ? n : 63), p);
	} else if ((p = strstr(report, "runtime error: ")) != NULL) {
		snprintf(s->kind, sizeof s->kind, "undefined-behavior");
		/* UBSan names its place on the error line itself: "file.c:L:C: runtime error". */
		const char *start = p;
		while (start > report && start[-1] != '\n')
			start--;
		char where[256];
		snprintf(where, sizeof where, "%.*s", (int)(p - start), start);
		char *slash = strrchr(where, '/'), *w = slash ? slash + 1 : where;
		char *col = strchr(w, ':');
		if (col != NULL && (col = strchr(col + 1, ':')) != NULL)
			*col = '\0';
		line_copy(p + strlen("runtime error: "), s->access, sizeof s->access);
		if (*w != '\0')
			snprintf(s->frames[s->nframes++], sizeof s->frames[0], "%.150s", w);
	} else if ((p = strstr(report, "ERROR: ")) != NULL && strstr(report, "Sanitizer") != NULL) {
		line_copy(p + strlen("ERROR: "), s->kind, sizeof s->kind);
	} else {
		return -1;
	}
	/* The access: "READ of size 8 at 0x... thread T0" -> "READ of size 8". */
	const char *acc = strstr(report, "\nREAD of size ");
	if (acc == NULL)
		acc = strstr(report, "\nWRITE of size ");
	if (acc != NULL && s->access[0] == '\0') {
		line_copy(acc + 1, s->access, sizeof s->access);
		char *at = strstr(s->access, " at ");
		if (at != NULL)
			*at = '\0';
	}
	/* The first stack: frames "#0", "#1"... until a line that is none. */
	for (p = strstr(report, "    #0 "); p != NULL && s->nframes < SANITIZER_FRAMES;) {
		while (*p == ' ')
			p++;
		if (*p != '#')
			break;
		if (frame_parse(p, s->frames[s->nframes], sizeof s->frames[0]) == 0)
			s->nframes++;
		p = strchr(p, '\n');
		if (p == NULL)
			break;
		p++;
	}
	return 0;
}
