/* SPDX-License-Identifier: BSD-3-Clause */
/* conn.c -- connection set-up and tear-down for clients and servers (see conn.h) */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"

/* how often a wait looks at td->terminate */
#define WAIT_SLICE_MS 100
/* pause between two connection attempts of a client */
#define RETRY_DELAY_MS 200
/* how long a leaving client waits for the server to confirm the disconnection */
#define DISCONNECT_WAIT_MS 2000

int rpmafio_wait_fd(struct thread_data *td, int fd, int timeout_ms)
{
	uint64_t deadline = timeout_ms < 0 ? 0 : rpmafio_now_ms() + (uint64_t)timeout_ms;
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	for (;;) {
		int slice = WAIT_SLICE_MS;
		if (timeout_ms >= 0) {
			uint64_t now = rpmafio_now_ms();
			if (now >= deadline)
				slice = 0;
			else if (deadline - now < (uint64_t)slice)
				slice = (int)(deadline - now);
		}
		int n = poll(&pfd, 1, slice);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
		if (rpmafio_stopping(td))
			return -1;
		if (timeout_ms >= 0 && slice == 0)
			return 0;
	}
}

/* a short sleep that ends early when fio stops the job: -1 if it did */
static int pause_ms(struct thread_data *td, unsigned ms)
{
	while (ms > 0) {
		unsigned slice = ms < WAIT_SLICE_MS ? ms : WAIT_SLICE_MS;
		usleep(slice * 1000);
		ms -= slice;
		if (rpmafio_stopping(td))
			return -1;
	}
	return 0;
}

static const char *answer_str(enum rpma_conn_event ev)
{
	switch (ev) {
	case RPMA_CONN_REJECTED:
		return "rejected (is the server running and listening on this port?)";
	case RPMA_CONN_UNREACHABLE:
		return "unreachable";
	case RPMA_CONN_LOST:
		return "the connection was lost while being set up";
	case RPMA_CONN_CLOSED:
		return "closed by the server";
	case RPMA_CONN_UNDEFINED:
	default:
		return "no answer";
	}
}

/* Read the server's workspace and describe its memory. */
static int client_learn_server(struct rpmafio_job *job)
{
	struct rpmafio_client *c = &job->client;
	struct rpma_conn_private_data pdata = {NULL, 0};
	char why[RPMAFIO_ERR_LEN], buf[128];
	int ret;

	if ((ret = rpma_conn_get_private_data(c->conn, &pdata)))
		return rpmafio_fail(job, EPROTO, "rpma_conn_get_private_data: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	dprint(FD_NET, "%s: job %u: %u bytes of private data from the server\n",
		job->eng->name, job->index + 1, (unsigned)pdata.len);
	if (rpmafio_ws_decode(pdata.ptr, pdata.len, &c->ws, why, sizeof(why)))
		return rpmafio_fail(job, EPROTO, "the server at %s:%s sent an invalid workspace: %s",
			job->o->serverip, job->port, why);
	if ((ret = rpma_mr_remote_from_descriptor(c->ws.mr_desc, c->ws.mr_desc_size,
			&c->server_mr)))
		return rpmafio_fail(job, EPROTO, "the server's memory descriptor (%u bytes) is "
			"invalid: %s", c->ws.mr_desc_size, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpma_mr_remote_get_size(c->server_mr, &c->server_size)))
		return rpmafio_fail(job, EPROTO, "rpma_mr_remote_get_size: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

int rpmafio_client_connect(struct rpmafio_job *job, const struct rpma_conn_cfg *cfg)
{
	struct thread_data *td = job->td;
	struct rpmafio_client *c = &job->client;
	const char *addr = job->o->serverip;
	const unsigned timeout = job->o->connect_timeout;
	enum rpma_conn_event last = RPMA_CONN_UNDEFINED;
	struct ibv_context *dev = NULL;
	char buf[128];
	unsigned attempts = 0;
	int ret, fd;

	if ((ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev)))
		return rpmafio_fail(job, EHOSTUNREACH, "serverip=%s: no local RDMA device can "
			"reach this address: %s", addr, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpma_peer_new(dev, &c->peer)))
		return rpmafio_fail(job, ENODEV, "rpma_peer_new: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));

	const uint64_t deadline = rpmafio_now_ms() + timeout;
	for (;;) {
		struct rpma_conn_req *req = NULL;
		attempts++;
		if ((ret = rpma_conn_req_new(c->peer, addr, job->port, cfg, &req)))
			return rpmafio_fail(job, EHOSTUNREACH, "cannot request a connection to "
				"%s:%s: %s", addr, job->port, rpmafio_rpma_err(ret, buf, sizeof(buf)));
		if ((ret = rpma_conn_req_connect(&req, NULL, &c->conn)))
			return rpmafio_fail(job, ECONNREFUSED, "cannot connect to %s:%s: %s", addr,
				job->port, rpmafio_rpma_err(ret, buf, sizeof(buf)));
		if ((ret = rpma_conn_get_event_fd(c->conn, &fd)))
			return rpmafio_fail(job, EIO, "rpma_conn_get_event_fd: %s",
				rpmafio_rpma_err(ret, buf, sizeof(buf)));

		uint64_t now = rpmafio_now_ms();
		int left = now < deadline ? (int)(deadline - now) : 0;
		int w = rpmafio_wait_fd(td, fd, left);
		enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
		if (w < 0)
			return rpmafio_fail(job, ECANCELED, "stopped while connecting to %s:%s",
				addr, job->port);
		if (w > 0 && (ret = rpma_conn_next_event(c->conn, &ev)))
			return rpmafio_fail(job, EIO, "rpma_conn_next_event: %s",
				rpmafio_rpma_err(ret, buf, sizeof(buf)));
		dprint(FD_NET, "%s: job %u: connection attempt %u to %s:%s: %s\n", job->eng->name,
			job->index + 1, attempts, addr, job->port,
			w > 0 ? rpma_utils_conn_event_2str(ev) : "timed out");
		if (ev == RPMA_CONN_ESTABLISHED)
			break;

		/* not (yet) accepted: try again until the deadline */
		last = ev;
		(void) rpma_conn_delete(&c->conn);
		if (w == 0 || rpmafio_now_ms() + RETRY_DELAY_MS >= deadline)
			return rpmafio_fail(job, ETIMEDOUT, "no server accepted a connection at "
				"%s:%s within connect_timeout=%u ms (%u attempts; the last one: %s)",
				addr, job->port, timeout, attempts, answer_str(last));
		if (pause_ms(td, RETRY_DELAY_MS))
			return rpmafio_fail(job, ECANCELED, "stopped while connecting to %s:%s",
				addr, job->port);
	}

	c->ev_fd = fd;
	if ((ret = rpma_conn_get_cq(c->conn, &c->cq)) || (ret = rpma_cq_get_fd(c->cq, &c->cq_fd)))
		return rpmafio_fail(job, EIO, "the connection's completion queue: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return client_learn_server(job);
}

void rpmafio_client_disconnect(struct rpmafio_job *job)
{
	struct rpmafio_client *c = &job->client;
	if (c->conn) {
		enum rpma_conn_event ev;
		if (rpma_conn_disconnect(c->conn) == 0 &&
				rpmafio_wait_fd(job->td, c->ev_fd, DISCONNECT_WAIT_MS) > 0)
			(void) rpma_conn_next_event(c->conn, &ev);
		(void) rpma_conn_delete(&c->conn);
	}
	(void) rpma_mr_dereg(&c->buf_mr);
	(void) rpma_mr_remote_delete(&c->server_mr);
	(void) rpma_peer_delete(&c->peer);
}

int rpmafio_server_register(struct rpmafio_job *job, int usage)
{
	struct rpmafio_server *s = &job->server;
	const char *addr = job->o->serverip;
	struct ibv_context *dev = NULL;
	size_t desc_size = 0;
	char buf[128];
	int ret;

	if ((ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &dev)))
		return rpmafio_fail(job, EADDRNOTAVAIL, "serverip=%s: no local RDMA device has "
			"this address: %s", addr, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpma_peer_new(dev, &s->peer)))
		return rpmafio_fail(job, ENODEV, "rpma_peer_new: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpma_mr_reg(s->peer, s->mem.ptr, s->mem.size, usage, &s->mr)))
		return rpmafio_fail(job, EIO, "cannot register the %s memory (%zu bytes) for "
			"RDMA: %s", rpmafio_mem_kind_str(s->mem.kind), s->mem.size,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpma_mr_get_descriptor_size(s->mr, &desc_size)))
		return rpmafio_fail(job, EIO, "rpma_mr_get_descriptor_size: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (desc_size > RPMAFIO_WS_DESC_MAX)
		return rpmafio_fail(job, EPROTO, "the memory descriptor is %zu bytes, more than "
			"the workspace holds (%d)", desc_size, RPMAFIO_WS_DESC_MAX);

	struct rpmafio_ws ws = {
		.max_msg_num = s->max_msg_num,
		.direct_write_to_pmem = job->o->direct_write_to_pmem != 0,
		.mr_desc_size = (uint8_t)desc_size,
	};
	if ((ret = rpma_mr_get_descriptor(s->mr, ws.mr_desc)))
		return rpmafio_fail(job, EIO, "rpma_mr_get_descriptor: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (rpmafio_ws_encode(&ws, s->ws_bytes))
		return rpmafio_fail(job, EPROTO, "cannot encode the workspace");
	return 0;
}

int rpmafio_server_listen(struct rpmafio_job *job)
{
	struct rpmafio_server *s = &job->server;
	char buf[128];
	int ret;

	if ((ret = rpma_ep_listen(s->peer, job->o->serverip, job->port, &s->ep)))
		return rpmafio_fail(job, EADDRINUSE, "cannot listen on %s:%s: %s",
			job->o->serverip, job->port, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	rpmafio_note(job, "listening on %s:%s (%zu bytes of %s memory)", job->o->serverip,
		job->port, s->mem.size, rpmafio_mem_kind_str(s->mem.kind));
	return 0;
}

int rpmafio_server_accept(struct rpmafio_job *job, const struct rpma_conn_cfg *cfg)
{
	struct rpmafio_server *s = &job->server;
	struct rpma_conn_req *req = NULL;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	char buf[128];
	int ret, fd;

	if ((ret = rpma_ep_get_fd(s->ep, &fd)))
		return rpmafio_fail(job, EIO, "rpma_ep_get_fd: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (rpmafio_wait_fd(job->td, fd, -1) < 0)
		return rpmafio_fail(job, ECANCELED, "stopped before a client connected");
	if ((ret = rpma_ep_next_conn_req(s->ep, cfg, &req)))
		return rpmafio_fail(job, EIO, "cannot take the client's connection request: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (job->eng->server.prepare && job->eng->server.prepare(job, req)) {
		(void) rpma_conn_req_delete(&req);
		return -1;
	}
	struct rpma_conn_private_data pdata = {s->ws_bytes, RPMAFIO_WS_SIZE};
	if ((ret = rpma_conn_req_connect(&req, &pdata, &s->conn)))
		return rpmafio_fail(job, ECONNABORTED, "cannot accept the client's connection: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpma_conn_get_event_fd(s->conn, &fd)))
		return rpmafio_fail(job, EIO, "rpma_conn_get_event_fd: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	int w = rpmafio_wait_fd(job->td, fd, (int)job->o->connect_timeout);
	if (w > 0 && (ret = rpma_conn_next_event(s->conn, &ev)))
		return rpmafio_fail(job, EIO, "rpma_conn_next_event: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (ev != RPMA_CONN_ESTABLISHED)
		return rpmafio_fail(job, ECONNABORTED, "the client's connection was not "
			"established within connect_timeout=%u ms (%s)", job->o->connect_timeout,
			w > 0 ? rpma_utils_conn_event_2str(ev) : "no event");
	(void) rpma_ep_shutdown(&s->ep);
	dprint(FD_NET, "%s: job %u: a client connected\n", job->eng->name, job->index + 1);
	if ((ret = rpma_conn_get_cq(s->conn, &s->cq)))
		return rpmafio_fail(job, EIO, "rpma_conn_get_cq: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

int rpmafio_server_wait_disconnect(struct rpmafio_job *job, int timeout_ms)
{
	struct rpmafio_server *s = &job->server;
	enum rpma_conn_event ev;
	char buf[128];
	int ret, fd;

	if (s->disconnected)
		return 1;
	if ((ret = rpma_conn_get_event_fd(s->conn, &fd)))
		return rpmafio_fail(job, EIO, "rpma_conn_get_event_fd: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	for (;;) {
		int w = rpmafio_wait_fd(job->td, fd, timeout_ms);
		if (w == 0)
			return 0;
		if (w < 0)
			return rpmafio_stopping(job->td) ? 1 : rpmafio_fail(job, EIO,
				"waiting for the client's events: %s", strerror(errno));
		if ((ret = rpma_conn_next_event(s->conn, &ev)))
			return rpmafio_fail(job, EIO, "rpma_conn_next_event: %s",
				rpmafio_rpma_err(ret, buf, sizeof(buf)));
		if (ev == RPMA_CONN_CLOSED || ev == RPMA_CONN_LOST) {
			if (ev == RPMA_CONN_LOST)
				rpmafio_note(job, "the connection to the client was lost");
			s->disconnected = true;
			return 1;
		}
	}
}

void rpmafio_server_teardown(struct rpmafio_job *job)
{
	struct rpmafio_server *s = &job->server;
	if (s->conn) {
		(void) rpma_conn_disconnect(s->conn);
		(void) rpma_conn_delete(&s->conn);
	}
	(void) rpma_ep_shutdown(&s->ep);
	(void) rpma_mr_dereg(&s->mr);
	(void) rpma_peer_delete(&s->peer);
}
