/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn.h -- setting connections up and down: a client connects (retrying
 * until connect_timeout) and learns the server's memory from the workspace;
 * a server listens, accepts one client with the workspace as private data
 * and later waits for it to leave. Every function returns 0, or -1 after
 * rpmafio_fail(). Every wait gives up when fio stops the job.
 */
#ifndef RPMAFIO_CONN_H
#define RPMAFIO_CONN_H

#include "engine.h"

/*
 * Wait until fd is readable: 1 readable, 0 timed out (timeout_ms < 0: no
 * limit), -1 fio stopped the job (checked every 100 ms) or poll() failed.
 */
int rpmafio_wait_fd(struct thread_data *td, int fd, int timeout_ms);

/*
 * Client: connect to serverip:job->port with cfg, decode the workspace into
 * client.ws and describe the server's memory (client.server_mr, server_size,
 * the region's flush types). Fills peer, conn, cq, cq_fd, ev_fd.
 */
int rpmafio_client_connect(struct rpmafio_job *job, const struct rpma_conn_cfg *cfg);

/* Client: disconnect (waiting a little for the server's answer) and release everything. */
void rpmafio_client_disconnect(struct rpmafio_job *job);

/*
 * Server: find the device of serverip, register server.mem with usage and
 * encode the workspace (with server.max_msg_num and direct_write_to_pmem).
 */
int rpmafio_server_register(struct rpmafio_job *job, int usage);

/* Server: listen on serverip:job->port and say so on stderr. */
int rpmafio_server_listen(struct rpmafio_job *job);

/*
 * Server: take the first connection request (waiting without a limit, but
 * giving up when fio stops the job), let the method prepare it, accept it
 * with the workspace and wait until it is established; then stop listening.
 */
int rpmafio_server_accept(struct rpmafio_job *job, const struct rpma_conn_cfg *cfg);

/*
 * Server: wait until the client disconnects (or fio stops the job), polling
 * the connection's events every timeout_ms or 100 ms, whichever is shorter.
 * Returns 1 once the client has gone, 0 if timeout_ms (>= 0) passed first, -1 on an
 * error. Safe to call again after it returned 1.
 */
int rpmafio_server_wait_disconnect(struct rpmafio_job *job, int timeout_ms);

/* Server: release the connection, the endpoint, the registration and the peer (not the memory). */
void rpmafio_server_teardown(struct rpmafio_job *job);

#endif /* RPMAFIO_CONN_H */
