/* SPDX-License-Identifier: BSD-3-Clause */
/* server_slots.c -- the GPSPM server's message buffers (see server_slots.h) */
#include <stdlib.h>

#include "server_slots.h"

struct request {
	uint32_t index;		/* its receive buffer */
	uint32_t len;		/* bytes received */
};

struct gpspm_server_slots {
	uint32_t nslots;
	uint32_t nfree;		/* free send buffers: free_send[0 .. nfree) */
	uint32_t qhead, qlen;	/* waiting requests: queue[qhead ..], qlen of them */
	uint32_t *free_send;
	bool *send_busy;	/* per send buffer: its response is in flight */
	bool *waiting;		/* per receive buffer: holds a request not answered yet */
	struct request *queue;
};

int gpspm_server_slots_new(uint32_t nslots, struct gpspm_server_slots **slots_ptr)
{
	if (slots_ptr == NULL || nslots == 0)
		return -1;
	struct gpspm_server_slots *s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -1;
	s->free_send = calloc(nslots, sizeof(*s->free_send));
	s->send_busy = calloc(nslots, sizeof(*s->send_busy));
	s->waiting = calloc(nslots, sizeof(*s->waiting));
	s->queue = calloc(nslots, sizeof(*s->queue));
	if (!s->free_send || !s->send_busy || !s->waiting || !s->queue) {
		gpspm_server_slots_delete(&s);
		return -1;
	}
	s->nslots = nslots;
	for (uint32_t k = 0; k < nslots; k++)
		s->free_send[k] = nslots - 1 - k; /* buffer 0 is used first */
	s->nfree = nslots;
	*slots_ptr = s;
	return 0;
}

void gpspm_server_slots_delete(struct gpspm_server_slots **slots_ptr)
{
	if (slots_ptr == NULL || *slots_ptr == NULL)
		return;
	struct gpspm_server_slots *s = *slots_ptr;
	free(s->free_send);
	free(s->send_busy);
	free(s->waiting);
	free(s->queue);
	free(s);
	*slots_ptr = NULL;
}

int gpspm_server_slots_received(struct gpspm_server_slots *s, uint32_t index, uint32_t len)
{
	/* a buffer holding a request has no receive posted: nothing can land in it */
	if (index >= s->nslots || s->waiting[index])
		return -1;
	s->waiting[index] = true;
	s->queue[(s->qhead + s->qlen++) % s->nslots] = (struct request){index, len};
	return 0;
}

int gpspm_server_slots_sent(struct gpspm_server_slots *s, uint32_t index)
{
	if (index >= s->nslots || !s->send_busy[index])
		return -1;
	s->send_busy[index] = false;
	s->free_send[s->nfree++] = index;
	return 0;
}

bool gpspm_server_slots_next(struct gpspm_server_slots *s, uint32_t *recv_index, uint32_t *len,
		uint32_t *send_index)
{
	if (s->qlen == 0 || s->nfree == 0)
		return false;
	struct request r = s->queue[s->qhead];
	s->qhead = (s->qhead + 1) % s->nslots;
	s->qlen--;
	s->waiting[r.index] = false;
	uint32_t k = s->free_send[--s->nfree];
	s->send_busy[k] = true;
	*recv_index = r.index;
	*len = r.len;
	*send_index = k;
	return true;
}

bool gpspm_server_slots_waiting(const struct gpspm_server_slots *s)
{
	return s->qlen > 0;
}
