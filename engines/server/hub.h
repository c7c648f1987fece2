/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hub.h -- one server job serving several clients from its one thread
 * (clients_per_job=n above 1), laid out as n jobs would be, so the clients'
 * job files do not change: client k (0-based) of job i connects to
 * port + i * n + k and is given the k-th size= bytes of the job's n * size.
 * Each client has a protection domain of its own (a peer): its bytes are
 * registered in it and its connection is made in it, so the device refuses
 * another client's access to them, whatever rkey and address it sends.
 *
 * The steps, in a method's server init and serve:
 *
 *   rpmafio_hub_new()          the n clients' places (after rpmafio_server_map()
 *                              mapped n * size bytes)
 *   rpmafio_hub_register()     each client's peer, bytes and workspace
 *   rpmafio_hub_listen()       on its n ports, each through its client's peer
 *   rpmafio_hub_open()         the doors: connection requests wake the loop
 *                              (the method posts a client's receives on its
 *                              request: ops->accepting)
 *   rpmafio_hub_serve()        accepting each client when it comes, serving
 *                              those connected, until every one has come and gone
 *
 * Clients are accepted while the others are served (a client that starts
 * late holds no one up), and their handshakes end in the loop too (hub_door.c):
 * an accepted client is connecting until its ESTABLISHED (or its first message)
 * comes; one whose handshake fails, or is not done within connect_timeout (a
 * client killed in it, or one that never finishes it), is named in a note and
 * dropped, its port listening on for the next request: the job goes on, and
 * no one else waits for it. Every client has its own receive queue, but
 * their receives complete on one CQ (librpma's shared receive CQ, which
 * belongs to no protection domain: the loop's CQ); each client's sends and
 * keepalive probes on its own, reaped after every batch of receives and when
 * idle. While a client's requests wait for a send buffer the loop polls
 * without sleeping, and a client none of whose sends completes for
 * connect_timeout (one that takes no responses) is cut off: no client's
 * requests hold up another's. The clients' connection events wake the loop
 * through one epoll set. A client that breaks
 * the protocol, or whose host stops answering, is cut off and fails the job
 * (the first failure is kept), but the others are served to their end.
 * engine.c tears down as for one client: rpmafio_server_disconnect() and
 * rpmafio_server_release() take the hub's connections and registrations
 * (through the teardown rpmafio_hub_new() gives the server: server.h).
 */
#ifndef RPMAFIO_HUB_H
#define RPMAFIO_HUB_H

#include <librpma.h>

#include "common/poll.h"
#include "common/queues.h"
#include "hub_client.h"
#include "server.h"

/*
 * The hub of s->job.o->clients_per_job clients, each of part bytes of the
 * memory rpmafio_server_map() mapped (n * part), and its teardown
 * (s->hub_teardown). 0, or -1 after rpmafio_fail().
 */
int rpmafio_hub_new(struct rpmafio_server *s, size_t part);

/*
 * The hub's peer (s->peer, of serverip's device: s->dev), then each client's
 * own peer, its bytes registered there with usage, and its workspace.
 */
int rpmafio_hub_register(struct rpmafio_server *s, int usage, uint16_t max_msg_num);

/*
 * Listen on every client's port, through its peer (its requests' connections
 * are made in its protection domain), and say so, in one line, on stderr.
 */
int rpmafio_hub_listen(struct rpmafio_server *s);

/*
 * Ready the hub to take its clients' connection requests from the serve loop,
 * each with queue sizes q, its receives completing on rcq, served by ops
 * (kept: the hub's): allow_clients= and
 * the secret admit them as for one client; a refused one is named and its port
 * waits on; an admitted one is accepted with its workspace, and its handshake
 * ends in the loop (it must be established within connect_timeout, or it is
 * dropped and its port waits on: the job goes on).
 */
int rpmafio_hub_open(struct rpmafio_server *s, const struct rpmafio_queues *q,
	struct rpma_cq *rcq, const struct rpmafio_hub_ops *ops);

/*
 * The client a completion of the receive CQ came from (by its queue pair's
 * number and gen, its connection's: a completion of an earlier connection,
 * whose queue pair's number may be taken again, is no one's), which is
 * thereby heard from (its keepalive waits), or NULL.
 * A connecting client that sent is connected (its ESTABLISHED may come later):
 * it is served from now on (or, when its queues cannot be had, dropped: NULL).
 */
struct rpmafio_hub_client *rpmafio_hub_sender(struct rpmafio_server *s, const struct ibv_wc *wc,
	uint32_t gen);

/* The client said it is done: its disconnection is awaited (up to connect_timeout). */
void rpmafio_hub_client_done(struct rpmafio_hub_client *c);

/*
 * A completion of client c failed with status: it has gone (a note), or,
 * unless it is a flush of its connection, it is cut off (the job fails).
 */
void rpmafio_hub_client_failed(struct rpmafio_server *s, struct rpmafio_hub_client *c,
	enum ibv_wc_status status, const char *what);

/* Cut client c off (after rpmafio_fail() named why): disconnect it, serve the others. */
void rpmafio_hub_cut_off(struct rpmafio_server *s, struct rpmafio_hub_client *c);

/*
 * Serve every client through the loop of common/poll.h on the receive CQ
 * (rpmafio_hub_open()'s rcq) in busy_wait_polling='s mode, accepting each when it
 * comes, until all have come and gone or fio stops the job (waiting without a
 * limit for those not come yet, as a one-client server waits for its client). 0 when every client ended cleanly, else -1 (a failure was
 * reported: the first is the job's).
 */
int rpmafio_hub_serve(struct rpmafio_server *s);

#endif /* RPMAFIO_HUB_H */
