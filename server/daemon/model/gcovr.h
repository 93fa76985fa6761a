/*
 * gcovr's JSON report (gcovr --json) read for the files a coverage run
 * reports on: the summary the coverage table keeps (per file and per
 * function: lines and branches hit, the unreached ones) and the page's
 * annotated source of each file.  This file is the one place that knows
 * gcovr's JSON and the summary's (docs/coverage.md).
 */
#ifndef PHPCMP_GCOVR_H
#define PHPCMP_GCOVR_H

#include <stddef.h>

/*
 * The report at report_path, for files[0..nfiles-1] (paths as gcovr names
 * them, relative to src_root) in that order: *summary (malloc'd JSON text,
 * an array of each file's summary) and, for each file found, its source
 * (read from src_root/FILE) annotated with the counts, written as
 * outdir/BASENAME.json.  0, or -1 with err.
 */
int gcovr_summarise(const char *report_path, const char *const files[], size_t nfiles, const char *src_root,
    const char *outdir, char **summary, char *err, size_t errsize);

/* One file's totals in a stored summary. */
struct gcovr_file_totals {
	char file[256]; /* "ext/json/json_encoder.c" */
	long lines_hit, lines_total, branches_hit, branches_total;
};
/* The files of a stored summary into out: their count (at most max), -1 when it is not one. */
int gcovr_summary_files(const char *summary, struct gcovr_file_totals out[], int max);

#endif
