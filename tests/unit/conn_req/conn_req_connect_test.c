/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_req_connect_test.c -- rpma_conn_req_connect on either side: what it
 * hands the connection, private data, and every failure on the way.
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
#include "conn_req_test.h"

/* ---- rpma_conn_req_connect ---- */

void connect_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_conn *conn = SENTINEL_CONN;
	struct rpma_conn_req *req = NULL;
	assert_int_equal(rpma_conn_req_connect(NULL, NULL, &conn), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_INVAL);

	/* a request given is consumed even when the other arguments are wrong */
	assert_int_equal(make_active(&req), 0);
	assert_int_equal(rpma_conn_req_connect(&req, NULL, NULL), RPMA_E_INVAL);
	assert_null(req);
	assert_int_equal(live_extra(), 0);

	char data[] = "x";
	struct rpma_conn_private_data empty = {data, 0};
	assert_int_equal(make_active(&req), 0);
	assert_int_equal(rpma_conn_req_connect(&req, &empty, &conn), RPMA_E_INVAL);
	assert_null(req);
	assert_int_equal(live_extra(), 0);

	struct rpma_conn_private_data no_ptr = {NULL, 4};
	assert_int_equal(make_passive(&req), 0);
	assert_int_equal(rpma_conn_req_connect(&req, &no_ptr, &conn), RPMA_E_INVAL);
	assert_null(req);
	assert_int_equal(fake_calls("rdma_reject"), 1); /* the peer is told */
	assert_int_equal(live_extra(), 0);

	assert_ptr_equal(conn, SENTINEL_CONN);
	assert_int_equal(fake_calls("rdma_connect") + fake_calls("rdma_accept"), 0);
}

void connect_active(void **state)
{
	(void)state;
	cfg_make(true, 5);
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_active(&req), 0);
	struct rdma_cm_id *id = fake_last_cm_id;
	struct ibv_cq *ibv_rcq = fake_last_qp_attr.recv_cq;

	char data[] = "server, please";
	struct rpma_conn_private_data pdata = {data, sizeof(data)};
	struct rpma_conn *conn = NULL;
	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), 0);
	assert_null(req);
	assert_non_null(conn);

	assert_int_equal(fake_calls("rdma_connect"), 1);
	assert_int_equal(fake_calls("rdma_accept"), 0);
	assert_int_equal(fake_last_conn_param.pdata_len, sizeof(data));
	assert_memory_equal(fake_last_conn_param.pdata, data, sizeof(data));
	assert_int_equal(fake_last_conn_param.responder_resources, RDMA_MAX_RESP_RES);
	assert_int_equal(fake_last_conn_param.initiator_depth, RDMA_MAX_INIT_DEPTH);
	assert_int_equal(fake_last_conn_param.rnr_retry_count, 7);

	/* the connection has the id on a channel of its own, and the request's queues */
	assert_non_null(id->channel);
	int fd = -1;
	assert_int_equal(rpma_conn_get_event_fd(conn, &fd), 0);
	assert_int_equal(fd, id->channel->fd);
	assert_int_equal(rpma_conn_get_compl_fd(conn, &fd), 0);
	assert_int_equal(fd, ibv_rcq->channel->fd);
	fake_channel_push(ibv_rcq->channel, ibv_rcq);
	struct rpma_cq *cq = NULL;
	bool is_rcq = false;
	assert_int_equal(rpma_conn_wait(conn, RPMA_W_WAIT_FOR_COMPLETION, &cq, &is_rcq), 0);
	assert_true(is_rcq);

	struct rpma_conn_private_data got = {(void *)0x1, 1};
	assert_int_equal(rpma_conn_get_private_data(conn, &got), 0);
	assert_null(got.ptr);

	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(live_extra(), 0);
}

void connect_active_without_private_data(void **state)
{
	(void)state;
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_active(&req), 0);
	struct rpma_conn *conn = NULL;
	fake_last_conn_param.pdata_len = 99;
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	assert_int_equal(fake_last_conn_param.pdata_len, 0);
	assert_int_equal(rpma_conn_delete(&conn), 0);
}

void connect_passive(void **state)
{
	(void)state;
	const char hello[] = "client hello";
	fx.pdata = hello;
	fx.pdata_len = sizeof(hello);
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_passive(&req), 0);

	char data[] = "welcome";
	struct rpma_conn_private_data pdata = {data, sizeof(data)};
	struct rpma_conn *conn = NULL;
	assert_int_equal(rpma_conn_req_connect(&req, &pdata, &conn), 0);
	assert_null(req);
	assert_non_null(conn);
	assert_int_equal(fake_calls("rdma_accept"), 1);
	assert_int_equal(fake_calls("rdma_connect"), 0);
	assert_int_equal(fake_calls("rdma_reject"), 0);
	assert_int_equal(fake_calls("rdma_ack_cm_event"), 1);
	assert_int_equal(fake_last_conn_param.pdata_len, sizeof(data));
	assert_memory_equal(fake_last_conn_param.pdata, data, sizeof(data));
	assert_int_equal(fake_last_conn_param.responder_resources, RDMA_MAX_RESP_RES);
	assert_int_equal(fake_last_conn_param.initiator_depth, RDMA_MAX_INIT_DEPTH);
	assert_int_equal(fake_last_conn_param.rnr_retry_count, 7);

	/* moved off the endpoint's channel */
	assert_ptr_not_equal(fx.req_id->channel, fx.listen_ch);

	/* the connection keeps what the client sent with its request */
	struct rpma_conn_private_data got;
	assert_int_equal(rpma_conn_get_private_data(conn, &got), 0);
	assert_int_equal(got.len, sizeof(hello));
	assert_memory_equal(got.ptr, hello, sizeof(hello));

	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(live_extra(), 0);
}

void connect_active_provider_failures(void **state)
{
	(void)state;
	static const char *const fns[] = {
		"rdma_create_event_channel", "rdma_migrate_id", "ibv_reg_mr", "rdma_connect",
	};
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		struct rpma_conn_req *req = NULL;
		assert_int_equal(make_active(&req), 0);
		fake_fail(fns[i], 1, EIO);
		struct rpma_conn *conn = SENTINEL_CONN;
		errno = 0;
		assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_PROVIDER);
		assert_int_equal(errno, EIO);
		assert_null(req);
		assert_ptr_equal(conn, SENTINEL_CONN);
		assert_int_equal(live_extra(), 0);
	}
	assert_int_equal(fake_calls("rdma_reject"), 0);
}

/*
 * iWARP's TCP refuses a port nobody listens on inside rdma_connect(): the
 * caller gets RPMA_E_PROVIDER with errno ECONNREFUSED to retry on, and no
 * error line for what is the peer's answer
 */
void connect_refused_at_once_is_no_error_line(void **state)
{
	(void)state;
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_active(&req), 0);
	fake_fail("rdma_connect", 1, ECONNREFUSED);
	struct rpma_conn *conn = SENTINEL_CONN;
	test_log_record_start();
	errno = 0;
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_PROVIDER);
	assert_int_equal(errno, ECONNREFUSED);
	assert_null(req);
	assert_ptr_equal(conn, SENTINEL_CONN);
	assert_int_equal(live_extra(), 0);
	assert_int_equal(test_log_last.count, 0); /* nothing at the default threshold */
}

/*
 * The refusal must survive the tear-down that follows it: a destruction that
 * succeeds but leaves errno changed (rdma_destroy_event_channel() returns
 * nothing, and its close() may set errno) must not hide ECONNREFUSED from the
 * caller, who reads errno only after rpma_conn_req_connect() has returned.
 */
void connect_refused_survives_tear_down_errno(void **state)
{
	(void)state;
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_active(&req), 0);
	fake_fail("rdma_connect", 1, ECONNREFUSED);
	fake_fail("rdma_destroy_event_channel", 1, EBADF);
	unsigned destroyed = fake_calls("rdma_destroy_event_channel");
	struct rpma_conn *conn = SENTINEL_CONN;
	errno = 0;
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_PROVIDER);
	int got = errno;
	/* the tear-down did run (and did set EBADF on its way) */
	assert_int_equal(fake_calls("rdma_destroy_event_channel"), destroyed + 1);
	if (got != ECONNREFUSED)
		fail_msg("errno after a refused connect is %d (%s), not ECONNREFUSED", got,
			strerror(got));
	assert_null(req);
	assert_ptr_equal(conn, SENTINEL_CONN);
	assert_int_equal(live_extra(), 0);
}

void connect_passive_provider_failures(void **state)
{
	(void)state;
	static const char *const fns[] = {
		"rdma_create_event_channel", "rdma_migrate_id", "ibv_reg_mr", "rdma_accept",
	};
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		struct rpma_conn_req *req = NULL;
		assert_int_equal(make_passive(&req), 0);
		unsigned rejects = fake_calls("rdma_reject");
		fake_fail(fns[i], 1, EIO);
		struct rpma_conn *conn = SENTINEL_CONN;
		assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_PROVIDER);
		assert_null(req);
		assert_ptr_equal(conn, SENTINEL_CONN);
		/* the client is told no, the event acked, everything released */
		assert_int_equal(fake_calls("rdma_reject"), rejects + 1);
		assert_int_equal(live_extra(), 0);
	}
}

void connect_passive_ack_failure(void **state)
{
	(void)state;
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_passive(&req), 0);
	fake_fail("rdma_ack_cm_event", 1, EINVAL);
	struct rpma_conn *conn = SENTINEL_CONN;
	errno = 0;
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), RPMA_E_PROVIDER);
	assert_int_equal(errno, EINVAL);
	assert_null(req);
	assert_ptr_equal(conn, SENTINEL_CONN);
	assert_int_equal(fake_calls("rdma_reject"), 1);
	assert_int_equal(fake_calls("rdma_ack_cm_event"), 1); /* not retried */
	assert_int_equal(fake_calls("rdma_accept"), 0);
	assert_int_equal(live_extra(), 1); /* the event the fake could not take back */

	assert_int_equal(rdma_destroy_id(fx.listen_id), 0);
	rdma_destroy_event_channel(fx.listen_ch);
	fx.listen_id = NULL;
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	assert_int_equal(fake_live_objects(), 1);
}

void connect_out_of_memory(void **state)
{
	(void)state;
	const char hello[] = "client hello";
	fx.pdata = hello;
	fx.pdata_len = sizeof(hello);
	make_fn *makes[] = {make_active, make_passive};
	for (size_t i = 0; i < 2; i++) {
		unsigned n;
		for (n = 1;; n++) {
			struct rpma_conn_req *req = NULL;
			assert_int_equal(makes[i](&req), 0);
			struct rpma_conn *conn = SENTINEL_CONN;
			fake_malloc_fail(n);
			int ret = rpma_conn_req_connect(&req, NULL, &conn);
			assert_null(req);
			if (ret == 0) {
				fake_malloc_fail(0); /* disarm: the n-th allocation is still ahead */
				assert_int_equal(rpma_conn_delete(&conn), 0);
				break;
			}
			assert_int_equal(ret, RPMA_E_NOMEM);
			assert_ptr_equal(conn, SENTINEL_CONN);
			assert_int_equal(live_extra(), 0);
		}
		/* the connection, its post object, its flush, the flush buffer's region; the
		 * passive one copies the data */
		assert_int_equal(n, i == 0 ? 5 : 6);
	}
}

void connect_with_srq_keeps_its_rcq(void **state)
{
	(void)state;
	struct rpma_srq *srq = NULL;
	assert_int_equal(rpma_srq_new(fx.peer, NULL, &srq), 0);
	cfg_make(false, 0);
	assert_int_equal(rpma_conn_cfg_set_srq(fx.cfg, srq), 0);

	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_passive(&req), 0);
	struct rpma_conn *conn = NULL;
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	struct rpma_cq *rcq = NULL;
	struct rpma_cq *srq_rcq = NULL;
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_int_equal(rpma_srq_get_rcq(srq, &srq_rcq), 0);
	assert_ptr_equal(rcq, srq_rcq);

	unsigned destroyed = fake_calls("ibv_destroy_cq");
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(fake_calls("ibv_destroy_cq"), destroyed + 1);
	assert_int_equal(rpma_srq_delete(&srq), 0);
}

/* a shared receive CQ (rpma-fio extension) is the connection's, over rcq_size= and an SRQ's, and stays */
void connect_with_shared_rcq_leaves_it(void **state)
{
	(void)state;
	struct rpma_cq *shared = NULL;
	assert_int_equal(rpma_shared_rcq_new(fx.peer, 16, &shared), 0);
	struct rpma_srq *srq = NULL;
	assert_int_equal(rpma_srq_new(fx.peer, NULL, &srq), 0);
	cfg_make(false, 5);
	assert_int_equal(rpma_conn_cfg_set_srq(fx.cfg, srq), 0);
	assert_int_equal(rpma_conn_cfg_set_shared_rcq(fx.cfg, shared), 0);

	struct rpma_conn_req *req = NULL;
	unsigned created = fake_calls("ibv_create_cq");
	assert_int_equal(make_passive(&req), 0);
	assert_int_equal(fake_calls("ibv_create_cq"), created + 1); /* its CQ only */
	assert_ptr_equal(fake_last_qp_attr.recv_cq, rpma_cq_get_ibv_cq(shared));
	struct rpma_conn *conn = NULL;
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	struct rpma_cq *rcq = NULL;
	assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
	assert_ptr_equal(rcq, shared);

	unsigned destroyed = fake_calls("ibv_destroy_cq");
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(fake_calls("ibv_destroy_cq"), destroyed + 1);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_shared_rcq_delete(&shared), 0);
	assert_int_equal(fake_calls("ibv_destroy_cq"), destroyed + 3);
}
