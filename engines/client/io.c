/* SPDX-License-Identifier: BSD-3-Clause */
/* io.c -- the client's I/O path (see io.h) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/method.h"
#include "common/report.h"
#include "io.h"

/* how long a stopping job waits for the I/Os in flight (fio: stop within a second) */
#define STOP_WAIT_MS 500

/*
 * The steps of every I/O's path, inlined whatever the compiler's limits (they
 * run once per I/O; as calls they cost ~40 instructions of the APM client's
 * ~720 at depth 1: docs/benchmarks-findings.md)
 */
#define IO_PATH static inline __attribute__((always_inline))

/* the method's other client hooks (its I/O path's two are functions: method.h) */
#define METHOD (rpmafio_engine_method.client)

int rpmafio_io_init(struct rpmafio_client *c)
{
	struct rpmafio_job *job = &c->job;
	c->depth = job->iodepth ? job->iodepth : 1;
	uint32_t cap = rpmafio_ring_capacity(c->depth);
	void **slots = calloc(cap, sizeof(*slots));
	/* a batch's writes are at most iodepth ranges: the list never fills */
	struct rpmafio_range *ranges = calloc(c->depth, sizeof(*ranges));
	c->queued = calloc(c->depth, sizeof(*c->queued));
	c->events = calloc(c->depth, sizeof(*c->events));
	if (slots == NULL || ranges == NULL || c->queued == NULL || c->events == NULL) {
		free(slots);
		free(ranges);
		return rpmafio_fail(job, ENOMEM, "no memory for %u I/O slots", c->depth);
	}
	rpmafio_ring_init(&c->ring, slots, cap);
	rpmafio_ranges_init(&c->written, ranges, c->depth);
	c->timeout_ms = job->o->connect_timeout;
	return 0;
}

void rpmafio_io_fini(struct rpmafio_client *c)
{
	free(c->ring.slot);
	free(c->written.r);
	free(c->queued);
	free(c->events);
	c->written.r = NULL;
	c->ring.slot = NULL;
	c->queued = c->events = NULL;
}

void rpmafio_io_break(struct rpmafio_client *c, int err, const char *fmt, ...)
{
	if (!c->broken) {
		char msg[RPMAFIO_ERR_LEN];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		c->broken = true;
		c->broken_err = err;
		rpmafio_fail(&c->job, err, "%s", msg);
	}
	uint32_t n = rpmafio_ring_inflight(&c->ring);
	for (uint32_t i = 0; i < n; i++) {
		struct rpmafio_io *io = rpmafio_ring_inflight_at(&c->ring, i);
		io->error = c->broken_err;
	}
	rpmafio_ring_complete_all(&c->ring);
}

/* Post one read or write with the given completion flags. */
IO_PATH int post_io(struct rpmafio_client *c, struct rpmafio_io *io, int flags)
{
	size_t local = (size_t)((char *)io->buf - c->buf_base);
	if (io->dir == RPMAFIO_IO_WRITE)
		return rpma_write(c->conn, c->server_mr, io->offset, c->buf_mr, local,
			io->len, flags, io);
	return rpma_read(c->conn, c->buf_mr, local, c->server_mr, io->offset,
		io->len, flags, io);
}

static __attribute__((noinline, cold)) void post_failed(struct rpmafio_client *c,
		const struct rpmafio_io *io, int ret)
{
	char buf[128];
	rpmafio_io_break(c, EIO, "cannot post an RDMA %s of %llu bytes at offset %llu: %s",
		io->dir == RPMAFIO_IO_WRITE ? "write" : "read", (unsigned long long)io->len,
		(unsigned long long)io->offset, rpmafio_rpma_err(ret, buf, sizeof(buf)));
}

/*
 * The I/Os of a submission and their flush go to the device as one chain:
 * one post (one doorbell; on Soft-RoCE one system call) instead of one each.
 */
static inline void chain_begin(struct rpmafio_client *c)
{
	(void)rpma_conn_batch_begin(c->conn); /* fails only when one is open: never here */
}

/* (apart: its message buffer would cost every post a stack guard) */
static __attribute__((noinline, cold)) void chain_failed(struct rpmafio_client *c, uint32_t n,
		int ret)
{
	char buf[128];
	rpmafio_io_break(c, EIO, "cannot post %u I/O%s and their flush: %s", n,
		n == 1 ? "" : "s", rpmafio_rpma_err(ret, buf, sizeof(buf)));
}

static inline void chain_end(struct rpmafio_client *c, uint32_t n)
{
	int ret = rpma_conn_batch_end(c->conn);
	if (ret && !c->broken)
		chain_failed(c, n, ret);
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

/* (the failures apart, cold: the I/O path's completions are inlined without them) */
static __attribute__((noinline, cold)) void failed_wc(struct rpmafio_client *c,
		const struct ibv_wc *wc)
{
	if (c->broken)
		return;
	const char *hint = METHOD.failure_hint ? METHOD.failure_hint(c, wc) : NULL;
	rpmafio_io_break(c, EIO, "an RDMA operation failed: %s (%s)",
		ibv_wc_status_str(wc->status), hint ? hint : wc_hint(wc->status));
}

static __attribute__((noinline, cold)) void unknown_wc(struct rpmafio_client *c,
		const struct ibv_wc *wc)
{
	rpmafio_io_break(c, EIO, "a completion for no request in flight (opcode %d, wr_id 0x%llx)",
		(int)wc->opcode, (unsigned long long)wc->wr_id);
}

/* One completion from the CQ. */
static inline void process(struct rpmafio_client *c, const struct ibv_wc *wc)
{
	struct rpmafio_io *last = NULL;

	if (wc->status != IBV_WC_SUCCESS) {
		failed_wc(c, wc);
		return;
	}
	if (c->broken)
		return; /* a late completion: its I/O has been failed already */
	enum rpmafio_completion r = rpmafio_method_completion(c, wc, &last);
	if (r == RPMAFIO_COMPLETES_NOTHING)
		return;
	if (r != RPMAFIO_COMPLETES_IO || rpmafio_ring_complete_upto(&c->ring, last) < 0)
		unknown_wc(c, wc);
}

/* the loop ends once enough I/Os are done, or all of them failed */
static enum rpmafio_poll_step reaped(const struct rpmafio_client *c, uint32_t want)
{
	return rpmafio_ring_ready(&c->ring) >= want || c->broken ? RPMAFIO_POLL_DONE :
		RPMAFIO_POLL_GO_ON;
}

IO_PATH enum rpmafio_poll_step reap_wc(void *arg, const struct ibv_wc *wc, int n)
{
	struct rpmafio_client *c = arg;
	for (int i = 0; i < n; i++)
		process(c, &wc[i]);
	c->reaping.since = 0;
	return reaped(c, c->reaping.want);
}

/* is the server gone? */
static enum rpmafio_poll_step reap_event(void *arg, enum rpma_conn_event ev)
{
	struct rpmafio_client *c = arg;
	const struct rpmafio_job *job = &c->job;

	if (ev == RPMA_CONN_CLOSED)
		rpmafio_io_break(c, ECONNRESET, "the server at %s:%s closed the connection",
			job->o->serverip, job->port);
	else if (ev == RPMA_CONN_LOST)
		rpmafio_io_break(c, ECONNRESET, "the connection to the server at %s:%s was lost",
			job->o->serverip, job->port);
	return c->broken ? RPMAFIO_POLL_DONE : RPMAFIO_POLL_GO_ON;
}

/*
 * No completion for a while: give up after connect_timeout ms -- or after
 * STOP_WAIT_MS once fio is asked to stop the job early (Ctrl-C): a silent
 * server must not hold fio for connect_timeout, a live one answers well within
 * it. (The normal end of runtime= waits as long as ever.)
 */
static enum rpmafio_poll_step reap_idle(void *arg)
{
	struct rpmafio_client *c = arg;
	struct rpmafio_reaping *r = &c->reaping;
	const struct rpmafio_job *job = &c->job;
	const bool stopping = rpmafio_stop_requested(job);
	uint64_t now = rpmafio_now_ms();

	if (r->since == 0) {
		r->since = now;
		return RPMAFIO_POLL_GO_ON;
	}
	if (now - r->since < (stopping ? STOP_WAIT_MS : c->timeout_ms))
		return RPMAFIO_POLL_GO_ON;
	if (stopping)
		rpmafio_io_break(c, ECANCELED, "stopped: the server at %s:%s completed none of "
			"the %u I/Os in flight within %u ms", job->o->serverip, job->port,
			rpmafio_ring_inflight(&c->ring), STOP_WAIT_MS);
	else
		rpmafio_io_break(c, ETIMEDOUT, "no completion from the server at %s:%s for %u ms "
			"(connect_timeout): is it still there?", job->o->serverip, job->port,
			c->timeout_ms);
	return RPMAFIO_POLL_DONE;
}

static __attribute__((noinline, cold)) enum rpmafio_poll_step reap_error(void *arg,
		const char *call, int ret)
{
	char buf[128];
	rpmafio_io_break(arg, EIO, "%s: %s", call,
		rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return RPMAFIO_POLL_DONE;
}

static const struct rpmafio_poll_ops reap_ops = {
	.wc = reap_wc,
	.event = reap_event,
	.idle = reap_idle,
	.error = reap_error,
};

/*
 * Take completions until at least `want` I/Os are done (or the connection
 * broke, which completes everything in flight). want == 0: one look, no wait.
 * A first look before the loop: what is waited for is often there already
 * (always with Soft-RoCE, which works inside the post), and the look costs
 * less than entering the loop.
 */
IO_PATH void reap(struct rpmafio_client *c, uint32_t want)
{
	c->reaping.want = want;
	c->reaping.since = 0;
	if (rpmafio_poll_once(&c->poll, &reap_ops, c) == RPMAFIO_POLL_GO_ON && want > 0)
		(void) rpmafio_poll_run(&c->poll, &reap_ops, c);
}

/*
 * The method's flush over the batch's written ranges (c->written); counted as
 * what it asked for (the method may have merged ranges to fit its request).
 */
IO_PATH int flush_written(struct rpmafio_client *c, struct rpmafio_io *last)
{
	if (rpmafio_method_flush(c, &c->written, last))
		return -1;
	c->bytes_to_persist += rpmafio_ranges_bytes(&c->written);
	return 0;
}

/* a batch without a flush posted: the method may want to know (its order among flushes) */
static inline void signalled(struct rpmafio_client *c, struct rpmafio_io *last)
{
	if (METHOD.signalled && METHOD.signalled(c, last))
		rpmafio_io_break(c, EIO, "more batches in flight than the engine can track");
}

/* sync=1: post one I/O (a write with its flush), wait for it, return it completed */
static void post_and_wait(struct rpmafio_client *c, struct rpmafio_io *io)
{
	const struct rpmafio_job *job = &c->job;
	const uint64_t written = io->dir == RPMAFIO_IO_WRITE ? io->len : 0;
	int ret;

	rpmafio_ring_push(&c->ring, io);
	rpmafio_ranges_one(&c->written, io->offset, written);
	c->bytes_written += written;
	if (rpmafio_batch_flushes(job->o, c->written.n > 0)) {
		chain_begin(c);
		if ((ret = post_io(c, io, RPMA_F_COMPLETION_ON_ERROR)))
			post_failed(c, io, ret);
		else if (rpmafio_method_flush(c, &c->written, io))
			rpmafio_io_break(c, EIO, "the flush could not be posted");
		else
			c->bytes_to_persist += written; /* (one range: nothing to merge) */
		chain_end(c, 1);
	} else if ((ret = post_io(c, io, RPMA_F_COMPLETION_ALWAYS))) {
		post_failed(c, io, ret);
	} else {
		signalled(c, io);
	}
	reap(c, 1);
	/* nothing else is in flight with sync=1: io is the one completed */
	for (;;) {
		struct rpmafio_io *done = rpmafio_ring_pop_ready(&c->ring);
		if (done == io || done == NULL)
			break;
	}
}

enum rpmafio_io_status rpmafio_io_queue(struct rpmafio_client *c, struct rpmafio_io *io)
{
	io->error = 0;
	if (c->broken) {
		io->error = c->broken_err;
		return RPMAFIO_IO_COMPLETED;
	}
	switch (io->dir) {
	case RPMAFIO_IO_READ:
	case RPMAFIO_IO_WRITE:
		break;
	case RPMAFIO_IO_SYNC:
		/* every write is durable by the time it completes: nothing to do */
		return RPMAFIO_IO_COMPLETED;
	case RPMAFIO_IO_OTHER:
	default:
		io->error = EINVAL;
		return RPMAFIO_IO_COMPLETED;
	}
	if (rpmafio_ring_used(&c->ring) + c->nr_queued >= c->depth)
		return RPMAFIO_IO_BUSY;
	if (!c->job.sync) {
		c->queued[c->nr_queued++] = io;
		return RPMAFIO_IO_QUEUED;
	}
	post_and_wait(c, io);
	return RPMAFIO_IO_COMPLETED;
}

/* the batch's operations and its one flush (when it writes), only the last one signalled */
static void post_batch(struct rpmafio_client *c)
{
	const struct rpmafio_job *job = &c->job;
	const uint32_t n = c->nr_queued;
	const bool flush = rpmafio_batch_flushes(job->o, c->written.n > 0);
	int ret;

	chain_begin(c);
	for (uint32_t i = 0; i < n; i++) {
		struct rpmafio_io *io = c->queued[i];
		int flags = (!flush && i == n - 1) ? RPMA_F_COMPLETION_ALWAYS :
			RPMA_F_COMPLETION_ON_ERROR;
		if ((ret = post_io(c, io, flags))) {
			post_failed(c, io, ret);
			break;
		}
	}
	if (!c->broken && flush && flush_written(c, c->queued[n - 1]))
		rpmafio_io_break(c, EIO, "the flush could not be posted");
	else if (!c->broken && !flush)
		signalled(c, c->queued[n - 1]);
	chain_end(c, n);
}

enum rpmafio_commit_result rpmafio_io_commit(struct rpmafio_client *c)
{
	const uint32_t n = c->nr_queued;

	if (n == 0)
		return RPMAFIO_COMMIT_EMPTY;
	rpmafio_ranges_reset(&c->written);
	for (uint32_t i = 0; i < n; i++) {
		struct rpmafio_io *io = c->queued[i];
		if (io->dir == RPMAFIO_IO_WRITE) {
			/* (a batch is at most iodepth writes: the list has room) */
			(void) rpmafio_ranges_add(&c->written, io->offset, io->len);
			c->bytes_written += io->len;
		}
		rpmafio_ring_push(&c->ring, io);
	}
	rpmafio_ranges_finish(&c->written);
	if (c->broken)
		rpmafio_io_break(c, c->broken_err, "the connection is broken");
	else
		post_batch(c);
	c->nr_queued = 0;
	return c->broken ? RPMAFIO_COMMIT_FAILED : RPMAFIO_COMMIT_POSTED;
}

unsigned rpmafio_io_getevents(struct rpmafio_client *c, unsigned min, unsigned max)
{
	uint32_t want = min, used = rpmafio_ring_used(&c->ring);
	unsigned n = 0;
	struct rpmafio_io *io;

	if (want > used)
		want = used;
	if (want == 0 || rpmafio_ring_ready(&c->ring) < want)
		reap(c, want);
	while (n < max && (io = rpmafio_ring_pop_ready(&c->ring)) != NULL)
		c->events[n++] = io;
	return n;
}

void rpmafio_io_report(struct rpmafio_client *c)
{
	if (c->bytes_written == 0)
		return;
	rpmafio_note(&c->job, "wrote %llu bytes, asked to persist %llu bytes (%.2f per byte "
		"written)", (unsigned long long)c->bytes_written,
		(unsigned long long)c->bytes_to_persist,
		(double)c->bytes_to_persist / (double)c->bytes_written);
}
