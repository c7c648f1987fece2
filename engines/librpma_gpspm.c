/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librpma_gpspm.c -- fio engine for the General Purpose Server Persistency
 * Method (GPSPM).
 *
 * The client writes to the server's memory with RDMA writes, then asks the
 * server to make them persistent: it SENDs a flush request (offset, length,
 * op_context: gpspm/gpspm_flush.proto) after the writes, and the server,
 * which receives it only once those writes are placed (an RC connection
 * delivers in order), persists the range with libpmem2 and SENDs back a
 * response carrying the same op_context. Reads are plain RDMA reads. The
 * messages are those of fio 3.33's librpma_gpspm engines: either side works
 * with theirs.
 *
 *   fio jobs/gpspm-server.fio                                         # server
 *   fio --ioengine=external:build/librpma_gpspm.so jobs/randwrite.fio  # client
 *
 * The protocol, in the order it runs (shared steps in client/ and server/;
 * fio/engine.c calls these hooks for fio):
 *
 * Server. Map the memory and register it for the client's writes and reads
 * only; advertise max_msg_num = iodepth in the workspace; listen; take the
 * client's request and post a receive in every slot before accepting it.
 * Serve: each request is validated (gpspm/msg.h: a malformed, truncated or
 * unknown message, or a range outside the workspace, ends the connection with
 * the reason logged; nothing outside the workspace is ever touched),
 * persisted (libpmem2's persist function of the mapping: CPU cache flushes
 * for PMem, msync for a plain file; nothing for DRAM), its receive posted
 * again and a response sent. Requests wait in a queue while every send buffer
 * is in flight. It serves until the client sends its last message or goes.
 *
 * Client. Connect with room for a SEND per batch and a receive per slot;
 * check the server takes as many flush requests at once as this job may
 * send; post a receive in every slot. Every batch of writes (one write with
 * sync=1) gets ONE flush request covering the span of its writes (client/io.c
 * decides the span); when the batch is complete is gpspm/client_slots.h's business:
 * the SEND done and the response arrived; batches, reads among them, complete
 * in the order they were posted, whatever order their completions come in
 * (iWARP reorders them). A response naming no request in flight breaks the
 * connection. Receive buffers are separate from the slots: a response may
 * land in any of them, and each is posted again as soon as its response is
 * read. When the job ends the client sends the "last message" (offset 0,
 * length 0) that tells the server it is done, and disconnects.
 */
#include <errno.h>
#include <libpmem2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/io.h"
#include "common/method.h"
#include "common/report.h"
#include "gpspm/msg.h"
#include "gpspm/msg_bufs.h"
#include "gpspm/client_slots.h"
#include "gpspm/server_slots.h"
#include "server/hub.h"
#include "server/server.h"

/*
 * Work request ids of the messages: a tag in bits 62-63 and an index.
 * The client's reads carry their I/O instead, a user-space address whose
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

/* how long a leaving client waits for its last message to be sent */
#define LAST_MSG_WAIT_MS 2000

/* ======================= server ======================= */

/* clients_per_job above 1: the job's clients from one thread (further down) */
static int hub_init(struct rpmafio_server *s);
static int hub_serve(struct rpmafio_server *s);

struct gpspm_server {
	struct gpspm_msg_bufs bufs;	/* receive buffers first */
	struct gpspm_server_slots *slots; /* requests waiting, send buffers free */
	pmem2_persist_fn persist; /* NULL for DRAM */
	uint64_t served, bytes;
	bool last;		/* the client sent its last message */
	/* several clients (server/hub.h): every receive in one shared queue */
	struct rpma_srq *srq;
	unsigned *from;		/* per receive buffer: the client whose request it holds */
};

/* whom a request came from: where its range lies, where its answer goes */
struct requester {
	struct rpma_conn *conn;
	char *base;		/* its bytes of the server's memory */
	uint64_t size;
	const char *name;	/* "the client", "client 2 (192.168.1.2, port 7205)" */
	uint64_t *served, *bytes; /* its counts */
};

/*
 * max_msg_num = iodepth (at most 65535: the workspace has 16 bits for it), a
 * receive and a send buffer per request of each of the job's clients
 */
#define GPSPM_SERVER_BUFS_MAX (1u << 20)

static int server_state_new(struct rpmafio_server *s, unsigned clients)
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

/* a receive in every slot, on the request: posted before the client can send */
static int post_receives(struct rpmafio_server *s, struct rpma_conn_req *req)
{
	struct gpspm_server *g = s->priv;
	char buf[128];
	int ret;

	for (uint32_t k = 0; k < g->bufs.nslots; k++)
		if ((ret = rpma_conn_req_recv(req, g->bufs.mr, gpspm_recv_off(&g->bufs, k),
				GPSPM_MSG_MAX, wr_id(WR_RECV, k))))
			return rpmafio_fail(&s->job, EIO, "cannot post receive %u of %u: %s", k + 1,
				g->bufs.nslots, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

static int gpspm_server_init(struct rpmafio_server *s)
{
	/* the client only writes and reads: the server persists */
	const int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC;
	struct rpma_conn_req *req = NULL;

	if (s->job.o->clients_per_job > 1)
		return hub_init(s);
	if (rpmafio_server_map(s) || server_state_new(s, 1))
		return -1;
	struct gpspm_server *g = s->priv;
	/*
	 * a response per request in the SQ, a receive per slot, a completion for
	 * each; one more in the SQ and CQ for the keepalive probe (server/keepalive.h)
	 */
	const uint32_t n = g->bufs.nslots;
	struct rpmafio_queues q = {.sq = n + 1, .rq = n, .cq = 2 * n + 1};
	g->bufs.recv_first = 0;
	if (rpmafio_server_register(s, usage, (uint16_t)n) ||
			gpspm_msg_bufs_new(&s->job, s->peer, &g->bufs) || rpmafio_server_listen(s) ||
			rpmafio_server_next_request(s, &q, &req))
		return -1;
	if (post_receives(s, req)) {
		(void) rpma_conn_req_delete(&req);
		return -1;
	}
	return rpmafio_server_accept(s, &req);
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

/* how serving one request ended */
enum request_result {
	REQUEST_ANSWERED,	/* its response is on its way */
	REQUEST_LAST,		/* it was the last message: nothing to answer */
	REQUEST_STOPPED,	/* fio stops the job: not answered */
	REQUEST_REFUSED,	/* the client broke the protocol (after rpmafio_fail()) */
	REQUEST_UNSENT,		/* received again, but the response could not be sent (ditto) */
	REQUEST_FAILED,		/* after rpmafio_fail() */
};

/* receive buffer k back to the connection's receive queue, or to the shared one */
static int recv_again(struct rpmafio_server *s, const struct gpspm_server *g,
		struct rpma_conn *conn, uint32_t k)
{
	char buf[128];
	int ret = g->srq ?
		rpma_srq_recv(g->srq, g->bufs.mr, gpspm_recv_off(&g->bufs, k), GPSPM_MSG_MAX,
			wr_id(WR_RECV, k)) :
		rpma_recv(conn, g->bufs.mr, gpspm_recv_off(&g->bufs, k), GPSPM_MSG_MAX,
			wr_id(WR_RECV, k));
	if (ret)
		return rpmafio_fail(&s->job, EIO, "cannot post a receive again: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

/*
 * Serve the request in receive buffer k (len bytes) from who, its response
 * to go in send buffer out: validate, persist, receive again, answer.
 */
static enum request_result handle(struct rpmafio_server *s, struct gpspm_server *g,
		const struct requester *who, uint32_t k, uint32_t len, uint32_t out)
{
	struct rpmafio_job *job = &s->job;
	struct gpspm_req req;
	char why[160], buf[128];
	size_t size = 0;
	int ret;

	switch (gpspm_req_check((char *)g->bufs.mem.ptr + gpspm_recv_off(&g->bufs, k), len,
			who->size, &req, why, sizeof(why))) {
	case GPSPM_REQ_FLUSH:
		break;
	case GPSPM_REQ_LAST:
		return REQUEST_LAST;
	case GPSPM_REQ_OUT_OF_RANGE:
		rpmafio_fail(job, EPROTO, "rejected a flush request from %s: %s; "
			"disconnecting", who->name, why);
		return REQUEST_REFUSED;
	case GPSPM_REQ_MALFORMED:
	default:
		rpmafio_fail(job, EPROTO, "rejected a message from %s: %s; "
			"disconnecting", who->name, why);
		return REQUEST_REFUSED;
	}
	if (g->persist && req.length &&
			!persist_range(s, g, who->base + req.offset, req.length)) {
		rpmafio_note(job, "stopped while persisting a flush request of %llu bytes: it "
			"is not answered", (unsigned long long)req.length);
		return REQUEST_STOPPED;
	}
	(*who->served)++;
	*who->bytes += req.length;

	if (recv_again(s, g, who->conn, k))
		return REQUEST_FAILED;
	struct gpspm_resp resp = {req.op_context};
	if (gpspm_resp_encode(&resp, gpspm_send_buf(&g->bufs, out), GPSPM_MSG_MAX, &size)) {
		rpmafio_fail(job, EIO, "cannot encode a flush response");
		return REQUEST_FAILED;
	}
	if ((ret = rpma_send(who->conn, g->bufs.mr, gpspm_send_off(&g->bufs, out), size,
			RPMA_F_COMPLETION_ALWAYS, wr_id(WR_SEND, out)))) {
		rpmafio_fail(job, EIO, "cannot send a flush response to %s: %s", who->name,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return REQUEST_UNSENT;
	}
	return REQUEST_ANSWERED;
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
	uint64_t tag = wc->wr_id & WR_TAG_MASK;
	uint32_t k = wr_index(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS) {
		/*
		 * A receive fails by itself (not flushed by a failing connection)
		 * only because of what arrived: a message that does not fit
		 * (reported as a length or a QP operation error, by provider).
		 */
		if (tag == WR_RECV && wc->status != IBV_WC_WR_FLUSH_ERR) {
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
	if (tag == WR_RECV && wc->opcode != IBV_WC_RECV) {
		rpmafio_fail(&s->job, EPROTO, "rejected a message from the client: a receive "
			"completed as opcode %d (%s), not by a SEND; disconnecting", (int)wc->opcode,
			wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM ? "an RDMA write with immediate data" :
			"not a message");
		return SERVER_WC_REFUSED;
	}
	if (tag == WR_SEND && wc->opcode == IBV_WC_SEND &&
			gpspm_server_slots_sent(g->slots, k) == 0)
		return SERVER_WC_TAKEN;
	if (tag == WR_RECV && gpspm_server_slots_received(g->slots, k, wc->byte_len) == 0)
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
	const struct requester client = {s->conn, s->mem.ptr, s->mem.size, "the client",
		&g->served, &g->bytes};
	/* (the last message keeps the send buffer it was given: serving ends there) */
	while (!g->last && gpspm_server_slots_next(g->slots, &k, &len, &out)) {
		switch (handle(s, g, &client, k, len, out)) {
		case REQUEST_ANSWERED:
			break;
		case REQUEST_LAST:
			g->last = true;
			break;
		case REQUEST_STOPPED:
			return RPMAFIO_POLL_DONE;
		case REQUEST_REFUSED:
		case REQUEST_UNSENT:
		case REQUEST_FAILED:
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

/* ============ server: several clients from one thread ============ */

/*
 * clients_per_job=n (server/hub.h): the job's n * size bytes, client k's
 * the k-th size of them; every client's requests land in one shared receive
 * queue of n * iodepth buffers (any client's request in any buffer; the
 * completion's QP number says whose) and are answered from n * iodepth send
 * buffers on the client's own connection. Each client is told max_msg_num =
 * iodepth, as by a one-client server.
 */
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
		if (recv_again(s, g, NULL, k))
			return -1;
	return 0;
}

static int hub_init(struct rpmafio_server *s)
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
	if (rpmafio_server_map(s) || server_state_new(s, clients) || rpmafio_hub_new(s, part))
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
static struct requester requester_of(struct rpmafio_hub_client *c, size_t part, char *name,
		size_t len)
{
	snprintf(name, len, "client %u (%s, port %s)", c->k + 1, c->addr, c->port);
	return (struct requester){c->conn, c->base, part, name, &c->served, &c->bytes};
}

/* answer the waiting requests a send buffer is free for; a client's fault cuts it off */
static enum rpmafio_poll_step hub_answer(struct rpmafio_server *s, struct gpspm_server *g)
{
	char name[RPMAFIO_ADDR_STR_LEN + 48];
	uint32_t k, len, out;

	while (gpspm_server_slots_next(g->slots, &k, &len, &out)) {
		struct rpmafio_hub_client *c = &s->hub->clients[g->from[k]];
		enum request_result r = REQUEST_REFUSED;
		if (c->state == RPMAFIO_HUB_SERVING) {
			const struct requester who = requester_of(c, s->hub->part, name, sizeof(name));
			r = handle(s, g, &who, k, len, out);
		}
		switch (r) {
		case REQUEST_ANSWERED:
			continue;
		case REQUEST_STOPPED:
			return RPMAFIO_POLL_DONE;
		case REQUEST_FAILED:
			return RPMAFIO_POLL_FAILED;
		case REQUEST_LAST:
			rpmafio_hub_client_done(c);
			break;
		case REQUEST_UNSENT:
			rpmafio_hub_cut_off(s, c);
			(void) gpspm_server_slots_sent(g->slots, out);
			continue; /* (received again already) */
		case REQUEST_REFUSED: /* (or its client has gone: nothing to answer) */
		default:
			rpmafio_hub_cut_off(s, c);
			break;
		}
		/* neither buffer was used: both back */
		(void) gpspm_server_slots_sent(g->slots, out);
		if (recv_again(s, g, NULL, k))
			return RPMAFIO_POLL_FAILED;
	}
	return RPMAFIO_POLL_GO_ON;
}

/* a receive of the shared queue that brought no request: why, and its buffer back */
static enum rpmafio_poll_step hub_no_request(struct rpmafio_server *s, struct gpspm_server *g,
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
	return recv_again(s, g, NULL, k) ? RPMAFIO_POLL_FAILED : RPMAFIO_POLL_GO_ON;
}

/* the shared receive CQ: requests of any client */
static enum rpmafio_poll_step hub_recv_wc(struct rpmafio_server *s, const struct ibv_wc *wc, int n)
{
	struct gpspm_server *g = s->priv;

	for (int i = 0; i < n; i++) {
		const uint32_t k = wr_index(wc[i].wr_id);
		struct rpmafio_hub_client *c = rpmafio_hub_sender(s->hub, &wc[i]);
		if ((wc[i].wr_id & WR_TAG_MASK) != WR_RECV || k >= g->bufs.nslots) {
			rpmafio_fail(&s->job, EIO, "a completion for no receive (opcode %d, wr_id "
				"0x%llx)", (int)wc[i].opcode, (unsigned long long)wc[i].wr_id);
			return RPMAFIO_POLL_FAILED;
		}
		if (wc[i].status != IBV_WC_SUCCESS || wc[i].opcode != IBV_WC_RECV || c == NULL ||
				c->state == RPMAFIO_HUB_GONE) {
			if (hub_no_request(s, g, c && c->state != RPMAFIO_HUB_GONE ? c : NULL, &wc[i], k))
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
	return hub_answer(s, g);
}

/* a client's response sent (or flushed): its buffer free for a waiting request */
static enum rpmafio_poll_step hub_send_wc(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		const struct ibv_wc *wc)
{
	struct gpspm_server *g = s->priv;

	if ((wc->wr_id & WR_TAG_MASK) != WR_SEND ||
			gpspm_server_slots_sent(g->slots, wr_index(wc->wr_id))) {
		rpmafio_fail(&s->job, EIO, "a completion for no response (client %u, opcode %d, "
			"wr_id 0x%llx)", c->k + 1, (int)wc->opcode, (unsigned long long)wc->wr_id);
		return RPMAFIO_POLL_FAILED;
	}
	if (wc->status != IBV_WC_SUCCESS)
		rpmafio_hub_client_failed(s, c, wc->status, "a response");
	return hub_answer(s, g);
}

static bool hub_waiting(const struct rpmafio_server *s)
{
	return gpspm_server_slots_waiting(((const struct gpspm_server *)s->priv)->slots);
}

static const struct rpmafio_hub_ops hub_ops = {
	.recv_wc = hub_recv_wc,
	.send_wc = hub_send_wc,
	.waiting = hub_waiting,
};

static int hub_serve(struct rpmafio_server *s)
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

static int gpspm_server_serve(struct rpmafio_server *s)
{
	const struct gpspm_server *g = s->priv;
	if (s->hub)
		return hub_serve(s);
	int ret = rpmafio_server_serve(s, serve_messages);

	rpmafio_note(&s->job, "served %llu flush requests (%llu bytes %s)",
		(unsigned long long)g->served, (unsigned long long)g->bytes,
		g->persist ? "persisted" : "in DRAM: nothing to persist");
	return ret;
}

static void gpspm_server_cleanup(struct rpmafio_server *s)
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

/* ======================= client ======================= */

struct gpspm_client {
	struct gpspm_msg_bufs bufs;	/* send buffers first */
	struct gpspm_slots *slots;
};

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
static int gpspm_client_init(struct rpmafio_client *c)
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
	for (uint32_t k = 0; k < n; k++)
		if ((ret = rpma_recv(c->conn, g->bufs.mr, gpspm_recv_off(&g->bufs, k), GPSPM_MSG_MAX,
				wr_id(WR_RECV, k))))
			return rpmafio_fail(&c->job, EIO, "cannot post receive %u of %u: %s", k + 1,
				n, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

/* One flush request after the batch's writes; the batch completes with its response. */
inline int rpmafio_method_flush(struct rpmafio_client *c, uint64_t offset, uint64_t len,
	struct rpmafio_io *last)
{
	struct gpspm_client *g = c->priv;
	char buf[128];
	size_t size = 0;
	uint32_t k;
	int ret;

	struct gpspm_req req = {offset, len, 0};
	if (gpspm_slots_next(g->slots, &k, &req.op_context))
		return rpmafio_fail(&c->job, EIO, "all %u flush slots are in use", g->bufs.nslots);
	if (gpspm_req_encode(&req, gpspm_send_buf(&g->bufs, k), GPSPM_MSG_MAX, &size))
		return rpmafio_fail(&c->job, EIO, "cannot encode a flush request");
	if ((ret = rpma_send(c->conn, g->bufs.mr, gpspm_send_off(&g->bufs, k), size,
			RPMA_F_COMPLETION_ALWAYS, wr_id(WR_SEND, k))))
		return rpmafio_fail(&c->job, EIO, "cannot send a flush request of %llu bytes at "
			"offset %llu: %s", (unsigned long long)len, (unsigned long long)offset,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	gpspm_slots_push(g->slots, last);
	return 0;
}

/* a batch of reads (no flush): it completes in its place among the flushes */
static int gpspm_signalled(struct rpmafio_client *c, struct rpmafio_io *last)
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
			wr_id(WR_RECV, k)))) {
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
static const char *gpspm_failure_hint(const struct rpmafio_client *c, const struct ibv_wc *wc)
{
	(void)c;
	if ((wc->wr_id & WR_TAG_MASK) != WR_RECV || wc->status == IBV_WC_WR_FLUSH_ERR)
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

	switch (id & WR_TAG_MASK) {
	case 0:
		if (wc->opcode != IBV_WC_RDMA_READ && wc->opcode != IBV_WC_RDMA_WRITE)
			return RPMAFIO_COMPLETES_UNKNOWN;
		r = gpspm_slots_io_done(g->slots, (void *)(uintptr_t)id, &done);
		break;
	case WR_SEND:
		if (wc->opcode != IBV_WC_SEND)
			return RPMAFIO_COMPLETES_UNKNOWN;
		r = gpspm_slots_sent(g->slots, wr_index(id), &done);
		break;
	case WR_RECV:
		if (wc->opcode != IBV_WC_RECV)
			return RPMAFIO_COMPLETES_UNKNOWN;
		r = answered(c, g, wr_index(id), wc->byte_len, &done);
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
		if ((wc[i].wr_id & WR_TAG_MASK) == WR_LAST || wc[i].status != IBV_WC_SUCCESS)
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
				RPMA_F_COMPLETION_ALWAYS, wr_id(WR_LAST, 0)))
		return;
	uint64_t deadline = rpmafio_now_ms() + LAST_MSG_WAIT_MS;
	(void) rpmafio_poll_run(&c->poll, &last_ops, &deadline);
}

static void gpspm_client_finish(struct rpmafio_client *c)
{
	struct gpspm_client *g = c->priv;
	if (g && g->bufs.mr)
		send_last(c, g);
}

static void gpspm_client_cleanup(struct rpmafio_client *c)
{
	struct gpspm_client *g = c->priv;
	if (g == NULL)
		return;
	gpspm_msg_bufs_delete(&c->job, &g->bufs);
	gpspm_slots_delete(&g->slots);
	free(g);
	c->priv = NULL;
}

const char rpmafio_engine_name[] = "librpma_gpspm";

const struct rpmafio_method rpmafio_engine_method = {
	.name = rpmafio_engine_name,
	.client = {
		.init = gpspm_client_init,
		.signalled = gpspm_signalled,
		.failure_hint = gpspm_failure_hint,
		.finish = gpspm_client_finish,
		.cleanup = gpspm_client_cleanup,
	},
	.server = {
		.init = gpspm_server_init,
		.serve = gpspm_server_serve,
		.cleanup = gpspm_server_cleanup,
	},
};
