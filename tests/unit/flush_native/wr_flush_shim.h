/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wr_flush_shim.h -- for the native-flush unit test only: what a newer
 * rdma-core (with ibv_wr_flush) adds to <infiniband/verbs.h>, so the
 * library's native flush path, which Debian 12's rdma-core 44 cannot
 * compile, is built and tested against the fake provider. Force-included
 * after build/probe.h when building the objects of this test.
 */
#ifndef WR_FLUSH_SHIM_H
#define WR_FLUSH_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#ifndef RPMA_HAVE_IBV_WR_FLUSH
#define RPMA_HAVE_IBV_WR_FLUSH 1

#define IBV_WC_FLUSH ((enum ibv_wc_opcode)8)
#define IBV_QP_EX_WITH_FLUSH (1 << 11)
#define IBV_FLUSH_GLOBAL 1
#define IBV_FLUSH_PERSISTENT 2
#define IBV_FLUSH_RANGE 0
#define IBV_FLUSH_MR 1

/* recorded by the fake provider in fake_posted (wr_op "flush") */
void fake_wr_flush(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, size_t len,
		uint8_t type, uint8_t level);

static inline void ibv_wr_flush(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		size_t len, uint8_t type, uint8_t level)
{
	fake_wr_flush(qp, rkey, remote_addr, len, type, level);
}
#endif

#endif /* WR_FLUSH_SHIM_H */
