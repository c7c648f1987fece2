/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_poll_test.c -- the engines' one completion loop (engines/common/poll.c)
 * against a scripted librpma: this file defines the five rpma_* calls poll.c
 * makes (no librpma is linked), real pipes stand for the connection's event fd
 * and the CQ's channel, and poll(2) is counted on its way to ppoll(2), so "never
 * sleeps" is a count, not a time. The loop's runs are scenarios: what librpma
 * says and what the callbacks return, then what the loop must have done. The
 * fixture is engine_poll_fixture.c's, rpmafio_poll_init's tests
 * engine_poll_init_test.c's.
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

/* ---- rpmafio_poll_run and rpmafio_poll_once: the scenarios ---- */

static void run_scenario(void **state)
{
	const struct scenario *s = *state;
	fake.poll_fails = s->eintr;
	fake.poll_errno = EINTR;
	if (s->ring_ev)
		ring(fake.ev);
	if (s->ring_cq)
		ring(fake.cq);
	if (s->hangup_cq) {
		close(fake.cq[1]);
		fake.cq[1] = -1;
	}

	struct rpmafio_poll p = make_loop(CQ, s->busy);
	if (s->no_cq)
		p.cq = NULL;
	const struct rpmafio_poll_ops *ops = s->ops ? s->ops : &all_ops;
	uint64_t t0 = rpmafio_now_ms();
	int ret = s->once ? rpmafio_poll_once(&p, ops, &rec) : rpmafio_poll_run(&p, ops, &rec);
	assert_in_range(rpmafio_now_ms() - t0, s->min_ms, 999);

	assert_int_equal(ret, s->ret);
	assert_string_equal(rec.trace, s->trace);
	assert_memory_equal(rec.wc, s->wc, sizeof(rec.wc));
	assert_int_equal(fake.get_wc_calls, s->get_wc);
	assert_int_equal(fake.polls, s->polls[0]);
	assert_int_equal(fake.poll_nfds, s->polls[1]);
	assert_int_equal(fake.poll_max_timeout, s->polls[2]);
	if (strchr(s->trace, 'e'))
		assert_int_equal(rec.ev, s->event.ev);
	assert_string_equal(rec.error_call ? rec.error_call : "no error",
		s->error_call ? s->error_call : "no error");
	assert_int_equal(rec.error_got, s->error_code ? s->error_code : s->error_call ? FAILED : 0);
}

/* batches of up to RPMAFIO_POLL_BATCH until the wc callback ends the loop */
static const struct scenario batches_until_wc_ends = {
	.wcq = {{0, RPMAFIO_POLL_BATCH, 100}, {0, 3, 200}, {0, 1, 300}}, .wc_end_at = 2,
	.ret = WC_END, .trace = "ww", .wc = {{RPMAFIO_POLL_BATCH, 100}, {3, 200}}, .get_wc = 2};
/* NULL callbacks go on: a batch, a failed poll, 1023 empty ones, a failed event, idle */
static const struct scenario null_callbacks_go_on = {.busy = true, .ops = &idle_only,
	.wcq = {{0, 4, 1}, {FAILED}}, .ring_ev = true, .event = {FAILED},
	.ret = IDLE_END, .trace = "ni", .get_wc = 1 + SPIN, .polls = {1, 1, 0}};
static const struct scenario null_callbacks_go_on_sleeping = {.ops = &wc_only,
	.ring_cq = true, .cq_wait_ret = FAILED, .ring_ev = true, .event = {0, RPMA_CONN_CLOSED},
	.wcq = {{RPMA_E_NO_COMPLETION}, {0, 1, 9}}, .wc_end_at = 1, .ret = WC_END,
	.trace = "cnw", .wc = {{1, 9}}, .get_wc = 2, .polls = {1, 2, SLICE}};
/* busy: every SPIN empty polls a look at the events (poll(2) with timeout 0), then idle */
static const struct scenario busy_never_sleeps = {.busy = true, .ring_cq = true,
	.idle_end_at = 3, .ret = IDLE_END, .trace = "iii", .get_wc = 3 * SPIN,
	.polls = {3, 1, 0}};
static const struct scenario busy_event_then_idle = {.busy = true, .wcq = {{0, 2, 7}},
	.ring_ev = true, .event = {0, RPMA_CONN_CLOSED}, .ret = IDLE_END, .trace = "wnei",
	.wc = {{2, 7}}, .get_wc = 1 + SPIN, .polls = {1, 1, 0}};
static const struct scenario busy_event_ends_the_loop = {.busy = true, .ring_ev = true,
	.event = {0, RPMA_CONN_LOST}, .event_ret = EVENT_END, .ret = EVENT_END, .trace = "ne",
	.get_wc = SPIN, .polls = {1, 1, 0}};
/* not busy: woken at once by the CQ's channel, then idle, then the completions */
static const struct scenario sleep_cq_fd_wakes_cq_wait = {.ring_cq = true,
	.wcq = {{RPMA_E_NO_COMPLETION}, {0, 2, 50}}, .wc_end_at = 1, .idle_end_at = NEVER,
	.ret = WC_END, .trace = "ciw", .wc = {{2, 50}}, .get_wc = 2, .polls = {1, 2, SLICE}};
static const struct scenario sleep_cq_wait_no_completion_is_no_error = {.ring_cq = true,
	.cq_wait_ret = RPMA_E_NO_COMPLETION, .ret = IDLE_END, .trace = "ci", .get_wc = 1,
	.polls = {1, 2, SLICE}};
static const struct scenario sleep_cq_wait_error_ends = {.ring_cq = true,
	.cq_wait_ret = FAILED, .error_ret = ERROR_END, .ret = ERROR_END, .trace = "cx",
	.get_wc = 1, .polls = {1, 2, SLICE}, .error_call = "rpma_cq_wait"};
/* the channel's event is taken before the connection's */
static const struct scenario sleep_cq_wait_error_goes_on = {.ring_cq = true, .ring_ev = true,
	.event = {0, RPMA_CONN_CLOSED}, .cq_wait_ret = FAILED, .ret = IDLE_END,
	.trace = "cxnei", .get_wc = 1, .polls = {1, 2, SLICE}, .error_call = "rpma_cq_wait"};
static const struct scenario sleep_event_fd_wakes_event = {.ring_ev = true,
	.event = {0, RPMA_CONN_LOST}, .event_ret = EVENT_END, .ret = EVENT_END, .trace = "ne",
	.get_wc = 1, .polls = {1, 2, SLICE}};
static const struct scenario sleep_idle_after_a_slice = {.ret = IDLE_END, .trace = "i",
	.get_wc = 1, .polls = {1, 2, SLICE}, .min_ms = SLICE - 10};
static const struct scenario sleep_interrupted_calls_idle = {.eintr = true, .ret = IDLE_END,
	.trace = "i", .get_wc = 1, .polls = {1, 2, SLICE}};
/* no CQ: busy or not, it sleeps on the events alone (a readable CQ fd is not looked at) */
static const struct scenario no_cq_only_events_and_idle = {.busy = true, .no_cq = true,
	.ring_cq = true, .ring_ev = true, .event = {0, RPMA_CONN_CLOSED}, .idle_end_at = 2,
	.ret = IDLE_END, .trace = "neii", .polls = {2, 1, SLICE}, .min_ms = SLICE - 10};
static const struct scenario get_wc_error_ends = {.busy = true, .wcq = {{FAILED}},
	.error_ret = ERROR_END, .ret = ERROR_END, .trace = "x", .get_wc = 1,
	.error_call = "rpma_cq_get_wc"};
/* a failed poll counts as an empty one */
static const struct scenario get_wc_error_goes_on = {.busy = true, .wcq = {{FAILED}},
	.ret = IDLE_END, .trace = "xi", .get_wc = SPIN, .polls = {1, 1, 0},
	.error_call = "rpma_cq_get_wc"};
/* a channel in error wakes poll(2) at once, never readable: an error, not a spin */
static const struct scenario sleep_channel_in_error_ends = {.hangup_cq = true,
	.error_ret = ERROR_END, .ret = ERROR_END, .trace = "x", .get_wc = 1,
	.polls = {1, 2, SLICE}, .error_call = "poll (completion channel)",
	.error_code = RPMA_E_PROVIDER};
static const struct scenario next_event_error_ends = {.ring_ev = true, .event = {FAILED},
	.error_ret = ERROR_END, .ret = ERROR_END, .trace = "nx", .get_wc = 1,
	.polls = {1, 2, SLICE}, .error_call = "rpma_conn_next_event"};
/* one look, never a wait (readable fds are not looked at) */
static const struct scenario once_hands_one_batch = {.once = true, .ring_cq = true,
	.wcq = {{0, 5, 70}, {0, 1, 80}}, .wc_end_at = 1, .ret = WC_END, .trace = "w",
	.wc = {{5, 70}}, .get_wc = 1};
static const struct scenario once_empty_is_zero = {.once = true, .ring_ev = true,
	.ring_cq = true, .ret = 0, .trace = "", .get_wc = 1};
static const struct scenario once_error = {.once = true, .wcq = {{FAILED}},
	.error_ret = ERROR_END, .ret = ERROR_END, .trace = "x", .get_wc = 1,
	.error_call = "rpma_cq_get_wc"};
static const struct scenario once_null_wc_is_zero = {.once = true, .ops = &idle_only,
	.wcq = {{0, 2, 1}}, .ret = 0, .trace = "", .get_wc = 1};
static const struct scenario once_null_error_is_zero = {.once = true, .ops = &idle_only,
	.wcq = {{FAILED}}, .ret = 0, .trace = "", .get_wc = 1};

/* ---- rpmafio_wait_fd, rpmafio_now_ms ---- */

static bool no_stop, stop = true;

/* wait_fd(fd, timeout_ms, stop) returns want within [min_ms, max_ms] */
static void assert_wait(int timeout_ms, const bool *stop_p, enum rpmafio_fd_wait want,
		uint64_t min_ms,
		uint64_t max_ms)
{
	uint64_t t0 = rpmafio_now_ms();
	assert_int_equal(rpmafio_wait_fd(fake.ev[0], timeout_ms, stop_p), want);
	assert_in_range(rpmafio_now_ms() - t0, min_ms, max_ms);
}

static void wait_fd_readable_or_stopped(void **state)
{
	(void)state;
	assert_wait(-1, &stop, RPMAFIO_FD_STOPPED, SLICE - 10, 999); /* stop is looked at after a slice */
	assert_int_equal(fake.polls, 1);
	assert_int_equal(fake.poll_max_timeout, SLICE);
	ring(fake.ev);
	assert_wait(-1, &no_stop, RPMAFIO_FD_READABLE, 0, 50);
	assert_wait(0, &stop, RPMAFIO_FD_READABLE, 0, 50); /* readable wins over stopping */
	assert_int_equal(fake.polls, 3);
}

static void wait_fd_timeouts(void **state)
{
	(void)state;
	assert_wait(0, &no_stop, RPMAFIO_FD_TIMED_OUT, 0, 50);
	assert_int_equal(fake.polls, 1);
	assert_int_equal(fake.poll_max_timeout, 0);
	assert_wait(150, &no_stop, RPMAFIO_FD_TIMED_OUT, 140, 999);
	assert_true(fake.polls >= 1 + 3); /* 150 ms in slices, then a last look */
	assert_int_equal(fake.poll_max_timeout, SLICE);
}

static void wait_fd_poll_failures(void **state)
{
	(void)state;
	fake.poll_fails = 1;
	fake.poll_errno = EINVAL;
	assert_wait(-1, &no_stop, RPMAFIO_FD_STOPPED, 0, 50);
	ring(fake.ev);
	fake.poll_fails = 1;
	fake.poll_errno = EINTR; /* goes on */
	assert_wait(-1, &no_stop, RPMAFIO_FD_READABLE, 0, 50);
	assert_int_equal(fake.polls, 3);
}

static void now_ms_is_monotonic(void **state)
{
	(void)state;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t t0 = rpmafio_now_ms();
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_in_range(t0, (uint64_t)a.tv_sec * 1000 + (uint64_t)a.tv_nsec / 1000000,
		(uint64_t)b.tv_sec * 1000 + (uint64_t)b.tv_nsec / 1000000);
	nanosleep(&(struct timespec){0, 20 * 1000000L}, NULL);
	assert_true(rpmafio_now_ms() >= t0 + 20);
}

#define T(f) cmocka_unit_test_setup_teardown(f, poll_setup, poll_teardown)
#define RUN(s) {#s, run_scenario, poll_setup, poll_teardown, (void *)&s}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(init_fills_fds),
		T(events_without_a_connection),
		T(adaptive_spins_then_sleeps),
		T(adaptive_learns_a_steady_pace),
		T(never_dry_still_idles),
		T(init_returns_getter_errors),
		RUN(batches_until_wc_ends),
		RUN(null_callbacks_go_on),
		RUN(null_callbacks_go_on_sleeping),
		RUN(busy_never_sleeps),
		RUN(busy_event_then_idle),
		RUN(busy_event_ends_the_loop),
		RUN(sleep_cq_fd_wakes_cq_wait),
		RUN(sleep_cq_wait_no_completion_is_no_error),
		RUN(sleep_cq_wait_error_ends),
		RUN(sleep_cq_wait_error_goes_on),
		RUN(sleep_event_fd_wakes_event),
		RUN(sleep_idle_after_a_slice),
		RUN(sleep_interrupted_calls_idle),
		RUN(no_cq_only_events_and_idle),
		RUN(get_wc_error_ends),
		RUN(get_wc_error_goes_on),
		RUN(sleep_channel_in_error_ends),
		RUN(next_event_error_ends),
		RUN(once_hands_one_batch),
		RUN(once_empty_is_zero),
		RUN(once_error),
		RUN(once_null_wc_is_zero),
		RUN(once_null_error_is_zero),
		T(wait_fd_readable_or_stopped),
		T(wait_fd_timeouts),
		T(wait_fd_poll_failures),
		T(now_ms_is_monotonic),
	};
	alarm(60); /* a loop that never ends fails the run instead of hanging it */
	return cmocka_run_group_tests_name("engine_poll", tests, NULL, NULL);
}
