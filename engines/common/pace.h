/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pace.h -- when the adaptive wait (busy_wait_polling=adaptive, poll.h) sleeps
 * and when it spins. No fio, no verbs: times in, times out.
 *
 * A server at a steady load sees requests at a steady pace: after it has
 * answered one, the next comes about as long after as the last did. Busy
 * polling spins all that gap (a whole CPU, the lowest latency); sleeping on
 * the completion channel pays the wake-up's latency on every request (and,
 * under a hypervisor, its CPU). The adaptive wait naps through most of the
 * gap on a timer and spins through the rest, so the request is found by a
 * poll, as busy polling finds it, at the price of a short spin:
 *
 *   nap     until rpmafio_pace_nap_ns() after the wait began: learned, 0 until
 *           the pace is known; the timer is set that much earlier as timers
 *           have been late (rpmafio_pace_timer_ns(): a hypervisor's timers can
 *           be late by the gap itself)
 *   spin    until rpmafio_pace_spin_end_ns() into the wait: a while after the
 *           nap's end; without a timer (none worth setting) from the start,
 *           but never longer than RPMAFIO_PACE_SPIN_MAX_NS: a spin is a busy
 *           CPU, a nap is not
 *   then    sleep on the completion channel (an idle client, a pause)
 *
 * What a wait found teaches the next one (rpmafio_pace_learn()): a completion
 * already there at the first look after the nap means the nap was too long
 * (it came during it): the nap shrinks by a quarter. One found later sets the
 * nap to the gap minus a guard (an eighth of the gap) when that is longer, or
 * moves it a sixteenth of the way down when shorter: the waits last the long
 * gaps of a pace that alternates (a GPSPM server's: its response's send
 * completing soon, the client's next request later). A gap longer than
 * RPMAFIO_PACE_NAP_MAX_NS is an idle period, not a pace: it teaches nothing.
 */
#ifndef RPMAFIO_PACE_H
#define RPMAFIO_PACE_H

#include <stdbool.h>
#include <stdint.h>

/* the longest nap: gaps longer than this are idle periods (the channel's) */
#define RPMAFIO_PACE_NAP_MAX_NS 2000000ull
/* naps shorter than this are not taken (a timer costs more than it saves) */
#define RPMAFIO_PACE_NAP_MIN_NS 5000ull
/* the spin never shorter than this, nor than twice the guard */
#define RPMAFIO_PACE_SPIN_MIN_NS 20000ull
/* the longest spin: beyond it the channel is cheaper than the CPU it burns */
#define RPMAFIO_PACE_SPIN_MAX_NS 200000ull
/* the least guard: the spin's share of a gap is gap / 8, at least this */
#define RPMAFIO_PACE_GUARD_MIN_NS 2000ull

struct rpmafio_pace {
	uint64_t nap_ns;	/* when to be awake again, after the wait began */
	uint64_t late_ns;	/* how late a timer ends: learned from the naps taken */
};

/* what the wait found */
enum rpmafio_pace_found {
	RPMAFIO_PACE_AT_WAKE,	/* a completion at the first look after a nap: the nap was too long */
	RPMAFIO_PACE_LATER,	/* a completion after that (spinning, or on the channel) */
};

void rpmafio_pace_init(struct rpmafio_pace *p);

/* how long after its start the next wait should be awake and spinning */
uint64_t rpmafio_pace_nap_ns(const struct rpmafio_pace *p);

/* the timer to set for that (0: no nap: too short, or timers are too late for it) */
uint64_t rpmafio_pace_timer_ns(const struct rpmafio_pace *p);

/* a timer of asked_ns ended after took_ns: how late timers are */
void rpmafio_pace_timer_took(struct rpmafio_pace *p, uint64_t asked_ns, uint64_t took_ns);

/* how long into the wait it spins until it sleeps on the channel (napped: a timer was set) */
uint64_t rpmafio_pace_spin_end_ns(const struct rpmafio_pace *p, bool napped);

/* a wait that began gap_ns before its completion was found ended with found */
void rpmafio_pace_learn(struct rpmafio_pace *p, enum rpmafio_pace_found found, uint64_t gap_ns);

#endif /* RPMAFIO_PACE_H */
