/* SPDX-License-Identifier: BSD-3-Clause */
/* srq_test.c -- shared receive queues: creation from a configuration, receives, teardown */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "cq.h"
#include "fake_provider.h"
#include "test_log.h"
#include "test_peer.h"
#include "srq.h"
#include "srq_cfg.h"

#define CTX ((const void *)0x5eed)

/* Every test gets a peer in *state. */
static int setup(void **state)
{
	struct rpma_peer *peer = NULL;
	test_setup_quiet_peer(&peer);
	*state = peer;
	return 0;
}

static int teardown(void **state)
{
	struct rpma_peer *peer = *state;
	assert_int_equal(rpma_peer_delete(&peer), 0);
	assert_int_equal(fake_live_objects(), 0);
	return rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
}

static struct rpma_srq_cfg *cfg_new(uint32_t rq_size, uint32_t rcq_size)
{
	struct rpma_srq_cfg *cfg = NULL;
	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rq_size(cfg, rq_size), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(cfg, rcq_size), 0);
	return cfg;
}

static struct rpma_cq *rcq_of(const struct rpma_srq *srq)
{
	struct rpma_cq *rcq = (struct rpma_cq *)0x1;
	assert_int_equal(rpma_srq_get_rcq(srq, &rcq), 0);
	return rcq;
}

static void new_invalid_arguments(void **state)
{
	struct rpma_peer *peer = *state;
	struct rpma_srq *srq = (struct rpma_srq *)0x1;
	assert_int_equal(rpma_srq_new(NULL, NULL, &srq), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_new(peer, NULL, NULL), RPMA_E_INVAL);
	assert_ptr_equal(srq, (struct rpma_srq *)0x1);
	assert_int_equal(fake_calls("ibv_create_srq"), 0);
}

static void new_with_defaults(void **state)
{
	struct rpma_peer *peer = *state;
	struct rpma_srq *srq = NULL;
	assert_int_equal(rpma_srq_new(peer, NULL, &srq), 0);
	assert_non_null(srq);
	assert_int_equal(fake_last_srq_attr.attr.max_wr, RPMA_SRQ_CFG_DEFAULT_RQ_SIZE);
	assert_non_null(rpma_srq_get_ibv_srq(srq));
	struct rpma_cq *rcq = rcq_of(srq);
	assert_non_null(rcq);
	assert_int_equal(rpma_cq_get_ibv_cq(rcq)->cqe, RPMA_SRQ_CFG_DEFAULT_RCQ_SIZE);
	/* the receive CQ has a channel of its own, so it can be waited on */
	int fd = -1;
	assert_int_equal(rpma_cq_get_fd(rcq, &fd), 0);
	assert_true(fd >= 0);

	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_null(srq);
	assert_int_equal(fake_calls("ibv_destroy_srq"), 1);
	assert_int_equal(fake_calls("ibv_destroy_cq"), 1);
}

static void new_with_cfg(void **state)
{
	struct rpma_peer *peer = *state;
	struct rpma_srq_cfg *cfg = cfg_new(7, 9);
	struct rpma_srq *srq = NULL;
	assert_int_equal(rpma_srq_new(peer, cfg, &srq), 0);
	assert_int_equal(fake_last_srq_attr.attr.max_wr, 7);
	assert_int_equal(rpma_cq_get_ibv_cq(rcq_of(srq))->cqe, 9);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

static void new_without_rcq(void **state)
{
	struct rpma_peer *peer = *state;
	struct rpma_srq_cfg *cfg = cfg_new(5, 0);
	struct rpma_srq *srq = NULL;
	assert_int_equal(rpma_srq_new(peer, cfg, &srq), 0);
	assert_null(rcq_of(srq));
	assert_int_equal(fake_calls("ibv_create_cq"), 0);
	assert_int_equal(fake_calls("ibv_create_comp_channel"), 0);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(fake_calls("ibv_destroy_srq"), 1);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

static void new_failures(void **state)
{
	struct rpma_peer *peer = *state;
	static const char *const calls[] = {
		"ibv_create_srq", "ibv_create_comp_channel", "ibv_create_cq", "ibv_req_notify_cq",
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		struct rpma_srq *srq = NULL;
		fake_fail(calls[i], 1, ENOMEM);
		assert_int_equal(rpma_srq_new(peer, NULL, &srq), RPMA_E_PROVIDER);
		assert_int_equal(errno, ENOMEM);
		assert_null(srq);
		assert_int_equal(fake_live_objects(), 1); /* only the peer's PD */
	}
	for (unsigned nth = 1; nth <= 2; nth++) { /* the srq object, then the rcq object */
		struct rpma_srq *srq = NULL;
		fake_malloc_fail(nth);
		assert_int_equal(rpma_srq_new(peer, NULL, &srq), RPMA_E_NOMEM);
		assert_null(srq);
		assert_int_equal(fake_live_objects(), 1);
	}
}

static void delete_cases(void **state)
{
	struct rpma_peer *peer = *state;
	struct rpma_srq *srq = NULL;
	assert_int_equal(rpma_srq_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_delete(&srq), 0);

	/* rpma_srq_delete(3): *srq_ptr is NULL afterwards, failure or not */
	assert_int_equal(rpma_srq_new(peer, NULL, &srq), 0);
	struct ibv_srq *ibv_srq = rpma_srq_get_ibv_srq(srq);
	fake_fail("ibv_destroy_srq", 1, EBUSY);
	assert_int_equal(rpma_srq_delete(&srq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(srq);
	assert_int_equal(fake_calls("ibv_destroy_cq"), 1); /* the rest went anyway */
	assert_int_equal(ibv_destroy_srq(ibv_srq), 0);

	assert_int_equal(rpma_srq_new(peer, NULL, &srq), 0);
	ibv_srq = rpma_srq_get_ibv_srq(srq);
	struct ibv_cq *ibv_cq = rpma_cq_get_ibv_cq(rcq_of(srq));
	fake_fail("ibv_destroy_cq", 1, EIO);
	fake_fail("ibv_destroy_srq", 1, EBUSY);
	assert_int_equal(rpma_srq_delete(&srq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO); /* the first failure is the one reported */
	assert_null(srq);
	assert_int_equal(ibv_destroy_cq(ibv_cq), 0);
	assert_int_equal(ibv_destroy_srq(ibv_srq), 0);
}

static void recv_posts_to_the_srq(void **state)
{
	struct rpma_peer *peer = *state;
	static char buf[64];
	struct rpma_srq *srq = NULL;
	struct rpma_mr_local *mr = NULL;
	assert_int_equal(rpma_srq_new(peer, NULL, &srq), 0);
	assert_int_equal(rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_RECV, &mr), 0);

	assert_int_equal(rpma_srq_recv(NULL, mr, 0, 8, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_recv(srq, NULL, 1, 0, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_recv(srq, NULL, 0, 1, CTX), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_recv(srq, mr, 0, (size_t)UINT32_MAX + 1, CTX), RPMA_E_INVAL);
	assert_int_equal(fake_posted.count, 0);

	assert_int_equal(rpma_srq_recv(srq, mr, 8, 16, CTX), 0);
	assert_int_equal(fake_posted.srq_recv_wr.wr_id, (uint64_t)(uintptr_t)CTX);
	assert_int_equal(fake_posted.srq_recv_wr.num_sge, 1);
	assert_int_equal(fake_posted.srq_recv_sge.addr, (uint64_t)(uintptr_t)(buf + 8));
	assert_int_equal(fake_posted.srq_recv_sge.length, 16);

	assert_int_equal(rpma_srq_recv(srq, NULL, 0, 0, NULL), 0); /* a 0-byte message */
	assert_int_equal(fake_posted.srq_recv_wr.num_sge, 0);

	fake_fail("ibv_post_srq_recv", 1, ENOMEM);
	test_log_record_start();
	assert_int_equal(rpma_srq_recv(srq, mr, 0, 8, CTX), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	test_log_assert_line("ibv_post_srq_recv() failed: ENOMEM; work request: opcode=RECV "
		"wr_id=0x5eed local_addr=0x%" PRIxPTR " length=8", (uintptr_t)buf);
	assert_int_equal(fake_posted.count, 2);

	assert_int_equal(rpma_mr_dereg(&mr), 0);
	assert_int_equal(rpma_srq_delete(&srq), 0);
}

/* iWARP providers take no receive without a buffer: refused by name, not posted */
static void iwarp_refuses_a_receive_without_a_buffer(void **state)
{
	struct rpma_peer *peer = *state;
	struct rpma_peer *iwarp_peer = NULL;
	struct rpma_srq *srq = NULL;
	(void)peer;
	fake_device.transport = IBV_TRANSPORT_IWARP;
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &iwarp_peer), 0);
	assert_int_equal(rpma_srq_new(iwarp_peer, NULL, &srq), 0);
	test_log_record_start();
	assert_int_equal(rpma_srq_recv(srq, NULL, 0, 0, CTX), RPMA_E_NOSUPP);
	test_log_assert_has("rpma_srq_recv of 0 bytes", "iWARP has no immediate data", NULL);
	assert_int_equal(fake_posted.count, 0);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_peer_delete(&iwarp_peer), 0);
}

static void get_rcq_invalid(void **state)
{
	struct rpma_peer *peer = *state;
	struct rpma_srq *srq = NULL;
	struct rpma_cq *rcq = (struct rpma_cq *)0x1;
	assert_int_equal(rpma_srq_new(peer, NULL, &srq), 0);
	assert_int_equal(rpma_srq_get_rcq(NULL, &rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_get_rcq(srq, NULL), RPMA_E_INVAL);
	assert_ptr_equal(rcq, (struct rpma_cq *)0x1);
	assert_int_equal(rpma_srq_delete(&srq), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(new_invalid_arguments),
		T(new_with_defaults),
		T(new_with_cfg),
		T(new_without_rcq),
		T(new_failures),
		T(delete_cases),
		T(recv_posts_to_the_srq),
		T(iwarp_refuses_a_receive_without_a_buffer),
		T(get_rcq_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
