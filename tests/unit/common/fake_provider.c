/* SPDX-License-Identifier: BSD-3-Clause */
/* fake_provider.c -- see fake_provider.h */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <netinet/in.h>

#include "fake_provider.h"

#undef ibv_reg_mr

/* ---- bookkeeping ---- */

#define FAKE_MAX_FAILS 16
#define FAKE_MAX_COUNTERS 96

struct fake_failure {
	const char *fn;
	unsigned at_call; /* absolute call number that fails */
	int err;
};

static struct fake_failure failures[FAKE_MAX_FAILS];
static struct {
	const char *fn;
	unsigned calls;
} counters[FAKE_MAX_COUNTERS];
static int live_objects;
static unsigned malloc_calls;
static unsigned malloc_fail_at;

struct fake_device fake_device;
struct fake_posted fake_posted;
unsigned fake_send_bad_wr_index;
struct fake_addr fake_addr;
struct fake_conn_param fake_last_conn_param;
struct ibv_qp_init_attr_ex fake_last_qp_attr;
struct ibv_srq_init_attr fake_last_srq_attr;
int fake_last_mr_access;
struct rdma_cm_id *fake_last_cm_id;
struct ibv_mr *fake_last_mr;

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);
void __real_free(void *ptr);

static unsigned *counter_of(const char *fn)
{
	for (int i = 0; i < FAKE_MAX_COUNTERS; i++) {
		if (counters[i].fn == NULL)
			counters[i].fn = fn;
		if (strcmp(counters[i].fn, fn) == 0)
			return &counters[i].calls;
	}
	fprintf(stderr, "fake_provider: too many distinct functions\n");
	abort();
}

unsigned fake_calls(const char *fn)
{
	for (int i = 0; i < FAKE_MAX_COUNTERS && counters[i].fn; i++)
		if (strcmp(counters[i].fn, fn) == 0)
			return counters[i].calls;
	return 0;
}

void fake_fail(const char *fn, unsigned nth, int err)
{
	for (int i = 0; i < FAKE_MAX_FAILS; i++) {
		if (failures[i].fn == NULL) {
			failures[i].fn = fn;
			failures[i].at_call = fake_calls(fn) + nth;
			failures[i].err = err;
			return;
		}
	}
	abort();
}

/* Count a call of fn; return its injected errno (-1 when it should fail with 0) or 0. */
static int enter(const char *fn)
{
	unsigned n = ++*counter_of(fn);
	for (int i = 0; i < FAKE_MAX_FAILS; i++) {
		if (failures[i].fn && strcmp(failures[i].fn, fn) == 0 && failures[i].at_call == n) {
			failures[i].fn = NULL;
			errno = failures[i].err;
			return failures[i].err ? failures[i].err : -1;
		}
	}
	return 0;
}

/* errno-style result of a failed call: the injected errno, or 0 when "no reason" */
static int errno_of(int injected)
{
	return injected > 0 ? injected : 0;
}

void fake_malloc_fail(unsigned nth)
{
	malloc_fail_at = malloc_calls + nth;
}

static bool malloc_should_fail(void)
{
	return ++malloc_calls == malloc_fail_at;
}

void *__wrap_malloc(size_t size)
{
	if (malloc_should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (malloc_should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
	if (malloc_should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(ptr, size);
}

static struct {
	const void *ptr;
	size_t len;
	int seen; /* fake_free_watched() */
} free_watch = {NULL, 0, -1};

void fake_free_watch(const void *ptr, size_t len)
{
	free_watch.ptr = ptr;
	free_watch.len = len;
	free_watch.seen = -1;
}

int fake_free_watched(void)
{
	return free_watch.seen;
}

/* the bytes of a watched block, read while they are still the caller's */
static void free_check_watched(const void *ptr)
{
	if (ptr == NULL || ptr != free_watch.ptr)
		return;
	const unsigned char *p = ptr;
	unsigned char any = 0;
	for (size_t i = 0; i < free_watch.len; i++)
		any |= p[i];
	free_watch.seen = any == 0;
	free_watch.ptr = NULL;
}

void __wrap_free(void *ptr)
{
	free_check_watched(ptr);
	__real_free(ptr);
}

/*
 * Every live object (and CM event handed out) stays reachable from here, so
 * LeakSanitizer does not report the ones a test leaks on purpose by failing
 * their destruction; fake_live_objects() still counts them.
 */
#define FAKE_MAX_TRACKED 4096
static void *tracked[FAKE_MAX_TRACKED];

static void track(void *p)
{
	for (int i = 0; i < FAKE_MAX_TRACKED; i++) {
		if (tracked[i] == NULL) {
			tracked[i] = p;
			return;
		}
	}
	/* full: this one is merely no longer reachable for LeakSanitizer */
}

static void untrack(void *p)
{
	for (int i = 0; i < FAKE_MAX_TRACKED; i++) {
		if (tracked[i] == p) {
			tracked[i] = NULL;
			return;
		}
	}
}

static void *object_new(size_t size)
{
	void *p = __real_calloc(1, size);
	if (!p)
		abort();
	live_objects++;
	track(p);
	return p;
}

static void object_delete(void *p)
{
	if (!p)
		return;
	live_objects--;
	untrack(p);
	free(p);
}

int fake_live_objects(void)
{
	return live_objects;
}

/* ---- device context ---- */

static int fake_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input,
		struct ibv_device_attr_ex *attr, size_t attr_size);
static int fake_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
		struct ibv_sge *sg_list, uint32_t num_sges);
static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only);

static struct verbs_context vctx;
static struct ibv_device fake_ibv_device;

struct ibv_context *fake_ibv_context(void)
{
	vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx.sz = sizeof(vctx);
	vctx.query_device_ex = fake_device.has_query_device_ex ? fake_query_device_ex : NULL;
	vctx.advise_mr = fake_device.has_advise_mr ? fake_advise_mr : NULL;
	vctx.context.ops.post_send = fake_post_send;
	vctx.context.ops.post_recv = fake_post_recv;
	vctx.context.ops.post_srq_recv = fake_post_srq_recv;
	vctx.context.ops.poll_cq = fake_poll_cq;
	vctx.context.ops.req_notify_cq = fake_req_notify_cq;
	fake_ibv_device.transport_type = fake_device.transport;
	vctx.context.device = &fake_ibv_device;
	return &vctx.context;
}

static void fill_device_attr(struct ibv_device_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	strcpy(attr->fw_ver, "fake-1.0");
	attr->max_qp_wr = 4096;
	attr->max_cqe = 65536;
	attr->max_sge = 16;
	attr->max_qp_rd_atom = 16;
	attr->max_qp_init_rd_atom = 16;
	attr->max_srq_wr = 4096;
}

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	(void)ctx;
	int err = enter("ibv_query_device");
	if (err)
		return errno_of(err) ? errno_of(err) : EIO;
	fill_device_attr(attr);
	return 0;
}

static int fake_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input,
		struct ibv_device_attr_ex *attr, size_t attr_size)
{
	(void)ctx;
	(void)input;
	int err = enter("ibv_query_device_ex");
	if (err)
		return errno_of(err) ? errno_of(err) : EIO;
	memset(attr, 0, attr_size);
	fill_device_attr(&attr->orig_attr);
	attr->device_cap_flags_ex = fake_device.device_cap_flags_ex;
	attr->odp_caps.general_caps = fake_device.general_odp_caps;
	attr->odp_caps.per_transport_caps.rc_odp_caps = fake_device.rc_odp_caps;
	return 0;
}

static int fake_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
		struct ibv_sge *sg_list, uint32_t num_sges)
{
	(void)pd;
	(void)advice;
	(void)flags;
	(void)sg_list;
	(void)num_sges;
	int err = enter("ibv_advise_mr");
	return err ? (errno_of(err) ? errno_of(err) : EIO) : 0;
}

const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	return status == IBV_WC_SUCCESS ? "success" : "fake failure";
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	(void)device;
	return "fake0";
}

/* ---- protection domains, memory regions, SRQs ---- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	if (enter("ibv_alloc_pd"))
		return NULL;
	struct ibv_pd *pd = object_new(sizeof(*pd));
	pd->context = ctx;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	int err = enter("ibv_dealloc_pd");
	if (err)
		return errno_of(err) ? errno_of(err) : EIO;
	object_delete(pd);
	return 0;
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if (enter("ibv_reg_mr"))
		return NULL;
	struct ibv_mr *mr = object_new(sizeof(*mr));
	static uint32_t next_key = 0x1000;
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->lkey = next_key++;
	mr->rkey = next_key++;
	fake_last_mr_access = access;
	fake_last_mr = mr;
	return mr;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr(pd, addr, length, access);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		unsigned int access)
{
	(void)iova;
	return reg_mr(pd, addr, length, (int)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	int err = enter("ibv_dereg_mr");
	if (err)
		return errno_of(err) ? errno_of(err) : EIO;
	object_delete(mr);
	return 0;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	fake_last_srq_attr = *attr;
	if (enter("ibv_create_srq"))
		return NULL;
	struct ibv_srq *srq = object_new(sizeof(*srq));
	srq->context = pd->context;
	srq->pd = pd;
	return srq;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	int err = enter("ibv_destroy_srq");
	if (err)
		return errno_of(err) ? errno_of(err) : EIO;
	object_delete(srq);
	return 0;
}

/* ---- completion channels and CQs ---- */

#define FAKE_QUEUE_LEN 64

struct fake_cq {
	struct ibv_cq cq;
	struct ibv_wc wc[FAKE_QUEUE_LEN];
	int head, count;
};

static struct {
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
} channel_events[FAKE_QUEUE_LEN];
static int channel_event_count;
static bool poll_override_set;
static int poll_override;

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *ctx)
{
	if (enter("ibv_create_comp_channel"))
		return NULL;
	struct ibv_comp_channel *ch = object_new(sizeof(*ch));
	ch->context = ctx;
	ch->fd = eventfd(0, 0);
	return ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	int err = enter("ibv_destroy_comp_channel");
	if (err)
		return errno_of(err) ? errno_of(err) : EIO;
	close(ch->fd);
	object_delete(ch);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
		struct ibv_comp_channel *channel, int comp_vector)
{
	(void)comp_vector;
	if (enter("ibv_create_cq"))
		return NULL;
	struct fake_cq *fcq = object_new(sizeof(*fcq));
	fcq->cq.context = ctx;
	fcq->cq.channel = channel;
	fcq->cq.cq_context = cq_context;
	fcq->cq.cqe = cqe;
	return &fcq->cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	int err = enter("ibv_destroy_cq");
	if (err)
		return errno_of(err) ? errno_of(err) : EIO;
	object_delete(cq);
	return 0;
}

void fake_cq_push(struct ibv_cq *cq, const struct ibv_wc *wc)
{
	struct fake_cq *fcq = (struct fake_cq *)cq;
	if (fcq->count == FAKE_QUEUE_LEN)
		abort();
	fcq->wc[(fcq->head + fcq->count++) % FAKE_QUEUE_LEN] = *wc;
}

void fake_cq_poll_result(int ret)
{
	poll_override_set = true;
	poll_override = ret;
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fake_cq *fcq = (struct fake_cq *)cq;
	enter("ibv_poll_cq");
	if (poll_override_set) {
		poll_override_set = false;
		return poll_override;
	}
	int got = 0;
	while (got < n && fcq->count > 0) {
		wc[got++] = fcq->wc[fcq->head];
		fcq->head = (fcq->head + 1) % FAKE_QUEUE_LEN;
		fcq->count--;
	}
	return got;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	(void)solicited_only;
	int err = enter("ibv_req_notify_cq");
	return err ? (errno_of(err) ? errno_of(err) : EIO) : 0;
}

void fake_channel_push(struct ibv_comp_channel *channel, struct ibv_cq *cq)
{
	if (channel_event_count == FAKE_QUEUE_LEN)
		abort();
	channel_events[channel_event_count].channel = channel;
	channel_events[channel_event_count++].cq = cq;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	int err = enter("ibv_get_cq_event");
	if (err) {
		errno = errno_of(err);
		return -1;
	}
	for (int i = 0; i < channel_event_count; i++) {
		if (channel_events[i].channel != channel)
			continue;
		struct ibv_cq *got = channel_events[i].cq;
		memmove(&channel_events[i], &channel_events[i + 1],
			sizeof(channel_events[0]) * (size_t)(channel_event_count - i - 1));
		channel_event_count--;
		if (!got) {
			errno = EIO;
			return -1;
		}
		*cq = got;
		*cq_context = got->cq_context;
		return 0;
	}
	errno = EAGAIN;
	return -1;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	(void)cq;
	(void)nevents;
	enter("ibv_ack_cq_events");
}

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
	enter("ibv_wr_start");
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
	int err = enter("ibv_wr_complete");
	assert(session.open);
	session.open = false;
	if (err)
		return errno_of(err) ? errno_of(err) : EIO;
	fake_posted.count++;
	session_record();
	return 0;
}

static void fake_wr_abort(struct ibv_qp_ex *qp)
{
	(void)qp;
	enter("ibv_wr_abort");
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
	enter("ibv_wr_atomic_write");
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
	enter("ibv_wr_flush");
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
	if (enter("ibv_qp_to_qp_ex"))
		return NULL;
	return fqp->extended ? &fqp->ex : NULL;
}

static struct ibv_qp *create_qp(struct rdma_cm_id *id, const struct ibv_qp_init_attr_ex *attr)
{
	fake_last_qp_attr = *attr;
	if (enter("rdma_create_qp"))
		return NULL;
	struct fake_qp *fqp = object_new(sizeof(*fqp));
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
	enter("rdma_destroy_qp");
	object_delete(id->qp);
	id->qp = NULL;
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp;
	int err = enter("ibv_post_send");
	if (err) {
		*bad = wr;
		for (unsigned i = 0; i < fake_send_bad_wr_index && (*bad)->next; i++)
			*bad = (*bad)->next;
		return errno_of(err) ? errno_of(err) : EIO;
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

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	int err = enter("ibv_post_recv");
	if (err) {
		*bad = wr;
		return errno_of(err) ? errno_of(err) : EIO;
	}
	record_recv(&fake_posted.recv_wr, &fake_posted.recv_sge, wr);
	return 0;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq;
	int err = enter("ibv_post_srq_recv");
	if (err) {
		*bad = wr;
		return errno_of(err) ? errno_of(err) : EIO;
	}
	record_recv(&fake_posted.srq_recv_wr, &fake_posted.srq_recv_sge, wr);
	return 0;
}

/* ---- connection manager ---- */

struct fake_cm_event {
	struct rdma_cm_event event;
	struct rdma_event_channel *channel;
	uint8_t pdata[256];
	bool queued;
};

static struct fake_cm_event *cm_events[FAKE_QUEUE_LEN];
static int cm_event_count;

struct rdma_event_channel *rdma_create_event_channel(void)
{
	if (enter("rdma_create_event_channel"))
		return NULL;
	struct rdma_event_channel *ch = object_new(sizeof(*ch));
	ch->fd = eventfd(0, 0);
	return ch;
}

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	enter("rdma_destroy_event_channel");
	close(channel->fd);
	object_delete(channel);
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		enum rdma_port_space ps)
{
	if (enter("rdma_create_id"))
		return -1;
	struct rdma_cm_id *new_id = object_new(sizeof(*new_id));
	new_id->channel = channel;
	new_id->context = context;
	new_id->ps = ps;
	*id = new_id;
	fake_last_cm_id = new_id;
	return 0;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	if (enter("rdma_destroy_id"))
		return -1;
	object_delete(id);
	return 0;
}

struct rdma_cm_id *fake_cm_new_request_id(struct rdma_cm_id *listen_id)
{
	struct rdma_cm_id *id = object_new(sizeof(*id));
	id->channel = listen_id->channel;
	id->verbs = fake_ibv_context();
	id->ps = listen_id->ps;
	return id;
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	if (enter("rdma_migrate_id"))
		return -1;
	id->channel = channel;
	return 0;
}

#define FAKE_CM_CALL(name, id_expr) \
	do { \
		if (enter(name)) \
			return -1; \
		(id_expr)->verbs = fake_ibv_context(); \
		return 0; \
	} while (0)

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	fake_addr.id = id;
	fake_addr.bind_addr = addr;
	if (enter("rdma_bind_addr"))
		return -1;
	id->verbs = fake_addr.no_device ? NULL : fake_ibv_context();
	return 0;
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst, int timeout_ms)
{
	fake_addr.id = id;
	fake_addr.resolve_src = src;
	fake_addr.resolve_dst = dst;
	fake_addr.resolve_timeout_ms = timeout_ms;
	if (enter("rdma_resolve_addr"))
		return -1;
	id->verbs = fake_addr.no_device ? NULL : fake_ibv_context();
	return 0;
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	(void)timeout_ms;
	FAKE_CM_CALL("rdma_resolve_route", id);
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)id;
	(void)backlog;
	return enter("rdma_listen") ? -1 : 0;
}

static void record_conn_param(const struct rdma_conn_param *param)
{
	memset(&fake_last_conn_param, 0, sizeof(fake_last_conn_param));
	if (!param)
		return;
	fake_last_conn_param.pdata_len = param->private_data_len;
	if (param->private_data && param->private_data_len)
		memcpy(fake_last_conn_param.pdata, param->private_data, param->private_data_len);
	fake_last_conn_param.responder_resources = param->responder_resources;
	fake_last_conn_param.initiator_depth = param->initiator_depth;
	fake_last_conn_param.rnr_retry_count = param->rnr_retry_count;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	(void)id;
	if (enter("rdma_connect"))
		return -1;
	record_conn_param(param);
	return 0;
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	(void)id;
	if (enter("rdma_accept"))
		return -1;
	record_conn_param(param);
	return 0;
}

int rdma_reject(struct rdma_cm_id *id, const void *pdata, uint8_t len)
{
	(void)id;
	if (enter("rdma_reject"))
		return -1;
	struct rdma_conn_param param = {.private_data = pdata, .private_data_len = len};
	record_conn_param(&param);
	return 0;
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	(void)id;
	return enter("rdma_disconnect") ? -1 : 0;
}

void fake_cm_push_event(struct rdma_event_channel *channel, enum rdma_cm_event_type type,
		struct rdma_cm_id *id, const void *pdata, uint8_t pdata_len, int status)
{
	if (cm_event_count == FAKE_QUEUE_LEN)
		abort();
	struct fake_cm_event *fe = __real_calloc(1, sizeof(*fe));
	if (!fe)
		abort();
	fe->channel = channel;
	fe->event.event = type;
	fe->event.id = id;
	fe->event.listen_id = NULL;
	fe->event.status = status;
	if (pdata && pdata_len)
		memcpy(fe->pdata, pdata, pdata_len);
	fe->event.param.conn.private_data = pdata_len ? fe->pdata : NULL;
	fe->event.param.conn.private_data_len = pdata_len;
	cm_events[cm_event_count++] = fe;
}

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	if (enter("rdma_get_cm_event"))
		return -1;
	for (int i = 0; i < cm_event_count; i++) {
		if (cm_events[i]->channel != channel)
			continue;
		struct fake_cm_event *fe = cm_events[i];
		memmove(&cm_events[i], &cm_events[i + 1],
			sizeof(cm_events[0]) * (size_t)(cm_event_count - i - 1));
		cm_event_count--;
		live_objects++;
		track(fe);
		*event = &fe->event;
		return 0;
	}
	errno = EAGAIN;
	return -1;
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	if (enter("rdma_ack_cm_event"))
		return -1;
	live_objects--;
	untrack(event);
	free(event); /* event is the first member of its fake_cm_event */
	return 0;
}

const char *rdma_event_str(enum rdma_cm_event_type event)
{
	(void)event;
	return "FAKE_EVENT";
}

int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		struct rdma_addrinfo **res)
{
	snprintf(fake_addr.node, sizeof(fake_addr.node), "%s", node ? node : "");
	fake_addr.service_null = service == NULL;
	snprintf(fake_addr.service, sizeof(fake_addr.service), "%s", service ? service : "");
	fake_addr.hints_flags = hints ? hints->ai_flags : -1;
	fake_addr.hints_port_space = hints ? hints->ai_port_space : -1;
	if (fake_addr.getaddrinfo_ret) {
		int ret = fake_addr.getaddrinfo_ret;
		fake_addr.getaddrinfo_ret = 0;
		return ret;
	}
	if (enter("rdma_getaddrinfo"))
		return -1;
	struct rdma_addrinfo *ai = object_new(sizeof(*ai));
	struct sockaddr_in *sin = __real_calloc(1, sizeof(*sin));
	if (!sin)
		abort();
	sin->sin_family = AF_INET;
	ai->ai_family = AF_INET;
	ai->ai_flags = hints ? hints->ai_flags : 0;
	ai->ai_port_space = hints ? hints->ai_port_space : RDMA_PS_TCP;
	if (ai->ai_flags & RAI_PASSIVE) {
		ai->ai_src_addr = (struct sockaddr *)sin;
		ai->ai_src_len = sizeof(*sin);
	} else {
		ai->ai_dst_addr = (struct sockaddr *)sin;
		ai->ai_dst_len = sizeof(*sin);
	}
	fake_addr.ai = ai;
	*res = ai;
	return 0;
}

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	enter("rdma_freeaddrinfo");
	free(res->ai_src_addr);
	free(res->ai_dst_addr);
	object_delete(res);
}

/* ---- reset ---- */

void fake_reset(void)
{
	while (cm_event_count > 0)
		free(cm_events[--cm_event_count]);
	memset(failures, 0, sizeof(failures));
	memset(counters, 0, sizeof(counters));
	memset(&fake_device, 0, sizeof(fake_device));
	memset(&fake_posted, 0, sizeof(fake_posted));
	memset(&session, 0, sizeof(session));
	fake_send_bad_wr_index = 0;
	memset(&fake_last_conn_param, 0, sizeof(fake_last_conn_param));
	memset(&fake_last_qp_attr, 0, sizeof(fake_last_qp_attr));
	memset(&fake_last_srq_attr, 0, sizeof(fake_last_srq_attr));
	channel_event_count = 0;
	poll_override_set = false;
	malloc_fail_at = 0;
	fake_free_watch(NULL, 0);
	live_objects = 0;
	fake_last_mr_access = 0;
	fake_last_cm_id = NULL;
	fake_last_mr = NULL;
	memset(&fake_addr, 0, sizeof(fake_addr));
}
