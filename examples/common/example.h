/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * example.h -- the small amount of set-up every example shares: finding the
 * device, listening or connecting, waiting for an event or a completion.
 * Each helper prints a message naming what failed and returns -1.
 */
#ifndef EXAMPLE_H
#define EXAMPLE_H

#include <librpma.h>

/*
 * Every blocking step of an example gives up after this long: 20 s, or the
 * environment's EXAMPLE_TIMEOUT_S (1..3600; the fault tests wait less for a
 * peer that will never answer).
 */
#define EXAMPLE_TIMEOUT_S example_timeout_s()
int example_timeout_s(void);

/* The environment's NAME as a number min..max, or dflt (unset, or not one: said on stderr). */
int example_env_int(const char *name, int min, int max, int dflt);

/* Print "example: <what>: <rpma error text>" and return -1. */
int example_fail(const char *what, int ret);

/* Peer for a local (server) or remote (client) address. */
int example_peer_new(const char *addr, enum rpma_util_ibv_context_type type,
		struct rpma_peer **peer_ptr);

/* Wait (with timeout) until fd is readable; `what` names it in the message. */
int example_wait_readable(int fd, const char *what);

/*
 * Server, step by step: listen on addr:port and create ready_file (when not
 * NULL) once listening; wait for the next connection request; accept it
 * (consuming *req_ptr) with pdata and wait until it is established.
 */
/* rpma_ep_shutdown(), retried once when it fails (the endpoint then stays whole) */
void example_ep_shutdown(struct rpma_ep **ep_ptr);

int example_listen(struct rpma_peer *peer, const char *addr, const char *port,
		const char *ready_file, struct rpma_ep **ep_ptr);
int example_next_request(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		struct rpma_conn_req **req_ptr);
int example_accept(struct rpma_conn_req **req_ptr, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr);

/*
 * Server, all in one: listen, take one request, accept it and shut the
 * endpoint down before returning.
 */
int example_server_accept(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		const char *ready_file, struct rpma_conn **conn_ptr);

/* The same, but the connection's first event is left to the caller. */
int example_server_connect(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		const char *ready_file, struct rpma_conn **conn_ptr);

/*
 * Client, one attempt: connect with pdata and return the first connection
 * event in *event. The connection is kept only when it is ESTABLISHED.
 */
int example_connect_attempt(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr, enum rpma_conn_event *event);

/* Client: connect with pdata, retrying while the server is not yet listening. */
int example_client_connect(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr);

/* Wait (with timeout, naming `what`) for the next connection event. */
int example_next_event(struct rpma_conn *conn, const char *what, enum rpma_conn_event *event);

/* Wait (with timeout) for the next connection event and check it is `expected`. */
int example_expect_event(struct rpma_conn *conn, enum rpma_conn_event expected);

/* Wait (with timeout) for one completion on cq, whatever its opcode; check success. */
int example_next_completion(struct rpma_cq *cq, struct ibv_wc *wc_out);

/* Wait (with timeout) for one completion on cq; check success and opcode. */
int example_expect_completion(struct rpma_cq *cq, enum ibv_wc_opcode opcode,
		struct ibv_wc *wc_out);

/*
 * Wait (with timeout) for an rpma_flush()'s completion: a native FLUSH, or the RDMA
 * read that emulates it on a device without one.
 */
int example_expect_flush_completion(struct rpma_cq *cq);

/*
 * Native FLUSH (rpma-fio extensions of librpma): the server sends one more
 * byte in its private data, 1 when its region takes a native FLUSH; the
 * client vouches for the remote region when it says so (any other value
 * than 0 or 1 is refused). Without it every flush is emulated.
 */
uint8_t example_flush_native_byte(const struct rpma_mr_local *mr);
int example_apply_flush_native_byte(struct rpma_mr_remote *rmr, uint8_t byte);

/* The name of a completion's opcode, for messages. */
const char *example_wc_opcode_str(enum ibv_wc_opcode opcode);

/* Client side of the end: disconnect, wait for CLOSED, delete. */
int example_disconnect(struct rpma_conn **conn_ptr);
/* Server side of the end: wait for CLOSED, disconnect, delete. */
int example_wait_disconnect(struct rpma_conn **conn_ptr);

/* What a server or client does once it has its peer; 0 on success. */
typedef int example_role_fn(struct rpma_peer *peer, int argc, char *argv[]);

/*
 * The main() of an example run as "server ADDR PORT ..." or "client ADDR
 * PORT ...": checks the role, creates the peer for ADDR (local for the
 * server, remote for the client), runs the role and prints "<role>: OK"
 * or "<role>: FAILED". Returns the exit status (2: usage).
 */
int example_main(int argc, char *argv[], const char *usage, example_role_fn *server,
		example_role_fn *client);

#endif /* EXAMPLE_H */
