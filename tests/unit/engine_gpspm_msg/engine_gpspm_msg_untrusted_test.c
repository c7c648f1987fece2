/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_gpspm_msg_untrusted_test.c -- the GPSPM decoders on untrusted input:
 * empty, too long, truncated at every byte, wrong wire types, missing and
 * unknown fields, garbage, every one-byte mutation; and agreement with
 * protobuf-c (the code generated from gpspm_flush.proto).
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

/* ---- decoding bad input ---- */

void decode_empty(void **state)
{
	(void)state;
	struct gpspm_req r = sentinel;
	struct gpspm_resp p = {5};
	assert_int_equal(gpspm_req_decode(req_golden, 0, &r, why, sizeof(why)), GPSPM_MSG_EMPTY);
	assert_non_null(strstr(why, "empty flush request"));
	assert_int_equal(gpspm_req_decode(NULL, 27, &r, why, sizeof(why)), GPSPM_MSG_EMPTY);
	assert_int_equal(gpspm_resp_decode(resp_golden, 0, &p, why, sizeof(why)), GPSPM_MSG_EMPTY);
	assert_non_null(strstr(why, "empty flush response"));
	assert_untouched(&r);
	assert_true(p.op_context == 5);
}

void decode_too_long(void **state)
{
	(void)state;
	uint8_t big[GPSPM_MSG_MAX + 1];
	struct gpspm_req r = sentinel;
	memset(big, 0, sizeof(big));
	memcpy(big, req_golden, sizeof(req_golden));
	assert_int_equal(gpspm_req_decode(big, sizeof(big), &r, why, sizeof(why)),
		GPSPM_MSG_TOO_LONG);
	assert_non_null(strstr(why, "513 bytes: longer than the 512-byte maximum"));
	assert_int_equal(gpspm_resp_decode(big, sizeof(big), NULL, why, sizeof(why)),
		GPSPM_MSG_TOO_LONG);
	assert_untouched(&r);
}

/* every prefix of a valid request is rejected, with a reason */
void req_truncated_everywhere(void **state)
{
	(void)state;
	for (size_t len = 1; len < GPSPM_REQ_SIZE; len++) {
		struct gpspm_req r = sentinel;
		why[0] = '\0';
		enum gpspm_msg_status st = gpspm_req_decode(req_golden, len, &r, why, sizeof(why));
		if (len % 9 == 0) {
			/* cut between two fields: a well-formed message lacking a field */
			assert_int_equal(st, GPSPM_MSG_MISSING);
			assert_non_null(strstr(why, len == 9 ? "field 2 (length) is missing" :
				"field 3 (op_context) is missing"));
		} else {
			assert_int_equal(st, GPSPM_MSG_MALFORMED);
			assert_non_null(strstr(why, "truncated"));
		}
		assert_untouched(&r);
	}
	/* the exact message: field 3 lacks one byte */
	gpspm_req_decode(req_golden, GPSPM_REQ_SIZE - 1, NULL, why, sizeof(why));
	assert_non_null(strstr(why, "field 3 (op_context) at byte 18 needs 8 bytes, 7 left"));
}

void resp_truncated_everywhere(void **state)
{
	(void)state;
	for (size_t len = 1; len < GPSPM_RESP_SIZE; len++) {
		struct gpspm_resp r = {3};
		assert_int_equal(gpspm_resp_decode(resp_golden, len, &r, why, sizeof(why)),
			GPSPM_MSG_MALFORMED);
		assert_non_null(strstr(why, "truncated"));
		assert_true(r.op_context == 3);
	}
}

void req_missing_fields(void **state)
{
	(void)state;
	struct gpspm_req r = sentinel;
	uint8_t buf[18];
	/* offset and op_context only */
	memcpy(buf, req_golden, 9);
	memcpy(buf + 9, req_golden + 18, 9);
	assert_int_equal(gpspm_req_decode(buf, sizeof(buf), &r, why, sizeof(why)), GPSPM_MSG_MISSING);
	assert_non_null(strstr(why, "required field 2 (length) is missing"));
	/* length and op_context only */
	assert_int_equal(gpspm_req_decode(req_golden + 9, 18, &r, why, sizeof(why)),
		GPSPM_MSG_MISSING);
	assert_non_null(strstr(why, "required field 1 (offset) is missing"));
	assert_untouched(&r);
}

void req_wrong_wire_type(void **state)
{
	(void)state;
	struct gpspm_req r = sentinel;
	uint8_t buf[GPSPM_REQ_SIZE];
	/* offset as a varint (key 0x08) of the same 9 bytes: 0x08 0x05 + 7 bytes of padding */
	memcpy(buf, req_golden, sizeof(buf));
	buf[0] = 0x08;
	buf[1] = 0x05;
	assert_int_equal(gpspm_req_decode(buf, sizeof(buf), &r, why, sizeof(why)),
		GPSPM_MSG_MALFORMED);
	/* (the padding bytes are read as the next key; whichever comes first is named) */
	assert_true(strlen(why) > 0);
	/* only the wrong wire type: offset as varint 5, then length and op_context */
	uint8_t buf2[2 + 18] = {0x08, 0x05};
	memcpy(buf2 + 2, req_golden + 9, 18);
	assert_int_equal(gpspm_req_decode(buf2, sizeof(buf2), &r, why, sizeof(why)),
		GPSPM_MSG_MALFORMED);
	assert_non_null(strstr(why, "field 1 (offset) at byte 0 has wire type varint, expected "
		"64-bit"));
	/* length as a 32-bit field */
	uint8_t buf3[9 + 5 + 9] = {0};
	memcpy(buf3, req_golden, 9);
	buf3[9] = 0x15; /* field 2, wire type 5 */
	memcpy(buf3 + 14, req_golden + 18, 9);
	assert_int_equal(gpspm_req_decode(buf3, sizeof(buf3), &r, why, sizeof(why)),
		GPSPM_MSG_MALFORMED);
	assert_non_null(strstr(why, "field 2 (length) at byte 9 has wire type 32-bit"));
	/* op_context length-delimited */
	uint8_t buf4[18 + 10];
	memcpy(buf4, req_golden, 18);
	buf4[18] = 0x1a;
	buf4[19] = 8;
	memset(buf4 + 20, 1, 8);
	assert_int_equal(gpspm_req_decode(buf4, sizeof(buf4), &r, why, sizeof(why)),
		GPSPM_MSG_MALFORMED);
	assert_non_null(strstr(why, "length-delimited"));
	assert_untouched(&r);
}

void req_unknown_fields(void **state)
{
	(void)state;
	struct gpspm_req r = sentinel;
	uint8_t buf[GPSPM_REQ_SIZE + 9];
	/* a valid request plus field 4 (fixed64) */
	memcpy(buf, req_golden, GPSPM_REQ_SIZE);
	buf[GPSPM_REQ_SIZE] = 0x21;
	memset(buf + GPSPM_REQ_SIZE + 1, 0, 8);
	assert_int_equal(gpspm_req_decode(buf, sizeof(buf), &r, why, sizeof(why)), GPSPM_MSG_UNKNOWN);
	assert_non_null(strstr(why, "unknown field 4 (wire type 64-bit) at byte 27"));
	/* an unknown varint field first: field 100, key (100 << 3) | 0 = 0x320 -> a0 06 */
	uint8_t full[3 + GPSPM_REQ_SIZE] = {0xa0, 0x06, 0x01};
	memcpy(full + 3, req_golden, GPSPM_REQ_SIZE);
	assert_int_equal(gpspm_req_decode(full, sizeof(full), &r, why, sizeof(why)),
		GPSPM_MSG_UNKNOWN);
	assert_non_null(strstr(why, "unknown field 100 (wire type varint) at byte 0"));
	/* a response is not a request: its field 1 is known, but fields 2 and 3 missing */
	assert_int_equal(gpspm_req_decode(resp_golden, sizeof(resp_golden), &r, why, sizeof(why)),
		GPSPM_MSG_MISSING);
	/* a request is not a response: fields 2 and 3 are unknown to it */
	struct gpspm_resp p = {9};
	assert_int_equal(gpspm_resp_decode(req_golden, sizeof(req_golden), &p, why, sizeof(why)),
		GPSPM_MSG_UNKNOWN);
	assert_non_null(strstr(why, "flush response: unknown field 2"));
	assert_true(p.op_context == 9);
	assert_untouched(&r);
}

/* so many unknown fields that protobuf-c's arena runs out: still a clean rejection */
void req_many_unknown_fields(void **state)
{
	(void)state;
	uint8_t buf[GPSPM_MSG_MAX];
	struct gpspm_req r = sentinel;
	memcpy(buf, req_golden, GPSPM_REQ_SIZE);
	for (size_t i = GPSPM_REQ_SIZE; i + 1 < sizeof(buf); i += 2) {
		buf[i] = 0x20; /* field 4, varint */
		buf[i + 1] = 0x00;
	}
	size_t len = GPSPM_REQ_SIZE + ((sizeof(buf) - GPSPM_REQ_SIZE) & ~(size_t)1);
	assert_int_equal(gpspm_req_decode(buf, len, &r, why, sizeof(why)), GPSPM_MSG_UNKNOWN);
	assert_non_null(strstr(why, "unknown field 4"));
	assert_untouched(&r);
}

void req_bad_keys(void **state)
{
	(void)state;
	struct gpspm_req r = sentinel;
	/* field number 0 */
	uint8_t zero[9] = {0x01};
	assert_int_equal(gpspm_req_decode(zero, sizeof(zero), &r, why, sizeof(why)),
		GPSPM_MSG_MALFORMED);
	assert_non_null(strstr(why, "invalid field number 0 at byte 0"));
	/* a key that never ends */
	uint8_t endless[12];
	memset(endless, 0xff, sizeof(endless));
	assert_int_equal(gpspm_req_decode(endless, sizeof(endless), &r, why, sizeof(why)),
		GPSPM_MSG_MALFORMED);
	assert_non_null(strstr(why, "longer than 10 bytes"));
	/* a key cut off */
	uint8_t cut[3] = {0xff, 0xff, 0xff};
	assert_int_equal(gpspm_req_decode(cut, sizeof(cut), &r, why, sizeof(why)),
		GPSPM_MSG_MALFORMED);
	assert_non_null(strstr(why, "key at byte 0 is cut off"));
	/* a field number beyond the protobuf maximum */
	uint8_t huge[6] = {0xf8, 0xff, 0xff, 0xff, 0x7f, 0x00};
	assert_int_equal(gpspm_req_decode(huge, sizeof(huge), &r, why, sizeof(why)),
		GPSPM_MSG_MALFORMED);
	/* group wire types */
	uint8_t group[2] = {0x0b, 0x0c};
	assert_int_not_equal(gpspm_req_decode(group, sizeof(group), &r, why, sizeof(why)),
		GPSPM_MSG_OK);
	assert_untouched(&r);
}

void garbage_never_decodes_wrongly(void **state)
{
	(void)state;
	uint8_t buf[GPSPM_MSG_MAX + 8];
	srand(7);
	for (int i = 0; i < 20000; i++) {
		size_t len = (size_t)rand() % sizeof(buf);
		for (size_t j = 0; j < len; j++)
			buf[j] = (uint8_t)rand();
		struct gpspm_req r = sentinel;
		why[0] = '\0';
		enum gpspm_msg_status st = gpspm_req_decode(buf, len, &r, why, sizeof(why));
		if (st == GPSPM_MSG_OK)
			continue; /* possible in principle: then it is a real request */
		assert_true(strlen(why) > 0);
		assert_untouched(&r);
		struct gpspm_resp p = {11};
		if (gpspm_resp_decode(buf, len, &p, why, sizeof(why)) != GPSPM_MSG_OK)
			assert_true(p.op_context == 11);
	}
}

/* protobuf-c's verdict on a request: accepted (no unknown field kept) with its values */
static bool pbc_req(const uint8_t *buf, size_t len, struct gpspm_req *out)
{
	GpspmReq *m = gpspm_req__unpack(NULL, len, buf);
	bool ok = m && m->base.n_unknown_fields == 0;
	if (ok)
		*out = (struct gpspm_req){m->offset, m->length, m->op_context};
	if (m)
		gpspm_req__free_unpacked(m, NULL);
	return ok;
}

static uint64_t rand64(void)
{
	return ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ (uint64_t)rand();
}

/* our encoders write protobuf-c's bytes */
void encoders_agree_with_protobuf_c(void **state)
{
	(void)state;
	srand(11);
	for (int i = 0; i < 1000; i++) {
		struct gpspm_req r = {rand64(), rand64(), rand64()};
		GpspmReq m = GPSPM_REQ__INIT;
		m.offset = r.offset;
		m.length = r.length;
		m.op_context = r.op_context;
		uint8_t ours[GPSPM_MSG_MAX], theirs[GPSPM_MSG_MAX];
		size_t len = 0;
		assert_int_equal(gpspm_req_encode(&r, ours, sizeof(ours), &len), 0);
		assert_int_equal(gpspm_req__pack(&m, theirs), len);
		assert_memory_equal(ours, theirs, len);

		struct gpspm_resp p = {rand64()};
		GpspmResp n = GPSPM_RESP__INIT;
		n.op_context = p.op_context;
		assert_int_equal(gpspm_resp_encode(&p, ours, sizeof(ours), &len), 0);
		assert_int_equal(gpspm_resp__pack(&n, theirs), len);
		assert_memory_equal(ours, theirs, len);
	}
}

/*
 * messages of 0..5 random fields (numbers 1..4, any wire type, values of the
 * right and wrong lengths, cut anywhere): our decoder accepts exactly what
 * protobuf-c accepts, with the same values
 */
void decoder_agrees_with_protobuf_c(void **state)
{
	(void)state;
	static const unsigned wire_len[8] = {0, 8, 0, 0, 0, 4, 0, 0};
	unsigned accepted = 0;
	srand(13);
	for (int i = 0; i < 50000; i++) {
		uint8_t buf[64];
		size_t len = 0;
		unsigned nfields = (unsigned)rand() % 6;
		for (unsigned f = 0; f < nfields; f++) {
			unsigned number = 1 + (unsigned)rand() % 4;
			/* mostly fixed64, the message's only wire type */
			unsigned wt = rand() % 4 ? 1 : (unsigned)rand() % 6;
			buf[len++] = (uint8_t)(number << 3 | wt);
			if (wt == 0) {
				buf[len++] = (uint8_t)(rand() & 0x7f);
			} else if (wt == 2) {
				buf[len++] = 2;
				buf[len++] = (uint8_t)rand();
				buf[len++] = (uint8_t)rand();
			} else {
				for (unsigned b = 0; b < wire_len[wt]; b++)
					buf[len++] = (uint8_t)rand();
			}
		}
		if (len && rand() % 8 == 0)
			len = (size_t)rand() % len; /* cut off */
		struct gpspm_req ours = sentinel, theirs;
		bool ok = gpspm_req_decode(buf, len, &ours, NULL, 0) == GPSPM_MSG_OK;
		assert_int_equal(ok, len > 0 && pbc_req(buf, len, &theirs));
		if (ok) {
			accepted++;
			assert_memory_equal(&ours, &theirs, sizeof(ours));
		}
	}
	assert_true(accepted > 1000); /* the comparison saw valid messages, not only rejections */
}

/* every one-byte change of a valid request: either still a request, or a clean rejection */
void every_mutation(void **state)
{
	(void)state;
	uint8_t buf[GPSPM_REQ_SIZE];
	unsigned ok = 0, bad = 0;
	for (size_t pos = 0; pos < GPSPM_REQ_SIZE; pos++) {
		for (unsigned v = 0; v < 256; v++) {
			memcpy(buf, req_golden, sizeof(buf));
			buf[pos] = (uint8_t)v;
			struct gpspm_req r = sentinel;
			why[0] = '\0';
			if (gpspm_req_decode(buf, sizeof(buf), &r, why, sizeof(why)) == GPSPM_MSG_OK) {
				ok++;
				/* a key byte may only be its own value: the other fields stay */
				if (pos % 9 == 0)
					assert_int_equal(v, req_golden[pos]);
			} else {
				bad++;
				assert_true(strlen(why) > 0);
				assert_untouched(&r);
			}
		}
	}
	assert_int_equal(ok, 24 * 256 + 3);
	assert_int_equal(bad, 3 * 255);
}
