/*
 * phpcmp submit: stored-format case files (docs/cases.md) run on a daemon's
 * builds, one POST /api/cases each, the verdicts printed for CI (a client:
 * what it knows of the daemon is its API).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <curl/curl.h>
#include <jansson.h>

#include "buf.h"
#include "cli.h"
#include "cmdline.h"
#include "model.h"

#define SUBMIT_TIMEOUT_S 600

/* The case as the API's JSON body; NULL (with a message) if it can't be. */
static char *submit_case_body(const struct case_spec *c, const char *path)
{
	json_t *o = json_object(), *v;
	char *text = NULL;
	struct {
		const char *key, *value;
	} strs[] = {
		{ "title", c->title },
		{ "code", c->code },
		{ "setup", c->setup },
		{ "expect", c->expect },
	};
	size_t i;

	if (o == NULL)
		goto oom;
	for (i = 0; i < sizeof strs / sizeof strs[0]; i++) {
		if (strs[i].value == NULL)
			continue;
		/* JSON carries text: bytes that are not UTF-8 can't be submitted. */
		if ((v = json_string(strs[i].value)) == NULL) {
			cmd_error(NULL,
			    "%s: the %s is not valid UTF-8, which the JSON API cannot carry "
			    "(write such bytes as \"\\xNN\" escapes in PHP strings)",
			    path, strs[i].key);
			json_decref(o);
			return NULL;
		}
		json_object_set_new(o, strs[i].key, v);
	}
	json_object_set_new(o, "flags", json_integer(c->flags));
	json_object_set_new(o, "depth", json_integer(c->depth));
	if (c->iterations > 0)
		json_object_set_new(o, "measure", json_integer(c->iterations));
	if (c->expectf)
		json_object_set_new(o, "expectf", json_true());
	if (c->min_php != 0) {
		char ver[32];
		snprintf(ver, sizeof ver, "%u.%u.%u", (unsigned)(c->min_php / 10000),
		    (unsigned)(c->min_php / 100 % 100), (unsigned)(c->min_php % 100));
		json_object_set_new(o, "min_php", json_string(ver));
	}
	if ((text = json_dumps(o, JSON_COMPACT)) == NULL)
		goto oom;
	json_decref(o);
	return text;
oom:
	json_decref(o);
	cmd_error(NULL, "out of memory");
	return NULL;
}

static void submit_print_output(const char *role, json_t *r)
{
	json_t *out = json_object_get(r, "output");
	const char *status = json_string_value(json_object_get(r, "status"));
	const char *failure = json_string_value(json_object_get(r, "failure"));

	printf("  %s (%s): ", role, status != NULL ? status : "?");
	if (json_is_string(out))
		printf("%.300s%s", json_string_value(out), json_string_length(out) > 300 ? "..." : "");
	else
		printf("false (error %" JSON_INTEGER_FORMAT ")",
		    json_integer_value(json_object_get(r, "error_code")));
	if (failure != NULL)
		printf(" [%.200s]", failure);
	putchar('\n');
}

/* The case files to submit: each path a file, or a folder's *.phpt (searched
 * recursively, in name order).  0, or -1 with a message. */
/* A folder's case files (casefile_find, 16 folders deep at most), each as DIR/PATH. */
static int submit_files_dir(struct path_list *files, const char *dir)
{
	struct path_list found = { NULL, 0, 0 };
	char path[PATH_MAX], err[PATH_MAX + 128];
	int rc = 0;

	if (casefile_find(dir, "submit: ", 16, 0, &found, err, sizeof err) < 0)
		return cmd_error(NULL, "%s", err);
	if (found.n == 0)
		rc = cmd_error(NULL, "submit: %s: no *.phpt case file in it", dir);
	for (size_t i = 0; i < found.n && rc == 0; i++) {
		if (snprintf(path, sizeof path, "%s/%s", dir, found.path[i]) >= (int)sizeof path)
			continue;
		if (path_list_add(files, path) < 0)
			rc = cmd_error(NULL, "out of memory");
	}
	path_list_release(&found);
	return rc;
}

/* The line of the file where a section's text starts ("--VALUE--" + 1), or 0. */
static long submit_section_line(const char *text, size_t len, const char *section)
{
	char header[32];
	long line = 1;
	size_t hl, i = 0;

	snprintf(header, sizeof header, "--%s--", section);
	for (char *u = header; *u; u++)
		*u = (char)(*u >= 'a' && *u <= 'z' ? *u - 'a' + 'A' : *u);
	hl = strlen(header);
	while (i < len) {
		if (len - i >= hl && memcmp(text + i, header, hl) == 0 &&
		    (i + hl == len || text[i + hl] == '\n' || text[i + hl] == '\r'))
			return line + 1;
		while (i < len && text[i] != '\n')
			i++;
		i++;
		line++;
	}
	return 0;
}

/*
 * A case error (422 case_error) as a compiler would say it, against the
 * case file's own lines: "FILE:LINE:COLUMN: error: MESSAGE (--VALUE-- line
 * 1, column 6)".
 */
static void submit_case_error(const char *file, const char *text, size_t len, json_t *e)
{
	const char *section = json_string_value(json_object_get(e, "section"));
	const char *detail = json_string_value(json_object_get(e, "detail"));
	json_int_t line = json_integer_value(json_object_get(e, "line"));
	json_int_t col = json_integer_value(json_object_get(e, "column"));
	long start = section != NULL ? submit_section_line(text, len, section) : 0;
	char where[96] = "";

	if (section != NULL) {
		snprintf(where, sizeof where, " (--%s-- line %" JSON_INTEGER_FORMAT, section, line);
		for (char *u = where + 4; *u && *u != '-'; u++)
			*u = (char)(*u >= 'a' && *u <= 'z' ? *u - 'a' + 'A' : *u);
		if (col > 0)
			snprintf(where + strlen(where), sizeof where - strlen(where),
			    ", column %" JSON_INTEGER_FORMAT, col);
		snprintf(where + strlen(where), sizeof where - strlen(where), ")");
	}
	if (start > 0 && line > 0 && col > 0)
		printf("error: %s:%" JSON_INTEGER_FORMAT ":%" JSON_INTEGER_FORMAT ": %s%s\n", file,
		    start + line - 1, col, detail != NULL ? detail : "does not compile", where);
	else if (start > 0 && line > 0)
		printf("error: %s:%" JSON_INTEGER_FORMAT ": %s%s\n", file, start + line - 1,
		    detail != NULL ? detail : "does not compile", where);
	else
		printf("error: %s: %s%s\n", file, detail != NULL ? detail : "does not compile", where);
}

/* Submit one case file: 0 same, 1 differ, 2 error (said on stderr or stdout),
 * 3 same but every build ended without an answer ("ended": crashed...),
 * 4 unsupported on some build (it did not compile there, or --MIN_PHP--), the rest the same. */
static int submit_one(CURL *curl, const char *endpoint, const char *url, size_t ulen, const char *file)
{
	const char *verdict, *caseurl;
	struct buf resp = BUF_INIT;
	struct case_spec c;
	char err[512], *text = NULL, *body = NULL, curlerr[CURL_ERROR_SIZE];
	json_t *j = NULL, *differs, *e;
	json_error_t jerr;
	long status = 0;
	size_t len, i;
	CURLcode cc;
	int rc = 2;

	case_init(&c);
	if ((text = bytes_read_file(file, MAX_BODY_SIZE, &len, err, sizeof err)) == NULL) {
		cmd_error(NULL, "%s: %s", file, err);
		goto out;
	}
	if (casefile_parse(text, len, &c, err, sizeof err) < 0) {
		cmd_error(NULL, "%s: %s", file, err);
		goto out;
	}
	if ((body = submit_case_body(&c, file)) == NULL)
		goto out;
	curlerr[0] = '\0';
	curl_easy_setopt(curl, CURLOPT_URL, endpoint);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &resp);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curlerr);
	if ((cc = curl_easy_perform(curl)) != CURLE_OK) {
		cmd_error(NULL, "%s: %s%s", endpoint, curlerr[0] != '\0' ? curlerr : "request failed",
		    client_connect_hint((int)cc));
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	if (resp.data == NULL || (j = json_loadb(resp.data, resp.len, 0, &jerr)) == NULL) {
		cmd_error(NULL, "%s: HTTP %ld with a body that is not JSON", endpoint, status);
		goto out;
	}
	if (json_is_object(e = json_object_get(j, "error"))) {
		verdict = json_string_value(json_object_get(e, "code"));
		caseurl = json_string_value(json_object_get(e, "message"));
		/* A case that does not compile is said once, as a compiler says it. */
		if (status == 422 && verdict != NULL && strcmp(verdict, "case_error") == 0) {
			submit_case_error(file, text, len, e);
			goto out;
		}
		cmd_error(NULL, "%s: HTTP %ld %s: %s%s", file, status, verdict != NULL ? verdict : "error",
		    caseurl != NULL ? caseurl : "", client_status_hint(status));
		goto out;
	}
	verdict = json_string_value(json_object_get(j, "verdict"));
	caseurl = json_string_value(json_object_get(j, "url"));
	if ((status != 201 && status != 409) || verdict == NULL) {
		cmd_error(NULL, "%s: unexpected answer (HTTP %ld)", endpoint, status);
		goto out;
	}
	printf("%s", verdict);
	differs = json_object_get(j, "differs");
	for (i = 0; i < json_array_size(differs); i++)
		printf("%s%s", i == 0 ? " (" : ", ", json_string_value(json_array_get(differs, i)));
	/* The same everywhere, but no build ran to its end: said how. */
	const char *ended = json_string_value(json_object_get(j, "ended"));
	size_t nbuilds = json_object_size(json_object_get(j, "results"));
	if (ended != NULL && nbuilds == 2)
		printf(" (both %s)", ended);
	else if (ended != NULL)
		printf(" (all %zu %s)", nbuilds, ended);
	printf("%s: %s\n", json_array_size(differs) > 0 ? ")" : "", c.title != NULL ? c.title : file);
	if (strcmp(verdict, "same") != 0) {
		submit_print_output("base", json_object_get(json_object_get(j, "results"), "base"));
		submit_print_output("head", json_object_get(json_object_get(j, "results"), "head"));
		if (c.expect != NULL && json_is_object(json_object_get(j, "expected")))
			printf("  expected: %.300s%s\n", c.expect, strlen(c.expect) > 300 ? "..." : "");
	}
	printf("case: %.*s%s\n", (int)ulen, url, caseurl != NULL ? caseurl : "");
	rc = strcmp(verdict, "same") == 0         ? (ended != NULL ? 3 : 0)
	    : strcmp(verdict, "differ") == 0      ? 1
	    : strcmp(verdict, "unsupported") == 0 ? 4
	                                          : 2;
out:
	fflush(stdout);
	json_decref(j);
	free(resp.data);
	free(body);
	free(text);
	case_release(&c);
	return rc;
}

static void submit_usage(FILE *f)
{
	fputs("usage: phpcmp submit [--url URL] PATH...\n"
	      "\n"
	      "Run stored-format case files (docs/cases.md) on the daemon's builds, one\n"
	      "POST /api/cases each.  A PATH is a case file or a folder, whose *.phpt\n"
	      "files (searched recursively) are submitted in name order.\n"
	      "\n"
	      "  --url URL     the daemon ($PHPCMP_URL or " CLIENT_DEFAULT_URL ")\n"
	      "  --fail-on-error\n"
	      "                fail (exit 1) on a case the same on every build only\n"
	      "                because each one crashed, timed out, called exit()...\n"
	      "  -h, --help    this text\n"
	      "  $PHPCMP_TOKEN sent as \"Authorization: Bearer ...\" when set\n"
	      "\n"
	      "Prints each case's verdict (same, differ, unsupported: a build could not\n"
	      "compile it or is older than its --MIN_PHP--, or an error: a case that does\n"
	      "not compile is reported as FILE:LINE:COLUMN against the case file);\n"
	      "\"same (both crashed: SIGSEGV)\" when every build ended that way.  A\n"
	      "case's --EXPECT-- is checked too: an output that is not it differs.\n"
	      "Exit status: 0 every case same, 1 some case differs, 2 any error (a case\n"
	      "that does not compile, a file that cannot be read, the daemon not\n"
	      "answering, bad usage).  With --fail-on-error, a case that ended without\n"
	      "an answer on every build exits 1 too.\n",
	    f);
}

int submit_command(int argc, char **argv)
{
	const char *url = getenv("PHPCMP_URL");
	struct curl_slist *headers = NULL;
	struct path_list files = { NULL, 0, 0 };
	struct stat st;
	char endpoint[2048], base[1900], uerr[300];
	size_t i, ulen, counts[5] = { 0, 0, 0, 0, 0 };
	CURL *curl = NULL;
	int rc = 2, one, options_done = 0, fail_on_error = 0;

	if (url == NULL || *url == '\0')
		url = CLIENT_DEFAULT_URL;
	for (i = 0; i < (size_t)argc; i++) {
		if (!options_done && (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)) {
			submit_usage(stdout);
			rc = 0;
			goto out;
		} else if (!options_done && strcmp(argv[i], "--") == 0)
			options_done = 1;
		else if (!options_done && strcmp(argv[i], "--url") == 0 && i + 1 < (size_t)argc)
			url = argv[++i];
		else if (!options_done && strncmp(argv[i], "--url=", 6) == 0)
			url = argv[i] + 6;
		else if (!options_done && strcmp(argv[i], "--fail-on-error") == 0)
			fail_on_error = 1;
		else if (!options_done && argv[i][0] == '-' && argv[i][1] != '\0') {
			cmd_error(NULL, "submit: unknown option %s", argv[i]);
			goto usage;
		} else if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (submit_files_dir(&files, argv[i]) < 0)
				goto out;
		} else if (path_list_add(&files, argv[i]) < 0) {
			cmd_error(NULL, "out of memory");
			goto out;
		}
	}
	if (files.n == 0) {
		cmd_error(NULL, "submit: which case files? (a file or a folder of *.phpt)");
		goto usage;
	}
	/* 127.0.0.1:8080 is http://127.0.0.1:8080, so the case links printed are links. */
	if (client_url(url, base, sizeof base, uerr, sizeof uerr) < 0) {
		cmd_error(NULL, "submit: --url %s", uerr);
		goto out;
	}
	url = base;
	ulen = strlen(url);
	snprintf(endpoint, sizeof endpoint, "%.*s/api/cases", (int)ulen, url);

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || (curl = curl_easy_init()) == NULL) {
		cmd_error(NULL, "cannot initialise libcurl");
		goto out;
	}
	/* The daemon wants a token where writes are closed (docs/hardening.md). */
	headers = client_headers(1, getenv("PHPCMP_TOKEN"));
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, client_write);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)SUBMIT_TIMEOUT_S);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "phpcmp-submit/" PHPCMP_VERSION);
	rc = 0;
	for (i = 0; i < files.n; i++) {
		one = submit_one(curl, endpoint, url, ulen, files.path[i]);
		counts[one]++;
		/* Same but broken everywhere: a failure only when asked. */
		if (one == 3)
			one = fail_on_error ? 1 : 0;
		/* Unsupported somewhere, the same elsewhere: no failure (the builds can't all run it). */
		if (one == 4)
			one = 0;
		if (one > rc)
			rc = one;
	}
	if (files.n > 1 && counts[4] > 0)
		printf("%zu cases: %zu same, %zu differ, %zu unsupported, %zu errors\n", files.n,
		    counts[0] + counts[3], counts[1], counts[4], counts[2]);
	else if (files.n > 1)
		printf("%zu cases: %zu same, %zu differ, %zu errors\n", files.n, counts[0] + counts[3],
		    counts[1], counts[2]);
	if (files.n > 1 && counts[3] > 0)
		printf("(%zu of the same ended without an answer on every build%s)\n", counts[3],
		    fail_on_error ? ": --fail-on-error fails them" : "");
	goto out;
usage:
	submit_usage(stderr);
out:
	curl_slist_free_all(headers);
	if (curl != NULL) {
		curl_easy_cleanup(curl);
		curl_global_cleanup();
	}
	path_list_release(&files);
	return rc;
}
