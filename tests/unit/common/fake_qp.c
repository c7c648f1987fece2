/* SPDX-License-Identifier: BSD-3-Clause */
/* fake_qp.c -- the fake provider's queue pairs, posting and the extended QP interface */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <netinet/in.h>

#include "fake_provider.h"
#include "fake_provider_parts.h"

/* ---- queue pairs and posting ---- */

struct fake_qp {
	struct ibv_qp_ex ex; /* ex.qp_base is the ibv_qp */
	bool extended;
};

/* what a session of the extended interface built, until its doorbell */
static struct {
	unsigned len;
	struct ibv_send_wr wr[8];
	struct ibv_sge sge[8];
	uint8_t inline_data[8][8];
	bool open;
} session;

static void fake_wr_start(struct ibv_qp_ex *qp)
{
	(void)qp;
	fake_enter("ibv_wr_start");
	fake_posted.wr_op = NULL;
	assert(!session.open); /* the provider's lock: a second start would deadlock */
	session.open = true;
	session.len = 0;
}

/* the session's requests, as post_send records a chain */
static void session_record(void)
{
	if (session.len == 0)
		return;
	fake_posted.send_chain_len = session.len;
	for (unsigned i = 0; i < session.len && i < 8; i++) {
		fake_posted.send_chain[i] = session.wr[i];
		fake_posted.send_chain_sge[i] = session.sge[i];
		fake_posted.send_chain[i].sg_list = &fake_posted.send_chain_sge[i];
		fake_posted.send_chain[i].next = NULL;
	}
	fake_posted.send_wr = fake_posted.send_chain[0];
	fake_posted.send_sge = fake_posted.send_chain_sge[0];
	fake_posted.send_wr.sg_list = &fake_posted.send_sge;
}

static int fake_wr_complete(struct ibv_qp_ex *qp)
{
	(void)qp;
	int err = fake_enter("ibv_wr_complete");
	assert(session.open);
	session.open = false;
	if (err)
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
	fake_posted.count++;
	session_record();
	return 0;
}

static void fake_wr_abort(struct ibv_qp_ex *qp)
{
	(void)qp;
	fake_enter("ibv_wr_abort");
	assert(session.open);
	session.open = false;
}

/* the next request of the session, with the QP's wr_id and wr_flags */
static struct ibv_send_wr *session_next(struct ibv_qp_ex *qp, enum ibv_wr_opcode opcode)
{
	assert(session.open);
	unsigned i = session.len < 8 ? session.len : 7;
	session.len++;
	struct ibv_send_wr *wr = &session.wr[i];
	memset(wr, 0, sizeof(*wr));
	memset(&session.sge[i], 0, sizeof(session.sge[i]));
	wr->wr_id = qp->wr_id;
	wr->send_flags = qp->wr_flags;
	wr->opcode = opcode;
	return wr;
}

static struct ibv_send_wr *session_last(void)
{
	assert(session.open && session.len > 0);
	return &session.wr[session.len <= 8 ? session.len - 1 : 7];
}

static void fake_wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)
{
	struct ibv_send_wr *wr = session_next(qp, IBV_WR_RDMA_WRITE);
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
}

static void fake_wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		__be32 imm)
{
	struct ibv_send_wr *wr = session_next(qp, IBV_WR_RDMA_WRITE_WITH_IMM);
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm;
}

static void fake_wr_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)
{
	struct ibv_send_wr *wr = session_next(qp, IBV_WR_RDMA_READ);
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
}

static void fake_wr_send(struct ibv_qp_ex *qp)
{
	(void)session_next(qp, IBV_WR_SEND);
}

static void fake_wr_send_imm(struct ibv_qp_ex *qp, __be32 imm)
{
	session_next(qp, IBV_WR_SEND_WITH_IMM)->imm_data = imm;
}

static void fake_wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length)
{
	(void)qp;
	struct ibv_send_wr *wr = session_last();
	struct ibv_sge *sge = &session.sge[wr - session.wr];
	*sge = (struct ibv_sge){.addr = addr, .length = length, .lkey = lkey};
	wr->num_sge = 1;
}

static void fake_wr_set_sge_list(struct ibv_qp_ex *qp, size_t num_sge, const struct ibv_sge *list)
{
	(void)qp;
	struct ibv_send_wr *wr = session_last();
	wr->num_sge = (int)num_sge;
	if (num_sge > 0)
		session.sge[wr - session.wr] = list[0];
}

/* the bytes are copied now, as a provider does: the recorded sge points at the copy */
static void fake_wr_set_inline_data(struct ibv_qp_ex *qp, void *addr, size_t length)
{
	(void)qp;
	struct ibv_send_wr *wr = session_last();
	size_t i = (size_t)(wr - session.wr);
	assert(length <= sizeof(session.inline_data[i]));
	memcpy(session.inline_data[i], addr, length);
	session.sge[i] = (struct ibv_sge){.addr = (uint64_t)(uintptr_t)session.inline_data[i],
		.length = (uint32_t)length};
	wr->num_sge = 1;
}

static void fake_qp_data_ops(struct ibv_qp_ex *ex)
{
	ex->wr_rdma_write = fake_wr_rdma_write;
	ex->wr_rdma_write_imm = fake_wr_rdma_write_imm;
	ex->wr_rdma_read = fake_wr_rdma_read;
	ex->wr_send = fake_wr_send;
	ex->wr_send_imm = fake_wr_send_imm;
	ex->wr_set_sge = fake_wr_set_sge;
	ex->wr_set_sge_list = fake_wr_set_sge_list;
	ex->wr_set_inline_data = fake_wr_set_inline_data;
}

static void fake_wr_atomic_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr,
		const void *data)
{
	fake_enter("ibv_wr_atomic_write");
	fake_posted.wr_op = "atomic_write";
	fake_posted.wr_id = qp->wr_id;
	fake_posted.wr_flags = qp->wr_flags;
	fake_posted.wr_rkey = rkey;
	fake_posted.wr_remote_addr = remote_addr;
	memcpy(fake_posted.wr_atomic_data, data, 8);
}

/* Only the native-flush test calls this (through its wr_flush_shim.h). */
void fake_wr_flush(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, size_t len,
		uint8_t type, uint8_t level);

void fake_wr_flush(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, size_t len,
		uint8_t type, uint8_t level)
{
	fake_enter("ibv_wr_flush");
	fake_posted.wr_op = "flush";
	fake_posted.wr_id = qp->wr_id;
	fake_posted.wr_flags = qp->wr_flags;
	fake_posted.wr_rkey = rkey;
	fake_posted.wr_remote_addr = remote_addr;
	fake_posted.wr_len = len;
	fake_posted.wr_flush_type = type;
	fake_posted.wr_flush_level = level;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct fake_qp *fqp = (struct fake_qp *)qp;
	if (fake_enter("ibv_qp_to_qp_ex"))
		return NULL;
	return fqp->extended ? &fqp->ex : NULL;
}

static struct ibv_qp *create_qp(struct rdma_cm_id *id, const struct ibv_qp_init_attr_ex *attr)
{
	fake_last_qp_attr = *attr;
	if (fake_enter("rdma_create_qp"))
		return NULL;
	struct fake_qp *fqp = fake_object_new(sizeof(*fqp));
	static uint32_t next_qp_num = 100;
	fqp->ex.qp_base.context = id->verbs ? id->verbs : fake_ibv_context();
	fqp->ex.qp_base.qp_num = next_qp_num++;
	fqp->ex.qp_base.send_cq = attr->send_cq;
	fqp->ex.qp_base.recv_cq = attr->recv_cq;
	fqp->ex.qp_base.srq = attr->srq;
	fqp->ex.qp_base.pd = attr->pd;
	fqp->extended = (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0;
	fqp->ex.wr_start = fake_wr_start;
	fqp->ex.wr_complete = fake_wr_complete;
	fqp->ex.wr_abort = fake_wr_abort;
	fqp->ex.wr_atomic_write = fake_wr_atomic_write;
	if (fqp->extended && fake_device.has_wr_data_ops)
		fake_qp_data_ops(&fqp->ex);
	id->qp = &fqp->ex.qp_base;
	return id->qp;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex;
	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	return create_qp(id, &ex) ? 0 : -1;
}

int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	return create_qp(id, attr) ? 0 : -1;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	fake_enter("rdma_destroy_qp");
	fake_object_delete(id->qp);
	id->qp = NULL;
}

int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp;
	int err = fake_enter("ibv_post_send");
	if (err) {
		*bad = wr;
		for (unsigned i = 0; i < fake_send_bad_wr_index && (*bad)->next; i++)
			*bad = (*bad)->next;
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
	}
	fake_posted.count++;
	fake_posted.send_wr = *wr;
	if (wr->num_sge > 0)
		fake_posted.send_sge = wr->sg_list[0];
	fake_posted.send_wr.sg_list = &fake_posted.send_sge;
	fake_posted.send_wr.next = NULL;
	unsigned n = 0;
	for (const struct ibv_send_wr *w = wr; w; w = w->next, n++) {
		if (n >= 8)
			continue;
		fake_posted.send_chain[n] = *w;
		if (w->num_sge > 0)
			fake_posted.send_chain_sge[n] = w->sg_list[0];
		fake_posted.send_chain[n].sg_list = &fake_posted.send_chain_sge[n];
		fake_posted.send_chain[n].next = NULL;
	}
	fake_posted.send_chain_len = n;
	return 0;
}

static void record_recv(struct ibv_recv_wr *out_wr, struct ibv_sge *out_sge, const struct ibv_recv_wr *wr)
{
	fake_posted.count++;
	*out_wr = *wr;
	if (wr->num_sge > 0)
		*out_sge = wr->sg_list[0];
	out_wr->sg_list = out_sge;
	out_wr->next = NULL;
}

int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	int err = fake_enter("ibv_post_recv");
	if (err) {
		*bad = wr;
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
	}
	record_recv(&fake_posted.recv_wr, &fake_posted.recv_sge, wr);
	return 0;
}

int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq;
	int err = fake_enter("ibv_post_srq_recv");
	if (err) {
		*bad = wr;
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
	}
	record_recv(&fake_posted.srq_recv_wr, &fake_posted.srq_recv_sge, wr);
	return 0;
}

void fake_qp_reset(void)
{
	memset(&session, 0, sizeof(session));
}
