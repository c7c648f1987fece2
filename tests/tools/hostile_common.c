/* SPDX-License-Identifier: BSD-3-Clause */
/* hostile_common.c -- the hostile test servers' shared set-up (see hostile_common.h) */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostile_common.h"

/* the slice of a wait between two looks at the completion queue */
#define SLICE_MS 1
/* how long a client's connection may take to be established once accepted */
#define ESTABLISH_MS 10000

uint64_t hs_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int hs_die(const struct hs_server *s, const char *what, int ret)
{
	fprintf(stderr, "%s: %s: %s\n", s->prog, what, rpma_err_2str(ret));
	return 2;
}

int hs_start(struct hs_server *s, const char *prog, const char *addr, const char *port)
{
	struct ibv_context *dev = NULL;
	int ret;

	s->prog = prog;
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED);
	if ((ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev)))
		return hs_die(s, "rpma_utils_get_ibv_context", ret);
	if ((ret = rpma_peer_new(dev, &s->peer)))
		return hs_die(s, "rpma_peer_new", ret);
	if ((ret = rpma_ep_listen(s->peer, addr, port, &s->ep)))
		return hs_die(s, "rpma_ep_listen", ret);
	printf("%s: listening on %s:%s\n", prog, addr, port);
	fflush(stdout);
	return 0;
}

void hs_stop(struct hs_server *s)
{
	(void) rpma_ep_shutdown(&s->ep);
	(void) rpma_peer_delete(&s->peer);
}

int hs_region(const struct hs_server *s, size_t size, int usage, char **buf,
		struct rpma_mr_local **mr)
{
	char *p = NULL;
	int ret;

	if (posix_memalign((void **)&p, 4096, size)) {
		fprintf(stderr, "%s: no memory for %zu bytes\n", s->prog, size);
		return 2;
	}
	memset(p, 0, size);
	if ((ret = rpma_mr_reg(s->peer, p, size, usage, mr))) {
		free(p);
		return hs_die(s, "rpma_mr_reg", ret);
	}
	*buf = p;
	return 0;
}

void hs_region_free(char **buf, struct rpma_mr_local **mr)
{
	/* memory still registered is never freed */
	if (*mr && rpma_mr_dereg(mr))
		return;
	free(*buf);
	*buf = NULL;
}

/* wait for fd to be readable: 1, 0 (timed out), -1 (poll failed) */
static int wait_fd(int fd, int ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int r = poll(&pfd, 1, ms);
	return r < 0 ? -1 : r;
}

int hs_next_request(const struct hs_server *s, const char *name, const struct hs_queues *q,
		struct rpma_conn_req **req)
{
	struct rpma_conn_cfg *cfg = NULL;
	int ret, fd = -1;

	if ((ret = rpma_ep_get_fd(s->ep, &fd)))
		return hs_die(s, "rpma_ep_get_fd", ret);
	if (wait_fd(fd, HS_COME_MS) != 1) {
		printf("case %s: FAIL (no client connected within %d s)\n", name,
			HS_COME_MS / 1000);
		return 1;
	}
	if ((ret = rpma_conn_cfg_new(&cfg)) || (ret = rpma_conn_cfg_set_sq_size(cfg, q->sq)) ||
			(ret = rpma_conn_cfg_set_rq_size(cfg, q->rq)) ||
			(ret = rpma_conn_cfg_set_cq_size(cfg, q->cq))) {
		(void) rpma_conn_cfg_delete(&cfg);
		return hs_die(s, "the connection's configuration", ret);
	}
	ret = rpma_ep_next_conn_req(s->ep, cfg, req);
	(void) rpma_conn_cfg_delete(&cfg);
	return ret ? hs_die(s, "rpma_ep_next_conn_req", ret) : 0;
}

int hs_accept(const struct hs_server *s, const char *name, struct rpma_conn_req **req,
		const void *pdata, size_t len, struct hs_conn *c)
{
	/* (librpma copies the private data; it never writes through ptr) */
	struct rpma_conn_private_data pd = {(void *)(uintptr_t)pdata, (uint8_t)len};
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret;

	*c = (struct hs_conn){.ev_fd = -1};
	if (len > UINT8_MAX) {
		(void) rpma_conn_req_delete(req);
		printf("case %s: FAIL (%zu bytes of private data: at most 255)\n", name, len);
		return 1;
	}
	if ((ret = rpma_conn_req_connect(req, len ? &pd : NULL, &c->conn))) {
		printf("case %s: FAIL (cannot accept the client: %s)\n", name,
			rpma_err_2str(ret));
		return 1;
	}
	if ((ret = rpma_conn_get_event_fd(c->conn, &c->ev_fd)) ||
			(ret = rpma_conn_get_cq(c->conn, &c->cq))) {
		hs_close(c);
		return hs_die(s, "the connection", ret);
	}
	if (wait_fd(c->ev_fd, ESTABLISH_MS) == 1 && rpma_conn_next_event(c->conn, &ev) == 0 &&
			ev == RPMA_CONN_ESTABLISHED)
		return 0;
	printf("case %s: FAIL (the connection was not established: %s)\n", name,
		rpma_utils_conn_event_2str(ev));
	hs_close(c);
	return 1;
}

/* a connection event, if one is there: the client gone? */
static int look_at_events(struct hs_conn *c, int ms)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	if (wait_fd(c->ev_fd, ms) != 1)
		return 0;
	if (rpma_conn_next_event(c->conn, &ev) || ev == RPMA_CONN_CLOSED ||
			ev == RPMA_CONN_LOST)
		c->gone = true;
	return c->gone;
}

enum hs_polled hs_poll(struct hs_conn *c, struct ibv_wc *wc, int ms)
{
	uint64_t deadline = hs_now_ms() + (uint64_t)ms;

	for (;;) {
		int ret = rpma_cq_get_wc(c->cq, 1, wc, NULL);
		if (ret == 0)
			return HS_WC;
		if (ret != RPMA_E_NO_COMPLETION)
			return HS_CQ_FAILED;
		if (c->gone || look_at_events(c, 0))
			return HS_GONE;
		if (hs_now_ms() >= deadline)
			return HS_NONE;
		(void) look_at_events(c, SLICE_MS);
	}
}

long hs_wait_gone(struct hs_conn *c, int ms)
{
	uint64_t start = hs_now_ms(), deadline = start + (uint64_t)ms;
	struct ibv_wc wc;

	while (!c->gone) {
		uint64_t now = hs_now_ms();
		if (now >= deadline)
			return -1;
		if (hs_poll(c, &wc, (int)(deadline - now)) == HS_CQ_FAILED)
			(void) look_at_events(c, SLICE_MS); /* the CQ failed: only events count */
	}
	return (long)(hs_now_ms() - start);
}

void hs_close(struct hs_conn *c)
{
	if (c->conn == NULL)
		return;
	if (!c->gone) {
		(void) rpma_conn_disconnect(c->conn);
		(void) look_at_events(c, 2000);
	}
	(void) rpma_conn_delete(&c->conn);
	c->cq = NULL;
}

int hs_expect_leave(struct hs_conn *c, const char *name, uint64_t since, const char *what)
{
	long waited = hs_wait_gone(c, HS_LEAVE_MS);
	int failed = 0;

	if (waited < 0) {
		printf("case %s: FAIL (the client did not leave within %d s after %s)\n", name,
			HS_LEAVE_MS / 1000, what);
		failed = 1;
	} else {
		printf("case %s: the client left %llu ms after %s\n", name,
			(unsigned long long)(hs_now_ms() - since), what);
	}
	fflush(stdout);
	hs_close(c);
	return failed;
}

int hs_run_cases(struct hs_server *s, int argc, char *argv[], int first, hs_case_fn run,
		void *arg)
{
	int failed = 0;

	for (int i = first; i < argc; i++) {
		int r = run(s, argv[i], arg);
		fflush(stdout);
		if (r == 2) {
			printf("%s: FAILED (a set-up error in case %s)\n", s->prog, argv[i]);
			return 2;
		}
		failed |= r;
	}
	printf("%s: %s\n", s->prog, failed ? "FAILED" : "OK");
	return failed ? 1 : 0;
}

int hs_check_args(const char *prog, int argc, char *argv[], const char *const *cases, size_t n)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s ADDR PORT CASE [CASE...]\n", prog);
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		size_t k = 0;
		while (k < n && strcmp(argv[i], cases[k]) != 0)
			k++;
		if (k == n) {
			fprintf(stderr, "%s: unknown case '%s'\n", prog, argv[i]);
			return 2;
		}
	}
	return 0;
}
