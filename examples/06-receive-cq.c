/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 06-receive-cq -- a separate completion queue for receives.
 *
 * With rpma_conn_cfg_set_rcq_size() > 0 a connection gets a receive CQ
 * (rpma_conn_get_rcq()) next to its main CQ (rpma_conn_get_cq()): receive
 * completions go to the first, everything else to the second. The two sides
 * show the two ways of waiting for them:
 *
 * - the server keeps the default: each CQ has a completion channel of its
 *   own, so it waits on each CQ with rpma_cq_wait();
 * - the client asks for one shared channel (rpma_conn_cfg_set_compl_channel):
 *   rpma_cq_wait() then refuses (RPMA_E_SHARED_CHANNEL), and the client waits
 *   on the connection's channel fd (rpma_conn_get_compl_fd) and asks
 *   rpma_conn_wait() which CQ fired.
 *
 * ROUNDS times the client sends a number, the server answers with its double.
 *
 *   06-receive-cq server ADDR PORT [READY_FILE]
 *   06-receive-cq client ADDR PORT
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/example.h"

#define ROUNDS 10
#define FIRST 500

struct buffers {
	uint64_t send[ROUNDS];
	uint64_t recv[ROUNDS];
	struct rpma_mr_local *send_mr;
	struct rpma_mr_local *recv_mr;
};

/* A configuration with a receive CQ, optionally sharing one completion channel. */
static int make_cfg(bool shared_channel, struct rpma_conn_cfg **cfg)
{
	int ret = rpma_conn_cfg_new(cfg);
	if (ret)
		return example_fail("rpma_conn_cfg_new", ret);
	if ((ret = rpma_conn_cfg_set_rcq_size(*cfg, ROUNDS)) ||
			(ret = rpma_conn_cfg_set_rq_size(*cfg, ROUNDS)) ||
			(ret = rpma_conn_cfg_set_compl_channel(*cfg, shared_channel)))
		return example_fail("configuring the connection", ret);
	return 0;
}

static int get_cqs(struct rpma_conn *conn, struct rpma_cq **cq, struct rpma_cq **rcq)
{
	int ret = rpma_conn_get_cq(conn, cq);
	if (ret == 0)
		ret = rpma_conn_get_rcq(conn, rcq);
	if (ret)
		return example_fail("rpma_conn_get_cq/rcq", ret);
	if (*rcq == NULL) {
		fprintf(stderr, "example: the connection has no receive CQ\n");
		return -1;
	}
	return 0;
}

/* Nothing may be waiting in cq now. */
static int expect_empty(struct rpma_cq *cq, const char *name)
{
	struct ibv_wc wc;
	int ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
	if (ret == RPMA_E_NO_COMPLETION)
		return 0;
	if (ret)
		return example_fail("rpma_cq_get_wc", ret);
	fprintf(stderr, "example: a %s completion landed on the %s\n",
		example_wc_opcode_str(wc.opcode), name);
	return -1;
}

static int check_value(const char *what, int round, uint64_t got, uint64_t expected)
{
	if (got == expected)
		return 0;
	fprintf(stderr, "example: %s of round %d is %" PRIu64 ", expected %" PRIu64 "\n", what,
		round, got, expected);
	return -1;
}

static int run_server(struct rpma_peer *peer, int argc, char *argv[], struct buffers *b)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL, *rcq = NULL;
	int fd, ret, failed = -1;

	if (make_cfg(false, &cfg) ||
			example_listen(peer, argv[2], argv[3], argc > 4 ? argv[4] : NULL, &ep) ||
			example_next_request(ep, cfg, &req))
		goto out;
	/* every round's receive is ready before the client may send */
	for (int i = 0; i < ROUNDS; i++) {
		if ((ret = rpma_conn_req_recv(req, b->recv_mr, (size_t)i * sizeof(uint64_t),
				sizeof(uint64_t), &b->recv[i]))) {
			example_fail("rpma_conn_req_recv", ret);
			rpma_conn_req_delete(&req);
			goto out;
		}
	}
	if (example_accept(&req, NULL, &conn) || get_cqs(conn, &cq, &rcq))
		goto out;
	example_ep_shutdown(&ep); /* no more connections to take */
	if ((ret = rpma_conn_get_compl_fd(conn, &fd)) != RPMA_E_NOT_SHARED_CHNL) {
		fprintf(stderr, "example: rpma_conn_get_compl_fd() did not say the channel is not "
			"shared (%d)\n", ret);
		goto out;
	}
	for (int i = 0; i < ROUNDS; i++) {
		struct ibv_wc wc;
		/* the receives come in on the RCQ only; the sends so far are collected */
		if (example_expect_completion(rcq, IBV_WC_RECV, &wc) || expect_empty(cq, "CQ"))
			goto out;
		const uint64_t *value = (const uint64_t *)(uintptr_t)wc.wr_id;
		if (check_value("the number", i, *value, FIRST + (uint64_t)i))
			goto out;
		b->send[i] = *value * 2;
		if ((ret = rpma_send(conn, b->send_mr, (size_t)i * sizeof(uint64_t), sizeof(uint64_t),
				RPMA_F_COMPLETION_ALWAYS, &b->send[i]))) {
			example_fail("rpma_send", ret);
			goto out;
		}
		/* a receive on the CQ would fail here (the next one may already be on the RCQ) */
		if (example_expect_completion(cq, IBV_WC_SEND, NULL))
			goto out;
	}
	printf("server: %d receives completed on the RCQ, %d sends on the CQ\n", ROUNDS, ROUNDS);
	failed = 0;
out:
	example_ep_shutdown(&ep);
	if (conn && example_wait_disconnect(&conn))
		failed = -1;
	rpma_conn_cfg_delete(&cfg);
	return failed;
}

/*
 * Wait on the shared channel until round i's send has completed on the CQ
 * and its answer has arrived on the RCQ.
 */
static int client_wait_round(struct rpma_conn *conn, struct rpma_cq *main_cq,
		struct rpma_cq *rcq, struct buffers *b, int i)
{
	bool sent = false, answered = false;
	int fd, ret = rpma_conn_get_compl_fd(conn, &fd);
	if (ret)
		return example_fail("rpma_conn_get_compl_fd", ret);

	while (!sent || !answered) {
		struct rpma_cq *cq = NULL;
		bool is_rcq = false;
		if (example_wait_readable(fd, "a completion event on the shared channel"))
			return -1;
		if ((ret = rpma_conn_wait(conn, RPMA_W_WAIT_FOR_COMPLETION, &cq, &is_rcq)))
			return example_fail("rpma_conn_wait", ret);
		if (cq != (is_rcq ? rcq : main_cq)) {
			fprintf(stderr, "example: rpma_conn_wait() named the wrong CQ\n");
			return -1;
		}
		/* after the event: collect everything the CQ holds (maybe nothing) */
		struct ibv_wc wc;
		while ((ret = rpma_cq_get_wc(cq, 1, &wc, NULL)) == 0) {
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "example: operation failed: %s\n",
					ibv_wc_status_str(wc.status));
				return -1;
			}
			if (is_rcq && wc.opcode == IBV_WC_RECV && wc.wr_id == (uintptr_t)&b->recv[i]) {
				answered = true;
			} else if (!is_rcq && wc.opcode == IBV_WC_SEND &&
					wc.wr_id == (uintptr_t)&b->send[i]) {
				sent = true;
			} else {
				fprintf(stderr, "example: unexpected completion %s on the %s\n",
					example_wc_opcode_str(wc.opcode), is_rcq ? "RCQ" : "CQ");
				return -1;
			}
		}
		if (ret != RPMA_E_NO_COMPLETION)
			return example_fail("rpma_cq_get_wc", ret);
	}
	return 0;
}

static int run_client(struct rpma_peer *peer, char *argv[], struct buffers *b)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL, *rcq = NULL;
	int ret, failed = -1;

	if (make_cfg(true, &cfg) ||
			example_client_connect(peer, argv[2], argv[3], cfg, NULL, &conn))
		goto out;
	if (get_cqs(conn, &cq, &rcq))
		goto out;
	if ((ret = rpma_cq_wait(cq)) != RPMA_E_SHARED_CHANNEL) {
		fprintf(stderr, "example: rpma_cq_wait() on a shared channel did not refuse (%d)\n",
			ret);
		goto out;
	}
	for (int i = 0; i < ROUNDS; i++) {
		b->send[i] = FIRST + (uint64_t)i;
		if ((ret = rpma_recv(conn, b->recv_mr, (size_t)i * sizeof(uint64_t),
				sizeof(uint64_t), &b->recv[i])) ||
				(ret = rpma_send(conn, b->send_mr, (size_t)i * sizeof(uint64_t),
				sizeof(uint64_t), RPMA_F_COMPLETION_ALWAYS, &b->send[i]))) {
			example_fail("rpma_recv/rpma_send", ret);
			goto out;
		}
		if (client_wait_round(conn, cq, rcq, b, i) ||
				check_value("the answer", i, b->recv[i], b->send[i] * 2))
			goto out;
	}
	printf("client: %d sends completed on the CQ and %d answers on the RCQ, "
		"told apart by rpma_conn_wait()\n", ROUNDS, ROUNDS);
	failed = 0;
out:
	if (conn && example_disconnect(&conn))
		failed = -1;
	rpma_conn_cfg_delete(&cfg);
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
	int ret, failed = -1;

	if (example_peer_new(argv[2], server ? RPMA_UTIL_IBV_CONTEXT_LOCAL :
			RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		return 1;
	if ((ret = rpma_mr_reg(peer, b.send, sizeof(b.send), RPMA_MR_USAGE_SEND, &b.send_mr)) ||
			(ret = rpma_mr_reg(peer, b.recv, sizeof(b.recv), RPMA_MR_USAGE_RECV,
				&b.recv_mr)))
		example_fail("rpma_mr_reg", ret);
	else
		failed = server ? run_server(peer, argc, argv, &b) : run_client(peer, argv, &b);
	rpma_mr_dereg(&b.recv_mr);
	rpma_mr_dereg(&b.send_mr);
	rpma_peer_delete(&peer);
	printf("%s: %s\n", argv[1], failed ? "FAILED" : "OK");
	return failed ? 1 : 0;
}
