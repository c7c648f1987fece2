/* SPDX-License-Identifier: BSD-3-Clause */
/* engine_ranges_test.c -- the client's list of the byte ranges a batch wrote */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "client/ranges.h"

#define CAP 64
static struct rpmafio_range store[CAP];

static struct rpmafio_ranges fresh(uint32_t cap)
{
	struct rpmafio_ranges rl;
	rpmafio_ranges_init(&rl, store, cap);
	return rl;
}

static void expect(const struct rpmafio_ranges *rl, uint32_t i, uint64_t off, uint64_t len)
{
	assert_true(i < rl->n);
	assert_int_equal(rl->r[i].offset, off);
	assert_int_equal(rl->r[i].len, len);
}

/* random writes: sorted, apart ones stay apart, the sum is the bytes written */
static void apart_stay_apart(void **state)
{
	(void)state;
	struct rpmafio_ranges rl = fresh(CAP);
	assert_int_equal(rpmafio_ranges_add(&rl, 12288, 4096), 0);
	assert_int_equal(rpmafio_ranges_add(&rl, 0, 4096), 0);
	assert_int_equal(rpmafio_ranges_add(&rl, 1 << 20, 4096), 0);
	assert_int_equal(rpmafio_ranges_add(&rl, 65536, 4096), 0);
	rpmafio_ranges_finish(&rl);
	assert_int_equal(rl.n, 4);
	expect(&rl, 0, 0, 4096);
	expect(&rl, 1, 12288, 4096);
	expect(&rl, 2, 65536, 4096);
	expect(&rl, 3, 1 << 20, 4096);
	assert_int_equal(rpmafio_ranges_bytes(&rl), 4 * 4096);
	assert_int_equal(rpmafio_ranges_start(&rl), 0);
	assert_int_equal(rpmafio_ranges_span(&rl), (1 << 20) + 4096);
}

/* a batch of one: the list is that write (a read or an empty write: nothing) */
static void one_write(void **state)
{
	(void)state;
	struct rpmafio_ranges rl = fresh(CAP);
	assert_int_equal(rpmafio_ranges_add(&rl, 0, 4096), 0);
	assert_int_equal(rpmafio_ranges_add(&rl, 1 << 20, 4096), 0);
	rpmafio_ranges_one(&rl, 65536, 8192);
	assert_int_equal(rl.n, 1);
	expect(&rl, 0, 65536, 8192);
	assert_int_equal(rpmafio_ranges_bytes(&rl), 8192);
	assert_int_equal(rpmafio_ranges_span(&rl), 8192);
	rpmafio_ranges_one(&rl, 4096, 0);
	assert_int_equal(rl.n, 0);
	assert_int_equal(rpmafio_ranges_bytes(&rl), 0);
}

/* contiguous and overlapping writes, in any order, become one range */
static void contiguous_and_overlapping_merge(void **state)
{
	(void)state;
	struct rpmafio_ranges rl = fresh(CAP);
	assert_int_equal(rpmafio_ranges_add(&rl, 8192, 4096), 0);
	assert_int_equal(rpmafio_ranges_add(&rl, 0, 4096), 0);
	assert_int_equal(rpmafio_ranges_add(&rl, 4096, 4096), 0);	/* touches both */
	assert_int_equal(rpmafio_ranges_add(&rl, 100, 200), 0);	/* inside */
	assert_int_equal(rpmafio_ranges_add(&rl, 10000, 6000), 0);	/* overlaps the end */
	assert_int_equal(rpmafio_ranges_add(&rl, 20000, 10), 0);	/* apart */
	rpmafio_ranges_finish(&rl);
	assert_int_equal(rl.n, 2);
	expect(&rl, 0, 0, 16000);
	expect(&rl, 1, 20000, 10);
	assert_int_equal(rpmafio_ranges_bytes(&rl), 16010);
}

/* sequential writes merge as they come: one entry whatever the batch's size */
static void sequential_takes_one_entry(void **state)
{
	(void)state;
	struct rpmafio_ranges rl = fresh(1);
	for (uint64_t i = 0; i < 1000; i++)
		assert_int_equal(rpmafio_ranges_add(&rl, i * 512, 512), 0);
	rpmafio_ranges_finish(&rl);
	assert_int_equal(rl.n, 1);
	expect(&rl, 0, 0, 512000);
}

/* zero-length writes add nothing; a full list refuses, keeping what it had */
static void limits(void **state)
{
	(void)state;
	struct rpmafio_ranges rl = fresh(2);
	assert_int_equal(rpmafio_ranges_add(&rl, 0, 0), 0);
	assert_int_equal(rl.n, 0);
	assert_int_equal(rpmafio_ranges_add(&rl, 4096, 1), 0);
	assert_int_equal(rpmafio_ranges_add(&rl, 0, 1), 0);
	assert_int_equal(rpmafio_ranges_add(&rl, 9000, 1), -1);
	assert_int_equal(rl.n, 2);
	/* still merges into the newest when full */
	assert_int_equal(rpmafio_ranges_add(&rl, 1, 7), 0);
	rpmafio_ranges_finish(&rl);
	expect(&rl, 0, 0, 8);
	expect(&rl, 1, 4096, 1);
	/* near the top of the 64-bit space: no wrap in the merge */
	rpmafio_ranges_reset(&rl);
	assert_int_equal(rpmafio_ranges_add(&rl, UINT64_MAX - 8192, 4096), 0);
	assert_int_equal(rpmafio_ranges_add(&rl, UINT64_MAX - 4096, 4096), 0);
	rpmafio_ranges_finish(&rl);
	assert_int_equal(rl.n, 1);
	expect(&rl, 0, UINT64_MAX - 8192, 8192);
}

/*
 * A batch of more ranges than a flush carries: the closest neighbours merge
 * until it fits; the bytes asked for grow by exactly the gaps merged.
 */
static void more_than_one_flush_carries(void **state)
{
	(void)state;
	struct rpmafio_ranges rl = fresh(CAP);
	/* 40 writes of 4 KiB, gap 8 KiB each, but gap 4 KiB after writes 10 and 20 */
	uint64_t at = 0;
	for (unsigned i = 0; i < 40; i++) {
		assert_int_equal(rpmafio_ranges_add(&rl, at, 4096), 0);
		at += 4096 + (i == 10 || i == 20 ? 4096 : 8192);
	}
	rpmafio_ranges_finish(&rl);
	assert_int_equal(rl.n, 40);
	rpmafio_ranges_fit(&rl, 38);
	assert_int_equal(rl.n, 38);
	/* the two 4-KiB gaps were the ones filled */
	assert_int_equal(rpmafio_ranges_bytes(&rl), 40 * 4096 + 2 * 4096);
	expect(&rl, 10, 10 * 12288, 3 * 4096);
	/* down to 30 (GPSPM's request): 8 more merges of 8 KiB gaps */
	rpmafio_ranges_fit(&rl, 30);
	assert_int_equal(rl.n, 30);
	assert_int_equal(rpmafio_ranges_bytes(&rl), 40 * 4096 + 2 * 4096 + 8 * 8192);
	for (uint32_t i = 1; i < rl.n; i++)
		assert_true(rl.r[i].offset > rl.r[i - 1].offset + rl.r[i - 1].len);
	/* one: the span */
	rpmafio_ranges_fit(&rl, 1);
	assert_int_equal(rl.n, 1);
	expect(&rl, 0, 0, at - 8192);
	/* 0 means 1; fitting what fits changes nothing */
	rpmafio_ranges_fit(&rl, 0);
	assert_int_equal(rl.n, 1);
}

/* a large random batch (every shell-sort gap used) ends sorted, merged, all bytes kept */
static void large_random_batch(void **state)
{
	(void)state;
	static struct rpmafio_range big[1024];
	struct rpmafio_ranges rl;
	rpmafio_ranges_init(&rl, big, 1024);
	for (unsigned i = 0; i < 1024; i++) {
		/* a permutation of the 1024 even 4-KiB blocks: none touch */
		uint32_t blk = (i * 661u + 7u) % 1024u;
		assert_int_equal(rpmafio_ranges_add(&rl, (uint64_t)blk * 8192, 4096), 0);
	}
	rpmafio_ranges_finish(&rl);
	assert_int_equal(rl.n, 1024);
	for (uint32_t i = 0; i < rl.n; i++)
		expect(&rl, i, (uint64_t)i * 8192, 4096);
	assert_int_equal(rpmafio_ranges_bytes(&rl), 1024 * 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(apart_stay_apart),
		cmocka_unit_test(one_write),
		cmocka_unit_test(contiguous_and_overlapping_merge),
		cmocka_unit_test(sequential_takes_one_entry),
		cmocka_unit_test(limits),
		cmocka_unit_test(more_than_one_flush_carries),
		cmocka_unit_test(large_random_batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
