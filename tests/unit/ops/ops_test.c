/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ops_test.c -- the operations on a connection: the argument checks each
 * manual page lists, what gets posted and provider failures; the hot path and
 * batches are ops_batch_test.c's, the fixture ops_fixture.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "conn.h"
#include "conn_cfg.h"
#include "cq.h"
#include "mr.h"
#include "peer.h"
#include "provider.h"
#include "fake_provider.h"
#include "test_log.h"
#include "ops_test.h"

/* ---- read, write, write with immediate data: one shape, one table ---- */

typedef int rma_fn(struct rpma_conn *conn, struct rpma_mr_local *local, size_t local_offset,
		struct rpma_mr_remote *remote, size_t remote_offset, size_t len, int flags,
		const void *op_context);

static int do_read(struct rpma_conn *conn, struct rpma_mr_local *local, size_t local_offset,
		struct rpma_mr_remote *remote, size_t remote_offset, size_t len, int flags,
		const void *op_context)
{
	return rpma_read(conn, local, local_offset, remote, remote_offset, len, flags, op_context);
}

static int do_write(struct rpma_conn *conn, struct rpma_mr_local *local, size_t local_offset,
		struct rpma_mr_remote *remote, size_t remote_offset, size_t len, int flags,
		const void *op_context)
{
	return rpma_write(conn, remote, remote_offset, local, local_offset, len, flags,
		op_context);
}

static int do_write_imm(struct rpma_conn *conn, struct rpma_mr_local *local,
		size_t local_offset, struct rpma_mr_remote *remote, size_t remote_offset, size_t len,
		int flags, const void *op_context)
{
	return rpma_write_with_imm(conn, remote, remote_offset, local, local_offset, len, flags,
		IMM, op_context);
}

static const struct {
	rma_fn *fn;
	enum ibv_wr_opcode opcode;
	const char *logged_as; /* in a failed post's log line */
} rma_ops[] = {
	{do_read, IBV_WR_RDMA_READ, "RDMA_READ"},
	{do_write, IBV_WR_RDMA_WRITE, "RDMA_WRITE"},
	{do_write_imm, IBV_WR_RDMA_WRITE_WITH_IMM, "RDMA_WRITE_WITH_IMM"},
};
#define N_RMA_OPS (sizeof(rma_ops) / sizeof(rma_ops[0]))

static void rma_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_mr_local *l = fx.local;
	struct rpma_mr_remote *r = fx.remote;
	const int F = RPMA_F_COMPLETION_ALWAYS;
	for (size_t i = 0; i < N_RMA_OPS; i++) {
		rma_fn *fn = rma_ops[i].fn;
		assert_int_equal(fn(NULL, l, 0, r, 0, 8, F, NULL), RPMA_E_INVAL);
		assert_int_equal(fn(fx.conn, l, 0, r, 0, 8, 0, NULL), RPMA_E_INVAL);
		/* one region without the other */
		assert_int_equal(fn(fx.conn, NULL, 0, r, 0, 0, F, NULL), RPMA_E_INVAL);
		assert_int_equal(fn(fx.conn, l, 0, NULL, 0, 0, F, NULL), RPMA_E_INVAL);
		/* no regions: offsets and length must be 0 */
		assert_int_equal(fn(fx.conn, NULL, 1, NULL, 0, 0, F, NULL), RPMA_E_INVAL);
		assert_int_equal(fn(fx.conn, NULL, 0, NULL, 1, 0, F, NULL), RPMA_E_INVAL);
		assert_int_equal(fn(fx.conn, NULL, 0, NULL, 0, 1, F, NULL), RPMA_E_INVAL);
		/* longer than a work request's 32-bit length: refused, not cut */
		assert_int_equal(fn(fx.conn, l, 0, r, 0, (size_t)UINT32_MAX + 1, F, NULL),
			RPMA_E_INVAL);
	}
	assert_int_equal(fake_posted.count, 0);
}

static void rma_posts(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_RMA_OPS; i++) {
		unsigned posted = fake_posted.count;
		assert_int_equal(rma_ops[i].fn(fx.conn, fx.local, 8, fx.remote, 16, 24,
			RPMA_F_COMPLETION_ALWAYS, &fx.ctx), 0);
		assert_int_equal(fake_posted.count, posted + 1);
		struct ibv_send_wr *wr = &fake_posted.send_wr;
		assert_int_equal(wr->opcode, rma_ops[i].opcode);
		assert_int_equal(wr->wr_id, addr_of(&fx.ctx));
		assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);
		assert_int_equal(wr->num_sge, 1);
		assert_int_equal(fake_posted.send_sge.addr, addr_of(fx.lbuf + 8));
		assert_int_equal(fake_posted.send_sge.length, 24);
		assert_int_equal(wr->wr.rdma.remote_addr, addr_of(fx.rbuf + 16));
		assert_int_equal(wr->wr.rdma.rkey, rpma_mr_remote_get_rkey(fx.remote));
		if (rma_ops[i].opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
			assert_int_equal(wr->imm_data, htonl(IMM));

		/* completion on error only: unsignaled */
		assert_int_equal(rma_ops[i].fn(fx.conn, fx.local, 0, fx.remote, 0, 8,
			RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
		assert_int_equal(fake_posted.send_wr.send_flags, 0);
		assert_int_equal(fake_posted.count, posted + 2);
	}
}

static void rma_zero_length(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_RMA_OPS; i++) {
		assert_int_equal(rma_ops[i].fn(fx.conn, NULL, 0, NULL, 0, 0,
			RPMA_F_COMPLETION_ALWAYS, &fx.ctx), 0);
		assert_int_equal(fake_posted.send_wr.opcode, rma_ops[i].opcode);
		assert_int_equal(fake_posted.send_wr.num_sge, 0);
		assert_int_equal(fake_posted.send_wr.wr_id, addr_of(&fx.ctx));
	}
	assert_int_equal(fake_posted.count, N_RMA_OPS);
}

static void rma_provider_failure(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_RMA_OPS; i++) {
		fake_fail("ibv_post_send", 1, ENOMEM);
		errno = 0;
		assert_int_equal(rma_ops[i].fn(fx.conn, fx.local, 8, fx.remote, 16, 24,
			RPMA_F_COMPLETION_ALWAYS, &fx.ctx), RPMA_E_PROVIDER);
		assert_int_equal(errno, ENOMEM);
		test_log_assert_line("ibv_post_send() failed: ENOMEM; work request: opcode=%s "
			"wr_id=0x%" PRIx64 " local_addr=0x%" PRIx64 " length=24 remote_addr=0x%" PRIx64
			" rkey=0x%" PRIx32 " send_flags=SIGNALED", rma_ops[i].logged_as,
			addr_of(&fx.ctx), addr_of(fx.lbuf + 8), addr_of(fx.rbuf + 16),
			rpma_mr_remote_get_rkey(fx.remote));
	}
	assert_int_equal(fake_posted.count, 0);
}

/* ---- atomic write ---- */

static void atomic_write_invalid_arguments(void **state)
{
	(void)state;
	const int F = RPMA_F_COMPLETION_ALWAYS;
	assert_int_equal(rpma_atomic_write(NULL, fx.remote, 0, atomic_bytes, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(fx.conn, NULL, 0, atomic_bytes, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(fx.conn, fx.remote, 0, NULL, F, NULL), RPMA_E_INVAL);
	for (size_t off = 1; off < RPMA_ATOMIC_WRITE_ALIGNMENT; off++)
		assert_int_equal(rpma_atomic_write(fx.conn, fx.remote, off, atomic_bytes, F, NULL),
			RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(fx.conn, fx.remote, 0, atomic_bytes, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(fake_posted.count, 0);
}

static void atomic_write_emulated(void **state)
{
	(void)state;
	assert_int_equal(rpma_atomic_write(fx.conn, fx.remote, 16, atomic_bytes,
		RPMA_F_COMPLETION_ALWAYS, &fx.ctx), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_null(fake_posted.wr_op);
	struct ibv_send_wr *wr = &fake_posted.send_wr;
	assert_int_equal(wr->opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE | IBV_SEND_FENCE);
	assert_int_equal(wr->num_sge, 1);
	assert_memory_equal((const void *)(uintptr_t)fake_posted.send_sge.addr, atomic_bytes, 8);
	assert_int_equal(fake_posted.send_sge.length, 8);
	assert_int_equal(wr->wr.rdma.remote_addr, addr_of(fx.rbuf + 16));
	assert_int_equal(wr->wr_id, addr_of(&fx.ctx));

	fake_fail(post_call, 1, EIO);
	assert_int_equal(rpma_atomic_write(fx.conn, fx.remote, 0, atomic_bytes,
		RPMA_F_COMPLETION_ALWAYS, NULL), RPMA_E_PROVIDER);
}

static void atomic_write_native(void **state)
{
	(void)state;
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	assert_true(rpma_conn_has_native_atomic_write(fx.conn));
	assert_int_equal(rpma_atomic_write(fx.conn, fx.remote, 24, atomic_bytes,
		RPMA_F_COMPLETION_ALWAYS, &fx.ctx), 0);
	assert_string_equal(fake_posted.wr_op, "atomic_write");
	assert_memory_equal(fake_posted.wr_atomic_data, atomic_bytes, 8);
	assert_int_equal(fake_posted.wr_remote_addr, addr_of(fx.rbuf + 24));
	assert_int_equal(fake_posted.wr_rkey, rpma_mr_remote_get_rkey(fx.remote));
	assert_int_equal(fake_posted.wr_id, addr_of(&fx.ctx));
	assert_true(fake_posted.wr_flags & IBV_SEND_SIGNALED);
	assert_int_equal(fake_posted.send_wr.opcode, 0); /* nothing through ibv_post_send */

	fake_fail("ibv_wr_complete", 1, EIO);
	assert_int_equal(rpma_atomic_write(fx.conn, fx.remote, 0, atomic_bytes,
		RPMA_F_COMPLETION_ALWAYS, NULL), RPMA_E_PROVIDER);
#else
	assert_false(rpma_conn_has_native_atomic_write(fx.conn));
	skip();
#endif
}

/* ---- the deprecated atomic write from a registered source ---- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void write_atomic_invalid_arguments(void **state)
{
	(void)state;
	const int F = RPMA_F_COMPLETION_ALWAYS;
	struct rpma_mr_local *l = fx.local;
	struct rpma_mr_remote *r = fx.remote;
	assert_int_equal(rpma_write_atomic(NULL, r, 0, l, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(fx.conn, NULL, 0, l, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(fx.conn, r, 0, NULL, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(fx.conn, r, 4, l, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(fx.conn, r, 0, l, 0, 0, NULL), RPMA_E_INVAL);
	/* the 8 bytes must lie within the local region */
	assert_int_equal(rpma_write_atomic(fx.conn, r, 0, l, BUF_SIZE - 7, F, NULL),
		RPMA_E_INVAL);
	assert_int_equal(rpma_write_atomic(fx.conn, r, 0, l, SIZE_MAX, F, NULL), RPMA_E_INVAL);
	assert_int_equal(fake_posted.count, 0);

	/* a region shorter than 8 bytes has no 8 bytes to give */
	struct rpma_mr_local *tiny = NULL;
	assert_int_equal(rpma_mr_reg(fx.peer, fx.lbuf, 4, RPMA_MR_USAGE_WRITE_SRC, &tiny), 0);
	assert_int_equal(rpma_write_atomic(fx.conn, r, 0, tiny, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_dereg(&tiny), 0);
}

static void write_atomic_emulated(void **state)
{
	(void)state;
	assert_int_equal(rpma_write_atomic(fx.conn, fx.remote, 8, fx.local, BUF_SIZE - 8,
		RPMA_F_COMPLETION_ALWAYS, &fx.ctx), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_wr.opcode, IBV_WR_RDMA_WRITE);
	assert_true(fake_posted.send_wr.send_flags & IBV_SEND_INLINE);
	assert_int_equal(fake_posted.send_sge.length, 8);
	assert_int_equal(fake_posted.send_wr.wr.rdma.remote_addr, addr_of(fx.rbuf + 8));
	assert_int_equal(fake_posted.send_wr.wr_id, addr_of(&fx.ctx));
}

static void write_atomic_native_carries_the_source_bytes(void **state)
{
	(void)state;
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	assert_int_equal(rpma_write_atomic(fx.conn, fx.remote, 0, fx.local, 20,
		RPMA_F_COMPLETION_ALWAYS, &fx.ctx), 0);
	assert_string_equal(fake_posted.wr_op, "atomic_write");
	assert_memory_equal(fake_posted.wr_atomic_data, fx.lbuf + 20, 8);
	assert_int_equal(fake_posted.wr_id, addr_of(&fx.ctx));
#else
	skip();
#endif
}
#pragma GCC diagnostic pop

/* ---- flush ---- */

static void flush_invalid_arguments(void **state)
{
	(void)state;
	const int F = RPMA_F_COMPLETION_ALWAYS;
	const enum rpma_flush_type V = RPMA_FLUSH_TYPE_VISIBILITY;
	assert_int_equal(rpma_flush(NULL, fx.remote, 0, 8, V, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(fx.conn, NULL, 0, 8, V, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(fx.conn, fx.remote, 0, 8, (enum rpma_flush_type)2, F, NULL),
		RPMA_E_INVAL);
	assert_int_equal(rpma_flush(fx.conn, fx.remote, 0, 8, (enum rpma_flush_type)-1, F,
		NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_flush(fx.conn, fx.remote, 0, 8, V, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(fake_posted.count, 0);
}

static void flush_support_rules(void **state)
{
	(void)state;
	static const struct {
		int usage;
		bool direct;
		enum rpma_flush_type type;
		int ret;
	} table[] = {
		/* persistent: the peer's direct write to PMem and a region for it */
		{ALL_FLUSH, false, RPMA_FLUSH_TYPE_PERSISTENT, RPMA_E_NOSUPP},
		{RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, true, RPMA_FLUSH_TYPE_PERSISTENT,
			RPMA_E_NOSUPP},
		{RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, true, RPMA_FLUSH_TYPE_PERSISTENT, 0},
		/* visibility: either flush usage will do */
		{RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC, true, RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_E_NOSUPP},
		{RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, false, RPMA_FLUSH_TYPE_VISIBILITY, 0},
		{RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, false, RPMA_FLUSH_TYPE_VISIBILITY, 0},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		struct rpma_mr_remote *remote = remote_make(table[i].usage);
		apply_direct_write(table[i].direct);
		unsigned posted = fake_posted.count;
		assert_int_equal(rpma_flush(fx.conn, remote, 0, 8, table[i].type,
			RPMA_F_COMPLETION_ALWAYS, NULL), table[i].ret);
		assert_int_equal(fake_posted.count, posted + (table[i].ret == 0));
		assert_int_equal(rpma_mr_remote_delete(&remote), 0);
	}
}

static void flush_emulated_posts_a_read(void **state)
{
	(void)state;
	assert_int_equal(rpma_flush(fx.conn, fx.remote, 32, 3, RPMA_FLUSH_TYPE_VISIBILITY,
		RPMA_F_COMPLETION_ALWAYS, &fx.ctx), 0);
	struct ibv_send_wr *wr = &fake_posted.send_wr;
	assert_int_equal(wr->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(wr->wr_id, addr_of(&fx.ctx));
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(wr->wr.rdma.remote_addr, addr_of(fx.rbuf + 32));
	assert_int_equal(fake_posted.send_sge.length, 3);

	apply_direct_write(true);
	assert_int_equal(rpma_flush(fx.conn, fx.remote, 0, BUF_SIZE, RPMA_FLUSH_TYPE_PERSISTENT,
		RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(fake_posted.send_sge.length, 8); /* a few bytes are enough */
	assert_int_equal(fake_posted.send_wr.send_flags, 0);

	fake_fail(post_call, 1, EIO);
	assert_int_equal(rpma_flush(fx.conn, fx.remote, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
		RPMA_F_COMPLETION_ALWAYS, NULL), RPMA_E_PROVIDER);
}

/* on a device without FLUSH every flush is emulated, vouched for or not */
static void flush_native_query(void **state)
{
	(void)state;
	bool native = true;
	assert_int_equal(rpma_conn_get_flush_native(NULL, fx.remote, &native), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_flush_native(fx.conn, NULL, &native), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_flush_native(fx.conn, fx.remote, NULL), RPMA_E_INVAL);
	assert_true(native); /* untouched on failure */
	assert_int_equal(rpma_conn_get_flush_native(fx.conn, fx.remote, &native), 0);
	assert_false(native);
	assert_int_equal(rpma_mr_remote_set_flush_native(fx.remote), 0);
	native = true;
	assert_int_equal(rpma_conn_get_flush_native(fx.conn, fx.remote, &native), 0);
	assert_false(native);
}

/* ---- send, send with immediate data, recv ---- */

static void send_invalid_arguments(void **state)
{
	(void)state;
	const int F = RPMA_F_COMPLETION_ALWAYS;
	assert_int_equal(rpma_send(NULL, fx.local, 0, 8, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send(fx.conn, fx.local, 0, 8, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send(fx.conn, NULL, 1, 0, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send(fx.conn, NULL, 0, 1, F, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(NULL, fx.local, 0, 8, F, IMM, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(fx.conn, fx.local, 0, 8, 0, IMM, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(fx.conn, NULL, 1, 0, F, IMM, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(fx.conn, NULL, 0, 1, F, IMM, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_send(fx.conn, fx.local, 0, (size_t)UINT32_MAX + 1, F, NULL),
		RPMA_E_INVAL);
	assert_int_equal(rpma_send_with_imm(fx.conn, fx.local, 0, (size_t)UINT32_MAX + 1, F, IMM,
		NULL), RPMA_E_INVAL);
	assert_int_equal(fake_posted.count, 0);
}

static void send_posts(void **state)
{
	(void)state;
	assert_int_equal(rpma_send(fx.conn, fx.local, 4, 12, RPMA_F_COMPLETION_ALWAYS,
		&fx.ctx), 0);
	assert_int_equal(fake_posted.send_wr.opcode, IBV_WR_SEND);
	assert_int_equal(fake_posted.send_wr.wr_id, addr_of(&fx.ctx));
	assert_int_equal(fake_posted.send_wr.send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(fake_posted.send_sge.addr, addr_of(fx.lbuf + 4));
	assert_int_equal(fake_posted.send_sge.length, 12);

	assert_int_equal(rpma_send_with_imm(fx.conn, fx.local, 0, 8, RPMA_F_COMPLETION_ON_ERROR,
		IMM, NULL), 0);
	assert_int_equal(fake_posted.send_wr.opcode, IBV_WR_SEND_WITH_IMM);
	assert_int_equal(fake_posted.send_wr.imm_data, htonl(IMM));
	assert_int_equal(fake_posted.send_wr.send_flags, 0);

	/* 0-byte messages */
	assert_int_equal(rpma_send(fx.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(fake_posted.send_wr.num_sge, 0);
	assert_int_equal(rpma_send_with_imm(fx.conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, IMM,
		NULL), 0);
	assert_int_equal(fake_posted.send_wr.num_sge, 0);
	assert_int_equal(fake_posted.count, 4);

	fake_fail(post_call, 1, EIO);
	assert_int_equal(rpma_send(fx.conn, fx.local, 0, 8, RPMA_F_COMPLETION_ALWAYS, NULL),
		RPMA_E_PROVIDER);
	fake_fail(post_call, 1, EIO);
	assert_int_equal(rpma_send_with_imm(fx.conn, fx.local, 0, 8, RPMA_F_COMPLETION_ALWAYS,
		IMM, NULL), RPMA_E_PROVIDER);
}

/*
 * iWARP has no immediate data: both operations carrying it are refused before
 * anything is posted, by name; every other operation posts as on RoCE
 */
static void iwarp_refuses_immediate_data_up_front(void **state)
{
	(void)state;
	assert_int_equal(rpma_write_with_imm(fx.conn, fx.remote, 0, fx.local, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, IMM, NULL), RPMA_E_NOSUPP);
	test_log_assert_has("rpma_write_with_imm", "iWARP has no immediate data", NULL);
	assert_int_equal(rpma_send_with_imm(fx.conn, fx.local, 0, 8, RPMA_F_COMPLETION_ALWAYS,
		IMM, NULL), RPMA_E_NOSUPP);
	test_log_assert_has("rpma_send_with_imm", "iWARP has no immediate data", NULL);
	assert_int_equal(fake_calls("ibv_post_send"), 0);

	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(rpma_read(fx.conn, fx.local, 0, fx.remote, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(rpma_send(fx.conn, fx.local, 0, 8, RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(rpma_flush(fx.conn, fx.remote, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(fake_calls("ibv_post_send"), 4);
	assert_int_equal(rpma_write_with_imm(NULL, fx.remote, 0, fx.local, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, IMM, NULL), RPMA_E_INVAL);
}

/*
 * A receive without a buffer exists for immediate data; iWARP providers refuse it
 * at post time (libsiw: -EINVAL), so it is refused by name first; with a buffer,
 * a receive posts as on RoCE
 */
static void iwarp_refuses_a_receive_without_a_buffer(void **state)
{
	(void)state;
	assert_int_equal(rpma_recv(fx.conn, NULL, 0, 0, NULL), RPMA_E_NOSUPP);
	test_log_assert_has("rpma_recv of 0 bytes", "iWARP has no immediate data", NULL);
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(rpma_recv(fx.conn, fx.local, 0, 8, &fx.ctx), 0);
	assert_int_equal(fake_posted.recv_wr.num_sge, 1);
}

static void recv_invalid_arguments(void **state)
{
	(void)state;
	assert_int_equal(rpma_recv(NULL, fx.local, 0, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_recv(fx.conn, NULL, 1, 0, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_recv(fx.conn, NULL, 0, 1, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_recv(fx.conn, fx.local, 0, (size_t)UINT32_MAX + 1, NULL),
		RPMA_E_INVAL);
	assert_int_equal(fake_posted.count, 0);
}

static void recv_posts(void **state)
{
	(void)state;
	assert_int_equal(rpma_recv(fx.conn, fx.local, 16, 32, &fx.ctx), 0);
	assert_int_equal(fake_posted.recv_wr.wr_id, addr_of(&fx.ctx));
	assert_int_equal(fake_posted.recv_wr.num_sge, 1);
	assert_int_equal(fake_posted.recv_sge.addr, addr_of(fx.lbuf + 16));
	assert_int_equal(fake_posted.recv_sge.length, 32);

	assert_int_equal(rpma_recv(fx.conn, NULL, 0, 0, NULL), 0);
	assert_int_equal(fake_posted.recv_wr.num_sge, 0);
	assert_int_equal(fake_posted.count, 2);

	fake_fail("ibv_post_recv", 1, ENOMEM);
	errno = 0;
	assert_int_equal(rpma_recv(fx.conn, fx.local, 0, 8, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	test_log_assert_line("ibv_post_recv() failed: ENOMEM; work request: opcode=RECV "
		"wr_id=0x0 local_addr=0x%" PRIx64 " length=8", addr_of(fx.lbuf));
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, ops_setup, ops_teardown)
#define TEST_EX(fn) cmocka_unit_test_setup_teardown(fn, ops_setup_ex, ops_teardown)
#define TEST_NATIVE(fn) cmocka_unit_test_setup_teardown(fn, ops_setup_native, ops_teardown)
#define TEST_IWARP(fn) cmocka_unit_test_setup_teardown(fn, ops_setup_iwarp, ops_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(rma_invalid_arguments),
		TEST(rma_posts),
		TEST(rma_zero_length),
		TEST(rma_provider_failure),
		TEST(atomic_write_invalid_arguments),
		TEST(atomic_write_emulated),
		TEST_NATIVE(atomic_write_native),
		TEST(write_atomic_invalid_arguments),
		TEST(write_atomic_emulated),
		TEST_NATIVE(write_atomic_native_carries_the_source_bytes),
		TEST(flush_invalid_arguments),
		TEST(flush_support_rules),
		TEST(flush_emulated_posts_a_read),
		TEST(flush_native_query),
		TEST(send_invalid_arguments),
		TEST(send_posts),
		TEST_IWARP(iwarp_refuses_immediate_data_up_front),
		TEST_IWARP(iwarp_refuses_a_receive_without_a_buffer),
		TEST(recv_invalid_arguments),
		TEST(recv_posts),
		TEST(hot_path_allocates_and_logs_nothing),
		TEST_NATIVE(hot_path_native_allocates_and_logs_nothing),
		TEST(batch_write_and_flush_ring_once),
		TEST(batch_emulated_atomic_write_rings_with_the_chain),
		TEST(batch_slots_carry_nothing_over),
		TEST(batch_misuse_and_failure),
		TEST_NATIVE(batch_native_atomic_write_keeps_order),
		/* a QP with the extended interface: a batch's requests through it */
		TEST_EX(ex_outside_a_batch_posts_by_post_send),
		TEST_EX(batch_write_and_flush_ring_once),
		TEST_EX(batch_slots_carry_nothing_over),
		TEST_EX(ex_batch_inline_bytes_copied_at_once),
		TEST_EX(ex_batch_failure),
		TEST_EX(ex_batch_rings_when_full),
		TEST_EX(ex_delete_in_an_open_batch),
		cmocka_unit_test_setup_teardown(ex_lost_posts_by_post_send, ops_setup_ex_lost, ops_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
