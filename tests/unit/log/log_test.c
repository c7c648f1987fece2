/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log_test.c -- thresholds, the custom log function and the default one; a
 * failed provider call's line
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
		cmocka_unit_test_setup(default_function_writes_stderr, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
