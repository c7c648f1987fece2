/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_wait_and_delete_test.c -- the connection's end of life: waiting on a
 * shared completion channel, disconnecting, and a delete that releases every
 * part even when some of the provider's destroy calls fail.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "conn.h"
#include "conn_cfg.h"
#include "cq.h"
#include "peer.h"
#include "srq.h"
#include "provider.h"
#include "fake_provider.h"
#include "test_log.h"
#include "conn_test.h"

/* ---- rpma_conn_wait ---- */

void wait_invalid_and_not_shared(void **state)
{
	(void)state;
	conn_make(false, true);
	struct rpma_cq *cq = NULL;
	bool is_rcq;
	assert_int_equal(rpma_conn_wait(NULL, 0, &cq, &is_rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_wait(fx.conn, 0, NULL, &is_rcq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_wait(fx.conn, RPMA_W_WAIT_FOR_COMPLETION, &cq, &is_rcq),
		RPMA_E_NOT_SHARED_CHNL);
	assert_null(cq);
	assert_int_equal(fake_calls("ibv_get_cq_event"), 0);
}

void wait_tells_which_cq(void **state)
{
	(void)state;
	conn_make(true, true);
	unsigned notify = fake_calls("ibv_req_notify_cq");
	struct rpma_cq *cq = NULL;
	bool is_rcq = true;

	fake_channel_push(fx.parts.channel, fx.ibv_cq);
	assert_int_equal(rpma_conn_wait(fx.conn, RPMA_W_WAIT_FOR_COMPLETION, &cq, &is_rcq), 0);
	assert_ptr_equal(cq, fx.parts.cq);
	assert_false(is_rcq);
	assert_int_equal(fake_calls("ibv_ack_cq_events"), 1);
	assert_int_equal(fake_calls("ibv_req_notify_cq"), notify + 1); /* re-armed */

	fake_channel_push(fx.parts.channel, fx.ibv_rcq);
	assert_int_equal(rpma_conn_wait(fx.conn, 0, &cq, &is_rcq), 0);
	assert_ptr_equal(cq, fx.parts.rcq);
	assert_true(is_rcq);
	assert_int_equal(fake_calls("ibv_ack_cq_events"), 2);
	assert_int_equal(fake_calls("ibv_req_notify_cq"), notify + 2);

	/* is_rcq is optional */
	fake_channel_push(fx.parts.channel, fx.ibv_rcq);
	cq = NULL;
	assert_int_equal(rpma_conn_wait(fx.conn, RPMA_W_WAIT_FOR_COMPLETION, &cq, NULL), 0);
	assert_ptr_equal(cq, fx.parts.rcq);
}

void wait_without_rcq(void **state)
{
	(void)state;
	conn_make(true, false);
	struct rpma_cq *cq = NULL;
	bool is_rcq = true;
	fake_channel_push(fx.parts.channel, fx.ibv_cq);
	assert_int_equal(rpma_conn_wait(fx.conn, RPMA_W_WAIT_FOR_COMPLETION, &cq, &is_rcq), 0);
	assert_ptr_equal(cq, fx.parts.cq);
	assert_false(is_rcq);
}

void wait_no_completion(void **state)
{
	(void)state;
	conn_make(true, true);
	struct rpma_cq *cq = NULL;

	/* nothing there (a non-blocking channel) */
	assert_int_equal(rpma_conn_wait(fx.conn, RPMA_W_WAIT_FOR_COMPLETION, &cq, NULL),
		RPMA_E_NO_COMPLETION);
	/* ibv_get_cq_event() failing */
	fake_channel_push(fx.parts.channel, NULL);
	assert_int_equal(rpma_conn_wait(fx.conn, RPMA_W_WAIT_FOR_COMPLETION, &cq, NULL),
		RPMA_E_NO_COMPLETION);
	assert_null(cq);
	assert_int_equal(fake_calls("ibv_ack_cq_events"), 0);
}

void wait_unknown_cq(void **state)
{
	(void)state;
	conn_make(true, true);
	struct rpma_cq *stranger = NULL;
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 1, fx.parts.channel, &stranger), 0);
	unsigned notify = fake_calls("ibv_req_notify_cq");

	fake_channel_push(fx.parts.channel, rpma_cq_get_ibv_cq(stranger));
	struct rpma_cq *cq = NULL;
	bool is_rcq = true;
	assert_int_equal(rpma_conn_wait(fx.conn, 0, &cq, &is_rcq), RPMA_E_UNKNOWN);
	assert_null(cq);
	assert_true(is_rcq);
	assert_int_equal(fake_calls("ibv_ack_cq_events"), 1); /* acked all the same */
	assert_int_equal(fake_calls("ibv_req_notify_cq"), notify);
	assert_int_equal(rpma_cq_delete(&stranger), 0);
}

void wait_rearm_failure(void **state)
{
	(void)state;
	conn_make(true, false);
	fake_channel_push(fx.parts.channel, fx.ibv_cq);
	fake_fail("ibv_req_notify_cq", 1, EIO);
	struct rpma_cq *cq = NULL;
	errno = 0;
	assert_int_equal(rpma_conn_wait(fx.conn, 0, &cq, NULL), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_null(cq);
}

/* ---- disconnect ---- */

void disconnect_invalid_success_and_failure(void **state)
{
	(void)state;
	conn_make(false, false);
	assert_int_equal(rpma_conn_disconnect(NULL), RPMA_E_INVAL);
	assert_int_equal(fake_calls("rdma_disconnect"), 0);
	assert_int_equal(rpma_conn_disconnect(fx.conn), 0);
	assert_int_equal(fake_calls("rdma_disconnect"), 1);

	fake_fail("rdma_disconnect", 1, ENOTCONN);
	errno = 0;
	assert_int_equal(rpma_conn_disconnect(fx.conn), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOTCONN);
}

/* ---- rpma_conn_delete ---- */

void delete_invalid_and_null(void **state)
{
	(void)state;
	struct rpma_conn *conn = NULL;
	assert_int_equal(rpma_conn_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_delete(&conn), 0);
}

void delete_releases_everything(void **state)
{
	(void)state;
	conn_make(true, true);
	char data[] = "pdata";
	struct rpma_conn_private_data in = {data, sizeof(data)};
	assert_int_equal(rpma_conn_transfer_private_data(fx.conn, &in), 0);

	assert_int_equal(rpma_conn_delete(&fx.conn), 0);
	assert_null(fx.conn);
	assert_int_equal(fake_calls("rdma_destroy_qp"), 1);
	assert_int_equal(fake_calls("ibv_destroy_cq"), 2);
	assert_int_equal(fake_calls("rdma_destroy_id"), 1);
	assert_int_equal(fake_calls("rdma_destroy_event_channel"), 1);
	assert_int_equal(fake_calls("ibv_destroy_comp_channel"), 1); /* the shared one */
}

void delete_keeps_the_srq_rcq(void **state)
{
	(void)state;
	struct rpma_srq *srq = NULL;
	assert_int_equal(rpma_srq_new(fx.peer, NULL, &srq), 0);
	struct rpma_cq *srq_rcq = NULL;
	assert_int_equal(rpma_srq_get_rcq(srq, &srq_rcq), 0);
	assert_non_null(srq_rcq);
	struct rpma_conn_cfg *cfg = NULL;
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, srq), 0);

	assert_int_equal(rdma_create_id(NULL, &fx.id, NULL, RDMA_PS_TCP), 0);
	fx.id->verbs = fake_ibv_context();
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 10, NULL, &fx.parts.cq), 0);
	assert_int_equal(rpma_peer_setup_qp(fx.peer, fx.id, fx.parts.cq, srq_rcq,
		rpma_srq_get_ibv_srq(srq), cfg), 0);
	fx.parts.id = fx.id;
	fx.parts.rcq = srq_rcq;
	fx.parts.rcq_borrowed = true;
	assert_int_equal(rpma_conn_new(fx.peer, &fx.parts, &fx.conn), 0);

	unsigned destroyed = fake_calls("ibv_destroy_cq");
	assert_int_equal(rpma_conn_delete(&fx.conn), 0);
	assert_int_equal(fake_calls("ibv_destroy_cq"), destroyed + 1); /* the main CQ only */

	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(fake_calls("ibv_destroy_cq"), destroyed + 2);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

void delete_destroy_id_failure(void **state)
{
	(void)state;
	conn_make(false, false);
	fake_fail("rdma_destroy_id", 1, EBUSY);
	assert_int_equal(rpma_conn_delete(&fx.conn), RPMA_E_PROVIDER);
	assert_null(fx.conn);
	/* everything else went: the peer's PD, and the id the fake refused to destroy */
	assert_int_equal(fake_live_objects(), 2);
	assert_int_equal(rdma_destroy_id(fx.id), 0);
}

void delete_destroy_cq_failures(void **state)
{
	(void)state;
	for (unsigned nth = 1; nth <= 2; nth++) {
		conn_make(false, true);
		fake_fail("ibv_destroy_cq", nth, EBUSY);
		assert_int_equal(rpma_conn_delete(&fx.conn), RPMA_E_PROVIDER);
		assert_null(fx.conn);
		assert_int_equal(fake_live_objects(), 2);
		/* the main CQ goes first, then the receive CQ */
		assert_int_equal(ibv_destroy_cq(nth == 1 ? fx.ibv_cq : fx.ibv_rcq), 0);
		assert_int_equal(fake_live_objects(), 1);
		memset(&fx.parts, 0, sizeof(fx.parts));
	}
}

void delete_destroy_comp_channel_failure(void **state)
{
	(void)state;
	conn_make(true, false);
	fake_fail("ibv_destroy_comp_channel", 1, EBUSY);
	errno = 0;
	assert_int_equal(rpma_conn_delete(&fx.conn), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(fx.conn);
	assert_int_equal(fake_live_objects(), 2);
	assert_int_equal(ibv_destroy_comp_channel(fx.parts.channel), 0);
}

void delete_several_failures_release_the_rest(void **state)
{
	(void)state;
	conn_make(true, true);
	fake_fail("ibv_destroy_cq", 2, EBUSY);
	fake_fail("rdma_destroy_id", 1, EIO);
	fake_fail("ibv_destroy_comp_channel", 1, EBUSY);
	assert_int_equal(rpma_conn_delete(&fx.conn), RPMA_E_PROVIDER);
	assert_null(fx.conn);
	/* the PD, the receive CQ, the id and the shared channel */
	assert_int_equal(fake_live_objects(), 4);
	assert_int_equal(ibv_destroy_cq(fx.ibv_rcq), 0);
	assert_int_equal(rdma_destroy_id(fx.id), 0);
	assert_int_equal(ibv_destroy_comp_channel(fx.parts.channel), 0);
}
