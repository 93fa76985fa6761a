/*
 * Sanitizer builds (docs/sandbox.md, "Sanitizer builds"): a libphp built
 * with AddressSanitizer and UBSan (scripts/build-php.sh --flavour asan)
 * needs their runtimes first in the process, and the worker loader is no
 * sanitized program.  Such a build is known from its library's ELF file:
 * its DT_NEEDED entries (libasan.so.N, libubsan.so.N) where it was linked
 * with them, else the sanitizers' symbols it uses (__asan_init,
 * __ubsan_handle_*: PHP's libtool drops -fsanitize from the link, so
 * 8.2's libphp.so names no runtime), whose libraries the C compiler
 * names (cc -print-file-name=libasan.so: the compiler that built it).
 * The worker then starts with them in LD_PRELOAD and the options below.
 *
 * The options, each for a reason:
 *   halt_on_error=0   with -fsanitize-recover=address (the flavour's
 *                     CFLAGS) a report does not end the process: the case
 *                     gives its whole answer, and memory-error is judged
 *                     even when that answer is right; for UBSan it
 *                     lets the fork server start the runtime with a report
 *                     of its own (server/worker/sanitizer.c): the builds'
 *                     UBSan checks (-fno-sanitize-recover) end the process
 *                     whatever the flag
 *   exitcode=86       what cannot be recovered (a UBSan error, a double
 *                     free, a SEGV) exits PROTO_EXIT_SANITIZER: the fork
 *                     server tells a sanitizer's death from the end
 *   detect_leaks=0    PHP frees at shutdown what it likes; LeakSanitizer
 *                     would also need ptrace, which seccomp refuses
 *   suppress_equal_pcs=0  every case with the bug has its report, not
 *                     only the first in a process (a generated batch)
 *   allocator_may_return_null=1  a case asking for too much gets PHP's
 *                     own out-of-memory error, as on a release build
 *   quarantine_size_mb=64, malloc_context_size=8  memory and time per
 *                     allocation (the defaults are 256 MB and 30 frames)
 *   external_symbolizer_path=/nonexistent  frames come from the runtime's
 *                     own symbolizer; an external one would be forked,
 *                     which seccomp refuses
 *   color=never       reports are stored as text
 * and USE_ZEND_ALLOC=0 (every emalloc is a malloc AddressSanitizer sees),
 * USE_TRACKED_ALLOC=1 (PHP still counts it against memory_limit).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

#define SANITIZE_MAX_DYN 512           /* dynamic entries read */
#define SANITIZE_MAX_DYNSTR (8u << 20) /* the dynamic string table, at most */

/* clang-format off */
static const char *const sanitize_envp[] = {
	"ASAN_OPTIONS=halt_on_error=0:exitcode=86:detect_leaks=0:suppress_equal_pcs=0:"
	"allocator_may_return_null=1:quarantine_size_mb=64:malloc_context_size=8:"
	"external_symbolizer_path=/nonexistent:color=never:print_summary=1",
	"UBSAN_OPTIONS=halt_on_error=0:exitcode=86:print_stacktrace=1:"
	"external_symbolizer_path=/nonexistent:color=never",
	"USE_ZEND_ALLOC=0",
	"USE_TRACKED_ALLOC=1",
	NULL,
};
/* clang-format on */

const char *const *sanitize_env(const struct build *b)
{
	return b->sanitizer_preload[0] != '\0' ? sanitize_envp : NULL;
}

static int read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

/* A virtual address of the file into its offset, through the PT_LOADs. */
static off_t vaddr_offset(const Elf64_Phdr *ph, int n, uint64_t vaddr)
{
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr < ph[i].p_vaddr + ph[i].p_filesz)
			return (off_t)(vaddr - ph[i].p_vaddr + ph[i].p_offset);
	return -1;
}

/* The path of a runtime as the compiler knows it, resolved; 0, or -1. */
static int runtime_path(const char *lib, char *out, size_t size)
{
	char cmd[128], line[PATH_MAX];
	snprintf(cmd, sizeof cmd, "${CC:-cc} -print-file-name=%s 2>/dev/null", lib);
	FILE *p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	int ok = fgets(line, sizeof line, p) != NULL;
	pclose(p);
	if (!ok)
		return -1;
	line[strcspn(line, "\n")] = '\0';
	char real[PATH_MAX];
	if (line[0] != '/' || realpath(line, real) == NULL)
		return -1; /* the compiler has no such runtime: it answers the bare name */
	if (strlen(real) >= size)
		return -1;
	memcpy(out, real, strlen(real) + 1);
	return 0;
}

/* Whether the dynamic string table names a symbol starting with prefix. */
static int dynstr_has(const char *tab, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	for (size_t i = 0; i + n <= len; i += strlen(tab + i) + 1)
		if (memcmp(tab + i, prefix, n) == 0)
			return 1;
	return 0;
}

int sanitize_detect(struct build *b, char *err, size_t errsize)
{
	uint64_t strsz = 0;
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	Elf64_Dyn dyn[SANITIZE_MAX_DYN];
	uint64_t strtab = 0, needed[32];
	int nneeded = 0, ndyn = 0;

	b->sanitizer_preload[0] = '\0';
	int fd = open(b->lib_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errsize, "build %s: cannot read %s: %s", b->name, b->lib_path, strerror(errno));
		return -1;
	}
	/* Not a 64-bit ELF of ours (an odd file, another ABI): no sanitizer to
	 * preload; loading it will say what is wrong. */
	if (read_at(fd, &eh, sizeof eh, 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64 ||
	    read_at(fd, ph, eh.e_phnum * sizeof(Elf64_Phdr), (off_t)eh.e_phoff) < 0)
		goto out;
	for (int i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC) {
			size_t n = ph[i].p_filesz / sizeof(Elf64_Dyn);
			ndyn = (int)(n < SANITIZE_MAX_DYN ? n : SANITIZE_MAX_DYN);
			if (read_at(fd, dyn, (size_t)ndyn * sizeof(Elf64_Dyn), (off_t)ph[i].p_offset) < 0)
				ndyn = 0;
		}
	for (int i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = dyn[i].d_un.d_ptr;
		else if (dyn[i].d_tag == DT_STRSZ)
			strsz = dyn[i].d_un.d_val;
		else if (dyn[i].d_tag == DT_NEEDED && nneeded < 32)
			needed[nneeded++] = dyn[i].d_un.d_val;
	}
	off_t base = strtab ? vaddr_offset(ph, eh.e_phnum, strtab) : -1;
	char asan[48] = "", ubsan[48] = "";
	for (int i = 0; base >= 0 && i < nneeded; i++) {
		char name[48] = "";
		if (pread(fd, name, sizeof name - 1, base + (off_t)needed[i]) <= 0)
			continue;
		name[sizeof name - 1] = '\0';
		if (strncmp(name, "libasan.so", 10) == 0)
			memcpy(asan, name, sizeof asan);
		else if (strncmp(name, "libubsan.so", 11) == 0)
			memcpy(ubsan, name, sizeof ubsan);
	}
	/* Not linked with them: the symbols it uses, the compiler's runtimes. */
	if (asan[0] == '\0' && base >= 0 && strsz > 0 && strsz <= SANITIZE_MAX_DYNSTR) {
		char *tab = malloc(strsz + 1);
		if (tab != NULL && read_at(fd, tab, strsz, base) == 0) {
			tab[strsz] = '\0';
			int uses_asan = dynstr_has(tab, strsz, "__asan_init");
			int uses_ubsan = dynstr_has(tab, strsz, "__ubsan_handle_");
			char pa[240], pu[240] = "";
			if (uses_asan && runtime_path("libasan.so", pa, sizeof pa) < 0) {
				snprintf(err, errsize,
				    "build %s: its library uses AddressSanitizer but the C compiler names "
				    "no libasan.so to preload (${CC:-cc} -print-file-name=libasan.so)",
				    b->name);
				free(tab);
				close(fd);
				return -1;
			}
			if (uses_ubsan && runtime_path("libubsan.so", pu, sizeof pu) < 0)
				pu[0] = '\0';
			if (uses_asan)
				snprintf(b->sanitizer_preload, sizeof b->sanitizer_preload, "%.239s%s%.239s",
				    pa, pu[0] ? " " : "", pu);
		}
		free(tab);
		goto out;
	}
	/* AddressSanitizer's runtime first (it checks).  UBSan alone needs no
	 * preload (nothing must come first), nor the report buffer. */
	if (asan[0] != '\0')
		snprintf(b->sanitizer_preload, sizeof b->sanitizer_preload, "%.47s%s%.47s", asan,
		    ubsan[0] ? " " : "", ubsan);
out:
	close(fd);
	return 0;
}
