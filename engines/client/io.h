/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * io.h -- the client's I/O path: fio's queue/commit/getevents/event on top of
 * RDMA reads and writes, with the persistency step supplied by the method
 * (common/method.h: client.flush and client.completion).
 *
 * sync=1: queue() posts the io_u (a write followed by the method's flush)
 * and waits for its completion: each I/O is durable before the next starts.
 *
 * Otherwise io_us are queued and posted together at commit (fio commits every
 * iodepth_batch_submit io_us): every operation of the batch is unsignalled
 * except the last one, which is the method's flush when the batch writes
 * (ONE flush covering [lowest offset, highest end) of the batch's writes: an
 * RC connection completes it only after every earlier write is placed) or
 * the last read otherwise. That one completion completes the whole batch,
 * and with it every earlier batch. Unsignalled operations still report
 * errors.
 *
 * Latency: fio stamps io_u->start_time when it prepares an io_u; the client
 * stamps io_u->issue_time when it starts posting it to the RNIC: at commit for
 * a batch (one time for the whole batch), in queue() with sync=1. fio takes
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

/* allocate the I/O bookkeeping for td->o.iodepth (init, before connecting) */
int rpmafio_io_init(struct rpmafio_client *c);
/* free it (cleanup) */
void rpmafio_io_fini(struct rpmafio_client *c);

enum fio_q_status rpmafio_io_queue(struct rpmafio_client *c, struct io_u *io_u);
int rpmafio_io_commit(struct rpmafio_client *c);
int rpmafio_io_getevents(struct rpmafio_client *c, unsigned int min, unsigned int max,
	const struct timespec *t);

/*
 * Break the connection: report the cause (the first one only), fail every
 * io_u in flight with err and every later one too. For methods that detect
 * a failure in their own hooks.
 */
void rpmafio_io_break(struct rpmafio_client *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* RPMAFIO_IO_H */
