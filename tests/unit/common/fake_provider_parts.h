/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fake_provider_parts.h -- what the fake provider's files (fake_provider.c,
 * fake_qp.c, fake_cm.c) share and no test uses: the bookkeeping of calls and
 * objects, and each file's callbacks and reset.
 */
#ifndef FAKE_PROVIDER_PARTS_H
#define FAKE_PROVIDER_PARTS_H

#include <stddef.h>
#include <infiniband/verbs.h>

/* How many completions a CQ, events a channel or CM events the fake queues at once. */
#define FAKE_QUEUE_LEN 64

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);
void __real_free(void *ptr);

/* Count a call of fn; non-zero (errno set) when fake_fail() armed this one to fail. */
int fake_enter(const char *fn);
/* The errno a failing call sets for an injected error: the error itself, 0 for none. */
int fake_errno_of(int injected);

/* A zeroed object counted by fake_live_objects(); aborts when out of memory. */
void *fake_object_new(size_t size);
/* Free an object of fake_object_new() (NULL: nothing) and stop counting it. */
void fake_object_delete(void *p);
/* Count p as a live object that was allocated otherwise (a CM event), or stop. */
void fake_object_count_in(void *p);
void fake_object_count_out(void *p);

/* fake_qp.c: the QP's posting callbacks, and forgetting the open session. */
int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
void fake_qp_reset(void);

/* fake_cm.c: drop the CM events still queued. */
void fake_cm_reset(void);

#endif /* FAKE_PROVIDER_PARTS_H */
