/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * handshake_hostile.c -- a client that asks to connect and never finishes the
 * handshake, for testing that a server serving several clients (the GPSPM hub:
 * tests/e2e/engines_hub.sh) does not wait on it:
 *
 *   handshake-hostile ADDR PORT stall
 *
 * It speaks librdmacm directly (an RC queue pair, no private data): it resolves
 * the server's address and route, sends the connection request, and then never
 * takes another event. The active side of librdmacm readies its queue pair and
 * sends the RTU (which makes the connection established on the server) only
 * when it takes the CONNECT_RESPONSE event: here, never. Once the server's reply
 * to the request is there (the event channel is readable: the server accepted
 * it, or refused it), it prints "the server replied; stalling" and holds the
 * half-made connection until it is killed (a test kills it, with SIGKILL for a
 * client killed mid-handshake) or for 120 s.
 *
 * Exits 0 after the 120 s, 1 when no reply came within 20 s, 2 on a usage or
 * set-up error.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#define STEP_MS 20000
#define HOLD_S 120

static int die(const char *what)
{
	fprintf(stderr, "handshake-hostile: %s: %s\n", what, strerror(errno));
	return 2;
}

/* the next event of ch, which must be `want`; 0 or -1 */
static int expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want)
{
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	struct rdma_cm_event *ev = NULL;

	if (poll(&pfd, 1, STEP_MS) != 1 || rdma_get_cm_event(ch, &ev))
		return -1;
	enum rdma_cm_event_type got = ev->event;
	(void) rdma_ack_cm_event(ev);
	if (got != want) {
		fprintf(stderr, "handshake-hostile: %s, not %s\n", rdma_event_str(got),
			rdma_event_str(want));
		return -1;
	}
	return 0;
}

/* id's address and route resolved, its queue pair made */
static int prepare(struct rdma_event_channel *ch, struct rdma_cm_id *id, const char *addr,
		const char *port)
{
	struct rdma_addrinfo hints = {.ai_port_space = RDMA_PS_TCP};
	struct rdma_addrinfo *ai = NULL;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1},
	};

	if (rdma_getaddrinfo(addr, port, &hints, &ai))
		return die("rdma_getaddrinfo");
	int ret = rdma_resolve_addr(id, NULL, ai->ai_dst_addr, STEP_MS);
	rdma_freeaddrinfo(ai);
	if (ret || expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED))
		return die("rdma_resolve_addr");
	if (rdma_resolve_route(id, STEP_MS) || expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED))
		return die("rdma_resolve_route");
	if (rdma_create_qp(id, NULL, &qa)) /* (a CQ of its own, the device's PD) */
		return die("rdma_create_qp");
	return 0;
}

int main(int argc, char *argv[])
{
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id = NULL;

	if (argc != 4 || strcmp(argv[3], "stall") != 0) {
		fprintf(stderr, "usage: %s ADDR PORT stall\n", argv[0]);
		return 2;
	}
	if ((ch = rdma_create_event_channel()) == NULL)
		return die("rdma_create_event_channel");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return die("rdma_create_id");
	if (prepare(ch, id, argv[1], argv[2]))
		return 2;
	struct rdma_conn_param cp = {.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7};
	if (rdma_connect(id, &cp))
		return die("rdma_connect");
	printf("requested a connection to %s:%s\n", argv[1], argv[2]);
	fflush(stdout);

	/* the reply is there when the channel is readable: never take it */
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	if (poll(&pfd, 1, STEP_MS) != 1) {
		printf("no reply from the server within %d s\n", STEP_MS / 1000);
		return 1;
	}
	printf("the server replied; stalling\n");
	fflush(stdout);
	sleep(HOLD_S);
	return 0;
}
