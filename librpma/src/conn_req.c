/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_req.c -- a connection request: outgoing (active side, made by
 * rpma_conn_req_new) or incoming (passive side, made from a CONNECT_REQUEST
 * event of an endpoint). Both hold a CM id with its QP and CQs ready, so
 * receives can be posted before connecting; rpma_conn_req_connect() turns
 * the request into a connection.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "conn.h"
#include "conn_cfg.h"
#include "conn_req.h"
#include "cq.h"
#include "info.h"
#include "log.h"
#include "peer.h"
#include "post.h"
#include "private_data.h"
#include "srq.h"

/* The CM retries (transport and receiver-not-ready) before giving up: the most there are. */
#define RPMA_CONN_REQ_RETRY_COUNT 7

struct rpma_conn_req {
	struct rdma_cm_id *id;
	/* passive side: the CONNECT_REQUEST event, acked at connect or delete */
	struct rdma_cm_event *edata;
	bool passive;
	struct rpma_cq *cq;
	struct rpma_cq *rcq;              /* NULL when there is none */
	bool rcq_borrowed;	/* rcq is an SRQ's or a shared one: not ours to delete */
	struct ibv_comp_channel *channel; /* shared by cq and rcq, or NULL */
	struct rpma_conn_private_data pdata; /* passive side: what the peer sent */
	struct rpma_peer *peer;
};

static void req_keep_first(int *first, int ret)
{
	if (*first == 0)
		*first = ret;
}

/* ---- the part both sides share: channel, CQs and the QP on id ---- */

/*
 * The receive CQ: the shared one the cfg names, else the SRQ's when the cfg
 * has an SRQ with one, else our own if asked for.
 */
static int req_setup_rcq(struct rpma_conn_req *req, const struct rpma_conn_cfg *cfg)
{
	struct rpma_cq *shared = NULL;
	(void)rpma_conn_cfg_get_shared_rcq(cfg, &shared);
	if (shared != NULL) {
		req->rcq = shared;
		req->rcq_borrowed = true;
		return 0;
	}

	struct rpma_srq *srq = NULL;
	(void)rpma_conn_cfg_get_srq(cfg, &srq);
	if (srq != NULL) {
		struct rpma_cq *srq_rcq = NULL;
		(void)rpma_srq_get_rcq(srq, &srq_rcq);
		if (srq_rcq != NULL) {
			req->rcq = srq_rcq;
			req->rcq_borrowed = true;
			return 0;
		}
	}

	uint32_t rcq_size = 0;
	(void)rpma_conn_cfg_get_rcq_size(cfg, &rcq_size);
	if (rcq_size == 0)
		return 0;

	return rpma_cq_new(req->id->verbs, (int)rcq_size, req->channel, &req->rcq);
}

/* Destroy what req_setup() created; the id stays. Returns the first error. */
static int req_release_queues(struct rpma_conn_req *req)
{
	if (req->id->qp != NULL)
		rdma_destroy_qp(req->id);

	int ret = 0;
	if (!req->rcq_borrowed)
		ret = rpma_cq_delete(&req->rcq);
	req_keep_first(&ret, rpma_cq_delete(&req->cq));

	if (req->channel != NULL) {
		int err = ibv_destroy_comp_channel(req->channel);
		if (err)
			req_keep_first(&ret, RPMA_PROVIDER_FAILED(err, "ibv_destroy_comp_channel"));
		req->channel = NULL;
	}
	return ret;
}

/*
 * Make a request around id (not taken on failure): the shared completion
 * channel when the cfg asks for it, the CQ, the receive CQ and the QP.
 */
static int req_setup(struct rpma_peer *peer, struct rdma_cm_id *id,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr)
{
	uint32_t cq_size = 0;
	bool shared = false;
	(void)rpma_conn_cfg_get_cq_size(cfg, &cq_size);
	(void)rpma_conn_cfg_get_compl_channel(cfg, &shared);

	struct rpma_conn_req *req = calloc(1, sizeof(*req));
	if (req == NULL)
		return RPMA_E_NOMEM;
	req->id = id;
	req->peer = peer;

	int ret = 0;
	if (shared) {
		req->channel = ibv_create_comp_channel(id->verbs);
		if (req->channel == NULL) {
			ret = RPMA_PROVIDER_FAILED(errno, "ibv_create_comp_channel");
			goto err_free;
		}
	}

	ret = rpma_cq_new(id->verbs, (int)cq_size, req->channel, &req->cq);
	if (ret)
		goto err_release;

	ret = req_setup_rcq(req, cfg);
	if (ret)
		goto err_release;

	struct rpma_srq *srq = NULL;
	(void)rpma_conn_cfg_get_srq(cfg, &srq);
	ret = rpma_peer_setup_qp(peer, id, req->cq, req->rcq,
		srq ? rpma_srq_get_ibv_srq(srq) : NULL, cfg);
	if (ret)
		goto err_release;

	*req_ptr = req;
	return 0;

err_release:
	(void)req_release_queues(req);
err_free:
	free(req);
	return ret;
}

/*
 * Release everything the request holds. A passive request still unanswered
 * is rejected first, and its event acked before the id is destroyed (the
 * destruction waits for it). Returns the first error.
 */
static int req_release(struct rpma_conn_req *req)
{
	int ret = 0;
	if (req->passive && rdma_reject(req->id, NULL, 0))
		ret = RPMA_PROVIDER_FAILED(errno, "rdma_reject");
	if (req->edata != NULL && rdma_ack_cm_event(req->edata))
		req_keep_first(&ret, RPMA_PROVIDER_FAILED(errno, "rdma_ack_cm_event"));

	req_keep_first(&ret, req_release_queues(req));
	if (rdma_destroy_id(req->id))
		req_keep_first(&ret, RPMA_PROVIDER_FAILED(errno, "rdma_destroy_id"));

	rpma_private_data_delete(&req->pdata);
	free(req);
	return ret;
}

/* ---- the two ways a request comes to be ---- */

/* A synchronous id (no event channel) with a route to addr:port. */
static int req_resolve_active_id(const char *addr, const char *port, int timeout_ms,
		struct rdma_cm_id **id_ptr)
{
	struct rpma_info *info = NULL;
	int ret = rpma_info_new(addr, port, RPMA_INFO_ACTIVE, &info);
	if (ret)
		return ret;

	struct rdma_cm_id *id = NULL;
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)) {
		ret = RPMA_PROVIDER_FAILED(errno, "rdma_create_id");
		goto err_info_delete;
	}

	ret = rpma_info_resolve_addr(info, id, timeout_ms);
	if (ret)
		goto err_destroy_id;

	if (rdma_resolve_route(id, timeout_ms)) {
		ret = RPMA_PROVIDER_FAILED(errno, "rdma_resolve_route");
		goto err_destroy_id;
	}

	(void)rpma_info_delete(&info);
	*id_ptr = id;
	return 0;

err_destroy_id:
	(void)rdma_destroy_id(id);
err_info_delete:
	(void)rpma_info_delete(&info);
	return ret;
}

int rpma_conn_req_new(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr)
{
	if (peer == NULL || addr == NULL || port == NULL || req_ptr == NULL)
		return RPMA_E_INVAL;
	if (cfg == NULL)
		cfg = rpma_conn_cfg_default();

	int timeout_ms = 0;
	(void)rpma_conn_cfg_get_timeout(cfg, &timeout_ms);

	struct rdma_cm_id *id = NULL;
	int ret = req_resolve_active_id(addr, port, timeout_ms, &id);
	if (ret)
		return ret;

	ret = req_setup(peer, id, cfg, req_ptr);
	if (ret)
		(void)rdma_destroy_id(id);
	return ret;
}

int rpma_conn_req_from_cm_event(struct rpma_peer *peer, struct rdma_cm_event *event,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr)
{
	if (peer == NULL || event == NULL || event->event != RDMA_CM_EVENT_CONNECT_REQUEST ||
			req_ptr == NULL)
		return RPMA_E_INVAL;
	if (cfg == NULL)
		cfg = rpma_conn_cfg_default();

	/* a copy: the event's data is gone once the event is acked */
	struct rpma_conn_private_data pdata;
	int ret = rpma_private_data_store(event, &pdata);
	if (ret)
		return ret;

	struct rpma_conn_req *req = NULL;
	ret = req_setup(peer, event->id, cfg, &req);
	if (ret) {
		rpma_private_data_delete(&pdata);
		return ret;
	}

	req->edata = event;
	req->passive = true;
	req->pdata = pdata;
	*req_ptr = req;
	return 0;
}

/* ---- connecting ---- */

/*
 * Release req after a failed connect, leaving errno as the failure set it: a
 * caller tells a refusal (ECONNREFUSED: retry) from an error by errno read
 * after we return, and the tear-down's own calls may change it on success.
 */
static void req_release_keeping_errno(struct rpma_conn_req *req)
{
	int err = errno;
	(void)req_release(req);
	errno = err;
}

/* rdma_connect() or rdma_accept() of the connection's id, with pdata (may be NULL). */
static int req_initiate(struct rdma_cm_id *id, bool passive,
		const struct rpma_conn_private_data *pdata)
{
	struct rdma_conn_param param = {
		.private_data = pdata ? pdata->ptr : NULL,
		.private_data_len = pdata ? pdata->len : 0,
		.responder_resources = RDMA_MAX_RESP_RES,
		.initiator_depth = RDMA_MAX_INIT_DEPTH,
		.flow_control = 1,
		.retry_count = RPMA_CONN_REQ_RETRY_COUNT,
		.rnr_retry_count = RPMA_CONN_REQ_RETRY_COUNT,
	};

	if (passive) {
		if (rdma_accept(id, &param))
			return RPMA_PROVIDER_FAILED(errno, "rdma_accept");
	} else if (rdma_connect(id, &param)) {
		/* iWARP connects over TCP: nobody listening is refused right here (RoCE
		 * answers REJECTED later); a caller may retry, so not an error line */
		if (errno == ECONNREFUSED) {
			RPMA_LOG_INFO("rdma_connect(): refused (ECONNREFUSED): no server listens "
				"there (yet)");
			errno = ECONNREFUSED;
			return RPMA_E_PROVIDER;
		}
		return RPMA_PROVIDER_FAILED(errno, "rdma_connect");
	}
	return 0;
}

/*
 * The connection takes the id over (moving it to an event channel of its
 * own) before the connect or accept: a synchronous id would otherwise block
 * in rdma_connect() and swallow the ESTABLISHED event, and an accepted id
 * could have its events read by the endpoint. The id can move only once
 * its request event is acked.
 */
int rpma_conn_req_connect(struct rpma_conn_req **req_ptr,
		const struct rpma_conn_private_data *pdata, struct rpma_conn **conn_ptr)
{
	if (req_ptr == NULL || *req_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_conn_req *req = *req_ptr;
	*req_ptr = NULL; /* consumed whatever happens next */
	if (conn_ptr == NULL || (pdata != NULL && (pdata->len == 0 || pdata->ptr == NULL))) {
		(void)req_release(req);
		return RPMA_E_INVAL;
	}

	int ret = 0;
	if (req->edata != NULL) {
		struct rdma_cm_event *edata = req->edata;
		req->edata = NULL; /* not to be acked twice, even if this fails */
		if (rdma_ack_cm_event(edata)) {
			ret = RPMA_PROVIDER_FAILED(errno, "rdma_ack_cm_event");
			req_release_keeping_errno(req);
			return ret;
		}
	}

	struct rpma_conn_parts parts = {
		.id = req->id,
		.cq = req->cq,
		.rcq = req->rcq,
		.rcq_borrowed = req->rcq_borrowed,
		.channel = req->channel,
	};
	struct rpma_conn *conn = NULL;
	ret = rpma_conn_new(req->peer, &parts, &conn);
	if (ret) {
		req_release_keeping_errno(req);
		return ret;
	}

	/* the connection owns the id and the queues now; the request is an empty shell */
	ret = rpma_conn_transfer_private_data(conn, &req->pdata);
	if (ret == 0)
		ret = req_initiate(req->id, req->passive, pdata);
	if (ret) {
		/* errno says why (ECONNREFUSED: nobody listens yet): the
		 * tear-down must not change it */
		int err = errno;
		/* the peer learns of the refusal rather than waiting for a timeout */
		if (req->passive)
			(void)rdma_reject(req->id, NULL, 0);
		(void)rpma_conn_delete(&conn);
		errno = err;
	} else {
		*conn_ptr = conn;
	}

	rpma_private_data_delete(&req->pdata);
	free(req);
	return ret;
}

int rpma_conn_req_delete(struct rpma_conn_req **req_ptr)
{
	if (req_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_conn_req *req = *req_ptr;
	if (req == NULL)
		return 0;

	*req_ptr = NULL;
	return req_release(req);
}

/* ---- before connecting ---- */

int rpma_conn_req_recv(struct rpma_conn_req *req, struct rpma_mr_local *dst, size_t offset,
		size_t len, const void *op_context)
{
	/* a scatter entry's length is 32 bits: longer is refused, as rpma_recv() does */
	if (req == NULL || dst == NULL || len > UINT32_MAX)
		return RPMA_E_INVAL;
	/* iWARP providers take no receive without a buffer (siw: EINVAL at post):
	 * refused here, with the code rpma_recv() and rpma_srq_recv() give */
	if (len == 0 && rpma_peer_is_iwarp(req->peer)) {
		RPMA_LOG_ERROR("rpma_conn_req_recv of 0 bytes: iWARP has no immediate data"
			" and takes no receive without a buffer: not posted");
		return RPMA_E_NOSUPP;
	}

	return rpma_post_recv(req->id->qp, dst, offset, len, op_context);
}

int rpma_conn_req_get_private_data(const struct rpma_conn_req *req,
		struct rpma_conn_private_data *pdata)
{
	if (req == NULL || pdata == NULL)
		return RPMA_E_INVAL;

	*pdata = req->pdata;
	return 0;
}

int rpma_conn_req_get_peer_addr(const struct rpma_conn_req *req, struct sockaddr_storage *addr)
{
	if (req == NULL || addr == NULL)
		return RPMA_E_INVAL;

	const struct sockaddr *sa = rdma_get_peer_addr(req->id);
	size_t len;
	switch (sa->sa_family) {
	case AF_INET:
		len = sizeof(struct sockaddr_in);
		break;
	case AF_INET6:
		len = sizeof(struct sockaddr_in6);
		break;
	default:
		RPMA_LOG_ERROR("the request's peer address has an unknown family (%d)",
			sa->sa_family);
		return RPMA_E_PROVIDER;
	}
	memset(addr, 0, sizeof(*addr));
	memcpy(addr, sa, len);
	return 0;
}
