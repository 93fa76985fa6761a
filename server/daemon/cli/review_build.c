/*
 * phpcmp review: the builds (the plan, scripts/build-php.sh, or with --src
 * scripts/build-commit.sh and the commits' diffs as patches), and the asan plan.
 */
#include "review.h"

/* The builds: the base, then each candidate's, a series a build per commit. */
int review_plan(struct review *r)
{
	struct stat st;
	int base_is_prefix = r->src == NULL && review_is_prefix(r->base_spec);
	struct review_build *b = &r->cur->builds[0];

	if (r->src == NULL && !base_is_prefix && strcmp(r->base_spec, "8.2.32") != 0) {
		if (stat(r->base_spec, &st) < 0)
			return cmd_error("review",
			    "--base %s: neither 8.2.32 (the source this machine fetches), a "
			    "php-src source (tarball or folder) nor a build prefix: %s",
			    r->base_spec, strerror(errno));
		r->base_source = r->base_spec;
	}
	snprintf(b->name, sizeof b->name, "base");
	b->candidate = -1;
	b->given_prefix = base_is_prefix ? r->base_spec : NULL;
	r->cur->nbuilds = 1;
	for (int c = 0; c < r->ncands; c++) {
		struct review_cand *k = &r->cands[c];
		int commits = k->prefix != NULL ? 1 : k->npatches;

		if (base_is_prefix && k->prefix == NULL)
			return cmd_error("review",
			    "--candidate %s: patches need the base's source, and --base %s is "
			    "a build prefix (give --base 8.2.32 or a source)",
			    k->name, r->base_spec);
		if (r->cur->nbuilds + commits > MAX_BUILDS)
			return cmd_error("review",
			    "%d builds: at most %d in all (the base and each candidate's commits)",
			    r->cur->nbuilds + commits, MAX_BUILDS);
		k->first = r->cur->nbuilds;
		k->nbuilds = commits;
		for (int i = 0; i < commits; i++) {
			b = &r->cur->builds[r->cur->nbuilds++];
			b->candidate = c;
			b->given_prefix = k->prefix;
			b->commit = commits > 1 ? i + 1 : 0;
			if (commits > 1)
				snprintf(b->name, sizeof b->name, "%s@%d", k->name, i + 1);
			else
				snprintf(b->name, sizeof b->name, "%s", k->name);
			for (int p = 0; p <= i && k->prefix == NULL; p++)
				b->patches[b->npatches++] = k->patches[p];
		}
	}
	for (int i = 0; i < r->cur->nbuilds; i++) /* the same arrays' sizes: a copy */
		memcpy(r->cur->builds[i].dname, r->cur->builds[i].name, sizeof r->cur->builds[i].dname);
	return 0;
}

/* ---- processes ---- */

/* Where this executable and the project's scripts are (proc_find_root). */
int review_find_root(struct review *r)
{
	return proc_find_root("review", r->exe, sizeof r->exe, r->root, sizeof r->root);
}

int review_make_work(struct review *r)
{
	if (r->work_arg != NULL) {
		if (mkdir(r->work_arg, 0700) < 0 && errno != EEXIST)
			return cmd_error("review", "--work %s: %s", r->work_arg, strerror(errno));
		if (realpath(r->work_arg, r->work) == NULL)
			return cmd_error("review", "--work %s: %s", r->work_arg, strerror(errno));
		return 0;
	}
	const char *tmpdir = getenv("TMPDIR");
	snprintf(r->work, sizeof r->work, "%s/phpcmp-review-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (mkdtemp(r->work) == NULL)
		return cmd_error("review", "%s: %s", r->work, strerror(errno));
	return 0;
}

/* scripts/build-php.sh for one build, its own progress on the terminal. */
int review_build_one(struct review *r, struct review_build *b)
{
	char script[PATH_MAX + 32], builds[PATH_MAX + 16], link[PATH_MAX + 96];
	char *argv[14 + 2 * REVIEW_MAX_PATCHES];
	int n = 0, rc;
	double t = review_now();
	pid_t pid;
	const char *flavour = r->cur->asan ? " (asan)" : "";

	if (b->given_prefix != NULL) {
		if (realpath(b->given_prefix, b->prefix) == NULL)
			return cmd_error("review", "%s: %s: %s", b->name, b->given_prefix, strerror(errno));
		review_say(r, "%s: the build prefix %s", b->name, b->prefix);
		return 0;
	}
	snprintf(script, sizeof script, "%s/scripts/%s", r->root,
	    r->src != NULL ? "build-commit.sh" : "build-php.sh");
	/* On a --url daemon: in its builds folder, the one place it takes builds from. */
	if (r->url != NULL && !r->cur->asan)
		snprintf(builds, sizeof builds, "%s", r->builds_dir);
	else
		snprintf(builds, sizeof builds, "%s/builds-%s", r->work, r->cur->what);
	argv[n++] = (char *)"/bin/bash";
	argv[n++] = script;
	if (r->src != NULL) { /* the merge base's source, then build-php.sh's arguments */
		argv[n++] = (char *)"--src";
		argv[n++] = (char *)r->src;
		argv[n++] = (char *)"--base";
		argv[n++] = r->src_base;
	}
	argv[n++] = (char *)"--name";
	argv[n++] = b->dname;
	argv[n++] = (char *)"--builds";
	argv[n++] = builds;
	if (r->base_source != NULL) {
		argv[n++] = (char *)"--source";
		argv[n++] = (char *)r->base_source;
	}
	if (r->cur->asan) {
		argv[n++] = (char *)"--flavour";
		argv[n++] = (char *)"asan";
	}
	for (int i = 0; i < b->npatches; i++) {
		argv[n++] = (char *)"--patch";
		argv[n++] = (char *)b->patches[i];
	}
	argv[n] = NULL;
	review_say(
	    r, "building %s%s (%d patch%s)", b->name, flavour, b->npatches, b->npatches == 1 ? "" : "es");
	if ((pid = proc_spawn("review", argv, NULL, NULL)) < 0)
		return -1;
	if ((rc = proc_wait(pid)) != 0)
		return cmd_error("review",
		    "building %s failed (scripts/build-php.sh exited %d; its output is above)", b->name, rc);
	snprintf(link, sizeof link, "%s/%s", builds, b->dname);
	if (realpath(link, b->prefix) == NULL)
		return cmd_error("review", "%s: %s", link, strerror(errno));
	review_say(r, "%s%s built in %.1f s: %s", b->name, flavour, review_now() - t, b->prefix);
	return 0;
}

/* ---- --src: a php-src repository's commits as patches ---- */

/* The diff from..to (scripts/build-commit.sh --diff: what libphp is made of)
 * into a patch file named after to's subject, under the work folder's
 * patches/DIR: its path (kept in the review), or NULL (said). */
static const char *review_src_patch(
    struct review *r, const char *dir, int nth, const char *from, const char *to)
{
	char script[PATH_MAX + 32], folder[PATH_MAX + 80], subject[200], slug[56];
	char *path, *argv[12];
	size_t n = 0;
	int rc;

	if (r->nsrc_patches == (int)(sizeof r->src_patches / sizeof r->src_patches[0])) {
		cmd_error("review", "at most %d commits in all", REVIEW_MAX_PATCHES);
		return NULL;
	}
	/* git format-patch's name: the subject's letters and digits, '-' between */
	gitsrc_subject(r->src, to, subject, sizeof subject);
	for (const char *s = subject; *s && n < sizeof slug - 1; s++) {
		int ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    *s == '.' || *s == '_';
		if (ok)
			slug[n++] = *s;
		else if (n > 0 && slug[n - 1] != '-')
			slug[n++] = '-';
	}
	while (n > 0 && (slug[n - 1] == '-' || slug[n - 1] == '.'))
		n--;
	slug[n] = '\0';
	snprintf(folder, sizeof folder, "%s/patches", r->work);
	if (mkdir(folder, 0700) < 0 && errno != EEXIST) {
		cmd_error("review", "%s: %s", folder, strerror(errno));
		return NULL;
	}
	snprintf(folder, sizeof folder, "%s/patches/%s", r->work, dir);
	if (mkdir(folder, 0700) < 0 && errno != EEXIST) {
		cmd_error("review", "%s: %s", folder, strerror(errno));
		return NULL;
	}
	path = r->src_patches[r->nsrc_patches];
	if (snprintf(path, PATH_MAX, "%s/%04d-%s.patch", folder, nth, n > 0 ? slug : "commit") >= PATH_MAX) {
		cmd_error("review", "%s: a path too long", folder);
		return NULL;
	}
	snprintf(script, sizeof script, "%s/scripts/build-commit.sh", r->root);
	n = 0;
	argv[n++] = (char *)"/bin/bash";
	argv[n++] = script;
	argv[n++] = (char *)"--src";
	argv[n++] = (char *)r->src;
	argv[n++] = (char *)"--diff";
	argv[n++] = (char *)from;
	argv[n++] = (char *)to;
	argv[n++] = (char *)"--out";
	argv[n++] = path;
	argv[n] = NULL;
	pid_t pid = proc_spawn("review", argv, NULL, NULL);
	if (pid < 0)
		return NULL;
	if ((rc = proc_wait(pid)) != 0) {
		cmd_error("review", "scripts/build-commit.sh --diff %.12s %.12s exited %d", from, to, rc);
		return NULL;
	}
	r->nsrc_patches++;
	return path;
}

/* --src: the merge base, the series `head` of base..head and each
 * --candidate NAME=REF as one patch from the merge base. */
int review_src(struct review *r)
{
	char base[GITSRC_ID_MAX], head[GITSRC_ID_MAX], id[GITSRC_ID_MAX];
	struct gitsrc_list l = { NULL, 0 };
	struct review_cand *c;
	const char *prev;
	int rc = -1;

	if (gitsrc_check(r->src) < 0 || gitsrc_commit(r->src, r->base_spec, base) < 0 ||
	    gitsrc_commit(r->src, r->head_ref, head) < 0 ||
	    gitsrc_merge_base(r->src, base, head, r->src_base) < 0)
		return -1;
	if (strcmp(base, r->src_base) != 0)
		review_say(r, "the merge base of %s and %s: %.12s", r->base_spec, r->head_ref, r->src_base);
	if (gitsrc_range(r->src, r->src_base, head, NULL, 0, &l) < 0)
		return -1;
	if (l.n == 0) {
		cmd_error("review", "no commit in %.12s..%s: nothing to review", r->src_base, r->head_ref);
		goto out;
	}
	if (l.n > MAX_BUILDS - 1 - (size_t)r->ncand_specs) {
		cmd_error("review",
		    "%zu commits in %.12s..%s and %d more candidates: at most %d builds in all (the "
		    "base and each commit); review a shorter range, or bisect it (phpcmp bisect)",
		    l.n, r->src_base, r->head_ref, r->ncand_specs, MAX_BUILDS);
		goto out;
	}
	review_say(r, "%zu commit%s in %.12s..%.12s (first-parent): a build each", l.n, l.n == 1 ? "" : "s",
	    r->src_base, head);
	c = &r->cands[r->ncands++];
	c->name = "head";
	prev = r->src_base;
	for (size_t i = 0; i < l.n; i++) {
		if ((c->patches[c->npatches] = review_src_patch(r, "head", (int)i + 1, prev, l.ids[i])) ==
		    NULL)
			goto out;
		c->npatches++;
		prev = l.ids[i];
	}
	for (int k = 0; k < r->ncand_specs; k++) {
		char *spec = r->cand_specs[k], *eq = strchr(spec, '=');

		if (eq == NULL || !review_name_ok(spec, (size_t)(eq - spec)) || eq[1] == '\0') {
			cmd_error("review",
			    "--candidate %s: expected NAME=REF with --src (NAME: letters, digits, . _ -, at most 40)",
			    spec);
			goto out;
		}
		*eq = '\0';
		for (int j = 0; j < r->ncands; j++)
			if (strcmp(r->cands[j].name, spec) == 0 || strcmp(spec, "base") == 0) {
				cmd_error("review",
				    "--candidate %s: the name is taken (base, head: the series)", spec);
				goto out;
			}
		if (gitsrc_commit(r->src, eq + 1, id) < 0)
			goto out;
		c = &r->cands[r->ncands++];
		c->name = spec;
		if ((c->patches[0] = review_src_patch(r, spec, 1, r->src_base, id)) == NULL)
			goto out;
		c->npatches = 1;
	}
	rc = 0;
out:
	gitsrc_list_release(&l);
	return rc;
}

/* --src: a commit that changes nothing libphp is made of (an empty diff) is
 * no patch: its build is its parent's (build-php.sh would build a patch
 * that touches nothing in full). */
void review_src_drop_empty(struct review *r)
{
	for (int i = 0; i < r->rel.nbuilds; i++) {
		struct review_build *b = &r->rel.builds[i];
		int kept = 0;
		struct stat st;

		for (int p = 0; p < b->npatches; p++)
			if (stat(b->patches[p], &st) == 0 && st.st_size > 0)
				b->patches[kept++] = b->patches[p];
		b->npatches = kept;
	}
}

/*
 * Memory errors (issue 22): the asan flavour of the base and of each
 * candidate's last build, and a sample of the generated corpus on them, on
 * a daemon of their own.  A read past a buffer or a use after free that
 * changes no output is a mismatch there (status memory-error), reduced like
 * any other.
 */
void review_plan_asan(struct review *r)
{
	struct review_set *a = &r->asan;

	if (r->no_asan) {
		r->asan_skipped = "--no-asan";
		return;
	}
	if (r->rel.builds[0].given_prefix != NULL) {
		r->asan_skipped =
		    "the base is a build prefix: there is no source to build its asan flavour from";
		return;
	}
	for (int i = 0; i < r->rel.nbuilds; i++) {
		const struct review_build *b = &r->rel.builds[i];
		const struct review_cand *c = b->candidate >= 0 ? &r->cands[b->candidate] : NULL;

		if (c != NULL && (c->prefix != NULL || (b->commit > 0 && b->commit < c->npatches)))
			continue; /* a given prefix has no source; a series' earlier commits */
		a->builds[a->nbuilds] = *b;
		a->builds[a->nbuilds].prefix[0] = a->builds[a->nbuilds].role[0] = '\0';
		a->builds[a->nbuilds].commit = 0; /* one commit of a series: no attribution here */
		a->nbuilds++;
	}
	if (a->nbuilds < 2) {
		a->nbuilds = 0;
		r->asan_skipped = "no candidate was built from patches";
	}
}
