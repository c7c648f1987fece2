/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq.c -- completion queues: creation with an own or a shared completion
 * channel, waiting for a completion event, and polling completions.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>

#include "cq.h"
#include "log.h"

struct rpma_cq {
	struct ibv_cq *ibv_cq;
	struct ibv_comp_channel *channel;
	bool owns_channel;
};

int rpma_cq_new(struct ibv_context *ibv_ctx, int cqe, struct ibv_comp_channel *shared_channel,
		struct rpma_cq **cq_ptr)
{
	if (ibv_ctx == NULL || cq_ptr == NULL)
		return RPMA_E_INVAL;

	int ret;
	struct ibv_comp_channel *channel = shared_channel;
	if (channel == NULL) {
		channel = ibv_create_comp_channel(ibv_ctx);
		if (channel == NULL)
			return RPMA_PROVIDER_FAILED(errno, "ibv_create_comp_channel");
	}

	struct ibv_cq *ibv_cq = ibv_create_cq(ibv_ctx, cqe, NULL, channel, 0);
	if (ibv_cq == NULL) {
		ret = RPMA_PROVIDER_FAILED(errno, "ibv_create_cq");
		goto err_destroy_channel;
	}

	/* armed from the start, so the first completion already raises an event */
	int err = ibv_req_notify_cq(ibv_cq, 0);
	if (err) {
		ret = RPMA_PROVIDER_FAILED(err, "ibv_req_notify_cq");
		goto err_destroy_cq;
	}

	struct rpma_cq *cq = malloc(sizeof(*cq));
	if (cq == NULL) {
		ret = RPMA_E_NOMEM;
		goto err_destroy_cq;
	}

	cq->ibv_cq = ibv_cq;
	cq->channel = channel;
	cq->owns_channel = (shared_channel == NULL);
	*cq_ptr = cq;
	return 0;

err_destroy_cq:
	(void)ibv_destroy_cq(ibv_cq);
err_destroy_channel:
	if (shared_channel == NULL)
		(void)ibv_destroy_comp_channel(channel);
	return ret;
}

int rpma_cq_delete(struct rpma_cq **cq_ptr)
{
	if (cq_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_cq *cq = *cq_ptr;
	if (cq == NULL)
		return 0;

	/* tear everything down even past a failure; report the first one */
	int first_err = ibv_destroy_cq(cq->ibv_cq);
	if (first_err)
		RPMA_LOG_ERROR_ERRNO(first_err, "ibv_destroy_cq");

	if (cq->owns_channel) {
		int err = ibv_destroy_comp_channel(cq->channel);
		if (err)
			RPMA_LOG_ERROR_ERRNO(err, "ibv_destroy_comp_channel");
		if (first_err == 0)
			first_err = err;
	}

	free(cq);
	*cq_ptr = NULL;
	if (first_err == 0)
		return 0;
	errno = first_err;
	return RPMA_E_PROVIDER;
}

struct ibv_cq *rpma_cq_get_ibv_cq(const struct rpma_cq *cq)
{
	return cq->ibv_cq;
}

int rpma_cq_get_fd(const struct rpma_cq *cq, int *fd)
{
	if (cq == NULL || fd == NULL)
		return RPMA_E_INVAL;

	*fd = cq->channel->fd;
	return 0;
}

int rpma_cq_wait(struct rpma_cq *cq)
{
	if (cq == NULL)
		return RPMA_E_INVAL;
	/* the event on a shared channel may belong to another CQ: the connection handles it */
	if (!cq->owns_channel)
		return RPMA_E_SHARED_CHANNEL;

	struct ibv_cq *ev_cq;
	void *ev_ctx;
	if (ibv_get_cq_event(cq->channel, &ev_cq, &ev_ctx))
		return RPMA_E_NO_COMPLETION;

	/* events are acked one by one: a CQ cannot be destroyed with events unacked */
	ibv_ack_cq_events(ev_cq, 1);

	int err = ibv_req_notify_cq(cq->ibv_cq, 0);
	if (err)
		return RPMA_PROVIDER_FAILED(err, "ibv_req_notify_cq");

	return 0;
}

/* Hot path: nothing is logged unless the provider fails. inline: see ops.c. */
inline int rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc,
		int *num_entries_got)
{
	if (cq == NULL || wc == NULL || num_entries < 1)
		return RPMA_E_INVAL;
	if (num_entries > 1 && num_entries_got == NULL)
		return RPMA_E_INVAL;

	int got = ibv_poll_cq(cq->ibv_cq, num_entries, wc);
	if (got == 0)
		return RPMA_E_NO_COMPLETION;
	if (got < 0) {
		/* providers report a failed poll as a negative errno */
		return RPMA_PROVIDER_FAILED(-got, "ibv_poll_cq");
	}
	if (got > num_entries) {
		/* the provider broke its contract and gave no reason */
		RPMA_LOG_ERROR("ibv_poll_cq() returned %d completions, asked for at most %d",
			got, num_entries);
		return RPMA_E_UNKNOWN;
	}

	if (num_entries_got)
		*num_entries_got = got;
	return 0;
}

/* The operation a successful completion reports; false when it has no rpma_op. */
static bool cq_wc_opcode_to_op(enum ibv_wc_opcode opcode, enum rpma_op *op)
{
	switch (opcode) {
	case IBV_WC_RDMA_READ:
		*op = RPMA_OP_READ;
		return true;
	case IBV_WC_RDMA_WRITE:
#ifdef RPMA_HAVE_IBV_WR_ATOMIC_WRITE
	case IBV_WC_ATOMIC_WRITE: /* what the emulated one reports too */
#endif
		*op = RPMA_OP_WRITE;
		return true;
#ifdef RPMA_HAVE_IBV_WR_FLUSH
	case IBV_WC_FLUSH:
		*op = RPMA_OP_FLUSH;
		return true;
#endif
	case IBV_WC_SEND:
		*op = RPMA_OP_SEND;
		return true;
	case IBV_WC_RECV:
		*op = RPMA_OP_RECV;
		return true;
	case IBV_WC_RECV_RDMA_WITH_IMM:
		*op = RPMA_OP_RECV_RDMA_WITH_IMM;
		return true;
	default:
		return false;
	}
}

/*
 * Deprecated in the header: only calls warn, not this definition, so the
 * library needs no diagnostic pragma (and must not call it itself).
 */
int rpma_cq_get_completion(struct rpma_cq *cq, struct rpma_completion *cmpl)
{
	if (cq == NULL || cmpl == NULL)
		return RPMA_E_INVAL;

	struct ibv_wc wc;
	int ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
	if (ret)
		return ret;

	cmpl->op_context = (void *)(uintptr_t)wc.wr_id;
	cmpl->op_status = wc.status;
	/* a failed completion carries nothing else worth reading */
	if (wc.status != IBV_WC_SUCCESS)
		return 0;

	if (!cq_wc_opcode_to_op(wc.opcode, &cmpl->op)) {
		RPMA_LOG_ERROR("unsupported completion opcode: %d", (int)wc.opcode);
		return RPMA_E_NOSUPP;
	}

	cmpl->byte_len = wc.byte_len;
	cmpl->flags = wc.wc_flags;
	cmpl->imm = (wc.wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc.imm_data) : 0;
	return 0;
}
