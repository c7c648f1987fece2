/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fake_provider.h -- a test double of libibverbs and librdmacm for the unit
 * tests. Unit test binaries link this instead of the real libraries, so
 * every provider call the library makes lands here. By default every call
 * succeeds; a test can make the n-th call of a function fail, queue work
 * completions and CM events, set device capabilities, and inspect the last
 * work requests posted. Every object handed out is counted, so a test can
 * assert that the library released everything it created.
 */
#ifndef FAKE_PROVIDER_H
#define FAKE_PROVIDER_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* Forget all failures, queues, records and counters; check no object leaked first. */
void fake_reset(void);

/*
 * Make the nth (1 = the next) call of the function named fn fail with errno
 * err (returned directly by calls that return an errno, such as
 * ibv_post_send). err == 0 fails without setting errno.
 */
void fake_fail(const char *fn, unsigned nth, int err);
/* How many times fn was called since the last fake_reset(). */
unsigned fake_calls(const char *fn);

/* Make the nth call of malloc/calloc/realloc/strdup from the library return NULL. */
void fake_malloc_fail(unsigned nth);

/*
 * Watch the block at ptr: when the library free()s it, look at its first len
 * bytes just before they go back to the allocator (secrets must be cleared by
 * then). fake_free_watched() says what was seen: -1 not freed (yet), 0 freed
 * with some byte not zero, 1 freed with every byte zero.
 */
void fake_free_watch(const void *ptr, size_t len);
int fake_free_watched(void);

/* Live objects handed out by the fake (ids, qps, cqs, mrs, channels, ...). */
int fake_live_objects(void);

/* Device attributes reported by ibv_query_device(_ex). */
struct fake_device {
	uint64_t device_cap_flags_ex; /* e.g. RPMA_DEVICE_CAP_ATOMIC_WRITE */
	uint32_t rc_odp_caps;
	uint64_t general_odp_caps;
	bool has_query_device_ex;     /* else the legacy path is taken */
	bool has_advise_mr;
	enum ibv_transport_type transport; /* the device's (0: IBV_TRANSPORT_IB, also RoCE) */
	/*
	 * The extended interface's builders of reads, writes and sends (ibv_wr_*),
	 * as rxe and mlx5 have them: what a session builds is recorded as if one
	 * ibv_post_send() had carried it (fake_posted.send_chain) when
	 * ibv_wr_complete() rings, under "ibv_wr_complete" for fake_fail().
	 */
	bool has_wr_data_ops;
};
extern struct fake_device fake_device;

/* The one device context every address resolves to. */
struct ibv_context *fake_ibv_context(void);

/* Completions: poll_cq on cq returns what was queued, in order. */
void fake_cq_push(struct ibv_cq *cq, const struct ibv_wc *wc);
/* ibv_poll_cq result override: next poll returns ret (negative = failure). */
void fake_cq_poll_result(int ret);
/* ibv_get_cq_event on channel returns cq (NULL: fail with errno). */
void fake_channel_push(struct ibv_comp_channel *channel, struct ibv_cq *cq);

/* CM events: rdma_get_cm_event on channel returns them in order. */
void fake_cm_push_event(struct rdma_event_channel *channel, enum rdma_cm_event_type type,
		struct rdma_cm_id *id, const void *pdata, uint8_t pdata_len, int status);
/* The id a CONNECT_REQUEST event carries: a new id on the listening id's channel. */
struct rdma_cm_id *fake_cm_new_request_id(struct rdma_cm_id *listen_id);

/* What was last posted (copies, with the first sge copied too). */
struct fake_posted {
	unsigned count;
	struct ibv_send_wr send_wr;
	struct ibv_sge send_sge;
	/* the last ibv_post_send's chain: its length, and the first FAKE_CHAIN_MAX of it */
	unsigned send_chain_len;
	struct ibv_send_wr send_chain[8];
	struct ibv_sge send_chain_sge[8];
	struct ibv_recv_wr recv_wr;
	struct ibv_sge recv_sge;
	struct ibv_recv_wr srq_recv_wr;
	struct ibv_sge srq_recv_sge;
	/* extended (ibv_wr_*) interface */
	const char *wr_op;           /* "atomic_write", "flush", ... or NULL */
	uint64_t wr_id;
	unsigned wr_flags;
	uint32_t wr_rkey;
	uint64_t wr_remote_addr;
	uint8_t wr_atomic_data[8];
	uint64_t wr_len;
	uint8_t wr_flush_type;
	uint8_t wr_flush_level;
};
extern struct fake_posted fake_posted;
/*
 * The request of its chain (0: the first) that a failing ibv_post_send points
 * bad_wr at, as a device does that took the ones before it; past the chain's
 * end, its last.
 */
extern unsigned fake_send_bad_wr_index;

/* What the last rdma_connect/rdma_accept/rdma_reject carried. */
struct fake_conn_param {
	uint8_t pdata[256];
	uint8_t pdata_len;
	int responder_resources;
	int initiator_depth;
	int rnr_retry_count;
};
extern struct fake_conn_param fake_last_conn_param;

/* Last QP init attributes given to rdma_create_qp(_ex). */
extern struct ibv_qp_init_attr_ex fake_last_qp_attr;
/* Last SRQ init attributes given to ibv_create_srq. */
extern struct ibv_srq_init_attr fake_last_srq_attr;
/* Last access flags given to ibv_reg_mr. */
extern int fake_last_mr_access;
/* The id rdma_create_id last handed out (an endpoint's, an outgoing request's). */
extern struct rdma_cm_id *fake_last_cm_id;
/* The last memory region ibv_reg_mr handed out (its keys are otherwise hidden). */
extern struct ibv_mr *fake_last_mr;

/* Address resolution: what the last calls were given, and two ways to misbehave. */
struct fake_addr {
	char node[64];                  /* of the last rdma_getaddrinfo ("" if NULL) */
	bool service_null;
	char service[16];
	int hints_flags;                /* -1: hints was NULL */
	int hints_port_space;
	const struct rdma_addrinfo *ai; /* the last result handed out */
	struct rdma_cm_id *id;          /* of the last rdma_bind_addr/rdma_resolve_addr */
	const struct sockaddr *bind_addr;
	const struct sockaddr *resolve_src, *resolve_dst;
	int resolve_timeout_ms;
	int getaddrinfo_ret;            /* set: the next rdma_getaddrinfo returns it (EAI_*) */
	bool no_device;                 /* set: bind/resolve succeed but leave id->verbs NULL */
};
extern struct fake_addr fake_addr;

#endif /* FAKE_PROVIDER_H */
