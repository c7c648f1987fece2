/* SPDX-License-Identifier: BSD-3-Clause */
/* flush.c -- the flush operation of one connection: native or emulated (see flush.h) */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "flush.h"
#include "log.h"
#include "mr.h"
#include "post_list.h"
#include "peer.h"

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

#ifdef RPMA_HAVE_IBV_WR_FLUSH
/* Build the flush on qpx and ring for it: the provider's errno or 0. */
static int flush_native_post(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
		size_t len, uint8_t placement, unsigned send_flags, const void *op_context)
{
	ibv_wr_start(qpx);
	qpx->wr_id = (uint64_t)(uintptr_t)op_context;
	qpx->wr_flags = send_flags;
	ibv_wr_flush(qpx, rkey, remote_addr, len, placement, IBV_FLUSH_RANGE);
	return ibv_wr_complete(qpx);
}

static int flush_native(struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		size_t len, enum rpma_flush_type type, int flags, const void *op_context)
{
	uint32_t rkey = rpma_mr_remote_get_rkey(dst);
	uint64_t remote_addr = rpma_mr_remote_get_addr(dst) + dst_offset;
	unsigned send_flags = rpma_mr_send_flags(flags);
	uint8_t placement = (type == RPMA_FLUSH_TYPE_PERSISTENT) ?
		IBV_FLUSH_PERSISTENT : IBV_FLUSH_GLOBAL;
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	int err = qpx ? flush_native_post(qpx, rkey, remote_addr, len, placement, send_flags,
		op_context) : EOPNOTSUPP;
	if (err == 0)
		return 0;

	return RPMA_POST_FAILED(err, qpx ? "ibv_wr_complete" : "ibv_qp_to_qp_ex",
		rpma_wr_fields_of_remote("FLUSH", op_context, send_flags, remote_addr, rkey, len));
}
#endif

bool rpma_flush_is_native(const struct rpma_flush *flush, const struct rpma_mr_remote *dst)
{
	/*
	 * Both ends must agree: this device executes FLUSH, and the remote
	 * registration has the flush access it checks (which only the
	 * application can know: the wire formats have no room for it).
	 */
	return flush->native && rpma_mr_remote_is_flush_native(dst);
}

int rpma_flush_execute(struct rpma_flush *flush, struct rpma_post_list *list, struct ibv_qp *qp,
		struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
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
		/* posted by other means: what was collected goes first */
		int ret = rpma_post_list_drain(list, qp);
		return ret ? ret : flush_native(qp, dst, dst_offset, len, type, flags, op_context);
	}
#endif
	/*
	 * A read of the flushed range completes only after every earlier write
	 * on the QP has been placed; a few bytes of it are enough to wait on.
	 * So len never reaches the wire here and any length is taken.
	 */
	(void)type;
	size_t read_len = len < RPMA_FLUSH_EMULATION_READ_LEN ? len : RPMA_FLUSH_EMULATION_READ_LEN;
	return rpma_mr_read(list, qp, flush->buf_mr, 0, dst, dst_offset, read_len, flags, op_context);
}
