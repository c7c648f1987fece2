/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ranges.h -- the byte ranges of the server's memory a batch wrote, which its
 * flush must make durable (pure: no fio, no RDMA, no allocation after init).
 *
 * A batch of random writes flushed as ONE span from its lowest to its highest
 * byte makes the server persist everything in between: for 4 KiB random
 * writes over 16 MiB, ~426 bytes persisted per byte written. The list keeps
 * each write instead, contiguous and overlapping ones merged, so the flush
 * covers exactly the bytes written.
 *
 * Use: reset, add every write of the batch (any order), finish (sorts by
 * offset and merges), then read r[0..n). The storage is the caller's, sized
 * once for the most writes a batch can hold (iodepth): add never fails while
 * the batch holds no more writes than that.
 *
 * More ranges than a flush can carry (rpmafio_ranges_fit): the two neighbours
 * closest to each other are merged, again until it fits. The bytes between
 * them get persisted too (the client counts what it asks for, so it shows),
 * but a batch keeps ONE flush: a second request would make a batch complete
 * on two answers, and the GPSPM client's bookkeeping (gpspm/client_slots.h)
 * completes a batch on one. Closest first keeps the extra bytes the fewest a
 * single merge can add.
 */
#ifndef RPMAFIO_RANGES_H
#define RPMAFIO_RANGES_H

#include <stdint.h>

struct rpmafio_range {
	uint64_t offset;
	uint64_t len;
};

struct rpmafio_ranges {
	struct rpmafio_range *r;	/* cap entries, the caller's */
	uint32_t cap;
	uint32_t n;
};

static inline void rpmafio_ranges_init(struct rpmafio_ranges *rl, struct rpmafio_range *r,
	uint32_t cap)
{
	rl->r = r;
	rl->cap = cap;
	rl->n = 0;
}

static inline void rpmafio_ranges_reset(struct rpmafio_ranges *rl)
{
	rl->n = 0;
}

/*
 * Add [offset, offset + len) (len 0: nothing). Merged at once into the newest
 * range when it touches or overlaps it: sequential writes stay one range
 * without a sort. -1 when the list is full (nothing added).
 */
int rpmafio_ranges_add(struct rpmafio_ranges *rl, uint64_t offset, uint64_t len);

/* Sort by offset and merge every range that touches or overlaps the next. */
void rpmafio_ranges_finish(struct rpmafio_ranges *rl);

/* After finish: merge the closest neighbours until at most max (>= 1) are left. */
void rpmafio_ranges_fit(struct rpmafio_ranges *rl, uint32_t max);

/*
 * The list as one write's [offset, offset + len) (len 0: empty): a batch of
 * one needs no add, sort or merge (the sync path, where they were a tenth of
 * APM's client instructions per I/O).
 */
static inline void rpmafio_ranges_one(struct rpmafio_ranges *rl, uint64_t offset, uint64_t len)
{
	rl->r[0].offset = offset;
	rl->r[0].len = len;
	rl->n = len > 0;
}

/* the bytes the ranges cover */
static inline uint64_t rpmafio_ranges_bytes(const struct rpmafio_ranges *rl)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < rl->n; i++)
		sum += rl->r[i].len;
	return sum;
}

/* after finish, n > 0: from the first range's offset to the last one's end */
static inline uint64_t rpmafio_ranges_start(const struct rpmafio_ranges *rl)
{
	return rl->r[0].offset;
}

static inline uint64_t rpmafio_ranges_span(const struct rpmafio_ranges *rl)
{
	const struct rpmafio_range *last = &rl->r[rl->n - 1];
	return last->offset + last->len - rl->r[0].offset;
}

#endif /* RPMAFIO_RANGES_H */
