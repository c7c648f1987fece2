/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_keepalive_test.c -- when a serving server probes its client: only
 * after `interval` ms without a word, one probe at a time, a word (or the
 * probe's answer) starting the silence over, an unanswered probe given up
 * after `give_up` ms (5 s, or the interval if longer), and never with
 * interval 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/keepalive.h"

#define WAIT RPMAFIO_KEEPALIVE_WAIT
#define PROBE RPMAFIO_KEEPALIVE_PROBE
#define UNANSWERED RPMAFIO_KEEPALIVE_UNANSWERED

static void probes_after_the_interval_of_silence(void **state)
{
	(void)state;
	struct rpmafio_keepalive k;
	rpmafio_keepalive_init(&k, 1000, 30000, 5000);
	assert_int_equal(rpmafio_keepalive_tick(&k, 5000), WAIT);
	assert_int_equal(rpmafio_keepalive_tick(&k, 5999), WAIT);
	assert_int_equal(rpmafio_keepalive_tick(&k, 6000), PROBE);
	/* asked again before posting: still a probe to post */
	assert_int_equal(rpmafio_keepalive_tick(&k, 6001), PROBE);
}

static void a_word_starts_the_silence_over(void **state)
{
	(void)state;
	struct rpmafio_keepalive k;
	rpmafio_keepalive_init(&k, 1000, 30000, 0);
	rpmafio_keepalive_heard(&k);
	/* the word is dated by the tick that sees it */
	assert_int_equal(rpmafio_keepalive_tick(&k, 900), WAIT);
	assert_int_equal(rpmafio_keepalive_tick(&k, 1899), WAIT);
	assert_int_equal(rpmafio_keepalive_tick(&k, 1900), PROBE);
}

static void one_probe_at_a_time(void **state)
{
	(void)state;
	struct rpmafio_keepalive k;
	rpmafio_keepalive_init(&k, 1000, 30000, 0);
	assert_int_equal(rpmafio_keepalive_tick(&k, 1000), PROBE);
	rpmafio_keepalive_probed(&k, 1000);
	/* the client's other completions do not answer the probe */
	rpmafio_keepalive_heard(&k);
	assert_int_equal(rpmafio_keepalive_tick(&k, 2500), WAIT);
	assert_int_equal(rpmafio_keepalive_tick(&k, 30999), WAIT);
	assert_int_equal(rpmafio_keepalive_tick(&k, 31000), UNANSWERED);
}

static void an_answer_starts_the_silence_over(void **state)
{
	(void)state;
	struct rpmafio_keepalive k;
	rpmafio_keepalive_init(&k, 1000, 30000, 0);
	assert_int_equal(rpmafio_keepalive_tick(&k, 1000), PROBE);
	rpmafio_keepalive_probed(&k, 1000);
	rpmafio_keepalive_answered(&k);
	assert_int_equal(rpmafio_keepalive_tick(&k, 1010), WAIT);
	assert_int_equal(rpmafio_keepalive_tick(&k, 2009), WAIT);
	assert_int_equal(rpmafio_keepalive_tick(&k, 2010), PROBE);
	rpmafio_keepalive_probed(&k, 2010);
	/* a second probe is given up on from its own sending */
	assert_int_equal(rpmafio_keepalive_tick(&k, 32009), WAIT);
	assert_int_equal(rpmafio_keepalive_tick(&k, 32010), UNANSWERED);
}

static void interval_zero_never_probes(void **state)
{
	(void)state;
	struct rpmafio_keepalive k;
	rpmafio_keepalive_init(&k, 0, 30000, 0);
	assert_int_equal(rpmafio_keepalive_tick(&k, 0), WAIT);
	assert_int_equal(rpmafio_keepalive_tick(&k, UINT64_C(1) << 40), WAIT);
}

/* a probe waits 5 s for its answer, or one interval when that is longer */
static void give_up_after_5_s_or_the_interval(void **state)
{
	(void)state;
	assert_int_equal(rpmafio_keepalive_give_up(1000), 5000);
	assert_int_equal(rpmafio_keepalive_give_up(5000), 5000);
	assert_int_equal(rpmafio_keepalive_give_up(60000), 60000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(probes_after_the_interval_of_silence),
		cmocka_unit_test(a_word_starts_the_silence_over),
		cmocka_unit_test(one_probe_at_a_time),
		cmocka_unit_test(an_answer_starts_the_silence_over),
		cmocka_unit_test(interval_zero_never_probes),
		cmocka_unit_test(give_up_after_5_s_or_the_interval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
