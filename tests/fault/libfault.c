/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libfault.c -- provider fault injection for librpma: an LD_PRELOAD shim over
 * the libibverbs and librdmacm functions librpma calls.
 *
 *   RPMAFIO_FAULT_AT=N      the N-th intercepted call (1-based) fails: a NULL or
 *                           -1 return with errno set, or the errno itself where the
 *                           verbs API returns one (ibv_dereg_mr, ibv_destroy_*...);
 *                           a release (destroy, dereg, dealloc, ack) is done first
 *                           and then reported as failed (see RELEASE below)
 *   RPMAFIO_FAULT_CALL=F    with RPMAFIO_FAULT_AT=N: the N-th call of F fails (how
 *                           many calls of other kinds come before it -- completion
 *                           events, say -- may vary from run to run)
 *   RPMAFIO_FAULT_ERRNO=E   the errno it fails with (a number; default EIO)
 *   RPMAFIO_FAULT_COUNT=1   print "libfault: N calls" on stderr at exit
 *   RPMAFIO_FAULT_TRACE=1   print every intercepted call (number and name)
 *
 * Only calls made from outside rdma-core count: librdmacm calling libibverbs
 * inside itself is its own business. Calls are counted across threads.
 *
 * What cannot be intercepted: the verbs that rdma-core defines static inline in
 * <infiniband/verbs.h> and that go straight to the provider through function
 * pointers (ibv_post_send, ibv_post_recv, ibv_post_srq_recv, ibv_poll_cq,
 * ibv_req_notify_cq, ibv_query_device_ex, ibv_advise_mr, ibv_wr_*). Void calls
 * (ibv_ack_cq_events, rdma_destroy_qp, rdma_freeaddrinfo) cannot fail and pass
 * through uncounted.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define EXPORT __attribute__((visibility("default")))

static atomic_ulong calls;
static unsigned long fail_at;	/* 0: never */
static int fail_errno = EIO;
static int trace;
static const char *fail_call;	/* NULL: fail_at counts every call */
static atomic_ulong fail_call_calls;

static unsigned long env_ulong(const char *name, unsigned long dflt)
{
	const char *s = getenv(name);
	char *end;
	if (s == NULL || *s == '\0')
		return dflt;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end != '\0' || s[0] == '-') {
		fprintf(stderr, "libfault: %s='%s' is not a non-negative integer\n", name, s);
		exit(2);
	}
	return v;
}

__attribute__((constructor)) static void fault_init(void)
{
	fail_at = env_ulong("RPMAFIO_FAULT_AT", 0);
	fail_errno = (int)env_ulong("RPMAFIO_FAULT_ERRNO", EIO);
	trace = (int)env_ulong("RPMAFIO_FAULT_TRACE", 0);
	fail_call = getenv("RPMAFIO_FAULT_CALL");
	if (fail_call != NULL && *fail_call == '\0')
		fail_call = NULL;
}

__attribute__((destructor)) static void fault_report(void)
{
	if (env_ulong("RPMAFIO_FAULT_COUNT", 0))
		fprintf(stderr, "libfault: %lu calls\n", atomic_load(&calls));
}

/* Is the code at ret inside rdma-core itself (a library calling another)? */
static int called_from_rdma_core(const void *ret)
{
	Dl_info info;
	if (!dladdr(ret, &info) || info.dli_fname == NULL)
		return 0;
	return strstr(info.dli_fname, "libibverbs") || strstr(info.dli_fname, "librdmacm") ||
		strstr(info.dli_fname, "rdmav");
}

/* Count a call; 1 when this one must fail (errno is then set). */
static int fault_now(const char *name, const void *ret)
{
	if (called_from_rdma_core(ret))
		return 0;
	unsigned long n = atomic_fetch_add(&calls, 1) + 1;
	if (trace)
		fprintf(stderr, "libfault: call %lu: %s\n", n, name);
	unsigned long turn = n;
	if (fail_call != NULL) {
		if (strcmp(name, fail_call) != 0)
			return 0;
		turn = atomic_fetch_add(&fail_call_calls, 1) + 1;
	}
	if (turn != fail_at)
		return 0;
	fprintf(stderr, "libfault: failing call %lu: %s (errno %d: %s)\n", n, name, fail_errno,
		strerror(fail_errno));
	errno = fail_errno;
	return 1;
}

static void *real(const char *name, const char *version)
{
	void *f = dlvsym(RTLD_NEXT, name, version);
	if (f == NULL)
		f = dlsym(RTLD_NEXT, name);
	if (f == NULL) {
		fprintf(stderr, "libfault: cannot find %s@%s: %s\n", name, version, dlerror());
		abort();
	}
	return f;
}

/*
 * WRAP(ret_type, name, version, failure_value, (params), (args)): define name()
 * to fail with failure_value when its turn comes, else call the real one.
 * FAIL_ERRNO as failure_value returns the errno (the verbs' destroy calls).
 */
#define FAIL_ERRNO fail_errno
#define WRAP(type, name, version, failure, params, args) \
	EXPORT type name params; \
	EXPORT type name params \
	{ \
		static type (*next) params; \
		if (next == NULL) \
			next = (type (*) params)real(#name, version); \
		if (fault_now(#name, __builtin_return_address(0))) \
			return failure; \
		return next args; \
	}

/*
 * RELEASE(...): the same for a call that gives something back (an event, a
 * queue, a region). When its turn comes the release is done and then reported
 * as failed: a provider that kept the object would leave state nobody but the
 * provider could clean up (an unacknowledged CM event blocks rdma_destroy_id()
 * forever), which no real rdma-core does; what is tested is that librpma
 * reports the error and does not touch the object again.
 */
#define RELEASE(name, version, failure, params, args) \
	EXPORT int name params; \
	EXPORT int name params \
	{ \
		static int (*next) params; \
		if (next == NULL) \
			next = (int (*) params)real(#name, version); \
		int failing = fault_now(#name, __builtin_return_address(0)); \
		int ret = next args; \
		if (failing) { \
			errno = fail_errno; \
			return failure; \
		} \
		return ret; \
	}

/* libibverbs */
WRAP(struct ibv_pd *, ibv_alloc_pd, "IBVERBS_1.1", NULL, (struct ibv_context *c), (c))
RELEASE(ibv_dealloc_pd, "IBVERBS_1.1", FAIL_ERRNO, (struct ibv_pd *pd), (pd))
WRAP(struct ibv_comp_channel *, ibv_create_comp_channel, "IBVERBS_1.0", NULL,
	(struct ibv_context *c), (c))
RELEASE(ibv_destroy_comp_channel, "IBVERBS_1.0", FAIL_ERRNO, (struct ibv_comp_channel *ch),
	(ch))
WRAP(struct ibv_cq *, ibv_create_cq, "IBVERBS_1.1", NULL,
	(struct ibv_context *c, int cqe, void *ctx, struct ibv_comp_channel *ch, int vec),
	(c, cqe, ctx, ch, vec))
RELEASE(ibv_destroy_cq, "IBVERBS_1.1", FAIL_ERRNO, (struct ibv_cq *cq), (cq))
WRAP(struct ibv_srq *, ibv_create_srq, "IBVERBS_1.1", NULL,
	(struct ibv_pd *pd, struct ibv_srq_init_attr *attr), (pd, attr))
RELEASE(ibv_destroy_srq, "IBVERBS_1.1", FAIL_ERRNO, (struct ibv_srq *srq), (srq))
WRAP(int, ibv_get_cq_event, "IBVERBS_1.1", -1,
	(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **ctx), (ch, cq, ctx))
WRAP(struct ibv_qp_ex *, ibv_qp_to_qp_ex, "IBVERBS_1.6", NULL, (struct ibv_qp *qp), (qp))
WRAP(int, ibv_query_device, "IBVERBS_1.1", FAIL_ERRNO,
	(struct ibv_context *c, struct ibv_device_attr *attr), (c, attr))
/* ibv_reg_mr() is a macro over these two, by whether the access flags are constant */
#undef ibv_reg_mr
WRAP(struct ibv_mr *, ibv_reg_mr, "IBVERBS_1.1", NULL,
	(struct ibv_pd *pd, void *addr, size_t len, int access), (pd, addr, len, access))
WRAP(struct ibv_mr *, ibv_reg_mr_iova2, "IBVERBS_1.8", NULL,
	(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned int access),
	(pd, addr, len, iova, access))
RELEASE(ibv_dereg_mr, "IBVERBS_1.1", FAIL_ERRNO, (struct ibv_mr *mr), (mr))

/* librdmacm */
WRAP(struct rdma_event_channel *, rdma_create_event_channel, "RDMACM_1.0", NULL, (void), ())
WRAP(int, rdma_create_id, "RDMACM_1.0", -1,
	(struct rdma_event_channel *ch, struct rdma_cm_id **id, void *ctx, enum rdma_port_space ps),
	(ch, id, ctx, ps))
/*
 * Not a RELEASE: librpma keeps an endpoint or connection whole when destroying
 * its id fails (so the caller may retry), as a real failure leaves the id alive.
 */
WRAP(int, rdma_destroy_id, "RDMACM_1.0", -1, (struct rdma_cm_id *id), (id))
WRAP(int, rdma_getaddrinfo, "RDMACM_1.0", -1,
	(const char *node, const char *service, const struct rdma_addrinfo *hints,
		struct rdma_addrinfo **res), (node, service, hints, res))
WRAP(int, rdma_bind_addr, "RDMACM_1.0", -1, (struct rdma_cm_id *id, struct sockaddr *a), (id, a))
WRAP(int, rdma_listen, "RDMACM_1.0", -1, (struct rdma_cm_id *id, int backlog), (id, backlog))
WRAP(int, rdma_resolve_addr, "RDMACM_1.0", -1,
	(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst, int ms),
	(id, src, dst, ms))
WRAP(int, rdma_resolve_route, "RDMACM_1.0", -1, (struct rdma_cm_id *id, int ms), (id, ms))
WRAP(int, rdma_create_qp_ex, "RDMACM_1.0", -1,
	(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr), (id, attr))
WRAP(int, rdma_connect, "RDMACM_1.0", -1,
	(struct rdma_cm_id *id, struct rdma_conn_param *p), (id, p))
WRAP(int, rdma_accept, "RDMACM_1.0", -1,
	(struct rdma_cm_id *id, struct rdma_conn_param *p), (id, p))
WRAP(int, rdma_reject, "RDMACM_1.0", -1,
	(struct rdma_cm_id *id, const void *pd, uint8_t len), (id, pd, len))
WRAP(int, rdma_disconnect, "RDMACM_1.0", -1, (struct rdma_cm_id *id), (id))
WRAP(int, rdma_migrate_id, "RDMACM_1.0", -1,
	(struct rdma_cm_id *id, struct rdma_event_channel *ch), (id, ch))
WRAP(int, rdma_get_cm_event, "RDMACM_1.0", -1,
	(struct rdma_event_channel *ch, struct rdma_cm_event **ev), (ch, ev))
RELEASE(rdma_ack_cm_event, "RDMACM_1.0", -1, (struct rdma_cm_event *ev), (ev))
