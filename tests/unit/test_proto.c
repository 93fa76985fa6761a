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

int main(void)
{
	test_round_trip();
	test_bad_frames();
	test_decode();
	test_buf_limits();
	test_verdict();
	return tap_done();
}
