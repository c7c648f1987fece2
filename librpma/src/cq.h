/* SPDX-License-Identifier: BSD-3-Clause */
/* cq.h -- completion queue, internal part */
#ifndef RPMA_CQ_H
#define RPMA_CQ_H

#include "librpma.h"

/*
 * Create a CQ of cqe entries, armed for notification. With shared_channel
 * NULL the CQ owns a completion channel of its own; otherwise it uses (and
 * does not own) shared_channel, and rpma_cq_wait() answers
 * RPMA_E_SHARED_CHANNEL. On failure nothing is left.
 * ERRORS: RPMA_E_INVAL when ibv_ctx or cq_ptr is NULL; RPMA_E_PROVIDER (errno
 * set) when ibv_create_comp_channel(), ibv_create_cq() or ibv_req_notify_cq()
 * fails; RPMA_E_NOMEM.
 */
int rpma_cq_new(struct ibv_context *ibv_ctx, int cqe, struct ibv_comp_channel *shared_channel,
		struct rpma_cq **cq_ptr);
/*
 * Destroy the CQ and the channel it owns; safe with *cq_ptr == NULL, which it
 * sets to NULL whatever happens (everything is torn down past a failure).
 * ERRORS: RPMA_E_INVAL when cq_ptr is NULL; RPMA_E_PROVIDER (errno: the first
 * failure's) when ibv_destroy_cq() or ibv_destroy_comp_channel() fails.
 */
int rpma_cq_delete(struct rpma_cq **cq_ptr);
/* The verbs CQ under cq (cq must not be NULL). ERRORS: none. */
struct ibv_cq *rpma_cq_get_ibv_cq(const struct rpma_cq *cq);

#endif /* RPMA_CQ_H */
