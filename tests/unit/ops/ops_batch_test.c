/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ops_batch_test.c -- the operations on the hot path (no allocation, no log on
 * success) and in a batch (one doorbell), by the chain of a plain QP and by
 * the session of a QP with the extended interface.
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

/* ---- the hot path ---- */

void hot_path_allocates_and_logs_nothing(void **state)
{
	(void)state;
	apply_direct_write(true);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG), 0);
	const int F = RPMA_F_COMPLETION_ALWAYS;
	test_log_last.count = 0;

	/* any allocation would fail, and every call must still succeed */
	fake_malloc_fail(1);
	assert_int_equal(rpma_read(fx.conn, fx.local, 0, fx.remote, 0, 8, F, NULL), 0);
	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 8, F, NULL), 0);
	assert_int_equal(rpma_write_with_imm(fx.conn, fx.remote, 0, fx.local, 0, 8, F, IMM,
		NULL), 0);
	assert_int_equal(rpma_atomic_write(fx.conn, fx.remote, 0, atomic_bytes, F, NULL), 0);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	assert_int_equal(rpma_write_atomic(fx.conn, fx.remote, 0, fx.local, 0, F, NULL), 0);
#pragma GCC diagnostic pop
	assert_int_equal(rpma_flush(fx.conn, fx.remote, 0, 8, RPMA_FLUSH_TYPE_PERSISTENT, F,
		NULL), 0);
	assert_int_equal(rpma_send(fx.conn, fx.local, 0, 8, F, NULL), 0);
	assert_int_equal(rpma_send_with_imm(fx.conn, fx.local, 0, 8, F, IMM, NULL), 0);
	assert_int_equal(rpma_recv(fx.conn, fx.local, 0, 8, NULL), 0);
	assert_int_equal(fake_posted.count, 9);

	/* the armed failure is still waiting: nothing took it */
	void *probe = malloc(1);
	assert_null(probe);
	assert_int_equal(test_log_last.count, 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
}

/* The same with the native atomic write posted through the extended QP interface. */
void hot_path_native_allocates_and_logs_nothing(void **state)
{
	hot_path_allocates_and_logs_nothing(state);
}

/* ---- one doorbell for a batch (rpma-fio extension) ---- */

void batch_write_and_flush_ring_once(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0);
	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 64,
		RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(rpma_write(fx.conn, fx.remote, 64, fx.local, 64, 64,
		RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(rpma_flush(fx.conn, fx.remote, 0, 128, RPMA_FLUSH_TYPE_VISIBILITY,
		RPMA_F_COMPLETION_ALWAYS, &fx.ctx), 0);
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(rpma_conn_batch_end(fx.conn), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 3);
	assert_int_equal(fake_posted.send_chain[0].opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(fake_posted.send_chain[1].wr.rdma.remote_addr, addr_of(fx.rbuf + 64));
	assert_int_equal(fake_posted.send_chain[2].opcode, IBV_WR_RDMA_READ);
	assert_int_equal(fake_posted.send_chain[2].wr_id, addr_of(&fx.ctx));
	assert_int_equal(fake_posted.send_chain[2].send_flags, IBV_SEND_SIGNALED);
	/* receives are another queue: never held back */
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0);
	assert_int_equal(rpma_recv(fx.conn, fx.local, 0, 8, NULL), 0);
	assert_int_equal(fake_posted.count, 2);
	assert_int_equal(rpma_conn_batch_end(fx.conn), 0);
	assert_int_equal(fake_posted.count, 2);
	/* after the batch, operations post at once again */
	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(fake_posted.count, 3);
}

void batch_misuse_and_failure(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_batch_begin(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_batch_end(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_batch_end(fx.conn), RPMA_E_INVAL); /* none open */
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0);
	assert_int_equal(rpma_conn_batch_begin(fx.conn), RPMA_E_INVAL); /* one open */
	assert_int_equal(rpma_send(fx.conn, fx.local, 0, 8, RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	fake_fail("ibv_post_send", 1, EAGAIN);
	errno = 0;
	assert_int_equal(rpma_conn_batch_end(fx.conn), RPMA_E_PROVIDER);
	assert_int_equal(errno, EAGAIN);
	/* the request collected earlier is the one the log line names */
	test_log_assert_line("ibv_post_send() failed: EAGAIN; work request: opcode=SEND "
		"wr_id=0x0 local_addr=0x%" PRIx64 " length=8 send_flags=SIGNALED", addr_of(fx.lbuf));
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0); /* closed by the failure */
	assert_int_equal(rpma_conn_batch_end(fx.conn), 0);
	assert_int_equal(fake_posted.count, 0);
}

/* the emulated atomic write inlines its bytes: it rings at once, with what came before */
/* a batch of a write and an emulated atomic write of BYTES (atomic_bytes') */
static void batch_write_and_atomic_write(char bytes[8])
{
	memcpy(bytes, atomic_bytes, 8);
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0);
	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 64,
		RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(rpma_atomic_write(fx.conn, fx.remote, 64, bytes,
		RPMA_F_COMPLETION_ALWAYS, &fx.ctx), 0);
}

void batch_emulated_atomic_write_rings_with_the_chain(void **state)
{
	(void)state;
	char bytes[8];
	batch_write_and_atomic_write(bytes);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 2);
	assert_int_equal(fake_posted.send_chain[0].opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(fake_posted.send_chain[1].send_flags,
		IBV_SEND_SIGNALED | IBV_SEND_INLINE | IBV_SEND_FENCE);
	assert_int_equal(fake_posted.send_chain[1].wr.rdma.remote_addr, addr_of(fx.rbuf + 64));
	assert_int_equal(fake_posted.send_chain[1].sg_list[0].addr, addr_of(bytes));
	assert_int_equal(rpma_conn_batch_end(fx.conn), 0);
	assert_int_equal(fake_posted.count, 1);
}

/* slots are reused batch after batch: a request carries nothing of the one before it */
void batch_slots_carry_nothing_over(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0);
	assert_int_equal(rpma_write_with_imm(fx.conn, fx.remote, 64, fx.local, 0, 64,
		RPMA_F_COMPLETION_ALWAYS, 0x1234, &fx.ctx), 0);
	assert_int_equal(rpma_conn_batch_end(fx.conn), 0);
	assert_int_equal(fake_posted.send_chain[0].imm_data, htonl(0x1234));

	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0);
	assert_int_equal(rpma_send(fx.conn, NULL, 0, 0, RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(rpma_conn_batch_end(fx.conn), 0);
	const struct ibv_send_wr *wr = &fake_posted.send_chain[0];
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(wr->opcode, IBV_WR_SEND);
	assert_int_equal(wr->num_sge, 0);
	assert_int_equal(wr->send_flags, 0);
	assert_int_equal(wr->imm_data, 0);
	assert_int_equal(wr->wr.rdma.remote_addr, 0);
	assert_int_equal(wr->wr.rdma.rkey, 0);
	assert_int_equal(wr->wr_id, 0);
}

/* the native atomic write goes by the extended interface: what was collected first */
void batch_native_atomic_write_keeps_order(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0);
	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 64,
		RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(rpma_atomic_write(fx.conn, fx.remote, 64, atomic_bytes,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(fake_posted.send_chain_len, 1); /* the write, posted before it */
	assert_int_equal(fake_posted.send_wr.opcode, IBV_WR_RDMA_WRITE);
	assert_string_equal(fake_posted.wr_op, "atomic_write");
	assert_int_equal(rpma_conn_batch_end(fx.conn), 0);
}

/* ---- the extended interface (ibv_wr_*): sessions instead of slots ---- */

/* a QP whose extended interface is lost: posted the other way, and said */
void ex_lost_posts_by_post_send(void **state)
{
	(void)state;
	test_log_assert_line("ibv_qp_to_qp_ex() failed: no extended interface on a QP created "
		"with it; the connection posts by ibv_post_send() instead");
	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(fake_calls("ibv_post_send"), 1);
	assert_int_equal(fake_calls("ibv_wr_start"), 0);
}

/* outside a batch every operation posts by itself, as in librpma 1.x */
void ex_outside_a_batch_posts_by_post_send(void **state)
{
	(void)state;
	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(rpma_flush(fx.conn, fx.remote, 0, 8, RPMA_FLUSH_TYPE_VISIBILITY,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(fake_calls("ibv_post_send"), 2);
	assert_int_equal(fake_calls("ibv_wr_start"), 0);
}

/* the emulated atomic write's bytes are copied as it is built: no early doorbell */
void ex_batch_inline_bytes_copied_at_once(void **state)
{
	(void)state;
	char bytes[8];
	batch_write_and_atomic_write(bytes);
	memset(bytes, 0, sizeof(bytes)); /* the caller's buffer may change at once */
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(rpma_conn_batch_end(fx.conn), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 2);
	assert_int_equal(fake_posted.send_chain[1].send_flags,
		IBV_SEND_SIGNALED | IBV_SEND_INLINE | IBV_SEND_FENCE);
	assert_memory_equal((const void *)(uintptr_t)fake_posted.send_chain[1].sg_list[0].addr,
		atomic_bytes, 8);
	assert_int_equal(fake_calls("ibv_wr_start"), 1);
	assert_int_equal(fake_calls("ibv_post_send"), 0);
}

/* a failed doorbell posts none of the session, names the call and closes the batch */
void ex_batch_failure(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0);
	assert_int_equal(rpma_send(fx.conn, fx.local, 0, 8, RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	fake_fail("ibv_wr_complete", 1, EAGAIN);
	errno = 0;
	assert_int_equal(rpma_conn_batch_end(fx.conn), RPMA_E_PROVIDER);
	assert_int_equal(errno, EAGAIN);
	test_log_assert_line("ibv_wr_complete() failed: EAGAIN");
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0); /* closed by the failure */
	assert_int_equal(rpma_conn_batch_end(fx.conn), 0);
	/* and the next operation starts a session of its own */
	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 1);
}

/* a session rings once it holds a list's worth, then goes on: 65 requests, 2 doorbells */
void ex_batch_rings_when_full(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0);
	for (int i = 0; i < 65; i++)
		assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 8,
			RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 64);
	assert_int_equal(rpma_conn_batch_end(fx.conn), 0);
	assert_int_equal(fake_posted.count, 2);
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(fake_calls("ibv_wr_start"), 2);
}

/* a connection deleted in an open batch gives the provider its lock back, posting nothing */
void ex_delete_in_an_open_batch(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_batch_begin(fx.conn), 0);
	assert_int_equal(rpma_write(fx.conn, fx.remote, 0, fx.local, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(rpma_mr_remote_delete(&fx.remote), 0);
	assert_int_equal(rpma_mr_dereg(&fx.local), 0);
	assert_int_equal(rpma_conn_delete(&fx.conn), 0);
	assert_int_equal(fake_calls("ibv_wr_abort"), 1);
	assert_int_equal(fake_posted.count, 0);
}
