/* SPDX-License-Identifier: BSD-3-Clause */
/* conn_req.h -- connection request, internal part */
#ifndef RPMA_CONN_REQ_H
#define RPMA_CONN_REQ_H

#include <rdma/rdma_cma.h>
#include "librpma.h"

/*
 * Make an incoming request from an RDMA_CM_EVENT_CONNECT_REQUEST event
 * (the event is not acked here). RPMA_E_INVAL, RPMA_E_NOMEM, RPMA_E_PROVIDER.
 */
int rpma_conn_req_from_cm_event(struct rpma_peer *peer, struct rdma_cm_event *event,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr);

#endif /* RPMA_CONN_REQ_H */
