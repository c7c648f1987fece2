/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_gpspm_resp.c -- libFuzzer target: a GPSPM flush response as the client receives it */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpspm/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpspm_resp resp = {7};
	char why[160] = "";

	if (gpspm_resp_decode(data, size, &resp, why, sizeof(why)) != GPSPM_MSG_OK) {
		assert(why[0] != '\0' && memchr(why, '\0', sizeof(why)) != NULL);
		assert(resp.op_context == 7);
		return 0;
	}
	assert(size > 0 && size <= GPSPM_MSG_MAX);

	uint8_t again[GPSPM_RESP_SIZE];
	size_t len = 0;
	struct gpspm_resp back;
	assert(gpspm_resp_encode(&resp, again, sizeof(again), &len) == 0 && len == GPSPM_RESP_SIZE);
	assert(gpspm_resp_decode(again, len, &back, NULL, 0) == GPSPM_MSG_OK);
	assert(back.op_context == resp.op_context);
	return 0;
}
