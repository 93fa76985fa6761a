/* Unit tests for a run's parameters (server/daemon/model/runparams.c): a body
 * read field by field with the API's messages, and the stored text that
 * reads back to the same parameters and shows the fields as given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "runparams.h"
#include "tap.h"

static const char *const generated[] = { "seed", "seeds", "count", "start", "coverage", "max_failures",
	NULL };
static const char *const phpt[] = { "dir", "files", "coverage", NULL };

/* The body read for a suite: 0 or -1, err filled. */
static int from_body(
    const char *body, const char *const fields[], struct run_params *p, char *err, size_t errsize)
{
	json_t *o = json_loads(body, JSON_ALLOW_NUL, NULL); /* as the API reads a body */
	int rc;

	err[0] = '\0';
	rc = run_params_from_json(o, "generated", fields, p, err, errsize);
	json_decref(o);
	return rc;
}

/* The body read and written back: the stored text (malloc'd); NULL when it was refused, did
 * not read back to itself, or the API would show it otherwise (its keys in another order). */
static char *round_trip(const char *body, const char *const fields[])
{
	struct run_params p, again;
	char err[256], *text = NULL, *text2 = NULL, *shown_text = NULL;
	json_t *shown = NULL;

	if (from_body(body, fields, &p, err, sizeof err) == 0 && (text = run_params_text(&p)) != NULL &&
	    run_params_parse(text, &again, err, sizeof err) == 0 &&
	    (text2 = run_params_text(&again)) != NULL && (shown = run_params_json(&again)) != NULL &&
	    (shown_text = json_dumps(shown, JSON_COMPACT)) != NULL &&
	    (strcmp(text, text2) != 0 || strcmp(text, shown_text) != 0))
		text = (free(text), NULL);
	json_decref(shown);
	free(shown_text);
	free(text2);
	run_params_release(&p);
	run_params_release(&again);
	return text;
}

static void test_stored_text(void)
{
	static const struct {
		const char *body, *text;
		const char *const *fields;
	} cases[] = {
		{ "{\"suite\":\"generated\",\"seed\":5,\"count\":100}", "{\"count\":100,\"seed\":5}",
		    generated },
		{ "{\"seeds\":[1,2,3],\"count\":7,\"start\":9,\"builds\":[\"a\",\"b\"]}",
		    "{\"count\":7,\"seeds\":[1,2,3],\"start\":9}", generated },
		{ "{\"seed\":0,\"count\":1,\"coverage\":false,\"max_failures\":3}",
		    "{\"count\":1,\"coverage\":false,\"max_failures\":3,\"seed\":0}", generated },
		{ "{\"files\":[\"a/b.phpt\",\"c.phpt\"],\"coverage\":true}",
		    "{\"coverage\":true,\"files\":[\"a/b.phpt\",\"c.phpt\"]}", phpt },
		{ "{\"dir\":\"ext/json/tests\"}", "{\"dir\":\"ext/json/tests\"}", phpt },
		{ "{}", "{}", phpt },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *text = round_trip(cases[i].body, cases[i].fields);
		ok(text != NULL && strcmp(text, cases[i].text) == 0, "stored text of %s: %s", cases[i].body,
		    text != NULL ? text : "(refused)");
		free(text);
	}
}

static void test_values(void)
{
	struct run_params p;
	char err[256];

	ok(from_body("{\"seeds\":[4,9223372036854775807],\"count\":10000000,\"start\":9007199254740991}",
	       generated, &p, err, sizeof err) == 0 &&
	        p.nseeds == 2 && p.seeds[0] == 4 && p.seeds[1] == (uint64_t)INT64_MAX &&
	        p.count == RUN_MAX_COUNT && p.start == RUN_MAX_START &&
	        p.given == (RUN_SEEDS | RUN_COUNT | RUN_START) && !p.coverage,
	    "seeds, count and start at their limits, read as given");
	run_params_release(&p);
	ok(p.given == 0 && p.files == NULL && p.dir == NULL, "released parameters have no field given");
	ok(run_params_parse(
	       "{\"asan_sample_of\":12,\"seed\":3,\"count\":600,\"start\":0}", &p, err, sizeof err) == 0 &&
	        p.asan_sample_of == 12 && (p.given & RUN_ASAN_SAMPLE_OF),
	    "stored text reads the daemon's own field (an asan sample's run)");
	run_params_release(&p);
	ok(run_params_parse("{\"seed\":", &p, err, sizeof err) < 0 && strstr(err, "not JSON") != NULL &&
	        p.given == 0,
	    "stored text that is not JSON: refused, nothing given (%s)", err);
	run_params_release(&p);
}

static void test_refusals(void)
{
	static const struct {
		const char *body, *err;
		const char *const *fields;
	} cases[] = {
		{ "{\"seed\":1,\"count\":1,\"speed\":\"max\"}", "unknown field \"speed\" for suite generated",
		    generated },
		{ "{\"asan_sample_of\":1}", "unknown field \"asan_sample_of\" for suite generated",
		    generated },
		{ "{\"seed\":\"1\"}", "seed: expected an integer 0 .. 9223372036854775807", generated },
		{ "{\"seed\":1.5}", "seed: expected an integer 0 .. 9223372036854775807", generated },
		{ "{\"seed\":1,\"seeds\":[2]}", "seed, seeds: give one or the other", generated },
		{ "{\"seeds\":[]}", "seeds: expected an array of 1 .. 16 integers", generated },
		{ "{\"seeds\":[1,\"x\"]}", "seeds[1]: expected an integer 0 .. 9223372036854775807",
		    generated },
		{ "{\"seeds\":[1,-1]}", "seeds[1]: expected an integer 0 .. 9223372036854775807", generated },
		{ "{\"count\":0}", "count: expected an integer 1 .. 10000000", generated },
		{ "{\"count\":10000001}", "count: expected an integer 1 .. 10000000", generated },
		{ "{\"start\":-5}", "start: expected an integer 0 .. 9007199254740991", generated },
		{ "{\"max_failures\":-1}", "max_failures: expected an integer 0 .. 9223372036854775807",
		    generated },
		{ "{\"coverage\":1}", "coverage: expected true or false", generated },
		{ "{\"dir\":\"a\",\"files\":[\"b.phpt\"]}", "dir and files: give one of them", phpt },
		{ "{\"dir\":\"\"}", "dir: a folder's path", phpt },
		{ "{\"dir\":\"a\\u0000b\"}", "dir: a folder's path", phpt },
		{ "{\"files\":[]}", "files: a list of 1 to 20000 .phpt paths", phpt },
		{ "{\"files\":[\"a.phpt\",\"b.txt\"]}", "files[1]: the path of a .phpt file", phpt },
		{ "{\"files\":[\".phpt\"]}", "files[0]: the path of a .phpt file", phpt },
		{ "{\"files\":[7]}", "files[0]: the path of a .phpt file", phpt },
	};
	struct run_params p;
	char err[256];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = from_body(cases[i].body, cases[i].fields, &p, err, sizeof err);
		ok(rc < 0 && strcmp(err, cases[i].err) == 0, "%s refused: %s", cases[i].body, err);
		run_params_release(&p);
	}
}

int main(void)
{
	test_stored_text();
	test_values();
	test_refusals();
	return tap_done();
}
