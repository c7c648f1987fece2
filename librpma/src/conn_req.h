/* SPDX-License-Identifier: BSD-3-Clause */
/* conn_req.h -- connection request, internal part */
#ifndef RPMA_CONN_REQ_H
#define RPMA_CONN_REQ_H

#include <rdma/rdma_cma.h>
#include "librpma.h"

/*
 * Make an incoming request from an RDMA_CM_EVENT_CONNECT_REQUEST event, with
 * a copy of its private data and the queues cfg (NULL: the default) asks for;
 * the request acks the event at connect or delete. On failure the event and
 * its id stay the caller's.
 * ERRORS: RPMA_E_INVAL when peer, event or req_ptr is NULL or the event is no
 * CONNECT_REQUEST; RPMA_E_NOMEM; RPMA_E_PROVIDER (errno set) when creating
 * the completion channel, a CQ or the QP fails.
 */
int rpma_conn_req_from_cm_event(struct rpma_peer *peer, struct rdma_cm_event *event,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr);

#endif /* RPMA_CONN_REQ_H */
