/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_poll_test.c -- the engines' one completion loop (engines/common/poll.c)
 * against a scripted librpma: this file defines the five rpma_* calls poll.c
 * makes (no librpma is linked), real pipes stand for the connection's event fd
 * and the CQ's channel, and poll(2) is counted on its way to ppoll(2), so "never
 * sleeps" is a count, not a time. The loop's runs are scenarios: what librpma
 * says and what the callbacks return, then what the loop must have done.
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

static char conn_dummy, cq_dummy; /* struct rpma_conn / rpma_cq are opaque */
#define CONN ((struct rpma_conn *)&conn_dummy)
#define CQ ((struct rpma_cq *)&cq_dummy)
#define SPIN RPMAFIO_POLL_SPIN_CHECK
#define SLICE RPMAFIO_POLL_SLICE_MS
#define FAILED RPMA_E_PROVIDER /* every scripted librpma failure */

/* ---- a scenario ---- */

/* one rpma_cq_get_wc: ret, and for 0 n completions numbered from wr_id; {0} ends a script */
struct wc_result { int ret, n; uint64_t wr_id; };
struct ev_result { int ret; enum rpma_conn_event ev; };
#define WCQ_MAX 4

/* what each callback returns to end the loop: the loop's value tells who ended it */
enum { WC_END = 101, EVENT_END = 102, IDLE_END = 103, ERROR_END = 104, EVENTS_END = 105 };
#define NEVER (-1)

struct batch { uint64_t n, first; }; /* no padding: compared with memcmp */

/* a run of the loop: what librpma and the callbacks say, then what must have happened */
struct scenario {
	/* the loop */
	bool once;		/* rpmafio_poll_once, not rpmafio_poll_run */
	bool busy, no_cq;	/* no_cq: cq NULL, cq_fd still set (serve.c's copies) */
	const struct rpmafio_poll_ops *ops; /* NULL: every callback */
	/* what librpma and poll(2) say */
	struct wc_result wcq[WCQ_MAX];
	bool endless;		/* every rpma_cq_get_wc gives one completion: never dry */
	uint64_t pace_ns;	/* a completion comes this long after the last one was taken */
	bool ring_ev, ring_cq;	/* the event fd / the CQ's fd readable */
	struct ev_result event;
	int cq_wait_ret;
	bool eintr;		/* the first poll(2) interrupted */
	bool hangup_cq;		/* the CQ's channel in error: its pipe's writer gone (POLLHUP) */
	/* what the callbacks return */
	int wc_end_at, event_ret, error_ret;
	int idle_end_at;	/* 0: the first idle ends the loop; NEVER */
	/* what must have happened */
	int ret;
	const char *trace;	/* c cq_wait, n next_event, w wc, e event, i idle, x error */
	struct batch wc[4];	/* the batches the wc callback got */
	int get_wc;		/* rpma_cq_get_wc calls */
	int polls[3];		/* poll(2) calls, the last one's nfds, the longest timeout */
	const char *error_call;	/* the error callback's (with FAILED) */
	int error_code;		/* ... unless the loop's own code is given here */
	int min_ms;		/* the least time it takes (all take < 1 s) */
};

/* ---- the scripted librpma and the counted poll(2) ---- */

static const struct scenario *S; /* the one running (or none): what librpma says */

static struct {
	int ev[2], cq[2];		/* pipes: [0] is polled, a byte in [1] makes it readable */
	int ev_fd_ret, cq_fd_ret;	/* what the fd getters return */
	int wcq_pos;			/* the next of the scenario's rpma_cq_get_wc results */
	int ev_fd_calls, cq_fd_calls, get_wc_calls;
	int polls, poll_nfds, poll_max_timeout;	/* the last nfds; an infinite wait is INT_MAX */
	int poll_fails, poll_errno;	/* the next poll_fails calls fail with poll_errno */
	uint64_t next_ns;		/* paced: when the next completion comes */
} F;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int get_fd(int *calls, int ret, int fd, int *out)
{
	(*calls)++;
	if (ret == 0)
		*out = fd;
	return ret;
}

int rpma_conn_get_event_fd(const struct rpma_conn *conn, int *fd)
{
	assert_ptr_equal(conn, CONN);
	return get_fd(&F.ev_fd_calls, F.ev_fd_ret, F.ev[0], fd);
}

int rpma_cq_get_fd(const struct rpma_cq *cq, int *fd)
{
	assert_ptr_equal(cq, CQ);
	return get_fd(&F.cq_fd_calls, F.cq_fd_ret, F.cq[0], fd);
}

int rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc, int *got)
{
	assert_ptr_equal(cq, CQ);
	assert_int_equal(num_entries, RPMAFIO_POLL_BATCH);
	assert_non_null(got);
	F.get_wc_calls++;
	if (S->pace_ns) {
		if (now_ns() < F.next_ns)
			return RPMA_E_NO_COMPLETION;
		wc[0] = (struct ibv_wc){.wr_id = (uint64_t)F.get_wc_calls, .status = IBV_WC_SUCCESS};
		*got = 1;
		F.next_ns = now_ns() + S->pace_ns;
		return 0;
	}
	if (S->endless) {
		if (F.get_wc_calls > 100 * RPMAFIO_POLL_BUSY_CHECK)
			fail_msg("%d batches of completions and the loop never looked up",
				F.get_wc_calls);
		wc[0] = (struct ibv_wc){.wr_id = (uint64_t)F.get_wc_calls, .status = IBV_WC_SUCCESS};
		*got = 1;
		return 0;
	}
	const struct wc_result *r = &S->wcq[F.wcq_pos];
	if (F.wcq_pos == WCQ_MAX || (r->ret == 0 && r->n == 0))
		return RPMA_E_NO_COMPLETION;
	F.wcq_pos++;
	for (int i = 0; i < r->n; i++)
		wc[i] = (struct ibv_wc){.wr_id = r->wr_id + (uint64_t)i, .status = IBV_WC_SUCCESS};
	if (r->ret == 0)
		*got = r->n;
	return r->ret;
}

static void trace(char c);
static void ring(const int pipe_fds[2]);

/* the real calls block when nothing is there: here that fails the test */
static void take_byte(int fd, char call)
{
	char b;
	trace(call);
	if (read(fd, &b, 1) != 1)
		fail_msg("'%c' with nothing to take: it would block", call);
}

int rpma_cq_wait(struct rpma_cq *cq)
{
	assert_ptr_equal(cq, CQ);
	take_byte(F.cq[0], 'c');
	return S->cq_wait_ret;
}

int rpma_conn_next_event(struct rpma_conn *conn, enum rpma_conn_event *event)
{
	assert_ptr_equal(conn, CONN);
	take_byte(F.ev[0], 'n');
	if (S->event.ret == 0)
		*event = S->event.ev;
	return S->event.ret;
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	F.polls++;
	F.poll_nfds = (int)nfds;
	if ((timeout < 0 ? INT_MAX : timeout) > F.poll_max_timeout)
		F.poll_max_timeout = timeout < 0 ? INT_MAX : timeout;
	if (F.poll_fails > 0) {
		F.poll_fails--;
		errno = F.poll_errno;
		return -1;
	}
	if (S->pace_ns && nfds == 2) {
		/* paced: the CQ's channel wakes the sleep when the completion comes */
		uint64_t now = now_ns();
		if (F.next_ns > now)
			nanosleep(&(struct timespec){0, (long)(F.next_ns - now)}, NULL);
		ring(F.cq);
	}
	struct timespec ts = {timeout / 1000, (timeout % 1000) * 1000000L};
	return ppoll(fds, nfds, timeout < 0 ? NULL : &ts, NULL);
}

/* a byte in the pipe: its read end is readable */
static void ring(const int pipe_fds[2])
{
	assert_int_equal(write(pipe_fds[1], "x", 1), 1);
}

/* ---- the callbacks: they record what they got and end the loop when told ---- */

static struct {
	char trace[32];	/* as a scenario's */
	size_t len;
	struct batch wc[4];
	int wcs, idles;
	enum rpma_conn_event ev;
	const char *error_call;
	int error_got;
} R;

static void trace(char c)
{
	assert_true(R.len + 1 < sizeof(R.trace));
	R.trace[R.len++] = c;
}

static enum rpmafio_poll_step rec_wc(void *arg, const struct ibv_wc *wc, int n)
{
	assert_ptr_equal(arg, &R);
	assert_in_range(n, 1, RPMAFIO_POLL_BATCH);
	assert_true(R.wcs < 4);
	for (int i = 1; i < n; i++)
		assert_int_equal(wc[i].wr_id, wc[0].wr_id + (uint64_t)i);
	trace('w');
	R.wc[R.wcs] = (struct batch){(uint64_t)n, wc[0].wr_id};
	return ++R.wcs == S->wc_end_at ? WC_END : 0;
}

static enum rpmafio_poll_step rec_event(void *arg, enum rpma_conn_event ev)
{
	assert_ptr_equal(arg, &R);
	trace('e');
	R.ev = ev;
	return S->event_ret;
}

static enum rpmafio_poll_step rec_idle(void *arg)
{
	assert_ptr_equal(arg, &R);
	trace('i'); /* a loop that does not end overflows the trace */
	return ++R.idles == (S->idle_end_at ? S->idle_end_at : 1) ? IDLE_END : 0;
}

static enum rpmafio_poll_step rec_error(void *arg, const char *call, int ret)
{
	assert_ptr_equal(arg, &R);
	trace('x');
	R.error_call = call;
	R.error_got = ret;
	return S->error_ret;
}

static const struct rpmafio_poll_ops all_ops = {rec_wc, rec_event, rec_idle, rec_error, NULL};
static const struct rpmafio_poll_ops idle_only = {.idle = rec_idle};
static const struct rpmafio_poll_ops wc_only = {.wc = rec_wc};

/* a fresh fake and recorder; the state: the scenario to run, or none */
static int setup(void **state)
{
	static const struct scenario none;
	S = *state ? *state : &none;
	memset(&F, 0, sizeof(F));
	memset(&R, 0, sizeof(R));
	if (pipe2(F.ev, O_NONBLOCK | O_CLOEXEC) || pipe2(F.cq, O_NONBLOCK | O_CLOEXEC))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		close(F.ev[i]);
		close(F.cq[i]);
	}
	return 0;
}

static struct rpmafio_poll make_loop(struct rpma_cq *cq, bool busy)
{
	struct rpmafio_poll p;
	assert_int_equal(rpmafio_poll_init(&p, CONN, cq, busy ? RPMAFIO_POLL_BUSY : RPMAFIO_POLL_SLEEP), 0);
	return p;
}

/* ---- rpmafio_poll_run and rpmafio_poll_once: the scenarios ---- */

static void run_scenario(void **state)
{
	const struct scenario *s = *state;
	F.poll_fails = s->eintr;
	F.poll_errno = EINTR;
	if (s->ring_ev)
		ring(F.ev);
	if (s->ring_cq)
		ring(F.cq);
	if (s->hangup_cq) {
		close(F.cq[1]);
		F.cq[1] = -1;
	}

	struct rpmafio_poll p = make_loop(CQ, s->busy);
	if (s->no_cq)
		p.cq = NULL;
	const struct rpmafio_poll_ops *ops = s->ops ? s->ops : &all_ops;
	uint64_t t0 = rpmafio_now_ms();
	int ret = s->once ? rpmafio_poll_once(&p, ops, &R) : rpmafio_poll_run(&p, ops, &R);
	assert_in_range(rpmafio_now_ms() - t0, s->min_ms, 999);

	assert_int_equal(ret, s->ret);
	assert_string_equal(R.trace, s->trace);
	assert_memory_equal(R.wc, s->wc, sizeof(R.wc));
	assert_int_equal(F.get_wc_calls, s->get_wc);
	assert_int_equal(F.polls, s->polls[0]);
	assert_int_equal(F.poll_nfds, s->polls[1]);
	assert_int_equal(F.poll_max_timeout, s->polls[2]);
	if (strchr(s->trace, 'e'))
		assert_int_equal(R.ev, s->event.ev);
	assert_string_equal(R.error_call ? R.error_call : "no error",
		s->error_call ? s->error_call : "no error");
	assert_int_equal(R.error_got, s->error_code ? s->error_code : s->error_call ? FAILED : 0);
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

static void never_dry_still_idles(void **state)
{
	(void)state;
	static const struct scenario endless = {.endless = true};
	static const struct rpmafio_poll_ops ops = {.wc = count_wc, .idle = rec_idle};
	S = &endless;
	endless_wcs = 0;
	for (int busy = 0; busy < 2; busy++) {
		struct rpmafio_poll p = make_loop(CQ, busy);
		F.get_wc_calls = 0;
		F.polls = 0;
		F.poll_max_timeout = 0;
		R.idles = 0;
		R.len = 0;
		memset(R.trace, 0, sizeof(R.trace));
		assert_int_equal(rpmafio_poll_run(&p, &ops, &R), IDLE_END);
		/* the first idle() after RPMAFIO_POLL_BUSY_CHECK batches, not never */
		assert_int_equal(F.get_wc_calls, RPMAFIO_POLL_BUSY_CHECK);
		assert_string_equal(R.trace, "i");
		/* it looked at the events once (none: nothing taken), without sleeping */
		assert_int_equal(F.polls, 1);
		assert_int_equal(F.poll_max_timeout, 0);
	}
	assert_int_equal(endless_wcs, 2 * RPMAFIO_POLL_BUSY_CHECK);
}

/*
 * adaptive, nothing coming: no nap (nothing learned yet), a spin of at least
 * RPMAFIO_PACE_SPIN_MIN_NS, then one sleep on the channels, then idle
 */
static void adaptive_spins_then_sleeps(void **state)
{
	(void)state;
	static const struct scenario one = {.wcq = {{0, 1, 5}}, .idle_end_at = 1};
	S = &one;
	struct rpmafio_poll p;
	assert_int_equal(rpmafio_poll_init(&p, CONN, CQ, RPMAFIO_POLL_ADAPTIVE), 0);
	uint64_t t0 = now_ns();
	assert_int_equal(rpmafio_poll_run(&p, &all_ops, &R), IDLE_END);
	assert_true(now_ns() - t0 >= RPMAFIO_PACE_SPIN_MIN_NS);
	assert_string_equal(R.trace, "wi");
	assert_true(F.get_wc_calls > 16); /* it spun */
	assert_int_equal(F.polls, 1);	/* then slept once, on both fds, a slice at most */
	assert_int_equal(F.poll_nfds, 2);
	assert_int_equal(F.poll_max_timeout, SLICE);
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
 */
static void adaptive_learns_a_steady_pace(void **state)
{
	(void)state;
	static const struct scenario paced = {.pace_ns = 1000000, .idle_end_at = NEVER};
	static const struct rpmafio_poll_ops ops = {.wc = count_paced};
	S = &paced;
	paced_wcs = 0;
	F.next_ns = now_ns() + paced.pace_ns;
	struct rpmafio_poll p;
	assert_int_equal(rpmafio_poll_init(&p, CONN, CQ, RPMAFIO_POLL_ADAPTIVE), 0);
	assert_int_equal(rpmafio_poll_run(&p, &ops, &R), WC_END);
	assert_in_range(rpmafio_pace_nap_ns(&p.pace), 500000, 1000000);
	assert_true(F.polls < 30);
}

static enum rpmafio_poll_step rec_events(void *arg)
{
	assert_ptr_equal(arg, &R);
	trace('E');
	return (enum rpmafio_poll_step)EVENTS_END;
}

/*
 * A loop without a connection (server/hub.h): its event descriptor is the
 * caller's; readable, the events callback takes it (no rpma_conn_* call: the
 * fake's would fail on a NULL connection), busy and sleeping alike
 */
static void events_without_a_connection(void **state)
{
	(void)state;
	static const struct rpmafio_poll_ops ops = {.idle = rec_idle, .events = rec_events};
	for (int busy = 0; busy < 2; busy++) {
		struct rpmafio_poll p;
		rpmafio_poll_init_fd(&p, F.ev[0], CQ, F.cq[0],
			busy ? RPMAFIO_POLL_BUSY : RPMAFIO_POLL_SLEEP);
		assert_null(p.conn);
		assert_int_equal(p.ev_fd, F.ev[0]);
		assert_int_equal(p.cq_fd, F.cq[0]);
		R.len = 0;
		memset(R.trace, 0, sizeof(R.trace));
		ring(F.ev);
		assert_int_equal(rpmafio_poll_run(&p, &ops, &R), EVENTS_END);
		assert_string_equal(R.trace, "E");
		char byte;
		assert_int_equal(read(F.ev[0], &byte, 1), 1);
	}
	assert_int_equal(F.ev_fd_calls, 0);
	assert_int_equal(F.cq_fd_calls, 0);
}

static void init_fills_fds(void **state)
{
	(void)state;
	struct rpmafio_poll p = make_loop(CQ, true);
	assert_ptr_equal(p.conn, CONN);
	assert_ptr_equal(p.cq, CQ);
	assert_int_equal(p.ev_fd, F.ev[0]);
	assert_int_equal(p.cq_fd, F.cq[0]);
	assert_int_equal(p.mode, RPMAFIO_POLL_BUSY);

	p = make_loop(NULL, false);
	assert_null(p.cq);
	assert_int_equal(p.ev_fd, F.ev[0]);
	assert_int_equal(p.cq_fd, -1);
	assert_int_equal(p.mode, RPMAFIO_POLL_SLEEP);
	assert_int_equal(F.ev_fd_calls, 2);
	assert_int_equal(F.cq_fd_calls, 1);
}

static void init_returns_getter_errors(void **state)
{
	(void)state;
	struct rpmafio_poll p;
	F.ev_fd_ret = RPMA_E_INVAL;
	assert_int_equal(rpmafio_poll_init(&p, CONN, CQ, RPMAFIO_POLL_SLEEP), RPMA_E_INVAL);
	assert_int_equal(p.ev_fd, -1);
	assert_int_equal(p.cq_fd, -1);
	assert_int_equal(F.cq_fd_calls, 0);

	F.ev_fd_ret = 0;
	F.cq_fd_ret = FAILED;
	assert_int_equal(rpmafio_poll_init(&p, CONN, CQ, RPMAFIO_POLL_SLEEP), FAILED);
	assert_int_equal(p.cq_fd, -1);
	assert_int_equal(F.cq_fd_calls, 1);
}

/* ---- rpmafio_wait_fd, rpmafio_now_ms ---- */

static bool no_stop, stop = true;

/* wait_fd(fd, timeout_ms, stop) returns want within [min_ms, max_ms] */
static void assert_wait(int timeout_ms, const bool *stop_p, enum rpmafio_fd_wait want,
		uint64_t min_ms,
		uint64_t max_ms)
{
	uint64_t t0 = rpmafio_now_ms();
	assert_int_equal(rpmafio_wait_fd(F.ev[0], timeout_ms, stop_p), want);
	assert_in_range(rpmafio_now_ms() - t0, min_ms, max_ms);
}

static void wait_fd_readable_or_stopped(void **state)
{
	(void)state;
	assert_wait(-1, &stop, RPMAFIO_FD_STOPPED, SLICE - 10, 999); /* stop is looked at after a slice */
	assert_int_equal(F.polls, 1);
	assert_int_equal(F.poll_max_timeout, SLICE);
	ring(F.ev);
	assert_wait(-1, &no_stop, RPMAFIO_FD_READABLE, 0, 50);
	assert_wait(0, &stop, RPMAFIO_FD_READABLE, 0, 50); /* readable wins over stopping */
	assert_int_equal(F.polls, 3);
}

static void wait_fd_timeouts(void **state)
{
	(void)state;
	assert_wait(0, &no_stop, RPMAFIO_FD_TIMED_OUT, 0, 50);
	assert_int_equal(F.polls, 1);
	assert_int_equal(F.poll_max_timeout, 0);
	assert_wait(150, &no_stop, RPMAFIO_FD_TIMED_OUT, 140, 999);
	assert_true(F.polls >= 1 + 3); /* 150 ms in slices, then a last look */
	assert_int_equal(F.poll_max_timeout, SLICE);
}

static void wait_fd_poll_failures(void **state)
{
	(void)state;
	F.poll_fails = 1;
	F.poll_errno = EINVAL;
	assert_wait(-1, &no_stop, RPMAFIO_FD_STOPPED, 0, 50);
	ring(F.ev);
	F.poll_fails = 1;
	F.poll_errno = EINTR; /* goes on */
	assert_wait(-1, &no_stop, RPMAFIO_FD_READABLE, 0, 50);
	assert_int_equal(F.polls, 3);
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

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define RUN(s) {#s, run_scenario, setup, teardown, (void *)&s}

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
