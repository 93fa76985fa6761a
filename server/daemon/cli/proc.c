/*
 * The processes the client commands (review, bisect) start: build scripts,
 * and a daemon of their own.  That daemon listens on a free loopback port
 * and answers only a token made for it in its database before it starts
 * (`phpcmp token add`, then `serve --read-auth on`: reads need it too),
 * which this process alone knows: another local user can neither read its
 * results nor register a build on it or cancel its runs (issue 44).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "cmdline.h"

int proc_find_root(const char *who, char *exe, size_t exesize, char *root, size_t rootsize)
{
	char tmp[PATH_MAX], script[PATH_MAX + 32];
	const char *env = getenv("PHPCMP_ROOT");
	ssize_t n = readlink("/proc/self/exe", exe, exesize - 1);
	struct stat st;

	if (n <= 0)
		return cmd_error(who, "/proc/self/exe: %s", strerror(errno));
	exe[n] = '\0';
	if (env != NULL && *env) {
		snprintf(root, rootsize, "%s", env);
	} else {
		/* build/phpcmp or build/sanitize/phpcmp: the first parent with scripts/ */
		snprintf(tmp, sizeof tmp, "%s", exe);
		for (int up = 0; up < 3; up++) {
			snprintf(root, rootsize, "%s", dirname(tmp));
			snprintf(tmp, sizeof tmp, "%s", root);
			snprintf(script, sizeof script, "%s/scripts/build-php.sh", root);
			if (stat(script, &st) == 0)
				break;
		}
	}
	snprintf(script, sizeof script, "%s/scripts/build-php.sh", root);
	if (stat(script, &st) < 0)
		return cmd_error(who, "%s: not found (set PHPCMP_ROOT to phpcmp's source folder)", script);
	return 0;
}

pid_t proc_spawn(const char *who, char *const argv[], const char *log, char *const envp[])
{
	pid_t pid = fork();

	if (pid < 0) {
		cmd_error(who, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (log != NULL) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(127);
		} else if (dup2(2, 1) < 0) {
			_exit(127);
		}
		if (envp != NULL)
			execve(argv[0], argv, envp);
		else
			execv(argv[0], argv);
		fprintf(stderr, "phpcmp %s: %s: %s\n", who, argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int proc_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* `EXE token add NAME --db DB`: the token it prints, into d->token. */
static int proc_daemon_token(struct proc_daemon *d, const char *who, const char *exe, const char *db)
{
	char name[64];
	int fds[2];

	snprintf(name, sizeof name, "%s-%ld-%ld", who, (long)getpid(), (long)time(NULL));
	if (pipe(fds) < 0)
		return cmd_error(who, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return cmd_error(who, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		char *argv[] = { (char *)exe, (char *)"token", (char *)"add", name, (char *)"--db",
			(char *)db, NULL };
		if (dup2(fds[1], 1) < 0)
			_exit(127);
		close(fds[0]);
		close(fds[1]);
		execv(exe, argv);
		_exit(127);
	}
	close(fds[1]);
	size_t n = 0;
	ssize_t got;
	while (n < sizeof d->token - 1 &&
	    ((got = read(fds[0], d->token + n, sizeof d->token - 1 - n)) > 0 || (got < 0 && errno == EINTR)))
		n += got > 0 ? (size_t)got : 0;
	close(fds[0]);
	d->token[n] = '\0';
	d->token[strcspn(d->token, "\r\n")] = '\0';
	int rc = proc_wait(pid);
	if (rc != 0 || d->token[0] == '\0')
		return cmd_error(who, "`phpcmp token add` for its own daemon failed (exit %d)", rc);
	return 0;
}

/* Wait for the daemon's "serving http://HOST:PORT/" line in its log. */
static int proc_daemon_ready(struct proc_daemon *d, const char *who, int timeout_s)
{
	for (double until = clock_ms() + timeout_s * 1000.0; clock_ms() < until;) {
		char line[1024];
		FILE *f = fopen(d->log_path, "r");
		int status;

		while (f != NULL && fgets(line, sizeof line, f) != NULL) {
			char *s = strstr(line, "serving http://"), *end;
			if (s == NULL || (end = strchr(s + 15, '/')) == NULL ||
			    end - (s + 8) >= (long)sizeof d->url)
				continue;
			snprintf(d->url, sizeof d->url, "%.*s", (int)(end - (s + 8)), s + 8);
			fclose(f);
			return 0;
		}
		if (f != NULL)
			fclose(f);
		if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
			d->pid = 0;
			return cmd_error(who, "the daemon stopped at its start (its log: %s)", d->log_path);
		}
		usleep(100 * 1000);
	}
	return cmd_error(who, "the daemon did not start within %d s (its log: %s)", timeout_s, d->log_path);
}

int proc_daemon_start(struct proc_daemon *d, const char *who, char *const argv[], const char *db,
    char *const envp[], int timeout_s)
{
	char **full;
	int n = 0;

	d->pid = 0;
	d->url[0] = '\0';
	if (proc_daemon_token(d, who, argv[0], db) < 0)
		return -1;
	while (argv[n] != NULL)
		n++;
	if ((full = calloc((size_t)n + 3, sizeof *full)) == NULL)
		return cmd_error(who, "out of memory");
	memcpy(full, argv, (size_t)n * sizeof *full);
	full[n] = (char *)"--read-auth";
	full[n + 1] = (char *)"on";
	d->pid = proc_spawn(who, full, d->log_path, envp);
	free(full);
	if (d->pid < 0) {
		d->pid = 0;
		return -1;
	}
	return proc_daemon_ready(d, who, timeout_s);
}

void proc_daemon_stop(struct proc_daemon *d)
{
	if (d->pid <= 0)
		return;
	kill(d->pid, SIGTERM);
	for (int i = 0; i < 300; i++) {
		int status;
		if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
			d->pid = 0;
			return;
		}
		usleep(100 * 1000);
	}
	kill(d->pid, SIGKILL);
	proc_wait(d->pid);
	d->pid = 0;
}
