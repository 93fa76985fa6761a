/*
 * The JSON the database keeps in columns, written in one place: a case's
 * compile error, a reduction's outputs, a triage change, a generated or
 * phpt run's summary.  (A run's parameters have runparams.c, which also
 * reads them back; a coverage summary gcovr.c, made from gcovr's report.)
 * Each is malloc'd compact text, NULL out of memory; the HTTP layer serves
 * them as they are.
 */
#ifndef PHPCMP_COLUMNS_H
#define PHPCMP_COLUMNS_H

#include <stdint.h>

#include "model.h"
#include "gen.h"
#include "phpt.h"
#include "runparams.h"

/* The first of n builds' case error (result_case_error): message, section,
 * line, column, role, build (names[i], else the role).  NULL also when there is none. */
char *column_case_error(const struct result res[], int n, const char *const names[]);

/* A reduced case's results, {"base": ..., ROLE: ...}: each its status, output
 * (null over RESULT_INLINE_MAX: "omitted":["output"], its size kept), error
 * code, message and exception. */
char *column_reduced_outputs(int role, const struct result res[2]);

/* A triage change to one bucket: each field that changed, from and to (NULL: none). */
struct column_change {
	int changed;
	const char *from, *to;
};
struct column_triage {
	struct column_change state, assignee, notes;
	int answered_reappearance; /* a state set on a bucket that had reappeared */
	int64_t root;              /* made on this root cause (POST /api/roots/{id}/triage), 0: not */
};
/* {"state":[from,to], "assignee":..., "notes":..., "reappeared":false, "root":ID}, keys sorted. */
char *column_triage_changes(const struct column_triage *);

/* ---- a generated run's summary (docs/generated.md, "The summary") ---- */

/* Where a worker's time on a batch goes (its TAG_GEN_TIMES, nanoseconds, in this order). */
enum gen_phase {
	GEN_T_TOTAL,
	GEN_T_DECLARE,
	GEN_T_GENERATE,
	GEN_T_BUILD,
	GEN_T_ENCODE,
	GEN_T_DIGEST,
	GEN_PHASES
};
/*
 * Where a crash's time goes, from the progress page's clocks (proto.h):
 * the fork server saw its child die -> the daemon had the PROTO_DIED ->
 * it sent the rest of the batch; meanwhile the fork server forked the next
 * child (died -> ready), which then declared the generator's classes and
 * resumed the batch (died -> resumed: the whole gap).
 */
enum gen_crash_phase { GEN_C_NOTICE, GEN_C_DAEMON, GEN_C_REPLACE, GEN_C_RESUME, GEN_CRASH_PHASES };

#define GEN_TALLY_ERRORS 12    /* json_last_error() codes by name (JSON_ERROR_NONE ..); one more: any other */
#define GEN_TALLY_STATUSES 5   /* by enum result_status */
#define GEN_TALLY_LIST 20      /* mismatches named in the summary (all: the run's cases) */
#define GEN_TALLY_SAMPLES 8    /* mismatches stored in full during the run, per signature */
#define GEN_TALLY_SIG_SIZE 512 /* room for every candidate's part */

/* One build's share of the run. */
struct gen_build_tally {
	uint64_t statuses[GEN_TALLY_STATUSES];
	uint64_t errors[GEN_TALLY_ERRORS + 1];
	uint64_t exceptions;
	int64_t failures;           /* crashed or timed out */
	int64_t mismatches;         /* a candidate's cases that differ from the base's */
	uint64_t times[GEN_PHASES]; /* nanoseconds, sampled phases */
	double busy_ms;
	double crash_ms[GEN_CRASH_PHASES]; /* summed over the crashes timed */
	int64_t crashes_timed;
};

/* One of the first mismatches, named in the summary. */
struct gen_listed {
	uint64_t seed;
	int64_t index, case_id;
	char differs[128];   /* the verdict's fields, or "none when run alone" */
	char candidates[48]; /* the roles that differ, "head,cand2" */
};

/*
 * A mismatch's signature, from the digests alone: which of the digest's
 * fields differ, then each build's status, error code and whether it
 * threw, e.g. "output|ok,0,0|ok,0,0" or "status|ok,0,0|crash,0,0".  The
 * first GEN_TALLY_SAMPLES mismatches of each signature are stored in full
 * while the run goes on (a bounded sample: what buckets and reduction
 * start from); every mismatch is listed with its digests, and made again
 * from (seed, index) when it is asked for.
 */
struct gen_sig {
	char key[GEN_TALLY_SIG_SIZE];
	int64_t count;
	int samples;
	int64_t sample_ids[GEN_TALLY_SAMPLES];
};

/* What a generated run counted, as it goes. */
struct gen_tally {
	int nbuilds;
	struct gen_build_tally build[MAX_BUILDS]; /* by role, base first */
	int64_t done, skipped, mismatches, unconfirmed, sampled, other_sig;
	uint64_t coverage[GEN_COUNTERS];
	uint64_t corpus[RUN_MAX_SEEDS]; /* per seed, complete when done */
	int seeds_done;
	double compare_ms, mismatch_ms, db_ms; /* the daemon's own time */
	int nlisted;
	struct gen_listed listed[GEN_TALLY_LIST];
	int nsigs;
	const struct gen_sig *sigs;
};

/* Beside the tally, what the summary says of the run and the daemon. */
struct gen_summary_context {
	const struct run_params *params; /* seeds, count, start */
	const char *const *build_names;  /* by role */
	double elapsed_ms;
	long peak_rss_kb, rss_kb; /* the daemon's, -1 unknown */
	int final;                /* the run ended: the corpus hash when every seed was done */
	/* The cases were made for an older PHP than the generator's newest constructs
	 * (gen_case_make_php): "PHP 8.0.10: enums left out"; NULL: every construct. */
	const char *generated_for;
};

char *column_generated_summary(const struct gen_tally *, const struct gen_summary_context *);
/* The generator version a stored summary names; -1 when it names none (or is not JSON). */
int64_t column_generated_version(const char *summary);

/* ---- a phpt run's summary (docs/phpt.md) ---- */

/* Each text a summary keeps is cut to about this many bytes. */
#define PHPT_TALLY_MAX_TEXT 16384

/* A test's outcome on one build, as the summary keeps it. */
struct phpt_tally_result {
	enum phpt_status status;
	char *reason, *diff, *output; /* cut, malloc'd; NULL: none (output: a failing FILE's) */
	size_t output_len;
	const char
	    *verdict; /* a candidate's against the base ("regression", "improvement", "differ", "same") */
	int64_t bucket_id; /* a candidate's bucket, 0: none */
};

struct phpt_tally_row {
	char *test, *name;   /* malloc'd */
	const char *verdict; /* over every candidate (a static string) */
	struct phpt_tally_result r[MAX_BUILDS];
};

/* What a phpt run counted, test by test. */
struct phpt_tally {
	char *dir; /* the folder run, NULL: files (malloc'd) */
	int64_t total;
	int nbuilds;
	char build_names[MAX_BUILDS][64];
	int64_t counts[MAX_BUILDS][PS_COUNT];
	int64_t same[MAX_BUILDS], differ[MAX_BUILDS]; /* by candidate */
	struct phpt_tally_row *rows;
	size_t nrows, caprows;
};

/* A test's row added, its texts copied and cut (r's texts stay the caller's): 0, or -1 out of memory. */
int phpt_tally_add(struct phpt_tally *, const char *test, const char *name, const char *verdict,
    const struct phpt_tally_result r[MAX_BUILDS]);
void phpt_tally_release(struct phpt_tally *);
char *column_phpt_summary(const struct phpt_tally *);
/* A stored summary read back (dir, total, the builds, counts, each row's
 * test and statuses): 0, or -1 (not a phpt summary, or out of memory). */
int column_phpt_summary_read(const char *text, struct phpt_tally *);

#endif
