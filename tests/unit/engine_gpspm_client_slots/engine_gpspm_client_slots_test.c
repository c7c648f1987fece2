/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_gpspm_client_slots_test.c -- the GPSPM client's flush requests in flight
 * (engines/gpspm/client_slots.c): creation and its guards, slots and sequence numbers
 * handed out, a flush completing on its SEND and its response in either order,
 * in-order retirement, every event the protocol rules out, reads held behind
 * unanswered flushes posted before them and flushes behind reads posted before
 * them, whatever order the completions come in (iWARP's), and long seeded runs
 * checked against a reference model.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpspm/client_slots.h"

static struct gpspm_slots *S; /* the slots under test; teardown deletes them */
static uint32_t N;	/* their number of slots */
#define NB 8		/* batches without a flush in flight at most */
static int reqs[32];	/* stand-ins for io_us */
static int untouched;	/* what *last holds while nothing completes */
#define REQ(i) ((void *)&reqs[i])
#define UNTOUCHED ((void *)&untouched)

static void make(uint32_t nslots)
{
	assert_int_equal(gpspm_slots_new(nslots, NB, &S), 0);
	assert_non_null(S);
	N = nslots;
}

static int teardown(void **state)
{
	(void)state;
	gpspm_slots_delete(&S);
	return 0;
}

/* the next flush gets slot index and sequence number seq; then it is posted */
static void post(uint32_t index, uint64_t seq, void *last)
{
	uint32_t i = UINT32_MAX;
	uint64_t q = UINT64_MAX;
	assert_int_equal(gpspm_slots_next(S, &i, &q), 0);
	assert_int_equal(i, index);
	assert_int_equal(q, seq);
	gpspm_slots_push(S, last);
}

/* flush n (slot n % N), ending the batch whose last request is REQ(n) */
static void flush(uint64_t n)
{
	post((uint32_t)(n % N), n, REQ(n));
}

/* every slot is in use: next() fails and leaves its outputs alone */
static void full(void)
{
	uint32_t i = 77;
	uint64_t q = 77;
	assert_int_equal(gpspm_slots_next(S, &i, &q), -1);
	assert_int_equal(i, 77);
	assert_int_equal(q, 77);
}

/* the flushes in flight are [head, tail) */
static void in_flight(uint64_t head, uint64_t tail)
{
	uint64_t h = UINT64_MAX, t = UINT64_MAX;
	gpspm_slots_range(S, &h, &t);
	assert_int_equal(h, head);
	assert_int_equal(t, tail);
}

/* what an event completes */
#define DONE RPMAFIO_COMPLETES_IO
#define NOTHING RPMAFIO_COMPLETES_NOTHING
#define UNKNOWN RPMAFIO_COMPLETES_UNKNOWN

/* an event returned want; *last is want_last when it completes a request, untouched otherwise */
static void expect(enum rpmafio_completion ret, void *const *last, enum rpmafio_completion want,
		void *want_last)
{
	assert_int_equal(ret, want);
	assert_ptr_equal(*last, want == DONE ? want_last : UNTOUCHED);
}

static void ev_sent(uint32_t index, enum rpmafio_completion want, void *want_last)
{
	void *last = UNTOUCHED;
	expect(gpspm_slots_sent(S, index, &last), &last, want, want_last);
}

static void ev_answered(uint64_t seq, enum rpmafio_completion want, void *want_last)
{
	void *last = UNTOUCHED;
	expect(gpspm_slots_answered(S, seq, &last), &last, want, want_last);
}

/* a batch without a flush, ending in io, posted */
static void read(void *io)
{
	assert_int_equal(gpspm_slots_push_signalled(S, io), 0);
}

static void ev_io(void *io, enum rpmafio_completion want, void *want_last)
{
	void *last = UNTOUCHED;
	expect(gpspm_slots_io_done(S, io, &last), &last, want, want_last);
}

/* flush n posted and its SEND completed, completing nothing */
static void flush_sent(uint64_t n)
{
	flush(n);
	ev_sent((uint32_t)(n % N), NOTHING, NULL);
}

/* new() rejects 0 slots and a NULL out pointer; delete() NULLs it, and takes NULL */
static void new_and_delete_guards(void **state)
{
	(void)state;
	struct gpspm_slots *s = UNTOUCHED;
	assert_int_equal(gpspm_slots_new(0, 1, &s), -1);
	assert_int_equal(gpspm_slots_new(1, 0, &s), -1);
	assert_int_equal(gpspm_slots_new(UINT32_MAX, 1, &s), -1);
	assert_ptr_equal(s, UNTOUCHED);
	assert_int_equal(gpspm_slots_new(1, 1, NULL), -1);
	assert_int_equal(gpspm_slots_new(0, 1, NULL), -1);
	s = NULL;
	gpspm_slots_delete(NULL);
	gpspm_slots_delete(&s);
	assert_null(s);
	assert_int_equal(gpspm_slots_new(3, 2, &s), 0);
	assert_non_null(s);
	gpspm_slots_delete(&s); /* frees and forgets */
	assert_null(s);
	gpspm_slots_delete(&s);
	assert_null(s);
}

/* the fake provider's allocation failures: linked in by make test-unit, else skipped */
void fake_malloc_fail(unsigned nth) __attribute__((weak));

static void new_fails_without_memory(void **state)
{
	(void)state;
	if (fake_malloc_fail == NULL)
		skip();
	struct gpspm_slots *s = UNTOUCHED;
	for (unsigned nth = 1; nth <= 2; nth++) { /* the FIFO, the flushes' index */
		fake_malloc_fail(nth);
		assert_int_equal(gpspm_slots_new(4, 4, &s), -1);
		assert_ptr_equal(s, UNTOUCHED);
	}
}

/* slot = seq % nslots, seq counting up from 0, one flush after the other */
static void next_wraps_slots_and_counts_seq(void **state)
{
	(void)state;
	make(3);
	for (uint32_t n = 0; n < 10; n++) {
		flush(n);
		in_flight(n, n + 1);
		ev_sent(n % 3, NOTHING, NULL);
		ev_answered(n, DONE, REQ(n));
		in_flight(n + 1, n + 1);
	}
}

/* nslots flushes in flight fill every slot until the oldest completes */
static void next_fails_until_head_flush_completes(void **state)
{
	(void)state;
	make(2);
	flush(0);
	flush(1);
	full();
	ev_answered(1, NOTHING, NULL); /* not the oldest: frees nothing */
	full();
	ev_sent(0, NOTHING, NULL); /* the oldest sent, still unanswered */
	full();
	ev_answered(0, DONE, REQ(0)); /* flush 1 answered but not sent: only flush 0 */
	in_flight(1, 2);
	flush(2);
	full();
	ev_sent(1, DONE, REQ(1));
	flush(3);
	in_flight(2, 4);
}

/* SEND then response (flush 0), response then SEND (flush 1): either order completes */
static void flush_completes_on_send_and_response_in_either_order(void **state)
{
	(void)state;
	make(4);
	flush_sent(0);
	in_flight(0, 1);
	ev_answered(0, DONE, REQ(0));
	in_flight(1, 1);
	flush(1);
	ev_answered(1, NOTHING, NULL);
	in_flight(1, 2);
	ev_sent(1, DONE, REQ(1));
}

/* later flushes answered first wait for the earliest; then one event completes them all */
static void late_answer_holds_back_later_flushes(void **state)
{
	(void)state;
	make(4);
	for (uint32_t n = 0; n < 3; n++)
		flush_sent(n);
	ev_answered(2, NOTHING, NULL);
	ev_answered(1, NOTHING, NULL);
	in_flight(0, 3);
	ev_answered(0, DONE, REQ(2)); /* all three, the newest batch's last request */
	in_flight(3, 3);
}

static void sent_rejects_out_of_order_and_excess(void **state)
{
	(void)state;
	make(4);
	ev_sent(0, UNKNOWN, NULL); /* nothing in flight (0 is the slot the next one gets) */
	flush(0);
	flush(1);
	ev_sent(1, UNKNOWN, NULL); /* not the oldest unsent */
	ev_sent(4, UNKNOWN, NULL); /* no such slot, though 4 % nslots is the expected one */
	ev_sent(UINT32_MAX, UNKNOWN, NULL);
	ev_sent(0, NOTHING, NULL);
	ev_sent(0, UNKNOWN, NULL); /* twice */
	ev_sent(1, NOTHING, NULL);
	ev_sent(2, UNKNOWN, NULL); /* every flush sent already (2 is the slot the next one gets) */
	in_flight(0, 2);
	ev_answered(0, DONE, REQ(0)); /* the rejected events changed nothing */
	ev_answered(1, DONE, REQ(1));
}

static void answered_rejects_flushes_not_in_flight(void **state)
{
	(void)state;
	make(2);
	ev_answered(0, UNKNOWN, NULL); /* nothing in flight */
	flush(0);
	flush(1);
	ev_answered(2, UNKNOWN, NULL); /* never posted: seq >= tail */
	ev_answered(UINT64_MAX, UNKNOWN, NULL);
	ev_answered(0, NOTHING, NULL);
	ev_answered(0, UNKNOWN, NULL); /* twice */
	ev_sent(0, DONE, REQ(0));
	ev_answered(0, UNKNOWN, NULL); /* complete already: below head */
	flush(2); /* seq 2 in slot 0 */
	ev_answered(0, UNKNOWN, NULL); /* the old seq of a slot reused by a newer one in flight */
	ev_answered(4, UNKNOWN, NULL); /* seq 2 + nslots: the same slot, not posted */
	ev_sent(1, NOTHING, NULL);
	ev_answered(1, DONE, REQ(1));
	ev_sent(0, NOTHING, NULL); /* seq 2: none of the stray answers counted for it */
	ev_answered(2, DONE, REQ(2));
	in_flight(3, 3);
}

/* no flush posted before it: a read completes with its own completion */
static void read_completes_at_once_when_no_flush_before_it(void **state)
{
	(void)state;
	make(4);
	ev_io(NULL, UNKNOWN, NULL); /* no read */
	ev_io(REQ(10), UNKNOWN, NULL); /* never posted */
	read(REQ(10));
	ev_io(REQ(10), DONE, REQ(10));
	ev_io(REQ(10), UNKNOWN, NULL); /* twice */
	read(REQ(11));
	flush(0); /* posted after read 11: does not hold it */
	ev_io(REQ(11), DONE, REQ(11));
	ev_sent(0, NOTHING, NULL);
	ev_answered(0, DONE, REQ(0));
	in_flight(1, 1);
}

/* a read posted after flushes waits for them, whichever completion comes first */
static void read_held_until_flushes_before_it_complete(void **state)
{
	(void)state;
	make(4);
	flush(0);
	flush(1);
	read(REQ(10));
	ev_io(REQ(10), NOTHING, NULL); /* before even the SENDs (iWARP) */
	ev_io(NULL, UNKNOWN, NULL); /* no read: the one held stays held */
	ev_sent(0, NOTHING, NULL);
	ev_answered(0, DONE, REQ(0)); /* one of the two before it */
	ev_answered(1, NOTHING, NULL);
	ev_sent(1, DONE, REQ(10)); /* flush 1 complete: the read came after it */
	assert_true(gpspm_slots_idle(S));
}

/* a flush waits for the reads posted before it, even sent and answered (iWARP) */
static void flush_waits_for_reads_posted_before_it(void **state)
{
	(void)state;
	make(4);
	read(REQ(10));
	read(REQ(11));
	flush(0);
	ev_sent(0, NOTHING, NULL);
	ev_answered(0, NOTHING, NULL); /* complete, but reads 10 and 11 are not */
	in_flight(0, 1);
	ev_io(REQ(11), NOTHING, NULL); /* the later read first: read 10 still missing */
	ev_io(REQ(10), DONE, REQ(0)); /* reads 10, 11 and flush 0: the flush is the newest */
	in_flight(1, 1);
	assert_true(gpspm_slots_idle(S));
}

/* the batches complete in posting order; one event may complete several */
static void mixed_batches_complete_in_posting_order(void **state)
{
	(void)state;
	make(4);
	flush(0);
	read(REQ(10));
	flush(1);
	read(REQ(11));
	ev_io(REQ(11), NOTHING, NULL);
	ev_sent(0, NOTHING, NULL);
	ev_sent(1, NOTHING, NULL);
	ev_answered(1, NOTHING, NULL);
	ev_io(REQ(10), NOTHING, NULL); /* flush 0 unanswered holds everything */
	ev_answered(0, DONE, REQ(11)); /* all four: read 11 is the newest */
	assert_true(gpspm_slots_idle(S));
}

/* no more batches without a flush than it was made for; a full FIFO still works */
static void push_signalled_refuses_more_than_nbatches(void **state)
{
	(void)state;
	make(2);
	assert_int_equal(gpspm_slots_push_signalled(S, NULL), -1);
	for (int i = 0; i < NB; i++)
		read(REQ(i));
	flush(0);
	flush(1);
	assert_int_equal(gpspm_slots_push_signalled(S, REQ(30)), -1);
	full();
	for (int i = NB - 1; i > 0; i--)
		ev_io(REQ(i), NOTHING, NULL);
	ev_io(REQ(0), DONE, REQ(NB - 1));
	read(REQ(30)); /* room again */
	ev_sent(0, NOTHING, NULL);
	ev_sent(1, NOTHING, NULL);
	ev_answered(0, DONE, REQ(0));
	ev_answered(1, DONE, REQ(1));
	ev_io(REQ(30), DONE, REQ(30));
}

/*
 * The reference model: every batch (ending in a flush, or a read batch) in
 * posting order. The SENDs of the flushes complete in order among themselves;
 * the reads' completions and the responses come in any order. A batch is done
 * once a flush is sent and answered, or a read reported; an event completes
 * what it adds to the done prefix of the batches, and *last is the newest.
 */
#define SIM_OPS 8192
#define SIM_FLUSHES 3000

struct op {
	bool flush;
	bool reported;	/* a flush's SEND, or a read's own completion */
	bool answered;	/* a flush: its response arrived */
	uint64_t seq;	/* a flush: its sequence number */
};

static struct {
	struct op op[SIM_OPS];
	size_t at[SIM_OPS];	/* a flush's op by sequence number */
	size_t posted, done;	/* ops posted, complete (a prefix) */
	uint64_t flushes, sent, retired;	/* flushes posted, sent, retired */
	uint32_t reads;		/* reads in flight */
	uint64_t rnd;
} M;

static uint32_t rnd(uint32_t n)
{
	M.rnd ^= M.rnd << 13;
	M.rnd ^= M.rnd >> 7;
	M.rnd ^= M.rnd << 17;
	return (uint32_t)(M.rnd % n);
}

/* the newest op the last event completed, or NULL */
static void *model_advance(void)
{
	size_t from = M.done;
	while (M.done < M.posted) {
		const struct op *o = &M.op[M.done];
		if (!o->reported || (o->flush && !o->answered))
			break;
		if (o->flush)
			M.retired++;
		else
			M.reads--;
		M.done++;
	}
	return M.done > from ? &M.op[M.done - 1] : NULL;
}

/* a valid event returned ret with *last: the model's answer */
static void sim_check(enum rpmafio_completion ret, void *const *last)
{
	void *want = model_advance();
	expect(ret, last, want ? DONE : NOTHING, want);
	in_flight(M.retired, M.flushes);
	assert_int_equal(gpspm_slots_idle(S), M.done == M.posted);
}

static void sim_post(bool is_flush)
{
	struct op *o = &M.op[M.posted];
	*o = (struct op){.flush = is_flush, .seq = M.flushes};
	if (is_flush) {
		if (M.flushes - M.retired == N) {
			full();
			return;
		}
		post((uint32_t)(M.flushes % N), M.flushes, o);
		M.at[M.flushes++] = M.posted;
	} else {
		if (M.reads == NB) {
			assert_int_equal(gpspm_slots_push_signalled(S, o), -1);
			return;
		}
		read(o);
		M.reads++;
	}
	M.posted++;
}

/* the next flush's SEND, or any read in flight, completes */
static void sim_report(void)
{
	void *last = UNTOUCHED;
	size_t unreported[SIM_OPS], n = 0;
	for (size_t i = M.done; i < M.posted; i++)
		if (!M.op[i].flush && !M.op[i].reported)
			unreported[n++] = i;
	if (M.sent < M.flushes && (n == 0 || rnd(2))) {
		struct op *f = &M.op[M.at[M.sent++]];
		f->reported = true;
		enum rpmafio_completion ret = gpspm_slots_sent(S, (uint32_t)(f->seq % N), &last);
		sim_check(ret, &last);
	} else if (n) {
		struct op *r = &M.op[unreported[rnd((uint32_t)n)]];
		r->reported = true;
		enum rpmafio_completion ret = gpspm_slots_io_done(S, r, &last);
		sim_check(ret, &last);
	}
}

static void sim_answer(void)
{
	void *last = UNTOUCHED;
	if (M.retired == M.flushes)
		return;
	uint64_t seq = M.retired + rnd((uint32_t)(M.flushes - M.retired));
	struct op *o = &M.op[M.at[seq]];
	enum rpmafio_completion ret = gpspm_slots_answered(S, seq, &last);
	if (o->answered) {
		expect(ret, &last, UNKNOWN, NULL); /* a duplicate */
		return;
	}
	o->answered = true;
	sim_check(ret, &last);
}

/* an event the protocol rules out: rejected, and nothing changes */
static void sim_invalid(void)
{
	uint32_t expected = (uint32_t)(M.sent % N);
	switch (rnd(3)) {
	case 0: /* a SEND out of order (index != expected), or with every flush sent */
		ev_sent(expected + 1 + rnd(N), UNKNOWN, NULL);
		if (M.sent == M.flushes)
			ev_sent(expected, UNKNOWN, NULL);
		break;
	case 1: /* an answer to a flush complete already, or never posted */
		ev_answered(M.retired ? rnd((uint32_t)M.retired) : M.flushes, UNKNOWN, NULL);
		ev_answered(M.flushes + rnd(3), UNKNOWN, NULL);
		break;
	default: /* no read, or one complete already */
		ev_io(NULL, UNKNOWN, NULL);
		if (M.done)
			ev_io(&M.op[rnd((uint32_t)M.done)], UNKNOWN, NULL);
	}
}

static void sim_step(bool posting)
{
	uint32_t r = rnd(100);
	if (r < 25 && posting)
		sim_post(true);
	else if (r < 35 && posting)
		sim_post(false);
	else if (r < 65)
		sim_report();
	else if (r < 95)
		sim_answer();
	else
		sim_invalid();
}

static void matches_model_over_long_random_runs(void **state)
{
	(void)state;
	static const uint32_t nslots[] = {1, 2, 3, 8};
	for (size_t k = 0; k < sizeof(nslots) / sizeof(nslots[0]); k++) {
		M.posted = M.done = 0;
		M.flushes = M.sent = M.retired = 0;
		M.reads = 0;
		M.rnd = 0x9e3779b97f4a7c15ULL + k;
		make(nslots[k]);
		while (M.flushes < SIM_FLUSHES && M.posted < SIM_OPS)
			sim_step(true);
		while (M.done < M.posted)
			sim_step(false);
		assert_int_equal(M.flushes, SIM_FLUSHES); /* thousands of times round the slots */
		in_flight(SIM_FLUSHES, SIM_FLUSHES);
		read(REQ(0));
		ev_io(REQ(0), DONE, REQ(0));
		gpspm_slots_delete(&S);
	}
}

#define TEST(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(new_and_delete_guards),
		TEST(new_fails_without_memory),
		TEST(next_wraps_slots_and_counts_seq),
		TEST(next_fails_until_head_flush_completes),
		TEST(flush_completes_on_send_and_response_in_either_order),
		TEST(late_answer_holds_back_later_flushes),
		TEST(sent_rejects_out_of_order_and_excess),
		TEST(answered_rejects_flushes_not_in_flight),
		TEST(read_completes_at_once_when_no_flush_before_it),
		TEST(read_held_until_flushes_before_it_complete),
		TEST(flush_waits_for_reads_posted_before_it),
		TEST(mixed_batches_complete_in_posting_order),
		TEST(push_signalled_refuses_more_than_nbatches),
		TEST(matches_model_over_long_random_runs),
	};
	return cmocka_run_group_tests_name("engine_gpspm_client_slots", tests, NULL, NULL);
}
