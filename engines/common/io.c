/* SPDX-License-Identifier: BSD-3-Clause */
/* io.c -- the client's I/O path (see io.h) */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io.h"

/* completions taken from the CQ at once */
#define REAP_BATCH 16
/* busy polling: look at the clock and the connection's events every this many empty polls */
#define SPIN_CHECK 1024
/* completion-channel waits: the longest single sleep */
#define WAIT_SLICE_MS 100

int rpmafio_io_init(struct rpmafio_job *job)
{
	struct rpmafio_client *c = &job->client;
	c->depth = job->td->o.iodepth ? job->td->o.iodepth : 1;
	uint32_t cap = rpmafio_ring_capacity(c->depth);
	void **slots = calloc(cap, sizeof(*slots));
	c->queued = calloc(c->depth, sizeof(*c->queued));
	c->events = calloc(c->depth, sizeof(*c->events));
	if (slots == NULL || c->queued == NULL || c->events == NULL) {
		free(slots);
		return rpmafio_fail(job, ENOMEM, "no memory for %u I/O slots", c->depth);
	}
	rpmafio_ring_init(&c->ring, slots, cap);
	c->busy_wait = job->o->busy_wait_polling != 0;
	c->timeout_ms = job->o->connect_timeout;
	c->cq_fd = c->ev_fd = -1;
	return 0;
}

void rpmafio_io_fini(struct rpmafio_job *job)
{
	struct rpmafio_client *c = &job->client;
	free(c->ring.slot);
	free(c->queued);
	free(c->events);
	c->ring.slot = NULL;
	c->queued = c->events = NULL;
}

int rpmafio_io_register_buffers(struct rpmafio_job *job)
{
	struct thread_data *td = job->td;
	struct rpmafio_client *c = &job->client;
	char buf[128];
	int ret;

	if (td->orig_buffer == NULL || td->orig_buffer_size == 0)
		return rpmafio_fail(job, EINVAL, "fio allocated no I/O buffers");
	/* the buffers are only ever sources of writes and destinations of reads */
	if ((ret = rpma_mr_reg(c->peer, td->orig_buffer, td->orig_buffer_size,
			RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_READ_DST, &c->buf_mr)))
		return rpmafio_fail(job, EIO, "cannot register fio's I/O buffers (%zu bytes): %s",
			td->orig_buffer_size, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	c->buf_base = td->orig_buffer;
	return 0;
}

void rpmafio_io_break(struct rpmafio_job *job, int err, const char *fmt, ...)
{
	struct rpmafio_client *c = &job->client;

	if (!c->broken) {
		char msg[RPMAFIO_ERR_LEN];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		c->broken = true;
		c->broken_err = err;
		rpmafio_fail(job, err, "%s", msg);
	}
	uint32_t n = rpmafio_ring_inflight(&c->ring);
	for (uint32_t i = 0; i < n; i++) {
		struct io_u *io_u = rpmafio_ring_inflight_at(&c->ring, i);
		io_u->error = c->broken_err;
	}
	rpmafio_ring_complete_all(&c->ring);
}

/* Post one read or write of io_u with the given completion flags. */
static inline int post_io(struct rpmafio_client *c, struct io_u *io_u, int flags)
{
	size_t local = (size_t)((char *)io_u->xfer_buf - c->buf_base);
	if (io_u->ddir == DDIR_WRITE)
		return rpma_write(c->conn, c->server_mr, io_u->offset, c->buf_mr, local,
			io_u->xfer_buflen, flags, io_u);
	return rpma_read(c->conn, c->buf_mr, local, c->server_mr, io_u->offset,
		io_u->xfer_buflen, flags, io_u);
}

static void post_failed(struct rpmafio_job *job, struct io_u *io_u, int ret)
{
	char buf[128];
	rpmafio_io_break(job, EIO, "cannot post an RDMA %s of %llu bytes at offset %llu: %s",
		io_u->ddir == DDIR_WRITE ? "write" : "read", io_u->xfer_buflen, io_u->offset,
		rpmafio_rpma_err(ret, buf, sizeof(buf)));
}

static const char *wc_hint(enum ibv_wc_status status)
{
	switch (status) {
	case IBV_WC_RETRY_EXC_ERR:
		return "the server does not answer: is it still running?";
	case IBV_WC_REM_ACCESS_ERR:
		return "the server refused the access: beyond its memory, or not allowed";
	case IBV_WC_WR_FLUSH_ERR:
		return "the connection had already failed";
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return "the server had no receive buffer posted";
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_LOC_ACCESS_ERR:
		return "a local buffer was not usable";
	default:
		return "an RDMA transport error";
	}
}

/* One completion from the CQ. */
static inline void process(struct rpmafio_job *job, const struct ibv_wc *wc)
{
	struct rpmafio_client *c = &job->client;
	struct io_u *last;

	if (wc->status != IBV_WC_SUCCESS) {
		if (!c->broken)
			rpmafio_io_break(job, EIO, "an RDMA operation failed: %s (%s)",
				ibv_wc_status_str(wc->status), wc_hint(wc->status));
		return;
	}
	if (c->broken)
		return; /* a late completion: its io_u has been failed already */
	int r = job->eng->client.completion(job, wc, &last);
	if (r == 0)
		return;
	if (r < 0 || rpmafio_ring_complete_upto(&c->ring, last) < 0)
		rpmafio_io_break(job, EIO, "a completion for no request in flight "
			"(opcode %d, wr_id 0x%llx)", (int)wc->opcode, (unsigned long long)wc->wr_id);
}

/* Look at the connection's events without blocking: is the server gone? */
static void check_conn(struct rpmafio_job *job)
{
	struct rpmafio_client *c = &job->client;
	struct pollfd pfd = {.fd = c->ev_fd, .events = POLLIN};
	enum rpma_conn_event ev;

	if (poll(&pfd, 1, 0) != 1 || rpma_conn_next_event(c->conn, &ev))
		return;
	if (ev == RPMA_CONN_CLOSED)
		rpmafio_io_break(job, ECONNRESET, "the server at %s:%s closed the connection",
			job->o->serverip, job->port);
	else if (ev == RPMA_CONN_LOST)
		rpmafio_io_break(job, ECONNRESET, "the connection to the server at %s:%s was lost",
			job->o->serverip, job->port);
}

/* No completion for a while: give up after connect_timeout ms. */
static void check_stalled(struct rpmafio_job *job, uint64_t *since)
{
	struct rpmafio_client *c = &job->client;
	uint64_t now = rpmafio_now_ms();
	if (*since == 0) {
		*since = now;
		return;
	}
	if (now - *since >= c->timeout_ms)
		rpmafio_io_break(job, ETIMEDOUT, "no completion from the server at %s:%s for %u ms "
			"(connect_timeout): is it still there?", job->o->serverip, job->port,
			c->timeout_ms);
}

/* Sleep on the completion channel (and the connection's events) for a while. */
static void wait_channel(struct rpmafio_job *job)
{
	struct rpmafio_client *c = &job->client;
	struct pollfd pfd[2] = {
		{.fd = c->cq_fd, .events = POLLIN},
		{.fd = c->ev_fd, .events = POLLIN},
	};
	char buf[128];
	int ret;

	if (poll(pfd, 2, WAIT_SLICE_MS) <= 0)
		return;
	if ((pfd[0].revents & POLLIN) && (ret = rpma_cq_wait(c->cq)) &&
			ret != RPMA_E_NO_COMPLETION)
		rpmafio_io_break(job, EIO, "rpma_cq_wait: %s", rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (pfd[1].revents & POLLIN)
		check_conn(job);
}

/*
 * Take completions until at least `want` io_us are done (or the connection
 * broke, which completes everything in flight). want == 0: one pass, no wait.
 */
static void reap(struct rpmafio_job *job, uint32_t want)
{
	struct rpmafio_client *c = &job->client;
	struct ibv_wc wc[REAP_BATCH];
	uint64_t since = 0;
	unsigned spins = 0;
	char buf[128];

	for (;;) {
		int got = 0;
		int ret = rpma_cq_get_wc(c->cq, REAP_BATCH, wc, &got);
		if (ret == 0) {
			for (int i = 0; i < got; i++)
				process(job, &wc[i]);
			since = 0;
			if (rpmafio_ring_ready(&c->ring) >= want)
				return;
			continue;
		}
		if (ret != RPMA_E_NO_COMPLETION) {
			rpmafio_io_break(job, EIO, "rpma_cq_get_wc: %s",
				rpmafio_rpma_err(ret, buf, sizeof(buf)));
			return;
		}
		if (rpmafio_ring_ready(&c->ring) >= want || c->broken)
			return;
		if (c->busy_wait) {
			if (++spins % SPIN_CHECK)
				continue;
			check_conn(job);
		} else {
			wait_channel(job);
		}
		check_stalled(job, &since);
	}
}

enum fio_q_status rpmafio_io_queue(struct rpmafio_job *job, struct io_u *io_u)
{
	struct thread_data *td = job->td;
	struct rpmafio_client *c = &job->client;
	int ret;

	if (c->broken) {
		io_u->error = c->broken_err;
		return FIO_Q_COMPLETED;
	}
	if (io_u->ddir != DDIR_READ && io_u->ddir != DDIR_WRITE) {
		/* a sync: every write is durable by the time it completes, nothing to do */
		if (fio_fill_issue_time(td))
			fio_gettime(&io_u->issue_time, NULL);
		if (!ddir_sync(io_u->ddir))
			io_u->error = EINVAL;
		return FIO_Q_COMPLETED;
	}
	if (rpmafio_ring_used(&c->ring) + c->nr_queued >= c->depth)
		return FIO_Q_BUSY;
	if (!td->o.sync_io) {
		c->queued[c->nr_queued++] = io_u;
		return FIO_Q_QUEUED;
	}

	/* sync=1: post, wait, return it completed */
	if (fio_fill_issue_time(td))
		fio_gettime(&io_u->issue_time, NULL);
	rpmafio_ring_push(&c->ring, io_u);
	if (rpmafio_batch_flushes(job->o, io_u->ddir == DDIR_WRITE)) {
		if ((ret = post_io(c, io_u, RPMA_F_COMPLETION_ON_ERROR)))
			post_failed(job, io_u, ret);
		else if (job->eng->client.flush(job, io_u->offset, io_u->xfer_buflen, io_u))
			rpmafio_io_break(job, EIO, "the flush could not be posted");
	} else if ((ret = post_io(c, io_u, RPMA_F_COMPLETION_ALWAYS))) {
		post_failed(job, io_u, ret);
	}
	reap(job, 1);
	/* nothing else is in flight with sync=1: io_u is the one completed */
	for (;;) {
		struct io_u *done = rpmafio_ring_pop_ready(&c->ring);
		if (done == io_u || done == NULL)
			break;
	}
	return FIO_Q_COMPLETED;
}

int rpmafio_io_commit(struct rpmafio_job *job)
{
	struct thread_data *td = job->td;
	struct rpmafio_client *c = &job->client;
	const uint32_t n = c->nr_queued;
	struct rpmafio_span span;
	struct timespec now;
	int ret;

	if (n == 0)
		return 0;
	rpmafio_span_reset(&span);
	for (uint32_t i = 0; i < n; i++) {
		struct io_u *io_u = c->queued[i];
		if (io_u->ddir == DDIR_WRITE)
			rpmafio_span_add(&span, io_u->offset, io_u->xfer_buflen);
		rpmafio_ring_push(&c->ring, io_u);
	}
	if (c->broken) {
		rpmafio_io_break(job, c->broken_err, "the connection is broken");
		goto out;
	}

	/*
	 * Issued now, as the batch goes to the RNIC (fio does not stamp async
	 * io_us itself: FIO_ASYNCIO_SETS_ISSUE_TIME). Before posting, not after:
	 * posting may itself take the operation's time (Soft-RoCE processes a
	 * work request, even its loopback round trip, inside ibv_post_send()).
	 */
	if (fio_fill_issue_time(td)) {
		fio_gettime(&now, NULL);
		for (uint32_t i = 0; i < n; i++)
			c->queued[i]->issue_time = now;
		if (td->o.read_iolog_file)
			td->last_issue = now;
	}

	/* only the last operation of the batch is signalled: the flush if there is one */
	const bool flush = rpmafio_batch_flushes(job->o, !rpmafio_span_empty(&span));
	for (uint32_t i = 0; i < n; i++) {
		struct io_u *io_u = c->queued[i];
		int flags = (!flush && i == n - 1) ? RPMA_F_COMPLETION_ALWAYS :
			RPMA_F_COMPLETION_ON_ERROR;
		if ((ret = post_io(c, io_u, flags))) {
			post_failed(job, io_u, ret);
			goto out;
		}
	}
	if (flush && job->eng->client.flush(job, span.start, rpmafio_span_len(&span),
			c->queued[n - 1])) {
		rpmafio_io_break(job, EIO, "the flush could not be posted");
		goto out;
	}

	for (uint32_t i = 0; i < n; i++)
		io_u_queued(td, c->queued[i]); /* fio's slat: issue - start */
out:
	/* an engine with a commit hook reports its submissions itself */
	io_u_mark_submit(td, n);
	c->nr_queued = 0;
	return 0;
}

int rpmafio_io_getevents(struct rpmafio_job *job, unsigned int min, unsigned int max,
	const struct timespec *t)
{
	struct rpmafio_client *c = &job->client;
	uint32_t want = min, used = rpmafio_ring_used(&c->ring);
	unsigned n = 0;
	struct io_u *io_u;

	(void)t; /* fio passes none on this path; completions come within connect_timeout */
	if (want > used)
		want = used;
	if (want == 0 || rpmafio_ring_ready(&c->ring) < want)
		reap(job, want);
	while (n < max && (io_u = rpmafio_ring_pop_ready(&c->ring)) != NULL)
		c->events[n++] = io_u;
	return (int)n;
}
