/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_apm_test.c -- the APM client's flush (engines/librpma_apm.c, built
 * into this test whole: its hooks are static) against a stand-in for
 * rpma_flush() that records every flush posted, and stand-ins for the calls
 * that reach fio (common/report.h).
 *
 * client/io.c asks for one flush per batch over the batch's write span. A
 * native FLUSH carries a 32-bit length (librpma refuses a longer one), so a
 * longer span must become several flushes in order, whole pages each but the
 * last, only the last signalled; the emulating read takes the span whole.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <librpma.h>

/*
 * The method's rpma_flush() calls go to the stand-in below. Renamed rather than
 * defined over: the server's code linked with it pulls in librpma's ops.c, which
 * has the real one.
 */
#define rpma_flush stand_in_rpma_flush
int stand_in_rpma_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		size_t len, enum rpma_flush_type type, int flags, const void *op_context);

#include "librpma_apm.c"
#include "client/io.h"
#include "fio_report.h"

#define MAX_FLUSHES 300
#define GIB ((uint64_t)1 << 30)

/* ---- stand-ins: librpma ---- */

static char conn_, server_mr_;
#define CONN ((struct rpma_conn *)&conn_)
#define SERVER_MR ((struct rpma_mr_remote *)&server_mr_)

struct flush {
	uint64_t offset, len;
	enum rpma_flush_type type;
	int flags;
	const void *ctx;
};

static struct {
	struct flush f[MAX_FLUSHES];
	unsigned n;
	unsigned fail_at;	/* 1-based flush to refuse (0: none) */
} R;

int stand_in_rpma_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		size_t len, enum rpma_flush_type type, int flags, const void *op_context)
{
	assert_ptr_equal(conn, CONN);
	assert_ptr_equal(dst, SERVER_MR);
	if (R.n + 1 == R.fail_at)
		return RPMA_E_PROVIDER;
	assert_true(R.n < MAX_FLUSHES);
	R.f[R.n++] = (struct flush){dst_offset, len, type, flags, op_context};
	return 0;
}

/* ---- the client under test ---- */

static struct rpmafio_client C;
static struct apm_client A;
static struct rpmafio_io last_io;	/* the batch's last I/O: only its address matters */

static void client_on(enum rpmafio_flush_path path)
{
	memset(&R, 0, sizeof(R));
	memset(&fio_report, 0, sizeof(fio_report));
	memset(&C, 0, sizeof(C));
	A = (struct apm_client){.flush_type = RPMA_FLUSH_TYPE_PERSISTENT, .path = path};
	C.conn = CONN;
	C.server_mr = SERVER_MR;
	C.priv = &A;
}

/* the batch's flush over one written range */
static int flush_one(uint64_t offset, uint64_t len)
{
	struct rpmafio_range r = {offset, len};
	struct rpmafio_ranges rl = {&r, 1, 1};
	return rpmafio_method_flush(&C, &rl, &last_io);
}

/* a batch of random writes: a native FLUSH per range, in order, only the last signalled */
static void native_one_flush_per_range(void **state)
{
	(void)state;
	struct rpmafio_range r[3] = {{0, 4096}, {65536, 8192}, {1048576, 4096}};
	struct rpmafio_ranges rl = {r, 3, 3};
	client_on(RPMAFIO_FLUSH_NATIVE);
	assert_int_equal(rpmafio_method_flush(&C, &rl, &last_io), 0);
	assert_int_equal(R.n, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(R.f[i].offset, r[i].offset);
		assert_int_equal(R.f[i].len, r[i].len);
		assert_int_equal(R.f[i].flags, i == 2 ? RPMA_F_COMPLETION_ALWAYS :
			RPMA_F_COMPLETION_ON_ERROR);
		assert_ptr_equal(R.f[i].ctx, &last_io);
	}
	assert_int_equal(rl.n, 3); /* asked for: the ranges, untouched */
	assert_int_equal(A.flushes, 1);
	assert_int_equal(A.unsignalled_flushes, 2);
}

/* the emulating read makes every earlier write durable: one, over the span */
static void emulated_ranges_one_flush(void **state)
{
	(void)state;
	struct rpmafio_range r[2] = {{4096, 4096}, {65536, 4096}};
	struct rpmafio_ranges rl = {r, 2, 2};
	client_on(RPMAFIO_FLUSH_EMULATED);
	assert_int_equal(rpmafio_method_flush(&C, &rl, &last_io), 0);
	assert_int_equal(R.n, 1);
	assert_int_equal(R.f[0].offset, 4096);
	assert_int_equal(R.f[0].len, 65536);
	assert_int_equal(R.f[0].flags, RPMA_F_COMPLETION_ALWAYS);
}

/*
 * The flushes recorded cover [offset, offset + len) in order, without gap or
 * overlap, each at most UINT32_MAX bytes and whole pages but the last, only the
 * last signalled, every one naming the batch's last I/O.
 */
static void assert_covered(uint64_t offset, uint64_t len, unsigned nflushes)
{
	assert_int_equal(R.n, nflushes);
	uint64_t next = offset;
	for (unsigned i = 0; i < R.n; i++) {
		const struct flush *f = &R.f[i];
		const bool final = i == R.n - 1;
		assert_int_equal(f->offset, next);
		assert_true(f->len <= UINT32_MAX);
		if (!final)
			assert_int_equal(f->len % 4096, 0);
		assert_int_equal(f->flags, final ? RPMA_F_COMPLETION_ALWAYS :
			RPMA_F_COMPLETION_ON_ERROR);
		assert_ptr_equal(f->ctx, &last_io);
		assert_int_equal(f->type, RPMA_FLUSH_TYPE_PERSISTENT);
		next += f->len;
	}
	assert_int_equal(next, offset + len);
}

static void native_span_within_one_flush_is_one_flush(void **state)
{
	(void)state;
	client_on(RPMAFIO_FLUSH_NATIVE);
	assert_int_equal(flush_one(4096, 1 * GIB), 0);
	assert_covered(4096, 1 * GIB, 1);
}

static void native_span_over_4_gib_is_split_in_order(void **state)
{
	(void)state;
	client_on(RPMAFIO_FLUSH_NATIVE);
	assert_int_equal(flush_one(4096, 5 * GIB), 0);
	assert_covered(4096, 5 * GIB, 2);
	assert_int_equal(fio_report.fails, 0);
}

/* the boundaries: UINT32_MAX bytes would need an unaligned first piece */
static void native_split_boundaries(void **state)
{
	(void)state;
	static const struct {
		uint64_t len;
		unsigned nflushes;
	} cases[] = {
		{(uint64_t)UINT32_MAX - 4095, 1},
		{(uint64_t)UINT32_MAX - 4094, 2},
		{(uint64_t)UINT32_MAX, 2},
		{(uint64_t)UINT32_MAX + 1, 2},
		{1024 * GIB, 257},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		client_on(RPMAFIO_FLUSH_NATIVE);
		assert_int_equal(flush_one(12345, cases[i].len), 0);
		assert_covered(12345, cases[i].len, cases[i].nflushes);
	}
}

/* the emulating read sends none of the length: one flush, the span whole */
static void emulated_span_over_4_gib_is_one_flush(void **state)
{
	(void)state;
	client_on(RPMAFIO_FLUSH_EMULATED);
	assert_int_equal(flush_one(0, 5 * GIB), 0);
	assert_int_equal(R.n, 1);
	assert_int_equal(R.f[0].offset, 0);
	assert_int_equal(R.f[0].len, 5 * GIB);
	assert_int_equal(R.f[0].flags, RPMA_F_COMPLETION_ALWAYS);
}

/* a piece refused: the hook fails at once, naming it; nothing after it is posted */
static void native_piece_refused_stops_the_flush(void **state)
{
	(void)state;
	client_on(RPMAFIO_FLUSH_NATIVE);
	R.fail_at = 2;
	assert_int_equal(flush_one(0, 10 * GIB), -1);
	assert_int_equal(R.n, 1);
	assert_int_equal(fio_report.fails, 1);
	assert_non_null(strstr(fio_report.msg, "cannot post a flush of"));
}

/*
 * The closing note counts one flush per batch (the signalled one, whose
 * completion shows its path): the matrix compares it with the native
 * completions, which unsignalled pieces never produce.
 */
static void note_counts_one_flush_per_batch(void **state)
{
	(void)state;
	client_on(RPMAFIO_FLUSH_NATIVE);
	assert_int_equal(flush_one(0, 5 * GIB), 0);
	assert_int_equal(flush_one(0, 4096), 0);
	struct ibv_wc wc = {.opcode = APM_WC_FLUSH, .wr_id = (uintptr_t)&last_io};
	struct rpmafio_io *done = NULL;
	for (int i = 0; i < 2; i++)
		assert_int_equal(rpmafio_method_completion(&C, &wc, &done), RPMAFIO_COMPLETES_IO);
	assert_ptr_equal(done, &last_io);
	apm_client_finish(&C);
	assert_non_null(strstr(fio_report.note, "2 flushes: 2 completed as the device's own RDMA FLUSH, "
		"0 as the emulating RDMA read"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(native_span_within_one_flush_is_one_flush),
		cmocka_unit_test(native_span_over_4_gib_is_split_in_order),
		cmocka_unit_test(native_split_boundaries),
		cmocka_unit_test(emulated_span_over_4_gib_is_one_flush),
		cmocka_unit_test(native_piece_refused_stops_the_flush),
		cmocka_unit_test(note_counts_one_flush_per_batch),
		cmocka_unit_test(native_one_flush_per_range),
		cmocka_unit_test(emulated_ranges_one_flush),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
