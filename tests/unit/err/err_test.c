/* SPDX-License-Identifier: BSD-3-Clause */
/* err_test.c -- rpma_err_2str() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"

static void err_2str_every_code_has_its_own_text(void **state)
{
	(void)state;
	const int codes[] = {RPMA_E_UNKNOWN, RPMA_E_NOSUPP, RPMA_E_PROVIDER, RPMA_E_NOMEM,
		RPMA_E_INVAL, RPMA_E_NO_COMPLETION, RPMA_E_NO_EVENT, RPMA_E_AGAIN,
		RPMA_E_SHARED_CHANNEL, RPMA_E_NOT_SHARED_CHNL};
	const size_t n = sizeof(codes) / sizeof(codes[0]);

	for (size_t i = 0; i < n; i++) {
		assert_non_null(rpma_err_2str(codes[i]));
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(rpma_err_2str(codes[i]), rpma_err_2str(codes[j]));
	}
	assert_string_equal(rpma_err_2str(RPMA_E_INVAL), "Invalid argument");
}

static void err_2str_unknown_values_are_unknown(void **state)
{
	(void)state;
	assert_string_equal(rpma_err_2str(0), rpma_err_2str(RPMA_E_UNKNOWN));
	assert_string_equal(rpma_err_2str(-1), rpma_err_2str(RPMA_E_UNKNOWN));
	assert_string_equal(rpma_err_2str(12345), rpma_err_2str(RPMA_E_UNKNOWN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(err_2str_every_code_has_its_own_text),
		cmocka_unit_test(err_2str_unknown_values_are_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
