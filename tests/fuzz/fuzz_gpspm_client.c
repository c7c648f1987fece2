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
 *   1 read     push_signalled(): a read batch posted (refused past NBATCHES)
 *   2 sent     index: the SEND of a flush completed, for a fuzzed slot index
 *   3 io done  choice: a read in flight completed, any of them (else
 *              io_done(NULL))
 *   4 answer   choice: the response to a flush in flight, one answered
 *              already or one never posted, encoded and decoded again
 *   5 raw      length, bytes: a response as received, decoded like the
 *              engine's answered(); a decoded op_context is answered
 *   6 null     io_done(NULL)
 *
 * Completions come in any order (iWARP's), except that the SENDs complete in
 * order among themselves. At the end every SEND and read completes and every
 * flush is answered.
 *
 * Checked after every event: the result is -1 exactly for events the protocol
 * rules out (SEND out of turn or with every SEND done, an answer to a flush
 * not in flight or answered already, no read), and then nothing changed; the
 * ops complete in posting order (a flush once sent and answered, a read once
 * reported): an event names the newest op it completes, and the complete
 * prefix is exactly what was named; the range in flight and idle() agree with
 * the model; at the end everything is complete.
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
#define NBATCHES 8

struct op {
	bool flush;
	bool reported;	/* the send queue reported it: a flush's SEND, a read's own completion */
	bool answered;	/* a flush: its response arrived */
	uint64_t seq;	/* a flush: its sequence number */
};

static struct model {
	struct gpspm_slots *s;
	uint32_t nslots;
	size_t posted;		/* ops posted */
	size_t done;		/* ops complete: a prefix */
	uint64_t tail;		/* flushes posted */
	uint64_t sent;		/* flushes whose SEND completed: a prefix */
	uint64_t head;		/* flushes complete */
	uint32_t reads;		/* reads in flight */
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
	assert(gpspm_slots_idle(M.s) == (M.done == M.posted));
}

/* the complete prefix, after an event the model has applied -> the newest op it added */
static const struct op *model_advance(void)
{
	size_t from = M.done;
	while (M.done < M.posted) {
		const struct op *o = &M.op[M.done];
		if (!o->reported || (o->flush && !o->answered))
			break;
		if (o->flush)
			M.head++;
		else
			M.reads--;
		M.done++;
	}
	return M.done > from ? &M.op[M.done - 1] : NULL;
}

/* a valid event returned ret with *last: the newest op it completed, or nothing */
static void check_valid(enum rpmafio_completion ret, const void *last)
{
	const struct op *want = model_advance();
	if (want) {
		assert(ret == RPMAFIO_COMPLETES_IO && last == want);
	} else {
		assert(ret == RPMAFIO_COMPLETES_NOTHING && last == UNTOUCHED);
	}
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
	struct op *o = &M.op[M.posted];
	*o = (struct op){.flush = false};
	int ret = gpspm_slots_push_signalled(M.s, o);
	if (M.reads == NBATCHES) {
		assert(ret == -1);
		return;
	}
	assert(ret == 0);
	M.reads++;
	M.posted++;
	check_range();
}

/* the next flush whose SEND has not completed, or NULL */
static struct op *unsent_flush(void)
{
	return M.sent < M.tail ? &M.op[M.at[M.sent]] : NULL;
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
	f->reported = true;
	M.sent++;
	check_valid(gpspm_slots_sent(M.s, k, &last), last);
}

/* the read the input picks among those in flight (NULL: none) */
static struct op *pick_read(struct prog *g)
{
	size_t n = 0, pick = prog_u8(g);
	for (size_t i = M.done; i < M.posted; i++)
		n += !M.op[i].flush && !M.op[i].reported;
	if (n == 0)
		return NULL;
	pick %= n;
	for (size_t i = M.done; i < M.posted; i++)
		if (!M.op[i].flush && !M.op[i].reported && pick-- == 0)
			return &M.op[i];
	return NULL;
}

static void op_io_done(struct prog *g)
{
	void *last = UNTOUCHED;
	struct op *r = pick_read(g);
	if (r == NULL) {
		check_invalid(gpspm_slots_io_done(M.s, NULL, &last), last);
		return;
	}
	r->reported = true;
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
	struct prog none = {NULL, 0}; /* prog_index gives the expected slot, prog_u8 0 */
	while (unsent_flush())
		op_sent(&none);
	while (M.reads > 0 && pick_read(&none))
		op_io_done(&none);
	for (uint64_t seq = M.head; seq < M.tail; seq++) {
		if (!M.op[M.at[seq]].answered) {
			struct gpspm_resp resp = {seq};
			uint8_t buf[GPSPM_RESP_SIZE];
			size_t len = 0;
			assert(gpspm_resp_encode(&resp, buf, sizeof(buf), &len) == 0);
			receive_response(buf, (uint32_t)len);
		}
	}
	assert(M.head == M.tail && M.done == M.posted);
	assert(gpspm_slots_idle(M.s));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog g = {data, size};

	if (size == 0)
		return 0;
	memset(&M, 0, offsetof(struct model, op));
	M.nslots = (uint32_t)(prog_u8(&g) % 16) + 1;
	assert(gpspm_slots_new(M.nslots, NBATCHES, &M.s) == 0);

	while (prog_more(&g) && M.posted < MAX_OPS) {
		switch (prog_u8(&g) % 7) {
		case 0: op_flush(); break;
		case 1: op_read(); break;
		case 2: op_sent(&g); break;
		case 3: op_io_done(&g); break;
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
