/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post.h -- the work requests of a connection: built from its operations'
 * arguments and posted to its QP. Outside a batch each request is posted by
 * itself; between rpma_post_batch_begin() and _end() they go with one
 * doorbell, by the way chosen once, when the object is made: a chain of
 * ibv_send_wr for one ibv_post_send(), or, where the QP has the extended
 * interface for every opcode built here, straight into the send queue
 * (ibv_wr_*) for one ibv_wr_complete(). Hot path: no allocation, no lock, no
 * log on success (the provider's own send-queue lock aside).
 */
#ifndef RPMA_POST_H
#define RPMA_POST_H

#include "librpma.h"

/* Work requests one doorbell carries at most: a batch with this many rings at once. */
#define RPMA_POST_BATCH_MAX 64

struct rpma_post;

/*
 * The posting of qp's work requests. qp_ex_expected: qp was created with the
 * extended interface; if ibv_qp_to_qp_ex() finds none, it is said in a log
 * line and batches go by ibv_post_send().
 * ERRORS: RPMA_E_INVAL (qp or post_ptr NULL), RPMA_E_NOMEM.
 */
int rpma_post_new(struct ibv_qp *qp, bool qp_ex_expected, struct rpma_post **post_ptr);

/*
 * Drop what a batch collected and did not post (an open session of the
 * extended interface is aborted: the provider's lock is given back), before
 * the QP is destroyed; *post_ptr becomes NULL. Safe with NULL and *NULL.
 * ERRORS: none.
 */
void rpma_post_delete(struct rpma_post **post_ptr);

/*
 * Collect the send-side requests from now on for one doorbell at _end().
 * A request with inline data and the RPMA_POST_BATCH_MAX-th ring at once with
 * what came before them; a native one (its own verb) rings for what was
 * collected and then goes alone. Meant for one thread.
 * ERRORS: RPMA_E_INVAL (post is NULL or a batch is open).
 */
int rpma_post_batch_begin(struct rpma_post *post);

/*
 * Ring once for what was collected and close the batch, also when posting
 * fails (the requests from the failed one on are dropped).
 * ERRORS: RPMA_E_INVAL (post is NULL or no batch is open), RPMA_E_PROVIDER
 * (errno set) when the doorbell (ibv_post_send() or ibv_wr_complete()) fails.
 */
int rpma_post_batch_end(struct rpma_post *post);

/*
 * The send-side requests. A remote or local region may be NULL only with a
 * length of 0 (the 0-byte message: no scatter entry, remote address and key
 * 0); len fits 32 bits (the callers check). flags: RPMA_F_COMPLETION_*.
 * Inside a batch an error may be that of a request collected earlier.
 */

/* RDMA read of [src_offset, +len) of src into [dst_offset, +len) of dst.
 * ERRORS: RPMA_E_PROVIDER (errno set). */
int rpma_post_read(struct rpma_post *post, struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len,
		int flags, const void *op_context);

/* RDMA write; opcode IBV_WR_RDMA_WRITE or IBV_WR_RDMA_WRITE_WITH_IMM, imm in host order.
 * ERRORS: RPMA_E_PROVIDER (errno set). */
int rpma_post_write(struct rpma_post *post, const struct rpma_mr_remote *dst,
		size_t dst_offset, const struct rpma_mr_local *src, size_t src_offset, size_t len,
		int flags, enum ibv_wr_opcode opcode, uint32_t imm, const void *op_context);

/*
 * 8-byte atomic write to an aligned dst_offset. native: the device's ATOMIC
 * WRITE (ibv_wr_atomic_write); otherwise a fenced, inlined 8-byte RDMA write,
 * which the responder places as one unit. Either way src is copied before
 * this returns.
 * ERRORS: RPMA_E_PROVIDER (errno set; EOPNOTSUPP: native on a QP without the
 * extended interface).
 */
int rpma_post_atomic_write(struct rpma_post *post, const struct rpma_mr_remote *dst,
		size_t dst_offset, const char src[8], int flags, const void *op_context,
		bool native);

/*
 * The device's FLUSH of [dst_offset, +len) of dst (ibv_wr_flush); defined only
 * where rdma-core has it (RPMA_HAVE_IBV_WR_FLUSH). len fits 32 bits.
 * ERRORS: RPMA_E_PROVIDER (errno set; EOPNOTSUPP: a QP without the extended
 * interface).
 */
int rpma_post_flush_native(struct rpma_post *post, const struct rpma_mr_remote *dst,
		size_t dst_offset, size_t len, enum rpma_flush_type type, int flags,
		const void *op_context);

/* Send; opcode IBV_WR_SEND or IBV_WR_SEND_WITH_IMM, imm in host order.
 * ERRORS: RPMA_E_PROVIDER (errno set). */
int rpma_post_send(struct rpma_post *post, const struct rpma_mr_local *src, size_t offset,
		size_t len, int flags, enum ibv_wr_opcode opcode, uint32_t imm,
		const void *op_context);

/*
 * Receives: another queue, posted at once, batch or not (a connection
 * request's QP and an SRQ have no rpma_post).
 * ERRORS: RPMA_E_PROVIDER (errno set).
 */
int rpma_post_recv(struct ibv_qp *qp, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context);
/* The same receive posted to an SRQ. ERRORS: RPMA_E_PROVIDER (errno set). */
int rpma_post_srq_recv(struct ibv_srq *srq, struct rpma_mr_local *dst, size_t offset,
		size_t len, const void *op_context);

#endif /* RPMA_POST_H */
