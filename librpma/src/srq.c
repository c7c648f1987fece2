/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq.c -- shared receive queue: one receive queue (and optionally one
 * receive CQ) that many connections of a peer take their receives from.
 */
#include <errno.h>
#include <stdlib.h>

#include "cq.h"
#include "log.h"
#include "post.h"
#include "peer.h"
#include "srq.h"
#include "srq_cfg.h"

struct rpma_srq {
	struct ibv_srq *ibv_srq;
	struct rpma_cq *rcq; /* NULL when the configuration asks for none */
	bool iwarp; /* no receive without a buffer */
};

int rpma_srq_new(struct rpma_peer *peer, struct rpma_srq_cfg *cfg, struct rpma_srq **srq_ptr)
{
	if (peer == NULL || srq_ptr == NULL)
		return RPMA_E_INVAL;

	const struct rpma_srq_cfg *used = cfg ? cfg : rpma_srq_cfg_default();
	uint32_t rq_size = 0;
	uint32_t rcq_size = 0;
	/* the getters fail only on NULL arguments */
	(void)rpma_srq_cfg_get_rq_size(used, &rq_size);
	(void)rpma_srq_cfg_get_rcq_size(used, &rcq_size);

	struct rpma_srq *srq = calloc(1, sizeof(*srq));
	if (srq == NULL)
		return RPMA_E_NOMEM;
	srq->iwarp = rpma_peer_is_iwarp(peer);

	int ret = rpma_peer_create_srq(peer, rq_size, &srq->ibv_srq);
	if (ret)
		goto err_free;

	if (rcq_size > 0) {
		ret = rpma_cq_new(rpma_peer_get_ibv_ctx(peer), (int)rcq_size, NULL, &srq->rcq);
		if (ret)
			goto err_destroy_srq;
	}

	*srq_ptr = srq;
	return 0;

err_destroy_srq:
	(void)ibv_destroy_srq(srq->ibv_srq);
err_free:
	free(srq);
	return ret;
}

int rpma_srq_delete(struct rpma_srq **srq_ptr)
{
	if (srq_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_srq *srq = *srq_ptr;
	if (srq == NULL)
		return 0;

	/* the object goes away even past a failure (rpma_srq_delete(3)); report the first */
	int ret = rpma_cq_delete(&srq->rcq);
	int first_errno = errno; /* meaningful only when ret says so */
	int err = ibv_destroy_srq(srq->ibv_srq);
	if (err) {
		RPMA_LOG_ERROR_ERRNO(err, "ibv_destroy_srq");
		if (ret == 0) {
			ret = RPMA_E_PROVIDER;
			first_errno = err;
		}
	}

	free(srq);
	*srq_ptr = NULL;
	if (ret)
		errno = first_errno;
	return ret;
}

/* inline: see ops.c */
inline int rpma_srq_recv(struct rpma_srq *srq, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context)
{
	if (srq == NULL)
		return RPMA_E_INVAL;
	if ((dst == NULL && (offset != 0 || len != 0)) || len > UINT32_MAX)
		return RPMA_E_INVAL;
	if (len == 0 && srq->iwarp) {
		RPMA_LOG_ERROR("rpma_srq_recv of 0 bytes: iWARP has no immediate data"
			" and takes no receive without a buffer: not posted");
		return RPMA_E_NOSUPP;
	}

	return rpma_post_srq_recv(srq->ibv_srq, dst, offset, len, op_context);
}

int rpma_srq_get_rcq(const struct rpma_srq *srq, struct rpma_cq **rcq_ptr)
{
	if (srq == NULL || rcq_ptr == NULL)
		return RPMA_E_INVAL;

	*rcq_ptr = srq->rcq;
	return 0;
}

struct ibv_srq *rpma_srq_get_ibv_srq(const struct rpma_srq *srq)
{
	return srq->ibv_srq;
}
