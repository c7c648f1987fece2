/* SPDX-License-Identifier: BSD-3-Clause */
/* client.c -- the GPSPM client (see client.h) */
#include <errno.h>
#include <stdlib.h>

#include "client/client.h"
#include "client/io.h"
#include "client.h"
#include "client_slots.h"
#include "common/method.h"
#include "common/report.h"
#include "msg.h"
#include "msg_bufs.h"
#include "wr_id.h"

/* how long a leaving client waits for its last message to be sent */
#define LAST_MSG_WAIT_MS 2000

struct gpspm_client {
	struct gpspm_msg_bufs bufs;	/* send buffers first */
	struct gpspm_slots *slots;
	struct gpspm_ranges rg;		/* the next request's ranges (here: no stack guard) */
	enum gpspm_ranges_form form;	/* how requests carry them */
	uint32_t ranges_max;		/* how many a request carries: 1 = its span only */
};

/*
 * What the server announced: packed ranges (as many as always fit, for values
 * within its memory), fixed ones (GPSPM_RANGES_MAX), or fio 3.33's one span.
 */
static void choose_ranges(struct rpmafio_client *c, struct gpspm_client *g)
{
	g->form = c->ws.packed_ranges ? GPSPM_RANGES_PACKED : GPSPM_RANGES_FIXED;
	g->ranges_max = c->ws.packed_ranges ? gpspm_ranges_packed_max(c->server_size) :
		c->ws.ranged_flush ? GPSPM_RANGES_MAX : 1;
	rpmafio_debug(&c->job, "flush requests carry %u range(s)%s", g->ranges_max,
		g->form == GPSPM_RANGES_PACKED ? ", packed" : "");
}

/* The server must take as many flush requests at once as this job may send. */
static int check_server_takes(struct rpmafio_client *c)
{
	struct rpmafio_job *job = &c->job;

	if (c->ws.max_msg_num == 0)
		return rpmafio_fail(job, EPROTO, "the server at %s:%s takes no flush requests "
			"(max_msg_num 0 in its workspace): is it a GPSPM server? Start it with "
			"jobs/gpspm-server.fio", job->o->serverip, job->port);
	uint32_t need = !job->writes ? 0 : job->sync ? 1 : c->depth;
	if (need > c->ws.max_msg_num)
		return rpmafio_fail(job, EINVAL, "the server at %s:%s takes %u flush requests at "
			"a time (its iodepth) but this job may have %u in flight (iodepth=%u): "
			"raise the server's iodepth (SERVER_IODEPTH) or lower this job's",
			job->o->serverip, job->port, c->ws.max_msg_num, need, c->depth);
	return 0;
}

/*
 * Every I/O is one work request and every batch adds one SEND (at most
 * 2 * iodepth), plus the last message; a receive per slot; the CQ has room
 * for a completion of everything.
 */
int gpspm_client_init(struct rpmafio_client *c)
{
	const uint32_t n = c->depth, sq = rpmafio_sq_size(n) + 1;
	struct rpmafio_queues q = {.sq = sq, .rq = n, .cq = sq + n};
	char buf[128];
	int ret;

	if (c->job.o->native_flush == RPMAFIO_NATIVE_FLUSH_ON)
		return rpmafio_fail(&c->job, EINVAL, "native_flush=1: GPSPM's server persists "
			"the data itself and posts no RDMA FLUSH; the option is for librpma_apm");
	struct gpspm_client *g = calloc(1, sizeof(*g));
	if (g == NULL || gpspm_slots_new(n, n, &g->slots)) {
		free(g);
		return rpmafio_fail(&c->job, ENOMEM, "no memory for %u flush slots", n);
	}
	c->priv = g;
	g->bufs.nslots = n;
	g->bufs.recv_first = n;
	if (rpmafio_client_connect(c, &q) || check_server_takes(c) ||
			gpspm_msg_bufs_new(&c->job, c->peer, &g->bufs))
		return -1;
	choose_ranges(c, g);
	for (uint32_t k = 0; k < n; k++)
		if ((ret = rpma_recv(c->conn, g->bufs.mr, gpspm_recv_off(&g->bufs, k), GPSPM_MSG_MAX,
				gpspm_wr_id(GPSPM_WR_RECV, k))))
			return rpmafio_fail(&c->job, EIO, "cannot post receive %u of %u: %s", k + 1,
				n, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

/*
 * The request's ranges: the batch's own to a server that announced it takes
 * them (up to ranges_max: beyond, the closest merge); to any other (fio
 * 3.33's) the one span its plain request names. One range: a plain request.
 */
static inline void request_ranges(struct gpspm_client *g, struct rpmafio_ranges *rl)
{
	rpmafio_ranges_fit(rl, g->ranges_max);
	g->rg.n = rl->n > 1 ? rl->n : 0;
	for (uint32_t i = 0; i < g->rg.n; i++)
		g->rg.r[i] = (struct gpspm_range){rl->r[i].offset, rl->r[i].len};
}

/* One flush request after the batch's writes; the batch completes with its response. */
inline int rpmafio_method_flush(struct rpmafio_client *c, struct rpmafio_ranges *rl,
	struct rpmafio_io *last)
{
	struct gpspm_client *g = c->priv;
	char buf[128];
	size_t size = 0;
	uint32_t k;
	int ret;

	request_ranges(g, rl);
	const uint64_t offset = rpmafio_ranges_start(rl), len = rpmafio_ranges_span(rl);
	struct gpspm_req req = {.offset = offset, .length = len};
	if (gpspm_slots_next(g->slots, &k, &req.op_context))
		return rpmafio_fail(&c->job, EIO, "all %u flush slots are in use", g->bufs.nslots);
	if (gpspm_req_encode_ranged(&req, &g->rg, g->form, gpspm_send_buf(&g->bufs, k),
			GPSPM_MSG_MAX, &size))
		return rpmafio_fail(&c->job, EIO, "cannot encode a flush request");
	if ((ret = rpma_send(c->conn, g->bufs.mr, gpspm_send_off(&g->bufs, k), size,
			RPMA_F_COMPLETION_ALWAYS, gpspm_wr_id(GPSPM_WR_SEND, k))))
		return rpmafio_fail(&c->job, EIO, "cannot send a flush request of %llu bytes at "
			"offset %llu: %s", (unsigned long long)len, (unsigned long long)offset,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	gpspm_slots_push(g->slots, last);
	return 0;
}

int gpspm_client_signalled(struct rpmafio_client *c, struct rpmafio_io *last)
{
	struct gpspm_client *g = c->priv;
	return gpspm_slots_push_signalled(g->slots, last);
}

/*
 * A response arrived in receive buffer k: what it completes. A response the
 * server should not have sent breaks the connection here (COMPLETES_NOTHING).
 */
static enum rpmafio_completion answered(struct rpmafio_client *c, struct gpspm_client *g,
		uint32_t k, uint32_t len, void **done)
{
	struct rpmafio_job *job = &c->job;
	struct gpspm_resp resp = {0};
	char why[160], buf[128];
	uint64_t head, tail;
	int ret;

	if (k >= g->bufs.nslots)
		return RPMAFIO_COMPLETES_UNKNOWN;
	enum gpspm_msg_status st = gpspm_resp_decode((char *)g->bufs.mem.ptr +
		gpspm_recv_off(&g->bufs, k), len, &resp, why, sizeof(why));
	if ((ret = rpma_recv(c->conn, g->bufs.mr, gpspm_recv_off(&g->bufs, k), GPSPM_MSG_MAX,
			gpspm_wr_id(GPSPM_WR_RECV, k)))) {
		rpmafio_io_break(c, EIO, "cannot post a receive again: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return RPMAFIO_COMPLETES_NOTHING;
	}
	if (st != GPSPM_MSG_OK) {
		rpmafio_io_break(c, EPROTO, "the server at %s:%s sent an invalid message: %s",
			job->o->serverip, job->port, why);
		return RPMAFIO_COMPLETES_NOTHING;
	}
	enum rpmafio_completion r = gpspm_slots_answered(g->slots, resp.op_context, done);
	if (r == RPMAFIO_COMPLETES_UNKNOWN) {
		gpspm_slots_range(g->slots, &head, &tail);
		rpmafio_io_break(c, EPROTO, "the server at %s:%s answered a flush request that "
			"is not in flight (op_context %llu; in flight: %llu-%llu)", job->o->serverip,
			job->port, (unsigned long long)resp.op_context, (unsigned long long)head,
			(unsigned long long)tail);
		return RPMAFIO_COMPLETES_NOTHING;
	}
	return r;
}

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* a receive that fails on a live connection: most likely a message too long for it */
const char *gpspm_client_failure_hint(const struct rpmafio_client *c, const struct ibv_wc *wc)
{
	(void)c;
	if ((wc->wr_id & GPSPM_WR_TAG_MASK) != GPSPM_WR_RECV || wc->status == IBV_WC_WR_FLUSH_ERR)
		return NULL;
	return "receiving the server's message failed: was it longer than the "
		STRINGIFY(GPSPM_MSG_MAX) "-byte receive buffer?";
}

inline enum rpmafio_completion rpmafio_method_completion(struct rpmafio_client *c,
		const struct ibv_wc *wc, struct rpmafio_io **last)
{
	struct gpspm_client *g = c->priv;
	uint64_t id = wc->wr_id;
	void *done = NULL;
	enum rpmafio_completion r;

	switch (id & GPSPM_WR_TAG_MASK) {
	case 0:
		if (wc->opcode != IBV_WC_RDMA_READ && wc->opcode != IBV_WC_RDMA_WRITE)
			return RPMAFIO_COMPLETES_UNKNOWN;
		r = gpspm_slots_io_done(g->slots, (void *)(uintptr_t)id, &done);
		break;
	case GPSPM_WR_SEND:
		if (wc->opcode != IBV_WC_SEND)
			return RPMAFIO_COMPLETES_UNKNOWN;
		r = gpspm_slots_sent(g->slots, gpspm_wr_index(id), &done);
		break;
	case GPSPM_WR_RECV:
		if (wc->opcode != IBV_WC_RECV)
			return RPMAFIO_COMPLETES_UNKNOWN;
		r = answered(c, g, gpspm_wr_index(id), wc->byte_len, &done);
		break;
	default:
		return RPMAFIO_COMPLETES_UNKNOWN;
	}
	if (r == RPMAFIO_COMPLETES_IO)
		*last = done;
	return r;
}

/* the last message's wait: its SEND completed, or anything went wrong */
static enum rpmafio_poll_step last_sent(void *arg, const struct ibv_wc *wc, int n)
{
	(void)arg;
	for (int i = 0; i < n; i++)
		if ((wc[i].wr_id & GPSPM_WR_TAG_MASK) == GPSPM_WR_LAST ||
				wc[i].status != IBV_WC_SUCCESS)
			return RPMAFIO_POLL_DONE;
	return RPMAFIO_POLL_GO_ON;
}

static enum rpmafio_poll_step last_give_up(void *arg)
{
	return rpmafio_now_ms() >= *(const uint64_t *)arg ? RPMAFIO_POLL_DEADLINE :
		RPMAFIO_POLL_GO_ON;
}

static enum rpmafio_poll_step last_any_event(void *arg, enum rpma_conn_event ev)
{
	(void)arg;
	(void)ev;
	return RPMAFIO_POLL_DONE;
}

static enum rpmafio_poll_step last_error(void *arg, const char *call, int ret)
{
	(void)arg;
	(void)call;
	(void)ret;
	return RPMAFIO_POLL_FAILED;
}

static const struct rpmafio_poll_ops last_ops = {
	.wc = last_sent,
	.event = last_any_event,
	.idle = last_give_up,
	.error = last_error,
};

/*
 * Tell the server this client is done (offset 0, length 0: no answer comes)
 * and wait a little for the SEND to complete, so that it is not lost when
 * the connection closes.
 */
static void send_last(struct rpmafio_client *c, struct gpspm_client *g)
{
	struct gpspm_req last = gpspm_req_last();
	size_t size = 0;
	uint32_t k;

	/* flushes still in flight: the connection failed, nothing to tell */
	if (!gpspm_slots_idle(g->slots) || gpspm_slots_next(g->slots, &k, &last.op_context))
		return;
	if (gpspm_req_encode(&last, gpspm_send_buf(&g->bufs, k), GPSPM_MSG_MAX, &size) ||
			rpma_send(c->conn, g->bufs.mr, gpspm_send_off(&g->bufs, k), size,
				RPMA_F_COMPLETION_ALWAYS, gpspm_wr_id(GPSPM_WR_LAST, 0)))
		return;
	uint64_t deadline = rpmafio_now_ms() + LAST_MSG_WAIT_MS;
	(void) rpmafio_poll_run(&c->poll, &last_ops, &deadline);
}

void gpspm_client_finish(struct rpmafio_client *c)
{
	struct gpspm_client *g = c->priv;
	if (g && g->bufs.mr)
		send_last(c, g);
}

void gpspm_client_cleanup(struct rpmafio_client *c)
{
	struct gpspm_client *g = c->priv;
	if (g == NULL)
		return;
	gpspm_msg_bufs_delete(&c->job, &g->bufs);
	gpspm_slots_delete(&g->slots);
	free(g);
	c->priv = NULL;
}
