/* Results and verdicts: what one build answered, and whether two agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "phpt.h"
#include "proto.h"

/* clang-format off */
static const char *const status_names[] = {
	[STATUS_OK] = "ok",
	[STATUS_ERROR] = "error",
	[STATUS_CRASH] = "crash",
	[STATUS_TIMEOUT] = "timeout",
	[STATUS_MEMORY_ERROR] = "memory-error",
};
/* clang-format on */

static const char *const role_names[MAX_BUILDS] = {
	"base",
	"head",
	"cand2",
	"cand3",
	"cand4",
	"cand5",
	"cand6",
	"cand7",
};

const char *role_name(int role)
{
	return role >= 0 && role < MAX_BUILDS ? role_names[role] : "other";
}

int role_parse(const char *name)
{
	for (int i = 0; name != NULL && i < MAX_BUILDS; i++)
		if (strcmp(name, role_names[i]) == 0)
			return i;
	return -1;
}

unsigned verdict_compare_all(const struct result *res, int n, unsigned per[MAX_BUILDS])
{
	unsigned all = 0, d;

	if (per != NULL)
		memset(per, 0, sizeof(unsigned) * MAX_BUILDS);
	for (int i = 1; i < n && i < MAX_BUILDS; i++) {
		d = verdict_compare(&res[ROLE_BASE], &res[i]);
		if (per != NULL)
			per[i] = d;
		all |= d;
	}
	return all;
}

void result_init(struct result *r)
{
	memset(r, 0, sizeof(*r));
	r->instructions = -1;
	r->instr_total = -1;
	r->iterations = -1;
}

void result_release(struct result *r)
{
	bytes_release(&r->output);
	bytes_release(&r->printed);
	free(r->error_msg);
	free(r->exc_class);
	free(r->exc_msg);
	free(r->warnings);
	free(r->failure);
	free(r->dump_file);
	free(r->compile_error);
	free(r->unsupported);
	result_init(r);
}

const char *result_status_name(enum result_status s)
{
	return (unsigned)s < sizeof(status_names) / sizeof(status_names[0]) ? status_names[s] : "unknown";
}

int result_status_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (!strcmp(status_names[i], name))
			return (int)i;
	return -1;
}

static int str_differ(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") != 0;
}

static int bytes_differ(const struct bytes *a, const struct bytes *b)
{
	return a->len != b->len || (a->len && memcmp(a->data, b->data, a->len) != 0);
}

/*
 * The verdict is about json_encode: status, output, json_last_error() and
 * its message, and any exception.  What a case printed and its warnings are
 * shown beside the results but do not make a mismatch: deprecation wording
 * changes between PHP versions and would drown the real differences.
 */
unsigned verdict_compare(const struct result *a, const struct result *b)
{
	/* A build the case is unsupported on has no answer to compare. */
	if (a->unsupported != NULL || b->unsupported != NULL)
		return 0;
	unsigned d = 0;
	if (a->status != b->status || (a->status == STATUS_CRASH && a->signal != b->signal))
		d |= DIFF_STATUS;
	if (a->output_is_false != b->output_is_false || bytes_differ(&a->output, &b->output))
		d |= DIFF_OUTPUT;
	if (a->error_code != b->error_code)
		d |= DIFF_ERROR_CODE;
	if (str_differ(a->error_msg, b->error_msg))
		d |= DIFF_ERROR_MSG;
	if (str_differ(a->exc_class, b->exc_class) || str_differ(a->exc_msg, b->exc_msg))
		d |= DIFF_EXCEPTION;
	/* An output too large to keep is compared by the size and md5 its
	 * failure names (server/common/proto.h). */
	if ((result_output_too_large(a) || result_output_too_large(b)) && str_differ(a->failure, b->failure))
		d |= DIFF_OUTPUT;
	return d;
}

int result_output_too_large(const struct result *r)
{
	return r->status == STATUS_ERROR && r->failure != NULL &&
	    strncmp(r->failure, PROTO_OUTPUT_TOO_LARGE, strlen(PROTO_OUTPUT_TOO_LARGE)) == 0;
}

void verdict_fields(unsigned diff, char *buf, size_t bufsize)
{
	/* clang-format off */
	static const struct { unsigned bit; const char *name; } names[] = {
		{ DIFF_STATUS, "status" }, { DIFF_OUTPUT, "output" },
		{ DIFF_ERROR_CODE, "error_code" }, { DIFF_ERROR_MSG, "error_msg" },
		{ DIFF_EXCEPTION, "exception" }, { DIFF_EXPECTED, "expected" },
	};
	/* clang-format on */
	size_t len = 0;
	if (bufsize)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(diff & names[i].bit))
			continue;
		int n = snprintf(buf + len, bufsize - len, "%s%s", len ? "," : "", names[i].name);
		if (n < 0 || (size_t)n >= bufsize - len)
			break;
		len += (size_t)n;
	}
}

unsigned verdict_expected(const char *expect, int expectf, const struct result *r)
{
	if (expect == NULL || r->unsupported != NULL)
		return 0;
	if (r->status != STATUS_OK || r->output_is_false || r->output.data == NULL)
		return DIFF_STATUS;
	if (expectf) /* out of memory (-1) is no match either */
		return phpt_expectf_match(expect, strlen(expect), r->output.data, r->output.len) == 1
		    ? 0
		    : DIFF_OUTPUT;
	return r->output.len != strlen(expect) || memcmp(r->output.data, expect, r->output.len) != 0
	    ? DIFF_OUTPUT
	    : 0;
}

unsigned verdict_expected_all(const char *expect, int expectf, const struct result *res, int n)
{
	for (int i = 0; expect != NULL && i < n && i < MAX_BUILDS; i++)
		if (verdict_expected(expect, expectf, &res[i]) != 0)
			return DIFF_EXPECTED;
	return 0;
}

void result_expected(struct result *r, const char *expect)
{
	result_init(r);
	r->status = STATUS_OK;
	r->output.data = (char *)expect;
	r->output.len = expect != NULL ? strlen(expect) : 0;
}

const char *result_ending(const struct result *r, char *buf, size_t bufsize)
{
	const char *f = r->failure != NULL ? r->failure : "", *sig;

	if (bufsize == 0)
		return NULL;
	buf[0] = '\0';
	switch (r->status) {
	case STATUS_OK:
		return NULL;
	case STATUS_CRASH:
		sig = sigabbrev_np(r->signal);
		if (sig != NULL)
			snprintf(buf, bufsize, "crashed: SIG%s", sig);
		else
			snprintf(buf, bufsize, "crashed: signal %d", r->signal);
		return buf;
	case STATUS_TIMEOUT:
		snprintf(buf, bufsize, "timed out");
		return buf;
	case STATUS_MEMORY_ERROR:
		/* Its kind is the result's memory_error (sanitizer.c). */
		snprintf(buf, bufsize, "hit a memory error");
		return buf;
	case STATUS_ERROR:
		break;
	}
	if (result_output_too_large(r))
		snprintf(buf, bufsize, "gave an output too large to keep");
	else if (strncmp(f, "exit()", 6) == 0)
		snprintf(buf, bufsize, "called exit()");
	else if (strstr(f, "Allowed memory size") != NULL)
		snprintf(buf, bufsize, "hit the memory limit");
	else if (r->exc_class != NULL)
		snprintf(buf, bufsize, "threw an uncaught %s", r->exc_class);
	else if (strstr(f, "Maximum execution time") != NULL)
		snprintf(buf, bufsize, "timed out");
	else if (strstr(f, "Fatal error") != NULL)
		snprintf(buf, bufsize, "hit a fatal error");
	else
		snprintf(buf, bufsize, "failed");
	return buf;
}

int result_case_error(const struct result *res, int n)
{
	int first = -1;
	for (int i = 0; i < n && i < MAX_BUILDS; i++) {
		if (res[i].compile_error != NULL && first < 0)
			first = i;
		else if (res[i].compile_error == NULL && res[i].unsupported == NULL)
			return -1; /* it compiled here: unsupported where it did not */
	}
	return first;
}

void result_unsupported_php(struct result *r, uint32_t min_php, const char *php_version)
{
	char why[160], failure[192];
	snprintf(why, sizeof why, "needs PHP %u.%u or newer (--MIN_PHP--); this build is PHP %s",
	    (unsigned)(min_php / 10000), (unsigned)(min_php / 100 % 100),
	    php_version != NULL && *php_version ? php_version : "of unknown version");
	snprintf(failure, sizeof failure, "%s%s", RESULT_UNSUPPORTED, why);
	result_release(r);
	r->status = STATUS_ERROR;
	r->output_is_false = 1;
	r->failure = strdup(failure);
	r->warnings = strdup("");
	r->unsupported = strdup(why);
}

int result_mark_unsupported(struct result *res, int n)
{
	int compiled = 0, count = 0;
	const size_t plen = strlen(RESULT_UNSUPPORTED);
	for (int i = 0; i < n && i < MAX_BUILDS; i++) {
		struct result *r = &res[i];
		/* A stored result: its failure says so. */
		if (r->unsupported == NULL && r->status == STATUS_ERROR && r->failure != NULL &&
		    strncmp(r->failure, RESULT_UNSUPPORTED, plen) == 0)
			r->unsupported = strdup(r->failure + plen);
		compiled += r->compile_error == NULL && r->unsupported == NULL;
	}
	for (int i = 0; i < n && i < MAX_BUILDS; i++) {
		struct result *r = &res[i];
		if (r->unsupported == NULL && r->compile_error != NULL && compiled > 0) {
			size_t len = strlen(r->compile_error) + 64;
			char *why = malloc(len), *failure = malloc(len + plen);
			if (why != NULL && failure != NULL) {
				snprintf(why, len, "does not compile: %s", r->compile_error);
				snprintf(failure, len + plen, "%s%s", RESULT_UNSUPPORTED, why);
				free(r->failure);
				r->failure = failure;
				r->unsupported = why;
			} else {
				free(why);
				free(failure);
			}
		}
		count += r->unsupported != NULL;
	}
	return count;
}

const char *verdict_name(unsigned diff, const struct result *res, int n)
{
	if (diff != 0)
		return "differ";
	for (int i = 0; res != NULL && i < n && i < MAX_BUILDS; i++)
		if (res[i].unsupported != NULL)
			return "unsupported";
	return "same";
}

const char *run_status_note(const char *status, const char *error, char *buf, size_t bufsize)
{
	const char *what = NULL;

	if (bufsize == 0)
		return "";
	buf[0] = '\0';
	if (status == NULL || strcmp(status, "done") == 0)
		return buf;
	if (strcmp(status, "queued") == 0 || strcmp(status, "running") == 0) {
		snprintf(buf, bufsize, " (the run is not done yet)");
		return buf;
	}
	what = strcmp(status, "failed") == 0     ? "The run failed"
	    : strcmp(status, "cancelled") == 0   ? "The run was cancelled"
	    : strcmp(status, "interrupted") == 0 ? "The run was interrupted"
	                                         : "The run did not finish";
	if (error != NULL && *error != '\0')
		snprintf(buf, bufsize, "\n\n**%s:** %s", what, error);
	else
		snprintf(buf, bufsize, "\n\n**%s**%s", what,
		    strcmp(status, "failed") == 0 ? " (no reason was recorded)" : "");
	return buf;
}
