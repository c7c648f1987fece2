/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * io.h -- the client's I/O path: fio's queue/commit/getevents/event on top of
 * RDMA reads and writes, with the persistency step supplied by the method
 * (common/method.h: rpmafio_method_flush() and rpmafio_method_completion()). No fio here: an
 * I/O is a struct rpmafio_io, which fio/engine.c fills in from fio's io_u,
 * stamping fio's times and counting its submissions itself.
 *
 * sync=1: queue() posts the I/O (a write followed by the method's flush)
 * and waits for its completion: each I/O is durable before the next starts.
 *
 * Otherwise I/Os are queued and posted together at commit (fio commits every
 * iodepth_batch_submit I/Os): every operation of the batch is unsignalled
 * except the last one, which is the method's flush when the batch writes
 * (ONE flush covering the batch's written ranges, client/ranges.h: an RC
 * connection completes it only after every earlier write is placed) or
 * the last read otherwise. That one completion completes the whole batch,
 * and with it every earlier batch. Unsignalled operations still report
 * errors.
 *
 * Latency: fio stamps io_u->start_time when it prepares an io_u; the engine
 * stamps io_u->issue_time just before it is posted to the RNIC: before commit
 * for a batch (one time for the whole batch), before queue() with sync=1. fio takes
 * the completion time when getevents/queue returns the io_u, so
 * clat = completion - issue (posting included: Soft-RoCE does a work
 * request's whole job, loopback round trip included, inside ibv_post_send()),
 * slat = issue - start (the time an io_u waited for its batch) and
 * lat = completion - start, in every mode.
 *
 * Failures (an error completion, the server disconnecting, no completion for
 * connect_timeout ms) break the connection: every I/O in flight, and every
 * later one, completes with an error, the first cause reported by name.
 *
 * Completions are taken by the one completion loop (common/poll.h).
 *
 * The hot path (queue/commit/getevents/event) allocates nothing and logs
 * nothing unless something fails.
 */
#ifndef RPMAFIO_IO_H
#define RPMAFIO_IO_H

#include "client.h"

enum rpmafio_io_dir {
	RPMAFIO_IO_READ,
	RPMAFIO_IO_WRITE,
	RPMAFIO_IO_SYNC,	/* fsync and the like: nothing to do */
	RPMAFIO_IO_OTHER,	/* anything else: refused */
};

/* one of fio's I/Os as the I/O path sees it */
struct rpmafio_io {
	enum rpmafio_io_dir dir;
	uint64_t offset;	/* in the server's memory */
	uint64_t len;
	void *buf;		/* in the registered buffers (c->buf_base...) */
	int error;		/* once completed: 0, or an errno (queue() clears it) */
	void *owner;		/* fio's io_u */
};

/* what queue() did with an I/O */
enum rpmafio_io_status {
	RPMAFIO_IO_QUEUED,	/* posted at the next commit */
	RPMAFIO_IO_COMPLETED,	/* done now: see its error */
	RPMAFIO_IO_BUSY,	/* no room: fio must reap first */
};

/* what commit() did with the queued I/Os */
enum rpmafio_commit_result {
	RPMAFIO_COMMIT_EMPTY,	/* nothing was queued */
	RPMAFIO_COMMIT_POSTED,	/* posted: they complete through getevents */
	RPMAFIO_COMMIT_FAILED,	/* the connection broke: they completed with an error */
};

/* allocate the I/O bookkeeping for job.iodepth (init, before connecting) */
int rpmafio_io_init(struct rpmafio_client *c);
/* free it (cleanup) */
void rpmafio_io_fini(struct rpmafio_client *c);

enum rpmafio_io_status rpmafio_io_queue(struct rpmafio_client *c, struct rpmafio_io *io);

/*
 * Post the queued I/Os. They stay readable in c->queued (c->nr_queued is 0
 * again) until the next queue(), for the caller's bookkeeping.
 */
enum rpmafio_commit_result rpmafio_io_commit(struct rpmafio_client *c);

/*
 * Wait until at least min I/Os are done (fewer when fewer are in flight) and
 * put up to max of them in c->events; returns how many.
 */
unsigned rpmafio_io_getevents(struct rpmafio_client *c, unsigned min, unsigned max);

/*
 * At the job's end (cleanup): a note of the bytes written and the bytes the
 * flushes asked the server to persist, when the job wrote (ranges, not spans:
 * the two are equal unless a batch had more ranges than a flush carries).
 */
void rpmafio_io_report(struct rpmafio_client *c);

/*
 * Break the connection: report the cause (the first one only), fail every
 * I/O in flight with err and every later one too. For methods that detect
 * a failure in their own hooks.
 */
void rpmafio_io_break(struct rpmafio_client *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* RPMAFIO_IO_H */
