/*
 * phpcmp review: a pull request's verdict in one command (docs/review.md).
 *
 *   phpcmp review --base 8.2.32 --candidate pr=0001-a.patch,0002-b.patch \
 *                 --candidate keys-only=keys.patch [--count N] [--out F] [--json]
 *   phpcmp review --src ~/php-src --base REF --head REF [--candidate NAME=REF] ...
 *
 * With --src (a php-src git repository, only read: gitsrc.c and
 * scripts/build-commit.sh), the base is the merge base of --base and --head,
 * built from its tree, and the candidate `head` is the series of the
 * commits of base..head (first-parent), each commit's diff a patch named
 * after its subject: a build per commit, as for patches given.
 * 1. builds the base and every candidate with scripts/build-php.sh (cached;
 *    a series of patches is a build per prefix: pr@1, pr@2 ...), its
 *    progress on the terminal;
 * 2. serves them on a daemon of its own (this executable's `serve`, on a
 *    free loopback port, with a database in the review's work folder);
 * 3. runs the generated corpus, the stored cases, php-src's ext/json/tests
 *    and the measure workloads on every build, and waits for the reducer;
 * 4. runs each root cause's minimal case once more on every build: a
 *    series' root belongs to the first commit that shows it;
 * 5. writes one Markdown report shaped as a pull-request comment (or the
 *    same as JSON) and stops its daemon.
 *
 * Exit 0: every candidate gives the base's outputs and test results; 1: a
 * difference; 2: an error (said on stderr; the work folder is kept).
 * What it knows of the daemon is its HTTP API, like any client's.
 */
#include "review.h"

static void review_usage(FILE *f)
{
	fputs("usage: phpcmp review --base SPEC --candidate NAME=PATCH[,PATCH...] [options]\n"
	      "       phpcmp review --src REPO --base REF --head REF [--candidate NAME=REF] [options]\n"
	      "\n"
	      "Builds the base and each candidate, runs the generated corpus, the stored\n"
	      "cases, php-src's ext/json/tests and the measure workloads on all of them on a\n"
	      "daemon of its own, and writes the verdict as a pull-request comment\n"
	      "(Markdown).  Exit 0: every candidate the same as the base; 1: differences;\n"
	      "2: an error.  docs/review.md.\n"
	      "\n"
	      "  --base SPEC           8.2.32 (php-src 8.2.32, the source scripts/build-php.sh\n"
	      "                        fetches), a php-src source (tarball or folder), or an\n"
	      "                        existing build prefix (then candidates are prefixes too)\n"
	      "  --candidate NAME=P[,P...]  patches applied in order over the base's source\n"
	      "                        (repeatable); several patches are a series: a build per\n"
	      "                        commit, NAME@1 .. NAME@k, each root traced to the first\n"
	      "                        commit that shows it.  NAME=PREFIX: an existing build\n"
	      "  --src REPO            a php-src git repository (checkout or bare), only read:\n"
	      "                        the base is the merge base of --base REF and --head REF,\n"
	      "                        the candidate `head` every commit of base..head\n"
	      "                        (first-parent), a build each; --candidate NAME=REF is\n"
	      "                        that commit, one build (scripts/build-commit.sh)\n"
	      "  --head REF            with --src: the pull request's head\n"
	      "  --count N             generated cases (200000)\n"
	      "  --seed S              the generated corpus' seed (1)\n"
	      "  --asan-count N        generated cases on the asan flavour of the base and each\n"
	      "                        candidate's last build, for memory errors (--count / 10)\n"
	      "  --no-asan             no asan builds and no memory-error sample\n"
	      "  --settle S            seconds to wait for the reducer at most (600)\n"
	      "  --out FILE            write the report there (default: standard output)\n"
	      "  --json                the report as JSON instead of Markdown\n"
	      "  --work DIR            keep the review's folder (database, daemon log, build\n"
	      "                        links) there; default a temporary one, removed after\n"
	      "  --state DIR           compiled worker cores, shared with `phpcmp serve` (state)\n"
	      "  --cases DIR           stored cases (cases)\n"
	      "  --url URL             review on a running daemon instead (the team's): the\n"
	      "                        builds are made in its builds folder (GET /api/builds;\n"
	      "                        it must be on this machine), registered as LABEL-NAME,\n"
	      "                        its runs and roots stay there for triage, the builds\n"
	      "                        are retired at the end.  $PHPCMP_TOKEN is sent when set\n"
	      "  --label LABEL         the builds' prefix on that daemon (review; another one\n"
	      "                        for reviews at the same time on one daemon)\n"
	      "  --keep-builds         leave them registered (their workers keep running)\n"
	      "At most 8 builds in all (the base, and each candidate's commits).\n",
	    f);
}

/* ---- arguments ---- */

static int review_add_candidate(struct review *r, char *spec)
{
	char *eq = strchr(spec, '='), *item, *save = NULL;
	struct review_cand *c;
	struct stat st;

	if (eq == NULL || !review_name_ok(spec, (size_t)(eq - spec)) || eq[1] == '\0')
		return cmd_error("review",
		    "--candidate %s: expected NAME=PATCH[,PATCH...] or NAME=PREFIX "
		    "(NAME: letters, digits, . _ -, at most 40)",
		    spec);
	if (r->ncands == MAX_BUILDS - 1)
		return cmd_error("review", "--candidate: at most %d candidates", MAX_BUILDS - 1);
	c = &r->cands[r->ncands];
	*eq = '\0';
	c->name = spec;
	for (int i = 0; i < r->ncands; i++)
		if (strcmp(r->cands[i].name, c->name) == 0)
			return cmd_error("review", "--candidate %s: the name is taken", c->name);
	if (strcmp(c->name, "base") == 0)
		return cmd_error("review", "--candidate base: the name is the base's");
	for (item = strtok_r(eq + 1, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		if (stat(item, &st) < 0)
			return cmd_error("review", "--candidate %s: %s: %s", c->name, item, strerror(errno));
		if (S_ISDIR(st.st_mode)) {
			if (!review_is_prefix(item) || c->npatches > 0 || c->prefix != NULL)
				return cmd_error("review",
				    "--candidate %s: %s is a folder but not a build prefix "
				    "(lib/libphp.so), or not alone",
				    c->name, item);
			c->prefix = item;
			continue;
		}
		if (c->prefix != NULL || c->npatches == REVIEW_MAX_PATCHES)
			return cmd_error("review", "--candidate %s: a prefix alone, or at most %d patches",
			    c->name, REVIEW_MAX_PATCHES);
		c->patches[c->npatches++] = item;
	}
	if (c->npatches == 0 && c->prefix == NULL)
		return cmd_error("review", "--candidate %s: no patch", c->name);
	r->ncands++;
	return 0;
}

static int review_parse(struct review *r, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			review_usage(stdout);
			exit(0);
		} else if (strcmp(a, "--json") == 0) {
			r->json = 1;
			continue;
		} else if (strcmp(a, "--no-asan") == 0) {
			r->no_asan = 1;
			continue;
		} else if (strcmp(a, "--keep-builds") == 0) {
			r->keep_builds = 1;
			continue;
		} else if (v == NULL) {
			return cmd_error("review",
			    "%s: unknown option, or its value is missing (phpcmp review --help)", a);
		} else if (strcmp(a, "--base") == 0) {
			r->base_spec = v;
		} else if (strcmp(a, "--candidate") == 0) {
			/* read once --src is known: patches, or commits */
			if (r->ncand_specs == MAX_BUILDS - 1)
				return cmd_error(
				    "review", "--candidate: at most %d candidates", MAX_BUILDS - 1);
			r->cand_specs[r->ncand_specs++] = argv[i + 1];
		} else if (strcmp(a, "--src") == 0) {
			r->src = v;
		} else if (strcmp(a, "--head") == 0) {
			r->head_ref = v;
		} else if (strcmp(a, "--count") == 0) {
			if (cmd_long("review", a, v, 1, 10000000, &r->count) < 0)
				return -1;
		} else if (strcmp(a, "--asan-count") == 0) {
			if (cmd_long("review", a, v, 1, 10000000, &r->asan_count) < 0)
				return -1;
		} else if (strcmp(a, "--seed") == 0) {
			if (cmd_long("review", a, v, 0, LONG_MAX, &r->seed) < 0)
				return -1;
		} else if (strcmp(a, "--settle") == 0) {
			if (cmd_long("review", a, v, 0, 86400, &r->settle_s) < 0)
				return -1;
		} else if (strcmp(a, "--out") == 0) {
			r->out_path = v;
		} else if (strcmp(a, "--work") == 0) {
			r->work_arg = v;
		} else if (strcmp(a, "--state") == 0) {
			r->state = v;
		} else if (strcmp(a, "--cases") == 0) {
			r->cases = v;
		} else if (strcmp(a, "--url") == 0) {
			if (strncmp(v, "http://", 7) != 0 || strlen(v) >= sizeof r->rel.d.url)
				return cmd_error("review", "--url %s: expected http://HOST:PORT", v);
			r->url = v;
		} else if (strcmp(a, "--label") == 0) {
			if (!review_name_ok(v, strlen(v)))
				return cmd_error("review", "--label %s: 1 to 40 of A-Z a-z 0-9 . _ -", v);
			r->label_arg = v;
		} else {
			return cmd_error("review", "%s: unknown option (phpcmp review --help)", a);
		}
		i++;
	}
	if (r->base_spec == NULL)
		return cmd_error("review",
		    r->src != NULL ? "--base: required (a commit of --src)"
		                   : "--base: required (8.2.32, a php-src source, or a build prefix)");
	if ((r->src == NULL) != (r->head_ref == NULL))
		return cmd_error("review", "--src REPO and --head REF go together");
	for (int c = 0; c < r->ncand_specs && r->src == NULL; c++)
		if (review_add_candidate(r, r->cand_specs[c]) < 0)
			return -1;
	if (r->ncands == 0 && r->src == NULL)
		return cmd_error("review", "--candidate: at least one");
	if (r->asan_count == 0)
		r->asan_count = r->count / 10 > 0 ? r->count / 10 : 1;
	return 0;
}

int review_command(int argc, char **argv)
{
	struct review r = { .count = REVIEW_DEFAULT_COUNT, .seed = 1, .settle_s = REVIEW_DEFAULT_SETTLE_S };
	int rc = 2, verdict;

	r.t0 = review_now();
	r.rel.what = "release";
	r.asan.what = "asan";
	r.asan.asan = 1;
	r.cur = &r.rel;
	if (review_parse(&r, argc, argv) < 0)
		return 2;
	if (r.src != NULL) { /* the commits' patches are written in the work folder */
		if (review_find_root(&r) < 0 || review_make_work(&r) < 0)
			return 2;
		if (review_src(&r) < 0 || review_plan(&r) < 0)
			goto out;
		review_src_drop_empty(&r);
	} else if (review_plan(&r) < 0) {
		return 2;
	}
	review_plan_asan(&r);
	if (r.src == NULL && (review_find_root(&r) < 0 || review_make_work(&r) < 0))
		return 2;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0 || (r.curl = curl_easy_init()) == NULL) {
		cmd_error("review", "libcurl failed to start");
		goto out;
	}
	if (r.url != NULL) {
		snprintf(r.rel.d.url, sizeof r.rel.d.url, "%s", r.url);
		if (review_attach(&r) < 0)
			goto out;
	}
	for (int i = 0; i < r.rel.nbuilds; i++)
		if (review_build_one(&r, &r.rel.builds[i]) < 0)
			goto out;
	if ((r.url != NULL ? review_register(&r) : review_serve(&r)) < 0 || review_roles(&r) < 0 ||
	    review_run_all(&r) < 0)
		goto out;
	review_stop(&r); /* everything is read: its cores are for the asan daemon now */
	if (!r.keep_builds)
		review_retire(&r);
	if (r.asan.nbuilds > 0 && review_run_asan(&r) < 0)
		goto out;
	verdict = review_verdict(&r);
	if (review_write(&r) < 0 || (r.url != NULL && review_keep(&r, verdict) < 0))
		goto out;
	review_say(&r, "verdict: %s (exit %d)", verdict ? "differences" : "the same", verdict);
	rc = verdict;
out:
	r.cur = &r.asan;
	review_stop(&r);
	r.cur = &r.rel;
	review_stop(&r);
	if (r.url != NULL && !r.keep_builds && r.curl != NULL)
		review_retire(&r); /* a review that failed midway leaves none behind either */
	if (r.curl != NULL) {
		curl_easy_cleanup(r.curl);
		curl_global_cleanup();
	}
	if (rc == 2 && r.work[0])
		fprintf(stderr, "phpcmp review: the work folder is kept: %s\n", r.work);
	else if (r.work_arg == NULL && r.work[0] && rmtree(r.work) < 0)
		fprintf(stderr, "phpcmp review: %s: cannot remove: %s\n", r.work, strerror(errno));
	json_decref(r.generated);
	json_decref(r.stored);
	json_decref(r.phpt);
	json_decref(r.measure);
	json_decref(r.measurements);
	json_decref(r.roots);
	json_decref(r.asan_generated);
	json_decref(r.asan_roots);
	json_decref(r.asan_samples);
	json_decref(r.health);
	free(r.phpt_line);
	free(r.measure_md);
	return rc;
}
