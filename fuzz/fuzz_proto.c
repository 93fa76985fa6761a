/*
 * libFuzzer harness: the worker protocol decoder.  The input is a byte
 * stream as the daemon reads it from a worker (or a worker from the
 * daemon): frames are read with proto_recv through a pipe until EOF or an
 * error, and every field of every frame is looked at the way worker.c and
 * the loader do.  A payload is also decoded on its own with proto_decode.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void look(const struct proto_msg *m)
{
	static const uint16_t tags[] = { TAG_STATUS, TAG_OUTPUT, TAG_ERROR_CODE, TAG_MESSAGE, TAG_CODE };
	volatile size_t sum = 0;

	for (size_t i = 0; i < m->nfields; i++) {
		const struct proto_field *f = &m->fields[i];
		/* Touch the first and last byte: ASan checks they are inside. */
		if (f->len)
			sum += (unsigned char)f->data[0] + (unsigned char)f->data[f->len - 1];
		if (proto_get(m, f->tag) == NULL)
			abort(); /* a field present must be found */
		sum += (size_t)proto_get_int(m, f->tag, 0);
	}
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		sum += (size_t)proto_get_int(m, tags[i], -1);
	(void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_msg m;
	int fds[2];

	/* The stream, through a pipe (its buffer holds 64 KiB). */
	if (size <= 65536 && pipe(fds) == 0) {
		if (size == 0 || write(fds[1], data, size) == (ssize_t)size) {
			close(fds[1]);
			for (int n = 0; n < 64; n++) {
				if (proto_recv(fds[0], &m, 1000) != 1)
					break;
				look(&m);
				proto_msg_release(&m);
			}
		} else {
			close(fds[1]);
		}
		close(fds[0]);
	}

	/* The bytes as a payload: first two bytes the type. */
	if (size >= 2) {
		char *payload = malloc(size - 2 ? size - 2 : 1);
		if (!payload)
			return 0;
		memcpy(payload, data + 2, size - 2);
		if (proto_decode(&m, (uint16_t)(data[0] | data[1] << 8), payload, size - 2) == 0) {
			look(&m);
			proto_msg_release(&m);
		}
		/* proto_decode owns the payload either way. */
	}
	return 0;
}
