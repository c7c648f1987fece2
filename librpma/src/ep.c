/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ep.c -- the endpoint: a CM id listening on a local address, with its own
 * event channel on which the incoming connection requests arrive.
 */
#include <errno.h>
#include <stdlib.h>

#include "conn_req.h"
#include "info.h"
#include "log.h"

struct rpma_ep {
	struct rpma_peer *peer;
	struct rdma_cm_id *id;
	struct rdma_event_channel *evch;
};

/* Bind id to addr:port and listen on it. */
static int ep_bind_and_listen(struct rdma_cm_id *id, const char *addr, const char *port)
{
	struct rpma_info *info = NULL;
	int ret = rpma_info_new(addr, port, RPMA_INFO_PASSIVE, &info);
	if (ret)
		return ret;

	ret = rpma_info_bind_addr(info, id);
	if (ret == 0 && rdma_listen(id, 0 /* the system's maximum backlog */))
		ret = RPMA_PROVIDER_FAILED(errno, "rdma_listen");

	(void)rpma_info_delete(&info);
	return ret;
}

int rpma_ep_listen(struct rpma_peer *peer, const char *addr, const char *port,
		struct rpma_ep **ep_ptr)
{
	if (peer == NULL || addr == NULL || port == NULL || ep_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_ep *ep = malloc(sizeof(*ep));
	if (ep == NULL)
		return RPMA_E_NOMEM;

	int ret = 0;
	ep->peer = peer;
	ep->evch = rdma_create_event_channel();
	if (ep->evch == NULL) {
		ret = RPMA_PROVIDER_FAILED(errno, "rdma_create_event_channel");
		goto err_free;
	}

	if (rdma_create_id(ep->evch, &ep->id, NULL, RDMA_PS_TCP)) {
		ret = RPMA_PROVIDER_FAILED(errno, "rdma_create_id");
		goto err_destroy_evch;
	}

	ret = ep_bind_and_listen(ep->id, addr, port);
	if (ret)
		goto err_destroy_id;

	*ep_ptr = ep;
	return 0;

err_destroy_id:
	(void)rdma_destroy_id(ep->id);
err_destroy_evch:
	rdma_destroy_event_channel(ep->evch);
err_free:
	free(ep);
	return ret;
}

int rpma_ep_shutdown(struct rpma_ep **ep_ptr)
{
	if (ep_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_ep *ep = *ep_ptr;
	if (ep == NULL)
		return 0;

	/* on failure the endpoint stays whole (*ep_ptr untouched), so a retry is possible */
	if (rdma_destroy_id(ep->id))
		return RPMA_PROVIDER_FAILED(errno, "rdma_destroy_id");

	rdma_destroy_event_channel(ep->evch);
	free(ep);
	*ep_ptr = NULL;
	return 0;
}

int rpma_ep_get_fd(const struct rpma_ep *ep, int *fd)
{
	if (ep == NULL || fd == NULL)
		return RPMA_E_INVAL;

	*fd = ep->evch->fd;
	return 0;
}

/* Refuse a request that cannot be turned into a rpma_conn_req, and drop its id. */
static void ep_refuse(struct rdma_cm_event *event)
{
	struct rdma_cm_id *id = event->id;
	if (rdma_reject(id, NULL, 0))
		RPMA_LOG_ERROR_ERRNO(errno, "rdma_reject");
	if (rdma_ack_cm_event(event))
		RPMA_LOG_ERROR_ERRNO(errno, "rdma_ack_cm_event");
	/* the id of an incoming request is ours to destroy, after its event is acked */
	if (rdma_destroy_id(id))
		RPMA_LOG_ERROR_ERRNO(errno, "rdma_destroy_id");
}

int rpma_ep_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		struct rpma_conn_req **req_ptr)
{
	if (ep == NULL || req_ptr == NULL)
		return RPMA_E_INVAL;

	struct rdma_cm_event *event = NULL;
	if (rdma_get_cm_event(ep->evch, &event)) {
		/* a non-blocking channel with nothing queued */
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return RPMA_E_NO_EVENT;
		return RPMA_PROVIDER_FAILED(errno, "rdma_get_cm_event");
	}

	if (event->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		RPMA_LOG_ERROR("unexpected CM event on an endpoint: %s",
			rdma_event_str(event->event));
		if (rdma_ack_cm_event(event))
			RPMA_LOG_ERROR_ERRNO(errno, "rdma_ack_cm_event");
		return RPMA_E_INVAL;
	}

	int ret = rpma_conn_req_from_cm_event(ep->peer, event, cfg, req_ptr);
	if (ret)
		ep_refuse(event);
	return ret;
}
