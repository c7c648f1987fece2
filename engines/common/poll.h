/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * poll.h -- the one completion loop: every wait of a connected job (the
 * client's reaping, its last message, a server serving, a server waiting for
 * its client to leave) is rpmafio_poll_run() with its own callbacks. No fio.
 *
 * Each turn takes up to RPMAFIO_POLL_BATCH completions from the CQ and hands
 * them over. When the CQ is empty, by the loop's mode (busy_wait_polling=):
 *   busy      poll it again; every RPMAFIO_POLL_SPIN_CHECK empty polls, look
 *             at the connection's events (without blocking), then call idle
 *   sleep     sleep on the CQ's completion channel and the connection's
 *             events together, at most RPMAFIO_POLL_SLICE_MS, then call idle
 *   adaptive  nap on a timer, spin, then sleep as above: how long each is
 *             learned from when completions came (pace.h); the events and
 *             idle every RPMAFIO_POLL_BUSY_CHECK waits, and after a sleep
 * A loop without a CQ (cq NULL) only sleeps on the connection's events.
 * A loop of several connections (server/hub.h) has no connection of its own:
 * its events are a file descriptor of the caller's (an epoll set), and the
 * events callback takes them when it is readable.
 *
 * Every callback returns a step: RPMAFIO_POLL_GO_ON, or anything else to end
 * the loop, which returns that step. A NULL callback goes on.
 */
#ifndef RPMAFIO_POLL_H
#define RPMAFIO_POLL_H

#include <stdbool.h>
#include <stdint.h>

#include <librpma.h>

#include "pace.h"

/* completions taken from the CQ at once */
#define RPMAFIO_POLL_BATCH 16
/* busy polling: empty polls between two looks at the events and the clock */
#define RPMAFIO_POLL_SPIN_CHECK 1024
/* the longest single sleep: how often a waiting job notices fio stopping it */
#define RPMAFIO_POLL_SLICE_MS 100
/* while completions keep coming: the events and idle() every this many batches */
#define RPMAFIO_POLL_BUSY_CHECK 64

/* what a callback tells the loop; the loop returns the step that ended it */
enum rpmafio_poll_step {
	RPMAFIO_POLL_GO_ON = 0,
	RPMAFIO_POLL_DONE,	/* what the caller waits for has happened */
	RPMAFIO_POLL_DEADLINE,	/* the caller's time is up */
	RPMAFIO_POLL_FAILED,	/* a failure, reported by the callback */
};

/* how a loop waits for the CQ: the values of busy_wait_polling= */
enum rpmafio_poll_mode {
	RPMAFIO_POLL_SLEEP = 0,
	RPMAFIO_POLL_BUSY = 1,
	RPMAFIO_POLL_ADAPTIVE = 2,
};

struct rpmafio_poll {
	struct rpma_conn *conn;
	struct rpma_cq *cq;	/* NULL: connection events only */
	int ev_fd;
	int cq_fd;
	enum rpmafio_poll_mode mode;
	struct rpmafio_pace pace;	/* adaptive: what the waits have learned */
	uint64_t waiting_since_ns;	/* adaptive: a wait that went to the channel */
	/* the run loop's batch of completions (here, not on its stack: no stack guard
	 * on every I/O's wait); handed to ops->wc, which must not run the loop again */
	struct ibv_wc batch[RPMAFIO_POLL_BATCH];
	int batch_got;
	struct {
		uint64_t waits;		/* adaptive waits: the CQ was empty */
		uint64_t napped;	/* ... that napped first */
		uint64_t polled;	/* ... whose completion a poll found (after the nap, if any) */
		uint64_t slept;		/* ... that went on to sleep on the channels */
	} adaptive;
};

struct rpmafio_poll_ops {
	/* n (>= 1) completions */
	enum rpmafio_poll_step (*wc)(void *arg, const struct ibv_wc *wc, int n);
	/* an event of the connection (RPMA_CONN_CLOSED, RPMA_CONN_LOST...) */
	enum rpmafio_poll_step (*event)(void *arg, enum rpma_conn_event ev);
	/* nothing came for a while: the caller's deadlines and stop checks */
	enum rpmafio_poll_step (*idle)(void *arg);
	/* the librpma call `call` failed with ret */
	enum rpmafio_poll_step (*error)(void *arg, const char *call, int ret);
	/* a loop without a connection: its event descriptor is readable */
	enum rpmafio_poll_step (*events)(void *arg);
};

/*
 * Get the file descriptors of conn's events and of cq's channel (cq may be
 * NULL). 0, or a librpma error code.
 */
int rpmafio_poll_init(struct rpmafio_poll *p, struct rpma_conn *conn, struct rpma_cq *cq,
		enum rpmafio_poll_mode mode);

/* A loop without a connection: its events are ev_fd's (see ops->events). */
void rpmafio_poll_init_fd(struct rpmafio_poll *p, int ev_fd, struct rpma_cq *cq, int cq_fd,
		enum rpmafio_poll_mode mode);

/*
 * Loop until a callback returns a step other than RPMAFIO_POLL_GO_ON; return it.
 * (p is not const: an adaptive loop keeps what it learned there for the next run.)
 */
enum rpmafio_poll_step rpmafio_poll_run(struct rpmafio_poll *p, const struct rpmafio_poll_ops *ops,
		void *arg);

/*
 * One look at the CQ, no waiting: the wc (or error) callback's step, or GO_ON
 * (its completions in p's batch, as the loop's). Inline: a caller on the I/O
 * path names its callbacks, and the compiler calls (or inlines) them straight.
 */
static inline __attribute__((always_inline)) enum rpmafio_poll_step rpmafio_poll_once(
		struct rpmafio_poll *p,
		const struct rpmafio_poll_ops *ops, void *arg)
{
	int ret = rpma_cq_get_wc(p->cq, RPMAFIO_POLL_BATCH, p->batch, &p->batch_got);
	if (ret == 0)
		return ops->wc ? ops->wc(arg, p->batch, p->batch_got) : RPMAFIO_POLL_GO_ON;
	if (ret != RPMA_E_NO_COMPLETION)
		return ops->error ? ops->error(arg, "rpma_cq_get_wc", ret) : RPMAFIO_POLL_GO_ON;
	return RPMAFIO_POLL_GO_ON;
}

/* milliseconds on the monotonic clock */
uint64_t rpmafio_now_ms(void);

enum rpmafio_fd_wait {
	RPMAFIO_FD_READABLE,
	RPMAFIO_FD_TIMED_OUT,
	RPMAFIO_FD_STOPPED,	/* *stop became true, or poll() failed */
};

/*
 * Wait until fd is readable, at most timeout_ms (< 0: no limit); *stop is
 * looked at every RPMAFIO_POLL_SLICE_MS. For the waits before a connection
 * exists.
 */
enum rpmafio_fd_wait rpmafio_wait_fd(int fd, int timeout_ms, const volatile bool *stop);

#endif /* RPMAFIO_POLL_H */
