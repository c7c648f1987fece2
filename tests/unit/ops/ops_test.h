/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_test.h -- the fixture shared by the operations' tests, and the batch tests */
#ifndef OPS_TEST_H
#define OPS_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include "librpma.h"

#define BUF_SIZE 64
#define ALL_FLUSH (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)
#define IMM 0x12345678u

/* What each test works on: built by a setup, released by ops_teardown(). */
struct ops_fixture {
	struct rpma_peer *peer;
	struct rdma_cm_id *id;
	struct rpma_conn *conn;
	struct rpma_mr_local *local;
	struct rpma_mr_remote *remote;
	char lbuf[BUF_SIZE];
	char rbuf[BUF_SIZE];
	int ctx;
};
extern struct ops_fixture fx;

/* the provider call that rings an operation outside a batch */
extern const char *post_call;
/* the 8 bytes the atomic writes carry */
extern const char atomic_bytes[8];

/* A plain QP, without native operations. */
int ops_setup(void **state);
/* A peer with the native atomic write. */
int ops_setup_native(void **state);
/* A QP with the extended interface for every opcode (rxe, mlx5): ibv_wr_* posting. */
int ops_setup_ex(void **state);
/* The device speaks iWARP: no immediate data, reads land as remote writes. */
int ops_setup_iwarp(void **state);
/* ibv_qp_to_qp_ex() fails for a QP created with the extended interface. */
int ops_setup_ex_lost(void **state);
/* Releases the fixture; no fake object may be left alive. */
int ops_teardown(void **state);

/* A remote region over fx.rbuf, as a peer would describe it. */
struct rpma_mr_remote *remote_make(int usage);
uint64_t addr_of(const void *p);
/* Apply a remote peer configuration that says (or denies) direct writes to PMem. */
void apply_direct_write(bool direct);

/* ops_batch_test.c */
void hot_path_allocates_and_logs_nothing(void **state);
void hot_path_native_allocates_and_logs_nothing(void **state);
void batch_write_and_flush_ring_once(void **state);
void batch_misuse_and_failure(void **state);
void batch_emulated_atomic_write_rings_with_the_chain(void **state);
void batch_slots_carry_nothing_over(void **state);
void batch_native_atomic_write_keeps_order(void **state);
void ex_lost_posts_by_post_send(void **state);
void ex_outside_a_batch_posts_by_post_send(void **state);
void ex_batch_inline_bytes_copied_at_once(void **state);
void ex_batch_failure(void **state);
void ex_batch_rings_when_full(void **state);
void ex_delete_in_an_open_batch(void **state);

#endif /* OPS_TEST_H */
