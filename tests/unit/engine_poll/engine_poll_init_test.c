/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_poll_init_test.c -- rpmafio_poll_init: the fds it takes, the adaptive
 * mode's spinning and sleeping, a CQ that never runs dry, and the getters'
 * errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/poll.h"
#include "engine_poll_test.h"

/* ---- rpmafio_poll_init ---- */

/* a CQ that never runs dry: idle() (fio's stop, the deadline) and the events still come */
static int endless_wcs;
static enum rpmafio_poll_step count_wc(void *arg, const struct ibv_wc *wc, int n)
{
	(void)arg;
	(void)wc;
	endless_wcs += n;
	return 0;
}

void never_dry_still_idles(void **state)
{
	(void)state;
	static const struct scenario endless = {.endless = true};
	static const struct rpmafio_poll_ops ops = {.wc = count_wc, .idle = rec_idle};
	running = &endless;
	endless_wcs = 0;
	for (int busy = 0; busy < 2; busy++) {
		struct rpmafio_poll p = make_loop(CQ, busy);
		fake.get_wc_calls = 0;
		fake.polls = 0;
		fake.poll_max_timeout = 0;
		rec.idles = 0;
		rec.len = 0;
		memset(rec.trace, 0, sizeof(rec.trace));
		assert_int_equal(rpmafio_poll_run(&p, &ops, &rec), IDLE_END);
		/* the first idle() after RPMAFIO_POLL_BUSY_CHECK batches, not never */
		assert_int_equal(fake.get_wc_calls, RPMAFIO_POLL_BUSY_CHECK);
		assert_string_equal(rec.trace, "i");
		/* it looked at the events once (none: nothing taken), without sleeping */
		assert_int_equal(fake.polls, 1);
		assert_int_equal(fake.poll_max_timeout, 0);
	}
	assert_int_equal(endless_wcs, 2 * RPMAFIO_POLL_BUSY_CHECK);
}

/*
 * adaptive, nothing coming: no nap (nothing learned yet), a spin of at least
 * RPMAFIO_PACE_SPIN_MIN_NS, then one sleep on the channels, then idle
 */
void adaptive_spins_then_sleeps(void **state)
{
	(void)state;
	static const struct scenario one = {.wcq = {{0, 1, 5}}, .idle_end_at = 1};
	running = &one;
	struct rpmafio_poll p;
	assert_int_equal(rpmafio_poll_init(&p, CONN, CQ, RPMAFIO_POLL_ADAPTIVE), 0);
	uint64_t t0 = now_ns();
	assert_int_equal(rpmafio_poll_run(&p, &all_ops, &rec), IDLE_END);
	assert_true(now_ns() - t0 >= RPMAFIO_PACE_SPIN_MIN_NS);
	assert_string_equal(rec.trace, "wi");
	assert_true(fake.get_wc_calls > 16); /* it spun */
	assert_int_equal(fake.polls, 1);	/* then slept once, on both fds, a slice at most */
	assert_int_equal(fake.poll_nfds, 2);
	assert_int_equal(fake.poll_max_timeout, SLICE);
	assert_true(p.waiting_since_ns != 0); /* the sleep ended with nothing: nothing learned */
	assert_int_equal(p.pace.nap_ns, 0);
}

static int paced_wcs;
static enum rpmafio_poll_step count_paced(void *arg, const struct ibv_wc *wc, int n)
{
	(void)arg;
	(void)wc;
	assert_int_equal(n, 1);
	return ++paced_wcs == 60 ? WC_END : RPMAFIO_POLL_GO_ON;
}

/*
 * adaptive, a completion every millisecond: the first waits end on the channel,
 * what they learn turns the wait into a nap and a short spin; the nap settles
 * below the gap, and most completions are found by a poll, not by a sleep
 * (on the virtual clock: the pace is the scenario's, whatever the machine's load)
 */
void adaptive_learns_a_steady_pace(void **state)
{
	(void)state;
	static const struct scenario paced = {.pace_ns = 1000000, .idle_end_at = NEVER};
	static const struct rpmafio_poll_ops ops = {.wc = count_paced};
	running = &paced;
	paced_wcs = 0;
	virtual_clock = (struct virtual_clock){.on = true, .ns = 1000000000u};
	fake.next_ns = now_ns() + paced.pace_ns;
	struct rpmafio_poll p;
	assert_int_equal(rpmafio_poll_init(&p, CONN, CQ, RPMAFIO_POLL_ADAPTIVE), 0);
	assert_int_equal(rpmafio_poll_run(&p, &ops, &rec), WC_END);
	assert_in_range(rpmafio_pace_nap_ns(&p.pace), 500000, 1000000);
	assert_true(fake.polls < 30);
}

static enum rpmafio_poll_step rec_events(void *arg)
{
	assert_ptr_equal(arg, &rec);
	trace('E');
	return (enum rpmafio_poll_step)EVENTS_END;
}

/*
 * A loop without a connection (server/hub.h): its event descriptor is the
 * caller's; readable, the events callback takes it (no rpma_conn_* call: the
 * fake's would fail on a NULL connection), busy and sleeping alike
 */
void events_without_a_connection(void **state)
{
	(void)state;
	static const struct rpmafio_poll_ops ops = {.idle = rec_idle, .events = rec_events};
	for (int busy = 0; busy < 2; busy++) {
		struct rpmafio_poll p;
		rpmafio_poll_init_fd(&p, fake.ev[0], CQ, fake.cq[0],
			busy ? RPMAFIO_POLL_BUSY : RPMAFIO_POLL_SLEEP);
		assert_null(p.conn);
		assert_int_equal(p.ev_fd, fake.ev[0]);
		assert_int_equal(p.cq_fd, fake.cq[0]);
		rec.len = 0;
		memset(rec.trace, 0, sizeof(rec.trace));
		ring(fake.ev);
		assert_int_equal(rpmafio_poll_run(&p, &ops, &rec), EVENTS_END);
		assert_string_equal(rec.trace, "E");
		char byte;
		assert_int_equal(read(fake.ev[0], &byte, 1), 1);
	}
	assert_int_equal(fake.ev_fd_calls, 0);
	assert_int_equal(fake.cq_fd_calls, 0);
}

void init_fills_fds(void **state)
{
	(void)state;
	struct rpmafio_poll p = make_loop(CQ, true);
	assert_ptr_equal(p.conn, CONN);
	assert_ptr_equal(p.cq, CQ);
	assert_int_equal(p.ev_fd, fake.ev[0]);
	assert_int_equal(p.cq_fd, fake.cq[0]);
	assert_int_equal(p.mode, RPMAFIO_POLL_BUSY);

	p = make_loop(NULL, false);
	assert_null(p.cq);
	assert_int_equal(p.ev_fd, fake.ev[0]);
	assert_int_equal(p.cq_fd, -1);
	assert_int_equal(p.mode, RPMAFIO_POLL_SLEEP);
	assert_int_equal(fake.ev_fd_calls, 2);
	assert_int_equal(fake.cq_fd_calls, 1);
}

void init_returns_getter_errors(void **state)
{
	(void)state;
	struct rpmafio_poll p;
	fake.ev_fd_ret = RPMA_E_INVAL;
	assert_int_equal(rpmafio_poll_init(&p, CONN, CQ, RPMAFIO_POLL_SLEEP), RPMA_E_INVAL);
	assert_int_equal(p.ev_fd, -1);
	assert_int_equal(p.cq_fd, -1);
	assert_int_equal(fake.cq_fd_calls, 0);

	fake.ev_fd_ret = 0;
	fake.cq_fd_ret = FAILED;
	assert_int_equal(rpmafio_poll_init(&p, CONN, CQ, RPMAFIO_POLL_SLEEP), FAILED);
	assert_int_equal(p.cq_fd, -1);
	assert_int_equal(fake.cq_fd_calls, 1);
}
