/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post_batch_test.c -- a batch's requests, one doorbell, by the path chosen
 * with the object. The chain (a plain QP): requests built in the object's
 * slots, in order, one ibv_post_send() at the batch's end; inline data rings
 * at once with what came before it; the 64th request rings; a failed post
 * empties and closes the batch and its log line names the request refused.
 * The session (a QP with the extended interface): every opcode built by its
 * ibv_wr_* builder, one ibv_wr_complete(); a failed one posts nothing; a
 * session left open is aborted. A native operation goes after what was
 * collected, by either path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "fake_provider.h"
#include "post.h"
#include "post_test.h"
#include "test_log.h"

/* ---- the chain ---- */

void chain_outside_a_batch_posts_at_once(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(post_test_write(env, 1, RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(post_test_write(env, 2, RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(fake_posted.count, 2);
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(fake_posted.send_wr.wr_id, 2);
}

void chain_rings_once_in_order(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	for (uint64_t i = 1; i <= 3; i++)
		assert_int_equal(post_test_write(env, i, i == 3 ? RPMA_F_COMPLETION_ALWAYS :
			RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(fake_posted.count, 0); /* nothing reached the device yet */
	assert_int_equal(rpma_post_batch_end(env->post), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 3);
	for (unsigned i = 0; i < 3; i++) {
		const struct ibv_send_wr *wr = &fake_posted.send_chain[i];
		assert_int_equal(wr->wr_id, i + 1);
		assert_int_equal(wr->opcode, IBV_WR_RDMA_WRITE);
		assert_int_equal(wr->num_sge, 1);
		assert_int_equal(wr->sg_list[0].addr, (uint64_t)(uintptr_t)post_buf);
		assert_int_equal(wr->sg_list[0].length, 16);
		assert_int_equal(wr->sg_list[0].lkey, env->lkey);
		assert_int_equal(wr->wr.rdma.remote_addr, RADDR + i + 1);
		assert_int_equal(wr->send_flags, i == 2 ? IBV_SEND_SIGNALED : 0);
	}
	assert_int_equal(fake_calls("ibv_wr_start"), 0);
	/* an empty batch posts nothing */
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	assert_int_equal(rpma_post_batch_end(env->post), 0);
	assert_int_equal(fake_posted.count, 1);
}

void chain_inline_data_rings_with_what_came_first(void **state)
{
	struct post_env *env = *state;
	const char value[8] = "1234567";
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	assert_int_equal(post_test_write(env, 1, RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(rpma_post_atomic_write(env->post, env->remote, 8, value,
		RPMA_F_COMPLETION_ALWAYS, CTX, false), 0);
	/* one doorbell: the write, then the inline request (its bytes read now) */
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 2);
	assert_int_equal(fake_posted.send_chain[0].wr_id, 1);
	assert_int_equal(fake_posted.send_chain[1].wr_id, (uint64_t)(uintptr_t)CTX);
	assert_int_equal(fake_posted.send_chain[1].send_flags,
		IBV_SEND_SIGNALED | IBV_SEND_INLINE | IBV_SEND_FENCE);
	assert_int_equal(rpma_post_batch_end(env->post), 0);
	assert_int_equal(fake_posted.count, 1);
}

void chain_rings_at_the_batch_max(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	for (uint64_t i = 0; i < RPMA_POST_BATCH_MAX; i++)
		assert_int_equal(post_test_write(env, i, RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, RPMA_POST_BATCH_MAX);
	/* emptied: collecting goes on from the first slot */
	assert_int_equal(post_test_write(env, 100, RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(post_test_write(env, 101, RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(rpma_post_batch_end(env->post), 0);
	assert_int_equal(fake_posted.count, 2);
	assert_int_equal(fake_posted.send_chain_len, 2);
	assert_int_equal(fake_posted.send_chain[0].wr_id, 100);
	assert_int_equal(fake_posted.send_chain[1].wr_id, 101);
}

void chain_failed_post_empties_and_closes(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	assert_int_equal(post_test_write(env, 1, RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(post_test_write(env, 2, RPMA_F_COMPLETION_ON_ERROR), 0);
	fake_fail("ibv_post_send", 1, ENOMEM);
	errno = 0;
	assert_int_equal(rpma_post_batch_end(env->post), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	/* closed, and nothing is left to be posted twice: the next batch holds only its own */
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	assert_int_equal(post_test_write(env, 3, RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(rpma_post_batch_end(env->post), 0);
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(fake_posted.send_wr.wr_id, 3);
}

/* In a chain the provider names the request it refused: the log line is about that one. */
void chain_failed_post_logs_the_refused_request(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	for (uint64_t wr_id = 1; wr_id <= 3; wr_id++)
		assert_int_equal(post_test_write(env, wr_id, wr_id == 2 ? RPMA_F_COMPLETION_ALWAYS :
			RPMA_F_COMPLETION_ON_ERROR), 0);
	fake_send_bad_wr_index = 1; /* the second */
	fake_fail("ibv_post_send", 1, ENOMEM);
	test_log_record_start();
	assert_int_equal(rpma_post_batch_end(env->post), RPMA_E_PROVIDER);
	assert_int_equal(test_log_last.count, 1);
	test_log_assert_line("ibv_post_send() failed: ENOMEM; work request: opcode=RDMA_WRITE "
		"wr_id=0x2 local_addr=0x%" PRIxPTR " length=16 remote_addr=0x10002 rkey=0x77 "
		"send_flags=SIGNALED", (uintptr_t)post_buf);
}

void batch_misuse_is_refused(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_batch_begin(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_post_batch_end(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_post_batch_end(env->post), RPMA_E_INVAL); /* none open */
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	assert_int_equal(rpma_post_batch_begin(env->post), RPMA_E_INVAL); /* one open */
	assert_int_equal(rpma_post_batch_end(env->post), 0);
	assert_int_equal(fake_posted.count, 0);
}

/* ---- the session of the extended interface ---- */

static void assert_session_wr(unsigned i, enum ibv_wr_opcode opcode, unsigned send_flags,
		const void *local, uint32_t length, uint64_t remote_addr)
{
	const struct ibv_send_wr *wr = &fake_posted.send_chain[i];
	assert_int_equal(wr->opcode, opcode);
	assert_int_equal(wr->wr_id, i);
	assert_int_equal(wr->send_flags, send_flags);
	assert_int_equal(wr->num_sge, length > 0 ? 1 : 0);
	if (local != NULL)
		assert_int_equal(wr->sg_list[0].addr, (uint64_t)(uintptr_t)local);
	assert_int_equal(wr->sg_list[0].length, length);
	assert_int_equal(wr->wr.rdma.remote_addr, remote_addr);
}

void session_builds_every_opcode(void **state)
{
	struct post_env *env = *state;
	const char value[8] = "abcdefg";
	const int ALWAYS = RPMA_F_COMPLETION_ALWAYS;
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	assert_int_equal(rpma_post_read(env->post, env->local, 1, env->remote, 2, 3, ALWAYS,
		(void *)0), 0);
	assert_int_equal(rpma_post_write(env->post, env->remote, 4, env->local, 5, 6,
		RPMA_F_COMPLETION_ON_ERROR, IBV_WR_RDMA_WRITE, 0, (void *)1), 0);
	assert_int_equal(rpma_post_write(env->post, env->remote, 7, env->local, 8, 9, ALWAYS,
		IBV_WR_RDMA_WRITE_WITH_IMM, 0x01020304, (void *)2), 0);
	assert_int_equal(rpma_post_send(env->post, env->local, 10, 11, ALWAYS, IBV_WR_SEND, 0,
		(void *)3), 0);
	assert_int_equal(rpma_post_send(env->post, NULL, 0, 0, ALWAYS, IBV_WR_SEND_WITH_IMM,
		0x0a0b0c0d, (void *)4), 0);
	assert_int_equal(rpma_post_write(env->post, NULL, 0, NULL, 0, 0, ALWAYS,
		IBV_WR_RDMA_WRITE, 0, (void *)5), 0);
	assert_int_equal(rpma_post_atomic_write(env->post, env->remote, 16, value, ALWAYS,
		(void *)6, false), 0);
	assert_int_equal(fake_posted.count, 0); /* the inline bytes were copied: no early ring */
	assert_int_equal(rpma_post_batch_end(env->post), 0);

	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 7);
	assert_int_equal(fake_calls("ibv_wr_start"), 1);
	assert_int_equal(fake_calls("ibv_post_send"), 0);
	assert_session_wr(0, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, post_buf + 1, 3, RADDR + 2);
	assert_int_equal(fake_posted.send_chain[0].wr.rdma.rkey, RKEY);
	assert_int_equal(fake_posted.send_chain[0].sg_list[0].lkey, env->lkey);
	assert_session_wr(1, IBV_WR_RDMA_WRITE, 0, post_buf + 5, 6, RADDR + 4);
	assert_session_wr(2, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED, post_buf + 8, 9,
		RADDR + 7);
	assert_int_equal(fake_posted.send_chain[2].imm_data, htonl(0x01020304));
	assert_session_wr(3, IBV_WR_SEND, IBV_SEND_SIGNALED, post_buf + 10, 11, 0);
	assert_session_wr(4, IBV_WR_SEND_WITH_IMM, IBV_SEND_SIGNALED, NULL, 0, 0);
	assert_int_equal(fake_posted.send_chain[4].imm_data, htonl(0x0a0b0c0d));
	assert_session_wr(5, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, NULL, 0, 0);
	assert_int_equal(fake_posted.send_chain[5].wr.rdma.rkey, 0);
	assert_session_wr(6, IBV_WR_RDMA_WRITE,
		IBV_SEND_SIGNALED | IBV_SEND_INLINE | IBV_SEND_FENCE, NULL, 8, RADDR + 16);
	assert_memory_equal((const void *)(uintptr_t)fake_posted.send_chain[6].sg_list[0].addr,
		value, 8);
}

/* a session rings once it holds a batch's worth, then goes on: 65 requests, 2 doorbells */
void session_rings_at_the_batch_max(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	for (uint64_t i = 0; i <= RPMA_POST_BATCH_MAX; i++)
		assert_int_equal(post_test_write(env, i, RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, RPMA_POST_BATCH_MAX);
	assert_int_equal(rpma_post_batch_end(env->post), 0);
	assert_int_equal(fake_posted.count, 2);
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(fake_calls("ibv_wr_start"), 2);
}

/* a failed doorbell posts none of the session, names the call and closes the batch */
void session_failed_doorbell_posts_nothing(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	assert_int_equal(post_test_write(env, 1, RPMA_F_COMPLETION_ALWAYS), 0);
	assert_int_equal(post_test_write(env, 2, RPMA_F_COMPLETION_ALWAYS), 0);
	fake_fail("ibv_wr_complete", 1, EAGAIN);
	test_log_record_start();
	errno = 0;
	assert_int_equal(rpma_post_batch_end(env->post), RPMA_E_PROVIDER);
	assert_int_equal(errno, EAGAIN);
	test_log_assert_line("ibv_wr_complete() failed: EAGAIN");
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(rpma_post_batch_begin(env->post), 0); /* closed by the failure */
	assert_int_equal(rpma_post_batch_end(env->post), 0);
	assert_int_equal(fake_calls("ibv_wr_complete"), 1); /* an empty batch rings nothing */
}

/* deleted in an open batch: the provider gets its lock back, nothing is posted */
void session_deleted_open_is_aborted(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	assert_int_equal(post_test_write(env, 1, RPMA_F_COMPLETION_ALWAYS), 0);
	rpma_post_delete(&env->post);
	assert_null(env->post);
	assert_int_equal(fake_calls("ibv_wr_abort"), 1);
	assert_int_equal(fake_posted.count, 0);
}

/* ---- native operations in a batch ---- */

#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
/* posted by its own verb: what was collected rings first, so the wire keeps the call order */
void native_goes_after_what_was_collected(void **state)
{
	struct post_env *env = *state;
	const char value[8] = {0};
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	assert_int_equal(post_test_write(env, 1, RPMA_F_COMPLETION_ON_ERROR), 0);
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(rpma_post_atomic_write(env->post, env->remote, 64, value,
		RPMA_F_COMPLETION_ALWAYS, CTX, true), 0);
	assert_int_equal(fake_posted.count, 2);
	assert_int_equal(fake_posted.send_chain_len, 1); /* the write, posted before it */
	assert_int_equal(fake_posted.send_wr.opcode, IBV_WR_RDMA_WRITE);
	assert_string_equal(fake_posted.wr_op, "atomic_write");
	assert_int_equal(rpma_post_batch_end(env->post), 0);
	assert_int_equal(fake_posted.count, 2);
}

/* what was collected fails to ring: the native request is not posted either */
void native_waits_for_what_was_collected(void **state)
{
	struct post_env *env = *state;
	const char value[8] = {0};
	assert_int_equal(rpma_post_batch_begin(env->post), 0);
	assert_int_equal(post_test_write(env, 1, RPMA_F_COMPLETION_ON_ERROR), 0);
	fake_fail("ibv_post_send", 1, EIO);
	assert_int_equal(rpma_post_atomic_write(env->post, env->remote, 64, value,
		RPMA_F_COMPLETION_ALWAYS, CTX, true), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_int_equal(fake_calls("ibv_wr_start"), 0);
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(rpma_post_batch_end(env->post), 0); /* nothing left to ring */
	assert_int_equal(fake_calls("ibv_post_send"), 1);
}
#endif
