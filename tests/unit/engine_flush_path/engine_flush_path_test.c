/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_flush_path_test.c -- native_flush's decision for every combination
 * of the option, the server's word and this device: native only when both
 * ends can, refused (naming the end that cannot) only with native_flush=1.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

/* options.h also declares fio's option table: a stand-in type, no fio needed */
struct fio_option {
	int unused;
};
#include "common/options.h"

static void every_combination(void **state)
{
	(void)state;
	static const struct {
		unsigned mode;
		bool server, device;
		enum rpmafio_flush_path path;
		const char *why;
	} cases[] = {
		{RPMAFIO_NATIVE_FLUSH_AUTO, true, true, RPMAFIO_FLUSH_NATIVE, NULL},
		{RPMAFIO_NATIVE_FLUSH_AUTO, true, false, RPMAFIO_FLUSH_EMULATED, NULL},
		{RPMAFIO_NATIVE_FLUSH_AUTO, false, true, RPMAFIO_FLUSH_EMULATED, NULL},
		{RPMAFIO_NATIVE_FLUSH_AUTO, false, false, RPMAFIO_FLUSH_EMULATED, NULL},
		{RPMAFIO_NATIVE_FLUSH_ON, true, true, RPMAFIO_FLUSH_NATIVE, NULL},
		{RPMAFIO_NATIVE_FLUSH_ON, true, false, RPMAFIO_FLUSH_REFUSED, "this client's"},
		{RPMAFIO_NATIVE_FLUSH_ON, false, true, RPMAFIO_FLUSH_REFUSED, "server's memory"},
		{RPMAFIO_NATIVE_FLUSH_ON, false, false, RPMAFIO_FLUSH_REFUSED, "server's memory"},
		{RPMAFIO_NATIVE_FLUSH_OFF, true, true, RPMAFIO_FLUSH_EMULATED, NULL},
		{RPMAFIO_NATIVE_FLUSH_OFF, false, false, RPMAFIO_FLUSH_EMULATED, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[256] = "";
		assert_int_equal(rpmafio_flush_path(cases[i].mode, cases[i].server,
			cases[i].device, why, sizeof(why)), cases[i].path);
		if (cases[i].why)
			assert_non_null(strstr(why, cases[i].why));
		else
			assert_string_equal(why, "");
	}
}

static void no_reason_buffer(void **state)
{
	(void)state;
	assert_int_equal(rpmafio_flush_path(RPMAFIO_NATIVE_FLUSH_ON, false, false, NULL, 0),
		RPMAFIO_FLUSH_REFUSED);
}

/* the option's default (a zeroed struct, and fio's "auto") is auto */
static void auto_is_zero(void **state)
{
	(void)state;
	struct rpmafio_opts o = {0};
	assert_int_equal(o.native_flush, RPMAFIO_NATIVE_FLUSH_AUTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_combination),
		cmocka_unit_test(no_reason_buffer),
		cmocka_unit_test(auto_is_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
