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
#include "common/workspace.h"
#include "keepalive.h"

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
	struct rpma_ep *ep;	/* until it connected */
	int ep_fd;		/* ... its connection requests (in the epoll set) */
	struct rpma_conn *conn;
	struct rpma_cq *cq;	/* its sends and probes */
	uint32_t qp_num;
	int ev_fd;
	struct rpma_mr_local *mr; /* its bytes of the job's memory */
	char *base;		/* ... mapped here, hub->part of them */
	uint8_t ws_bytes[RPMAFIO_WS_SIZE];
	enum rpmafio_hub_client_state state;
	uint64_t connect_due;	/* connecting: dropped unless established by then (ms) */
	uint64_t done_ms;	/* when it said it is done */
	struct rpmafio_keepalive ka;
	uint64_t served, bytes;	/* the method's count of its requests */
};

struct rpmafio_hub {
	unsigned n;
	size_t part;		/* bytes of each client */
	unsigned gone;		/* clients in RPMAFIO_HUB_GONE */
	int epoll_fd;		/* the clients' ports and connections */
	struct rpma_conn_cfg *cfg; /* of the clients' connections */
	struct rpmafio_hub_client *clients;
};

#endif /* RPMAFIO_HUB_CLIENT_H */
