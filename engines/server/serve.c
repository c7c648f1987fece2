/* SPDX-License-Identifier: BSD-3-Clause */
/* serve.c -- a server serving its client until it leaves (see server.h) */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/report.h"
#include "keepalive.h"
#include "server.h"

/* what a serving (or waiting) server looks at */
struct serving {
	struct rpmafio_server *s;
	rpmafio_serve_fn on_wc;
	uint64_t deadline;	/* 0: none */
	struct rpmafio_keepalive ka;
};

/* the probe's op_context: no method's work request carries this address */
static const char probe_ctx;
#define PROBE_WR_ID ((uint64_t)(uintptr_t)&probe_ctx)

/* the method's completions (an APM server posts nothing but probes) */
static int method_wc(struct serving *sv, const struct ibv_wc *wc, int n)
{
	if (n == 0)
		return 0;
	if (sv->on_wc)
		return sv->on_wc(sv->s, wc, n);
	return rpmafio_fail(&sv->s->job, EIO, "a completion for no work request (opcode %d, "
		"wr_id 0x%llx)", (int)wc->opcode, (unsigned long long)wc->wr_id);
}

static int conn_failed(struct rpmafio_server *s, enum ibv_wc_status status, const char *what);

static int probe_wc(struct serving *sv, const struct ibv_wc *wc)
{
	char what[96];

	if (wc->status == IBV_WC_SUCCESS) {
		rpmafio_keepalive_answered(&sv->ka);
		return 0;
	}
	snprintf(what, sizeof(what), "a keepalive probe (after %u ms without a word from the "
		"client)", sv->s->job.o->keepalive);
	return conn_failed(sv->s, wc->status, what);
}

static int serving_wc(void *arg, const struct ibv_wc *wc, int n)
{
	struct serving *sv = arg;
	int first = 0, r;

	rpmafio_keepalive_heard(&sv->ka);
	for (int i = 0; i < n; i++) {
		if (wc[i].wr_id != PROBE_WR_ID)
			continue;
		if ((r = method_wc(sv, wc + first, i - first)) || (r = probe_wc(sv, &wc[i])))
			return r;
		first = i + 1;
	}
	return method_wc(sv, wc + first, n - first);
}

/* is the client still there? A zero-length RDMA write asks its RNIC */
static int keepalive(struct serving *sv)
{
	struct rpmafio_server *s = sv->s;
	uint64_t now = rpmafio_now_ms();
	char buf[128];
	int ret;

	switch (rpmafio_keepalive_tick(&sv->ka, now)) {
	case RPMAFIO_KEEPALIVE_PROBE:
		if ((ret = rpma_write(s->conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
				&probe_ctx)))
			return rpmafio_fail(&s->job, EIO, "cannot post a keepalive probe: %s",
				rpmafio_rpma_err(ret, buf, sizeof(buf)));
		rpmafio_keepalive_probed(&sv->ka, now);
		return 0;
	case RPMAFIO_KEEPALIVE_UNANSWERED:
		return rpmafio_fail(&s->job, EIO, "the client did not answer a keepalive probe "
			"(sent after %u ms without a word from it) within %llu ms: the client's host "
			"or its link is gone", s->job.o->keepalive,
			(unsigned long long)sv->ka.give_up);
	case RPMAFIO_KEEPALIVE_WAIT:
	default:
		return 0;
	}
}

/* the client's events: has it gone? */
static int serving_event(void *arg, enum rpma_conn_event ev)
{
	struct rpmafio_server *s = ((struct serving *)arg)->s;

	if (ev != RPMA_CONN_CLOSED && ev != RPMA_CONN_LOST)
		return 0;
	if (ev == RPMA_CONN_LOST)
		rpmafio_note(&s->job, "the connection to the client was lost");
	s->disconnected = true;
	return 1;
}

/*
 * fio stopping the job ends serving cleanly; a deadline ends a wait (2);
 * a silent client is probed
 */
static int serving_idle(void *arg)
{
	struct serving *sv = arg;
	if (rpmafio_stopping(&sv->s->job))
		return 1;
	if (sv->deadline)
		return rpmafio_now_ms() >= sv->deadline ? 2 : 0;
	return keepalive(sv) < 0 ? -1 : 0;
}

static int serving_error(void *arg, const char *call, int ret)
{
	char buf[128];
	return rpmafio_fail(&((struct serving *)arg)->s->job, EIO, "%s: %s", call,
		rpmafio_rpma_err(ret, buf, sizeof(buf)));
}

static const struct rpmafio_poll_ops serving_ops = {
	.wc = serving_wc,
	.event = serving_event,
	.idle = serving_idle,
	.error = serving_error,
};

int rpmafio_server_serve(struct rpmafio_server *s, rpmafio_serve_fn on_wc)
{
	const struct rpmafio_opts *o = s->job.o;
	struct serving sv = {.s = s, .on_wc = on_wc};
	struct rpmafio_poll p = s->poll;

	if (s->disconnected)
		return 0;
	rpmafio_keepalive_init(&sv.ka, o->keepalive, rpmafio_keepalive_give_up(o->keepalive),
		rpmafio_now_ms());
	if (on_wc == NULL) {
		/* only probes complete here: sleep on the CQ and the events */
		p.busy = false;
		if (o->keepalive == 0)
			p.cq = NULL;
	}
	return rpmafio_poll_run(&p, &serving_ops, &sv) < 0 ? -1 : 0;
}

/* wait up to ms for the client to disconnect: 1 it did, 0 it did not, -1 failed */
static int wait_gone(struct rpmafio_server *s, unsigned ms)
{
	struct serving sv = {.s = s, .deadline = rpmafio_now_ms() + ms};
	struct rpmafio_poll p = s->poll;

	if (s->disconnected)
		return 1;
	p.cq = NULL;
	int r = rpmafio_poll_run(&p, &serving_ops, &sv);
	return r == 2 ? 0 : r;
}

int rpmafio_server_wait_gone(struct rpmafio_server *s)
{
	return wait_gone(s, s->job.o->connect_timeout);
}

/*
 * The client cannot be reached: the transport gave up after its retries
 * (seconds), or could not send at all (rxe fails a work request with a local
 * QP error when its link is down). A client that left would have been heard
 * leaving by then: wait only as long as it takes to take that event.
 */
#define GONE_GRACE_MS 1000

static bool unreachable_status(enum ibv_wc_status status)
{
	return status == IBV_WC_RETRY_EXC_ERR || status == IBV_WC_LOC_QP_OP_ERR;
}

static int conn_failed(struct rpmafio_server *s, enum ibv_wc_status status, const char *what)
{
	struct rpmafio_job *job = &s->job;
	const bool unreachable = unreachable_status(status);
	int w = wait_gone(s, unreachable ? GONE_GRACE_MS : job->o->connect_timeout);
	if (w < 0)
		return -1;
	if (w == 0 && unreachable)
		return rpmafio_fail(job, EIO, "%s failed (%s) and no disconnection came: the "
			"client's host or its link is gone", what, ibv_wc_status_str(status));
	if (w == 0)
		return rpmafio_fail(job, EIO, "%s failed (%s) and the client did not disconnect "
			"within connect_timeout=%u ms", what, ibv_wc_status_str(status),
			job->o->connect_timeout);
	if (status != IBV_WC_WR_FLUSH_ERR)
		rpmafio_note(job, "%s failed (%s): the client has gone", what,
			ibv_wc_status_str(status));
	return 1;
}

int rpmafio_server_conn_failed(struct rpmafio_server *s, enum ibv_wc_status status)
{
	return conn_failed(s, status, "a message to or from the client");
}
