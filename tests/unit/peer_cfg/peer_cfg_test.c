/* SPDX-License-Identifier: BSD-3-Clause */
/* peer_cfg_test.c -- the peer configuration and its 1-byte descriptor */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "fake_provider.h"

/* an address no call may write: outputs must stay untouched on failure */
#define POISON ((struct rpma_peer_cfg *)0x5a5a)

static int setup(void **state)
{
	(void)state;
	fake_reset();
	return 0;
}

static void new_has_direct_write_off(void **state)
{
	(void)state;
	struct rpma_peer_cfg *pcfg = NULL;
	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);
	assert_non_null(pcfg);

	bool supported = true;
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported), 0);
	assert_false(supported);

	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
	assert_null(pcfg);
}

static void new_invalid_and_out_of_memory(void **state)
{
	(void)state;
	assert_int_equal(rpma_peer_cfg_new(NULL), RPMA_E_INVAL);

	struct rpma_peer_cfg *pcfg = POISON;
	fake_malloc_fail(1);
	assert_int_equal(rpma_peer_cfg_new(&pcfg), RPMA_E_NOMEM);
	assert_ptr_equal(pcfg, POISON);
}

static void delete_null_arguments(void **state)
{
	(void)state;
	assert_int_equal(rpma_peer_cfg_delete(NULL), RPMA_E_INVAL);
	struct rpma_peer_cfg *pcfg = NULL;
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
	assert_null(pcfg);
}

static void direct_write_set_get(void **state)
{
	(void)state;
	struct rpma_peer_cfg *pcfg;
	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);

	bool supported;
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported), 0);
	assert_true(supported);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, false), 0);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported), 0);
	assert_false(supported);

	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

static void direct_write_invalid(void **state)
{
	(void)state;
	struct rpma_peer_cfg *pcfg;
	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);

	bool supported = true;
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(NULL, true), RPMA_E_INVAL);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(NULL, &supported), RPMA_E_INVAL);
	assert_true(supported); /* untouched */
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, NULL), RPMA_E_INVAL);

	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

static void descriptor_size_is_one(void **state)
{
	(void)state;
	struct rpma_peer_cfg *pcfg;
	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);

	size_t size = 0;
	assert_int_equal(rpma_peer_cfg_get_descriptor_size(pcfg, &size), 0);
	assert_int_equal(size, 1);

	size = 77;
	assert_int_equal(rpma_peer_cfg_get_descriptor_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(size, 77);
	assert_int_equal(rpma_peer_cfg_get_descriptor_size(pcfg, NULL), RPMA_E_INVAL);

	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

/* Golden bytes: off -> 0x00, on -> 0x01, and nothing past the first byte. */
static void get_descriptor_golden_bytes(void **state)
{
	(void)state;
	struct rpma_peer_cfg *pcfg;
	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);

	uint8_t desc[2] = {0xee, 0xee};
	assert_int_equal(rpma_peer_cfg_get_descriptor(pcfg, desc), 0);
	assert_int_equal(desc[0], 0x00);
	assert_int_equal(desc[1], 0xee);

	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, true), 0);
	assert_int_equal(rpma_peer_cfg_get_descriptor(pcfg, desc), 0);
	assert_int_equal(desc[0], 0x01);
	assert_int_equal(desc[1], 0xee);

	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

static void get_descriptor_invalid(void **state)
{
	(void)state;
	struct rpma_peer_cfg *pcfg;
	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);

	uint8_t desc = 0xee;
	assert_int_equal(rpma_peer_cfg_get_descriptor(NULL, &desc), RPMA_E_INVAL);
	assert_int_equal(desc, 0xee);
	assert_int_equal(rpma_peer_cfg_get_descriptor(pcfg, NULL), RPMA_E_INVAL);

	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

static void expect_decoded(uint8_t byte, bool expected)
{
	struct rpma_peer_cfg *pcfg = NULL;
	assert_int_equal(rpma_peer_cfg_from_descriptor(&byte, 1, &pcfg), 0);
	assert_non_null(pcfg);
	bool supported = !expected;
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &supported), 0);
	assert_int_equal(supported, expected);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}

static void from_descriptor_golden_bytes(void **state)
{
	(void)state;
	expect_decoded(0x00, false);
	expect_decoded(0x01, true);
}

static void expect_rejected(const void *desc, size_t size)
{
	struct rpma_peer_cfg *pcfg = POISON;
	assert_int_equal(rpma_peer_cfg_from_descriptor(desc, size, &pcfg), RPMA_E_INVAL);
	assert_ptr_equal(pcfg, POISON);
}

/* Untrusted input: any byte other than 0 or 1 carries unknown bits. */
static void from_descriptor_rejects_unknown_bits(void **state)
{
	(void)state;
	const uint8_t bad[] = {0x02, 0x03, 0x80, 0xfe, 0xff};
	for (size_t i = 0; i < sizeof(bad); i++)
		expect_rejected(&bad[i], 1);
}

static void from_descriptor_rejects_wrong_size(void **state)
{
	(void)state;
	const uint8_t desc[2] = {0x01, 0x00};
	expect_rejected(desc, 0);
	expect_rejected(desc, 2);
	expect_rejected(desc, SIZE_MAX);
}

static void from_descriptor_null_arguments(void **state)
{
	(void)state;
	const uint8_t byte = 0x01;
	expect_rejected(NULL, 1);
	assert_int_equal(rpma_peer_cfg_from_descriptor(&byte, 1, NULL), RPMA_E_INVAL);
}

static void from_descriptor_out_of_memory(void **state)
{
	(void)state;
	const uint8_t byte = 0x01;
	struct rpma_peer_cfg *pcfg = POISON;
	fake_malloc_fail(1);
	assert_int_equal(rpma_peer_cfg_from_descriptor(&byte, 1, &pcfg), RPMA_E_NOMEM);
	assert_ptr_equal(pcfg, POISON);
}

/* What one side encodes, the other decodes to the same setting. */
static void descriptor_round_trip(void **state)
{
	(void)state;
	for (int on = 0; on <= 1; on++) {
		struct rpma_peer_cfg *src, *dst;
		assert_int_equal(rpma_peer_cfg_new(&src), 0);
		assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(src, on), 0);

		size_t size;
		uint8_t desc[8];
		assert_int_equal(rpma_peer_cfg_get_descriptor_size(src, &size), 0);
		assert_int_equal(rpma_peer_cfg_get_descriptor(src, desc), 0);
		assert_int_equal(rpma_peer_cfg_from_descriptor(desc, size, &dst), 0);

		bool supported = !on;
		assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(dst, &supported), 0);
		assert_int_equal(supported, on);
		assert_int_equal(rpma_peer_cfg_delete(&src), 0);
		assert_int_equal(rpma_peer_cfg_delete(&dst), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(new_has_direct_write_off, setup),
		cmocka_unit_test_setup(new_invalid_and_out_of_memory, setup),
		cmocka_unit_test_setup(delete_null_arguments, setup),
		cmocka_unit_test_setup(direct_write_set_get, setup),
		cmocka_unit_test_setup(direct_write_invalid, setup),
		cmocka_unit_test_setup(descriptor_size_is_one, setup),
		cmocka_unit_test_setup(get_descriptor_golden_bytes, setup),
		cmocka_unit_test_setup(get_descriptor_invalid, setup),
		cmocka_unit_test_setup(from_descriptor_golden_bytes, setup),
		cmocka_unit_test_setup(from_descriptor_rejects_unknown_bits, setup),
		cmocka_unit_test_setup(from_descriptor_rejects_wrong_size, setup),
		cmocka_unit_test_setup(from_descriptor_null_arguments, setup),
		cmocka_unit_test_setup(from_descriptor_out_of_memory, setup),
		cmocka_unit_test_setup(descriptor_round_trip, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
