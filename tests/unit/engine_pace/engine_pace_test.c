/* SPDX-License-Identifier: BSD-3-Clause */
/* engine_pace_test.c -- the adaptive wait's nap and spin, learned from the gaps (common/pace.c) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/pace.h"

#define US 1000ull

static void unknown_pace_spins_without_a_nap(void **state)
{
	(void)state;
	struct rpmafio_pace p;
	rpmafio_pace_init(&p);
	assert_int_equal(rpmafio_pace_nap_ns(&p), 0);
	assert_int_equal(rpmafio_pace_spin_end_ns(&p, false), RPMAFIO_PACE_SPIN_MIN_NS);
}

/* a steady gap: the nap settles at the gap minus its guard (an eighth), the spin covers the rest */
static void steady_gap_is_learned(void **state)
{
	(void)state;
	struct rpmafio_pace p;
	rpmafio_pace_init(&p);
	for (int i = 0; i < 30; i++)
		rpmafio_pace_learn(&p, RPMAFIO_PACE_LATER, 400 * US);
	assert_in_range(rpmafio_pace_nap_ns(&p), 349 * US, 350 * US);
	/* with a timer: awake at 350 us, spinning past the gap, room for jitter */
	uint64_t end = rpmafio_pace_spin_end_ns(&p, true);
	assert_true(end > 400 * US + 40 * US);
	assert_true(end < 350 * US + 150 * US);
	/* without one (timers too late): spinning from the start, but not all that long */
	assert_int_equal(rpmafio_pace_spin_end_ns(&p, false), RPMAFIO_PACE_SPIN_MAX_NS);
}

/* up at once, down by a sixteenth of the way */
static void up_at_once_down_slowly(void **state)
{
	(void)state;
	struct rpmafio_pace p;
	rpmafio_pace_init(&p);
	rpmafio_pace_learn(&p, RPMAFIO_PACE_LATER, 400 * US);
	assert_int_equal(p.nap_ns, 350 * US);
	rpmafio_pace_learn(&p, RPMAFIO_PACE_LATER, 80 * US);
	assert_int_equal(p.nap_ns, 350 * US - (350 - 70) * US / 16);
	/* short and long gaps by turns: the nap stays near the long one's */
	for (int i = 0; i < 100; i++) {
		rpmafio_pace_learn(&p, RPMAFIO_PACE_LATER, 10 * US);
		rpmafio_pace_learn(&p, RPMAFIO_PACE_LATER, 400 * US);
	}
	assert_int_equal(p.nap_ns, 350 * US);
}

/* found at the first look after the nap: it came during the nap, a quarter off */
static void found_at_wake_shrinks(void **state)
{
	(void)state;
	struct rpmafio_pace p = {.nap_ns = 400 * US};
	rpmafio_pace_learn(&p, RPMAFIO_PACE_AT_WAKE, 999 * US);
	assert_int_equal(p.nap_ns, 300 * US);
	for (int i = 0; i < 40; i++)
		rpmafio_pace_learn(&p, RPMAFIO_PACE_AT_WAKE, 0);
	assert_int_equal(rpmafio_pace_nap_ns(&p), 0); /* below the least nap: none */
}

/* a gap longer than the longest nap is an idle client: nothing learned */
static void idle_gap_teaches_nothing(void **state)
{
	(void)state;
	struct rpmafio_pace p = {.nap_ns = 100 * US};
	rpmafio_pace_learn(&p, RPMAFIO_PACE_LATER, RPMAFIO_PACE_NAP_MAX_NS + 1);
	assert_int_equal(p.nap_ns, 100 * US);
	rpmafio_pace_learn(&p, RPMAFIO_PACE_LATER, 5000000000ull);
	assert_int_equal(p.nap_ns, 100 * US);
	/* the longest learned nap stays below the longest gap */
	for (int i = 0; i < 60; i++)
		rpmafio_pace_learn(&p, RPMAFIO_PACE_LATER, RPMAFIO_PACE_NAP_MAX_NS);
	assert_true(p.nap_ns < RPMAFIO_PACE_NAP_MAX_NS);
}

/* tiny gaps: no nap worth a timer, the least spin */
static void tiny_gaps_just_spin(void **state)
{
	(void)state;
	struct rpmafio_pace p;
	rpmafio_pace_init(&p);
	for (int i = 0; i < 30; i++)
		rpmafio_pace_learn(&p, RPMAFIO_PACE_LATER, 3 * US);
	assert_int_equal(rpmafio_pace_nap_ns(&p), 0);
	assert_int_equal(rpmafio_pace_spin_end_ns(&p, false), RPMAFIO_PACE_SPIN_MIN_NS);
	/* a gap shorter than the least guard cannot underflow */
	rpmafio_pace_learn(&p, RPMAFIO_PACE_LATER, 1);
	assert_true(p.nap_ns < 3 * US);
}

/* timers that end late are set that much earlier; too late for the nap: no timer */
static void late_timers_are_set_earlier(void **state)
{
	(void)state;
	struct rpmafio_pace p = {.nap_ns = 300 * US};
	assert_int_equal(rpmafio_pace_timer_ns(&p), 300 * US);
	for (int i = 0; i < 40; i++)
		rpmafio_pace_timer_took(&p, 100 * US, 220 * US); /* 120 us late, every time */
	assert_in_range(p.late_ns, 119 * US, 120 * US);
	assert_in_range(rpmafio_pace_timer_ns(&p), 180 * US, 181 * US);
	/* one nap preempted for 10 ms moves it a quarter of the way, not all */
	rpmafio_pace_timer_took(&p, 100 * US, 10100 * US);
	assert_true(p.late_ns < 3000 * US);
	/* early or punctual timers bring it back down */
	for (int i = 0; i < 60; i++)
		rpmafio_pace_timer_took(&p, 100 * US, 100 * US);
	assert_true(p.late_ns < 1 * US);
	/* a nap no longer than the lateness (and the least nap): spin instead */
	p = (struct rpmafio_pace){.nap_ns = 100 * US, .late_ns = 96 * US};
	assert_int_equal(rpmafio_pace_timer_ns(&p), 0);
	assert_int_equal(rpmafio_pace_nap_ns(&p), 100 * US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unknown_pace_spins_without_a_nap),
		cmocka_unit_test(steady_gap_is_learned),
		cmocka_unit_test(up_at_once_down_slowly),
		cmocka_unit_test(found_at_wake_shrinks),
		cmocka_unit_test(idle_gap_teaches_nothing),
		cmocka_unit_test(tiny_gaps_just_spin),
		cmocka_unit_test(late_timers_are_set_earlier),
	};
	return cmocka_run_group_tests_name("engine_pace", tests, NULL, NULL);
}
