/* Unit tests for server/common/proto.c (the worker protocol) and the verdict in
 * server/daemon/model/result.c, printing TAP. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "model.h"
#include "proto.h"
#include "tap.h"

static void put_header(unsigned char *h, uint32_t magic, uint16_t version, uint16_t type, uint32_t len)
{
	memcpy(h, (uint32_t[]){ magic }, 4); /* the test machine is little-endian, like the wire */
	memcpy(h + 4, (uint16_t[]){ version }, 2);
	memcpy(h + 6, (uint16_t[]){ type }, 2);
	memcpy(h + 8, (uint32_t[]){ len }, 4);
}

static void test_round_trip(void)
{
	int sv[2];
	struct proto_buf b;
	struct proto_msg m;
	const char bin[] = { 'a', 0, '\xff', '\n' };

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	proto_buf_init(&b);
	proto_buf_add_str(&b, TAG_CODE, "[1, 2]");
	proto_buf_add(&b, TAG_OUTPUT, bin, sizeof(bin));
	proto_buf_add(&b, TAG_SETUP, "", 0);
	proto_buf_add_int(&b, TAG_FLAGS, 4194304);
	proto_buf_add_int(&b, TAG_DEPTH, -1);
	ok(proto_send(sv[0], PROTO_CASE, &b) == 0, "send a frame");
	ok(proto_recv(sv[1], &m, 1000) == 1, "receive it");
	ok(m.type == PROTO_CASE && m.nfields == 5, "type and field count survive");
	const struct proto_field *f = proto_get(&m, TAG_OUTPUT);
	ok(f && f->len == sizeof(bin) && memcmp(f->data, bin, sizeof(bin)) == 0,
	    "binary field (NUL, 0xff) is byte-exact");
	f = proto_get(&m, TAG_SETUP);
	ok(f && f->len == 0, "empty field is present with length 0");
	ok(proto_get_int(&m, TAG_FLAGS, 0) == 4194304, "int field");
	ok(proto_get_int(&m, TAG_DEPTH, 0) == -1, "negative int field");
	ok(proto_get_int(&m, TAG_ITERATIONS, 77) == 77, "absent int gives the default");
	ok(proto_get_int(&m, TAG_CODE, 77) == 77, "a non-8-byte field read as int gives the default");
	proto_msg_release(&m);
	proto_buf_release(&b);

	close(sv[0]);
	ok(proto_recv(sv[1], &m, 1000) == 0, "EOF before a header is a clean 0");
	close(sv[1]);
}

static void test_bad_frames(void)
{
	int sv[2];
	unsigned char h[PROTO_HEADER_SIZE];
	struct proto_msg m;

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	put_header(h, 0xdeadbeef, PROTO_VERSION, PROTO_CASE, 0);
	write(sv[0], h, sizeof(h));
	errno = 0;
	ok(proto_recv(sv[1], &m, 1000) == -1 && errno == EPROTO, "bad magic is EPROTO");
	close(sv[0]);
	close(sv[1]);

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	put_header(h, PROTO_MAGIC, PROTO_VERSION + 1, PROTO_CASE, 0);
	write(sv[0], h, sizeof(h));
	ok(proto_recv(sv[1], &m, 1000) == -1 && errno == EPROTO, "another protocol version is EPROTO");
	close(sv[0]);
	close(sv[1]);

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	put_header(h, PROTO_MAGIC, PROTO_VERSION, PROTO_CASE, PROTO_MAX_PAYLOAD + 1);
	write(sv[0], h, sizeof(h));
	ok(proto_recv(sv[1], &m, 1000) == -1 && errno == EPROTO,
	    "a length over the maximum is refused before reading");
	close(sv[0]);
	close(sv[1]);

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	put_header(h, PROTO_MAGIC, PROTO_VERSION, PROTO_CASE, 100);
	write(sv[0], h, sizeof(h));
	write(sv[0], "short", 5);
	close(sv[0]);
	ok(proto_recv(sv[1], &m, 1000) == -1 && errno == EPROTO, "EOF inside a payload is EPROTO");
	close(sv[1]);

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	write(sv[0], h, 4);
	ok(proto_recv(sv[1], &m, 50) == -1 && errno == ETIMEDOUT, "a half-sent header times out");
	close(sv[0]);
	close(sv[1]);
}

static void test_decode(void)
{
	struct proto_msg m;
	char *p;

	/* A field claiming more bytes than the payload holds. */
	p = malloc(10);
	memcpy(p,
	    "\x0a\x00\xff\x00\x00\x00"
	    "abcd",
	    10);
	ok(proto_decode(&m, PROTO_CASE, p, 10) == -1, "field length past the payload is refused");

	/* A truncated field header. */
	p = malloc(3);
	memcpy(p, "\x0a\x00\x01", 3);
	ok(proto_decode(&m, PROTO_CASE, p, 3) == -1, "truncated field header is refused");

	/* More fields than PROTO_MAX_FIELDS. */
	size_t n = (PROTO_MAX_FIELDS + 1) * 6;
	p = calloc(1, n);
	ok(proto_decode(&m, PROTO_CASE, p, n) == -1, "too many fields is refused");

	p = malloc(1);
	ok(proto_decode(&m, PROTO_RESULT, p, 0) == 0 && m.nfields == 0,
	    "empty payload is a message with no fields");
	proto_msg_release(&m);
}

static void test_buf_limits(void)
{
	struct proto_buf b;
	proto_buf_init(&b);
	proto_buf_add(&b, TAG_OUTPUT, "", PROTO_MAX_PAYLOAD);
	ok(b.failed, "a field over the frame maximum marks the buffer failed");
	errno = 0;
	ok(proto_send(-1, PROTO_RESULT, &b) == -1 && errno == EMSGSIZE,
	    "a failed buffer is not sent (EMSGSIZE)");
	proto_buf_release(&b);
}

static void test_verdict(void)
{
	struct result a, b;
	char fields[128];

	result_init(&a);
	result_init(&b);
	bytes_set(&a.output, "[1]", 3);
	bytes_set(&b.output, "[1]", 3);
	a.error_msg = strdup("No error");
	b.error_msg = strdup("No error");
	ok(verdict_compare(&a, &b) == 0, "identical results are the same");
	bytes_set(&b.output, "[1]\0", 4);
	ok(verdict_compare(&a, &b) == DIFF_OUTPUT, "a trailing NUL byte is an output difference");
	bytes_set(&b.output, "[1]", 3);
	b.exc_class = strdup("JsonException");
	b.error_code = 5;
	verdict_fields(verdict_compare(&a, &b), fields, sizeof(fields));
	ok(!strcmp(fields, "error_code,exception"), "fields are listed by name, in a fixed order");
	result_release(&b);
	result_init(&b);
	b.status = STATUS_CRASH;
	b.signal = 11;
	b.output_is_false = 1;
	a.status = STATUS_CRASH;
	a.signal = 6;
	a.output_is_false = 1;
	free(a.error_msg);
	a.error_msg = NULL;
	bytes_release(&a.output);
	ok(verdict_compare(&a, &b) == DIFF_STATUS, "crashes by different signals differ in status");
	bytes_set(&a.printed, "x", 1);
	a.signal = 11;
	ok(verdict_compare(&a, &b) == 0, "printed output alone does not make a mismatch");
	result_release(&a);
	result_release(&b);
	ok(utf8_valid("\xe2\x80\xa8", 3) && !utf8_valid("\xed\xa0\x80", 3) && !utf8_valid("\xc0\xaf", 2) &&
	        !utf8_valid("\xf4\x90\x80\x80", 4) && !utf8_valid("\xe2\x80", 2),
	    "utf8_valid: U+2028 yes; surrogate, overlong, above U+10FFFF, truncated no");
}

/* Unsupported (issue 45): what compiled on one build and not another, --MIN_PHP--. */
static void test_unsupported(void)
{
	struct result r[3];
	for (int i = 0; i < 3; i++)
		result_init(&r[i]);
	bytes_set(&r[0].output, "\"mine\"", 6);
	r[1].status = STATUS_ERROR;
	r[1].output_is_false = 1;
	r[1].failure = strdup("Cannot redeclare f()");
	r[1].compile_error = strdup("Cannot redeclare f()");
	ok(verdict_compare(&r[0], &r[1]) != 0, "before marking, a compile error differs");
	ok(result_mark_unsupported(r, 2) == 1 && r[1].unsupported != NULL &&
	        strcmp(r[1].unsupported, "does not compile: Cannot redeclare f()") == 0 &&
	        strcmp(r[1].failure, RESULT_UNSUPPORTED "does not compile: Cannot redeclare f()") == 0,
	    "compiled on one build, not the other: unsupported there, why in its failure");
	ok(verdict_compare(&r[0], &r[1]) == 0 && verdict_compare_all(r, 2, NULL) == 0,
	    "an unsupported build is left out of the verdict");
	ok(strcmp(verdict_name(0, r, 2), "unsupported") == 0 &&
	        strcmp(verdict_name(DIFF_OUTPUT, r, 2), "differ") == 0,
	    "the verdict: unsupported when the others agree, differ when they do not");
	ok(result_case_error(r, 2) < 0, "compiling on one build is no case error");

	/* A stored result read back: its failure marks it. */
	struct result s;
	result_init(&s);
	s.status = STATUS_ERROR;
	s.failure = strdup(RESULT_UNSUPPORTED "needs PHP 9.0 or newer");
	ok(result_mark_unsupported(&s, 1) == 1 && strcmp(s.unsupported, "needs PHP 9.0 or newer") == 0,
	    "a stored result's failure says it is unsupported");
	result_release(&s);

	/* --MIN_PHP-- above a build's PHP: not run, unsupported; on every build it is no case error. */
	result_unsupported_php(&r[2], 90000, "8.2.32");
	ok(r[2].unsupported != NULL &&
	        strcmp(r[2].unsupported, "needs PHP 9.0 or newer (--MIN_PHP--); this build is PHP 8.2.32") ==
	            0 &&
	        r[2].output_is_false && r[2].status == STATUS_ERROR,
	    "a build older than --MIN_PHP--: %s", r[2].unsupported ? r[2].unsupported : "(null)");
	result_unsupported_php(&r[0], 90000, "8.2.32");
	ok(result_case_error(&r[2], 1) < 0 && strcmp(verdict_name(0, &r[2], 1), "unsupported") == 0,
	    "unsupported everywhere: verdict unsupported, not a case error");
	/* Nothing compiled anywhere: still a case error. */
	struct result e[2];
	for (int i = 0; i < 2; i++) {
		result_init(&e[i]);
		e[i].compile_error = strdup("Unclosed '['");
	}
	ok(result_mark_unsupported(e, 2) == 0 && result_case_error(e, 2) == 0,
	    "compiling on no build is a case error, nothing unsupported");
	for (int i = 0; i < 2; i++)
		result_release(&e[i]);
	for (int i = 0; i < 3; i++)
		result_release(&r[i]);
}

int main(void)
{
	test_round_trip();
	test_bad_frames();
	test_decode();
	test_buf_limits();
	test_verdict();
	test_unsupported();
	return tap_done();
}
