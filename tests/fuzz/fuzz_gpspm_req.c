/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_gpspm_req.c -- libFuzzer target: a GPSPM flush request as the server
 * receives it, and the server's check of its range against the workspace.
 * The first 8 input bytes pick the workspace size, the rest is the message.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpspm/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
static void ranged(const uint8_t *data, size_t size, uint64_t ws_size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t ws_size = 0;

	if (size < sizeof(ws_size))
		return 0;
	memcpy(&ws_size, data, sizeof(ws_size));
	data += sizeof(ws_size);
	size -= sizeof(ws_size);

	ranged(data, size, ws_size);
	/* the server receives into a buffer of GPSPM_MSG_MAX bytes */
	struct gpspm_req req = {1, 2, 3};
	char why[160] = "";
	enum gpspm_msg_status st = gpspm_req_decode(data, size, &req, why, sizeof(why));
	if (st != GPSPM_MSG_OK) {
		assert(why[0] != '\0' && memchr(why, '\0', sizeof(why)) != NULL);
		assert(req.offset == 1 && req.length == 2 && req.op_context == 3);
		return 0;
	}
	assert(size <= GPSPM_MSG_MAX);

	/* a range the server accepts must lie in the workspace, with no wrap-around */
	if (!gpspm_req_is_last(&req) && gpspm_range_ok(req.offset, req.length, ws_size)) {
		uint64_t end;
		assert(!__builtin_add_overflow(req.offset, req.length, &end));
		assert(end <= ws_size);
	}

	/* whatever was accepted re-encodes to a message that decodes the same */
	uint8_t again[GPSPM_MSG_MAX];
	size_t len = 0;
	struct gpspm_req back;
	assert(gpspm_req_encode(&req, again, sizeof(again), &len) == 0);
	assert(gpspm_req_decode(again, len, &back, NULL, 0) == GPSPM_MSG_OK);
	assert(back.offset == req.offset && back.length == req.length &&
		back.op_context == req.op_context);
	return 0;
}

/*
 * Our server's form (field 15 or 16: ranges): accepted ranges are ascending, apart,
 * non-empty, within the span; each accepted in the workspace lies in it; and
 * what was accepted re-encodes to the same.
 */
static void ranged(const uint8_t *data, size_t size, uint64_t ws_size)
{
	struct gpspm_req req = {1, 2, 3};
	struct gpspm_ranges rg = {0};
	char why[160] = "";

	if (gpspm_req_decode_ranged(data, size, &req, &rg, why, sizeof(why)) != GPSPM_MSG_OK) {
		assert(why[0] != '\0' && rg.n == 0);
		return;
	}
	assert(rg.n <= GPSPM_RANGES_PACKED_MAX);
	for (uint32_t i = 0; i < rg.n; i++) {
		unsigned __int128 end = (unsigned __int128)rg.r[i].offset + rg.r[i].length;
		assert(rg.r[i].length > 0 && end <= (unsigned __int128)req.offset + req.length);
		assert(i == 0 || rg.r[i].offset > rg.r[i - 1].offset + rg.r[i - 1].length);
		if (gpspm_range_ok(req.offset, req.length, ws_size))
			assert(end <= ws_size);
	}
	/* what was accepted re-encodes, in either form where it fits, to the same */
	for (int form = GPSPM_RANGES_FIXED; form <= GPSPM_RANGES_PACKED; form++) {
		uint8_t again[GPSPM_MSG_MAX];
		size_t len = 0;
		struct gpspm_req back;
		struct gpspm_ranges brg;
		if (gpspm_req_encode_ranged(&req, &rg, (enum gpspm_ranges_form)form, again,
				sizeof(again), &len)) {
			assert(form == GPSPM_RANGES_PACKED || rg.n > GPSPM_RANGES_MAX);
			continue;
		}
		assert(gpspm_req_decode_ranged(again, len, &back, &brg, NULL, 0) == GPSPM_MSG_OK);
		assert(back.offset == req.offset && back.length == req.length && brg.n == rg.n);
		for (uint32_t i = 0; i < rg.n; i++)
			assert(brg.r[i].offset == rg.r[i].offset && brg.r[i].length == rg.r[i].length);
	}
}
