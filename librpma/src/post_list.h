/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post_list.h -- send work requests collected for one doorbell: between
 * rpma_conn_batch_begin() and rpma_conn_batch_end() a connection's operations
 * are chained here and handed to the device with one ibv_post_send() (on
 * Soft-RoCE one system call, on an RNIC one doorbell write) instead of one
 * each. Hot path: no allocation, no lock, no log on success (the provider's
 * own send-queue lock aside).
 */
#ifndef RPMA_POST_LIST_H
#define RPMA_POST_LIST_H

#include "librpma.h"

/* Work requests one doorbell carries at most: a fuller list rings early. */
#define RPMA_POST_LIST_CAPACITY 64

struct rpma_post_list;

/* A send work request and its one scatter entry, as the list keeps them. */
struct rpma_post_slot {
	struct ibv_send_wr wr;
	struct ibv_sge sge;
};

/* RPMA_E_INVAL, RPMA_E_NOMEM */
int rpma_post_list_new(struct rpma_post_list **list_ptr);
/* Drops what was collected and not posted; *list_ptr becomes NULL. */
void rpma_post_list_delete(struct rpma_post_list **list_ptr);

/* Start collecting. RPMA_E_INVAL when already collecting. */
int rpma_post_list_open(struct rpma_post_list *list);
bool rpma_post_list_is_open(const struct rpma_post_list *list);

/*
 * Where to build the next work request while collecting: the list's next slot,
 * so that nothing is copied. NULL when the list is NULL, closed or full: build
 * it elsewhere and rpma_post_list_post() rings for it. Fields the caller does
 * not set keep what they held (zero, or the caller's own earlier values).
 */
struct rpma_post_slot *rpma_post_list_slot(struct rpma_post_list *list);

/*
 * Collect wr for the next doorbell when it was built in the slot that
 * rpma_post_list_slot() gave (its next pointer is set here), else ring for
 * what was collected and then for wr. Its scatter list must stay valid until
 * the doorbell (a slot's own entry does). A collected request with inline data
 * rings at once with everything before it: its data is read at posting time.
 * 0 or RPMA_E_PROVIDER (errno set).
 */
int rpma_post_list_post(struct rpma_post_list *list, struct ibv_qp *qp,
		struct ibv_send_wr *wr);

/* Ring once for everything collected and keep collecting. 0 or RPMA_E_PROVIDER. */
int rpma_post_list_drain(struct rpma_post_list *list, struct ibv_qp *qp);

/* Ring once for everything collected and stop collecting (also when the
 * posting fails: the requests from the failed one on are dropped).
 * RPMA_E_INVAL when not collecting, RPMA_E_PROVIDER. */
int rpma_post_list_close(struct rpma_post_list *list, struct ibv_qp *qp);

/*
 * The provider's extended posting interface (ibv_wr_*): when the QP has it for
 * every opcode collected here, a batch's requests are written straight into the
 * send queue instead of being built as ibv_send_wr for ibv_post_send() to
 * convert and copy (on Soft-RoCE about a third of a request's instructions),
 * and the list keeps only how many are pending. A QP without it, or with only
 * some of its builders, keeps the slots above; so does every operation outside
 * a batch. Called once, before any posting. False when ibv_qp_to_qp_ex() gives
 * the QP no extended interface at all.
 */
bool rpma_post_list_use_qp(struct rpma_post_list *list, struct ibv_qp *qp);

/* While collecting, the QP's extended interface; else NULL: build in a slot. */
struct ibv_qp_ex *rpma_post_list_qp_ex(const struct rpma_post_list *list);

/*
 * Before building one request through it: the list's posting session started
 * (ibv_wr_start: the provider's send-queue lock is held until the session's
 * doorbell).
 */
void rpma_post_list_session(struct rpma_post_list *list);

/*
 * After building it: it waits for the doorbell of rpma_post_list_drain() /
 * _close(), unless it is the session's RPMA_POST_LIST_CAPACITY-th: then it
 * rings now. 0 or RPMA_E_PROVIDER (nothing of the session posted).
 */
int rpma_post_list_session_added(struct rpma_post_list *list);

/* A session left open (a connection deleted in a batch): dropped, nothing posted. */
void rpma_post_list_abort(struct rpma_post_list *list);

#endif /* RPMA_POST_LIST_H */
