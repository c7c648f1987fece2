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

/* Find the RDMA device that serves the given IPv4/IPv6 address. */
int rpma_utils_get_ibv_context(const char *addr, enum rpma_util_ibv_context_type type,
		struct ibv_context **ibv_ctx_ptr);

/* Tell whether the device supports On-Demand Paging for RC connections. */
int rpma_utils_ibv_context_is_odp_capable(struct ibv_context *ibv_ctx, int *is_odp_capable);

/* ---- peer configuration ---- */

struct rpma_peer_cfg;

int rpma_peer_cfg_new(struct rpma_peer_cfg **pcfg_ptr);
int rpma_peer_cfg_delete(struct rpma_peer_cfg **pcfg_ptr);
/* Declare that the RNIC writes straight to PMem (e.g. DDIO is off). */
int rpma_peer_cfg_set_direct_write_to_pmem(struct rpma_peer_cfg *pcfg, bool supported);
int rpma_peer_cfg_get_direct_write_to_pmem(const struct rpma_peer_cfg *pcfg, bool *supported);
/* A peer configuration travels as a 1-byte descriptor. */
int rpma_peer_cfg_get_descriptor(const struct rpma_peer_cfg *pcfg, void *desc);
int rpma_peer_cfg_get_descriptor_size(const struct rpma_peer_cfg *pcfg, size_t *desc_size);
int rpma_peer_cfg_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_peer_cfg **pcfg_ptr);

/* ---- peer ---- */

struct rpma_peer;

int rpma_peer_new(struct ibv_context *ibv_ctx, struct rpma_peer **peer_ptr);
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

int rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		struct rpma_mr_local **mr_ptr);
int rpma_mr_dereg(struct rpma_mr_local **mr_ptr);
/* A local region travels as a 21-byte descriptor (layout: docs/librpma.md). */
int rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc);
int rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_mr_remote **mr_ptr);
int rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr, size_t *desc_size);
int rpma_mr_get_ptr(const struct rpma_mr_local *mr, void **ptr);
int rpma_mr_get_size(const struct rpma_mr_local *mr, size_t *size);
int rpma_mr_remote_get_size(const struct rpma_mr_remote *mr, size_t *size);
int rpma_mr_remote_get_flush_type(const struct rpma_mr_remote *mr, int *flush_type);
int rpma_mr_remote_delete(struct rpma_mr_remote **mr_ptr);
int rpma_mr_advise(struct rpma_mr_local *mr, size_t offset, size_t len, int advice,
		uint32_t flags);

/* ---- connection configuration ---- */

struct rpma_conn_cfg;

int rpma_conn_cfg_new(struct rpma_conn_cfg **cfg_ptr);
int rpma_conn_cfg_delete(struct rpma_conn_cfg **cfg_ptr);
int rpma_conn_cfg_set_timeout(struct rpma_conn_cfg *cfg, int timeout_ms);
int rpma_conn_cfg_get_timeout(const struct rpma_conn_cfg *cfg, int *timeout_ms);
int rpma_conn_cfg_set_cq_size(struct rpma_conn_cfg *cfg, uint32_t cq_size);
int rpma_conn_cfg_get_compl_channel(const struct rpma_conn_cfg *cfg, bool *shared);
int rpma_conn_cfg_set_compl_channel(struct rpma_conn_cfg *cfg, bool shared);
int rpma_conn_cfg_get_cq_size(const struct rpma_conn_cfg *cfg, uint32_t *cq_size);
int rpma_conn_cfg_set_rcq_size(struct rpma_conn_cfg *cfg, uint32_t rcq_size);
int rpma_conn_cfg_get_rcq_size(const struct rpma_conn_cfg *cfg, uint32_t *rcq_size);
int rpma_conn_cfg_set_sq_size(struct rpma_conn_cfg *cfg, uint32_t sq_size);
int rpma_conn_cfg_get_sq_size(const struct rpma_conn_cfg *cfg, uint32_t *sq_size);
int rpma_conn_cfg_set_rq_size(struct rpma_conn_cfg *cfg, uint32_t rq_size);
int rpma_conn_cfg_get_rq_size(const struct rpma_conn_cfg *cfg, uint32_t *rq_size);

struct rpma_srq;

int rpma_conn_cfg_set_srq(struct rpma_conn_cfg *cfg, struct rpma_srq *srq);
int rpma_conn_cfg_get_srq(const struct rpma_conn_cfg *cfg, struct rpma_srq **srq_ptr);

/* ---- connection ---- */

struct rpma_conn;

int rpma_conn_get_event_fd(const struct rpma_conn *conn, int *fd);

enum rpma_conn_event {
	RPMA_CONN_UNDEFINED = -1,
	RPMA_CONN_ESTABLISHED,
	RPMA_CONN_CLOSED,
	RPMA_CONN_LOST,
	RPMA_CONN_REJECTED,
	RPMA_CONN_UNREACHABLE
};

int rpma_conn_next_event(struct rpma_conn *conn, enum rpma_conn_event *event);
const char *rpma_utils_conn_event_2str(enum rpma_conn_event conn_event);

/* Private data exchanged while connecting (at most 255 bytes of it). */
struct rpma_conn_private_data {
	void *ptr;
	uint8_t len;
};

int rpma_conn_get_private_data(const struct rpma_conn *conn,
		struct rpma_conn_private_data *pdata);
int rpma_conn_apply_remote_peer_cfg(struct rpma_conn *conn, const struct rpma_peer_cfg *pcfg);
int rpma_conn_get_qp_num(const struct rpma_conn *conn, uint32_t *qp_num);

struct rpma_cq;

int rpma_conn_get_cq(const struct rpma_conn *conn, struct rpma_cq **cq_ptr);
int rpma_conn_get_rcq(const struct rpma_conn *conn, struct rpma_cq **rcq_ptr);
int rpma_conn_disconnect(struct rpma_conn *conn);
int rpma_conn_delete(struct rpma_conn **conn_ptr);

/* ---- connection requests ---- */

struct rpma_conn_req;

int rpma_conn_req_new(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr);
int rpma_conn_req_delete(struct rpma_conn_req **req_ptr);
/* Consumes *req_ptr (sets it to NULL) whether or not it succeeds. */
int rpma_conn_req_connect(struct rpma_conn_req **req_ptr,
		const struct rpma_conn_private_data *pdata, struct rpma_conn **conn_ptr);
int rpma_conn_get_compl_fd(const struct rpma_conn *conn, int *fd);
int rpma_conn_wait(struct rpma_conn *conn, int flags, struct rpma_cq **cq, bool *is_rcq);
int rpma_conn_req_recv(struct rpma_conn_req *req, struct rpma_mr_local *dst, size_t offset,
		size_t len, const void *op_context);

/* ---- endpoint ---- */

struct rpma_ep;

int rpma_ep_listen(struct rpma_peer *peer, const char *addr, const char *port,
		struct rpma_ep **ep_ptr);
int rpma_ep_shutdown(struct rpma_ep **ep_ptr);
int rpma_ep_get_fd(const struct rpma_ep *ep, int *fd);
int rpma_ep_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		struct rpma_conn_req **req_ptr);
int rpma_conn_req_get_private_data(const struct rpma_conn_req *req,
		struct rpma_conn_private_data *pdata);

/* ---- shared receive queue ---- */

struct rpma_srq_cfg;

int rpma_srq_cfg_new(struct rpma_srq_cfg **cfg_ptr);
int rpma_srq_cfg_delete(struct rpma_srq_cfg **cfg_ptr);
int rpma_srq_cfg_set_rq_size(struct rpma_srq_cfg *cfg, uint32_t rq_size);
int rpma_srq_cfg_get_rq_size(const struct rpma_srq_cfg *cfg, uint32_t *rq_size);
int rpma_srq_cfg_set_rcq_size(struct rpma_srq_cfg *cfg, uint32_t rcq_size);
int rpma_srq_cfg_get_rcq_size(const struct rpma_srq_cfg *cfg, uint32_t *rcq_size);

int rpma_srq_new(struct rpma_peer *peer, struct rpma_srq_cfg *cfg, struct rpma_srq **srq_ptr);
int rpma_srq_delete(struct rpma_srq **srq_ptr);
int rpma_srq_recv(struct rpma_srq *srq, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context);
int rpma_srq_get_rcq(const struct rpma_srq *srq, struct rpma_cq **rcq_ptr);

/* ---- operations ---- */

/* Completion flags of every operation: at least one must be given. */
#define RPMA_F_COMPLETION_ON_ERROR (1 << 0)
#define RPMA_F_COMPLETION_ALWAYS (1 << 1 | RPMA_F_COMPLETION_ON_ERROR)

int rpma_read(struct rpma_conn *conn,
		struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset,
		size_t len, int flags, const void *op_context);
int rpma_write(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		size_t len, int flags, const void *op_context);
int rpma_write_with_imm(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		size_t len, int flags, uint32_t imm, const void *op_context);

/* Atomic writes move exactly 8 bytes to an 8-byte aligned remote offset. */
#define RPMA_ATOMIC_WRITE_ALIGNMENT 8

int rpma_atomic_write(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context);

/* Deprecated form of rpma_atomic_write() taking a registered source. */
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
 * A native FLUSH carries a 32-bit length: one over UINT32_MAX bytes is refused
 * (RPMA_E_INVAL) rather than cut short. The emulated flush (an RDMA read of a
 * few bytes) takes any length.
 */
int rpma_flush(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
		enum rpma_flush_type type, int flags, const void *op_context);
int rpma_send(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset,
		size_t len, int flags, const void *op_context);
int rpma_send_with_imm(struct rpma_conn *conn, const struct rpma_mr_local *src,
		size_t offset, size_t len, int flags, uint32_t imm, const void *op_context);
int rpma_recv(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context);

/* ---- completion queues ---- */

int rpma_cq_get_fd(const struct rpma_cq *cq, int *fd);
int rpma_cq_wait(struct rpma_cq *cq);
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

RPMA_DEPRECATED
int rpma_cq_get_completion(struct rpma_cq *cq, struct rpma_completion *cmpl);

/* ---- errors and logging ---- */

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

int rpma_log_set_threshold(enum rpma_log_threshold threshold, enum rpma_log_level level);
int rpma_log_get_threshold(enum rpma_log_threshold threshold, enum rpma_log_level *level);

typedef void rpma_log_function(
	enum rpma_log_level level,
	const char *file_name,
	const int line_no,
	const char *function_name,
	const char *message_format,
	...);

#define RPMA_LOG_USE_DEFAULT_FUNCTION (NULL)

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
/* *native: was the region registered with the flush access a native FLUSH needs? */
int rpma_mr_get_flush_native(const struct rpma_mr_local *mr, bool *native);
/* The remote region takes a native FLUSH (RPMA_E_NOSUPP: it allows no flush at all). */
int rpma_mr_remote_set_flush_native(struct rpma_mr_remote *mr);
/* *native: would rpma_flush() of dst on conn post the device's own FLUSH? */
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
/* Start collecting (RPMA_E_INVAL: conn is NULL or a batch is already open). */
int rpma_conn_batch_begin(struct rpma_conn *conn);
/* Post what was collected, with one doorbell, and stop collecting (RPMA_E_INVAL:
 * no batch is open; RPMA_E_PROVIDER: the post failed, errno set). */
int rpma_conn_batch_end(struct rpma_conn *conn);

/*
 * ---- rpma-fio extension (not in librpma 1.x): who is asking ----
 *
 * A server that admits only some clients must know where a request comes from
 * before it accepts it (and before it registers anything for the peer).
 */
/* *addr: the peer's address and port (an incoming request: the client's; an
 * outgoing one: the server's). RPMA_E_INVAL: req or addr is NULL;
 * RPMA_E_PROVIDER: the request has no address of a known family. */
struct sockaddr_storage;	/* <sys/socket.h> */
int rpma_conn_req_get_peer_addr(const struct rpma_conn_req *req,
		struct sockaddr_storage *addr);

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* LIBRPMA_H */
