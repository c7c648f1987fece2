/* SPDX-License-Identifier: BSD-3-Clause */
/* conn_cfg_test.c -- the connection configuration: defaults, setters, getters */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <limits.h>
#include <stdint.h>
#include <cmocka.h>

#include "librpma.h"
#include "conn_cfg.h"
#include "fake_provider.h"

#define POISON_CFG ((struct rpma_conn_cfg *)0x5a5a)
#define POISON_SRQ ((struct rpma_srq *)0x7b7b)
#define POISON_RCQ ((struct rpma_cq *)0x6c6c)

/* The four queue sizes share one shape; each test walks this table. */
struct u32_field {
	const char *name;
	int (*set)(struct rpma_conn_cfg *, uint32_t);
	int (*get)(const struct rpma_conn_cfg *, uint32_t *);
	uint32_t default_value;
};

static const struct u32_field u32_fields[] = {
	{"cq_size", rpma_conn_cfg_set_cq_size, rpma_conn_cfg_get_cq_size, 10},
	{"rcq_size", rpma_conn_cfg_set_rcq_size, rpma_conn_cfg_get_rcq_size, 0},
	{"sq_size", rpma_conn_cfg_set_sq_size, rpma_conn_cfg_get_sq_size, 10},
	{"rq_size", rpma_conn_cfg_set_rq_size, rpma_conn_cfg_get_rq_size, 10},
};
#define N_U32_FIELDS (sizeof(u32_fields) / sizeof(u32_fields[0]))

static int setup(void **state)
{
	fake_reset();
	struct rpma_conn_cfg *cfg = NULL;
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_non_null(cfg);
	*state = cfg;
	return 0;
}

static int teardown(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_null(cfg);
	return 0;
}

/* The values rpma_conn_cfg_new(3) documents. */
static void expect_documented_defaults(const struct rpma_conn_cfg *cfg)
{
	int timeout = -1;
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, &timeout), 0);
	assert_int_equal(timeout, 1000);

	for (size_t i = 0; i < N_U32_FIELDS; i++) {
		uint32_t value = 12345;
		assert_int_equal(u32_fields[i].get(cfg, &value), 0);
		if (value != u32_fields[i].default_value)
			fail_msg("%s: %u, expected %u", u32_fields[i].name, value,
				u32_fields[i].default_value);
	}

	bool shared = true;
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, &shared), 0);
	assert_false(shared);

	struct rpma_srq *srq = POISON_SRQ;
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, &srq), 0);
	assert_null(srq);

	struct rpma_cq *rcq = POISON_RCQ;
	assert_int_equal(rpma_conn_cfg_get_shared_rcq(cfg, &rcq), 0);
	assert_null(rcq);
}

static void new_has_documented_defaults(void **state)
{
	expect_documented_defaults(*state);
}

static void default_object_has_documented_defaults(void **state)
{
	(void)state;
	const struct rpma_conn_cfg *def = rpma_conn_cfg_default();
	assert_non_null(def);
	assert_ptr_equal(def, rpma_conn_cfg_default()); /* one static object */
	expect_documented_defaults(def);
}

static void header_defaults_match_the_manual(void **state)
{
	(void)state;
	assert_int_equal(RPMA_CONN_CFG_DEFAULT_CQ_SIZE, 10);
	assert_int_equal(RPMA_CONN_CFG_DEFAULT_RCQ_SIZE, 0);
	assert_int_equal(RPMA_CONN_CFG_DEFAULT_SQ_SIZE, 10);
	assert_int_equal(RPMA_CONN_CFG_DEFAULT_RQ_SIZE, 10);
}

/* Changing a configuration changes neither the default nor another configuration. */
static void configurations_are_independent(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	struct rpma_conn_cfg *other;
	assert_int_equal(rpma_conn_cfg_new(&other), 0);

	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 7), 0);
	for (size_t i = 0; i < N_U32_FIELDS; i++)
		assert_int_equal(u32_fields[i].set(cfg, 77), 0);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, POISON_SRQ), 0);
	assert_int_equal(rpma_conn_cfg_set_shared_rcq(cfg, POISON_RCQ), 0);

	expect_documented_defaults(other);
	expect_documented_defaults(rpma_conn_cfg_default());
	assert_int_equal(rpma_conn_cfg_delete(&other), 0);
}

static void new_invalid_and_out_of_memory(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_cfg_new(NULL), RPMA_E_INVAL);

	struct rpma_conn_cfg *cfg = POISON_CFG;
	fake_malloc_fail(1);
	assert_int_equal(rpma_conn_cfg_new(&cfg), RPMA_E_NOMEM);
	assert_ptr_equal(cfg, POISON_CFG);
}

static void delete_null_arguments(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_cfg_delete(NULL), RPMA_E_INVAL);
	struct rpma_conn_cfg *cfg = NULL;
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_null(cfg);
}

static void timeout_set_get(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	const int values[] = {0, 1, 1000, 123456, INT_MAX};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		int got = -1;
		assert_int_equal(rpma_conn_cfg_set_timeout(cfg, values[i]), 0);
		assert_int_equal(rpma_conn_cfg_get_timeout(cfg, &got), 0);
		assert_int_equal(got, values[i]);
	}
}

static void timeout_invalid(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 42), 0);

	/* a negative timeout is refused and leaves the old one */
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, -1), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, INT_MIN), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_timeout(NULL, 5), RPMA_E_INVAL);

	int got = -7;
	assert_int_equal(rpma_conn_cfg_get_timeout(NULL, &got), RPMA_E_INVAL);
	assert_int_equal(got, -7);
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, &got), 0);
	assert_int_equal(got, 42);
}

static void queue_sizes_set_get(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	const uint32_t values[] = {0, 1, 4096, UINT32_MAX};
	for (size_t i = 0; i < N_U32_FIELDS; i++) {
		for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
			/* give each field its own value so a mix-up of fields shows */
			uint32_t value = values[v] == 0 || values[v] == UINT32_MAX ?
				values[v] : values[v] + (uint32_t)i;
			uint32_t got = 12345;
			assert_int_equal(u32_fields[i].set(cfg, value), 0);
			for (size_t j = 0; j < i; j++)
				assert_int_equal(u32_fields[j].set(cfg, 999), 0);
			for (size_t j = i + 1; j < N_U32_FIELDS; j++)
				assert_int_equal(u32_fields[j].set(cfg, 998), 0);
			assert_int_equal(u32_fields[i].get(cfg, &got), 0);
			if (got != value)
				fail_msg("%s: %u, expected %u", u32_fields[i].name, got, value);
		}
	}
}

static void queue_sizes_invalid(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	for (size_t i = 0; i < N_U32_FIELDS; i++) {
		uint32_t got = 12345;
		assert_int_equal(u32_fields[i].set(NULL, 5), RPMA_E_INVAL);
		assert_int_equal(u32_fields[i].get(NULL, &got), RPMA_E_INVAL);
		assert_int_equal(got, 12345);
		assert_int_equal(u32_fields[i].get(cfg, NULL), RPMA_E_INVAL);
	}
	expect_documented_defaults(cfg);
}

static void compl_channel_set_get(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	bool shared = false;
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, &shared), 0);
	assert_true(shared);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, false), 0);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, &shared), 0);
	assert_false(shared);
}

static void compl_channel_invalid(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	bool shared = true;
	assert_int_equal(rpma_conn_cfg_set_compl_channel(NULL, true), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(NULL, &shared), RPMA_E_INVAL);
	assert_true(shared);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, NULL), RPMA_E_INVAL);
}

static void srq_set_get(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	struct rpma_srq *srq = NULL;
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, POISON_SRQ), 0);
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, &srq), 0);
	assert_ptr_equal(srq, POISON_SRQ);
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, NULL), 0);
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, &srq), 0);
	assert_null(srq);
}

static void srq_invalid(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	struct rpma_srq *srq = POISON_SRQ;
	assert_int_equal(rpma_conn_cfg_set_srq(NULL, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_srq(NULL, &srq), RPMA_E_INVAL);
	assert_ptr_equal(srq, POISON_SRQ);
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, NULL), RPMA_E_INVAL);
}

static void shared_rcq_set_get(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	struct rpma_cq *rcq = NULL;
	assert_int_equal(rpma_conn_cfg_set_shared_rcq(cfg, POISON_RCQ), 0);
	assert_int_equal(rpma_conn_cfg_get_shared_rcq(cfg, &rcq), 0);
	assert_ptr_equal(rcq, POISON_RCQ);
	assert_int_equal(rpma_conn_cfg_set_shared_rcq(cfg, NULL), 0);
	assert_int_equal(rpma_conn_cfg_get_shared_rcq(cfg, &rcq), 0);
	assert_null(rcq);
}

static void shared_rcq_invalid(void **state)
{
	struct rpma_conn_cfg *cfg = *state;
	struct rpma_cq *rcq = POISON_RCQ;
	assert_int_equal(rpma_conn_cfg_set_shared_rcq(NULL, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_shared_rcq(NULL, &rcq), RPMA_E_INVAL);
	assert_ptr_equal(rcq, POISON_RCQ);
	assert_int_equal(rpma_conn_cfg_get_shared_rcq(cfg, NULL), RPMA_E_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(new_has_documented_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(default_object_has_documented_defaults, setup,
			teardown),
		cmocka_unit_test(header_defaults_match_the_manual),
		cmocka_unit_test_setup_teardown(configurations_are_independent, setup, teardown),
		cmocka_unit_test_setup_teardown(new_invalid_and_out_of_memory, setup, teardown),
		cmocka_unit_test(delete_null_arguments),
		cmocka_unit_test_setup_teardown(timeout_set_get, setup, teardown),
		cmocka_unit_test_setup_teardown(timeout_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(queue_sizes_set_get, setup, teardown),
		cmocka_unit_test_setup_teardown(queue_sizes_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(compl_channel_set_get, setup, teardown),
		cmocka_unit_test_setup_teardown(compl_channel_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(srq_set_get, setup, teardown),
		cmocka_unit_test_setup_teardown(srq_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(shared_rcq_set_get, setup, teardown),
		cmocka_unit_test_setup_teardown(shared_rcq_invalid, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
