/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn.c -- an established (or establishing) connection: the CM id with its
 * QP, the CQs, an event channel of the connection's own for its CM events,
 * the flush object, the posting of its work requests (post.c: batches too,
 * rpma_conn_batch_begin/end) and the private data the peer sent.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "conn.h"
#include "cq.h"
#include "flush.h"
#include "log.h"
#include "peer.h"
#include "post.h"
#include "private_data.h"

struct rpma_conn {
	struct rdma_cm_id *id;
	struct rdma_event_channel *evch;  /* the id's CM events arrive here */
	struct rpma_cq *cq;
	struct rpma_cq *rcq;              /* NULL when there is none */
	bool rcq_borrowed;	/* rcq is an SRQ's or a shared one: not ours to delete */
	struct ibv_comp_channel *channel; /* shared by cq and rcq, or NULL */
	struct rpma_flush *flush;
	struct rpma_post *post;           /* its work requests, batched or not */
	/* set by rpma_conn_apply_remote_peer_cfg() while operations may run */
	atomic_bool direct_write_to_pmem;
	bool native_atomic_write;
	bool no_imm; /* iWARP: no immediate data */
	struct rpma_conn_private_data pdata; /* owned copy */
	struct rpma_peer *peer;
};

int rpma_conn_new(struct rpma_peer *peer, const struct rpma_conn_parts *parts,
		struct rpma_conn **conn_ptr)
{
	if (peer == NULL || parts == NULL || parts->id == NULL || parts->cq == NULL ||
			conn_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_conn *conn = calloc(1, sizeof(*conn));
	if (conn == NULL)
		return RPMA_E_NOMEM;

	/* the QP was created with the extended interface unless its provider refused it */
	int ret = rpma_post_new(parts->id->qp, !rpma_peer_refused_qp_ex(peer), &conn->post);
	if (ret)
		goto err_free;

	ret = rpma_flush_new(peer, &conn->flush);
	if (ret)
		goto err_post_delete;

	conn->evch = rdma_create_event_channel();
	if (conn->evch == NULL) {
		ret = RPMA_PROVIDER_FAILED(errno, "rdma_create_event_channel");
		goto err_flush_delete;
	}

	/* the last step that can fail: only now does the id change hands */
	if (rdma_migrate_id(parts->id, conn->evch)) {
		ret = RPMA_PROVIDER_FAILED(errno, "rdma_migrate_id");
		goto err_destroy_evch;
	}

	conn->id = parts->id;
	conn->cq = parts->cq;
	conn->rcq = parts->rcq;
	conn->rcq_borrowed = parts->rcq_borrowed;
	conn->channel = parts->channel;
	atomic_init(&conn->direct_write_to_pmem, false);
	conn->native_atomic_write = rpma_peer_has_native_atomic_write(peer);
	conn->no_imm = rpma_peer_is_iwarp(peer);
	conn->peer = peer;
	*conn_ptr = conn;
	return 0;

err_destroy_evch:
	rdma_destroy_event_channel(conn->evch);
err_flush_delete:
	(void)rpma_flush_delete(&conn->flush);
err_post_delete:
	rpma_post_delete(&conn->post);
err_free:
	free(conn);
	return ret;
}

int rpma_conn_transfer_private_data(struct rpma_conn *conn,
		struct rpma_conn_private_data *pdata)
{
	if (conn == NULL || pdata == NULL)
		return RPMA_E_INVAL;

	struct rpma_conn_private_data copy;
	int ret = rpma_private_data_copy(&copy, pdata);
	if (ret)
		return ret;

	rpma_private_data_delete(&conn->pdata);
	conn->pdata = copy;
	return 0;
}

/* ---- hot-path accessors ---- */

struct ibv_qp *rpma_conn_get_ibv_qp(const struct rpma_conn *conn)
{
	return conn->id->qp;
}

struct rpma_post *rpma_conn_get_post(const struct rpma_conn *conn)
{
	return conn->post;
}

int rpma_conn_batch_begin(struct rpma_conn *conn)
{
	if (conn == NULL)
		return RPMA_E_INVAL;
	return rpma_post_batch_begin(conn->post);
}

int rpma_conn_batch_end(struct rpma_conn *conn)
{
	if (conn == NULL)
		return RPMA_E_INVAL;
	return rpma_post_batch_end(conn->post);
}

struct rpma_flush *rpma_conn_get_flush(const struct rpma_conn *conn)
{
	return conn->flush;
}

bool rpma_conn_get_direct_write_to_pmem(const struct rpma_conn *conn)
{
	return atomic_load_explicit(&conn->direct_write_to_pmem, memory_order_relaxed);
}

int rpma_conn_check_imm(const struct rpma_conn *conn, const char *op)
{
	if (!conn->no_imm)
		return 0;
	RPMA_LOG_ERROR("%s: iWARP has no immediate data (nor a receive without a buffer):"
		" not posted", op);
	return RPMA_E_NOSUPP;
}

bool rpma_conn_has_native_atomic_write(const struct rpma_conn *conn)
{
	return conn->native_atomic_write;
}

/* ---- CM events ---- */

int rpma_conn_get_event_fd(const struct rpma_conn *conn, int *fd)
{
	if (conn == NULL || fd == NULL)
		return RPMA_E_INVAL;

	*fd = conn->evch->fd;
	return 0;
}

static enum rpma_conn_event conn_event_of(enum rdma_cm_event_type type)
{
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		return RPMA_CONN_ESTABLISHED;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return RPMA_CONN_LOST;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return RPMA_CONN_CLOSED;
	case RDMA_CM_EVENT_REJECTED:
		return RPMA_CONN_REJECTED;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return RPMA_CONN_UNREACHABLE;
	default:
		return RPMA_CONN_UNDEFINED;
	}
}

/*
 * Keep the private data the accepting side sent with ESTABLISHED. An event
 * without data keeps what the connection already has (e.g. the request's).
 */
static int conn_store_private_data(struct rpma_conn *conn, const struct rdma_cm_event *edata)
{
	struct rpma_conn_private_data got;
	int ret = rpma_private_data_store(edata, &got);
	if (ret || got.ptr == NULL)
		return ret;

	rpma_private_data_delete(&conn->pdata);
	conn->pdata = got;
	return 0;
}

int rpma_conn_next_event(struct rpma_conn *conn, enum rpma_conn_event *event)
{
	if (conn == NULL || event == NULL)
		return RPMA_E_INVAL;

	struct rdma_cm_event *edata = NULL;
	if (rdma_get_cm_event(conn->evch, &edata)) {
		/* a non-blocking channel with nothing queued */
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return RPMA_E_NO_EVENT;
		return RPMA_PROVIDER_FAILED(errno, "rdma_get_cm_event");
	}

	enum rpma_conn_event conn_event = conn_event_of(edata->event);
	int ret = 0;
	if (conn_event == RPMA_CONN_ESTABLISHED) {
		ret = conn_store_private_data(conn, edata);
	} else if (conn_event == RPMA_CONN_UNDEFINED) {
		RPMA_LOG_ERROR("unexpected CM event: %s", rdma_event_str(edata->event));
		ret = RPMA_E_UNKNOWN;
	}

	/* every event is acked, or destroying the id would wait for it forever */
	if (rdma_ack_cm_event(edata)) {
		int err = RPMA_PROVIDER_FAILED(errno, "rdma_ack_cm_event");
		if (ret == 0)
			ret = err;
	}

	if (ret == 0)
		*event = conn_event;
	return ret;
}

int rpma_conn_get_private_data(const struct rpma_conn *conn, struct rpma_conn_private_data *pdata)
{
	if (conn == NULL || pdata == NULL)
		return RPMA_E_INVAL;

	*pdata = conn->pdata;
	return 0;
}

int rpma_conn_apply_remote_peer_cfg(struct rpma_conn *conn, const struct rpma_peer_cfg *pcfg)
{
	if (conn == NULL || pcfg == NULL)
		return RPMA_E_INVAL;

	bool direct = false;
	(void)rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct); /* cannot fail here */
	atomic_store(&conn->direct_write_to_pmem, direct);
	return 0;
}

/* ---- queues ---- */

int rpma_conn_get_qp_num(const struct rpma_conn *conn, uint32_t *qp_num)
{
	if (conn == NULL || qp_num == NULL)
		return RPMA_E_INVAL;

	*qp_num = conn->id->qp->qp_num;
	return 0;
}

int rpma_conn_get_cq(const struct rpma_conn *conn, struct rpma_cq **cq_ptr)
{
	if (conn == NULL || cq_ptr == NULL)
		return RPMA_E_INVAL;

	*cq_ptr = conn->cq;
	return 0;
}

int rpma_conn_get_rcq(const struct rpma_conn *conn, struct rpma_cq **rcq_ptr)
{
	if (conn == NULL || rcq_ptr == NULL)
		return RPMA_E_INVAL;

	*rcq_ptr = conn->rcq;
	return 0;
}

int rpma_conn_get_compl_fd(const struct rpma_conn *conn, int *fd)
{
	if (conn == NULL || fd == NULL)
		return RPMA_E_INVAL;
	if (conn->channel == NULL)
		return RPMA_E_NOT_SHARED_CHNL;

	*fd = conn->channel->fd;
	return 0;
}

/*
 * One completion event of the shared channel: which of the connection's
 * CQs raised it. The wait is always for a completion event, which is what
 * RPMA_W_WAIT_FOR_COMPLETION names; no other flag is defined, so flags
 * change nothing.
 */
int rpma_conn_wait(struct rpma_conn *conn, int flags, struct rpma_cq **cq_ptr, bool *is_rcq)
{
	(void)flags;
	if (conn == NULL || cq_ptr == NULL)
		return RPMA_E_INVAL;
	if (conn->channel == NULL)
		return RPMA_E_NOT_SHARED_CHNL;

	struct ibv_cq *ev_cq = NULL;
	void *ev_ctx = NULL;
	if (ibv_get_cq_event(conn->channel, &ev_cq, &ev_ctx))
		return RPMA_E_NO_COMPLETION; /* also a non-blocking channel with nothing */

	/* acked at once: destroying the CQ waits for every event to be acked */
	ibv_ack_cq_events(ev_cq, 1);

	struct rpma_cq *cq = NULL;
	bool rcq = false;
	if (ev_cq == rpma_cq_get_ibv_cq(conn->cq)) {
		cq = conn->cq;
	} else if (conn->rcq != NULL && ev_cq == rpma_cq_get_ibv_cq(conn->rcq)) {
		cq = conn->rcq;
		rcq = true;
	} else {
		RPMA_LOG_ERROR("ibv_get_cq_event() returned an unknown CQ");
		return RPMA_E_UNKNOWN;
	}

	/* re-arm, so the next completion raises the next event */
	int err = ibv_req_notify_cq(ev_cq, 0);
	if (err)
		return RPMA_PROVIDER_FAILED(err, "ibv_req_notify_cq");

	*cq_ptr = cq;
	if (is_rcq != NULL)
		*is_rcq = rcq;
	return 0;
}

/* ---- tear-down ---- */

int rpma_conn_disconnect(struct rpma_conn *conn)
{
	if (conn == NULL)
		return RPMA_E_INVAL;

	if (rdma_disconnect(conn->id))
		return RPMA_PROVIDER_FAILED(errno, "rdma_disconnect");

	return 0;
}

/* Keep the first error of a sequence of releases. */
static void conn_keep_first(int *first, int ret)
{
	if (*first == 0)
		*first = ret;
}

int rpma_conn_delete(struct rpma_conn **conn_ptr)
{
	if (conn_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_conn *conn = *conn_ptr;
	if (conn == NULL)
		return 0;

	/* the QP goes first: it refers to the CQs and to the flush buffer's PD */
	rpma_post_delete(&conn->post); /* a batch left open: the QP's lock back */
	rdma_destroy_qp(conn->id);

	int ret = rpma_flush_delete(&conn->flush);
	conn_keep_first(&ret, rpma_cq_delete(&conn->cq));
	if (!conn->rcq_borrowed)
		conn_keep_first(&ret, rpma_cq_delete(&conn->rcq));

	if (rdma_destroy_id(conn->id))
		conn_keep_first(&ret, RPMA_PROVIDER_FAILED(errno, "rdma_destroy_id"));
	rdma_destroy_event_channel(conn->evch);

	/* after both CQs, which used it */
	if (conn->channel != NULL) {
		int err = ibv_destroy_comp_channel(conn->channel);
		if (err)
			conn_keep_first(&ret, RPMA_PROVIDER_FAILED(err, "ibv_destroy_comp_channel"));
	}

	rpma_private_data_delete(&conn->pdata);
	free(conn);
	*conn_ptr = NULL;
	return ret;
}
