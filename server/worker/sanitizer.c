/*
 * A sanitizer build's reports, read back by the worker (docs/sandbox.md).
 *
 * The daemon preloads libasan and libubsan into the worker of a build
 * linked with them (server/daemon/engine/sanitize.c).  Their reports go to a
 * memfd of the worker's own: not stderr, which a case can write to (and so
 * fake a report), nor a file in the private folder, which a case can read,
 * rewrite or delete.  Each fork-server child points both runtimes at it
 * with __sanitizer_set_report_fd: the runtime reopens a report fd that an
 * other process (the parent) set, so the call is the child's.  After each
 * request the loader takes what is there (sanitizer_take) and adds it to
 * its reply; a report that ended the child (a UBSan error, an ASan error
 * it cannot recover from: exitcode PROTO_EXIT_SANITIZER) goes with the
 * fork server's PROTO_DIED.
 *
 * The symbolizer is primed here, in the fork server once libphp is in
 * (inside the sandbox, whose landlock rules let this process read its own
 * /proc entry: sandbox.h's proc_self): it lists the process's modules
 * from /proc/self/maps and reads the debug information of every module
 * loaded (libphp, the core, libc...) once; children inherit both.
 *
 * In a generated batch, AddressSanitizer's report callback names the case
 * that had it on the progress page (a child that dies later in the batch
 * leaves the names behind), and keeps the buffer to the batch's first
 * report and the latest one: a buggy build's batch may report on
 * thousands of cases.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sanitizer.h"

#define SANITIZER_KEEP (256u << 10) /* the buffer, at most (one report is a few KB) */

static int report_fd = -1;
static int ubsan_fd = -1; /* the same memfd, for libubsan */
static struct proto_page *progress;
static off_t first_len;     /* the request's first report ends here; 0: none yet */
static int reports, unsafe; /* AddressSanitizer's reports in this request; of them, not a read */
static int in_child;        /* a child of the fork server, which answers requests */

typedef void (*set_report_fd_fn)(void *);
static set_report_fd_fn set_fd[2]; /* libasan's, libubsan's (each has its own copy) */
typedef int (*symbolize_fn)(void *, const char *, char *, size_t);
static symbolize_fn symbolize[2]; /* the same: each runtime has its own symbolizer */

/* The buffer emptied, the next report at its start. */
static void report_clear(void)
{
	first_len = 0;
	if (ftruncate(report_fd, 0) == 0)
		lseek(report_fd, 0, SEEK_SET);
}

typedef void (*ubsan_handler_fn)(void *, uintptr_t, uintptr_t);
static ubsan_handler_fn ubsan_add_overflow; /* a recoverable check's handler: ubsan_start */

/* libubsan's own functions: by its path among the loaded objects. */
static int find_ubsan(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (info->dlpi_name == NULL || strstr(info->dlpi_name, "/libubsan.so") == NULL)
		return 0;
	void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD);
	if (h != NULL) {
		set_fd[1] = (set_report_fd_fn)dlsym(h, "__sanitizer_set_report_fd");
		symbolize[1] = (symbolize_fn)dlsym(h, "__sanitizer_symbolize_pc");
		ubsan_add_overflow = (ubsan_handler_fn)dlsym(h, "__ubsan_handle_add_overflow");
	}
	return 1;
}

/*
 * UBSan's runtime starts at its first report: it reads UBSAN_OPTIONS from
 * /proc/self/environ then, which a child may not read (the sandbox lets the
 * fork server read its own /proc entry only), and makes its symbolizer.
 * Started in a child, it ran with its defaults (exit code 1, no stack) and
 * every child read libc's debug information again.  So the fork server
 * starts it with a report of its own: the handler of a recoverable check
 * (a signed overflow, its data laid out as the compiler emits it:
 * ubsan_handlers.h), which returns with halt_on_error=0 (the builds' own
 * checks use the _abort handlers, which end the process whatever the
 * flag).  The report goes to the buffer, which is emptied after.
 */
static void ubsan_start(void)
{
	static const struct {
		uint16_t kind, info; /* TK_Integer; log2(32 bits) << 1 | signed */
		char name[6];
	} int_type = { 0, 5 << 1 | 1, "'int'" };
	static struct {
		const char *file;
		uint32_t line, column;
		const void *type;
	} data = { "phpcmp-worker (starting UBSan)", 1, 1, &int_type };
	if (ubsan_add_overflow != NULL)
		ubsan_add_overflow(&data, (uintptr_t)INT32_MAX, 1);
}

/*
 * Each AddressSanitizer report, as it is made: the case it was on (in a
 * generated batch), and whether it was a read.  A bad read changes no
 * memory (the runtime recovers, the request ends, PHP frees what it made):
 * the child goes on serving.  Anything else (a write out of bounds or to
 * freed memory, a bad free) may have broken the heap: the child is
 * replaced after the request.
 */
static void on_report(const char *text)
{
	reports++;
	if (text == NULL || strstr(text, "\nREAD of size ") == NULL)
		unsafe = 1;
	struct proto_page *pg = progress;
	if (pg != NULL && pg->batch_start >= 0) {
		int32_t n = pg->nmemory_errors;
		if (n >= 0 && n < PROTO_PAGE_MEMORY_ERRORS &&
		    (n == 0 || pg->memory_errors[n - 1] != pg->current)) {
			pg->memory_errors[n] = pg->current;
			pg->nmemory_errors = n + 1;
		}
	}
	off_t end = lseek(report_fd, 0, SEEK_CUR);
	if (first_len == 0)
		first_len = end;
	else if (end > (off_t)SANITIZER_KEEP && ftruncate(report_fd, first_len) == 0)
		lseek(report_fd, first_len, SEEK_SET); /* the first report stays */
}

/*
 * The symbolizer reads a module's debug information the first time a frame
 * of it is symbolized: libc's is a separate, compressed file (libc6-dbg)
 * that takes ~0.1 s to inflate.  Read here, in the fork server, every
 * child inherits it; read in a child, it is read again by the next one
 * (a child ends at a crash, or after a report of more than a bad read).
 * One address in each module's code is enough.
 */
static void prime_pc(void *pc)
{
	char buf[256];
	for (int k = 0; k < 2; k++)
		if (symbolize[k] != NULL && pc != NULL)
			symbolize[k](pc, "%F %L", buf, sizeof buf);
}

static int prime_module(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (info->dlpi_name != NULL && strstr(info->dlpi_name, "linux-vdso") != NULL)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
			prime_pc((void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr + 16));
			break;
		}
	return 0;
}

int sanitizer_present(void)
{
	dl_iterate_phdr(find_ubsan, NULL);
	return dlsym(RTLD_DEFAULT, "__sanitizer_set_report_fd") != NULL || set_fd[1] != NULL;
}

int sanitizer_setup(void *lib, struct proto_page *page, long long *reserved, char *err, size_t errsize)
{
	set_fd[0] = (set_report_fd_fn)dlsym(RTLD_DEFAULT, "__sanitizer_set_report_fd");
	symbolize[0] = (symbolize_fn)dlsym(RTLD_DEFAULT, "__sanitizer_symbolize_pc");
	dl_iterate_phdr(find_ubsan, NULL);
	if (set_fd[0] == NULL && set_fd[1] == NULL)
		return 0;
	report_fd = memfd_create("phpcmp-sanitizer", 0);
	if (report_fd < 0) {
		snprintf(err, errsize, "sanitizer: memfd_create: %s", strerror(errno));
		return -1;
	}
	/* Each runtime its own descriptor onto the buffer: one that closes
	 * its own (UBSan did, at its first report in a child: an EBADF for
	 * both when they shared it) cannot take the other's away. */
	ubsan_fd = dup(report_fd);
	if (ubsan_fd < 0) {
		snprintf(err, errsize, "sanitizer: dup: %s", strerror(errno));
		return -1;
	}
	progress = page;
	/* The address space in use now: mostly the shadow memory AddressSanitizer
	 * reserved (terabytes, never touched); limit-as is counted on top. */
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f == NULL || fscanf(f, "%llu", &pages) != 1) {
		snprintf(err, errsize, "sanitizer: cannot read /proc/self/statm");
		if (f != NULL)
			fclose(f);
		return -1;
	}
	fclose(f);
	*reserved = (long long)(pages * (unsigned long long)sysconf(_SC_PAGESIZE));
	if (set_fd[1] != NULL) {
		set_fd[1]((void *)(intptr_t)ubsan_fd);
		ubsan_start();
		report_clear();
	}
	/* The units of libphp a report's stack runs through (the symbolizer
	 * reads a unit's lines at its first frame there: the executor's are
	 * ~0.1 s), then one address of every module. */
	static const char *const anchors[] = { "php_json_encode_ex", "php_json_encode_string", "execute_ex",
		"zend_call_function", "_emalloc", "zend_hash_find", "smart_str_erealloc",
		"zend_eval_stringl" };
	for (size_t a = 0; lib != NULL && a < sizeof(anchors) / sizeof(anchors[0]); a++)
		prime_pc(dlsym(lib, anchors[a]));
	dl_iterate_phdr(prime_module, NULL);
	return 1;
}

void sanitizer_child(void)
{
	void (*callback)(void (*)(const char *));
	if (report_fd < 0)
		return;
	in_child = 1;
	if (set_fd[0] != NULL)
		set_fd[0]((void *)(intptr_t)report_fd);
	if (set_fd[1] != NULL)
		set_fd[1]((void *)(intptr_t)ubsan_fd);
	callback = (void (*)(void (*)(const char *)))dlsym(RTLD_DEFAULT, "__asan_set_error_report_callback");
	if (callback != NULL)
		callback(on_report);
}

int sanitizer_pending(void)
{
	struct stat st;
	return report_fd >= 0 && fstat(report_fd, &st) == 0 && st.st_size > 0;
}

int sanitizer_take(struct proto_buf *out)
{
	struct stat st;
	if (report_fd < 0 || fstat(report_fd, &st) < 0 || st.st_size == 0)
		return 0;
	size_t len = (size_t)st.st_size < PROTO_MAX_DIAG ? (size_t)st.st_size : PROTO_MAX_DIAG;
	char *text = malloc(len + 1);
	ssize_t got = text != NULL ? pread(report_fd, text, len, 0) : -1;
	if (got > 0)
		proto_buf_add(out, TAG_SANITIZER, text, (size_t)got);
	else
		proto_buf_add_str(out, TAG_SANITIZER, "(a sanitizer report that could not be read back)");
	free(text);
	/* One field of little-endian u64s (a frame holds PROTO_MAX_FIELDS
	 * fields): the batch's, as the page has them, taken by the child that
	 * answers.  (A child's death leaves them to the daemon, on the page.) */
	int32_t n = in_child && progress != NULL ? progress->nmemory_errors : 0;
	if (n > 0)
		progress->nmemory_errors = 0;
	if (n > 0 && n <= PROTO_PAGE_MEMORY_ERRORS) {
		unsigned char *packed = malloc(8 * (size_t)n);
		for (int i = 0; packed != NULL && i < n; i++)
			for (int k = 0; k < 8; k++)
				packed[8 * i + k] = (unsigned char)((uint64_t)progress->memory_errors[i] >>
				    (8 * k));
		if (packed != NULL)
			proto_buf_add(out, TAG_SANITIZER_INDEX, packed, 8 * (size_t)n);
		free(packed);
	}
	/* Only bad reads, all seen by the callback: the child may go on. */
	int poisoned = reports == 0 || unsafe;
	reports = unsafe = 0;
	report_clear();
	return poisoned ? 1 : 2;
}
