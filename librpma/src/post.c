// SPDX-License-Identifier: BSD-3-Clause
/*
 * post.c -- the work requests of a connection, top to bottom: an operation
 * describes its request (struct post_wr) and the path in force builds and
 * posts it: at once outside a batch, else collected for one doorbell by the
 * path chosen at rpma_post_new() (post.h). The native operations go by verbs
 * of their own, after what was collected. Receives, another queue, are posted
 * at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mr.h"
#include "post.h"

/* A send work request as an operation describes it, before a path builds it. */
struct post_wr {
	uint64_t wr_id;			/* the operation's op_context */
	struct ibv_sge sge;		/* length 0: no data, no scatter entry */
	uint64_t remote_addr;		/* 0 with rkey 0: no remote region */
	uint32_t rkey;
	enum ibv_wr_opcode opcode;
	unsigned send_flags;		/* IBV_SEND_*; INLINE: the bytes are copied when posted */
	uint32_t imm_data;		/* network order; 0 but for the _WITH_IMM opcodes */
};

/* The ways of posting a described request. */
enum post_path {
	POST_AT_ONCE,	/* outside a batch: built on the stack, its own ibv_post_send() */
	POST_CHAIN,	/* a batch built in the object's slots: one ibv_post_send() */
	POST_SESSION,	/* a batch written into the send queue: one ibv_wr_complete() */
};

/* A send work request and its one scatter entry, as a chain keeps them. */
struct post_slot {
	struct ibv_send_wr wr;
	struct ibv_sge sge;
};

struct rpma_post {
	enum post_path path;		/* in force: at once, or the batch's while one is open */
	enum post_path batch;		/* chosen once, at rpma_post_new(): chain or session */
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;		/* the QP's extended interface, or NULL */
	unsigned count;			/* requests collected for the doorbell */
	bool in_session;		/* between ibv_wr_start() and its doorbell */
	struct post_slot slot[RPMA_POST_BATCH_MAX];	/* the chain's requests */
};

/* The paths (below): each builds a described request and posts or collects it. */
static int post_at_once_add(struct ibv_qp *qp, struct post_wr wr);
static int post_chain_add(struct rpma_post *post, struct post_wr wr);
static int post_chain_ring(struct rpma_post *post);
static inline int post_session_add(struct rpma_post *post, const struct post_wr *wr);
static int post_session_ring(struct rpma_post *post);

/* ---- the operations: each describes its request ---- */

/* IBV_SEND_SIGNALED when the flags ask for a completion on success. */
static inline unsigned post_send_flags(int flags)
{
	return ((flags & RPMA_F_COMPLETION_ALWAYS) == RPMA_F_COMPLETION_ALWAYS) ?
		IBV_SEND_SIGNALED : 0;
}

/* A request of opcode (imm in host order), with no data and no remote region yet. */
static inline struct post_wr post_wr_of(enum ibv_wr_opcode opcode, int flags, uint32_t imm,
		const void *op_context)
{
	bool with_imm = opcode == IBV_WR_RDMA_WRITE_WITH_IMM || opcode == IBV_WR_SEND_WITH_IMM;
	return (struct post_wr){
		.wr_id = (uint64_t)(uintptr_t)op_context,
		.opcode = opcode,
		.send_flags = post_send_flags(flags),
		.imm_data = with_imm ? htonl(imm) : 0,
	};
}

/* Its local buffer: [offset, offset + len) of mr; none for len 0 (mr may be NULL then). */
static inline void post_wr_local(struct post_wr *wr, const struct rpma_mr_local *mr,
		size_t offset, size_t len)
{
	if (len > 0)
		wr->sge = rpma_mr_get_sge(mr, offset, len);
}

/*
 * Its remote range, from offset in mr. A zero-length operation may name no
 * region (IBTA C9-88: the responder checks neither key nor address).
 */
static inline void post_wr_remote(struct post_wr *wr, const struct rpma_mr_remote *mr,
		size_t offset)
{
	if (mr == NULL)
		return;
	wr->remote_addr = rpma_mr_remote_get_addr(mr) + offset;
	wr->rkey = rpma_mr_remote_get_rkey(mr);
}

/*
 * The path in force takes wr. The session's is inline: where an operation is
 * inlined with its constant opcode (LTO), the request stays in registers but
 * for what the other paths' copy needs, and of the switch on the opcode only
 * its builder is left. The others take a copy, made only on their way.
 */
static inline int post_add(struct rpma_post *post, const struct post_wr *wr)
{
	switch (post->path) {
	case POST_SESSION:
		return post_session_add(post, wr);
	case POST_CHAIN:
		return post_chain_add(post, *wr);
	default:
		return post_at_once_add(post->qp, *wr);
	}
}

/* Ring once for what the path in force collected. 0 or RPMA_E_PROVIDER. */
static int post_ring(struct rpma_post *post)
{
	switch (post->path) {
	case POST_SESSION:
		return post_session_ring(post);
	case POST_CHAIN:
		return post_chain_ring(post);
	default:
		return 0; /* nothing is collected */
	}
}

/* inline: see ops.c */
inline int rpma_post_read(struct rpma_post *post, struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len,
		int flags, const void *op_context)
{
	struct post_wr wr = post_wr_of(IBV_WR_RDMA_READ, flags, 0, op_context);
	post_wr_local(&wr, dst, dst_offset, len);
	post_wr_remote(&wr, src, src_offset);
	return post_add(post, &wr);
}

/* inline: see ops.c */
inline int rpma_post_write(struct rpma_post *post, const struct rpma_mr_remote *dst,
		size_t dst_offset, const struct rpma_mr_local *src, size_t src_offset, size_t len,
		int flags, enum ibv_wr_opcode opcode, uint32_t imm, const void *op_context)
{
	struct post_wr wr = post_wr_of(opcode, flags, imm, op_context);
	post_wr_local(&wr, src, src_offset, len);
	post_wr_remote(&wr, dst, dst_offset);
	return post_add(post, &wr);
}

/* inline: see ops.c */
inline int rpma_post_send(struct rpma_post *post, const struct rpma_mr_local *src, size_t offset,
		size_t len, int flags, enum ibv_wr_opcode opcode, uint32_t imm,
		const void *op_context)
{
	struct post_wr wr = post_wr_of(opcode, flags, imm, op_context);
	post_wr_local(&wr, src, offset, len);
	return post_add(post, &wr);
}

#if defined(RPMA_HAVE_IBV_WR_ATOMIC_WRITE) || defined(RPMA_HAVE_IBV_WR_FLUSH)
/* A native operation's request: built by a verb of its own on the extended interface. */
struct post_native {
	const char *opcode;		/* as a log line names it */
	const void *op_context;
	unsigned send_flags;
	uint64_t remote_addr;
	uint32_t rkey;
	uint64_t length;		/* of the remote range */
	const char *data;		/* an atomic write's 8 bytes; NULL: a flush */
#ifdef RPMA_HAVE_IBV_WR_FLUSH
	uint8_t placement;		/* a flush's IBV_FLUSH_GLOBAL or _PERSISTENT */
#endif
};

/* Build it in a session of its own and ring for it: the provider's errno or 0. */
static int post_native_ring(struct ibv_qp_ex *qpx, const struct post_native *op)
{
	ibv_wr_start(qpx);
	qpx->wr_id = (uint64_t)(uintptr_t)op->op_context;
	qpx->wr_flags = op->send_flags;
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	if (op->data != NULL)
		ibv_wr_atomic_write(qpx, op->rkey, op->remote_addr, op->data);
#endif
#ifdef RPMA_HAVE_IBV_WR_FLUSH
	if (op->data == NULL)
		ibv_wr_flush(qpx, op->rkey, op->remote_addr, op->length, op->placement,
			IBV_FLUSH_RANGE);
#endif
	return ibv_wr_complete(qpx);
}

/* It goes alone, after what was collected: the order on the wire is that of the calls. */
static int post_native(struct rpma_post *post, const struct post_native *op)
{
	int ret = post_ring(post);
	if (ret)
		return ret;
	int err = post->qpx ? post_native_ring(post->qpx, op) : EOPNOTSUPP;
	if (err == 0)
		return 0;

	struct rpma_wr_fields failed = rpma_wr_fields_of_remote(op->opcode, op->op_context,
		op->send_flags, op->remote_addr, op->rkey, op->length);
	if (op->data != NULL) {
		failed.has_local = true; /* the caller's 8 bytes */
		failed.local_addr = (uint64_t)(uintptr_t)op->data;
	}
	return RPMA_POST_FAILED(err, post->qpx ? "ibv_wr_complete" : "ibv_qp_to_qp_ex", failed);
}
#endif

int rpma_post_atomic_write(struct rpma_post *post, const struct rpma_mr_remote *dst,
		size_t dst_offset, const char src[8], int flags, const void *op_context,
		bool native)
{
	/*
	 * The fence keeps the write behind earlier reads (an emulated flush): on
	 * an RC QP a later write may otherwise be executed before an earlier read.
	 */
	unsigned fenced = post_send_flags(flags) | IBV_SEND_FENCE;
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	if (native) {
		const struct post_native op = {
			.opcode = "ATOMIC_WRITE", .op_context = op_context, .send_flags = fenced,
			.remote_addr = rpma_mr_remote_get_addr(dst) + dst_offset,
			.rkey = rpma_mr_remote_get_rkey(dst),
			.length = RPMA_ATOMIC_WRITE_ALIGNMENT, .data = src,
		};
		return post_native(post, &op);
	}
#else
	(void)native; /* the peer never reports it without the verb */
#endif
	/*
	 * Inlined, the 8 bytes are copied when posted (no registration needed, so
	 * lkey 0) and arrive in one packet, placed as one unit.
	 */
	struct post_wr wr = post_wr_of(IBV_WR_RDMA_WRITE, flags, 0, op_context);
	wr.send_flags = fenced | IBV_SEND_INLINE;
	wr.sge.addr = (uint64_t)(uintptr_t)src;
	wr.sge.length = RPMA_ATOMIC_WRITE_ALIGNMENT;
	post_wr_remote(&wr, dst, dst_offset);
	return post_add(post, &wr);
}

#ifdef RPMA_HAVE_IBV_WR_FLUSH
int rpma_post_flush_native(struct rpma_post *post, const struct rpma_mr_remote *dst,
		size_t dst_offset, size_t len, enum rpma_flush_type type, int flags,
		const void *op_context)
{
	const struct post_native op = {
		.opcode = "FLUSH", .op_context = op_context, .send_flags = post_send_flags(flags),
		.remote_addr = rpma_mr_remote_get_addr(dst) + dst_offset,
		.rkey = rpma_mr_remote_get_rkey(dst), .length = len,
		.placement = (type == RPMA_FLUSH_TYPE_PERSISTENT) ?
			IBV_FLUSH_PERSISTENT : IBV_FLUSH_GLOBAL,
	};
	return post_native(post, &op);
}
#endif

/* ---- the paths: each builds and posts a described request ---- */

/* All that any opcode described above reads: a reused slot keeps nothing of its last one. */
static void post_wr_build(struct post_slot *slot, const struct post_wr *wr)
{
	slot->sge = wr->sge;
	slot->wr.wr_id = wr->wr_id;
	slot->wr.next = NULL;
	slot->wr.sg_list = &slot->sge;
	slot->wr.num_sge = wr->sge.length > 0 ? 1 : 0;
	slot->wr.opcode = wr->opcode;
	slot->wr.send_flags = wr->send_flags;
	slot->wr.imm_data = wr->imm_data;
	slot->wr.wr.rdma.remote_addr = wr->remote_addr;
	slot->wr.wr.rdma.rkey = wr->rkey;
}

/* One ibv_post_send() for first and the requests chained to it. */
static int post_send_chain(struct ibv_qp *qp, struct ibv_send_wr *first)
{
	/* the provider points bad_wr at the request it refused: the log names that one */
	struct ibv_send_wr *bad_wr = first;
	int ret = ibv_post_send(qp, first, &bad_wr);
	if (ret == 0)
		return 0;
	return RPMA_POST_FAILED(ret, "ibv_post_send",
		rpma_wr_fields_of_send(bad_wr ? bad_wr : first));
}

/*
 * At once, outside a batch: built on the stack and posted alone. Operations
 * outside a batch may come from many threads: nothing of the object but the
 * QP is used. Not inlined, as the chain: their request in memory would cost
 * every operation a bigger frame and a stack guard.
 */
static __attribute__((noinline)) int post_at_once_add(struct ibv_qp *qp, struct post_wr wr)
{
	struct post_slot slot;
	memset(&slot, 0, sizeof(slot));
	post_wr_build(&slot, &wr);
	return post_send_chain(qp, &slot.wr);
}

/* The chain: built in the object's slots (no copy), one ibv_post_send() for all. */
static int post_chain_ring(struct rpma_post *post)
{
	if (post->count == 0)
		return 0;
	post->count = 0; /* emptied whatever happens: a failed chain is not posted twice */
	return post_send_chain(post->qp, &post->slot[0].wr);
}

static __attribute__((noinline)) int post_chain_add(struct rpma_post *post, struct post_wr wr)
{
	unsigned i = post->count++;
	post_wr_build(&post->slot[i], &wr);
	if (i > 0)
		post->slot[i - 1].wr.next = &post->slot[i].wr;
	/* inline bytes are read when posted, and the caller's may be gone once this returns */
	if ((wr.send_flags & IBV_SEND_INLINE) || post->count == RPMA_POST_BATCH_MAX)
		return post_chain_ring(post);
	return 0;
}

/*
 * The session of the extended interface: each request written straight into
 * the send queue (no ibv_send_wr for the provider to convert and copy: on
 * Soft-RoCE about a third of a request's instructions), one ibv_wr_complete()
 * the doorbell.
 */
static int post_session_ring(struct rpma_post *post)
{
	if (!post->in_session)
		return 0;
	post->in_session = false;
	post->count = 0;
	int ret = ibv_wr_complete(post->qpx); /* all of the session is posted, or none */
	return ret ? RPMA_PROVIDER_FAILED(ret, "ibv_wr_complete") : 0;
}

static inline void post_session_build(struct ibv_qp_ex *qpx, const struct post_wr *wr)
{
	switch (wr->opcode) {
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(qpx, wr->rkey, wr->remote_addr);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ibv_wr_rdma_write_imm(qpx, wr->rkey, wr->remote_addr, wr->imm_data);
		break;
	case IBV_WR_SEND:
		ibv_wr_send(qpx);
		break;
	case IBV_WR_SEND_WITH_IMM:
		ibv_wr_send_imm(qpx, wr->imm_data);
		break;
	default: /* IBV_WR_RDMA_WRITE: no other opcode is described above */
		ibv_wr_rdma_write(qpx, wr->rkey, wr->remote_addr);
		break;
	}
	/* inline bytes are copied here: the session's doorbell may come later */
	if (wr->send_flags & IBV_SEND_INLINE)
		ibv_wr_set_inline_data(qpx, (void *)(uintptr_t)wr->sge.addr, wr->sge.length);
	else if (wr->sge.length == 0)
		ibv_wr_set_sge_list(qpx, 0, NULL);
	else
		ibv_wr_set_sge(qpx, wr->sge.lkey, wr->sge.addr, wr->sge.length);
}

static inline int post_session_add(struct rpma_post *post, const struct post_wr *wr)
{
	struct ibv_qp_ex *qpx = post->qpx;
	if (!post->in_session) {
		ibv_wr_start(qpx); /* the provider's send-queue lock is held until the doorbell */
		post->in_session = true;
	}
	qpx->wr_id = wr->wr_id;
	qpx->wr_flags = wr->send_flags;
	post_session_build(qpx, wr);
	return ++post->count < RPMA_POST_BATCH_MAX ? 0 : post_session_ring(post);
}

/* ---- the object: its batch path chosen once ---- */

/*
 * The session when the provider set the builder of every opcode described here
 * (it sets those of the opcodes the QP was created with), else the chain.
 */
static enum post_path post_batch_path(const struct ibv_qp_ex *qpx)
{
	if (qpx && qpx->wr_rdma_write && qpx->wr_rdma_write_imm && qpx->wr_rdma_read &&
			qpx->wr_send && qpx->wr_send_imm && qpx->wr_set_sge &&
			qpx->wr_set_sge_list && qpx->wr_set_inline_data && qpx->wr_start &&
			qpx->wr_complete && qpx->wr_abort)
		return POST_SESSION;
	return POST_CHAIN;
}

int rpma_post_new(struct ibv_qp *qp, bool qp_ex_expected, struct rpma_post **post_ptr)
{
	if (qp == NULL || post_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_post *post = calloc(1, sizeof(*post));
	if (post == NULL)
		return RPMA_E_NOMEM;

	post->qp = qp;
	post->qpx = ibv_qp_to_qp_ex(qp);
	if (post->qpx == NULL && qp_ex_expected)
		RPMA_LOG_ERROR("ibv_qp_to_qp_ex() failed: no extended interface on a QP "
			"created with it; the connection posts by ibv_post_send() instead");
	post->batch = post_batch_path(post->qpx);
	post->path = POST_AT_ONCE;
	*post_ptr = post;
	return 0;
}

void rpma_post_delete(struct rpma_post **post_ptr)
{
	if (post_ptr == NULL || *post_ptr == NULL)
		return;

	struct rpma_post *post = *post_ptr;
	if (post->in_session)
		ibv_wr_abort(post->qpx); /* nothing of it posted, the provider's lock given back */
	free(post);
	*post_ptr = NULL;
}

int rpma_post_batch_begin(struct rpma_post *post)
{
	if (post == NULL || post->path != POST_AT_ONCE)
		return RPMA_E_INVAL;
	post->path = post->batch;
	return 0;
}

int rpma_post_batch_end(struct rpma_post *post)
{
	if (post == NULL || post->path == POST_AT_ONCE)
		return RPMA_E_INVAL;
	int ret = post_ring(post);
	post->path = POST_AT_ONCE; /* closed also when the doorbell fails */
	return ret;
}

/* ---- receives ---- */

static void post_recv_wr(struct ibv_recv_wr *wr, struct ibv_sge *sge,
		const struct rpma_mr_local *dst, size_t offset, size_t len, const void *op_context)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = (uint64_t)(uintptr_t)op_context;
	wr->sg_list = sge;
	if (len > 0) {
		*sge = rpma_mr_get_sge(dst, offset, len);
		wr->num_sge = 1;
	}
}

int rpma_post_recv(struct ibv_qp *qp, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_recv_wr wr, *bad_wr;

	post_recv_wr(&wr, &sge, dst, offset, len, op_context);
	int ret = ibv_post_recv(qp, &wr, &bad_wr);
	return ret ? RPMA_POST_FAILED(ret, "ibv_post_recv", rpma_wr_fields_of_recv(&wr)) : 0;
}

int rpma_post_srq_recv(struct ibv_srq *srq, struct rpma_mr_local *dst, size_t offset,
		size_t len, const void *op_context)
{
	struct ibv_sge sge;
	struct ibv_recv_wr wr, *bad_wr;

	post_recv_wr(&wr, &sge, dst, offset, len, op_context);
	int ret = ibv_post_srq_recv(srq, &wr, &bad_wr);
	return ret ? RPMA_POST_FAILED(ret, "ibv_post_srq_recv", rpma_wr_fields_of_recv(&wr)) : 0;
}
