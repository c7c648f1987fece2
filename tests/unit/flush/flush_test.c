/* SPDX-License-Identifier: BSD-3-Clause */
/* flush_test.c -- the flush object: its buffer and the read that emulates a flush */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "fake_provider.h"
#include "test_log.h"
#include "flush.h"
#include "mr.h"
#include "peer.h"
#include "post.h"
#include "provider.h"

#define RADDR 0x40000ULL
#define RKEY 0x99
#define CTX ((const void *)0xf1f1)

/* fixtures: tests/unit/common/test_log.h */
#define setup test_setup_quiet
#define teardown test_teardown_no_leaks

static struct rpma_peer *peer_new_ok(void)
{
	struct rpma_peer *peer = NULL;
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &peer), 0);
	return peer;
}

static struct rpma_mr_remote *remote_new(void)
{
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE] = {0};
	for (int i = 0; i < 8; i++)
		desc[i] = (uint8_t)(RADDR >> (8 * i));
	desc[9] = 0x10; /* length 0x1000 */
	desc[16] = RKEY;
	desc[20] = RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	struct rpma_mr_remote *mr = NULL;
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), 0);
	return mr;
}

static void new_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_peer *peer = peer_new_ok();
	struct rpma_flush *flush = (struct rpma_flush *)0x1;
	assert_int_equal(rpma_flush_new(NULL, &flush), RPMA_E_INVAL);
	assert_int_equal(rpma_flush_new(peer, NULL), RPMA_E_INVAL);
	assert_ptr_equal(flush, (struct rpma_flush *)0x1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void new_emulated_registers_a_small_buffer(void **state)
{
	(void)state;
	struct rpma_peer *peer = peer_new_ok();
	struct rpma_flush *flush = NULL;
	assert_int_equal(rpma_flush_new(peer, &flush), 0);
	assert_non_null(flush);
	assert_int_equal(fake_calls("ibv_reg_mr"), 1);
	assert_int_equal(fake_last_mr->length, RPMA_FLUSH_EMULATION_READ_LEN);
	assert_int_equal(fake_last_mr_access, IBV_ACCESS_LOCAL_WRITE); /* a read lands there */
	assert_int_equal(fake_live_objects(), 2); /* PD and the buffer's MR */

	assert_int_equal(rpma_flush_delete(&flush), 0);
	assert_null(flush);
	assert_int_equal(fake_calls("ibv_dereg_mr"), 1);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void new_with_flush_capable_device(void **state)
{
	(void)state;
	fake_device.has_query_device_ex = true;
	fake_device.device_cap_flags_ex =
		RPMA_DEVICE_CAP_FLUSH_GLOBAL | RPMA_DEVICE_CAP_FLUSH_PERSISTENT;
	struct rpma_peer *peer = peer_new_ok();
	struct rpma_flush *flush = NULL;
	assert_int_equal(rpma_flush_new(peer, &flush), 0);
	/* native or not, the read buffer is there: a region may still need the emulation */
	assert_int_equal(fake_calls("ibv_reg_mr"), 1);
	assert_int_equal(rpma_flush_delete(&flush), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

static void new_failures(void **state)
{
	(void)state;
	struct rpma_peer *peer = peer_new_ok();
	struct rpma_flush *flush = NULL;

	fake_malloc_fail(1); /* the flush object */
	assert_int_equal(rpma_flush_new(peer, &flush), RPMA_E_NOMEM);
	fake_malloc_fail(2); /* the buffer's rpma_mr_local */
	assert_int_equal(rpma_flush_new(peer, &flush), RPMA_E_NOMEM);
	fake_fail("ibv_reg_mr", 1, ENOMEM);
	assert_int_equal(rpma_flush_new(peer, &flush), RPMA_E_PROVIDER);
	assert_null(flush);
	assert_int_equal(fake_live_objects(), 1); /* only the PD */
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* a still-registered buffer is kept on purpose: reachable, so no leak report */
static void *volatile kept_flush_buf;

static void delete_cases(void **state)
{
	(void)state;
	struct rpma_flush *flush = NULL;
	assert_int_equal(rpma_flush_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_flush_delete(&flush), 0);

	struct rpma_peer *peer = peer_new_ok();
	assert_int_equal(rpma_flush_new(peer, &flush), 0);
	struct ibv_mr *mr = fake_last_mr;
	fake_fail("ibv_dereg_mr", 1, EBUSY);
	/* the connection is going away: the object is released whatever happens */
	assert_int_equal(rpma_flush_delete(&flush), RPMA_E_PROVIDER);
	assert_null(flush);
	/* ...but not the read buffer the NIC may still write: ASan sees a use after free */
	kept_flush_buf = mr->addr;
	memset(kept_flush_buf, 0xa5, mr->length);
	assert_int_equal(ibv_dereg_mr(mr), 0); /* what the fake kept alive */
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

struct exec_env {
	struct rpma_peer *peer;
	struct rdma_cm_id *id;
	struct rpma_post *post;
	struct rpma_flush *flush;
	struct ibv_mr *buf_mr;
	struct rpma_mr_remote *dst;
};

static void exec_env_new(struct exec_env *env)
{
	env->peer = peer_new_ok();
	assert_int_equal(rpma_flush_new(env->peer, &env->flush), 0);
	env->buf_mr = fake_last_mr;
	assert_int_equal(rdma_create_id(NULL, &env->id, NULL, RDMA_PS_TCP), 0);
	struct ibv_qp_init_attr attr;
	memset(&attr, 0, sizeof(attr));
	assert_int_equal(rdma_create_qp(env->id, NULL, &attr), 0);
	assert_int_equal(rpma_post_new(env->id->qp, false, &env->post), 0);
	env->dst = remote_new();
}

static void exec_env_delete(struct exec_env *env)
{
	assert_int_equal(rpma_mr_remote_delete(&env->dst), 0);
	rpma_post_delete(&env->post);
	rdma_destroy_qp(env->id);
	assert_int_equal(rdma_destroy_id(env->id), 0);
	assert_int_equal(rpma_flush_delete(&env->flush), 0);
	assert_int_equal(rpma_peer_delete(&env->peer), 0);
}

static void execute_emulated_reads_at_most_8_bytes(void **state)
{
	(void)state;
	static const struct {
		size_t len;
		uint32_t read_len;
		enum rpma_flush_type type;
	} cases[] = {
		{4096, 8, RPMA_FLUSH_TYPE_PERSISTENT},
		{8, 8, RPMA_FLUSH_TYPE_VISIBILITY},
		{3, 3, RPMA_FLUSH_TYPE_VISIBILITY},
		/* the read's few bytes carry no length: an emulated flush takes any */
		{(size_t)5 << 30, 8, RPMA_FLUSH_TYPE_PERSISTENT},
	};
	struct exec_env env;
	exec_env_new(&env);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(rpma_flush_execute(env.flush, env.post, env.dst, 128, cases[i].len,
			cases[i].type, RPMA_F_COMPLETION_ALWAYS, CTX), 0);
		const struct ibv_send_wr *wr = &fake_posted.send_wr;
		assert_int_equal(wr->opcode, IBV_WR_RDMA_READ);
		assert_int_equal(wr->wr_id, (uint64_t)(uintptr_t)CTX);
		assert_int_equal(wr->send_flags, IBV_SEND_SIGNALED);
		assert_int_equal(wr->num_sge, 1);
		assert_int_equal(wr->sg_list[0].addr, (uint64_t)(uintptr_t)env.buf_mr->addr);
		assert_int_equal(wr->sg_list[0].length, cases[i].read_len);
		assert_int_equal(wr->sg_list[0].lkey, env.buf_mr->lkey);
		assert_int_equal(wr->wr.rdma.remote_addr, RADDR + 128);
		assert_int_equal(wr->wr.rdma.rkey, RKEY);
	}
	assert_int_equal(fake_posted.count, 4);
	exec_env_delete(&env);
}

static void execute_emulated_zero_length(void **state)
{
	(void)state;
	struct exec_env env;
	exec_env_new(&env);
	assert_int_equal(rpma_flush_execute(env.flush, env.post, env.dst, 16, 0,
		RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ON_ERROR, CTX), 0);
	assert_int_equal(fake_posted.send_wr.opcode, IBV_WR_RDMA_READ);
	assert_int_equal(fake_posted.send_wr.num_sge, 0);
	assert_int_equal(fake_posted.send_wr.send_flags, 0);
	assert_int_equal(fake_posted.send_wr.wr.rdma.remote_addr, RADDR + 16);
	exec_env_delete(&env);
}

static void execute_post_fails(void **state)
{
	(void)state;
	struct exec_env env;
	exec_env_new(&env);
	fake_fail("ibv_post_send", 1, ENOSPC);
	assert_int_equal(rpma_flush_execute(env.flush, env.post, env.dst, 0, 64,
		RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ALWAYS, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(fake_posted.count, 0);
	exec_env_delete(&env);
}

/* a region the application vouched for is still emulated on a device without FLUSH */
static void vouched_region_emulated_without_native_device(void **state)
{
	(void)state;
	struct exec_env env;
	exec_env_new(&env);
	assert_false(rpma_flush_is_native(env.flush, env.dst));
	assert_int_equal(rpma_mr_remote_set_flush_native(env.dst), 0);
	assert_false(rpma_flush_is_native(env.flush, env.dst));
	assert_int_equal(rpma_flush_execute(env.flush, env.post, env.dst, 0, 64,
		RPMA_FLUSH_TYPE_VISIBILITY, RPMA_F_COMPLETION_ALWAYS, CTX), 0);
	assert_int_equal(fake_posted.send_wr.opcode, IBV_WR_RDMA_READ);
	assert_int_equal(fake_calls("ibv_wr_flush"), 0);
	exec_env_delete(&env);
}

/* a registration for flush on a device without FLUSH has no flush access to advertise */
static void local_region_not_native_without_native_device(void **state)
{
	(void)state;
	static char region[64];
	struct rpma_peer *peer = peer_new_ok();
	struct rpma_mr_local *mr = NULL;
	bool native = true;
	assert_int_equal(rpma_mr_reg(peer, region, sizeof(region),
		RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, &mr), 0);
	assert_int_equal(rpma_mr_get_flush_native(mr, &native), 0);
	assert_false(native);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(new_invalid_arguments),
		T(new_emulated_registers_a_small_buffer),
		T(new_with_flush_capable_device),
		T(new_failures),
		T(delete_cases),
		T(execute_emulated_reads_at_most_8_bytes),
		T(execute_emulated_zero_length),
		T(execute_post_fails),
		T(vouched_region_emulated_without_native_device),
		T(local_region_not_native_without_native_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
