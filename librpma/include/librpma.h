/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librpma.h -- Remote Persistent Memory Access over RDMA (rpma-fio's
 * implementation of the librpma 1.x programming interface).
 *
 * Every name, type, constant and error code below matches the public
 * librpma 1.x interface, so programs written for it build unchanged.
 * The full description of each call is in docs/ and in section 3 of the
 * manual; the short notes here say what a caller most needs to remember.
 */
#ifndef LIBRPMA_H
#define LIBRPMA_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; its API is what this header declares. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(default)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define RPMA_DEPRECATED __attribute__((deprecated))
#else
#define RPMA_DEPRECATED
#endif

/* Flag of rpma_conn_wait(): block until a completion arrives. */
#define RPMA_W_WAIT_FOR_COMPLETION (1)

/* Error codes: every call returns 0 or one of these (always negative). */
#define RPMA_E_UNKNOWN (-100000)         /* an unexpected failure */
#define RPMA_E_NOSUPP (-100001)          /* not supported */
#define RPMA_E_PROVIDER (-100002)        /* libibverbs/librdmacm failed; see errno */
#define RPMA_E_NOMEM (-100003)           /* out of memory */
#define RPMA_E_INVAL (-100004)           /* an invalid argument */
#define RPMA_E_NO_COMPLETION (-100005)   /* no completion is available */
#define RPMA_E_NO_EVENT (-100006)        /* no event is available */
#define RPMA_E_AGAIN (-100007)           /* temporarily unavailable; retry */
#define RPMA_E_SHARED_CHANNEL (-100008)  /* the CQ uses a shared channel */
#define RPMA_E_NOT_SHARED_CHNL (-100009) /* the channel is not shared */

/* Default connection set-up timeout. */
#define RPMA_DEFAULT_TIMEOUT_MS 1000

/* ---- utils ---- */

enum rpma_util_ibv_context_type {
	RPMA_UTIL_IBV_CONTEXT_LOCAL,  /* the address is one of ours */
	RPMA_UTIL_IBV_CONTEXT_REMOTE  /* the address is the peer's */
};

/*
 * Find the RDMA device that serves addr (IPv4/IPv6): one of ours (LOCAL), or the
 * one that routes to the peer's (REMOTE).
 * ERRORS: RPMA_E_INVAL when addr or ibv_ctx_ptr is NULL or type is no type;
 * RPMA_E_PROVIDER when resolving, binding or the CM id fails, or no RDMA device
 * serves the address (errno ENODEV); RPMA_E_NOMEM.
 */
int rpma_utils_get_ibv_context(const char *addr, enum rpma_util_ibv_context_type type,
		struct ibv_context **ibv_ctx_ptr);

/*
 * Tell whether the device supports On-Demand Paging for RC connections.
 * ERRORS: RPMA_E_INVAL when an argument is NULL; RPMA_E_PROVIDER (errno set)
 * when ibv_query_device_ex() fails.
 */
int rpma_utils_ibv_context_is_odp_capable(struct ibv_context *ibv_ctx, int *is_odp_capable);

/* ---- peer configuration ---- */

struct rpma_peer_cfg;

/*
 * A peer configuration that says no direct write to PMem.
 * ERRORS: RPMA_E_INVAL (pcfg_ptr is NULL), RPMA_E_NOMEM.
 */
int rpma_peer_cfg_new(struct rpma_peer_cfg **pcfg_ptr);
/* Free *pcfg_ptr (NULL: nothing) and set it to NULL. ERRORS: RPMA_E_INVAL (pcfg_ptr NULL). */
int rpma_peer_cfg_delete(struct rpma_peer_cfg **pcfg_ptr);
/* Declare that the RNIC writes straight to PMem (e.g. DDIO is off).
 * ERRORS: RPMA_E_INVAL (pcfg is NULL). */
int rpma_peer_cfg_set_direct_write_to_pmem(struct rpma_peer_cfg *pcfg, bool supported);
/* What the configuration says of direct writes. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_peer_cfg_get_direct_write_to_pmem(const struct rpma_peer_cfg *pcfg, bool *supported);
/* A peer configuration travels as a 1-byte descriptor: write it to desc.
 * ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_peer_cfg_get_descriptor(const struct rpma_peer_cfg *pcfg, void *desc);
/* The descriptor's size (1). ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_peer_cfg_get_descriptor_size(const struct rpma_peer_cfg *pcfg, size_t *desc_size);
/*
 * A new peer configuration from a descriptor received from the peer.
 * ERRORS: RPMA_E_INVAL when desc or pcfg_ptr is NULL, desc_size is not 1 or the
 * byte is neither 0 nor 1; RPMA_E_NOMEM.
 */
int rpma_peer_cfg_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_peer_cfg **pcfg_ptr);

/* ---- peer ---- */

struct rpma_peer;

/*
 * A peer on the device: its protection domain, and what it can do natively.
 * ERRORS: RPMA_E_INVAL (a NULL argument); RPMA_E_PROVIDER (errno set) when
 * ibv_query_device_ex() or ibv_alloc_pd() fails; RPMA_E_NOMEM, also when
 * ibv_alloc_pd() fails with ENOMEM; RPMA_E_UNKNOWN when it fails with no errno.
 */
int rpma_peer_new(struct ibv_context *ibv_ctx, struct rpma_peer **peer_ptr);
/*
 * Free the PD and the peer (NULL: nothing) and set *peer_ptr to NULL.
 * ERRORS: RPMA_E_INVAL (peer_ptr NULL); RPMA_E_PROVIDER (errno set) when
 * ibv_dealloc_pd() fails (something still uses the PD): the peer stays whole.
 */
int rpma_peer_delete(struct rpma_peer **peer_ptr);

/* ---- memory regions ---- */

struct rpma_mr_local;
struct rpma_mr_remote;

#define RPMA_MR_USAGE_READ_SRC (1 << 0)
#define RPMA_MR_USAGE_READ_DST (1 << 1)
#define RPMA_MR_USAGE_WRITE_SRC (1 << 2)
#define RPMA_MR_USAGE_WRITE_DST (1 << 3)
#define RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY (1 << 4)
#define RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT (1 << 5)
#define RPMA_MR_USAGE_SEND (1 << 6)
#define RPMA_MR_USAGE_RECV (1 << 7)

/*
 * Register [ptr, ptr + size) with the peer for the given RPMA_MR_USAGE_* bits
 * (ODP when the memory cannot be pinned and the device has it).
 * ERRORS: RPMA_E_INVAL when peer, ptr or mr_ptr is NULL, size is 0 or usage is 0
 * or has an unknown bit; RPMA_E_NOMEM; RPMA_E_PROVIDER (errno set) when
 * ibv_reg_mr() fails.
 */
int rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		struct rpma_mr_local **mr_ptr);
/*
 * Deregister and free *mr_ptr (NULL: nothing), set it to NULL.
 * ERRORS: RPMA_E_INVAL (mr_ptr NULL); RPMA_E_PROVIDER (errno set) when
 * ibv_dereg_mr() fails: the region stays registered and the caller's.
 */
int rpma_mr_dereg(struct rpma_mr_local **mr_ptr);
/* A local region travels as a 21-byte descriptor (layout: docs/librpma.md): write it
 * to desc. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc);
/*
 * The peer's region from its descriptor (untrusted: checked, not believed).
 * ERRORS: RPMA_E_INVAL when desc or mr_ptr is NULL or desc_size is not 21;
 * RPMA_E_NOSUPP when it allows no usage or its range wraps the address space;
 * RPMA_E_NOMEM.
 */
int rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_mr_remote **mr_ptr);
/* The descriptor's size (21). ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr, size_t *desc_size);
/* Where the region starts. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_mr_get_ptr(const struct rpma_mr_local *mr, void **ptr);
/* The region's size. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_mr_get_size(const struct rpma_mr_local *mr, size_t *size);
/* The remote region's size. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_mr_remote_get_size(const struct rpma_mr_remote *mr, size_t *size);
/*
 * The RPMA_MR_USAGE_FLUSH_TYPE_* bits the remote region was registered with.
 * ERRORS: RPMA_E_INVAL (a NULL argument).
 */
int rpma_mr_remote_get_flush_type(const struct rpma_mr_remote *mr, int *flush_type);
/* Free *mr_ptr (NULL: nothing) and set it to NULL. ERRORS: RPMA_E_INVAL (mr_ptr NULL). */
int rpma_mr_remote_delete(struct rpma_mr_remote **mr_ptr);
/*
 * Advise the device (ibv_advise_mr) on [offset, offset + len) of the region, e.g. to
 * prefetch ODP pages.
 * ERRORS: RPMA_E_INVAL when mr is NULL, the range leaves the region or is over
 * 4 GiB, the advice is unknown or a write prefetch of a region not written
 * locally, flags has an unknown bit, or the provider says EINVAL or EFAULT;
 * RPMA_E_NOSUPP when the provider says EOPNOTSUPP; RPMA_E_PROVIDER (errno set)
 * when it fails otherwise.
 */
int rpma_mr_advise(struct rpma_mr_local *mr, size_t offset, size_t len, int advice,
		uint32_t flags);

/* ---- connection configuration ---- */

struct rpma_conn_cfg;

/*
 * A connection configuration with the defaults (timeout 1000 ms, CQ, SQ and RQ of
 * 10, no receive CQ, no shared channel, no SRQ).
 * ERRORS: RPMA_E_INVAL (cfg_ptr is NULL), RPMA_E_NOMEM.
 */
int rpma_conn_cfg_new(struct rpma_conn_cfg **cfg_ptr);
/* Free *cfg_ptr (NULL: nothing) and set it to NULL. ERRORS: RPMA_E_INVAL (cfg_ptr NULL). */
int rpma_conn_cfg_delete(struct rpma_conn_cfg **cfg_ptr);
/* How long connection set-up may take. ERRORS: RPMA_E_INVAL (cfg NULL, timeout_ms < 0). */
int rpma_conn_cfg_set_timeout(struct rpma_conn_cfg *cfg, int timeout_ms);
/* The set-up timeout. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_cfg_get_timeout(const struct rpma_conn_cfg *cfg, int *timeout_ms);
/* Set the CQ's size. ERRORS: RPMA_E_INVAL (cfg is NULL). */
int rpma_conn_cfg_set_cq_size(struct rpma_conn_cfg *cfg, uint32_t cq_size);
/*
 * Do the CQ and the receive CQ share one completion channel?
 * ERRORS: RPMA_E_INVAL (a NULL argument).
 */
int rpma_conn_cfg_get_compl_channel(const struct rpma_conn_cfg *cfg, bool *shared);
/*
 * One completion channel for both CQs (rpma_conn_wait), or one each.
 * ERRORS: RPMA_E_INVAL (cfg is NULL).
 */
int rpma_conn_cfg_set_compl_channel(struct rpma_conn_cfg *cfg, bool shared);
/* The CQ's size. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_cfg_get_cq_size(const struct rpma_conn_cfg *cfg, uint32_t *cq_size);
/* Set the receive CQ's size (0: none). ERRORS: RPMA_E_INVAL (cfg is NULL). */
int rpma_conn_cfg_set_rcq_size(struct rpma_conn_cfg *cfg, uint32_t rcq_size);
/* The receive CQ's size (0: none). ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_cfg_get_rcq_size(const struct rpma_conn_cfg *cfg, uint32_t *rcq_size);
/* Set the send queue's size. ERRORS: RPMA_E_INVAL (cfg is NULL). */
int rpma_conn_cfg_set_sq_size(struct rpma_conn_cfg *cfg, uint32_t sq_size);
/* The send queue's size. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_cfg_get_sq_size(const struct rpma_conn_cfg *cfg, uint32_t *sq_size);
/* Set the receive queue's size. ERRORS: RPMA_E_INVAL (cfg is NULL). */
int rpma_conn_cfg_set_rq_size(struct rpma_conn_cfg *cfg, uint32_t rq_size);
/* The receive queue's size. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_cfg_get_rq_size(const struct rpma_conn_cfg *cfg, uint32_t *rq_size);

struct rpma_srq;

/* Receive from srq (NULL: the connection's own queue). ERRORS: RPMA_E_INVAL (cfg NULL). */
int rpma_conn_cfg_set_srq(struct rpma_conn_cfg *cfg, struct rpma_srq *srq);
/* The SRQ (NULL: none). ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_cfg_get_srq(const struct rpma_conn_cfg *cfg, struct rpma_srq **srq_ptr);

/* ---- connection ---- */

struct rpma_conn;

/* The fd of the connection's CM event channel, for poll(2).
 * ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_get_event_fd(const struct rpma_conn *conn, int *fd);

enum rpma_conn_event {
	RPMA_CONN_UNDEFINED = -1,
	RPMA_CONN_ESTABLISHED,
	RPMA_CONN_CLOSED,
	RPMA_CONN_LOST,
	RPMA_CONN_REJECTED,
	RPMA_CONN_UNREACHABLE
};

/*
 * The connection's next CM event (blocking unless the channel's fd is non-blocking);
 * ESTABLISHED keeps the private data it carries.
 * ERRORS: RPMA_E_INVAL (a NULL argument); RPMA_E_NO_EVENT when a non-blocking
 * channel has none; RPMA_E_PROVIDER (errno set) when rdma_get_cm_event() or
 * rdma_ack_cm_event() fails; RPMA_E_UNKNOWN for a CM event with no
 * rpma_conn_event; RPMA_E_NOMEM when the private data cannot be kept.
 */
int rpma_conn_next_event(struct rpma_conn *conn, enum rpma_conn_event *event);
/* A connection event's name, for messages. ERRORS: none (an unknown event has a name). */
const char *rpma_utils_conn_event_2str(enum rpma_conn_event conn_event);

/* Private data exchanged while connecting (at most 255 bytes of it). */
struct rpma_conn_private_data {
	void *ptr;
	uint8_t len;
};

/* The private data the peer sent (the connection keeps it).
 * ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_get_private_data(const struct rpma_conn *conn,
		struct rpma_conn_private_data *pdata);
/*
 * Take the peer's word on direct writes to PMem (persistent flushes need it).
 * ERRORS: RPMA_E_INVAL (a NULL argument).
 */
int rpma_conn_apply_remote_peer_cfg(struct rpma_conn *conn, const struct rpma_peer_cfg *pcfg);
/* The QP's number. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_get_qp_num(const struct rpma_conn *conn, uint32_t *qp_num);

struct rpma_cq;

/* The connection's CQ. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_get_cq(const struct rpma_conn *conn, struct rpma_cq **cq_ptr);
/* Its receive CQ (NULL when it has none). ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_get_rcq(const struct rpma_conn *conn, struct rpma_cq **rcq_ptr);
/*
 * Start the disconnection (the peer sees RPMA_CONN_CLOSED).
 * ERRORS: RPMA_E_INVAL (conn is NULL); RPMA_E_PROVIDER (errno set) when
 * rdma_disconnect() fails.
 */
int rpma_conn_disconnect(struct rpma_conn *conn);
/*
 * Destroy the QP, the CQs, the CM id and the rest, and set *conn_ptr to NULL (NULL:
 * nothing); everything is released past a failure.
 * ERRORS: RPMA_E_INVAL (conn_ptr NULL); RPMA_E_PROVIDER (errno set) when one of
 * the provider's destroy calls fails (the first failure is returned).
 */
int rpma_conn_delete(struct rpma_conn **conn_ptr);

/* ---- connection requests ---- */

struct rpma_conn_req;

/*
 * An outgoing connection request to addr:port, its QP and CQs made as cfg (NULL:
 * the defaults) says, so receives can be posted before connecting.
 * ERRORS: RPMA_E_INVAL when peer, addr, port or req_ptr is NULL; RPMA_E_PROVIDER
 * (errno set but for a getaddrinfo failure) when resolving the address or route,
 * or creating the id, a channel, a CQ or the QP fails; RPMA_E_NOMEM.
 */
int rpma_conn_req_new(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr);
/*
 * Release the request (an incoming one is rejected first), set *req_ptr to NULL
 * (NULL: nothing).
 * ERRORS: RPMA_E_INVAL (req_ptr NULL); RPMA_E_PROVIDER (errno set) when
 * rdma_reject(), acking the request's event or a destroy call fails (the
 * first failure is returned).
 */
int rpma_conn_req_delete(struct rpma_conn_req **req_ptr);
/*
 * Connect (outgoing) or accept (incoming) with pdata (NULL: none), making the
 * connection. Consumes *req_ptr (sets it to NULL) whether or not it succeeds.
 * ERRORS: RPMA_E_INVAL when req_ptr, *req_ptr or conn_ptr is NULL or pdata has
 * no bytes or no pointer; RPMA_E_PROVIDER (errno set) when acking the request,
 * making the connection (its event channel, the flush buffer), rdma_connect()
 * or rdma_accept() fails (ECONNREFUSED: nobody listens, iWARP; errno is kept
 * through the tear-down that follows); RPMA_E_NOMEM.
 */
int rpma_conn_req_connect(struct rpma_conn_req **req_ptr,
		const struct rpma_conn_private_data *pdata, struct rpma_conn **conn_ptr);
/*
 * The fd of the shared completion channel, for poll(2).
 * ERRORS: RPMA_E_INVAL (a NULL argument); RPMA_E_NOT_SHARED_CHNL when the
 * connection's CQs have channels of their own.
 */
int rpma_conn_get_compl_fd(const struct rpma_conn *conn, int *fd);
/*
 * Wait for a completion event on the shared channel and say which CQ (the receive
 * CQ: *is_rcq true) has completions; re-arms it. flags: RPMA_W_WAIT_FOR_COMPLETION.
 * ERRORS: RPMA_E_INVAL when conn or cq is NULL; RPMA_E_NOT_SHARED_CHNL with no
 * shared channel; RPMA_E_NO_COMPLETION when no event came (non-blocking
 * channel); RPMA_E_UNKNOWN for an event of a CQ not the connection's;
 * RPMA_E_PROVIDER (errno set) when ibv_req_notify_cq() fails.
 */
int rpma_conn_wait(struct rpma_conn *conn, int flags, struct rpma_cq **cq, bool *is_rcq);
/*
 * Post a receive of [offset, offset + len) of dst before connecting.
 * ERRORS: RPMA_E_INVAL when req or dst is NULL or len is over 4 GiB;
 * RPMA_E_NOSUPP when len is 0 on iWARP (no receive without a buffer there);
 * RPMA_E_PROVIDER (errno set) when ibv_post_recv() fails.
 */
int rpma_conn_req_recv(struct rpma_conn_req *req, struct rpma_mr_local *dst, size_t offset,
		size_t len, const void *op_context);

/* ---- endpoint ---- */

struct rpma_ep;

/*
 * Listen on addr:port for connection requests.
 * ERRORS: RPMA_E_INVAL when an argument is NULL; RPMA_E_NOMEM; RPMA_E_PROVIDER
 * (errno set but for a getaddrinfo failure) when the event channel, the id,
 * resolving, binding or rdma_listen() fails.
 */
int rpma_ep_listen(struct rpma_peer *peer, const char *addr, const char *port,
		struct rpma_ep **ep_ptr);
/*
 * Stop listening, free the endpoint, set *ep_ptr to NULL (NULL: nothing).
 * ERRORS: RPMA_E_INVAL (ep_ptr NULL); RPMA_E_PROVIDER (errno set) when
 * rdma_destroy_id() fails: the endpoint stays whole.
 */
int rpma_ep_shutdown(struct rpma_ep **ep_ptr);
/* The fd of the endpoint's event channel, for poll(2).
 * ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_ep_get_fd(const struct rpma_ep *ep, int *fd);
/*
 * The next incoming request, its queues made as cfg (NULL: the defaults) says.
 * ERRORS: RPMA_E_INVAL when ep or req_ptr is NULL or the CM event is no connect
 * request; RPMA_E_NO_EVENT when a non-blocking channel has none; RPMA_E_PROVIDER
 * (errno set) when rdma_get_cm_event() or making the request's queues fails (the
 * request is rejected); RPMA_E_NOMEM.
 */
int rpma_ep_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		struct rpma_conn_req **req_ptr);
/*
 * The private data an incoming request carried (the request keeps it).
 * ERRORS: RPMA_E_INVAL (a NULL argument).
 */
int rpma_conn_req_get_private_data(const struct rpma_conn_req *req,
		struct rpma_conn_private_data *pdata);

/* ---- shared receive queue ---- */

struct rpma_srq_cfg;

/*
 * An SRQ configuration with the defaults (100 receives, a receive CQ of 100).
 * ERRORS: RPMA_E_INVAL (cfg_ptr is NULL), RPMA_E_NOMEM.
 */
int rpma_srq_cfg_new(struct rpma_srq_cfg **cfg_ptr);
/* Free *cfg_ptr (NULL: nothing) and set it to NULL. ERRORS: RPMA_E_INVAL (cfg_ptr NULL). */
int rpma_srq_cfg_delete(struct rpma_srq_cfg **cfg_ptr);
/* Set the SRQ's size. ERRORS: RPMA_E_INVAL (cfg is NULL). */
int rpma_srq_cfg_set_rq_size(struct rpma_srq_cfg *cfg, uint32_t rq_size);
/* The SRQ's size. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_srq_cfg_get_rq_size(const struct rpma_srq_cfg *cfg, uint32_t *rq_size);
/* Set its receive CQ's size (0: none). ERRORS: RPMA_E_INVAL (cfg is NULL). */
int rpma_srq_cfg_set_rcq_size(struct rpma_srq_cfg *cfg, uint32_t rcq_size);
/* Its receive CQ's size. ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_srq_cfg_get_rcq_size(const struct rpma_srq_cfg *cfg, uint32_t *rcq_size);

/*
 * A shared receive queue on the peer, and its receive CQ if cfg (NULL: the
 * defaults) asks for one.
 * ERRORS: RPMA_E_INVAL when peer or srq_ptr is NULL; RPMA_E_NOMEM;
 * RPMA_E_PROVIDER (errno set) when ibv_create_srq() or creating the CQ fails.
 */
int rpma_srq_new(struct rpma_peer *peer, struct rpma_srq_cfg *cfg, struct rpma_srq **srq_ptr);
/*
 * Destroy the SRQ and its CQ and set *srq_ptr to NULL (NULL: nothing), past a failure too.
 * ERRORS: RPMA_E_INVAL (srq_ptr NULL); RPMA_E_PROVIDER (errno: the first
 * failure's) when destroying the CQ or the SRQ fails.
 */
int rpma_srq_delete(struct rpma_srq **srq_ptr);
/*
 * Post a receive of [offset, offset + len) of dst (NULL with 0 and 0: no buffer).
 * ERRORS: RPMA_E_INVAL when srq is NULL, dst is NULL with an offset or a length,
 * or len is over 4 GiB; RPMA_E_NOSUPP for a receive without a buffer on iWARP;
 * RPMA_E_PROVIDER (errno set) when ibv_post_srq_recv() fails.
 */
int rpma_srq_recv(struct rpma_srq *srq, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context);
/* The SRQ's receive CQ (NULL when it has none). ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_srq_get_rcq(const struct rpma_srq *srq, struct rpma_cq **rcq_ptr);

/* ---- operations ---- */

/*
 * Completion flags of every operation: at least one must be given.
 * Every operation below may also answer RPMA_E_PROVIDER (errno set) when the
 * provider refuses the post; inside a batch (rpma_conn_batch_begin) that may be
 * the refusal of a request collected earlier.
 */
#define RPMA_F_COMPLETION_ON_ERROR (1 << 0)
#define RPMA_F_COMPLETION_ALWAYS (1 << 1 | RPMA_F_COMPLETION_ON_ERROR)

/*
 * Read [src_offset, +len) of the remote src into [dst_offset, +len) of dst.
 * ERRORS: RPMA_E_INVAL when conn is NULL, flags is 0, len is over 4 GiB, or a
 * region is NULL but for the 0-byte message (both NULL, offsets and len 0);
 * RPMA_E_PROVIDER (errno set) when posting fails.
 */
int rpma_read(struct rpma_conn *conn,
		struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset,
		size_t len, int flags, const void *op_context);
/*
 * Write [src_offset, +len) of src to [dst_offset, +len) of the remote dst.
 * ERRORS: RPMA_E_INVAL when conn is NULL, flags is 0, len is over 4 GiB, or a
 * region is NULL but for the 0-byte message (both NULL, offsets and len 0);
 * RPMA_E_PROVIDER (errno set) when posting fails.
 */
int rpma_write(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		size_t len, int flags, const void *op_context);
/*
 * rpma_write() with imm delivered to the peer's receive.
 * ERRORS: RPMA_E_INVAL when conn is NULL, flags is 0, len is over 4 GiB, or a
 * region is NULL but for the 0-byte message (both NULL, offsets and len 0);
 * RPMA_E_NOSUPP on iWARP (no immediate data); RPMA_E_PROVIDER (errno set) when
 * posting fails.
 */
int rpma_write_with_imm(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		size_t len, int flags, uint32_t imm, const void *op_context);

/* Atomic writes move exactly 8 bytes to an 8-byte aligned remote offset. */
#define RPMA_ATOMIC_WRITE_ALIGNMENT 8

/*
 * Write the 8 bytes of src (copied before it returns) to the remote dst at an
 * 8-aligned dst_offset, as one unit: the device's ATOMIC WRITE, or a fenced
 * inline write.
 * ERRORS: RPMA_E_INVAL when conn, dst or src is NULL, dst_offset is not 8-aligned
 * or flags is 0; RPMA_E_PROVIDER (errno set) when posting fails.
 */
int rpma_atomic_write(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context);

/*
 * Deprecated form of rpma_atomic_write() taking the 8 bytes at src_offset of a
 * registered source.
 * ERRORS: as rpma_atomic_write(), and RPMA_E_INVAL when the 8 bytes leave src.
 */
RPMA_DEPRECATED
int rpma_write_atomic(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		int flags, const void *op_context);

enum rpma_flush_type {
	RPMA_FLUSH_TYPE_PERSISTENT, /* down to the persistence domain */
	RPMA_FLUSH_TYPE_VISIBILITY, /* far enough to be visible remotely */
};

/*
 * Make the earlier writes to [dst_offset, +len) of dst persistent (or visible)
 * at the peer: the device's FLUSH where it can (rpma_conn_get_flush_native), else
 * an RDMA read of a few bytes after them.
 * A native FLUSH carries a 32-bit length: one over UINT32_MAX bytes is refused
 * rather than cut short. The emulated flush takes any length.
 * ERRORS: RPMA_E_INVAL when conn or dst is NULL, type is no type, flags is 0, or
 * a native flush's len is over UINT32_MAX; RPMA_E_NOSUPP when the remote region
 * allows no flush of that type, or (persistent) the peer did not say it writes
 * straight to PMem; RPMA_E_PROVIDER (errno set) when posting fails.
 */
int rpma_flush(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
		enum rpma_flush_type type, int flags, const void *op_context);
/*
 * Send [offset, +len) of src (NULL with 0 and 0: a 0-byte message) to the peer's
 * next receive.
 * ERRORS: RPMA_E_INVAL when conn is NULL, flags is 0, src is NULL with an offset
 * or a length, or len is over 4 GiB; RPMA_E_PROVIDER (errno set) when posting
 * fails.
 */
int rpma_send(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset,
		size_t len, int flags, const void *op_context);
/*
 * rpma_send() with imm delivered to the peer's receive.
 * ERRORS: RPMA_E_INVAL when conn is NULL, flags is 0, src is NULL with an offset
 * or a length, or len is over 4 GiB; RPMA_E_NOSUPP on iWARP (no immediate data);
 * RPMA_E_PROVIDER (errno set) when posting fails.
 */
int rpma_send_with_imm(struct rpma_conn *conn, const struct rpma_mr_local *src,
		size_t offset, size_t len, int flags, uint32_t imm, const void *op_context);
/*
 * Post a receive of [offset, +len) of dst (NULL with 0 and 0: no buffer).
 * ERRORS: RPMA_E_INVAL when conn is NULL, dst is NULL with an offset or a length,
 * or len is over 4 GiB; RPMA_E_NOSUPP for a receive without a buffer on iWARP;
 * RPMA_E_PROVIDER (errno set) when ibv_post_recv() fails.
 */
int rpma_recv(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context);

/* ---- completion queues ---- */

/* The fd of the CQ's completion channel, for poll(2).
 * ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_cq_get_fd(const struct rpma_cq *cq, int *fd);
/*
 * Wait for the CQ's next completion event and re-arm it.
 * ERRORS: RPMA_E_INVAL (cq is NULL); RPMA_E_SHARED_CHANNEL when the CQ shares its
 * connection's channel (use rpma_conn_wait); RPMA_E_NO_COMPLETION when no event
 * came (non-blocking channel, or ibv_get_cq_event() failed); RPMA_E_PROVIDER
 * (errno set) when ibv_req_notify_cq() fails.
 */
int rpma_cq_wait(struct rpma_cq *cq);
/*
 * Poll up to num_entries completions into wc; *num_entries_got (may be NULL only
 * for one) says how many.
 * ERRORS: RPMA_E_INVAL when cq or wc is NULL, num_entries < 1, or
 * num_entries_got is NULL for more than one; RPMA_E_NO_COMPLETION when there is
 * none; RPMA_E_PROVIDER (errno set) when ibv_poll_cq() fails; RPMA_E_UNKNOWN when
 * it returns more than asked for.
 */
int rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc,
		int *num_entries_got);

/* Deprecated completion interface, kept for older programs. */
enum rpma_op {
	RPMA_OP_READ,
	RPMA_OP_WRITE,
	RPMA_OP_FLUSH,
	RPMA_OP_SEND,
	RPMA_OP_RECV,
	RPMA_OP_RECV_RDMA_WITH_IMM,
};

struct rpma_completion {
	void *op_context;
	enum rpma_op op;
	uint32_t byte_len;
	enum ibv_wc_status op_status;
	unsigned flags;
	uint32_t imm; /* host byte order */
};

/*
 * Deprecated: one completion, as struct rpma_completion.
 * ERRORS: as rpma_cq_get_wc() for one, and RPMA_E_NOSUPP for a successful
 * completion of an opcode with no rpma_op.
 */
RPMA_DEPRECATED
int rpma_cq_get_completion(struct rpma_cq *cq, struct rpma_completion *cmpl);

/* ---- errors and logging ---- */

/* An error code's text. ERRORS: none (an unknown code reads "Unknown error"). */
const char *rpma_err_2str(int ret);

enum rpma_log_level {
	RPMA_LOG_DISABLED = -1,
	RPMA_LOG_LEVEL_FATAL,
	RPMA_LOG_LEVEL_ERROR,
	RPMA_LOG_LEVEL_WARNING,
	RPMA_LOG_LEVEL_NOTICE,
	RPMA_LOG_LEVEL_INFO,
	RPMA_LOG_LEVEL_DEBUG,
};

enum rpma_log_threshold {
	RPMA_LOG_THRESHOLD,     /* what reaches the log function at all */
	RPMA_LOG_THRESHOLD_AUX, /* what the default function also prints to stderr */
	RPMA_LOG_THRESHOLD_MAX
};

/*
 * Set what reaches the log function (RPMA_LOG_THRESHOLD) or the default one's stderr
 * (RPMA_LOG_THRESHOLD_AUX).
 * ERRORS: RPMA_E_INVAL when threshold or level is no such value.
 */
int rpma_log_set_threshold(enum rpma_log_threshold threshold, enum rpma_log_level level);
/*
 * A threshold's level.
 * ERRORS: RPMA_E_INVAL when threshold is no threshold or level is NULL.
 */
int rpma_log_get_threshold(enum rpma_log_threshold threshold, enum rpma_log_level *level);

typedef void rpma_log_function(
	enum rpma_log_level level,
	const char *file_name,
	const int line_no,
	const char *function_name,
	const char *message_format,
	...);

#define RPMA_LOG_USE_DEFAULT_FUNCTION (NULL)

/*
 * Send the log to log_function (RPMA_LOG_USE_DEFAULT_FUNCTION: syslog, and stderr for
 * what passes the aux threshold). ERRORS: none.
 */
int rpma_log_set_function(rpma_log_function *log_function);

/*
 * The functions from here on are rpma-fio's extensions: librpma.so exports them
 * at a version node of their own, RPMAFIO_EXT_1.0 (librpma/librpma.map), so a
 * program that calls one is refused by the loader on upstream's library.
 */

/*
 * ---- rpma-fio extensions (not in librpma 1.x): native RDMA FLUSH ----
 *
 * A native FLUSH is checked by the responder against the flush access of the
 * target's registration, and the wire formats cannot say whether a remote
 * registration has it. So rpma_flush() posts a native FLUSH only when this
 * device executes FLUSH AND the application has vouched for the remote
 * region (having learned it through its own protocol); otherwise it emulates
 * the flush with a read, as it always does for a librpma 1.x peer.
 */
/* *native: was the region registered with the flush access a native FLUSH needs?
 * ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_mr_get_flush_native(const struct rpma_mr_local *mr, bool *native);
/* The remote region takes a native FLUSH.
 * ERRORS: RPMA_E_INVAL (mr is NULL), RPMA_E_NOSUPP (it allows no flush at all). */
int rpma_mr_remote_set_flush_native(struct rpma_mr_remote *mr);
/* *native: would rpma_flush() of dst on conn post the device's own FLUSH?
 * ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_get_flush_native(const struct rpma_conn *conn, const struct rpma_mr_remote *dst,
		bool *native);

/*
 * ---- rpma-fio extension (not in librpma 1.x): one doorbell for many operations ----
 *
 * Between rpma_conn_batch_begin() and rpma_conn_batch_end() the operations that
 * post to the connection's send queue (rpma_read, rpma_write*, rpma_atomic_write,
 * rpma_flush, rpma_send*) are only collected; rpma_conn_batch_end() hands them to
 * the device in order with one post (one doorbell) instead of one each. An
 * operation's errors may then surface only at rpma_conn_batch_end(). A thread that
 * opens a batch owns the connection's send side until it ends it.
 */
/* Start collecting. ERRORS: RPMA_E_INVAL (conn is NULL or a batch is already open). */
int rpma_conn_batch_begin(struct rpma_conn *conn);
/* Post what was collected, with one doorbell, and stop collecting, also when the
 * post fails. ERRORS: RPMA_E_INVAL (conn is NULL or no batch is open),
 * RPMA_E_PROVIDER (errno set) when the post fails. */
int rpma_conn_batch_end(struct rpma_conn *conn);

/*
 * ---- rpma-fio extension (not in librpma 1.x): who is asking ----
 *
 * A server that admits only some clients must know where a request comes from
 * before it accepts it (and before it registers anything for the peer).
 */
struct sockaddr_storage;	/* <sys/socket.h> */
/* *addr: the peer's address and port (an incoming request: the client's; an
 * outgoing one: the server's).
 * ERRORS: RPMA_E_INVAL (req or addr is NULL), RPMA_E_PROVIDER (the request's
 * address is of no family the library knows; errno not set). */
int rpma_conn_req_get_peer_addr(const struct rpma_conn_req *req,
		struct sockaddr_storage *addr);

/*
 * ---- rpma-fio extension (not in librpma 1.x): one receive CQ for many connections ----
 *
 * Connections of different peers (protection domains) cannot share an SRQ,
 * but the receives of their own queues can complete on one CQ of the device:
 * a server polls one CQ for many clients that cannot reach each other's
 * memory. A completion's qp_num tells whose it is.
 */
/* A receive CQ of size entries with a completion channel of its own, on peer's
 * device; any peer of that device may name it in rpma_conn_cfg_set_shared_rcq().
 * ERRORS: RPMA_E_INVAL (peer or rcq_ptr NULL, size 0 or above INT_MAX),
 * RPMA_E_NOMEM, RPMA_E_PROVIDER (errno set) when creating the channel or the CQ fails. */
int rpma_shared_rcq_new(struct rpma_peer *peer, uint32_t size, struct rpma_cq **rcq_ptr);
/* Destroy the CQ and its channel, once no connection that named it is left; *rcq_ptr
 * becomes NULL (NULL: nothing). ERRORS: RPMA_E_INVAL (rcq_ptr NULL), RPMA_E_PROVIDER
 * (errno set) when destroying the CQ or its channel fails. */
int rpma_shared_rcq_delete(struct rpma_cq **rcq_ptr);
/* The connections made with cfg complete their receives on rcq (NULL: as
 * rcq_size= and the SRQ say), which they do not own: rpma_conn_get_rcq()
 * answers it and rpma_conn_delete() leaves it. It wins over rcq_size= and an
 * SRQ's CQ. ERRORS: RPMA_E_INVAL (cfg NULL). */
int rpma_conn_cfg_set_shared_rcq(struct rpma_conn_cfg *cfg, struct rpma_cq *rcq);
/* The shared receive CQ (NULL: none). ERRORS: RPMA_E_INVAL (a NULL argument). */
int rpma_conn_cfg_get_shared_rcq(const struct rpma_conn_cfg *cfg, struct rpma_cq **rcq_ptr);

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* LIBRPMA_H */
