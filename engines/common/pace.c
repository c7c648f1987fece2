/* SPDX-License-Identifier: BSD-3-Clause */
/* pace.c -- when the adaptive wait sleeps and when it spins (see pace.h) */
#include "pace.h"

static uint64_t guard_ns(uint64_t gap_ns)
{
	uint64_t g = gap_ns / 8;
	return g > RPMAFIO_PACE_GUARD_MIN_NS ? g : RPMAFIO_PACE_GUARD_MIN_NS;
}

void rpmafio_pace_init(struct rpmafio_pace *p)
{
	p->nap_ns = 0;
	p->late_ns = 0;
}

uint64_t rpmafio_pace_nap_ns(const struct rpmafio_pace *p)
{
	return p->nap_ns >= RPMAFIO_PACE_NAP_MIN_NS ? p->nap_ns : 0;
}

uint64_t rpmafio_pace_timer_ns(const struct rpmafio_pace *p)
{
	uint64_t nap = rpmafio_pace_nap_ns(p);
	return nap > p->late_ns + RPMAFIO_PACE_NAP_MIN_NS ? nap - p->late_ns : 0;
}

void rpmafio_pace_timer_took(struct rpmafio_pace *p, uint64_t asked_ns, uint64_t took_ns)
{
	const uint64_t late = took_ns > asked_ns ? took_ns - asked_ns : 0;
	/* a quarter of the way each time: one preempted nap does not undo the rest */
	if (late >= p->late_ns)
		p->late_ns += (late - p->late_ns) / 4;
	else
		p->late_ns -= (p->late_ns - late) / 4;
}

uint64_t rpmafio_pace_spin_end_ns(const struct rpmafio_pace *p, bool napped)
{
	/* twice the guard of the gap the nap expects: room for the pace's jitter */
	uint64_t spin = 2 * guard_ns(p->nap_ns + p->nap_ns / 7);
	if (spin < RPMAFIO_PACE_SPIN_MIN_NS)
		spin = RPMAFIO_PACE_SPIN_MIN_NS;
	if (spin > RPMAFIO_PACE_SPIN_MAX_NS)
		spin = RPMAFIO_PACE_SPIN_MAX_NS;
	const uint64_t nap = rpmafio_pace_nap_ns(p);
	if (napped)
		return nap + spin;
	return nap + spin < RPMAFIO_PACE_SPIN_MAX_NS ? nap + spin : RPMAFIO_PACE_SPIN_MAX_NS;
}

void rpmafio_pace_learn(struct rpmafio_pace *p, enum rpmafio_pace_found found, uint64_t gap_ns)
{
	if (found == RPMAFIO_PACE_AT_WAKE) {
		p->nap_ns -= p->nap_ns / 4;
		return;
	}
	if (gap_ns > RPMAFIO_PACE_NAP_MAX_NS)
		return; /* an idle period */
	const uint64_t guard = guard_ns(gap_ns);
	const uint64_t target = gap_ns > guard ? gap_ns - guard : 0;
	/*
	 * up at once, down slowly: the gaps of a server alternate, short (its
	 * response's send completing) and long (the client's next request), and
	 * the wait must last the long one
	 */
	if (target >= p->nap_ns)
		p->nap_ns = target;
	else
		p->nap_ns -= (p->nap_ns - target) / 16;
}
