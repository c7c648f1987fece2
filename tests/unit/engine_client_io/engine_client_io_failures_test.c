/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_client_io_failures_test.c -- the client's I/O path when something
 * fails: every I/O in flight fails, the first cause is reported, later I/Os
 * fail at once.
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

/* ---- failures: every I/O in flight fails, the first cause is reported, later I/Os fail ---- */

/* the connection is broken: a later I/O completes at once with the first error */
static void assert_broken(int err)
{
	assert_true(client.broken);
	assert_int_equal(fio_report.err, err);
	unsigned before = rnic.nops;
	assert_int_equal(rpmafio_io_queue(&client, make_io(DEPTH + 1, RPMAFIO_IO_WRITE, 0, 4096)),
		RPMAFIO_IO_COMPLETED);
	assert_int_equal(ios[DEPTH + 1].error, err);
	assert_int_equal(rnic.nops, before);
}

/* the second of three writes cannot be posted: no flush, all three fail, the cause named */
void post_fails_half_way(void **state)
{
	(void)state;
	rnic.fail_post_at = 2;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
	queue_ok(2, RPMAFIO_IO_WRITE, 8192, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_FAILED);
	assert_int_equal(rnic.nops, 1); /* the first write only: no third, no flush */
	assert_int_equal(rnic.chain_ends, 1); /* the chain is closed all the same */
	assert_string_equal(fio_report.msg, "cannot post an RDMA write of 4096 bytes at offset 4096: "
		"Invalid argument");
	assert_events(3, DEPTH, 0, 3, EIO);
	assert_broken(EIO);
	assert_int_equal(fio_report.fails, 1); /* the first cause only */
}

void flush_cannot_be_posted(void **state)
{
	(void)state;
	rnic.fail_flush = 1;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_FAILED);
	assert_string_equal(fio_report.msg, "the test's flush failed");
	assert_events(1, DEPTH, 0, 1, EIO);
	assert_broken(EIO);
}

/* the chain's one post fails: everything in it fails */
void chain_post_fails(void **state)
{
	(void)state;
	rnic.fail_chain_end = 1;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(1, RPMAFIO_IO_READ, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_FAILED);
	assert_non_null(strstr(fio_report.msg, "cannot post 2 I/Os and their flush"));
	assert_events(2, DEPTH, 0, 2, EIO);
	assert_broken(EIO);
}

/* an error completion fails every I/O in flight, with the status and a hint in words */
void error_completion_fails_all_in_flight(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	script_failed_wc(&ios[0], IBV_WC_RETRY_EXC_ERR);
	assert_events(1, DEPTH, 0, 2, EIO);
	assert_non_null(strstr(fio_report.msg, "an RDMA operation failed: "));
	assert_non_null(strstr(fio_report.msg, "the server does not answer: is it still running?"));
	assert_broken(EIO);
}

/* a completion the method does not know, or naming an I/O not in flight, breaks the connection */
void unknown_completion(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	unknown_completions = 1;
	script_wc(&ios[0]);
	assert_events(1, DEPTH, 0, 1, EIO);
	assert_non_null(strstr(fio_report.msg, "a completion for no request in flight"));
	assert_broken(EIO);
}

void completion_for_an_io_not_in_flight(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	script_wc(&ios[7]); /* never posted */
	assert_events(1, DEPTH, 0, 1, EIO);
	assert_non_null(strstr(fio_report.msg, "a completion for no request in flight"));
}

/* a completion of the method's own (a message sent) completes no I/O: the wait goes on */
void method_completion_completes_nothing(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_READ, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	script_wc(NULL);
	script_wc(&ios[0]);
	assert_events(1, DEPTH, 0, 1, 0);
	assert_int_equal(script.next, 2);
}

void server_closes_the_connection(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	script_event(RPMA_CONN_CLOSED);
	assert_events(1, DEPTH, 0, 1, ECONNRESET);
	assert_string_equal(fio_report.msg, "the server at 192.0.2.1:7204 closed the connection");
	assert_broken(ECONNRESET);
}

/* Ctrl-C: a silent server holds the job for STOP_WAIT_MS (500), not connect_timeout */
void stop_requested_gives_up_sooner(void **state)
{
	(void)state;
	fio_report.stop_requested = true;
	uint64_t t0 = script.now;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_POSTED);
	assert_events(1, DEPTH, 0, 1, ECANCELED);
	assert_in_range(script.now - t0, 500, 700);
	assert_non_null(strstr(fio_report.msg, "stopped: the server at 192.0.2.1:7204 completed none of "
		"the 1 I/Os in flight within 500 ms"));
}

/* a batch queued after the connection broke is failed at commit, nothing posted */
void commit_after_break(void **state)
{
	(void)state;
	queue_ok(0, RPMAFIO_IO_WRITE, 0, 4096);
	queue_ok(1, RPMAFIO_IO_WRITE, 4096, 4096);
	rpmafio_io_break(&client, EPIPE, "broken by the test");
	assert_int_equal(rpmafio_io_commit(&client), RPMAFIO_COMMIT_FAILED);
	assert_int_equal(rnic.nops, 0);
	assert_events(2, DEPTH, 0, 2, EPIPE);
	assert_string_equal(fio_report.msg, "broken by the test");
}
