/* SPDX-License-Identifier: BSD-3-Clause */
/* server.c -- the GPSPM server of one client (see server.h) */
#include <errno.h>

#include "common/report.h"
#include "msg.h"
#include "requests.h"
#include "server.h"
#include "wr_id.h"

/* a receive in every slot, on the request: posted before the client can send */
static int post_receives(struct rpmafio_server *s, struct rpma_conn_req *req)
{
	const struct gpspm_msg_bufs *b = &((struct gpspm_server *)s->priv)->box[0].bufs;
	char buf[128];
	int ret;

	for (uint32_t k = 0; k < b->nslots; k++)
		if ((ret = rpma_conn_req_recv(req, b->mr, gpspm_recv_off(b, k), GPSPM_MSG_MAX,
				gpspm_wr_id(GPSPM_WR_RECV, k))))
			return rpmafio_fail(&s->job, EIO, "cannot post receive %u of %u: %s", k + 1,
				b->nslots, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

int gpspm_server_init(struct rpmafio_server *s)
{
	/* the client only writes and reads: the server persists */
	const int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC;
	struct rpma_conn_req *req = NULL;

	if (rpmafio_server_map(s) || gpspm_server_state_new(s, 1))
		return -1;
	struct gpspm_server *g = s->priv;
	/*
	 * a response per request in the SQ, a receive per slot, a completion for
	 * each; one more in the SQ and CQ for the keepalive probe (server/keepalive.h)
	 */
	const uint32_t n = g->box[0].bufs.nslots;
	struct rpmafio_queues q = {.sq = n + 1, .rq = n, .cq = 2 * n + 1};
	if (rpmafio_server_register(s, usage, (uint16_t)n) ||
			gpspm_msg_bufs_new(&s->job, s->peer, &g->box[0].bufs) ||
			rpmafio_server_listen(s) ||
			rpmafio_server_next_request(s, &q, &req))
		return -1;
	if (post_receives(s, req)) {
		(void) rpma_conn_req_delete(&req);
		return -1;
	}
	return rpmafio_server_accept(s, &req);
}

/* what one completion of the server's messages was */
enum server_wc {
	SERVER_WC_TAKEN,	/* a message sent or received, as expected */
	SERVER_WC_CONN_FAILED,	/* flushed or failed with the connection: see *status */
	SERVER_WC_REFUSED,	/* after rpmafio_fail() */
};

static enum server_wc on_wc(struct rpmafio_server *s, struct gpspm_server *g,
		const struct ibv_wc *wc, enum ibv_wc_status *status)
{
	uint64_t tag = wc->wr_id & GPSPM_WR_TAG_MASK;
	uint32_t k = gpspm_wr_index(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS) {
		/*
		 * A receive fails by itself (not flushed by a failing connection)
		 * only because of what arrived: a message that does not fit
		 * (reported as a length or a QP operation error, by provider).
		 */
		if (tag == GPSPM_WR_RECV && wc->status != IBV_WC_WR_FLUSH_ERR) {
			rpmafio_fail(&s->job, EPROTO, "rejected a message from the client: "
				"receiving it failed (%s): is it longer than the %d-byte receive "
				"buffer?; disconnecting", ibv_wc_status_str(wc->status),
				GPSPM_MSG_MAX);
			return SERVER_WC_REFUSED;
		}
		*status = wc->status;
		return SERVER_WC_CONN_FAILED;
	}
	/*
	 * A receive is a request only when a SEND filled it: an RDMA write with
	 * immediate data consumes a posted receive too, and its buffer holds
	 * nothing new (the last request, served already).
	 */
	if (tag == GPSPM_WR_RECV && wc->opcode != IBV_WC_RECV) {
		rpmafio_fail(&s->job, EPROTO, "rejected a message from the client: a receive "
			"completed as opcode %d (%s), not by a SEND; disconnecting", (int)wc->opcode,
			wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM ? "an RDMA write with immediate data" :
			"not a message");
		return SERVER_WC_REFUSED;
	}
	if (tag == GPSPM_WR_SEND && wc->opcode == IBV_WC_SEND &&
			gpspm_server_slots_sent(g->box[0].slots, k) == 0)
		return SERVER_WC_TAKEN;
	if (tag == GPSPM_WR_RECV &&
			gpspm_server_slots_received(g->box[0].slots, k, wc->byte_len) == 0)
		return SERVER_WC_TAKEN;
	rpmafio_fail(&s->job, EIO, "a completion for no message (opcode %d, wr_id 0x%llx)",
		(int)wc->opcode, (unsigned long long)wc->wr_id);
	return SERVER_WC_REFUSED;
}

/* the serve loop's work (server.h: rpmafio_serve_fn): take completions, answer requests */
static enum rpmafio_poll_step serve_messages(struct rpmafio_server *s, const struct ibv_wc *wc,
		int n)
{
	struct gpspm_server *g = s->priv;
	uint32_t k, len, out;

	for (int i = 0; i < n; i++) {
		enum ibv_wc_status status = IBV_WC_SUCCESS;
		switch (on_wc(s, g, &wc[i], &status)) {
		case SERVER_WC_TAKEN:
			continue;
		case SERVER_WC_CONN_FAILED:
			return rpmafio_server_conn_failed(s, status);
		case SERVER_WC_REFUSED:
		default:
			return RPMAFIO_POLL_FAILED;
		}
	}
	const struct gpspm_requester client = {&g->box[0], 0, s->conn, s->mem.ptr, s->mem.size,
		"the client", &g->served, &g->bytes};
	/* (the last message keeps the send buffer it was given: serving ends there) */
	while (!g->last && gpspm_server_slots_next(g->box[0].slots, &k, &len, &out)) {
		switch (gpspm_request_serve(s, g, &client, k, len, out)) {
		case GPSPM_REQUEST_ANSWERED:
			break;
		case GPSPM_REQUEST_LAST:
			g->last = true;
			break;
		case GPSPM_REQUEST_STOPPED:
			return RPMAFIO_POLL_DONE;
		case GPSPM_REQUEST_REFUSED:
		case GPSPM_REQUEST_UNSENT:
		case GPSPM_REQUEST_FAILED:
		default:
			return RPMAFIO_POLL_FAILED;
		}
	}
	if (!g->last)
		return RPMAFIO_POLL_GO_ON;
	/* the client is done: it disconnects next */
	switch (rpmafio_server_wait_gone(s)) {
	case RPMAFIO_CLIENT_STAYED:
		rpmafio_note(&s->job, "the client sent its last message but did not disconnect "
			"within connect_timeout=%u ms: ending anyway", s->job.o->connect_timeout);
		return RPMAFIO_POLL_DONE;
	case RPMAFIO_CLIENT_WAIT_FAILED:
		return RPMAFIO_POLL_FAILED;
	case RPMAFIO_CLIENT_LEFT:
	default:
		return RPMAFIO_POLL_DONE;
	}
}

int gpspm_server_serve(struct rpmafio_server *s)
{
	const struct gpspm_server *g = s->priv;
	int ret = rpmafio_server_serve(s, serve_messages);

	rpmafio_note(&s->job, "served %llu flush requests (%llu bytes %s)",
		(unsigned long long)g->served, (unsigned long long)g->bytes,
		g->persist ? "persisted" : "in DRAM: nothing to persist");
	return ret;
}
