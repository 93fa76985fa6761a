/* The daemon <-> worker frame protocol; see proto.h for the wire format. */
#include "buf.h"
#include "clock.h"
#include "proto.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void put_u16(unsigned char *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}
static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}
static uint16_t get_u16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void proto_buf_init(struct proto_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void proto_buf_release(struct proto_buf *b)
{
	free(b->data);
	proto_buf_init(b);
}

void proto_buf_add(struct proto_buf *b, uint16_t tag, const void *data, size_t len)
{
	if (b->failed)
		return;
	if (len > PROTO_MAX_PAYLOAD || b->len + 6 + len > PROTO_MAX_PAYLOAD) {
		b->failed = 1;
		return;
	}
	if (buf_grow(&b->data, &b->cap, b->len + 6 + len) < 0) {
		b->failed = 1;
		return;
	}
	unsigned char *p = (unsigned char *)b->data + b->len;
	put_u16(p, tag);
	put_u32(p + 2, (uint32_t)len);
	if (len)
		memcpy(p + 6, data, len);
	b->len += 6 + len;
}

void proto_buf_add_str(struct proto_buf *b, uint16_t tag, const char *s)
{
	proto_buf_add(b, tag, s, strlen(s));
}

void proto_buf_add_int(struct proto_buf *b, uint16_t tag, int64_t v)
{
	unsigned char p[8];
	uint64_t u = (uint64_t)v;
	for (int i = 0; i < 8; i++)
		p[i] = (u >> (8 * i)) & 0xff;
	proto_buf_add(b, tag, p, sizeof(p));
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int proto_send(int fd, uint16_t type, const struct proto_buf *b)
{
	unsigned char hdr[PROTO_HEADER_SIZE];
	if (b && b->failed) {
		errno = EMSGSIZE;
		return -1;
	}
	size_t len = b ? b->len : 0;
	put_u32(hdr, PROTO_MAGIC);
	put_u16(hdr + 4, PROTO_VERSION);
	put_u16(hdr + 6, type);
	put_u32(hdr + 8, (uint32_t)len);
	if (write_all(fd, hdr, sizeof(hdr)) < 0)
		return -1;
	return len ? write_all(fd, b->data, len) : 0;
}

/* Read exactly len bytes before the deadline (-1: none).  1 ok, 0 EOF at
 * the very start, -1 error (EPROTO for EOF midway, ETIMEDOUT). */
static int read_all(int fd, void *data, size_t len, long long deadline)
{
	char *p = data;
	size_t got = 0;
	while (got < len) {
		if (deadline >= 0) {
			long long left = deadline - (long long)clock_ms();
			if (left <= 0) {
				errno = ETIMEDOUT;
				return -1;
			}
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			int r = poll(&pfd, 1, left > 1000000 ? 1000000 : (int)left);
			if (r < 0 && errno != EINTR)
				return -1;
			if (r <= 0)
				continue;
		}
		ssize_t n = read(fd, p + got, len - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			if (got == 0)
				return 0;
			errno = EPROTO;
			return -1;
		}
		got += (size_t)n;
	}
	return 1;
}

int proto_recv(int fd, struct proto_msg *msg, int timeout_ms)
{
	unsigned char hdr[PROTO_HEADER_SIZE];
	long long deadline = timeout_ms < 0 ? -1 : (long long)clock_ms() + timeout_ms;
	memset(msg, 0, sizeof(*msg));
	int r = read_all(fd, hdr, sizeof(hdr), deadline);
	if (r <= 0)
		return r;
	uint32_t len = get_u32(hdr + 8);
	if (get_u32(hdr) != PROTO_MAGIC || get_u16(hdr + 4) != PROTO_VERSION || len > PROTO_MAX_PAYLOAD) {
		errno = EPROTO;
		return -1;
	}
	char *payload = malloc(len ? len : 1);
	if (!payload)
		return -1;
	if (len) {
		r = read_all(fd, payload, len, deadline);
		if (r <= 0) {
			free(payload);
			if (r == 0)
				errno = EPROTO;
			return -1;
		}
	}
	if (proto_decode(msg, get_u16(hdr + 6), payload, len) < 0) {
		errno = EPROTO;
		return -1;
	}
	return 1;
}

int proto_decode(struct proto_msg *msg, uint16_t type, char *payload, size_t len)
{
	memset(msg, 0, sizeof(*msg));
	msg->type = type;
	msg->payload = payload;
	msg->payload_len = len;
	size_t off = 0;
	while (off < len) {
		if (len - off < 6 || msg->nfields == PROTO_MAX_FIELDS)
			goto fail;
		const unsigned char *p = (const unsigned char *)payload + off;
		uint32_t flen = get_u32(p + 2);
		if (flen > len - off - 6)
			goto fail;
		struct proto_field *f = &msg->fields[msg->nfields++];
		f->tag = get_u16(p);
		f->len = flen;
		f->data = payload + off + 6;
		off += 6 + flen;
	}
	return 0;
fail:
	proto_msg_release(msg);
	return -1;
}

void proto_msg_release(struct proto_msg *msg)
{
	free(msg->payload);
	memset(msg, 0, sizeof(*msg));
}

const struct proto_field *proto_get(const struct proto_msg *msg, uint16_t tag)
{
	for (size_t i = 0; i < msg->nfields; i++)
		if (msg->fields[i].tag == tag)
			return &msg->fields[i];
	return NULL;
}

int64_t proto_get_int(const struct proto_msg *msg, uint16_t tag, int64_t def)
{
	const struct proto_field *f = proto_get(msg, tag);
	if (!f || f->len != 8)
		return def;
	const unsigned char *p = (const unsigned char *)f->data;
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u |= (uint64_t)p[i] << (8 * i);
	return (int64_t)u;
}
