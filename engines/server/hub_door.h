/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hub_door.h -- a hub's client from its connection request to its connection
 * (hub.c's own: see hub.h). The client's port is in the hub's epoll set (its
 * events tagged HUB_DOOR_TAG | k) while it waits; a request admitted and
 * accepted makes it connecting: its port is quiet (a next request waits in
 * the port's queue), its connection's events are in the set instead (tagged k,
 * as a served client's), and it must be established by connect_due. What
 * breaks the handshake drops the client back to waiting, with a note, and the
 * job goes on. Nothing here sets the loop's pace: hub.c does, on HUB_DOOR_IN.
 */
#ifndef RPMAFIO_HUB_DOOR_H
#define RPMAFIO_HUB_DOOR_H

#include "hub_client.h"
#include "server.h"

/* an epoll event of a client's port (a connection request), not of its connection */
#define HUB_DOOR_TAG (1u << 31)

/* what a step of a client's handshake came to */
enum hub_door_step {
	HUB_DOOR_WAIT,		/* nothing to do, or a request refused or accepted */
	HUB_DOOR_IN,		/* established: serving it from now on */
	HUB_DOOR_DROPPED,	/* its handshake failed: waiting again (a note said why) */
	HUB_DOOR_FAILED,	/* the job fails (rpmafio_fail() said why) */
};

/* Put client c's port in the hub's epoll set. 0, or -1 after rpmafio_fail(). */
int hub_door_open(struct rpmafio_server *s, struct rpmafio_hub_client *c);

/* A request on waiting client c's port: refused (it waits on) or accepted (connecting). */
enum hub_door_step hub_door_request(struct rpmafio_server *s, struct rpmafio_hub_client *c);

/* rpma_conn_req_connect() gave ret for waiting client c: connecting, or dropped. */
enum hub_door_step hub_door_accepted(struct rpmafio_server *s, struct rpmafio_hub_client *c,
	int ret);

/* Connecting client c's connection has an event: in, dropped, or nothing yet. */
enum hub_door_step hub_door_event(struct rpmafio_server *s, struct rpmafio_hub_client *c);

/* rpma_conn_next_event() gave ret and ev for connecting client c: what follows. */
enum hub_door_step hub_door_on_event(struct rpmafio_server *s, struct rpmafio_hub_client *c,
	int ret, enum rpma_conn_event ev);

/* Connecting client c is connected: its CQ, keepalive and port taken (or it is dropped). */
enum hub_door_step hub_door_in(struct rpmafio_server *s, struct rpmafio_hub_client *c);

/* Connecting client c at now: dropped once connect_due has come. */
enum hub_door_step hub_door_tick(struct rpmafio_server *s, struct rpmafio_hub_client *c,
	uint64_t now);

#endif /* RPMAFIO_HUB_DOOR_H */
