/* SPDX-License-Identifier: BSD-3-Clause */
/* client_slots.c -- the GPSPM client's flush requests in flight (see client_slots.h) */
#include <stdlib.h>

#include "client_slots.h"

/* one batch in flight: a flush, or a batch without one */
struct batch {
	void *last;		/* the batch's last request */
	uint64_t seq;		/* a flush: its op_context */
	bool flush;
	bool sent;		/* a flush: its SEND completed */
	bool answered;		/* a flush: the server's response arrived */
	bool reported;		/* no flush: its last request completed */
};

struct gpspm_slots {
	uint32_t nslots;	/* flushes in flight at most */
	uint32_t nbatches;	/* batches without a flush in flight at most */
	uint32_t cap;		/* nslots + nbatches: the FIFO's size */
	uint32_t others;	/* batches without a flush in flight */
	uint64_t first;		/* the FIFO, in posting order: [first, next) */
	uint64_t next;
	uint64_t head;		/* flushes complete (sequence numbers below it) */
	uint64_t sent;		/* flushes whose SEND completed */
	uint64_t tail;		/* the next flush's sequence number */
	uint64_t *flush_at;	/* [seq % nslots]: the FIFO position of flush seq */
	struct batch fifo[];
};

int gpspm_slots_new(uint32_t nslots, uint32_t nbatches, struct gpspm_slots **slots_ptr)
{
	if (slots_ptr == NULL || nslots == 0 || nbatches == 0 || nslots > UINT32_MAX - nbatches)
		return -1;
	const uint32_t cap = nslots + nbatches;
	struct gpspm_slots *s = calloc(1, sizeof(*s) + (size_t)cap * sizeof(s->fifo[0]));
	if (s == NULL)
		return -1;
	s->flush_at = calloc(nslots, sizeof(s->flush_at[0]));
	if (s->flush_at == NULL) {
		free(s);
		return -1;
	}
	s->nslots = nslots;
	s->nbatches = nbatches;
	s->cap = cap;
	*slots_ptr = s;
	return 0;
}

void gpspm_slots_delete(struct gpspm_slots **slots_ptr)
{
	if (slots_ptr == NULL || *slots_ptr == NULL)
		return;
	free((*slots_ptr)->flush_at);
	free(*slots_ptr);
	*slots_ptr = NULL;
}

int gpspm_slots_next(const struct gpspm_slots *s, uint32_t *index, uint64_t *seq)
{
	if (s->tail - s->head >= s->nslots)
		return -1;
	*index = (uint32_t)(s->tail % s->nslots);
	*seq = s->tail;
	return 0;
}

static struct batch *batch_at(struct gpspm_slots *s, uint64_t pos)
{
	return &s->fifo[pos % s->cap];
}

void gpspm_slots_push(struct gpspm_slots *s, void *last)
{
	s->flush_at[s->tail % s->nslots] = s->next;
	*batch_at(s, s->next++) = (struct batch){.last = last, .seq = s->tail++, .flush = true};
}

int gpspm_slots_push_signalled(struct gpspm_slots *s, void *last)
{
	if (last == NULL || s->others == s->nbatches)
		return -1;
	s->others++;
	*batch_at(s, s->next++) = (struct batch){.last = last};
	return 0;
}

static bool batch_done(const struct batch *b)
{
	return b->flush ? b->sent && b->answered : b->reported;
}

/* Complete the done batches at the front of the FIFO, in posting order. */
static enum rpmafio_completion advance(struct gpspm_slots *s, void **last)
{
	void *done = NULL;

	while (s->first != s->next) {
		struct batch *b = batch_at(s, s->first);
		if (!batch_done(b))
			break;
		if (b->flush)
			s->head++;
		else
			s->others--;
		done = b->last;
		b->last = NULL;
		s->first++;
	}
	if (done == NULL)
		return RPMAFIO_COMPLETES_NOTHING;
	*last = done;
	return RPMAFIO_COMPLETES_IO;
}

enum rpmafio_completion gpspm_slots_io_done(struct gpspm_slots *s, const void *io, void **last)
{
	if (io == NULL)
		return RPMAFIO_COMPLETES_UNKNOWN;
	/* the oldest unreported batch ending in io (a request is in one batch at a time) */
	for (uint64_t pos = s->first; pos != s->next; pos++) {
		struct batch *b = batch_at(s, pos);
		if (!b->flush && !b->reported && b->last == io) {
			b->reported = true;
			return advance(s, last);
		}
	}
	return RPMAFIO_COMPLETES_UNKNOWN;
}

enum rpmafio_completion gpspm_slots_sent(struct gpspm_slots *s, uint32_t index, void **last)
{
	if (s->sent == s->tail || index != s->sent % s->nslots)
		return RPMAFIO_COMPLETES_UNKNOWN;
	batch_at(s, s->flush_at[index])->sent = true;
	s->sent++;
	return advance(s, last);
}

enum rpmafio_completion gpspm_slots_answered(struct gpspm_slots *s, uint64_t seq, void **last)
{
	if (seq < s->head || seq >= s->tail)
		return RPMAFIO_COMPLETES_UNKNOWN;
	struct batch *f = batch_at(s, s->flush_at[seq % s->nslots]);
	if (f->seq != seq || f->answered)
		return RPMAFIO_COMPLETES_UNKNOWN;
	f->answered = true;
	return advance(s, last);
}

bool gpspm_slots_idle(const struct gpspm_slots *s)
{
	return s->first == s->next;
}

void gpspm_slots_range(const struct gpspm_slots *s, uint64_t *head, uint64_t *tail)
{
	*head = s->head;
	*tail = s->tail;
}
