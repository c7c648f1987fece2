/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_client_io_test.c -- the client's I/O path (engines/client/io.c) on the
 * host: queue, commit, getevents and their failures, against stand-ins for the
 * librpma calls it makes (every post is recorded), for the completion loop
 * (completions and connection events come from a script, the clock is the
 * test's) and for the calls that reach fio (common/report.h).
 *
 * The method is APM-like: its flush is recorded as one more operation and a
 * completion carries the I/O it completes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "client/io.h"
#include "common/method.h"
#include "common/report.h"
#include "fio_report.h"

#define DEPTH 4
#define TIMEOUT_MS 1000
#define MAX_OPS 64

/* ---- what the client posted: the stand-in RNIC's log ---- */

enum op_kind { OP_READ, OP_WRITE, OP_FLUSH };

struct op {
	enum op_kind kind;
	uint64_t offset;	/* remote */
	uint64_t len;
	size_t local;		/* in the registered buffers (reads and writes) */
	int flags;
	const void *ctx;
	unsigned chain;		/* which rpma_conn_batch_begin() it was posted under (0: none) */
};

static struct {
	struct op op[MAX_OPS];
	unsigned nops;
	unsigned chains;	/* rpma_conn_batch_begin() calls */
	unsigned chain_ends;
	bool chain_open;
	unsigned fail_post_at;	/* 1-based read/write to refuse (0: none) */
	unsigned posts;		/* reads and writes asked for */
	int fail_flush;		/* the flush hook fails */
	int fail_chain_end;	/* rpma_conn_batch_end() fails */
} R;

static void record(enum op_kind kind, uint64_t offset, uint64_t len, size_t local, int flags,
		const void *ctx)
{
	assert_true(R.nops < MAX_OPS);
	R.op[R.nops++] = (struct op){kind, offset, len, local, flags, ctx,
		R.chain_open ? R.chains : 0};
}

static int post(enum op_kind kind, uint64_t offset, uint64_t len, size_t local, int flags,
		const void *ctx)
{
	if (++R.posts == R.fail_post_at)
		return RPMA_E_INVAL;
	record(kind, offset, len, local, flags, ctx);
	return 0;
}

/* ---- stand-ins: librpma ---- */

static char conn_, server_mr_, buf_mr_;
#define CONN ((struct rpma_conn *)&conn_)
#define SERVER_MR ((struct rpma_mr_remote *)&server_mr_)
#define BUF_MR ((struct rpma_mr_local *)&buf_mr_)

int rpma_write(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset, size_t len, int flags,
		const void *op_context)
{
	assert_ptr_equal(conn, CONN);
	assert_ptr_equal(dst, SERVER_MR);
	assert_ptr_equal(src, BUF_MR);
	return post(OP_WRITE, dst_offset, len, src_offset, flags, op_context);
}

int rpma_read(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset, size_t len, int flags,
		const void *op_context)
{
	assert_ptr_equal(conn, CONN);
	assert_ptr_equal(dst, BUF_MR);
	assert_ptr_equal(src, SERVER_MR);
	return post(OP_READ, src_offset, len, dst_offset, flags, op_context);
}

int rpma_conn_batch_begin(struct rpma_conn *conn)
{
	assert_ptr_equal(conn, CONN);
	assert_false(R.chain_open);
	R.chain_open = true;
	R.chains++;
	return 0;
}

int rpma_conn_batch_end(struct rpma_conn *conn)
{
	assert_ptr_equal(conn, CONN);
	assert_true(R.chain_open);
	R.chain_open = false;
	R.chain_ends++;
	return R.fail_chain_end ? RPMA_E_PROVIDER : 0;
}

/* ---- stand-ins: the completion loop and its clock ---- */

#define MAX_STEPS 16

/* one turn of the scripted loop: completions, or a connection event */
struct step {
	int nwc;			/* 0: an event */
	struct ibv_wc wc[4];
	enum rpma_conn_event ev;
};

static struct {
	struct step step[MAX_STEPS];
	unsigned nsteps, next;
	uint64_t now;
	unsigned runs, onces, idles;
} L;

uint64_t rpmafio_now_ms(void)
{
	return L.now;
}

static enum rpmafio_poll_step one_turn(const struct rpmafio_poll_ops *ops, void *arg)
{
	const struct step *s = &L.step[L.next++];
	if (s->nwc)
		return ops->wc(arg, s->wc, s->nwc);
	return ops->event(arg, s->ev);
}

/* the script's turns, then idle every 100 ms of the test's clock until a callback ends it */
enum rpmafio_poll_step rpmafio_poll_run(struct rpmafio_poll *p,
		const struct rpmafio_poll_ops *ops, void *arg)
{
	enum rpmafio_poll_step r;
	(void)p;
	L.runs++;
	for (;;) {
		if (L.next < L.nsteps)
			r = one_turn(ops, arg);
		else {
			L.now += 100;
			L.idles++;
			assert_true(L.idles < 1000); /* a loop that never ends */
			r = ops->idle(arg);
		}
		if (r != RPMAFIO_POLL_GO_ON)
			return r;
	}
}

/* the first look (rpmafio_poll_once): the script's turn when it is completions */
int rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc, int *num_entries_got)
{
	(void)cq;
	L.onces++;
	if (L.next >= L.nsteps || L.step[L.next].nwc == 0)
		return RPMA_E_NO_COMPLETION;
	const struct step *s = &L.step[L.next++];
	assert_true(s->nwc <= num_entries);
	memcpy(wc, s->wc, sizeof(*wc) * (size_t)s->nwc);
	*num_entries_got = s->nwc;
	return 0;
}

/* the script: a successful completion of the operation that carries ctx */
static void script_wc(const void *ctx)
{
	struct step *s = &L.step[L.nsteps++];
	s->nwc = 1;
	s->wc[0] = (struct ibv_wc){.wr_id = (uint64_t)(uintptr_t)ctx, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RDMA_READ};
}

static void script_failed_wc(const void *ctx, enum ibv_wc_status status)
{
	script_wc(ctx);
	L.step[L.nsteps - 1].wc[0].status = status;
}

static void script_event(enum rpma_conn_event ev)
{
	L.step[L.nsteps++] = (struct step){.ev = ev};
}

/* ---- the method: an APM-like flush, completions that carry their I/O ---- */

static unsigned unknown_completions;	/* the next completions say they complete nothing known */

int rpmafio_method_flush(struct rpmafio_client *c, uint64_t offset, uint64_t len,
		struct rpmafio_io *last)
{
	if (R.fail_flush)
		return rpmafio_fail(&c->job, EIO, "the test's flush failed");
	record(OP_FLUSH, offset, len, 0, RPMA_F_COMPLETION_ALWAYS, last);
	return 0;
}

enum rpmafio_completion rpmafio_method_completion(struct rpmafio_client *c,
		const struct ibv_wc *wc, struct rpmafio_io **last)
{
	(void)c;
	if (unknown_completions) {
		unknown_completions--;
		return RPMAFIO_COMPLETES_UNKNOWN;
	}
	if (wc->wr_id == 0)
		return RPMAFIO_COMPLETES_NOTHING;
	*last = (struct rpmafio_io *)(uintptr_t)wc->wr_id;
	return RPMAFIO_COMPLETES_IO;
}

const struct rpmafio_method rpmafio_engine_method = {.name = "test"};

/* ---- the client under test ---- */

static char buffers[DEPTH * 8][4096];
static struct rpmafio_opts opts;
static bool stop;
static struct rpmafio_client C;
static struct rpmafio_io io[DEPTH * 8];

static int setup_job(bool sync)
{
	memset(&R, 0, sizeof(R));
	memset(&L, 0, sizeof(L));
	memset(&fio_report, 0, sizeof(fio_report));
	memset(&C, 0, sizeof(C));
	memset(io, 0, sizeof(io));
	unknown_completions = 0;
	stop = false;
	opts = (struct rpmafio_opts){.serverip = "192.0.2.1", .connect_timeout = TIMEOUT_MS};
	C.job = (struct rpmafio_job){.method = &rpmafio_engine_method, .o = &opts,
		.iodepth = DEPTH, .sync = sync, .writes = true, .stop = &stop, .port = "7204"};
	C.conn = CONN;
	C.server_mr = SERVER_MR;
	C.buf_mr = BUF_MR;
	C.buf_base = buffers[0];
	L.now = 5000;
	return rpmafio_io_init(&C);
}

static int setup_async(void **state)
{
	(void)state;
	return setup_job(false);
}

static int setup_sync(void **state)
{
	(void)state;
	return setup_job(true);
}

static int teardown(void **state)
{
	(void)state;
	rpmafio_io_fini(&C);
	assert_null(C.queued);
	return 0;
}

/* I/O i: a read or a write of len bytes at offset, in buffer i */
static struct rpmafio_io *make_io(unsigned i, enum rpmafio_io_dir dir, uint64_t offset,
		uint64_t len)
{
	io[i] = (struct rpmafio_io){.dir = dir, .offset = offset, .len = len, .buf = buffers[i],
		.error = -1};
	return &io[i];
}

static void queue_ok(unsigned i, enum rpmafio_io_dir dir, uint64_t offset, uint64_t len)
{
	assert_int_equal(rpmafio_io_queue(&C, make_io(i, dir, offset, len)), RPMAFIO_IO_QUEUED);
}

static void assert_op(unsigned k, enum op_kind kind, uint64_t offset, uint64_t len, int flags,
		const void *ctx)
{
	assert_true(k < R.nops);
	assert_int_equal(R.op[k].kind, kind);
	assert_int_equal(R.op[k].offset, offset);
	assert_int_equal(R.op[k].len, len);
	assert_int_equal(R.op[k].flags, flags);
	assert_ptr_equal(R.op[k].ctx, ctx);
}

/* getevents(min, max) returns the I/Os first..first+n-1, in order, each with error err */
static void assert_events(unsigned min, unsigned max, unsigned first, unsigned n, int err)
{
	assert_int_equal(rpmafio_io_getevents(&C, min, max), n);
	for (unsigned k = 0; k < n; k++) {
		assert_ptr_equal(C.events[k], &io[first + k]);
		assert_int_equal(C.events[k]->error, err);
	}
}

/* ---- a batch and its one flush ---- */

/* three writes: posted as one chain, unsignalled, then ONE flush over their span, signalled */
static void writes_then_one_flush(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 8192, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(2, RPMAFIO_IO_WRITE, 65536, 512);
	assert_int_equal(R.nops, 0); /* nothing posted before commit */

	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(C.nr_queued, 0);
	assert_int_equal(R.nops, 4);
	assert_op(0, OP_WRITE, 8192, 4096, RPMA_F_COMPLETION_ON_ERROR, &io[0]);
	assert_op(1, OP_WRITE, 0, 4096, RPMA_F_COMPLETION_ON_ERROR, &io[1]);
	assert_op(2, OP_WRITE, 65536, 512, RPMA_F_COMPLETION_ON_ERROR, &io[2]);
	assert_op(3, OP_FLUSH, 0, 65536 + 512, RPMA_F_COMPLETION_ALWAYS, &io[2]);
	assert_int_equal(R.op[1].local, 4096); /* buffer 1 */
	/* one doorbell for the lot */
	assert_int_equal(R.chains, 1);
	assert_int_equal(R.chain_ends, 1);
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(R.op[k].chain, 1);

	script_wc(&io[2]);
	assert_events(3, DEPTH, 0, 3, 0);
	assert_int_equal(fio_report.fails, 0);
}

/* reads only: no flush; the last read is the signalled one */
static void reads_signal_the_last(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	queue_ok(1, RPMAFIO_IO_READ, 4096, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(R.nops, 2);
	assert_op(0, OP_READ, 0, 4096, RPMA_F_COMPLETION_ON_ERROR, &io[0]);
	assert_op(1, OP_READ, 4096, 4096, RPMA_F_COMPLETION_ALWAYS, &io[1]);
	script_wc(&io[1]);
	assert_events(1, DEPTH, 0, 2, 0);
}

/* reads and writes: the flush covers the writes only and is the one signalled */
static void mixed_flush_covers_the_writes(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 12288, 4096);
	queue_ok(2, RPMAFIO_IO_READ, 1 << 20, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(R.nops, 4);
	assert_op(2, OP_READ, 1 << 20, 4096, RPMA_F_COMPLETION_ON_ERROR, &io[2]);
	assert_op(3, OP_FLUSH, 12288, 4096, RPMA_F_COMPLETION_ALWAYS, &io[2]);
}

/* no_flush=1: the writes go alone and the last one is signalled */
static void no_flush_signals_the_last_write(void **state)
{
	(void)state;
	opts.no_flush = 1;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(R.nops, 2);
	assert_op(1, OP_WRITE, 4096, 4096, RPMA_F_COMPLETION_ALWAYS, &io[1]);
}

/* a completion of a later batch completes the earlier one too (an RC QP completes in order) */
static void a_later_batch_completes_earlier_ones(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
	queue_ok(2, RPMAFIO_IO_WRITE, 8192, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(R.chains, 2);
	script_wc(&io[2]);
	/* fio asks for one at least, takes two at most: the third waits, done already */
	assert_events(1, 2, 0, 2, 0);
	/* the completion was there: the first look took it, the loop never ran */
	assert_int_equal(L.onces, 1);
	assert_int_equal(L.runs, 0);
	assert_events(1, 2, 2, 1, 0);
	assert_int_equal(L.onces, 1); /* it was ready: not even a look */
	assert_int_equal(L.runs, 0);
}

/* nothing there at the first look: the loop waits */
static void an_empty_look_goes_on_to_wait(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	script_event(RPMA_CONN_ESTABLISHED); /* not a completion: the look finds the CQ empty */
	script_wc(&io[0]);
	assert_events(1, 1, 0, 1, 0);
	assert_int_equal(L.onces, 1);
	assert_int_equal(L.runs, 1);
}

/* min 0: one look at the CQ, no waiting */
static void getevents_min_zero_only_looks(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	assert_events(0, DEPTH, 0, 0, 0);
	assert_int_equal(L.onces, 1);
	assert_int_equal(L.runs, 0);
	script_wc(&io[0]);
	assert_events(0, DEPTH, 0, 1, 0);
}

/* iodepth I/Os in the ring (queued or in flight): the next one waits */
static void busy_at_iodepth(void **state)
{
	(void)state;
	for (unsigned i = 0; i < DEPTH; i++)
		queue_ok(i, RPMAFIO_IO_WRITE, 4096ULL * i, 4096);
	assert_int_equal(rpmafio_io_queue(&C, make_io(DEPTH, RPMAFIO_IO_WRITE, 0, 4096)),
		RPMAFIO_IO_BUSY);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(rpmafio_io_queue(&C, make_io(DEPTH, RPMAFIO_IO_WRITE, 0, 4096)),
		RPMAFIO_IO_BUSY);
	script_wc(&io[DEPTH - 1]);
	assert_events(DEPTH, DEPTH, 0, DEPTH, 0);
	queue_ok(DEPTH, RPMAFIO_IO_WRITE, 0, 4096);
}

/* the ring's counters wrap around over many batches (capacity 4: every 4 I/Os) */
static void many_batches_wrap_the_ring(void **state)
{
	(void)state;
	for (unsigned round = 0; round < 10; round++) {
		memset(&R, 0, sizeof(R));
		L.nsteps = L.next = 0;
		queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
		queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
		queue_ok(2, RPMAFIO_IO_READ, 8192, 4096);
		assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
		script_wc(&io[2]);
		assert_events(3, DEPTH, 0, 3, 0);
	}
	assert_int_equal(fio_report.fails, 0);
}

/* commit with nothing queued posts nothing */
static void empty_commit(void **state)
{
	(void)state;
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_EMPTY);
	assert_int_equal(R.chains, 0);
	assert_int_equal(R.nops, 0);
}

/* a sync of any kind completes at once (every write is durable when it completes); others are refused */
static void syncs_and_other_directions(void **state)
{
	(void)state;
	assert_int_equal(rpmafio_io_queue(&C, make_io(0, RPMAFIO_IO_SYNC, 0, 0)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(io[0].error, 0);
	assert_int_equal(rpmafio_io_queue(&C, make_io(1, RPMAFIO_IO_OTHER, 0, 4096)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(io[1].error, EINVAL);
	assert_int_equal(R.nops, 0);
	assert_int_equal(C.nr_queued, 0);
}

/* ---- sync=1 ---- */

/* a write and its flush posted together, waited for, completed in queue() */
static void sync_write_waits_for_its_flush(void **state)
{
	(void)state;
	script_wc(&io[0]);
	assert_int_equal(rpmafio_io_queue(&C, make_io(0, RPMAFIO_IO_WRITE, 4096, 512)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(io[0].error, 0);
	assert_int_equal(R.nops, 2);
	assert_op(0, OP_WRITE, 4096, 512, RPMA_F_COMPLETION_ON_ERROR, &io[0]);
	assert_op(1, OP_FLUSH, 4096, 512, RPMA_F_COMPLETION_ALWAYS, &io[0]);
	assert_int_equal(R.chains, 1);
	assert_int_equal(rpmafio_ring_used(&C.ring), 0); /* nothing left for getevents */
}

static void sync_read_is_signalled_itself(void **state)
{
	(void)state;
	script_wc(&io[0]);
	assert_int_equal(rpmafio_io_queue(&C, make_io(0, RPMAFIO_IO_READ, 0, 4096)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(io[0].error, 0);
	assert_int_equal(R.nops, 1);
	assert_op(0, OP_READ, 0, 4096, RPMA_F_COMPLETION_ALWAYS, &io[0]);
	assert_int_equal(R.chains, 0);
}

/* the server never answers: the I/O fails after connect_timeout */
static void sync_timeout(void **state)
{
	(void)state;
	uint64_t t0 = L.now;
	assert_int_equal(rpmafio_io_queue(&C, make_io(0, RPMAFIO_IO_WRITE, 0, 4096)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(io[0].error, ETIMEDOUT);
	assert_in_range(L.now - t0, TIMEOUT_MS, TIMEOUT_MS + 200);
	assert_int_equal(fio_report.err, ETIMEDOUT);
	assert_non_null(strstr(fio_report.msg, "no completion from the server at 192.0.2.1:7204 for 1000 ms"));
}

/* ---- failures: every I/O in flight fails, the first cause is reported, later I/Os fail ---- */

/* the connection is broken: a later I/O completes at once with the first error */
static void assert_broken(int err)
{
	assert_true(C.broken);
	assert_int_equal(fio_report.err, err);
	unsigned before = R.nops;
	assert_int_equal(rpmafio_io_queue(&C, make_io(DEPTH + 1, RPMAFIO_IO_WRITE, 0, 4096)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(io[DEPTH + 1].error, err);
	assert_int_equal(R.nops, before);
}

/* the second of three writes cannot be posted: no flush, all three fail, the cause named */
static void post_fails_half_way(void **state)
{
	(void)state;
	R.fail_post_at = 2;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
	queue_ok(2, RPMAFIO_IO_WRITE, 8192, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_FAILED);
	assert_int_equal(R.nops, 1); /* the first write only: no third, no flush */
	assert_int_equal(R.chain_ends, 1); /* the chain is closed all the same */
	assert_string_equal(fio_report.msg, "cannot post an RDMA write of 4096 bytes at offset 4096: "
		"Invalid argument");
	assert_events(3, DEPTH, 0, 3, EIO);
	assert_broken(EIO);
	assert_int_equal(fio_report.fails, 1); /* the first cause only */
}

static void flush_cannot_be_posted(void **state)
{
	(void)state;
	R.fail_flush = 1;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_FAILED);
	assert_string_equal(fio_report.msg, "the test's flush failed");
	assert_events(1, DEPTH, 0, 1, EIO);
	assert_broken(EIO);
}

/* the chain's one post fails: everything in it fails */
static void chain_post_fails(void **state)
{
	(void)state;
	R.fail_chain_end = 1;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(1, RPMAFIO_IO_READ, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_FAILED);
	assert_non_null(strstr(fio_report.msg, "cannot post 2 I/Os and their flush"));
	assert_events(2, DEPTH, 0, 2, EIO);
	assert_broken(EIO);
}

/* an error completion fails every I/O in flight, with the status and a hint in words */
static void error_completion_fails_all_in_flight(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	script_failed_wc(&io[0], IBV_WC_RETRY_EXC_ERR);
	assert_events(1, DEPTH, 0, 2, EIO);
	assert_non_null(strstr(fio_report.msg, "an RDMA operation failed: "));
	assert_non_null(strstr(fio_report.msg, "the server does not answer: is it still running?"));
	assert_broken(EIO);
}

/* a completion the method does not know, or naming an I/O not in flight, breaks the connection */
static void unknown_completion(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	unknown_completions = 1;
	script_wc(&io[0]);
	assert_events(1, DEPTH, 0, 1, EIO);
	assert_non_null(strstr(fio_report.msg, "a completion for no request in flight"));
	assert_broken(EIO);
}

static void completion_for_an_io_not_in_flight(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	script_wc(&io[7]); /* never posted */
	assert_events(1, DEPTH, 0, 1, EIO);
	assert_non_null(strstr(fio_report.msg, "a completion for no request in flight"));
}

/* a completion of the method's own (a message sent) completes no I/O: the wait goes on */
static void method_completion_completes_nothing(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	script_wc(NULL);
	script_wc(&io[0]);
	assert_events(1, DEPTH, 0, 1, 0);
	assert_int_equal(L.next, 2);
}

static void server_closes_the_connection(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	script_event(RPMA_CONN_CLOSED);
	assert_events(1, DEPTH, 0, 1, ECONNRESET);
	assert_string_equal(fio_report.msg, "the server at 192.0.2.1:7204 closed the connection");
	assert_broken(ECONNRESET);
}

/* Ctrl-C: a silent server holds the job for STOP_WAIT_MS (500), not connect_timeout */
static void stop_requested_gives_up_sooner(void **state)
{
	(void)state;
	fio_report.stop_requested = true;
	uint64_t t0 = L.now;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_POSTED);
	assert_events(1, DEPTH, 0, 1, ECANCELED);
	assert_in_range(L.now - t0, 500, 700);
	assert_non_null(strstr(fio_report.msg, "stopped: the server at 192.0.2.1:7204 completed none of "
		"the 1 I/Os in flight within 500 ms"));
}

/* a batch queued after the connection broke is failed at commit, nothing posted */
static void commit_after_break(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
	rpmafio_io_break(&C, EPIPE, "broken by the test");
	assert_int_equal(rpmafio_io_commit(&C), RPMAFIO_COMMIT_FAILED);
	assert_int_equal(R.nops, 0);
	assert_events(2, DEPTH, 0, 2, EPIPE);
	assert_string_equal(fio_report.msg, "broken by the test");
}

#define A(f) cmocka_unit_test_setup_teardown(f, setup_async, teardown)
#define S(f) cmocka_unit_test_setup_teardown(f, setup_sync, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		A(writes_then_one_flush),
		A(reads_signal_the_last),
		A(mixed_flush_covers_the_writes),
		A(no_flush_signals_the_last_write),
		A(a_later_batch_completes_earlier_ones),
		A(an_empty_look_goes_on_to_wait),
		A(getevents_min_zero_only_looks),
		A(busy_at_iodepth),
		A(many_batches_wrap_the_ring),
		A(empty_commit),
		A(syncs_and_other_directions),
		S(sync_write_waits_for_its_flush),
		S(sync_read_is_signalled_itself),
		S(sync_timeout),
		A(post_fails_half_way),
		A(flush_cannot_be_posted),
		A(chain_post_fails),
		A(error_completion_fails_all_in_flight),
		A(unknown_completion),
		A(completion_for_an_io_not_in_flight),
		A(method_completion_completes_nothing),
		A(server_closes_the_connection),
		A(stop_requested_gives_up_sooner),
		A(commit_after_break),
	};
	return cmocka_run_group_tests_name("engine_client_io", tests, NULL, NULL);
}
