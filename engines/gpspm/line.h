/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * line.h -- the GPSPM hub's clients with requests waiting, in the order they
 * got in line (pure: no fio, no RDMA). A client stands in line at most once:
 * joining again while in it changes nothing, so a client whose requests keep
 * coming keeps its place; taken out for its turn, it may join again, at the
 * back. Client numbers come from the hub's own bookkeeping, not the network,
 * but one out of range is still refused (-1).
 */
#ifndef RPMAFIO_GPSPM_LINE_H
#define RPMAFIO_GPSPM_LINE_H

#include <stdbool.h>

struct gpspm_line;

/* An empty line of clients 0 .. n - 1 (n >= 1). 0, or -1 (n 0, no memory). */
int gpspm_line_new(unsigned n, struct gpspm_line **line_ptr);
void gpspm_line_delete(struct gpspm_line **line_ptr);

/* Client k joins at the back unless it stands in line. 0, or -1 (k out of range). */
int gpspm_line_join(struct gpspm_line *l, unsigned k);

/* The client first in line, taken out of it (*k); false (*k untouched) when none waits. */
bool gpspm_line_next(struct gpspm_line *l, unsigned *k);

/* How many clients stand in line. */
unsigned gpspm_line_len(const struct gpspm_line *l);

#endif /* RPMAFIO_GPSPM_LINE_H */
