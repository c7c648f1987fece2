/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server_slots.h -- the GPSPM server's message buffers: which received
 * requests wait for an answer and which send buffers are free (pure: no fio,
 * no RDMA).
 *
 * The server posts a receive in each of its nslots receive buffers and owns
 * nslots send buffers. A request that arrived waits in a FIFO until a send
 * buffer is free for its response; a response's buffer is free again once
 * its SEND completed. Every index comes from a completion, i.e. from what
 * the provider reports: anything out of range or out of turn is refused
 * (-1), never trusted.
 */
#ifndef RPMAFIO_GPSPM_SERVER_SLOTS_H
#define RPMAFIO_GPSPM_SERVER_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

struct gpspm_server_slots;

/* nslots >= 1 receive and send buffers. 0, or -1 (nslots 0, no memory). */
int gpspm_server_slots_new(uint32_t nslots, struct gpspm_server_slots **slots_ptr);
void gpspm_server_slots_delete(struct gpspm_server_slots **slots_ptr);

/* A request of len bytes arrived in receive buffer `index`: it waits for an answer. */
int gpspm_server_slots_received(struct gpspm_server_slots *s, uint32_t index, uint32_t len);

/* The SEND of the response in send buffer `index` completed: the buffer is free. */
int gpspm_server_slots_sent(struct gpspm_server_slots *s, uint32_t index);

/*
 * The oldest waiting request (its receive buffer and length) and a free send
 * buffer for its response, both taken; false when no request waits or no
 * send buffer is free.
 */
bool gpspm_server_slots_next(struct gpspm_server_slots *s, uint32_t *recv_index, uint32_t *len,
		uint32_t *send_index);

/* Do requests wait (for a send buffer)? */
bool gpspm_server_slots_waiting(const struct gpspm_server_slots *s);

#endif /* RPMAFIO_GPSPM_SERVER_SLOTS_H */
