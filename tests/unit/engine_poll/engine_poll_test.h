/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_poll_test.h -- the completion loop tests' fixture (engine_poll_fixture.c:
 * the scripted librpma, the counted poll(2), the recording callbacks) and the
 * tests of rpmafio_poll_init (engine_poll_init_test.c)
 */
#ifndef ENGINE_POLL_TEST_H
#define ENGINE_POLL_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/poll.h"

extern char conn_dummy, cq_dummy; /* struct rpma_conn / rpma_cq are opaque */
#define CONN ((struct rpma_conn *)&conn_dummy)
#define CQ ((struct rpma_cq *)&cq_dummy)
#define SPIN RPMAFIO_POLL_SPIN_CHECK
#define SLICE RPMAFIO_POLL_SLICE_MS
#define FAILED RPMA_E_PROVIDER /* every scripted librpma failure */

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

/* the scenario running (or none): what librpma says */
extern const struct scenario *running;

/* the scripted librpma's and poll(2)'s state */
struct librpma_fake {
	int ev[2], cq[2];		/* pipes: [0] is polled, a byte in [1] makes it readable */
	int ev_fd_ret, cq_fd_ret;	/* what the fd getters return */
	int wcq_pos;			/* the next of the scenario's rpma_cq_get_wc results */
	int ev_fd_calls, cq_fd_calls, get_wc_calls;
	int polls, poll_nfds, poll_max_timeout;	/* the last nfds; an infinite wait is INT_MAX */
	int poll_fails, poll_errno;	/* the next poll_fails calls fail with poll_errno */
	uint64_t next_ns;		/* paced: when the next completion comes */
};
extern struct librpma_fake fake;

/* what the callbacks got */
struct callback_record {
	char trace[32];	/* as a scenario's */
	size_t len;
	struct batch wc[4];
	int wcs, idles;
	enum rpma_conn_event ev;
	const char *error_call;
	int error_got;
};
extern struct callback_record rec;

uint64_t now_ns(void);
/* the clock's own time while on (engine_poll_fixture.c); a look moves it on by LOOK_NS */
struct virtual_clock {
	bool on;
	uint64_t ns;
};
extern struct virtual_clock virtual_clock;
#define VIRTUAL_CLOCK_LOOK_NS 50
/* a byte in the pipe: its read end is readable */
void ring(const int pipe_fds[2]);
void trace(char c);
enum rpmafio_poll_step rec_wc(void *arg, const struct ibv_wc *wc, int n);
enum rpmafio_poll_step rec_event(void *arg, enum rpma_conn_event ev);
enum rpmafio_poll_step rec_idle(void *arg);
enum rpmafio_poll_step rec_error(void *arg, const char *call, int ret);
/* a fresh fake and recorder; the state: the scenario to run, or none */
int poll_setup(void **state);
int poll_teardown(void **state);
struct rpmafio_poll make_loop(struct rpma_cq *cq, bool busy);
extern const struct rpmafio_poll_ops all_ops;
extern const struct rpmafio_poll_ops idle_only;
extern const struct rpmafio_poll_ops wc_only;

/* engine_poll_init_test.c */
void never_dry_still_idles(void **state);
void adaptive_spins_then_sleeps(void **state);
void adaptive_learns_a_steady_pace(void **state);
void events_without_a_connection(void **state);
void init_fills_fds(void **state);
void init_returns_getter_errors(void **state);

#endif /* ENGINE_POLL_TEST_H */
