/* SPDX-License-Identifier: BSD-3-Clause */
/* serve.c -- a server serving its client until it leaves (see server.h) */
#include <errno.h>
#include <string.h>

#include "common/report.h"
#include "server.h"

/* what a serving (or waiting) server looks at */
struct serving {
	struct rpmafio_server *s;
	rpmafio_serve_fn on_wc;
	uint64_t deadline;	/* 0: none */
};

static int serving_wc(void *arg, const struct ibv_wc *wc, int n)
{
	struct serving *sv = arg;
	return sv->on_wc(sv->s, wc, n);
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

/* fio stopping the job ends serving cleanly; a deadline ends a wait (2) */
static int serving_idle(void *arg)
{
	struct serving *sv = arg;
	if (rpmafio_stopping(&sv->s->job))
		return 1;
	return sv->deadline && rpmafio_now_ms() >= sv->deadline ? 2 : 0;
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
	struct serving sv = {.s = s, .on_wc = on_wc};
	struct rpmafio_poll p = s->poll;

	if (s->disconnected)
		return 0;
	if (on_wc == NULL)
		p.cq = NULL; /* nothing to take from the CQ: sleep on the events */
	return rpmafio_poll_run(&p, &serving_ops, &sv) < 0 ? -1 : 0;
}

int rpmafio_server_wait_gone(struct rpmafio_server *s)
{
	struct serving sv = {.s = s, .deadline = rpmafio_now_ms() + s->job.o->connect_timeout};
	struct rpmafio_poll p = s->poll;

	if (s->disconnected)
		return 1;
	p.cq = NULL;
	int r = rpmafio_poll_run(&p, &serving_ops, &sv);
	return r == 2 ? 0 : r;
}

int rpmafio_server_conn_failed(struct rpmafio_server *s, enum ibv_wc_status status)
{
	struct rpmafio_job *job = &s->job;
	int w = rpmafio_server_wait_gone(s);
	if (w < 0)
		return -1;
	if (w == 0)
		return rpmafio_fail(job, EIO, "a message to or from the client failed (%s) and "
			"the client did not disconnect within connect_timeout=%u ms",
			ibv_wc_status_str(status), job->o->connect_timeout);
	if (status != IBV_WC_WR_FLUSH_ERR)
		rpmafio_note(job, "a message to or from the client failed (%s): the client has "
			"gone", ibv_wc_status_str(status));
	return 1;
}
