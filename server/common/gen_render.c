/*
 * A generated case as PHP source (see gen.h): its value as an expression
 * (or a closure, for references; statements, for a sequence), the setup
 * declaring the classes and enums it uses, and every declaration at once
 * for the worker.  Strings become readable literals: valid UTF-8, invalid
 * bytes as \xNN, invisible characters as \u{...}, long runs as
 * str_repeat().
 */
#include "buf.h"
#include "flags.h"
#include "gen.h"
#include "gen_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gen_buf_release(struct gen_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static void gen_buf_put(struct gen_buf *b, const void *s, size_t n)
{
	if (b->failed)
		return;
	if (buf_grow(&b->data, &b->cap, b->len + n + 1) < 0) {
		b->failed = 1;
		return;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static void gen_buf_puts(struct gen_buf *b, const char *s)
{
	gen_buf_put(b, s, strlen(s));
}

/* ---- strings and numbers ---- */

/* Length of a well-formed UTF-8 sequence at s (RFC 3629), 0 if there is none. */
static size_t gen_utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf && n >= 2 && (s[1] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
		return 2;
	}
	if (s[0] >= 0xe0 && s[0] <= 0xef && n >= 3 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
		return *cp >= 0x800 && (*cp < 0xd800 || *cp > 0xdfff) ? 3 : 0;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4 && n >= 4 && (s[1] & 0xc0) == 0x80 && (s[2] & 0xc0) == 0x80 &&
	    (s[3] & 0xc0) == 0x80) {
		*cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 |
		    (uint32_t)(s[2] & 0x3f) << 6 | (s[3] & 0x3f);
		return *cp >= 0x10000 && *cp <= 0x10ffff ? 4 : 0;
	}
	return 0;
}

/* Characters a reader would not see: C1 controls, zero-width and bidi marks, U+2028/9. */
static int gen_invisible(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0xad || (cp >= 0x200b && cp <= 0x200f) ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) || cp == 0xfeff;
}

/*
 * A string's PHP source: its literal, but a run of GEN_RUN_MIN or more 'a'
 * (the filler a reduced case's unimportant characters become, docs/triage.md
 * "Normal form"), or of GEN_RUN_OTHER or more of any other character (a
 * block string's filler), as str_repeat('a', n), joined to the rest with
 * " . ", so a case whose bug needs a length stays short:
 * str_repeat('a', 15) . '"', str_repeat('é', 2048).
 */
#define GEN_RUN_MIN 8
#define GEN_RUN_OTHER 32

static void gen_render_literal(struct gen_buf *, const char *, size_t);

/* How many times the character at s[0] repeats from there (its bytes into *unit). */
static size_t gen_run_at(const char *s, size_t n, size_t *unit)
{
	uint32_t cp;
	size_t u = gen_utf8_len((const unsigned char *)s, n, &cp), run = 1;
	if (u == 0)
		u = 1;
	while ((run + 1) * u <= n && !memcmp(s, s + run * u, u))
		run++;
	*unit = u;
	return run;
}

static void gen_render_string(struct gen_buf *b, const char *s, size_t n)
{
	size_t at = 0, i = 0, unit;
	int sep = 0;
	char num[48];

	while (i < n) {
		size_t run = gen_run_at(s + i, n - i, &unit);
		if (run < (s[i] == 'a' ? GEN_RUN_MIN : GEN_RUN_OTHER)) {
			i += unit;
			continue;
		}
		if (i > at) {
			if (sep)
				gen_buf_puts(b, " . ");
			gen_render_literal(b, s + at, i - at);
			sep = 1;
		}
		if (sep)
			gen_buf_puts(b, " . ");
		gen_buf_puts(b, "str_repeat(");
		gen_render_literal(b, s + i, unit);
		snprintf(num, sizeof(num), ", %zu)", run);
		gen_buf_puts(b, num);
		sep = 1;
		i += run * unit;
		at = i;
	}
	if (at < n || !sep) {
		if (sep)
			gen_buf_puts(b, " . ");
		gen_render_literal(b, s + at, n - at);
	}
}

/*
 * A PHP string literal for any bytes: single-quoted when that is plain
 * printable ASCII, else double-quoted with escapes -- control bytes, DEL
 * and invalid UTF-8 as \xNN, invisible characters (U+2028...) as \u{...};
 * other UTF-8 stays as it is, so the source is readable UTF-8 text.
 */
static void gen_render_literal(struct gen_buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i;
	int plain = 1;
	for (i = 0; i < n && plain; i++)
		plain = u[i] >= 0x20 && u[i] < 0x7f && u[i] != '\'' && u[i] != '\\';
	if (plain) {
		gen_buf_put(b, "'", 1);
		gen_buf_put(b, s, n);
		gen_buf_put(b, "'", 1);
		return;
	}
	gen_buf_put(b, "\"", 1);
	for (i = 0; i < n;) {
		unsigned char ch = u[i];
		char esc[16];
		uint32_t cp;
		size_t len;
		switch (ch) {
		case '\\':
			gen_buf_put(b, "\\\\", 2);
			i++;
			continue;
		case '"':
			gen_buf_put(b, "\\\"", 2);
			i++;
			continue;
		case '$':
			gen_buf_put(b, "\\$", 2);
			i++;
			continue;
		case '\n':
			gen_buf_put(b, "\\n", 2);
			i++;
			continue;
		case '\r':
			gen_buf_put(b, "\\r", 2);
			i++;
			continue;
		case '\t':
			gen_buf_put(b, "\\t", 2);
			i++;
			continue;
		default:
			break;
		}
		if (ch < 0x20 || ch == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02X", ch);
			gen_buf_puts(b, esc);
			i++;
			continue;
		}
		len = gen_utf8_len(u + i, n - i, &cp);
		if (len == 0) {
			snprintf(esc, sizeof(esc), "\\x%02X", ch);
			gen_buf_puts(b, esc);
			i++;
		} else if (gen_invisible(cp)) {
			snprintf(esc, sizeof(esc), "\\u{%X}", (unsigned)cp);
			gen_buf_puts(b, esc);
			i += len;
		} else {
			gen_buf_put(b, s + i, len);
			i += len;
		}
	}
	gen_buf_put(b, "\"", 1);
}

void gen_format_double(double d, char *buf, size_t size)
{
	if (isnan(d)) {
		snprintf(buf, size, "NAN");
		return;
	}
	if (isinf(d)) {
		snprintf(buf, size, d > 0 ? "INF" : "-INF");
		return;
	}
	if (d == 0) {
		snprintf(buf, size, signbit(d) ? "-0.0" : "0.0");
		return;
	}
	/* The shortest form that reads back as the same double. */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*G", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	/* "3" would be an int in PHP. */
	if (!strpbrk(buf, ".E"))
		strncat(buf, ".0", size - strlen(buf) - 1);
}

/* ---- declarations ---- */

/* The enums of gen_class.c's gen_enum_name and gen_enum_cases (keep them in step). */
/* clang-format off */
static const char *const gen_enum_decls[GEN_NENUMS] = {
	("enum GenEnumS: string { case A = 'plain'; case B = \"<a href=\\\"/x\\\">&'</a>\"; "
	    "case C = \"\\u{2028}\\u{e9}/\"; case D = \"\\xff\\xfe\"; }\n"),
	"enum GenEnumI: int { case A = 0; case B = -1; case C = PHP_INT_MAX; }\n",
	"enum GenEnumU { case A; case B; }\n",
};
/* clang-format on */

/* What GEN_CLASS_JSONSER_DTOR's jsonSerialize() holds in a local. */
static const char gen_dtor_decl[] =
    "class GenDtorThrow { public function __destruct() { "
    "throw new RuntimeException('GenDtorThrow refuses to be destroyed'); } }\n";

/* Every declaration at once (gen_declarations), the enums last, made once;
 * and before 8.0 (gen_declarations_php), the classes written the 7.4 way. */
static char *gen_decl_src, *gen_decl_src_74;
static size_t gen_decl_len, gen_decl_len_noenums, gen_decl_len_74;
static pthread_once_t gen_decl_once = PTHREAD_ONCE_INIT;

/*
 * Before 8.0 (GEN_PHP_80_SYNTAX) there is no `mixed`: a typed property is
 * declared untyped with no default and unset() first thing in the
 * constructor -- left unset, it is skipped by json_encode as an
 * uninitialized typed one is -- and jsonSerialize() has no return type,
 * with #[\ReturnTypeWillChange] on a line of its own (a comment to 7.4) so
 * that the same source run on 8.1+ raises no deprecation.
 */
static void gen_unset_typed(const struct gen_class *k, uint32_t php, struct gen_buf *b)
{
	int n = 0;
	if (gen_php_has(php, GEN_PHP_80_SYNTAX))
		return;
	for (int i = 0; i < k->nprops; i++) {
		if (!k->props[i].typed)
			continue;
		gen_buf_puts(b, n++ ? ", $this->{" : "unset($this->{");
		gen_render_string(b, k->props[i].name, k->props[i].len);
		gen_buf_puts(b, "}");
	}
	if (n)
		gen_buf_puts(b, "); ");
}

static void gen_jsonser_head(uint32_t php, struct gen_buf *b)
{
	gen_buf_puts(b,
	    gen_php_has(php, GEN_PHP_80_SYNTAX)
	        ? "\tpublic function jsonSerialize(): mixed { "
	        : "\t#[\\ReturnTypeWillChange]\n\tpublic function jsonSerialize() { ");
}

/* One class's declaration as PHP source with the names' raw bytes, for `php` (gen_php.c). */
static void gen_class_source(const struct gen_class *k, uint32_t php, struct gen_buf *b)
{
	static const char *const vis[] = { "public", "protected", "private" };
	int mixed = gen_php_has(php, GEN_PHP_80_SYNTAX);
	if (k->type == GEN_CLASS_DYNAMIC)
		gen_buf_puts(b, "#[AllowDynamicProperties]\n");
	gen_buf_puts(b, "class ");
	gen_buf_puts(b, k->name);
	if (k->type >= GEN_CLASS_JSONSER)
		gen_buf_puts(b, " implements JsonSerializable");
	gen_buf_puts(b, " {\n");
	for (int i = 0; i < k->nprops; i++) {
		gen_buf_puts(b, "\t");
		gen_buf_puts(b, vis[k->props[i].visibility]);
		gen_buf_puts(b, k->props[i].typed && mixed ? " mixed $" : " $");
		gen_buf_put(b, k->props[i].name, k->props[i].len);
		gen_buf_puts(b, k->props[i].typed ? ";\n" : " = null;\n");
	}
	/* Sets private and protected properties too: it runs in the class scope. */
	if (k->type == GEN_CLASS_JSONSER_MUTATE) {
		/* A second argument, by reference, binds the first property to it. */
		gen_buf_puts(b, "\tpublic function __construct(array $v = [], &...$r) { ");
		gen_unset_typed(k, php, b);
		gen_buf_puts(b, "foreach ($v as $k => $x) $this->$k = $x; if ($r) $this->{");
		gen_render_string(b, k->props[0].name, k->props[0].len);
		gen_buf_puts(b, "} = &$r[0]; }\n");
		gen_jsonser_head(php, b);
		gen_buf_puts(b, "$p = &$this->{");
		gen_render_string(b, k->props[0].name, k->props[0].len);
		/* Enough appended that the list's storage must grow: moved away
		 * under an encoder still walking it, unless the encoder holds it. */
		gen_buf_puts(b,
		    "}; if (is_array($p) && $p) { unset($p[array_key_first($p)]); "
		    "for ($i = 0; $i < 16; $i++) $p[] = $i; } return is_array($p) ? count($p) : $p; }\n}\n");
		return;
	}
	gen_buf_puts(b, "\tpublic function __construct(array $v = []) { ");
	gen_unset_typed(k, php, b);
	gen_buf_puts(b, "foreach ($v as $k => $x) $this->$k = $x; }\n");
	if (k->type == GEN_CLASS_JSONSER || k->type == GEN_CLASS_JSONSER_DTOR) {
		gen_jsonser_head(php, b);
		gen_buf_puts(b,
		    k->type == GEN_CLASS_JSONSER_DTOR ? "$guard = new GenDtorThrow(); return $this->{"
		                                      : "return $this->{");
		gen_render_string(b, k->props[0].name, k->props[0].len);
		gen_buf_puts(b, "}; }\n");
	} else if (k->type == GEN_CLASS_JSONSER_NESTED) {
		/* A json_encode() inside the outer one: its own flags, its error
		 * code left behind for the outer call, its indentation.  Their
		 * flags: gen_nested_flags. */
		static const char *const call[GEN_NESTED_VARIANTS] = {
			"return json_encode($this->{%}); }\n",
			"return json_encode($this->{%}, JSON_PRETTY_PRINT); }\n",
			("return [json_encode($this->{%}, JSON_PRETTY_PRINT | JSON_PARTIAL_OUTPUT_ON_ERROR), "
			 "json_last_error(), $this->{%}]; }\n"),
		};
		gen_jsonser_head(php, b);
		for (const char *at = call[k->variant % GEN_NESTED_VARIANTS]; *at; at++) {
			if (*at == '%')
				gen_render_string(b, k->props[0].name, k->props[0].len);
			else
				gen_buf_put(b, at, 1);
		}
	} else if (k->type == GEN_CLASS_JSONSER_THIS) {
		gen_jsonser_head(php, b);
		gen_buf_puts(b, "return $this; }\n");
	} else if (k->type == GEN_CLASS_JSONSER_THROW) {
		gen_jsonser_head(php, b);
		gen_buf_puts(b, "throw new RuntimeException('");
		gen_buf_puts(b, k->name);
		gen_buf_puts(b, " refuses to be encoded'); }\n");
	}
	gen_buf_puts(b, "}\n");
}

/* The declarations for `php` (GEN_PHP_ALL: all of them), NUL-terminated; NULL out of memory. */
static char *gen_decl_make(uint32_t php, size_t *len, size_t *len_noenums)
{
	struct gen_buf b = { 0 };
	gen_buf_puts(&b, gen_dtor_decl);
	for (unsigned i = 0; i < GEN_NCLASSES; i++)
		gen_class_source(gen_class_at(i), php, &b);
	*len_noenums = b.len;
	for (unsigned i = 0; i < GEN_NENUMS && gen_php_has(php, GEN_PHP_ENUMS); i++)
		gen_buf_puts(&b, gen_enum_decls[i]);
	gen_buf_put(&b, "", 1);
	if (b.failed) {
		gen_buf_release(&b);
		return NULL;
	}
	*len = b.len - 1;
	return b.data;
}

static void gen_decl_init(void)
{
	size_t unused;
	gen_decl_src = gen_decl_make(GEN_PHP_ALL, &gen_decl_len, &gen_decl_len_noenums);
	gen_decl_src_74 = gen_decl_make(GEN_PHP_80_SYNTAX - 1, &gen_decl_len_74, &unused);
}

const char *gen_declarations(size_t *len)
{
	pthread_once(&gen_decl_once, gen_decl_init);
	*len = gen_decl_len;
	return gen_decl_src;
}

/* The enums come last: an 8.0 gets the classes alone; before 8.0, the classes the 7.4 way. */
const char *gen_declarations_php(uint32_t php, size_t *len)
{
	const char *src = gen_declarations(len);
	if (!gen_php_has(php, GEN_PHP_80_SYNTAX)) {
		*len = gen_decl_len_74;
		return gen_decl_src_74;
	}
	if (!gen_php_has(php, GEN_PHP_ENUMS))
		*len = gen_decl_len_noenums;
	return src;
}

/* ---- a case ---- */

/*
 * A case with references renders as a closure called at once: holes &$hN
 * in the literals, filled after the value is built ($hN = ...; in order),
 * and each container a back-reference names assigned to $tN where it is
 * written -- what PHP source needs to make a value that contains itself.
 */
struct gen_render_refs {
	uint32_t queue[GEN_MAX_NODES], head, tail;
	unsigned char target[GEN_MAX_NODES];
};

static void gen_render_node(
    const struct gen_case *c, uint32_t i, struct gen_buf *b, struct gen_render_refs *q);

/* The kinds of version 2 (gen_render_node's other cases). */
static int gen_render_new_kind(
    const struct gen_case *c, uint32_t i, struct gen_buf *b, struct gen_render_refs *q)
{
	const struct gen_node *n = &c->nodes[i];
	char num[64];
	if (n->kind == GEN_STRING && n->pad) {
		snprintf(num, sizeof(num), "str_repeat('x', %u)", (unsigned)n->n);
		gen_buf_puts(b, num);
		return 1;
	}
	if (n->kind == GEN_REF && n->cls == 2) {
		/* The same reference as an ancestor's: its variable, no fill of its own. */
		snprintf(num, sizeof(num), "&$h%u", (unsigned)n->v.i);
		gen_buf_puts(b, num);
		return 1;
	}
	if (n->kind == GEN_REF) {
		snprintf(num, sizeof(num), "&$h%u", (unsigned)i);
		gen_buf_puts(b, num);
		if (q != NULL && q->tail < GEN_MAX_NODES)
			q->queue[q->tail++] = i;
		return 1;
	}
	if (n->kind == GEN_BUILTIN) {
		static const char *const fmt[] = { NULL, "new SplFixedArray(%lld)",
			"new DateInterval('P%lldD')", "new DateTimeImmutable('@%lld')", "new WeakMap()" };
		if (n->cls >= 1 && n->cls <= 4) {
			snprintf(num, sizeof(num), fmt[n->cls], (long long)n->v.i);
			gen_buf_puts(b, num);
		} else {
			gen_buf_puts(b, "new ArrayObject(");
			gen_render_node(c, c->ents[n->first].value, b, q);
			gen_buf_puts(b, ")");
		}
		return 1;
	}
	if (q != NULL && q->target[i]) {
		snprintf(num, sizeof(num), "$t%u = ", (unsigned)i);
		gen_buf_puts(b, num);
	}
	return 0;
}

static void gen_render_node(
    const struct gen_case *c, uint32_t i, struct gen_buf *b, struct gen_render_refs *q)
{
	const struct gen_node *n = &c->nodes[i];
	char num[64];
	if (gen_render_new_kind(c, i, b, q))
		return;
	switch (n->kind) {
	case GEN_NULL:
		gen_buf_puts(b, "null");
		return;
	case GEN_FALSE:
		gen_buf_puts(b, "false");
		return;
	case GEN_TRUE:
		gen_buf_puts(b, "true");
		return;
	case GEN_INT:
		if (n->v.i == INT64_MIN)
			gen_buf_puts(b, "PHP_INT_MIN");
		else {
			snprintf(num, sizeof(num), "%lld", (long long)n->v.i);
			gen_buf_puts(b, num);
		}
		return;
	case GEN_FLOAT:
		gen_format_double(n->v.d, num, sizeof(num));
		gen_buf_puts(b, num);
		return;
	case GEN_STRING:
		gen_render_string(b, c->bytes + n->first, n->n);
		return;
	case GEN_ENUM:
		gen_buf_puts(b, gen_enum_name(n->cls));
		gen_buf_puts(b, "::");
		gen_buf_put(b, &"ABCD"[n->n], 1);
		return;
	case GEN_RESOURCE:
		gen_buf_puts(b, "fopen('php://memory', 'r')");
		return;
	case GEN_STDCLASS:
		if (n->n == 0) {
			gen_buf_puts(b, "new stdClass");
			return;
		}
		gen_buf_puts(b, "(object)");
		break;
	case GEN_OBJECT:
		gen_buf_puts(b, "new ");
		gen_buf_puts(b, gen_class_at(n->cls)->name);
		if (n->n == 0) {
			gen_buf_puts(b, "()");
			return;
		}
		gen_buf_puts(b, "(");
		break;
	default:
		break;
	}
	gen_buf_puts(b, "[");
	uint32_t bound = GEN_MAX_NODES; /* an object's property bound by its constructor's 2nd argument */
	for (uint32_t e = 0, put = 0; e < n->n; e++) {
		const struct gen_entry *en = &c->ents[n->first + e];
		if (n->kind == GEN_OBJECT && gen_class_at(n->cls)->type == GEN_CLASS_JSONSER_MUTATE &&
		    en->key_type == GEN_KEY_PROP && en->key_int == 0 && c->nodes[en->value].kind == GEN_REF &&
		    c->nodes[en->value].cls == 2) {
			bound = (uint32_t)c->nodes[en->value].v.i;
			continue;
		}
		if (put++ > 0)
			gen_buf_puts(b, ", ");
		if (en->key_type == GEN_KEY_INT) {
			if (en->key_int == INT64_MIN)
				gen_buf_puts(b, "PHP_INT_MIN");
			else {
				snprintf(num, sizeof(num), "%lld", (long long)en->key_int);
				gen_buf_puts(b, num);
			}
			gen_buf_puts(b, " => ");
		} else if (en->key_type == GEN_KEY_STR) {
			gen_render_string(b, c->bytes + en->key_off, en->key_len);
			gen_buf_puts(b, " => ");
		} else if (en->key_type == GEN_KEY_PROP) {
			const struct gen_prop *p = &gen_class_at(n->cls)->props[en->key_int];
			gen_render_string(b, p->name, p->len);
			gen_buf_puts(b, " => ");
		}
		gen_render_node(c, en->value, b, q);
	}
	if (bound != GEN_MAX_NODES) {
		snprintf(num, sizeof(num), "], $h%u)", (unsigned)bound);
		gen_buf_puts(b, num);
		return;
	}
	gen_buf_puts(b, n->kind == GEN_OBJECT ? "])" : "]");
}

void gen_flags_source(int64_t flags, char *buf, size_t size)
{
	size_t len = 0;
	if (size == 0)
		return;
	buf[0] = '\0';
	for (int f = 0; f < 23; f++) {
		if (!(flags & GEN_BIT(f)) || flags_name(1L << f) == NULL)
			continue;
		int w = snprintf(buf + len, size - len, "%s%s", len ? " | " : "", flags_name(1L << f));
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
	}
	if (len == 0)
		snprintf(buf, size, "0");
}

static int gen_render_expression(const struct gen_case *c, struct gen_buf *b);

/*
 * A sequence: the value in $v, each earlier call as a statement that
 * ignores what it returns or throws (gencore.c makes the same calls on the
 * same zval), and the value returned for the compared call.
 */
int gen_render_value(const struct gen_case *c, struct gen_buf *b)
{
	char flags[512], depth[32];
	if (c->npre == 0)
		return gen_render_expression(c, b);
	gen_buf_puts(b, "$v = ");
	gen_render_expression(c, b);
	gen_buf_puts(b, ";\n");
	for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE; k++) {
		gen_flags_source(c->pre_flags[k], flags, sizeof flags);
		snprintf(depth, sizeof depth, ", %lld", (long long)c->pre_depth[k]);
		gen_buf_puts(b, "try { json_encode($v, ");
		gen_buf_puts(b, flags);
		if (c->pre_depth[k] != 512)
			gen_buf_puts(b, depth);
		/* A catch without a variable is 8.0. */
		gen_buf_puts(b,
		    gen_php_has(c->php, GEN_PHP_80_SYNTAX) ? "); } catch (Throwable) {}\n"
		                                           : "); } catch (Throwable $ignored) {}\n");
	}
	gen_buf_puts(b, "return $v;");
	gen_buf_put(b, "", 0);
	return b->failed ? -1 : 0;
}

static int gen_render_expression(const struct gen_case *c, struct gen_buf *b)
{
	struct gen_render_refs *q;
	char num[64];
	if (c->nrefs == 0) {
		gen_render_node(c, c->root, b, NULL);
		gen_buf_put(b, "", 0);
		return b->failed ? -1 : 0;
	}
	q = calloc(1, sizeof(*q));
	if (q == NULL) {
		b->failed = 1;
		return -1;
	}
	for (uint32_t k = 0; k < c->nnodes; k++)
		if (c->nodes[k].kind == GEN_REF && c->nodes[k].cls == 1)
			q->target[c->nodes[k].v.i] = 1;
	gen_buf_puts(b, "(function () { $v = ");
	gen_render_node(c, c->root, b, q);
	gen_buf_puts(b, ";");
	while (q->head < q->tail) {
		uint32_t r = q->queue[q->head++];
		const struct gen_node *n = &c->nodes[r];
		snprintf(num, sizeof(num), " $h%u = ", (unsigned)r);
		gen_buf_puts(b, num);
		if (n->cls == 1) {
			snprintf(num, sizeof(num), "$t%u", (unsigned)n->v.i);
			gen_buf_puts(b, num);
		} else {
			gen_render_node(c, c->ents[n->first].value, b, q);
		}
		gen_buf_puts(b, ";");
	}
	gen_buf_puts(b, " return $v; })()");
	free(q);
	return b->failed ? -1 : 0;
}

/* Is this printable, valid UTF-8 without line separators (readable as source)? */
static int gen_readable(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = gen_utf8_len(u + i, n - i, &cp);
		if (len == 0 || gen_invisible(cp) || (cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7f)
			return 0;
		i += len;
	}
	return 1;
}

int gen_render_setup(const struct gen_case *c, struct gen_buf *b)
{
	gen_buf_put(b, "", 0);
	if (c->features & 1u << GEN_F_JSONSER_DTOR)
		gen_buf_puts(b, gen_dtor_decl);
	for (unsigned i = 0; i < GEN_NCLASSES_ALL; i++) {
		struct gen_buf one = { 0 };
		if (!(c->classes & 1ull << i))
			continue;
		gen_class_source(gen_class_at(i), c->php, &one);
		if (one.failed) {
			b->failed = 1;
		} else if (gen_readable(one.data, one.len)) {
			gen_buf_put(b, one.data, one.len);
		} else {
			/* Names with invalid UTF-8 can't be written in UTF-8 source:
			 * declare the class through eval() of an escaped string. */
			gen_buf_puts(b, "eval(");
			gen_render_string(b, one.data, one.len);
			gen_buf_puts(b, ");\n");
		}
		gen_buf_release(&one);
	}
	for (unsigned i = 0; i < GEN_NENUMS; i++)
		if (c->enums & 1u << i)
			gen_buf_puts(b, gen_enum_decls[i]);
	return b->failed ? -1 : 0;
}
