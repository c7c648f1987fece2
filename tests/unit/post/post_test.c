/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post_test.c -- the work requests of a connection: the object and its batch
 * path chosen once, the request each operation builds (outside a batch, one
 * ibv_post_send() each), the native atomic write, receives, and the log line
 * of each failed post. The batches: post_batch_test.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "fake_provider.h"
#include "mr.h"
#include "peer.h"
#include "post.h"
#include "post_test.h"
#include "test_log.h"
#include "test_mr.h"

char post_buf[256];

/*
 * extended: the QP is created with the extended interface; data_ops: the
 * provider sets its builders of reads, writes and sends too.
 */
static struct post_env *env_new(bool extended, bool data_ops)
{
	fake_reset();
	rpma_log_set_function(test_log_quiet);
	fake_device.has_wr_data_ops = data_ops;

	struct post_env *env = calloc(1, sizeof(*env));
	assert_non_null(env);
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &env->peer), 0);
	assert_int_equal(rdma_create_id(NULL, &env->id, NULL, RDMA_PS_TCP), 0);
	struct ibv_qp_init_attr_ex attr;
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	if (extended)
		attr.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	assert_int_equal(rdma_create_qp_ex(env->id, &attr), 0);
	env->qp = env->id->qp;
	assert_int_equal(rpma_post_new(env->qp, extended, &env->post), 0);
	assert_int_equal(rpma_mr_reg(env->peer, post_buf, sizeof(post_buf), 0xff, &env->local), 0);
	env->lkey = fake_last_mr->lkey;
	env->remote = test_mr_remote_new(RADDR, 0x1000, RKEY,
		RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST);
	memset(&fake_posted, 0, sizeof(fake_posted));
	return env;
}

int post_setup(void **state)
{
	*state = env_new(false, false);
	return 0;
}

int post_setup_ex(void **state)
{
	*state = env_new(true, true);
	return 0;
}

int post_setup_native(void **state)
{
	*state = env_new(true, false);
	return 0;
}

int post_teardown(void **state)
{
	struct post_env *env = *state;
	rpma_post_delete(&env->post);
	assert_null(env->post);
	assert_int_equal(rpma_mr_remote_delete(&env->remote), 0);
	assert_int_equal(rpma_mr_dereg(&env->local), 0);
	rdma_destroy_qp(env->id);
	assert_int_equal(rdma_destroy_id(env->id), 0);
	assert_int_equal(rpma_peer_delete(&env->peer), 0);
	free(env);
	assert_int_equal(fake_live_objects(), 0);
	return rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
}

int post_test_write(struct post_env *env, uint64_t wr_id, int flags)
{
	return rpma_post_write(env->post, env->remote, wr_id, env->local, 0, 16, flags,
		IBV_WR_RDMA_WRITE, 0, (const void *)(uintptr_t)wr_id);
}

static const struct ibv_send_wr *last_send(void)
{
	return &fake_posted.send_wr;
}

static void assert_sge(const struct ibv_sge *sge, const void *addr, uint32_t len, uint32_t lkey)
{
	assert_int_equal(sge->addr, (uint64_t)(uintptr_t)addr);
	assert_int_equal(sge->length, len);
	assert_int_equal(sge->lkey, lkey);
}

/* imm_data is in network order: its first byte in memory is the most significant */
static void assert_imm_on_wire(uint32_t imm_data, uint32_t host_imm)
{
	const uint8_t *b = (const uint8_t *)&imm_data;
	for (int i = 0; i < 4; i++)
		assert_int_equal(b[i], (uint8_t)(host_imm >> (24 - 8 * i)));
}

/* ---- the object ---- */

static void new_and_delete_misuse(void **state)
{
	struct post_env *env = *state;
	struct rpma_post *post = (struct rpma_post *)0x1;
	assert_int_equal(rpma_post_new(NULL, false, &post), RPMA_E_INVAL);
	assert_int_equal(rpma_post_new(env->qp, false, NULL), RPMA_E_INVAL);
	fake_malloc_fail(1);
	assert_int_equal(rpma_post_new(env->qp, false, &post), RPMA_E_NOMEM);
	assert_ptr_equal(post, (struct rpma_post *)0x1); /* never written on failure */
	fake_malloc_fail(0);
	rpma_post_delete(NULL); /* harmless */
	post = NULL;
	rpma_post_delete(&post);
	assert_null(post);
}

/*
 * A QP created with the extended interface where ibv_qp_to_qp_ex() finds none:
 * said once, at creation, and a batch goes by ibv_post_send(). A QP created
 * without it (a provider that refused it) is not worth a line.
 */
static void new_says_a_lost_interface(void **state)
{
	struct post_env *env = *state;
	struct rpma_post *post = NULL;
	test_log_record_start();
	fake_fail("ibv_qp_to_qp_ex", 1, EIO);
	assert_int_equal(rpma_post_new(env->qp, false, &post), 0);
	assert_int_equal(test_log_last.count, 0);
	rpma_post_delete(&post);

	fake_fail("ibv_qp_to_qp_ex", 1, EIO);
	assert_int_equal(rpma_post_new(env->qp, true, &post), 0);
	test_log_assert_line("ibv_qp_to_qp_ex() failed: no extended interface on a QP created "
		"with it; the connection posts by ibv_post_send() instead");
	assert_int_equal(rpma_post_batch_begin(post), 0);
	assert_int_equal(rpma_post_send(post, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, IBV_WR_SEND,
		0, CTX), 0);
	assert_int_equal(rpma_post_batch_end(post), 0);
	assert_int_equal(fake_calls("ibv_post_send"), 1);
	assert_int_equal(fake_calls("ibv_wr_start"), 0);
	assert_int_equal(test_log_last.count, 1);
	rpma_post_delete(&post);
}

/* ---- the requests of the operations, posted at once ---- */

static void read_builds_one_sge(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_read(env->post, env->local, 16, env->remote, 32, 100,
		RPMA_F_COMPLETION_ALWAYS, CTX), 0);
	const struct ibv_send_wr *wr = last_send();
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(wr->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(wr->wr_id, (uint64_t)(uintptr_t)CTX);
	assert_int_equal(wr->num_sge, 1);
	assert_sge(&wr->sg_list[0], post_buf + 16, 100, env->lkey);
	assert_int_equal(wr->wr.rdma.remote_addr, RADDR + 32);
	assert_int_equal(wr->wr.rdma.rkey, RKEY);
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);

	assert_int_equal(rpma_post_read(env->post, env->local, 0, env->remote, 0, 8,
		RPMA_F_COMPLETION_ON_ERROR, CTX), 0);
	assert_int_equal(last_send()->send_flags, 0); /* unsignaled: completes only on error */
}

static void read_zero_length(void **state)
{
	struct post_env *env = *state;
	/* no regions at all: the 0-byte read of rpma_read(3) */
	assert_int_equal(rpma_post_read(env->post, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
		CTX), 0);
	assert_int_equal(last_send()->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(last_send()->num_sge, 0);
	assert_int_equal(last_send()->wr.rdma.remote_addr, 0);
	assert_int_equal(last_send()->wr.rdma.rkey, 0);
	assert_int_equal(last_send()->wr_id, (uint64_t)(uintptr_t)CTX);

	/* regions given but nothing to move: still no SGE, the remote side is named */
	assert_int_equal(rpma_post_read(env->post, env->local, 4, env->remote, 8, 0,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(last_send()->num_sge, 0);
	assert_int_equal(last_send()->wr.rdma.remote_addr, RADDR + 8);
	assert_int_equal(last_send()->wr.rdma.rkey, RKEY);
	assert_int_equal(last_send()->wr_id, 0);
}

static void write_and_write_with_imm(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_write(env->post, env->remote, 64, env->local, 8, 40,
		RPMA_F_COMPLETION_ALWAYS, IBV_WR_RDMA_WRITE, 0xdeadbeef, CTX), 0);
	const struct ibv_send_wr *wr = last_send();
	assert_int_equal(wr->opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(wr->num_sge, 1);
	assert_sge(&wr->sg_list[0], post_buf + 8, 40, env->lkey);
	assert_int_equal(wr->wr.rdma.remote_addr, RADDR + 64);
	assert_int_equal(wr->wr.rdma.rkey, RKEY);
	assert_int_equal(wr->imm_data, 0); /* no immediate data without the _WITH_IMM opcode */
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);

	assert_int_equal(rpma_post_write(env->post, env->remote, 0, env->local, 0, 4,
		RPMA_F_COMPLETION_ON_ERROR, IBV_WR_RDMA_WRITE_WITH_IMM, 0x01020304, CTX), 0);
	assert_int_equal(last_send()->opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	assert_imm_on_wire(last_send()->imm_data, 0x01020304);
	assert_int_equal(last_send()->send_flags, 0);

	assert_int_equal(rpma_post_write(env->post, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
		IBV_WR_RDMA_WRITE, 0, CTX), 0);
	assert_int_equal(last_send()->num_sge, 0);
	assert_int_equal(last_send()->wr.rdma.rkey, 0);
	assert_int_equal(fake_posted.count, 3);
}

static void atomic_write_emulated(void **state)
{
	struct post_env *env = *state;
	const char value[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	assert_int_equal(rpma_post_atomic_write(env->post, env->remote, 24, value,
		RPMA_F_COMPLETION_ALWAYS, CTX, false), 0);
	const struct ibv_send_wr *wr = last_send();
	assert_int_equal(wr->opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED | IBV_SEND_INLINE | IBV_SEND_FENCE);
	assert_int_equal(wr->num_sge, 1);
	assert_sge(&wr->sg_list[0], value, 8, 0); /* inlined: the caller's bytes, no key */
	assert_int_equal(wr->wr.rdma.remote_addr, RADDR + 24);
	assert_int_equal(wr->wr.rdma.rkey, RKEY);
	assert_int_equal(wr->wr_id, (uint64_t)(uintptr_t)CTX);
	assert_null(fake_posted.wr_op); /* not the extended interface */

	assert_int_equal(rpma_post_atomic_write(env->post, env->remote, 0, value,
		RPMA_F_COMPLETION_ON_ERROR, CTX, false), 0);
	assert_int_equal(last_send()->send_flags, IBV_SEND_INLINE | IBV_SEND_FENCE);
}

#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
/* ibv_wr_atomic_write in a session of its own, fenced as the emulation */
static void atomic_write_native(void **state)
{
	struct post_env *env = *state;
	const char value[8] = {8, 7, 6, 5, 4, 3, 2, 1};
	assert_int_equal(rpma_post_atomic_write(env->post, env->remote, 16, value,
		RPMA_F_COMPLETION_ALWAYS, CTX, true), 0);
	assert_string_equal(fake_posted.wr_op, "atomic_write");
	assert_int_equal(fake_posted.wr_id, (uint64_t)(uintptr_t)CTX);
	assert_int_equal(fake_posted.wr_flags, IBV_SEND_SIGNALED | IBV_SEND_FENCE);
	assert_int_equal(fake_posted.wr_rkey, RKEY);
	assert_int_equal(fake_posted.wr_remote_addr, RADDR + 16);
	assert_memory_equal(fake_posted.wr_atomic_data, value, 8);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_calls("ibv_post_send"), 0);
	assert_int_equal(fake_calls("ibv_wr_start"), 1);
	assert_int_equal(fake_calls("ibv_wr_complete"), 1);

	fake_fail("ibv_wr_complete", 1, ENOSPC);
	test_log_record_start();
	assert_int_equal(rpma_post_atomic_write(env->post, env->remote, 8, value,
		RPMA_F_COMPLETION_ON_ERROR, CTX, true), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(fake_posted.wr_flags, IBV_SEND_FENCE);
	test_log_assert_line("ibv_wr_complete() failed: ENOSPC; work request: opcode=ATOMIC_WRITE "
		"wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=8 remote_addr=0x10008 rkey=0x77 "
		"send_flags=UNSIGNALED|FENCE", (uintptr_t)value);
}

static void atomic_write_native_without_extended_qp(void **state)
{
	struct post_env *env = *state;
	const char value[8] = {0};
	errno = 0;
	test_log_record_start();
	assert_int_equal(rpma_post_atomic_write(env->post, env->remote, 0, value,
		RPMA_F_COMPLETION_ALWAYS, CTX, true), RPMA_E_PROVIDER);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(fake_posted.count, 0);
	test_log_assert_line("ibv_qp_to_qp_ex() failed: EOPNOTSUPP; work request: "
		"opcode=ATOMIC_WRITE wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=8 "
		"remote_addr=0x10000 rkey=0x77 send_flags=SIGNALED|FENCE", (uintptr_t)value);
}
#endif

static void send_and_send_with_imm(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_send(env->post, env->local, 10, 20, RPMA_F_COMPLETION_ALWAYS,
		IBV_WR_SEND, 5, CTX), 0);
	const struct ibv_send_wr *wr = last_send();
	assert_int_equal(wr->opcode, IBV_WR_SEND);
	assert_int_equal(wr->num_sge, 1);
	assert_sge(&wr->sg_list[0], post_buf + 10, 20, env->lkey);
	assert_int_equal(wr->imm_data, 0);
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(wr->wr_id, (uint64_t)(uintptr_t)CTX);

	assert_int_equal(rpma_post_send(env->post, NULL, 0, 0, RPMA_F_COMPLETION_ON_ERROR,
		IBV_WR_SEND_WITH_IMM, 0xa0b0c0d0, NULL), 0);
	assert_int_equal(last_send()->opcode, IBV_WR_SEND_WITH_IMM);
	assert_int_equal(last_send()->num_sge, 0);
	assert_imm_on_wire(last_send()->imm_data, 0xa0b0c0d0);
	assert_int_equal(last_send()->send_flags, 0);
	assert_int_equal(last_send()->wr_id, 0);
}

/* outside a batch even a QP with the extended interface posts each by ibv_post_send() */
static void at_once_on_an_extended_qp(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(post_test_write(env, 1, RPMA_F_COMPLETION_ALWAYS), 0);
	assert_int_equal(rpma_post_read(env->post, env->local, 0, env->remote, 0, 8,
		RPMA_F_COMPLETION_ALWAYS, CTX), 0);
	assert_int_equal(fake_calls("ibv_post_send"), 2);
	assert_int_equal(fake_calls("ibv_wr_start"), 0);
}

/* ---- receives ---- */

static void recv_and_srq_recv(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_recv(env->qp, env->local, 32, 64, CTX), 0);
	assert_int_equal(fake_posted.recv_wr.wr_id, (uint64_t)(uintptr_t)CTX);
	assert_int_equal(fake_posted.recv_wr.num_sge, 1);
	assert_sge(&fake_posted.recv_sge, post_buf + 32, 64, env->lkey);

	assert_int_equal(rpma_post_recv(env->qp, NULL, 0, 0, NULL), 0);
	assert_int_equal(fake_posted.recv_wr.num_sge, 0);
	assert_int_equal(fake_posted.recv_wr.wr_id, 0);

	struct ibv_srq *srq = NULL;
	assert_int_equal(rpma_peer_create_srq(env->peer, 8, &srq), 0);
	assert_int_equal(rpma_post_srq_recv(srq, env->local, 1, 2, CTX), 0);
	assert_int_equal(fake_posted.srq_recv_wr.wr_id, (uint64_t)(uintptr_t)CTX);
	assert_int_equal(fake_posted.srq_recv_wr.num_sge, 1);
	assert_sge(&fake_posted.srq_recv_sge, post_buf + 1, 2, env->lkey);
	assert_int_equal(rpma_post_srq_recv(srq, NULL, 0, 0, CTX), 0);
	assert_int_equal(fake_posted.srq_recv_wr.num_sge, 0);
	assert_int_equal(fake_posted.count, 4);
	assert_int_equal(ibv_destroy_srq(srq), 0);
}

/* ---- failures ---- */

/* Each failed post: the code, errno, and a log line with the work request's fields. */
static void posting_failures(void **state)
{
	struct post_env *env = *state;
	const char value[8] = {0};
	struct ibv_srq *srq = NULL;
	assert_int_equal(rpma_peer_create_srq(env->peer, 8, &srq), 0);
	test_log_record_start();

	fake_fail("ibv_post_send", 1, ENOMEM);
	assert_int_equal(rpma_post_read(env->post, env->local, 16, env->remote, 32, 100,
		RPMA_F_COMPLETION_ALWAYS, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	test_log_assert_line("ibv_post_send() failed: ENOMEM; work request: opcode=RDMA_READ "
		"wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=100 remote_addr=0x10020 rkey=0x77 "
		"send_flags=SIGNALED", (uintptr_t)(post_buf + 16));

	fake_fail("ibv_post_send", 1, EINVAL);
	assert_int_equal(rpma_post_write(env->post, env->remote, 64, env->local, 8, 40,
		RPMA_F_COMPLETION_ON_ERROR, IBV_WR_RDMA_WRITE_WITH_IMM, 1, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	test_log_assert_line("ibv_post_send() failed: EINVAL; work request: "
		"opcode=RDMA_WRITE_WITH_IMM wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=40 "
		"remote_addr=0x10040 rkey=0x77 send_flags=UNSIGNALED", (uintptr_t)(post_buf + 8));

	fake_fail("ibv_post_send", 1, ENOSPC);
	assert_int_equal(rpma_post_atomic_write(env->post, env->remote, 0, value,
		RPMA_F_COMPLETION_ALWAYS, CTX, false), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOSPC);
	test_log_assert_line("ibv_post_send() failed: ENOSPC; work request: opcode=RDMA_WRITE "
		"wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=8 remote_addr=0x10000 rkey=0x77 "
		"send_flags=SIGNALED|FENCE|INLINE", (uintptr_t)value);

	fake_fail("ibv_post_send", 1, EAGAIN);
	assert_int_equal(rpma_post_send(env->post, env->local, 0, 8, RPMA_F_COMPLETION_ALWAYS,
		IBV_WR_SEND, 0, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, EAGAIN);
	test_log_assert_line("ibv_post_send() failed: EAGAIN; work request: opcode=SEND "
		"wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=8 send_flags=SIGNALED",
		(uintptr_t)post_buf);

	fake_fail("ibv_post_recv", 1, ENOMEM);
	assert_int_equal(rpma_post_recv(env->qp, env->local, 32, 64, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	test_log_assert_line("ibv_post_recv() failed: ENOMEM; work request: opcode=RECV "
		"wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=64", (uintptr_t)(post_buf + 32));

	fake_fail("ibv_post_srq_recv", 1, EINVAL);
	assert_int_equal(rpma_post_srq_recv(srq, env->local, 0, 8, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	test_log_assert_line("ibv_post_srq_recv() failed: EINVAL; work request: opcode=RECV "
		"wr_id=0x0 local_addr=0x%" PRIxPTR " length=8", (uintptr_t)post_buf);

	assert_int_equal(test_log_last.count, 6); /* one line each */
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, post_setup, post_teardown)
#define T_EX(fn) cmocka_unit_test_setup_teardown(fn, post_setup_ex, post_teardown)
#define T_NATIVE(fn) cmocka_unit_test_setup_teardown(fn, post_setup_native, post_teardown)
	const struct CMUnitTest tests[] = {
		T(new_and_delete_misuse),
		T(new_says_a_lost_interface),
		T(read_builds_one_sge),
		T(read_zero_length),
		T(write_and_write_with_imm),
		T(atomic_write_emulated),
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
		T_NATIVE(atomic_write_native),
		T(atomic_write_native_without_extended_qp),
#endif
		T(send_and_send_with_imm),
		T_EX(at_once_on_an_extended_qp),
		T(recv_and_srq_recv),
		T(posting_failures),
		/* batches: post_batch_test.c */
		T(chain_outside_a_batch_posts_at_once),
		T(chain_rings_once_in_order),
		T(chain_inline_data_rings_with_what_came_first),
		T(chain_rings_at_the_batch_max),
		T(chain_failed_post_empties_and_closes),
		T(chain_failed_post_logs_the_refused_request),
		T(batch_misuse_is_refused),
		T_NATIVE(chain_rings_once_in_order), /* the interface without the data builders */
		T_EX(session_builds_every_opcode),
		T_EX(session_rings_at_the_batch_max),
		T_EX(session_failed_doorbell_posts_nothing),
		T_EX(session_deleted_open_is_aborted),
		T_EX(batch_misuse_is_refused),
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
		T_NATIVE(native_goes_after_what_was_collected),
		T_EX(native_goes_after_what_was_collected),
		T_NATIVE(native_waits_for_what_was_collected),
#endif
	};
#undef T
#undef T_EX
#undef T_NATIVE
	return cmocka_run_group_tests(tests, NULL, NULL);
}
