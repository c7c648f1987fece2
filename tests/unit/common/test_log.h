/* SPDX-License-Identifier: BSD-3-Clause */
/* test_log.h -- log functions for unit tests: one that drops, one that records */
#ifndef TEST_LOG_H
#define TEST_LOG_H

#include "librpma.h"

/* Drops every message: keeps expected error paths out of the test output. */
void test_log_quiet(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...);

/* The last message test_log_record() kept, formatted, and how many it was given. */
struct test_log_last {
	unsigned count;
	enum rpma_log_level level;
	char file[64];
	int line;
	char function[64];
	char message[1024];
};
extern struct test_log_last test_log_last;

/* Keeps each message in test_log_last (the one before is overwritten). */
void test_log_record(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...);
/* Forget what was kept and make test_log_record the log function. */
void test_log_record_start(void);

/*
 * Fail the test unless the last message kept contains each of the strings,
 * a NULL-terminated list; the failure names the missing one and the message.
 */
void test_log_assert_has(const char *first, ...) __attribute__((sentinel));
/* Fail the test unless the last message kept is the line fmt formats. */
void test_log_assert_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The usual cmocka fixture pair: a fresh fake provider and a quiet log; at the end
 * no fake object may be left alive and the default log function is back. */
int test_setup_quiet(void **state);
int test_teardown_no_leaks(void **state);

#endif /* TEST_LOG_H */
