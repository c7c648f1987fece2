/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hub.h -- the GPSPM server of several clients from one thread
 * (clients_per_job=n above 1; server/hub.h has the hub itself): the
 * method's server init and serve. The job's n * size bytes, client k's the
 * k-th size of them, each client in a protection domain of its own
 * (server/hub.h). Each client has its own mailbox (requests.h: iodepth
 * receive and send buffers registered in its domain) and receive queue, its
 * receives posted on its connection request; every client's receives complete
 * on one receive CQ (the completion's QP number says whose, the work
 * request's id which of its connections). Waiting requests are answered in
 * turns, the clients in the order their first waiting requests came, a
 * client's turn ending once its requests asked for 1 MiB (at least one
 * request), one with requests left going to the back of the line. Each
 * client is told
 * max_msg_num = iodepth, as by a one-client server. Each returns 0, or -1
 * after rpmafio_fail(); gpspm_server_state_delete() is its cleanup too.
 */
#ifndef RPMAFIO_GPSPM_HUB_H
#define RPMAFIO_GPSPM_HUB_H

struct rpmafio_server;

/* Map the clients' memory, register each client's bytes, listen on every port. */
int gpspm_hub_init(struct rpmafio_server *s);

/* Serve every client until all have come and gone; then say how many each sent. */
int gpspm_hub_serve(struct rpmafio_server *s);

#endif /* RPMAFIO_GPSPM_HUB_H */
