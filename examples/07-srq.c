/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 07-srq -- one shared receive queue serving several connections.
 *
 * The server creates one rpma_srq with a receive CQ of its own, prepares
 * all receive buffers on it (rpma_srq_recv) before anyone connects, and
 * gives it to every connection through the connection configuration
 * (rpma_conn_cfg_set_srq). Messages from all clients then land in the one
 * pool of buffers and complete on the one CQ (rpma_srq_get_rcq); the
 * completion's wc.qp_num, compared with rpma_conn_get_qp_num(), tells which
 * connection each came from.
 *
 * Each client introduces itself with its ID in the private data and sends
 * MSGS messages {ID, sequence number}. The server checks that every message
 * came over the connection of the client it names, in order, and that each
 * connection delivered exactly MSGS.
 *
 *   07-srq server ADDR PORT [READY_FILE]      (serves CLIENTS clients)
 *   07-srq client ADDR PORT ID                (ID: 1..255)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/example.h"

#define CLIENTS 3
#define MSGS 8
#define RECVS (CLIENTS * MSGS)

struct message {
	uint32_t client_id;
	uint32_t seq;
};

struct client_conn {
	struct rpma_conn *conn;
	uint32_t qp_num;
	uint8_t client_id;
	int received;
};

/* The client's ID from the request's private data. */
static int request_client_id(const struct rpma_conn_req *req, uint8_t *id)
{
	struct rpma_conn_private_data pdata;
	int ret = rpma_conn_req_get_private_data(req, &pdata);
	if (ret)
		return example_fail("rpma_conn_req_get_private_data", ret);
	if (pdata.len < 1 || *(const uint8_t *)pdata.ptr == 0) {
		fprintf(stderr, "example: a connection request without a client ID\n");
		return -1;
	}
	*id = *(const uint8_t *)pdata.ptr;
	return 0;
}

static int accept_clients(struct rpma_peer *peer, int argc, char *argv[],
		const struct rpma_conn_cfg *cfg, struct client_conn *clients)
{
	struct rpma_ep *ep = NULL;
	int ret, failed = -1;
	if (example_listen(peer, argv[2], argv[3], argc > 4 ? argv[4] : NULL, &ep))
		return -1;
	for (int k = 0; k < CLIENTS; k++) {
		struct client_conn *c = &clients[k];
		struct rpma_conn_req *req = NULL;
		if (example_next_request(ep, cfg, &req))
			goto out;
		if (request_client_id(req, &c->client_id)) {
			rpma_conn_req_delete(&req);
			goto out;
		}
		if (example_accept(&req, NULL, &c->conn))
			goto out;
		if ((ret = rpma_conn_get_qp_num(c->conn, &c->qp_num))) {
			example_fail("rpma_conn_get_qp_num", ret);
			goto out;
		}
		for (int j = 0; j < k; j++) {
			if (clients[j].client_id == c->client_id || clients[j].qp_num == c->qp_num) {
				fprintf(stderr, "example: two connections share an ID or a QP\n");
				goto out;
			}
		}
		printf("server: client %u connected, qp_num %u\n", c->client_id, c->qp_num);
	}
	failed = 0;
out:
	example_ep_shutdown(&ep);
	return failed;
}

/* Take every message from the SRQ's CQ and account it to its connection. */
static int collect_messages(struct rpma_cq *rcq, const struct message *slots,
		struct client_conn *clients)
{
	for (int n = 0; n < RECVS; n++) {
		struct ibv_wc wc;
		if (example_expect_completion(rcq, IBV_WC_RECV, &wc))
			return -1;
		struct client_conn *c = NULL;
		for (int k = 0; k < CLIENTS; k++)
			if (clients[k].qp_num == wc.qp_num)
				c = &clients[k];
		if (c == NULL) {
			fprintf(stderr, "example: a message from qp_num %u, no connection of ours\n",
				wc.qp_num);
			return -1;
		}
		const struct message *m = (const struct message *)(uintptr_t)wc.wr_id;
		if (m < slots || m >= slots + RECVS || wc.byte_len != sizeof(*m)) {
			fprintf(stderr, "example: a completion for no buffer of ours\n");
			return -1;
		}
		if (m->client_id != c->client_id || m->seq != (uint32_t)c->received) {
			fprintf(stderr, "example: qp_num %u (client %u) delivered message %u of "
				"client %u, expected message %d\n", c->qp_num, c->client_id, m->seq,
				m->client_id, c->received);
			return -1;
		}
		c->received++;
	}
	for (int k = 0; k < CLIENTS; k++) {
		if (clients[k].received != MSGS) {
			fprintf(stderr, "example: client %u delivered %d messages\n",
				clients[k].client_id, clients[k].received);
			return -1;
		}
		printf("server: qp_num %u delivered %d messages, all from client %u, in order\n",
			clients[k].qp_num, MSGS, clients[k].client_id);
	}
	return 0;
}

static int run_server(struct rpma_peer *peer, int argc, char *argv[])
{
	static struct message slots[RECVS];
	struct client_conn clients[CLIENTS];
	struct rpma_srq_cfg *srq_cfg = NULL;
	struct rpma_srq *srq = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_mr_local *mr = NULL;
	struct rpma_cq *rcq = NULL;
	int ret, failed = -1;

	memset(clients, 0, sizeof(clients));
	if ((ret = rpma_srq_cfg_new(&srq_cfg)) ||
			(ret = rpma_srq_cfg_set_rq_size(srq_cfg, RECVS)) ||
			(ret = rpma_srq_cfg_set_rcq_size(srq_cfg, RECVS)) ||
			(ret = rpma_srq_new(peer, srq_cfg, &srq)) ||
			(ret = rpma_srq_get_rcq(srq, &rcq)) ||
			(ret = rpma_conn_cfg_new(&cfg)) ||
			(ret = rpma_conn_cfg_set_srq(cfg, srq)) ||
			(ret = rpma_mr_reg(peer, slots, sizeof(slots), RPMA_MR_USAGE_RECV, &mr))) {
		example_fail("setting up the shared receive queue", ret);
		goto out;
	}
	if (rcq == NULL) {
		fprintf(stderr, "example: the SRQ has no receive CQ\n");
		goto out;
	}
	for (int i = 0; i < RECVS; i++) {
		if ((ret = rpma_srq_recv(srq, mr, (size_t)i * sizeof(slots[0]), sizeof(slots[0]),
				&slots[i]))) {
			example_fail("rpma_srq_recv", ret);
			goto out;
		}
	}
	if (accept_clients(peer, argc, argv, cfg, clients) == 0)
		failed = collect_messages(rcq, slots, clients);
out:
	/* the connections go before the SRQ their QPs use */
	for (int k = 0; k < CLIENTS; k++)
		if (clients[k].conn && example_wait_disconnect(&clients[k].conn))
			failed = -1;
	rpma_mr_dereg(&mr);
	rpma_conn_cfg_delete(&cfg);
	if (srq && (ret = rpma_srq_delete(&srq)))
		failed = example_fail("rpma_srq_delete", ret);
	rpma_srq_cfg_delete(&srq_cfg);
	return failed;
}

static int run_client(struct rpma_peer *peer, char *argv[], uint8_t id)
{
	static struct message msgs[MSGS];
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL;
	struct rpma_conn_private_data pdata = {&id, sizeof(id)};
	int ret, failed = -1;

	for (int i = 0; i < MSGS; i++)
		msgs[i] = (struct message){.client_id = id, .seq = (uint32_t)i};
	if ((ret = rpma_mr_reg(peer, msgs, sizeof(msgs), RPMA_MR_USAGE_SEND, &mr)))
		return example_fail("rpma_mr_reg", ret);
	if (example_client_connect(peer, argv[2], argv[3], NULL, &pdata, &conn))
		goto out;
	if ((ret = rpma_conn_get_cq(conn, &cq))) {
		example_fail("rpma_conn_get_cq", ret);
		goto out;
	}
	for (int i = 0; i < MSGS; i++) {
		if ((ret = rpma_send(conn, mr, (size_t)i * sizeof(msgs[0]), sizeof(msgs[0]),
				RPMA_F_COMPLETION_ALWAYS, &msgs[i]))) {
			example_fail("rpma_send", ret);
			goto out;
		}
	}
	for (int i = 0; i < MSGS; i++)
		if (example_expect_completion(cq, IBV_WC_SEND, NULL))
			goto out;
	printf("client %u: %d messages sent\n", id, MSGS);
	failed = 0;
out:
	if (conn && example_disconnect(&conn))
		failed = -1;
	rpma_mr_dereg(&mr);
	return failed;
}

/* The client's ID (argv[4], 1..255), or -1 when missing or out of range. */
static int client_id(int argc, char *argv[])
{
	int id = argc >= 5 ? atoi(argv[4]) : 0;
	return id >= 1 && id <= 255 ? id : -1;
}

static int run_client_with_id(struct rpma_peer *peer, int argc, char *argv[])
{
	return run_client(peer, argv, (uint8_t)client_id(argc, argv));
}

int main(int argc, char *argv[])
{
	if (argc >= 2 && strcmp(argv[1], "client") == 0 && client_id(argc, argv) < 0) {
		fprintf(stderr, "usage: %s client ADDR PORT ID   (ID: 1..255)\n", argv[0]);
		return 2;
	}
	return example_main(argc, argv, "server ADDR PORT [READY_FILE] | client ADDR PORT ID",
		run_server, run_client_with_id);
}
