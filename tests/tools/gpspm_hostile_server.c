/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpspm_hostile_server.c -- a misbehaving GPSPM server, for testing a GPSPM
 * client's defences (tests/e2e/hostile.sh):
 *
 *   gpspm-hostile-server ADDR PORT CASE [CASE...]
 *
 * Listens on ADDR:PORT with 1 MiB of DRAM and serves one client per CASE,
 * one after the other: a valid workspace (max_msg_num 64, the region's
 * descriptor), a receive posted in each of the 64 slots before accepting,
 * then
 *
 *   well          answers every flush request correctly (the control: the
 *                 client's job must complete)
 *   unknown-opctx answers the first request with op_context + 1000000
 *   duplicate     answers the first request twice
 *   truncated     answers the first request with the first 5 of the 9 bytes
 *   oversized     answers the first request with 600 bytes: more than the
 *                 client's 512-byte receive buffers
 *   garbage       answers the first request with 9 bytes of 0xff
 *   empty         answers the first request with a 0-byte message
 *   wrong-type    answers the first request with a flush request (27 bytes)
 *   early         sends a response with op_context 0 as soon as the client
 *                 is connected, before any request; then answers correctly
 *                 (so request 0 gets answered twice)
 *   flood         sends 100 responses nobody asked for (op_context 1000000 +
 *                 i) as soon as the client is connected: more than any
 *                 client's receives; then answers correctly
 *   silent        answers nothing (the client's connect_timeout must end it)
 *
 * Apart from its one misbehaviour a case answers correctly, and then waits
 * for the client to leave. Prints what it did and how long the client took
 * to leave after the misbehaviour (hostile_common.h); exits 0 when every
 * client came and left (well: after its last message) within the bounds, 1
 * otherwise, 2 on a usage or set-up error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/workspace.h"
#include "gpspm/msg.h"
#include "hostile_common.h"

#define PROG "gpspm-hostile-server"
#define REGION_SIZE (1u << 20)
#define MAX_MSG 64		/* max_msg_num: receive slots */
#define SEND_SLOTS 128		/* responses in flight at most */
#define SEND_SIZE 1024		/* room for the oversized message */
#define OVERSIZED 600
#define FLOOD 100
#define BAD_OPCTX 1000000ULL
#define RECV_OFF(k) ((size_t)(k) * GPSPM_MSG_MAX)
#define SEND_OFF(k) (RECV_OFF(MAX_MSG) + (size_t)(k) * SEND_SIZE)
#define MSGS_SIZE SEND_OFF(SEND_SLOTS)

#define WR_TAG (3ULL << 62)
#define WR_RECV (1ULL << 62)
#define WR_SEND (2ULL << 62)

static const char *const cases[] = {"well", "unknown-opctx", "duplicate", "truncated",
	"oversized", "garbage", "empty", "wrong-type", "early", "flood", "silent"};

struct srv {
	char *region, *msgs;
	struct rpma_mr_local *region_mr, *msgs_mr;
	uint8_t ws[RPMAFIO_WS_SIZE];
};

/* one client's serving */
struct serving {
	struct srv *v;
	struct hs_conn c;
	const char *name;
	uint64_t sends;		/* posted so far: the next one's slot is sends % SEND_SLOTS */
	uint32_t in_flight;	/* sends not completed yet */
	uint64_t served;	/* flush requests taken (all answered but by "silent") */
	uint32_t send_errors;
	enum ibv_wc_status first_send_error;
	bool last;		/* the client sent its last message */
	bool failed;
	uint64_t bad_at;	/* when it misbehaved (0: not yet) */
	const char *bad_what;
};

static bool is(const struct serving *sv, const char *name)
{
	return strcmp(sv->name, name) == 0;
}

/* send len bytes from data (len may be 0); false after a FAIL line */
static bool send_bytes(struct serving *sv, const void *data, size_t len)
{
	uint32_t k = (uint32_t)(sv->sends % SEND_SLOTS);
	int ret;

	if (sv->in_flight == SEND_SLOTS || len > SEND_SIZE) {
		printf("case %s: FAIL (no send buffer free)\n", sv->name);
		sv->failed = true;
		return false;
	}
	memcpy(sv->v->msgs + SEND_OFF(k), data, len);
	if ((ret = rpma_send(sv->c.conn, len ? sv->v->msgs_mr : NULL, len ? SEND_OFF(k) : 0, len,
			RPMA_F_COMPLETION_ALWAYS, (const void *)(uintptr_t)(WR_SEND | k)))) {
		printf("case %s: FAIL (cannot send: %s)\n", sv->name, rpma_err_2str(ret));
		sv->failed = true;
		return false;
	}
	sv->sends++;
	sv->in_flight++;
	return true;
}

static bool send_resp(struct serving *sv, uint64_t op_context)
{
	struct gpspm_resp resp = {op_context};
	uint8_t b[GPSPM_RESP_SIZE];
	size_t len = 0;

	(void) gpspm_resp_encode(&resp, b, sizeof(b), &len);
	return send_bytes(sv, b, len);
}

static void misbehaved(struct serving *sv, const char *what)
{
	sv->bad_at = hs_now_ms();
	sv->bad_what = what;
}

/* the answer to a flush request: correct, or this case's misbehaviour (the first time) */
static void answer(struct serving *sv, const struct gpspm_req *req)
{
	uint8_t b[OVERSIZED];
	size_t len = 0;

	sv->served++;
	if (is(sv, "silent")) {
		if (!sv->bad_at)
			misbehaved(sv, "the first request, unanswered");
		return;
	}
	if (sv->bad_at || sv->served > 1 || is(sv, "well") || is(sv, "early") ||
			is(sv, "flood")) {
		(void) send_resp(sv, req->op_context);
		return;
	}
	memset(b, 0, sizeof(b));
	struct gpspm_resp resp = {req->op_context};
	(void) gpspm_resp_encode(&resp, b, sizeof(b), &len);
	if (is(sv, "unknown-opctx")) {
		(void) send_resp(sv, req->op_context + BAD_OPCTX);
	} else if (is(sv, "duplicate")) {
		(void) send_resp(sv, req->op_context);
		(void) send_resp(sv, req->op_context);
	} else if (is(sv, "truncated")) {
		(void) send_bytes(sv, b, 5);
	} else if (is(sv, "oversized")) {
		(void) send_bytes(sv, b, OVERSIZED);
	} else if (is(sv, "garbage")) {
		memset(b, 0xff, GPSPM_RESP_SIZE);
		(void) send_bytes(sv, b, GPSPM_RESP_SIZE);
	} else if (is(sv, "empty")) {
		(void) send_bytes(sv, b, 0);
	} else { /* wrong-type */
		struct gpspm_req wrong = {0, 4096, req->op_context};
		(void) gpspm_req_encode(&wrong, b, sizeof(b), &len);
		(void) send_bytes(sv, b, len);
	}
	printf("case %s: misbehaved on flush request op_context %" PRIu64 " (offset %" PRIu64
		", length %" PRIu64 ")\n", sv->name, req->op_context, req->offset, req->length);
	misbehaved(sv, "the bad response");
}

/* a request arrived in receive buffer k: check it (it comes from the network), answer it */
static void received(struct serving *sv, const struct ibv_wc *wc)
{
	uint64_t k = wc->wr_id & ~WR_TAG;
	struct gpspm_req req = {0};
	char why[160];
	int ret;

	if (k >= MAX_MSG || wc->byte_len > GPSPM_MSG_MAX) {
		printf("case %s: FAIL (a receive completion for slot %" PRIu64 " of %u bytes)\n",
			sv->name, k, wc->byte_len);
		sv->failed = true;
		return;
	}
	if (gpspm_req_decode(sv->v->msgs + RECV_OFF(k), wc->byte_len, &req, why, sizeof(why)) !=
			GPSPM_MSG_OK) {
		printf("case %s: FAIL (the client sent an invalid request: %s)\n", sv->name, why);
		sv->failed = true;
		return;
	}
	if ((ret = rpma_recv(sv->c.conn, sv->v->msgs_mr, RECV_OFF(k), GPSPM_MSG_MAX,
			(const void *)(uintptr_t)(WR_RECV | k)))) {
		printf("case %s: FAIL (cannot post a receive again: %s)\n", sv->name,
			rpma_err_2str(ret));
		sv->failed = true;
		return;
	}
	if (gpspm_req_is_last(&req)) {
		sv->last = true;
		return;
	}
	if (req.offset > REGION_SIZE || req.length > REGION_SIZE - req.offset) {
		printf("case %s: FAIL (a flush request beyond the region: offset %" PRIu64
			" length %" PRIu64 ")\n", sv->name, req.offset, req.length);
		sv->failed = true;
		return;
	}
	answer(sv, &req);
}

static void completed(struct serving *sv, const struct ibv_wc *wc)
{
	switch (wc->wr_id & WR_TAG) {
	case WR_SEND:
		sv->in_flight--;
		if (wc->status != IBV_WC_SUCCESS && sv->send_errors++ == 0)
			sv->first_send_error = wc->status;
		return;
	case WR_RECV:
		if (wc->status == IBV_WC_SUCCESS)
			received(sv, wc);
		return; /* a failed receive: the connection is going */
	default:
		printf("case %s: FAIL (a completion for no request: wr_id 0x%" PRIx64 ")\n",
			sv->name, (uint64_t)wc->wr_id);
		sv->failed = true;
	}
}

/* the misbehaviours that come unasked, once the client is connected */
static void unasked(struct serving *sv)
{
	if (is(sv, "early")) {
		if (send_resp(sv, 0))
			misbehaved(sv, "the response before any request");
	} else if (is(sv, "flood")) {
		for (uint64_t i = 0; i < FLOOD; i++)
			if (!send_resp(sv, BAD_OPCTX + i))
				return;
		printf("case %s: sent %d responses nobody asked for\n", sv->name, FLOOD);
		misbehaved(sv, "the flood");
	}
}

/* Serve until the client leaves: 0 as expected, 1 not */
static int serve(struct serving *sv)
{
	uint64_t start = hs_now_ms(), active = start;
	struct ibv_wc wc;

	unasked(sv);
	while (!sv->failed) {
		enum hs_polled r = hs_poll(&sv->c, &wc, 100);
		uint64_t now = hs_now_ms();
		if (r == HS_GONE)
			break;
		if (r == HS_CQ_FAILED) {
			printf("case %s: FAIL (rpma_cq_get_wc failed)\n", sv->name);
			sv->failed = true;
		} else if (r == HS_WC) {
			active = now;
			completed(sv, &wc);
		} else if (sv->bad_at && now - sv->bad_at > HS_LEAVE_MS) {
			printf("case %s: FAIL (the client did not leave within %d s after %s)\n",
				sv->name, HS_LEAVE_MS / 1000, sv->bad_what);
			sv->failed = true;
		} else if (now - active > HS_LEAVE_MS) {
			printf("case %s: FAIL (the client went silent for %d s without leaving)\n",
				sv->name, HS_LEAVE_MS / 1000);
			sv->failed = true;
		}
	}
	hs_close(&sv->c);
	if (sv->failed)
		return 1;
	uint64_t now = hs_now_ms();
	printf("case %s: served %" PRIu64 " flush requests in %" PRIu64 " ms, %s", sv->name,
		sv->served, now - start, sv->last ? "the last message came" : "no last message");
	if (sv->send_errors)
		printf(", %u sends failed (the first: %s)", sv->send_errors,
			ibv_wc_status_str(sv->first_send_error));
	printf("\n");
	if (is(sv, "well")) {
		if (!sv->last || sv->served == 0) {
			printf("case %s: FAIL (a well-behaved server's client must do I/O and end with "
				"its last message)\n", sv->name);
			return 1;
		}
		printf("case %s: the client left after its last message\n", sv->name);
		return 0;
	}
	if (!sv->bad_at) {
		printf("case %s: FAIL (the client left before the misbehaviour)\n", sv->name);
		return 1;
	}
	printf("case %s: the client left %" PRIu64 " ms after %s\n", sv->name, now - sv->bad_at,
		sv->bad_what);
	return 0;
}

static int run_case(struct hs_server *s, const char *name, void *arg)
{
	struct srv *v = arg;
	const struct hs_queues q = {SEND_SLOTS, MAX_MSG, SEND_SLOTS + MAX_MSG};
	struct serving sv = {.v = v, .name = name};
	struct rpma_conn_req *req = NULL;
	int ret;

	if ((ret = hs_next_request(s, name, &q, &req)))
		return ret;
	for (uint64_t k = 0; k < MAX_MSG; k++)
		if ((ret = rpma_conn_req_recv(req, v->msgs_mr, RECV_OFF(k), GPSPM_MSG_MAX,
				(const void *)(uintptr_t)(WR_RECV | k)))) {
			(void) rpma_conn_req_delete(&req);
			return hs_die(s, "rpma_conn_req_recv", ret);
		}
	if ((ret = hs_accept(s, name, &req, v->ws, sizeof(v->ws), &sv.c)))
		return ret;
	printf("case %s: a client connected\n", name);
	return serve(&sv);
}

int main(int argc, char *argv[])
{
	struct hs_server s = {.prog = PROG};
	struct srv v = {0};
	struct rpmafio_ws ws = {.max_msg_num = MAX_MSG};
	size_t desc_size = 0;
	int ret;

	if (hs_check_args(PROG, argc, argv, cases, sizeof(cases) / sizeof(cases[0])))
		return 2;
	if ((ret = hs_start(&s, PROG, argv[1], argv[2])) ||
			(ret = hs_region(&s, REGION_SIZE, RPMA_MR_USAGE_WRITE_DST |
				RPMA_MR_USAGE_READ_SRC, &v.region, &v.region_mr)) ||
			(ret = hs_region(&s, MSGS_SIZE, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV,
				&v.msgs, &v.msgs_mr)))
		return ret;
	if ((ret = rpma_mr_get_descriptor_size(v.region_mr, &desc_size)) ||
			(ret = rpma_mr_get_descriptor(v.region_mr, ws.mr_desc)))
		return hs_die(&s, "the region's descriptor", ret);
	ws.mr_desc_size = (uint8_t)desc_size;
	if (desc_size > RPMAFIO_WS_DESC_MAX || rpmafio_ws_encode(&ws, v.ws)) {
		fprintf(stderr, "%s: cannot encode the workspace\n", PROG);
		return 2;
	}
	ret = hs_run_cases(&s, argc, argv, 3, run_case, &v);
	hs_region_free(&v.msgs, &v.msgs_mr);
	hs_region_free(&v.region, &v.region_mr);
	hs_stop(&s);
	return ret;
}
