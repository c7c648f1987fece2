/* SPDX-License-Identifier: BSD-3-Clause */
/* flush.c -- the flush operation of one connection: native or emulated (see flush.h) */
#include <stdint.h>
#include <stdlib.h>

#include "flush.h"
#include "mr.h"
#include "peer.h"
#include "post.h"

struct rpma_flush {
	bool native;	/* the device executes FLUSH itself */
	/*
	 * the emulation's read lands here (its contents are never looked at);
	 * registered even on a native device, for remote regions that cannot
	 * take a native FLUSH
	 */
	struct rpma_mr_local *buf_mr;
	char buf[RPMA_FLUSH_EMULATION_READ_LEN];
};

int rpma_flush_new(struct rpma_peer *peer, struct rpma_flush **flush_ptr)
{
	if (peer == NULL || flush_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_flush *flush = calloc(1, sizeof(*flush));
	if (flush == NULL)
		return RPMA_E_NOMEM;

	flush->native = rpma_peer_has_native_flush(peer);
	int ret = rpma_mr_reg(peer, flush->buf, sizeof(flush->buf), RPMA_MR_USAGE_READ_DST,
			&flush->buf_mr);
	if (ret) {
		free(flush);
		return ret;
	}

	*flush_ptr = flush;
	return 0;
}

int rpma_flush_delete(struct rpma_flush **flush_ptr)
{
	if (flush_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_flush *flush = *flush_ptr;
	if (flush == NULL)
		return 0;

	/*
	 * A connection is going away: the object goes with it. Its read buffer is
	 * inside, so if the NIC can still reach it (the deregistration failed) the
	 * memory is left allocated, never freed.
	 */
	int ret = rpma_mr_dereg(&flush->buf_mr);
	if (ret == 0)
		free(flush);
	*flush_ptr = NULL;
	return ret;
}

bool rpma_flush_is_native(const struct rpma_flush *flush, const struct rpma_mr_remote *dst)
{
	/*
	 * Both ends must agree: this device executes FLUSH, and the remote
	 * registration has the flush access it checks (which only the
	 * application can know: the wire formats have no room for it).
	 */
	return flush->native && rpma_mr_remote_is_flush_native(dst);
}

int rpma_flush_execute(struct rpma_flush *flush, struct rpma_post *post,
		const struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
		enum rpma_flush_type type, int flags, const void *op_context)
{
#ifdef RPMA_HAVE_IBV_WR_FLUSH
	if (rpma_flush_is_native(flush, dst)) {
		/*
		 * The FLUSH's length is 32 bits on the wire: a longer one would be
		 * cut short and complete as if whole. Refused before anything,
		 * what was collected included, goes to the device.
		 */
		if (len > UINT32_MAX)
			return RPMA_E_INVAL;
		return rpma_post_flush_native(post, dst, dst_offset, len, type, flags, op_context);
	}
#endif
	/*
	 * A read of the flushed range completes only after every earlier write
	 * on the QP has been placed; a few bytes of it are enough to wait on.
	 * So len never reaches the wire here and any length is taken.
	 */
	(void)type;
	size_t read_len = len < RPMA_FLUSH_EMULATION_READ_LEN ? len : RPMA_FLUSH_EMULATION_READ_LEN;
	return rpma_post_read(post, flush->buf_mr, 0, dst, dst_offset, read_len, flags, op_context);
}
