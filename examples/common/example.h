/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * example.h -- the small amount of set-up every example shares: finding the
 * device, listening or connecting, waiting for an event or a completion.
 * Each helper prints a message naming what failed and returns -1.
 */
#ifndef EXAMPLE_H
#define EXAMPLE_H

#include <librpma.h>

/* Every blocking step of an example gives up after this long. */
#define EXAMPLE_TIMEOUT_S 20

/* Print "example: <what>: <rpma error text>" and return -1. */
int example_fail(const char *what, int ret);

/* Peer for a local (server) or remote (client) address. */
int example_peer_new(const char *addr, enum rpma_util_ibv_context_type type,
		struct rpma_peer **peer_ptr);

/*
 * Server: listen on addr:port, create ready_file (when not NULL) once
 * listening, take one request, accept it with pdata and wait until the
 * connection is established. The endpoint is shut down before returning.
 */
int example_server_accept(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		const char *ready_file, struct rpma_conn **conn_ptr);

/* Client: connect with pdata, retrying while the server is not yet listening. */
int example_client_connect(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr);

/* Wait (with timeout) for the next connection event and check it is `expected`. */
int example_expect_event(struct rpma_conn *conn, enum rpma_conn_event expected);

/* Wait (with timeout) for one completion on cq; check success and opcode. */
int example_expect_completion(struct rpma_cq *cq, enum ibv_wc_opcode opcode,
		struct ibv_wc *wc_out);

/* Client side of the end: disconnect, wait for CLOSED, delete. */
int example_disconnect(struct rpma_conn **conn_ptr);
/* Server side of the end: wait for CLOSED, disconnect, delete. */
int example_wait_disconnect(struct rpma_conn **conn_ptr);

#endif /* EXAMPLE_H */
