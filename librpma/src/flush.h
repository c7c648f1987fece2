/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flush.h -- the flush operation of one connection. Native when the device
 * (and the build) offer IBV_WR_FLUSH, else emulated: an RDMA read posted
 * after the writes; on an RC QP the read completes only after every earlier
 * write has been placed at the responder.
 */
#ifndef RPMA_FLUSH_H
#define RPMA_FLUSH_H

#include "librpma.h"

struct rpma_post;

struct rpma_flush;

/* Emulation reads up to this many bytes into a small registered buffer. */
#define RPMA_FLUSH_EMULATION_READ_LEN 8

/*
 * The flush of a connection on peer's device, with the emulation's buffer
 * registered. ERRORS: RPMA_E_INVAL (a NULL argument), RPMA_E_NOMEM,
 * RPMA_E_PROVIDER (the registration failed).
 */
int rpma_flush_new(struct rpma_peer *peer, struct rpma_flush **flush_ptr);
/*
 * Safe with *flush_ptr == NULL; *flush_ptr becomes NULL either way.
 * ERRORS: RPMA_E_INVAL (flush_ptr NULL), RPMA_E_PROVIDER (the buffer's
 * deregistration failed: the buffer is left allocated, never freed).
 */
int rpma_flush_delete(struct rpma_flush **flush_ptr);
/* Is a flush of dst through this object the device's own FLUSH (not the emulating read)?
 * ERRORS: none. */
bool rpma_flush_is_native(const struct rpma_flush *flush, const struct rpma_mr_remote *dst);
/*
 * Post the flush through post (collected while a batch is open). The
 * emulating read carries at most 8 bytes of the range, whatever len is, so it
 * takes any length.
 * ERRORS: RPMA_E_INVAL, with nothing posted, when the flush is native and len
 * is over UINT32_MAX (a native FLUSH carries a 32-bit length);
 * RPMA_E_PROVIDER (errno set) when posting fails.
 */
int rpma_flush_execute(struct rpma_flush *flush, struct rpma_post *post,
		const struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
		enum rpma_flush_type type, int flags, const void *op_context);

#endif /* RPMA_FLUSH_H */
