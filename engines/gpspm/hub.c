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

/* the shared receive queue of every client's requests, a receive posted in each buffer */
static int srq_new(struct rpmafio_server *s, struct gpspm_server *g)
{
	struct rpma_srq_cfg *cfg = NULL;
	char buf[128];
	int ret;

	if ((ret = rpma_srq_cfg_new(&cfg)) == 0 &&
			(ret = rpma_srq_cfg_set_rq_size(cfg, g->bufs.nslots)) == 0 &&
			(ret = rpma_srq_cfg_set_rcq_size(cfg, g->bufs.nslots)) == 0)
		ret = rpma_srq_new(s->peer, cfg, &g->srq);
	(void) rpma_srq_cfg_delete(&cfg);
	if (ret)
		return rpmafio_fail(&s->job, EIO, "cannot create a shared receive queue of %u "
			"receives (clients_per_job=%u x iodepth=%u): %s", g->bufs.nslots,
			s->job.o->clients_per_job, s->job.iodepth,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	for (uint32_t k = 0; k < g->bufs.nslots; k++)
		if (gpspm_recv_again(s, g, NULL, k))
			return -1;
	return 0;
}

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
	/* each connection: a response per request and a probe; its receives are the SRQ's */
	const uint32_t n = job->iodepth;
	const struct rpmafio_queues q = {.sq = n + 1, .cq = n + 1};
	g->bufs.recv_first = 0;
	return rpmafio_hub_register(s, usage, (uint16_t)n) ||
		gpspm_msg_bufs_new(job, s->peer, &g->bufs) || srq_new(s, g) ||
		rpmafio_hub_listen(s) || rpmafio_hub_open(s, &q, g->srq) ? -1 : 0;
}

/* "client 2 (192.168.1.2, port 7205)" */
static struct gpspm_requester requester_of(struct rpmafio_hub_client *c, size_t part,
		char *name, size_t len)
{
	snprintf(name, len, "client %u (%s, port %s)", c->k + 1, c->addr, c->port);
	return (struct gpspm_requester){c->conn, c->base, part, name, &c->served, &c->bytes};
}

/* answer the waiting requests a send buffer is free for; a client's fault cuts it off */
static enum rpmafio_poll_step answer(struct rpmafio_server *s, struct gpspm_server *g)
{
	char name[RPMAFIO_ADDR_STR_LEN + 48];
	uint32_t k, len, out;

	while (gpspm_server_slots_next(g->slots, &k, &len, &out)) {
		struct rpmafio_hub_client *c = &s->hub->clients[g->from[k]];
		enum gpspm_request_result r = GPSPM_REQUEST_REFUSED;
		if (c->state == RPMAFIO_HUB_SERVING) {
			const struct gpspm_requester who = requester_of(c, s->hub->part, name,
				sizeof(name));
			r = gpspm_request_serve(s, g, &who, k, len, out);
		}
		switch (r) {
		case GPSPM_REQUEST_ANSWERED:
			continue;
		case GPSPM_REQUEST_STOPPED:
			return RPMAFIO_POLL_DONE;
		case GPSPM_REQUEST_FAILED:
			return RPMAFIO_POLL_FAILED;
		case GPSPM_REQUEST_LAST:
			rpmafio_hub_client_done(c);
			break;
		case GPSPM_REQUEST_UNSENT:
			rpmafio_hub_cut_off(s, c);
			(void) gpspm_server_slots_sent(g->slots, out);
			continue; /* (received again already) */
		case GPSPM_REQUEST_REFUSED: /* (or its client has gone: nothing to answer) */
		default:
			rpmafio_hub_cut_off(s, c);
			break;
		}
		/* neither buffer was used: both back */
		(void) gpspm_server_slots_sent(g->slots, out);
		if (gpspm_recv_again(s, g, NULL, k))
			return RPMAFIO_POLL_FAILED;
	}
	return RPMAFIO_POLL_GO_ON;
}

/* a receive of the shared queue that brought no request: why, and its buffer back */
static enum rpmafio_poll_step no_request(struct rpmafio_server *s, struct gpspm_server *g,
		struct rpmafio_hub_client *c, const struct ibv_wc *wc, uint32_t k)
{
	if (c && wc->status == IBV_WC_WR_FLUSH_ERR) {
		rpmafio_hub_client_failed(s, c, wc->status, "a receive");
	} else if (c && wc->status != IBV_WC_SUCCESS) {
		rpmafio_fail(&s->job, EPROTO, "rejected a message from client %u (%s): receiving "
			"it failed (%s): is it longer than the %d-byte receive buffer?; "
			"disconnecting", c->k + 1, c->addr, ibv_wc_status_str(wc->status),
			GPSPM_MSG_MAX);
		rpmafio_hub_cut_off(s, c);
	} else if (c) {
		rpmafio_fail(&s->job, EPROTO, "rejected a message from client %u (%s): a receive "
			"completed as opcode %d, not by a SEND; disconnecting", c->k + 1, c->addr,
			(int)wc->opcode);
		rpmafio_hub_cut_off(s, c);
	}
	return gpspm_recv_again(s, g, NULL, k) ? RPMAFIO_POLL_FAILED : RPMAFIO_POLL_GO_ON;
}

/* the shared receive CQ: requests of any client */
static enum rpmafio_poll_step recv_wc(struct rpmafio_server *s, const struct ibv_wc *wc, int n)
{
	struct gpspm_server *g = s->priv;

	for (int i = 0; i < n; i++) {
		const uint32_t k = gpspm_wr_index(wc[i].wr_id);
		struct rpmafio_hub_client *c = rpmafio_hub_sender(s, &wc[i]);
		if ((wc[i].wr_id & GPSPM_WR_TAG_MASK) != GPSPM_WR_RECV || k >= g->bufs.nslots) {
			rpmafio_fail(&s->job, EIO, "a completion for no receive (opcode %d, wr_id "
				"0x%llx)", (int)wc[i].opcode, (unsigned long long)wc[i].wr_id);
			return RPMAFIO_POLL_FAILED;
		}
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_RECV || c == NULL ||
				c->state == RPMAFIO_HUB_GONE) {
			if (no_request(s, g, c && c->state != RPMAFIO_HUB_GONE ? c : NULL, &wc[i], k))
				return RPMAFIO_POLL_FAILED;
			continue;
		}
		if (gpspm_server_slots_received(g->slots, k, wc[i].byte_len)) {
			rpmafio_fail(&s->job, EIO, "a receive completed into buffer %u, which holds a "
				"request already", k);
			return RPMAFIO_POLL_FAILED;
		}
		g->from[k] = c->k;
	}
	return answer(s, g);
}

/* a client's response sent (or flushed): its buffer free for a waiting request */
static enum rpmafio_poll_step send_wc(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		const struct ibv_wc *wc)
{
	struct gpspm_server *g = s->priv;

	if ((wc->wr_id & GPSPM_WR_TAG_MASK) != GPSPM_WR_SEND ||
			gpspm_server_slots_sent(g->slots, gpspm_wr_index(wc->wr_id))) {
		rpmafio_fail(&s->job, EIO, "a completion for no response (client %u, opcode %d, "
			"wr_id 0x%llx)", c->k + 1, (int)wc->opcode, (unsigned long long)wc->wr_id);
		return RPMAFIO_POLL_FAILED;
	}
	if (wc->status != IBV_WC_SUCCESS)
		rpmafio_hub_client_failed(s, c, wc->status, "a response");
	return answer(s, g);
}

static bool waiting(const struct rpmafio_server *s)
{
	return gpspm_server_slots_waiting(((const struct gpspm_server *)s->priv)->slots);
}

static const struct rpmafio_hub_ops hub_ops = {
	.recv_wc = recv_wc,
	.send_wc = send_wc,
	.waiting = waiting,
};

int gpspm_hub_serve(struct rpmafio_server *s)
{
	struct gpspm_server *g = s->priv;
	const struct rpmafio_hub *h = s->hub;
	struct rpma_cq *rcq = NULL;
	char each[RPMAFIO_CLIENTS_PER_JOB_MAX * 24] = "";
	size_t at = 0;

	(void) rpma_srq_get_rcq(g->srq, &rcq);
	int ret = rpmafio_hub_serve(s, rcq, &hub_ops);
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
