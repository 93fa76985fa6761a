/*
 * A run's parameters and their JSON, both ways (runparams.h): read from a
 * request body or the stored text with the same checks, written back as
 * the fields given.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "model.h"
#include "phpt.h"
#include "runparams.h"

/* An integer field in min..max: 0 (its bit set in p->given when present), or -1 with err. */
static int run_params_int(json_t *obj, const char *field, unsigned bit, int64_t min, int64_t max,
    int64_t *out, struct run_params *p, char *err, size_t errsize)
{
	json_t *v = json_object_get(obj, field);

	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
		snprintf(err, errsize, "%s: expected an integer %" PRId64 " .. %" PRId64, field, min, max);
		return -1;
	}
	*out = json_integer_value(v);
	p->given |= bit;
	return 0;
}

/* A string that is a path: no NUL inside, shorter than PATH_MAX. */
static int run_params_path(json_t *v)
{
	return json_is_string(v) && json_string_length(v) < PATH_MAX &&
	    strlen(json_string_value(v)) == json_string_length(v);
}

static int run_params_seeds(json_t *obj, struct run_params *p, char *err, size_t errsize)
{
	json_t *seeds = json_object_get(obj, "seeds"), *v;
	int64_t seed;
	size_t i;

	if (run_params_int(obj, "seed", RUN_SEED, 0, RUN_MAX_SEED, &seed, p, err, errsize) < 0)
		return -1;
	if ((p->given & RUN_SEED) && seeds != NULL) {
		snprintf(err, errsize, "seed, seeds: give one or the other");
		return -1;
	}
	if (p->given & RUN_SEED) {
		p->seeds[p->nseeds++] = (uint64_t)seed;
		return 0;
	}
	if (seeds == NULL)
		return 0;
	if (!json_is_array(seeds) || json_array_size(seeds) < 1 || json_array_size(seeds) > RUN_MAX_SEEDS) {
		snprintf(err, errsize, "seeds: expected an array of 1 .. %d integers", RUN_MAX_SEEDS);
		return -1;
	}
	json_array_foreach (seeds, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			snprintf(err, errsize, "seeds[%zu]: expected an integer 0 .. %" PRId64, i,
			    (int64_t)RUN_MAX_SEED);
			return -1;
		}
		p->seeds[p->nseeds++] = (uint64_t)json_integer_value(v);
	}
	p->given |= RUN_SEEDS;
	return 0;
}

static int run_params_tests(json_t *obj, struct run_params *p, char *err, size_t errsize)
{
	json_t *dir = json_object_get(obj, "dir"), *files = json_object_get(obj, "files"), *v;
	size_t i;

	if (dir != NULL && files != NULL) {
		snprintf(err, errsize, "dir and files: give one of them");
		return -1;
	}
	if (dir != NULL) {
		if (!run_params_path(dir) || json_string_length(dir) == 0) {
			snprintf(err, errsize, "dir: a folder's path");
			return -1;
		}
		if ((p->dir = strdup(json_string_value(dir))) == NULL)
			goto oom;
		p->given |= RUN_DIR;
	}
	if (files == NULL)
		return 0;
	if (!json_is_array(files) || json_array_size(files) == 0 || json_array_size(files) > RUN_MAX_TESTS) {
		snprintf(err, errsize, "files: a list of 1 to %d .phpt paths", RUN_MAX_TESTS);
		return -1;
	}
	if ((p->files = calloc(json_array_size(files), sizeof *p->files)) == NULL)
		goto oom;
	p->given |= RUN_FILES;
	json_array_foreach (files, i, v) {
		if (!run_params_path(v) || !phpt_is_test_path(json_string_value(v))) {
			snprintf(err, errsize, "files[%zu]: the path of a .phpt file", i);
			return -1;
		}
		if ((p->files[p->nfiles] = strdup(json_string_value(v))) == NULL)
			goto oom;
		p->nfiles++;
	}
	return 0;
oom:
	snprintf(err, errsize, "out of memory");
	return -1;
}

int run_params_from_json(json_t *obj, const char *suite, const char *const fields[], struct run_params *p,
    char *err, size_t errsize)
{
	const char *key;
	json_t *v;
	size_t i;

	memset(p, 0, sizeof *p);
	if (!json_is_object(obj)) {
		snprintf(err, errsize, "expected an object");
		return -1;
	}
	json_object_foreach (obj, key, v) {
		if (fields == NULL || strcmp(key, "suite") == 0 || strcmp(key, "builds") == 0 ||
		    strcmp(key, "base") == 0)
			continue;
		for (i = 0; fields[i] != NULL; i++)
			if (strcmp(key, fields[i]) == 0)
				break;
		if (fields[i] == NULL) {
			snprintf(err, errsize, "unknown field \"%.64s\" for suite %s", key, suite);
			return -1;
		}
	}
	if (run_params_seeds(obj, p, err, errsize) < 0 ||
	    run_params_int(obj, "count", RUN_COUNT, 1, RUN_MAX_COUNT, &p->count, p, err, errsize) < 0 ||
	    run_params_int(obj, "start", RUN_START, 0, RUN_MAX_START, &p->start, p, err, errsize) < 0 ||
	    run_params_int(
	        obj, "max_failures", RUN_MAX_FAILURES, 0, INT64_MAX, &p->max_failures, p, err, errsize) < 0 ||
	    run_params_int(obj, "asan_sample_of", RUN_ASAN_SAMPLE_OF, 1, INT64_MAX, &p->asan_sample_of, p,
	        err, errsize) < 0)
		return -1;
	if ((v = json_object_get(obj, "php")) != NULL) {
		if (!json_is_string(v) || case_min_php_parse(json_string_value(v), &p->php) < 0) {
			snprintf(err, errsize, "php: expected a PHP version such as \"8.0\" or \"8.1.2\"");
			return -1;
		}
		p->given |= RUN_PHP;
	}
	if ((v = json_object_get(obj, "base")) != NULL) {
		const char *name = json_is_string(v) ? json_string_value(v) : "";
		size_t n = strlen(name);
		if (!json_is_string(v) || n == 0 || n >= sizeof p->base || n != json_string_length(v) ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-@") != n) {
			snprintf(err, errsize,
			    "base: expected a build's name, such as \"php-8.5\" (GET /api/builds)");
			return -1;
		}
		if (json_object_get(obj, "builds") != NULL) {
			snprintf(err, errsize,
			    "base, builds: give one or the other (base: that build, then every active "
			    "build as a candidate)");
			return -1;
		}
		memcpy(p->base, name, n + 1);
		p->given |= RUN_BASE;
	}
	if ((v = json_object_get(obj, "coverage")) != NULL) {
		if (!json_is_boolean(v)) {
			snprintf(err, errsize, "coverage: expected true or false");
			return -1;
		}
		p->coverage = json_is_true(v);
		p->given |= RUN_COVERAGE;
	}
	return run_params_tests(obj, p, err, errsize);
}

int run_params_parse(const char *text, struct run_params *p, char *err, size_t errsize)
{
	json_error_t e;
	json_t *obj = json_loads(text != NULL ? text : "{}", 0, &e);
	int rc;

	if (obj == NULL) {
		memset(p, 0, sizeof *p);
		snprintf(err, errsize, "the run's parameters are not JSON: %s", e.text);
		return -1;
	}
	rc = run_params_from_json(obj, NULL, NULL, p, err, errsize);
	json_decref(obj);
	return rc;
}

json_t *run_params_json(const struct run_params *p)
{
	json_t *o = json_object(), *list;
	size_t i;
	int ok = o != NULL;

	/* In the keys' order, as the stored text has them (and the API showed them). */
	if (ok && (p->given & RUN_ASAN_SAMPLE_OF))
		ok = json_object_set_new(o, "asan_sample_of", json_integer(p->asan_sample_of)) == 0;
	if (ok && (p->given & RUN_BASE))
		ok = json_object_set_new(o, "base", json_string(p->base)) == 0;
	if (ok && (p->given & RUN_COUNT))
		ok = json_object_set_new(o, "count", json_integer(p->count)) == 0;
	if (ok && (p->given & RUN_COVERAGE))
		ok = json_object_set_new(o, "coverage", json_boolean(p->coverage)) == 0;
	if (ok && (p->given & RUN_DIR))
		ok = json_object_set_new(o, "dir", json_string(p->dir)) == 0;
	if (ok && (p->given & RUN_FILES)) {
		ok = (list = json_array()) != NULL && json_object_set_new(o, "files", list) == 0;
		for (i = 0; ok && i < p->nfiles; i++)
			ok = json_array_append_new(list, json_string(p->files[i])) == 0;
	}
	if (ok && (p->given & RUN_MAX_FAILURES))
		ok = json_object_set_new(o, "max_failures", json_integer(p->max_failures)) == 0;
	if (ok && (p->given & RUN_PHP)) {
		char ver[32];
		snprintf(ver, sizeof ver, "%u.%u.%u", (unsigned)(p->php / 10000),
		    (unsigned)(p->php / 100 % 100), (unsigned)(p->php % 100));
		ok = json_object_set_new(o, "php", json_string(ver)) == 0;
	}
	if (ok && (p->given & RUN_SEED))
		ok = json_object_set_new(o, "seed", json_integer((json_int_t)p->seeds[0])) == 0;
	if (ok && (p->given & RUN_SEEDS)) {
		ok = (list = json_array()) != NULL && json_object_set_new(o, "seeds", list) == 0;
		for (i = 0; ok && i < (size_t)p->nseeds; i++)
			ok = json_array_append_new(list, json_integer((json_int_t)p->seeds[i])) == 0;
	}
	if (ok && (p->given & RUN_START))
		ok = json_object_set_new(o, "start", json_integer(p->start)) == 0;
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

char *run_params_text(const struct run_params *p)
{
	json_t *o = run_params_json(p);
	char *text = o != NULL ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	json_decref(o);
	return text;
}

void run_params_release(struct run_params *p)
{
	size_t i;

	for (i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	free(p->files);
	free(p->dir);
	memset(p, 0, sizeof *p);
}
