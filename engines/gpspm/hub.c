/* SPDX-License-Identifier: BSD-3-Clause */
/* hub.c -- the GPSPM server of several clients from one thread (see hub.h) */
#include <errno.h>
#include <stdio.h>

#include "common/report.h"
#include "hub.h"
#include "msg.h"
#include "requests.h"
#include "server/hub.h"
#include "wr_id.h"

/* each client's message buffers, registered in its own peer */
static int mailboxes_new(struct rpmafio_server *s, struct gpspm_server *g)
{
	for (unsigned k = 0; k < g->nbox; k++)
		if (gpspm_msg_bufs_new(&s->job, s->hub->clients[k].peer, &g->box[k].bufs))
			return -1;
	return 0;
}

/* the one CQ every client's receives complete on: n * iodepth of them at most */
static int rcq_new(struct rpmafio_server *s, struct gpspm_server *g)
{
	const uint32_t n = g->nbox * g->box[0].bufs.nslots;
	char buf[128];
	int ret = rpma_shared_rcq_new(s->peer, n, &g->rcq);

	if (ret)
		return rpmafio_fail(&s->job, EIO, "cannot create a receive CQ of %u entries "
			"(clients_per_job=%u x iodepth=%u): %s", n, g->nbox, s->job.iodepth,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

static struct gpspm_requester requester_of(struct gpspm_server *g, struct rpmafio_hub_client *c,
		size_t part)
{
	return (struct gpspm_requester){&g->box[c->k], c->gen, c->conn, c->base, part, c->name,
		&c->served, &c->bytes};
}

/* before client c is accepted: a receive in each of its buffers, on its request */
static int accepting(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		struct rpma_conn_req *req)
{
	const struct gpspm_msg_bufs *b = &((struct gpspm_server *)s->priv)->box[c->k].bufs;
	int ret = 0;

	for (uint32_t j = 0; j < b->nslots && ret == 0; j++)
		ret = rpma_conn_req_recv(req, b->mr, gpspm_recv_off(b, j), GPSPM_MSG_MAX,
			gpspm_wr_id_gen(GPSPM_WR_RECV, c->gen, j));
	return ret;
}

/*
 * Answer client c's oldest waiting request, if a send buffer of its own is
 * free for it (*took: there was one); a fault of c's cuts it off.
 */
static enum rpmafio_poll_step answer_one(struct rpmafio_server *s, struct gpspm_server *g,
		struct rpmafio_hub_client *c, bool *took)
{
	struct gpspm_server_slots *slots = g->box[c->k].slots;
	uint32_t k, len, out;

	if (!(*took = gpspm_server_slots_next(slots, &k, &len, &out)))
		return RPMAFIO_POLL_GO_ON;
	enum gpspm_request_result r = GPSPM_REQUEST_REFUSED;
	if (c->state == RPMAFIO_HUB_SERVING) {
		const struct gpspm_requester who = requester_of(g, c, s->hub->part);
		r = gpspm_request_serve(s, g, &who, k, len, out);
	}
	switch (r) {
	case GPSPM_REQUEST_ANSWERED:
		return RPMAFIO_POLL_GO_ON;
	case GPSPM_REQUEST_STOPPED:
		return RPMAFIO_POLL_DONE;
	case GPSPM_REQUEST_FAILED:
		return RPMAFIO_POLL_FAILED;
	case GPSPM_REQUEST_LAST:
		rpmafio_hub_client_done(c);
		break;
	case GPSPM_REQUEST_UNSENT:
	case GPSPM_REQUEST_REFUSED: /* (or its client has gone: nothing to answer) */
	default:
		rpmafio_hub_cut_off(s, c);
		break;
	}
	/* the send buffer was not used (nor is the receive buffer again: no more comes) */
	(void) gpspm_server_slots_sent(slots, out);
	return RPMAFIO_POLL_GO_ON;
}

/* a receive of client c's that brought no request: it has gone, or it is cut off */
static void no_request(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		const struct ibv_wc *wc)
{
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		rpmafio_hub_client_failed(s, c, wc->status, "a receive");
	} else if (wc->status != IBV_WC_SUCCESS) {
		rpmafio_fail(&s->job, EPROTO, "rejected a message from client %u (%s): receiving "
			"it failed (%s): is it longer than the %d-byte receive buffer?; "
			"disconnecting", c->k + 1, c->addr, ibv_wc_status_str(wc->status),
			GPSPM_MSG_MAX);
		rpmafio_hub_cut_off(s, c);
	} else {
		rpmafio_fail(&s->job, EPROTO, "rejected a message from client %u (%s): a receive "
			"completed as opcode %d, not by a SEND; disconnecting", c->k + 1, c->addr,
			(int)wc->opcode);
		rpmafio_hub_cut_off(s, c);
	}
}

/* n completions of the receive CQ: each request waits in its client's mailbox */
static enum rpmafio_poll_step take_requests(struct rpmafio_server *s, struct gpspm_server *g,
		const struct ibv_wc *wc, int n)
{
	for (int i = 0; i < n; i++) {
		const uint32_t k = gpspm_wr_index(wc[i].wr_id);
		if ((wc[i].wr_id & GPSPM_WR_TAG_MASK) != GPSPM_WR_RECV ||
				k >= g->box[0].bufs.nslots) {
			rpmafio_fail(&s->job, EIO, "a completion for no receive (opcode %d, wr_id "
				"0x%llx)", (int)wc[i].opcode, (unsigned long long)wc[i].wr_id);
			return RPMAFIO_POLL_FAILED;
		}
		/* none: of a connection dropped before it was established; gone: flushed */
		struct rpmafio_hub_client *c = rpmafio_hub_sender(s, &wc[i],
			gpspm_wr_gen(wc[i].wr_id));
		if (c == NULL || c->state == RPMAFIO_HUB_GONE)
			continue;
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_RECV) {
			no_request(s, c, &wc[i]);
			continue;
		}
		if (gpspm_server_slots_received(g->box[c->k].slots, k, wc[i].byte_len)) {
			rpmafio_fail(&s->job, EIO, "a receive of client %u completed into buffer %u, "
				"which holds a request already", c->k + 1, k);
			return RPMAFIO_POLL_FAILED;
		}
		(void) gpspm_line_join(g->line, c->k);
	}
	return RPMAFIO_POLL_GO_ON;
}

/* what came into the receive CQ meanwhile: requests waiting from now on */
static enum rpmafio_poll_step more_requests(struct rpmafio_server *s, struct gpspm_server *g)
{
	struct ibv_wc wc[RPMAFIO_POLL_BATCH];
	char buf[128];
	int got = 0;
	int ret = rpma_cq_get_wc(g->rcq, RPMAFIO_POLL_BATCH, wc, &got);

	if (ret == RPMA_E_NO_COMPLETION)
		return RPMAFIO_POLL_GO_ON;
	if (ret) {
		rpmafio_fail(&s->job, EIO, "the receive CQ: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return RPMAFIO_POLL_FAILED;
	}
	return take_requests(s, g, wc, got);
}

/* a client's turn ends once its requests of the turn asked for this many bytes */
#define TURN_BYTES ((uint64_t)1 << 20)

/*
 * Client c's turn: its waiting requests in order until they have asked for
 * TURN_BYTES (at least one request). A batch of small writes' requests is
 * served at once, as the client waits for all of them; a request for a whole
 * part ends the turn by itself. *cut: the turn ended on TURN_BYTES, not for
 * want of a request (or of a free send buffer).
 */
static enum rpmafio_poll_step turn(struct rpmafio_server *s, struct gpspm_server *g,
		struct rpmafio_hub_client *c, bool *cut)
{
	const uint64_t start = c->bytes;
	enum rpmafio_poll_step r;
	bool one = false;

	do {
		if ((r = answer_one(s, g, c, &one)))
			return r;
	} while (one && c->bytes - start < TURN_BYTES);
	*cut = one;
	return RPMAFIO_POLL_GO_ON;
}

/*
 * Every waiting request: the clients' turns in the order they got in line (a
 * client whose first request came first is answered first), one with requests
 * left after its turn back at the end of the line. A pass that cut a turn
 * short is followed by the requests that came meanwhile and another pass: a
 * client whose requests are long (flushes of its whole part) keeps another
 * waiting for one of them at a time, not for all it has sent.
 */
static enum rpmafio_poll_step answer(struct rpmafio_server *s, struct gpspm_server *g)
{
	enum rpmafio_poll_step r;

	for (;;) {
		bool cut_any = false;
		unsigned k;
		for (unsigned left = gpspm_line_len(g->line); left > 0 &&
				gpspm_line_next(g->line, &k); left--) {
			bool cut = false;
			if ((r = turn(s, g, &s->hub->clients[k], &cut)))
				return r;
			cut_any = cut_any || cut;
			if (gpspm_server_slots_waiting(g->box[k].slots))
				(void) gpspm_line_join(g->line, k);
		}
		if (!cut_any)
			return RPMAFIO_POLL_GO_ON;
		if ((r = more_requests(s, g)))
			return r;
	}
}

/* the receive CQ: requests of any client */
static enum rpmafio_poll_step recv_wc(struct rpmafio_server *s, const struct ibv_wc *wc, int n)
{
	struct gpspm_server *g = s->priv;
	enum rpmafio_poll_step r = take_requests(s, g, wc, n);

	return r ? r : answer(s, g);
}

/* a client's response sent (or flushed): its buffer free for a waiting request */
static enum rpmafio_poll_step send_wc(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		const struct ibv_wc *wc)
{
	struct gpspm_server *g = s->priv;

	if ((wc->wr_id & GPSPM_WR_TAG_MASK) != GPSPM_WR_SEND ||
			gpspm_server_slots_sent(g->box[c->k].slots, gpspm_wr_index(wc->wr_id))) {
		rpmafio_fail(&s->job, EIO, "a completion for no response (client %u, opcode %d, "
			"wr_id 0x%llx)", c->k + 1, (int)wc->opcode, (unsigned long long)wc->wr_id);
		return RPMAFIO_POLL_FAILED;
	}
	if (wc->status != IBV_WC_SUCCESS)
		rpmafio_hub_client_failed(s, c, wc->status, "a response");
	return answer(s, g);
}

static bool waiting(const struct rpmafio_server *s, const struct rpmafio_hub_client *c)
{
	return gpspm_server_slots_waiting(((const struct gpspm_server *)s->priv)->box[c->k].slots);
}

static const struct rpmafio_hub_ops hub_ops = {
	.accepting = accepting,
	.recv_wc = recv_wc,
	.send_wc = send_wc,
	.waiting = waiting,
};

int gpspm_hub_init(struct rpmafio_server *s)
{
	const int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC;
	struct rpmafio_job *job = &s->job;
	const unsigned clients = job->o->clients_per_job;
	const uint64_t part = job->size;

	if (part == 0 || part > SIZE_MAX / clients)
		return rpmafio_fail(job, EINVAL, "size=%llu with clients_per_job=%u: give each "
			"client's memory size (e.g. size=64m), at most %zu bytes in all",
			(unsigned long long)part, clients, (size_t)SIZE_MAX);
	job->size = part * clients; /* the job's bytes: its clients' side by side */
	if (rpmafio_server_map(s) || gpspm_server_state_new(s, clients) ||
			rpmafio_hub_new(s, part))
		return -1;
	struct gpspm_server *g = s->priv;
	/* each connection: its receives, a response per request and a probe */
	const uint32_t n = job->iodepth;
	const struct rpmafio_queues q = {.sq = n + 1, .rq = n, .cq = n + 1};
	return rpmafio_hub_register(s, usage, (uint16_t)n) || mailboxes_new(s, g) ||
		rcq_new(s, g) || rpmafio_hub_listen(s) ||
		rpmafio_hub_open(s, &q, g->rcq, &hub_ops) ? -1 : 0;
}

int gpspm_hub_serve(struct rpmafio_server *s)
{
	struct gpspm_server *g = s->priv;
	const struct rpmafio_hub *h = s->hub;
	char each[RPMAFIO_CLIENTS_PER_JOB_MAX * 24] = "";
	size_t at = 0;

	int ret = rpmafio_hub_serve(s);
	for (unsigned k = 0; k < h->n; k++) {
		g->served += h->clients[k].served;
		g->bytes += h->clients[k].bytes;
		int w = snprintf(each + at, sizeof(each) - at, "%s%llu", k ? ", " : "",
			(unsigned long long)h->clients[k].served);
		if (w > 0 && (size_t)w < sizeof(each) - at)
			at += (size_t)w;
	}
	rpmafio_note(&s->job, "served %llu flush requests from %u clients on one thread "
		"(each: %s; %llu bytes %s)", (unsigned long long)g->served, h->n, each,
		(unsigned long long)g->bytes, g->persist ? "persisted" :
		"in DRAM: nothing to persist");
	return ret;
}
