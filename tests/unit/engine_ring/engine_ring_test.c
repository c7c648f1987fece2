/* SPDX-License-Identifier: BSD-3-Clause */
/* engine_ring_test.c -- the client's ring of posted requests (a batch's flush: engine_ranges) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "client/ring.h"

static void capacity(void **state)
{
	(void)state;
	assert_int_equal(rpmafio_ring_capacity(1), 1);
	assert_int_equal(rpmafio_ring_capacity(2), 2);
	assert_int_equal(rpmafio_ring_capacity(3), 4);
	assert_int_equal(rpmafio_ring_capacity(16), 16);
	assert_int_equal(rpmafio_ring_capacity(17), 32);
	assert_int_equal(rpmafio_ring_capacity(1000), 1024);
}

static int req[64]; /* stand-ins for io_us */

/* a completion for the last of a batch completes the whole batch, in posting order */
static void complete_batches_in_order(void **state)
{
	(void)state;
	void *slot[16];
	struct rpmafio_ring r;
	rpmafio_ring_init(&r, slot, 16);

	for (int i = 0; i < 6; i++)
		rpmafio_ring_push(&r, &req[i]);
	assert_int_equal(rpmafio_ring_inflight(&r), 6);
	assert_int_equal(rpmafio_ring_ready(&r), 0);
	assert_null(rpmafio_ring_pop_ready(&r));

	/* batch 1 = req 0..3, its signalled op carries req[3] */
	assert_int_equal(rpmafio_ring_complete_upto(&r, &req[3]), 4);
	assert_int_equal(rpmafio_ring_ready(&r), 4);
	assert_int_equal(rpmafio_ring_inflight(&r), 2);
	assert_int_equal(rpmafio_ring_used(&r), 6);

	/* reported two at a time (fio's max) */
	assert_ptr_equal(rpmafio_ring_pop_ready(&r), &req[0]);
	assert_ptr_equal(rpmafio_ring_pop_ready(&r), &req[1]);
	assert_int_equal(rpmafio_ring_ready(&r), 2);

	/* batch 2 = req 4..5 */
	assert_int_equal(rpmafio_ring_complete_upto(&r, &req[5]), 2);
	for (int i = 2; i < 6; i++)
		assert_ptr_equal(rpmafio_ring_pop_ready(&r), &req[i]);
	assert_null(rpmafio_ring_pop_ready(&r));
	assert_int_equal(rpmafio_ring_used(&r), 0);
}

/* a completion naming nothing in flight (or an already completed one) changes nothing */
static void complete_unknown(void **state)
{
	(void)state;
	void *slot[4];
	struct rpmafio_ring r;
	rpmafio_ring_init(&r, slot, 4);
	rpmafio_ring_push(&r, &req[0]);
	rpmafio_ring_push(&r, &req[1]);
	assert_int_equal(rpmafio_ring_complete_upto(&r, &req[9]), -1);
	assert_int_equal(rpmafio_ring_inflight(&r), 2);
	assert_int_equal(rpmafio_ring_complete_upto(&r, &req[0]), 1);
	assert_int_equal(rpmafio_ring_complete_upto(&r, &req[0]), -1); /* done already */
	assert_int_equal(rpmafio_ring_inflight(&r), 1);
}

/* a broken connection fails everything in flight at once */
static void complete_all(void **state)
{
	(void)state;
	void *slot[8];
	struct rpmafio_ring r;
	rpmafio_ring_init(&r, slot, 8);
	for (int i = 0; i < 5; i++)
		rpmafio_ring_push(&r, &req[i]);
	assert_int_equal(rpmafio_ring_complete_upto(&r, &req[1]), 2);
	assert_ptr_equal(rpmafio_ring_inflight_at(&r, 0), &req[2]);
	assert_ptr_equal(rpmafio_ring_inflight_at(&r, 2), &req[4]);
	assert_int_equal(rpmafio_ring_complete_all(&r), 3);
	assert_int_equal(rpmafio_ring_inflight(&r), 0);
	assert_int_equal(rpmafio_ring_ready(&r), 5);
	assert_int_equal(rpmafio_ring_complete_all(&r), 0);
}

/* the counters run freely: wrapping around 2^32 is harmless with a power-of-two capacity */
static void counters_wrap(void **state)
{
	(void)state;
	void *slot[4];
	struct rpmafio_ring r;
	rpmafio_ring_init(&r, slot, 4);
	r.head = r.done = r.tail = UINT32_MAX - 1;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++)
			rpmafio_ring_push(&r, &req[round * 4 + i]);
		assert_int_equal(rpmafio_ring_used(&r), 4);
		assert_int_equal(rpmafio_ring_complete_upto(&r, &req[round * 4 + 3]), 4);
		for (int i = 0; i < 4; i++)
			assert_ptr_equal(rpmafio_ring_pop_ready(&r), &req[round * 4 + i]);
	}
	assert_int_equal(rpmafio_ring_used(&r), 0);
}

/* iodepth 1: one slot reused forever */
static void single_slot(void **state)
{
	(void)state;
	void *slot[1];
	struct rpmafio_ring r;
	rpmafio_ring_init(&r, slot, rpmafio_ring_capacity(1));
	for (int i = 0; i < 10; i++) {
		rpmafio_ring_push(&r, &req[i]);
		assert_int_equal(rpmafio_ring_complete_upto(&r, &req[i]), 1);
		assert_ptr_equal(rpmafio_ring_pop_ready(&r), &req[i]);
	}
}

/* every request is one WR, every batch (at least one request) adds at most one flush */
static void queue_sizes(void **state)
{
	(void)state;
	assert_int_equal(rpmafio_sq_size(0), 2);
	assert_int_equal(rpmafio_sq_size(1), 2);
	assert_int_equal(rpmafio_sq_size(16), 32);
	assert_int_equal(rpmafio_sq_size(128), 256);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capacity),
		cmocka_unit_test(complete_batches_in_order),
		cmocka_unit_test(complete_unknown),
		cmocka_unit_test(complete_all),
		cmocka_unit_test(counters_wrap),
		cmocka_unit_test(single_slot),
		cmocka_unit_test(queue_sizes),
	};
	return cmocka_run_group_tests_name("engine_ring", tests, NULL, NULL);
}
