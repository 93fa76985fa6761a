/*
 * The daemon <-> worker protocol: length-prefixed, versioned frames over a
 * socketpair.  A frame is a 12-byte header followed by a payload of tagged
 * fields.  Every length is checked against a maximum before anything is
 * copied, so a confused or hostile peer can only produce an error.
 *
 *   header:  u32 magic "PHCP" | u16 version | u16 type | u32 payload length
 *   payload: (u16 tag | u32 length | bytes) ...
 *
 * Integers are little-endian.  This file is compiled into the daemon, the
 * worker loader and every per-build worker core.
 */
#ifndef PHPCMP_PROTO_H
#define PHPCMP_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_MAGIC 0x50434850u /* "PHCP" read as little-endian bytes */
#define PROTO_VERSION 1
#define PROTO_HEADER_SIZE 12
#define PROTO_MAX_PAYLOAD (64u << 20) /* a whole frame */
#define PROTO_MAX_FIELDS 64

/*
 * What a worker keeps of a case's result (server/core/core.c).  A field
 * over its cap is cut there and ends with its note; an output over its cap
 * is not sent: the case is an error whose failure starts with
 * PROTO_OUTPUT_TOO_LARGE.  The daemon reports both as "truncated" (api.c).
 */
#define PROTO_MAX_OUTPUT (16u << 20) /* json_encode's output */
#define PROTO_MAX_PRINTED (1u << 20) /* what the case echoed */
#define PROTO_MAX_DIAG (64u << 10)   /* warnings; the failure message */
#define PROTO_CUT_PRINTED "\n[phpcmp: output truncated]"
#define PROTO_CUT_WARNINGS "[phpcmp: diagnostics truncated]\n"
#define PROTO_CUT_FAILURE "[phpcmp: truncated]\n"
#define PROTO_OUTPUT_TOO_LARGE "json_encode output too large to keep"

enum proto_type {
	PROTO_HELLO = 1,  /* worker -> daemon once ready: PHP version etc. */
	PROTO_CASE = 2,   /* daemon -> worker: run one case */
	PROTO_RESULT = 3, /* worker -> daemon: the case's result */
	PROTO_FAIL = 4,   /* worker -> daemon: cannot start (message) */
	/* 5..9: generated runs (server/common/gen.c, gencore.c) */
	PROTO_GEN_BATCH = 5,   /* daemon -> worker: digests of cases start..start+count-1 */
	PROTO_GEN_DIGESTS = 6, /* worker -> daemon: the batch's digests and coverage */
	PROTO_GEN_DETAIL = 7,  /* daemon -> worker: one case in full; answered by a
	                        * PROTO_RESULT with TAG_GEN_CODE etc. added */
	PROTO_DIED = 8,        /* fork server -> daemon: the child serving cases died
	                        * (TAG_DIED_STATUS, TAG_DIED_BUSY); a fresh one follows */
	PROTO_RENEW = 9,       /* daemon -> fork server's child: answer (an empty
	                        * PROTO_RESULT) and leave, the spare takes over: the next
	                        * request on a process that has run no case */
	                       /* 10..14: measurement */
	/* 15..16: php-src's .phpt tests (server/core/phptcore.c, docs/phpt.md) */
	PROTO_PHPT = 15,        /* daemon -> worker: run one script in a fresh request */
	PROTO_PHPT_RESULT = 16, /* worker -> daemon: what it printed */
	/* 17..18: reference runtimes (server/reference/, docs/references.md):
	 * released PHP under Node, which cannot make generated cases itself, so
	 * the daemon renders them (engine/reference.c) and hashes the answers. */
	PROTO_REF_BATCH = 17,   /* daemon -> reference: TAG_GEN_SETUP once, TAG_REF_CASES */
	PROTO_REF_RESULTS = 18, /* reference -> daemon: TAG_REF_RESULTS, one record a case */
};

enum proto_tag {
	/* PROTO_HELLO */
	TAG_PHP_VERSION = 1,
	TAG_ZEND_VERSION = 2,
	/* PROTO_CASE */
	TAG_CODE = 10,
	TAG_SETUP = 11,
	TAG_FLAGS = 12,             /* int */
	TAG_DEPTH = 13,             /* int */
	TAG_ITERATIONS = 14,        /* int, > 0: measure instructions over N calls */
	TAG_MEASURE_BUDGET_MS = 15, /* int, > 0: stop the measured calls after about this long */
	/* PROTO_RESULT */
	TAG_STATUS = 20,     /* int, PROTO_STATUS_OK or PROTO_STATUS_ERROR */
	TAG_OUTPUT = 21,     /* absent: json_encode returned false */
	TAG_ERROR_CODE = 22, /* int, json_last_error() */
	TAG_ERROR_MSG = 23,  /* json_last_error_msg() */
	TAG_EXC_CLASS = 24,
	TAG_EXC_MSG = 25,
	TAG_PRINTED = 26,      /* what the case echoed */
	TAG_WARNINGS = 27,     /* diagnostics, one per line */
	TAG_FAILURE = 28,      /* why status is error: parse error, fatal... */
	TAG_INSTRUCTIONS = 29, /* int, instructions per call, rounded (TAG_INSTR_TOTAL is exact) */
	/* 30..34: the case's own code did not compile (or its value statements
	 * have no return): a case error, not a result to compare.  Lines and
	 * columns are the user's (the core's wrapper taken off), 1-based, 0
	 * when unknown. */
	TAG_COMPILE_ERROR = 30,   /* the message, e.g. "Unclosed '['" */
	TAG_COMPILE_SECTION = 31, /* "setup" or "value" */
	TAG_COMPILE_LINE = 32,    /* int */
	TAG_COMPILE_COLUMN = 33,  /* int */
	/* PROTO_FAIL */
	TAG_MESSAGE = 40,
	/* 50..69: generated runs */
	TAG_GEN_VERSION = 50,     /* int, GEN_VERSION: in every generated-run message */
	TAG_GEN_SEED = 51,        /* int (the seed's 64 bits) */
	TAG_GEN_START = 52,       /* int, first index (PROTO_GEN_DETAIL: the index) */
	TAG_GEN_COUNT = 53,       /* int */
	TAG_GEN_RECORDS = 54,     /* count packed gen_digest records (gen.h) */
	TAG_GEN_COVERAGE = 55,    /* GEN_COUNTERS little-endian u64 counters */
	TAG_GEN_TIMES = 56,       /* little-endian u64 ns: total, declare, generate, build, encode, digest */
	TAG_GEN_CODE = 57,        /* the value as PHP source */
	TAG_GEN_SETUP = 58,       /* PHP declaring the classes it uses */
	TAG_GEN_PLAN_HASH = 59,   /* int */
	TAG_GEN_RESULT_HASH = 60, /* int */
	TAG_GEN_PHP = 61,         /* int, PHP_VERSION_ID the cases are made for (gen_case_make_php);
	                           * absent: GEN_PHP_ALL, every construct */
	/* 70..79: measurement (PROTO_RESULT of a case with TAG_ITERATIONS) */
	TAG_INSTR_TOTAL = 70,     /* int, instructions of all measured calls */
	TAG_DUMP_FILE = 71,       /* the callgrind dump holding that count */
	TAG_HANDLER_OFFSET = 72,  /* PROTO_HELLO: zif_json_encode's offset in libphp */
	TAG_ITERATIONS_DONE = 73, /* int, the calls measured (fewer than asked: the budget) */
	/* 80..84: the sandbox (server/worker/sandbox.c) */
	TAG_SANDBOX = 80, /* PROTO_HELLO: the layers in force, e.g. "netns caps seccomp ..." */
	TAG_RETIRE = 81,  /* int 1, in any reply: the worker could not empty its private
	                   * folder and exits after this reply; start another */
	/* 90..99: .phpt scripts.  PROTO_PHPT: TAG_PHPT_NAME, TAG_PHPT_CODE,
	 * TAG_PHPT_INI.  PROTO_PHPT_RESULT: TAG_STATUS (error: the script did
	 * not run, TAG_FAILURE says why), TAG_PRINTED, TAG_PHPT_EXIT, and
	 * TAG_PHPT_REFUSED when an ini setting could not be made. */
	TAG_PHPT_NAME = 90,    /* the script's file name in the private folder, e.g. "bug1.php" */
	TAG_PHPT_CODE = 91,    /* the script */
	TAG_PHPT_INI = 92,     /* "name=value" lines, applied as php -d name=value would */
	TAG_PHPT_EXIT = 93,    /* int, the script's exit status */
	TAG_PHPT_REFUSED = 94, /* "name: why" of the first setting that could not be made */
	TAG_PHPT_AUX = 95,     /* repeatable: "name\0bytes", a file next to the test (e.g. an
	                        * .inc it includes), written beside the script first */
	/* The test's CLEAN, run in the same message right after the script (in
	 * a request of its own, with its own settings), so that it sees what
	 * the script left in the private folder. */
	TAG_PHPT_CLEAN_NAME = 96,
	TAG_PHPT_CLEAN_CODE = 97,
	TAG_PHPT_CLEAN_INI = 98,
	TAG_PHPT_CLEAN_PRINTED = 99, /* PROTO_PHPT_RESULT: what CLEAN printed */
	/* 100..109: the fork server (server/worker/loader.c).  PROTO_DIED */
	TAG_DIED_STATUS = 100, /* int, the child's wait status */
	TAG_DIED_BUSY = 101,   /* int, 1: it had a request it did not answer */
	TAG_DIED_PID = 102,    /* int */
	/* 110..114: sanitizer builds (server/worker/sanitizer.c, docs/sandbox.md) */
	TAG_SANITIZER = 110,       /* in any reply or PROTO_DIED: what AddressSanitizer or UBSan
	                            * reported during the request (bounded) */
	TAG_SANITIZER_INDEX = 111, /* PROTO_GEN_DIGESTS: little-endian u64s, the cases of the
	                            * batch that had a report */
	/* 120..124: reference runtimes.  A record list is records one after the
	 * other, each a little-endian u32 length and that many bytes of tagged
	 * fields (the same encoding as a payload). */
	TAG_REFERENCE = 120,   /* PROTO_HELLO: the runtime, e.g. "php-wasm 3.1.56 (node 20.20.2)";
	                        * present: no instruction counts, no memory-error oracle */
	TAG_REF_CASES = 121,   /* PROTO_REF_BATCH: records of TAG_CODE, TAG_FLAGS, TAG_DEPTH */
	TAG_REF_RESULTS = 122, /* PROTO_REF_RESULTS: records of a PROTO_RESULT's fields, in the
	                        * batch's order */
};

/*
 * A fork server child's exit statuses that are not the end of the worker
 * (server/worker/loader.c): a sanitizer ended it (the daemon sets the
 * runtimes' exitcode to this), or it answered but had a report, so its
 * heap is not to be trusted and a fresh child takes over.
 */
#define PROTO_EXIT_SANITIZER 86
#define PROTO_EXIT_REPLACE 87

/* TAG_STATUS values, the same numbers as the daemon's enum result_status. */
#define PROTO_STATUS_OK 0
#define PROTO_STATUS_ERROR 1

/*
 * The progress page: a shared memory file (memfd) the daemon maps and hands
 * a worker as fd PROTO_PAGE_FD.  The worker's fork server writes the pid of
 * the child serving cases; the child says whether it holds a request; the
 * core writes, case by case of a PROTO_GEN_BATCH, the index it is on, each
 * finished case's digest, the coverage counters and the cases a sanitizer
 * reported on.  A worker that dies in
 * a batch so leaves behind exactly which case killed it and what came
 * before it: the daemon goes on from the next case, no bisection.
 */
#define PROTO_PAGE_FD 4
#define PROTO_PAGE_MAGIC 0x45474150u /* "PAGE" */
#define PROTO_PAGE_COUNTERS 512      /* >= GEN_COUNTERS (gen.h) */
#define PROTO_PAGE_RECORDS 65536     /* >= GENCORE_MAX_BATCH */
#define PROTO_PAGE_RECORD_SIZE 32    /* GEN_DIGEST_SIZE */
#define PROTO_PAGE_MEMORY_ERRORS \
	4096 /* cases of one batch named; the rest are found by the daemon's re-run */

struct proto_page {
	uint32_t magic;
	volatile int32_t child_pid;   /* the fork server's current child, 0: none */
	volatile int32_t busy;        /* the child read a request it has not answered */
	volatile int32_t hello;       /* the first child sent PROTO_HELLO */
	volatile int64_t batch_start; /* the PROTO_GEN_BATCH being run; -1: none */
	volatile int64_t done;        /* of it: cases finished, records[0..done) */
	volatile int64_t current;     /* the index being run */
	/* What a crash costs (clock_ms, set where each happens): the fork
	 * server saw its child die, the next child was ready to read a
	 * request, and its batch had declared the generator's classes. */
	volatile double died_ms, ready_ms, declared_ms;
	volatile double died_ready_ms; /* the ready_ms of the child that died last */
	/* A fork server's word of a death (loader.c): a child's crash handler
	 * sets notice_pid and notice_sig, and the child's or the fork server's
	 * SIGCHLD handler bumps notice_seq (a futex the fork server waits on). */
	volatile int32_t notice_seq, notice_pid, notice_sig;
	/* The cases of the batch so far that had a sanitizer's report, named
	 * by the reporting child (server/worker/sanitizer.c): on the page, a
	 * child that dies later in the batch leaves them behind too. */
	volatile int32_t nmemory_errors;
	int64_t memory_errors[PROTO_PAGE_MEMORY_ERRORS];
	uint64_t counters[PROTO_PAGE_COUNTERS]; /* coverage of the batch so far */
	unsigned char records[PROTO_PAGE_RECORDS][PROTO_PAGE_RECORD_SIZE];
};

struct proto_field {
	uint16_t tag;
	uint32_t len;
	const char *data; /* points into the message's payload */
};

struct proto_msg {
	uint16_t type;
	size_t nfields;
	struct proto_field fields[PROTO_MAX_FIELDS];
	char *payload; /* owned; freed by proto_msg_release */
	size_t payload_len;
};

/* A growable payload under construction. */
struct proto_buf {
	char *data;
	size_t len, cap;
	int failed; /* an add went over PROTO_MAX_PAYLOAD or out of memory */
};

void proto_buf_init(struct proto_buf *);
void proto_buf_release(struct proto_buf *);
void proto_buf_add(struct proto_buf *, uint16_t tag, const void *data, size_t len);
void proto_buf_add_str(struct proto_buf *, uint16_t tag, const char *s);
void proto_buf_add_int(struct proto_buf *, uint16_t tag, int64_t v);

/* Send one frame; -1 with errno on failure (EMSGSIZE when b->failed). */
int proto_send(int fd, uint16_t type, const struct proto_buf *b);

/*
 * Receive one frame into msg.  Returns 1 on a frame, 0 on clean EOF before a
 * header, -1 on error (errno EPROTO for a bad frame, or the read's errno).
 * timeout_ms < 0 waits forever; on timeout returns -1 with errno ETIMEDOUT.
 */
int proto_recv(int fd, struct proto_msg *msg, int timeout_ms);

/* Parse a payload (owned by msg afterwards) into fields: 0, or -1 if malformed. */
int proto_decode(struct proto_msg *msg, uint16_t type, char *payload, size_t len);

void proto_msg_release(struct proto_msg *);

/* The first field with tag, or NULL. */
const struct proto_field *proto_get(const struct proto_msg *, uint16_t tag);
/* Integer field value, or def when absent or malformed. */
int64_t proto_get_int(const struct proto_msg *, uint16_t tag, int64_t def);

#endif
