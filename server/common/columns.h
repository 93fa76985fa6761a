/*
 * The JSON the database keeps in columns, written in one place: a case's
 * compile error, a reduction's outputs, a triage change.  (A run's
 * parameters have runparams.c, which also reads them back; a run's
 * summary is its suite's.)  Each is malloc'd compact text, NULL out of
 * memory; the HTTP layer serves them as they are.
 */
#ifndef PHPCMP_COLUMNS_H
#define PHPCMP_COLUMNS_H

#include <stdint.h>

#include "common.h"

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

#endif
