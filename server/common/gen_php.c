/*
 * The generator's version table (see gen.h, "what each PHP can compile"):
 * the first PHP of each construct the generator emits, and what a case for
 * an older PHP leaves out.  gen.c asks it before drawing a construct,
 * gen_render.c before declaring one.
 */
#include "gen.h"
#include "gen_internal.h"

#include <stdio.h>

/* Each construct a case may leave out, with its first PHP (GEN_PHP_*: gen_internal.h). */
static const struct {
	const char *name;
	uint32_t php; /* PHP_VERSION_ID */
} gen_constructs[] = {
	{ "enums", GEN_PHP_ENUMS },     /* GEN_ENUM values and their declarations */
	{ "WeakMap", GEN_PHP_WEAKMAP }, /* GEN_BUILTIN 4 */
};
/*
 * Not left out but written another way for an older PHP (gen_render.c),
 * with the same answers, so not listed by gen_left_out: before 8.0
 * (GEN_PHP_80_SYNTAX) the `mixed` type and a catch without a variable.
 * Attributes (#[AllowDynamicProperties]) stay: on their own line, 7.4
 * reads them as comments.
 */

int gen_php_has(uint32_t php, uint32_t first)
{
	return php == GEN_PHP_ALL || php >= first;
}

uint32_t gen_php_floor(uint32_t php)
{
	for (size_t i = 0; i < GEN_NELEMS(gen_constructs); i++)
		if (!gen_php_has(php, gen_constructs[i].php))
			return php;
	return GEN_PHP_ALL;
}

uint32_t gen_php_id(const char *version)
{
	unsigned major = 0, minor = 0, patch = 0;
	if (version == NULL || sscanf(version, "%u.%u.%u", &major, &minor, &patch) < 2 || major == 0 ||
	    minor > 99 || patch > 99)
		return 0;
	return major * 10000 + minor * 100 + patch;
}

size_t gen_left_out(uint32_t php, char *buf, size_t size)
{
	size_t len = 0;
	if (size > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < GEN_NELEMS(gen_constructs); i++) {
		if (gen_php_has(php, gen_constructs[i].php))
			continue;
		int w = snprintf(
		    buf + len, size > len ? size - len : 0, "%s%s", len ? ", " : "", gen_constructs[i].name);
		if (w < 0 || (size_t)w >= (size > len ? size - len : 0))
			break;
		len += (size_t)w;
	}
	return len;
}

void gen_php_refusal(uint32_t asked, uint32_t own, const char *own_version, char *buf, size_t size)
{
	char left[128], made[32] = "every construct";
	gen_left_out(own, left, sizeof left);
	if (asked != GEN_PHP_ALL)
		snprintf(made, sizeof made, "PHP %u.%u", asked / 10000, asked / 100 % 100);
	snprintf(buf, size, "generator: these cases are made for %s; PHP %s cannot compile them (%s)", made,
	    own_version, left[0] ? left : "nothing it lacks is listed");
}
