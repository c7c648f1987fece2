/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_poll_fixture.c -- what the completion loop's tests run against: the
 * five rpma_* calls poll.c makes, scripted by the running scenario; poll(2),
 * counted on its way to ppoll(2); and the callbacks that record what they got.
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
#include <sys/syscall.h>
#include <cmocka.h>

#include "common/poll.h"
#include "engine_poll_test.h"

char conn_dummy, cq_dummy; /* struct rpma_conn / rpma_cq are opaque */


/* ---- the scripted librpma and the counted poll(2) ---- */

const struct scenario *running;
struct librpma_fake fake;


uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The monotonic clock of poll.c and of these tests, virtual while
 * virtual_clock.on: every look at it moves it on a little (a spin ends) and a
 * sleep moves it on by what was asked, so what the adaptive loop learns from
 * a paced scenario is the same on a loaded machine (where a real 1 ms sleep
 * takes several) as on an idle one. Real otherwise.
 */
struct virtual_clock virtual_clock;

static uint64_t ts_to_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (!virtual_clock.on || id != CLOCK_MONOTONIC)
		return (int)syscall(SYS_clock_gettime, id, ts);
	virtual_clock.ns += VIRTUAL_CLOCK_LOOK_NS;
	ts->tv_sec = (time_t)(virtual_clock.ns / 1000000000u);
	ts->tv_nsec = (long)(virtual_clock.ns % 1000000000u);
	return 0;
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem)
{
	if (!virtual_clock.on || id != CLOCK_MONOTONIC)
		return syscall(SYS_clock_nanosleep, id, flags, req, rem) ? errno : 0;
	uint64_t until = ts_to_ns(req);
	if (!(flags & TIMER_ABSTIME))
		until += virtual_clock.ns;
	if (until > virtual_clock.ns)
		virtual_clock.ns = until;
	return 0;
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
	return get_fd(&fake.ev_fd_calls, fake.ev_fd_ret, fake.ev[0], fd);
}

int rpma_cq_get_fd(const struct rpma_cq *cq, int *fd)
{
	assert_ptr_equal(cq, CQ);
	return get_fd(&fake.cq_fd_calls, fake.cq_fd_ret, fake.cq[0], fd);
}

int rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc, int *got)
{
	assert_ptr_equal(cq, CQ);
	assert_int_equal(num_entries, RPMAFIO_POLL_BATCH);
	assert_non_null(got);
	fake.get_wc_calls++;
	if (running->pace_ns) {
		if (now_ns() < fake.next_ns)
			return RPMA_E_NO_COMPLETION;
		wc[0] = (struct ibv_wc){.wr_id = (uint64_t)fake.get_wc_calls, .status = IBV_WC_SUCCESS};
		*got = 1;
		fake.next_ns = now_ns() + running->pace_ns;
		return 0;
	}
	if (running->endless) {
		if (fake.get_wc_calls > 100 * RPMAFIO_POLL_BUSY_CHECK)
			fail_msg("%d batches of completions and the loop never looked up",
				fake.get_wc_calls);
		wc[0] = (struct ibv_wc){.wr_id = (uint64_t)fake.get_wc_calls, .status = IBV_WC_SUCCESS};
		*got = 1;
		return 0;
	}
	const struct wc_result *r = &running->wcq[fake.wcq_pos];
	if (fake.wcq_pos == WCQ_MAX || (r->ret == 0 && r->n == 0))
		return RPMA_E_NO_COMPLETION;
	fake.wcq_pos++;
	for (int i = 0; i < r->n; i++)
		wc[i] = (struct ibv_wc){.wr_id = r->wr_id + (uint64_t)i, .status = IBV_WC_SUCCESS};
	if (r->ret == 0)
		*got = r->n;
	return r->ret;
}

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
	take_byte(fake.cq[0], 'c');
	return running->cq_wait_ret;
}

int rpma_conn_next_event(struct rpma_conn *conn, enum rpma_conn_event *event)
{
	assert_ptr_equal(conn, CONN);
	take_byte(fake.ev[0], 'n');
	if (running->event.ret == 0)
		*event = running->event.ev;
	return running->event.ret;
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	fake.polls++;
	fake.poll_nfds = (int)nfds;
	if ((timeout < 0 ? INT_MAX : timeout) > fake.poll_max_timeout)
		fake.poll_max_timeout = timeout < 0 ? INT_MAX : timeout;
	if (fake.poll_fails > 0) {
		fake.poll_fails--;
		errno = fake.poll_errno;
		return -1;
	}
	if (running->pace_ns && nfds == 2) {
		/* paced: the CQ's channel wakes the sleep when the completion comes */
		uint64_t now = now_ns();
		if (fake.next_ns > now && virtual_clock.on)
			virtual_clock.ns = fake.next_ns;
		else if (fake.next_ns > now)
			nanosleep(&(struct timespec){0, (long)(fake.next_ns - now)}, NULL);
		ring(fake.cq);
	}
	struct timespec ts = {timeout / 1000, (timeout % 1000) * 1000000L};
	return ppoll(fds, nfds, timeout < 0 ? NULL : &ts, NULL);
}

/* a byte in the pipe: its read end is readable */
void ring(const int pipe_fds[2])
{
	assert_int_equal(write(pipe_fds[1], "x", 1), 1);
}

/* ---- the callbacks: they record what they got and end the loop when told ---- */

struct callback_record rec;

void trace(char c)
{
	assert_true(rec.len + 1 < sizeof(rec.trace));
	rec.trace[rec.len++] = c;
}

enum rpmafio_poll_step rec_wc(void *arg, const struct ibv_wc *wc, int n)
{
	assert_ptr_equal(arg, &rec);
	assert_in_range(n, 1, RPMAFIO_POLL_BATCH);
	assert_true(rec.wcs < 4);
	for (int i = 1; i < n; i++)
		assert_int_equal(wc[i].wr_id, wc[0].wr_id + (uint64_t)i);
	trace('w');
	rec.wc[rec.wcs] = (struct batch){(uint64_t)n, wc[0].wr_id};
	return ++rec.wcs == running->wc_end_at ? WC_END : 0;
}

enum rpmafio_poll_step rec_event(void *arg, enum rpma_conn_event ev)
{
	assert_ptr_equal(arg, &rec);
	trace('e');
	rec.ev = ev;
	return running->event_ret;
}

enum rpmafio_poll_step rec_idle(void *arg)
{
	assert_ptr_equal(arg, &rec);
	trace('i'); /* a loop that does not end overflows the trace */
	return ++rec.idles == (running->idle_end_at ? running->idle_end_at : 1) ? IDLE_END : 0;
}

enum rpmafio_poll_step rec_error(void *arg, const char *call, int ret)
{
	assert_ptr_equal(arg, &rec);
	trace('x');
	rec.error_call = call;
	rec.error_got = ret;
	return running->error_ret;
}

const struct rpmafio_poll_ops all_ops = {rec_wc, rec_event, rec_idle, rec_error, NULL};
const struct rpmafio_poll_ops idle_only = {.idle = rec_idle};
const struct rpmafio_poll_ops wc_only = {.wc = rec_wc};

/* a fresh fake and recorder; the state: the scenario to run, or none */
int poll_setup(void **state)
{
	static const struct scenario none;
	running = *state ? *state : &none;
	memset(&fake, 0, sizeof(fake));
	memset(&rec, 0, sizeof(rec));
	if (pipe2(fake.ev, O_NONBLOCK | O_CLOEXEC) || pipe2(fake.cq, O_NONBLOCK | O_CLOEXEC))
		return -1;
	return 0;
}

int poll_teardown(void **state)
{
	(void)state;
	virtual_clock.on = false;
	for (int i = 0; i < 2; i++) {
		close(fake.ev[i]);
		close(fake.cq[i]);
	}
	return 0;
}

struct rpmafio_poll make_loop(struct rpma_cq *cq, bool busy)
{
	struct rpmafio_poll p;
	assert_int_equal(rpmafio_poll_init(&p, CONN, cq, busy ? RPMAFIO_POLL_BUSY : RPMAFIO_POLL_SLEEP), 0);
	return p;
}
