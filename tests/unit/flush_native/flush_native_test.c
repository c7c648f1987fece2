/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flush_native_test.c -- the native flush path (IBV_WR_FLUSH), built with
 * wr_flush_shim.h because Debian 12's rdma-core lacks ibv_wr_flush: a
 * flush-capable device gets a QP with the flush send operation, and
 * rpma_flush_execute() posts one ibv_wr_flush over exactly the requested
 * range with the right placement -- to a remote region the application
 * vouched for; any other region gets the emulating read. A failed one logs
 * the flush's fields.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "conn_cfg.h"
#include "cq.h"
#include "fake_provider.h"
#include "flush.h"
#include "mr.h"
#include "peer.h"
#include "post.h"
#include "provider.h"
#include "test_log.h"

#define RADDR 0x7000000ULL
#define RKEY 0x5a5a
#define CTX ((const void *)0xfeed)

static struct {
	struct rpma_peer *peer;
	struct rpma_cq *cq;
	struct rdma_cm_id *id;
	struct rpma_post *post;
	struct rpma_flush *flush;
	struct rpma_mr_remote *dst;
} fx;

static struct rpma_mr_remote *remote_new(int usage)
{
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE] = {0};
	for (int i = 0; i < 8; i++)
		desc[i] = (uint8_t)(RADDR >> (8 * i));
	desc[10] = 0x01; /* length 0x10000 */
	desc[16] = (uint8_t)RKEY;
	desc[17] = (uint8_t)(RKEY >> 8);
	desc[20] = (uint8_t)usage;
	struct rpma_mr_remote *mr = NULL;
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), 0);
	return mr;
}

static int setup(void **state)
{
	(void)state;
	fake_reset();
	rpma_log_set_function(test_log_quiet);
	memset(&fx, 0, sizeof(fx));
	fake_device.has_query_device_ex = true;
	fake_device.device_cap_flags_ex = RPMA_DEVICE_CAP_FLUSH_GLOBAL |
		RPMA_DEVICE_CAP_FLUSH_PERSISTENT;
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &fx.peer), 0);
	assert_true(rpma_peer_has_native_flush(fx.peer));
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 8, NULL, &fx.cq), 0);
	assert_int_equal(rdma_create_id(NULL, &fx.id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rpma_peer_setup_qp(fx.peer, fx.id, fx.cq, NULL, NULL, rpma_conn_cfg_default()), 0);
	assert_int_equal(rpma_post_new(fx.id->qp, true, &fx.post), 0);
	assert_int_equal(rpma_flush_new(fx.peer, &fx.flush), 0);
	fx.dst = remote_new(RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_int_equal(rpma_mr_remote_set_flush_native(fx.dst), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(rpma_mr_remote_delete(&fx.dst), 0);
	assert_int_equal(rpma_flush_delete(&fx.flush), 0);
	rpma_post_delete(&fx.post);
	rdma_destroy_qp(fx.id);
	assert_int_equal(rdma_destroy_id(fx.id), 0);
	assert_int_equal(rpma_cq_delete(&fx.cq), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	assert_int_equal(fake_live_objects(), 0);
	return rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
}

static void qp_enables_the_flush_operation(void **state)
{
	(void)state;
	assert_true(fake_last_qp_attr.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	assert_true(fake_last_qp_attr.send_ops_flags & IBV_QP_EX_WITH_FLUSH);
	assert_non_null(ibv_qp_to_qp_ex(fx.id->qp));
}

static void flush_keeps_a_buffer_for_the_emulation(void **state)
{
	(void)state;
	/* 8 bytes registered for the regions that cannot take a native FLUSH */
	assert_int_equal(fake_calls("ibv_reg_mr"), 1);
	assert_int_equal(fake_last_mr->length, RPMA_FLUSH_EMULATION_READ_LEN);
}

/*
 * The decision: native only for a region the application vouched for. A
 * region of a librpma 1.x peer (nobody vouches) gets the read, which its
 * registration allows, never a FLUSH it would answer with an access error.
 */
static void unvouched_region_gets_the_emulating_read(void **state)
{
	(void)state;
	struct rpma_mr_remote *plain = remote_new(RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_false(rpma_flush_is_native(fx.flush, plain));
	assert_true(rpma_flush_is_native(fx.flush, fx.dst));
	assert_int_equal(rpma_flush_execute(fx.flush, fx.post, plain, 256, 4096,
		RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ALWAYS, CTX), 0);
	assert_int_equal(fake_calls("ibv_wr_flush"), 0);
	assert_int_equal(fake_posted.send_wr.opcode, IBV_WR_RDMA_READ);
	assert_int_equal(fake_posted.send_wr.wr.rdma.remote_addr, RADDR + 256);
	assert_int_equal(rpma_mr_remote_delete(&plain), 0);
}

static void set_flush_native_cases(void **state)
{
	(void)state;
	assert_int_equal(rpma_mr_remote_set_flush_native(NULL), RPMA_E_INVAL);
	/* a region registered for no flush has no flush access to vouch for */
	struct rpma_mr_remote *noflush = remote_new(RPMA_MR_USAGE_WRITE_DST |
		RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_mr_remote_set_flush_native(noflush), RPMA_E_NOSUPP);
	assert_false(rpma_flush_is_native(fx.flush, noflush));
	assert_int_equal(rpma_mr_remote_delete(&noflush), 0);
	struct rpma_mr_remote *vis = remote_new(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_mr_remote_set_flush_native(vis), 0);
	assert_true(rpma_flush_is_native(fx.flush, vis));
	assert_int_equal(rpma_mr_remote_delete(&vis), 0);
}

static void execute_posts_one_flush_over_the_range(void **state)
{
	(void)state;
	static const struct {
		enum rpma_flush_type type;
		uint8_t placement;
		int flags;
		unsigned wr_flags;
	} cases[] = {
		{RPMA_FLUSH_TYPE_PERSISTENT, IBV_FLUSH_PERSISTENT, RPMA_F_COMPLETION_ALWAYS,
			IBV_SEND_SIGNALED},
		{RPMA_FLUSH_TYPE_VISIBILITY, IBV_FLUSH_GLOBAL, RPMA_F_COMPLETION_ON_ERROR, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(rpma_flush_execute(fx.flush, fx.post, fx.dst, 4096, 12288,
			cases[i].type, cases[i].flags, CTX), 0);
		assert_string_equal(fake_posted.wr_op, "flush");
		assert_int_equal(fake_posted.wr_id, (uint64_t)(uintptr_t)CTX);
		assert_int_equal(fake_posted.wr_flags, cases[i].wr_flags);
		assert_int_equal(fake_posted.wr_rkey, RKEY);
		assert_int_equal(fake_posted.wr_remote_addr, RADDR + 4096);
		assert_int_equal(fake_posted.wr_len, 12288); /* the whole range, not 8 bytes */
		assert_int_equal(fake_posted.wr_flush_type, cases[i].placement);
		assert_int_equal(fake_posted.wr_flush_level, IBV_FLUSH_RANGE);
	}
	assert_int_equal(fake_calls("ibv_wr_flush"), 2);
	assert_int_equal(fake_calls("ibv_post_send"), 0); /* no emulating read */
	assert_int_equal(fake_posted.count, 2);
}

/*
 * A native FLUSH's length is 32 bits on the wire: a longer one would be cut
 * short, leaving the rest of the range unflushed while its completion says
 * done. It is refused before anything reaches the device, not even the
 * operations collected ahead of it; the longest length that fits goes whole.
 */
static void execute_refuses_a_native_flush_over_4_gib(void **state)
{
	(void)state;
	const size_t five_gib = (size_t)5 << 30;
	assert_int_equal(rpma_post_batch_begin(fx.post), 0);
	assert_int_equal(rpma_post_write(fx.post, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
		IBV_WR_RDMA_WRITE, 0, NULL), 0);

	assert_int_equal(rpma_flush_execute(fx.flush, fx.post, fx.dst, 0, five_gib,
		RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ALWAYS, CTX), RPMA_E_INVAL);
	assert_int_equal(fake_calls("ibv_wr_start"), 0);
	assert_int_equal(fake_calls("ibv_wr_flush"), 0);
	assert_int_equal(fake_calls("ibv_post_send"), 0);
	assert_int_equal(fake_posted.count, 0);

	assert_int_equal(rpma_flush_execute(fx.flush, fx.post, fx.dst, 0, UINT32_MAX,
		RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ALWAYS, CTX), 0);
	assert_int_equal(fake_calls("ibv_post_send"), 1); /* the write, ahead of the flush */
	assert_int_equal(fake_calls("ibv_wr_flush"), 1);
	assert_int_equal(fake_posted.wr_len, UINT32_MAX);
	assert_int_equal(rpma_post_batch_end(fx.post), 0);
}

static void execute_complete_fails(void **state)
{
	(void)state;
	fake_fail("ibv_wr_complete", 1, ENOMEM);
	test_log_record_start();
	assert_int_equal(rpma_flush_execute(fx.flush, fx.post, fx.dst, 256, 64,
		RPMA_FLUSH_TYPE_PERSISTENT, RPMA_F_COMPLETION_ALWAYS, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(fake_posted.count, 0);
	test_log_assert_line("ibv_wr_complete() failed: ENOMEM; work request: opcode=FLUSH "
		"wr_id=0xfeed length=64 remote_addr=0x7000100 rkey=0x5a5a send_flags=SIGNALED");
}

/* A QP without the extended interface cannot take the native flush: nothing is posted. */
static void execute_without_extended_qp_fails(void **state)
{
	(void)state;
	struct rdma_cm_id *plain_id = NULL;
	struct ibv_qp_init_attr attr = {.qp_type = IBV_QPT_RC};
	assert_int_equal(rdma_create_id(NULL, &plain_id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_create_qp(plain_id, NULL, &attr), 0);
	struct rpma_post *plain = NULL;
	assert_int_equal(rpma_post_new(plain_id->qp, false, &plain), 0);
	test_log_record_start();
	errno = 0;
	assert_int_equal(rpma_flush_execute(fx.flush, plain, fx.dst, 0, 8,
		RPMA_FLUSH_TYPE_VISIBILITY, RPMA_F_COMPLETION_ON_ERROR, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(fake_calls("ibv_wr_start"), 0);
	test_log_assert_line("ibv_qp_to_qp_ex() failed: EOPNOTSUPP; work request: opcode=FLUSH "
		"wr_id=0xfeed length=8 remote_addr=0x7000000 rkey=0x5a5a send_flags=UNSIGNALED");
	rpma_post_delete(&plain);
	rdma_destroy_qp(plain_id);
	assert_int_equal(rdma_destroy_id(plain_id), 0);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void flush_completion_reports_as_flush(void **state)
{
	(void)state;
	struct ibv_wc wc;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = (uint64_t)(uintptr_t)CTX;
	wc.status = IBV_WC_SUCCESS;
	wc.opcode = IBV_WC_FLUSH;
	fake_cq_push(rpma_cq_get_ibv_cq(fx.cq), &wc);
	struct rpma_completion cmpl;
	assert_int_equal(rpma_cq_get_completion(fx.cq, &cmpl), 0);
	assert_int_equal(cmpl.op, RPMA_OP_FLUSH);
	assert_ptr_equal(cmpl.op_context, CTX);
}
#pragma GCC diagnostic pop

/*
 * A region a native flush may target carries the flush access a device checks
 * (the emulation's remote read stays: a peer may still emulate).
 */
static void reg_gives_flush_access_on_native_device(void **state)
{
	(void)state;
	static char region[64];
	static const struct {
		int usage;
		int access;
		bool native;
	} cases[] = {
		{RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
			IBV_ACCESS_REMOTE_READ | RPMA_ACCESS_FLUSH_GLOBAL, true},
		{RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, IBV_ACCESS_REMOTE_READ |
			RPMA_ACCESS_FLUSH_GLOBAL | RPMA_ACCESS_FLUSH_PERSISTENT, true},
		{RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			RPMA_ACCESS_FLUSH_GLOBAL | RPMA_ACCESS_FLUSH_PERSISTENT, true},
		/* no flush usage, no flush access */
		{RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC,
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, false},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rpma_mr_local *mr = NULL;
		fake_last_mr_access = -1;
		assert_int_equal(rpma_mr_reg(fx.peer, region, sizeof(region), cases[i].usage, &mr), 0);
		assert_int_equal(fake_last_mr_access, cases[i].access);
		bool native = !cases[i].native;
		assert_int_equal(rpma_mr_get_flush_native(mr, &native), 0);
		assert_int_equal(native, cases[i].native);
		assert_int_equal(rpma_mr_get_flush_native(mr, NULL), RPMA_E_INVAL);
		assert_int_equal(rpma_mr_dereg(&mr), 0);
	}
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(qp_enables_the_flush_operation),
		T(flush_keeps_a_buffer_for_the_emulation),
		T(unvouched_region_gets_the_emulating_read),
		T(set_flush_native_cases),
		T(execute_posts_one_flush_over_the_range),
		T(execute_refuses_a_native_flush_over_4_gib),
		T(execute_complete_fails),
		T(execute_without_extended_qp_fails),
		T(flush_completion_reports_as_flush),
		T(reg_gives_flush_access_on_native_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
