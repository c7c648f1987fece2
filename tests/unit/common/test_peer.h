/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_peer.h -- the start most setups of librpma's objects share: a fresh fake
 * provider, a quiet log and a peer on the fake device. Inline, not in a common
 * object: every unit test links those, and an engine test that stands in for
 * some of librpma's calls must not pull the peer's object in.
 */
#ifndef TEST_PEER_H
#define TEST_PEER_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "librpma.h"
#include "fake_provider.h"
#include "test_log.h"

static inline void test_setup_quiet_peer(struct rpma_peer **peer_ptr)
{
	assert_int_equal(test_setup_quiet(NULL), 0);
	assert_int_equal(rpma_peer_new(fake_ibv_context(), peer_ptr), 0);
}

#endif /* TEST_PEER_H */
