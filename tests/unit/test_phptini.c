/* Unit tests for server/common/phptini.c (which --INI-- settings a .phpt test may make), printing TAP. */
#include <stdio.h>
#include <string.h>

#include "phptini.h"
#include "tap.h"

static void is(const char *name, const char *value, enum phptini_verdict want, const char *why_has)
{
	char why[300] = "";
	enum phptini_verdict got = phptini_check(name, value, why, sizeof(why));
	ok(got == want && (!why_has || strstr(why, why_has)), "%s=%s: %d (%s)", name, value, (int)got, why);
}

int main(void)
{
	/* run-tests.php's $ini_overwrites, as phptrun.c sends them: all allowed */
	static const char *const defaults[][2] = { { "output_handler", "" }, { "output_buffering", "Off" },
		{ "error_reporting", "32767" }, { "display_errors", "1" }, { "display_startup_errors", "1" },
		{ "log_errors", "0" }, { "html_errors", "0" }, { "track_errors", "0" },
		{ "report_memleaks", "1" }, { "report_zend_debug", "0" }, { "docref_root", "" },
		{ "docref_ext", ".html" }, { "error_prepend_string", "" }, { "error_append_string", "" },
		{ "auto_prepend_file", "" }, { "auto_append_file", "" }, { "ignore_repeated_errors", "0" },
		{ "precision", "14" }, { "serialize_precision", "-1" }, { "memory_limit", "128M" },
		{ "opcache.fast_shutdown", "0" }, { "opcache.file_update_protection", "0" },
		{ "opcache.revalidate_freq", "0" }, { "opcache.jit_hot_loop", "1" },
		{ "opcache.jit_hot_func", "1" }, { "opcache.jit_hot_return", "1" },
		{ "opcache.jit_hot_side_exit", "1" }, { "zend.assertions", "1" },
		{ "zend.exception_ignore_args", "0" }, { "zend.exception_string_param_max_len", "15" },
		{ "short_open_tag", "0" } };
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		is(defaults[i][0], defaults[i][1], PHPTINI_ALLOWED, NULL);
	is("date.timezone", "UTC", PHPTINI_ALLOWED, NULL);
	is("mbstring.language", "neutral", PHPTINI_ALLOWED, NULL);
	is("session.use_cookies", "0", PHPTINI_ALLOWED, NULL);

	/* settings that name files or widen access */
	static const char *const refused[] = { "error_log", "browscap", "include_path", "doc_root",
		"user_dir", "extension_dir", "mail.log", "sendmail_path", "user_ini.filename",
		"opcache.file_cache", "opcache.error_log", "opcache.preload", "opcache.blacklist_filename",
		"opcache.lockfile_path", "xdebug.log", "xdebug.mode", "Error_Log", "error_log ",
		"no.such.setting", "" };
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		is(refused[i], "/tmp/x", PHPTINI_REFUSED, "refused");
	is("auto_prepend_file", "/etc/passwd", PHPTINI_REFUSED, "names a file");
	is("auto_append_file", "x", PHPTINI_REFUSED, "names a file");

	/* memory_limit: bounded */
	is("memory_limit", "1G", PHPTINI_ALLOWED, NULL);
	is("memory_limit", "1024M", PHPTINI_ALLOWED, NULL);
	is("memory_limit", "1073741824", PHPTINI_ALLOWED, NULL);
	is("memory_limit", "1025M", PHPTINI_REFUSED, "at most 1G");
	is("memory_limit", "-1", PHPTINI_REFUSED, "at most 1G");
	is("memory_limit", "2G", PHPTINI_REFUSED, "at most 1G");
	is("memory_limit", "99999999999999999999G", PHPTINI_REFUSED, "at most 1G");
	is("memory_limit", "12X", PHPTINI_REFUSED, "at most 1G");
	is("memory_limit", "", PHPTINI_REFUSED, "at most 1G");

	/* the sandbox's own and the startup-only ones: the worker decides (SKIP) */
	static const char *const worker[] = { "open_basedir", "disable_functions", "disable_classes",
		"allow_url_fopen", "allow_url_include", "enable_dl", "ffi.enable", "sys_temp_dir",
		"upload_tmp_dir", "session.save_path", "extension", "zend_extension" };
	for (size_t i = 0; i < sizeof(worker) / sizeof(worker[0]); i++)
		is(worker[i], "/", PHPTINI_WORKER, NULL);
	return tap_done();
}
