/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fake_provider.c -- see fake_provider.h; the bookkeeping, the device, PDs,
 * regions, SRQs, channels and CQs (QPs: fake_qp.c, the CM: fake_cm.c)
 */
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
int fake_enter(const char *fn)
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
int fake_errno_of(int injected)
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

void fake_object_count_in(void *p)
{
	live_objects++;
	track(p);
}

void fake_object_count_out(void *p)
{
	live_objects--;
	untrack(p);
}

void *fake_object_new(size_t size)
{
	void *p = __real_calloc(1, size);
	if (!p)
		abort();
	fake_object_count_in(p);
	return p;
}

void fake_object_delete(void *p)
{
	if (!p)
		return;
	fake_object_count_out(p);
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
	int err = fake_enter("ibv_query_device");
	if (err)
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
	fill_device_attr(attr);
	return 0;
}

static int fake_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input,
		struct ibv_device_attr_ex *attr, size_t attr_size)
{
	(void)ctx;
	(void)input;
	int err = fake_enter("ibv_query_device_ex");
	if (err)
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
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
	int err = fake_enter("ibv_advise_mr");
	return err ? (fake_errno_of(err) ? fake_errno_of(err) : EIO) : 0;
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
	if (fake_enter("ibv_alloc_pd"))
		return NULL;
	struct ibv_pd *pd = fake_object_new(sizeof(*pd));
	pd->context = ctx;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	int err = fake_enter("ibv_dealloc_pd");
	if (err)
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
	fake_object_delete(pd);
	return 0;
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if (fake_enter("ibv_reg_mr"))
		return NULL;
	struct ibv_mr *mr = fake_object_new(sizeof(*mr));
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
	int err = fake_enter("ibv_dereg_mr");
	if (err)
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
	fake_object_delete(mr);
	return 0;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	fake_last_srq_attr = *attr;
	if (fake_enter("ibv_create_srq"))
		return NULL;
	struct ibv_srq *srq = fake_object_new(sizeof(*srq));
	srq->context = pd->context;
	srq->pd = pd;
	return srq;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	int err = fake_enter("ibv_destroy_srq");
	if (err)
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
	fake_object_delete(srq);
	return 0;
}

/* ---- completion channels and CQs ---- */


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
	if (fake_enter("ibv_create_comp_channel"))
		return NULL;
	struct ibv_comp_channel *ch = fake_object_new(sizeof(*ch));
	ch->context = ctx;
	ch->fd = eventfd(0, 0);
	return ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	int err = fake_enter("ibv_destroy_comp_channel");
	if (err)
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
	close(ch->fd);
	fake_object_delete(ch);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
		struct ibv_comp_channel *channel, int comp_vector)
{
	(void)comp_vector;
	if (fake_enter("ibv_create_cq"))
		return NULL;
	struct fake_cq *fcq = fake_object_new(sizeof(*fcq));
	fcq->cq.context = ctx;
	fcq->cq.channel = channel;
	fcq->cq.cq_context = cq_context;
	fcq->cq.cqe = cqe;
	return &fcq->cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	int err = fake_enter("ibv_destroy_cq");
	if (err)
		return fake_errno_of(err) ? fake_errno_of(err) : EIO;
	fake_object_delete(cq);
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
	fake_enter("ibv_poll_cq");
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
	int err = fake_enter("ibv_req_notify_cq");
	return err ? (fake_errno_of(err) ? fake_errno_of(err) : EIO) : 0;
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
	int err = fake_enter("ibv_get_cq_event");
	if (err) {
		errno = fake_errno_of(err);
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
	fake_enter("ibv_ack_cq_events");
}

/* ---- reset ---- */

void fake_reset(void)
{
	fake_cm_reset();
	memset(failures, 0, sizeof(failures));
	memset(counters, 0, sizeof(counters));
	memset(&fake_device, 0, sizeof(fake_device));
	memset(&fake_posted, 0, sizeof(fake_posted));
	fake_qp_reset();
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
