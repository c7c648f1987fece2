/* SPDX-License-Identifier: BSD-3-Clause */
/* poll.c -- the one completion loop (see poll.h) */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>

#include "poll.h"

/* adaptive: empty polls of a spin between two looks at the clock */
#define SPIN_CLOCK_EVERY 16

void rpmafio_poll_init_fd(struct rpmafio_poll *p, int ev_fd, struct rpma_cq *cq, int cq_fd,
		enum rpmafio_poll_mode mode)
{
	*p = (struct rpmafio_poll){.cq = cq, .ev_fd = ev_fd, .cq_fd = cq_fd, .mode = mode};
	rpmafio_pace_init(&p->pace);
	/*
	 * a nap of tens of microseconds must not be stretched by the default timer
	 * slack (50 us): this thread's timers end when asked
	 */
	if (mode == RPMAFIO_POLL_ADAPTIVE)
		(void) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

int rpmafio_poll_init(struct rpmafio_poll *p, struct rpma_conn *conn, struct rpma_cq *cq,
		enum rpmafio_poll_mode mode)
{
	int ret;

	rpmafio_poll_init_fd(p, -1, cq, -1, mode);
	p->conn = conn;
	if ((ret = rpma_conn_get_event_fd(conn, &p->ev_fd)))
		return ret;
	if (cq && (ret = rpma_cq_get_fd(cq, &p->cq_fd)))
		return ret;
	return 0;
}

static enum rpmafio_poll_step next_event(const struct rpmafio_poll *p, const struct rpmafio_poll_ops *ops,
		void *arg)
{
	enum rpma_conn_event ev;
	if (p->conn == NULL)
		return ops->events ? ops->events(arg) : RPMAFIO_POLL_GO_ON;
	int ret = rpma_conn_next_event(p->conn, &ev);
	if (ret)
		return ops->error ? ops->error(arg, "rpma_conn_next_event", ret) : RPMAFIO_POLL_GO_ON;
	return ops->event ? ops->event(arg, ev) : RPMAFIO_POLL_GO_ON;
}

/* busy: has an event come? (no blocking) */
static enum rpmafio_poll_step look_at_events(const struct rpmafio_poll *p, const struct rpmafio_poll_ops *ops,
		void *arg)
{
	struct pollfd pfd = {.fd = p->ev_fd, .events = POLLIN};
	if (poll(&pfd, 1, 0) != 1)
		return RPMAFIO_POLL_GO_ON;
	return next_event(p, ops, arg);
}

/* not busy: sleep until a completion or an event comes, or a slice passes */
static enum rpmafio_poll_step sleep_on_channels(const struct rpmafio_poll *p, const struct rpmafio_poll_ops *ops,
		void *arg)
{
	struct pollfd pfd[2] = {
		{.fd = p->ev_fd, .events = POLLIN},
		{.fd = p->cq_fd, .events = POLLIN},
	};
	enum rpmafio_poll_step r;
	int ret;

	const nfds_t n = p->cq ? 2 : 1;
	if (poll(pfd, n, RPMAFIO_POLL_SLICE_MS) <= 0)
		return RPMAFIO_POLL_GO_ON;
	/*
	 * A channel in error (a device removed: the CQ's channel reports POLLERR)
	 * would wake every poll at once: a loop spinning on it until the
	 * connection's end is reported. Fail instead.
	 */
	for (nfds_t i = 0; i < n; i++)
		if ((pfd[i].revents & (POLLERR | POLLHUP | POLLNVAL)) && !(pfd[i].revents & POLLIN)) {
			errno = EIO;
			return ops->error ? ops->error(arg, i ? "poll (completion channel)" :
				"poll (connection events)", RPMA_E_PROVIDER) : RPMAFIO_POLL_GO_ON;
		}
	/* the channel's event is taken (and the CQ armed again) before the events */
	if (p->cq && (pfd[1].revents & POLLIN) && (ret = rpma_cq_wait(p->cq)) &&
			ret != RPMA_E_NO_COMPLETION && ops->error &&
			(r = ops->error(arg, "rpma_cq_wait", ret)))
		return r;
	if (pfd[0].revents & POLLIN)
		return next_event(p, ops, arg);
	return RPMAFIO_POLL_GO_ON;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void nap(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
	/* (a signal cuts it short: the spin that follows finds what came) */
	(void) clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

/*
 * adaptive: nap, then spin on the CQ for a while; a completion found is handed
 * over and teaches the pace. None: sleep on the channels once, and the
 * completion that ends the sleep teaches it (in the loop: waiting_since_ns).
 */
static enum rpmafio_poll_step adaptive_wait(struct rpmafio_poll *p, const struct rpmafio_poll_ops *ops,
		void *arg)
{
	struct ibv_wc wc[RPMAFIO_POLL_BATCH];
	const uint64_t start = now_ns();
	const uint64_t timer_ns = rpmafio_pace_timer_ns(&p->pace);
	enum rpmafio_pace_found found = timer_ns ? RPMAFIO_PACE_AT_WAKE : RPMAFIO_PACE_LATER;

	p->waiting_since_ns = 0; /* (a sleep that ended with nothing: an idle period) */
	p->adaptive.waits++;
	if (timer_ns) {
		p->adaptive.napped++;
		nap(timer_ns);
		rpmafio_pace_timer_took(&p->pace, timer_ns, now_ns() - start);
	}
	const uint64_t spin_end = start + rpmafio_pace_spin_end_ns(&p->pace, timer_ns != 0);
	for (unsigned spins = 1;; spins++) {
		int got = 0;
		int ret = rpma_cq_get_wc(p->cq, RPMAFIO_POLL_BATCH, wc, &got);
		if (ret == 0) {
			p->adaptive.polled++;
			rpmafio_pace_learn(&p->pace, found, now_ns() - start);
			return ops->wc ? ops->wc(arg, wc, got) : RPMAFIO_POLL_GO_ON;
		}
		if (ret != RPMA_E_NO_COMPLETION)
			return ops->error ? ops->error(arg, "rpma_cq_get_wc", ret) : RPMAFIO_POLL_GO_ON;
		found = RPMAFIO_PACE_LATER;
		if (spins % SPIN_CLOCK_EVERY == 0 && now_ns() >= spin_end)
			break;
	}
	p->waiting_since_ns = start;
	p->adaptive.slept++;
	return sleep_on_channels(p, ops, arg);
}

enum rpmafio_poll_step rpmafio_poll_run(struct rpmafio_poll *p, const struct rpmafio_poll_ops *ops,
		void *arg)
{
	unsigned spins = 0, batches = 0;
	enum rpmafio_poll_step r;

	for (;;) {
		if (p->cq) {
			int ret = rpma_cq_get_wc(p->cq, RPMAFIO_POLL_BATCH, p->batch, &p->batch_got);
			if (ret == 0) {
				if (p->waiting_since_ns) {
					/* the end of an adaptive wait's sleep on the channel */
					rpmafio_pace_learn(&p->pace, RPMAFIO_PACE_LATER,
						now_ns() - p->waiting_since_ns);
					p->waiting_since_ns = 0;
				}
				if (ops->wc && (r = ops->wc(arg, p->batch, p->batch_got)))
					return r;
				/*
				 * a CQ that never runs dry (a client sending without a
				 * pause) must not hide fio's stop or the connection's events
				 */
				if (++batches % RPMAFIO_POLL_BUSY_CHECK == 0 &&
						((r = look_at_events(p, ops, arg)) ||
						(ops->idle && (r = ops->idle(arg)))))
					return r;
				continue;
			}
			if (ret != RPMA_E_NO_COMPLETION && ops->error &&
					(r = ops->error(arg, "rpma_cq_get_wc", ret)))
				return r;
		}
		if (p->cq && p->mode == RPMAFIO_POLL_BUSY) {
			if (++spins % RPMAFIO_POLL_SPIN_CHECK)
				continue;
			r = look_at_events(p, ops, arg);
		} else if (p->cq && p->mode == RPMAFIO_POLL_ADAPTIVE) {
			if ((r = adaptive_wait(p, ops, arg)))
				return r;
			/* a wait that slept has looked at the events; polled ones do now and then */
			if (!p->waiting_since_ns) {
				if (++batches % RPMAFIO_POLL_BUSY_CHECK)
					continue;
				r = look_at_events(p, ops, arg);
			}
		} else {
			r = sleep_on_channels(p, ops, arg);
		}
		if (r || (ops->idle && (r = ops->idle(arg))))
			return r;
	}
}

uint64_t rpmafio_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

enum rpmafio_fd_wait rpmafio_wait_fd(int fd, int timeout_ms, const volatile bool *stop)
{
	uint64_t deadline = timeout_ms < 0 ? 0 : rpmafio_now_ms() + (uint64_t)timeout_ms;
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	for (;;) {
		int slice = RPMAFIO_POLL_SLICE_MS;
		if (timeout_ms >= 0) {
			uint64_t now = rpmafio_now_ms();
			if (now >= deadline)
				slice = 0;
			else if (deadline - now < (uint64_t)slice)
				slice = (int)(deadline - now);
		}
		int n = poll(&pfd, 1, slice);
		if (n > 0)
			return RPMAFIO_FD_READABLE;
		if ((n < 0 && errno != EINTR) || *stop)
			return RPMAFIO_FD_STOPPED;
		if (timeout_ms >= 0 && slice == 0)
			return RPMAFIO_FD_TIMED_OUT;
	}
}
