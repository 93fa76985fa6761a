/*
 * A php-src git repository read, never changed (review --src, bisect):
 * `git -C SRC rev-parse / merge-base / rev-list / log`, each run as a child
 * with its standard output read back.  Nothing here checks out, stashes or
 * writes an index: the trees are read by scripts/build-commit.sh (git diff,
 * git archive).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "cli.h"
#include "cmdline.h"

#define GITSRC_MAX_ARGS 64
#define GITSRC_MAX_OUTPUT (16u << 20)

/* git -C src ARGS: its standard output (NUL-terminated, the caller frees)
 * in *out; 0 when git exits 0, 1 when it exits otherwise (quiet: its
 * stderr is dropped), -1 when it cannot run (said). */
static int gitsrc_run(const char *src, const char *const args[], char **out, int quiet)
{
	const char *argv[GITSRC_MAX_ARGS + 4];
	struct buf o = BUF_INIT;
	int fds[2], n = 0, status;
	char chunk[8192];
	ssize_t got;
	pid_t pid;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = src;
	for (int i = 0; args[i] != NULL && n < GITSRC_MAX_ARGS + 3; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	*out = NULL;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return cmd_error(NULL, "pipe: %s", strerror(errno));
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return cmd_error(NULL, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		if (dup2(fds[1], 1) < 0)
			_exit(127);
		if (quiet) {
			int null = open("/dev/null", O_WRONLY);
			if (null >= 0)
				dup2(null, 2);
		}
		execvp("git", (char *const *)argv);
		fprintf(stderr, "phpcmp: git: %s\n", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while ((got = read(fds[0], chunk, sizeof chunk)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (o.len + (size_t)got <= GITSRC_MAX_OUTPUT)
			buf_add(&o, chunk, (size_t)got);
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return cmd_error(NULL, "waitpid: %s", strerror(errno));
	if (o.failed) {
		buf_release(&o);
		return cmd_error(NULL, "out of memory");
	}
	*out = buf_detach(&o, NULL);
	if (*out == NULL && (*out = strdup("")) == NULL)
		return cmd_error(NULL, "out of memory");
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		free(*out);
		*out = NULL;
		return cmd_error(NULL, "git could not run (is it installed?)");
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* The first line of text, its newline cut. */
static void gitsrc_first_line(char *text)
{
	text[strcspn(text, "\r\n")] = '\0';
}

int gitsrc_check(const char *src)
{
	const char *args[] = { "rev-parse", "--git-dir", NULL };
	char *out;
	int rc = gitsrc_run(src, args, &out, 1);

	free(out);
	if (rc < 0)
		return -1;
	if (rc != 0)
		return cmd_error(
		    NULL, "--src %s: not a git repository (a php-src checkout or a bare clone)", src);
	return 0;
}

int gitsrc_commit(const char *src, const char *ref, char id[GITSRC_ID_MAX])
{
	char spec[512];
	const char *args[] = { "rev-parse", "--verify", "--quiet", spec, NULL };
	char *out;
	int rc;

	if (ref[0] == '-' || snprintf(spec, sizeof spec, "%s^{commit}", ref) >= (int)sizeof spec)
		return cmd_error(NULL, "%s: not a commit of %s", ref, src);
	if ((rc = gitsrc_run(src, args, &out, 1)) < 0)
		return -1;
	gitsrc_first_line(out != NULL ? out : (char *)"");
	if (rc != 0 || out == NULL || strlen(out) < 40 || strlen(out) >= GITSRC_ID_MAX) {
		free(out);
		return cmd_error(NULL, "%s: not a commit of %s", ref, src);
	}
	snprintf(id, GITSRC_ID_MAX, "%s", out);
	free(out);
	return 0;
}

int gitsrc_merge_base(const char *src, const char *a, const char *b, char id[GITSRC_ID_MAX])
{
	const char *args[] = { "merge-base", a, b, NULL };
	char *out;
	int rc = gitsrc_run(src, args, &out, 1);

	if (rc < 0)
		return -1;
	gitsrc_first_line(out);
	if (rc != 0 || strlen(out) < 40 || strlen(out) >= GITSRC_ID_MAX) {
		free(out);
		return cmd_error(NULL, "%s and %s have no merge base in %s", a, b, src);
	}
	snprintf(id, GITSRC_ID_MAX, "%s", out);
	free(out);
	return 0;
}

int gitsrc_is_ancestor(const char *src, const char *a, const char *b)
{
	const char *args[] = { "merge-base", "--is-ancestor", a, b, NULL };
	char *out;
	int rc = gitsrc_run(src, args, &out, 1);

	free(out);
	return rc < 0 ? -1 : rc == 0;
}

void gitsrc_subject(const char *src, const char *commit, char *out, size_t size)
{
	const char *args[] = { "log", "-1", "--no-show-signature", "--format=%s", commit, NULL };
	char *text;

	if (gitsrc_run(src, args, &text, 1) != 0 || text == NULL) {
		snprintf(out, size, "(no subject)");
	} else {
		gitsrc_first_line(text);
		snprintf(out, size, "%s", text);
	}
	free(text);
}

void gitsrc_list_release(struct gitsrc_list *l)
{
	free(l->ids);
	l->ids = NULL;
	l->n = 0;
}

int gitsrc_range(
    const char *src, const char *from, const char *to, char *const paths[], int npaths, struct gitsrc_list *l)
{
	const char *args[GITSRC_MAX_ARGS];
	char range[2 * GITSRC_ID_MAX + 4], *out, *line, *save = NULL;
	int n = 0, rc;

	l->ids = NULL;
	l->n = 0;
	if (npaths > GITSRC_MAX_ARGS - 8)
		return cmd_error(NULL, "at most %d paths", GITSRC_MAX_ARGS - 8);
	snprintf(range, sizeof range, "%s..%s", from, to);
	args[n++] = "rev-list";
	args[n++] = "--first-parent";
	args[n++] = "--reverse";
	args[n++] = range;
	args[n++] = "--";
	for (int i = 0; i < npaths; i++)
		args[n++] = paths[i];
	args[n] = NULL;
	if ((rc = gitsrc_run(src, args, &out, 0)) != 0) {
		free(out);
		return rc < 0 ? -1 : cmd_error(NULL, "git rev-list %s failed in %s", range, src);
	}
	for (line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		char(*grown)[GITSRC_ID_MAX];
		if (strlen(line) < 40 || strlen(line) >= GITSRC_ID_MAX)
			continue;
		if ((grown = realloc(l->ids, (l->n + 1) * sizeof *l->ids)) == NULL) {
			free(out);
			gitsrc_list_release(l);
			return cmd_error(NULL, "out of memory");
		}
		l->ids = grown;
		snprintf(l->ids[l->n++], GITSRC_ID_MAX, "%s", line);
	}
	free(out);
	return 0;
}
