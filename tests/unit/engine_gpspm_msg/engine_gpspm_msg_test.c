/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_gpspm_msg_test.c -- the GPSPM flush messages: golden bytes (those of
 * fio 3.33's librpma_gpspm engines), untrusted input (empty, too long,
 * truncated at every byte, wrong wire types, missing and unknown fields,
 * garbage, every one-byte mutation) and the server's range check. And
 * agreement with protobuf-c (the code generated from gpspm_flush.proto), which
 * msg.c no longer uses: the same bytes encoded, the same messages accepted.
 * The untrusted input is engine_gpspm_msg_untrusted_test.c's, the golden
 * bytes engine_gpspm_msg_golden.c's.
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

/* ---- encoding ---- */

static void req_encode_golden(void **state)
{
	(void)state;
	uint8_t buf[GPSPM_MSG_MAX];
	size_t len = 0;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(gpspm_req_encode(&req_values, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, GPSPM_REQ_SIZE);
	assert_memory_equal(buf, req_golden, sizeof(req_golden));
	assert_int_equal(buf[GPSPM_REQ_SIZE], 0xee); /* nothing written past it */
}

static void resp_encode_golden(void **state)
{
	(void)state;
	uint8_t buf[GPSPM_RESP_SIZE];
	size_t len = 0;
	struct gpspm_resp r = {0xa1a2a3a4a5a6a7a8ULL};
	assert_int_equal(gpspm_resp_encode(&r, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, GPSPM_RESP_SIZE);
	assert_memory_equal(buf, resp_golden, sizeof(resp_golden));
}

static void last_encode_golden(void **state)
{
	(void)state;
	uint8_t buf[64];
	size_t len = 0;
	struct gpspm_req last = gpspm_req_last();
	assert_true(gpspm_req_is_last(&last));
	assert_int_equal(gpspm_req_encode(&last, buf, sizeof(buf), &len), 0);
	/* required fields are always sent, zero or not */
	assert_int_equal(len, GPSPM_REQ_SIZE);
	assert_memory_equal(buf, last_golden, sizeof(last_golden));
}

static void encode_bad_args(void **state)
{
	(void)state;
	uint8_t buf[64];
	size_t len = 7;
	struct gpspm_resp r = {1};
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(gpspm_req_encode(&req_values, buf, GPSPM_REQ_SIZE - 1, &len), -1);
	assert_int_equal(gpspm_resp_encode(&r, buf, GPSPM_RESP_SIZE - 1, &len), -1);
	assert_int_equal(len, 7);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xee);
	assert_int_equal(gpspm_req_encode(NULL, buf, sizeof(buf), &len), -1);
	assert_int_equal(gpspm_req_encode(&req_values, NULL, sizeof(buf), &len), -1);
	assert_int_equal(gpspm_req_encode(&req_values, buf, sizeof(buf), NULL), -1);
	assert_int_equal(gpspm_resp_encode(NULL, buf, sizeof(buf), &len), -1);
	assert_int_equal(gpspm_resp_encode(&r, NULL, sizeof(buf), &len), -1);
	assert_int_equal(gpspm_resp_encode(&r, buf, sizeof(buf), NULL), -1);
	/* exactly enough room is enough */
	assert_int_equal(gpspm_req_encode(&req_values, buf, GPSPM_REQ_SIZE, &len), 0);
	assert_int_equal(gpspm_resp_encode(&r, buf, GPSPM_RESP_SIZE, &len), 0);
}

static void round_trip(void **state)
{
	(void)state;
	uint8_t buf[GPSPM_MSG_MAX];
	size_t len;
	srand(42);
	for (int i = 0; i < 1000; i++) {
		struct gpspm_req in = {
			((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^ (uint64_t)rand(),
			i == 0 ? UINT64_MAX : (uint64_t)rand(),
			i == 1 ? 0 : ((uint64_t)rand() << 40) ^ (uint64_t)i,
		}, out = sentinel;
		assert_int_equal(gpspm_req_encode(&in, buf, sizeof(buf), &len), 0);
		assert_int_equal(len, GPSPM_REQ_SIZE);
		assert_int_equal(gpspm_req_decode(buf, len, &out, why, sizeof(why)), GPSPM_MSG_OK);
		assert_true(in.offset == out.offset && in.length == out.length &&
			in.op_context == out.op_context);

		struct gpspm_resp r = {in.op_context}, r2 = {0};
		assert_int_equal(gpspm_resp_encode(&r, buf, sizeof(buf), &len), 0);
		assert_int_equal(gpspm_resp_decode(buf, len, &r2, why, sizeof(why)), GPSPM_MSG_OK);
		assert_true(r.op_context == r2.op_context);
	}
}

/* ---- decoding good input ---- */

static void req_decode_golden(void **state)
{
	(void)state;
	struct gpspm_req r = sentinel;
	assert_int_equal(gpspm_req_decode(req_golden, sizeof(req_golden), &r, why, sizeof(why)),
		GPSPM_MSG_OK);
	assert_true(r.offset == req_values.offset);
	assert_true(r.length == req_values.length);
	assert_true(r.op_context == req_values.op_context);
	assert_false(gpspm_req_is_last(&r));

	assert_int_equal(gpspm_req_decode(last_golden, sizeof(last_golden), &r, NULL, 0),
		GPSPM_MSG_OK);
	assert_true(gpspm_req_is_last(&r));
}

static void resp_decode_golden(void **state)
{
	(void)state;
	struct gpspm_resp r = {0};
	assert_int_equal(gpspm_resp_decode(resp_golden, sizeof(resp_golden), &r, why, sizeof(why)),
		GPSPM_MSG_OK);
	assert_true(r.op_context == 0xa1a2a3a4a5a6a7a8ULL);
}

/* fields in another order, and a repeated field (protobuf: the last one wins) */
static void req_decode_order_and_repeats(void **state)
{
	(void)state;
	uint8_t buf[GPSPM_REQ_SIZE + 9];
	struct gpspm_req r = sentinel;
	/* op_context, length, offset */
	memcpy(buf, req_golden + 18, 9);
	memcpy(buf + 9, req_golden + 9, 9);
	memcpy(buf + 18, req_golden, 9);
	assert_int_equal(gpspm_req_decode(buf, GPSPM_REQ_SIZE, &r, why, sizeof(why)), GPSPM_MSG_OK);
	assert_true(r.offset == req_values.offset && r.length == req_values.length &&
		r.op_context == req_values.op_context);
	/* the offset again, as 0x77..: it replaces the first one */
	memcpy(buf, req_golden, GPSPM_REQ_SIZE);
	buf[GPSPM_REQ_SIZE] = 0x09;
	memset(buf + GPSPM_REQ_SIZE + 1, 0x77, 8);
	assert_int_equal(gpspm_req_decode(buf, sizeof(buf), &r, why, sizeof(why)), GPSPM_MSG_OK);
	assert_true(r.offset == 0x7777777777777777ULL);
}

/* ---- the server's range check ---- */

static void range_ok(void **state)
{
	(void)state;
	const uint64_t ws = 64 << 20;
	assert_true(gpspm_range_ok(0, 0, 0));
	assert_false(gpspm_range_ok(0, 1, 0));
	assert_true(gpspm_range_ok(0, ws, ws));
	assert_true(gpspm_range_ok(4096, 4096, ws));
	assert_true(gpspm_range_ok(ws - 1, 1, ws));
	assert_true(gpspm_range_ok(ws, 0, ws));
	assert_false(gpspm_range_ok(ws, 1, ws));
	assert_false(gpspm_range_ok(ws + 1, 0, ws));
	assert_false(gpspm_range_ok(0, ws + 1, ws));
	assert_false(gpspm_range_ok(ws - 4095, 4096, ws));
	/* sums that would wrap around */
	assert_false(gpspm_range_ok(UINT64_MAX, 1, ws));
	assert_false(gpspm_range_ok(1, UINT64_MAX, ws));
	assert_false(gpspm_range_ok(UINT64_MAX - 10, 100, UINT64_MAX));
	assert_false(gpspm_range_ok(4096, UINT64_MAX - 4095, ws));
	assert_false(gpspm_range_ok(UINT64_MAX, UINT64_MAX, UINT64_MAX));
	assert_true(gpspm_range_ok(10, UINT64_MAX - 10, UINT64_MAX));
	assert_true(gpspm_range_ok(UINT64_MAX, 0, UINT64_MAX));
}

static void last_message(void **state)
{
	(void)state;
	struct gpspm_req a = {0, 0, 123}, b = {0, 1, 0}, c = {1, 0, 0};
	assert_true(gpspm_req_is_last(&a));
	assert_false(gpspm_req_is_last(&b));
	assert_false(gpspm_req_is_last(&c));
}

static void status_strings(void **state)
{
	(void)state;
	assert_string_equal(gpspm_msg_status_str(GPSPM_MSG_OK), "ok");
	assert_string_equal(gpspm_msg_status_str(GPSPM_MSG_EMPTY), "empty message");
	assert_string_equal(gpspm_msg_status_str(GPSPM_MSG_TOO_LONG), "message too long");
	assert_string_equal(gpspm_msg_status_str(GPSPM_MSG_MALFORMED), "malformed message");
	assert_string_equal(gpspm_msg_status_str(GPSPM_MSG_MISSING), "required field missing");
	assert_string_equal(gpspm_msg_status_str(GPSPM_MSG_UNKNOWN), "unknown field");
	assert_string_equal(gpspm_msg_status_str((enum gpspm_msg_status)99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(req_encode_golden),
		cmocka_unit_test(resp_encode_golden),
		cmocka_unit_test(last_encode_golden),
		cmocka_unit_test(encode_bad_args),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(req_decode_golden),
		cmocka_unit_test(resp_decode_golden),
		cmocka_unit_test(req_decode_order_and_repeats),
		cmocka_unit_test(decode_empty),
		cmocka_unit_test(decode_too_long),
		cmocka_unit_test(req_truncated_everywhere),
		cmocka_unit_test(resp_truncated_everywhere),
		cmocka_unit_test(req_missing_fields),
		cmocka_unit_test(req_wrong_wire_type),
		cmocka_unit_test(req_unknown_fields),
		cmocka_unit_test(req_many_unknown_fields),
		cmocka_unit_test(req_bad_keys),
		cmocka_unit_test(garbage_never_decodes_wrongly),
		cmocka_unit_test(encoders_agree_with_protobuf_c),
		cmocka_unit_test(decoder_agrees_with_protobuf_c),
		cmocka_unit_test(every_mutation),
		cmocka_unit_test(range_ok),
		cmocka_unit_test(last_message),
		cmocka_unit_test(status_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
