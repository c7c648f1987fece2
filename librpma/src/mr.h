/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.h -- memory regions, internal part: what the work requests (post.c) and
 * the flush object take from a region, and the descriptor's decoder.
 */
#ifndef RPMA_MR_H
#define RPMA_MR_H

#include <stdbool.h>
#include "librpma.h"

/* Size of the wire descriptor of a local region (addr 8 + len 8 + rkey 4 + usage 1). */
#define RPMA_MR_DESCRIPTOR_SIZE 21

/*
 * [offset, offset + len) of mr as one scatter entry; the caller keeps it
 * inside the region and len within 32 bits.
 * ERRORS: none.
 */
struct ibv_sge rpma_mr_get_sge(const struct rpma_mr_local *mr, size_t offset, size_t len);

/* Where a remote region starts. ERRORS: none. */
uint64_t rpma_mr_remote_get_addr(const struct rpma_mr_remote *mr);
/* The remote region's key. ERRORS: none. */
uint32_t rpma_mr_remote_get_rkey(const struct rpma_mr_remote *mr);
/* Did the application vouch that the region takes a native FLUSH? ERRORS: none. */
bool rpma_mr_remote_is_flush_native(const struct rpma_mr_remote *mr);

/*
 * Pure decoder of the 21-byte wire format (untrusted input).
 * ERRORS: RPMA_E_INVAL (a NULL argument, desc_size not 21), RPMA_E_NOSUPP (no
 * usage, or a range that wraps the address space).
 */
int rpma_mr_descriptor_decode(const void *desc, size_t desc_size, uint64_t *addr,
		uint64_t *size, uint32_t *rkey, int *usage);

#endif /* RPMA_MR_H */
