/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_workspace_test.c -- the server's private data ("workspace"): golden
 * bytes, compatibility with fio 3.33's in-tree librpma engines, untrusted input,
 * and a round trip through a real librpma descriptor (on the fake provider).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "fake_provider.h"
#include "test_log.h"
#include "common/workspace.h"

static char err[256];

/* a 21-byte librpma descriptor: addr 0x1122334455667788, len 0x200000, rkey 0xa1b2c3d4, usage 0x39 */
static const uint8_t desc21[21] = {
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xd4, 0xc3, 0xb2, 0xa1,
	0x39,
};

/* what a server sends, byte by byte */
static const uint8_t golden[RPMAFIO_WS_SIZE] = {
	0x34, 0x12,	/* max_msg_num 0x1234, little-endian */
	0x01,		/* direct_write_to_pmem */
	21,		/* mr_desc_size */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
	0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xd4, 0xc3, 0xb2, 0xa1,
	0x39,
	0x00, 0x00, 0x00, /* the unused end of descriptor[24] */
	0x01,		/* flags: the region takes a native FLUSH */
	0x00,		/* offers: none */
};

static struct rpmafio_ws golden_ws(void)
{
	struct rpmafio_ws ws = {.max_msg_num = 0x1234, .direct_write_to_pmem = true,
		.mr_desc_size = 21, .flush_native = true};
	memcpy(ws.mr_desc, desc21, sizeof(desc21));
	return ws;
}

static void encode_golden(void **state)
{
	(void)state;
	uint8_t out[RPMAFIO_WS_SIZE];
	memset(out, 0xee, sizeof(out));
	struct rpmafio_ws ws = golden_ws();
	ws.mr_desc[22] = 0x77; /* beyond mr_desc_size: must not be sent */
	assert_int_equal(rpmafio_ws_encode(&ws, out), 0);
	assert_memory_equal(out, golden, sizeof(golden));
	assert_int_equal(RPMAFIO_WS_SIZE, 30);
}

static void encode_invalid(void **state)
{
	(void)state;
	uint8_t out[RPMAFIO_WS_SIZE];
	struct rpmafio_ws ws = golden_ws();
	ws.mr_desc_size = 25;
	assert_int_equal(rpmafio_ws_encode(&ws, out), -1);
	assert_int_equal(rpmafio_ws_encode(NULL, out), -1);
}

static void decode_golden(void **state)
{
	(void)state;
	struct rpmafio_ws ws;
	assert_int_equal(rpmafio_ws_decode(golden, sizeof(golden), &ws, err, sizeof(err)), 0);
	assert_int_equal(ws.max_msg_num, 0x1234);
	assert_true(ws.direct_write_to_pmem);
	assert_int_equal(ws.mr_desc_size, 21);
	assert_memory_equal(ws.mr_desc, desc21, sizeof(desc21));
	assert_true(ws.flush_native);
}

/*
 * fio 3.33's struct librpma_fio_workspace, as its server fills it (x86-64):
 * our first 28 bytes. Declared here only to check the layout we decode.
 */
struct fio333_workspace {
	uint16_t max_msg_num;
	uint8_t direct_write_to_pmem;
	uint8_t mr_desc_size;
	char descriptor[24];
};

static void fio333_layout(void **state)
{
	(void)state;
	_Static_assert(sizeof(struct fio333_workspace) == RPMAFIO_WS_FIO333_SIZE, "28 bytes");
	_Static_assert(RPMAFIO_WS_FLAGS_OFF == sizeof(struct fio333_workspace), "flags after");
	_Static_assert(offsetof(struct fio333_workspace, descriptor) == RPMAFIO_WS_HDR_SIZE,
		"descriptor at 4");
	struct fio333_workspace theirs = {0};
	theirs.max_msg_num = 0x1234;
	theirs.direct_write_to_pmem = 1;
	theirs.mr_desc_size = 21;
	memcpy(theirs.descriptor, desc21, sizeof(desc21));
	/* their server's bytes are ours, but for the flags byte they do not send */
	assert_memory_equal(&theirs, golden, sizeof(theirs));
	struct rpmafio_ws from_theirs;
	assert_int_equal(rpmafio_ws_decode(&theirs, sizeof(theirs), &from_theirs, err,
		sizeof(err)), 0);
	assert_false(from_theirs.flush_native);
	assert_false(from_theirs.ranged_flush); /* their GPSPM server: plain requests */
	/* and ours decode as theirs (an APM server: max_msg_num 0, no direct write) */
	struct rpmafio_ws ws = golden_ws();
	uint8_t out[RPMAFIO_WS_SIZE];
	ws.max_msg_num = 0;
	ws.direct_write_to_pmem = false;
	assert_int_equal(rpmafio_ws_encode(&ws, out), 0);
	struct fio333_workspace got;
	memcpy(&got, out, sizeof(got));
	assert_int_equal(got.max_msg_num, 0);
	assert_int_equal(got.direct_write_to_pmem, 0);
	assert_int_equal(got.mr_desc_size, 21);
	assert_memory_equal(got.descriptor, desc21, sizeof(desc21));
}

/* an RDMA CM reply over RoCE delivers a fixed-size field: the rest is zero padding */
static void decode_padded_and_minimal(void **state)
{
	(void)state;
	uint8_t padded[196] = {0};
	struct rpmafio_ws ws;
	memcpy(padded, golden, sizeof(golden));
	assert_int_equal(rpmafio_ws_decode(padded, sizeof(padded), &ws, err, sizeof(err)), 0);
	assert_int_equal(ws.mr_desc_size, 21);
	assert_memory_equal(ws.mr_desc, desc21, sizeof(desc21));
	assert_true(ws.flush_native);
	/* a fio 3.33 server's 28 bytes, padded: the flags byte is a zero of the padding */
	padded[RPMAFIO_WS_FLAGS_OFF] = 0;
	assert_int_equal(rpmafio_ws_decode(padded, sizeof(padded), &ws, err, sizeof(err)), 0);
	assert_false(ws.flush_native);
	/* exactly the header and the announced descriptor is enough */
	assert_int_equal(rpmafio_ws_decode(golden, 4 + 21, &ws, err, sizeof(err)), 0);
}

static void decode_untrusted(void **state)
{
	(void)state;
	struct rpmafio_ws ws = {.max_msg_num = 7};
	uint8_t b[RPMAFIO_WS_SIZE];

	assert_int_equal(rpmafio_ws_decode(NULL, 28, &ws, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no private data"));
	assert_int_equal(rpmafio_ws_decode(golden, 0, &ws, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no private data"));
	assert_int_equal(rpmafio_ws_decode(golden, 3, &ws, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "3 bytes"));

	memcpy(b, golden, sizeof(b));
	b[2] = 2;
	assert_int_equal(rpmafio_ws_decode(b, sizeof(b), &ws, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "direct_write_to_pmem is 2"));

	memcpy(b, golden, sizeof(b));
	b[3] = 0;
	assert_int_equal(rpmafio_ws_decode(b, sizeof(b), &ws, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "0-byte"));
	b[3] = 25;
	assert_int_equal(rpmafio_ws_decode(b, sizeof(b), &ws, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "25-byte"));
	b[3] = 255;
	assert_int_equal(rpmafio_ws_decode(b, sizeof(b), &ws, err, sizeof(err)), -1);

	/* mr_desc_size bigger than what arrived */
	assert_int_equal(rpmafio_ws_decode(golden, 4 + 20, &ws, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "holds only 20 bytes"));

	/* a flag this side does not know: refused, not ignored */
	uint8_t f[RPMAFIO_WS_SIZE];
	memcpy(f, golden, sizeof(f));
	f[RPMAFIO_WS_FLAGS_OFF] = 0x81;
	assert_int_equal(rpmafio_ws_decode(f, sizeof(f), &ws, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown flags 0x81 at byte 28"));

	assert_int_equal(ws.max_msg_num, 7); /* untouched on failure */
	/* no error buffer: still fails cleanly */
	assert_int_equal(rpmafio_ws_decode(golden, 2, &ws, NULL, 0), -1);
}

/*
 * The offers byte (29): a GPSPM server taking ranged flush requests, apart from
 * the flags; both ways; missing (fio 3.33's 28 bytes, an older server of ours'
 * 29) means no offer; an offer this side does not know is ignored, a flag not.
 */
static void offers_byte(void **state)
{
	(void)state;
	struct rpmafio_ws ws = golden_ws(), back;
	uint8_t out[RPMAFIO_WS_SIZE];
	ws.ranged_flush = true;
	assert_int_equal(rpmafio_ws_encode(&ws, out), 0);
	assert_int_equal(out[RPMAFIO_WS_FLAGS_OFF], RPMAFIO_WS_FLUSH_NATIVE);
	assert_int_equal(out[RPMAFIO_WS_OFFERS_OFF], RPMAFIO_WS_RANGED_FLUSH);
	assert_memory_equal(out, golden, RPMAFIO_WS_OFFERS_OFF); /* the rest as before */
	assert_int_equal(rpmafio_ws_decode(out, sizeof(out), &back, err, sizeof(err)), 0);
	assert_true(back.ranged_flush && back.flush_native);
	ws.flush_native = false;
	assert_int_equal(rpmafio_ws_encode(&ws, out), 0);
	assert_int_equal(out[RPMAFIO_WS_FLAGS_OFF], 0);
	assert_int_equal(rpmafio_ws_decode(out, sizeof(out), &back, err, sizeof(err)), 0);
	assert_true(back.ranged_flush && !back.flush_native);
	/* 28 bytes (fio 3.33's server), 29 (ours before the offers): no offer */
	assert_int_equal(rpmafio_ws_decode(out, RPMAFIO_WS_FIO333_SIZE, &back, err, sizeof(err)), 0);
	assert_false(back.ranged_flush);
	assert_int_equal(rpmafio_ws_decode(out, RPMAFIO_WS_OFFERS_OFF, &back, err, sizeof(err)), 0);
	assert_false(back.ranged_flush);
	/* an offer not known here: ignored, the known one still read */
	out[RPMAFIO_WS_OFFERS_OFF] = 0xfc;
	assert_int_equal(rpmafio_ws_decode(out, sizeof(out), &back, err, sizeof(err)), 0);
	assert_false(back.ranged_flush || back.packed_ranges);
	out[RPMAFIO_WS_OFFERS_OFF] = 0xff;
	assert_int_equal(rpmafio_ws_decode(out, sizeof(out), &back, err, sizeof(err)), 0);
	assert_true(back.ranged_flush && back.packed_ranges);
	/* bit 1: packed ranges (field 16), beside bit 0 */
	ws.packed_ranges = true;
	assert_int_equal(rpmafio_ws_encode(&ws, out), 0);
	assert_int_equal(out[RPMAFIO_WS_OFFERS_OFF], RPMAFIO_WS_RANGED_FLUSH | RPMAFIO_WS_PACKED_RANGES);
	assert_int_equal(rpmafio_ws_decode(out, sizeof(out), &back, err, sizeof(err)), 0);
	assert_true(back.ranged_flush && back.packed_ranges);
	out[RPMAFIO_WS_OFFERS_OFF] = RPMAFIO_WS_RANGED_FLUSH; /* a server of ours before it */
	assert_int_equal(rpmafio_ws_decode(out, sizeof(out), &back, err, sizeof(err)), 0);
	assert_true(back.ranged_flush && !back.packed_ranges);
}

/* fixtures: tests/unit/common/test_log.h */
#define setup test_setup_quiet
#define teardown test_teardown_no_leaks

/* server: register, describe, encode; client: decode, rpma_mr_remote_from_descriptor */
static void round_trip_librpma(void **state)
{
	(void)state;
	static char mem[1 << 16];
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_mr_remote *rmr = NULL;
	size_t desc_size = 0, size = 0;
	int flush = 0;

	assert_int_equal(rpma_peer_new(fake_ibv_context(), &peer), 0);
	assert_int_equal(rpma_mr_reg(peer, mem, sizeof(mem), RPMA_MR_USAGE_WRITE_DST |
		RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, &mr), 0);
	assert_int_equal(rpma_mr_get_descriptor_size(mr, &desc_size), 0);
	assert_true(desc_size <= RPMAFIO_WS_DESC_MAX);

	struct rpmafio_ws ws = {.direct_write_to_pmem = true, .mr_desc_size = (uint8_t)desc_size};
	assert_int_equal(rpma_mr_get_descriptor(mr, ws.mr_desc), 0);
	uint8_t wire[RPMAFIO_WS_SIZE];
	assert_int_equal(rpmafio_ws_encode(&ws, wire), 0);

	struct rpmafio_ws got;
	assert_int_equal(rpmafio_ws_decode(wire, sizeof(wire), &got, err, sizeof(err)), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(got.mr_desc, got.mr_desc_size, &rmr), 0);
	assert_int_equal(rpma_mr_remote_get_size(rmr, &size), 0);
	assert_int_equal(size, sizeof(mem));
	assert_int_equal(rpma_mr_remote_get_flush_type(rmr, &flush), 0);
	assert_int_equal(flush, RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_true(got.direct_write_to_pmem);

	assert_int_equal(rpma_mr_remote_delete(&rmr), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* a structurally valid workspace with a bad descriptor: the library rejects it */
static void bad_descriptor(void **state)
{
	(void)state;
	struct rpmafio_ws ws;
	struct rpma_mr_remote *rmr = NULL;
	uint8_t b[RPMAFIO_WS_SIZE];

	memcpy(b, golden, sizeof(b));
	b[4 + 20] = 0; /* usage: none, a region nobody may use */
	assert_int_equal(rpmafio_ws_decode(b, sizeof(b), &ws, err, sizeof(err)), 0);
	assert_int_not_equal(rpma_mr_remote_from_descriptor(ws.mr_desc, ws.mr_desc_size, &rmr), 0);
	assert_null(rmr);

	/* a region wrapping the address space */
	memcpy(b, golden, sizeof(b));
	memset(b + 4, 0xff, 8);
	assert_int_equal(rpmafio_ws_decode(b, sizeof(b), &ws, err, sizeof(err)), 0);
	assert_int_not_equal(rpma_mr_remote_from_descriptor(ws.mr_desc, ws.mr_desc_size, &rmr), 0);
	assert_null(rmr);

	/* a descriptor of the wrong size */
	memcpy(b, golden, sizeof(b));
	b[3] = 20;
	assert_int_equal(rpmafio_ws_decode(b, sizeof(b), &ws, err, sizeof(err)), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(ws.mr_desc, ws.mr_desc_size, &rmr),
		RPMA_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(encode_golden),
		cmocka_unit_test(encode_invalid),
		cmocka_unit_test(decode_golden),
		cmocka_unit_test(fio333_layout),
		cmocka_unit_test(decode_padded_and_minimal),
		cmocka_unit_test(decode_untrusted),
		cmocka_unit_test(offers_byte),
		cmocka_unit_test_setup_teardown(round_trip_librpma, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_descriptor, setup, teardown),
	};
	return cmocka_run_group_tests_name("engine_workspace", tests, NULL, NULL);
}
