/*
 * The daemon's model (server/daemon/model, layer 2): byte strings, ids,
 * base64, cases, results and verdicts, builds and roles, case files,
 * bucket keys, a sanitizer report in brief — the daemon's own leaf, on the
 * library all three programs share (server/common: buffers, the clock,
 * flags).  It uses nothing above it (scripts/check-layers.py).  The
 * folder's other files have headers of their own (shrink.h, phpt.h,
 * runparams.h, columns.h, gcovr.h, callgrind.h, cmdline.h, beneath.h).
 * Everything not declared in a header is static to its file.
 */
#ifndef PHPCMP_MODEL_H
#define PHPCMP_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "clock.h"
#include "flags.h"

#define PHPCMP_VERSION "0.1.0"

/* Limits: every length that crosses a boundary has one. */
#define MAX_BODY_SIZE (1u << 20)   /* HTTP request body, a case file */
#define MAX_CODE_SIZE (256u << 10) /* a case's value or setup code */
#define MAX_TITLE_SIZE 512
#define MAX_BUILDS 8 /* a base and up to seven candidates */
/* Builds a daemon registers in its life (--build and POST /api/builds):
 * a retired one keeps its slot, so what a run in progress holds of it
 * stays valid (server/daemon/engine/build.c). */
#define MAX_BUILD_SLOTS 64

/* ---- a byte string that may hold anything, NUL-terminated for convenience */
struct bytes {
	char *data; /* NULL when absent */
	size_t len;
};

/* ---- case ---- */
struct case_spec {
	char *title;
	char *code;             /* expression, or statements ending in `return ...;` */
	char *setup;            /* optional, may be NULL */
	long flags;             /* json_encode flags */
	long depth;             /* json_encode depth, default 512 */
	char *expect;           /* optional expected output, NULL if none */
	int expectf;            /* expect is an --EXPECTF-- pattern (run-tests' %s %d...), not the bytes */
	long iterations;        /* > 0: measured workload, instructions per call */
	long measure_budget_ms; /* > 0: the measured calls stop after about this long (fewer) */
	char *source;           /* stored case: path under cases/, else NULL */
	/* A stored case's --MIN_PHP-- as PHP_VERSION_ID (80100), 0 none: an older build
	 * does not run it, its result is unsupported (docs/cases.md). */
	uint32_t min_php;
};

/* ---- result ---- */
enum result_status {
	STATUS_OK = 0,
	STATUS_ERROR = 1,   /* the case failed: parse error, fatal, exit... */
	STATUS_CRASH = 2,   /* the worker died from a signal */
	STATUS_TIMEOUT = 3, /* the case ran past the time limit */
	/* A sanitizer build (AddressSanitizer, UBSan) reported a memory error,
	 * whatever the output: the report is the failure (sanitizer.c). */
	STATUS_MEMORY_ERROR = 4,
};

struct result {
	enum result_status status;
	int signal;          /* for STATUS_CRASH */
	int output_is_false; /* json_encode returned false */
	struct bytes output;
	long error_code;           /* json_last_error() */
	char *error_msg;           /* json_last_error_msg() */
	char *exc_class, *exc_msg; /* NULL if nothing was thrown */
	struct bytes printed;
	char *warnings;       /* newline-separated, "" if none */
	char *failure;        /* why status != ok, else NULL */
	int64_t instructions; /* per call (rounded), -1 when not measured */
	int64_t instr_total;  /* exact count over all measured calls, -1 */
	int64_t iterations;   /* the calls measured (a budget may make them fewer), -1 */
	char *dump_file;      /* the callgrind dump holding instr_total */
	double wall_ms;
	/* The case's own code did not compile on this build (or its value
	 * statements have no return): a case error, whatever the other builds
	 * say.  NULL otherwise; lines and columns are the user's, 0 unknown. */
	char *compile_error;
	char compile_section[8]; /* "setup" / "value" */
	long compile_line, compile_column;
	/* The case is unsupported on this build (why, e.g. "does not compile: ..." or
	 * "needs PHP 8.3 or newer (--MIN_PHP--)"): it did not compile here but did on
	 * another build, or the build is older than the case's --MIN_PHP-- (not run).
	 * Left out of the verdict (verdict_compare); NULL otherwise.  Stored as
	 * status error with the failure "unsupported: <why>" (RESULT_UNSUPPORTED). */
	char *unsupported;
};
#define RESULT_UNSUPPORTED "unsupported: "

/* ---- verdict ---- */
enum verdict_field {
	DIFF_STATUS = 1 << 0,
	DIFF_OUTPUT = 1 << 1,
	DIFF_ERROR_CODE = 1 << 2,
	DIFF_ERROR_MSG = 1 << 3,
	DIFF_EXCEPTION = 1 << 4,
	/* A build's output is not the case's --EXPECT-- (verdict_expected):
	 * the expectation is a third oracle beside the base and its candidates. */
	DIFF_EXPECTED = 1 << 5,
	/* What a case printed and its warnings are never part of the verdict
	 * (result.c, verdict_compare): there is no field for them. */
};

/* ---- build ---- */
#define BUILD_MAX_INI 8

struct build {
	char name[64];
	char prefix[4096];      /* as configured */
	char lib_path[4096];    /* .../libphp*.so */
	char include_dir[4096]; /* the folder holding main/php.h */
	char sha256[65];
	char php_version[64];   /* from the worker's hello */
	char core_path[4096];   /* compiled worker core for this build */
	int64_t handler_offset; /* zif_json_encode in the library (from the worker) */
	char sandbox[256];      /* the worker's sandbox layers in force (from its hello) */
	int64_t db_id;
	/* ini settings given to this build only (--ini NAME:k=v), "k=v" each */
	char ini[BUILD_MAX_INI][256];
	int nini;
	/* A coverage flavour (phpcmp-build.txt says flavour=coverage): its build
	 * tree, holding obj/ (the .gcno notes) and src/; "" for any other build. */
	char coverage_tree[4096];
	/* A sanitizer build (its libphp needs libasan): the runtimes the
	 * worker preloads, "libasan.so.8 libubsan.so.1"; "" for any other
	 * build (server/daemon/engine/sanitize.c). */
	char sanitizer_preload[512];
	/* Where it comes from and how it was compiled, "debian release",
	 * "source debug", "prefix release"...: a base and a candidate of
	 * different kinds have instruction counts that do not compare
	 * (build.c, build_kind). */
	char kind[64];
	/* Retired (DELETE /api/builds/NAME): no new run or case uses it, and
	 * its workers do not start again.  Read and set atomically. */
	int retired;
	/* The daemon's asan flavour of another build (--asan NAME=PREFIX): 1 +
	 * that build's slot; 0 for every other build.  Such a build is in no
	 * run of its own: it runs the asan sample (--asan-sample, runs.c). */
	int asan_of;
	/* A reference runtime (released PHP under Node, engine/reference.c,
	 * issue 49): kind "reference", in no run unless named as a run's
	 * "base", no instruction counts, no memory-error oracle.  ref_php is
	 * its version as installed ("8.5"); reference what its worker's hello
	 * said it is ("php-wasm 3.1.56 (node v20.20.2)"), "" before that. */
	int is_reference;
	char ref_php[8];
	char reference[160];
};

/* ---- roles (result.c) ---- */
/*
 * Roles by position in config->builds: [0] is the base, every other one a
 * candidate compared with it; [1], the first candidate, is the "head" of the
 * two-build API.  Roles as stored and in JSON: "base", "head", "cand2"...
 */
#define ROLE_BASE 0
#define ROLE_HEAD 1
const char *role_name(int role);  /* "base" / "head" / "cand2".. / "other" */
int role_parse(const char *name); /* role_name()'s inverse, -1 if none */
/*
 * Compare every candidate res[1..n-1] with the base res[0]: the union of
 * their differences, each candidate's in per[i] (per[0] = 0) when per is set.
 */
unsigned verdict_compare_all(const struct result *res, int n, unsigned per[MAX_BUILDS]);

/* ---- bytes.c ---- */
void bytes_set(struct bytes *, const void *data, size_t len);
void bytes_release(struct bytes *);
/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid; its code point in *cp. */
size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp);
int utf8_valid(const char *s, size_t len);
/* A whole regular file of at most max bytes, NUL-terminated; NULL with err. */
char *bytes_read_file(const char *path, size_t max, size_t *len, char *err, size_t errsize);

/* ---- result.c ---- */
void result_init(struct result *);
void result_release(struct result *);
const char *result_status_name(enum result_status);
int result_status_parse(const char *name); /* -1 if unknown */
/* Bitmask of enum verdict_field; 0 means "same". */
unsigned verdict_compare(const struct result *a, const struct result *b);
/* The worker did not keep json_encode's output: over PROTO_MAX_OUTPUT. */
int result_output_too_large(const struct result *);
/* Outputs and printed text longer than this are not written into a JSON
 * answer (api_cases.c) or a reduction's record (reduce.c): a link serves
 * the exact bytes. */
#define RESULT_INLINE_MAX (64u << 10)
/* The first of n results whose case did not compile (compile_error set) when it
 * compiled on none of them (a build it is unsupported on does not count), or -1. */
int result_case_error(const struct result *res, int n);
/* r did not run: the case needs a newer PHP (min_php) than the build's (php_version). */
void result_unsupported_php(struct result *r, uint32_t min_php, const char *php_version);
/* Mark unsupported each result whose case did not compile while it compiled on another
 * build; read a stored result's RESULT_UNSUPPORTED failure back.  The number unsupported. */
int result_mark_unsupported(struct result *res, int n);
/* A comparison's verdict: "differ" when the builds it ran on differ (diff), else
 * "unsupported" when some build could not run it, else "same". */
const char *verdict_name(unsigned diff, const struct result *res, int n);
/*
 * What a run's report says after its figures about how the run stands: ""
 * when done, " (the run is not done yet)" while queued or running, and for
 * a run that failed, was cancelled or interrupted a paragraph saying so and
 * why ("\n\n**The run failed:** dir: cannot open ...").  Into buf.
 */
const char *run_status_note(const char *status, const char *error, char *buf, size_t bufsize);
/* "output,error_code"-style list of differing fields, for JSON and SQL. */
void verdict_fields(unsigned diff, char *buf, size_t bufsize);
/*
 * The case's --EXPECT-- (expect, NULL: none) as an oracle: how r differs
 * from it (DIFF_STATUS: r did not run to a string output; DIFF_OUTPUT:
 * another string), 0 when r's output is exactly the expectation or there
 * is none.  expectf: expect is an --EXPECTF-- pattern, matched as
 * run-tests.php does (phpt_expectf_match: trimmed, %d %s %f...).
 */
unsigned verdict_expected(const char *expect, int expectf, const struct result *r);
/* DIFF_EXPECTED when any of the n results differs from expect, else 0. */
unsigned verdict_expected_all(const char *expect, int expectf, const struct result *res, int n);
/* The expectation as a result to compare and bucket against: status ok,
 * output the expect text (not copied: r borrows it; never released). */
void result_expected(struct result *r, const char *expect);
/*
 * How a build's case ended when it did not run to its end, for a verdict
 * "same" everywhere it is shown, worded to follow "both": "crashed:
 * SIGSEGV", "timed out", "hit the memory limit", "called exit()", "threw
 * an uncaught Exception", "hit a fatal error", "hit a memory error",
 * "gave an output too large to keep", "failed";
 * NULL when it ran to its end (status ok).  Into buf.
 */
const char *result_ending(const struct result *r, char *buf, size_t bufsize);

/* ---- flags.c: flags.h ---- */

/* ---- casefile.c ---- */
void case_init(struct case_spec *);
void case_release(struct case_spec *);
/* Parse a stored case file's text. 0 ok, -1 with a message in err. */
int casefile_parse(const char *text, size_t len, struct case_spec *c, char *err, size_t errsize);
/* A --MIN_PHP-- version, "8.1" or "8.1.2", as a PHP_VERSION_ID: 0, or -1 when it is none. */
int case_min_php_parse(const char *text, uint32_t *out);
/* Render a case in the stored format (malloc'd). */
char *casefile_format(const struct case_spec *c);

/* ---- casefind.c ---- */
/* A growing list of paths, each its own copy (casefind.c, cli/submit.c). */
struct path_list {
	char **path;
	size_t n, cap;
};
/* A copy of path appended: 0, or -1 out of memory. */
int path_list_add(struct path_list *, const char *path);
void path_list_release(struct path_list *);
/*
 * The case files (*.phpt, hidden entries skipped) in the folder root and
 * its subfolders up to max_depth deep, appended to out as paths relative
 * to root, sorted.  More than max_files (0: no bound) is an error.  0, or
 * -1 with err (a folder that cannot be read: "LABELFOLDER: reason"), out
 * as it was.
 */
int casefile_find(const char *root, const char *label, int max_depth, size_t max_files, struct path_list *out,
    char *err, size_t errsize);

/* ---- id.c ---- */
/*
 * A resource id, strictly: 1..INT64_MAX in decimal, no sign, no leading
 * zero, no space, nothing after it.  The id, or 0 for anything else
 * ("01", "+5", " 5", "5x", "", an overflow): every path and query
 * parameter naming an id goes through it (docs/api.md, "Ids").
 */
int64_t id_parse(const char *s, size_t len);
/* The same for a NUL-terminated string (NULL gives 0). */
int64_t id_parse_str(const char *s);

/* ---- text.c: any bytes as JSON text, numbers for people ---- */
struct json_t;
/* The bytes with each one outside a valid UTF-8 sequence as \xNN. */
struct json_t *text_display(const char *data, size_t len);
/* The phpt pages' rule: each byte that is not part of valid UTF-8 as U+FFFD,
 * the text cut once max bytes are written (SIZE_MAX: whole). */
struct json_t *text_replaced(const char *data, size_t len, size_t max);
/* Itself when UTF-8 (*is_utf8 = 1), else text_display (*is_utf8 = 0). */
struct json_t *text_jsonn(const char *data, size_t len, int *is_utf8);
/* A C string as JSON text; NULL gives JSON null. */
struct json_t *text_json(const char *s);
/* The names of the flags set in flags (flags.c's table, in its order) as a
 * JSON array: every "flag_names" the API shows. */
struct json_t *text_flag_names(long flags);
/* A number's text with its whole part grouped by thousands, for tables a
 * person reads: "-1234567.50" -> "-1,234,567.50".  Cut to fit size. */
void text_grouped(const char *number, char *out, size_t size);
/* n bytes of s as Markdown inline code into o: control bytes and DEL as
 * \xNN, '|' escaped (a table cell), a fence of two backticks when s has
 * one, cut after max bytes with "… (N bytes)". */
struct buf;
void text_md_code(struct buf *o, const char *s, size_t n, size_t max);

/* ---- base64.c (libcrypto's EVP_EncodeBlock) ---- */
/* Standard base64 with padding, NUL-terminated, malloc'd; NULL when out of memory. */
char *base64_encode(const void *data, size_t len);
/* The URL-safe alphabet (RFC 4648 §5), no padding, into out (outsize >= 4 * ceil(len / 3) + 1). */
void base64url_encode(const void *data, size_t len, char *out, size_t outsize);

/* ---- sanitizer.c: what a sanitizer report says ---- */
#define SANITIZER_FRAMES 3
struct sanitizer_summary {
	char kind[64];   /* "heap-buffer-overflow", "undefined-behavior"... */
	char access[64]; /* "READ of size 1", "" when the report has none */
	int nframes;     /* the top frames: "php_json_escape_string json_encoder.c:349" */
	char frames[SANITIZER_FRAMES][160];
};
/* Parse an AddressSanitizer or UBSan report (its text as the worker sent
 * it); 0, or -1 when the text is no report (all fields empty). */
int sanitizer_summarize(const char *report, struct sanitizer_summary *);

/* ---- bucket.c ---- */
#define BUCKET_KEY_VERSION 1
#define BUCKET_SHAPE_MAX 24 /* characters of a difference's shape, per side */
/* The bucket key of a mismatch (diff != 0): canonical JSON text, malloc'd; NULL when out of memory. */
char *bucket_key(long flags, const struct result res[2], unsigned diff);
/* A phpt test's regression or improvement on a candidate: its key, malloc'd; NULL when out of memory. */
char *bucket_phpt_key(
    const char *candidate, const char *test, const char *base_status, const char *cand_status);
/* The same without the flags: the signature a reduced case must keep (reduce.c). */
char *bucket_signature(const struct result res[2], unsigned diff);
/* The kind of a mismatch, which a reduction keeps while its shape may change (reduce.c). */
char *bucket_reduction_target(const struct result res[2], unsigned diff);
/*
 * Target (bucket_reduction_target's text) with the candidate's error code
 * made `to`, where it is one of the codes in `from` (1 << code each), or its
 * exception taken away and its code made `to` where `from` holds
 * RECODE_EXCEPTION: what an error step of the reducer may change (shrink.h,
 * struct shrink_recode).  malloc'd; NULL when the target names no such code.
 */
#define RECODE_EXCEPTION (1u << 31)
char *bucket_target_recoded(const char *target, unsigned from, int to);
/*
 * The shape of the first difference between two outputs, into outa and outb
 * (each outsize >= BUCKET_SHAPE_MAX + 2); the flags controlling those bytes
 * are or'ed into *mask.
 */
void bucket_shape(const char *a, size_t alen, const char *b, size_t blen, char *outa, char *outb,
    size_t outsize, long *mask);

#endif
