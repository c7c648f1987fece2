/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_gpspm_msg_golden.c -- the GPSPM messages' golden bytes (those of fio
 * 3.33's librpma_gpspm engines), the values they carry, and the sentinel a
 * refused message must leave untouched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpspm/msg.h"
#include "gpspm_flush.pb-c.h"
#include "engine_gpspm_msg_test.h"

char why[256];

/* offset 0x0102030405060708, length 0x1112131415161718, op_context 0x2122232425262728 */
const uint8_t req_golden[GPSPM_REQ_SIZE] = {
	0x09, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	0x11, 0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,
	0x19, 0x28, 0x27, 0x26, 0x25, 0x24, 0x23, 0x22, 0x21,
};
const struct gpspm_req req_values = {
	0x0102030405060708ULL, 0x1112131415161718ULL, 0x2122232425262728ULL,
};

/* op_context 0xa1a2a3a4a5a6a7a8 */
const uint8_t resp_golden[GPSPM_RESP_SIZE] = {
	0x09, 0xa8, 0xa7, 0xa6, 0xa5, 0xa4, 0xa3, 0xa2, 0xa1,
};

/* the client's last message: zeros, every field present */
const uint8_t last_golden[GPSPM_REQ_SIZE] = {
	0x09, 0, 0, 0, 0, 0, 0, 0, 0,
	0x11, 0, 0, 0, 0, 0, 0, 0, 0,
	0x19, 0, 0, 0, 0, 0, 0, 0, 0,
};

const struct gpspm_req sentinel = {0xdead, 0xbeef, 0xcafe};

void assert_untouched(const struct gpspm_req *r)
{
	assert_true(r->offset == sentinel.offset && r->length == sentinel.length &&
		r->op_context == sentinel.op_context);
}
