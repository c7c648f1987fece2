/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpspm_hostile.c -- a misbehaving GPSPM client, for testing a GPSPM server's
 * defences (tests/e2e/engines_gpspm.sh; one of a hub's clients: engines_hub.sh):
 *
 *   gpspm-hostile ADDR PORT CASE [CASE...]
 *
 * It connects like a GPSPM client (librpma, the server's workspace in the
 * private data), then sends one message per CASE on the same connection and
 * checks the server's reaction:
 *
 *   well-formed, in range (answered with the same op_context):
 *     valid          offset 0, length 4096
 *     valid-end      the last 4096 bytes of the workspace
 *     valid-whole    the whole workspace
 *     empty-at-end   offset = workspace size, length 0
 *   rejected: the server must close the connection without answering:
 *     beyond         offset = workspace size, length 1
 *     too-long       offset 0, length = workspace size + 1
 *     wrap           offset 2^64 - 4096, length 8192 (offset + length wraps around)
 *     huge-length    offset 4096, length 2^64 - 1
 *     truncated      the first 20 bytes of a valid request
 *     missing        offset and length only (no op_context)
 *     unknown        a valid request plus a field 4
 *     wire-type      the offset encoded as a varint
 *     garbage        27 bytes of 0xff
 *     empty          a 0-byte message
 *     oversized      600 bytes: more than the server's 512-byte receive buffers
 *     write-imm      no message: an RDMA write with immediate data (8 bytes at
 *                    offset 0), which consumes one of the server's receives
 *   several requests at once (each must be answered exactly once):
 *     flood          2 * max_msg_num + 4 requests (4 KiB each, distinct
 *                    op_contexts) posted back to back, without waiting for an
 *                    answer: more than the server takes at a time (its receives
 *                    hold back the rest: RNR, retried); needs max_msg_num <= 30
 *     dup-opctx      two requests with the same op_context in flight (offset 0
 *                    and 4096): the op_context is the client's tag, the server
 *                    echoes it: both answered, with that op_context
 *   a client that never lets the server rest:
 *     busy-whole     SLOTS requests for the whole workspace always in flight (each
 *                    answer sends the next) until the server disconnects, for at
 *                    most 60 s: the server must still stop when fio tells it to
 *                    (prints the answers it got; passes when the server went, or
 *                    when SIGTERM stopped it: then it says how long its answers
 *                    took from the first)
 *     flood-whole    the same with 2 * max_msg_num + 4 requests always in flight:
 *                    more than the server takes at a time (needs max_msg_num <= 30)
 *   a client that takes no answers (the only case of its run: no receive is
 *   posted on its connection, so the server's responses are retried without end):
 *     deaf           2 * max_msg_num + 4 requests (4 KiB each) posted back to back;
 *                    passes when the server disconnects it within 60 s (prints
 *                    after how long)
 *   the end:
 *     last           the last message (offset 0, length 0): no answer; then this
 *                    program disconnects and the server must end cleanly
 *
 * Prints one line per case; exits 0 when the server reacted as expected to
 * every case, 1 otherwise, 2 on a usage or set-up error.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librpma.h>

#include "gpspm/msg.h"
#include "common/workspace.h"

#define SLOTS 4
#define MANY_MAX 64		/* requests in flight at once, at most (flood) */
#define SEND_OFF 0
#define RECV_OFF(k) (GPSPM_MSG_MAX * 2 + (size_t)(k) * GPSPM_MSG_MAX) /* sends may be 600 bytes */
#define MANY_OFF(i) (RECV_OFF(SLOTS) + (size_t)(i) * 32) /* one buffer per request in flight */
#define BUF_SIZE MANY_OFF(MANY_MAX)
#define SQ_SIZE (MANY_MAX + 8)
#define WR_RECV 0x100
#define ANSWER_MS 10000
#define DISCONNECT_MS 15000

enum expect { ANSWER, DISCONNECT, QUIET };

struct ctx {
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_local *mr;
	struct rpma_mr_remote *server_mr;
	char *buf;
	int ev_fd;
	uint64_t ws_size;
	uint64_t next_ctx;
	unsigned max_msg_num;	/* what the server takes at a time */
	bool gone;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int die(const char *what, int ret)
{
	fprintf(stderr, "gpspm-hostile: %s: %s\n", what, rpma_err_2str(ret));
	return 2;
}

/* what the next connection event (if one comes within ms) says of the server */
enum server_state { SERVER_THERE, SERVER_GONE, SERVER_EVENT_FAILED };

static enum server_state conn_gone(struct ctx *x, int ms)
{
	struct pollfd pfd = {.fd = x->ev_fd, .events = POLLIN};
	enum rpma_conn_event ev;
	if (x->gone)
		return SERVER_GONE;
	if (poll(&pfd, 1, ms) != 1)
		return SERVER_THERE;
	if (rpma_conn_next_event(x->conn, &ev))
		return SERVER_EVENT_FAILED;
	if (ev == RPMA_CONN_CLOSED || ev == RPMA_CONN_LOST) {
		x->gone = true;
		return SERVER_GONE;
	}
	return SERVER_THERE;
}

/* Build the message of a case into out; returns its length, or -1 for an unknown case. */
static long build(struct ctx *x, const char *c, uint8_t *out, enum expect *expect, uint64_t *opctx)
{
	struct gpspm_req r = {0, 4096, ++x->next_ctx};
	size_t len = 0;

	*expect = DISCONNECT;
	if (strcmp(c, "valid") == 0) {
		*expect = ANSWER;
	} else if (strcmp(c, "valid-end") == 0) {
		r.offset = x->ws_size - 4096;
		*expect = ANSWER;
	} else if (strcmp(c, "valid-whole") == 0) {
		r.length = x->ws_size;
		*expect = ANSWER;
	} else if (strcmp(c, "empty-at-end") == 0) {
		r.offset = x->ws_size;
		r.length = 0;
		*expect = ANSWER;
	} else if (strcmp(c, "beyond") == 0) {
		r.offset = x->ws_size;
		r.length = 1;
	} else if (strcmp(c, "too-long") == 0) {
		r.length = x->ws_size + 1;
	} else if (strcmp(c, "wrap") == 0) {
		r.offset = UINT64_MAX - 4095;
		r.length = 8192;
	} else if (strcmp(c, "huge-length") == 0) {
		r.offset = 4096;
		r.length = UINT64_MAX;
	} else if (strcmp(c, "last") == 0) {
		r = gpspm_req_last();
		*expect = QUIET;
	} else if (strcmp(c, "garbage") == 0) {
		memset(out, 0xff, GPSPM_REQ_SIZE);
		return GPSPM_REQ_SIZE;
	} else if (strcmp(c, "empty") == 0 || strcmp(c, "write-imm") == 0) {
		return 0; /* (write-imm: no message; run_case() writes with immediate data) */
	} else if (strcmp(c, "oversized") == 0) {
		memset(out, 0, 600);
		(void) gpspm_req_encode(&r, out, GPSPM_MSG_MAX, &len);
		return 600;
	} else if (strcmp(c, "truncated") == 0 || strcmp(c, "missing") == 0 ||
			strcmp(c, "unknown") == 0 || strcmp(c, "wire-type") == 0) {
		(void) gpspm_req_encode(&r, out, GPSPM_MSG_MAX, &len);
		if (strcmp(c, "truncated") == 0)
			return 20;
		if (strcmp(c, "missing") == 0)
			return 18;
		if (strcmp(c, "unknown") == 0) {
			out[len] = 0x21; /* field 4, fixed64 */
			memset(out + len + 1, 0x42, 8);
			return (long)len + 9;
		}
		/* the offset as a varint: 0x08 <varint 5>, then length and op_context */
		uint8_t tmp[GPSPM_REQ_SIZE];
		memcpy(tmp, out, len);
		out[0] = 0x08;
		out[1] = 0x05;
		memcpy(out + 2, tmp + 9, 18);
		return 20;
	} else {
		return -1;
	}
	if (gpspm_req_encode(&r, out, GPSPM_MSG_MAX, &len))
		return -1;
	*opctx = r.op_context;
	return (long)len;
}

/* what happened next on the connection */
enum got {
	GOT_ANSWER,	/* a valid response (*resp) */
	GOT_BAD_ANSWER,	/* an invalid response (why) */
	GOT_SENT,	/* a SEND completed */
	GOT_WC_FAILED,	/* a completion failed (why) */
	GOT_GONE,	/* the server disconnected */
	GOT_TIMEOUT,	/* nothing before the deadline */
	GOT_ERROR,	/* a librpma call failed (why) */
};

static enum got next_event(struct ctx *x, uint64_t deadline, struct gpspm_resp *resp, char *why,
		size_t whylen)
{
	while (now_ms() < deadline) {
		struct ibv_wc wc;
		int ret = rpma_cq_get_wc(x->cq, 1, &wc, NULL);
		if (ret == 0) {
			if (wc.status != IBV_WC_SUCCESS) {
				snprintf(why, whylen, "%s", ibv_wc_status_str(wc.status));
				return GOT_WC_FAILED;
			}
			if (wc.opcode == IBV_WC_SEND)
				return GOT_SENT;
			size_t k = wc.wr_id - WR_RECV;
			if (wc.opcode != IBV_WC_RECV || k >= SLOTS)
				continue;
			enum gpspm_msg_status st = gpspm_resp_decode(x->buf + RECV_OFF(k),
				wc.byte_len, resp, why, whylen);
			(void) rpma_recv(x->conn, x->mr, RECV_OFF(k), GPSPM_MSG_MAX,
				(const void *)(uintptr_t)wc.wr_id);
			return st == GPSPM_MSG_OK ? GOT_ANSWER : GOT_BAD_ANSWER;
		}
		if (ret != RPMA_E_NO_COMPLETION) {
			snprintf(why, whylen, "rpma_cq_get_wc: %s", rpma_err_2str(ret));
			return GOT_ERROR;
		}
		enum server_state g = conn_gone(x, 1);
		if (g == SERVER_EVENT_FAILED) {
			snprintf(why, whylen, "rpma_conn_next_event failed");
			return GOT_ERROR;
		}
		if (g == SERVER_GONE)
			return GOT_GONE;
	}
	return GOT_TIMEOUT;
}

/* Run one case; 0 when the server reacted as expected. */
static int run_case(struct ctx *x, const char *c)
{
	enum expect expect;
	uint64_t opctx = 0;
	long len = build(x, c, (uint8_t *)x->buf + SEND_OFF, &expect, &opctx);
	struct gpspm_resp resp;
	char why[160];
	int ret;

	if (len < 0) {
		fprintf(stderr, "gpspm-hostile: unknown case '%s'\n", c);
		return 1;
	}
	if (x->gone) {
		printf("case %s: FAIL (the server had already disconnected)\n", c);
		return 1;
	}
	if (strcmp(c, "write-imm") == 0)
		ret = rpma_write_with_imm(x->conn, x->server_mr, 0, x->mr, SEND_OFF, 8,
			RPMA_F_COMPLETION_ALWAYS, 0x5eed, NULL);
	else
		ret = rpma_send(x->conn, len ? x->mr : NULL, SEND_OFF, (size_t)len,
			RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		printf("case %s: FAIL (cannot send: %s)\n", c, rpma_err_2str(ret));
		return 1;
	}

	uint64_t deadline = now_ms() + (expect == ANSWER ? ANSWER_MS : expect == QUIET ? 1000 :
		DISCONNECT_MS);
	bool sent = false;
	for (;;) {
		switch (next_event(x, deadline, &resp, why, sizeof(why))) {
		case GOT_WC_FAILED:
			if (expect == DISCONNECT)
				continue; /* the server is cutting us off */
			printf("case %s: FAIL (a completion failed: %s)\n", c, why);
			return 1;
		case GOT_SENT:
			sent = true;
			if (expect == QUIET) {
				printf("case %s: sent, no answer expected\n", c);
				return 0;
			}
			continue;
		case GOT_BAD_ANSWER:
			printf("case %s: FAIL (an invalid answer: %s)\n", c, why);
			return 1;
		case GOT_ANSWER:
			if (expect != ANSWER) {
				printf("case %s: FAIL (the server answered it, op_context %" PRIu64 ")\n",
					c, resp.op_context);
				return 1;
			}
			if (resp.op_context != opctx) {
				printf("case %s: FAIL (answered with op_context %" PRIu64 ", sent %"
					PRIu64 ")\n", c, resp.op_context, opctx);
				return 1;
			}
			printf("case %s: answered (op_context %" PRIu64 ")\n", c, opctx);
			return 0;
		case GOT_ERROR:
			printf("case %s: FAIL (%s)\n", c, why);
			return 1;
		case GOT_GONE:
			if (expect == DISCONNECT) {
				printf("case %s: the server disconnected without answering\n", c);
				return 0;
			}
			printf("case %s: FAIL (the server disconnected)\n", c);
			return 1;
		case GOT_TIMEOUT:
		default:
			printf("case %s: FAIL (%s within %s)\n", c, expect == ANSWER ? "no answer" :
				expect == QUIET ? (sent ? "?" : "the message was not sent") :
				"the server did not disconnect", expect == ANSWER ? "10 s" : "15 s");
			return 1;
		}
	}
}

/*
 * The requests of a case that sends several at once (flood, dup-opctx) into
 * reqs[]: how many, 0 when the case is not one of them, -1 when the server
 * takes too many at a time for it.
 */
static int build_many(struct ctx *x, const char *c, struct gpspm_req reqs[MANY_MAX])
{
	if (strcmp(c, "dup-opctx") == 0) {
		uint64_t opctx = ++x->next_ctx;
		reqs[0] = (struct gpspm_req){0, 4096, opctx};
		reqs[1] = (struct gpspm_req){4096, 4096, opctx};
		return 2;
	}
	if (strcmp(c, "flood-whole") == 0) /* (run by run_busy: only its limit here) */
		return 2 * x->max_msg_num + 4 > MANY_MAX ? -1 : 0;
	if (strcmp(c, "flood") != 0 && strcmp(c, "deaf") != 0)
		return 0;
	unsigned n = 2 * x->max_msg_num + 4;
	if (n > MANY_MAX || x->ws_size < 4096)
		return -1;
	for (unsigned i = 0; i < n; i++)
		reqs[i] = (struct gpspm_req){(i * 4096ULL) % (x->ws_size - 4096 + 1), 4096,
			++x->next_ctx};
	return (int)n;
}

/* the n requests of case c posted back to back; 0, or 1 (said why) */
static int send_all(struct ctx *x, const char *c, const struct gpspm_req *reqs, unsigned n)
{
	size_t len = 0;

	if (x->gone) {
		printf("case %s: FAIL (the server had already disconnected)\n", c);
		return 1;
	}
	for (unsigned i = 0; i < n; i++)
		if (gpspm_req_encode(&reqs[i], x->buf + MANY_OFF(i), 32, &len) ||
				rpma_send(x->conn, x->mr, MANY_OFF(i), len,
					RPMA_F_COMPLETION_ALWAYS, NULL)) {
			printf("case %s: FAIL (cannot send request %u of %u)\n", c, i + 1, n);
			return 1;
		}
	printf("case %s: sent %u requests at once (the server takes %u at a time)\n", c, n,
		x->max_msg_num);
	fflush(stdout);
	return 0;
}

/* Send the n requests at once; every one must be answered exactly once. */
static int run_many(struct ctx *x, const char *c, const struct gpspm_req *reqs, unsigned n)
{
	bool answered[MANY_MAX] = {false};
	unsigned got = 0;
	struct gpspm_resp resp;
	char why[160];

	if (send_all(x, c, reqs, n))
		return 1;

	uint64_t deadline = now_ms() + ANSWER_MS;
	while (got < n) {
		switch (next_event(x, deadline, &resp, why, sizeof(why))) {
		case GOT_SENT:
			continue;
		case GOT_ANSWER: {
			unsigned i = 0;
			while (i < n && (answered[i] || reqs[i].op_context != resp.op_context))
				i++;
			if (i == n) {
				printf("case %s: FAIL (an answer with op_context %" PRIu64 ", which no "
					"request waiting for one has)\n", c, resp.op_context);
				return 1;
			}
			answered[i] = true;
			got++;
			continue;
		}
		case GOT_BAD_ANSWER:
			printf("case %s: FAIL (an invalid answer: %s)\n", c, why);
			return 1;
		case GOT_WC_FAILED:
			printf("case %s: FAIL (a completion failed: %s)\n", c, why);
			return 1;
		case GOT_GONE:
			printf("case %s: FAIL (the server disconnected after %u of %u answers)\n", c,
				got, n);
			return 1;
		case GOT_ERROR:
			printf("case %s: FAIL (%s)\n", c, why);
			return 1;
		case GOT_TIMEOUT:
		default:
			printf("case %s: FAIL (%u of %u answered within 10 s)\n", c, got, n);
			return 1;
		}
	}
	printf("case %s: every one of the %u answered once\n", c, n);
	return 0;
}

/* the longest a deaf client waits to be cut off */
#define DEAF_MS 60000

/* Send the n requests at once and take no answer: the server must cut us off. */
static int run_deaf(struct ctx *x, const char *c, const struct gpspm_req *reqs, unsigned n)
{
	const uint64_t start = now_ms();
	struct gpspm_resp resp;
	char why[160];

	if (send_all(x, c, reqs, n))
		return 1;
	for (;;) {
		switch (next_event(x, start + DEAF_MS, &resp, why, sizeof(why))) {
		case GOT_SENT:
		case GOT_WC_FAILED: /* (our sends, when the server cuts us off) */
			continue;
		case GOT_GONE:
			printf("case %s: the server disconnected after %llu ms\n", c,
				(unsigned long long)(now_ms() - start));
			return 0;
		case GOT_TIMEOUT:
			printf("case %s: FAIL (the server was still there after %d s)\n", c,
				DEAF_MS / 1000);
			return 1;
		case GOT_ANSWER:
		case GOT_BAD_ANSWER:
		case GOT_ERROR:
		default:
			printf("case %s: FAIL (%s)\n", c, "an answer without a receive, or an error");
			return 1;
		}
	}
}

/* SIGTERM: a busy case ends, saying how far it got (the test's stop) */
static volatile sig_atomic_t terminated;

static void on_term(int sig)
{
	(void)sig;
	terminated = 1;
}

/* SLOTS whole-workspace requests in flight until the server goes (see the top) */
#define BUSY_MS 60000

static int send_whole(struct ctx *x, unsigned buf)
{
	struct gpspm_req r = {0, x->ws_size, ++x->next_ctx};
	size_t len = 0;
	if (gpspm_req_encode(&r, x->buf + MANY_OFF(buf), 32, &len))
		return -1;
	return rpma_send(x->conn, x->mr, MANY_OFF(buf), len, RPMA_F_COMPLETION_ALWAYS, NULL);
}

static int run_busy(struct ctx *x, const char *c, unsigned inflight)
{
	struct gpspm_resp resp;
	unsigned long answers = 0;
	uint64_t first = 0;	/* when the first answer came */
	char why[160];

	if (inflight == 0 || inflight > MANY_MAX)
		return 1;
	for (unsigned k = 0; k < inflight; k++)
		if (send_whole(x, k)) {
			printf("case %s: FAIL (cannot send a request)\n", c);
			return 1;
		}
	for (;;) {
		enum got g = next_event(x, now_ms() + BUSY_MS, &resp, why, sizeof(why));
		if (terminated) {
			printf("case %s: stopped after %lu answers, %llu ms from the first\n", c,
				answers, (unsigned long long)(first ? now_ms() - first : 0));
			return answers ? 0 : 1;
		}
		if (g == GOT_SENT)
			continue;
		/* an answer sends the next request (in the oldest request's buffer) */
		if (g == GOT_ANSWER && send_whole(x, (unsigned)(answers++ % inflight)) == 0) {
			if (answers == 1) {
				first = now_ms();
				printf("case %s: answered, and busy from now on (%u requests in "
					"flight)\n", c, inflight);
			}
			fflush(stdout);
			continue;
		}
		if (g == GOT_ANSWER || g == GOT_GONE || g == GOT_WC_FAILED) {
			/* (the pace of its answers: what a client beside it waits for at most) */
			printf("case %s: the server went after %lu answers, %llu ms from the "
				"first\n", c, answers, (unsigned long long)(first ? now_ms() - first : 0));
			return answers ? 0 : 1;
		}
		printf("case %s: FAIL (%s after %lu answers)\n", c, g == GOT_TIMEOUT ?
			"the server was still there after 60 s" : why, answers);
		return 1;
	}
}

int main(int argc, char *argv[])
{
	struct ctx x = {.ev_fd = -1};
	struct ibv_context *dev = NULL;
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data pdata;
	struct rpmafio_ws ws;
	struct rpma_mr_remote *mr_remote = NULL;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	char why[256];
	size_t size = 0;
	int ret, failed = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: %s ADDR PORT CASE [CASE...]\n", argv[0]);
		return 2;
	}
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED);
	(void) signal(SIGTERM, on_term);
	if ((ret = rpma_utils_get_ibv_context(argv[1], RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev)))
		return die("rpma_utils_get_ibv_context", ret);
	if ((ret = rpma_peer_new(dev, &x.peer)))
		return die("rpma_peer_new", ret);
	if ((ret = rpma_conn_cfg_new(&cfg)) || (ret = rpma_conn_cfg_set_sq_size(cfg, SQ_SIZE)) ||
			(ret = rpma_conn_cfg_set_rq_size(cfg, SLOTS)) ||
			(ret = rpma_conn_cfg_set_cq_size(cfg, SQ_SIZE + SLOTS)))
		return die("connection configuration", ret);

	/* the server may take a moment to listen: try for 20 s */
	uint64_t deadline = now_ms() + 20000;
	for (;;) {
		if ((ret = rpma_conn_req_new(x.peer, argv[1], argv[2], cfg, &req)))
			return die("rpma_conn_req_new", ret);
		if ((ret = rpma_conn_req_connect(&req, NULL, &x.conn)))
			return die("rpma_conn_req_connect", ret);
		if ((ret = rpma_conn_get_event_fd(x.conn, &x.ev_fd)))
			return die("rpma_conn_get_event_fd", ret);
		struct pollfd pfd = {.fd = x.ev_fd, .events = POLLIN};
		ev = RPMA_CONN_UNDEFINED;
		if (poll(&pfd, 1, 10000) == 1 && (ret = rpma_conn_next_event(x.conn, &ev)))
			return die("rpma_conn_next_event", ret);
		if (ev == RPMA_CONN_ESTABLISHED)
			break;
		(void) rpma_conn_delete(&x.conn);
		if (now_ms() > deadline) {
			fprintf(stderr, "gpspm-hostile: cannot connect to %s:%s (%s)\n", argv[1],
				argv[2], rpma_utils_conn_event_2str(ev));
			return 2;
		}
		usleep(200000);
	}
	(void) rpma_conn_cfg_delete(&cfg);

	if ((ret = rpma_conn_get_private_data(x.conn, &pdata)))
		return die("rpma_conn_get_private_data", ret);
	if (rpmafio_ws_decode(pdata.ptr, pdata.len, &ws, why, sizeof(why))) {
		fprintf(stderr, "gpspm-hostile: %s\n", why);
		return 2;
	}
	if ((ret = rpma_mr_remote_from_descriptor(ws.mr_desc, ws.mr_desc_size, &mr_remote)) ||
			(ret = rpma_mr_remote_get_size(mr_remote, &size)))
		return die("the server's memory descriptor", ret);
	x.ws_size = size;
	x.server_mr = mr_remote;
	x.max_msg_num = ws.max_msg_num;
	printf("connected: workspace of %zu bytes, max_msg_num %u\n", size, ws.max_msg_num);

	if ((ret = rpma_conn_get_cq(x.conn, &x.cq)))
		return die("rpma_conn_get_cq", ret);
	if (posix_memalign((void **)&x.buf, 4096, BUF_SIZE))
		return 2;
	memset(x.buf, 0, BUF_SIZE);
	if ((ret = rpma_mr_reg(x.peer, x.buf, BUF_SIZE, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV |
			RPMA_MR_USAGE_WRITE_SRC, &x.mr)))
		return die("rpma_mr_reg", ret);
	/* (a deaf client posts none) */
	bool deaf = false;
	for (int i = 3; i < argc; i++)
		deaf = deaf || strcmp(argv[i], "deaf") == 0;
	for (unsigned k = 0; k < (deaf ? 0 : SLOTS); k++)
		if ((ret = rpma_recv(x.conn, x.mr, RECV_OFF(k), GPSPM_MSG_MAX,
				(const void *)(uintptr_t)(WR_RECV + k))))
			return die("rpma_recv", ret);

	for (int i = 3; i < argc; i++) {
		struct gpspm_req reqs[MANY_MAX];
		int n = build_many(&x, argv[i], reqs);
		if (n < 0) {
			printf("case %s: FAIL (the server takes %u requests at a time: at most %d "
				"for this case)\n", argv[i], x.max_msg_num, (MANY_MAX - 4) / 2);
			failed = 1;
		} else {
			failed |= n && deaf ? run_deaf(&x, argv[i], reqs, (unsigned)n) :
				n ? run_many(&x, argv[i], reqs, (unsigned)n) :
				strcmp(argv[i], "busy-whole") == 0 ? run_busy(&x, argv[i], SLOTS) :
				strcmp(argv[i], "flood-whole") == 0 ?
				run_busy(&x, argv[i], 2 * x.max_msg_num + 4) :
				run_case(&x, argv[i]);
		}
	}

	if (!x.gone) {
		(void) rpma_conn_disconnect(x.conn);
		(void) conn_gone(&x, 2000);
	}
	(void) rpma_conn_delete(&x.conn);
	(void) rpma_mr_dereg(&x.mr);
	(void) rpma_mr_remote_delete(&mr_remote);
	(void) rpma_peer_delete(&x.peer);
	free(x.buf);
	printf("%s\n", failed ? "FAILED" : "OK");
	return failed ? 1 : 0;
}
