/* Unit tests for server/daemon/model/bucket.c (the bucket key of a mismatch), printing TAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "tap.h"

static void is_str(const char *got, const char *want, const char *what)
{
	ok(got != NULL && strcmp(got, want) == 0, what);
	if (got == NULL || strcmp(got, want) != 0)
		printf("#   got:  %s\n#   want: %s\n", got != NULL ? got : "(null)", want);
}

/* Shapes of the first difference between two outputs; the flags involved. */
static void shape(const char *a, const char *b, char *sa, char *sb, long *mask)
{
	*mask = 0;
	bucket_shape(a, strlen(a), b, strlen(b), sa, sb, BUCKET_SHAPE_MAX + 2, mask);
}

static void set_ok(struct result *r, const char *out)
{
	result_init(r);
	r->status = STATUS_OK;
	if (out != NULL)
		bytes_set(&r->output, out, strlen(out));
	else
		r->output_is_false = 1;
	r->error_msg = strdup("No error");
}

/* The key of a pair of outputs, both ok. */
static char *key_of(long flags, const char *a, const char *b)
{
	struct result res[MAX_BUILDS];
	char *k;

	set_ok(&res[ROLE_BASE], a);
	set_ok(&res[ROLE_HEAD], b);
	k = bucket_key(flags, res, verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]));
	result_release(&res[ROLE_BASE]);
	result_release(&res[ROLE_HEAD]);
	return k;
}

#define F_SLASHES (1L << 6)
#define F_PRETTY (1L << 7)
#define F_UNICODE (1L << 8)
#define F_THROW (1L << 22)

int main(void)
{
	char sa[BUCKET_SHAPE_MAX + 2], sb[BUCKET_SHAPE_MAX + 2], *k1, *k2;
	struct result res[MAX_BUILDS];
	long mask;

	/* Shapes */
	shape("\"8.2.32\"", "\"8.2.36\"", sa, sb, &mask);
	is_str(sa, "0", "a differing digit: base shape 0");
	is_str(sb, "0", "a differing digit: head shape 0");
	ok(mask == ((1L << 5) | (1L << 10)), "digits involve NUMERIC_CHECK and PRESERVE_ZERO_FRACTION only");

	shape("\"a\\/b\"", "\"a/b\"", sa, sb, &mask);
	is_str(sa, "\\/", "an escaped slash on base is the whole escape \\/");
	is_str(sb, "/", "the raw slash on head");
	ok((mask & F_SLASHES) != 0, "a slash involves JSON_UNESCAPED_SLASHES");

	shape("[\"x\\/y\",\"x\\/y\",\"x\\/y\"]", "[\"x/y\",\"x/y\",\"x/y\"]", sa, sb, &mask);
	is_str(sa, "\\/", "only the first difference makes the shape (base)");
	is_str(sb, "/", "only the first difference makes the shape (head)");

	shape("[\"ete\",\"ete\"]", "[\"\\u00e9t\\u00e9\",\"\\u00e9t\\u00e9\"]", sa, sb, &mask);
	is_str(sa, "a", "edits close together: only the first one (base e)");
	is_str(sb, "\\u", "... (head \\u00e9)");

	/* Issue 46: the head inserts digits after 0.1 (serialize_precision=17); a
	 * digit also follows ',"= ":{"' on the base, fewer tokens away. */
	shape("{\"k\":0.1,\"= \":{\"0\":1}}", "{\"k\":0.10000000000000001,\"= \":{\"0\":1}}", sa, sb, &mask);
	is_str(sa, "", "inserted digits: nothing on base ...");
	is_str(sb, "0", "... digits on head, not the base's ',\"= \":{\"' deleted");

	shape("\"\\u00e9\"", "\"\xc3\xa9\"", sa, sb, &mask);
	is_str(sa, "\\u", "a \\u escape on base");
	is_str(sb, "U", "a raw UTF-8 character on head");
	ok((mask & F_UNICODE) != 0, "involves JSON_UNESCAPED_UNICODE");

	shape("\"\\u2028\"", "\"\\u2029\"", sa, sb, &mask);
	is_str(sa, "\\u", "a difference inside an escape widens to the whole escape (base)");
	is_str(sb, "\\u", "... (head)");

	shape("\"\\u2028\"", "\"\xe2\x80\xa8\"", sa, sb, &mask);
	is_str(sb, "L", "U+2028 raw is L");
	ok((mask & (1L << 11)) != 0, "U+2028 involves JSON_UNESCAPED_LINE_TERMINATORS");

	shape("\"\xc3\xa9\"", "\"\xc3\xa8\"", sa, sb, &mask);
	is_str(sa, "U", "a difference in a character's last byte is the whole character (base)");
	is_str(sb, "U", "... (head)");

	shape("\"a\xff\"", "\"a?\"", sa, sb, &mask);
	is_str(sa, "X", "an invalid UTF-8 byte is X");
	ok((mask & (1L << 20)) && (mask & (1L << 21)), "it involves the INVALID_UTF8 flags");

	shape("{\"a\":1}", "{\n    \"a\": 1\n}", sa, sb, &mask);
	is_str(sa, "", "pretty print: nothing on base where ...");
	is_str(sb, "N_", "... head has a newline and indentation");
	ok((mask & F_PRETTY) != 0, "whitespace involves JSON_PRETTY_PRINT");

	shape("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
	    "\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"", sa, sb, &mask);
	is_str(sa, "a", "letters collapse to one class character");

	shape("\"a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,a,b\"", "\"1\"", sa, sb, &mask);
	ok(strlen(sa) <= BUCKET_SHAPE_MAX + 1 && sa[strlen(sa) - 1] == '~',
	    "a long shape is cut and ends in ~");

	/* Keys */
	k1 = key_of(0, "[\"abc\\/x\"]", "[\"abc/x\"]");
	k2 = key_of(0, "{\"k\":\"zz\\/y\"}", "{\"k\":\"zz/y\"}");
	is_str(k1,
	    "{\"differs\":[\"output\"],\"error_code\":[0,0],\"exception\":[null,null],"
	    "\"flags\":{\"JSON_UNESCAPED_SLASHES\":false},\"output\":[\"\\\\/\",\"/\"],"
	    "\"status\":[\"ok\",\"ok\"],\"v\":1}",
	    "the key of a slash difference");
	is_str(k2, k1 != NULL ? k1 : "", "the same difference in other values has the same key");
	free(k2);
	k2 = key_of(F_PRETTY | (1L << 0), "[\"abc\\/x\"]", "[\"abc/x\"]");
	is_str(k2, k1 != NULL ? k1 : "", "flags that do not matter (PRETTY_PRINT, HEX_TAG) do not split it");
	free(k2);
	k2 = key_of(F_SLASHES, "[\"abc\\/x\"]", "[\"abc/x\"]");
	ok(k1 != NULL && k2 != NULL && strcmp(k1, k2) != 0,
	    "a flag that matters (UNESCAPED_SLASHES) splits it");
	free(k2);
	k2 = key_of(0, "[\"\\u00e9\"]", "[\"\xc3\xa9\"]");
	ok(k1 != NULL && k2 != NULL && strcmp(k1, k2) != 0, "another difference has another key");
	free(k2);
	free(k1);

	/* An error on one side: output false, error code, the error flags matter. */
	set_ok(&res[ROLE_BASE], "\"\\u00ff\"");
	set_ok(&res[ROLE_HEAD], NULL);
	res[ROLE_HEAD].error_code = 5;
	free(res[ROLE_HEAD].error_msg);
	res[ROLE_HEAD].error_msg = strdup("Malformed UTF-8 characters, possibly incorrectly encoded");
	k1 = bucket_key(F_PRETTY, res, verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]));
	is_str(k1,
	    "{\"differs\":[\"output\",\"error_code\",\"error_msg\"],\"error_code\":[0,5],"
	    "\"exception\":[null,null],\"flags\":{\"JSON_INVALID_UTF8_IGNORE\":false,"
	    "\"JSON_INVALID_UTF8_SUBSTITUTE\":false,\"JSON_PARTIAL_OUTPUT_ON_ERROR\":false,"
	    "\"JSON_THROW_ON_ERROR\":false},\"output\":[\"string\",\"false\"],\"status\":[\"ok\",\"ok\"],\"v\":1}",
	    "an error on head: codes, false output, the error-handling flags");
	free(k1);
	k1 = bucket_signature(res, verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]));
	is_str(k1,
	    "{\"differs\":[\"output\",\"error_code\",\"error_msg\"],\"error_code\":[0,5],"
	    "\"output\":[\"string\",\"false\"],\"v\":1}",
	    "a reduced case's signature: no flags, only the fields that differ");
	free(k1);
	k1 = bucket_reduction_target(res, verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]));
	is_str(k1, "{\"error_code\":5,\"status\":[\"ok\",\"ok\"],\"v\":1}",
	    "what a reduction keeps when the codes differ: the candidate's code, not the shape");
	/* An error step's recode (the reducer's): code 5 may become 7 where 5 is the replaced value's. */
	{
		char *r = bucket_target_recoded(k1, 1u << 5 | 1u << 8, 7);
		is_str(r, "{\"error_code\":7,\"status\":[\"ok\",\"ok\"],\"v\":1}",
		    "an error step's recode: the candidate's code made the new value's");
		free(r);
		r = bucket_target_recoded(k1, 1u << 6, 7);
		ok(r == NULL, "no recode where the code is not one the replaced value fails on");
		free(r);
		r = bucket_target_recoded(
		    "{\"exception\":\"RuntimeException\",\"status\":[\"ok\",\"ok\"],\"v\":1}",
		    RECODE_EXCEPTION, 5);
		is_str(r, "{\"error_code\":5,\"status\":[\"ok\",\"ok\"],\"v\":1}",
		    "a thrown exception recoded: no exception, the new value's code");
		free(r);
		r = bucket_target_recoded(
		    "{\"exception\":null,\"status\":[\"ok\",\"ok\"],\"v\":1}", RECODE_EXCEPTION, 5);
		ok(r == NULL, "no recode of an exception the candidate did not throw");
		free(r);
	}
	free(k1);
	result_release(&res[ROLE_HEAD]);
	/* Output alone differs: the same target whatever the first differing bytes. */
	{
		char *t2;
		set_ok(&res[ROLE_HEAD], "{\"\":null}");
		result_release(&res[ROLE_BASE]);
		set_ok(&res[ROLE_BASE], "{\"a\":null}");
		k1 = bucket_reduction_target(res, verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]));
		result_release(&res[ROLE_BASE]);
		set_ok(&res[ROLE_BASE], "{\"\\u00e9\":null}");
		t2 = bucket_reduction_target(res, verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]));
		is_str(k1,
		    "{\"message_differs\":false,\"output\":[\"string\",\"string\"],\"output_differs\":true,"
		    "\"status\":[\"ok\",\"ok\"],\"v\":1}",
		    "output alone: which fields differ and each side's output kind");
		is_str(t2, k1, "a name of letters and one of an escape lost alike: one target");
		free(k1);
		free(t2);
		result_release(&res[ROLE_HEAD]);
	}

	/* A crash on head, a JsonException on base. */
	result_init(&res[ROLE_HEAD]);
	res[ROLE_HEAD].status = STATUS_CRASH;
	res[ROLE_HEAD].signal = 11;
	res[ROLE_BASE].exc_class = strdup("JsonException");
	k1 = bucket_key(F_THROW, res, verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]));
	ok(k1 != NULL && strstr(k1, "\"status\":[\"ok\",\"crash:11\"]") != NULL, "a crash names its signal");
	ok(k1 != NULL && strstr(k1, "\"exception\":[\"JsonException\",null]") != NULL,
	    "exception classes by side");
	ok(k1 != NULL && strstr(k1, "\"output\":[\"string\",\"crash\"]") != NULL,
	    "a crashed side's output is its status");
	ok(k1 != NULL && strstr(k1, "\"JSON_THROW_ON_ERROR\":true") != NULL,
	    "THROW_ON_ERROR matters, and is on");
	free(k1);
	/* The signature of a crash: the statuses only (base's exception is context). */
	res[ROLE_BASE].error_code = 5;
	k1 = bucket_signature(res, verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]));
	is_str(k1, "{\"differs\":[\"status\"],\"status\":[\"ok\",\"crash:11\"],\"v\":1}",
	    "a crash's signature: the statuses, not what the other side returned");
	free(k1);
	result_release(&res[ROLE_BASE]);
	result_release(&res[ROLE_HEAD]);

	/* A memory error with the same output: its kind, access and top frame
	 * (no line) in the key, the same for another case of the same bug. */
	set_ok(&res[ROLE_BASE], "\"aaaaaaaaaaaaaaaaaaaa\"");
	set_ok(&res[ROLE_HEAD], "\"aaaaaaaaaaaaaaaaaaaa\"");
	res[ROLE_HEAD].status = STATUS_MEMORY_ERROR;
	res[ROLE_HEAD].failure = strdup(
	    "==7==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\n"
	    "READ of size 1 at 0x1 thread T0\n"
	    "    #0 0x7f in php_json_escape_string /t/src/ext/json/json_encoder.c:349\n");
	k1 = bucket_signature(res, verdict_compare(&res[ROLE_BASE], &res[ROLE_HEAD]));
	is_str(k1,
	    "{\"differs\":[\"status\"],\"memory_error\":[null,\"heap-buffer-overflow|READ of size "
	    "1|php_json_escape_string json_encoder.c\"],\"status\":[\"ok\",\"memory-error\"],\"v\":1}",
	    "a memory error: only the status differs; kind, access and top frame in the key");
	free(k1);
	result_release(&res[ROLE_BASE]);
	result_release(&res[ROLE_HEAD]);

	return tap_done();
}
