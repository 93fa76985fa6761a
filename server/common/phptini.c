/* Which --INI-- settings a .phpt test may make: phptini.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "phptini.h"

/* Left to the worker core, as before the allow-list: the sandbox's own
 * settings (server/worker/sandbox.c: a test may name them only with the
 * value in force) and the startup-only extension loaders (SKIP with the
 * reason). */
static const char *const sandbox_held[] = {
	"open_basedir",
	"disable_functions",
	"disable_classes",
	"allow_url_fopen",
	"allow_url_include",
	"enable_dl",
	"ffi.enable",
	"sys_temp_dir",
	"upload_tmp_dir",
	"session.save_path",
};
static const char *const startup_only[] = {
	"extension",
	"zend_extension",
};

/* Settings that name no file and widen nothing: run-tests.php's own
 * $ini_overwrites and what php-src's tests commonly set. */
static const char *const allowed[] = {
	"precision",
	"serialize_precision",
	"error_reporting",
	"display_errors",
	"display_startup_errors",
	"log_errors",
	"html_errors",
	"track_errors",
	"report_memleaks",
	"report_zend_debug",
	"docref_root",
	"docref_ext",
	"error_prepend_string",
	"error_append_string",
	"ignore_repeated_errors",
	"ignore_repeated_source",
	"xmlrpc_errors",
	"xmlrpc_error_number",
	"output_handler",
	"output_buffering",
	"implicit_flush",
	"short_open_tag",
	"default_charset",
	"internal_encoding",
	"input_encoding",
	"output_encoding",
	"max_execution_time",
	"max_input_time",
	"max_input_nesting_level",
	"max_input_vars",
	"arg_separator.output",
	"arg_separator.input",
	"variables_order",
	"request_order",
	"register_argc_argv",
	"auto_globals_jit",
	"post_max_size",
	"upload_max_filesize",
	"max_file_uploads",
	"file_uploads",
	"enable_post_data_reading",
	"default_mimetype",
	"default_socket_timeout",
	"user_agent",
	"from",
	"auto_detect_line_endings",
	"unserialize_callback_func",
	"unserialize_max_depth",
	"realpath_cache_size",
	"realpath_cache_ttl",
	"expose_php",
	"hard_timeout",
	"bcmath.scale",
	"url_rewriter.tags",
	"url_rewriter.hosts",
	"opcache.enable",
	"opcache.enable_cli",
	"opcache.fast_shutdown",
	"opcache.file_update_protection",
	"opcache.revalidate_freq",
	"opcache.validate_timestamps",
	"opcache.optimization_level",
	"opcache.jit",
	"opcache.jit_hot_loop",
	"opcache.jit_hot_func",
	"opcache.jit_hot_return",
	"opcache.jit_hot_side_exit",
};

/* Families of settings none of which names a file. */
static const char *const allowed_prefixes[] = {
	"zend.", "assert.", "date.", "mbstring.", "iconv.", "intl.", "pcre.", "highlight.",
	"session.", /* but session.save_path: sandbox_held */
};

/* Only with an empty value (run-tests.php clears them). */
static const char *const only_empty[] = {
	"auto_prepend_file",
	"auto_append_file",
};

#define MEMORY_LIMIT_MAX (1LL << 30)

static int in(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, list[i]) == 0)
			return 1;
	return 0;
}

/* memory_limit as PHP reads it (digits, then K, M or G): at most 1G, not -1. */
static int memory_limit_ok(const char *v)
{
	char *end;
	long long n = strtoll(v, &end, 10);
	if (end == v || n < 0)
		return 0;
	long long mult = 1;
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1LL << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1LL << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1LL << 30;
		end++;
		break;
	}
	return *end == '\0' && n <= MEMORY_LIMIT_MAX / mult && n * mult <= MEMORY_LIMIT_MAX;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

int phptini_sandbox_held(const char *name)
{
	return in(name, sandbox_held, N(sandbox_held));
}

enum phptini_verdict phptini_check(const char *name, const char *value, char *why, size_t whysize)
{
	if (in(name, sandbox_held, N(sandbox_held)) || in(name, startup_only, N(startup_only)))
		return PHPTINI_WORKER;
	if (strcmp(name, "memory_limit") == 0) {
		if (memory_limit_ok(value))
			return PHPTINI_ALLOWED;
		snprintf(why, whysize, "at most 1G in a test (not \"%.40s\")", value);
		return PHPTINI_REFUSED;
	}
	if (in(name, only_empty, N(only_empty))) {
		if (value[0] == '\0')
			return PHPTINI_ALLOWED;
		snprintf(why, whysize, "refused, it names a file (only an empty value)");
		return PHPTINI_REFUSED;
	}
	if (in(name, allowed, N(allowed)))
		return PHPTINI_ALLOWED;
	for (size_t i = 0; i < N(allowed_prefixes); i++)
		if (strncmp(name, allowed_prefixes[i], strlen(allowed_prefixes[i])) == 0)
			return PHPTINI_ALLOWED;
	snprintf(why, whysize,
	    "refused, not among the settings a test may make (they are made as the system's, "
	    "where PHP checks no open_basedir: docs/phpt.md)");
	return PHPTINI_REFUSED;
}
