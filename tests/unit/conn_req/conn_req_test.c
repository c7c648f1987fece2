/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_req_test.c -- connection requests: outgoing (rpma_conn_req_new) and
 * incoming (from a CONNECT_REQUEST event), their queues, connecting,
 * deleting, receives before connecting, and every failure on the way;
 * connecting is conn_req_connect_test.c's, the fixture conn_req_fixture.c's.
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

/* ---- rpma_conn_req_new ---- */

static void new_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_conn_req *req = SENTINEL_REQ;
	assert_int_equal(rpma_conn_req_new(NULL, ADDR, PORT, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_new(fx.peer, NULL, PORT, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_new(fx.peer, ADDR, NULL, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_new(fx.peer, ADDR, PORT, NULL, NULL), RPMA_E_INVAL);
	assert_ptr_equal(req, SENTINEL_REQ);
	assert_int_equal(fake_calls("rdma_create_id"), 0);
}

static void new_default_cfg(void **state)
{
	(void)state;
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_active(&req), 0);
	assert_non_null(req);

	/* a synchronous id, resolved to the peer */
	assert_non_null(fake_last_cm_id);
	assert_null(fake_last_cm_id->channel);
	assert_int_equal(fake_calls("rdma_resolve_addr"), 1);
	assert_int_equal(fake_calls("rdma_resolve_route"), 1);
	/* one CQ, with a channel of its own, for sends and receives */
	assert_int_equal(fake_calls("ibv_create_cq"), 1);
	assert_int_equal(fake_calls("ibv_create_comp_channel"), 1);
	assert_non_null(fake_last_cm_id->qp);
	assert_ptr_equal(fake_last_qp_attr.recv_cq, fake_last_qp_attr.send_cq);
	assert_null(fake_last_qp_attr.srq);
	/* nothing to resolve after the request is made */
	assert_int_equal(fake_calls("rdma_freeaddrinfo"), 1);

	struct rpma_conn_private_data pdata = {(void *)0x1, 1};
	assert_int_equal(rpma_conn_req_get_private_data(req, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);

	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_null(req);
	assert_int_equal(fake_calls("rdma_reject"), 0); /* nobody to tell on the active side */
	assert_int_equal(fake_calls("rdma_destroy_id"), 1);
}

static void new_shared_channel_and_rcq(void **state)
{
	(void)state;
	cfg_make(true, 5);
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_active(&req), 0);
	assert_int_equal(fake_calls("ibv_create_comp_channel"), 1);
	assert_int_equal(fake_calls("ibv_create_cq"), 2);
	struct ibv_cq *cq = fake_last_qp_attr.send_cq;
	struct ibv_cq *rcq = fake_last_qp_attr.recv_cq;
	assert_ptr_not_equal(cq, rcq);
	assert_non_null(cq->channel);
	assert_ptr_equal(cq->channel, rcq->channel);
	assert_int_equal(rcq->cqe, 5);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(fake_calls("ibv_destroy_comp_channel"), 1);
	assert_int_equal(fake_calls("ibv_destroy_cq"), 2);
}

static void new_own_channels_and_rcq(void **state)
{
	(void)state;
	cfg_make(false, 5);
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_active(&req), 0);
	assert_int_equal(fake_calls("ibv_create_comp_channel"), 2);
	struct ibv_cq *cq = fake_last_qp_attr.send_cq;
	struct ibv_cq *rcq = fake_last_qp_attr.recv_cq;
	assert_ptr_not_equal(cq, rcq);
	assert_ptr_not_equal(cq->channel, rcq->channel);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
}

static void new_srq_with_rcq(void **state)
{
	(void)state;
	struct rpma_srq *srq = NULL;
	assert_int_equal(rpma_srq_new(fx.peer, NULL, &srq), 0);
	struct rpma_cq *srq_rcq = NULL;
	assert_int_equal(rpma_srq_get_rcq(srq, &srq_rcq), 0);
	assert_non_null(srq_rcq);
	cfg_make(false, 5); /* the SRQ's receive CQ wins over a size */
	assert_int_equal(rpma_conn_cfg_set_srq(fx.cfg, srq), 0);
	unsigned cqs = fake_calls("ibv_create_cq");

	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_active(&req), 0);
	assert_int_equal(fake_calls("ibv_create_cq"), cqs + 1);
	assert_ptr_equal(fake_last_qp_attr.recv_cq, rpma_cq_get_ibv_cq(srq_rcq));
	assert_non_null(fake_last_qp_attr.srq);

	unsigned destroyed = fake_calls("ibv_destroy_cq");
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(fake_calls("ibv_destroy_cq"), destroyed + 1); /* not the SRQ's */
	assert_int_equal(rpma_srq_delete(&srq), 0);
}

static void new_srq_without_rcq(void **state)
{
	(void)state;
	struct rpma_srq_cfg *srq_cfg = NULL;
	assert_int_equal(rpma_srq_cfg_new(&srq_cfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(srq_cfg, 0), 0);
	struct rpma_srq *srq = NULL;
	assert_int_equal(rpma_srq_new(fx.peer, srq_cfg, &srq), 0);
	cfg_make(false, 3);
	assert_int_equal(rpma_conn_cfg_set_srq(fx.cfg, srq), 0);

	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_active(&req), 0);
	assert_int_equal(fake_calls("ibv_create_cq"), 2); /* its own receive CQ */
	assert_ptr_not_equal(fake_last_qp_attr.recv_cq, fake_last_qp_attr.send_cq);
	assert_int_equal(fake_last_qp_attr.recv_cq->cqe, 3);

	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(fake_calls("ibv_destroy_cq"), 2);
	assert_int_equal(rpma_srq_delete(&srq), 0);
	assert_int_equal(rpma_srq_cfg_delete(&srq_cfg), 0);
}

static void new_provider_failures(void **state)
{
	(void)state;
	static const char *const fns[] = {
		"rdma_getaddrinfo", "rdma_create_id", "rdma_resolve_addr", "rdma_resolve_route",
		"ibv_create_comp_channel", "ibv_create_cq", "ibv_req_notify_cq", "rdma_create_qp",
	};
	cfg_make(true, 5);
	each_provider_failure(make_active, fns, sizeof(fns) / sizeof(fns[0]));
	assert_int_equal(rpma_conn_cfg_delete(&fx.cfg), 0);
	each_provider_failure(make_active, fns + 4, 4); /* CQs with their own channels */
}

static void new_out_of_memory(void **state)
{
	(void)state;
	cfg_make(true, 5);
	each_allocation_failure(make_active);
}

/* ---- rpma_conn_req_from_cm_event ---- */

static void from_cm_event_invalid_arguments(void **state)
{
	(void)state;
	request_arrives();
	struct rpma_conn_req *req = SENTINEL_REQ;
	assert_int_equal(rpma_conn_req_from_cm_event(NULL, fx.event, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_from_cm_event(fx.peer, NULL, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_from_cm_event(fx.peer, fx.event, NULL, NULL),
		RPMA_E_INVAL);
	fx.event->event = RDMA_CM_EVENT_ESTABLISHED;
	assert_int_equal(rpma_conn_req_from_cm_event(fx.peer, fx.event, NULL, &req),
		RPMA_E_INVAL);
	assert_ptr_equal(req, SENTINEL_REQ);
	assert_int_equal(fake_calls("ibv_create_cq"), 0);
	assert_int_equal(rdma_ack_cm_event(fx.event), 0);
	assert_int_equal(rdma_destroy_id(fx.req_id), 0);
}

static void from_cm_event_keeps_a_copy_of_the_private_data(void **state)
{
	(void)state;
	const char data[] = "client hello";
	fx.pdata = data;
	fx.pdata_len = sizeof(data);
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_passive(&req), 0);
	assert_ptr_equal(fake_last_qp_attr.send_cq, fake_last_qp_attr.recv_cq);
	assert_non_null(fx.req_id->qp);

	struct rpma_conn_private_data pdata;
	assert_int_equal(rpma_conn_req_get_private_data(NULL, &pdata), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_get_private_data(req, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_get_private_data(req, &pdata), 0);
	assert_ptr_not_equal(pdata.ptr, fx.event->param.conn.private_data);
	assert_int_equal(pdata.len, sizeof(data));
	assert_memory_equal(pdata.ptr, data, sizeof(data));

	/* the event is not acked until the request is answered */
	assert_int_equal(fake_calls("rdma_ack_cm_event"), 0);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
}

static void from_cm_event_provider_failures(void **state)
{
	(void)state;
	static const char *const fns[] = {
		"ibv_create_comp_channel", "ibv_create_cq", "ibv_req_notify_cq", "rdma_create_qp",
	};
	cfg_make(true, 5);
	each_provider_failure(make_passive, fns, sizeof(fns) / sizeof(fns[0]));
}

static void from_cm_event_out_of_memory(void **state)
{
	(void)state;
	const char data[] = "client hello";
	fx.pdata = data;
	fx.pdata_len = sizeof(data);
	cfg_make(false, 5);
	each_allocation_failure(make_passive);
}

/* ---- rpma_conn_req_delete ---- */

static void delete_invalid_and_null(void **state)
{
	(void)state;
	struct rpma_conn_req *req = NULL;
	assert_int_equal(rpma_conn_req_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
}

static void delete_passive_rejects(void **state)
{
	(void)state;
	cfg_make(true, 5);
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_passive(&req), 0);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_null(req);
	assert_int_equal(fake_calls("rdma_reject"), 1);
	assert_int_equal(fake_calls("rdma_ack_cm_event"), 1);
	assert_int_equal(fake_calls("rdma_destroy_qp"), 1);
	assert_int_equal(fake_calls("ibv_destroy_cq"), 2);
	assert_int_equal(fake_calls("ibv_destroy_comp_channel"), 1);
	assert_int_equal(fake_calls("rdma_destroy_id"), 1);
	assert_int_equal(live_extra(), 0);
}

/* One release step failing: PROVIDER, the request gone, only what the fake kept (left). */
static void delete_failure(make_fn *make, const char *fn, int left)
{
	int base = live_extra();
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make(&req), 0);
	fake_fail(fn, 1, EBUSY);
	errno = 0;
	assert_int_equal(rpma_conn_req_delete(&req), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_null(req);
	assert_int_equal(live_extra(), base + left);
}

static void delete_passive_failures(void **state)
{
	(void)state;
	delete_failure(make_passive, "rdma_reject", 0);
	delete_failure(make_passive, "rdma_ack_cm_event", 1); /* the event */
	delete_failure(make_passive, "rdma_destroy_id", 1);   /* this id */
	assert_int_equal(rdma_destroy_id(fx.req_id), 0);
	/* the event the fake could not take back stays counted */
	assert_int_equal(live_extra(), 1);
	assert_int_equal(rdma_destroy_id(fx.listen_id), 0);
	rdma_destroy_event_channel(fx.listen_ch);
	fx.listen_id = NULL;
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	assert_int_equal(fake_live_objects(), 1);
}

static void delete_active_failures(void **state)
{
	(void)state;
	cfg_make(true, 0);
	delete_failure(make_active, "rdma_destroy_id", 1);
	assert_int_equal(rdma_destroy_id(fake_last_cm_id), 0);

	delete_failure(make_active, "ibv_destroy_cq", 1);
	assert_int_equal(ibv_destroy_cq(fake_last_qp_attr.send_cq), 0);

	struct ibv_comp_channel *channel = NULL;
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_active(&req), 0);
	channel = fake_last_qp_attr.send_cq->channel;
	fake_fail("ibv_destroy_comp_channel", 1, EBUSY);
	errno = 0;
	assert_int_equal(rpma_conn_req_delete(&req), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_int_equal(live_extra(), 1);
	assert_int_equal(ibv_destroy_comp_channel(channel), 0);
}

/* ---- rpma_conn_req_recv ---- */

/* a receive buffer of RECV_BUF_SIZE bytes registered for receiving, and a request to post on */
#define RECV_BUF_SIZE 64
static char *recv_setup(struct rpma_mr_local **mr, struct rpma_conn_req **req)
{
	static char buf[RECV_BUF_SIZE];
	*mr = NULL;
	*req = NULL;
	assert_int_equal(rpma_mr_reg(fx.peer, buf, sizeof(buf), RPMA_MR_USAGE_RECV, mr), 0);
	assert_int_equal(make_passive(req), 0);
	return buf;
}

static void recv_before_connecting(void **state)
{
	(void)state;
	struct rpma_mr_local *mr;
	struct rpma_conn_req *req;
	char *buf = recv_setup(&mr, &req);
	int ctx;

	assert_int_equal(rpma_conn_req_recv(NULL, mr, 0, 8, &ctx), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_recv(req, NULL, 0, 8, &ctx), RPMA_E_INVAL);
	assert_int_equal(fake_posted.count, 0);

	assert_int_equal(rpma_conn_req_recv(req, mr, 8, 16, &ctx), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.recv_wr.wr_id, (uint64_t)(uintptr_t)&ctx);
	assert_int_equal(fake_posted.recv_wr.num_sge, 1);
	assert_int_equal(fake_posted.recv_sge.addr, (uint64_t)(uintptr_t)(buf + 8));
	assert_int_equal(fake_posted.recv_sge.length, 16);

	/* a NULL op_context is a valid one (wr_id 0) */
	assert_int_equal(rpma_conn_req_recv(req, mr, 0, 8, NULL), 0);
	assert_int_equal(fake_posted.recv_wr.wr_id, 0);

	fake_fail("ibv_post_recv", 1, ENOMEM);
	errno = 0;
	assert_int_equal(rpma_conn_req_recv(req, mr, 0, 8, &ctx), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);

	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/*
 * A receive's length is 32 bits in its scatter entry: a longer one would be cut
 * short. Refused as rpma_recv() refuses it, before anything is posted.
 */
static void recv_refuses_a_length_over_4_gib(void **state)
{
	(void)state;
	struct rpma_mr_local *mr;
	struct rpma_conn_req *req;
	(void) recv_setup(&mr, &req);

	assert_int_equal(rpma_conn_req_recv(req, mr, 0, (size_t)UINT32_MAX + 1, NULL),
		RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_recv(req, mr, 0, (size_t)5 << 30, NULL), RPMA_E_INVAL);
	assert_int_equal(fake_calls("ibv_post_recv"), 0);
	assert_int_equal(fake_posted.count, 0);

	/* the longest length that fits is taken whole */
	assert_int_equal(rpma_conn_req_recv(req, mr, 0, UINT32_MAX, NULL), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.recv_sge.length, UINT32_MAX);

	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/*
 * iWARP takes no receive without a buffer: a 0-byte receive before connecting
 * is refused up front, as rpma_recv() and rpma_srq_recv() refuse it, rather
 * than failing in the provider
 */
static void recv_of_0_bytes_refused_on_iwarp(void **state)
{
	(void)state;
	struct rpma_mr_local *mr;
	struct rpma_conn_req *req;
	(void) recv_setup(&mr, &req);

	test_log_record_start();
	assert_int_equal(rpma_conn_req_recv(req, mr, 0, 0, NULL), RPMA_E_NOSUPP);
	test_log_assert_has("rpma_conn_req_recv of 0 bytes", "iWARP", NULL);
	assert_int_equal(fake_calls("ibv_post_recv"), 0);
	assert_int_equal(fake_posted.count, 0);

	/* a receive with a buffer is posted as on any other transport */
	assert_int_equal(rpma_conn_req_recv(req, mr, 0, 8, NULL), 0);
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.recv_sge.length, 8);

	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/* and on RoCE a 0-byte receive (for immediate data) is still posted */
static void recv_of_0_bytes_posted_on_roce(void **state)
{
	(void)state;
	struct rpma_mr_local *mr;
	struct rpma_conn_req *req;
	(void) recv_setup(&mr, &req);

	assert_int_equal(rpma_conn_req_recv(req, mr, 0, 0, NULL), 0);
	assert_int_equal(fake_calls("ibv_post_recv"), 1);

	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
}

/*
 * What a client sends with its request may be a secret (the engines'
 * secret_file=): the request's copy and the connection's are cleared before
 * they are freed, whichever way the request ends
 */
static void private_data_copies_cleared_before_free(void **state)
{
	(void)state;
	static const char secret[] = "RPFS\x01\x0bopen sesame";
	struct rpma_conn_private_data got;
	fx.pdata = secret;
	fx.pdata_len = sizeof(secret);

	/* a request deleted unanswered */
	struct rpma_conn_req *req = NULL;
	assert_int_equal(make_passive(&req), 0);
	assert_int_equal(rpma_conn_req_get_private_data(req, &got), 0);
	assert_memory_equal(got.ptr, secret, sizeof(secret));
	fake_free_watch(got.ptr, got.len);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(fake_free_watched(), 1);

	/* a request connected: its copy goes at once, the connection's at its delete */
	assert_int_equal(make_passive(&req), 0);
	assert_int_equal(rpma_conn_req_get_private_data(req, &got), 0);
	fake_free_watch(got.ptr, got.len);
	struct rpma_conn *conn = NULL;
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	assert_int_equal(fake_free_watched(), 1);
	assert_int_equal(rpma_conn_get_private_data(conn, &got), 0);
	assert_memory_equal(got.ptr, secret, sizeof(secret));
	fake_free_watch(got.ptr, got.len);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(fake_free_watched(), 1);
}

/* the server learns who asks before it accepts: both families, as the CM has them */
static void peer_addr_of_an_incoming_request(void **state)
{
	(void)state;
	struct rpma_conn_req *req = NULL;
	struct sockaddr_storage got;
	assert_int_equal(make_passive(&req), 0);
	assert_int_equal(rpma_conn_req_get_peer_addr(NULL, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_req_get_peer_addr(req, NULL), RPMA_E_INVAL);

	struct sockaddr_in *v4 = (struct sockaddr_in *)&fx.req_id->route.addr.dst_addr;
	v4->sin_family = AF_INET;
	v4->sin_port = htons(40001);
	v4->sin_addr.s_addr = htonl(0xc0a84d02); /* 192.168.77.2 */
	memset(&got, 0xa5, sizeof(got));
	assert_int_equal(rpma_conn_req_get_peer_addr(req, &got), 0);
	const struct sockaddr_in *g4 = (const struct sockaddr_in *)&got;
	assert_int_equal(g4->sin_family, AF_INET);
	assert_int_equal(ntohs(g4->sin_port), 40001);
	assert_int_equal(ntohl(g4->sin_addr.s_addr), 0xc0a84d02);

	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&fx.req_id->route.addr.dst_addr;
	v6->sin6_family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, "fd00::7", &v6->sin6_addr), 1);
	assert_int_equal(rpma_conn_req_get_peer_addr(req, &got), 0);
	assert_int_equal(got.ss_family, AF_INET6);
	assert_memory_equal(&((const struct sockaddr_in6 *)&got)->sin6_addr, &v6->sin6_addr,
		sizeof(v6->sin6_addr));

	/* an address of no family the library knows is not passed on as one */
	fx.req_id->route.addr.dst_addr.sa_family = AF_UNIX;
	assert_int_equal(rpma_conn_req_get_peer_addr(req, &got), RPMA_E_PROVIDER);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, conn_req_setup, conn_req_teardown)
#define TEST_IWARP(fn) cmocka_unit_test_setup_teardown(fn, conn_req_setup_iwarp, conn_req_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(new_invalid_arguments),
		TEST(new_default_cfg),
		TEST(new_shared_channel_and_rcq),
		TEST(new_own_channels_and_rcq),
		TEST(new_srq_with_rcq),
		TEST(new_srq_without_rcq),
		TEST(new_provider_failures),
		TEST(new_out_of_memory),
		TEST(from_cm_event_invalid_arguments),
		TEST(from_cm_event_keeps_a_copy_of_the_private_data),
		TEST(from_cm_event_provider_failures),
		TEST(from_cm_event_out_of_memory),
		TEST(delete_invalid_and_null),
		TEST(delete_passive_rejects),
		cmocka_unit_test_setup(delete_passive_failures, conn_req_setup),
		TEST(delete_active_failures),
		TEST(connect_invalid_arguments),
		TEST(connect_active),
		TEST(connect_active_without_private_data),
		TEST(connect_passive),
		TEST(connect_active_provider_failures),
		TEST(connect_refused_at_once_is_no_error_line),
		TEST(connect_refused_survives_tear_down_errno),
		TEST(connect_passive_provider_failures),
		cmocka_unit_test_setup(connect_passive_ack_failure, conn_req_setup),
		TEST(connect_out_of_memory),
		TEST(connect_with_srq_keeps_its_rcq),
		TEST(connect_with_shared_rcq_leaves_it),
		TEST(recv_before_connecting),
		TEST(recv_refuses_a_length_over_4_gib),
		TEST_IWARP(recv_of_0_bytes_refused_on_iwarp),
		TEST(recv_of_0_bytes_posted_on_roce),
		TEST(private_data_copies_cleared_before_free),
		TEST(peer_addr_of_an_incoming_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
