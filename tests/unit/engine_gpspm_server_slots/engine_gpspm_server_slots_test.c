/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_gpspm_server_slots_test.c -- the GPSPM server's message buffers
 * (engines/gpspm/server_slots.c): creation and its guards, every completion
 * the provider cannot have reported refused (an index out of range, a receive
 * into a buffer whose request waits, a SEND completion for a free buffer),
 * waiting requests taken in arrival order, a send buffer handed out once until
 * its SEND completes, next() false with no request or no free send buffer
 * (waiting() says requests wait), and
 * long seeded runs checked against a reference model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpspm/server_slots.h"

static struct {
	struct gpspm_server_slots *s;	/* the slots under test (teardown deletes them) */
	uint32_t n;			/* their number of buffers */
} T;
#define MAX_SLOTS 64
#define UNTOUCHED ((void *)&untouched) /* where an output must not be written */
static int untouched;

static int teardown(void **state)
{
	gpspm_server_slots_delete(&T.s);
	(void)state;
	return 0;
}

static void make(uint32_t nslots)
{
	T.n = nslots;
	assert_int_equal(gpspm_server_slots_new(T.n, &T.s), 0);
	assert_non_null(T.s);
}

static void received(uint32_t index, uint32_t len, int want)
{
	assert_int_equal(gpspm_server_slots_received(T.s, index, len), want);
}

static void sent(uint32_t index, int want)
{
	assert_int_equal(gpspm_server_slots_sent(T.s, index), want);
}

/* next() is false and leaves its outputs alone */
static void none(void)
{
	uint32_t k = 77, len = 77, out = 77;
	assert_false(gpspm_server_slots_next(T.s, &k, &len, &out));
	assert_int_equal(k, 77);
	assert_int_equal(len, 77);
	assert_int_equal(out, 77);
}

/* next() gives the request in receive buffer k (len bytes); returns its send buffer */
static uint32_t take(uint32_t k, uint32_t len)
{
	uint32_t rk = UINT32_MAX, rlen = UINT32_MAX, out = UINT32_MAX;
	assert_true(gpspm_server_slots_next(T.s, &rk, &rlen, &out));
	assert_int_equal(rk, k);
	assert_int_equal(rlen, len);
	assert_in_range(out, 0, T.n - 1);
	return out;
}

/* new(): each case's result; the out pointer written on success only. delete(): NULLs it */
static void new_and_delete_guards(void **state)
{
	(void)state;
	static const struct {
		uint32_t nslots;
		bool out;	/* an out pointer given */
		int want;
	} cases[] = {{0, true, -1}, {1, false, -1}, {0, false, -1}, {1, true, 0}, {5, true, 0}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gpspm_server_slots *s = UNTOUCHED;
		int ret = gpspm_server_slots_new(cases[i].nslots, cases[i].out ? &s : NULL);
		assert_int_equal(ret, cases[i].want);
		if (ret != 0) {
			assert_ptr_equal(s, UNTOUCHED);
			continue;
		}
		assert_ptr_not_equal(s, UNTOUCHED);
		assert_non_null(s);
		gpspm_server_slots_delete(&s); /* frees and forgets; then a no-op */
		assert_null(s);
		gpspm_server_slots_delete(&s);
		assert_null(s);
	}
	gpspm_server_slots_delete(NULL);
}

/*
 * Each of new()'s five allocations failing in turn (the fake provider's
 * injection, a weak symbol: absent outside make test-unit, and then skipped):
 * -1, the out pointer untouched, nothing leaked (ASan, valgrind).
 */
void fake_malloc_fail(unsigned nth) __attribute__((weak));

static void new_fails_at_each_allocation(void **state)
{
	struct gpspm_server_slots *s = UNTOUCHED;
	unsigned nth = 1;

	(void)state;
	if (!fake_malloc_fail) {
		skip();
		return;
	}
	do {
		fake_malloc_fail(nth);
		assert_int_equal(gpspm_server_slots_new(4, &s), -1);
	} while (s == UNTOUCHED && ++nth <= 5);
	assert_ptr_equal(s, UNTOUCHED);
	make(4); /* each failure was used up */
}

/* a receive completion for a buffer that does not exist changes nothing */
static void received_rejects_index_out_of_range(void **state)
{
	(void)state;
	make(3);
	received(3, 27, -1);
	received(UINT32_MAX, 27, -1);
	none();
	received(2, 27, 0); /* the last buffer is one */
	take(2, 27);
	none();
}

/* a buffer holding a request not taken yet has no receive posted: nothing lands in it */
static void received_rejects_buffer_still_waiting(void **state)
{
	(void)state;
	make(2);
	received(0, 27, 0);
	received(0, 9, -1);
	received(1, 5, 0);
	received(1, 5, -1);
	uint32_t out = take(0, 27); /* the first length stays */
	received(0, 11, 0); /* taken: the server receives into it again */
	received(0, 11, -1);
	take(1, 5);
	none(); /* both send buffers busy */
	sent(out, 0);
	take(0, 11);
	none();
}

/* a SEND completion for a buffer with no response in flight changes nothing */
static void sent_rejects_free_buffer_and_index_out_of_range(void **state)
{
	(void)state;
	make(2);
	sent(0, -1); /* nothing handed out yet */
	sent(1, -1);
	sent(2, -1);
	sent(UINT32_MAX, -1);
	received(1, 27, 0);
	uint32_t out = take(1, 27);
	sent(1 - out, -1); /* the other one is free */
	sent(out + 2, -1);
	sent(out, 0);
	sent(out, -1); /* twice */
	received(0, 27, 0);
	received(1, 27, 0);
	uint32_t a = take(0, 27), b = take(1, 27);
	assert_int_not_equal(a, b); /* the rejected completions freed nothing more */
	none();
}

/* nothing received: next() is false however many send buffers are free */
static void next_false_without_request(void **state)
{
	(void)state;
	make(4);
	none();
	received(3, 27, 0);
	take(3, 27);
	none();
}

/* every send buffer busy: requests wait, in order, until a SEND completes */
static void next_false_without_free_send_buffer(void **state)
{
	(void)state;
	uint32_t out[3];
	make(3);
	for (uint32_t k = 0; k < 3; k++) {
		received(k, k, 0);
		out[k] = take(k, k);
	}
	assert_false(gpspm_server_slots_waiting(T.s));
	for (uint32_t k = 0; k < 3; k++)
		received(k, 10 + k, 0);
	none();
	none(); /* a false next() took nothing */
	assert_true(gpspm_server_slots_waiting(T.s));
	for (uint32_t k = 0; k < 3; k++) {
		sent(out[2 - k], 0);
		assert_int_equal(take(k, 10 + k), out[2 - k]); /* the one buffer free */
		none();
	}
}

/* requests are taken in the order they arrived, not in the order of their buffers */
static void waiting_requests_taken_in_arrival_order(void **state)
{
	(void)state;
	static const uint32_t order[] = {2, 0, 4, 3, 1};
	make(5);
	for (uint32_t i = 0; i < 5; i++)
		received(order[i], 100 + i, 0);
	for (uint32_t i = 0; i < 5; i++)
		sent(take(order[i], 100 + i), 0);
	none();
	/* round the queue again, starting in its middle */
	received(1, 0, 0);
	received(4, UINT32_MAX, 0); /* lengths are kept as reported, whatever they are */
	sent(take(1, 0), 0);
	received(0, 7, 0);
	take(4, UINT32_MAX);
	take(0, 7);
	none();
}

/* nslots requests get nslots different send buffers; then none until one is sent */
static void send_buffers_handed_out_once(void **state)
{
	(void)state;
	enum { n = 8 };
	bool busy[n] = {false};
	make(n);
	for (uint32_t round = 0; round < 3; round++) {
		for (uint32_t k = 0; k < n; k++)
			received(k, k, 0);
		for (uint32_t k = 0; k < n; k++) {
			uint32_t out = take(k, k);
			assert_false(busy[out]);
			busy[out] = true;
		}
		received(0, 1, 0);
		none();
		uint32_t freed = (round * 3) % n;
		sent(freed, 0);
		busy[freed] = false;
		assert_int_equal(take(0, 1), freed);
		busy[freed] = true;
		for (uint32_t k = 0; k < n; k++) {
			sent(k, 0);
			busy[k] = false;
		}
	}
}

/*
 * The reference model: per receive buffer whether its request waits, the
 * waiting requests in arrival order, per send buffer whether its response is
 * in flight. Completions come for any index, in range or not, valid or not;
 * the model says which are refused and what next() gives.
 */
#define SIM_STEPS 200000

static struct {
	bool waiting[MAX_SLOTS];
	bool busy[MAX_SLOTS];
	uint32_t queue[MAX_SLOTS], qlen_of[MAX_SLOTS];	/* buffer, length; in arrival order */
	uint32_t qhead, qlen, nbusy;
	uint64_t taken, refused;
	uint64_t rnd;
} M;

/* splitmix64: the same sequence on every run for a given seed */
static uint32_t rnd(uint32_t n)
{
	uint64_t z = (M.rnd += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (uint32_t)((z ^ (z >> 31)) % n);
}

/* mostly a buffer that exists; now and then one that does not */
static uint32_t sim_index(void)
{
	return rnd(50) ? rnd(T.n) : T.n + rnd(3);
}

static void sim_receive(void)
{
	uint32_t k = sim_index(), len = rnd(600);
	bool ok = k < T.n && !M.waiting[k];
	received(k, len, ok ? 0 : -1);
	if (!ok) {
		M.refused++;
		return;
	}
	M.waiting[k] = true;
	uint32_t at = (M.qhead + M.qlen++) % T.n;
	M.queue[at] = k;
	M.qlen_of[at] = len;
}

static void sim_sent(void)
{
	uint32_t k = sim_index();
	bool ok = k < T.n && M.busy[k];
	sent(k, ok ? 0 : -1);
	if (!ok) {
		M.refused++;
		return;
	}
	M.busy[k] = false;
	M.nbusy--;
}

static void sim_next(void)
{
	assert_int_equal(gpspm_server_slots_waiting(T.s), M.qlen > 0);
	if (M.qlen == 0 || M.nbusy == T.n) {
		none();
		return;
	}
	uint32_t out = take(M.queue[M.qhead], M.qlen_of[M.qhead]);
	assert_false(M.busy[out]); /* never a buffer whose SEND is still in flight */
	M.busy[out] = true;
	M.nbusy++;
	M.waiting[M.queue[M.qhead]] = false;
	M.qhead = (M.qhead + 1) % T.n;
	M.qlen--;
	M.taken++;
}

static void matches_model_over_long_random_runs(void **state)
{
	(void)state;
	static const uint32_t nslots[] = {1, 2, 3, 8, MAX_SLOTS};
	for (size_t c = 0; c < sizeof(nslots) / sizeof(nslots[0]); c++) {
		M = (typeof(M)){.rnd = c};
		make(nslots[c]);
		for (uint32_t step = 0; step < SIM_STEPS; step++) {
			uint32_t r = rnd(100);
			if (r < 40)
				sim_receive();
			else if (r < 70)
				sim_sent();
			else
				sim_next();
		}
		/* every request taken and every response sent; then all is free again */
		while (M.qlen) {
			for (uint32_t k = 0; k < T.n; k++)
				if (M.busy[k])
					sent(k, 0);
			for (uint32_t k = 0; k < T.n; k++)
				M.busy[k] = false;
			M.nbusy = 0;
			while (M.qlen)
				sim_next();
		}
		assert_true(M.taken > SIM_STEPS / 10); /* thousands of times round the buffers */
		assert_true(M.refused > SIM_STEPS / 100);
		none();
		gpspm_server_slots_delete(&T.s);
	}
}

#define TEST(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(new_and_delete_guards),
		TEST(new_fails_at_each_allocation),
		TEST(received_rejects_index_out_of_range),
		TEST(received_rejects_buffer_still_waiting),
		TEST(sent_rejects_free_buffer_and_index_out_of_range),
		TEST(next_false_without_request),
		TEST(next_false_without_free_send_buffer),
		TEST(waiting_requests_taken_in_arrival_order),
		TEST(send_buffers_handed_out_once),
		TEST(matches_model_over_long_random_runs),
	};
	return cmocka_run_group_tests_name("engine_gpspm_server_slots", tests, NULL, NULL);
}
