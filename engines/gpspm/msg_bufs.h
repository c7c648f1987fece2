/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msg_bufs.h -- GPSPM's message buffers, on either side: nslots send buffers
 * and nslots receive buffers of GPSPM_MSG_MAX bytes each, in one DRAM region
 * registered for SEND and RECV. The client puts its send buffers first, the
 * server its receive buffers (recv_first).
 */
#ifndef RPMAFIO_GPSPM_MSG_BUFS_H
#define RPMAFIO_GPSPM_MSG_BUFS_H

#include <stddef.h>
#include <stdint.h>

#include <librpma.h>

#include "common/job.h"
#include "common/mem.h"
#include "msg.h"

struct gpspm_msg_bufs {
	struct rpmafio_mem mem;
	struct rpma_mr_local *mr;
	uint32_t nslots;
	size_t recv_first;	/* 0 or nslots: where the receive buffers begin */
};

/* where send buffer k and receive buffer k are in the region */
static inline size_t gpspm_send_off(const struct gpspm_msg_bufs *b, uint32_t k)
{
	return ((b->recv_first ? 0 : b->nslots) + (size_t)k) * GPSPM_MSG_MAX;
}

static inline size_t gpspm_recv_off(const struct gpspm_msg_bufs *b, uint32_t k)
{
	return (b->recv_first + (size_t)k) * GPSPM_MSG_MAX;
}

static inline char *gpspm_send_buf(const struct gpspm_msg_bufs *b, uint32_t k)
{
	return (char *)b->mem.ptr + gpspm_send_off(b, k);
}

/* Map and register b->nslots of each (zeroed). 0, or -1 after rpmafio_fail(). */
int gpspm_msg_bufs_new(struct rpmafio_job *job, struct rpma_peer *peer,
	struct gpspm_msg_bufs *b);

/* After the connection is gone; memory still registered is never freed. */
void gpspm_msg_bufs_delete(struct rpmafio_job *job, struct gpspm_msg_bufs *b);

#endif /* RPMAFIO_GPSPM_MSG_BUFS_H */
