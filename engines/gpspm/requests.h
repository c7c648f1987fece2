/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * requests.h -- the GPSPM server's side of a flush request, shared by the
 * one-client server (server.h) and the hub (hub.h): the server's state, and
 * serving one request -- validate it (msg.h: a malformed, truncated or
 * unknown message, or a range outside the requester's bytes, is refused with
 * the reason; nothing outside them is ever touched), persist it (libpmem2's
 * persist function of the mapping: CPU cache flushes for PMem, msync for a
 * plain file; nothing for DRAM), post its receive again, send the response.
 * Functions return 0, or -1 after rpmafio_fail(), unless said otherwise.
 */
#ifndef RPMAFIO_GPSPM_REQUESTS_H
#define RPMAFIO_GPSPM_REQUESTS_H

#include <libpmem2.h>
#include <stdbool.h>
#include <stdint.h>

#include "line.h"
#include "msg_bufs.h"
#include "server/server.h"
#include "server_slots.h"

/*
 * one client's messages: iodepth receive and send buffers, registered in the
 * peer of its connection (the hub's clients: each its own), and which of
 * them hold a request waiting or a response in flight
 */
struct gpspm_mailbox {
	struct gpspm_msg_bufs bufs;	/* receive buffers first */
	struct gpspm_server_slots *slots;
};

/* the GPSPM server's state (s->priv), of one client or of the hub's */
struct gpspm_server {
	struct gpspm_mailbox *box;	/* per client (the one-client server: box[0]) */
	unsigned nbox;
	pmem2_persist_fn persist; /* NULL for DRAM */
	uint64_t served, bytes;
	bool last;		/* the client sent its last message */
	/* several clients (server/hub.h): every client's receives complete here */
	struct rpma_cq *rcq;
	/* ... and the clients with requests waiting, in line for their turns */
	struct gpspm_line *line;
};

/* whom a request came from: where its range lies, where its answer goes */
struct gpspm_requester {
	struct gpspm_mailbox *box;	/* its messages */
	uint32_t gen;		/* its connection's number (the hub's; else 0) */
	struct rpma_conn *conn;
	char *base;		/* its bytes of the server's memory */
	uint64_t size;
	const char *name;	/* "the client", "client 2 (192.168.1.2, port 7205)" */
	uint64_t *served, *bytes; /* its counts */
};

/* how serving one request ended */
enum gpspm_request_result {
	GPSPM_REQUEST_ANSWERED,	/* its response is on its way */
	GPSPM_REQUEST_LAST,	/* it was the last message: nothing to answer */
	GPSPM_REQUEST_STOPPED,	/* fio stops the job: not answered */
	GPSPM_REQUEST_REFUSED,	/* the client broke the protocol (after rpmafio_fail()) */
	GPSPM_REQUEST_UNSENT,	/* received again, but the response could not be sent (ditto) */
	GPSPM_REQUEST_FAILED,	/* after rpmafio_fail() */
};

/*
 * The state of a server of `clients` clients (s->priv), after
 * rpmafio_server_map(): a mailbox of iodepth receive and send buffers per
 * client (each the caller's to map and register in its client's peer:
 * gpspm_msg_bufs_new()).
 */
int gpspm_server_state_new(struct rpmafio_server *s, unsigned clients);

/* Once the connections are gone: the receive CQ, the buffers, the state. */
void gpspm_server_state_delete(struct rpmafio_server *s);

/* who's receive buffer k back to its connection's receive queue. */
int gpspm_recv_again(struct rpmafio_server *s, const struct gpspm_requester *who, uint32_t k);

/*
 * Serve the request in who's receive buffer k (len bytes), its response to go
 * in who's send buffer out: validate, persist, receive again, answer.
 */
enum gpspm_request_result gpspm_request_serve(struct rpmafio_server *s, struct gpspm_server *g,
	const struct gpspm_requester *who, uint32_t k, uint32_t len, uint32_t out);

#endif /* RPMAFIO_GPSPM_REQUESTS_H */
