/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * method.h -- a persistency method: what an engine file (librpma_apm.c,
 * librpma_gpspm.c) gives engine.c, which calls it for fio. Each hook returns
 * 0 on success, or -1 after rpmafio_fail() (unless said otherwise). A NULL
 * hook has nothing to do.
 *
 * The client's hooks, in the order they run:
 *   init        connect (client/client.h: rpmafio_client_connect() with the
 *               method's queue sizes), read what the workspace says, set up
 *               the method's own resources. fio's buffers are not there yet.
 *   flush       post the step that makes a batch's writes durable, after
 *               them, covering [offset, offset + len) of the server's memory.
 *               It must be the batch's only signalled operation and its
 *               completion must name `last` (see completion).
 *   completion  a successful completion: set *last to the io_u it completes
 *               (it and every io_u posted before it are done) and return 1;
 *               return 0 when it completes nothing, -1 when it cannot be (no
 *               rpmafio_fail(): the caller reports it). Hot path: no logging.
 *   failure_hint  a failed completion of the method's own work requests: what
 *               it most likely means, for the job's error (NULL: the generic
 *               hint for its status)
 *   finish      the job is over, still connected: the method's last words
 *               (GPSPM tells the server it is done)
 *   cleanup     the connection is gone (engine.c disconnected it, so nothing
 *               can reach the method's buffers any more): release the method's
 *               own registrations and memory; never free memory whose
 *               deregistration failed. engine.c then releases what client/
 *               set up.
 *
 * The server's hooks:
 *   init        map the memory, register it, listen, take the client's
 *               request, accept it (server/server.h has each step)
 *   serve       the job's one I/O: serve until the client leaves (or fio stops
 *               the job); 0 when it ended cleanly
 *   cleanup     the connection is gone (engine.c disconnected it): release the
 *               method's own registrations and memory, never freeing memory
 *               whose deregistration failed; server/ then releases the job's
 *               registration, memory and peer
 *
 * Tear-down order, both sides: connection, then registrations, then memory.
 */
#ifndef RPMAFIO_METHOD_H
#define RPMAFIO_METHOD_H

#include <stdint.h>

struct io_u;
struct ibv_wc;
struct rpmafio_client;
struct rpmafio_server;

struct rpmafio_method {
	const char *name;	/* message prefix, e.g. "librpma_apm" */
	struct {
		int (*init)(struct rpmafio_client *c);
		int (*flush)(struct rpmafio_client *c, uint64_t offset, uint64_t len,
			struct io_u *last);
		int (*completion)(struct rpmafio_client *c, const struct ibv_wc *wc,
			struct io_u **last);
		const char *(*failure_hint)(const struct rpmafio_client *c,
			const struct ibv_wc *wc);
		void (*finish)(struct rpmafio_client *c);
		void (*cleanup)(struct rpmafio_client *c);
	} client;
	struct {
		int (*init)(struct rpmafio_server *s);
		int (*serve)(struct rpmafio_server *s);
		void (*cleanup)(struct rpmafio_server *s);
	} server;
};

#endif /* RPMAFIO_METHOD_H */
