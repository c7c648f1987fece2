/* SPDX-License-Identifier: BSD-3-Clause */
/* peer.h -- the peer (one RDMA device and its protection domain), internal part */
#ifndef RPMA_PEER_H
#define RPMA_PEER_H

#include <stdbool.h>
#include <rdma/rdma_cma.h>
#include "librpma.h"

struct rpma_cq;
struct ibv_srq;

/*
 * Create the queue pair of a connection on id: send queue and receive queue
 * sized from cfg, completions to cq (and to rcq for receives when rcq is not
 * NULL), receives from srq when it is not NULL (the caller takes it from the
 * cfg: a peer knows nothing of rpma_srq, which is built on it). When the device does
 * native atomic write (and the build has ibv_wr_atomic_write) the QP is
 * created with the extended send operations enabled; a provider that refuses
 * them gets a plain QP (rpma_peer_refused_qp_ex()).
 * ERRORS: RPMA_E_INVAL when peer, id, cq or cfg is NULL; RPMA_E_PROVIDER
 * (errno set) when rdma_create_qp_ex() fails.
 */
int rpma_peer_setup_qp(struct rpma_peer *peer, struct rdma_cm_id *id, struct rpma_cq *cq,
		struct rpma_cq *rcq, struct ibv_srq *srq, const struct rpma_conn_cfg *cfg);

/*
 * Register memory with the peer's PD. Falls back to On-Demand Paging when
 * plain registration fails with EOPNOTSUPP and the device is ODP-capable.
 * peer must not be NULL.
 * ERRORS: RPMA_E_PROVIDER (errno: ibv_reg_mr()'s) when the registration
 * fails; a failure for want of locked memory also logs RLIMIT_MEMLOCK.
 */
int rpma_peer_mr_reg(struct rpma_peer *peer, struct ibv_mr **ibv_mr_ptr, void *addr,
		size_t length, int access);

/*
 * Create an SRQ of rq_size entries in the peer's PD (peer must not be NULL).
 * ERRORS: RPMA_E_PROVIDER (errno set) when ibv_create_srq() fails.
 */
int rpma_peer_create_srq(struct rpma_peer *peer, uint32_t rq_size, struct ibv_srq **ibv_srq_ptr);

/* The device context the peer was made on. ERRORS: none. */
struct ibv_context *rpma_peer_get_ibv_ctx(const struct rpma_peer *peer);

/* What the device offers natively (decided once, at rpma_peer_new()). */
/* Does the device execute ATOMIC WRITE (and the build post it)? ERRORS: none. */
bool rpma_peer_has_native_atomic_write(const struct rpma_peer *peer);
/* Does the device execute FLUSH of both placement types? ERRORS: none. */
bool rpma_peer_has_native_flush(const struct rpma_peer *peer);

/*
 * The device speaks iWARP: an RDMA read's response lands in the reader's
 * memory like a remote write (so a read's destination needs remote write
 * access), and there is no immediate data. ERRORS: none.
 */
bool rpma_peer_is_iwarp(const struct rpma_peer *peer);

/*
 * The provider refused a QP with the extended posting interface (iWARP's siw):
 * its QPs are plain ones, posting by ibv_post_send(). Learnt at the first
 * rpma_peer_setup_qp(). ERRORS: none.
 */
bool rpma_peer_refused_qp_ex(const struct rpma_peer *peer);

#endif /* RPMA_PEER_H */
