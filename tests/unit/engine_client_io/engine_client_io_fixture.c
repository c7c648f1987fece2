/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_client_io_fixture.c -- what the client I/O tests run against: the
 * stand-in RNIC that records every post, the scripted completion loop and its
 * clock, an APM-like method, and the client under test with its setups.
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
#include "engine_client_io_test.h"

/* ---- what the client posted: the stand-in RNIC's log ---- */

struct rnic_log rnic;


static void record(enum op_kind kind, uint64_t offset, uint64_t len, size_t local, int flags,
		const void *ctx)
{
	assert_true(rnic.nops < MAX_OPS);
	rnic.op[rnic.nops++] = (struct op){kind, offset, len, local, flags, ctx,
		rnic.chain_open ? rnic.chains : 0};
}

static int post(enum op_kind kind, uint64_t offset, uint64_t len, size_t local, int flags,
		const void *ctx)
{
	if (++rnic.posts == rnic.fail_post_at)
		return RPMA_E_INVAL;
	record(kind, offset, len, local, flags, ctx);
	return 0;
}

/* ---- stand-ins: librpma ---- */

char conn_stand_in, server_mr_stand_in, buf_mr_stand_in;

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
	assert_false(rnic.chain_open);
	rnic.chain_open = true;
	rnic.chains++;
	return 0;
}

int rpma_conn_batch_end(struct rpma_conn *conn)
{
	assert_ptr_equal(conn, CONN);
	assert_true(rnic.chain_open);
	rnic.chain_open = false;
	rnic.chain_ends++;
	return rnic.fail_chain_end ? RPMA_E_PROVIDER : 0;
}

/* ---- stand-ins: the completion loop and its clock ---- */

struct loop_script script;

uint64_t rpmafio_now_ms(void)
{
	return script.now;
}

static enum rpmafio_poll_step one_turn(const struct rpmafio_poll_ops *ops, void *arg)
{
	const struct step *s = &script.step[script.next++];
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
	script.runs++;
	for (;;) {
		if (script.next < script.nsteps)
			r = one_turn(ops, arg);
		else {
			script.now += 100;
			script.idles++;
			assert_true(script.idles < 1000); /* a loop that never ends */
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
	script.onces++;
	if (script.next >= script.nsteps || script.step[script.next].nwc == 0)
		return RPMA_E_NO_COMPLETION;
	const struct step *s = &script.step[script.next++];
	assert_true(s->nwc <= num_entries);
	memcpy(wc, s->wc, sizeof(*wc) * (size_t)s->nwc);
	*num_entries_got = s->nwc;
	return 0;
}

/* the script: a successful completion of the operation that carries ctx */
void script_wc(const void *ctx)
{
	struct step *s = &script.step[script.nsteps++];
	s->nwc = 1;
	s->wc[0] = (struct ibv_wc){.wr_id = (uint64_t)(uintptr_t)ctx, .status = IBV_WC_SUCCESS,
		.opcode = IBV_WC_RDMA_READ};
}

void script_failed_wc(const void *ctx, enum ibv_wc_status status)
{
	script_wc(ctx);
	script.step[script.nsteps - 1].wc[0].status = status;
}

void script_event(enum rpma_conn_event ev)
{
	script.step[script.nsteps++] = (struct step){.ev = ev};
}

/*
 * ---- the method: an APM-like flush (one per range, the last signalled; or,
 * with fit_to, merged down first as a server taking fewer ranges needs),
 * completions that carry their I/O ----
 */

unsigned unknown_completions;
uint32_t fit_to;

int rpmafio_method_flush(struct rpmafio_client *c, struct rpmafio_ranges *rl,
		struct rpmafio_io *last)
{
	if (rnic.fail_flush)
		return rpmafio_fail(&c->job, EIO, "the test's flush failed");
	if (fit_to)
		rpmafio_ranges_fit(rl, fit_to);
	for (uint32_t i = 0; i < rl->n; i++)
		record(OP_FLUSH, rl->r[i].offset, rl->r[i].len, 0, i + 1 == rl->n ?
			RPMA_F_COMPLETION_ALWAYS : RPMA_F_COMPLETION_ON_ERROR, last);
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
struct rpmafio_opts opts;
static bool stop;
struct rpmafio_client client;
struct rpmafio_io ios[DEPTH * 8];

static int setup_job(bool sync)
{
	memset(&rnic, 0, sizeof(rnic));
	fit_to = 0;
	memset(&script, 0, sizeof(script));
	memset(&fio_report, 0, sizeof(fio_report));
	memset(&client, 0, sizeof(client));
	memset(ios, 0, sizeof(ios));
	unknown_completions = 0;
	stop = false;
	opts = (struct rpmafio_opts){.serverip = "192.0.2.1", .connect_timeout = TIMEOUT_MS};
	client.job = (struct rpmafio_job){.method = &rpmafio_engine_method, .o = &opts,
		.iodepth = DEPTH, .sync = sync, .writes = true, .stop = &stop, .port = "7204"};
	client.conn = CONN;
	client.server_mr = SERVER_MR;
	client.buf_mr = BUF_MR;
	client.buf_base = buffers[0];
	script.now = 5000;
	return rpmafio_io_init(&client);
}

int client_io_setup_async(void **state)
{
	(void)state;
	return setup_job(false);
}

int client_io_setup_sync(void **state)
{
	(void)state;
	return setup_job(true);
}

int client_io_teardown(void **state)
{
	(void)state;
	rpmafio_io_fini(&client);
	assert_null(client.queued);
	return 0;
}

/* I/O i: a read or a write of len bytes at offset, in buffer i */
struct rpmafio_io *make_io(unsigned i, enum rpmafio_io_dir dir, uint64_t offset,
		uint64_t len)
{
	ios[i] = (struct rpmafio_io){.dir = dir, .offset = offset, .len = len, .buf = buffers[i],
		.error = -1};
	return &ios[i];
}

void queue_ok(unsigned i, enum rpmafio_io_dir dir, uint64_t offset, uint64_t len)
{
	assert_int_equal(rpmafio_io_queue(&client, make_io(i, dir, offset, len)), RPMAFIO_IO_QUEUED);
}

void assert_op(unsigned k, enum op_kind kind, uint64_t offset, uint64_t len, int flags,
		const void *ctx)
{
	assert_true(k < rnic.nops);
	assert_int_equal(rnic.op[k].kind, kind);
	assert_int_equal(rnic.op[k].offset, offset);
	assert_int_equal(rnic.op[k].len, len);
	assert_int_equal(rnic.op[k].flags, flags);
	assert_ptr_equal(rnic.op[k].ctx, ctx);
}

/* getevents(min, max) returns the I/Os first..first+n-1, in order, each with error err */
void assert_events(unsigned min, unsigned max, unsigned first, unsigned n, int err)
{
	assert_int_equal(rpmafio_io_getevents(&client, min, max), n);
	for (unsigned k = 0; k < n; k++) {
		assert_ptr_equal(client.events[k], &ios[first + k]);
		assert_int_equal(client.events[k]->error, err);
	}
}
