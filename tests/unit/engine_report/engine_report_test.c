/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_report_test.c -- common/report.c: the short copy of a failure that fio's
 * error summary gets (whole words, never cut mid-word) and an error in words.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <librpma.h>

#include "common/report.h"

static void short_message_whole(void **state)
{
	(void)state;
	char buf[80];
	assert_string_equal(rpmafio_short_copy("fio allocated no I/O buffers", buf, sizeof(buf)),
		"fio allocated no I/O buffers");
	/* exactly as long as fits */
	char msg[80];
	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	assert_string_equal(rpmafio_short_copy(msg, buf, sizeof(buf)), msg);
}

static void long_message_cut_at_a_word(void **state)
{
	(void)state;
	char buf[48];
	const char *msg = "serverip=1.2.3.4: no local RDMA device can reach this address: "
		"Provider error (No such device)";
	const char *got = rpmafio_short_copy(msg, buf, sizeof(buf));
	assert_true(strlen(got) < sizeof(buf));
	assert_string_equal(got, "serverip=1.2.3.4: no local RDMA device can ...");
	/* the head is the message's own beginning, ending where a word ended */
	size_t head = strlen(got) - strlen(" ...");
	assert_memory_equal(got, msg, head);
	assert_true(msg[head] == ' ' || msg[head] == ':' || msg[head] == ',');
}

static void separators_dropped_before_the_ellipsis(void **state)
{
	(void)state;
	char buf[24];
	assert_string_equal(rpmafio_short_copy("rpma_mr_reg: cannot register the memory",
		buf, sizeof(buf)), "rpma_mr_reg: cannot ...");
	assert_string_equal(rpmafio_short_copy("first, second, third, fourth, fifth",
		buf, sizeof(buf)), "first, second ...");
}

static void one_long_word_and_tiny_buffers(void **state)
{
	(void)state;
	char buf[16];
	assert_string_equal(rpmafio_short_copy("abcdefghijklmnopqrstuvwxyz", buf, sizeof(buf)),
		"abcdefghijk ...");
	char tiny[4] = "zzz";
	assert_string_equal(rpmafio_short_copy("a long message", tiny, sizeof(tiny)), "");
	assert_ptr_equal(rpmafio_short_copy("x", tiny, 0), tiny);
}

static void rpma_error_in_words(void **state)
{
	(void)state;
	char buf[128];
	errno = ENODEV;
	assert_non_null(strstr(rpmafio_rpma_err(RPMA_E_PROVIDER, buf, sizeof(buf)), "No such device"));
	assert_string_equal(rpmafio_rpma_err(RPMA_E_NOSUPP, buf, sizeof(buf)), rpma_err_2str(RPMA_E_NOSUPP));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(short_message_whole),
		cmocka_unit_test(long_message_cut_at_a_word),
		cmocka_unit_test(separators_dropped_before_the_ellipsis),
		cmocka_unit_test(one_long_word_and_tiny_buffers),
		cmocka_unit_test(rpma_error_in_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
