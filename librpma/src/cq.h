/* SPDX-License-Identifier: BSD-3-Clause */
/* cq.h -- completion queue, internal part */
#ifndef RPMA_CQ_H
#define RPMA_CQ_H

#include "librpma.h"

/*
 * Create a CQ of cqe entries, armed for notification. With shared_channel
 * NULL the CQ owns a completion channel of its own; otherwise it uses (and
 * does not own) shared_channel, and rpma_cq_wait() answers
 * RPMA_E_SHARED_CHANNEL. RPMA_E_PROVIDER, RPMA_E_NOMEM.
 */
int rpma_cq_new(struct ibv_context *ibv_ctx, int cqe, struct ibv_comp_channel *shared_channel,
		struct rpma_cq **cq_ptr);
/* Safe with *cq_ptr == NULL. RPMA_E_PROVIDER if a destroy fails (still freed). */
int rpma_cq_delete(struct rpma_cq **cq_ptr);
struct ibv_cq *rpma_cq_get_ibv_cq(const struct rpma_cq *cq);

#endif /* RPMA_CQ_H */
