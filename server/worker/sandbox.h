/*
 * The worker's sandbox: what a case's code may do once PHP has started.
 * Layers, each on its own, so that one missing (an old kernel, no
 * privilege) leaves the others in force:
 *
 *   netns     a network namespace of its own: no interface but a down lo
 *   caps      every capability dropped, no_new_privs
 *   seccomp   a libseccomp filter: no sockets, no exec/fork, no signals to
 *             other processes, no ptrace, mount, bpf, io_uring...
 *   landlock  reads only below /usr and the build's files, writes only in
 *             the private folder; no TCP, no signals or abstract sockets
 *             out of the domain (kernel permitting)
 *   rlimits   CPU seconds per case, address space, file size, open files,
 *             processes, no core files
 *   php       open_basedir and sys_temp_dir = the private folder,
 *             disable_functions, allow_url_fopen=0, enable_dl=0
 *
 * The loader calls sandbox_arg() for its arguments, sandbox_php_ini() before
 * starting PHP, sandbox_apply() and sandbox_selftest() once PHP is up, and
 * sandbox_case_begin()/sandbox_case_end() around every request.  See
 * docs/sandbox.md.
 */
#ifndef PHPCMP_SANDBOX_H
#define PHPCMP_SANDBOX_H

#include <stddef.h>
#include <sys/stat.h>

#include "core.h"
#include "layers.h"

#define SANDBOX_UNLIMITED (-1LL)
#define SANDBOX_MAX_PATHS 8
#define SANDBOX_OWN_SELF_MAX 16

struct sock_filter;

struct sandbox {
	/* What the arguments asked for. */
	unsigned layers;
	unsigned before_exec;                      /* --sandbox-exec: layers to apply, then exec */
	unsigned inherited;                        /* --sandbox-inherited: applied before exec */
	const char *dir;                           /* the private folder */
	const char *disable_functions;             /* NULL: the built-in list */
	long long cpu_s, as, fsize, nofile, nproc; /* SANDBOX_UNLIMITED: untouched */
	long long disk; /* bytes the private folder may hold in all (a tmpfs of that size) */
	const char *rw[SANDBOX_MAX_PATHS];
	const char *ro[SANDBOX_MAX_PATHS];
	int nrw, nro;
	/* --sandbox-report-env: before exec, the report in this variable */
	const char *report_env;
	int valgrind;      /* layers for a loader that runs under valgrind */
	int no_landlock;   /* tests: act as if the kernel had no landlock */
	int proc_self;     /* landlock lets this process read its own /proc entry (a
	                    * sanitizer's symbolizer lists its modules there) */
	unsigned deferred; /* layers sandbox_apply leaves to sandbox_apply_deferred (a fork
	                    * server's children: seccomp forbids fork, rlimits count processes) */
	/* State once applied. */
	unsigned applied;
	int landlock_abi;
	int files_readonly; /* no landlock: seccomp refuses every write */
	int seccomp_shared; /* a fork server's parent installed seccomp's shared part */
	int landlock_off;   /* landlock was asked for and is not in force */
	/* A fork server's children's own seccomp filter, compiled by the parent
	 * (NULL: each child compiles it): own_self are the instructions that
	 * take the child's pid. */
	struct sock_filter *own_prog;
	unsigned short own_len, own_self[SANDBOX_OWN_SELF_MAX];
	int own_nself, own_readonly;
	int dirfd;
	struct stat dirst;
	char dir_real[4096];
	char report[512]; /* "netns caps seccomp landlock(abi 7) ..." */
};

void sandbox_init(struct sandbox *);
/* argv[*i] is a sandbox option: consume it (and its value).  1 taken, 0 not
 * a sandbox option, -1 bad value (message in err). */
int sandbox_arg(struct sandbox *, int argc, char **argv, int *i, char *err, size_t errsize);
/* "netns,seccomp" / "all" / "none" into a mask; -1 for an unknown name. */
int sandbox_parse_layers(const char *list, unsigned *mask);
/* Add the php layer's ini settings to opts (after any already there, so
 * they win).  -1 with err when they do not fit. */
int sandbox_php_ini(struct sandbox *, struct core_options *opts, char *err, size_t errsize);
/* Apply every asked-for layer except php (already in the ini).  -1 with a
 * message naming the layer that could not be put in place. */
int sandbox_apply(struct sandbox *, char *err, size_t errsize);
/* Before exec (a measuring worker's valgrind): apply the before_exec layers
 * and exec argv; returns only on failure, with err. */
/* In a fork server's child: the layers sandbox_apply deferred. */
int sandbox_apply_deferred(struct sandbox *, char *err, size_t errsize);
int sandbox_exec(struct sandbox *, char **argv, char *err, size_t errsize);
/* Run a probe case under the sandbox; -1 with what went wrong. */
int sandbox_selftest(struct sandbox *, const struct core_api *, char *err, size_t errsize);
/* Around each request: the CPU budget, then emptying the private folder. */
void sandbox_case_begin(struct sandbox *);
/* -1 when the folder could not be emptied: the worker must not run another case. */
int sandbox_case_end(struct sandbox *);

#endif
