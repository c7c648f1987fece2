/* SPDX-License-Identifier: BSD-3-Clause */
/* line.c -- the GPSPM hub's clients in line for their turns (see line.h) */
#include <stdlib.h>

#include "line.h"

struct gpspm_line {
	unsigned n;
	unsigned head, len;	/* who stands in line: at[head], at[head + 1] ... (mod n) */
	unsigned *at;
	bool *in;		/* per client: stands in line */
};

int gpspm_line_new(unsigned n, struct gpspm_line **line_ptr)
{
	if (line_ptr == NULL || n == 0)
		return -1;
	struct gpspm_line *l = calloc(1, sizeof(*l));
	if (l == NULL)
		return -1;
	l->n = n;
	l->at = calloc(n, sizeof(*l->at));
	l->in = calloc(n, sizeof(*l->in));
	if (l->at == NULL || l->in == NULL) {
		gpspm_line_delete(&l);
		return -1;
	}
	*line_ptr = l;
	return 0;
}

void gpspm_line_delete(struct gpspm_line **line_ptr)
{
	if (line_ptr == NULL || *line_ptr == NULL)
		return;
	free((*line_ptr)->at);
	free((*line_ptr)->in);
	free(*line_ptr);
	*line_ptr = NULL;
}

int gpspm_line_join(struct gpspm_line *l, unsigned k)
{
	if (k >= l->n)
		return -1;
	if (l->in[k])
		return 0;
	/* (no one stands twice: len < n here, the back is free) */
	l->in[k] = true;
	l->at[(l->head + l->len++) % l->n] = k;
	return 0;
}

bool gpspm_line_next(struct gpspm_line *l, unsigned *k)
{
	if (l->len == 0)
		return false;
	*k = l->at[l->head];
	l->head = (l->head + 1) % l->n;
	l->len--;
	l->in[*k] = false;
	return true;
}

unsigned gpspm_line_len(const struct gpspm_line *l)
{
	return l->len;
}
