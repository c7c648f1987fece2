/* SPDX-License-Identifier: BSD-3-Clause */
/* connect.c -- a client connects, learns the server's memory, and leaves (see client.h) */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "common/mem.h"
#include "common/method.h"
#include "common/report.h"

/* pause between two connection attempts */
#define RETRY_DELAY_MS 200
/* how long a leaving client waits for the server to confirm the disconnection */
#define DISCONNECT_WAIT_MS 2000

/* a short sleep that ends early when fio stops the job: false if it did */
static bool pause_ms(struct rpmafio_job *job, unsigned ms)
{
	while (ms > 0) {
		unsigned slice = ms < RPMAFIO_POLL_SLICE_MS ? ms : RPMAFIO_POLL_SLICE_MS;
		usleep(slice * 1000);
		ms -= slice;
		if (rpmafio_stopping(job))
			return false;
	}
	return true;
}

static const char *answer_str(enum rpma_conn_event ev)
{
	switch (ev) {
	case RPMA_CONN_REJECTED:
		return "rejected (is the server running and listening on this port? does its "
			"allow_clients= admit this host, and is secret_file= the same on both ends?)";
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
static int learn_server(struct rpmafio_client *c)
{
	struct rpmafio_job *job = &c->job;
	struct rpma_conn_private_data pdata = {NULL, 0};
	char why[RPMAFIO_ERR_LEN], buf[128];
	int ret;

	if ((ret = rpma_conn_get_private_data(c->conn, &pdata)))
		return rpmafio_fail(job, EPROTO, "rpma_conn_get_private_data: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	rpmafio_debug(job, "%u bytes of private data from the server", (unsigned)pdata.len);
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

/* how one connection attempt ended */
enum attempt_result {
	ATTEMPT_ESTABLISHED,
	ATTEMPT_NOT_ACCEPTED,	/* *ev says why; c->conn is gone: try again */
	ATTEMPT_FAILED,		/* after rpmafio_fail() */
};

/* One attempt: request a connection and wait for the answer until the deadline. */
static enum attempt_result try_connect(struct rpmafio_client *c, const struct rpma_conn_cfg *cfg,
		uint64_t deadline, unsigned attempt, enum rpma_conn_event *ev)
{
	struct rpmafio_job *job = &c->job;
	const char *addr = job->o->serverip;
	struct rpma_conn_req *req = NULL;
	uint8_t auth[RPMAFIO_AUTH_PDATA_MAX];
	struct rpma_conn_private_data pdata = {auth, 0};
	char buf[128];
	int ret, fd;

	/* the secret, if there is one, goes with the request (common/access.h) */
	pdata.len = (uint8_t)rpmafio_secret_encode(&job->secret, auth);
	if ((ret = rpma_conn_req_new(c->peer, addr, job->port, cfg, &req))) {
		rpmafio_fail(job, EHOSTUNREACH, "cannot request a connection to %s:%s: %s",
			addr, job->port, rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return ATTEMPT_FAILED;
	}
	ret = rpma_conn_req_connect(&req, pdata.len ? &pdata : NULL, &c->conn);
	int connect_errno = errno;
	explicit_bzero(auth, sizeof(auth));
	*ev = RPMA_CONN_UNDEFINED;
	/* iWARP connects over TCP: a port nobody listens on yet refuses at once, where
	 * RoCE answers REJECTED a moment later; either way the server may still come */
	if (ret == RPMA_E_PROVIDER && connect_errno == ECONNREFUSED) {
		rpmafio_debug(job, "connection attempt %u to %s:%s: refused at once", attempt,
			addr, job->port);
		*ev = RPMA_CONN_REJECTED;
		return ATTEMPT_NOT_ACCEPTED;
	}
	if (ret) {
		rpmafio_fail(job, ECONNREFUSED, "cannot connect to %s:%s: %s", addr,
			job->port, rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return ATTEMPT_FAILED;
	}
	if ((ret = rpma_conn_get_event_fd(c->conn, &fd))) {
		rpmafio_fail(job, EIO, "rpma_conn_get_event_fd: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return ATTEMPT_FAILED;
	}

	uint64_t now = rpmafio_now_ms();
	enum rpmafio_fd_wait w = rpmafio_wait_fd(fd,
		now < deadline ? (int)(deadline - now) : 0, job->stop);
	if (w == RPMAFIO_FD_STOPPED) {
		rpmafio_fail(job, ECANCELED, "stopped while connecting to %s:%s", addr, job->port);
		return ATTEMPT_FAILED;
	}
	if (w == RPMAFIO_FD_READABLE && (ret = rpma_conn_next_event(c->conn, ev))) {
		rpmafio_fail(job, EIO, "rpma_conn_next_event: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return ATTEMPT_FAILED;
	}
	rpmafio_debug(job, "connection attempt %u to %s:%s: %s", attempt, addr, job->port,
		w == RPMAFIO_FD_READABLE ? rpma_utils_conn_event_2str(*ev) : "timed out");
	if (*ev == RPMA_CONN_ESTABLISHED)
		return ATTEMPT_ESTABLISHED;
	(void) rpma_conn_delete(&c->conn);
	return ATTEMPT_NOT_ACCEPTED;
}

/* Try until a server accepts, or connect_timeout passes. */
static int connect_retrying(struct rpmafio_client *c, const struct rpma_conn_cfg *cfg)
{
	struct rpmafio_job *job = &c->job;
	const unsigned timeout = job->o->connect_timeout;
	const uint64_t deadline = rpmafio_now_ms() + timeout;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	for (unsigned attempt = 1;; attempt++) {
		enum attempt_result r = try_connect(c, cfg, deadline, attempt, &ev);
		if (r != ATTEMPT_NOT_ACCEPTED)
			return r == ATTEMPT_ESTABLISHED ? 0 : -1;
		if (rpmafio_now_ms() + RETRY_DELAY_MS >= deadline)
			return rpmafio_fail(job, ETIMEDOUT, "no server accepted a connection at "
				"%s:%s within connect_timeout=%u ms (%u attempts; the last one: %s)",
				job->o->serverip, job->port, timeout, attempt, answer_str(ev));
		if (!pause_ms(job, RETRY_DELAY_MS))
			return rpmafio_fail(job, ECANCELED, "stopped while connecting to %s:%s",
				job->o->serverip, job->port);
	}
}

int rpmafio_client_connect(struct rpmafio_client *c, const struct rpmafio_queues *q)
{
	struct rpmafio_job *job = &c->job;
	const char *addr = job->o->serverip;
	struct rpma_conn_cfg *cfg = NULL;
	struct ibv_context *dev = NULL;
	char buf[128];
	int ret, failed = -1;

	if ((ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev)))
		return rpmafio_fail(job, EHOSTUNREACH, "serverip=%s: no local RDMA device can "
			"reach this address: %s", addr, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpma_peer_new(dev, &c->peer)))
		return rpmafio_fail(job, ENODEV, "rpma_peer_new: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpmafio_queues_cfg(q, &cfg)))
		return rpmafio_fail(job, EINVAL, "queue sizes for iodepth=%u: %s", c->depth,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (connect_retrying(c, cfg))
		goto out;
	if ((ret = rpma_conn_get_cq(c->conn, &c->cq)) ||
			(ret = rpmafio_poll_init(&c->poll, c->conn, c->cq,
				(enum rpmafio_poll_mode)job->o->busy_wait_polling))) {
		rpmafio_fail(job, EIO, "the connection's completion queue: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		goto out;
	}
	failed = learn_server(c);
out:
	(void) rpma_conn_cfg_delete(&cfg);
	return failed;
}

int rpmafio_client_register_buffers(struct rpmafio_client *c, void *base, size_t size)
{
	char buf[128];
	int ret;

	if (base == NULL || size == 0)
		return rpmafio_fail(&c->job, EINVAL, "fio allocated no I/O buffers");
	/* the buffers are only ever sources of writes and destinations of reads */
	if ((ret = rpma_mr_reg(c->peer, base, size,
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &c->buf_mr))) {
		char hint[160];
		(void)rpmafio_memlock_hint(errno, hint, sizeof(hint));
		return rpmafio_fail(&c->job, EIO, "cannot register fio's I/O buffers (%zu bytes): %s%s",
			size, rpmafio_rpma_err(ret, buf, sizeof(buf)), hint);
	}
	c->buf_base = base;
	return 0;
}

void rpmafio_client_disconnect(struct rpmafio_client *c)
{
	if (c->conn) {
		enum rpma_conn_event ev;
		int fd;
		/*
		 * fio marks every job that ends as stopping (td->terminate), so the
		 * wait looks at no stop flag; a job stopped early does not wait
		 */
		static const bool never = false;
		int wait = rpmafio_stop_requested(&c->job) ? 0 : DISCONNECT_WAIT_MS;
		if (rpma_conn_disconnect(c->conn) == 0 &&
				rpma_conn_get_event_fd(c->conn, &fd) == 0 &&
				rpmafio_wait_fd(fd, wait, &never) == RPMAFIO_FD_READABLE)
			(void) rpma_conn_next_event(c->conn, &ev);
		(void) rpma_conn_delete(&c->conn);
	}
}

int rpmafio_client_release_buffers(struct rpmafio_client *c)
{
	char buf[128];
	int ret;

	/* deregistering fences the NIC off the buffers, even with the connection up */
	if (c->buf_mr && (ret = rpma_mr_dereg(&c->buf_mr))) {
		rpmafio_note(&c->job, "cannot deregister fio's I/O buffers: %s; their memory is "
			"kept", rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return -1;
	}
	c->buf_base = NULL;
	return 0;
}

void rpmafio_client_release(struct rpmafio_client *c)
{
	(void) rpmafio_client_release_buffers(c);
	(void) rpma_mr_remote_delete(&c->server_mr);
	(void) rpma_peer_delete(&c->peer);
}
