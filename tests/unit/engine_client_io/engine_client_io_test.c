/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_client_io_test.c -- the client's I/O path (engines/client/io.c) on the
 * host: queue, commit, getevents and their failures, against stand-ins for the
 * librpma calls it makes (every post is recorded), for the completion loop
 * (completions and connection events come from a script, the clock is the
 * test's) and for the calls that reach fio (common/report.h).
 *
 * The method is APM-like: its flush is recorded as one more operation and a
 * completion carries the I/O it completes. The stand-ins are
 * engine_client_io_fixture.c's, the failures engine_client_io_failures_test.c's.
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

/* ---- a batch and its one flush ---- */

/*
 * three writes: posted as one chain, unsignalled, then the flush over exactly
 * their ranges (sorted), only its last work request signalled; counted
 */
static void writes_then_their_ranges_flushed(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 8192, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(2, RPMAFIO_IO_WRITE, 65536, 512);
	assert_int_equal(rnic.nops, 0); /* nothing posted before commit */

	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(client.nr_queued, 0);
	assert_int_equal(rnic.nops, 6);
	assert_op(0, OP_WRITE, 8192, 4096, RPMA_F_COMPLETION_ON_ERROR, &ios[0]);
	assert_op(1, OP_WRITE, 0, 4096, RPMA_F_COMPLETION_ON_ERROR, &ios[1]);
	assert_op(2, OP_WRITE, 65536, 512, RPMA_F_COMPLETION_ON_ERROR, &ios[2]);
	/* [0, 4096) and [8192, 12288) do not touch: two ranges, then the third */
	assert_op(3, OP_FLUSH, 0, 4096, RPMA_F_COMPLETION_ON_ERROR, &ios[2]);
	assert_op(4, OP_FLUSH, 8192, 4096, RPMA_F_COMPLETION_ON_ERROR, &ios[2]);
	assert_op(5, OP_FLUSH, 65536, 512, RPMA_F_COMPLETION_ALWAYS, &ios[2]);
	assert_int_equal(rnic.op[1].local, 4096); /* buffer 1 */
	/* one doorbell for the lot */
	assert_int_equal(rnic.chains, 1);
	assert_int_equal(rnic.chain_ends, 1);
	for (unsigned k = 0; k < 6; k++)
		assert_int_equal(rnic.op[k].chain, 1);
	/* exactly the bytes written asked to persist */
	assert_int_equal(client.bytes_written, 8192 + 512);
	assert_int_equal(client.bytes_to_persist, 8192 + 512);

	script_wc(&ios[2]);
	assert_events(3, DEPTH, 0, 3, 0);
	assert_int_equal(fio_report.fails, 0);
}

/*
 * A method whose server takes one range a request (fio 3.33's GPSPM server)
 * merges them to the span: what it asked for is counted, gaps included.
 * Contiguous writes are one range anyway.
 */
static void a_span_asked_is_counted(void **state)
{
	(void)state;
	fit_to = 1;
	queue_ok(0, RPMAFIO_IO_WRITE, 8192, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(2, RPMAFIO_IO_WRITE, 4096, 4096);
	queue_ok(3, RPMAFIO_IO_WRITE, 65536, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(rnic.nops, 5);
	assert_op(4, OP_FLUSH, 0, 65536 + 4096, RPMA_F_COMPLETION_ALWAYS, &ios[3]);
	assert_int_equal(client.bytes_written, 4 * 4096);
	assert_int_equal(client.bytes_to_persist, 65536 + 4096);
	/* the note says both */
	rpmafio_io_report(&client);
	assert_non_null(strstr(fio_report.note, "wrote 16384 bytes, asked to persist 69632 bytes"));
}

/* reads only: no flush; the last read is the signalled one */
static void reads_signal_the_last(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	queue_ok(1, RPMAFIO_IO_READ, 4096, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(rnic.nops, 2);
	assert_op(0, OP_READ, 0, 4096, RPMA_F_COMPLETION_ON_ERROR, &ios[0]);
	assert_op(1, OP_READ, 4096, 4096, RPMA_F_COMPLETION_ALWAYS, &ios[1]);
	script_wc(&ios[1]);
	assert_events(1, DEPTH, 0, 2, 0);
}

/* reads and writes: the flush covers the writes only and is the one signalled */
static void mixed_flush_covers_the_writes(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 12288, 4096);
	queue_ok(2, RPMAFIO_IO_READ, 1 << 20, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(rnic.nops, 4);
	assert_op(2, OP_READ, 1 << 20, 4096, RPMA_F_COMPLETION_ON_ERROR, &ios[2]);
	assert_op(3, OP_FLUSH, 12288, 4096, RPMA_F_COMPLETION_ALWAYS, &ios[2]);
}

/* no_flush=1: the writes go alone and the last one is signalled */
static void no_flush_signals_the_last_write(void **state)
{
	(void)state;
	opts.no_flush = 1;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(rnic.nops, 2);
	assert_op(1, OP_WRITE, 4096, 4096, RPMA_F_COMPLETION_ALWAYS, &ios[1]);
}

/* a completion of a later batch completes the earlier one too (an RC QP completes in order) */
static void a_later_batch_completes_earlier_ones(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
	queue_ok(2, RPMAFIO_IO_WRITE, 8192, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(rnic.chains, 2);
	script_wc(&ios[2]);
	/* fio asks for one at least, takes two at most: the third waits, done already */
	assert_events(1, 2, 0, 2, 0);
	/* the completion was there: the first look took it, the loop never ran */
	assert_int_equal(script.onces, 1);
	assert_int_equal(script.runs, 0);
	assert_events(1, 2, 2, 1, 0);
	assert_int_equal(script.onces, 1); /* it was ready: not even a look */
	assert_int_equal(script.runs, 0);
}

/* nothing there at the first look: the loop waits */
static void an_empty_look_goes_on_to_wait(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	script_event(RPMA_CONN_ESTABLISHED); /* not a completion: the look finds the CQ empty */
	script_wc(&ios[0]);
	assert_events(1, 1, 0, 1, 0);
	assert_int_equal(script.onces, 1);
	assert_int_equal(script.runs, 1);
}

/* min 0: one look at the CQ, no waiting */
static void getevents_min_zero_only_looks(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	assert_events(0, DEPTH, 0, 0, 0);
	assert_int_equal(script.onces, 1);
	assert_int_equal(script.runs, 0);
	script_wc(&ios[0]);
	assert_events(0, DEPTH, 0, 1, 0);
}

/* iodepth I/Os in the ring (queued or in flight): the next one waits */
static void busy_at_iodepth(void **state)
{
	(void)state;
	for (unsigned i = 0; i < DEPTH; i++)
		queue_ok(i, RPMAFIO_IO_WRITE, 4096ULL * i, 4096);
	assert_int_equal(rpmafio_io_queue(&client, make_io(DEPTH, RPMAFIO_IO_WRITE, 0, 4096)),
		RPMAFIO_IO_BUSY);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	assert_int_equal(rpmafio_io_queue(&client, make_io(DEPTH, RPMAFIO_IO_WRITE, 0, 4096)),
		RPMAFIO_IO_BUSY);
	script_wc(&ios[DEPTH - 1]);
	assert_events(DEPTH, DEPTH, 0, DEPTH, 0);
	queue_ok(DEPTH, RPMAFIO_IO_WRITE, 0, 4096);
}

/* the ring's counters wrap around over many batches (capacity 4: every 4 I/Os) */
static void many_batches_wrap_the_ring(void **state)
{
	(void)state;
	for (unsigned round = 0; round < 10; round++) {
		memset(&rnic, 0, sizeof(rnic));
		script.nsteps = script.next = 0;
		queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
		queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
		queue_ok(2, RPMAFIO_IO_READ, 8192, 4096);
		assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
		script_wc(&ios[2]);
		assert_events(3, DEPTH, 0, 3, 0);
	}
	assert_int_equal(fio_report.fails, 0);
}

/* commit with nothing queued posts nothing */
static void empty_commit(void **state)
{
	(void)state;
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_EMPTY);
	assert_int_equal(rnic.chains, 0);
	assert_int_equal(rnic.nops, 0);
}

/* a sync of any kind completes at once (every write is durable when it completes); others are refused */
static void syncs_and_other_directions(void **state)
{
	(void)state;
	assert_int_equal(rpmafio_io_queue(&client, make_io(0, RPMAFIO_IO_SYNC, 0, 0)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(ios[0].error, 0);
	assert_int_equal(rpmafio_io_queue(&client, make_io(1, RPMAFIO_IO_OTHER, 0, 4096)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(ios[1].error, EINVAL);
	assert_int_equal(rnic.nops, 0);
	assert_int_equal(client.nr_queued, 0);
}

/* ---- sync=1 ---- */

/* a write and its flush posted together, waited for, completed in queue() */
static void sync_write_waits_for_its_flush(void **state)
{
	(void)state;
	script_wc(&ios[0]);
	assert_int_equal(rpmafio_io_queue(&client, make_io(0, RPMAFIO_IO_WRITE, 4096, 512)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(ios[0].error, 0);
	assert_int_equal(rnic.nops, 2);
	assert_op(0, OP_WRITE, 4096, 512, RPMA_F_COMPLETION_ON_ERROR, &ios[0]);
	assert_op(1, OP_FLUSH, 4096, 512, RPMA_F_COMPLETION_ALWAYS, &ios[0]);
	assert_int_equal(rnic.chains, 1);
	assert_int_equal(rpmafio_ring_used(&client.ring), 0); /* nothing left for getevents */
}

static void sync_read_is_signalled_itself(void **state)
{
	(void)state;
	script_wc(&ios[0]);
	assert_int_equal(rpmafio_io_queue(&client, make_io(0, RPMAFIO_IO_READ, 0, 4096)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(ios[0].error, 0);
	assert_int_equal(rnic.nops, 1);
	assert_op(0, OP_READ, 0, 4096, RPMA_F_COMPLETION_ALWAYS, &ios[0]);
	assert_int_equal(rnic.chains, 0);
}

/* the server never answers: the I/O fails after connect_timeout */
static void sync_timeout(void **state)
{
	(void)state;
	uint64_t t0 = script.now;
	assert_int_equal(rpmafio_io_queue(&client, make_io(0, RPMAFIO_IO_WRITE, 0, 4096)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(ios[0].error, ETIMEDOUT);
	assert_in_range(script.now - t0, TIMEOUT_MS, TIMEOUT_MS + 200);
	assert_int_equal(fio_report.err, ETIMEDOUT);
	assert_non_null(strstr(fio_report.msg, "no completion from the server at 192.0.2.1:7204 for 1000 ms"));
}

#define A(f) cmocka_unit_test_setup_teardown(f, client_io_setup_async, client_io_teardown)
#define S(f) cmocka_unit_test_setup_teardown(f, client_io_setup_sync, client_io_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		A(writes_then_their_ranges_flushed),
		A(a_span_asked_is_counted),
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
