/* SPDX-License-Identifier: BSD-3-Clause */
/* workspace.c -- the server's private data: encoding and decoding (see workspace.h) */
#include <stdio.h>
#include <string.h>

#include "workspace.h"

int rpmafio_ws_encode(const struct rpmafio_ws *ws, uint8_t out[RPMAFIO_WS_SIZE])
{
	if (ws == NULL || out == NULL || ws->mr_desc_size > RPMAFIO_WS_DESC_MAX)
		return -1;
	memset(out, 0, RPMAFIO_WS_SIZE);
	out[0] = (uint8_t)(ws->max_msg_num & 0xff);
	out[1] = (uint8_t)(ws->max_msg_num >> 8);
	out[2] = ws->direct_write_to_pmem ? 1 : 0;
	out[3] = ws->mr_desc_size;
	memcpy(out + RPMAFIO_WS_HDR_SIZE, ws->mr_desc, ws->mr_desc_size);
	out[RPMAFIO_WS_FLAGS_OFF] = ws->flush_native ? RPMAFIO_WS_FLUSH_NATIVE : 0;
	out[RPMAFIO_WS_OFFERS_OFF] = (uint8_t)((ws->ranged_flush ? RPMAFIO_WS_RANGED_FLUSH : 0) |
		(ws->packed_ranges ? RPMAFIO_WS_PACKED_RANGES : 0));
	return 0;
}

int rpmafio_ws_decode(const void *buf, size_t len, struct rpmafio_ws *ws,
		char *err, size_t errlen)
{
	const uint8_t *b = buf;
	const char *why = NULL;
	char tmp[128];

	if (b == NULL || len == 0) {
		why = "the server sent no private data (is it an rpma-fio/librpma fio server?)";
	} else if (len < RPMAFIO_WS_HDR_SIZE) {
		snprintf(tmp, sizeof(tmp), "the server's private data is %zu bytes, "
			"shorter than the %d-byte workspace header", len, RPMAFIO_WS_HDR_SIZE);
		why = tmp;
	} else if (b[2] > 1) {
		snprintf(tmp, sizeof(tmp), "direct_write_to_pmem is %u in the server's "
			"private data (expected 0 or 1)", b[2]);
		why = tmp;
	} else if (b[3] == 0 || b[3] > RPMAFIO_WS_DESC_MAX) {
		snprintf(tmp, sizeof(tmp), "the server's private data announces a "
			"%u-byte region descriptor (expected 1-%d)", b[3], RPMAFIO_WS_DESC_MAX);
		why = tmp;
	} else if (len < (size_t)RPMAFIO_WS_HDR_SIZE + b[3]) {
		snprintf(tmp, sizeof(tmp), "the server's private data announces a %u-byte "
			"region descriptor but holds only %zu bytes after the header",
			b[3], len - RPMAFIO_WS_HDR_SIZE);
		why = tmp;
	} else if (len > RPMAFIO_WS_FLAGS_OFF &&
			(b[RPMAFIO_WS_FLAGS_OFF] & ~RPMAFIO_WS_FLUSH_NATIVE)) {
		snprintf(tmp, sizeof(tmp), "the server's private data has unknown flags 0x%02x "
			"at byte %d (this client knows only 0x%02x: native FLUSH)",
			b[RPMAFIO_WS_FLAGS_OFF], RPMAFIO_WS_FLAGS_OFF, RPMAFIO_WS_FLUSH_NATIVE);
		why = tmp;
	}
	if (why) {
		if (err && errlen)
			snprintf(err, errlen, "%s", why);
		return -1;
	}

	struct rpmafio_ws out = {
		.max_msg_num = (uint16_t)(b[0] | (b[1] << 8)),
		.direct_write_to_pmem = b[2] == 1,
		.mr_desc_size = b[3],
		.flush_native = len > RPMAFIO_WS_FLAGS_OFF &&
			(b[RPMAFIO_WS_FLAGS_OFF] & RPMAFIO_WS_FLUSH_NATIVE),
		.ranged_flush = len > RPMAFIO_WS_OFFERS_OFF &&
			(b[RPMAFIO_WS_OFFERS_OFF] & RPMAFIO_WS_RANGED_FLUSH),
		.packed_ranges = len > RPMAFIO_WS_OFFERS_OFF &&
			(b[RPMAFIO_WS_OFFERS_OFF] & RPMAFIO_WS_PACKED_RANGES),
	};
	memcpy(out.mr_desc, b + RPMAFIO_WS_HDR_SIZE, out.mr_desc_size);
	*ws = out;
	return 0;
}
