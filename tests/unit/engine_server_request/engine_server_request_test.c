/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_server_request_test.c -- a server job and the connection requests it
 * cannot take (engines/server/setup.c: rpmafio_server_request_lost()). Seen in
 * the VM under load: a client gave up while the server was busy, the provider
 * then failed the request's QP (rdma_create_qp_ex: EINVAL), and the job ended
 * for every later client. Now one lost request is a note and the job listens
 * on; only RPMAFIO_REQUESTS_LOST_MAX in a row (the endpoint itself failing) end
 * it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "server/server.h"
#include "fio_report.h"

static struct rpmafio_server server;

static int setup(void **state)
{
	(void)state;
	memset(&server, 0, sizeof(server));
	memset(&fio_report, 0, sizeof(fio_report));
	return 0;
}

static void a_wake_up_with_nothing_queued_is_no_loss(void **state)
{
	(void)state;
	assert_int_equal(rpmafio_server_request_lost(&server, RPMA_E_NO_EVENT), RPMAFIO_LISTEN_ON);
	assert_int_equal(server.requests_lost, 0);
	assert_int_equal(fio_report.notes, 0);
	assert_int_equal(fio_report.fails, 0);
}

static void a_refused_request_is_noted_and_the_job_listens_on(void **state)
{
	(void)state;
	assert_int_equal(rpmafio_server_request_lost(&server, RPMA_E_PROVIDER), RPMAFIO_LISTEN_ON);
	assert_int_equal(fio_report.fails, 0);
	assert_int_equal(fio_report.notes, 1);
	assert_non_null(strstr(fio_report.note, "lost a client's connection request"));
	assert_non_null(strstr(fio_report.note, "listening on"));
}

static void losses_in_a_row_end_the_job_at_the_limit(void **state)
{
	(void)state;
	for (unsigned i = 1; i < RPMAFIO_REQUESTS_LOST_MAX; i++)
		assert_int_equal(rpmafio_server_request_lost(&server, RPMA_E_PROVIDER), RPMAFIO_LISTEN_ON);
	assert_int_equal(fio_report.fails, 0);
	assert_int_equal(rpmafio_server_request_lost(&server, RPMA_E_INVAL), RPMAFIO_LISTEN_FAILED);
	assert_int_equal(fio_report.fails, 1);
	assert_non_null(strstr(fio_report.msg, "8 in a row"));
}

static void a_request_taken_starts_the_count_again(void **state)
{
	(void)state;
	for (unsigned i = 1; i < RPMAFIO_REQUESTS_LOST_MAX; i++)
		(void) rpmafio_server_request_lost(&server, RPMA_E_PROVIDER);
	server.requests_lost = 0; /* what the callers do when they take a request */
	assert_int_equal(rpmafio_server_request_lost(&server, RPMA_E_PROVIDER), RPMAFIO_LISTEN_ON);
	assert_int_equal(fio_report.fails, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(a_wake_up_with_nothing_queued_is_no_loss, setup),
		cmocka_unit_test_setup(a_refused_request_is_noted_and_the_job_listens_on, setup),
		cmocka_unit_test_setup(losses_in_a_row_end_the_job_at_the_limit, setup),
		cmocka_unit_test_setup(a_request_taken_starts_the_count_again, setup),
	};
	return cmocka_run_group_tests_name("engine_server_request", tests, NULL, NULL);
}
