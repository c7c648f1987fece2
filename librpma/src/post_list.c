// SPDX-License-Identifier: BSD-3-Clause
/* post_list.c -- send work requests collected for one doorbell */

#include <stdlib.h>

#include "librpma.h"
#include "log.h"
#include "post_list.h"

struct rpma_post_list {
	bool open;
	unsigned count;		/* slots collected, or requests of the session */
	struct ibv_qp_ex *qpx;	/* the extended interface, when the QP has it all */
	bool in_session;	/* between ibv_wr_start() and its doorbell */
	struct rpma_post_slot slot[RPMA_POST_LIST_CAPACITY];
};

int rpma_post_list_new(struct rpma_post_list **list_ptr)
{
	if (list_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_post_list *list = calloc(1, sizeof(*list));
	if (list == NULL)
		return RPMA_E_NOMEM;

	*list_ptr = list;
	return 0;
}

void rpma_post_list_delete(struct rpma_post_list **list_ptr)
{
	if (list_ptr == NULL)
		return;
	free(*list_ptr);
	*list_ptr = NULL;
}

int rpma_post_list_open(struct rpma_post_list *list)
{
	if (list == NULL || list->open)
		return RPMA_E_INVAL;
	list->open = true;
	list->count = 0;
	return 0;
}

bool rpma_post_list_is_open(const struct rpma_post_list *list)
{
	return list != NULL && list->open;
}

static int post_list_ring(struct ibv_qp *qp, struct ibv_send_wr *first)
{
	/* the provider points bad_wr at the request it refused: the log names that one */
	struct ibv_send_wr *bad_wr = first;
	int ret = ibv_post_send(qp, first, &bad_wr);
	if (ret == 0)
		return 0;
	return RPMA_POST_FAILED(ret, "ibv_post_send",
		rpma_wr_fields_of_send(bad_wr ? bad_wr : first));
}

/* The session's doorbell: everything built since ibv_wr_start(), or none of it. */
static int post_list_session_ring(struct rpma_post_list *list)
{
	list->in_session = false;
	list->count = 0;
	int ret = ibv_wr_complete(list->qpx);
	return ret ? RPMA_PROVIDER_FAILED(ret, "ibv_wr_complete") : 0;
}

int rpma_post_list_drain(struct rpma_post_list *list, struct ibv_qp *qp)
{
	if (list == NULL || list->count == 0)
		return 0;
	if (list->in_session)
		return post_list_session_ring(list);
	/* emptied whatever happens: a failed chain is not posted twice */
	list->count = 0;
	return post_list_ring(qp, &list->slot[0].wr);
}

bool rpma_post_list_use_qp(struct rpma_post_list *list, struct ibv_qp *qp)
{
	if (qp == NULL)
		return true;
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	if (qpx == NULL)
		return false;
	/* a provider sets the builders of the opcodes the QP was created with */
	if (qpx->wr_rdma_write && qpx->wr_rdma_write_imm && qpx->wr_rdma_read &&
			qpx->wr_send && qpx->wr_send_imm && qpx->wr_set_sge &&
			qpx->wr_set_sge_list && qpx->wr_set_inline_data && qpx->wr_start &&
			qpx->wr_complete && qpx->wr_abort)
		list->qpx = qpx;
	return true;
}

struct ibv_qp_ex *rpma_post_list_qp_ex(const struct rpma_post_list *list)
{
	/*
	 * Only while collecting: a batch has one thread (post_list.h); operations
	 * outside one may come from many threads at once and post each by itself.
	 */
	return list && list->open ? list->qpx : NULL;
}

void rpma_post_list_session(struct rpma_post_list *list)
{
	if (list->in_session)
		return;
	ibv_wr_start(list->qpx);
	list->in_session = true;
}

int rpma_post_list_session_added(struct rpma_post_list *list)
{
	return ++list->count < RPMA_POST_LIST_CAPACITY ? 0 : post_list_session_ring(list);
}

void rpma_post_list_abort(struct rpma_post_list *list)
{
	if (list == NULL || !list->in_session)
		return;
	ibv_wr_abort(list->qpx);
	list->in_session = false;
	list->count = 0;
}

struct rpma_post_slot *rpma_post_list_slot(struct rpma_post_list *list)
{
	if (!rpma_post_list_is_open(list) || list->count == RPMA_POST_LIST_CAPACITY)
		return NULL;
	return &list->slot[list->count];
}

int rpma_post_list_post(struct rpma_post_list *list, struct ibv_qp *qp,
		struct ibv_send_wr *wr)
{
	const struct rpma_post_slot *next = rpma_post_list_slot(list);
	if (next == NULL || wr != &next->wr) {
		int ret = rpma_post_list_drain(list, qp);
		return ret ? ret : post_list_ring(qp, wr);
	}

	unsigned i = list->count++;
	wr->next = NULL;
	if (i > 0)
		list->slot[i - 1].wr.next = wr;
	return (wr->send_flags & IBV_SEND_INLINE) ? rpma_post_list_drain(list, qp) : 0;
}

int rpma_post_list_close(struct rpma_post_list *list, struct ibv_qp *qp)
{
	if (!rpma_post_list_is_open(list))
		return RPMA_E_INVAL;
	list->open = false;
	return rpma_post_list_drain(list, qp);
}
