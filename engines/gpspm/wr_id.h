/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wr_id.h -- the work request ids of GPSPM's messages, on either side: a tag
 * in bits 62-63, the message buffer's index in bits 0-31 and, for the
 * hub's receives, the connection's number (of its client's port) in bits
 * 32-61: a completion of an earlier connection is told apart. The client's
 * reads and writes carry their I/O instead, a user-space address whose two
 * top bits are clear.
 */
#ifndef RPMAFIO_GPSPM_WR_ID_H
#define RPMAFIO_GPSPM_WR_ID_H

#include <stdint.h>

#define GPSPM_WR_TAG_MASK (3ULL << 62)
#define GPSPM_WR_SEND (1ULL << 62)
#define GPSPM_WR_RECV (2ULL << 62)
#define GPSPM_WR_LAST (3ULL << 62)	/* the client's last message */

#define GPSPM_WR_GEN_MASK 0x3fffffffu

static inline const void *gpspm_wr_id(uint64_t tag, uint32_t index)
{
	return (const void *)(uintptr_t)(tag | index);
}

static inline const void *gpspm_wr_id_gen(uint64_t tag, uint32_t gen, uint32_t index)
{
	return (const void *)(uintptr_t)(tag | (uint64_t)(gen & GPSPM_WR_GEN_MASK) << 32 | index);
}

static inline uint32_t gpspm_wr_gen(uint64_t id)
{
	return (uint32_t)(id >> 32) & GPSPM_WR_GEN_MASK;
}

static inline uint32_t gpspm_wr_index(uint64_t id)
{
	return (uint32_t)(id & 0xffffffffULL);
}

#endif /* RPMAFIO_GPSPM_WR_ID_H */
