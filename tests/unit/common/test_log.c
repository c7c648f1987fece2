/* SPDX-License-Identifier: BSD-3-Clause */
/* test_log.c -- see test_log.h */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
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

struct test_log_last test_log_last;

void test_log_record(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	va_list ap;
	va_start(ap, message_format);
	vsnprintf(test_log_last.message, sizeof(test_log_last.message), message_format, ap);
	va_end(ap);
	snprintf(test_log_last.file, sizeof(test_log_last.file), "%s", file_name);
	snprintf(test_log_last.function, sizeof(test_log_last.function), "%s", function_name);
	test_log_last.line = line_no;
	test_log_last.level = level;
	test_log_last.count++;
}

void test_log_record_start(void)
{
	memset(&test_log_last, 0, sizeof(test_log_last));
	assert_int_equal(rpma_log_set_function(test_log_record), 0);
}

void test_log_assert_has(const char *first, ...)
{
	va_list ap;
	va_start(ap, first);
	for (const char *part = first; part != NULL; part = va_arg(ap, const char *)) {
		if (strstr(test_log_last.message, part) == NULL)
			fail_msg("the log line lacks \"%s\": \"%s\"", part, test_log_last.message);
	}
	va_end(ap);
}

void test_log_assert_line(const char *fmt, ...)
{
	char expected[sizeof(test_log_last.message)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(expected, sizeof(expected), fmt, ap);
	va_end(ap);
	assert_string_equal(test_log_last.message, expected);
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
