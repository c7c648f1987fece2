/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.h -- a client job: its connection and what it knows of the
 * server's memory, and how it connects and leaves (connect.c). The I/O path
 * is io.h.
 *
 * A client connects to serverip:port+i, retrying until connect_timeout; the
 * server's answer carries the workspace (common/workspace.h): the server's
 * memory descriptor, its direct_write_to_pmem and (GPSPM) how many flush
 * requests it takes at once. Every function returns 0, or -1 after
 * rpmafio_fail(); every wait gives up when fio stops the job.
 */
#ifndef RPMAFIO_CLIENT_H
#define RPMAFIO_CLIENT_H

#include <stddef.h>

#include <librpma.h>

#include "common/job.h"
#include "common/poll.h"
#include "common/queues.h"
#include "common/workspace.h"
#include "ranges.h"
#include "ring.h"

struct rpmafio_io;

struct rpmafio_client {
	struct rpmafio_job job;	/* first: a client is a job */
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpmafio_poll poll; /* the CQ and the connection's events */

	/* the server's memory */
	struct rpmafio_ws ws;
	struct rpma_mr_remote *server_mr;
	size_t server_size;

	/* fio's I/O buffers, registered as one region */
	struct rpma_mr_local *buf_mr;
	char *buf_base;

	/* the I/O path (io.c); all arrays sized by iodepth at init */
	uint32_t depth;
	struct rpmafio_io **queued; /* queued by fio, posted at commit */
	uint32_t nr_queued;
	struct rpmafio_ring ring; /* posted, in order */
	struct rpmafio_io **events; /* what getevents returned, for event() */
	struct rpmafio_ranges written; /* the batch being posted: what its flush covers */
	/* bytes the job wrote, and asked the server to persist (1.0x: exactly those) */
	uint64_t bytes_written, bytes_to_persist;
	unsigned timeout_ms;
	/* what reap() waits for (here, not on its stack: the poll loop's callbacks see it) */
	struct rpmafio_reaping {
		uint32_t want;		/* I/Os done */
		uint64_t since;		/* the start of a time without completions (0: none) */
	} reaping;
	bool broken;		/* the connection failed: every I/O now fails */
	int broken_err;		/* an errno for fio */

	void *priv;		/* the method's own client data */
};

/* fio/engine.c allocates and frees a client through its job: the job must come first */
_Static_assert(offsetof(struct rpmafio_client, job) == 0, "a client's job is its first member");

static inline struct rpmafio_client *rpmafio_client_of(struct rpmafio_job *job)
{
	return (struct rpmafio_client *)((char *)job - offsetof(struct rpmafio_client, job));
}

/*
 * Connect to serverip:port with queue sizes q, decode the workspace into
 * c->ws and describe the server's memory (server_mr, server_size).
 */
int rpmafio_client_connect(struct rpmafio_client *c, const struct rpmafio_queues *q);

/* Register fio's I/O buffers (post_init: fio allocates them after init). */
int rpmafio_client_register_buffers(struct rpmafio_client *c, void *base, size_t size);

/*
 * Deregister fio's I/O buffers (fio frees them before the engine's cleanup);
 * -1 when they are still registered and so must not be freed.
 */
int rpmafio_client_release_buffers(struct rpmafio_client *c);

/* Disconnect (waiting a little for the server's answer) and delete the connection. */
void rpmafio_client_disconnect(struct rpmafio_client *c);

/*
 * Once disconnected: deregister fio's buffers if that is still to do, forget
 * the server's memory, release the peer.
 */
void rpmafio_client_release(struct rpmafio_client *c);

#endif /* RPMAFIO_CLIENT_H */
