/*
 * Generated runs, the worker's side: turn the generator's plans (gen.c)
 * into zvals directly -- no PHP source is compiled per case -- call
 * json_encode on each, and answer with a compact digest per case, or with
 * one case in full.  Compiled into the per-build core with core.c and
 * request.c (the encoder call and the outcome fields it shares with core.c).
 *
 * A batch runs in one PHP request, not one request per case.  That is safe
 * because a generated case changes nothing that outlives it: the classes it
 * instantiates are declared once per request by this file (never by a
 * case), the values are built here and freed after the call (no globals,
 * no statics, no output; a value that contains itself is a cycle the
 * request's garbage collector frees), jsonSerialize() of the declared
 * classes only returns or throws (one's local throws from its
 * destructor), and the json globals a call
 * leaves behind (error code, encoder depth) are reset before every call.
 * A bailout (fatal error) ends the request and a fresh one is started
 * before the next case.  The request is ended after every message, so a
 * normal case (core.c) never sees the generated classes.
 */
#include <php.h>
#include <php_ini.h>
#include <php_main.h>
#include <php_memory_streams.h>
#include <zend_exceptions.h>
#include <ext/json/php_json.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "compat.h"
#if PHPCMP_HAVE_ENUMS
#include <zend_enum.h>
#endif
#include "gen.h"
#include "gencore.h"
#include "request.h"

#define GENCORE_MAX_FAILURE 4096
#define GENCORE_SAMPLE 16 /* time the phases of every 16th case */

struct gencore_class {
	zend_class_entry *ce;
	uint32_t offset[GEN_MAX_PROPS]; /* each property's slot */
};

/* What one call produced (zend strings owned until gencore_outcome_release). */
struct gencore_outcome {
	int status;
	zval output;
	long error_code;
	zend_string *error_msg;
	char exc_class[256];
	zend_string *exc_msg;
	char failure[GENCORE_MAX_FAILURE];
};

/* Declared in the current request (NULL: declare before the next case). */
static struct gencore_class gencore_classes[GEN_NCLASSES];
static zend_object *gencore_enum_cases[GEN_NENUMS][4];
static zval gencore_resource;
static int gencore_declared;

static zend_function *gencore_fn_encode, *gencore_fn_last_error_msg;
static struct gen_case gencore_case; /* ~45 KB: not on the stack */

/* Version 2's kinds: each container built (a back-reference's target), the
 * back-references to fill once the value is whole, the built-in classes. */
static zend_refcounted *gencore_built[GEN_MAX_NODES];
/* Each GEN_REF node's reference while the value is built (a cls 2 node shares it). */
static zend_reference *gencore_refs[GEN_MAX_NODES];
static struct {
	zend_reference *ref;
	uint32_t target;
} gencore_fixups[GEN_MAX_NODES];
static uint32_t gencore_nfixups;
static zend_class_entry *gencore_ce_builtin[5]; /* gen.h GEN_BUILTIN's cls */
static const char *const gencore_builtin_names[5] = { "arrayobject", "splfixedarray", "dateinterval",
	"datetimeimmutable", "weakmap" };
static struct proto_page *gencore_page;
static unsigned char *gencore_records;
static size_t gencore_records_cap;

/*
 * Fault injection for phpcmp's own tests (tests/integration/generated.test.mjs):
 * `--ini NAME:phpcmp.gen_crash_at=I` makes build NAME's worker die of SIGSEGV
 * on generated index I (any seed), phpcmp.gen_hang_at=I makes it hang there.
 * A real build never sets these ini names.
 */
static zend_long gencore_crash_at = -1, gencore_hang_at = -1;
static int gencore_faults_read;

/* Like the real thing, and with no system call a sandbox could refuse. */
static void gencore_fault(uint64_t index)
{
	static volatile int *volatile nowhere;
	volatile int spin = 1;
	if ((zend_long)index == gencore_crash_at)
		*nowhere = 1; /* SIGSEGV */
	if ((zend_long)index == gencore_hang_at)
		while (spin)
			; /* runs until the daemon kills it */
}

/* Diagnostics raised during one case, for the detailed answer. */
static void (*gencore_error_cb_prev)(int, phpcmp_error_file, const uint32_t, zend_string *);
static char *gencore_failure_sink;

enum { T_TOTAL, T_DECLARE, T_GENERATE, T_BUILD, T_ENCODE, T_DIGEST, T_COUNT };

static uint64_t gencore_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Keep the first fatal error's text; every diagnostic still goes to core.c. */
static void gencore_error_cb(int type, phpcmp_error_file file, const uint32_t line, zend_string *message)
{
	if (gencore_failure_sink != NULL && gencore_failure_sink[0] == '\0' && (type & REQUEST_FATAL_ERRORS))
		snprintf(gencore_failure_sink, GENCORE_MAX_FAILURE, "PHP Fatal error: %s in %s on line %u\n",
		    ZSTR_VAL(message), file ? PHPCMP_ERROR_FILE_CSTR(file) : "unknown", line);
	gencore_error_cb_prev(type, file, line, message);
}

static void gencore_request_restart(void)
{
	if (gencore_declared)
		zval_ptr_dtor(&gencore_resource);
	gencore_declared = 0;
	php_request_shutdown(NULL);
	request_encoder_forget();
	php_request_startup();
	request_ready();
}

/* Declare the generator's classes and enums in this request. */
static int gencore_declare(char *err, size_t errsize)
{
	size_t len;
	/* What this PHP compiles: before 8.1, no enums (gen_declarations_php). */
	const char *src = gen_declarations_php(PHP_VERSION_ID, &len);
	volatile int ok = 0;

	if (gencore_declared)
		return 0;
	if (src == NULL) {
		snprintf(err, errsize, "generator: out of memory");
		return -1;
	}
	zend_try
	{
		zend_string *s = zend_string_init(src, len, 0);
		zend_op_array *op = phpcmp_compile_string(s, "phpcmp generated classes");
		zend_string_release(s);
		if (op != NULL) {
			zval ret;
			ZVAL_UNDEF(&ret);
			zend_execute(op, &ret);
			destroy_op_array(op);
			efree(op);
			zval_ptr_dtor(&ret);
			ok = EG(exception) == NULL;
		}
	}
	zend_catch
	{
		ok = 0;
	}
	zend_end_try();
	if (!ok) {
		if (EG(exception))
			zend_clear_exception();
		snprintf(err, errsize, "generator: the class declarations do not compile");
		gencore_request_restart();
		return -1;
	}
	for (unsigned i = 0; i < GEN_NCLASSES; i++) {
		const struct gen_class *k = gen_class_at(i);
		zend_class_entry *ce = zend_hash_str_find_ptr_lc(EG(class_table), k->name, strlen(k->name));
		if (ce == NULL) {
			snprintf(err, errsize, "generator: class %s missing", k->name);
			return -1;
		}
		gencore_classes[i].ce = ce;
		for (unsigned p = 0; p < k->nprops; p++) {
			zend_property_info *pi = zend_hash_str_find_ptr(
			    &ce->properties_info, k->props[p].name, k->props[p].len);
			if (pi == NULL || (pi->flags & ZEND_ACC_STATIC)) {
				snprintf(err, errsize, "generator: %s has no property %u", k->name, p);
				return -1;
			}
			gencore_classes[i].offset[p] = pi->offset;
		}
	}
#if PHPCMP_HAVE_ENUMS
	for (unsigned i = 0; i < GEN_NENUMS; i++) {
		const char *name = gen_enum_name(i);
		zend_class_entry *ce = zend_hash_str_find_ptr_lc(EG(class_table), name, strlen(name));
		if (ce == NULL) {
			snprintf(err, errsize, "generator: enum %s missing", name);
			return -1;
		}
		for (unsigned k = 0; k < gen_enum_cases(i); k++) {
			char cname[2] = { (char)('A' + k), '\0' };
			gencore_enum_cases[i][k] = zend_enum_get_case_cstr(ce, cname);
		}
	}
#endif
	/* json_encode's caller (request.c), in the same request. */
	if (request_encoder_declare() < 0) {
		if (EG(exception))
			zend_clear_exception();
		snprintf(err, errsize, "generator: cannot declare the encoder function");
		gencore_request_restart();
		return -1;
	}
	for (unsigned i = 0; i < 5; i++) {
		const char *name = gencore_builtin_names[i];
		gencore_ce_builtin[i] = zend_hash_str_find_ptr(EG(class_table), name, strlen(name));
		if (gencore_ce_builtin[i] == NULL) {
			snprintf(err, errsize, "generator: this libphp has no class %s", name);
			return -1;
		}
	}
	php_stream *st = php_stream_memory_create(TEMP_STREAM_DEFAULT);
	if (st == NULL) {
		snprintf(err, errsize, "generator: cannot open php://memory");
		return -1;
	}
	php_stream_to_zval(st, &gencore_resource);
	gencore_declared = 1;
	return 0;
}

static void gencore_build(const struct gen_case *c, uint32_t i, zval *zv);

/*
 * A reference (&$hN): to its own value, or -- a back-reference -- to a
 * container around it, filled by gencore_fixup once the whole value is
 * built, as the rendered source assigns $hN = $tM after the literal.
 */
static void gencore_build_ref(const struct gen_case *c, const struct gen_node *n, zval *zv)
{
	zval inner;
	if (n->cls == 2) {
		/* An ancestor's own reference, made before its value (below). */
		zend_reference *ref = (uint64_t)n->v.i < GEN_MAX_NODES ? gencore_refs[n->v.i] : NULL;
		if (ref == NULL) {
			ZVAL_NULL(zv);
			return;
		}
		GC_ADDREF(ref);
		ZVAL_REF(zv, ref);
		return;
	}
	if (n->cls == 1) {
		ZVAL_NULL(&inner);
		ZVAL_NEW_REF(zv, &inner);
		if (gencore_nfixups < GEN_MAX_NODES) {
			/* Held until the fix-up: a later duplicate key may drop it. */
			GC_ADDREF(Z_REF_P(zv));
			gencore_fixups[gencore_nfixups].ref = Z_REF_P(zv);
			gencore_fixups[gencore_nfixups++].target = (uint32_t)n->v.i;
		}
		return;
	}
	/* The reference first, so that a value inside may be bound to it too. */
	ZVAL_NULL(&inner);
	ZVAL_NEW_REF(zv, &inner);
	gencore_refs[n - c->nodes] = Z_REF_P(zv);
	gencore_build(c, c->ents[n->first].value, &inner);
	ZVAL_COPY_VALUE(Z_REFVAL_P(zv), &inner);
}

/* new ArrayObject(array), new SplFixedArray(n)...: through their constructors. */
static void gencore_build_builtin(const struct gen_case *c, const struct gen_node *n, zval *zv)
{
	zval arg;
	char s[32];
	zend_class_entry *ce = gencore_ce_builtin[n->cls < 5 ? n->cls : 4];
	object_init_ex(zv, ce);
	if (n->cls == 4 || ce->constructor == NULL)
		return; /* WeakMap */
	if (n->cls == 0) {
		gencore_build(c, c->ents[n->first].value, &arg);
	} else if (n->cls == 1) {
		ZVAL_LONG(&arg, (zend_long)n->v.i);
	} else {
		snprintf(s, sizeof(s), n->cls == 2 ? "P%lldD" : "@%lld", (long long)n->v.i);
		ZVAL_STRING(&arg, s);
	}
	zend_call_known_instance_method_with_1_params(ce->constructor, Z_OBJ_P(zv), NULL, &arg);
	zval_ptr_dtor(&arg);
}

/* Point each back-reference at its container (if a duplicate key has not dropped it). */
static void gencore_fixup(void)
{
	for (uint32_t k = 0; k < gencore_nfixups; k++) {
		zend_reference *ref = gencore_fixups[k].ref;
		zval tmp;
		if (GC_REFCOUNT(ref) > 1) {
			/* Still in the value, so is every container around it. */
			zend_refcounted *t = gencore_built[gencore_fixups[k].target];
			GC_ADDREF(t);
			if (GC_TYPE(t) == IS_ARRAY)
				ZVAL_ARR(&ref->val, (zend_array *)t);
			else
				ZVAL_OBJ(&ref->val, (zend_object *)t);
		}
		ZVAL_REF(&tmp, ref);
		zval_ptr_dtor(&tmp);
	}
	gencore_nfixups = 0;
}

/* The plan's node i as a zval: what the rendered PHP source would build. */
/* A list or a map literal (node i). */
static void gencore_build_array(const struct gen_case *c, uint32_t i, zval *zv)
{
	const struct gen_node *n = &c->nodes[i];
	const struct gen_entry *ents = &c->ents[n->first];
	zval child;

	/* [] in PHP source is the immutable empty array. */
	if (n->n == 0) {
		ZVAL_EMPTY_ARRAY(zv);
		return;
	}
	array_init_size(zv, n->n);
	gencore_built[i] = Z_COUNTED_P(zv);
	for (uint32_t e = 0; e < n->n; e++) {
		gencore_build(c, ents[e].value, &child);
		if (n->kind == GEN_LIST)
			zend_hash_next_index_insert_new(Z_ARRVAL_P(zv), &child);
		/* Numeric strings become int keys, as in an array literal. */
		else if (ents[e].key_type == GEN_KEY_INT)
			zend_hash_index_update(Z_ARRVAL_P(zv), (zend_ulong)ents[e].key_int, &child);
		else
			zend_symtable_str_update(
			    Z_ARRVAL_P(zv), c->bytes + ents[e].key_off, ents[e].key_len, &child);
	}
}

/* new GenCn([...]) (node i): the constructor assigns each property in the
 * class scope; here the slots are written directly. */
static void gencore_build_object(const struct gen_case *c, uint32_t i, zval *zv)
{
	const struct gen_node *n = &c->nodes[i];
	const struct gen_entry *ents = &c->ents[n->first];
	const struct gencore_class *k = &gencore_classes[n->cls];
	zend_object *obj;
	zval child;

	object_init_ex(zv, k->ce);
	obj = Z_OBJ_P(zv);
	gencore_built[i] = Z_COUNTED_P(zv);
	for (uint32_t e = 0; e < n->n; e++) {
		gencore_build(c, ents[e].value, &child);
		if (ents[e].key_type == GEN_KEY_PROP) {
			zval *slot = OBJ_PROP(obj, k->offset[ents[e].key_int]);
			zval_ptr_dtor(slot);
			ZVAL_COPY_VALUE(slot, &child);
			Z_PROP_FLAG_P(slot) &= ~IS_PROP_UNINIT;
		} else {
			/* A dynamic property (#[AllowDynamicProperties]). */
			zend_hash_str_update(zend_std_get_properties(obj), c->bytes + ents[e].key_off,
			    ents[e].key_len, &child);
		}
	}
}

static void gencore_build(const struct gen_case *c, uint32_t i, zval *zv)
{
	const struct gen_node *n = &c->nodes[i];
	const struct gen_entry *ents = &c->ents[n->first];
	zval child;

	switch (n->kind) {
	case GEN_NULL:
		ZVAL_NULL(zv);
		return;
	case GEN_FALSE:
		ZVAL_FALSE(zv);
		return;
	case GEN_TRUE:
		ZVAL_TRUE(zv);
		return;
	case GEN_INT:
		ZVAL_LONG(zv, (zend_long)n->v.i);
		return;
	case GEN_FLOAT:
		ZVAL_DOUBLE(zv, n->v.d);
		return;
	case GEN_STRING:
		ZVAL_STRINGL_FAST(zv, c->bytes + n->first, n->n);
		return;
	case GEN_ENUM:
		/* Never made for a PHP without enums (gencore_php); NULL all the same. */
		if (gencore_enum_cases[n->cls][n->n] == NULL)
			ZVAL_NULL(zv);
		else
			ZVAL_OBJ_COPY(zv, gencore_enum_cases[n->cls][n->n]);
		return;
	case GEN_RESOURCE:
		ZVAL_COPY(zv, &gencore_resource);
		return;
	case GEN_REF:
		gencore_build_ref(c, n, zv);
		return;
	case GEN_BUILTIN:
		gencore_build_builtin(c, n, zv);
		return;
	case GEN_LIST:
	case GEN_MAP:
		gencore_build_array(c, i, zv);
		return;
	case GEN_STDCLASS: {
		/* (object)[...]: every key a property name, numeric or not. */
		object_init(zv);
		gencore_built[i] = Z_COUNTED_P(zv);
		if (n->n == 0)
			return;
		HashTable *props = zend_std_get_properties(Z_OBJ_P(zv));
		for (uint32_t e = 0; e < n->n; e++) {
			gencore_build(c, ents[e].value, &child);
			zend_hash_str_update(props, c->bytes + ents[e].key_off, ents[e].key_len, &child);
		}
		return;
	}
	case GEN_OBJECT:
		gencore_build_object(c, i, zv);
		return;
	default:
		ZVAL_NULL(zv);
		return;
	}
}

static void gencore_take_exception(struct gencore_outcome *o)
{
	zend_object *ex = EG(exception);
	zval rv, obj, *msg;
	if (zend_is_unwind_exit(ex)) {
		zend_clear_exception();
		o->status = PROTO_STATUS_ERROR;
		snprintf(o->failure, sizeof(o->failure), "exit() called in json_encode\n");
		return;
	}
	ZVAL_OBJ(&obj, ex);
	msg = zend_read_property(ex->ce, Z_OBJ(obj), "message", sizeof("message") - 1, 1, &rv);
	snprintf(o->exc_class, sizeof(o->exc_class), "%s", ZSTR_VAL(ex->ce->name));
	o->exc_msg = msg && Z_TYPE_P(msg) == IS_STRING ? zend_string_copy(Z_STR_P(msg)) : ZSTR_EMPTY_ALLOC();
	zend_clear_exception();
}

static void gencore_outcome_release(struct gencore_outcome *o)
{
	zval_ptr_dtor(&o->output);
	ZVAL_UNDEF(&o->output);
	if (o->error_msg)
		zend_string_release(o->error_msg);
	if (o->exc_msg)
		zend_string_release(o->exc_msg);
	o->error_msg = o->exc_msg = NULL;
}

/*
 * One json_encode call on the case's value.  On a bailout the outcome says
 * so and the request is restarted (its memory is gone with it).
 * times[] (may be NULL) gets the phases' nanoseconds, less a clock read each.
 */
static void gencore_encode(
    const struct gen_case *c, struct gencore_outcome *o, uint64_t *times, uint64_t tick)
{
	volatile int bailed = 0;
	volatile uint64_t t0 = times ? gencore_now_ns() : 0, t1 = 0;

	gencore_fault(c->index);
	memset(o, 0, offsetof(struct gencore_outcome, failure));
	o->failure[0] = '\0';
	ZVAL_UNDEF(&o->output);
	gencore_failure_sink = o->failure;
	zend_try
	{
		zval args[1], msg;
		gencore_nfixups = 0;
		if (c->nrefs > 0)
			memset(gencore_refs, 0, sizeof gencore_refs);
		gencore_build(c, c->root, &args[0]);
		gencore_fixup();
		if (times)
			t1 = gencore_now_ns();
		/* What a fresh request would start with. */
		JSON_G(error_code) = PHP_JSON_ERROR_NONE;
		JSON_G(encoder_depth) = 0;
		/* A sequence's earlier calls, on the same zval, each one's result
		 * and exception dropped (the rendered case's try/catch): what they
		 * leave in the value and in JSON_G carries over to the last. */
		int exited = 0;
		for (uint32_t k = 0; k < c->npre && k < GEN_MAX_PRE && !exited; k++) {
			zval dropped;
			request_encode(
			    &args[0], (zend_long)c->pre_flags[k], (zend_long)c->pre_depth[k], &dropped);
			zval_ptr_dtor(&dropped);
			if (EG(exception) && zend_is_unwind_exit(EG(exception)))
				exited = 1;
			else if (EG(exception))
				zend_clear_exception();
		}
		if (!exited)
			request_encode(&args[0], (zend_long)c->flags, (zend_long)c->depth, &o->output);
		o->error_code = JSON_G(error_code);
		if (EG(exception))
			gencore_take_exception(o);
		request_last_error_msg(&msg);
		if (Z_TYPE(msg) == IS_STRING)
			o->error_msg = zend_string_copy(Z_STR(msg));
		zval_ptr_dtor(&msg);
		zval_ptr_dtor(&args[0]);
	}
	zend_catch
	{
		bailed = 1;
	}
	zend_end_try();
	gencore_failure_sink = NULL;
	if (bailed) {
		/* Whatever o held belonged to the request that is gone. */
		ZVAL_UNDEF(&o->output);
		o->error_msg = o->exc_msg = NULL;
		o->exc_class[0] = '\0';
		o->error_code = 0;
		o->status = PROTO_STATUS_ERROR;
		if (o->failure[0] == '\0')
			snprintf(o->failure, sizeof(o->failure), "PHP bailed out\n");
		gencore_request_restart();
	}
	if (times) {
		uint64_t t2 = gencore_now_ns();
		times[T_BUILD] += (t1 ? t1 : t2) - t0 - tick;
		times[T_ENCODE] += t1 ? t2 - t1 - tick : 0;
	}
}

/* The verdict's fields, as the daemon hashes a reference runtime's (gen_digest.c). */
static void gencore_result_hash(const struct gencore_outcome *o, struct gen_digest *d)
{
	struct gen_outcome g = {
		.status = o->status,
		.output = Z_TYPE(o->output) == IS_STRING ? Z_STRVAL(o->output) : NULL,
		.output_len = Z_TYPE(o->output) == IS_STRING ? Z_STRLEN(o->output) : 0,
		.error_code = o->error_code,
		.error_msg = o->error_msg ? ZSTR_VAL(o->error_msg) : NULL,
		.error_msg_len = o->error_msg ? ZSTR_LEN(o->error_msg) : 0,
		.exc_class = o->exc_class,
		.exc_msg = o->exc_msg ? ZSTR_VAL(o->exc_msg) : NULL,
		.exc_msg_len = o->exc_msg ? ZSTR_LEN(o->exc_msg) : 0,
	};
	gen_outcome_digest(&g, d);
}

static void gencore_fail(struct proto_buf *out, const char *msg)
{
	proto_buf_release(out);
	proto_buf_add_str(out, TAG_MESSAGE, msg);
}

static int gencore_lookup(void)
{
	if (gencore_fn_encode == NULL) {
		gencore_fn_encode = zend_hash_str_find_ptr(
		    CG(function_table), "json_encode", sizeof("json_encode") - 1);
		gencore_fn_last_error_msg = zend_hash_str_find_ptr(
		    CG(function_table), "json_last_error_msg", sizeof("json_last_error_msg") - 1);
	}
	return gencore_fn_encode != NULL && gencore_fn_last_error_msg != NULL ? 0 : -1;
}

static void gencore_put_u64s(struct proto_buf *out, uint16_t tag, const uint64_t *v, size_t n)
{
	unsigned char buf[8 * (GEN_COUNTERS + T_COUNT)];
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			buf[8 * i + b] = (unsigned char)(v[i] >> (8 * b));
	proto_buf_add(out, tag, buf, 8 * n);
}

void gencore_prefork(void)
{
	char err[256];
	if (gencore_declare(err, sizeof(err)) < 0)
		gencore_request_restart(); /* a clean request: the first batch says why */
}

void gencore_leave(void)
{
	if (gencore_declared)
		gencore_request_restart();
}

void gencore_set_page(struct proto_page *page)
{
	gencore_page = page != NULL && page->magic == PROTO_PAGE_MAGIC ? page : NULL;
}

/*
 * The PHP the request's cases are made for (TAG_GEN_PHP, the run's oldest
 * build; absent: every construct), or -1 when this PHP cannot compile
 * them (a daemon that did not say the run has an older build).
 */
static int64_t gencore_php(const struct proto_msg *req, char *err, size_t errsize)
{
	uint32_t php = gen_php_floor((uint32_t)proto_get_int(req, TAG_GEN_PHP, GEN_PHP_ALL));
	if (gen_php_floor(PHP_VERSION_ID) == GEN_PHP_ALL || (php != GEN_PHP_ALL && php <= PHP_VERSION_ID))
		return php;
	gen_php_refusal(php, PHP_VERSION_ID, PHP_VERSION, err, errsize);
	return -1;
}

/* PROTO_GEN_BATCH: digests of cases start .. start+count-1. */
static int gencore_batch(const struct proto_msg *req, struct proto_buf *out)
{
	uint64_t seed = (uint64_t)proto_get_int(req, TAG_GEN_SEED, 0);
	int64_t php, start = proto_get_int(req, TAG_GEN_START, -1);
	int64_t count = proto_get_int(req, TAG_GEN_COUNT, 0);
	uint64_t local_counters[GEN_COUNTERS] = { 0 }, times[T_COUNT] = { 0 }, t, *counters = local_counters;
	struct proto_page *pg = gencore_page;
	unsigned char *records;
	struct gencore_outcome o;
	char err[256];

	if (start < 0 || count < 1 || count > GENCORE_MAX_BATCH) {
		gencore_fail(out, "generator: bad batch range");
		return PROTO_FAIL;
	}
	if (gencore_records_cap < (size_t)count * GEN_DIGEST_SIZE) {
		unsigned char *p = realloc(gencore_records, (size_t)count * GEN_DIGEST_SIZE);
		if (p == NULL) {
			gencore_fail(out, "generator: out of memory");
			return PROTO_FAIL;
		}
		gencore_records = p;
		gencore_records_cap = (size_t)count * GEN_DIGEST_SIZE;
	}
	records = gencore_records;
	/* With a progress page, each case's digest and the counters are
	 * written there as the batch goes: a crash leaves them behind. */
	if (pg != NULL && count <= PROTO_PAGE_RECORDS && GEN_COUNTERS <= PROTO_PAGE_COUNTERS) {
		memset(pg->counters, 0, sizeof(uint64_t) * GEN_COUNTERS);
		counters = pg->counters;
		records = &pg->records[0][0];
		pg->done = 0;
		pg->nmemory_errors = 0;
		pg->current = start;
		pg->batch_start = start;
	} else {
		pg = NULL;
	}
	/* What reading the clock costs, taken out of each timed phase. */
	uint64_t tick = UINT64_MAX;
	for (int k = 0; k < 8; k++) {
		uint64_t a = gencore_now_ns(), b = gencore_now_ns();
		if (b - a < tick)
			tick = b - a;
	}
	times[T_TOTAL] = gencore_now_ns();
	if ((php = gencore_php(req, err, sizeof(err))) < 0 || gencore_declare(err, sizeof(err)) < 0) {
		gencore_fail(out, err);
		return PROTO_FAIL;
	}
	times[T_DECLARE] = gencore_now_ns() - times[T_TOTAL];
	if (pg != NULL)
		pg->declared_ms = clock_ms();
	for (int64_t i = 0; i < count; i++) {
		struct gen_digest d;
		/* Every 16th case timed phase by phase; scaled up below. */
		int sampled = i % GENCORE_SAMPLE == 0;
		uint64_t t0 = sampled ? gencore_now_ns() : 0;
		if (pg != NULL)
			pg->current = start + i;
		gen_case_make_php(&gencore_case, seed, (uint64_t)(start + i), (uint32_t)php);
		gen_count(&gencore_case, counters);
		d.plan_hash = gen_case_hash(&gencore_case);
		d.flags = (uint32_t)gencore_case.flags;
		d.depth = (uint32_t)gencore_case.depth;
		if (sampled)
			times[T_GENERATE] += gencore_now_ns() - t0 - tick;
		if (!gencore_declared && gencore_declare(err, sizeof(err)) < 0) {
			gencore_fail(out, err);
			return PROTO_FAIL;
		}
		gencore_encode(&gencore_case, &o, sampled ? times : NULL, tick);
		t = sampled ? gencore_now_ns() : 0;
		gencore_result_hash(&o, &d);
		gencore_outcome_release(&o);
		gen_digest_pack(&d, records + (size_t)i * GEN_DIGEST_SIZE);
		if (pg != NULL)
			pg->done = i + 1;
		if (sampled)
			times[T_DIGEST] += gencore_now_ns() - t - tick;
	}
	times[T_GENERATE] *= GENCORE_SAMPLE;
	times[T_BUILD] *= GENCORE_SAMPLE;
	times[T_ENCODE] *= GENCORE_SAMPLE;
	times[T_DIGEST] *= GENCORE_SAMPLE;
	gencore_request_restart();
	times[T_TOTAL] = gencore_now_ns() - times[T_TOTAL];

	proto_buf_add_int(out, TAG_GEN_VERSION, GEN_VERSION);
	proto_buf_add_int(out, TAG_GEN_START, start);
	proto_buf_add_int(out, TAG_GEN_COUNT, count);
	proto_buf_add(out, TAG_GEN_RECORDS, records, (size_t)count * GEN_DIGEST_SIZE);
	if (pg != NULL)
		pg->batch_start = -1;
	gencore_put_u64s(out, TAG_GEN_COVERAGE, counters, GEN_COUNTERS);
	gencore_put_u64s(out, TAG_GEN_TIMES, times, T_COUNT);
	return PROTO_GEN_DIGESTS;
}

/* PROTO_GEN_DETAIL: one case in full (PROTO_RESULT fields) with its PHP source. */
static int gencore_detail(const struct proto_msg *req, struct proto_buf *out)
{
	uint64_t seed = (uint64_t)proto_get_int(req, TAG_GEN_SEED, 0);
	int64_t php, index = proto_get_int(req, TAG_GEN_START, -1);
	struct gen_buf code = { 0 }, setup = { 0 };
	struct gencore_outcome o;
	struct gen_digest d;
	char err[256];

	if (index < 0) {
		gencore_fail(out, "generator: bad index");
		return PROTO_FAIL;
	}
	if ((php = gencore_php(req, err, sizeof(err))) < 0 || gencore_declare(err, sizeof(err)) < 0) {
		gencore_fail(out, err);
		return PROTO_FAIL;
	}
	gen_case_make_php(&gencore_case, seed, (uint64_t)index, (uint32_t)php);
	gencore_encode(&gencore_case, &o, NULL, 0);
	gencore_result_hash(&o, &d);

	/* An exception's message is always sent here, empty when it had none. */
	request_put_outcome(out, o.status, &o.output, o.error_code, o.error_msg, o.exc_class,
	    o.exc_msg ? o.exc_msg : ZSTR_EMPTY_ALLOC());
	proto_buf_add(out, TAG_PRINTED, "", 0);
	proto_buf_add(out, TAG_WARNINGS, "", 0);
	if (o.status != PROTO_STATUS_OK)
		proto_buf_add_str(out, TAG_FAILURE, o.failure);
	gencore_outcome_release(&o);

	gen_render_value(&gencore_case, &code);
	gen_render_setup(&gencore_case, &setup);
	if (code.failed || setup.failed) {
		gen_buf_release(&code);
		gen_buf_release(&setup);
		gencore_request_restart();
		gencore_fail(out, "generator: out of memory rendering the case");
		return PROTO_FAIL;
	}
	proto_buf_add(out, TAG_GEN_CODE, code.data, code.len);
	proto_buf_add(out, TAG_GEN_SETUP, setup.data ? setup.data : "", setup.len);
	proto_buf_add_int(out, TAG_FLAGS, gencore_case.flags);
	proto_buf_add_int(out, TAG_DEPTH, gencore_case.depth);
	proto_buf_add_int(out, TAG_GEN_PLAN_HASH, (int64_t)gen_case_hash(&gencore_case));
	proto_buf_add_int(out, TAG_GEN_RESULT_HASH, (int64_t)d.result_hash);
	gen_buf_release(&code);
	gen_buf_release(&setup);
	gencore_request_restart();
	return PROTO_RESULT;
}

int gencore_handle(const struct proto_msg *req, struct proto_buf *out)
{
	int type;

	if (proto_get_int(req, TAG_GEN_VERSION, -1) != GEN_VERSION) {
		char msg[96];
		snprintf(
		    msg, sizeof(msg), "generator: this worker has generator version %d only", GEN_VERSION);
		gencore_fail(out, msg);
		return PROTO_FAIL;
	}
	if (gencore_lookup() < 0) {
		gencore_fail(out, "this libphp has no json_encode");
		return PROTO_FAIL;
	}
	if (!gencore_faults_read) {
		gencore_faults_read = 1;
		if (cfg_get_long("phpcmp.gen_crash_at", &gencore_crash_at) != SUCCESS)
			gencore_crash_at = -1;
		if (cfg_get_long("phpcmp.gen_hang_at", &gencore_hang_at) != SUCCESS)
			gencore_hang_at = -1;
	}
	gencore_error_cb_prev = zend_error_cb;
	zend_error_cb = gencore_error_cb;
	if (req->type == PROTO_GEN_BATCH)
		type = gencore_batch(req, out);
	else
		type = gencore_detail(req, out);
	zend_error_cb = gencore_error_cb_prev;
	/* Nothing of this request may reach the next message. */
	if (gencore_declared)
		gencore_request_restart();
	return type;
}
