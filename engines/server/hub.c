/* SPDX-License-Identifier: BSD-3-Clause */
/* hub.c -- one server job serving several clients from one thread (see hub.h) */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "common/report.h"
#include "hub.h"
#include "hub_door.h"

/* the probes' op_context: no method's work request carries this address */
static const char probe_ctx;
#define PROBE_WR_ID ((uint64_t)(uintptr_t)&probe_ctx)

/* every client disconnected, no port listening (engine.c's clean-up, any time) */
static void hub_disconnect(struct rpmafio_hub *h)
{
	for (unsigned k = 0; k < h->n; k++) {
		struct rpmafio_hub_client *c = &h->clients[k];
		if (c->conn) {
			(void) rpma_conn_disconnect(c->conn);
			(void) rpma_conn_delete(&c->conn);
		}
		c->cq = NULL;
		c->ev_fd = -1;
		c->ep_fd = -1;
		(void) rpma_ep_shutdown(&c->ep);
	}
	if (h->epoll_fd >= 0) {
		(void) close(h->epoll_fd);
		h->epoll_fd = -1;
	}
	(void) rpma_conn_cfg_delete(&h->cfg);
}

/* the clients' bytes deregistered and the hub freed; false when one stays registered */
static bool hub_release(struct rpmafio_hub **hp)
{
	struct rpmafio_hub *h = *hp;
	bool all = true;

	for (unsigned k = 0; k < h->n; k++)
		if (h->clients[k].mr && rpma_mr_dereg(&h->clients[k].mr))
			all = false;
	if (!all)
		return false;
	hub_disconnect(h); /* (closes the epoll set if nothing did) */
	/* (the method deregistered its own buffers of each peer in its cleanup) */
	for (unsigned k = 0; k < h->n; k++)
		(void) rpma_peer_delete(&h->clients[k].peer);
	free(h->clients);
	free(h);
	*hp = NULL;
	return true;
}

/* engine.c's clean-up reaches these through the server (server.h) */
static const struct rpmafio_hub_teardown hub_teardown = {
	.disconnect = hub_disconnect,
	.release = hub_release,
};

int rpmafio_hub_new(struct rpmafio_server *s, size_t part)
{
	struct rpmafio_job *job = &s->job;
	const unsigned n = job->o->clients_per_job;
	const unsigned first = (unsigned)strtoul(job->port, NULL, 10);

	struct rpmafio_hub *h = calloc(1, sizeof(*h));
	if (h == NULL || (h->clients = calloc(n, sizeof(*h->clients))) == NULL) {
		free(h);
		return rpmafio_fail(job, ENOMEM, "no memory for %u clients", n);
	}
	s->hub = h;
	s->hub_teardown = &hub_teardown;
	h->n = n;
	h->part = part;
	h->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (h->epoll_fd < 0)
		return rpmafio_fail(job, errno, "epoll_create1: %s", strerror(errno));
	for (unsigned k = 0; k < n; k++) {
		struct rpmafio_hub_client *c = &h->clients[k];
		c->k = k;
		c->ev_fd = -1;
		c->ep_fd = -1;
		c->base = (char *)s->mem.ptr + (size_t)k * part;
		snprintf(c->port, sizeof(c->port), "%u", first + k);
	}
	return 0;
}

int rpmafio_hub_register(struct rpmafio_server *s, int usage, uint16_t max_msg_num)
{
	struct rpmafio_hub *h = s->hub;

	if (rpmafio_server_open_peer(s))
		return -1;
	for (unsigned k = 0; k < h->n; k++) {
		struct rpmafio_hub_client *c = &h->clients[k];
		char buf[128];
		int ret = rpma_peer_new(s->dev, &c->peer);
		if (ret)
			return rpmafio_fail(&s->job, ENODEV, "the protection domain of client %u: "
				"rpma_peer_new: %s", k + 1, rpmafio_rpma_err(ret, buf, sizeof(buf)));
		if (rpmafio_server_register_range(s, c->peer, c->base, h->part, usage, max_msg_num,
				&c->mr, c->ws_bytes))
			return -1;
	}
	return 0;
}

int rpmafio_hub_listen(struct rpmafio_server *s)
{
	struct rpmafio_job *job = &s->job;
	struct rpmafio_hub *h = s->hub;
	char buf[128];
	int ret;

	for (unsigned k = 0; k < h->n; k++) {
		struct rpmafio_hub_client *c = &h->clients[k];
		if ((ret = rpma_ep_listen(c->peer, job->o->serverip, c->port, &c->ep)))
			return rpmafio_fail(job, EADDRINUSE, "cannot listen on %s:%s (client %u of "
				"%u): %s", job->o->serverip, c->port, k + 1, h->n,
				rpmafio_rpma_err(ret, buf, sizeof(buf)));
	}
	rpmafio_note(job, "listening on %s:%s-%s for %u clients, one thread (%zu bytes of %s "
		"memory each)", job->o->serverip, h->clients[0].port, h->clients[h->n - 1].port,
		h->n, h->part, rpmafio_mem_kind_str(s->mem.kind));
	return 0;
}

/*
 * How the loop waits: as busy_wait_polling= says while a client is connected;
 * asleep on the ports while none is (nothing can complete: a busy loop would
 * only burn a CPU, as a one-client server does not while it waits to accept);
 * busy while requests wait for a send buffer (the sends' CQs have no channel
 * the loop sleeps on)
 */
static void set_pace(struct rpmafio_server *s)
{
	const struct rpmafio_hub *h = s->hub;
	enum rpmafio_poll_mode mode = RPMAFIO_POLL_SLEEP;

	if (h->hurry) {
		s->poll.mode = RPMAFIO_POLL_BUSY;
		return;
	}

	for (unsigned k = 0; k < h->n; k++)
		if (h->clients[k].state == RPMAFIO_HUB_SERVING || h->clients[k].state == RPMAFIO_HUB_DONE)
			mode = (enum rpmafio_poll_mode)s->job.o->busy_wait_polling;
	s->poll.mode = mode;
}

int rpmafio_hub_open(struct rpmafio_server *s, const struct rpmafio_queues *q,
		struct rpma_cq *rcq, const struct rpmafio_hub_ops *ops)
{
	struct rpmafio_job *job = &s->job;
	struct rpmafio_hub *h = s->hub;
	char buf[128];
	int ret;

	h->rcq = rcq;
	h->ops = ops;
	if ((ret = rpmafio_queues_cfg(q, &h->cfg)) ||
			(ret = rpma_conn_cfg_set_shared_rcq(h->cfg, rcq)))
		return rpmafio_fail(job, EINVAL, "queue sizes for iodepth=%u: %s", job->iodepth,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	for (unsigned k = 0; k < h->n; k++)
		if (hub_door_open(s, &h->clients[k]))
			return -1;
	return 0;
}

struct rpmafio_hub_client *rpmafio_hub_sender(struct rpmafio_server *s, const struct ibv_wc *wc,
		uint32_t gen)
{
	struct rpmafio_hub *h = s->hub;

	for (unsigned k = 0; k < h->n; k++) {
		struct rpmafio_hub_client *c = &h->clients[k];
		if (c->conn == NULL || c->qp_num != wc->qp_num || c->gen != gen)
			continue;
		/* it sent: its connection is up, whether its ESTABLISHED has come or not */
		if (c->state == RPMAFIO_HUB_CONNECTING) {
			if (hub_door_in(s, c) != HUB_DOOR_IN)
				return NULL;
			set_pace(s);
		}
		rpmafio_keepalive_heard(&c->ka);
		return c;
	}
	return NULL;
}

/* c has gone: its events are not looked at any more */
static void client_gone(struct rpmafio_server *s, struct rpmafio_hub_client *c)
{
	struct rpmafio_hub *h = s->hub;

	if (c->state == RPMAFIO_HUB_GONE)
		return;
	c->state = RPMAFIO_HUB_GONE;
	h->gone++;
	/* its queue pair to the error state: whatever it had in flight completes (flushed) */
	if (c->conn)
		(void) rpma_conn_disconnect(c->conn);
	if (c->ev_fd >= 0)
		(void) epoll_ctl(h->epoll_fd, EPOLL_CTL_DEL, c->ev_fd, NULL);
	set_pace(s);
}

void rpmafio_hub_client_done(struct rpmafio_hub_client *c)
{
	if (c->state != RPMAFIO_HUB_SERVING)
		return;
	c->state = RPMAFIO_HUB_DONE;
	c->done_ms = rpmafio_now_ms();
}

void rpmafio_hub_cut_off(struct rpmafio_server *s, struct rpmafio_hub_client *c)
{
	client_gone(s, c); /* (which disconnects it) */
}

void rpmafio_hub_client_failed(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		enum ibv_wc_status status, const char *what)
{
	if (c->state == RPMAFIO_HUB_GONE)
		return;
	/* a flushed work request: its connection is ending (its event follows) */
	if (status == IBV_WC_WR_FLUSH_ERR) {
		client_gone(s, c);
		return;
	}
	rpmafio_fail(&s->job, EIO, "%s: %s failed (%s): its host or its link is gone, or it "
		"broke the connection; serving the others", c->name, what, ibv_wc_status_str(status));
	rpmafio_hub_cut_off(s, c);
}

/* what a serving hub looks at */
struct serving {
	struct rpmafio_server *s;
	const struct rpmafio_hub_ops *ops;	/* the hub's */
};

/* every completion of c's CQ: its sends (the method's) and probes (ours) */
static enum rpmafio_poll_step reap_client(struct serving *sv, struct rpmafio_hub_client *c)
{
	struct ibv_wc wc[RPMAFIO_POLL_BATCH];
	enum rpmafio_poll_step r;
	char buf[128];
	int got, ret;

	for (;;) {
		got = 0;
		ret = rpma_cq_get_wc(c->cq, RPMAFIO_POLL_BATCH, wc, &got);
		if (ret == RPMA_E_NO_COMPLETION)
			return RPMAFIO_POLL_GO_ON;
		if (ret) {
			rpmafio_fail(&sv->s->job, EIO, "the CQ of client %u: %s", c->k + 1,
				rpmafio_rpma_err(ret, buf, sizeof(buf)));
			return RPMAFIO_POLL_FAILED;
		}
		c->stalled_ms = 0; /* (its sends move) */
		for (int i = 0; i < got; i++) {
			if (wc[i].wr_id != PROBE_WR_ID) {
				if ((r = sv->ops->send_wc(sv->s, c, &wc[i])))
					return r;
			} else if (wc[i].status == IBV_WC_SUCCESS) {
				rpmafio_keepalive_answered(&c->ka);
			} else {
				rpmafio_hub_client_failed(sv->s, c, wc[i].status, "a keepalive probe");
			}
		}
	}
}

static enum rpmafio_poll_step reap_sends(struct serving *sv)
{
	struct rpmafio_hub *h = sv->s->hub;
	enum rpmafio_poll_step r;

	for (unsigned k = 0; k < h->n; k++)
		if (h->clients[k].cq && (r = reap_client(sv, &h->clients[k])))
			return r;
	return RPMAFIO_POLL_GO_ON;
}

static enum rpmafio_poll_step all_gone(const struct rpmafio_hub *h)
{
	return h->gone == h->n ? RPMAFIO_POLL_DONE : RPMAFIO_POLL_GO_ON;
}

/*
 * Requests of a client wait for a send buffer: its sends must be reaped
 * promptly (the loop polls without sleeping), and a client none of whose
 * sends completes for connect_timeout -- one that posts no receives, so its
 * responses are retried without end -- is cut off: its requests never hold
 * up another's. false when no served client's requests wait. now: the
 * monotonic ms, or 0 (the clock is read only if some client's requests wait).
 */
static bool watch_sends(struct serving *sv, uint64_t now)
{
	struct rpmafio_server *s = sv->s;
	struct rpmafio_hub *h = s->hub;
	const unsigned limit = s->job.o->connect_timeout;
	bool any = false;

	for (unsigned k = 0; k < h->n; k++) {
		struct rpmafio_hub_client *c = &h->clients[k];
		if ((c->state != RPMAFIO_HUB_SERVING && c->state != RPMAFIO_HUB_DONE) ||
				sv->ops->waiting == NULL || !sv->ops->waiting(s, c)) {
			c->stalled_ms = 0;
			continue;
		}
		if (now == 0)
			now = rpmafio_now_ms();
		if (c->stalled_ms == 0) {
			c->stalled_ms = now;
		} else if (now - c->stalled_ms >= limit) {
			rpmafio_fail(&s->job, EIO, "%s took none of its responses within "
				"connect_timeout=%u ms (its requests wait for send buffers those "
				"hold: does it post receives?); cut off, serving the others", c->name,
				limit);
			rpmafio_hub_cut_off(s, c);
			continue;
		}
		any = true;
	}
	return any;
}

/* the loop's pace after a look at the clients' sends */
static void hurry_if_waiting(struct serving *sv, uint64_t now)
{
	const bool hurry = watch_sends(sv, now);

	if (hurry != sv->s->hub->hurry) {
		sv->s->hub->hurry = hurry;
		set_pace(sv->s);
	}
}

/* requests (the method finds their senders: rpmafio_hub_sender()), then the sends' completions */
static enum rpmafio_poll_step serving_wc(void *arg, const struct ibv_wc *wc, int n)
{
	struct serving *sv = arg;
	enum rpmafio_poll_step r;

	if ((r = sv->ops->recv_wc(sv->s, wc, n)) || (r = reap_sends(sv)))
		return r;
	hurry_if_waiting(sv, 0);
	return all_gone(sv->s->hub);
}

/*
 * a client at the door (a request on its port, or an event of its handshake):
 * accepted, then in (served from now on), or refused or dropped (the port waits on)
 */
static enum hub_door_step door(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		bool request)
{
	enum hub_door_step r = HUB_DOOR_WAIT;

	if (request && c->state == RPMAFIO_HUB_WAITING)
		r = hub_door_request(s, c);
	else if (!request && c->state == RPMAFIO_HUB_CONNECTING)
		r = hub_door_event(s, c);
	if (r == HUB_DOOR_IN)
		set_pace(s);
	return r;
}

/* the clients' connection events, through the epoll set */
static enum rpmafio_poll_step serving_events(void *arg)
{
	struct serving *sv = arg;
	struct rpmafio_hub *h = sv->s->hub;
	struct epoll_event ev[RPMAFIO_CLIENTS_PER_JOB_MAX];
	enum rpma_conn_event cev;
	char buf[128];

	int m = epoll_wait(h->epoll_fd, ev, RPMAFIO_CLIENTS_PER_JOB_MAX, 0);
	for (int i = 0; i < m; i++) {
		const uint32_t k = ev[i].data.u32 & ~HUB_DOOR_TAG;
		if (k >= h->n)
			continue;
		struct rpmafio_hub_client *c = &h->clients[k];
		if (ev[i].data.u32 & HUB_DOOR_TAG || c->state == RPMAFIO_HUB_CONNECTING) {
			if (door(sv->s, c, ev[i].data.u32 & HUB_DOOR_TAG) == HUB_DOOR_FAILED)
				return RPMAFIO_POLL_FAILED;
			continue;
		}
		if (c->conn == NULL) /* (dropped earlier in this batch) */
			continue;
		int ret = rpma_conn_next_event(c->conn, &cev);
		if (ret) {
			rpmafio_fail(&sv->s->job, EIO, "client %u: rpma_conn_next_event: %s", c->k + 1,
				rpmafio_rpma_err(ret, buf, sizeof(buf)));
			rpmafio_hub_cut_off(sv->s, c);
			continue;
		}
		if (cev != RPMA_CONN_CLOSED && cev != RPMA_CONN_LOST)
			continue;
		if (cev == RPMA_CONN_LOST)
			rpmafio_note(&sv->s->job, "the connection to %s was lost", c->name);
		client_gone(sv->s, c);
	}
	return all_gone(h);
}

/* is client c still there? */
static void keepalive(struct rpmafio_server *s, struct rpmafio_hub_client *c, uint64_t now)
{
	struct rpmafio_job *job = &s->job;
	char buf[128];
	int ret;

	switch (rpmafio_keepalive_tick(&c->ka, now)) {
	case RPMAFIO_KEEPALIVE_PROBE:
		if ((ret = rpma_write(c->conn, NULL, 0, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
				&probe_ctx))) {
			rpmafio_fail(job, EIO, "client %u (%s): cannot post a keepalive probe: %s",
				c->k + 1, c->addr, rpmafio_rpma_err(ret, buf, sizeof(buf)));
			rpmafio_hub_cut_off(s, c);
			return;
		}
		rpmafio_keepalive_probed(&c->ka, now);
		return;
	case RPMAFIO_KEEPALIVE_UNANSWERED:
		/* (the probe follows its responses on the queue pair: a client that takes
		 * none leaves it unanswered too) */
		rpmafio_fail(job, EIO, "%s did not answer a keepalive probe (sent after %u ms "
			"without a word from it) within %llu ms: %s; serving the others", c->name,
			job->o->keepalive,
			(unsigned long long)c->ka.give_up, c->stalled_ms ? "it took none of its "
			"responses meanwhile (does it post receives?), or its host or link is gone" :
			"its host or its link is gone");
		rpmafio_hub_cut_off(s, c);
		return;
	case RPMAFIO_KEEPALIVE_WAIT:
	default:
		return;
	}
}

/* fio's stop; the sends' completions; silent clients probed; done ones let go */
static enum rpmafio_poll_step serving_idle(void *arg)
{
	struct serving *sv = arg;
	struct rpmafio_server *s = sv->s;
	struct rpmafio_hub *h = s->hub;
	const uint64_t now = rpmafio_now_ms();
	enum rpmafio_poll_step r;

	if (rpmafio_stopping(&s->job))
		return RPMAFIO_POLL_DONE;
	if ((r = reap_sends(sv)))
		return r;
	hurry_if_waiting(sv, now);
	for (unsigned k = 0; k < h->n; k++) {
		struct rpmafio_hub_client *c = &h->clients[k];
		if (c->state == RPMAFIO_HUB_SERVING) {
			keepalive(s, c, now);
		} else if (c->state == RPMAFIO_HUB_CONNECTING) {
			if (hub_door_tick(s, c, now) == HUB_DOOR_FAILED)
				return RPMAFIO_POLL_FAILED;
		} else if (c->state == RPMAFIO_HUB_DONE &&
				now - c->done_ms >= s->job.o->connect_timeout) {
			rpmafio_note(&s->job, "client %u (%s) sent its last message but did not "
				"disconnect within connect_timeout=%u ms: done with it anyway", k + 1,
				c->addr, s->job.o->connect_timeout);
			client_gone(sv->s, c);
		}
	}
	return all_gone(h);
}

static enum rpmafio_poll_step serving_error(void *arg, const char *call, int ret)
{
	return rpmafio_server_call_failed(((struct serving *)arg)->s, call, ret);
}

static const struct rpmafio_poll_ops serving_ops = {
	.wc = serving_wc,
	.events = serving_events,
	.idle = serving_idle,
	.error = serving_error,
};

int rpmafio_hub_serve(struct rpmafio_server *s)
{
	struct rpmafio_hub *h = s->hub;
	struct serving sv = {.s = s, .ops = h->ops};
	char buf[128];
	int ret, rcq_fd = -1;

	if ((ret = rpma_cq_get_fd(h->rcq, &rcq_fd)))
		return rpmafio_fail(&s->job, EIO, "the receive CQ: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	rpmafio_poll_init_fd(&s->poll, h->epoll_fd, h->rcq, rcq_fd,
		(enum rpmafio_poll_mode)s->job.o->busy_wait_polling);
	set_pace(s);
	enum rpmafio_poll_step r = rpmafio_poll_run(&s->poll, &serving_ops, &sv);
	return r == RPMAFIO_POLL_FAILED || s->job.errmsg[0] ? -1 : 0;
}
