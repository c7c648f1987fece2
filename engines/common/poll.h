/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * poll.h -- the one completion loop: every wait of a connected job (the
 * client's reaping, its last message, a server serving, a server waiting for
 * its client to leave) is rpmafio_poll_run() with its own callbacks. No fio.
 *
 * Each turn takes up to RPMAFIO_POLL_BATCH completions from the CQ and hands
 * them over. When the CQ is empty:
 *   busy      poll it again; every RPMAFIO_POLL_SPIN_CHECK empty polls, look
 *             at the connection's events (without blocking), then call idle
 *   not busy  sleep on the CQ's completion channel and the connection's
 *             events together, at most RPMAFIO_POLL_SLICE_MS, then call idle
 * A loop without a CQ (cq NULL) only sleeps on the connection's events.
 *
 * Every callback returns 0 to go on; anything else ends the loop, which
 * returns that value. A NULL callback goes on.
 */
#ifndef RPMAFIO_POLL_H
#define RPMAFIO_POLL_H

#include <stdbool.h>
#include <stdint.h>

#include <librpma.h>

/* completions taken from the CQ at once */
#define RPMAFIO_POLL_BATCH 16
/* busy polling: empty polls between two looks at the events and the clock */
#define RPMAFIO_POLL_SPIN_CHECK 1024
/* the longest single sleep: how often a waiting job notices fio stopping it */
#define RPMAFIO_POLL_SLICE_MS 100

struct rpmafio_poll {
	struct rpma_conn *conn;
	struct rpma_cq *cq;	/* NULL: connection events only */
	int ev_fd;
	int cq_fd;
	bool busy;
};

struct rpmafio_poll_ops {
	/* n (>= 1) completions */
	int (*wc)(void *arg, const struct ibv_wc *wc, int n);
	/* an event of the connection (RPMA_CONN_CLOSED, RPMA_CONN_LOST...) */
	int (*event)(void *arg, enum rpma_conn_event ev);
	/* nothing came for a while: the caller's deadlines and stop checks */
	int (*idle)(void *arg);
	/* the librpma call `call` failed with ret */
	int (*error)(void *arg, const char *call, int ret);
};

/*
 * Get the file descriptors of conn's events and of cq's channel (cq may be
 * NULL). 0, or a librpma error code.
 */
int rpmafio_poll_init(struct rpmafio_poll *p, struct rpma_conn *conn, struct rpma_cq *cq,
		bool busy);

/* Loop until a callback returns non-zero; return that value. */
int rpmafio_poll_run(const struct rpmafio_poll *p, const struct rpmafio_poll_ops *ops,
		void *arg);

/* One look at the CQ, no waiting: the wc (or error) callback's value, or 0. */
int rpmafio_poll_once(const struct rpmafio_poll *p, const struct rpmafio_poll_ops *ops,
		void *arg);

/* milliseconds on the monotonic clock */
uint64_t rpmafio_now_ms(void);

/*
 * Wait until fd is readable: 1 readable, 0 timed out (timeout_ms < 0: no
 * limit), -1 *stop became true (looked at every RPMAFIO_POLL_SLICE_MS) or
 * poll() failed. For the waits before a connection exists.
 */
int rpmafio_wait_fd(int fd, int timeout_ms, const volatile bool *stop);

#endif /* RPMAFIO_POLL_H */
