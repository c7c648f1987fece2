/* SPDX-License-Identifier: BSD-3-Clause */
/* msg_bufs.c -- GPSPM's message buffers (see msg_bufs.h) */
#include <errno.h>
#include <string.h>

#include "common/report.h"
#include "msg_bufs.h"

int gpspm_msg_bufs_new(struct rpmafio_job *job, struct rpma_peer *peer,
	struct gpspm_msg_bufs *b)
{
	size_t size = 2 * (size_t)b->nslots * GPSPM_MSG_MAX;
	char why[RPMAFIO_ERR_LEN], buf[128];
	int ret;

	if (rpmafio_mem_map(RPMAFIO_MEM_DRAM, size, 0, &b->mem, why, sizeof(why)))
		return rpmafio_fail(job, ENOMEM, "message buffers: %s", why);
	/* no stale heap bytes go out in a message; and the NIC's writes are DMA,
	 * which a memory checker cannot see, so it must find the bytes defined */
	memset(b->mem.ptr, 0, size);
	if ((ret = rpma_mr_reg(peer, b->mem.ptr, size, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV,
			&b->mr))) {
		char hint[160];
		(void)rpmafio_memlock_hint(errno, hint, sizeof(hint));
		return rpmafio_fail(job, EIO, "cannot register %zu bytes of message buffers: %s%s",
			size, rpmafio_rpma_err(ret, buf, sizeof(buf)), hint);
	}
	return 0;
}

void gpspm_msg_bufs_delete(struct rpmafio_job *job, struct gpspm_msg_bufs *b)
{
	char buf[128];
	int ret;

	if (b->mr && (ret = rpma_mr_dereg(&b->mr))) {
		rpmafio_note(job, "cannot deregister the message buffers: %s; their memory is "
			"kept", rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return;
	}
	rpmafio_mem_unmap(&b->mem);
}
