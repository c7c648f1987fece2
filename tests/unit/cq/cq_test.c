/* SPDX-License-Identifier: BSD-3-Clause */
/* cq_test.c -- completion queues: creation, channels, waiting, polling */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "cq.h"
#include "fake_provider.h"
#include "test_log.h"

/* fixtures: tests/unit/common/test_log.h */
#define setup test_setup_quiet
#define teardown test_teardown_no_leaks

static struct rpma_cq *cq_new_ok(struct ibv_comp_channel *shared)
{
	struct rpma_cq *cq = NULL;
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 10, shared, &cq), 0);
	assert_non_null(cq);
	return cq;
}

static void cq_delete_ok(struct rpma_cq **cq)
{
	assert_int_equal(rpma_cq_delete(cq), 0);
	assert_null(*cq);
}

static struct ibv_wc wc_make(uint64_t wr_id, enum ibv_wc_opcode opcode)
{
	struct ibv_wc wc;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr_id;
	wc.opcode = opcode;
	wc.status = IBV_WC_SUCCESS;
	wc.byte_len = 42;
	return wc;
}

/* ---- rpma_cq_new / rpma_cq_delete ---- */

static void new_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_cq *cq = (struct rpma_cq *)0x1;
	assert_int_equal(rpma_cq_new(NULL, 10, NULL, &cq), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 10, NULL, NULL), RPMA_E_INVAL);
	assert_ptr_equal(cq, (struct rpma_cq *)0x1);
	assert_int_equal(fake_calls("ibv_create_cq"), 0);
}

static void new_with_own_channel(void **state)
{
	(void)state;
	struct rpma_cq *cq = cq_new_ok(NULL);
	struct ibv_cq *ibv_cq = rpma_cq_get_ibv_cq(cq);
	assert_non_null(ibv_cq);
	assert_int_equal(ibv_cq->cqe, 10);
	assert_non_null(ibv_cq->channel);
	assert_int_equal(fake_calls("ibv_create_comp_channel"), 1);
	assert_int_equal(fake_calls("ibv_req_notify_cq"), 1); /* armed at once */
	assert_int_equal(fake_live_objects(), 2);

	int fd = -1;
	assert_int_equal(rpma_cq_get_fd(cq, &fd), 0);
	assert_int_equal(fd, ibv_cq->channel->fd);
	assert_true(fd >= 0);

	cq_delete_ok(&cq);
	assert_int_equal(fake_calls("ibv_destroy_comp_channel"), 1);
}

static void new_with_shared_channel(void **state)
{
	(void)state;
	struct ibv_comp_channel *shared = ibv_create_comp_channel(fake_ibv_context());
	assert_non_null(shared);
	struct rpma_cq *cq = cq_new_ok(shared);
	assert_int_equal(fake_calls("ibv_create_comp_channel"), 1); /* only the test's */
	assert_ptr_equal(rpma_cq_get_ibv_cq(cq)->channel, shared);

	int fd = -1;
	assert_int_equal(rpma_cq_get_fd(cq, &fd), 0);
	assert_int_equal(fd, shared->fd);
	/* whose event is on a shared channel is not this CQ's to say */
	fake_channel_push(shared, rpma_cq_get_ibv_cq(cq));
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_SHARED_CHANNEL);
	assert_int_equal(fake_calls("ibv_get_cq_event"), 0);

	cq_delete_ok(&cq);
	assert_int_equal(fake_calls("ibv_destroy_comp_channel"), 0); /* not owned */
	assert_int_equal(ibv_destroy_comp_channel(shared), 0);
}

static void new_provider_failures(void **state)
{
	(void)state;
	static const char *const calls[] = {
		"ibv_create_comp_channel", "ibv_create_cq", "ibv_req_notify_cq",
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		struct rpma_cq *cq = NULL;
		fake_fail(calls[i], 1, ENOMEM);
		assert_int_equal(rpma_cq_new(fake_ibv_context(), 10, NULL, &cq), RPMA_E_PROVIDER);
		assert_int_equal(errno, ENOMEM);
		assert_null(cq);
		assert_int_equal(fake_live_objects(), 0);
	}
}

static void new_failures_keep_a_shared_channel(void **state)
{
	(void)state;
	struct ibv_comp_channel *shared = ibv_create_comp_channel(fake_ibv_context());
	struct rpma_cq *cq = NULL;
	fake_fail("ibv_create_cq", 1, EINVAL);
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 10, shared, &cq), RPMA_E_PROVIDER);
	fake_malloc_fail(1);
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 10, shared, &cq), RPMA_E_NOMEM);
	assert_null(cq);
	assert_int_equal(fake_calls("ibv_destroy_comp_channel"), 0);
	assert_int_equal(fake_live_objects(), 1); /* the shared channel, still the test's */
	assert_int_equal(ibv_destroy_comp_channel(shared), 0);
}

static void new_out_of_memory(void **state)
{
	(void)state;
	struct rpma_cq *cq = NULL;
	fake_malloc_fail(1);
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 10, NULL, &cq), RPMA_E_NOMEM);
	assert_null(cq);
	assert_int_equal(fake_calls("ibv_destroy_cq"), 1);
	assert_int_equal(fake_calls("ibv_destroy_comp_channel"), 1);
}

static void delete_cases(void **state)
{
	(void)state;
	struct rpma_cq *cq = NULL;
	assert_int_equal(rpma_cq_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_delete(&cq), 0);

	/* a failed destroy: the object is still released, the error reported */
	cq = cq_new_ok(NULL);
	struct ibv_cq *ibv_cq = rpma_cq_get_ibv_cq(cq);
	struct ibv_comp_channel *channel = ibv_cq->channel;
	fake_fail("ibv_destroy_cq", 1, EBUSY);
	assert_int_equal(rpma_cq_delete(&cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(cq);
	assert_int_equal(fake_calls("ibv_destroy_comp_channel"), 1);
	assert_int_equal(ibv_destroy_cq(ibv_cq), 0); /* what the fake kept alive */

	cq = cq_new_ok(NULL);
	channel = rpma_cq_get_ibv_cq(cq)->channel;
	fake_fail("ibv_destroy_comp_channel", 1, EIO);
	assert_int_equal(rpma_cq_delete(&cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_null(cq);
	assert_int_equal(ibv_destroy_comp_channel(channel), 0);
}

static void delete_reports_the_first_failure(void **state)
{
	(void)state;
	struct rpma_cq *cq = cq_new_ok(NULL);
	struct ibv_cq *ibv_cq = rpma_cq_get_ibv_cq(cq);
	struct ibv_comp_channel *channel = ibv_cq->channel;
	fake_fail("ibv_destroy_cq", 1, EBUSY);
	fake_fail("ibv_destroy_comp_channel", 1, EIO);
	assert_int_equal(rpma_cq_delete(&cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_int_equal(ibv_destroy_cq(ibv_cq), 0);
	assert_int_equal(ibv_destroy_comp_channel(channel), 0);
}

/* ---- rpma_cq_get_fd / rpma_cq_wait ---- */

static void get_fd_invalid(void **state)
{
	(void)state;
	struct rpma_cq *cq = cq_new_ok(NULL);
	int fd = -7;
	assert_int_equal(rpma_cq_get_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_fd(cq, NULL), RPMA_E_INVAL);
	assert_int_equal(fd, -7);
	cq_delete_ok(&cq);
}

static void wait_gets_acks_and_rearms(void **state)
{
	(void)state;
	assert_int_equal(rpma_cq_wait(NULL), RPMA_E_INVAL);

	struct rpma_cq *cq = cq_new_ok(NULL);
	struct ibv_cq *ibv_cq = rpma_cq_get_ibv_cq(cq);
	fake_channel_push(ibv_cq->channel, ibv_cq);
	assert_int_equal(rpma_cq_wait(cq), 0);
	assert_int_equal(fake_calls("ibv_get_cq_event"), 1);
	assert_int_equal(fake_calls("ibv_ack_cq_events"), 1);
	assert_int_equal(fake_calls("ibv_req_notify_cq"), 2); /* at creation and again now */

	/* nothing pending */
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_NO_COMPLETION);
	assert_int_equal(fake_calls("ibv_ack_cq_events"), 1);

	/* re-arming fails */
	fake_channel_push(ibv_cq->channel, ibv_cq);
	fake_fail("ibv_req_notify_cq", 1, EIO);
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_int_equal(fake_calls("ibv_ack_cq_events"), 2); /* the event was still acked */
	cq_delete_ok(&cq);
}

/* ---- rpma_cq_get_wc ---- */

static void get_wc_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_cq *cq = cq_new_ok(NULL);
	struct ibv_wc wc[2];
	int got = -1;
	assert_int_equal(rpma_cq_get_wc(NULL, 1, wc, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, 1, NULL, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, 0, wc, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, -1, wc, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_cq_get_wc(cq, 2, wc, NULL), RPMA_E_INVAL);
	assert_int_equal(got, -1);
	assert_int_equal(fake_calls("ibv_poll_cq"), 0);
	cq_delete_ok(&cq);
}

static void get_wc_polls(void **state)
{
	(void)state;
	struct rpma_cq *cq = cq_new_ok(NULL);
	struct ibv_cq *ibv_cq = rpma_cq_get_ibv_cq(cq);
	struct ibv_wc wc[4];
	int got = -1;

	assert_int_equal(rpma_cq_get_wc(cq, 4, wc, &got), RPMA_E_NO_COMPLETION);
	assert_int_equal(got, -1);

	for (uint64_t id = 1; id <= 3; id++) {
		struct ibv_wc in = wc_make(id, IBV_WC_RDMA_WRITE);
		fake_cq_push(ibv_cq, &in);
	}
	assert_int_equal(rpma_cq_get_wc(cq, 2, wc, &got), 0);
	assert_int_equal(got, 2);
	assert_int_equal(wc[0].wr_id, 1);
	assert_int_equal(wc[1].wr_id, 2);
	/* one at a time needs no count */
	assert_int_equal(rpma_cq_get_wc(cq, 1, wc, NULL), 0);
	assert_int_equal(wc[0].wr_id, 3);
	assert_int_equal(wc[0].opcode, IBV_WC_RDMA_WRITE);
	assert_int_equal(rpma_cq_get_wc(cq, 1, wc, &got), RPMA_E_NO_COMPLETION);
	assert_int_equal(got, 2);
	cq_delete_ok(&cq);
}

static void get_wc_provider_failures(void **state)
{
	(void)state;
	struct rpma_cq *cq = cq_new_ok(NULL);
	struct ibv_wc wc[2];
	int got = -1;
	fake_cq_poll_result(-EIO);
	assert_int_equal(rpma_cq_get_wc(cq, 2, wc, &got), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	/* more than asked for: broken, and no reason to give */
	fake_cq_poll_result(3);
	assert_int_equal(rpma_cq_get_wc(cq, 2, wc, &got), RPMA_E_UNKNOWN);
	assert_int_equal(got, -1);
	cq_delete_ok(&cq);
}

/* ---- rpma_cq_get_completion (deprecated) ---- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static int get_completion(struct rpma_cq *cq, struct rpma_completion *cmpl)
{
	return rpma_cq_get_completion(cq, cmpl);
}
#pragma GCC diagnostic pop

static void get_completion_maps_opcodes(void **state)
{
	(void)state;
	static const struct {
		enum ibv_wc_opcode opcode;
		enum rpma_op op;
	} cases[] = {
		{IBV_WC_RDMA_READ, RPMA_OP_READ},
		{IBV_WC_RDMA_WRITE, RPMA_OP_WRITE},
		{IBV_WC_SEND, RPMA_OP_SEND},
		{IBV_WC_RECV, RPMA_OP_RECV},
		{IBV_WC_RECV_RDMA_WITH_IMM, RPMA_OP_RECV_RDMA_WITH_IMM},
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
		{IBV_WC_ATOMIC_WRITE, RPMA_OP_WRITE}, /* as the emulated one reports */
#endif
	};
	struct rpma_cq *cq = cq_new_ok(NULL);
	struct ibv_cq *ibv_cq = rpma_cq_get_ibv_cq(cq);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibv_wc wc = wc_make(0x100 + i, cases[i].opcode);
		fake_cq_push(ibv_cq, &wc);
		struct rpma_completion cmpl;
		memset(&cmpl, 0xab, sizeof(cmpl));
		assert_int_equal(get_completion(cq, &cmpl), 0);
		assert_ptr_equal(cmpl.op_context, (void *)(uintptr_t)(0x100 + i));
		assert_int_equal(cmpl.op, cases[i].op);
		assert_int_equal(cmpl.op_status, IBV_WC_SUCCESS);
		assert_int_equal(cmpl.byte_len, 42);
		assert_int_equal(cmpl.flags, 0);
		assert_int_equal(cmpl.imm, 0);
	}
	cq_delete_ok(&cq);
}

static void get_completion_immediate_data(void **state)
{
	(void)state;
	struct rpma_cq *cq = cq_new_ok(NULL);
	struct ibv_wc wc = wc_make(7, IBV_WC_RECV_RDMA_WITH_IMM);
	wc.wc_flags = IBV_WC_WITH_IMM;
	wc.imm_data = htonl(0x11223344); /* as it came off the wire */
	fake_cq_push(rpma_cq_get_ibv_cq(cq), &wc);
	struct rpma_completion cmpl;
	assert_int_equal(get_completion(cq, &cmpl), 0);
	assert_int_equal(cmpl.imm, 0x11223344);
	assert_int_equal(cmpl.flags, IBV_WC_WITH_IMM);
	assert_int_equal(cmpl.op, RPMA_OP_RECV_RDMA_WITH_IMM);
	cq_delete_ok(&cq);
}

static void get_completion_failed_and_unknown(void **state)
{
	(void)state;
	struct rpma_cq *cq = cq_new_ok(NULL);
	struct ibv_cq *ibv_cq = rpma_cq_get_ibv_cq(cq);
	struct rpma_completion cmpl;

	/* a failed completion: its opcode is not to be trusted, so it is not looked at */
	struct ibv_wc wc = wc_make(9, (enum ibv_wc_opcode)0x77);
	wc.status = IBV_WC_REM_ACCESS_ERR;
	fake_cq_push(ibv_cq, &wc);
	assert_int_equal(get_completion(cq, &cmpl), 0);
	assert_ptr_equal(cmpl.op_context, (void *)9);
	assert_int_equal(cmpl.op_status, IBV_WC_REM_ACCESS_ERR);

	wc = wc_make(10, IBV_WC_COMP_SWAP);
	fake_cq_push(ibv_cq, &wc);
	assert_int_equal(get_completion(cq, &cmpl), RPMA_E_NOSUPP);

	assert_int_equal(get_completion(cq, &cmpl), RPMA_E_NO_COMPLETION);
	fake_cq_poll_result(-EIO);
	assert_int_equal(get_completion(cq, &cmpl), RPMA_E_PROVIDER);
	assert_int_equal(get_completion(NULL, &cmpl), RPMA_E_INVAL);
	assert_int_equal(get_completion(cq, NULL), RPMA_E_INVAL);
	cq_delete_ok(&cq);
}

/* ---- rpma_shared_rcq_new / rpma_shared_rcq_delete (extension) ---- */

static void shared_rcq_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_peer *peer = NULL;
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &peer), 0);
	struct rpma_cq *rcq = (struct rpma_cq *)0x1;
	assert_int_equal(rpma_shared_rcq_new(NULL, 8, &rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_shared_rcq_new(peer, 8, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_shared_rcq_new(peer, 0, &rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_shared_rcq_new(peer, (uint32_t)INT_MAX + 1, &rcq), RPMA_E_INVAL);
	assert_ptr_equal(rcq, (struct rpma_cq *)0x1);
	assert_int_equal(fake_calls("ibv_create_cq"), 0);
	assert_int_equal(rpma_shared_rcq_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* a CQ of the peer's device with a channel of its own, armed; delete takes both */
static void shared_rcq_new_delete(void **state)
{
	(void)state;
	struct rpma_peer *peer = NULL;
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &peer), 0);
	const int live = fake_live_objects();
	struct rpma_cq *rcq = NULL;
	assert_int_equal(rpma_shared_rcq_new(peer, 24, &rcq), 0);
	struct ibv_cq *ibv_cq = rpma_cq_get_ibv_cq(rcq);
	assert_int_equal(ibv_cq->cqe, 24);
	assert_ptr_equal(ibv_cq->context, fake_ibv_context());
	assert_non_null(ibv_cq->channel);
	assert_int_equal(fake_calls("ibv_req_notify_cq"), 1);
	assert_int_equal(fake_live_objects(), live + 2);
	assert_int_equal(rpma_shared_rcq_delete(&rcq), 0);
	assert_null(rcq);
	assert_int_equal(fake_live_objects(), live);
	assert_int_equal(rpma_shared_rcq_delete(&rcq), 0); /* NULL: nothing */
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(new_invalid_arguments),
		T(new_with_own_channel),
		T(new_with_shared_channel),
		T(new_provider_failures),
		T(new_failures_keep_a_shared_channel),
		T(new_out_of_memory),
		T(delete_cases),
		T(delete_reports_the_first_failure),
		T(get_fd_invalid),
		T(wait_gets_acks_and_rearms),
		T(get_wc_invalid_arguments),
		T(get_wc_polls),
		T(get_wc_provider_failures),
		T(get_completion_maps_opcodes),
		T(get_completion_immediate_data),
		T(get_completion_failed_and_unknown),
		T(shared_rcq_invalid_arguments),
		T(shared_rcq_new_delete),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
