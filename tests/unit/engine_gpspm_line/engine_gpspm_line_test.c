/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_gpspm_line_test.c -- the GPSPM hub's line of clients waiting for a
 * turn (engines/gpspm/line.c): creation and its guards, clients taken in the
 * order they joined, a client in line only once (joining again keeps its
 * place), one taken out joining at the back, a number out of range refused,
 * next() false on an empty line without touching its output, and long seeded
 * runs checked against a reference model (a queue scanned for membership).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "gpspm/line.h"

static struct gpspm_line *L;

static int teardown(void **state)
{
	gpspm_line_delete(&L);
	assert_null(L);
	(void)state;
	return 0;
}

static void make(unsigned n)
{
	assert_int_equal(gpspm_line_new(n, &L), 0);
	assert_non_null(L);
	assert_int_equal(gpspm_line_len(L), 0);
}

static void join(unsigned k)
{
	assert_int_equal(gpspm_line_join(L, k), 0);
}

static void next_is(unsigned want)
{
	unsigned k = 999;
	assert_true(gpspm_line_next(L, &k));
	assert_int_equal(k, want);
}

static void empty(void)
{
	unsigned k = 999;
	assert_false(gpspm_line_next(L, &k));
	assert_int_equal(k, 999);
	assert_int_equal(gpspm_line_len(L), 0);
}

static void new_refuses_nothing_and_no_place(void **state)
{
	struct gpspm_line *l = NULL;
	assert_int_equal(gpspm_line_new(0, &l), -1);
	assert_null(l);
	assert_int_equal(gpspm_line_new(4, NULL), -1);
	gpspm_line_delete(NULL);
	gpspm_line_delete(&l); /* (NULL: nothing) */
	(void)state;
}

static void taken_in_the_order_they_joined(void **state)
{
	make(4);
	join(2);
	join(0);
	join(3);
	assert_int_equal(gpspm_line_len(L), 3);
	next_is(2);
	next_is(0);
	next_is(3);
	empty();
	(void)state;
}

static void joining_again_keeps_the_place(void **state)
{
	make(3);
	join(1);
	join(2);
	join(1);
	join(1);
	assert_int_equal(gpspm_line_len(L), 2);
	next_is(1);
	next_is(2);
	empty();
	(void)state;
}

static void one_taken_out_joins_at_the_back(void **state)
{
	make(3);
	join(0);
	join(1);
	join(2);
	next_is(0);
	join(0); /* (requests left after its turn) */
	next_is(1);
	next_is(2);
	next_is(0);
	empty();
	(void)state;
}

static void every_client_at_once_and_around_again(void **state)
{
	make(5);
	for (unsigned round = 0; round < 7; round++) {
		for (unsigned k = 0; k < 5; k++)
			join((k + round) % 5);
		assert_int_equal(gpspm_line_len(L), 5);
		for (unsigned k = 0; k < 5; k++)
			next_is((k + round) % 5);
		empty();
	}
	(void)state;
}

static void a_number_out_of_range_refused(void **state)
{
	make(2);
	assert_int_equal(gpspm_line_join(L, 2), -1);
	assert_int_equal(gpspm_line_join(L, (unsigned)-1), -1);
	empty();
	join(1);
	assert_int_equal(gpspm_line_join(L, 5), -1);
	next_is(1);
	empty();
	(void)state;
}

static void one_client(void **state)
{
	make(1);
	join(0);
	join(0);
	next_is(0);
	empty();
	join(0);
	next_is(0);
	(void)state;
}

/* seeded random joins and nexts against a plain queue of the same clients */
static void matches_a_model(void **state)
{
	enum { N = 9, STEPS = 20000 };
	unsigned model[N], len = 0;

	make(N);
	srand(4711);
	for (unsigned step = 0; step < STEPS; step++) {
		if (rand() % 3) {
			unsigned k = (unsigned)rand() % N;
			bool in = false;
			for (unsigned i = 0; i < len; i++)
				in = in || model[i] == k;
			if (!in)
				model[len++] = k;
			join(k);
		} else if (len == 0) {
			empty();
		} else {
			next_is(model[0]);
			for (unsigned i = 1; i < len; i++)
				model[i - 1] = model[i];
			len--;
		}
		assert_int_equal(gpspm_line_len(L), len);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_refuses_nothing_and_no_place),
		cmocka_unit_test_teardown(taken_in_the_order_they_joined, teardown),
		cmocka_unit_test_teardown(joining_again_keeps_the_place, teardown),
		cmocka_unit_test_teardown(one_taken_out_joins_at_the_back, teardown),
		cmocka_unit_test_teardown(every_client_at_once_and_around_again, teardown),
		cmocka_unit_test_teardown(a_number_out_of_range_refused, teardown),
		cmocka_unit_test_teardown(one_client, teardown),
		cmocka_unit_test_teardown(matches_a_model, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
