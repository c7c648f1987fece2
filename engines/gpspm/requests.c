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
	n *= clients;
	struct gpspm_server *g = calloc(1, sizeof(*g));
	if (g == NULL)
		return rpmafio_fail(&s->job, ENOMEM, "no memory for %u message slots", n);
	s->priv = g;
	if (gpspm_server_slots_new(n, &g->slots) ||
			(clients > 1 && (g->from = calloc(n, sizeof(*g->from))) == NULL))
		return rpmafio_fail(&s->job, ENOMEM, "no memory for %u message slots", n);
	g->bufs.nslots = n;
	/* libpmem2 knows how: cache flushes for PMem, msync for a page-granular file */
	g->persist = s->mem.map ? pmem2_get_persist_fn(s->mem.map) : NULL;
	return 0;
}

void gpspm_server_state_delete(struct rpmafio_server *s)
{
	struct gpspm_server *g = s->priv;
	if (g == NULL)
		return;
	/* (the connections are gone: no queue pair uses the shared receive queue) */
	if (g->srq)
		(void) rpma_srq_delete(&g->srq);
	gpspm_msg_bufs_delete(&s->job, &g->bufs);
	gpspm_server_slots_delete(&g->slots);
	free(g->from);
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

int gpspm_recv_again(struct rpmafio_server *s, const struct gpspm_server *g,
		struct rpma_conn *conn, uint32_t k)
{
	char buf[128];
	int ret = g->srq ?
		rpma_srq_recv(g->srq, g->bufs.mr, gpspm_recv_off(&g->bufs, k), GPSPM_MSG_MAX,
			gpspm_wr_id(GPSPM_WR_RECV, k)) :
		rpma_recv(conn, g->bufs.mr, gpspm_recv_off(&g->bufs, k), GPSPM_MSG_MAX,
			gpspm_wr_id(GPSPM_WR_RECV, k));
	if (ret)
		return rpmafio_fail(&s->job, EIO, "cannot post a receive again: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

enum gpspm_request_result gpspm_request_serve(struct rpmafio_server *s, struct gpspm_server *g,
		const struct gpspm_requester *who, uint32_t k, uint32_t len, uint32_t out)
{
	struct rpmafio_job *job = &s->job;
	struct gpspm_req req;
	struct gpspm_ranges rg;	/* a request of our client's: the batch's ranges */
	char why[160], buf[128];
	size_t size = 0;
	int ret;

	switch (gpspm_req_check((char *)g->bufs.mem.ptr + gpspm_recv_off(&g->bufs, k), len,
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

	if (gpspm_recv_again(s, g, who->conn, k))
		return GPSPM_REQUEST_FAILED;
	struct gpspm_resp resp = {req.op_context};
	if (gpspm_resp_encode(&resp, gpspm_send_buf(&g->bufs, out), GPSPM_MSG_MAX, &size)) {
		rpmafio_fail(job, EIO, "cannot encode a flush response");
		return GPSPM_REQUEST_FAILED;
	}
	if ((ret = rpma_send(who->conn, g->bufs.mr, gpspm_send_off(&g->bufs, out), size,
			RPMA_F_COMPLETION_ALWAYS, gpspm_wr_id(GPSPM_WR_SEND, out)))) {
		rpmafio_fail(job, EIO, "cannot send a flush response to %s: %s", who->name,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return GPSPM_REQUEST_UNSENT;
	}
	return GPSPM_REQUEST_ANSWERED;
}
