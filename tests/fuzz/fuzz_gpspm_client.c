/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_gpspm_client.c -- libFuzzer target: the GPSPM client's flush slots
 * (engines/gpspm/client_slots.c) driven by a program of events, checked against a
 * reference model of the protocol.
 *
 * The input: one byte picks nslots (1..16); then operations, an opcode byte
 * each (mod 7), some followed by operands:
 *
 *   0 flush    next() + push(): the flush ending the next batch
 *   1 read     a read batch posted (the slots hear of it when it completes)
 *   2 sent     index: the SEND of a flush completed, for a fuzzed slot index
 *   3 io done  the next read in the send queue completed (else io_done(NULL))
 *   4 answer   choice: the response to a flush in flight, one answered
 *              already or one never posted, encoded and decoded again
 *   5 raw      length, bytes: a response as received, decoded like the
 *              engine's answered(); a decoded op_context is answered
 *   6 null     io_done(NULL)
 *
 * The send queue completes in posting order: a SEND completion for the
 * expected slot comes only when no read posted before its flush is still
 * unreported (the slots cannot tell such an impossible event from a real one).
 * At the end every SEND and read completes and every flush is answered.
 *
 * Checked after every event: the result is -1 exactly for events the protocol
 * rules out (SEND out of turn or with every SEND done, an answer to a flush
 * not in flight or answered already, no read), and then nothing changed; a
 * request named complete is newer than every one named before (none is named
 * twice) and it and every request before it are complete; a complete request
 * not named yet is a read covered by a newer read still waiting; the range in
 * flight and idle() agree with the model; at the end everything is complete.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_prog.h"
#include "gpspm/msg.h"
#include "gpspm/client_slots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS 2048

struct op {
	bool flush;
	bool reported;	/* the send queue reported it: a flush's SEND, a read's own completion */
	bool answered;	/* a flush: its response arrived */
	uint64_t seq;	/* a flush: its sequence number; a read: the flushes posted before it */
};

static struct model {
	struct gpspm_slots *s;
	uint32_t nslots;
	size_t posted;		/* ops posted */
	size_t sq;		/* ops the send queue reported: a prefix */
	size_t done;		/* ops complete: a prefix */
	size_t named;		/* ops up to the newest named complete (0: none yet) */
	uint64_t tail;		/* flushes posted */
	uint64_t head;		/* flushes retired: sent and answered, in order */
	size_t newest_read;	/* the newest read reported, + 1 (0: none) */
	/* written as ops are posted: not cleared for each input */
	struct op op[MAX_OPS];
	size_t at[MAX_OPS];	/* a flush's op by sequence number */
} M;

static int untouched;
#define UNTOUCHED ((void *)&untouched)

/* the range in flight and idle() are the model's */
static void check_range(void)
{
	uint64_t h = 1, t = 0;
	gpspm_slots_range(M.s, &h, &t);
	assert(h == M.head && t == M.tail);
	assert(gpspm_slots_idle(M.s) == (M.head == M.tail));
}

/* op o is complete: a flush retired; a read reported, every flush before it retired */
static bool complete(const struct op *o)
{
	return o->flush ? o->seq < M.head : o->reported && o->seq <= M.head;
}

/* the complete prefixes, after an event the model has applied */
static void model_advance(void)
{
	for (; M.head < M.tail; M.head++) {
		const struct op *f = &M.op[M.at[M.head]];
		if (!(f->reported && f->answered))
			break;
	}
	while (M.done < M.posted && complete(&M.op[M.done]))
		M.done++;
}

/*
 * A valid event returned ret with *last: it named (RPMAFIO_COMPLETES_IO) a request newer
 * than every one before, complete with all before it; what is complete and
 * not named is a read covered by a newer read not complete yet.
 */
static void check_valid(enum rpmafio_completion ret, const void *last)
{
	model_advance();
	assert(ret == RPMAFIO_COMPLETES_NOTHING || ret == RPMAFIO_COMPLETES_IO);
	if (ret == RPMAFIO_COMPLETES_IO) {
		assert(last >= (const void *)&M.op[0] && last < (const void *)&M.op[M.posted]);
		size_t pos = (size_t)((const struct op *)last - M.op);
		assert(last == &M.op[pos]);
		assert(pos + 1 > M.named);	/* never named twice, never backwards */
		assert(pos < M.done);		/* complete, with all before it */
		M.named = pos + 1;
	} else {
		assert(last == UNTOUCHED);
	}
	for (size_t i = M.named; i < M.done; i++)
		assert(!M.op[i].flush && M.newest_read > M.done);
	check_range();
}

/* an event the protocol rules out: UNKNOWN, nothing written, nothing changed */
static void check_invalid(enum rpmafio_completion ret, const void *last)
{
	assert(ret == RPMAFIO_COMPLETES_UNKNOWN);
	assert(last == UNTOUCHED);
	check_range();
}

static void op_flush(void)
{
	uint32_t k = 77;
	uint64_t seq = 77;
	int ret = gpspm_slots_next(M.s, &k, &seq);
	if (M.tail - M.head == M.nslots) {
		assert(ret == -1 && k == 77 && seq == 77);
		return;
	}
	assert(ret == 0 && k == M.tail % M.nslots && seq == M.tail);
	M.op[M.posted] = (struct op){.flush = true, .seq = M.tail};
	gpspm_slots_push(M.s, &M.op[M.posted]);
	M.at[M.tail++] = M.posted++;
	check_range();
}

static void op_read(void)
{
	M.op[M.posted++] = (struct op){.flush = false, .seq = M.tail};
}

/* the next flush whose SEND has not completed, or NULL */
static struct op *unsent_flush(void)
{
	for (size_t i = M.sq; i < M.posted; i++)
		if (M.op[i].flush)
			return &M.op[i];
	return NULL;
}

static void op_sent(struct prog *g)
{
	struct op *f = unsent_flush();
	uint32_t want = (uint32_t)((f ? f->seq : M.tail) % M.nslots);
	uint32_t k = prog_index(g, M.nslots, want);
	void *last = UNTOUCHED;

	if (f == NULL || k != want) {
		check_invalid(gpspm_slots_sent(M.s, k, &last), last);
		return;
	}
	if (f != &M.op[M.sq])
		return; /* a read before it not reported: cannot happen */
	f->reported = true;
	M.sq++;
	check_valid(gpspm_slots_sent(M.s, k, &last), last);
}

static void op_io_done(void)
{
	void *last = UNTOUCHED;
	if (M.sq == M.posted || M.op[M.sq].flush) {
		check_invalid(gpspm_slots_io_done(M.s, NULL, &last), last);
		return;
	}
	struct op *r = &M.op[M.sq++];
	r->reported = true;
	M.newest_read = M.sq;
	check_valid(gpspm_slots_io_done(M.s, r, &last), last);
}

/* the response bytes as the engine receives them: decoded, then answered */
static void receive_response(const uint8_t *buf, uint32_t len)
{
	struct gpspm_resp resp = {0xdeadbeef};
	char why[160] = "";
	void *last = UNTOUCHED;

	if (gpspm_resp_decode(buf, len, &resp, why, sizeof(why)) != GPSPM_MSG_OK) {
		assert_reason(why, sizeof(why));
		assert(resp.op_context == 0xdeadbeef);
		return; /* the engine breaks the connection */
	}
	assert(len > 0 && len <= GPSPM_MSG_MAX);
	uint64_t seq = resp.op_context;
	enum rpmafio_completion ret = gpspm_slots_answered(M.s, seq, &last);
	if (seq >= M.tail || M.op[M.at[seq]].answered) {
		check_invalid(ret, last);
		return;
	}
	M.op[M.at[seq]].answered = true;
	check_valid(ret, last);
}

/* a response to a flush picked by the input: in flight, answered or never posted */
static void op_answer(struct prog *g)
{
	uint8_t c = prog_u8(g);
	uint64_t seq;
	if (c < 0x80)
		seq = M.head + (M.tail > M.head ? c % (M.tail - M.head) : 0);
	else if (c < 0xc0)
		seq = M.tail - 1 - (uint64_t)(c - 0x80); /* wraps around below 0: never posted */
	else
		seq = M.tail + (uint64_t)(c - 0xc0);

	struct gpspm_resp resp = {seq};
	uint8_t buf[GPSPM_RESP_SIZE];
	size_t len = 0;
	assert(gpspm_resp_encode(&resp, buf, sizeof(buf), &len) == 0 && len == sizeof(buf));
	receive_response(buf, (uint32_t)len);
}

static void op_raw(struct prog *g)
{
	uint32_t len;
	uint8_t *buf = prog_msg(g, &len);
	receive_response(buf, len);
	free(buf);
}

static void op_null(void)
{
	void *last = UNTOUCHED;
	check_invalid(gpspm_slots_io_done(M.s, NULL, &last), last);
}

/* every SEND and read completes, every flush in flight is answered: all complete */
static void finish(void)
{
	struct prog none = {NULL, 0}; /* prog_index gives the expected slot */
	while (M.sq < M.posted) {
		if (M.op[M.sq].flush)
			op_sent(&none);
		else
			op_io_done();
	}
	for (uint64_t seq = M.head; seq < M.tail; seq++) {
		if (!M.op[M.at[seq]].answered) {
			struct gpspm_resp resp = {seq};
			uint8_t buf[GPSPM_RESP_SIZE];
			size_t len = 0;
			assert(gpspm_resp_encode(&resp, buf, sizeof(buf), &len) == 0);
			receive_response(buf, (uint32_t)len);
		}
	}
	assert(M.head == M.tail && M.done == M.posted && M.named == M.posted);
	assert(gpspm_slots_idle(M.s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog g = {data, size};

	if (size == 0)
		return 0;
	memset(&M, 0, offsetof(struct model, op));
	M.nslots = (uint32_t)(prog_u8(&g) % 16) + 1;
	assert(gpspm_slots_new(M.nslots, &M.s) == 0);

	while (prog_more(&g) && M.posted < MAX_OPS) {
		switch (prog_u8(&g) % 7) {
		case 0: op_flush(); break;
		case 1: op_read(); break;
		case 2: op_sent(&g); break;
		case 3: op_io_done(); break;
		case 4: op_answer(&g); break;
		case 5: op_raw(&g); break;
		default: op_null(); break;
		}
	}
	finish();
	gpspm_slots_delete(&M.s);
	assert(M.s == NULL);
	return 0;
}
