/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_no_flush_test.c -- the no_flush option's decision: which batches get
 * the method's flush (io.c posts it, and signals the last operation instead
 * when there is none). The end-to-end check that no flush reaches the wire is
 * tests/matrix/check_vm_run.sh (make test-matrix-vm: its no_flush=1 cost run).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* options.h also declares fio's option table: a stand-in type, no fio needed */
struct fio_option {
	int unused;
};
#include "common/options.h"

static void writes_are_flushed_by_default(void **state)
{
	(void)state;
	struct rpmafio_opts o = {0};
	assert_true(rpmafio_batch_flushes(&o, true));
}

static void reads_alone_are_never_flushed(void **state)
{
	(void)state;
	struct rpmafio_opts o = {0};
	assert_false(rpmafio_batch_flushes(&o, false));
	o.no_flush = 1;
	assert_false(rpmafio_batch_flushes(&o, false));
}

static void no_flush_skips_the_flush_of_writes(void **state)
{
	(void)state;
	struct rpmafio_opts o = {.no_flush = 1};
	assert_false(rpmafio_batch_flushes(&o, true));
	/* any non-zero value fio stores for a true boolean */
	o.no_flush = 7;
	assert_false(rpmafio_batch_flushes(&o, true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writes_are_flushed_by_default),
		cmocka_unit_test(reads_alone_are_never_flushed),
		cmocka_unit_test(no_flush_skips_the_flush_of_writes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
