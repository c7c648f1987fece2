/* SPDX-License-Identifier: BSD-3-Clause */
/* conn_test.h -- the connection tests' fixture, and conn_wait_and_delete_test.c's tests */
#ifndef CONN_TEST_H
#define CONN_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include "librpma.h"
#include "conn.h"

/* What each test builds; the raw handles let a test finish what a failed delete left. */
struct conn_fixture {
	struct rpma_peer *peer;
	struct rdma_cm_id *id;
	struct rpma_conn_parts parts;
	struct ibv_cq *ibv_cq;
	struct ibv_cq *ibv_rcq;
	struct rpma_conn *conn;
};
extern struct conn_fixture fx;

/* A fresh fake provider, a quiet log and a peer. */
int conn_setup(void **state);
/* Deletes the connection and the peer; no fake object may be left alive. */
int conn_teardown(void **state);
/* The parts of a connection, as a connection request would hand them over. */
void parts_make(bool shared, bool with_rcq);
/* Release parts no connection took. */
void parts_release(void);
/* The parts and a connection made of them, in fx.conn. */
void conn_make(bool shared, bool with_rcq);

/* conn_wait_and_delete_test.c */
void wait_invalid_and_not_shared(void **state);
void wait_tells_which_cq(void **state);
void wait_without_rcq(void **state);
void wait_no_completion(void **state);
void wait_unknown_cq(void **state);
void wait_rearm_failure(void **state);
void disconnect_invalid_success_and_failure(void **state);
void delete_invalid_and_null(void **state);
void delete_releases_everything(void **state);
void delete_keeps_the_srq_rcq(void **state);
void delete_destroy_id_failure(void **state);
void delete_destroy_cq_failures(void **state);
void delete_destroy_comp_channel_failure(void **state);
void delete_several_failures_release_the_rest(void **state);

#endif /* CONN_TEST_H */
