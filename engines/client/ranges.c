/* SPDX-License-Identifier: BSD-3-Clause */
/* ranges.c -- the byte ranges a batch wrote (see ranges.h) */
#include "ranges.h"

static inline uint64_t range_end(const struct rpmafio_range *r)
{
	return r->offset + r->len;
}

/* grow a to cover b as well (they touch or overlap, a starts first) */
static inline void range_absorb(struct rpmafio_range *a, const struct rpmafio_range *b)
{
	if (range_end(b) > range_end(a))
		a->len = range_end(b) - a->offset;
}

/* do a and b (a starts first) touch or overlap? */
static inline int range_touches(const struct rpmafio_range *a, const struct rpmafio_range *b)
{
	return b->offset <= range_end(a);
}

int rpmafio_ranges_add(struct rpmafio_ranges *rl, uint64_t offset, uint64_t len)
{
	const struct rpmafio_range w = {offset, len};

	if (len == 0)
		return 0;
	if (rl->n > 0) {
		struct rpmafio_range *newest = &rl->r[rl->n - 1];
		/* the common sequential case: right after (or over) the newest */
		if (newest->offset <= offset && range_touches(newest, &w)) {
			range_absorb(newest, &w);
			return 0;
		}
	}
	if (rl->n == rl->cap)
		return -1;
	rl->r[rl->n++] = w;
	return 0;
}

/*
 * Shell sort by offset (Ciura's gaps): in place, no allocation (a library
 * qsort may allocate), and a batch is at most iodepth ranges, already in
 * order when the writes were.
 */
static void sort_by_offset(struct rpmafio_range *r, uint32_t n)
{
	static const uint32_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};

	for (unsigned g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
		const uint32_t gap = gaps[g];
		for (uint32_t i = gap; i < n; i++) {
			struct rpmafio_range v = r[i];
			uint32_t j = i;
			for (; j >= gap && r[j - gap].offset > v.offset; j -= gap)
				r[j] = r[j - gap];
			r[j] = v;
		}
	}
}

void rpmafio_ranges_finish(struct rpmafio_ranges *rl)
{
	uint32_t out = 0;

	if (rl->n < 2)
		return;
	sort_by_offset(rl->r, rl->n);
	for (uint32_t i = 1; i < rl->n; i++) {
		if (range_touches(&rl->r[out], &rl->r[i]))
			range_absorb(&rl->r[out], &rl->r[i]);
		else
			rl->r[++out] = rl->r[i];
	}
	rl->n = out + 1;
}

/* the index i whose gap to i + 1 is the smallest (n >= 2, sorted, merged) */
static uint32_t closest_pair(const struct rpmafio_ranges *rl)
{
	uint32_t best = 0;
	uint64_t best_gap = UINT64_MAX;

	for (uint32_t i = 0; i + 1 < rl->n; i++) {
		uint64_t gap = rl->r[i + 1].offset - range_end(&rl->r[i]);
		if (gap < best_gap) {
			best_gap = gap;
			best = i;
		}
	}
	return best;
}

/*
 * One merge per range too many, each a scan: quadratic, but only a batch of
 * more ranges than a flush carries pays it (GPSPM: more than 30 writes).
 */
void rpmafio_ranges_fit(struct rpmafio_ranges *rl, uint32_t max)
{
	if (max == 0)
		max = 1;
	if (max == 1 && rl->n > 1) {
		/* the span at once (a server taking one range a request) */
		rl->r[0].len = rpmafio_ranges_span(rl);
		rl->n = 1;
		return;
	}
	while (rl->n > max) {
		uint32_t i = closest_pair(rl);
		range_absorb(&rl->r[i], &rl->r[i + 1]);
		for (uint32_t j = i + 1; j + 1 < rl->n; j++)
			rl->r[j] = rl->r[j + 1];
		rl->n--;
	}
}
