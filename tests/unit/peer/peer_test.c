/* SPDX-License-Identifier: BSD-3-Clause */
/* peer_test.c -- the peer: creation, native capabilities, QP set-up, registration, SRQs */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "cq.h"
#include "fake_provider.h"
#include "peer.h"
#include "provider.h"
#include "srq.h"

/* ---- a log function that remembers what it got ---- */

static int notices;
static int errors;
static char logged[1024]; /* every message, concatenated */

static void capture_log(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	(void)file_name;
	(void)line_no;
	(void)function_name;
	va_list ap;
	va_start(ap, message_format);
	size_t used = strlen(logged);
	vsnprintf(logged + used, sizeof(logged) - used, message_format, ap);
	va_end(ap);
	if (level == RPMA_LOG_LEVEL_NOTICE)
		notices++;
	if (level == RPMA_LOG_LEVEL_ERROR)
		errors++;
}

static int setup(void **state)
{
	(void)state;
	fake_reset();
	notices = 0;
	errors = 0;
	logged[0] = '\0';
	rpma_log_set_function(capture_log);
	return rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_NOTICE);
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(fake_live_objects(), 0);
	rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
	return rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING);
}

/* Make the fake device ODP-capable (what rpma_utils_ibv_context_is_odp_capable wants). */
static void device_odp_capable(void)
{
	fake_device.has_query_device_ex = true;
	fake_device.general_odp_caps = IBV_ODP_SUPPORT;
	fake_device.rc_odp_caps = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
		IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;
}

static struct rpma_peer *peer_new_ok(void)
{
	struct rpma_peer *peer = NULL;
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &peer), 0);
	assert_non_null(peer);
	return peer;
}

static void peer_delete_ok(struct rpma_peer **peer)
{
	assert_int_equal(rpma_peer_delete(peer), 0);
	assert_null(*peer);
}

/* ---- rpma_peer_new / rpma_peer_delete ---- */

static void new_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_peer *peer = (struct rpma_peer *)0x1;
	assert_int_equal(rpma_peer_new(NULL, &peer), RPMA_E_INVAL);
	assert_ptr_equal(peer, (struct rpma_peer *)0x1);
	assert_int_equal(rpma_peer_new(fake_ibv_context(), NULL), RPMA_E_INVAL);
	assert_int_equal(fake_calls("ibv_alloc_pd"), 0);
}

static void new_and_delete(void **state)
{
	(void)state;
	struct ibv_context *ctx = fake_ibv_context();
	struct rpma_peer *peer = peer_new_ok();
	assert_int_equal(fake_live_objects(), 1); /* the PD */
	assert_ptr_equal(rpma_peer_get_ibv_ctx(peer), ctx);
	/* a device without the extended query has no native operations */
	assert_false(rpma_peer_has_native_atomic_write(peer));
	assert_false(rpma_peer_has_native_flush(peer));
	peer_delete_ok(&peer);
	assert_int_equal(fake_calls("ibv_dealloc_pd"), 1);
}

static void new_odp_query_fails(void **state)
{
	(void)state;
	struct rpma_peer *peer = NULL;
	fake_fail("ibv_query_device", 1, EIO); /* the legacy query: no extended one */
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &peer), RPMA_E_PROVIDER);
	assert_null(peer);
	assert_int_equal(fake_calls("ibv_alloc_pd"), 0);
}

static void new_alloc_pd_fails(void **state)
{
	(void)state;
	static const struct {
		int err;
		int expected;
	} cases[] = {
		{ENOMEM, RPMA_E_NOMEM},
		{EACCES, RPMA_E_PROVIDER},
		{0, RPMA_E_UNKNOWN},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rpma_peer *peer = NULL;
		fake_fail("ibv_alloc_pd", 1, cases[i].err);
		errno = EBADF; /* a stale errno must not be taken for the provider's */
		assert_int_equal(rpma_peer_new(fake_ibv_context(), &peer), cases[i].expected);
		assert_null(peer);
		assert_int_equal(errno, cases[i].err);
		assert_int_equal(fake_live_objects(), 0);
	}
}

static void new_out_of_memory(void **state)
{
	(void)state;
	struct rpma_peer *peer = NULL;
	fake_malloc_fail(1);
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &peer), RPMA_E_NOMEM);
	assert_null(peer);
	assert_int_equal(fake_calls("ibv_dealloc_pd"), 1);
}

static void native_atomic_write_detected(void **state)
{
	(void)state;
	fake_device.has_query_device_ex = true;
	fake_device.device_cap_flags_ex = RPMA_DEVICE_CAP_ATOMIC_WRITE;
	struct rpma_peer *peer = peer_new_ok();
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	assert_true(rpma_peer_has_native_atomic_write(peer));
#else
	assert_false(rpma_peer_has_native_atomic_write(peer));
#endif
	assert_false(rpma_peer_has_native_flush(peer));
	peer_delete_ok(&peer);
}

static void native_flush_needs_both_types(void **state)
{
	(void)state;
	fake_device.has_query_device_ex = true;
	fake_device.device_cap_flags_ex = RPMA_DEVICE_CAP_FLUSH_PERSISTENT;
	struct rpma_peer *peer = peer_new_ok();
	assert_false(rpma_peer_has_native_flush(peer));
	peer_delete_ok(&peer);

	fake_device.device_cap_flags_ex =
		RPMA_DEVICE_CAP_FLUSH_PERSISTENT | RPMA_DEVICE_CAP_FLUSH_GLOBAL;
	peer = peer_new_ok();
#ifdef RPMA_HAVE_IBV_WR_FLUSH
	assert_true(rpma_peer_has_native_flush(peer));
#else
	assert_false(rpma_peer_has_native_flush(peer)); /* this build has no ibv_wr_flush */
#endif
	assert_false(rpma_peer_has_native_atomic_write(peer));
	peer_delete_ok(&peer);
}

static void native_query_fails_means_emulation(void **state)
{
	(void)state;
	fake_device.has_query_device_ex = true;
	fake_device.device_cap_flags_ex = RPMA_DEVICE_CAP_ATOMIC_WRITE |
		RPMA_DEVICE_CAP_FLUSH_PERSISTENT | RPMA_DEVICE_CAP_FLUSH_GLOBAL;
	fake_fail("ibv_query_device_ex", 2, EIO); /* the first one is the ODP query */
	struct rpma_peer *peer = peer_new_ok();
	assert_false(rpma_peer_has_native_atomic_write(peer));
	assert_false(rpma_peer_has_native_flush(peer));
	assert_int_equal(notices, 1);
	assert_int_equal(errors, 0);
	peer_delete_ok(&peer);
}

static void delete_invalid_and_null(void **state)
{
	(void)state;
	struct rpma_peer *peer = NULL;
	assert_int_equal(rpma_peer_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_int_equal(fake_calls("ibv_dealloc_pd"), 0);
}

static void delete_dealloc_pd_fails(void **state)
{
	(void)state;
	struct rpma_peer *peer = peer_new_ok();
	struct rpma_peer *kept = peer;
	fake_fail("ibv_dealloc_pd", 1, EBUSY);
	assert_int_equal(rpma_peer_delete(&peer), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	/* the peer stays usable, so the caller can retry */
	assert_ptr_equal(peer, kept);
	assert_int_equal(fake_live_objects(), 1);
	peer_delete_ok(&peer);
}

/* ---- rpma_peer_setup_qp ---- */

struct qp_env {
	struct rpma_peer *peer;
	struct rdma_cm_id *id;
	struct rpma_cq *cq;
	struct rpma_conn_cfg *cfg;
};

static void qp_env_new(struct qp_env *env)
{
	env->peer = peer_new_ok();
	assert_int_equal(rdma_create_id(NULL, &env->id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 10, NULL, &env->cq), 0);
	assert_int_equal(rpma_conn_cfg_new(&env->cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_sq_size(env->cfg, 33), 0);
	assert_int_equal(rpma_conn_cfg_set_rq_size(env->cfg, 44), 0);
}

static void qp_env_delete(struct qp_env *env)
{
	if (env->id->qp)
		rdma_destroy_qp(env->id);
	assert_int_equal(rdma_destroy_id(env->id), 0);
	assert_int_equal(rpma_cq_delete(&env->cq), 0);
	assert_int_equal(rpma_conn_cfg_delete(&env->cfg), 0);
	peer_delete_ok(&env->peer);
}

static void setup_qp_invalid_arguments(void **state)
{
	(void)state;
	struct qp_env env;
	qp_env_new(&env);
	assert_int_equal(rpma_peer_setup_qp(NULL, env.id, env.cq, NULL, NULL, env.cfg), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_setup_qp(env.peer, NULL, env.cq, NULL, NULL, env.cfg), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_setup_qp(env.peer, env.id, NULL, NULL, NULL, env.cfg), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_setup_qp(env.peer, env.id, env.cq, NULL, NULL, NULL), RPMA_E_INVAL);
	assert_int_equal(fake_calls("rdma_create_qp"), 0);
	qp_env_delete(&env);
}

static void setup_qp_plain(void **state)
{
	(void)state;
	struct qp_env env;
	qp_env_new(&env);
	assert_int_equal(rpma_peer_setup_qp(env.peer, env.id, env.cq, NULL, NULL, env.cfg), 0);
	assert_non_null(env.id->qp);

	const struct ibv_qp_init_attr_ex *a = &fake_last_qp_attr;
	assert_int_equal(a->qp_type, IBV_QPT_RC);
	assert_int_equal(a->cap.max_send_wr, 33);
	assert_int_equal(a->cap.max_recv_wr, 44);
	assert_int_equal(a->cap.max_send_sge, 1);
	assert_int_equal(a->cap.max_recv_sge, 1);
	assert_int_equal(a->cap.max_inline_data, 8);
	assert_int_equal(a->sq_sig_all, 0);
	assert_ptr_equal(a->send_cq, rpma_cq_get_ibv_cq(env.cq));
	assert_ptr_equal(a->recv_cq, rpma_cq_get_ibv_cq(env.cq));
	assert_null(a->srq);
	/* every opcode librpma posts, for the extended interface (ibv_wr_*) */
	assert_int_equal(a->comp_mask, IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	assert_int_equal(a->send_ops_flags, IBV_QP_EX_WITH_RDMA_WRITE |
		IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND |
		IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ);
	assert_non_null(a->pd);
	assert_non_null(ibv_qp_to_qp_ex(env.id->qp));
	assert_int_equal(fake_calls("rdma_create_qp"), 1);
	qp_env_delete(&env);
}

/* A provider without the extended interface (siw: EOPNOTSUPP): a plain QP instead. */
static void setup_qp_without_extended_interface(void **state)
{
	(void)state;
	struct qp_env env;
	qp_env_new(&env);
	fake_fail("rdma_create_qp", 1, EOPNOTSUPP);
	assert_int_equal(rpma_peer_setup_qp(env.peer, env.id, env.cq, NULL, NULL, env.cfg), 0);
	assert_int_equal(fake_calls("rdma_create_qp"), 2);
	assert_int_equal(fake_last_qp_attr.comp_mask, IBV_QP_INIT_ATTR_PD);
	assert_null(ibv_qp_to_qp_ex(env.id->qp));
	assert_int_equal(errors, 0);
	qp_env_delete(&env);
}

/* Any other failure is the QP's: not tried again, and named. */
static void setup_qp_other_failure_not_retried(void **state)
{
	(void)state;
	struct qp_env env;
	qp_env_new(&env);
	fake_fail("rdma_create_qp", 1, ENOMEM);
	assert_int_equal(rpma_peer_setup_qp(env.peer, env.id, env.cq, NULL, NULL, env.cfg),
		RPMA_E_PROVIDER);
	assert_int_equal(fake_calls("rdma_create_qp"), 1);
	assert_null(env.id->qp);
	assert_non_null(strstr(logged, "rdma_create_qp_ex"));
	qp_env_delete(&env);
}

static void setup_qp_with_rcq(void **state)
{
	(void)state;
	struct qp_env env;
	struct rpma_cq *rcq = NULL;
	qp_env_new(&env);
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 5, NULL, &rcq), 0);
	assert_int_equal(rpma_peer_setup_qp(env.peer, env.id, env.cq, rcq, NULL, env.cfg), 0);
	assert_ptr_equal(fake_last_qp_attr.send_cq, rpma_cq_get_ibv_cq(env.cq));
	assert_ptr_equal(fake_last_qp_attr.recv_cq, rpma_cq_get_ibv_cq(rcq));
	assert_int_equal(rpma_cq_delete(&rcq), 0);
	qp_env_delete(&env);
}

static void setup_qp_with_srq(void **state)
{
	(void)state;
	struct qp_env env;
	struct rpma_srq *srq = NULL;
	qp_env_new(&env);
	assert_int_equal(rpma_srq_new(env.peer, NULL, &srq), 0);
	assert_int_equal(rpma_conn_cfg_set_srq(env.cfg, srq), 0);
	assert_int_equal(rpma_peer_setup_qp(env.peer, env.id, env.cq, NULL,
		rpma_srq_get_ibv_srq(srq), env.cfg), 0);
	assert_ptr_equal(fake_last_qp_attr.srq, rpma_srq_get_ibv_srq(srq));
	assert_int_equal(fake_last_qp_attr.cap.max_recv_wr, 0); /* receives go to the SRQ */
	assert_int_equal(fake_last_qp_attr.cap.max_send_wr, 33);
	rdma_destroy_qp(env.id);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	qp_env_delete(&env);
}

static void setup_qp_native_atomic_write(void **state)
{
	(void)state;
	fake_device.has_query_device_ex = true;
	fake_device.device_cap_flags_ex = RPMA_DEVICE_CAP_ATOMIC_WRITE;
	struct qp_env env;
	qp_env_new(&env);
	assert_int_equal(rpma_peer_setup_qp(env.peer, env.id, env.cq, NULL, NULL, env.cfg), 0);
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	const uint64_t expected = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
		IBV_QP_EX_WITH_ATOMIC_WRITE;
	assert_int_equal(fake_last_qp_attr.comp_mask,
		IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
	assert_int_equal(fake_last_qp_attr.send_ops_flags, expected);
	assert_non_null(ibv_qp_to_qp_ex(env.id->qp));
#else
	assert_int_equal(fake_last_qp_attr.comp_mask, IBV_QP_INIT_ATTR_PD);
#endif
	qp_env_delete(&env);
}

static void setup_qp_create_fails(void **state)
{
	(void)state;
	struct qp_env env;
	qp_env_new(&env);
	fake_fail("rdma_create_qp", 1, ENOSPC);
	assert_int_equal(rpma_peer_setup_qp(env.peer, env.id, env.cq, NULL, NULL, env.cfg),
		RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOSPC);
	assert_null(env.id->qp);
	assert_int_equal(errors, 1);
	qp_env_delete(&env);
}

/* ---- rpma_peer_mr_reg ---- */

static char buf[64];

static void mr_reg_plain(void **state)
{
	(void)state;
	struct rpma_peer *peer = peer_new_ok();
	struct ibv_mr *mr = NULL;
	assert_int_equal(rpma_peer_mr_reg(peer, &mr, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE), 0);
	assert_non_null(mr);
	assert_ptr_equal(mr->addr, buf);
	assert_int_equal(mr->length, sizeof(buf));
	assert_int_equal(fake_last_mr_access, IBV_ACCESS_LOCAL_WRITE);
	assert_int_equal(fake_calls("ibv_reg_mr"), 1);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	peer_delete_ok(&peer);
}

static void mr_reg_falls_back_to_odp(void **state)
{
	(void)state;
	device_odp_capable();
	struct rpma_peer *peer = peer_new_ok();
	struct ibv_mr *mr = NULL;
	fake_fail("ibv_reg_mr", 1, EOPNOTSUPP);
	assert_int_equal(rpma_peer_mr_reg(peer, &mr, buf, sizeof(buf), IBV_ACCESS_REMOTE_READ), 0);
	assert_non_null(mr);
	assert_int_equal(fake_calls("ibv_reg_mr"), 2);
	assert_int_equal(fake_last_mr_access, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ON_DEMAND);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	peer_delete_ok(&peer);
}

static void mr_reg_fails(void **state)
{
	(void)state;
	static const struct {
		bool odp;
		int err1, err2; /* err2: the ODP retry, when there is one */
		unsigned calls;
	} cases[] = {
		{false, EOPNOTSUPP, 0, 1}, /* no ODP: nothing to retry with */
		{true, ENOMEM, 0, 1},      /* ODP does not help other errors */
		{true, EOPNOTSUPP, EFAULT, 2},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_reset();
		if (cases[i].odp)
			device_odp_capable();
		struct rpma_peer *peer = peer_new_ok();
		struct ibv_mr *mr = NULL;
		fake_fail("ibv_reg_mr", 1, cases[i].err1);
		if (cases[i].err2)
			fake_fail("ibv_reg_mr", 2, cases[i].err2);
		assert_int_equal(rpma_peer_mr_reg(peer, &mr, buf, sizeof(buf), 0), RPMA_E_PROVIDER);
		assert_null(mr);
		assert_int_equal(errno, cases[i].err2 ? cases[i].err2 : cases[i].err1);
		assert_int_equal(fake_calls("ibv_reg_mr"), cases[i].calls);
		peer_delete_ok(&peer);
	}
}

/* Without ODP an unpinnable region (fsdax) gets a hint naming the cause. */
static void mr_reg_unpinnable_without_odp_says_why(void **state)
{
	(void)state;
	struct rpma_peer *peer = peer_new_ok();
	struct ibv_mr *mr = NULL;
	fake_fail("ibv_reg_mr", 1, EOPNOTSUPP);
	assert_int_equal(rpma_peer_mr_reg(peer, &mr, buf, sizeof(buf), 0), RPMA_E_PROVIDER);
	assert_int_equal(errno, EOPNOTSUPP);
	assert_non_null(strstr(logged, "On-Demand Paging"));
	assert_non_null(strstr(logged, "EOPNOTSUPP"));
	peer_delete_ok(&peer);
}

/* ---- rpma_peer_create_srq ---- */

static void create_srq(void **state)
{
	(void)state;
	struct rpma_peer *peer = peer_new_ok();
	struct ibv_srq *srq = NULL;
	assert_int_equal(rpma_peer_create_srq(peer, 16, &srq), 0);
	assert_non_null(srq);
	assert_int_equal(fake_last_srq_attr.attr.max_wr, 16);
	assert_int_equal(fake_last_srq_attr.attr.max_sge, 1);
	assert_ptr_equal(srq->pd->context, fake_ibv_context()); /* in the peer's PD */
	assert_int_equal(ibv_destroy_srq(srq), 0);

	srq = NULL;
	fake_fail("ibv_create_srq", 1, ENOMEM);
	assert_int_equal(rpma_peer_create_srq(peer, 16, &srq), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_null(srq);
	peer_delete_ok(&peer);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(new_invalid_arguments),
		T(new_and_delete),
		T(new_odp_query_fails),
		T(new_alloc_pd_fails),
		T(new_out_of_memory),
		T(native_atomic_write_detected),
		T(native_flush_needs_both_types),
		T(native_query_fails_means_emulation),
		T(delete_invalid_and_null),
		T(delete_dealloc_pd_fails),
		T(setup_qp_invalid_arguments),
		T(setup_qp_plain),
		T(setup_qp_without_extended_interface),
		T(setup_qp_other_failure_not_retried),
		T(setup_qp_with_rcq),
		T(setup_qp_with_srq),
		T(setup_qp_native_atomic_write),
		T(setup_qp_create_fails),
		T(mr_reg_plain),
		T(mr_reg_falls_back_to_odp),
		T(mr_reg_fails),
		T(mr_reg_unpinnable_without_odp_says_why),
		T(create_srq),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
