/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_hub_door_test.c -- a hub's client between its connection request and
 * its connection (engines/server/hub_door.c): once accepted it is connecting,
 * its port quiet; an event other than ESTABLISHED, a handshake not done by its
 * deadline, a failed accept or a connection whose CQ cannot be had drops it
 * back to waiting -- a note naming it and why, its connection's events out of
 * the hub's epoll set, its port waking the loop again -- and nothing fails the
 * job or touches the other clients. No connection is made: the clients' ports
 * and connections are pipes in a real epoll set, their librpma handles NULL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <cmocka.h>

#include "server/hub_door.h"
#include "fio_report.h"

#define DROPPED_NOTE "dropped the connection of client 2 (10.0.0.2, port 7205) before it was " \
	"established ("

static struct rpmafio_opts opts;
static struct rpmafio_server server;
static struct rpmafio_hub hub;
static struct rpmafio_hub_client clients[2];
static int port_pipe[2][2], conn_pipe[2][2];

/* client k's port (tagged) and connection (if connected) in the epoll set */
static void add(int fd, uint32_t events, uint32_t data)
{
	struct epoll_event eev = {.events = events, .data.u32 = data};
	assert_int_equal(epoll_ctl(hub.epoll_fd, EPOLL_CTL_ADD, fd, &eev), 0);
}

/* client 1 (the second) connecting, its port quiet; client 0 served */
static int setup(void **state)
{
	(void)state;
	memset(&fio_report, 0, sizeof(fio_report));
	memset(&server, 0, sizeof(server));
	memset(&hub, 0, sizeof(hub));
	memset(clients, 0, sizeof(clients));
	opts.connect_timeout = 3000;
	opts.keepalive = 1000;
	server.job.o = &opts;
	server.hub = &hub;
	hub.n = 2;
	hub.clients = clients;
	hub.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	assert_true(hub.epoll_fd >= 0);
	for (unsigned k = 0; k < 2; k++) {
		struct rpmafio_hub_client *c = &clients[k];
		assert_int_equal(pipe(port_pipe[k]), 0);
		assert_int_equal(pipe(conn_pipe[k]), 0);
		c->k = k;
		snprintf(c->port, sizeof(c->port), "%u", 7204 + k);
		snprintf(c->addr, sizeof(c->addr), "10.0.0.%u", k + 1);
		c->ep_fd = port_pipe[k][0];
		c->ev_fd = conn_pipe[k][0];
		c->qp_num = 100 + k;
		add(c->ep_fd, 0, HUB_DOOR_TAG | k);
		add(c->ev_fd, EPOLLIN, k);
	}
	clients[0].state = RPMAFIO_HUB_SERVING;
	clients[1].state = RPMAFIO_HUB_CONNECTING;
	clients[1].connect_due = 5000;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (unsigned k = 0; k < 2; k++)
		for (unsigned e = 0; e < 2; e++) {
			close(port_pipe[k][e]);
			close(conn_pipe[k][e]);
		}
	close(hub.epoll_fd);
	return 0;
}

/* every port and connection has something to say: which wake the loop? */
static int woken(uint32_t *data)
{
	struct epoll_event ev[4];
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(write(port_pipe[k][1], "r", 1), 1);
		assert_int_equal(write(conn_pipe[k][1], "e", 1), 1);
	}
	int m = epoll_wait(hub.epoll_fd, ev, 4, 0);
	for (int i = 0; i < m; i++)
		data[i] = ev[i].data.u32;
	return m;
}

static bool has(const uint32_t *data, int m, uint32_t want)
{
	for (int i = 0; i < m; i++)
		if (data[i] == want)
			return true;
	return false;
}

/* client 1 is waiting again, its port wakes the loop, client 0 is as it was */
static void assert_dropped(const char *why)
{
	struct rpmafio_hub_client *c = &clients[1];
	uint32_t data[4];

	assert_int_equal(c->state, RPMAFIO_HUB_WAITING);
	assert_null(c->conn);
	assert_null(c->cq);
	assert_int_equal(c->ev_fd, -1);
	assert_int_equal(c->qp_num, 0);
	assert_int_equal(c->ep_fd, port_pipe[1][0]);
	assert_int_equal(fio_report.fails, 0);
	assert_int_equal(fio_report.notes, 1);
	assert_non_null(strstr(fio_report.note, DROPPED_NOTE));
	assert_non_null(strstr(fio_report.note, why));
	assert_non_null(strstr(fio_report.note, "): its port listens on"));
	/* client 0's connection, client 1's port; not client 1's connection any more */
	int m = woken(data);
	assert_int_equal(m, 2);
	assert_true(has(data, m, 0));
	assert_true(has(data, m, HUB_DOOR_TAG | 1));
	assert_int_equal(clients[0].state, RPMAFIO_HUB_SERVING);
	assert_int_equal(clients[0].ev_fd, conn_pipe[0][0]);
}

static void a_connecting_client_waits_until_its_deadline(void **state)
{
	(void)state;
	uint32_t data[4];
	assert_int_equal(hub_door_tick(&server, &clients[1], 4999), HUB_DOOR_WAIT);
	assert_int_equal(clients[1].state, RPMAFIO_HUB_CONNECTING);
	assert_int_equal(fio_report.notes, 0);
	/* its connection's events wake the loop, its port's do not */
	int m = woken(data);
	assert_int_equal(m, 2);
	assert_true(has(data, m, 0));
	assert_true(has(data, m, 1));
}

static void a_handshake_not_done_in_time_is_dropped(void **state)
{
	(void)state;
	assert_int_equal(hub_door_tick(&server, &clients[1], 5000), HUB_DOOR_DROPPED);
	assert_dropped("(its handshake not done within connect_timeout=3000 ms)");
}

static void no_event_yet_changes_nothing(void **state)
{
	(void)state;
	assert_int_equal(hub_door_on_event(&server, &clients[1], RPMA_E_NO_EVENT,
		RPMA_CONN_UNDEFINED), HUB_DOOR_WAIT);
	assert_int_equal(clients[1].state, RPMAFIO_HUB_CONNECTING);
	assert_int_equal(fio_report.notes, 0);
	assert_int_equal(fio_report.fails, 0);
}

static void a_rejected_handshake_is_dropped(void **state)
{
	(void)state;
	assert_int_equal(hub_door_on_event(&server, &clients[1], 0, RPMA_CONN_REJECTED),
		HUB_DOOR_DROPPED);
	assert_dropped("(Connection rejected)");
}

static void a_lost_handshake_is_dropped(void **state)
{
	(void)state;
	assert_int_equal(hub_door_on_event(&server, &clients[1], 0, RPMA_CONN_LOST),
		HUB_DOOR_DROPPED);
	assert_dropped("(Connection lost)");
}

static void an_event_that_cannot_be_had_drops_it(void **state)
{
	(void)state;
	assert_int_equal(hub_door_on_event(&server, &clients[1], RPMA_E_PROVIDER,
		RPMA_CONN_UNDEFINED), HUB_DOOR_DROPPED);
	assert_dropped("(rpma_conn_next_event: ");
}

static void established_but_no_cq_drops_it(void **state)
{
	(void)state;
	/* (its connection is NULL here: rpma_conn_get_cq() fails) */
	assert_int_equal(hub_door_on_event(&server, &clients[1], 0, RPMA_CONN_ESTABLISHED),
		HUB_DOOR_DROPPED);
	assert_dropped("(its CQ: ");
}

static void a_failed_accept_is_dropped(void **state)
{
	(void)state;
	struct rpmafio_hub_client *c = &clients[1];
	/* a waiting client: no connection, its port awake */
	assert_int_equal(epoll_ctl(hub.epoll_fd, EPOLL_CTL_DEL, c->ev_fd, NULL), 0);
	c->ev_fd = -1;
	c->state = RPMAFIO_HUB_WAITING;
	assert_int_equal(hub_door_accepted(&server, c, RPMA_E_PROVIDER), HUB_DOOR_DROPPED);
	assert_dropped("(accepting it failed: ");
}

static void a_dropped_client_can_be_dropped_again(void **state)
{
	(void)state;
	assert_int_equal(hub_door_tick(&server, &clients[1], 5000), HUB_DOOR_DROPPED);
	/* its next request accepted, then failing too: its part is reused each time */
	assert_int_equal(hub_door_accepted(&server, &clients[1], RPMA_E_INVAL), HUB_DOOR_DROPPED);
	assert_int_equal(fio_report.notes, 2);
	assert_int_equal(fio_report.fails, 0);
	assert_int_equal(clients[1].state, RPMAFIO_HUB_WAITING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_connecting_client_waits_until_its_deadline, setup,
			teardown),
		cmocka_unit_test_setup_teardown(a_handshake_not_done_in_time_is_dropped, setup,
			teardown),
		cmocka_unit_test_setup_teardown(no_event_yet_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(a_rejected_handshake_is_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(a_lost_handshake_is_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(an_event_that_cannot_be_had_drops_it, setup,
			teardown),
		cmocka_unit_test_setup_teardown(established_but_no_cq_drops_it, setup, teardown),
		cmocka_unit_test_setup_teardown(a_failed_accept_is_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(a_dropped_client_can_be_dropped_again, setup,
			teardown),
	};
	return cmocka_run_group_tests_name("engine_hub_door", tests, NULL, NULL);
}
