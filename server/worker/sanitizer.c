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
 * from /proc/self/maps and opens libphp's debug information once;
 * children inherit both.
 *
 * In a generated batch, AddressSanitizer's report callback notes which case
 * (the progress page's index) had it, and keeps the buffer to the batch's
 * first report and the latest one: a buggy build's batch may report on
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

#define SANITIZER_MAX_INDICES 4096 /* cases of one batch named; the rest are counted by the daemon's re-run */
#define SANITIZER_KEEP (256u << 10) /* the buffer, at most (one report is a few KB) */

static int report_fd = -1;
static struct proto_page *progress;
static off_t first_len; /* the request's first report ends here; 0: none yet */
static int64_t indices[SANITIZER_MAX_INDICES];
static int nindices;

typedef void (*set_report_fd_fn)(void *);
static set_report_fd_fn set_fd[2]; /* libasan's, libubsan's (each has its own copy) */

/* libubsan's own __sanitizer_set_report_fd: by its path among the loaded objects. */
static int find_ubsan(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (info->dlpi_name == NULL || strstr(info->dlpi_name, "/libubsan.so") == NULL)
		return 0;
	void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD);
	if (h != NULL)
		*(set_report_fd_fn *)data = (set_report_fd_fn)dlsym(h, "__sanitizer_set_report_fd");
	return 1;
}

static void on_report(const char *text)
{
	(void)text;
	if (progress != NULL && progress->batch_start >= 0 && nindices < SANITIZER_MAX_INDICES &&
	    (nindices == 0 || indices[nindices - 1] != progress->current))
		indices[nindices++] = progress->current;
	off_t end = lseek(report_fd, 0, SEEK_CUR);
	if (first_len == 0)
		first_len = end;
	else if (end > (off_t)SANITIZER_KEEP && ftruncate(report_fd, first_len) == 0)
		lseek(report_fd, first_len, SEEK_SET); /* the first report stays */
}

int sanitizer_present(void)
{
	set_report_fd_fn ubsan = NULL;
	dl_iterate_phdr(find_ubsan, &ubsan);
	return dlsym(RTLD_DEFAULT, "__sanitizer_set_report_fd") != NULL || ubsan != NULL;
}

int sanitizer_setup(void *lib, struct proto_page *page, long long *reserved, char *err, size_t errsize)
{
	set_fd[0] = (set_report_fd_fn)dlsym(RTLD_DEFAULT, "__sanitizer_set_report_fd");
	dl_iterate_phdr(find_ubsan, &set_fd[1]);
	if (set_fd[0] == NULL && set_fd[1] == NULL)
		return 0;
	report_fd = memfd_create("phpcmp-sanitizer", 0);
	if (report_fd < 0) {
		snprintf(err, errsize, "sanitizer: memfd_create: %s", strerror(errno));
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
	int (*symbolize)(void *, const char *, char *, size_t) = (int (*)(
	    void *, const char *, char *, size_t))dlsym(RTLD_DEFAULT, "__sanitizer_symbolize_pc");
	void *pc = lib != NULL ? dlsym(lib, "zif_json_encode") : NULL;
	if (symbolize != NULL && pc != NULL) {
		char buf[256];
		symbolize(pc, "%F %L", buf, sizeof buf);
	}
	return 1;
}

void sanitizer_child(void)
{
	void (*callback)(void (*)(const char *));
	if (report_fd < 0)
		return;
	for (int i = 0; i < 2; i++)
		if (set_fd[i] != NULL)
			set_fd[i]((void *)(intptr_t)report_fd);
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
	/* One field of little-endian u64s (a frame holds PROTO_MAX_FIELDS fields). */
	if (nindices > 0) {
		unsigned char packed[8 * SANITIZER_MAX_INDICES];
		for (int i = 0; i < nindices; i++)
			for (int k = 0; k < 8; k++)
				packed[8 * i + k] = (unsigned char)((uint64_t)indices[i] >> (8 * k));
		proto_buf_add(out, TAG_SANITIZER_INDEX, packed, 8 * (size_t)nindices);
	}
	nindices = 0;
	first_len = 0;
	if (ftruncate(report_fd, 0) == 0)
		lseek(report_fd, 0, SEEK_SET);
	return 1;
}
