/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * keepalive.h -- when a serving server probes its client. No fio, no RDMA.
 *
 * A client whose host or link is lost says nothing: no disconnection comes,
 * and an APM server, which takes no part in the I/O, would wait for ever.
 * After `interval` ms without a word from the client (a completion of any
 * kind) the server posts a probe, a zero-length RDMA write: the client's
 * RNIC acknowledges it without a completion there. When nobody answers, the
 * transport's retries may fail it, but a passive side's QP may also wait for
 * its acknowledgement for ever (rxe's does: measured, none in 120 s), so a
 * probe left unanswered for `give_up` ms ends serving too.
 *
 * The serve loop reports each word with rpmafio_keepalive_heard() (a store:
 * the hot path reads no clock) and asks rpmafio_keepalive_tick() whenever it
 * is idle; the clock is the caller's (ms, monotonic).
 */
#ifndef RPMAFIO_KEEPALIVE_H
#define RPMAFIO_KEEPALIVE_H

#include <stdbool.h>
#include <stdint.h>

struct rpmafio_keepalive {
	uint64_t interval;	/* ms; 0: never probe */
	uint64_t give_up;	/* ms a probe may wait for its answer */
	uint64_t quiet_since;	/* when the client was last heard from */
	uint64_t probe_sent;
	bool heard;		/* a word since the last tick */
	bool probing;		/* a probe is out */
};

enum rpmafio_keepalive_action {
	RPMAFIO_KEEPALIVE_WAIT,		/* nothing to do */
	RPMAFIO_KEEPALIVE_PROBE,	/* post a probe now (then rpmafio_keepalive_probed()) */
	RPMAFIO_KEEPALIVE_UNANSWERED,	/* the probe has waited give_up ms: the client is gone */
};

/*
 * A live client's RNIC answers within a round trip, retransmissions
 * included: 5 s leaves room for a loaded emulated network (TCG guests).
 */
#define RPMAFIO_KEEPALIVE_ANSWER_MS 5000

/* how long a probe may wait for its answer: 5 s, or the interval if longer */
static inline uint64_t rpmafio_keepalive_give_up(uint64_t interval)
{
	return interval > RPMAFIO_KEEPALIVE_ANSWER_MS ? interval : RPMAFIO_KEEPALIVE_ANSWER_MS;
}

void rpmafio_keepalive_init(struct rpmafio_keepalive *k, uint64_t interval, uint64_t give_up,
		uint64_t now);

/* a word from the client: any completion, a probe's answer included */
static inline void rpmafio_keepalive_heard(struct rpmafio_keepalive *k)
{
	k->heard = true;
}

/* what to do at `now` */
enum rpmafio_keepalive_action rpmafio_keepalive_tick(struct rpmafio_keepalive *k, uint64_t now);

/* the probe asked for at `now` was posted */
void rpmafio_keepalive_probed(struct rpmafio_keepalive *k, uint64_t now);

/* the probe's completion came back successful: the client is there */
void rpmafio_keepalive_answered(struct rpmafio_keepalive *k);

#endif /* RPMAFIO_KEEPALIVE_H */
