/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.h -- memory regions, internal part: posting work requests that use
 * them. These are the hot path: no allocation, no lock, no log on success.
 */
#ifndef RPMA_MR_H
#define RPMA_MR_H

#include <stdbool.h>
#include "librpma.h"

struct rpma_post_list;

/* Size of the wire descriptor of a local region (addr 8 + len 8 + rkey 4 + usage 1). */
#define RPMA_MR_DESCRIPTOR_SIZE 21

/* IBV_SEND_SIGNALED when the flags ask for a completion on success. */
static inline unsigned rpma_mr_send_flags(int flags)
{
	return ((flags & RPMA_F_COMPLETION_ALWAYS) == RPMA_F_COMPLETION_ALWAYS) ?
		IBV_SEND_SIGNALED : 0;
}

/*
 * All of these return 0 or RPMA_E_PROVIDER (ibv_post_* failed, errno set). The
 * send-side ones post through list (NULL: at once; see post_list.h).
 */
int rpma_mr_read(struct rpma_post_list *list, struct ibv_qp *qp, struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len,
		int flags, const void *op_context);
/* opcode is IBV_WR_RDMA_WRITE or IBV_WR_RDMA_WRITE_WITH_IMM; imm in host order. */
int rpma_mr_write(struct rpma_post_list *list, struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset, size_t len,
		int flags, enum ibv_wr_opcode opcode, uint32_t imm, const void *op_context);
/*
 * 8-byte atomic write. native: ibv_wr_atomic_write on the QP's extended
 * interface; otherwise a fenced, inlined 8-byte RDMA write, which the
 * responder places as one unit.
 */
int rpma_mr_atomic_write(struct rpma_post_list *list, struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context, bool native);
/* opcode is IBV_WR_SEND or IBV_WR_SEND_WITH_IMM; imm in host order. */
int rpma_mr_send(struct rpma_post_list *list, struct ibv_qp *qp, const struct rpma_mr_local *src, size_t offset,
		size_t len, int flags, enum ibv_wr_opcode opcode, uint32_t imm,
		const void *op_context);
int rpma_mr_recv(struct ibv_qp *qp, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context);
int rpma_mr_srq_recv(struct ibv_srq *srq, struct rpma_mr_local *dst, size_t offset,
		size_t len, const void *op_context);

/* Accessors used by the flush object. */
uint64_t rpma_mr_remote_get_addr(const struct rpma_mr_remote *mr);
uint32_t rpma_mr_remote_get_rkey(const struct rpma_mr_remote *mr);
/* Did the application vouch that the region takes a native FLUSH? */
bool rpma_mr_remote_is_flush_native(const struct rpma_mr_remote *mr);

/* Pure decoder of the 21-byte wire format (untrusted input). */
int rpma_mr_descriptor_decode(const void *desc, size_t desc_size, uint64_t *addr,
		uint64_t *size, uint32_t *rkey, int *usage);

#endif /* RPMA_MR_H */
