/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_gpspm_server.c -- libFuzzer target: the GPSPM server's message buffers
 * (engines/gpspm/server_slots.c) driven by a program of completions, each
 * request taken judged by gpspm_req_check() as the engine's serve does.
 *
 * The input: one byte picks nslots (1..16), 8 bytes the workspace size; then
 * operations, an opcode byte each (mod 5), some followed by operands:
 *
 *   0 receive   index, length, bytes: a request landed in a receive buffer
 *   1 request   index, offset, length, op_context (8 bytes each): the same,
 *               the bytes those of an encoded flush request
 *   2 sent      index: the SEND of a response completed
 *   3 next      take the oldest request waiting, if a send buffer is free
 *   4 drain     next until there is nothing to take
 *
 * An index is mostly what the protocol leads to expect (a buffer with a
 * receive posted; the oldest response in flight), otherwise any buffer, one
 * just past the last or any number (fuzz_prog.h). A receive buffer holds
 * exactly the bytes received, on the heap: a decoder reading past them is
 * an ASan report.
 *
 * Checked: a completion is refused (-1) exactly when the provider cannot
 * have reported it (an index out of range, a receive into a buffer whose
 * request waits, a SEND completion for a free buffer), and then changes
 * nothing; next() is false exactly when no request waits or no send buffer
 * is free; requests are taken in arrival order with their lengths; every
 * index is < nslots and a send buffer is never handed out while its SEND is
 * in flight; a GPSPM_REQ_FLUSH range lies inside the workspace, GPSPM_REQ_LAST
 * is offset 0 length 0, and the kind agrees with the message decoded alone.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_prog.h"
#include "gpspm/msg.h"
#include "gpspm/server_slots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SLOTS 16

static struct model {
	struct gpspm_server_slots *s;
	uint32_t nslots;
	uint64_t ws_size;
	uint8_t *msg[MAX_SLOTS];	/* per receive buffer: the bytes received */
	uint32_t len[MAX_SLOTS];
	bool waiting[MAX_SLOTS];	/* per receive buffer: its request waits */
	uint32_t fifo[MAX_SLOTS];	/* receive buffers waiting, in arrival order */
	uint32_t fifo_len[MAX_SLOTS];	/* ... and their lengths as reported */
	uint32_t qhead, qlen;
	uint32_t busy[MAX_SLOTS];	/* send buffers in flight, oldest first */
	uint32_t nbusy;
} M;

/* a receive buffer with a receive posted, or 0 */
static uint32_t free_recv(void)
{
	for (uint32_t k = 0; k < M.nslots; k++)
		if (!M.waiting[k])
			return k;
	return 0;
}

static bool is_busy(uint32_t k, uint32_t *at)
{
	for (uint32_t i = 0; i < M.nbusy; i++) {
		if (M.busy[i] == k) {
			*at = i;
			return true;
		}
	}
	return false;
}

/* msg (len bytes, ours now) landed in receive buffer k */
static void receive(uint32_t k, uint8_t *msg, uint32_t len)
{
	int ret = gpspm_server_slots_received(M.s, k, len);
	if (k >= M.nslots || M.waiting[k]) {
		assert(ret == -1);
		free(msg); /* a receive that cannot have happened wrote nothing */
		return;
	}
	assert(ret == 0);
	free(M.msg[k]);
	M.msg[k] = msg;
	M.len[k] = len;
	M.waiting[k] = true;
	uint32_t at = (M.qhead + M.qlen++) % M.nslots;
	M.fifo[at] = k;
	M.fifo_len[at] = len;
}

static void op_receive(struct prog *g)
{
	uint32_t k = prog_index(g, M.nslots, free_recv());
	uint32_t len;
	uint8_t *msg = prog_msg(g, &len);
	receive(k, msg, len);
}

static void op_request(struct prog *g)
{
	uint32_t k = prog_index(g, M.nslots, free_recv());
	struct gpspm_req req;
	req.offset = prog_uint(g, 8);
	req.length = prog_uint(g, 8);
	req.op_context = prog_uint(g, 8);
	uint8_t *msg = malloc(GPSPM_REQ_SIZE);
	size_t len = 0;
	assert(msg != NULL);
	assert(gpspm_req_encode(&req, msg, GPSPM_REQ_SIZE, &len) == 0 && len == GPSPM_REQ_SIZE);
	receive(k, msg, (uint32_t)len);
}

static void op_sent(struct prog *g)
{
	uint32_t k = prog_index(g, M.nslots, M.nbusy ? M.busy[0] : 0);
	uint32_t at = 0;
	int ret = gpspm_server_slots_sent(M.s, k);
	if (k >= M.nslots || !is_busy(k, &at)) {
		assert(ret == -1);
		return;
	}
	assert(ret == 0);
	memmove(&M.busy[at], &M.busy[at + 1], (M.nbusy - at - 1) * sizeof(M.busy[0]));
	M.nbusy--;
}

/* the server's judgement of a request taken, checked against the message decoded alone */
static void judge(const uint8_t *msg, uint32_t len)
{
	static const struct gpspm_req sentinel = {11, 22, 33};
	struct gpspm_req req = sentinel, dec = sentinel;
	struct gpspm_ranges rg = {0}, drg = {0};
	char why[160] = "";

	/* our server takes ranged requests (gpspm/msg.h) */
	enum gpspm_req_kind kind = gpspm_req_check(msg, len, M.ws_size, &req, &rg, why,
		sizeof(why));
	bool decoded = gpspm_req_decode_ranged(msg, len, &dec, &drg, NULL, 0) == GPSPM_MSG_OK;
	bool last = decoded && dec.offset == 0 && dec.length == 0;
	bool inside = (unsigned __int128)dec.offset + dec.length <= M.ws_size;

	switch (kind) {
	case GPSPM_REQ_FLUSH:
		assert(decoded && !last && inside);
		assert(req.offset == dec.offset && req.length == dec.length &&
			req.op_context == dec.op_context);
		/* the ranges persisted: the decoded ones, each inside the workspace */
		assert(rg.n == drg.n && rg.n <= GPSPM_RANGES_PACKED_MAX);
		for (uint32_t i = 0; i < rg.n; i++)
			assert(rg.r[i].offset == drg.r[i].offset && rg.r[i].length == drg.r[i].length &&
				(unsigned __int128)rg.r[i].offset + rg.r[i].length <= M.ws_size);
		return;
	case GPSPM_REQ_LAST:
		assert(last && req.offset == 0 && req.length == 0 &&
			req.op_context == dec.op_context);
		return;
	case GPSPM_REQ_OUT_OF_RANGE:
		assert(decoded && !last && !inside);
		break;
	case GPSPM_REQ_MALFORMED:
		assert(!decoded);
		break;
	default:
		assert(!"an unknown kind of request");
	}
	assert_reason(why, sizeof(why));
	assert(memcmp(&req, &sentinel, sizeof(req)) == 0); /* not filled */
}

/* take the oldest request waiting; false when there is none or no send buffer */
static bool op_next(void)
{
	uint32_t k = 77, len = 77, out = 77;
	bool got = gpspm_server_slots_next(M.s, &k, &len, &out);
	if (M.qlen == 0 || M.nbusy == M.nslots) {
		assert(!got && k == 77 && len == 77 && out == 77);
		return false;
	}
	uint32_t at = 0;
	assert(got);
	assert(k == M.fifo[M.qhead] && len == M.fifo_len[M.qhead]); /* arrival order */
	assert(out < M.nslots);
	bool busy = is_busy(out, &at); /* never a buffer whose SEND is in flight */
	assert(!busy);
	M.qhead = (M.qhead + 1) % M.nslots;
	M.qlen--;
	M.waiting[k] = false; /* the engine posts a receive in it again */
	M.busy[M.nbusy++] = out;
	judge(M.msg[k], len);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog g = {data, size};

	if (size == 0)
		return 0;
	memset(&M, 0, sizeof(M));
	M.nslots = (uint32_t)(prog_u8(&g) % MAX_SLOTS) + 1;
	M.ws_size = prog_uint(&g, 8);
	assert(gpspm_server_slots_new(M.nslots, &M.s) == 0);

	while (prog_more(&g)) {
		switch (prog_u8(&g) % 5) {
		case 0: op_receive(&g); break;
		case 1: op_request(&g); break;
		case 2: op_sent(&g); break;
		case 3: op_next(); break;
		default: while (op_next()) {} break;
		}
	}
	gpspm_server_slots_delete(&M.s);
	assert(M.s == NULL);
	for (uint32_t k = 0; k < M.nslots; k++)
		free(M.msg[k]);
	return 0;
}
