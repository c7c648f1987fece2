/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_prog.h -- reading a fuzz input as a program: a cursor over the bytes
 * that hands out numbers, indices and messages, and zeros once the input is
 * used up (so every input is a valid program). For the sequence targets
 * (fuzz_gpspm_client.c, fuzz_gpspm_server.c).
 */
#ifndef RPMAFIO_FUZZ_PROG_H
#define RPMAFIO_FUZZ_PROG_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpspm/msg.h"

struct prog {
	const uint8_t *p;
	size_t n;	/* bytes left */
};

static inline bool prog_more(const struct prog *g)
{
	return g->n > 0;
}

static inline uint8_t prog_u8(struct prog *g)
{
	if (g->n == 0)
		return 0;
	g->n--;
	return *g->p++;
}

/* nbytes (<= 8) little-endian */
static inline uint64_t prog_uint(struct prog *g, unsigned nbytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < nbytes; i++)
		v |= (uint64_t)prog_u8(g) << (8 * i);
	return v;
}

/*
 * An index a completion reports, for nslots buffers: half the byte values
 * give `usual` (what the protocol leads to expect), a quarter any buffer, the
 * rest a number just past the last buffer or, after 0xff, any 32-bit number.
 */
static inline uint32_t prog_index(struct prog *g, uint32_t nslots, uint32_t usual)
{
	uint8_t b = prog_u8(g);
	assert(nslots > 0);
	if (b < 0x80)
		return usual;
	if (b < 0xc0)
		return (uint32_t)(b - 0x80) % nslots;
	if (b < 0xff)
		return nslots + (uint32_t)(b - 0xc0);
	return (uint32_t)prog_uint(g, 4);
}

/*
 * A message of a length from the input (up to a little more than a receive
 * buffer holds), its bytes from the input, zeros past its end. On the heap
 * and of exactly that size, so that a decoder reading past the length is an
 * ASan report. The caller frees it.
 */
static inline uint8_t *prog_msg(struct prog *g, uint32_t *len)
{
	*len = (uint32_t)(prog_uint(g, 2) % (GPSPM_MSG_MAX + 17));
	uint8_t *m = malloc(*len ? *len : 1);
	assert(m != NULL);
	size_t have = g->n < *len ? g->n : *len;
	memcpy(m, g->p, have);
	memset(m + have, 0, *len - have);
	g->p += have;
	g->n -= have;
	return m;
}

/* a one-line reason: not empty, NUL-terminated within its buffer */
static inline void assert_reason(const char *why, size_t size)
{
	assert(why[0] != '\0' && memchr(why, '\0', size) != NULL);
}

#endif /* RPMAFIO_FUZZ_PROG_H */
