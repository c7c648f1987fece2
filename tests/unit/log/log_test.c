/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log_test.c -- thresholds, the custom log function and the default one; a
 * failed provider call's line, and a failed post's with its work request
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "librpma.h"
#include "log.h"
#include "test_log.h"

static int reset(void **state)
{
	(void)state;
	memset(&test_log_last, 0, sizeof(test_log_last));
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING), 0);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_ERROR), 0);
	return rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
}

static void threshold_defaults(void **state)
{
	(void)state;
	enum rpma_log_level level;
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level), 0);
	assert_int_equal(level, RPMA_LOG_LEVEL_WARNING);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &level), 0);
	assert_int_equal(level, RPMA_LOG_LEVEL_ERROR);
}

static void threshold_set_get_every_level(void **state)
{
	(void)state;
	for (int t = RPMA_LOG_THRESHOLD; t <= RPMA_LOG_THRESHOLD_AUX; t++) {
		for (int l = RPMA_LOG_DISABLED; l <= RPMA_LOG_LEVEL_DEBUG; l++) {
			enum rpma_log_level got;
			assert_int_equal(rpma_log_set_threshold(t, l), 0);
			assert_int_equal(rpma_log_get_threshold(t, &got), 0);
			assert_int_equal(got, l);
		}
	}
}

static void threshold_invalid_arguments(void **state)
{
	(void)state;
	enum rpma_log_level level;
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_MAX, RPMA_LOG_LEVEL_ERROR),
		RPMA_E_INVAL);
	assert_int_equal(rpma_log_set_threshold((enum rpma_log_threshold)-1, RPMA_LOG_LEVEL_ERROR),
		RPMA_E_INVAL);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG + 1),
		RPMA_E_INVAL);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED - 1),
		RPMA_E_INVAL);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, &level), RPMA_E_INVAL);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, NULL), RPMA_E_INVAL);
}

static void custom_function_gets_messages_up_to_threshold(void **state)
{
	(void)state;
	test_log_record_start();
	RPMA_LOG_ERROR("answer %d", 42);
	assert_int_equal(test_log_last.count, 1);
	assert_int_equal(test_log_last.level, RPMA_LOG_LEVEL_ERROR);
	assert_string_equal(test_log_last.message, "answer 42");
	assert_string_equal(test_log_last.file, "log_test.c"); /* base name only */

	RPMA_LOG_INFO("below the threshold");
	assert_int_equal(test_log_last.count, 1);

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG), 0);
	RPMA_LOG_DEBUG("now it passes");
	assert_int_equal(test_log_last.count, 2);

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	RPMA_LOG_FATAL("disabled");
	assert_int_equal(test_log_last.count, 2);
}

static void errno_helper_names_the_error(void **state)
{
	(void)state;
	test_log_record_start();
	RPMA_LOG_ERROR_ERRNO(ENOMEM, "ibv_create_cq");
	assert_string_equal(test_log_last.message, "ibv_create_cq() failed: ENOMEM");
	/* libsiw returns -EINVAL; a code no errno has still shows its number */
	RPMA_LOG_ERROR_ERRNO(-EINVAL, "ibv_post_recv");
	assert_string_equal(test_log_last.message, "ibv_post_recv() failed: -EINVAL");
	RPMA_LOG_ERROR_ERRNO(99999, "ibv_post_recv");
	assert_string_equal(test_log_last.message, "ibv_post_recv() failed: unknown errno 99999");
}

/* The line names the call and its errno, at the caller's place; errno is the provider's. */
static void provider_failed_logs_at_the_callers_place(void **state)
{
	(void)state;
	test_log_record_start();
	errno = 0;
	assert_int_equal(RPMA_PROVIDER_FAILED(EBUSY, "ibv_dealloc_pd"), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_int_equal(test_log_last.count, 1);
	assert_int_equal(test_log_last.level, RPMA_LOG_LEVEL_ERROR);
	assert_string_equal(test_log_last.message, "ibv_dealloc_pd() failed: EBUSY");
	assert_string_equal(test_log_last.file, "log_test.c");
	assert_string_equal(test_log_last.function, __func__);
}

/* ---- a failed post's line: the work request's fields ---- */

static struct ibv_sge send_sge = {.addr = 0x1000, .length = 4096, .lkey = 3};

/* Send-queue requests and the lines their failed posts log. */
static const struct {
	struct ibv_send_wr wr;
	const char *fields;
} failed_sends[] = {
	{ /* every field */
		.wr = {.wr_id = 0x2a, .sg_list = &send_sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_INLINE,
			.wr.rdma = {.remote_addr = 0x20000, .rkey = 0x77}},
		.fields = "opcode=RDMA_WRITE wr_id=0x2a local_addr=0x1000 length=4096 "
			"remote_addr=0x20000 rkey=0x77 send_flags=SIGNALED|FENCE|INLINE",
	},
	{ /* a send names no remote range; no data, no local address */
		.wr = {.opcode = IBV_WR_SEND_WITH_IMM},
		.fields = "opcode=SEND_WITH_IMM wr_id=0x0 length=0 send_flags=UNSIGNALED",
	},
	{ /* an opcode the library never posts: its union is not read */
		.wr = {.wr_id = 1, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = IBV_SEND_SOLICITED | IBV_SEND_IP_CSUM},
		.fields = "opcode=UNKNOWN wr_id=0x1 length=0 send_flags=UNSIGNALED|SOLICITED|0x10",
	},
};

/* The line names the call, its errno and the request's fields, at the caller's place. */
static void post_failed_names_the_send_wr_fields(void **state)
{
	(void)state;
	test_log_record_start();
	for (size_t i = 0; i < sizeof(failed_sends) / sizeof(failed_sends[0]); i++) {
		errno = 0;
		assert_int_equal(RPMA_POST_FAILED(ENOMEM, "ibv_post_send",
			rpma_wr_fields_of_send(&failed_sends[i].wr)), RPMA_E_PROVIDER);
		assert_int_equal(errno, ENOMEM);
		test_log_assert_line("ibv_post_send() failed: ENOMEM; work request: %s",
			failed_sends[i].fields);
		assert_string_equal(test_log_last.function, __func__);
	}
}

/* A receive: its scatter list in all, no remote range, no send flags. */
static void post_failed_recv_counts_every_sge(void **state)
{
	(void)state;
	struct ibv_sge sges[2] = {{.addr = 0x3000, .length = 64}, {.addr = 0x9000, .length = 32}};
	struct ibv_recv_wr wr = {.wr_id = 0xc0ffee, .sg_list = sges, .num_sge = 2};
	test_log_record_start();
	errno = 0;
	assert_int_equal(RPMA_POST_FAILED(EAGAIN, "ibv_post_srq_recv", rpma_wr_fields_of_recv(&wr)),
		RPMA_E_PROVIDER);
	assert_int_equal(errno, EAGAIN);
	assert_string_equal(test_log_last.message, "ibv_post_srq_recv() failed: EAGAIN; "
		"work request: opcode=RECV wr_id=0xc0ffee local_addr=0x3000 length=96");
}

/* A request of the extended interface: a remote range, no local buffer. */
static void post_failed_remote_op_names_its_range(void **state)
{
	(void)state;
	test_log_record_start();
	(void)RPMA_POST_FAILED(EIO, "ibv_wr_complete", rpma_wr_fields_of_remote("FLUSH",
		(const void *)0xfeed, IBV_SEND_SIGNALED, 0x7000010, 0x5a5a, 4096));
	assert_string_equal(test_log_last.message, "ibv_wr_complete() failed: EIO; "
		"work request: opcode=FLUSH wr_id=0xfeed length=4096 remote_addr=0x7000010 "
		"rkey=0x5a5a send_flags=SIGNALED");
}

/* Fields too long for their room are cut, not overrun: the line still comes. */
static void post_failed_cuts_what_does_not_fit(void **state)
{
	(void)state;
	char opcode[400];
	memset(opcode, 'X', sizeof(opcode) - 1);
	opcode[sizeof(opcode) - 1] = '\0';
	test_log_record_start();
	(void)RPMA_POST_FAILED(EIO, "ibv_wr_complete", rpma_wr_fields_of_remote(opcode, NULL, 0,
		0, 0, 0));
	assert_int_equal(test_log_last.count, 1);
	const char *fields = strstr(test_log_last.message, "work request: opcode=XXX");
	assert_non_null(fields);
	assert_int_equal(strlen(fields + strlen("work request: ")), 255);
}

/* Below the threshold nothing is formatted or logged; errno and the code are the same. */
static void post_failed_below_threshold_logs_nothing(void **state)
{
	(void)state;
	struct ibv_send_wr wr = {.opcode = IBV_WR_RDMA_READ};
	test_log_record_start();
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	errno = 0;
	assert_int_equal(RPMA_POST_FAILED(ENOSPC, "ibv_post_send", rpma_wr_fields_of_send(&wr)),
		RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(test_log_last.count, 0);
}

/* The default function prints errors to stderr (aux threshold) and not infos. */
static void default_function_writes_stderr(void **state)
{
	(void)state;
	char buf[4096] = "";
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	dup2(fileno(tmp), STDERR_FILENO);

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG), 0);
	RPMA_LOG_ERROR("visible %s", "error");
	RPMA_LOG_INFO("invisible info");
	fflush(stderr);

	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	size_t n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);

	assert_non_null(strstr(buf, "*ERROR*"));
	assert_non_null(strstr(buf, "visible error"));
	assert_null(strstr(buf, "invisible info"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(threshold_defaults, reset),
		cmocka_unit_test_setup(threshold_set_get_every_level, reset),
		cmocka_unit_test_setup(threshold_invalid_arguments, reset),
		cmocka_unit_test_setup(custom_function_gets_messages_up_to_threshold, reset),
		cmocka_unit_test_setup(errno_helper_names_the_error, reset),
		cmocka_unit_test_setup(provider_failed_logs_at_the_callers_place, reset),
		cmocka_unit_test_setup(post_failed_names_the_send_wr_fields, reset),
		cmocka_unit_test_setup(post_failed_recv_counts_every_sge, reset),
		cmocka_unit_test_setup(post_failed_remote_op_names_its_range, reset),
		cmocka_unit_test_setup(post_failed_cuts_what_does_not_fit, reset),
		cmocka_unit_test_setup(post_failed_below_threshold_logs_nothing, reset),
		cmocka_unit_test_setup(default_function_writes_stderr, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
