/*
 * The generator's declared classes and enums (see gen.h): a table the same
 * on every machine, drawn once from a fixed stream -- property names (most
 * with bytes 0x80-0xff, some invalid UTF-8), visibilities, typed
 * properties, the kind of each class.  gen.c instantiates them,
 * gen_render.c declares them as PHP source.
 */
#include "gen.h"
#include "gen_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* High-byte fragments for property names: bytes 0x80-0xff, valid UTF-8 ... */
/* clang-format off */
static const char *const gen_high_frags[] = {
	"\xc3\xa9", "\xc3\xbc", "\xc3\x98", "\xc3\xb1", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe6\x97\xa5",
	"\xf0\x9f\x98\x80", "\xce\xb1", "\xd0\x96",
};
/* clang-format on */

/* ... and not (a name like that makes the object JSON_ERROR_UTF8). */
static const char *const gen_bad_frags[] = {
	"\xff",
	"\xfe",
	"\x80",
	"\xc3",
	"\xed\xa0\x80",
	"\xc0\xaf",
};

static struct gen_class gen_classes[GEN_NCLASSES_ALL];
static pthread_once_t gen_class_once = PTHREAD_ONCE_INIT;

static const char *const gen_enum_names[GEN_NENUMS] = { "GenEnumS", "GenEnumI", "GenEnumU" };
static const unsigned gen_enum_ncases[GEN_NENUMS] = { 4, 3, 2 };

/* A property name: an identifier (letters, _, bytes 0x80-0xff), mostly with high bytes. */
static void gen_prop_name(struct gen_rng *r, struct gen_prop *p)
{
	char buf[64];
	size_t n = 0;
	int parts = 1 + (int)gen_below(r, 3), high = !gen_one_in(r, 6);
	for (int i = 0; i < parts; i++) {
		if (high && (i == 0 || gen_one_in(r, 2))) {
			const char *f = gen_one_in(r, 8)
			    ? gen_bad_frags[gen_below(r, GEN_NELEMS(gen_bad_frags))]
			    : gen_high_frags[gen_below(r, GEN_NELEMS(gen_high_frags))];
			memcpy(buf + n, f, strlen(f));
			n += strlen(f);
		} else {
			static const char first[] = "abcxyzABCXYZ_";
			buf[n++] = first[gen_below(r, sizeof(first) - 1)];
			if (i > 0 && gen_one_in(r, 3))
				buf[n++] = (char)('0' + gen_below(r, 10));
		}
	}
	if (n > sizeof(p->name) - 1)
		n = sizeof(p->name) - 1;
	/* A cut may leave a high fragment short: still a valid identifier byte. */
	memcpy(p->name, buf, n);
	p->name[n] = '\0';
	p->len = (uint8_t)n;
}

int64_t gen_nested_flags(const struct gen_class *k)
{
	/* gen_render.c's gen_class_source's calls: none, JSON_PRETTY_PRINT, JSON_PRETTY_PRINT | JSON_PARTIAL_OUTPUT_ON_ERROR */
	static const int64_t flags[GEN_NESTED_VARIANTS] = { 0, 128, 128 | 512 };
	return flags[k->variant % GEN_NESTED_VARIANTS];
}

/*
 * The class table, the same on every machine: made from a fixed stream.
 * 30 plain classes, 4 with dynamic properties, 4 JsonSerializable returning
 * a property, one returning $this, one that throws, one whose local's
 * destructor throws after the return value is made, three that call
 * json_encode() on their property inside the outer call, one that writes
 * into its property (bound, in gen_mutating's shape, to the list around it).
 */
static void gen_class_init(void)
{
	struct gen_rng r;
	gen_rng_seed(&r, 0x6c617373ull, 0);
	for (unsigned i = 0; i < GEN_NCLASSES; i++) {
		struct gen_class *k = &gen_classes[i];
		snprintf(k->name, sizeof(k->name), "GenC%u", i);
		k->type = i < 30 ? GEN_CLASS_PLAIN
		    : i < 34     ? GEN_CLASS_DYNAMIC
		    : i < 38     ? GEN_CLASS_JSONSER
		    : i == 38    ? GEN_CLASS_JSONSER_THIS
		    : i == 39    ? GEN_CLASS_JSONSER_THROW
		    : i == 40    ? GEN_CLASS_JSONSER_DTOR
		    : i < 44     ? GEN_CLASS_JSONSER_NESTED
		                 : GEN_CLASS_JSONSER_MUTATE;
		k->variant = (uint8_t)(i > 40 && i < 44 ? i - 41 : 0);
		k->nprops = (uint8_t)(1 + gen_below(&r, GEN_MAX_PROPS));
		for (int p = 0; p < k->nprops; p++) {
			struct gen_prop *pr = &k->props[p];
			int dup;
			do {
				gen_prop_name(&r, pr);
				dup = 0;
				for (int q = 0; q < p; q++)
					if (k->props[q].len == pr->len &&
					    !memcmp(k->props[q].name, pr->name, pr->len))
						dup = 1;
			} while (dup);
			unsigned v = gen_below(&r, 10);
			pr->visibility = v < 6 ? GEN_PUBLIC : v < 8 ? GEN_PROTECTED : GEN_PRIVATE;
			pr->typed = gen_one_in(&r, 4);
		}
		/* JsonSerializable classes return their first property: private, untyped. */
		if (k->type == GEN_CLASS_JSONSER || k->type == GEN_CLASS_JSONSER_DTOR ||
		    k->type == GEN_CLASS_JSONSER_NESTED || k->type == GEN_CLASS_JSONSER_MUTATE) {
			k->props[0].visibility = GEN_PRIVATE;
			k->props[0].typed = 0;
		}
	}
	/* The reducer's canonical classes (gen.h): made, not drawn. */
	for (unsigned i = 0; i < GEN_NCANON; i++) {
		static const char *const name[GEN_NCANON] = { "GenPubA", "GenPubX80", "GenTypedA", "GenProtA",
			"GenPrivA" };
		static const uint8_t vis[GEN_NCANON] = { GEN_PUBLIC, GEN_PUBLIC, GEN_PUBLIC, GEN_PROTECTED,
			GEN_PRIVATE };
		struct gen_class *k = &gen_classes[GEN_NCLASSES + i];
		snprintf(k->name, sizeof(k->name), "%s", name[i]);
		k->type = GEN_CLASS_PLAIN;
		k->nprops = 1;
		k->props[0].name[0] = i == 1 ? (char)0x80 : 'a';
		k->props[0].len = 1;
		k->props[0].visibility = vis[i];
		k->props[0].typed = i == 2;
	}
}

const struct gen_class *gen_class_at(unsigned i)
{
	pthread_once(&gen_class_once, gen_class_init);
	return i < GEN_NCLASSES_ALL ? &gen_classes[i] : NULL;
}

const char *gen_enum_name(unsigned i)
{
	return i < GEN_NENUMS ? gen_enum_names[i] : NULL;
}

unsigned gen_enum_cases(unsigned i)
{
	return i < GEN_NENUMS ? gen_enum_ncases[i] : 0;
}
