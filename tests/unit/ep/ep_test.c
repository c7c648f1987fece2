/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ep_test.c -- the endpoint: listening, its event fd, shutting down, and
 * turning incoming CM events into connection requests.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "fake_provider.h"
#include "test_log.h"
#include "test_peer.h"

#define ADDR "192.168.0.2"
#define PORT "7204"
#define SENTINEL_EP ((struct rpma_ep *)0x1)
#define SENTINEL_REQ ((struct rpma_conn_req *)0x1)

static struct {
	struct rpma_peer *peer;
	struct rpma_ep *ep;
	struct rdma_cm_id *listen_id; /* the endpoint's id, as the fake handed it out */
	struct rdma_cm_id *req_id;
} fx;

static int setup(void **state)
{
	(void)state;
	memset(&fx, 0, sizeof(fx));
	test_setup_quiet_peer(&fx.peer);
	return 0;
}

static int setup_listening(void **state)
{
	setup(state);
	assert_int_equal(rpma_ep_listen(fx.peer, ADDR, PORT, &fx.ep), 0);
	fx.listen_id = fake_last_cm_id;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(rpma_ep_shutdown(&fx.ep), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	assert_int_equal(fake_live_objects(), 0);
	return 0;
}

/* Live objects besides the peer's PD and the endpoint's id and channel. */
static int live_extra(void)
{
	return fake_live_objects() - 1 - (fx.ep ? 2 : 0);
}

/* A client's connection request arriving at the endpoint. */
static void request_arrives(const void *pdata, uint8_t len)
{
	fx.req_id = fake_cm_new_request_id(fx.listen_id);
	fake_cm_push_event(fx.listen_id->channel, RDMA_CM_EVENT_CONNECT_REQUEST, fx.req_id, pdata,
		len, 0);
}

/* ---- rpma_ep_listen / rpma_ep_shutdown ---- */

static void listen_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_ep *ep = SENTINEL_EP;
	assert_int_equal(rpma_ep_listen(NULL, ADDR, PORT, &ep), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_listen(fx.peer, NULL, PORT, &ep), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_listen(fx.peer, ADDR, NULL, &ep), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_listen(fx.peer, ADDR, PORT, NULL), RPMA_E_INVAL);
	assert_ptr_equal(ep, SENTINEL_EP);
	assert_int_equal(fake_calls("rdma_create_event_channel"), 0);
}

static void listen_and_shutdown(void **state)
{
	(void)state;
	assert_int_equal(rpma_ep_listen(fx.peer, ADDR, PORT, &fx.ep), 0);
	assert_non_null(fx.ep);
	struct rdma_cm_id *id = fake_last_cm_id;
	assert_non_null(id->channel); /* asynchronous: requests arrive as events */
	assert_int_equal(id->ps, RDMA_PS_TCP);
	assert_int_equal(fake_calls("rdma_bind_addr"), 1);
	assert_int_equal(fake_calls("rdma_listen"), 1);
	assert_int_equal(fake_calls("rdma_freeaddrinfo"), 1);

	int fd = -1;
	assert_int_equal(rpma_ep_get_fd(fx.ep, &fd), 0);
	assert_int_equal(fd, id->channel->fd);

	assert_int_equal(rpma_ep_shutdown(&fx.ep), 0);
	assert_null(fx.ep);
	assert_int_equal(fake_calls("rdma_destroy_id"), 1);
	assert_int_equal(fake_calls("rdma_destroy_event_channel"), 1);
}

static void listen_provider_failures(void **state)
{
	(void)state;
	static const char *const fns[] = {
		"rdma_getaddrinfo", "rdma_create_event_channel", "rdma_create_id",
		"rdma_bind_addr", "rdma_listen",
	};
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		struct rpma_ep *ep = SENTINEL_EP;
		fake_fail(fns[i], 1, EADDRINUSE);
		errno = 0;
		assert_int_equal(rpma_ep_listen(fx.peer, ADDR, PORT, &ep), RPMA_E_PROVIDER);
		assert_int_equal(errno, EADDRINUSE);
		assert_ptr_equal(ep, SENTINEL_EP);
		assert_int_equal(live_extra(), 0);
	}
}

static void listen_out_of_memory(void **state)
{
	(void)state;
	unsigned n;
	for (n = 1;; n++) {
		struct rpma_ep *ep = SENTINEL_EP;
		fake_malloc_fail(n);
		int ret = rpma_ep_listen(fx.peer, ADDR, PORT, &ep);
		if (ret == 0) {
			fake_malloc_fail(0);
			fx.ep = ep;
			break;
		}
		assert_int_equal(ret, RPMA_E_NOMEM);
		assert_ptr_equal(ep, SENTINEL_EP);
		assert_int_equal(live_extra(), 0);
	}
	assert_int_equal(n, 3); /* the endpoint and the address info */
}

static void shutdown_invalid_and_null(void **state)
{
	(void)state;
	assert_int_equal(rpma_ep_shutdown(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_shutdown(&fx.ep), 0);
}

static void shutdown_failure_keeps_the_endpoint(void **state)
{
	(void)state;
	struct rpma_ep *ep = fx.ep;
	fake_fail("rdma_destroy_id", 1, EBUSY);
	errno = 0;
	assert_int_equal(rpma_ep_shutdown(&fx.ep), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_ptr_equal(fx.ep, ep);
	int fd = -1;
	assert_int_equal(rpma_ep_get_fd(fx.ep, &fd), 0); /* still whole */
	assert_int_equal(fd, fx.listen_id->channel->fd);
	/* teardown retries */
}

static void get_fd_invalid(void **state)
{
	(void)state;
	int fd = -7;
	assert_int_equal(rpma_ep_get_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_get_fd(fx.ep, NULL), RPMA_E_INVAL);
	assert_int_equal(fd, -7);
}

/* ---- rpma_ep_next_conn_req ---- */

static void next_conn_req_invalid(void **state)
{
	(void)state;
	struct rpma_conn_req *req = SENTINEL_REQ;
	assert_int_equal(rpma_ep_next_conn_req(NULL, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(rpma_ep_next_conn_req(fx.ep, NULL, NULL), RPMA_E_INVAL);
	assert_ptr_equal(req, SENTINEL_REQ);
	assert_int_equal(fake_calls("rdma_get_cm_event"), 0);
}

static void next_conn_req_no_event_and_provider_failure(void **state)
{
	(void)state;
	struct rpma_conn_req *req = SENTINEL_REQ;
	assert_int_equal(rpma_ep_next_conn_req(fx.ep, NULL, &req), RPMA_E_NO_EVENT);

	fake_fail("rdma_get_cm_event", 1, EIO);
	errno = 0;
	assert_int_equal(rpma_ep_next_conn_req(fx.ep, NULL, &req), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_ptr_equal(req, SENTINEL_REQ);
}

static void next_conn_req_other_event(void **state)
{
	(void)state;
	fake_cm_push_event(fx.listen_id->channel, RDMA_CM_EVENT_DISCONNECTED, fx.listen_id, NULL,
		0, 0);
	struct rpma_conn_req *req = SENTINEL_REQ;
	assert_int_equal(rpma_ep_next_conn_req(fx.ep, NULL, &req), RPMA_E_INVAL);
	assert_ptr_equal(req, SENTINEL_REQ);
	assert_int_equal(fake_calls("rdma_ack_cm_event"), 1);
	assert_int_equal(live_extra(), 0);

	/* still INVAL when the ack fails too; the fake keeps that event */
	fake_cm_push_event(fx.listen_id->channel, RDMA_CM_EVENT_ADDR_CHANGE, fx.listen_id, NULL,
		0, 0);
	fake_fail("rdma_ack_cm_event", 1, EINVAL);
	assert_int_equal(rpma_ep_next_conn_req(fx.ep, NULL, &req), RPMA_E_INVAL);
	assert_int_equal(live_extra(), 1);

	assert_int_equal(rpma_ep_shutdown(&fx.ep), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	assert_int_equal(fake_live_objects(), 1);
}

static void next_conn_req_gives_a_request(void **state)
{
	(void)state;
	const char hello[] = "client hello";
	request_arrives(hello, sizeof(hello));
	struct rpma_conn_cfg *cfg = NULL;
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 4), 0);

	struct rpma_conn_req *req = NULL;
	assert_int_equal(rpma_ep_next_conn_req(fx.ep, cfg, &req), 0);
	assert_non_null(req);
	assert_int_equal(fake_calls("ibv_create_cq"), 2); /* the cfg was used */
	assert_int_equal(fake_calls("rdma_ack_cm_event"), 0); /* answered later */
	assert_non_null(fx.req_id->qp);

	struct rpma_conn_private_data pdata;
	assert_int_equal(rpma_conn_req_get_private_data(req, &pdata), 0);
	assert_int_equal(pdata.len, sizeof(hello));
	assert_memory_equal(pdata.ptr, hello, sizeof(hello));

	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_int_equal(fake_calls("rdma_reject"), 1);
	assert_int_equal(fake_calls("rdma_ack_cm_event"), 1);
	assert_int_equal(live_extra(), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

/* The server's whole path: request, accept, established, disconnect, closed. */
static void next_conn_req_to_a_connection(void **state)
{
	(void)state;
	request_arrives(NULL, 0);
	struct rpma_conn_req *req = NULL;
	assert_int_equal(rpma_ep_next_conn_req(fx.ep, NULL, &req), 0);
	struct rpma_conn *conn = NULL;
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
	assert_int_equal(fake_calls("rdma_accept"), 1);

	/* the connection's events come on its own channel, not the endpoint's */
	assert_ptr_not_equal(fx.req_id->channel, fx.listen_id->channel);
	fake_cm_push_event(fx.req_id->channel, RDMA_CM_EVENT_ESTABLISHED, fx.req_id, NULL, 0, 0);
	struct rpma_conn_req *none = SENTINEL_REQ;
	assert_int_equal(rpma_ep_next_conn_req(fx.ep, NULL, &none), RPMA_E_NO_EVENT);
	enum rpma_conn_event ev;
	assert_int_equal(rpma_conn_next_event(conn, &ev), 0);
	assert_int_equal(ev, RPMA_CONN_ESTABLISHED);

	assert_int_equal(rpma_conn_disconnect(conn), 0);
	fake_cm_push_event(fx.req_id->channel, RDMA_CM_EVENT_DISCONNECTED, fx.req_id, NULL, 0, 0);
	assert_int_equal(rpma_conn_next_event(conn, &ev), 0);
	assert_int_equal(ev, RPMA_CONN_CLOSED);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(live_extra(), 0);
}

static void next_conn_req_refuses_what_it_cannot_take(void **state)
{
	(void)state;
	unsigned calls = 0;
	for (int i = 0; i < 2; i++) {
		request_arrives(NULL, 0);
		if (i == 0)
			fake_fail("ibv_create_cq", 1, EIO);
		else
			fake_malloc_fail(1);
		struct rpma_conn_req *req = SENTINEL_REQ;
		assert_int_equal(rpma_ep_next_conn_req(fx.ep, NULL, &req),
			i == 0 ? RPMA_E_PROVIDER : RPMA_E_NOMEM);
		assert_ptr_equal(req, SENTINEL_REQ);
		calls++;
		/* rejected, its event acked and its id destroyed */
		assert_int_equal(fake_calls("rdma_reject"), calls);
		assert_int_equal(fake_calls("rdma_ack_cm_event"), calls);
		assert_int_equal(fake_calls("rdma_destroy_id"), calls);
		assert_int_equal(live_extra(), 0);
	}
}

static void next_conn_req_refusal_failing_too(void **state)
{
	(void)state;
	request_arrives(NULL, 0);
	fake_fail("ibv_create_cq", 1, EIO);
	fake_fail("rdma_reject", 1, EIO);
	fake_fail("rdma_ack_cm_event", 1, EIO);
	fake_fail("rdma_destroy_id", 1, EIO);
	struct rpma_conn_req *req = SENTINEL_REQ;
	/* the first failure is the one reported */
	assert_int_equal(rpma_ep_next_conn_req(fx.ep, NULL, &req), RPMA_E_PROVIDER);
	assert_ptr_equal(req, SENTINEL_REQ);
	assert_int_equal(fake_calls("rdma_reject"), 1);
	assert_int_equal(fake_calls("rdma_destroy_id"), 1);
	assert_int_equal(live_extra(), 2); /* the event and the id the fake kept */

	assert_int_equal(rdma_destroy_id(fx.req_id), 0);
	assert_int_equal(rpma_ep_shutdown(&fx.ep), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	assert_int_equal(fake_live_objects(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(listen_invalid_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(listen_and_shutdown, setup, teardown),
		cmocka_unit_test_setup_teardown(listen_provider_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(listen_out_of_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(shutdown_invalid_and_null, setup, teardown),
		cmocka_unit_test_setup_teardown(shutdown_failure_keeps_the_endpoint,
			setup_listening, teardown),
		cmocka_unit_test_setup_teardown(get_fd_invalid, setup_listening, teardown),
		cmocka_unit_test_setup_teardown(next_conn_req_invalid, setup_listening, teardown),
		cmocka_unit_test_setup_teardown(next_conn_req_no_event_and_provider_failure,
			setup_listening, teardown),
		cmocka_unit_test_setup(next_conn_req_other_event, setup_listening),
		cmocka_unit_test_setup_teardown(next_conn_req_gives_a_request, setup_listening,
			teardown),
		cmocka_unit_test_setup_teardown(next_conn_req_to_a_connection, setup_listening,
			teardown),
		cmocka_unit_test_setup_teardown(next_conn_req_refuses_what_it_cannot_take,
			setup_listening, teardown),
		cmocka_unit_test_setup(next_conn_req_refusal_failing_too, setup_listening),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
