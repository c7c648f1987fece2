/* SPDX-License-Identifier: BSD-3-Clause */
/* srq_cfg_test.c -- the shared receive queue configuration */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "librpma.h"
#include "srq_cfg.h"
#include "fake_provider.h"

#define POISON_CFG ((struct rpma_srq_cfg *)0x5a5a)

struct u32_field {
	const char *name;
	int (*set)(struct rpma_srq_cfg *, uint32_t);
	int (*get)(const struct rpma_srq_cfg *, uint32_t *);
	uint32_t default_value; /* from rpma_srq_cfg_new(3) */
};

static const struct u32_field fields[] = {
	{"rq_size", rpma_srq_cfg_set_rq_size, rpma_srq_cfg_get_rq_size, 100},
	{"rcq_size", rpma_srq_cfg_set_rcq_size, rpma_srq_cfg_get_rcq_size, 100},
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

static int setup(void **state)
{
	fake_reset();
	struct rpma_srq_cfg *cfg = NULL;
	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_non_null(cfg);
	*state = cfg;
	return 0;
}

static int teardown(void **state)
{
	struct rpma_srq_cfg *cfg = *state;
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
	assert_null(cfg);
	return 0;
}

static void expect_documented_defaults(const struct rpma_srq_cfg *cfg)
{
	for (size_t i = 0; i < N_FIELDS; i++) {
		uint32_t value = 12345;
		assert_int_equal(fields[i].get(cfg, &value), 0);
		if (value != fields[i].default_value)
			fail_msg("%s: %u, expected %u", fields[i].name, value,
				fields[i].default_value);
	}
}

static void new_has_documented_defaults(void **state)
{
	expect_documented_defaults(*state);
}

static void default_object_has_documented_defaults(void **state)
{
	(void)state;
	const struct rpma_srq_cfg *def = rpma_srq_cfg_default();
	assert_non_null(def);
	assert_ptr_equal(def, rpma_srq_cfg_default());
	expect_documented_defaults(def);
	assert_int_equal(RPMA_SRQ_CFG_DEFAULT_RQ_SIZE, 100);
	assert_int_equal(RPMA_SRQ_CFG_DEFAULT_RCQ_SIZE, 100);
}

static void configurations_are_independent(void **state)
{
	struct rpma_srq_cfg *cfg = *state;
	struct rpma_srq_cfg *other;
	assert_int_equal(rpma_srq_cfg_new(&other), 0);
	for (size_t i = 0; i < N_FIELDS; i++)
		assert_int_equal(fields[i].set(cfg, 3), 0);
	expect_documented_defaults(other);
	expect_documented_defaults(rpma_srq_cfg_default());
	assert_int_equal(rpma_srq_cfg_delete(&other), 0);
}

static void new_invalid_and_out_of_memory(void **state)
{
	(void)state;
	assert_int_equal(rpma_srq_cfg_new(NULL), RPMA_E_INVAL);

	struct rpma_srq_cfg *cfg = POISON_CFG;
	fake_malloc_fail(1);
	assert_int_equal(rpma_srq_cfg_new(&cfg), RPMA_E_NOMEM);
	assert_ptr_equal(cfg, POISON_CFG);
}

static void delete_null_arguments(void **state)
{
	(void)state;
	assert_int_equal(rpma_srq_cfg_delete(NULL), RPMA_E_INVAL);
	struct rpma_srq_cfg *cfg = NULL;
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
	assert_null(cfg);
}

/* Each field keeps what was set, including 0 (no receive CQ of its own), apart from the other. */
static void sizes_set_get(void **state)
{
	struct rpma_srq_cfg *cfg = *state;
	const uint32_t values[] = {0, 1, 4096, UINT32_MAX};
	for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
		assert_int_equal(fields[0].set(cfg, values[v]), 0);
		assert_int_equal(fields[1].set(cfg, ~values[v]), 0);
		uint32_t rq = 7, rcq = 7;
		assert_int_equal(fields[0].get(cfg, &rq), 0);
		assert_int_equal(fields[1].get(cfg, &rcq), 0);
		assert_int_equal(rq, values[v]);
		assert_int_equal(rcq, ~values[v]);
	}
}

static void sizes_invalid(void **state)
{
	struct rpma_srq_cfg *cfg = *state;
	for (size_t i = 0; i < N_FIELDS; i++) {
		uint32_t got = 12345;
		assert_int_equal(fields[i].set(NULL, 5), RPMA_E_INVAL);
		assert_int_equal(fields[i].get(NULL, &got), RPMA_E_INVAL);
		assert_int_equal(got, 12345);
		assert_int_equal(fields[i].get(cfg, NULL), RPMA_E_INVAL);
	}
	expect_documented_defaults(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(new_has_documented_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(default_object_has_documented_defaults, setup,
			teardown),
		cmocka_unit_test_setup_teardown(configurations_are_independent, setup, teardown),
		cmocka_unit_test_setup_teardown(new_invalid_and_out_of_memory, setup, teardown),
		cmocka_unit_test(delete_null_arguments),
		cmocka_unit_test_setup_teardown(sizes_set_get, setup, teardown),
		cmocka_unit_test_setup_teardown(sizes_invalid, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
