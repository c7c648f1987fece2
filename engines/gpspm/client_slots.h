/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client_slots.h -- the GPSPM client's flush requests in flight: which batches are
 * complete (pure: no fio, no RDMA; I/O requests are opaque pointers).
 *
 * Every batch of writes ends with ONE flush request, sent in the next slot
 * (slot = sequence number % nslots) with its sequence number as op_context.
 * A flush is done when BOTH the SEND of its request has completed (its
 * send-queue entries are free again) and the server's response has arrived
 * (its data is persistent), in either order. A batch without a flush (reads,
 * or writes when nothing is flushed) signals its last request and is done
 * with that request's own completion.
 *
 * Batches complete in the order they were posted: one FIFO holds both kinds,
 * and its done prefix completes. So a read is held back while a flush posted
 * before it is unanswered (it must not report data as persistent ahead of
 * them), and a flush waits for the reads posted before it (the client's ring
 * completes everything up to a request). The order of completions is NOT
 * relied on: iWARP completes a SEND once it is on the wire, so a flush's SEND
 * completion and even its response can come before the completion of a read
 * posted earlier, and a read posted later can complete before an earlier
 * flush's SEND does (Soft-iWARP does both).
 *
 * Every event returns what it completes (common/method.h):
 * RPMAFIO_COMPLETES_IO with *last set to the newest request it completes (it
 * and every request posted before it are done), RPMAFIO_COMPLETES_NOTHING, or
 * RPMAFIO_COMPLETES_UNKNOWN when it cannot happen (a peer or provider breaking
 * the protocol).
 */
#ifndef RPMAFIO_GPSPM_CLIENT_SLOTS_H
#define RPMAFIO_GPSPM_CLIENT_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/method.h"

struct gpspm_slots;

/*
 * nslots >= 1 flushes in flight at most, nbatches >= 1 batches without a flush
 * in flight at most. 0, or -1 (a 0, or no memory).
 */
int gpspm_slots_new(uint32_t nslots, uint32_t nbatches, struct gpspm_slots **slots_ptr);
void gpspm_slots_delete(struct gpspm_slots **slots_ptr);

/* The slot and sequence number the next flush gets; -1 when every slot is in use. */
int gpspm_slots_next(const struct gpspm_slots *s, uint32_t *index, uint64_t *seq);

/* The flush of gpspm_slots_next() was posted; `last` is its batch's last request. */
void gpspm_slots_push(struct gpspm_slots *s, void *last);

/* A batch without a flush was posted, `last` signalled. 0, or -1 when nbatches are in flight. */
int gpspm_slots_push_signalled(struct gpspm_slots *s, void *last);

/* The signalled last request `io` of a batch without a flush completed. */
enum rpmafio_completion gpspm_slots_io_done(struct gpspm_slots *s, const void *io, void **last);

/* The SEND of the flush in slot `index` completed (SENDs complete in order among themselves). */
enum rpmafio_completion gpspm_slots_sent(struct gpspm_slots *s, uint32_t index, void **last);

/* The server answered the flush with sequence number `seq` (from the network). */
enum rpmafio_completion gpspm_slots_answered(struct gpspm_slots *s, uint64_t seq, void **last);

/* no batch in flight */
bool gpspm_slots_idle(const struct gpspm_slots *s);

/* the sequence numbers in flight, [*head, *tail), for messages */
void gpspm_slots_range(const struct gpspm_slots *s, uint64_t *head, uint64_t *tail);

#endif /* RPMAFIO_GPSPM_CLIENT_SLOTS_H */
