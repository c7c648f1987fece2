/* SPDX-License-Identifier: BSD-3-Clause */
/* test_log.c -- see test_log.h */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fake_provider.h"
#include "test_log.h"

void test_log_quiet(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	(void)level;
	(void)file_name;
	(void)line_no;
	(void)function_name;
	(void)message_format;
}

int test_setup_quiet(void **state)
{
	(void)state;
	fake_reset();
	return rpma_log_set_function(test_log_quiet);
}

int test_teardown_no_leaks(void **state)
{
	(void)state;
	assert_int_equal(fake_live_objects(), 0);
	return rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
}
