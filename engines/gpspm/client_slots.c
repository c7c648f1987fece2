/* SPDX-License-Identifier: BSD-3-Clause */
/* client_slots.c -- the GPSPM client's flush requests in flight (see client_slots.h) */
#include <stdlib.h>

#include "client_slots.h"

struct slot {
	uint64_t seq;		/* its op_context */
	void *last;		/* the last request of its batch */
	bool sent;		/* its SEND completed */
	bool answered;		/* the server's response arrived */
};

struct gpspm_slots {
	uint32_t nslots;
	uint64_t head;		/* the oldest flush not complete */
	uint64_t sent;		/* flushes whose SEND completed */
	uint64_t tail;		/* the next flush */
	void *held;		/* a read waiting for the flushes before it */
	uint64_t held_gate;	/* ... i.e. until head reaches this */
	struct slot slot[];
};

int gpspm_slots_new(uint32_t nslots, struct gpspm_slots **slots_ptr)
{
	if (slots_ptr == NULL || nslots == 0)
		return -1;
	struct gpspm_slots *s = calloc(1, sizeof(*s) + (size_t)nslots * sizeof(s->slot[0]));
	if (s == NULL)
		return -1;
	s->nslots = nslots;
	*slots_ptr = s;
	return 0;
}

void gpspm_slots_delete(struct gpspm_slots **slots_ptr)
{
	if (slots_ptr == NULL)
		return;
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

void gpspm_slots_push(struct gpspm_slots *s, void *last)
{
	s->slot[s->tail % s->nslots] = (struct slot){.seq = s->tail, .last = last};
	s->tail++;
}

/*
 * Retire the complete flushes at the head, in order, and release a held read
 * once every flush before it is complete.
 */
static enum rpmafio_completion advance(struct gpspm_slots *s, void **last)
{
	void *done = NULL;
	uint64_t done_seq = 0;

	while (s->head != s->tail) {
		struct slot *f = &s->slot[s->head % s->nslots];
		if (!f->sent || !f->answered)
			break;
		done = f->last;
		done_seq = f->seq;
		f->last = NULL;
		s->head++;
	}
	if (s->held && s->head >= s->held_gate) {
		/* the read came after the flushes before its gate, before those from it on */
		if (done == NULL || done_seq < s->held_gate)
			done = s->held;
		s->held = NULL;
	}
	if (done == NULL)
		return RPMAFIO_COMPLETES_NOTHING;
	*last = done;
	return RPMAFIO_COMPLETES_IO;
}

enum rpmafio_completion gpspm_slots_io_done(struct gpspm_slots *s, void *io, void **last)
{
	if (io == NULL)
		return RPMAFIO_COMPLETES_UNKNOWN;
	if (s->head == s->sent) {
		*last = io;
		return RPMAFIO_COMPLETES_IO;
	}
	/*
	 * A read held already was posted before this one: waiting for this one's
	 * gate (never lower: sent only grows) and completing up to it covers both.
	 */
	s->held = io;
	s->held_gate = s->sent;
	return RPMAFIO_COMPLETES_NOTHING;
}

enum rpmafio_completion gpspm_slots_sent(struct gpspm_slots *s, uint32_t index, void **last)
{
	if (s->sent == s->tail || index != s->sent % s->nslots)
		return RPMAFIO_COMPLETES_UNKNOWN;
	s->slot[index].sent = true;
	s->sent++;
	return advance(s, last);
}

enum rpmafio_completion gpspm_slots_answered(struct gpspm_slots *s, uint64_t seq, void **last)
{
	if (seq < s->head || seq >= s->tail)
		return RPMAFIO_COMPLETES_UNKNOWN;
	struct slot *f = &s->slot[seq % s->nslots];
	if (f->seq != seq || f->answered)
		return RPMAFIO_COMPLETES_UNKNOWN;
	f->answered = true;
	return advance(s, last);
}

bool gpspm_slots_idle(const struct gpspm_slots *s)
{
	return s->head == s->tail;
}

void gpspm_slots_range(const struct gpspm_slots *s, uint64_t *head, uint64_t *tail)
{
	*head = s->head;
	*tail = s->tail;
}
