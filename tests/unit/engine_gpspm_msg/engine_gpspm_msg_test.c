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

/* ---- our extension: ranged flush requests (field 15) ---- */

/* three ranges of a batch; their span is [4096, 1052672) */
static const struct gpspm_ranges three = {3, {{4096, 4096}, {65536, 8192}, {1048576, 4096}}};
static const struct gpspm_req three_req = {4096, 1048576, 77};

static size_t encode_three(uint8_t *buf, size_t cap)
{
	size_t len = 0;
	assert_int_equal(gpspm_req_encode_ranged(&three_req, &three, GPSPM_RANGES_FIXED, buf, cap, &len), 0);
	return len;
}

/* the bytes: the plain request, then 7a, the size (48), the ranges little-endian */
static void ranged_encode_golden(void **state)
{
	(void)state;
	uint8_t buf[GPSPM_MSG_MAX];
	size_t len = encode_three(buf, sizeof(buf));
	assert_int_equal(len, GPSPM_REQ_SIZE + 2 + 48);
	assert_int_equal(buf[GPSPM_REQ_SIZE], 0x7a);
	assert_int_equal(buf[GPSPM_REQ_SIZE + 1], 48);
	const uint8_t second[16] = {0, 0, 1, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0};
	assert_memory_equal(buf + GPSPM_REQ_SIZE + 2 + 16, second, 16);
	/* no ranges: the plain request, byte for byte */
	struct gpspm_ranges none = {0};
	uint8_t plain[GPSPM_MSG_MAX];
	assert_int_equal(gpspm_req_encode_ranged(&req_values, &none, GPSPM_RANGES_FIXED, plain, sizeof(plain), &len), 0);
	assert_int_equal(len, GPSPM_REQ_SIZE);
	assert_memory_equal(plain, req_golden, GPSPM_REQ_SIZE);
	/* too small a buffer, too many ranges */
	assert_int_equal(gpspm_req_encode_ranged(&three_req, &three, GPSPM_RANGES_FIXED, buf, GPSPM_REQ_SIZE + 49,
		&len), -1);
	struct gpspm_ranges many = {GPSPM_RANGES_MAX + 1, {{0, 1}}};
	assert_int_equal(gpspm_req_encode_ranged(&three_req, &many, GPSPM_RANGES_FIXED, buf, sizeof(buf), &len), -1);
}

/* the most ranges: a 2-byte size varint, and the whole still fits a receive buffer */
static void ranged_round_trip_most(void **state)
{
	(void)state;
	struct gpspm_ranges rg = {GPSPM_RANGES_MAX, {{0, 0}}}, back;
	for (uint32_t i = 0; i < rg.n; i++)
		rg.r[i] = (struct gpspm_range){(uint64_t)i * 8192, 4096};
	struct gpspm_req req = {0, (uint64_t)(rg.n - 1) * 8192 + 4096, 5}, out;
	uint8_t buf[GPSPM_MSG_MAX];
	size_t len = 0;
	assert_int_equal(gpspm_req_encode_ranged(&req, &rg, GPSPM_RANGES_FIXED, buf, sizeof(buf), &len), 0);
	assert_true(len <= GPSPM_MSG_MAX);
	assert_int_equal(len, GPSPM_REQ_RANGED_MAX);
	assert_int_equal(gpspm_req_decode_ranged(buf, len, &out, &back, why, sizeof(why)),
		GPSPM_MSG_OK);
	assert_int_equal(back.n, rg.n);
	assert_memory_equal(back.r, rg.r, rg.n * sizeof(rg.r[0]));
	assert_true(out.offset == req.offset && out.length == req.length && out.op_context == 5);
	/* a plain request decodes with no ranges */
	assert_int_equal(gpspm_req_decode_ranged(req_golden, GPSPM_REQ_SIZE, &out, &back, why,
		sizeof(why)), GPSPM_MSG_OK);
	assert_int_equal(back.n, 0);
}

/* fio 3.33's decoder (gpspm_req_decode): field 15 is an unknown field */
static void ranged_unknown_to_plain_decoder(void **state)
{
	(void)state;
	uint8_t buf[GPSPM_MSG_MAX];
	struct gpspm_req r = sentinel;
	size_t len = encode_three(buf, sizeof(buf));
	assert_int_equal(gpspm_req_decode(buf, len, &r, why, sizeof(why)), GPSPM_MSG_UNKNOWN);
	assert_non_null(strstr(why, "unknown field 15"));
	assert_untouched(&r);
}

/* decode a mutated copy of the three-range request: rejected as malformed, reason given */
static void expect_ranged_malformed(const uint8_t *buf, size_t len, const char *reason)
{
	struct gpspm_req r = sentinel;
	struct gpspm_ranges rg = {9, {{1, 1}}};
	why[0] = '\0';
	assert_int_equal(gpspm_req_decode_ranged(buf, len, &r, &rg, why, sizeof(why)),
		GPSPM_MSG_MALFORMED);
	if (strstr(why, reason) == NULL)
		fail_msg("reason \"%s\" lacks \"%s\"", why, reason);
	assert_untouched(&r);
	assert_int_equal(rg.n, 9);
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* every rule of msg.h, each broken once */
static void ranged_rejects(void **state)
{
	(void)state;
	uint8_t good[GPSPM_MSG_MAX], b[GPSPM_MSG_MAX + 64];
	const size_t len = encode_three(good, sizeof(good));
	const size_t r0 = GPSPM_REQ_SIZE + 2; /* the first range */

	/* every cut inside the field is a truncation */
	for (size_t cut = GPSPM_REQ_SIZE + 1; cut < len; cut++)
		expect_ranged_malformed(good, cut, "truncated");
	/* wrong wire type: fixed64 field 15 */
	memcpy(b, good, len);
	b[GPSPM_REQ_SIZE] = (15 << 3) | 1;
	expect_ranged_malformed(b, len, "expected length-delimited");
	/* not whole ranges; none; more than GPSPM_RANGES_MAX */
	memcpy(b, good, len);
	b[GPSPM_REQ_SIZE + 1] = 40;
	expect_ranged_malformed(b, GPSPM_REQ_SIZE + 2 + 40, "not 1-30 ranges");
	b[GPSPM_REQ_SIZE + 1] = 0;
	expect_ranged_malformed(b, GPSPM_REQ_SIZE + 2, "not 1-30 ranges");
	memset(b + GPSPM_REQ_SIZE, 0, sizeof(b) - GPSPM_REQ_SIZE);
	b[GPSPM_REQ_SIZE] = 0x7a;
	b[GPSPM_REQ_SIZE + 1] = 0xf0; /* 496 = 31 ranges */
	b[GPSPM_REQ_SIZE + 2] = 0x03;
	expect_ranged_malformed(b, GPSPM_MSG_MAX - 1 + 0, "truncated");
	/* twice */
	memcpy(b, good, len);
	memcpy(b + len, good + GPSPM_REQ_SIZE, len - GPSPM_REQ_SIZE);
	expect_ranged_malformed(b, len + (len - GPSPM_REQ_SIZE), "come twice");
	/* an empty range */
	memcpy(b, good, len);
	put64(b + r0 + 16 + 8, 0);
	expect_ranged_malformed(b, len, "range 1");
	/* overlapping, touching, descending */
	memcpy(b, good, len);
	put64(b + r0 + 16, 4096 + 4095);
	expect_ranged_malformed(b, len, "not above the previous one's end");
	put64(b + r0 + 16, 8192);
	expect_ranged_malformed(b, len, "not above the previous one's end");
	put64(b + r0 + 16, 0);
	expect_ranged_malformed(b, len, "range 1");
	/* wrapping around */
	memcpy(b, good, len);
	put64(b + r0 + 32, UINT64_MAX - 10);
	put64(b + r0 + 32 + 8, 4096);
	expect_ranged_malformed(b, len, "wraps around");
	/* a span that is not the ranges' */
	memcpy(b, good, len);
	put64(b + 10, 1048576 + 1);
	expect_ranged_malformed(b, len, "is not the span of its ranges");
	memcpy(b, good, len);
	put64(b + 1, 0);
	expect_ranged_malformed(b, len, "is not the span of its ranges");
}

/* ---- the packed ranges (field 16) ---- */

static size_t encode_three_packed(uint8_t *buf, size_t cap)
{
	size_t len = 0;
	assert_int_equal(gpspm_req_encode_ranged(&three_req, &three, GPSPM_RANGES_PACKED, buf, cap,
		&len), 0);
	return len;
}

/* the bytes: the plain request, then 82 01, the size, (gap, length) varints */
static void packed_encode_golden(void **state)
{
	(void)state;
	const uint8_t field[] = {0x82, 0x01, 14,
		0x80, 0x20, 0x80, 0x20,		/* gap 4096 (the offset), 4096 */
		0x80, 0xc0, 0x03, 0x80, 0x40,	/* gap 57344 (65536 - 8192), 8192 */
		0x80, 0xc0, 0x3b, 0x80, 0x20};	/* gap 974848, 4096 */
	uint8_t buf[GPSPM_MSG_MAX];
	size_t len = encode_three_packed(buf, sizeof(buf));
	assert_int_equal(len, GPSPM_REQ_SIZE + sizeof(field));
	assert_memory_equal(buf + GPSPM_REQ_SIZE, field, sizeof(field));
	struct gpspm_req out;
	struct gpspm_ranges back;
	assert_int_equal(gpspm_req_decode_ranged(buf, len, &out, &back, why, sizeof(why)),
		GPSPM_MSG_OK);
	assert_int_equal(back.n, 3);
	assert_memory_equal(back.r, three.r, 3 * sizeof(three.r[0]));
	assert_true(out.offset == three_req.offset && out.length == three_req.length);
	/* one byte short of the room it needs; more than GPSPM_RANGES_PACKED_MAX */
	assert_int_equal(gpspm_req_encode_ranged(&three_req, &three, GPSPM_RANGES_PACKED, buf,
		len - 1, &len), -1);
	struct gpspm_ranges many = {GPSPM_RANGES_PACKED_MAX + 1, {{0, 1}}};
	assert_int_equal(gpspm_req_encode_ranged(&three_req, &many, GPSPM_RANGES_PACKED, buf,
		sizeof(buf), &len), -1);
	/* fio 3.33's decoder: an unknown field */
	struct gpspm_req r = sentinel;
	len = encode_three_packed(buf, sizeof(buf));
	assert_int_equal(gpspm_req_decode(buf, len, &r, why, sizeof(why)), GPSPM_MSG_UNKNOWN);
	assert_non_null(strstr(why, "unknown field 16"));
}

/*
 * gpspm_ranges_packed_max(limit) ranges always fit, however far apart, when no
 * value exceeds limit; a batch of depth 32 fits a memory of any size below 512 TiB
 */
static void packed_most_always_fit(void **state)
{
	(void)state;
	const uint64_t limits[] = {4096, 1 << 20, 16 << 20, 1ULL << 30, (1ULL << 40) - 1,
		1ULL << 40, (1ULL << 56) - 1, UINT64_MAX / 2};
	const uint32_t want[] = {64, 64, 60, 48, 40, 40, 30, 26};
	for (size_t t = 0; t < sizeof(limits) / sizeof(limits[0]); t++) {
		const uint64_t limit = limits[t];
		const uint32_t n = gpspm_ranges_packed_max(limit);
		assert_int_equal(n, want[t]);
		/* the worst case: each range 1 byte, the gaps as large as they can be */
		struct gpspm_ranges rg = {n, {{0, 0}}}, back;
		uint64_t gap = (limit - n) / n, at = 0;
		for (uint32_t i = 0; i < n; i++, at += gap + 1)
			rg.r[i] = (struct gpspm_range){at + gap, 1};
		struct gpspm_req req = {rg.r[0].offset, at - rg.r[0].offset, 1}, out;
		uint8_t buf[GPSPM_MSG_MAX];
		size_t len = 0;
		assert_int_equal(gpspm_req_encode_ranged(&req, &rg, GPSPM_RANGES_PACKED, buf,
			sizeof(buf), &len), 0);
		assert_int_equal(gpspm_req_decode_ranged(buf, len, &out, &back, why, sizeof(why)),
			GPSPM_MSG_OK);
		assert_int_equal(back.n, n);
		assert_memory_equal(back.r, rg.r, n * sizeof(rg.r[0]));
	}
	assert_true(gpspm_ranges_packed_max((1ULL << 49) - 1) >= 32);
}

/* every rule, each broken once, in the packed form */
static void packed_rejects(void **state)
{
	(void)state;
	uint8_t good[GPSPM_MSG_MAX], b[GPSPM_MSG_MAX + 64];
	const size_t len = encode_three_packed(good, sizeof(good));
	const size_t body = GPSPM_REQ_SIZE + 3;

	for (size_t cut = GPSPM_REQ_SIZE + 1; cut < len; cut++)
		expect_ranged_malformed(good, cut, "");
	/* the size cuts a varint (the second length): the field's end bounds it */
	memcpy(b, good, len);
	b[GPSPM_REQ_SIZE + 2] = 8;
	expect_ranged_malformed(b, body + 8, "cut off");
	/* empty; twice; beside field 15 */
	memcpy(b, good, len);
	b[GPSPM_REQ_SIZE + 2] = 0;
	expect_ranged_malformed(b, body, "is empty");
	memcpy(b, good, len);
	memcpy(b + len, good + GPSPM_REQ_SIZE, len - GPSPM_REQ_SIZE);
	expect_ranged_malformed(b, len + (len - GPSPM_REQ_SIZE), "come twice");
	uint8_t fixed[GPSPM_MSG_MAX];
	size_t flen = encode_three(fixed, sizeof(fixed));
	memcpy(b, fixed, flen);
	memcpy(b + flen, good + GPSPM_REQ_SIZE, len - GPSPM_REQ_SIZE);
	expect_ranged_malformed(b, flen + (len - GPSPM_REQ_SIZE), "come twice");
	/* touching: the second gap 0; an empty range: the first length 0 */
	memcpy(b, good, len);
	b[body + 4] = 0x80, b[body + 5] = 0x80, b[body + 6] = 0x00; /* 0, padded to 3 bytes */
	expect_ranged_malformed(b, len, "not above the previous one's end");
	memcpy(b, good, len);
	b[body + 2] = 0x80, b[body + 3] = 0x00;
	expect_ranged_malformed(b, len, "range 0");
	/* a gap that wraps the offset around; a varint of 11 bytes */
	memcpy(b, good, len);
	const uint8_t huge[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	memcpy(b + GPSPM_REQ_SIZE + 2, (uint8_t[]){4 + 10 + 1}, 1);
	memcpy(b + body, good + body, 4);
	memcpy(b + body + 4, huge, 10);
	b[body + 14] = 1;
	expect_ranged_malformed(b, body + 15, "wraps the offset around");
	memset(b + body, 0xff, 11);
	b[GPSPM_REQ_SIZE + 2] = 12;
	b[body + 11] = 1;
	expect_ranged_malformed(b, body + 12, "cut off");
	/* 65 ranges of 1 byte every 2 bytes */
	memcpy(b, good, GPSPM_REQ_SIZE);
	b[GPSPM_REQ_SIZE] = 0x82, b[GPSPM_REQ_SIZE + 1] = 0x01;
	b[GPSPM_REQ_SIZE + 2] = 130;
	b[GPSPM_REQ_SIZE + 3] = 1;
	for (int i = 0; i < 65; i++)
		b[GPSPM_REQ_SIZE + 4 + 2 * i] = 1, b[GPSPM_REQ_SIZE + 5 + 2 * i] = 1;
	expect_ranged_malformed(b, GPSPM_REQ_SIZE + 4 + 130, "more than 64 ranges");
	/* a span that is not the ranges' */
	memcpy(b, good, len);
	put64(b + 10, 1048576 + 1);
	expect_ranged_malformed(b, len, "is not the span of its ranges");
}

/* the server's judgement: each range within the workspace, the rest as ever */
static void ranged_check(void **state)
{
	(void)state;
	uint8_t buf[GPSPM_MSG_MAX];
	size_t len = encode_three(buf, sizeof(buf));
	struct gpspm_req r;
	struct gpspm_ranges rg;
	assert_int_equal(gpspm_req_check(buf, len, 1 << 24, &r, &rg, why, sizeof(why)),
		GPSPM_REQ_FLUSH);
	assert_int_equal(rg.n, 3);
	assert_int_equal(gpspm_req_bytes(&r, &rg), 16384);
	assert_int_equal(r.op_context, 77);
	/* the last range ends beyond a 1 MiB workspace */
	assert_int_equal(gpspm_req_check(buf, len, 1 << 20, &r, &rg, why, sizeof(why)),
		GPSPM_REQ_OUT_OF_RANGE);
	assert_non_null(strstr(why, "outside the 1048576-byte workspace"));
	/* a server that takes no ranges (rg NULL): an unknown field */
	assert_int_equal(gpspm_req_check(buf, len, 1 << 24, &r, NULL, why, sizeof(why)),
		GPSPM_REQ_MALFORMED);
	/* plain requests: the span's bytes; the last message */
	assert_int_equal(gpspm_req_check(last_golden, GPSPM_REQ_SIZE, 1 << 24, &r, &rg, why,
		sizeof(why)), GPSPM_REQ_LAST);
	assert_int_equal(rg.n, 0);
	struct gpspm_req plain = {4096, 8192, 1};
	assert_int_equal(gpspm_req_encode(&plain, buf, sizeof(buf), &len), 0);
	assert_int_equal(gpspm_req_check(buf, len, 1 << 24, &r, &rg, why, sizeof(why)),
		GPSPM_REQ_FLUSH);
	assert_int_equal(gpspm_req_bytes(&r, &rg), 8192);
	assert_int_equal(gpspm_req_bytes(&r, NULL), 8192);
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
		cmocka_unit_test(ranged_encode_golden),
		cmocka_unit_test(ranged_round_trip_most),
		cmocka_unit_test(ranged_unknown_to_plain_decoder),
		cmocka_unit_test(ranged_rejects),
		cmocka_unit_test(packed_encode_golden),
		cmocka_unit_test(packed_most_always_fit),
		cmocka_unit_test(packed_rejects),
		cmocka_unit_test(ranged_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
