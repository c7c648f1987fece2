/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_fixture.c -- the connection tests' fixture: a peer and the parts of a
 * connection (CM id, QP, CQs, a completion channel) on the fake provider
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
#include "test_peer.h"
#include "conn_test.h"

struct conn_fixture fx;

int conn_setup(void **state)
{
	(void)state;
	memset(&fx, 0, sizeof(fx));
	test_setup_quiet_peer(&fx.peer);
	return 0;
}

int conn_teardown(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_delete(&fx.conn), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	assert_int_equal(fake_live_objects(), 0);
	return 0;
}

/* The parts of a connection, as a connection request would hand them over. */
void parts_make(bool shared, bool with_rcq)
{
	struct ibv_context *ctx = fake_ibv_context();
	if (shared) {
		fx.parts.channel = ibv_create_comp_channel(ctx);
		assert_non_null(fx.parts.channel);
	}
	assert_int_equal(rdma_create_id(NULL, &fx.id, NULL, RDMA_PS_TCP), 0);
	fx.id->verbs = ctx;
	assert_int_equal(rpma_cq_new(ctx, 10, fx.parts.channel, &fx.parts.cq), 0);
	fx.ibv_cq = rpma_cq_get_ibv_cq(fx.parts.cq);
	if (with_rcq) {
		assert_int_equal(rpma_cq_new(ctx, 10, fx.parts.channel, &fx.parts.rcq), 0);
		fx.ibv_rcq = rpma_cq_get_ibv_cq(fx.parts.rcq);
	}
	assert_int_equal(rpma_peer_setup_qp(fx.peer, fx.id, fx.parts.cq, fx.parts.rcq, NULL,
		rpma_conn_cfg_default()), 0);
	fx.parts.id = fx.id;
}

/* Release parts no connection took. */
void parts_release(void)
{
	rdma_destroy_qp(fx.id);
	assert_int_equal(rpma_cq_delete(&fx.parts.rcq), 0);
	assert_int_equal(rpma_cq_delete(&fx.parts.cq), 0);
	if (fx.parts.channel)
		assert_int_equal(ibv_destroy_comp_channel(fx.parts.channel), 0);
	assert_int_equal(rdma_destroy_id(fx.id), 0);
}

void conn_make(bool shared, bool with_rcq)
{
	parts_make(shared, with_rcq);
	assert_int_equal(rpma_conn_new(fx.peer, &fx.parts, &fx.conn), 0);
	assert_non_null(fx.conn);
}
