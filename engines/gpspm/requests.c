/* SPDX-License-Identifier: BSD-3-Clause */
/* requests.c -- the GPSPM server's side of a flush request (see requests.h) */
#include <errno.h>
#include <stdlib.h>

#include "common/report.h"
#include "msg.h"
#include "requests.h"
#include "wr_id.h"

/*
 * max_msg_num = iodepth (at most 65535: the workspace has 16 bits for it), a
 * receive and a send buffer per request of each of the job's clients
 */
#define GPSPM_SERVER_BUFS_MAX (1u << 20)

int gpspm_server_state_new(struct rpmafio_server *s, unsigned clients)
{
	unsigned n = s->job.iodepth;

	if (n == 0 || n > UINT16_MAX)
		return rpmafio_fail(&s->job, EINVAL, "iodepth=%u: a GPSPM server takes 1-%u flush "
			"requests at a time", n, UINT16_MAX);
	if ((uint64_t)n * clients > GPSPM_SERVER_BUFS_MAX)
		return rpmafio_fail(&s->job, EINVAL, "iodepth=%u with clients_per_job=%u: %llu "
			"message slots, more than the %u one job takes", n, clients,
			(unsigned long long)n * clients, GPSPM_SERVER_BUFS_MAX);
	struct gpspm_server *g = calloc(1, sizeof(*g));
	if (g == NULL || (g->box = calloc(clients, sizeof(*g->box))) == NULL) {
		free(g);
		return rpmafio_fail(&s->job, ENOMEM, "no memory for %u clients' messages", clients);
	}
	s->priv = g;
	g->nbox = clients;
	if (clients > 1 && gpspm_line_new(clients, &g->line))
		return rpmafio_fail(&s->job, ENOMEM, "no memory for %u clients' messages", clients);
	for (unsigned c = 0; c < clients; c++) {
		if (gpspm_server_slots_new(n, &g->box[c].slots))
			return rpmafio_fail(&s->job, ENOMEM, "no memory for %u message slots", n);
		g->box[c].bufs.nslots = n;
		g->box[c].bufs.recv_first = 0;
	}
	/* libpmem2 knows how: cache flushes for PMem, msync for a page-granular file */
	g->persist = s->mem.map ? pmem2_get_persist_fn(s->mem.map) : NULL;
	return 0;
}

void gpspm_server_state_delete(struct rpmafio_server *s)
{
	struct gpspm_server *g = s->priv;
	if (g == NULL)
		return;
	/* (the connections are gone: no queue pair completes on the receive CQ) */
	(void) rpma_shared_rcq_delete(&g->rcq);
	for (unsigned c = 0; c < g->nbox; c++) {
		gpspm_msg_bufs_delete(&s->job, &g->box[c].bufs);
		gpspm_server_slots_delete(&g->box[c].slots);
	}
	free(g->box);
	gpspm_line_delete(&g->line);
	free(g);
	s->priv = NULL;
}

/*
 * A request may ask to persist the whole region: gigabytes of cache lines,
 * seconds of work. Persisting it in pieces lets a stop of fio (Ctrl-C) be seen
 * between them. false: fio stops the job (the rest is not persisted).
 */
#define PERSIST_PIECE ((size_t)64 << 20)

static bool persist_range(struct rpmafio_server *s, const struct gpspm_server *g, char *p,
		uint64_t len)
{
	while (len > 0) {
		size_t n = len < PERSIST_PIECE ? (size_t)len : PERSIST_PIECE;
		g->persist(p, n);
		p += n;
		len -= n;
		if (len > 0 && rpmafio_stopping(&s->job))
			return false;
	}
	return true;
}

/*
 * Persist what a checked request asks: each of its ranges, or its span when
 * it has none (fio 3.33's client). false: fio stops the job.
 */
static bool persist_request(struct rpmafio_server *s, const struct gpspm_server *g,
		const struct gpspm_requester *who, const struct gpspm_req *req,
		const struct gpspm_ranges *rg)
{
	if (g->persist == NULL)
		return true;
	if (rg->n == 0)
		return req->length == 0 || persist_range(s, g, who->base + req->offset, req->length);
	for (uint32_t i = 0; i < rg->n; i++)
		if (!persist_range(s, g, who->base + rg->r[i].offset, rg->r[i].length))
			return false;
	return true;
}

int gpspm_recv_again(struct rpmafio_server *s, const struct gpspm_requester *who, uint32_t k)
{
	const struct gpspm_msg_bufs *b = &who->box->bufs;
	char buf[128];
	int ret = rpma_recv(who->conn, b->mr, gpspm_recv_off(b, k), GPSPM_MSG_MAX,
		gpspm_wr_id_gen(GPSPM_WR_RECV, who->gen, k));
	if (ret)
		return rpmafio_fail(&s->job, EIO, "cannot post a receive again: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

enum gpspm_request_result gpspm_request_serve(struct rpmafio_server *s, struct gpspm_server *g,
		const struct gpspm_requester *who, uint32_t k, uint32_t len, uint32_t out)
{
	struct rpmafio_job *job = &s->job;
	const struct gpspm_msg_bufs *b = &who->box->bufs;
	struct gpspm_req req;
	struct gpspm_ranges rg;	/* a request of our client's: the batch's ranges */
	char why[160], buf[128];
	size_t size = 0;
	int ret;

	switch (gpspm_req_check((char *)b->mem.ptr + gpspm_recv_off(b, k), len,
			who->size, &req, &rg, why, sizeof(why))) {
	case GPSPM_REQ_FLUSH:
		break;
	case GPSPM_REQ_LAST:
		return GPSPM_REQUEST_LAST;
	case GPSPM_REQ_OUT_OF_RANGE:
		rpmafio_fail(job, EPROTO, "rejected a flush request from %s: %s; "
			"disconnecting", who->name, why);
		return GPSPM_REQUEST_REFUSED;
	case GPSPM_REQ_MALFORMED:
	default:
		rpmafio_fail(job, EPROTO, "rejected a message from %s: %s; "
			"disconnecting", who->name, why);
		return GPSPM_REQUEST_REFUSED;
	}
	if (!persist_request(s, g, who, &req, &rg)) {
		rpmafio_note(job, "stopped while persisting a flush request of %llu bytes: it "
			"is not answered", (unsigned long long)gpspm_req_bytes(&req, &rg));
		return GPSPM_REQUEST_STOPPED;
	}
	(*who->served)++;
	*who->bytes += gpspm_req_bytes(&req, &rg);

	if (gpspm_recv_again(s, who, k))
		return GPSPM_REQUEST_FAILED;
	struct gpspm_resp resp = {req.op_context};
	if (gpspm_resp_encode(&resp, gpspm_send_buf(b, out), GPSPM_MSG_MAX, &size)) {
		rpmafio_fail(job, EIO, "cannot encode a flush response");
		return GPSPM_REQUEST_FAILED;
	}
	if ((ret = rpma_send(who->conn, b->mr, gpspm_send_off(b, out), size,
			RPMA_F_COMPLETION_ALWAYS, gpspm_wr_id(GPSPM_WR_SEND, out)))) {
		rpmafio_fail(job, EIO, "cannot send a flush response to %s: %s", who->name,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return GPSPM_REQUEST_UNSENT;
	}
	return GPSPM_REQUEST_ANSWERED;
}
