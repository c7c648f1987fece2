/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 04-messages -- two-sided messaging: a ping-pong of numbered messages.
 * The client sends the numbers FIRST..FIRST+COUNT-1, one at a time; the
 * server answers each with the number plus one. Both sides check every value.
 *
 * A message can arrive only into a receive buffer prepared in advance. The
 * server prepares the buffer of the first message on the connection request
 * (rpma_conn_req_recv), before it accepts, so the client may send as soon as
 * the connection is established; then each side prepares the buffer of the
 * next message before it sends the current one.
 *
 * Every message has a slot of its own in the send and receive arrays, so no
 * buffer is reused while the NIC may still own it, and op_context (the slot's
 * address) tells the completions apart. A send completion and the receive of
 * the answer may come in either order.
 *
 *   04-messages server ADDR PORT [READY_FILE]
 *   04-messages client ADDR PORT
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/example.h"

#define COUNT 100
#define FIRST 1000

struct buffers {
	uint64_t send[COUNT];
	uint64_t recv[COUNT];
	struct rpma_mr_local *send_mr;
	struct rpma_mr_local *recv_mr;
};

static int register_buffers(struct rpma_peer *peer, struct buffers *b)
{
	int ret = rpma_mr_reg(peer, b->send, sizeof(b->send), RPMA_MR_USAGE_SEND, &b->send_mr);
	if (ret == 0)
		ret = rpma_mr_reg(peer, b->recv, sizeof(b->recv), RPMA_MR_USAGE_RECV, &b->recv_mr);
	return ret ? example_fail("rpma_mr_reg", ret) : 0;
}

static void deregister_buffers(struct buffers *b)
{
	rpma_mr_dereg(&b->recv_mr);
	rpma_mr_dereg(&b->send_mr);
}

/* Post the receive of message i into its slot. */
static int post_recv(struct rpma_conn *conn, struct buffers *b, int i)
{
	int ret = rpma_recv(conn, b->recv_mr, (size_t)i * sizeof(uint64_t), sizeof(uint64_t),
			&b->recv[i]);
	return ret ? example_fail("rpma_recv", ret) : 0;
}

/* Send value from slot i. */
static int post_send(struct rpma_conn *conn, struct buffers *b, int i, uint64_t value)
{
	b->send[i] = value;
	int ret = rpma_send(conn, b->send_mr, (size_t)i * sizeof(uint64_t), sizeof(uint64_t),
			RPMA_F_COMPLETION_ALWAYS, &b->send[i]);
	return ret ? example_fail("rpma_send", ret) : 0;
}

/*
 * Wait for completions until the receive of slot i has arrived, counting the
 * send completions met on the way in *sends_done. Each completion must be
 * the one its op_context promises.
 */
static int wait_recv(struct rpma_cq *cq, struct buffers *b, int i, int *sends_done)
{
	for (;;) {
		struct ibv_wc wc;
		if (example_next_completion(cq, &wc))
			return -1;
		if (wc.opcode == IBV_WC_SEND && wc.wr_id == (uintptr_t)&b->send[*sends_done]) {
			(*sends_done)++;
			continue;
		}
		if (wc.opcode == IBV_WC_RECV && wc.wr_id == (uintptr_t)&b->recv[i]) {
			if (wc.byte_len != sizeof(uint64_t)) {
				fprintf(stderr, "example: message %d has %u bytes\n", i, wc.byte_len);
				return -1;
			}
			return 0;
		}
		fprintf(stderr, "example: unexpected completion %s (op_context %#" PRIx64
			") while waiting for message %d\n", example_wc_opcode_str(wc.opcode),
			(uint64_t)wc.wr_id, i);
		return -1;
	}
}

/* Wait for the send completions still outstanding. */
static int wait_sends(struct rpma_cq *cq, struct buffers *b, int *sends_done)
{
	while (*sends_done < COUNT) {
		struct ibv_wc wc;
		if (example_expect_completion(cq, IBV_WC_SEND, &wc))
			return -1;
		if (wc.wr_id != (uintptr_t)&b->send[*sends_done]) {
			fprintf(stderr, "example: send completions out of order\n");
			return -1;
		}
		(*sends_done)++;
	}
	return 0;
}

static int check_value(const char *what, int i, uint64_t got, uint64_t expected)
{
	if (got == expected)
		return 0;
	fprintf(stderr, "example: %s %d is %" PRIu64 ", expected %" PRIu64 "\n", what, i, got,
		expected);
	return -1;
}

static int run_server(struct rpma_peer *peer, int argc, char *argv[], struct buffers *b)
{
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL;
	int ret, sends_done = 0, failed = -1;

	if (example_listen(peer, argv[2], argv[3], argc > 4 ? argv[4] : NULL, &ep))
		return -1;
	if (example_next_request(ep, NULL, &req))
		goto out;
	/* the buffer of the first message, ready before the client may send it */
	if ((ret = rpma_conn_req_recv(req, b->recv_mr, 0, sizeof(uint64_t), &b->recv[0]))) {
		example_fail("rpma_conn_req_recv", ret);
		rpma_conn_req_delete(&req);
		goto out;
	}
	if (example_accept(&req, NULL, &conn))
		goto out;
	example_ep_shutdown(&ep); /* no more connections to take */
	if ((ret = rpma_conn_get_cq(conn, &cq))) {
		example_fail("rpma_conn_get_cq", ret);
		goto out;
	}
	for (int i = 0; i < COUNT; i++) {
		if (wait_recv(cq, b, i, &sends_done) ||
				check_value("message", i, b->recv[i], FIRST + (uint64_t)i))
			goto out;
		if ((i + 1 < COUNT && post_recv(conn, b, i + 1)) ||
				post_send(conn, b, i, b->recv[i] + 1))
			goto out;
	}
	if (wait_sends(cq, b, &sends_done))
		goto out;
	printf("server: received %d messages %d..%d in order, answered each\n", COUNT, FIRST,
		FIRST + COUNT - 1);
	failed = 0;
out:
	example_ep_shutdown(&ep);
	if (conn && example_wait_disconnect(&conn))
		failed = -1;
	return failed;
}

static int run_client(struct rpma_peer *peer, char *argv[], struct buffers *b)
{
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL;
	int ret, sends_done = 0, failed = -1;

	if (example_client_connect(peer, argv[2], argv[3], NULL, NULL, &conn))
		return -1;
	if ((ret = rpma_conn_get_cq(conn, &cq))) {
		example_fail("rpma_conn_get_cq", ret);
		goto out;
	}
	for (int i = 0; i < COUNT; i++) {
		uint64_t value = FIRST + (uint64_t)i;
		if (post_recv(conn, b, i) || post_send(conn, b, i, value) ||
				wait_recv(cq, b, i, &sends_done) ||
				check_value("answer", i, b->recv[i], value + 1))
			goto out;
	}
	if (wait_sends(cq, b, &sends_done))
		goto out;
	printf("client: %d messages sent, every answer was the number plus one\n", COUNT);
	failed = 0;
out:
	if (example_disconnect(&conn))
		failed = -1;
	return failed;
}

int main(int argc, char *argv[])
{
	if (argc < 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client ADDR PORT [READY_FILE]\n", argv[0]);
		return 2;
	}
	const bool server = strcmp(argv[1], "server") == 0;
	static struct buffers b;
	struct rpma_peer *peer = NULL;
	int failed = -1;

	if (example_peer_new(argv[2], server ? RPMA_UTIL_IBV_CONTEXT_LOCAL :
			RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		return 1;
	if (register_buffers(peer, &b) == 0)
		failed = server ? run_server(peer, argc, argv, &b) : run_client(peer, argv, &b);
	deregister_buffers(&b);
	rpma_peer_delete(&peer);
	printf("%s: %s\n", argv[1], failed ? "FAILED" : "OK");
	return failed ? 1 : 0;
}
