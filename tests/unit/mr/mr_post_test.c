/* SPDX-License-Identifier: BSD-3-Clause */
/* mr_post_test.c -- the work requests the posting helpers build */
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
#include "cq.h"
#include "fake_provider.h"
#include "mr.h"
#include "mr_test.h"
#include "peer.h"
#include "provider.h"
#include "test_log.h"

#define RADDR 0x10000ULL
#define RKEY 0x77
#define CTX ((const void *)0xc0ffee)

static char buf[256];

struct post_env {
	struct rpma_peer *peer;
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
	struct rpma_mr_local *local; /* buf, usable for everything */
	uint32_t lkey;
	struct rpma_mr_remote *remote; /* RADDR, 0x1000 bytes, RKEY */
};

int post_setup(void **state)
{
	mr_setup(state);
	struct post_env *env = calloc(1, sizeof(*env));
	assert_non_null(env);
	env->peer = mr_test_peer_new();
	assert_int_equal(rdma_create_id(NULL, &env->id, NULL, RDMA_PS_TCP), 0);
	struct ibv_qp_init_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	assert_int_equal(rdma_create_qp(env->id, NULL, &attr), 0);
	env->qp = env->id->qp;
	env->local = mr_test_reg(env->peer, buf, sizeof(buf), 0xff);
	env->lkey = fake_last_mr->lkey;
	env->remote = mr_test_remote_new(RADDR, 0x1000, RKEY,
		RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST);
	memset(&fake_posted, 0, sizeof(fake_posted));
	*state = env;
	return 0;
}

int post_teardown(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_mr_remote_delete(&env->remote), 0);
	mr_test_dereg(&env->local);
	if (env->id->qp)
		rdma_destroy_qp(env->id);
	assert_int_equal(rdma_destroy_id(env->id), 0);
	mr_test_peer_delete(&env->peer);
	free(env);
	return mr_teardown(state);
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

void read_builds_one_sge(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_mr_read(NULL, env->qp, env->local, 16, env->remote, 32, 100,
		RPMA_F_COMPLETION_ALWAYS, CTX), 0);
	const struct ibv_send_wr *wr = last_send();
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(wr->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(wr->wr_id, (uint64_t)(uintptr_t)CTX);
	assert_int_equal(wr->num_sge, 1);
	assert_sge(&wr->sg_list[0], buf + 16, 100, env->lkey);
	assert_int_equal(wr->wr.rdma.remote_addr, RADDR + 32);
	assert_int_equal(wr->wr.rdma.rkey, RKEY);
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);

	assert_int_equal(rpma_mr_read(NULL, env->qp, env->local, 0, env->remote, 0, 8,
		RPMA_F_COMPLETION_ON_ERROR, CTX), 0);
	assert_int_equal(last_send()->send_flags, 0); /* unsignaled: completes only on error */
}

void read_zero_length(void **state)
{
	struct post_env *env = *state;
	/* no regions at all: the 0-byte read of rpma_read(3) */
	assert_int_equal(rpma_mr_read(NULL, env->qp, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
		CTX), 0);
	assert_int_equal(last_send()->opcode, IBV_WR_RDMA_READ);
	assert_int_equal(last_send()->num_sge, 0);
	assert_int_equal(last_send()->wr.rdma.remote_addr, 0);
	assert_int_equal(last_send()->wr.rdma.rkey, 0);
	assert_int_equal(last_send()->wr_id, (uint64_t)(uintptr_t)CTX);

	/* regions given but nothing to move: still no SGE, the remote side is named */
	assert_int_equal(rpma_mr_read(NULL, env->qp, env->local, 4, env->remote, 8, 0,
		RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(last_send()->num_sge, 0);
	assert_int_equal(last_send()->wr.rdma.remote_addr, RADDR + 8);
	assert_int_equal(last_send()->wr.rdma.rkey, RKEY);
	assert_int_equal(last_send()->wr_id, 0);
}

void write_and_write_with_imm(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_mr_write(NULL, env->qp, env->remote, 64, env->local, 8, 40,
		RPMA_F_COMPLETION_ALWAYS, IBV_WR_RDMA_WRITE, 0xdeadbeef, CTX), 0);
	const struct ibv_send_wr *wr = last_send();
	assert_int_equal(wr->opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(wr->num_sge, 1);
	assert_sge(&wr->sg_list[0], buf + 8, 40, env->lkey);
	assert_int_equal(wr->wr.rdma.remote_addr, RADDR + 64);
	assert_int_equal(wr->wr.rdma.rkey, RKEY);
	assert_int_equal(wr->imm_data, 0); /* no immediate data without the _WITH_IMM opcode */
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);

	assert_int_equal(rpma_mr_write(NULL, env->qp, env->remote, 0, env->local, 0, 4,
		RPMA_F_COMPLETION_ON_ERROR, IBV_WR_RDMA_WRITE_WITH_IMM, 0x01020304, CTX), 0);
	assert_int_equal(last_send()->opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	assert_imm_on_wire(last_send()->imm_data, 0x01020304);
	assert_int_equal(last_send()->send_flags, 0);

	assert_int_equal(rpma_mr_write(NULL, env->qp, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
		IBV_WR_RDMA_WRITE, 0, CTX), 0);
	assert_int_equal(last_send()->num_sge, 0);
	assert_int_equal(last_send()->wr.rdma.rkey, 0);
}

void atomic_write_emulated(void **state)
{
	struct post_env *env = *state;
	const char value[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	assert_int_equal(rpma_mr_atomic_write(NULL, env->qp, env->remote, 24, value,
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

	assert_int_equal(rpma_mr_atomic_write(NULL, env->qp, env->remote, 0, value,
		RPMA_F_COMPLETION_ON_ERROR, CTX, false), 0);
	assert_int_equal(last_send()->send_flags, IBV_SEND_INLINE | IBV_SEND_FENCE);
}

#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
/* The whole native path: device caps -> peer -> extended QP -> ibv_wr_atomic_write. */
void atomic_write_native(void **state)
{
	(void)state;
	fake_device.has_query_device_ex = true;
	fake_device.device_cap_flags_ex = RPMA_DEVICE_CAP_ATOMIC_WRITE;
	struct rpma_peer *peer = mr_test_peer_new();
	assert_true(rpma_peer_has_native_atomic_write(peer));
	struct rdma_cm_id *id = NULL;
	struct rpma_cq *cq = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 4, NULL, &cq), 0);
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_peer_setup_qp(peer, id, cq, NULL, NULL, cfg), 0);
	struct rpma_mr_remote *remote = mr_test_remote_new(RADDR, 64, RKEY,
		RPMA_MR_USAGE_WRITE_DST);

	const char value[8] = {8, 7, 6, 5, 4, 3, 2, 1};
	assert_int_equal(rpma_mr_atomic_write(NULL, id->qp, remote, 16, value,
		RPMA_F_COMPLETION_ALWAYS, CTX, rpma_peer_has_native_atomic_write(peer)), 0);
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
	assert_int_equal(rpma_mr_atomic_write(NULL, id->qp, remote, 8, value,
		RPMA_F_COMPLETION_ON_ERROR, CTX, true), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(fake_posted.wr_flags, IBV_SEND_FENCE);
	test_log_assert_line("ibv_wr_complete() failed: ENOSPC; work request: opcode=ATOMIC_WRITE "
		"wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=8 remote_addr=0x10008 rkey=0x77 "
		"send_flags=UNSIGNALED|FENCE", (uintptr_t)value);

	assert_int_equal(rpma_mr_remote_delete(&remote), 0);
	rdma_destroy_qp(id);
	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma_cq_delete(&cq), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	mr_test_peer_delete(&peer);
}

void atomic_write_native_without_extended_qp(void **state)
{
	struct post_env *env = *state;
	const char value[8] = {0};
	errno = 0;
	test_log_record_start();
	assert_int_equal(rpma_mr_atomic_write(NULL, env->qp, env->remote, 0, value,
		RPMA_F_COMPLETION_ALWAYS, CTX, true), RPMA_E_PROVIDER);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(fake_posted.count, 0);
	test_log_assert_line("ibv_qp_to_qp_ex() failed: EOPNOTSUPP; work request: "
		"opcode=ATOMIC_WRITE wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=8 "
		"remote_addr=0x10000 rkey=0x77 send_flags=SIGNALED|FENCE", (uintptr_t)value);
}
#endif

void send_and_send_with_imm(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_mr_send(NULL, env->qp, env->local, 10, 20, RPMA_F_COMPLETION_ALWAYS,
		IBV_WR_SEND, 5, CTX), 0);
	const struct ibv_send_wr *wr = last_send();
	assert_int_equal(wr->opcode, IBV_WR_SEND);
	assert_int_equal(wr->num_sge, 1);
	assert_sge(&wr->sg_list[0], buf + 10, 20, env->lkey);
	assert_int_equal(wr->imm_data, 0);
	assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(wr->wr_id, (uint64_t)(uintptr_t)CTX);

	assert_int_equal(rpma_mr_send(NULL, env->qp, NULL, 0, 0, RPMA_F_COMPLETION_ON_ERROR,
		IBV_WR_SEND_WITH_IMM, 0xa0b0c0d0, NULL), 0);
	assert_int_equal(last_send()->opcode, IBV_WR_SEND_WITH_IMM);
	assert_int_equal(last_send()->num_sge, 0);
	assert_imm_on_wire(last_send()->imm_data, 0xa0b0c0d0);
	assert_int_equal(last_send()->send_flags, 0);
	assert_int_equal(last_send()->wr_id, 0);
}

void recv_and_srq_recv(void **state)
{
	struct post_env *env = *state;
	assert_int_equal(rpma_mr_recv(env->qp, env->local, 32, 64, CTX), 0);
	assert_int_equal(fake_posted.recv_wr.wr_id, (uint64_t)(uintptr_t)CTX);
	assert_int_equal(fake_posted.recv_wr.num_sge, 1);
	assert_sge(&fake_posted.recv_sge, buf + 32, 64, env->lkey);

	assert_int_equal(rpma_mr_recv(env->qp, NULL, 0, 0, NULL), 0);
	assert_int_equal(fake_posted.recv_wr.num_sge, 0);
	assert_int_equal(fake_posted.recv_wr.wr_id, 0);

	struct ibv_srq *srq = NULL;
	assert_int_equal(rpma_peer_create_srq(env->peer, 8, &srq), 0);
	assert_int_equal(rpma_mr_srq_recv(srq, env->local, 1, 2, CTX), 0);
	assert_int_equal(fake_posted.srq_recv_wr.wr_id, (uint64_t)(uintptr_t)CTX);
	assert_int_equal(fake_posted.srq_recv_wr.num_sge, 1);
	assert_sge(&fake_posted.srq_recv_sge, buf + 1, 2, env->lkey);
	assert_int_equal(rpma_mr_srq_recv(srq, NULL, 0, 0, CTX), 0);
	assert_int_equal(fake_posted.srq_recv_wr.num_sge, 0);
	assert_int_equal(fake_posted.count, 4);
	assert_int_equal(ibv_destroy_srq(srq), 0);
}

/* Each failed post: the code, errno, and a log line with the work request's fields. */
void posting_failures(void **state)
{
	struct post_env *env = *state;
	const char value[8] = {0};
	struct ibv_srq *srq = NULL;
	assert_int_equal(rpma_peer_create_srq(env->peer, 8, &srq), 0);
	test_log_record_start();

	fake_fail("ibv_post_send", 1, ENOMEM);
	assert_int_equal(rpma_mr_read(NULL, env->qp, env->local, 16, env->remote, 32, 100,
		RPMA_F_COMPLETION_ALWAYS, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	test_log_assert_line("ibv_post_send() failed: ENOMEM; work request: opcode=RDMA_READ "
		"wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=100 remote_addr=0x10020 rkey=0x77 "
		"send_flags=SIGNALED", (uintptr_t)(buf + 16));

	fake_fail("ibv_post_send", 1, EINVAL);
	assert_int_equal(rpma_mr_write(NULL, env->qp, env->remote, 64, env->local, 8, 40,
		RPMA_F_COMPLETION_ON_ERROR, IBV_WR_RDMA_WRITE_WITH_IMM, 1, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	test_log_assert_line("ibv_post_send() failed: EINVAL; work request: "
		"opcode=RDMA_WRITE_WITH_IMM wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=40 "
		"remote_addr=0x10040 rkey=0x77 send_flags=UNSIGNALED", (uintptr_t)(buf + 8));

	fake_fail("ibv_post_send", 1, ENOSPC);
	assert_int_equal(rpma_mr_atomic_write(NULL, env->qp, env->remote, 0, value,
		RPMA_F_COMPLETION_ALWAYS, CTX, false), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOSPC);
	test_log_assert_line("ibv_post_send() failed: ENOSPC; work request: opcode=RDMA_WRITE "
		"wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=8 remote_addr=0x10000 rkey=0x77 "
		"send_flags=SIGNALED|FENCE|INLINE", (uintptr_t)value);

	fake_fail("ibv_post_send", 1, EAGAIN);
	assert_int_equal(rpma_mr_send(NULL, env->qp, env->local, 0, 8, RPMA_F_COMPLETION_ALWAYS,
		IBV_WR_SEND, 0, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, EAGAIN);
	test_log_assert_line("ibv_post_send() failed: EAGAIN; work request: opcode=SEND "
		"wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=8 send_flags=SIGNALED",
		(uintptr_t)buf);

	fake_fail("ibv_post_recv", 1, ENOMEM);
	assert_int_equal(rpma_mr_recv(env->qp, env->local, 32, 64, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	test_log_assert_line("ibv_post_recv() failed: ENOMEM; work request: opcode=RECV "
		"wr_id=0xc0ffee local_addr=0x%" PRIxPTR " length=64", (uintptr_t)(buf + 32));

	fake_fail("ibv_post_srq_recv", 1, EINVAL);
	assert_int_equal(rpma_mr_srq_recv(srq, env->local, 0, 8, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	test_log_assert_line("ibv_post_srq_recv() failed: EINVAL; work request: opcode=RECV "
		"wr_id=0x0 local_addr=0x%" PRIxPTR " length=8", (uintptr_t)buf);

	assert_int_equal(test_log_last.count, 6); /* one line each */
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
}
