/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostile_common.h -- what the hostile test servers (gpspm_hostile_server.c,
 * apm_hostile_server.c) share: plain librpma, no fio.
 *
 * A hostile server listens on ADDR:PORT and serves one client per CASE given
 * on its command line, one after the other, on the same endpoint: it takes
 * the next connection request, accepts it with the private data the case
 * wants (hs_accept), misbehaves, and then watches the client leave
 * (hs_wait_gone). Every wait is bounded; a client that does not come or does
 * not leave within its bound is a failed case, never a hang.
 *
 * Output, one line each, for tests/e2e/hostile.sh:
 *   PROG: listening on ADDR:PORT
 *   case NAME: ...what happened...
 *   case NAME: the client left N ms after <what>      (or: case NAME: FAIL (...))
 *   PROG: OK | PROG: FAILED
 */
#ifndef HOSTILE_COMMON_H
#define HOSTILE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <librpma.h>

/* how long a case waits for its client to connect, and to leave */
#define HS_COME_MS 30000
#define HS_LEAVE_MS 15000

struct hs_server {
	const char *prog;	/* for messages */
	struct rpma_peer *peer;
	struct rpma_ep *ep;
};

/* one client's connection */
struct hs_conn {
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	int ev_fd;
	bool gone;		/* the client disconnected, or the connection was lost */
};

/* the queue sizes a case asks for */
struct hs_queues {
	uint32_t sq, rq, cq;
};

uint64_t hs_now_ms(void);

/* "PROG: WHAT: <librpma's error>" on stderr; returns 2 (a set-up error) */
int hs_die(const struct hs_server *s, const char *what, int ret);

/* The peer of the device with ADDR, listening on ADDR:PORT (says so on stdout). 0 or 2. */
int hs_start(struct hs_server *s, const char *prog, const char *addr, const char *port);
void hs_stop(struct hs_server *s);

/*
 * Register size bytes of page-aligned, zeroed DRAM with usage. 0, or 2 after
 * a message (*buf and *mr untouched then).
 */
int hs_region(const struct hs_server *s, size_t size, int usage, char **buf,
		struct rpma_mr_local **mr);
void hs_region_free(char **buf, struct rpma_mr_local **mr);

/*
 * The next client's connection request, within HS_COME_MS. 0; 1 when no
 * client came (said on stdout for case NAME); 2 on a librpma error.
 */
int hs_next_request(const struct hs_server *s, const char *name, const struct hs_queues *q,
		struct rpma_conn_req **req);

/*
 * Accept *req (consumed) with len bytes of private data (none when len is
 * 0) and wait until the connection is established. 0, or 1 after saying
 * why on stdout (case NAME).
 */
int hs_accept(const struct hs_server *s, const char *name, struct rpma_conn_req **req,
		const void *pdata, size_t len, struct hs_conn *c);

/* what hs_poll() saw */
enum hs_polled {
	HS_WC,		/* a completion: *wc filled */
	HS_NONE,	/* none came within ms */
	HS_GONE,	/* the client has gone (c->gone; nothing else to expect) */
	HS_CQ_FAILED,	/* a librpma error */
};

/* One completion within ms. */
enum hs_polled hs_poll(struct hs_conn *c, struct ibv_wc *wc, int ms);

/*
 * Wait (taking and dropping completions) until the client leaves, at most
 * ms: the ms it took, or -1 when it did not leave.
 */
long hs_wait_gone(struct hs_conn *c, int ms);

/* Disconnect (if the client has not) and delete the connection. */
void hs_close(struct hs_conn *c);

/*
 * The end of a case whose client should leave by itself once it has seen
 * the misbehaviour at time `since` (hs_now_ms()): prints
 * "case NAME: the client left N ms after WHAT", or a FAIL line, and closes
 * the connection. 0 when the client left within HS_LEAVE_MS, 1 otherwise.
 */
int hs_expect_leave(struct hs_conn *c, const char *name, uint64_t since, const char *what);

/*
 * Run each case of argv[first..argc) in turn: run(s, name, arg) serves one
 * client and returns 0 (the case went as expected), 1 (it did not) or 2 (a
 * set-up error: stop). Prints the verdict line; returns the exit status
 * (0 all fine, 1 a case failed, 2 a set-up error).
 */
typedef int (*hs_case_fn)(struct hs_server *s, const char *name, void *arg);
int hs_run_cases(struct hs_server *s, int argc, char *argv[], int first, hs_case_fn run,
		void *arg);

/*
 * The command line: ADDR PORT CASE [CASE...], every CASE one of cases[0..n).
 * 0, or 2 after a message.
 */
int hs_check_args(const char *prog, int argc, char *argv[], const char *const *cases, size_t n);

#endif /* HOSTILE_COMMON_H */
