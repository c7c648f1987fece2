/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * method.h -- a persistency method: what an engine file (librpma_apm.c,
 * librpma_gpspm.c) gives fio/engine.c, which calls it for fio. Each hook
 * returns 0 on success, or -1 after rpmafio_fail() (unless said otherwise). A
 * NULL hook has nothing to do.
 *
 * The client's hooks, in the order they run:
 *   init        connect (client/client.h: rpmafio_client_connect() with the
 *               method's queue sizes), read what the workspace says, set up
 *               the method's own resources. fio's buffers are not there yet.
 *   flush, completion: the I/O path's two, functions of their own (below)
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

struct ibv_wc;
struct rpmafio_io;
struct rpmafio_client;
struct rpmafio_ranges;
struct rpmafio_server;

/* what a successful completion of the client's work requests completes */
enum rpmafio_completion {
	RPMAFIO_COMPLETES_NOTHING,	/* the method's own step (e.g. a message sent) */
	RPMAFIO_COMPLETES_IO,		/* an I/O, and every I/O posted before it */
	RPMAFIO_COMPLETES_UNKNOWN,	/* a completion for nothing in flight */
};

struct rpmafio_method {
	const char *name;	/* message prefix, e.g. "librpma_apm" */
	struct {
		int (*init)(struct rpmafio_client *c);
		/* optional: a batch without a flush was posted, `last` signalled */
		int (*signalled)(struct rpmafio_client *c, struct rpmafio_io *last);
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

/*
 * Every engine file defines these two: its method, and its name as fio shows
 * it (fio/engine.c puts both in the ioengine_ops it exports).
 */
extern const struct rpmafio_method rpmafio_engine_method;
extern const char rpmafio_engine_name[];

/*
 * ... and the client's two hooks on the I/O path (client/io.c), as functions
 * rather than members of the method: an engine has one method, and a direct
 * call lets the compiler inline them into the path of every I/O (each method
 * defines them `inline`, still external, for the LTO link to do so: APM in its
 * engine file, GPSPM in gpspm/client.c).
 *
 * Post the step that makes a batch's writes durable, after them, covering
 * the ranges of the server's memory in rl (client/ranges.h: sorted, merged,
 * at least one). The method may merge them further (rpmafio_ranges_fit) to
 * what it can ask for -- what it leaves in rl is what the client counts as
 * asked to persist. It may take several work requests (APM: a native FLUSH
 * per range, each carrying a 32-bit length); its last one must be the batch's
 * only signalled operation and its completion must name `last`.
 */
int rpmafio_method_flush(struct rpmafio_client *c, struct rpmafio_ranges *rl,
	struct rpmafio_io *last);

/*
 * A successful completion: what it completes. With RPMAFIO_COMPLETES_IO,
 * *last is the I/O it completes: it and every I/O posted before it are done.
 * RPMAFIO_COMPLETES_UNKNOWN: no rpmafio_fail(), the caller reports it. Hot
 * path: no logging.
 */
enum rpmafio_completion rpmafio_method_completion(struct rpmafio_client *c,
	const struct ibv_wc *wc, struct rpmafio_io **last);

#endif /* RPMAFIO_METHOD_H */
