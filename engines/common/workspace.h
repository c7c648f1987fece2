/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * workspace.h -- the "workspace": what a server tells its client in the
 * private data of the connection (pure functions, no fio, no RDMA).
 *
 * The first 28 bytes are those of fio 3.33's in-tree librpma engines
 * (struct librpma_fio_workspace, x86-64 layout), so either side of ours works
 * with either side of theirs; two bytes of ours follow. Little-endian, no padding:
 *
 *   offset 0  u16  max_msg_num          receive-queue slots (GPSPM), 0 for APM
 *   offset 2  u8   direct_write_to_pmem 0 or 1
 *   offset 3  u8   mr_desc_size         bytes of the descriptor used, at most 24
 *   offset 4  u8   descriptor[24]       the region's librpma descriptor, zero-padded
 *   offset 28 u8   flags                rpma-fio servers only: bit 0 = the region
 *                                       takes a native RDMA FLUSH (registered with
 *                                       flush access); other bits 0
 *   offset 29 u8   offers               what the client MAY use: bit 0 = a GPSPM
 *                                       server that takes flush requests
 *                                       carrying ranges (gpspm/msg.h, field
 *                                       15), bit 1 = packed ranges too (16)
 *
 * Flags and offers differ in what a client does with a bit it does not know.
 * A flag may change what the client must do, so an unknown one is refused. An
 * offer is something the client may ignore, so an unknown one is ignored --
 * and offers have a byte of their own because rpma-fio clients older than it
 * refuse any flag bit but bit 0: an offer in the flags byte would lock them
 * out of a newer server, in byte 29 they never read it.
 *
 * A server of ours sends 30 bytes, fio 3.33's 28 (its clients read no further
 * than the descriptor). The connection manager may deliver more (an RDMA CM
 * reply over InfiniBand/RoCE carries a fixed-size private data field, the rest
 * zero-filled), so a decoder accepts any length that holds the fixed part and
 * the descriptor it announces; a missing or zero flags byte means "no flags":
 * a fio 3.33 server's region is flushed by emulation; a missing or zero offers
 * byte means "no offers": its GPSPM server gets the plain flush requests it
 * knows.
 */
#ifndef RPMAFIO_WORKSPACE_H
#define RPMAFIO_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RPMAFIO_WS_HDR_SIZE 4	/* the fields before the descriptor */
#define RPMAFIO_WS_DESC_MAX 24	/* room for the descriptor */
#define RPMAFIO_WS_FIO333_SIZE (RPMAFIO_WS_HDR_SIZE + RPMAFIO_WS_DESC_MAX) /* fio 3.33's */
#define RPMAFIO_WS_FLAGS_OFF RPMAFIO_WS_FIO333_SIZE
#define RPMAFIO_WS_OFFERS_OFF (RPMAFIO_WS_FLAGS_OFF + 1)
#define RPMAFIO_WS_SIZE (RPMAFIO_WS_OFFERS_OFF + 1)	/* what a server of ours sends */
#define RPMAFIO_WS_FLUSH_NATIVE 0x01	/* flags: the region takes a native FLUSH */
#define RPMAFIO_WS_RANGED_FLUSH 0x01	/* offers: the server takes ranged flush requests */
#define RPMAFIO_WS_PACKED_RANGES 0x02	/* offers: ... and their packed ranges (field 16) */

struct rpmafio_ws {
	uint16_t max_msg_num;
	bool direct_write_to_pmem;
	uint8_t mr_desc_size;
	uint8_t mr_desc[RPMAFIO_WS_DESC_MAX];
	bool flush_native;	/* flags bit 0 */
	bool ranged_flush;	/* offers bit 0 */
	bool packed_ranges;	/* offers bit 1 */
};

/*
 * Encode ws into out[RPMAFIO_WS_SIZE] (unused descriptor bytes zeroed).
 * Returns -1 when ws->mr_desc_size is above RPMAFIO_WS_DESC_MAX.
 */
int rpmafio_ws_encode(const struct rpmafio_ws *ws, uint8_t out[RPMAFIO_WS_SIZE]);

/*
 * Decode len bytes from a peer (untrusted). Fails with a reason in err when
 * the buffer is missing or shorter than the fixed part, direct_write_to_pmem
 * is neither 0 nor 1, mr_desc_size is 0 or above RPMAFIO_WS_DESC_MAX, fewer
 * bytes arrived than mr_desc_size announces, or the flags byte has a bit
 * this side does not know (an unknown offer is ignored). *ws is written only
 * on success.
 * The descriptor itself is checked by rpma_mr_remote_from_descriptor().
 */
int rpmafio_ws_decode(const void *buf, size_t len, struct rpmafio_ws *ws,
		char *err, size_t errlen);

#endif /* RPMAFIO_WORKSPACE_H */
