/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_test.c -- the connection: taking over its parts, CM events, private
 * data and queues; waiting and tear-down are conn_wait_and_delete_test.c's,
 * the fixture conn_fixture.c's.
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

/* ---- rpma_conn_new ---- */

static void new_invalid_arguments(void **state)
{
	(void)state;
	parts_make(false, false);
	struct rpma_conn *conn = (struct rpma_conn *)0x1;
	struct rpma_conn_parts no_id = fx.parts;
	no_id.id = NULL;
	struct rpma_conn_parts no_cq = fx.parts;
	no_cq.cq = NULL;

	assert_int_equal(rpma_conn_new(NULL, &fx.parts, &conn), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_new(fx.peer, NULL, &conn), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_new(fx.peer, &no_id, &conn), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_new(fx.peer, &no_cq, &conn), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_new(fx.peer, &fx.parts, NULL), RPMA_E_INVAL);
	assert_ptr_equal(conn, (struct rpma_conn *)0x1);
	assert_null(fx.id->channel);
	parts_release();
}

static void new_takes_the_parts(void **state)
{
	(void)state;
	conn_make(false, false);

	/* the id moved to the connection's own event channel */
	assert_non_null(fx.id->channel);
	assert_int_equal(fake_calls("rdma_migrate_id"), 1);
	int fd = -1;
	assert_int_equal(rpma_conn_get_event_fd(fx.conn, &fd), 0);
	assert_int_equal(fd, fx.id->channel->fd);

	assert_ptr_equal(rpma_conn_get_ibv_qp(fx.conn), fx.id->qp);
	assert_non_null(rpma_conn_get_flush(fx.conn));
	assert_false(rpma_conn_get_direct_write_to_pmem(fx.conn));
	assert_false(rpma_conn_has_native_atomic_write(fx.conn));

	struct rpma_conn_private_data pdata = {(void *)0x1, 1};
	assert_int_equal(rpma_conn_get_private_data(fx.conn, &pdata), 0);
	assert_null(pdata.ptr);
	assert_int_equal(pdata.len, 0);
}

static void new_native_atomic_write_follows_the_peer(void **state)
{
	(void)state;
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	fake_device.has_query_device_ex = true;
	fake_device.device_cap_flags_ex = RPMA_DEVICE_CAP_ATOMIC_WRITE;
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &fx.peer), 0);

	conn_make(false, false);
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	assert_true(rpma_conn_has_native_atomic_write(fx.conn));
#else
	assert_false(rpma_conn_has_native_atomic_write(fx.conn));
#endif
}

static void new_out_of_memory_takes_nothing(void **state)
{
	(void)state;
	parts_make(false, false);
	int live = fake_live_objects();
	int ret;
	unsigned n = 1;
	for (;; n++) {
		fake_malloc_fail(n);
		ret = rpma_conn_new(fx.peer, &fx.parts, &fx.conn);
		if (ret == 0)
			break;
		assert_int_equal(ret, RPMA_E_NOMEM);
		assert_null(fx.conn);
		assert_null(fx.id->channel);
		assert_int_equal(fake_live_objects(), live);
	}
	assert_true(n > 1); /* at least one allocation was exercised */
	fake_malloc_fail(0);
}

static void new_provider_failures_take_nothing(void **state)
{
	(void)state;
	static const char *const calls[] = {
		"rdma_create_event_channel", "rdma_migrate_id", "ibv_reg_mr",
	};
	parts_make(false, false);
	int live = fake_live_objects();
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		fake_fail(calls[i], 1, EIO);
		errno = 0;
		assert_int_equal(rpma_conn_new(fx.peer, &fx.parts, &fx.conn), RPMA_E_PROVIDER);
		assert_int_equal(errno, EIO);
		assert_null(fx.conn);
		assert_null(fx.id->channel);
		assert_int_equal(fake_live_objects(), live);
	}
	parts_release();
}

/* ---- private data ---- */

static void transfer_private_data_copies(void **state)
{
	(void)state;
	conn_make(false, false);
	char data[] = "hello";
	struct rpma_conn_private_data in = {data, sizeof(data)};
	struct rpma_conn_private_data out;

	assert_int_equal(rpma_conn_transfer_private_data(NULL, &in), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_transfer_private_data(fx.conn, NULL), RPMA_E_INVAL);

	assert_int_equal(rpma_conn_transfer_private_data(fx.conn, &in), 0);
	assert_int_equal(rpma_conn_get_private_data(fx.conn, &out), 0);
	assert_ptr_not_equal(out.ptr, data);
	assert_int_equal(out.len, sizeof(data));
	assert_memory_equal(out.ptr, data, sizeof(data));

	/* out of memory: the previous copy stays */
	char other[] = "xy";
	struct rpma_conn_private_data in2 = {other, sizeof(other)};
	fake_malloc_fail(1);
	assert_int_equal(rpma_conn_transfer_private_data(fx.conn, &in2), RPMA_E_NOMEM);
	assert_int_equal(rpma_conn_get_private_data(fx.conn, &out), 0);
	assert_memory_equal(out.ptr, data, sizeof(data));

	/* a new copy replaces the old one */
	assert_int_equal(rpma_conn_transfer_private_data(fx.conn, &in2), 0);
	assert_int_equal(rpma_conn_get_private_data(fx.conn, &out), 0);
	assert_int_equal(out.len, sizeof(other));
	assert_memory_equal(out.ptr, other, sizeof(other));
}

static void get_private_data_invalid(void **state)
{
	(void)state;
	conn_make(false, false);
	struct rpma_conn_private_data pdata;
	assert_int_equal(rpma_conn_get_private_data(NULL, &pdata), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_private_data(fx.conn, NULL), RPMA_E_INVAL);
}

/* ---- CM events ---- */

static void get_event_fd_invalid(void **state)
{
	(void)state;
	conn_make(false, false);
	int fd = -7;
	assert_int_equal(rpma_conn_get_event_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_event_fd(fx.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(fd, -7);
}

static void next_event_invalid(void **state)
{
	(void)state;
	conn_make(false, false);
	enum rpma_conn_event ev;
	assert_int_equal(rpma_conn_next_event(NULL, &ev), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_next_event(fx.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(fake_calls("rdma_get_cm_event"), 0);
}

static void next_event_mapping(void **state)
{
	(void)state;
	static const struct {
		enum rdma_cm_event_type type;
		int ret;
		enum rpma_conn_event event;
	} table[] = {
		{RDMA_CM_EVENT_ESTABLISHED, 0, RPMA_CONN_ESTABLISHED},
		{RDMA_CM_EVENT_CONNECT_ERROR, 0, RPMA_CONN_LOST},
		{RDMA_CM_EVENT_DEVICE_REMOVAL, 0, RPMA_CONN_LOST},
		{RDMA_CM_EVENT_DISCONNECTED, 0, RPMA_CONN_CLOSED},
		{RDMA_CM_EVENT_TIMEWAIT_EXIT, 0, RPMA_CONN_CLOSED},
		{RDMA_CM_EVENT_REJECTED, 0, RPMA_CONN_REJECTED},
		{RDMA_CM_EVENT_UNREACHABLE, 0, RPMA_CONN_UNREACHABLE},
		{RDMA_CM_EVENT_ADDR_ERROR, 0, RPMA_CONN_UNREACHABLE},
		{RDMA_CM_EVENT_ROUTE_ERROR, 0, RPMA_CONN_UNREACHABLE},
		{RDMA_CM_EVENT_ADDR_RESOLVED, RPMA_E_UNKNOWN, 0},
		{RDMA_CM_EVENT_ROUTE_RESOLVED, RPMA_E_UNKNOWN, 0},
		{RDMA_CM_EVENT_CONNECT_REQUEST, RPMA_E_UNKNOWN, 0},
		{RDMA_CM_EVENT_CONNECT_RESPONSE, RPMA_E_UNKNOWN, 0},
		{RDMA_CM_EVENT_MULTICAST_JOIN, RPMA_E_UNKNOWN, 0},
		{RDMA_CM_EVENT_ADDR_CHANGE, RPMA_E_UNKNOWN, 0},
	};
	conn_make(false, false);
	int live = fake_live_objects();

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		fake_cm_push_event(fx.id->channel, table[i].type, fx.id, NULL, 0, 0);
		unsigned acks = fake_calls("rdma_ack_cm_event");
		enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
		assert_int_equal(rpma_conn_next_event(fx.conn, &ev), table[i].ret);
		if (table[i].ret == 0)
			assert_int_equal(ev, table[i].event);
		else
			assert_int_equal(ev, RPMA_CONN_UNDEFINED);
		/* every event is acked, mapped or not */
		assert_int_equal(fake_calls("rdma_ack_cm_event"), acks + 1);
		assert_int_equal(fake_live_objects(), live);
	}
}

static void next_event_no_event_and_provider_failure(void **state)
{
	(void)state;
	conn_make(false, false);
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	/* nothing queued on a non-blocking channel */
	assert_int_equal(rpma_conn_next_event(fx.conn, &ev), RPMA_E_NO_EVENT);

	fake_fail("rdma_get_cm_event", 1, EWOULDBLOCK);
	assert_int_equal(rpma_conn_next_event(fx.conn, &ev), RPMA_E_NO_EVENT);

	fake_fail("rdma_get_cm_event", 1, EIO);
	errno = 0;
	assert_int_equal(rpma_conn_next_event(fx.conn, &ev), RPMA_E_PROVIDER);
	assert_int_equal(errno, EIO);
	assert_int_equal(ev, RPMA_CONN_UNDEFINED);

	/* events on another channel are not the connection's */
	struct rdma_event_channel *other = rdma_create_event_channel();
	fake_cm_push_event(other, RDMA_CM_EVENT_ESTABLISHED, fx.id, NULL, 0, 0);
	assert_int_equal(rpma_conn_next_event(fx.conn, &ev), RPMA_E_NO_EVENT);
	rdma_destroy_event_channel(other);
}

static void next_event_ack_failure(void **state)
{
	(void)state;
	conn_make(false, false);
	int live = fake_live_objects();

	fake_cm_push_event(fx.id->channel, RDMA_CM_EVENT_DISCONNECTED, fx.id, NULL, 0, 0);
	fake_fail("rdma_ack_cm_event", 1, EINVAL);
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	assert_int_equal(rpma_conn_next_event(fx.conn, &ev), RPMA_E_PROVIDER);
	assert_int_equal(ev, RPMA_CONN_UNDEFINED);
	assert_int_equal(fake_live_objects(), live + 1);

	/* the event the fake could not take back is all that is left over */
	assert_int_equal(rpma_conn_delete(&fx.conn), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	assert_int_equal(fake_live_objects(), 1);
}

static void next_event_established_keeps_private_data(void **state)
{
	(void)state;
	conn_make(false, false);
	char req_data[] = "from the request";
	struct rpma_conn_private_data in = {req_data, sizeof(req_data)};
	assert_int_equal(rpma_conn_transfer_private_data(fx.conn, &in), 0);

	/* ESTABLISHED without data keeps what the connection has */
	fake_cm_push_event(fx.id->channel, RDMA_CM_EVENT_ESTABLISHED, fx.id, NULL, 0, 0);
	enum rpma_conn_event ev;
	assert_int_equal(rpma_conn_next_event(fx.conn, &ev), 0);
	assert_int_equal(ev, RPMA_CONN_ESTABLISHED);
	struct rpma_conn_private_data out;
	assert_int_equal(rpma_conn_get_private_data(fx.conn, &out), 0);
	assert_int_equal(out.len, sizeof(req_data));
	assert_memory_equal(out.ptr, req_data, sizeof(req_data));

	/* ESTABLISHED with data: it replaces the old copy, and outlives the event */
	const char accepted[] = "accepted";
	fake_cm_push_event(fx.id->channel, RDMA_CM_EVENT_ESTABLISHED, fx.id, accepted,
		sizeof(accepted), 0);
	assert_int_equal(rpma_conn_next_event(fx.conn, &ev), 0);
	assert_int_equal(ev, RPMA_CONN_ESTABLISHED);
	assert_int_equal(rpma_conn_get_private_data(fx.conn, &out), 0);
	assert_int_equal(out.len, sizeof(accepted));
	assert_memory_equal(out.ptr, accepted, sizeof(accepted));
}

static void next_event_established_out_of_memory(void **state)
{
	(void)state;
	conn_make(false, false);
	int live = fake_live_objects();
	const char accepted[] = "accepted";
	fake_cm_push_event(fx.id->channel, RDMA_CM_EVENT_ESTABLISHED, fx.id, accepted,
		sizeof(accepted), 0);
	fake_malloc_fail(1);
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	assert_int_equal(rpma_conn_next_event(fx.conn, &ev), RPMA_E_NOMEM);
	assert_int_equal(ev, RPMA_CONN_UNDEFINED);
	assert_int_equal(fake_live_objects(), live); /* acked all the same */

	struct rpma_conn_private_data out;
	assert_int_equal(rpma_conn_get_private_data(fx.conn, &out), 0);
	assert_null(out.ptr);
}

/* ---- remote peer configuration ---- */

static void apply_remote_peer_cfg(void **state)
{
	(void)state;
	conn_make(false, false);
	struct rpma_peer_cfg *pcfg = NULL;
	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);

	assert_int_equal(rpma_conn_apply_remote_peer_cfg(NULL, pcfg), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(fx.conn, NULL), RPMA_E_INVAL);

	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(fx.conn, pcfg), 0);
	assert_true(rpma_conn_get_direct_write_to_pmem(fx.conn));

	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, false), 0);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(fx.conn, pcfg), 0);
	assert_false(rpma_conn_get_direct_write_to_pmem(fx.conn));

	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

/* ---- queues ---- */

static void get_qp_num(void **state)
{
	(void)state;
	conn_make(false, false);
	uint32_t qp_num = 0;
	assert_int_equal(rpma_conn_get_qp_num(NULL, &qp_num), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_qp_num(fx.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(qp_num, 0);
	assert_int_equal(rpma_conn_get_qp_num(fx.conn, &qp_num), 0);
	assert_int_equal(qp_num, fx.id->qp->qp_num);
}

static void get_cq_and_rcq(void **state)
{
	(void)state;
	conn_make(false, true);
	struct rpma_cq *cq = NULL;
	assert_int_equal(rpma_conn_get_cq(NULL, &cq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_cq(fx.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_rcq(NULL, &cq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_rcq(fx.conn, NULL), RPMA_E_INVAL);
	assert_null(cq);

	assert_int_equal(rpma_conn_get_cq(fx.conn, &cq), 0);
	assert_ptr_equal(cq, fx.parts.cq);
	assert_int_equal(rpma_conn_get_rcq(fx.conn, &cq), 0);
	assert_ptr_equal(cq, fx.parts.rcq);
}

static void get_rcq_none(void **state)
{
	(void)state;
	conn_make(false, false);
	struct rpma_cq *rcq = (struct rpma_cq *)0x1;
	assert_int_equal(rpma_conn_get_rcq(fx.conn, &rcq), 0);
	assert_null(rcq);
}

static void get_compl_fd(void **state)
{
	(void)state;
	conn_make(false, false);
	int fd = -7;
	assert_int_equal(rpma_conn_get_compl_fd(NULL, &fd), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_compl_fd(fx.conn, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_get_compl_fd(fx.conn, &fd), RPMA_E_NOT_SHARED_CHNL);
	assert_int_equal(fd, -7);
}

static void get_compl_fd_shared(void **state)
{
	(void)state;
	conn_make(true, true);
	int fd = -7;
	assert_int_equal(rpma_conn_get_compl_fd(fx.conn, &fd), 0);
	assert_int_equal(fd, fx.parts.channel->fd);
}


#define TEST(fn) cmocka_unit_test_setup_teardown(fn, conn_setup, conn_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(new_invalid_arguments),
		TEST(new_takes_the_parts),
		TEST(new_native_atomic_write_follows_the_peer),
		TEST(new_out_of_memory_takes_nothing),
		TEST(new_provider_failures_take_nothing),
		TEST(transfer_private_data_copies),
		TEST(get_private_data_invalid),
		TEST(get_event_fd_invalid),
		TEST(next_event_invalid),
		TEST(next_event_mapping),
		TEST(next_event_no_event_and_provider_failure),
		cmocka_unit_test_setup(next_event_ack_failure, conn_setup),
		TEST(next_event_established_keeps_private_data),
		TEST(next_event_established_out_of_memory),
		TEST(apply_remote_peer_cfg),
		TEST(get_qp_num),
		TEST(get_cq_and_rcq),
		TEST(get_rcq_none),
		TEST(get_compl_fd),
		TEST(get_compl_fd_shared),
		TEST(wait_invalid_and_not_shared),
		TEST(wait_tells_which_cq),
		TEST(wait_without_rcq),
		TEST(wait_no_completion),
		TEST(wait_unknown_cq),
		TEST(wait_rearm_failure),
		TEST(disconnect_invalid_success_and_failure),
		TEST(delete_invalid_and_null),
		TEST(delete_releases_everything),
		TEST(delete_keeps_the_srq_rcq),
		TEST(delete_destroy_id_failure),
		TEST(delete_destroy_cq_failures),
		TEST(delete_destroy_comp_channel_failure),
		TEST(delete_several_failures_release_the_rest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
