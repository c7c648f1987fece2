/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_req_fixture.c -- the connection request tests' fixture: a peer, a
 * configuration, the listening side a request arrives on, and the loops that
 * fail each provider call and each allocation of making a request in turn.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "librpma.h"
#include "conn_req.h"
#include "cq.h"
#include "fake_provider.h"
#include "test_log.h"
#include "test_peer.h"
#include "conn_req_test.h"

struct conn_req_fixture fx;

int conn_req_setup(void **state)
{
	(void)state;
	memset(&fx, 0, sizeof(fx));
	test_setup_quiet_peer(&fx.peer);
	return 0;
}

/* the same on an iWARP device (siw) */
int conn_req_setup_iwarp(void **state)
{
	(void)state;
	fake_reset();
	memset(&fx, 0, sizeof(fx));
	rpma_log_set_function(test_log_quiet);
	fake_device.transport = IBV_TRANSPORT_IWARP;
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &fx.peer), 0);
	return 0;
}

/* What is live besides the peer's PD and the listening id with its channel. */
int live_extra(void)
{
	return fake_live_objects() - 1 - (fx.listen_id ? 2 : 0);
}

int conn_req_teardown(void **state)
{
	(void)state;
	if (fx.listen_id) {
		assert_int_equal(rdma_destroy_id(fx.listen_id), 0);
		rdma_destroy_event_channel(fx.listen_ch);
	}
	assert_int_equal(rpma_conn_cfg_delete(&fx.cfg), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	assert_int_equal(fake_live_objects(), 0);
	return 0;
}

void cfg_make(bool shared, uint32_t rcq_size)
{
	assert_int_equal(rpma_conn_cfg_new(&fx.cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(fx.cfg, shared), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(fx.cfg, rcq_size), 0);
}

/* ---- making requests: both sides behind one signature ---- */

int make_active(struct rpma_conn_req **req_ptr)
{
	return rpma_conn_req_new(fx.peer, ADDR, PORT, fx.cfg, req_ptr);
}

/* A CONNECT_REQUEST event as an endpoint would get it (not acked). */
void request_arrives(void)
{
	if (fx.listen_id == NULL) {
		fx.listen_ch = rdma_create_event_channel();
		assert_non_null(fx.listen_ch);
		assert_int_equal(rdma_create_id(fx.listen_ch, &fx.listen_id, NULL, RDMA_PS_TCP), 0);
	}
	fx.req_id = fake_cm_new_request_id(fx.listen_id);
	fake_cm_push_event(fx.listen_ch, RDMA_CM_EVENT_CONNECT_REQUEST, fx.req_id, fx.pdata,
		fx.pdata_len, 0);
	assert_int_equal(rdma_get_cm_event(fx.listen_ch, &fx.event), 0);
}

/* On failure the event and its id stay the caller's: the endpoint's part, done here. */
int make_passive(struct rpma_conn_req **req_ptr)
{
	request_arrives();
	int ret = rpma_conn_req_from_cm_event(fx.peer, fx.event, fx.cfg, req_ptr);
	if (ret) {
		assert_int_equal(rdma_ack_cm_event(fx.event), 0);
		assert_int_equal(rdma_destroy_id(fx.req_id), 0);
	}
	return ret;
}

/* Make each nth call of each fn fail in turn: PROVIDER, nothing written, nothing left. */
void each_provider_failure(make_fn *make, const char *const *fns, size_t nfns)
{
	for (size_t i = 0; i < nfns; i++) {
		unsigned before = fake_calls(fns[i]);
		struct rpma_conn_req *req = NULL;
		assert_int_equal(make(&req), 0);
		unsigned per_run = fake_calls(fns[i]) - before;
		assert_int_equal(rpma_conn_req_delete(&req), 0);
		if (per_run == 0)
			fail_msg("%s is not called at all", fns[i]);

		for (unsigned nth = 1; nth <= per_run; nth++) {
			int live = live_extra();
			fake_fail(fns[i], nth, EIO);
			req = SENTINEL_REQ;
			errno = 0;
			assert_int_equal(make(&req), RPMA_E_PROVIDER);
			assert_int_equal(errno, EIO);
			assert_ptr_equal(req, SENTINEL_REQ);
			assert_int_equal(live_extra(), live);
		}
	}
}

/* Make each allocation fail in turn: NOMEM, nothing written, nothing left. */
void each_allocation_failure(make_fn *make)
{
	unsigned n;
	for (n = 1;; n++) {
		struct rpma_conn_req *req = SENTINEL_REQ;
		int live = live_extra();
		fake_malloc_fail(n);
		int ret = make(&req);
		if (ret == 0) {
			fake_malloc_fail(0); /* disarm: the n-th allocation is still ahead */
			assert_int_equal(rpma_conn_req_delete(&req), 0);
			break;
		}
		assert_int_equal(ret, RPMA_E_NOMEM);
		assert_ptr_equal(req, SENTINEL_REQ);
		assert_int_equal(live_extra(), live);
	}
	assert_true(n > 1);
}
