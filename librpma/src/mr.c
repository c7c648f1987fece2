/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.c -- memory regions: local registrations, their 21-byte wire
 * descriptors, the remote regions decoded from them, and the posting of
 * the work requests that use them.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mr.h"
#include "peer.h"
#include "post_list.h"
#include "provider.h"

struct rpma_mr_local {
	struct ibv_mr *ibv_mr;
	int usage;
	bool flush_native;	/* registered with the flush access a native FLUSH needs */
};

struct rpma_mr_remote {
	uint64_t raddr;
	uint64_t size;
	uint32_t rkey;
	int usage;
	bool flush_native;	/* the application vouched for it: see rpma_mr_remote_set_flush_native() */
};

#define RPMA_MR_USAGE_ALL (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_READ_DST | \
	RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_WRITE_DST | \
	RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | \
	RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

/* Usages under which the local NIC writes into the region. */
#define RPMA_MR_USAGE_LOCALLY_WRITTEN (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_DST | \
	RPMA_MR_USAGE_RECV)

/* Descriptor layout: little-endian, packed, no padding. */
#define DESC_OFF_ADDR 0
#define DESC_OFF_LENGTH 8
#define DESC_OFF_RKEY 16
#define DESC_OFF_USAGE 20

/* ---- registration ---- */

/*
 * The least access a usage needs. Local read is always allowed, so a
 * region that is only a source gets no flag at all and is never remotely
 * writable. The emulated flush is an RDMA read of the flushed region; a
 * device that executes RDMA FLUSH natively checks the flush access of the
 * region instead (a persistent flush may also be asked for visibility only).
 */
static int mr_usage_to_access(const struct rpma_peer *peer, int usage)
{
	int access = 0;

	if (usage & (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
			RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		access |= IBV_ACCESS_REMOTE_READ;
	if (rpma_peer_has_native_flush(peer)) {
		if (usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
			access |= RPMA_ACCESS_FLUSH_GLOBAL;
		if (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)
			access |= RPMA_ACCESS_FLUSH_PERSISTENT;
	}
	if (usage & RPMA_MR_USAGE_LOCALLY_WRITTEN)
		access |= IBV_ACCESS_LOCAL_WRITE;
	if (usage & RPMA_MR_USAGE_WRITE_DST)
		access |= IBV_ACCESS_REMOTE_WRITE; /* verbs require LOCAL_WRITE with it: set above */
	/* iWARP places a read's response as a remote write into the destination */
	if ((usage & RPMA_MR_USAGE_READ_DST) && rpma_peer_is_iwarp(peer))
		access |= IBV_ACCESS_REMOTE_WRITE;

	return access;
}

int rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		struct rpma_mr_local **mr_ptr)
{
	if (peer == NULL || ptr == NULL || mr_ptr == NULL)
		return RPMA_E_INVAL;
	if (size == 0)
		return RPMA_E_INVAL;
	if (usage == 0 || (usage & ~RPMA_MR_USAGE_ALL))
		return RPMA_E_INVAL;

	struct rpma_mr_local *mr = malloc(sizeof(*mr));
	if (mr == NULL)
		return RPMA_E_NOMEM;

	int ret = rpma_peer_mr_reg(peer, &mr->ibv_mr, ptr, size, mr_usage_to_access(peer, usage));
	if (ret) {
		free(mr);
		return ret;
	}

	mr->usage = usage;
	mr->flush_native = rpma_peer_has_native_flush(peer) &&
		(usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT));
	*mr_ptr = mr;
	return 0;
}

int rpma_mr_get_flush_native(const struct rpma_mr_local *mr, bool *native)
{
	if (mr == NULL || native == NULL)
		return RPMA_E_INVAL;
	*native = mr->flush_native;
	return 0;
}

int rpma_mr_dereg(struct rpma_mr_local **mr_ptr)
{
	if (mr_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_mr_local *mr = *mr_ptr;
	if (mr == NULL)
		return 0;

	int ret = ibv_dereg_mr(mr->ibv_mr);
	if (ret) {
		/* the registration is still alive, so the object stays with the caller */
		return RPMA_PROVIDER_FAILED(ret, "ibv_dereg_mr");
	}

	free(mr);
	*mr_ptr = NULL;
	return 0;
}

int rpma_mr_get_ptr(const struct rpma_mr_local *mr, void **ptr)
{
	if (mr == NULL || ptr == NULL)
		return RPMA_E_INVAL;

	*ptr = mr->ibv_mr->addr;
	return 0;
}

int rpma_mr_get_size(const struct rpma_mr_local *mr, size_t *size)
{
	if (mr == NULL || size == NULL)
		return RPMA_E_INVAL;

	*size = mr->ibv_mr->length;
	return 0;
}

/* ---- descriptors ---- */

/* Byte by byte through memcpy: the buffer may be unaligned and the host big-endian. */
static void put_le64(uint8_t *dst, uint64_t v)
{
	v = htole64(v);
	memcpy(dst, &v, sizeof(v));
}

static void put_le32(uint8_t *dst, uint32_t v)
{
	v = htole32(v);
	memcpy(dst, &v, sizeof(v));
}

static uint64_t get_le64(const uint8_t *src)
{
	uint64_t v;
	memcpy(&v, src, sizeof(v));
	return le64toh(v);
}

static uint32_t get_le32(const uint8_t *src)
{
	uint32_t v;
	memcpy(&v, src, sizeof(v));
	return le32toh(v);
}

int rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc)
{
	if (mr == NULL || desc == NULL)
		return RPMA_E_INVAL;

	uint8_t *buf = desc;
	put_le64(buf + DESC_OFF_ADDR, (uint64_t)(uintptr_t)mr->ibv_mr->addr);
	put_le64(buf + DESC_OFF_LENGTH, (uint64_t)mr->ibv_mr->length);
	put_le32(buf + DESC_OFF_RKEY, mr->ibv_mr->rkey);
	buf[DESC_OFF_USAGE] = (uint8_t)mr->usage;
	return 0;
}

int rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr, size_t *desc_size)
{
	if (mr == NULL || desc_size == NULL)
		return RPMA_E_INVAL;

	*desc_size = RPMA_MR_DESCRIPTOR_SIZE;
	return 0;
}

int rpma_mr_descriptor_decode(const void *desc, size_t desc_size, uint64_t *addr,
		uint64_t *size, uint32_t *rkey, int *usage)
{
	if (desc == NULL || addr == NULL || size == NULL || rkey == NULL || usage == NULL)
		return RPMA_E_INVAL;
	if (desc_size != RPMA_MR_DESCRIPTOR_SIZE)
		return RPMA_E_INVAL;

	const uint8_t *buf = desc;
	uint64_t a = get_le64(buf + DESC_OFF_ADDR);
	uint64_t s = get_le64(buf + DESC_OFF_LENGTH);
	uint8_t u = buf[DESC_OFF_USAGE];

	/* A region nobody may use, or one that wraps the address space, is no region. */
	if (u == 0 || a + s < a)
		return RPMA_E_NOSUPP;

	*addr = a;
	*size = s;
	*rkey = get_le32(buf + DESC_OFF_RKEY);
	*usage = u;
	return 0;
}

int rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_mr_remote **mr_ptr)
{
	if (desc == NULL || mr_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_mr_remote decoded;
	int ret = rpma_mr_descriptor_decode(desc, desc_size, &decoded.raddr, &decoded.size,
			&decoded.rkey, &decoded.usage);
	if (ret)
		return ret;

	struct rpma_mr_remote *mr = malloc(sizeof(*mr));
	if (mr == NULL)
		return RPMA_E_NOMEM;

	*mr = decoded;
	mr->flush_native = false; /* nothing on the wire says so: only the application can */
	*mr_ptr = mr;
	return 0;
}

int rpma_mr_remote_get_size(const struct rpma_mr_remote *mr, size_t *size)
{
	if (mr == NULL || size == NULL)
		return RPMA_E_INVAL;

	*size = (size_t)mr->size;
	return 0;
}

int rpma_mr_remote_get_flush_type(const struct rpma_mr_remote *mr, int *flush_type)
{
	if (mr == NULL || flush_type == NULL)
		return RPMA_E_INVAL;

	*flush_type = mr->usage &
		(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	return 0;
}

int rpma_mr_remote_set_flush_native(struct rpma_mr_remote *mr)
{
	if (mr == NULL)
		return RPMA_E_INVAL;
	/* a region registered for no flush has no flush access to vouch for */
	if (!(mr->usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)))
		return RPMA_E_NOSUPP;
	mr->flush_native = true;
	return 0;
}

int rpma_mr_remote_delete(struct rpma_mr_remote **mr_ptr)
{
	if (mr_ptr == NULL)
		return RPMA_E_INVAL;

	free(*mr_ptr);
	*mr_ptr = NULL;
	return 0;
}

uint64_t rpma_mr_remote_get_addr(const struct rpma_mr_remote *mr)
{
	return mr->raddr;
}

uint32_t rpma_mr_remote_get_rkey(const struct rpma_mr_remote *mr)
{
	return mr->rkey;
}

bool rpma_mr_remote_is_flush_native(const struct rpma_mr_remote *mr)
{
	return mr->flush_native;
}

/* ---- advice ---- */

static bool mr_advice_allowed(int advice, int usage)
{
	switch (advice) {
	case IBV_ADVISE_MR_ADVICE_PREFETCH:
	case IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		return true;
	case IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		/* prefetching for write only makes sense where the NIC writes */
		return (usage & RPMA_MR_USAGE_LOCALLY_WRITTEN) != 0;
	default:
		return false;
	}
}

/* ibv_advise_mr(3) returns an errno; rpma_mr_advise(3) names three outcomes. */
static int mr_advise_error(int err)
{
	switch (err) {
	case EOPNOTSUPP:
#if ENOTSUP != EOPNOTSUPP
	case ENOTSUP:
#endif
		return RPMA_E_NOSUPP;
	case EFAULT:
	case EINVAL:
		return RPMA_E_INVAL;
	default:
		return RPMA_E_PROVIDER;
	}
}

int rpma_mr_advise(struct rpma_mr_local *mr, size_t offset, size_t len, int advice,
		uint32_t flags)
{
	if (mr == NULL)
		return RPMA_E_INVAL;
	/* in bounds without overflowing, and expressible in one SGE */
	if (offset > mr->ibv_mr->length || len > mr->ibv_mr->length - offset ||
			len > UINT32_MAX)
		return RPMA_E_INVAL;
	if (!mr_advice_allowed(advice, mr->usage))
		return RPMA_E_INVAL;
	if (flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH)
		return RPMA_E_INVAL;

	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)mr->ibv_mr->addr + offset,
		.length = (uint32_t)len,
		.lkey = mr->ibv_mr->lkey,
	};
	int ret = ibv_advise_mr(mr->ibv_mr->pd, (enum ibv_advise_mr_advice)advice, flags, &sge, 1);
	if (ret) {
		(void)RPMA_PROVIDER_FAILED(ret, "ibv_advise_mr");
		return mr_advise_error(ret);
	}

	return 0;
}

/* ---- posting (hot path) ---- */

/* Point sge at [offset, offset + len) of mr; the number of SGEs (0 for no data). */
static int mr_sge(struct ibv_sge *sge, const struct rpma_mr_local *mr, size_t offset, size_t len)
{
	if (len == 0)
		return 0;

	sge->addr = (uint64_t)(uintptr_t)mr->ibv_mr->addr + offset;
	sge->length = (uint32_t)len;
	sge->lkey = mr->ibv_mr->lkey;
	return 1;
}

/* A zero-length operation may name no remote region: address and key stay 0. */
static void mr_remote_set(struct ibv_send_wr *wr, const struct rpma_mr_remote *mr, size_t offset)
{
	/*
	 * A zero-length operation names no region (IBTA C9-88: the responder
	 * checks neither key nor address); a reused slot must not carry an old one.
	 */
	wr->wr.rdma.remote_addr = mr ? mr->raddr + offset : 0;
	wr->wr.rdma.rkey = mr ? mr->rkey : 0;
}

/*
 * Where a send-queue work request is built: in the post list's next slot while
 * it collects (no copy), else in the caller's zeroed `local`.
 */
static struct rpma_post_slot *mr_slot(struct rpma_post_list *list, struct rpma_post_slot *local)
{
	struct rpma_post_slot *slot = rpma_post_list_slot(list);
	if (slot != NULL)
		return slot;
	memset(local, 0, sizeof(*local));
	return local;
}

/*
 * The fields every send-queue work request of this file sets: all that any of
 * its opcodes reads, so that a reused slot carries nothing of its last request.
 */
static struct ibv_send_wr *mr_send_wr(struct rpma_post_slot *slot, const struct rpma_mr_local *mr,
		size_t offset, size_t len, enum ibv_wr_opcode opcode, int flags,
		const void *op_context)
{
	struct ibv_send_wr *wr = &slot->wr;
	wr->wr_id = (uint64_t)(uintptr_t)op_context;
	wr->sg_list = &slot->sge;
	wr->num_sge = mr_sge(&slot->sge, mr, offset, len);
	wr->opcode = opcode;
	wr->send_flags = rpma_mr_send_flags(flags);
	wr->imm_data = 0;
	wr->wr.rdma.remote_addr = 0;
	wr->wr.rdma.rkey = 0;
	return wr;
}

/*
 * The extended interface (post_list.h) in a batch: the session started, the
 * request's context and flags set for the builder the caller calls next, and
 * rpma_post_list_session_added() after it. NULL: build the request in a slot.
 */
static inline struct ibv_qp_ex *mr_ex_begin(struct rpma_post_list *list, int flags,
		const void *op_context)
{
	struct ibv_qp_ex *qpx = rpma_post_list_qp_ex(list);
	if (qpx == NULL)
		return NULL;
	rpma_post_list_session(list);
	qpx->wr_id = (uint64_t)(uintptr_t)op_context;
	qpx->wr_flags = rpma_mr_send_flags(flags);
	return qpx;
}

/* ... and, after the builder, its local buffer: [offset, offset + len) of mr, or none */
static inline void mr_ex_sge(struct ibv_qp_ex *qpx, const struct rpma_mr_local *mr, size_t offset,
		size_t len)
{
	if (len == 0)
		ibv_wr_set_sge_list(qpx, 0, NULL);
	else
		ibv_wr_set_sge(qpx, mr->ibv_mr->lkey, (uint64_t)(uintptr_t)mr->ibv_mr->addr + offset,
			(uint32_t)len);
}

/* the remote end of a read or write: none for a zero-length one (see mr_remote_set) */
#define MR_EX_RKEY(mr) ((mr) ? (mr)->rkey : 0)
#define MR_EX_RADDR(mr, offset) ((mr) ? (mr)->raddr + (offset) : 0)

/*
 * The slot paths (no extended interface, or outside a batch) are apart: their
 * stack request would cost every batched request a bigger frame and a guard.
 */
static __attribute__((noinline)) int mr_read_wr(struct rpma_post_list *list, struct ibv_qp *qp,
		struct rpma_mr_local *dst, size_t dst_offset, const struct rpma_mr_remote *src,
		size_t src_offset, size_t len, int flags, const void *op_context)
{
	struct rpma_post_slot local;
	struct ibv_send_wr *wr = mr_send_wr(mr_slot(list, &local), dst, dst_offset, len,
		IBV_WR_RDMA_READ, flags, op_context);
	mr_remote_set(wr, src, src_offset);

	return rpma_post_list_post(list, qp, wr);
}

/* inline: see ops.c */
inline int rpma_mr_read(struct rpma_post_list *list, struct ibv_qp *qp, struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len,
		int flags, const void *op_context)
{
	struct ibv_qp_ex *qpx = mr_ex_begin(list, flags, op_context);
	if (qpx == NULL)
		return mr_read_wr(list, qp, dst, dst_offset, src, src_offset, len, flags,
			op_context);

	ibv_wr_rdma_read(qpx, MR_EX_RKEY(src), MR_EX_RADDR(src, src_offset));
	mr_ex_sge(qpx, dst, dst_offset, len);
	return rpma_post_list_session_added(list);
}

static __attribute__((noinline)) int mr_write_wr(struct rpma_post_list *list, struct ibv_qp *qp,
		struct rpma_mr_remote *dst, size_t dst_offset, const struct rpma_mr_local *src,
		size_t src_offset, size_t len, int flags, enum ibv_wr_opcode opcode, uint32_t imm,
		const void *op_context)
{
	struct rpma_post_slot local;
	struct ibv_send_wr *wr = mr_send_wr(mr_slot(list, &local), src, src_offset, len, opcode,
		flags, op_context);
	if (opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr->imm_data = htonl(imm);
	mr_remote_set(wr, dst, dst_offset);

	return rpma_post_list_post(list, qp, wr);
}

/* inline: see ops.c */
inline int rpma_mr_write(struct rpma_post_list *list, struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset, size_t len,
		int flags, enum ibv_wr_opcode opcode, uint32_t imm, const void *op_context)
{
	struct ibv_qp_ex *qpx = mr_ex_begin(list, flags, op_context);
	if (qpx == NULL)
		return mr_write_wr(list, qp, dst, dst_offset, src, src_offset, len, flags, opcode,
			imm, op_context);

	if (opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		ibv_wr_rdma_write_imm(qpx, MR_EX_RKEY(dst), MR_EX_RADDR(dst, dst_offset),
			htonl(imm));
	else
		ibv_wr_rdma_write(qpx, MR_EX_RKEY(dst), MR_EX_RADDR(dst, dst_offset));
	mr_ex_sge(qpx, src, src_offset, len);
	return rpma_post_list_session_added(list);
}

#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
/* Build the atomic write on qpx and ring for it: the provider's errno or 0. */
static int mr_atomic_write_post(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
		const char src[8], unsigned send_flags, const void *op_context)
{
	ibv_wr_start(qpx);
	qpx->wr_id = (uint64_t)(uintptr_t)op_context;
	qpx->wr_flags = send_flags;
	ibv_wr_atomic_write(qpx, rkey, remote_addr, src);
	return ibv_wr_complete(qpx);
}

/*
 * The fence keeps the write behind earlier reads (an emulated flush): on an
 * RC QP a later write may otherwise be executed before an earlier read.
 */
static int mr_atomic_write_native(struct ibv_qp *qp, struct rpma_mr_remote *dst,
		size_t dst_offset, const char src[8], int flags, const void *op_context)
{
	uint64_t remote_addr = dst->raddr + dst_offset;
	unsigned send_flags = rpma_mr_send_flags(flags) | IBV_SEND_FENCE;
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	int err = qpx ? mr_atomic_write_post(qpx, dst->rkey, remote_addr, src, send_flags,
		op_context) : EOPNOTSUPP;
	if (err == 0)
		return 0;

	struct rpma_wr_fields failed = rpma_wr_fields_of_remote("ATOMIC_WRITE", op_context,
		send_flags, remote_addr, dst->rkey, RPMA_ATOMIC_WRITE_ALIGNMENT);
	failed.has_local = true; /* the caller's 8 bytes */
	failed.local_addr = (uint64_t)(uintptr_t)src;
	return RPMA_POST_FAILED(err, qpx ? "ibv_wr_complete" : "ibv_qp_to_qp_ex", failed);
}
#endif

int rpma_mr_atomic_write(struct rpma_post_list *list, struct ibv_qp *qp, struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context, bool native)
{
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	if (native) {
		/* posted by other means: what was collected goes first */
		int ret = rpma_post_list_drain(list, qp);
		return ret ? ret : mr_atomic_write_native(qp, dst, dst_offset, src, flags,
			op_context);
	}
#else
	(void)native; /* the peer never reports it without the verb */
#endif
	/*
	 * Inlined, the 8 bytes are copied at posting time (no registration
	 * needed, so lkey 0) and arrive in one packet, placed as one unit.
	 */
	struct ibv_qp_ex *qpx = mr_ex_begin(list, flags, op_context);
	if (qpx) {
		qpx->wr_flags |= IBV_SEND_INLINE | IBV_SEND_FENCE;
		ibv_wr_rdma_write(qpx, dst->rkey, dst->raddr + dst_offset);
		/* (copied here: the session's doorbell may come later) */
		ibv_wr_set_inline_data(qpx, (void *)(uintptr_t)src, RPMA_ATOMIC_WRITE_ALIGNMENT);
		return rpma_post_list_session_added(list);
	}

	struct rpma_post_slot local;
	struct rpma_post_slot *slot = mr_slot(list, &local);
	struct ibv_send_wr *wr = mr_send_wr(slot, NULL, 0, 0, IBV_WR_RDMA_WRITE, flags, op_context);
	slot->sge.addr = (uint64_t)(uintptr_t)src;
	slot->sge.length = RPMA_ATOMIC_WRITE_ALIGNMENT;
	slot->sge.lkey = 0;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_INLINE | IBV_SEND_FENCE;
	mr_remote_set(wr, dst, dst_offset);

	return rpma_post_list_post(list, qp, wr);
}

/* inline: see ops.c */
inline int rpma_mr_send(struct rpma_post_list *list, struct ibv_qp *qp, const struct rpma_mr_local *src, size_t offset,
		size_t len, int flags, enum ibv_wr_opcode opcode, uint32_t imm,
		const void *op_context)
{
	struct ibv_qp_ex *qpx = mr_ex_begin(list, flags, op_context);
	if (qpx) {
		if (opcode == IBV_WR_SEND_WITH_IMM)
			ibv_wr_send_imm(qpx, htonl(imm));
		else
			ibv_wr_send(qpx);
		mr_ex_sge(qpx, src, offset, len);
		return rpma_post_list_session_added(list);
	}

	struct rpma_post_slot local;
	struct ibv_send_wr *wr = mr_send_wr(mr_slot(list, &local), src, offset, len, opcode, flags,
		op_context);
	if (opcode == IBV_WR_SEND_WITH_IMM)
		wr->imm_data = htonl(imm);

	return rpma_post_list_post(list, qp, wr);
}

static void mr_recv_wr(struct ibv_recv_wr *wr, struct ibv_sge *sge, struct rpma_mr_local *dst,
		size_t offset, size_t len, const void *op_context)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = (uint64_t)(uintptr_t)op_context;
	wr->sg_list = sge;
	wr->num_sge = mr_sge(sge, dst, offset, len);
}

int rpma_mr_recv(struct ibv_qp *qp, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_recv_wr wr, *bad_wr;

	mr_recv_wr(&wr, &sge, dst, offset, len, op_context);
	int ret = ibv_post_recv(qp, &wr, &bad_wr);
	return ret ? RPMA_POST_FAILED(ret, "ibv_post_recv", rpma_wr_fields_of_recv(&wr)) : 0;
}

int rpma_mr_srq_recv(struct ibv_srq *srq, struct rpma_mr_local *dst, size_t offset,
		size_t len, const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_recv_wr wr, *bad_wr;

	mr_recv_wr(&wr, &sge, dst, offset, len, op_context);
	int ret = ibv_post_srq_recv(srq, &wr, &bad_wr);
	return ret ? RPMA_POST_FAILED(ret, "ibv_post_srq_recv", rpma_wr_fields_of_recv(&wr)) : 0;
}
