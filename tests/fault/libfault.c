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
 *   RPMAFIO_FAULT_CHECK_FREE=1  abort when free() or munmap() gives back memory
 *                           that is still registered (see "Registered memory")
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
 *
 * Registered memory. The shim keeps the address range of every memory region
 * registered (ibv_reg_mr, ibv_reg_mr_iova2, ibv_reg_mr_iova) until its
 * ibv_dereg_mr() succeeds. A deregistration the shim made fail keeps its range:
 * by contract the caller must treat the memory as still registered (a peer may
 * still write into it). With RPMAFIO_FAULT_CHECK_FREE=1, free() and munmap() of
 * memory overlapping such a range print
 *     libfault: free(P) of memory still registered (MR [A, B))
 * and abort. (ibv_reg_dmabuf_mr registers a dma-buf, no memory of the process;
 * librpma calls neither it nor ibv_rereg_mr.) A failed ibv_dereg_mr() has
 * released the region for real (RELEASE below), so a retry of it on the same
 * ibv_mr is not passed on (the object is gone): it succeeds, or fails when its
 * own turn comes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define EXPORT __attribute__((visibility("default")))

static atomic_ulong calls;
static unsigned long fail_at;	/* 0: never */
static int fail_errno = EIO;
static int trace;
static const char *fail_call;	/* NULL: fail_at counts every call */
static atomic_ulong fail_call_calls;
static int check_free;

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

/* ---- registered memory (see the header) ---- */

#define REG_SLOTS 1024

enum reg_state { REG_NONE, REG_LIVE, REG_KEPT };

struct reg {
	const void *mr;		/* NULL: a kept range whose ibv_mr is gone and reused */
	uintptr_t lo, hi;	/* [lo, hi) */
	enum reg_state state;
};

/*
 * A small fixed table under a spinlock: free() may be called from anywhere, so
 * nothing here allocates, and nothing done under the lock frees.
 */
static struct reg regs[REG_SLOTS];
static atomic_flag regs_lock = ATOMIC_FLAG_INIT;
static atomic_uint nregs;	/* slots in use: free() looks only when there are some */

static void regs_acquire(void)
{
	while (atomic_flag_test_and_set_explicit(&regs_lock, memory_order_acquire))
		;
}

static void regs_release(void)
{
	atomic_flag_clear_explicit(&regs_lock, memory_order_release);
}

/* a message on stderr, with no allocation: text and numbers (hex when hex) */
struct line {
	char buf[256];
	size_t len;
};

static void line_str(struct line *l, const char *s)
{
	while (*s && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = *s++;
}

static void line_num(struct line *l, uintptr_t v, int hex)
{
	char digits[24];
	int n = 0;
	do {
		digits[n++] = "0123456789abcdef"[v % (hex ? 16 : 10)];
		v /= hex ? 16 : 10;
	} while (v);
	if (hex)
		line_str(l, "0x");
	while (n > 0 && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = digits[--n];
}

static void line_out(struct line *l)
{
	l->buf[l->len++] = '\n';
	ssize_t unused = write(STDERR_FILENO, l->buf, l->len);
	(void)unused;
}

static void regs_full(void)
{
	struct line l = {.len = 0};
	line_str(&l, "libfault: more than ");
	line_num(&l, REG_SLOTS, 0);
	line_str(&l, " memory registrations at once: cannot check frees any more");
	line_out(&l);
	if (check_free)
		abort();
}

/* insert under the lock; 0, or -1 when the table is full */
static int regs_insert_locked(const struct reg *r)
{
	for (size_t i = 0; i < REG_SLOTS; i++) {
		if (regs[i].state != REG_NONE)
			continue;
		regs[i] = *r;
		atomic_fetch_add(&nregs, 1);
		return 0;
	}
	return -1;
}

/* a new registration: an ibv_mr of a kept range may have been reused for it */
static void reg_add(const struct ibv_mr *mr, const void *addr, size_t len)
{
	if (mr == NULL)
		return;
	struct reg r = {.mr = mr, .lo = (uintptr_t)addr, .hi = (uintptr_t)addr + len,
		.state = REG_LIVE};
	regs_acquire();
	for (size_t i = 0; i < REG_SLOTS; i++) {
		if (regs[i].state == REG_LIVE && regs[i].mr == mr) {
			/*
			 * the same registration seen twice: libibverbs' ibv_reg_mr()
			 * calls ibv_reg_mr_iova2(), both wrapped here; one entry, or its
			 * one ibv_dereg_mr() would leave the other behind
			 */
			regs_release();
			return;
		}
		if (regs[i].state == REG_KEPT && regs[i].mr == mr)
			regs[i].mr = NULL;
	}
	int full = regs_insert_locked(&r);
	regs_release();
	if (full)
		regs_full();
}

/* take the entry of mr out of the table into *out; its state, REG_NONE if unknown */
static enum reg_state reg_take(const struct ibv_mr *mr, struct reg *out)
{
	enum reg_state state = REG_NONE;
	if (mr == NULL)
		return state;
	regs_acquire();
	for (size_t i = 0; i < REG_SLOTS; i++) {
		if (regs[i].state == REG_NONE || regs[i].mr != mr)
			continue;
		*out = regs[i];
		state = regs[i].state;
		regs[i].state = REG_NONE;
		atomic_fetch_sub(&nregs, 1);
		break;
	}
	regs_release();
	return state;
}

/* put an entry back (a deregistration failed), as live or as kept */
static void reg_put_back(struct reg r, enum reg_state state)
{
	r.state = state;
	regs_acquire();
	for (size_t i = 0; i < REG_SLOTS; i++)
		if (state == REG_KEPT && regs[i].state == REG_LIVE && regs[i].mr == r.mr)
			r.mr = NULL; /* the ibv_mr is already another region's */
	int full = regs_insert_locked(&r);
	regs_release();
	if (full)
		regs_full();
}

/* free()/munmap() of [lo, lo + len): abort if it overlaps a registered range */
static void check_release(const char *fn, uintptr_t lo, size_t len, int with_len)
{
	uintptr_t hi = lo + (len ? len : 1);
	struct reg hit = {.state = REG_NONE};
	regs_acquire();
	for (size_t i = 0; i < REG_SLOTS; i++) {
		if (regs[i].state != REG_NONE && lo < regs[i].hi && regs[i].lo < hi) {
			hit = regs[i];
			break;
		}
	}
	regs_release();
	if (hit.state == REG_NONE)
		return;
	struct line l = {.len = 0};
	line_str(&l, "libfault: ");
	line_str(&l, fn);
	line_str(&l, "(");
	line_num(&l, lo, 1);
	if (with_len) {
		line_str(&l, ", ");
		line_num(&l, len, 0);
	}
	line_str(&l, ") of memory still registered (MR [");
	line_num(&l, hit.lo, 1);
	line_str(&l, ", ");
	line_num(&l, hit.hi, 1);
	line_str(&l, hit.state == REG_KEPT ? ")): its ibv_dereg_mr() failed" : "))");
	line_out(&l);
	abort();
}

extern void __libc_free(void *ptr);
static void (*next_free)(void *);
static int (*next_munmap)(void *, size_t);

static void resolve_release_fns(void)
{
	next_munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
	next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
}

EXPORT void free(void *ptr);
EXPORT void free(void *ptr)
{
	if (ptr != NULL && check_free && atomic_load(&nregs))
		check_release("free", (uintptr_t)ptr, malloc_usable_size(ptr), 0);
	if (next_free)
		next_free(ptr);
	else
		__libc_free(ptr); /* before the constructor (glibc's malloc then) */
}

EXPORT int munmap(void *addr, size_t len);
EXPORT int munmap(void *addr, size_t len)
{
	if (check_free && atomic_load(&nregs))
		check_release("munmap", (uintptr_t)addr, len, 1);
	if (next_munmap)
		return next_munmap(addr, len);
	return (int)syscall(SYS_munmap, addr, len);
}

__attribute__((constructor)) static void fault_init(void)
{
	fail_at = env_ulong("RPMAFIO_FAULT_AT", 0);
	fail_errno = (int)env_ulong("RPMAFIO_FAULT_ERRNO", EIO);
	trace = (int)env_ulong("RPMAFIO_FAULT_TRACE", 0);
	fail_call = getenv("RPMAFIO_FAULT_CALL");
	if (fail_call != NULL && *fail_call == '\0')
		fail_call = NULL;
	check_free = (int)env_ulong("RPMAFIO_FAULT_CHECK_FREE", 0);
	resolve_release_fns();
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
	WRAP_THEN(type, name, version, failure, params, args, (void)0)
/* ... and then do `then` with the real call's return value `ret` */
#define WRAP_THEN(type, name, version, failure, params, args, then) \
	EXPORT type name params; \
	EXPORT type name params \
	{ \
		static type (*next) params; \
		if (next == NULL) \
			next = (type (*) params)real(#name, version); \
		if (fault_now(#name, __builtin_return_address(0))) \
			return failure; \
		type ret = next args; \
		then; \
		return ret; \
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
/*
 * ibv_reg_mr() is a macro over these two, by whether the access flags are
 * constant (ibv_reg_mr_iova() one over the last); each remembers its range
 */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova
WRAP_THEN(struct ibv_mr *, ibv_reg_mr, "IBVERBS_1.1", NULL,
	(struct ibv_pd *pd, void *addr, size_t len, int access), (pd, addr, len, access),
	reg_add(ret, addr, len))
WRAP_THEN(struct ibv_mr *, ibv_reg_mr_iova2, "IBVERBS_1.8", NULL,
	(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned int access),
	(pd, addr, len, iova, access), reg_add(ret, addr, len))
WRAP_THEN(struct ibv_mr *, ibv_reg_mr_iova, "IBVERBS_1.7", NULL,
	(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, int access),
	(pd, addr, len, iova, access), reg_add(ret, addr, len))

/*
 * A RELEASE that also keeps the table: a successful deregistration forgets the
 * range, one the shim fails keeps it (the caller must treat the memory as
 * still registered), and a retry on that ibv_mr is not passed on (see the header).
 */
EXPORT int ibv_dereg_mr(struct ibv_mr *mr);
EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	static int (*next)(struct ibv_mr *);
	if (next == NULL)
		next = (int (*)(struct ibv_mr *))real("ibv_dereg_mr", "IBVERBS_1.1");
	int failing = fault_now("ibv_dereg_mr", __builtin_return_address(0));
	struct reg r = {0}; /* (reg_take fills it when it finds mr; -O3 cannot tell) */
	enum reg_state state = reg_take(mr, &r);
	int ret = 0;
	if (state != REG_KEPT)
		ret = next(mr);
	if (failing) {
		if (state != REG_NONE)
			reg_put_back(r, REG_KEPT);
		errno = fail_errno;
		return fail_errno;
	}
	if (ret && state != REG_NONE)
		reg_put_back(r, state); /* a real failure: still registered */
	return ret;
}

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
