/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * provider.h -- what the library needs to know about libibverbs and
 * librdmacm beyond their headers: capability bits newer than the installed
 * rdma-core, and the errno-to-RPMA_E mapping used after a failed call.
 */
#ifndef RPMA_PROVIDER_H
#define RPMA_PROVIDER_H

#include <errno.h>
#include <stdint.h>

/* Extended device capability bits (kernel uAPI); rdma-core 44 lacks names for them. */
#define RPMA_DEVICE_CAP_FLUSH_GLOBAL (1ULL << 38)
#define RPMA_DEVICE_CAP_FLUSH_PERSISTENT (1ULL << 39)
#define RPMA_DEVICE_CAP_ATOMIC_WRITE (1ULL << 40)

/*
 * Memory access a native RDMA FLUSH needs on its target region (kernel uAPI
 * IB_UVERBS_ACCESS_FLUSH_*, IBV_ACCESS_FLUSH_* in rdma-core >= 45).
 */
#define RPMA_ACCESS_FLUSH_GLOBAL (1 << 8)
#define RPMA_ACCESS_FLUSH_PERSISTENT (1 << 9)

/*
 * Build-time detection (the Makefile defines these after probing the headers):
 * RPMA_HAVE_IBV_WR_ATOMIC_WRITE -- rdma-core offers ibv_wr_atomic_write()
 * RPMA_HAVE_IBV_WR_FLUSH        -- rdma-core offers ibv_wr_flush()
 */

/*
 * Provider calls report errors as errno (or as a positive return value);
 * keep it for the log and for the caller's errno, and return RPMA_E_PROVIDER.
 * An errno of 0 means the provider gave no reason: RPMA_E_UNKNOWN.
 */
#define RPMA_E_FROM_ERRNO(err) ((err) ? RPMA_E_PROVIDER : RPMA_E_UNKNOWN)

#endif /* RPMA_PROVIDER_H */
