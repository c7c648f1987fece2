/* SPDX-License-Identifier: BSD-3-Clause */
/* mr_test.h -- helpers shared by the two halves of the mr unit test */
#ifndef MR_TEST_H
#define MR_TEST_H

#include <stdint.h>
#include "librpma.h"
#include "mr.h"

int mr_setup(void **state);
int mr_teardown(void **state);

struct rpma_peer *mr_test_peer_new(void);
void mr_test_peer_delete(struct rpma_peer **peer);
struct rpma_mr_local *mr_test_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage);
void mr_test_dereg(struct rpma_mr_local **mr);

void mr_test_desc_make(uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE], uint64_t addr, uint64_t len,
		uint32_t rkey, uint8_t usage);
struct rpma_mr_remote *mr_test_remote_new(uint64_t addr, uint64_t len, uint32_t rkey,
		uint8_t usage);

/* The posting tests (mr_post_test.c), run with post_setup/post_teardown. */
int post_setup(void **state);
int post_teardown(void **state);
void read_builds_one_sge(void **state);
void read_zero_length(void **state);
void write_and_write_with_imm(void **state);
void atomic_write_emulated(void **state);
void atomic_write_native(void **state); /* mr_setup/mr_teardown: builds its own peer */
void atomic_write_native_without_extended_qp(void **state);
void send_and_send_with_imm(void **state);
void recv_and_srq_recv(void **state);
void posting_failures(void **state);

#endif /* MR_TEST_H */
