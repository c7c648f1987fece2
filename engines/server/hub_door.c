/* SPDX-License-Identifier: BSD-3-Clause */
/* hub_door.c -- a hub's client from its connection request to its connection (see hub_door.h) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "common/poll.h"
#include "common/report.h"
#include "hub_door.h"

/* c's port wakes the loop (EPOLLIN) or not (0: a handshake is on) */
static int door_arm(struct rpmafio_hub *h, struct rpmafio_hub_client *c, uint32_t events)
{
	struct epoll_event eev = {.events = events, .data.u32 = HUB_DOOR_TAG | c->k};
	return epoll_ctl(h->epoll_fd, EPOLL_CTL_MOD, c->ep_fd, &eev);
}

int hub_door_open(struct rpmafio_server *s, struct rpmafio_hub_client *c)
{
	struct epoll_event eev = {.events = EPOLLIN, .data.u32 = HUB_DOOR_TAG | c->k};
	char buf[128];
	int ret;

	if ((ret = rpma_ep_get_fd(c->ep, &c->ep_fd)))
		return rpmafio_fail(&s->job, EIO, "rpma_ep_get_fd: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (epoll_ctl(s->hub->epoll_fd, EPOLL_CTL_ADD, c->ep_fd, &eev))
		return rpmafio_fail(&s->job, errno, "epoll_ctl: %s", strerror(errno));
	return 0;
}

/* c's half-made connection deleted, c waiting on its port again: why (detail) in a note */
static enum hub_door_step door_drop(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		const char *why, const char *detail)
{
	struct rpmafio_hub *h = s->hub;

	rpmafio_note(&s->job, "dropped the connection of client %u (%s, port %s) before it was "
		"established (%s%s%s): its port listens on", c->k + 1, c->addr, c->port, why,
		detail[0] ? ": " : "", detail);
	if (c->ev_fd >= 0)
		(void) epoll_ctl(h->epoll_fd, EPOLL_CTL_DEL, c->ev_fd, NULL);
	c->ev_fd = -1;
	c->cq = NULL;
	c->qp_num = 0;
	(void) rpma_conn_delete(&c->conn); /* (rejects it, if it is still asking) */
	c->addr[0] = '\0';
	c->state = RPMAFIO_HUB_WAITING;
	if (door_arm(h, c, EPOLLIN)) {
		rpmafio_fail(&s->job, errno, "cannot listen on port %s again (client %u): "
			"epoll_ctl: %s", c->port, c->k + 1, strerror(errno));
		return HUB_DOOR_FAILED;
	}
	return HUB_DOOR_DROPPED;
}

enum hub_door_step hub_door_request(struct rpmafio_server *s, struct rpmafio_hub_client *c)
{
	struct rpma_conn_req *req = NULL;
	struct sockaddr_storage addr;
	int ret;

	if ((ret = rpma_ep_next_conn_req(c->ep, s->hub->cfg, &req)))
		return rpmafio_server_request_lost(s, ret) == RPMAFIO_LISTEN_ON ? HUB_DOOR_WAIT :
			HUB_DOOR_FAILED;
	s->requests_lost = 0;
	if (!rpmafio_server_admits(s, req)) {
		(void) rpma_conn_req_delete(&req); /* rejects it */
		return HUB_DOOR_WAIT;
	}
	if (rpma_conn_req_get_peer_addr(req, &addr) == 0)
		rpmafio_addr_str(&addr, c->addr, sizeof(c->addr));
	snprintf(c->name, sizeof(c->name), "client %u (%s, port %s)", c->k + 1, c->addr, c->port);
	c->gen = (c->gen + 1) & RPMAFIO_HUB_GEN_MASK;
	const struct rpmafio_hub_ops *ops = s->hub->ops;
	if (ops && ops->accepting && (ret = ops->accepting(s, c, req))) {
		char buf[128];
		rpmafio_note(&s->job, "refused the connection of client %u (%s, port %s): cannot "
			"post its receives: %s; its port listens on", c->k + 1, c->addr, c->port,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		c->addr[0] = '\0';
		(void) rpma_conn_req_delete(&req); /* rejects it */
		return HUB_DOOR_WAIT;
	}
	struct rpma_conn_private_data pdata = {c->ws_bytes, RPMAFIO_WS_SIZE};
	return hub_door_accepted(s, c, rpma_conn_req_connect(&req, &pdata, &c->conn));
}

enum hub_door_step hub_door_accepted(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		int ret)
{
	struct epoll_event eev = {.events = EPOLLIN, .data.u32 = c->k};
	char buf[128];

	if (ret)
		return door_drop(s, c, "accepting it failed", rpmafio_rpma_err(ret, buf,
			sizeof(buf)));
	if ((ret = rpma_conn_get_event_fd(c->conn, &c->ev_fd)) ||
			(ret = rpma_conn_get_qp_num(c->conn, &c->qp_num)))
		return door_drop(s, c, "its connection", rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (epoll_ctl(s->hub->epoll_fd, EPOLL_CTL_ADD, c->ev_fd, &eev)) {
		c->ev_fd = -1; /* (not in the set) */
		return door_drop(s, c, "epoll_ctl", strerror(errno));
	}
	/* its port quiet until this ends: a next request waits in the port's queue */
	if (door_arm(s->hub, c, 0))
		return door_drop(s, c, "epoll_ctl", strerror(errno));
	c->connect_due = rpmafio_now_ms() + s->job.o->connect_timeout;
	c->state = RPMAFIO_HUB_CONNECTING;
	return HUB_DOOR_WAIT;
}

enum hub_door_step hub_door_event(struct rpmafio_server *s, struct rpmafio_hub_client *c)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret = rpma_conn_next_event(c->conn, &ev);

	return hub_door_on_event(s, c, ret, ev);
}

enum hub_door_step hub_door_on_event(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		int ret, enum rpma_conn_event ev)
{
	char buf[128];

	if (ret == RPMA_E_NO_EVENT)
		return HUB_DOOR_WAIT;
	if (ret)
		return door_drop(s, c, "rpma_conn_next_event", rpmafio_rpma_err(ret, buf,
			sizeof(buf)));
	if (ev != RPMA_CONN_ESTABLISHED)
		return door_drop(s, c, rpma_utils_conn_event_2str(ev), "");
	return hub_door_in(s, c);
}

enum hub_door_step hub_door_in(struct rpmafio_server *s, struct rpmafio_hub_client *c)
{
	struct rpmafio_job *job = &s->job;
	char buf[128];
	int ret;

	if ((ret = rpma_conn_get_cq(c->conn, &c->cq)))
		return door_drop(s, c, "its CQ", rpmafio_rpma_err(ret, buf, sizeof(buf)));
	/* one client per port: the port is closed (a request waiting in it is refused) */
	(void) epoll_ctl(s->hub->epoll_fd, EPOLL_CTL_DEL, c->ep_fd, NULL);
	c->ep_fd = -1;
	(void) rpma_ep_shutdown(&c->ep);
	rpmafio_keepalive_init(&c->ka, job->o->keepalive,
		rpmafio_keepalive_give_up(job->o->keepalive), rpmafio_now_ms());
	c->state = RPMAFIO_HUB_SERVING;
	rpmafio_debug(job, "client %u of %u connected from %s on port %s", c->k + 1, s->hub->n,
		c->addr, c->port);
	return HUB_DOOR_IN;
}

enum hub_door_step hub_door_tick(struct rpmafio_server *s, struct rpmafio_hub_client *c,
		uint64_t now)
{
	char why[64];

	if (now < c->connect_due)
		return HUB_DOOR_WAIT;
	snprintf(why, sizeof(why), "its handshake not done within connect_timeout=%u ms",
		s->job.o->connect_timeout);
	return door_drop(s, c, why, "");
}
