/* SPDX-License-Identifier: BSD-3-Clause */
/* queues.h -- the queue sizes a method asks of a connection (client or server) */
#ifndef RPMAFIO_QUEUES_H
#define RPMAFIO_QUEUES_H

#include <stdint.h>

#include <librpma.h>

/* send queue, receive queue, completion queue; 0: librpma's default */
struct rpmafio_queues {
	uint32_t sq, rq, cq;
};

/* A new connection configuration with q (NULL: all defaults). 0 or a librpma error code. */
static inline int rpmafio_queues_cfg(const struct rpmafio_queues *q, struct rpma_conn_cfg **cfg)
{
	int ret = rpma_conn_cfg_new(cfg);
	if (ret || q == NULL)
		return ret;
	if ((q->sq && (ret = rpma_conn_cfg_set_sq_size(*cfg, q->sq))) ||
			(q->rq && (ret = rpma_conn_cfg_set_rq_size(*cfg, q->rq))) ||
			(q->cq && (ret = rpma_conn_cfg_set_cq_size(*cfg, q->cq))))
		(void) rpma_conn_cfg_delete(cfg);
	return ret;
}

#endif /* RPMAFIO_QUEUES_H */
