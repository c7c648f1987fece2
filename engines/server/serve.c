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
static enum rpmafio_poll_step method_wc(struct serving *sv, const struct ibv_wc *wc, int n)
{
	if (n == 0)
		return RPMAFIO_POLL_GO_ON;
	if (sv->on_wc)
		return sv->on_wc(sv->s, wc, n);
	rpmafio_fail(&sv->s->job, EIO, "a completion for no work request (opcode %d, "
		"wr_id 0x%llx)", (int)wc->opcode, (unsigned long long)wc->wr_id);
	return RPMAFIO_POLL_FAILED;
}

static enum rpmafio_poll_step conn_failed(struct rpmafio_server *s, enum ibv_wc_status status,
		const char *what);

static enum rpmafio_poll_step probe_wc(struct serving *sv, const struct ibv_wc *wc)
{
	char what[96];

	if (wc->status == IBV_WC_SUCCESS) {
		rpmafio_keepalive_answered(&sv->ka);
		return RPMAFIO_POLL_GO_ON;
	}
	snprintf(what, sizeof(what), "a keepalive probe (after %u ms without a word from the "
		"client)", sv->s->job.o->keepalive);
	return conn_failed(sv->s, wc->status, what);
}

static enum rpmafio_poll_step serving_wc(void *arg, const struct ibv_wc *wc, int n)
{
	struct serving *sv = arg;
	enum rpmafio_poll_step r;
	int first = 0;

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
static enum rpmafio_poll_step keepalive(struct serving *sv)
{
	struct rpmafio_server *s = sv->s;
	uint64_t now = rpmafio_now_ms();
	char buf[128];
	int ret;

	switch (rpmafio_keepalive_tick(&sv->ka, now)) {
	case RPMAFIO_KEEPALIVE_PROBE:
		if ((ret = rpma_write(s->conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
				&probe_ctx))) {
			rpmafio_fail(&s->job, EIO, "cannot post a keepalive probe: %s",
				rpmafio_rpma_err(ret, buf, sizeof(buf)));
			return RPMAFIO_POLL_FAILED;
		}
		rpmafio_keepalive_probed(&sv->ka, now);
		return RPMAFIO_POLL_GO_ON;
	case RPMAFIO_KEEPALIVE_UNANSWERED:
		rpmafio_fail(&s->job, EIO, "the client did not answer a keepalive probe "
			"(sent after %u ms without a word from it) within %llu ms: the client's host "
			"or its link is gone", s->job.o->keepalive,
			(unsigned long long)sv->ka.give_up);
		return RPMAFIO_POLL_FAILED;
	case RPMAFIO_KEEPALIVE_WAIT:
	default:
		return RPMAFIO_POLL_GO_ON;
	}
}

/* the client's events: has it gone? */
static enum rpmafio_poll_step serving_event(void *arg, enum rpma_conn_event ev)
{
	struct rpmafio_server *s = ((struct serving *)arg)->s;

	if (ev != RPMA_CONN_CLOSED && ev != RPMA_CONN_LOST)
		return RPMAFIO_POLL_GO_ON;
	if (ev == RPMA_CONN_LOST)
		rpmafio_note(&s->job, "the connection to the client was lost");
	s->disconnected = true;
	return RPMAFIO_POLL_DONE;
}

/* fio stopping the job ends serving cleanly; a deadline ends a wait; a silent client is probed */
static enum rpmafio_poll_step serving_idle(void *arg)
{
	struct serving *sv = arg;
	if (rpmafio_stopping(&sv->s->job))
		return RPMAFIO_POLL_DONE;
	if (sv->deadline)
		return rpmafio_now_ms() >= sv->deadline ? RPMAFIO_POLL_DEADLINE : RPMAFIO_POLL_GO_ON;
	return keepalive(sv);
}

static enum rpmafio_poll_step serving_error(void *arg, const char *call, int ret)
{
	return rpmafio_server_call_failed(((struct serving *)arg)->s, call, ret);
}

static const struct rpmafio_poll_ops serving_ops = {
	.wc = serving_wc,
	.event = serving_event,
	.idle = serving_idle,
	.error = serving_error,
};

/* how the adaptive waits went: what busy_wait_polling=adaptive did, in the server's log */
static void note_adaptive(struct rpmafio_server *s)
{
	const struct rpmafio_poll *p = &s->poll;
	rpmafio_note(&s->job, "busy_wait_polling=adaptive: %llu waits (%llu napped first): "
		"%llu found their request by polling, %llu slept on the completion channel; "
		"awake again %llu us into a wait, timers %llu us late", (unsigned long long)p->adaptive.waits,
		(unsigned long long)p->adaptive.napped, (unsigned long long)p->adaptive.polled,
		(unsigned long long)p->adaptive.slept,
		(unsigned long long)(rpmafio_pace_nap_ns(&p->pace) / 1000),
		(unsigned long long)(p->pace.late_ns / 1000));
}

int rpmafio_server_serve(struct rpmafio_server *s, rpmafio_serve_fn on_wc)
{
	const struct rpmafio_opts *o = s->job.o;
	struct serving sv = {.s = s, .on_wc = on_wc};
	struct rpmafio_poll quiet, *p = &s->poll;

	if (s->disconnected)
		return 0;
	rpmafio_keepalive_init(&sv.ka, o->keepalive, rpmafio_keepalive_give_up(o->keepalive),
		rpmafio_now_ms());
	if (on_wc == NULL) {
		/* only probes complete here: sleep on the CQ and the events */
		quiet = s->poll;
		quiet.mode = RPMAFIO_POLL_SLEEP;
		if (o->keepalive == 0)
			quiet.cq = NULL;
		p = &quiet;
	}
	enum rpmafio_poll_step r = rpmafio_poll_run(p, &serving_ops, &sv);
	if (p->mode == RPMAFIO_POLL_ADAPTIVE)
		note_adaptive(s);
	return r == RPMAFIO_POLL_FAILED ? -1 : 0;
}

/* wait up to ms for the client to disconnect */
static enum rpmafio_client_gone wait_gone(struct rpmafio_server *s, unsigned ms)
{
	struct serving sv = {.s = s, .deadline = rpmafio_now_ms() + ms};
	struct rpmafio_poll p = s->poll;

	if (s->disconnected)
		return RPMAFIO_CLIENT_LEFT;
	p.cq = NULL;
	switch (rpmafio_poll_run(&p, &serving_ops, &sv)) {
	case RPMAFIO_POLL_DEADLINE:
		return RPMAFIO_CLIENT_STAYED;
	case RPMAFIO_POLL_FAILED:
		return RPMAFIO_CLIENT_WAIT_FAILED;
	default:
		return RPMAFIO_CLIENT_LEFT; /* it did, or fio stops the job */
	}
}

enum rpmafio_client_gone rpmafio_server_wait_gone(struct rpmafio_server *s)
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

static enum rpmafio_poll_step conn_failed(struct rpmafio_server *s, enum ibv_wc_status status,
		const char *what)
{
	struct rpmafio_job *job = &s->job;
	const bool unreachable = unreachable_status(status);
	switch (wait_gone(s, unreachable ? GONE_GRACE_MS : job->o->connect_timeout)) {
	case RPMAFIO_CLIENT_WAIT_FAILED:
		return RPMAFIO_POLL_FAILED;
	case RPMAFIO_CLIENT_STAYED:
		if (unreachable)
			rpmafio_fail(job, EIO, "%s failed (%s) and no disconnection came: the "
				"client's host or its link is gone", what, ibv_wc_status_str(status));
		else
			rpmafio_fail(job, EIO, "%s failed (%s) and the client did not disconnect "
				"within connect_timeout=%u ms", what, ibv_wc_status_str(status),
				job->o->connect_timeout);
		return RPMAFIO_POLL_FAILED;
	case RPMAFIO_CLIENT_LEFT:
	default:
		break;
	}
	if (status != IBV_WC_WR_FLUSH_ERR)
		rpmafio_note(job, "%s failed (%s): the client has gone", what,
			ibv_wc_status_str(status));
	return RPMAFIO_POLL_DONE;
}

enum rpmafio_poll_step rpmafio_server_conn_failed(struct rpmafio_server *s, enum ibv_wc_status status)
{
	return conn_failed(s, status, "a message to or from the client");
}
