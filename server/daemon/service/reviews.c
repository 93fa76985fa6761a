/*
 * Reviews kept by the daemon (docs/review.md, "On the team's daemon"):
 * phpcmp review --url ends by posting its verdict and report here, so a CI
 * job's review is read where the team triages its runs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "services.h"

int reviews_add(
    struct app *app, const struct review_input *in, const char *who, int64_t *id, struct svc_error *e)
{
	struct db_review r;
	struct db_run run;
	char err[512];
	int rc;

	/* Every run it names is one of this daemon's. */
	for (int i = 0; i < in->nruns; i++) {
		if ((rc = db_run_get(app->db, in->run_ids[i], &run, err, sizeof err)) < 0)
			return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
		if (rc == 0)
			return svc_fail(e, SVC_BAD_REQUEST, NULL, "runs.%s: no run %" PRId64,
			    in->run_names[i], in->run_ids[i]);
		db_run_release(&run);
	}
	memset(&r, 0, sizeof r);
	snprintf(r.label, sizeof r.label, "%s", in->label);
	snprintf(r.verdict, sizeof r.verdict, "%s", in->verdict);
	snprintf(r.created_by, sizeof r.created_by, "%s", who != NULL ? who : "");
	r.builds = (char *)in->builds;
	r.runs = (char *)in->runs;
	r.report_md = (char *)in->report_md;
	if (db_review_add(app->db, &r, id, err, sizeof err) < 0)
		return svc_fail(e, SVC_STORAGE, NULL, "%s", err);
	return 0;
}
