/*
 * phpcmp review: what all its files use (the clock and the progress line,
 * names, children, JSON members); it uses none of them.
 */
#include "review.h"

double review_now(void)
{
	return clock_ms() / 1000.0;
}

/* Progress on the terminal: elapsed seconds since the start, then what. */
void review_say(const struct review *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "review [%6.1f s] ", review_now() - r->t0);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int review_name_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 40)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		        (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
			return 0;
	return 1;
}

int review_is_prefix(const char *path)
{
	char lib[PATH_MAX];
	struct stat st;

	return snprintf(lib, sizeof lib, "%s/lib", path) < (int)sizeof lib && stat(lib, &st) == 0 &&
	    S_ISDIR(st.st_mode);
}

const char *review_str(json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));
	return s != NULL ? s : "";
}

/* A member, or JSON null when it is missing (for json_pack's "O"). */
json_t *review_get(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);
	return v != NULL ? v : json_null();
}

json_int_t review_int(json_t *j, const char *key)
{
	return json_integer_value(json_object_get(j, key));
}
