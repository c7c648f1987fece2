/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client_slots.h -- the GPSPM client's flush requests in flight: which batches are
 * complete (pure: no fio, no RDMA; I/O requests are opaque pointers).
 *
 * Every batch of writes ends with ONE flush request, sent in the next slot
 * (slot = sequence number % nslots) with its sequence number as op_context.
 * A batch is complete when BOTH the SEND of its request has completed (its
 * send-queue entries are free again) and the server's response has arrived
 * (its data is persistent); flushes complete in order, so a late answer to
 * an early request holds back every later one. Three free-running counters:
 *
 *     head .......... sent .......... tail
 *     | SEND done,      | SEND not      |
 *     | waiting for its | done yet      |
 *     | response        |               |
 *
 * A read batch completes with its last read's own completion, but that says
 * nothing about persistence: while flushes posted before the read are still
 * unanswered, the read is held back until they are ("gate"). The send queue
 * completes in posting order, so the flushes whose SEND has completed when a
 * read completes are exactly the ones posted before it.
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

/* nslots >= 1 flushes in flight at most. 0, or -1 (nslots 0, no memory). */
int gpspm_slots_new(uint32_t nslots, struct gpspm_slots **slots_ptr);
void gpspm_slots_delete(struct gpspm_slots **slots_ptr);

/* The slot and sequence number the next flush gets; -1 when every slot is in use. */
int gpspm_slots_next(const struct gpspm_slots *s, uint32_t *index, uint64_t *seq);

/* The flush of gpspm_slots_next() was posted; `last` is its batch's last request. */
void gpspm_slots_push(struct gpspm_slots *s, void *last);

/* The signalled read (or unflushed write) `io` completed. */
enum rpmafio_completion gpspm_slots_io_done(struct gpspm_slots *s, void *io, void **last);

/* The SEND of the flush in slot `index` completed (SENDs complete in order). */
enum rpmafio_completion gpspm_slots_sent(struct gpspm_slots *s, uint32_t index, void **last);

/* The server answered the flush with sequence number `seq` (from the network). */
enum rpmafio_completion gpspm_slots_answered(struct gpspm_slots *s, uint64_t seq, void **last);

/* no flush in flight */
bool gpspm_slots_idle(const struct gpspm_slots *s);

/* the sequence numbers in flight, [*head, *tail), for messages */
void gpspm_slots_range(const struct gpspm_slots *s, uint64_t *head, uint64_t *tail);

#endif /* RPMAFIO_GPSPM_CLIENT_SLOTS_H */
