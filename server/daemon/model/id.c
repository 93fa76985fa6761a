/* Resource ids in paths and query parameters: one strict parser. */
#include <string.h>

#include "model.h"

int64_t id_parse(const char *s, size_t len)
{
	int64_t v = 0;

	/* 19 digits hold INT64_MAX; "0" and a leading zero are not ids. */
	if (s == NULL || len == 0 || len > 19 || s[0] == '0')
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		if (v > (INT64_MAX - (s[i] - '0')) / 10)
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

int64_t id_parse_str(const char *s)
{
	return s != NULL ? id_parse(s, strlen(s)) : 0;
}
