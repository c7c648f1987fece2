/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring.h -- the bookkeeping of the client's I/O path (pure, header-only, no
 * fio, no RDMA): the ring of posted requests, and the queue sizes they need.
 *
 * The ring holds the requests (fio io_us) in the order they were posted on
 * the send queue. An RC queue pair completes its work requests in order, so
 * a completion for request X means X and every request posted before it are
 * done, signalled or not. Three free-running counters split the ring:
 *
 *     head ........ done ........ tail
 *     | completed,    | posted,      |
 *     | not yet given | not yet      |
 *     | back to fio   | completed    |
 *
 * Capacity is a power of two so that counter wrap-around is harmless.
 */
#ifndef RPMAFIO_RING_H
#define RPMAFIO_RING_H

#include <stdbool.h>
#include <stdint.h>

struct rpmafio_ring {
	void **slot;
	uint32_t mask;	/* capacity - 1 */
	uint32_t head;
	uint32_t done;
	uint32_t tail;
};

/* the capacity a ring needs for n entries: the next power of two (n >= 1) */
static inline uint32_t rpmafio_ring_capacity(uint32_t n)
{
	uint32_t cap = 1;
	while (cap < n)
		cap <<= 1;
	return cap;
}

/* slot must have rpmafio_ring_capacity(n) entries */
static inline void rpmafio_ring_init(struct rpmafio_ring *r, void **slot, uint32_t capacity)
{
	r->slot = slot;
	r->mask = capacity - 1;
	r->head = r->done = r->tail = 0;
}

/* entries in the ring: completed-not-reported plus in flight */
static inline uint32_t rpmafio_ring_used(const struct rpmafio_ring *r)
{
	return r->tail - r->head;
}

static inline uint32_t rpmafio_ring_inflight(const struct rpmafio_ring *r)
{
	return r->tail - r->done;
}

static inline uint32_t rpmafio_ring_ready(const struct rpmafio_ring *r)
{
	return r->done - r->head;
}

/* append a posted request; the caller checks there is room */
static inline void rpmafio_ring_push(struct rpmafio_ring *r, void *p)
{
	r->slot[r->tail++ & r->mask] = p;
}

/*
 * A completion arrived for p: p and everything posted before it are done.
 * Returns how many requests this completed, or -1 when p is not in flight
 * (nothing changes then).
 */
static inline int rpmafio_ring_complete_upto(struct rpmafio_ring *r, const void *p)
{
	for (uint32_t i = r->done; i != r->tail; i++) {
		if (r->slot[i & r->mask] == p) {
			int n = (int)(i + 1 - r->done);
			r->done = i + 1;
			return n;
		}
	}
	return -1;
}

/* everything in flight is over (failed): returns how many */
static inline uint32_t rpmafio_ring_complete_all(struct rpmafio_ring *r)
{
	uint32_t n = r->tail - r->done;
	r->done = r->tail;
	return n;
}

/* the oldest request done but not yet reported, or NULL */
static inline void *rpmafio_ring_pop_ready(struct rpmafio_ring *r)
{
	if (r->head == r->done)
		return NULL;
	return r->slot[r->head++ & r->mask];
}

/* the n-th (0-based) request in flight, for marking failed ones */
static inline void *rpmafio_ring_inflight_at(const struct rpmafio_ring *r, uint32_t n)
{
	return r->slot[(r->done + n) & r->mask];
}

/*
 * Queue sizes a client connection needs for `iodepth` requests in flight:
 * every request is one work request and a batch's flush takes at most one
 * work request per write (GPSPM: one SEND a batch; APM's native FLUSH: one per
 * written range, and a batch has no more ranges than writes -- ranges.h merges,
 * never splits), so at most 2 * iodepth are outstanding.
 * Unsignalled requests still report errors, so the CQ needs the same room.
 * Not counted: a written range longer than one native FLUSH carries (4 GiB)
 * adds a flush per 4 GiB (librpma_apm.c); a full send queue then fails the
 * post (ENOMEM), loudly.
 */
static inline uint32_t rpmafio_sq_size(uint32_t iodepth)
{
	return 2 * (iodepth ? iodepth : 1);
}

#endif /* RPMAFIO_RING_H */
