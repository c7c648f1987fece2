/* SPDX-License-Identifier: BSD-3-Clause */
/* post_test.h -- the fixture shared by the two halves of the post unit test */
#ifndef POST_TEST_H
#define POST_TEST_H

#include <stdint.h>
#include "librpma.h"
#include "post.h"

#define RADDR 0x10000ULL
#define RKEY 0x77
#define CTX ((const void *)0xc0ffee)

/* A QP, a post object on it, and regions for every operation. */
struct post_env {
	struct rpma_peer *peer;
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
	struct rpma_post *post;
	struct rpma_mr_local *local;	/* post_buf, usable for everything */
	uint32_t lkey;
	struct rpma_mr_remote *remote;	/* RADDR, 0x1000 bytes, RKEY */
};

extern char post_buf[256];

/* A plain QP: a batch goes by one ibv_post_send() of a chain. */
int post_setup(void **state);
/* A QP with the extended interface for every opcode (rxe, mlx5): a batch is a session. */
int post_setup_ex(void **state);
/* A QP with the extended interface for the native verbs only: a batch is a chain. */
int post_setup_native(void **state);
int post_teardown(void **state);

/* An RDMA write of 16 bytes, its wr_id and remote offset both wr_id. */
int post_test_write(struct post_env *env, uint64_t wr_id, int flags);

/* The batch tests (post_batch_test.c). */
void chain_outside_a_batch_posts_at_once(void **state);
void chain_rings_once_in_order(void **state);
void chain_inline_data_rings_with_what_came_first(void **state);
void chain_rings_at_the_batch_max(void **state);
void chain_failed_post_empties_and_closes(void **state);
void chain_failed_post_logs_the_refused_request(void **state);
void batch_misuse_is_refused(void **state);
void session_builds_every_opcode(void **state);
void session_rings_at_the_batch_max(void **state);
void session_failed_doorbell_posts_nothing(void **state);
void session_deleted_open_is_aborted(void **state);
void native_goes_after_what_was_collected(void **state);
void native_waits_for_what_was_collected(void **state);

#endif /* POST_TEST_H */
