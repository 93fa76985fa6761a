/*
 * A run's parameters: POST /api/runs' body without "suite" and "builds",
 * read and checked field by field once, at the HTTP edge
 * (http/api_runs.c), and kept with the run as JSON text (the runs table's
 * params column, store/db.c).  This file is the one place that knows
 * their JSON, both ways; the engine's suites take the struct.
 *
 * `given` says which fields the body had, so the stored text is the body's
 * own ("seed" stays "seed", "coverage": false stays) and GET /api/runs
 * shows what was asked.
 */
#ifndef PHPCMP_RUNPARAMS_H
#define PHPCMP_RUNPARAMS_H

#include <stddef.h>
#include <stdint.h>

#define RUN_MAX_SEEDS 16
#define RUN_MAX_SEED INT64_MAX
#define RUN_MAX_COUNT 10000000         /* generated cases per seed in one run */
#define RUN_MAX_START 9007199254740991 /* 2^53 - 1: exact in any JSON reader */
#define RUN_MAX_TESTS 20000            /* .phpt tests in one run */

/* Each field a body may have, as a bit of run_params.given. */
enum run_field {
	RUN_SEED = 1 << 0,
	RUN_SEEDS = 1 << 1,
	RUN_COUNT = 1 << 2,
	RUN_START = 1 << 3,
	RUN_MAX_FAILURES = 1 << 4,
	RUN_COVERAGE = 1 << 5,
	RUN_DIR = 1 << 6,
	RUN_FILES = 1 << 7,
	RUN_ASAN_SAMPLE_OF = 1 << 8, /* set by the daemon only: an asan sample's run */
	RUN_PHP = 1 << 9,            /* generated: make the cases for this PHP or older (issue 45) */
	RUN_BASE = 1 << 10,          /* the run's base by name, its candidates every active build
	                              * (a reference runtime as the base: issue 49) */
};

struct run_params {
	unsigned given; /* enum run_field bits */
	/* generated: seed (nseeds 1) or seeds, count per seed, from start */
	int nseeds;
	uint64_t seeds[RUN_MAX_SEEDS];
	int64_t count, start;
	int64_t max_failures;   /* per build; 0: no limit */
	int64_t asan_sample_of; /* the run this one samples on the asan flavours */
	int coverage;           /* count line and branch coverage (docs/coverage.md) */
	uint32_t php;           /* "php": "8.0": PHP_VERSION_ID the cases must compile on, 0 none */
	char base[64];          /* "base": "php-8.5": a build's name, "" none */
	/* phpt: a folder, or files (malloc'd) */
	char *dir;
	char **files;
	size_t nfiles;
};

struct json_t;

/*
 * Read an object's fields into p (zeroed first; run_params_release it
 * either way).  fields: the names it may have (NULL-terminated) besides
 * "suite" and "builds", which it skips; suite names the suite in the
 * unknown-field error.  0, or -1 with err naming the field.
 */
int run_params_from_json(struct json_t *obj, const char *suite, const char *const fields[],
    struct run_params *p, char *err, size_t errsize);
/* The stored text (NULL: "{}") read back: 0, or -1 with err. */
int run_params_parse(const char *text, struct run_params *p, char *err, size_t errsize);
/* The fields given as a JSON object (a new reference; NULL out of memory). */
struct json_t *run_params_json(const struct run_params *p);
/* The stored text: the object's compact JSON, keys sorted; malloc'd, NULL out of memory. */
char *run_params_text(const struct run_params *p);
/* Frees what p holds and zeroes it (no fields given). */
void run_params_release(struct run_params *p);

#endif
