/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librpma_gpspm.c -- fio engine for the General Purpose Server Persistency
 * Method (GPSPM).
 *
 * The client writes to the server's memory with RDMA writes, then asks the
 * server to make them persistent: it SENDs a flush request (offset, length,
 * op_context: engines/common/gpspm_flush.proto) after the writes, and the
 * server, which receives it only once those writes are placed (an RC
 * connection delivers in order), persists the range with libpmem2 and SENDs
 * back a response carrying the same op_context. Reads are plain RDMA reads.
 * The messages are those of fio 3.33's librpma_gpspm engines: either side
 * works with theirs.
 *
 *   fio jobs/gpspm-server.fio                                         # server
 *   fio --ioengine=external:build/librpma_gpspm.so jobs/randwrite.fio  # client
 *
 * Everything but the GPSPM specifics lives in engines/common/ (see engine.h).
 *
 * Client. Every batch of writes (one write with sync=1) gets ONE flush
 * request covering the span of its writes (io.c decides the span). A batch is
 * complete when both the SEND of its request and the server's response have
 * completed: the SEND completion frees the send queue entries of the batch,
 * the response says the data is persistent. Flush requests use message slots
 * in order (slot = sequence number % slots) and carry their sequence number
 * as op_context, so a response is matched to its request -- and checked: a
 * response naming no request in flight breaks the connection. Receive
 * buffers are separate from the slots: a response may land in any of them,
 * and each is posted again as soon as its response is read. A read batch
 * completes with its last read, but an RDMA read's completion says nothing
 * about persistence: when flushes posted before it are still unanswered, its
 * completion is held back until they are (io.c completes in posting order).
 * When the job ends the client sends the "last message" (offset 0, length 0)
 * that tells the server it is done.
 *
 * Server. It registers the job's memory (engine.c, mem.c) and a message
 * buffer, posts max_msg_num = iodepth receives before accepting (the number
 * it advertises in the workspace), and serves: each request is validated
 * (gpspm_msg.c: a malformed, truncated or unknown message, or a range outside
 * the workspace, ends the connection with the reason logged; nothing outside
 * the workspace is ever touched), persisted (libpmem2's persist function of
 * the mapping: CPU cache flushes for PMem, msync for a plain file; nothing
 * for DRAM), its receive posted again and a response sent. Requests wait in
 * a queue while every send buffer is in flight. It serves until the client
 * sends its last message or disconnects, and then ends the job.
 */
#include <errno.h>
#include <libpmem2.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conn.h"
#include "common/engine.h"
#include "common/gpspm_msg.h"
#include "common/io.h"

#define NAME "librpma_gpspm"

/*
 * Work request ids of the messages: a tag in bits 62-63 and an index.
 * The client's reads carry their io_u instead, a user-space address whose
 * two top bits are clear.
 */
#define WR_TAG_MASK (3ULL << 62)
#define WR_SEND (1ULL << 62)
#define WR_RECV (2ULL << 62)
#define WR_LAST (3ULL << 62)

static inline const void *wr_id(uint64_t tag, uint32_t index)
{
	return (const void *)(uintptr_t)(tag | index);
}

static inline uint32_t wr_index(uint64_t id)
{
	return (uint32_t)(id & 0xffffffffULL);
}

/* completions taken from a CQ at once */
#define WC_BATCH 16
/* busy polling: look at the connection's events every this many empty polls */
#define SPIN_CHECK 4096
/* completion-channel waits: the longest single sleep, to notice fio stopping */
#define WAIT_SLICE_MS 100
/* how long a leaving client waits for its last message to be sent */
#define LAST_MSG_WAIT_MS 2000

/* a message buffer (page-aligned, registered for SEND and RECV) */
static int msg_buf_new(struct rpma_peer *peer, size_t size, char **buf,
		struct rpma_mr_local **mr, int *rpma_ret)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = NULL;
	*rpma_ret = 0;
	if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, size))
		return -1;
	memset(p, 0, size);
	int ret = rpma_mr_reg(peer, p, size, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, mr);
	if (ret) {
		*rpma_ret = ret;
		free(p);
		return -1;
	}
	*buf = p;
	return 0;
}

/* ======================= client ======================= */

/* one flush request in flight */
struct flush_slot {
	uint64_t seq;		/* its op_context */
	struct io_u *last;	/* the last io_u of its batch */
	bool sent;		/* its SEND completed */
	bool answered;		/* the server's response arrived */
};

struct gpspm_client {
	char *buf;		/* nslots send buffers, then nslots receive buffers */
	struct rpma_mr_local *mr;
	uint32_t nslots;	/* iodepth: at most one flush per io_u in flight */
	struct flush_slot *slot;
	/* sequence numbers: head <= sent <= tail */
	uint64_t head;		/* the oldest flush not complete */
	uint64_t sent;		/* flushes whose SEND completed (they complete in order) */
	uint64_t tail;		/* the next flush */
	/* a read whose completion waits for the flushes posted before it */
	struct io_u *held;
	uint64_t held_gate;	/* ... i.e. until head reaches this */
};

static inline size_t client_send_off(const struct gpspm_client *g, uint32_t k)
{
	(void)g;
	return (size_t)k * GPSPM_MSG_MAX;
}

static inline size_t client_recv_off(const struct gpspm_client *g, uint32_t k)
{
	return ((size_t)g->nslots + k) * GPSPM_MSG_MAX;
}

static void client_free(struct rpmafio_client *c)
{
	struct gpspm_client *g = c->priv;
	if (g == NULL)
		return;
	(void) rpma_mr_dereg(&g->mr);
	free(g->buf);
	free(g->slot);
	free(g);
	c->priv = NULL;
}

/*
 * Queue sizes: every I/O is one work request and every batch adds one SEND
 * (at most 2 * iodepth), plus the last message; one receive per slot; the CQ
 * has room for a completion of everything.
 */
static int gpspm_client_conn_cfg(struct rpmafio_job *job, struct rpma_conn_cfg *cfg)
{
	struct rpmafio_client *c = &job->client;
	uint32_t n = c->depth;
	uint32_t sq = rpmafio_sq_size(n) + 1;
	char buf[128];
	int ret;

	struct gpspm_client *g = calloc(1, sizeof(*g));
	if (g == NULL || (g->slot = calloc(n, sizeof(*g->slot))) == NULL) {
		free(g);
		return rpmafio_fail(job, ENOMEM, "no memory for %u flush slots", n);
	}
	g->nslots = n;
	c->priv = g;
	if ((ret = rpma_conn_cfg_set_sq_size(cfg, sq)) ||
			(ret = rpma_conn_cfg_set_rq_size(cfg, n)) ||
			(ret = rpma_conn_cfg_set_cq_size(cfg, sq + n)))
		return rpmafio_fail(job, EINVAL, "queue sizes for iodepth=%u: %s", n,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

/* The server must take as many flush requests at once as this job may send. */
static int gpspm_client_connected(struct rpmafio_job *job)
{
	struct thread_data *td = job->td;
	struct rpmafio_client *c = &job->client;
	struct gpspm_client *g = c->priv;
	char buf[128];
	int ret;

	if (c->ws.max_msg_num == 0)
		return rpmafio_fail(job, EPROTO, "the server at %s:%s takes no flush requests "
			"(max_msg_num 0 in its workspace): is it a GPSPM server? Start it with "
			"jobs/gpspm-server.fio", job->o->serverip, job->port);
	uint32_t need = !td_write(td) ? 0 : td->o.sync_io ? 1 : c->depth;
	if (need > c->ws.max_msg_num)
		return rpmafio_fail(job, EINVAL, "the server at %s:%s takes %u flush requests at "
			"a time (its iodepth) but this job may have %u in flight (iodepth=%u): "
			"raise the server's iodepth (SERVER_IODEPTH) or lower this job's",
			job->o->serverip, job->port, c->ws.max_msg_num, need, c->depth);

	size_t size = 2 * (size_t)g->nslots * GPSPM_MSG_MAX;
	if (msg_buf_new(c->peer, size, &g->buf, &g->mr, &ret))
		return rpmafio_fail(job, ret ? EIO : ENOMEM, "cannot set up %zu bytes of message "
			"buffers: %s", size, ret ? rpmafio_rpma_err(ret, buf, sizeof(buf)) :
			"out of memory");
	for (uint32_t k = 0; k < g->nslots; k++)
		if ((ret = rpma_recv(c->conn, g->mr, client_recv_off(g, k), GPSPM_MSG_MAX,
				wr_id(WR_RECV, k))))
			return rpmafio_fail(job, EIO, "cannot post receive %u of %u: %s", k + 1,
				g->nslots, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

/* One flush request after the batch's writes; the batch completes with its response. */
static int gpspm_flush(struct rpmafio_job *job, uint64_t offset, uint64_t len, struct io_u *last)
{
	struct rpmafio_client *c = &job->client;
	struct gpspm_client *g = c->priv;
	char buf[128];
	size_t size = 0;
	int ret;

	if (g->tail - g->head >= g->nslots)
		return rpmafio_fail(job, EIO, "all %u flush slots are in use", g->nslots);
	uint32_t k = (uint32_t)(g->tail % g->nslots);
	struct flush_slot *s = &g->slot[k];
	struct gpspm_req req = {offset, len, g->tail};
	if (gpspm_req_encode(&req, g->buf + client_send_off(g, k), GPSPM_MSG_MAX, &size))
		return rpmafio_fail(job, EIO, "cannot encode a flush request");
	*s = (struct flush_slot){.seq = g->tail, .last = last};
	if ((ret = rpma_send(c->conn, g->mr, client_send_off(g, k), size,
			RPMA_F_COMPLETION_ALWAYS, wr_id(WR_SEND, k))))
		return rpmafio_fail(job, EIO, "cannot send a flush request of %llu bytes at offset "
			"%llu: %s", (unsigned long long)len, (unsigned long long)offset,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	g->tail++;
	return 0;
}

/*
 * Retire the complete flushes at the head (in order) and release a held read
 * once every flush before it is complete. Sets *last to the latest io_u that
 * is now complete and returns 1, or returns 0.
 */
static int client_advance(struct gpspm_client *g, struct io_u **last)
{
	struct io_u *done = NULL;
	uint64_t done_seq = 0;

	while (g->head != g->tail) {
		struct flush_slot *s = &g->slot[g->head % g->nslots];
		if (!s->sent || !s->answered)
			break;
		done = s->last;
		done_seq = s->seq;
		s->last = NULL;
		g->head++;
	}
	if (g->held && g->head >= g->held_gate) {
		/* the read came after the flushes before the gate, before those from it on */
		if (done == NULL || done_seq < g->held_gate)
			done = g->held;
		g->held = NULL;
	}
	if (done == NULL)
		return 0;
	*last = done;
	return 1;
}

/* a signalled read (or write) completed: io_u and everything posted before it are done */
static inline int client_io_done(struct gpspm_client *g, struct io_u *io_u, struct io_u **last)
{
	/*
	 * Completions of one send queue come in posting order: the flushes whose
	 * SEND has completed were posted before this read, the others after it.
	 */
	if (g->head == g->sent) {
		*last = io_u;
		return 1;
	}
	g->held = io_u;
	g->held_gate = g->sent;
	return 0;
}

static inline int client_sent(struct gpspm_client *g, uint32_t k, struct io_u **last)
{
	if (g->sent == g->tail || k != g->sent % g->nslots)
		return -1; /* SENDs complete in order: this cannot be */
	g->slot[k].sent = true;
	g->sent++;
	return client_advance(g, last);
}

/* a response arrived in receive buffer k */
static int client_answered(struct rpmafio_job *job, struct gpspm_client *g, uint32_t k,
		uint32_t len, struct io_u **last)
{
	struct rpmafio_client *c = &job->client;
	struct gpspm_resp resp;
	char why[160], buf[128];
	int ret;

	if (k >= g->nslots)
		return -1;
	enum gpspm_msg_status st = gpspm_resp_decode(g->buf + client_recv_off(g, k), len, &resp,
		why, sizeof(why));
	if ((ret = rpma_recv(c->conn, g->mr, client_recv_off(g, k), GPSPM_MSG_MAX,
			wr_id(WR_RECV, k)))) {
		rpmafio_io_break(job, EIO, "cannot post a receive again: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return 0;
	}
	if (st != GPSPM_MSG_OK) {
		rpmafio_io_break(job, EPROTO, "the server at %s:%s sent an invalid message: %s",
			job->o->serverip, job->port, why);
		return 0;
	}
	uint64_t seq = resp.op_context;
	struct flush_slot *s = &g->slot[seq % g->nslots];
	if (seq < g->head || seq >= g->tail || s->seq != seq || s->answered) {
		rpmafio_io_break(job, EPROTO, "the server at %s:%s answered a flush request that "
			"is not in flight (op_context %llu; in flight: %llu-%llu)", job->o->serverip,
			job->port, (unsigned long long)seq, (unsigned long long)g->head,
			(unsigned long long)g->tail);
		return 0;
	}
	s->answered = true;
	return client_advance(g, last);
}

static int gpspm_completion(struct rpmafio_job *job, const struct ibv_wc *wc, struct io_u **last)
{
	struct gpspm_client *g = job->client.priv;
	uint64_t id = wc->wr_id;

	switch (id & WR_TAG_MASK) {
	case 0:
		if (wc->opcode != IBV_WC_RDMA_READ && wc->opcode != IBV_WC_RDMA_WRITE)
			return -1;
		return client_io_done(g, (struct io_u *)(uintptr_t)id, last);
	case WR_SEND:
		return wc->opcode == IBV_WC_SEND ? client_sent(g, wr_index(id), last) : -1;
	case WR_RECV:
		if (wc->opcode != IBV_WC_RECV)
			return -1;
		return client_answered(job, g, wr_index(id), wc->byte_len, last);
	default:
		return -1;
	}
}

/*
 * Tell the server this client is done (offset 0, length 0: no answer comes)
 * and wait a little for the SEND to complete, so that it is not lost when
 * the connection closes.
 */
static void client_send_last(struct rpmafio_job *job, struct gpspm_client *g)
{
	struct rpmafio_client *c = &job->client;
	struct gpspm_req last = gpspm_req_last();
	struct ibv_wc wc[WC_BATCH];
	size_t size = 0;

	if (g->head != g->tail)
		return; /* flushes still in flight: the connection failed, nothing to tell */
	uint32_t k = (uint32_t)(g->tail % g->nslots);
	if (gpspm_req_encode(&last, g->buf + client_send_off(g, k), GPSPM_MSG_MAX, &size) ||
			rpma_send(c->conn, g->mr, client_send_off(g, k), size,
				RPMA_F_COMPLETION_ALWAYS, wr_id(WR_LAST, 0)))
		return;
	uint64_t deadline = rpmafio_now_ms() + LAST_MSG_WAIT_MS;
	while (rpmafio_now_ms() < deadline) {
		int got = 0;
		int ret = rpma_cq_get_wc(c->cq, WC_BATCH, wc, &got);
		if (ret == RPMA_E_NO_COMPLETION) {
			usleep(50);
			continue;
		}
		if (ret)
			return;
		for (int i = 0; i < got; i++)
			if ((wc[i].wr_id & WR_TAG_MASK) == WR_LAST || wc[i].status != IBV_WC_SUCCESS)
				return;
	}
}

static void gpspm_client_cleanup(struct rpmafio_job *job)
{
	struct rpmafio_client *c = &job->client;
	struct gpspm_client *g = c->priv;

	if (g && g->mr && c->conn && !c->broken)
		client_send_last(job, g);
	client_free(c);
}

/* ======================= server ======================= */

typedef void (*persist_fn)(const void *ptr, size_t size);

struct request {
	uint32_t index;		/* the receive buffer */
	uint32_t len;		/* bytes received */
};

struct gpspm_server {
	char *buf;		/* nslots receive buffers, then nslots send buffers */
	struct rpma_mr_local *mr;
	uint32_t nslots;	/* max_msg_num */
	uint32_t *free_send;	/* a stack of the send buffers not in flight */
	uint32_t nfree;
	struct request *queue;	/* requests received, waiting for a send buffer */
	uint32_t qhead, qlen;
	persist_fn persist;	/* NULL for DRAM */
	char *ws;
	uint64_t ws_size;
	uint64_t served, bytes;
	bool last;		/* the client sent its last message */
};

static inline size_t server_recv_off(const struct gpspm_server *g, uint32_t k)
{
	(void)g;
	return (size_t)k * GPSPM_MSG_MAX;
}

static inline size_t server_send_off(const struct gpspm_server *g, uint32_t k)
{
	return ((size_t)g->nslots + k) * GPSPM_MSG_MAX;
}

/* max_msg_num = iodepth (at most 65535: the workspace has 16 bits for it) */
static int gpspm_server_conn_cfg(struct rpmafio_job *job, struct rpma_conn_cfg *cfg)
{
	struct rpmafio_server *s = &job->server;
	unsigned depth = job->td->o.iodepth;
	char buf[128];
	int ret;

	if (depth == 0 || depth > UINT16_MAX)
		return rpmafio_fail(job, EINVAL, "iodepth=%u: a GPSPM server takes 1-%u flush "
			"requests at a time", depth, UINT16_MAX);
	uint32_t n = depth;
	struct gpspm_server *g = calloc(1, sizeof(*g));
	if (g == NULL || (g->free_send = calloc(n, sizeof(*g->free_send))) == NULL ||
			(g->queue = calloc(n, sizeof(*g->queue))) == NULL) {
		if (g)
			free(g->free_send);
		free(g);
		return rpmafio_fail(job, ENOMEM, "no memory for %u message slots", n);
	}
	g->nslots = n;
	for (uint32_t k = 0; k < n; k++)
		g->free_send[k] = n - 1 - k;
	g->nfree = n;
	s->priv = g;
	s->max_msg_num = (uint16_t)n;
	/* a response per request in the SQ, a receive per slot, a completion for each */
	if ((ret = rpma_conn_cfg_set_sq_size(cfg, n)) ||
			(ret = rpma_conn_cfg_set_rq_size(cfg, n)) ||
			(ret = rpma_conn_cfg_set_cq_size(cfg, 2 * n)))
		return rpmafio_fail(job, EINVAL, "queue sizes for iodepth=%u: %s", n,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

/* Before accepting: the message buffer, and a receive posted in every slot. */
static int gpspm_server_prepare(struct rpmafio_job *job, struct rpma_conn_req *req)
{
	struct rpmafio_server *s = &job->server;
	struct gpspm_server *g = s->priv;
	char buf[128];
	int ret;

	size_t size = 2 * (size_t)g->nslots * GPSPM_MSG_MAX;
	if (g->mr == NULL && msg_buf_new(s->peer, size, &g->buf, &g->mr, &ret))
		return rpmafio_fail(job, ret ? EIO : ENOMEM, "cannot set up %zu bytes of message "
			"buffers: %s", size, ret ? rpmafio_rpma_err(ret, buf, sizeof(buf)) :
			"out of memory");
	for (uint32_t k = 0; k < g->nslots; k++)
		if ((ret = rpma_conn_req_recv(req, g->mr, server_recv_off(g, k), GPSPM_MSG_MAX,
				wr_id(WR_RECV, k))))
			return rpmafio_fail(job, EIO, "cannot post receive %u of %u: %s", k + 1,
				g->nslots, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

static int gpspm_server_connected(struct rpmafio_job *job)
{
	struct rpmafio_server *s = &job->server;
	struct gpspm_server *g = s->priv;

	g->ws = s->mem.ptr;
	g->ws_size = s->mem.size;
	/* libpmem2 knows how: cache flushes for PMem, msync for a page-granular file */
	g->persist = s->mem.map ? pmem2_get_persist_fn(s->mem.map) : NULL;
	return 0;
}

/* Serve one request: validate, persist, receive again, answer. 0, or -1 after rpmafio_fail(). */
static int server_handle(struct rpmafio_job *job, struct gpspm_server *g, struct request r)
{
	struct rpmafio_server *s = &job->server;
	struct gpspm_req req;
	char why[160], buf[128];
	size_t size = 0;
	int ret;

	if (gpspm_req_decode(g->buf + server_recv_off(g, r.index), r.len, &req, why,
			sizeof(why)) != GPSPM_MSG_OK)
		return rpmafio_fail(job, EPROTO, "rejected a message from the client: %s; "
			"disconnecting", why);
	if (gpspm_req_is_last(&req)) {
		g->last = true;
		return 0;
	}
	if (!gpspm_range_ok(req.offset, req.length, g->ws_size))
		return rpmafio_fail(job, EPROTO, "rejected a flush request from the client: "
			"offset %llu length %llu is outside the %llu-byte workspace; disconnecting",
			(unsigned long long)req.offset, (unsigned long long)req.length,
			(unsigned long long)g->ws_size);
	if (g->persist && req.length)
		g->persist(g->ws + req.offset, req.length);
	g->served++;
	g->bytes += req.length;

	if ((ret = rpma_recv(s->conn, g->mr, server_recv_off(g, r.index), GPSPM_MSG_MAX,
			wr_id(WR_RECV, r.index))))
		return rpmafio_fail(job, EIO, "cannot post a receive again: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	uint32_t k = g->free_send[--g->nfree];
	struct gpspm_resp resp = {req.op_context};
	if (gpspm_resp_encode(&resp, g->buf + server_send_off(g, k), GPSPM_MSG_MAX, &size))
		return rpmafio_fail(job, EIO, "cannot encode a flush response");
	if ((ret = rpma_send(s->conn, g->mr, server_send_off(g, k), size,
			RPMA_F_COMPLETION_ALWAYS, wr_id(WR_SEND, k))))
		return rpmafio_fail(job, EIO, "cannot send a flush response: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

/*
 * The connection failed under us (an error completion): normal when the
 * client goes away. Wait for its disconnection; 0 when it came.
 */
static int server_conn_failed(struct rpmafio_job *job, enum ibv_wc_status status)
{
	int w = rpmafio_server_wait_disconnect(job, (int)job->o->connect_timeout);
	if (w < 0)
		return -1;
	if (w == 0)
		return rpmafio_fail(job, EIO, "a message to or from the client failed (%s) and "
			"the client did not disconnect within connect_timeout=%u ms",
			ibv_wc_status_str(status), job->o->connect_timeout);
	if (status != IBV_WC_WR_FLUSH_ERR)
		rpmafio_note(job, "a message to or from the client failed (%s): the client has "
			"gone", ibv_wc_status_str(status));
	return 0;
}

/* One completion: 0 fine, 1 the connection failed (see *status), -1 after rpmafio_fail() */
static int server_on_wc(struct rpmafio_job *job, struct gpspm_server *g, const struct ibv_wc *wc,
		enum ibv_wc_status *status)
{
	uint64_t tag = wc->wr_id & WR_TAG_MASK;
	uint32_t k = wr_index(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS) {
		/*
		 * A receive fails by itself (not flushed by a failing connection)
		 * only because of what arrived: a message that does not fit
		 * (reported as a length or a QP operation error, by provider).
		 */
		if (tag == WR_RECV && wc->status != IBV_WC_WR_FLUSH_ERR)
			return rpmafio_fail(job, EPROTO, "rejected a message from the client: "
				"receiving it failed (%s): is it longer than the %d-byte receive "
				"buffer?; disconnecting", ibv_wc_status_str(wc->status),
				GPSPM_MSG_MAX);
		*status = wc->status;
		return 1;
	}
	if (tag == WR_SEND && k < g->nslots && g->nfree < g->nslots) {
		g->free_send[g->nfree++] = k;
		return 0;
	}
	if (tag == WR_RECV && k < g->nslots && g->qlen < g->nslots) {
		g->queue[(g->qhead + g->qlen++) % g->nslots] = (struct request){k, wc->byte_len};
		return 0;
	}
	return rpmafio_fail(job, EIO, "a completion for no message (opcode %d, wr_id 0x%llx)",
		(int)wc->opcode, (unsigned long long)wc->wr_id);
}

/*
 * Serve until the client sends its last message or goes, or fio stops the
 * job. 0 when it ended cleanly, -1 after rpmafio_fail().
 */
static int server_serve(struct rpmafio_job *job, struct gpspm_server *g)
{
	struct rpmafio_server *s = &job->server;
	const bool busy = job->o->busy_wait_polling != 0;
	struct ibv_wc wc[WC_BATCH];
	char buf[128];
	unsigned spins = 0;
	int ret, cq_fd, ev_fd;

	if ((ret = rpma_cq_get_fd(s->cq, &cq_fd)) || (ret = rpma_conn_get_event_fd(s->conn, &ev_fd)))
		return rpmafio_fail(job, EIO, "the connection's file descriptors: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));

	while (!g->last) {
		if (rpmafio_stopping(job->td))
			return 0;
		int got = 0;
		ret = rpma_cq_get_wc(s->cq, WC_BATCH, wc, &got);
		if (ret == 0) {
			for (int i = 0; i < got; i++) {
				enum ibv_wc_status status = IBV_WC_SUCCESS;
				int r = server_on_wc(job, g, &wc[i], &status);
				if (r < 0)
					return -1;
				if (r > 0)
					return server_conn_failed(job, status);
			}
			while (g->qlen && g->nfree && !g->last) {
				struct request r = g->queue[g->qhead];
				g->qhead = (g->qhead + 1) % g->nslots;
				g->qlen--;
				if (server_handle(job, g, r))
					return -1;
			}
			continue;
		}
		if (ret != RPMA_E_NO_COMPLETION)
			return rpmafio_fail(job, EIO, "rpma_cq_get_wc: %s",
				rpmafio_rpma_err(ret, buf, sizeof(buf)));

		/* nothing to do: has the client gone? */
		if (busy) {
			if (++spins % SPIN_CHECK)
				continue;
			ret = rpmafio_server_wait_disconnect(job, 0);
			if (ret)
				return ret > 0 ? 0 : -1;
			continue;
		}
		struct pollfd pfd[2] = {
			{.fd = cq_fd, .events = POLLIN},
			{.fd = ev_fd, .events = POLLIN},
		};
		if (poll(pfd, 2, WAIT_SLICE_MS) <= 0)
			continue;
		if ((pfd[0].revents & POLLIN) && (ret = rpma_cq_wait(s->cq)) &&
				ret != RPMA_E_NO_COMPLETION)
			return rpmafio_fail(job, EIO, "rpma_cq_wait: %s",
				rpmafio_rpma_err(ret, buf, sizeof(buf)));
		if ((pfd[1].revents & POLLIN) && (ret = rpmafio_server_wait_disconnect(job, 0)))
			return ret > 0 ? 0 : -1;
	}

	/* the client is done: it disconnects next */
	ret = rpmafio_server_wait_disconnect(job, (int)job->o->connect_timeout);
	if (ret == 0)
		rpmafio_note(job, "the client sent its last message but did not disconnect within "
			"connect_timeout=%u ms: ending anyway", job->o->connect_timeout);
	return ret < 0 ? -1 : 0;
}

static enum fio_q_status gpspm_server_queue(struct rpmafio_job *job, struct io_u *io_u)
{
	struct gpspm_server *g = job->server.priv;

	if (server_serve(job, g))
		io_u->error = job->td->error ? job->td->error : EIO;
	rpmafio_note(job, "served %llu flush requests (%llu bytes %s)",
		(unsigned long long)g->served, (unsigned long long)g->bytes,
		g->persist ? "persisted" : "in DRAM: nothing to persist");
	job->td->done = 1;
	return FIO_Q_COMPLETED;
}

static void gpspm_server_cleanup(struct rpmafio_job *job)
{
	struct rpmafio_server *s = &job->server;
	struct gpspm_server *g = s->priv;
	if (g == NULL)
		return;
	(void) rpma_mr_dereg(&g->mr);
	free(g->buf);
	free(g->free_send);
	free(g->queue);
	free(g);
	s->priv = NULL;
}

static const struct rpmafio_engine gpspm = {
	.name = NAME,
	.client = {
		.conn_cfg = gpspm_client_conn_cfg,
		.connected = gpspm_client_connected,
		.flush = gpspm_flush,
		.completion = gpspm_completion,
		.cleanup = gpspm_client_cleanup,
	},
	.server = {
		.conn_cfg = gpspm_server_conn_cfg,
		.prepare = gpspm_server_prepare,
		.connected = gpspm_server_connected,
		.queue = gpspm_server_queue,
		.cleanup = gpspm_server_cleanup,
	},
};

static int gpspm_init(struct thread_data *td)
{
	return rpmafio_init(td, &gpspm);
}

RPMAFIO_IOENGINE_OPS(NAME, gpspm_init);
