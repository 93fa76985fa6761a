/*
 * Storage tested directly (server/daemon/store/): the db_* functions against
 * an in-memory SQLite, the schema migrated as the daemon migrates its file,
 * one behaviour per check.  The HTTP-level tests see the same tables through
 * the API; these pin what storage itself promises.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "tap.h"

static struct build base, head;
static struct build *builds[MAX_BUILDS];

static void make_build(struct build *b, const char *name, char hexdigit)
{
	memset(b, 0, sizeof *b);
	snprintf(b->name, sizeof b->name, "%s", name);
	memset(b->sha256, hexdigit, 64);
	snprintf(b->php_version, sizeof b->php_version, "8.2.32");
	snprintf(b->kind, sizeof b->kind, "debian release");
}

/* res[0], res[1]: json_encode's answers, outputs a and b (NULL: false with error code `code`). */
static void answers(struct result res[2], const char *a, const char *b, long code)
{
	const char *out[2] = { a, b };
	for (int i = 0; i < 2; i++) {
		result_init(&res[i]);
		res[i].status = STATUS_OK;
		res[i].error_msg = strdup(out[i] != NULL ? "No error" : "Inf and NaN cannot be JSON encoded");
		res[i].warnings = strdup("");
		if (out[i] != NULL) {
			res[i].output.data = strdup(out[i]);
			res[i].output.len = strlen(out[i]);
		} else {
			res[i].output_is_false = 1;
			res[i].error_code = code;
		}
	}
}

/* Store case (code, flags) with the builds' answers a and b: its comparison id (case id in *case_id). */
static int64_t store(
    struct db *db, const char *code, long flags, const char *a, const char *b, int64_t run, int64_t *case_id)
{
	struct case_spec c;
	struct result res[MAX_BUILDS];
	char err[512];
	int64_t comparison = 0;

	case_init(&c);
	c.title = strdup("a stored case");
	c.code = strdup(code);
	c.flags = flags;
	for (int i = 0; i < MAX_BUILDS; i++)
		result_init(&res[i]);
	answers(res, a, b, 7);
	if (db_comparison_store(db, &c, run, builds, res, verdict_compare_all(res, 2, NULL), case_id,
	        &comparison, err, sizeof err) < 0)
		printf("# store: %s\n", err);
	for (int i = 0; i < MAX_BUILDS; i++)
		result_release(&res[i]);
	case_release(&c);
	return comparison;
}

static int count_row(void *arg, const struct db_case_row *row)
{
	(void)row;
	(*(int *)arg)++;
	return 0;
}

int main(void)
{
	char err[512];
	struct db *db = db_open(":memory:", err, sizeof err);
	int64_t case1, case2, cmp1, cmp2, mis1, mis2, mcase, run;
	struct db_bucket b1, b2;
	struct db_case dc;
	int rows = 0;

	ok(db != NULL, "a new database is made and migrated (in memory)");
	if (db == NULL) {
		printf("# %s\n", err);
		return tap_done();
	}
	make_build(&base, "base", 'a');
	make_build(&head, "head", 'b');
	builds[0] = &base;
	builds[1] = &head;
	ok(db_build_record(db, &base, err, sizeof err) == 0 &&
	        db_build_record(db, &head, err, sizeof err) == 0 && base.db_id > 0 && head.db_id > 0 &&
	        base.db_id != head.db_id,
	    "two builds are recorded, one row each");
	{
		int64_t first = head.db_id;
		head.db_id = 0;
		ok(db_build_record(db, &head, err, sizeof err) == 0 && head.db_id == first,
		    "the same build (name and sha256) again is the same row");
	}

	/* Cases and comparisons. */
	cmp1 = store(db, "[1, 2]", 0, "[1,2]", "[1,2]", 0, &case1);
	cmp2 = store(db, "[1, 2]", 0, "[1,2]", "[1,2]", 0, &case2);
	ok(cmp1 > 0 && cmp2 > cmp1 && case1 > 0 && case2 == case1,
	    "an identical case submitted again is the same case with a second comparison");
	ok(db_case_history(db, case1, count_row, &rows, err, sizeof err) >= 0 && rows == 2,
	    "its history lists both comparisons");
	ok(db_case_get(db, case1, &dc, err, sizeof err) == 1 && strcmp(dc.spec.code, "[1, 2]") == 0 &&
	        dc.spec.flags == 0,
	    "the case reads back as stored");
	db_case_release(&dc);
	ok(db_case_get(db, case1 + 1000, &dc, err, sizeof err) == 0,
	    "a case that does not exist is 0, not an error");
	db_case_release(&dc);
	{
		int64_t other;
		store(db, "[1, 2]", 16, "{\"0\":1,\"1\":2}", "{\"0\":1,\"1\":2}", 0, &other);
		ok(other != case1, "the same code with other flags is another case");
	}

	/* A mismatch lands in a bucket; the same mismatch again in the same one. */
	mis1 = store(db, "INF", 0, NULL, "0", 0, &mcase);
	mis2 = store(db, "INF", 0, NULL, "0", 0, &mcase);
	memset(&b1, 0, sizeof b1);
	memset(&b2, 0, sizeof b2);
	ok(db_bucket_of_comparison(db, mis1, &b1) == 1 && db_bucket_of_comparison(db, mis2, &b2) == 1 &&
	        b1.id == b2.id && b2.mismatches == 2,
	    "a mismatch stored twice: one bucket, two mismatches");
	ok(b2.state != NULL && strcmp(b2.state, "new") == 0 && b2.candidate != NULL &&
	        strcmp(b2.candidate, "head") == 0,
	    "a new bucket is 'new', and knows its candidate");
	{
		struct db_bucket none;
		memset(&none, 0, sizeof none);
		ok(db_bucket_of_comparison(db, cmp1, &none) == 0,
		    "a comparison whose builds agree has no bucket");
		db_bucket_release(&none);
	}

	/* Triage: one change, one audit entry; a missing bucket changes nothing. */
	{
		struct db_triage_change ch = { .state = "confirmed" };
		struct db_triage_result out;
		struct db_bucket_full full;
		int changed = 0;
		int64_t missing = 0, ids[2] = { b2.id, b2.id + 1000 };
		snprintf(ch.by, sizeof ch.by, "ana");
		memset(&out, 0, sizeof out);
		ok(db_triage_change(db, ids, 1, &ch, 0, &changed, &missing, &out, err, sizeof err) == 0 &&
		        changed == 1,
		    "a triage change applies to the bucket");
		db_triage_result_release(&out);
		memset(&full, 0, sizeof full);
		ok(db_bucket_get(db, b2.id, &full, err, sizeof err) == 1 &&
		        strcmp(full.b.state, "confirmed") == 0 && full.nevents == 1 &&
		        strcmp(full.events[0].by, "ana") == 0,
		    "the bucket reads 'confirmed', with one audit entry by its author");
		db_bucket_full_release(&full);
		memset(&out, 0, sizeof out);
		ch.state = "ignored";
		ok(db_triage_change(db, ids, 2, &ch, 0, &changed, &missing, &out, err, sizeof err) == -2 &&
		        missing == ids[1],
		    "a change naming a missing bucket is refused, naming it");
		db_triage_result_release(&out);
		memset(&full, 0, sizeof full);
		ok(db_bucket_get(db, b2.id, &full, err, sizeof err) == 1 &&
		        strcmp(full.b.state, "confirmed") == 0 && full.nevents == 1,
		    "and changes nothing (one transaction)");
		db_bucket_full_release(&full);
	}

	/* Roots: the bucket is a root of its own until reduced; counts without minimal cases. */
	{
		struct db_roots roots;
		ok(db_reduce_roots(db, -1, 0, &roots, err, sizeof err) == 0 && roots.n == 1 &&
		        roots.buckets == 1 && roots.roots[0].bucket_id == b2.id &&
		        roots.roots[0].mismatches == 2 && roots.roots[0].minimal == NULL &&
		        roots.pending == 1,
		    "one unreduced bucket: one root, two mismatches, pending");
		db_roots_release(&roots);
	}

	/* Runs: queued, then interrupted by a restart. */
	{
		struct db_run r;
		ok(db_run_create(db, "stored", &(struct run_params){ 0 }, builds, &run, err, sizeof err) ==
		            0 &&
		        run > 0,
		    "a run is queued");
		ok(db_run_get(db, run, &r, err, sizeof err) == 1 && strcmp(r.status, "queued") == 0 &&
		        r.nbuilds == 2 && strcmp(r.build_names[1], "head") == 0,
		    "it reads back queued, with its builds by role");
		db_run_release(&r);
		ok(db_runs_interrupt(db, err, sizeof err) == 1, "a restart marks it interrupted");
		ok(db_run_get(db, run, &r, err, sizeof err) == 1 && strcmp(r.status, "interrupted") == 0,
		    "and it reads back so");
		db_run_release(&r);
	}

	/* A run's parameters: kept as given, read back as a struct. */
	{
		struct run_params p = { .given = RUN_SEEDS | RUN_COUNT | RUN_COVERAGE,
			.nseeds = 2,
			.seeds = { 7, 8 },
			.count = 500,
			.coverage = 1 };
		struct db_run r;
		int64_t id;
		ok(db_run_create(db, "generated", &p, builds, &id, err, sizeof err) == 0 &&
		        db_run_get(db, id, &r, err, sizeof err) == 1 && r.params.given == p.given &&
		        r.params.nseeds == 2 && r.params.seeds[1] == 8 && r.params.count == 500 &&
		        r.params.coverage,
		    "a run's parameters read back as they were given");
		db_run_release(&r);
	}

	/* Coverage: one row per build, listed base first, then head, then by role. */
	{
		struct db_coverage *cov;
		size_t n;
		ok(db_coverage_store(db, run, "cand2", "c", "[]", NULL, err, sizeof err) == 0 &&
		        db_coverage_store(db, run, "head", "h", NULL, "gcovr failed", err, sizeof err) == 0 &&
		        db_coverage_store(
		            db, run, "base", "b", "[{\"file\":\"x.c\"}]", NULL, err, sizeof err) == 0,
		    "three builds' coverage stored");
		ok(db_coverage_list(db, run, &cov, &n, err, sizeof err) == 0 && n == 3 &&
		        strcmp(cov[0].role, "base") == 0 && strcmp(cov[1].role, "head") == 0 &&
		        strcmp(cov[2].role, "cand2") == 0 && cov[1].files == NULL &&
		        strcmp(cov[1].error, "gcovr failed") == 0 &&
		        strcmp(cov[0].files, "[{\"file\":\"x.c\"}]") == 0 && cov[0].error == NULL &&
		        cov[0].created_at != NULL,
		    "listed base, head, cand2: a summary or why there is none");
		db_coverage_list_release(cov, n);
		ok(db_coverage_list(db, run + 1000, &cov, &n, err, sizeof err) == 0 && n == 0 && cov == NULL,
		    "a run without coverage lists none");
	}
	db_bucket_release(&b1);
	db_bucket_release(&b2);
	db_close(db);
	return tap_done();
}
