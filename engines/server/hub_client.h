/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hub_client.h -- a hub's clients and the hub itself, the types only (hub.h
 * has the calls; hub_door.c, the handshakes, needs these and not those).
 */
#ifndef RPMAFIO_HUB_CLIENT_H
#define RPMAFIO_HUB_CLIENT_H

#include <stdint.h>

#include <librpma.h>

#include "common/access.h"
#include "common/poll.h"
#include "common/workspace.h"
#include "keepalive.h"

struct rpmafio_server;

/* a connection's number fits in 30 bits: the method's work request ids carry it */
#define RPMAFIO_HUB_GEN_MASK 0x3fffffffu

enum rpmafio_hub_client_state {
	RPMAFIO_HUB_WAITING,	/* not connected yet: its port listens */
	RPMAFIO_HUB_CONNECTING,	/* accepted, its handshake not done yet (until connect_due) */
	RPMAFIO_HUB_SERVING,
	RPMAFIO_HUB_DONE,	/* said it is done: its disconnection is next */
	RPMAFIO_HUB_GONE,	/* disconnected, lost or cut off */
};

struct rpmafio_hub_client {
	unsigned k;		/* 0-based within the job */
	char port[8];
	char addr[RPMAFIO_ADDR_STR_LEN]; /* where it connected from */
	char name[RPMAFIO_ADDR_STR_LEN + 40]; /* "client 2 (ADDR, port P)": its
				 * messages' (formatted once, when it asks to connect) */
	/*
	 * its own protection domain: an rkey is checked against the PD of the
	 * queue pair it comes on, so no other client's can reach its bytes
	 */
	struct rpma_peer *peer;
	uint32_t gen;		/* its connections so far (mod RPMAFIO_HUB_GEN_MASK + 1): the
				 * method tells an earlier one's work apart */
	struct rpma_ep *ep;	/* until it connected */
	int ep_fd;		/* ... its connection requests (in the epoll set) */
	struct rpma_conn *conn;
	struct rpma_cq *cq;	/* its sends and probes (its receives: the hub's rcq) */
	uint32_t qp_num;
	int ev_fd;
	struct rpma_mr_local *mr; /* its bytes of the job's memory */
	char *base;		/* ... mapped here, hub->part of them */
	uint8_t ws_bytes[RPMAFIO_WS_SIZE];
	enum rpmafio_hub_client_state state;
	uint64_t connect_due;	/* connecting: dropped unless established by then (ms) */
	uint64_t done_ms;	/* when it said it is done */
	uint64_t stalled_ms;	/* since when its requests wait for a send buffer and
				 * none of its sends completed (0: they do not wait) */
	struct rpmafio_keepalive ka;
	uint64_t served, bytes;	/* the method's count of its requests */
};

/* What a serving method does with its clients (each step returns a poll step). */
struct rpmafio_hub_ops {
	/*
	 * Before client c's connection request is accepted: post its receives on
	 * req, their work requests telling c->gen. 0, or a librpma error code
	 * (the request is refused and the port listens on; the job goes on).
	 */
	int (*accepting)(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		struct rpma_conn_req *req);
	/* n (>= 1) completions of the receive CQ */
	enum rpmafio_poll_step (*recv_wc)(struct rpmafio_server *s, const struct ibv_wc *wc, int n);
	/* a completion of one of client c's work requests (not a keepalive probe) */
	enum rpmafio_poll_step (*send_wc)(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		const struct ibv_wc *wc);
	/*
	 * Do requests of client c wait for a send buffer (every one holds a
	 * response whose SEND has not completed)? The hub then polls without
	 * sleeping, and cuts c off when none of its sends completes for
	 * connect_timeout (it takes no responses: the others go on).
	 */
	bool (*waiting)(const struct rpmafio_server *s, const struct rpmafio_hub_client *c);
};

struct rpmafio_hub {
	unsigned n;
	size_t part;		/* bytes of each client */
	unsigned gone;		/* clients in RPMAFIO_HUB_GONE */
	bool hurry;		/* requests wait for a send buffer: poll without sleeping */
	int epoll_fd;		/* the clients' ports and connections */
	struct rpma_conn_cfg *cfg; /* of the clients' connections */
	struct rpma_cq *rcq;	/* every client's receives (the method's) */
	const struct rpmafio_hub_ops *ops;
	struct rpmafio_hub_client *clients;
};

#endif /* RPMAFIO_HUB_CLIENT_H */
