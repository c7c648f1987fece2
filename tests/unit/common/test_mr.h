/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mr.h -- remote memory regions for unit tests, as a peer's descriptor
 * gives them. Static inline, not a common object: a test that includes it
 * links librpma's mr.o, which the engines' tests, with stand-ins of their
 * own for librpma's functions, must not get.
 */
#ifndef TEST_MR_H
#define TEST_MR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "librpma.h"
#include "mr.h"

/* The 21-byte wire form, spelled out byte by byte (little-endian). */
static inline void test_mr_desc_make(uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE], uint64_t addr,
		uint64_t len, uint32_t rkey, uint8_t usage)
{
	for (int i = 0; i < 8; i++) {
		desc[i] = (uint8_t)(addr >> (8 * i));
		desc[8 + i] = (uint8_t)(len >> (8 * i));
	}
	for (int i = 0; i < 4; i++)
		desc[16 + i] = (uint8_t)(rkey >> (8 * i));
	desc[20] = usage;
}

/* The remote region that descriptor decodes to; the test fails if it does not. */
static inline struct rpma_mr_remote *test_mr_remote_new(uint64_t addr, uint64_t len,
		uint32_t rkey, uint8_t usage)
{
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE];
	struct rpma_mr_remote *mr = NULL;
	test_mr_desc_make(desc, addr, len, rkey, usage);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), 0);
	assert_non_null(mr);
	return mr;
}

#endif /* TEST_MR_H */
