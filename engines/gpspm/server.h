/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.h -- the GPSPM server of one client (clients_per_job=1; the hub
 * serves several: hub.h): the method's server init and serve. Each returns
 * 0, or -1 after rpmafio_fail(); gpspm_server_state_delete() (requests.h)
 * is its cleanup.
 */
#ifndef RPMAFIO_GPSPM_SERVER_H
#define RPMAFIO_GPSPM_SERVER_H

struct rpmafio_server;

/*
 * Map the memory and register it for the client's writes and reads only;
 * advertise max_msg_num = iodepth; listen; take the client's request, post a
 * receive in every slot on it, accept it.
 */
int gpspm_server_init(struct rpmafio_server *s);

/*
 * Serve each request (requests.h), answering while a send buffer is free,
 * until the client sends its last message or goes; then say how many.
 */
int gpspm_server_serve(struct rpmafio_server *s);

#endif /* RPMAFIO_GPSPM_SERVER_H */
