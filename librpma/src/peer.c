/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer.c -- the peer: one RDMA device context and the protection domain in
 * which every QP, memory region and SRQ of the library is created. It also
 * remembers what the device can do (ODP, native atomic write and flush), so
 * the hot paths only test a flag.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cq.h"
#include "log.h"
#include "peer.h"
#include "provider.h"

struct rpma_peer {
	struct ibv_pd *pd;
	struct ibv_context *ibv_ctx;
	int is_odp_supported;
	bool native_atomic_write;
	bool native_flush;
	bool iwarp; /* the device's transport: see rpma_peer_is_iwarp() */
	bool refused_qp_ex; /* see rpma_peer_refused_qp_ex() */
};

/* The depth of the SGE lists: every operation moves one contiguous range. */
#define RPMA_PEER_MAX_SGE 1
/* The emulated atomic write carries its 8 bytes inline. */
#define RPMA_PEER_MAX_INLINE_DATA 8

/*
 * Ask the device which operations it executes natively. A device (or an
 * rdma-core) without the extended query simply has none, so a failed query
 * is not an error; the emulations cover it.
 */
static void peer_query_native_ops(struct rpma_peer *peer)
{
	struct ibv_device_attr_ex attr;

	memset(&attr, 0, sizeof(attr));
	int ret = ibv_query_device_ex(peer->ibv_ctx, NULL, &attr);
	if (ret) {
		RPMA_LOG_NOTICE("ibv_query_device_ex() failed (%s): native atomic write and flush "
			"are off", rpma_strerror_r_safe(ret));
		RPMA_LOG_INFO("atomic write: emulated, flush: emulated");
		return;
	}

	uint64_t caps = attr.device_cap_flags_ex;
	(void)caps; /* unused when the build offers neither native verb */
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	peer->native_atomic_write = (caps & RPMA_DEVICE_CAP_ATOMIC_WRITE) != 0;
#endif
#ifdef RPMA_HAVE_IBV_WR_FLUSH
	/* rpma_flush() may ask for either placement type, so both are needed */
	const uint64_t both = RPMA_DEVICE_CAP_FLUSH_GLOBAL | RPMA_DEVICE_CAP_FLUSH_PERSISTENT;
	peer->native_flush = (caps & both) == both;
#endif
	RPMA_LOG_INFO("atomic write: %s, flush: %s",
		peer->native_atomic_write ? "native" : "emulated",
		peer->native_flush ? "native" : "emulated");
}

/* ENOMEM and "no reason given" have codes of their own, per rpma_peer_new(3). */
static int peer_pd_error(int err)
{
	if (err == ENOMEM)
		return RPMA_E_NOMEM;
	return RPMA_E_FROM_ERRNO(err);
}

int rpma_peer_new(struct ibv_context *ibv_ctx, struct rpma_peer **peer_ptr)
{
	if (ibv_ctx == NULL || peer_ptr == NULL)
		return RPMA_E_INVAL;

	int is_odp_supported = 0;
	int ret = rpma_utils_ibv_context_is_odp_capable(ibv_ctx, &is_odp_supported);
	if (ret)
		return ret;

	errno = 0; /* so a failure without a reason is told apart */
	struct ibv_pd *pd = ibv_alloc_pd(ibv_ctx);
	if (pd == NULL) {
		int err = errno;
		(void)RPMA_PROVIDER_FAILED(err, "ibv_alloc_pd");
		return peer_pd_error(err);
	}

	struct rpma_peer *peer = calloc(1, sizeof(*peer));
	if (peer == NULL) {
		ret = RPMA_E_NOMEM;
		goto err_dealloc_pd;
	}

	peer->pd = pd;
	peer->ibv_ctx = ibv_ctx;
	peer->is_odp_supported = is_odp_supported;
	peer->iwarp = ibv_ctx->device != NULL && ibv_ctx->device->transport_type == IBV_TRANSPORT_IWARP;
	RPMA_LOG_INFO("transport: %s", peer->iwarp ? "iWARP" : "InfiniBand or RoCE");
	peer_query_native_ops(peer);

	*peer_ptr = peer;
	return 0;

err_dealloc_pd:
	(void)ibv_dealloc_pd(pd);
	return ret;
}

int rpma_peer_delete(struct rpma_peer **peer_ptr)
{
	if (peer_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_peer *peer = *peer_ptr;
	if (peer == NULL)
		return 0;

	/* On failure the peer stays whole, so the caller may release what holds the PD and retry. */
	int err = ibv_dealloc_pd(peer->pd); /* returns the errno value */
	if (err)
		return RPMA_PROVIDER_FAILED(err, "ibv_dealloc_pd");

	free(peer);
	*peer_ptr = NULL;
	return 0;
}

/*
 * The extended send operations the QP asks for: every opcode librpma posts (so
 * that it can post them all through ibv_wr_*, post.h), and the native verbs
 * in use.
 */
static uint64_t peer_send_ops_flags(const struct rpma_peer *peer)
{
	uint64_t flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ;
	(void)peer; /* unused when the build offers neither native verb */
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	if (peer->native_atomic_write)
		flags |= IBV_QP_EX_WITH_ATOMIC_WRITE;
#endif
#ifdef RPMA_HAVE_IBV_WR_FLUSH
	if (peer->native_flush)
		flags |= IBV_QP_EX_WITH_FLUSH;
#endif
	return flags;
}

/* how a provider says it has no extended interface (libibverbs: EOPNOTSUPP) */
static bool peer_refused_send_ops(int err)
{
	return err == EOPNOTSUPP || err == ENOSYS || err == EINVAL;
}

int rpma_peer_setup_qp(struct rpma_peer *peer, struct rdma_cm_id *id, struct rpma_cq *cq,
		struct rpma_cq *rcq, struct ibv_srq *srq, const struct rpma_conn_cfg *cfg)
{
	if (peer == NULL || id == NULL || cq == NULL || cfg == NULL)
		return RPMA_E_INVAL;

	uint32_t sq_size = 0;
	uint32_t rq_size = 0;
	/* the getters fail only on NULL arguments */
	(void)rpma_conn_cfg_get_sq_size(cfg, &sq_size);
	(void)rpma_conn_cfg_get_rq_size(cfg, &rq_size);

	struct ibv_qp_init_attr_ex attr;
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 0; /* the operations choose their completions */
	attr.send_cq = rpma_cq_get_ibv_cq(cq);
	attr.recv_cq = rpma_cq_get_ibv_cq(rcq ? rcq : cq);
	attr.srq = srq;
	attr.cap.max_send_wr = sq_size;
	attr.cap.max_recv_wr = srq ? 0 : rq_size; /* receives go to the SRQ instead */
	attr.cap.max_send_sge = RPMA_PEER_MAX_SGE;
	attr.cap.max_recv_sge = RPMA_PEER_MAX_SGE;
	attr.cap.max_inline_data = RPMA_PEER_MAX_INLINE_DATA;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	attr.pd = peer->pd;
	/* without these the QP has no ibv_qp_ex interface for ibv_wr_*() */
	attr.send_ops_flags = peer_send_ops_flags(peer);

	if (rdma_create_qp_ex(id, &attr) == 0)
		return 0;
	/*
	 * A provider without the extended interface (iWARP's siw) refuses it: the
	 * QP posts by ibv_post_send() then, as it must without the native verbs.
	 */
	if (!peer_refused_send_ops(errno) || peer->native_atomic_write || peer->native_flush)
		return RPMA_PROVIDER_FAILED(errno, "rdma_create_qp_ex");
	peer->refused_qp_ex = true;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr.send_ops_flags = 0;
	if (rdma_create_qp_ex(id, &attr))
		return RPMA_PROVIDER_FAILED(errno, "rdma_create_qp_ex");

	return 0;
}

/*
 * A registration pins its pages, and they count against RLIMIT_MEMLOCK (for
 * every process on iWARP's siw, for one without CAP_IPC_LOCK elsewhere): a
 * failure for want of memory then usually means that limit, so name it.
 */
static void peer_name_memlock_limit(size_t length)
{
	struct rlimit limit;

	if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
		return;
	RPMA_LOG_ERROR("cannot register %zu bytes: the locked-memory limit (RLIMIT_MEMLOCK, "
		"ulimit -l) is %llu bytes and registered memory counts against it; raise it "
		"(ulimit -l unlimited, or LimitMEMLOCK=infinity for a service)", length,
		(unsigned long long)limit.rlim_cur);
}

int rpma_peer_mr_reg(struct rpma_peer *peer, struct ibv_mr **ibv_mr_ptr, void *addr,
		size_t length, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(peer->pd, addr, length, access);
	if (mr == NULL && errno == EOPNOTSUPP && peer->is_odp_supported) {
		/* e.g. FS-DAX memory cannot be pinned; ODP does not need to pin it */
		RPMA_LOG_INFO("ibv_reg_mr() is not supported; retrying with On-Demand Paging");
		mr = ibv_reg_mr(peer->pd, addr, length, access | IBV_ACCESS_ON_DEMAND);
	}
	if (mr == NULL) {
		int err = errno;
		if (err == EOPNOTSUPP && !peer->is_odp_supported)
			RPMA_LOG_ERROR("the device cannot pin this memory (an fsdax file mapping?) "
				"and has no On-Demand Paging to register it otherwise");
		int ret = RPMA_PROVIDER_FAILED(err, "ibv_reg_mr");
		if (err == ENOMEM || err == EPERM || err == EAGAIN)
			peer_name_memlock_limit(length);
		errno = err;
		return ret;
	}

	*ibv_mr_ptr = mr;
	return 0;
}

int rpma_peer_create_srq(struct rpma_peer *peer, uint32_t rq_size, struct ibv_srq **ibv_srq_ptr)
{
	struct ibv_srq_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.attr.max_wr = rq_size;
	attr.attr.max_sge = RPMA_PEER_MAX_SGE;

	struct ibv_srq *srq = ibv_create_srq(peer->pd, &attr);
	if (srq == NULL)
		return RPMA_PROVIDER_FAILED(errno, "ibv_create_srq");

	*ibv_srq_ptr = srq;
	return 0;
}

struct ibv_context *rpma_peer_get_ibv_ctx(const struct rpma_peer *peer)
{
	return peer->ibv_ctx;
}

bool rpma_peer_has_native_atomic_write(const struct rpma_peer *peer)
{
	return peer->native_atomic_write;
}

bool rpma_peer_is_iwarp(const struct rpma_peer *peer)
{
	return peer->iwarp;
}

bool rpma_peer_refused_qp_ex(const struct rpma_peer *peer)
{
	return peer->refused_qp_ex;
}

bool rpma_peer_has_native_flush(const struct rpma_peer *peer)
{
	return peer->native_flush;
}

/* a CQ of the peer's device, for connections of any of its peers (librpma.h) */
int rpma_shared_rcq_new(struct rpma_peer *peer, uint32_t size, struct rpma_cq **rcq_ptr)
{
	if (peer == NULL || rcq_ptr == NULL || size == 0 || size > INT_MAX)
		return RPMA_E_INVAL;

	return rpma_cq_new(rpma_peer_get_ibv_ctx(peer), (int)size, NULL, rcq_ptr);
}

int rpma_shared_rcq_delete(struct rpma_cq **rcq_ptr)
{
	return rpma_cq_delete(rcq_ptr);
}
