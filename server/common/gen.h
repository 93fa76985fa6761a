/*
 * The generator of json_encode cases for generated runs: pure C, no PHP
 * headers, so the same object files serve the per-build worker core (which
 * turns a case into zvals, see gencore.c), the daemon (counter names, the
 * digest records) and the unit test.  This is its one public header; its
 * files (gen.c, the plan maker, and gen_php.c, gen_class.c, gen_string.c,
 * gen_render.c, gen_digest.c) are listed in gen_internal.h.
 *
 * A case is a function of (GEN_VERSION, seed, index) only: its own PRNG
 * (wyrand, seeded through splitmix64), never libc's, and no floating
 * point arithmetic in the decisions, so every machine and every build gets
 * the same value, flags and depth.  Any case can be regenerated on demand
 * instead of stored.  Changing what the generator produces for any
 * (seed, index) means bumping GEN_VERSION (tests/unit/test_gen.c pins a
 * corpus hash to catch an accidental change).
 *
 * A case is a small tree ("plan") of nodes: scalars, strings built from
 * pieces that cover every escaping branch of the encoder, lists, maps,
 * stdClass objects, instances of the declared classes below, enum cases and
 * a resource.  The plan renders as readable PHP (an expression, plus setup
 * code declaring the classes it uses) that builds the same value.
 */
#ifndef PHPCMP_GEN_H
#define PHPCMP_GEN_H

#include <stddef.h>
#include <stdint.h>

/*
 * 2: references (&), self-referencing values (recursion), ArrayObject and
 * SplFixedArray, output padded to the encoder buffer's growth points, empty
 * arrays immutable as PHP's [], a jsonSerialize() that returns with an
 * exception pending (a destructor throws).
 * 3: sequences (earlier json_encode calls on the same value in the same
 * request, so state one call leaves -- recursion guards, the error code --
 * meets the next), a jsonSerialize() that calls json_encode() itself, one
 * that writes into the list being encoded through a reference, and strings
 * whose lengths and special bytes sit at the boundaries of 16-byte blocks,
 * of 4 KiB and of 64 KiB.
 */
#define GEN_VERSION 3

/* Bounds of one case (the generator stays well inside them). */
#define GEN_MAX_NODES 512
#define GEN_MAX_ENTRIES 512
#define GEN_MAX_BYTES (96u << 10) /* room for one 64 KiB block string */
#define GEN_MAX_PRE 2             /* earlier calls of a sequence */

enum gen_kind {
	GEN_NULL,
	GEN_FALSE,
	GEN_TRUE,
	GEN_INT,
	GEN_FLOAT,
	GEN_STRING,
	GEN_LIST,     /* [v, ...] */
	GEN_MAP,      /* [k => v, ...], int and string keys */
	GEN_STDCLASS, /* (object)[...], string property names */
	GEN_OBJECT,   /* new GenCn([...]): a declared class (gen_class_at) */
	GEN_ENUM,     /* GenEnumS::A ... (cls = enum, n = case) */
	GEN_RESOURCE, /* fopen('php://memory', 'r') */
	GEN_REF,      /* &$hN: one entry (the value), or cls 1: a back-reference to node v.i, or
	               * cls 2: the same PHP reference as GEN_REF node v.i (an ancestor) */
	GEN_BUILTIN,  /* cls 0: new ArrayObject(entry 0); 1 SplFixedArray(v.i), 2 DateInterval('Pv.iD'),
	               * 3 DateTimeImmutable('@v.i'), 4 WeakMap() */
	GEN_KIND_COUNT
};

/* What a string was built from; a case records which it used. */
enum gen_piece {
	GEN_P_ASCII,       /* letters, digits, spaces, punctuation JSON leaves alone */
	GEN_P_QUOTE,       /* "  */
	GEN_P_BACKSLASH,   /* \  */
	GEN_P_SLASH,       /* /  */
	GEN_P_TAG,         /* < > */
	GEN_P_AMP,         /* &  */
	GEN_P_APOS,        /* '  */
	GEN_P_CONTROL_ESC, /* \b \f \n \r \t: the short escapes */
	GEN_P_CONTROL,     /* other bytes 0x00-0x1f */
	GEN_P_DEL,         /* 0x7f */
	GEN_P_UTF8_2,
	GEN_P_UTF8_3,
	GEN_P_UTF8_4,
	GEN_P_LINE_SEP,  /* U+2028, U+2029 */
	GEN_P_BAD_LONE,  /* a continuation byte with no lead */
	GEN_P_BAD_TRUNC, /* a multi-byte sequence cut short */
	GEN_P_BAD_OVERLONG,
	GEN_P_BAD_SURROGATE, /* U+D800..U+DFFF encoded */
	GEN_P_BAD_ABOVE,     /* above U+10FFFF, or bytes 0xf8-0xff */
	GEN_P_TEXT,          /* words: names with accents, URLs, paths */
	GEN_P_COUNT
};

/* Whole-string shapes, besides pieces. */
enum gen_shape {
	GEN_S_PIECES, /* a concatenation of pieces */
	GEN_S_EMPTY,
	GEN_S_NUMERIC, /* "123", " 1.5e3", "0x1A", "1e400"... (JSON_NUMERIC_CHECK) */
	GEN_S_LONG,    /* ~200 bytes: plain, or with a quote first/last, URLs */
	GEN_S_BLOCK,   /* a run of one character, 1-80 bytes, 16k±1, 4 KiB±16 or 64 KiB±16 long,
	                * with a few special bytes at block edges (rendered with str_repeat) */
	GEN_S_COUNT
};

/* Object-building specials the report counts. */
enum gen_feature {
	GEN_F_PRIVATE,       /* an instance with a private or protected property set */
	GEN_F_UNINIT,        /* a typed property left uninitialized */
	GEN_F_DYNAMIC,       /* dynamic properties on a declared class */
	GEN_F_JSONSER,       /* JsonSerializable returning a value */
	GEN_F_JSONSER_THIS,  /* JsonSerializable returning $this */
	GEN_F_JSONSER_THROW, /* jsonSerialize() throws */
	GEN_F_NUL_PROP,      /* stdClass property name starting with NUL (skipped) */
	GEN_F_INT_KEY,       /* an int array key */
	GEN_F_NUMERIC_KEY,   /* a numeric-string array key (PHP makes it an int) */
	GEN_F_EMPTY_KEY,
	GEN_F_NEG_ZERO,     /* -0.0 */
	GEN_F_NAN_INF,      /* NAN, INF or -INF */
	GEN_F_SMALL_DEPTH,  /* json_encode depth below 512 */
	GEN_F_DEPTH_HIT,    /* ... and the value is nested deeper than it */
	GEN_F_THROW_FLAG,   /* JSON_THROW_ON_ERROR */
	GEN_F_REFERENCE,    /* a PHP reference inside an array or object */
	GEN_F_RECURSION,    /* a value that contains itself (through a reference) */
	GEN_F_GROW,         /* a padded list: the encoder's buffer grows inside its values */
	GEN_F_JSONSER_DTOR, /* jsonSerialize() returns while a destructor's exception is pending */
	GEN_F_SEQUENCE,     /* earlier json_encode calls on the value in the same request */
	GEN_F_SEQ_FAIL,     /* ... one of them asked for a smaller depth or fewer error flags */
	GEN_F_NESTED,       /* jsonSerialize() calls json_encode() itself */
	GEN_F_MUTATE,       /* jsonSerialize() writes into the list being encoded, through a reference */
	GEN_F_COUNT
};

struct gen_entry {
	uint32_t value;            /* node index */
	uint8_t key_type;          /* GEN_KEY_* */
	uint32_t key_off, key_len; /* GEN_KEY_STR: bytes */
	int64_t key_int;           /* GEN_KEY_INT; GEN_KEY_PROP: property index */
};

enum { GEN_KEY_NONE, GEN_KEY_INT, GEN_KEY_STR, GEN_KEY_PROP };

struct gen_node {
	uint8_t kind;   /* enum gen_kind */
	uint8_t pad;    /* GEN_STRING: n times 'x', rendered str_repeat('x', n) */
	uint16_t cls;   /* GEN_OBJECT: class index; GEN_ENUM: enum index */
	uint32_t n;     /* containers: entries; strings: length; enum: case */
	uint32_t first; /* containers: first entry; strings: byte offset */
	union {
		int64_t i;
		double d;
	} v;
};

struct gen_rng {
	uint64_t s;
};

struct gen_case {
	uint64_t seed, index;
	int64_t flags, depth;
	uint32_t root;
	uint32_t nnodes, nents, nbytes;
	uint32_t nesting;  /* the value's depth as json_encode counts it */
	uint64_t pieces;   /* bit per enum gen_piece used */
	uint32_t shapes;   /* bit per enum gen_shape */
	uint32_t kinds;    /* bit per enum gen_kind */
	uint32_t features; /* bit per enum gen_feature */
	uint64_t classes;  /* bit per declared class used */
	uint32_t enums;    /* bit per enum used */
	uint32_t nrefs;    /* GEN_REF nodes (the renderer's $hN) */
	uint32_t path[8];  /* containers a back-reference may point to (gen_child) */
	uint32_t npath;
	/* A sequence: npre earlier calls, json_encode($v, pre_flags[k], pre_depth[k]),
	 * each caught if it throws; the compared call (flags, depth) comes last. */
	uint32_t npre;
	int64_t pre_flags[GEN_MAX_PRE], pre_depth[GEN_MAX_PRE];
	uint32_t php; /* made for this PHP_VERSION_ID and newer; GEN_PHP_ALL: every construct */
	struct gen_rng rng;
	struct gen_node nodes[GEN_MAX_NODES];
	struct gen_entry ents[GEN_MAX_ENTRIES];
	char bytes[GEN_MAX_BYTES];
};

/* ---- declared classes and enums (gen_class.c; their PHP source: gen_render.c) ---- */

enum gen_class_type {
	GEN_CLASS_PLAIN,          /* declared properties only */
	GEN_CLASS_DYNAMIC,        /* #[AllowDynamicProperties] */
	GEN_CLASS_JSONSER,        /* jsonSerialize() returns its first property */
	GEN_CLASS_JSONSER_THIS,   /* jsonSerialize() returns $this */
	GEN_CLASS_JSONSER_THROW,  /* jsonSerialize() throws */
	GEN_CLASS_JSONSER_DTOR,   /* returns its first property; a local's destructor throws */
	GEN_CLASS_JSONSER_NESTED, /* returns json_encode() of its first property (gen_nested_calls) */
	GEN_CLASS_JSONSER_MUTATE, /* writes into its first property, which may be bound to the list
	                           * being encoded (gen_mutating): bug #77843's shape */
};

enum gen_visibility { GEN_PUBLIC, GEN_PROTECTED, GEN_PRIVATE };

#define GEN_MAX_PROPS 5
#define GEN_NCLASSES 45 /* the generator's classes, GenC0 ... GenC44 */
/*
 * The reducer's canonical classes after them (never generated, not in
 * gen_declarations(): a reduced case declares them in its setup): the
 * least class of each shape the normal form lowers a declared-class object
 * to, one property named 'a' (or "\x80", the least invalid UTF-8 name):
 * GenPubA (public $a = null), GenPubX80 (public $\x80 = null), GenTypedA
 * (public mixed $a), GenProtA (protected $a = null), GenPrivA (private $a = null).
 */
#define GEN_NCANON 5
#define GEN_NCLASSES_ALL (GEN_NCLASSES + GEN_NCANON)
#define GEN_NENUMS 3

struct gen_prop {
	char name[16]; /* identifier bytes, may use 0x80-0xff */
	uint8_t len;
	uint8_t visibility; /* enum gen_visibility */
	uint8_t typed;      /* `mixed` with no default: may stay uninitialized */
};

struct gen_class {
	char name[16];   /* ASCII */
	uint8_t type;    /* enum gen_class_type */
	uint8_t variant; /* GEN_CLASS_JSONSER_NESTED: which nested call (gen_class_source) */
	uint8_t nprops;
	struct gen_prop props[GEN_MAX_PROPS];
};

/* Code point cp (no surrogate, at most U+10FFFF) as UTF-8 in out: its length, 1 to 4. */
size_t gen_utf8_put(uint32_t cp, unsigned char out[4]);
const struct gen_class *gen_class_at(unsigned i); /* i < GEN_NCLASSES_ALL */
/* A GEN_CLASS_JSONSER_NESTED class's inner json_encode() call: its flags (by variant). */
#define GEN_NESTED_VARIANTS 3
#define GEN_NESTED_HANDS_BACK 2 /* the variant returning [json_encode($p, ...), json_last_error(), $p] */
int64_t gen_nested_flags(const struct gen_class *k);
const char *gen_enum_name(unsigned i); /* i < GEN_NENUMS */
unsigned gen_enum_cases(unsigned i);
/* PHP source declaring every class and enum, raw bytes (for the worker). */
const char *gen_declarations(size_t *len);

/* ---- making and reading a case (gen.c; as PHP source: gen_render.c) ---- */

/* Flags as PHP source: "JSON_HEX_TAG | JSON_PRETTY_PRINT", or "0". */
void gen_flags_source(int64_t flags, char *buf, size_t size);

void gen_case_make(struct gen_case *, uint64_t seed, uint64_t index);

/*
 * ---- what each PHP can compile ----
 * The generator knows the first PHP each construct it emits needs (its
 * version table, gen_php.c): enums 8.1 and WeakMap 8.0 are left out before
 * them (readonly properties, `new` in initialisers and first-class
 * callables, 8.1 too, are never emitted); `mixed` and a catch without a
 * variable (8.0) are written the 7.4 way before 8.0, with the same answers
 * (gen_render.c).  A case made for PHP_VERSION_ID `php` leaves out what
 * that PHP cannot compile.  GEN_PHP_ALL (0) leaves nothing out: the
 * corpus of gen_case_make, which every run over builds all new enough for
 * every construct gets, byte for byte.
 *
 * GEN_VERSION covers the corpus for every PHP: a change to what a case
 * made for one PHP is means a bump, unless that PHP's corpus could not be
 * used before.  Once: the corpus for PHP < 8.0 (cases with a WeakMap, the
 * classes' source) changed in version 3 without one, when the php-7.4
 * reference arrived -- its cases did not compile on 7.4 until then
 * (docs/generated.md); 8.0 and newer did not move (test_gen.c pins them).
 */
#define GEN_PHP_ALL 0u
/* The PHP_VERSION_ID to make cases for when the oldest build is `php`: GEN_PHP_ALL when it
 * compiles every construct. */
uint32_t gen_php_floor(uint32_t php);
/* "8.2.32", "8.1.0RC1" as a PHP_VERSION_ID (80232, 80100); 0 when unreadable. */
uint32_t gen_php_id(const char *version);
/* What a case for `php` leaves out, "enums", comma-separated ("" when nothing); its length. */
size_t gen_left_out(uint32_t php, char *buf, size_t size);
/* Why PHP `own` ("7.4.33") cannot run cases made for `asked` (a floor, or GEN_PHP_ALL): an
 * error line naming what its corpus lacks. */
void gen_php_refusal(uint32_t asked, uint32_t own, const char *own_version, char *buf, size_t size);
void gen_case_make_php(struct gen_case *, uint64_t seed, uint64_t index, uint32_t php);
/* gen_declarations() without what `php` cannot compile. */
const char *gen_declarations_php(uint32_t php, size_t *len);
/* A hash of everything the case consists of (value, flags, depth). */
uint64_t gen_case_hash(const struct gen_case *);

/* Growable output buffer for rendering. */
struct gen_buf {
	char *data;
	size_t len, cap;
	int failed; /* out of memory */
};
void gen_buf_release(struct gen_buf *);
/*
 * The value as PHP source: valid UTF-8, no NUL, invalid bytes as \xNN, long
 * runs of one character as str_repeat().  An expression; for a sequence,
 * statements that make the earlier calls and end with `return $v;`.
 */
int gen_render_value(const struct gen_case *, struct gen_buf *);
/* Setup code declaring the classes and enums the value uses ("" if none). */
int gen_render_setup(const struct gen_case *, struct gen_buf *);
/* "generated v1 seed S #I" */
void gen_title(uint64_t seed, uint64_t index, char *buf, size_t size);

/* A float rendered so that PHP reads back the same double (NAN, INF, -0.0...). */
void gen_format_double(double d, char *buf, size_t size);

/* ---- hashing and digests (gen_digest.c) ---- */

/* A fast 64-bit hash; equal-length inputs that differ never collide. */
uint64_t gen_hash(const void *data, size_t len, uint64_t h);

#define GEN_HASH_INIT 0x6a09e667f3bcc909ull

/* One case's outcome on one build, as the worker reports it for a batch. */
struct gen_digest {
	uint64_t plan_hash;   /* gen_case_hash: both builds must agree */
	uint64_t result_hash; /* status, output, error code and message, exception */
	uint32_t out_len;     /* output bytes, 0 when false */
	uint32_t flags;
	uint32_t depth;
	uint8_t status;     /* PROTO_STATUS_* (or the daemon's crash/timeout) */
	uint8_t error_code; /* json_last_error() */
	uint8_t is_false;
	uint8_t exception; /* something was thrown */
};

/*
 * One case's outcome as plain bytes: what a native worker core reads off
 * its zvals (gencore.c) and what the daemon reads off a reference
 * runtime's results (engine/reference.c), hashed and summed up the same
 * way so that equal answers give equal digests.  output is NULL when
 * json_encode returned false; error_msg, exc_class and exc_msg NULL (or
 * exc_class "") when absent.
 */
struct gen_outcome {
	int status; /* PROTO_STATUS_* */
	const char *output;
	size_t output_len;
	int64_t error_code;
	const char *error_msg;
	size_t error_msg_len;
	const char *exc_class; /* "" or NULL: nothing was thrown */
	const char *exc_msg;
	size_t exc_msg_len;
};
/* Sets d's result_hash, out_len, status, error_code, is_false and exception. */
void gen_outcome_digest(const struct gen_outcome *, struct gen_digest *d);

#define GEN_DIGEST_SIZE 32
void gen_digest_pack(const struct gen_digest *, unsigned char out[GEN_DIGEST_SIZE]);
void gen_digest_unpack(struct gen_digest *, const unsigned char in[GEN_DIGEST_SIZE]);

/* ---- coverage counters: how many cases used each piece, flag... (gen_digest.c) ---- */

enum {
	GEN_C_CASES = 0,
	GEN_C_PIECE = 1,                             /* + enum gen_piece */
	GEN_C_SHAPE = GEN_C_PIECE + GEN_P_COUNT,     /* + enum gen_shape */
	GEN_C_KIND = GEN_C_SHAPE + GEN_S_COUNT,      /* + enum gen_kind */
	GEN_C_FEATURE = GEN_C_KIND + GEN_KIND_COUNT, /* + enum gen_feature */
	GEN_C_FLAG = GEN_C_FEATURE + GEN_F_COUNT,    /* + bit number 0..22 */
	GEN_C_CLASS = GEN_C_FLAG + 23,               /* + class index */
	GEN_C_ENUM = GEN_C_CLASS + GEN_NCLASSES,     /* + enum index */
	GEN_COUNTERS = GEN_C_ENUM + GEN_NENUMS
};

void gen_count(const struct gen_case *, uint64_t counters[GEN_COUNTERS]);
/* "piece.utf8_2", "flag.JSON_HEX_TAG", "class.GenC7"...; NULL for an unused slot. */
const char *gen_counter_name(unsigned i, char *buf, size_t size);

#endif
