// SPDX-License-Identifier: BSD-3-Clause
/*
 * verbs_count.c -- an LD_PRELOAD library that counts what a process asks of its
 * RDMA device: post calls (each one a doorbell; on Soft-RoCE a system call),
 * the work requests they carry, completion-queue polls and the completions they
 * return, and completion-channel arms. The matrix runner preloads it into both
 * implementations' fio (ours and the peer's) to get per-I/O costs that no
 * emulator's speed can blur (scripts/run_matrix.sh, docs/matrix.md).
 *
 * ibv_post_send() and friends are inline functions that jump through the
 * context's ops table, so they cannot be interposed by name: the library wraps
 * ibv_open_device() instead and puts counting wrappers into the table of every
 * context it opens. A QP created with the extended interface (ibv_wr_*) gets
 * counting wrappers in its own table too: each ibv_wr_complete() is a post
 * call, each request built by ibv_wr_rdma_write/_write_imm/_rdma_read/_send/
 * _send_imm a work request (the native ATOMIC WRITE and FLUSH builders are not
 * wrapped: their requests are not counted, their doorbells are).
 *
 * It also counts the bytes the peer's engines (fio 3.33's, on a shared librpma
 * and libpmem) ask to make durable, which they do not report themselves: the
 * lengths of rpma_flush() (APM's client) and of libpmem's pmem_persist() (GPSPM's
 * server persists every flush request with it). Both are called through the PLT,
 * so they are interposed by name and passed on. Our engines link librpma
 * statically and persist with libpmem2: they count their own (a log line).
 *
 * At exit the counts go, as one JSON object, to the file named by
 * RPMAFIO_VERBS_COUNT (appended: several processes may share it).
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

struct verbs_counts {
	atomic_ulong post_send_calls;	/* ibv_wr_complete() calls too */
	atomic_ulong wr_complete_calls;	/* ... of which the extended interface's */
	atomic_ulong send_wrs;
	atomic_ulong post_recv_calls;
	atomic_ulong recv_wrs;
	atomic_ulong poll_calls;
	atomic_ulong completions;
	atomic_ulong notify_calls;
	atomic_ulong contexts;
	atomic_ulong flush_bytes;	/* rpma_flush() lengths */
	atomic_ulong persist_bytes;	/* pmem_persist() lengths */
};

static struct verbs_counts counts;

/* the provider's own entries, one set per process: every context of one
 * provider has the same ones (a second provider is refused, see below) */
static struct {
	int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **);
	int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **);
	int (*post_srq_recv)(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **);
	int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *);
	int (*req_notify_cq)(struct ibv_cq *, int);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *, struct ibv_qp_init_attr_ex *);
	/* the extended interface's, from the first extended QP */
	int (*wr_complete)(struct ibv_qp_ex *);
	void (*wr_rdma_write)(struct ibv_qp_ex *, uint32_t, uint64_t);
	void (*wr_rdma_write_imm)(struct ibv_qp_ex *, uint32_t, uint64_t, __be32);
	void (*wr_rdma_read)(struct ibv_qp_ex *, uint32_t, uint64_t);
	void (*wr_send)(struct ibv_qp_ex *);
	void (*wr_send_imm)(struct ibv_qp_ex *, __be32);
} provider;

static pthread_mutex_t provider_lock = PTHREAD_MUTEX_INITIALIZER;
static int mixed_providers;

static unsigned long send_list_length(const struct ibv_send_wr *wr)
{
	unsigned long n = 0;

	for (; wr; wr = wr->next)
		n++;
	return n;
}

static unsigned long recv_list_length(const struct ibv_recv_wr *wr)
{
	unsigned long n = 0;

	for (; wr; wr = wr->next)
		n++;
	return n;
}

static int counting_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		struct ibv_send_wr **bad_wr)
{
	atomic_fetch_add_explicit(&counts.post_send_calls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&counts.send_wrs, send_list_length(wr),
			memory_order_relaxed);
	return provider.post_send(qp, wr, bad_wr);
}

static int counting_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		struct ibv_recv_wr **bad_wr)
{
	atomic_fetch_add_explicit(&counts.post_recv_calls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&counts.recv_wrs, recv_list_length(wr),
			memory_order_relaxed);
	return provider.post_recv(qp, wr, bad_wr);
}

static int counting_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		struct ibv_recv_wr **bad_wr)
{
	atomic_fetch_add_explicit(&counts.post_recv_calls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&counts.recv_wrs, recv_list_length(wr),
			memory_order_relaxed);
	return provider.post_srq_recv(srq, wr, bad_wr);
}

static int counting_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	int n = provider.poll_cq(cq, num_entries, wc);

	atomic_fetch_add_explicit(&counts.poll_calls, 1, memory_order_relaxed);
	if (n > 0)
		atomic_fetch_add_explicit(&counts.completions, (unsigned long)n,
				memory_order_relaxed);
	return n;
}

static int counting_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	atomic_fetch_add_explicit(&counts.notify_calls, 1, memory_order_relaxed);
	return provider.req_notify_cq(cq, solicited_only);
}

static void count_send_wr(void)
{
	atomic_fetch_add_explicit(&counts.send_wrs, 1, memory_order_relaxed);
}

static int counting_wr_complete(struct ibv_qp_ex *qpx)
{
	atomic_fetch_add_explicit(&counts.post_send_calls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&counts.wr_complete_calls, 1, memory_order_relaxed);
	return provider.wr_complete(qpx);
}

static void counting_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr)
{
	count_send_wr();
	provider.wr_rdma_write(qpx, rkey, addr);
}

static void counting_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr,
		__be32 imm)
{
	count_send_wr();
	provider.wr_rdma_write_imm(qpx, rkey, addr, imm);
}

static void counting_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr)
{
	count_send_wr();
	provider.wr_rdma_read(qpx, rkey, addr);
}

static void counting_wr_send(struct ibv_qp_ex *qpx)
{
	count_send_wr();
	provider.wr_send(qpx);
}

static void counting_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	count_send_wr();
	provider.wr_send_imm(qpx, imm);
}

/* (the process's libibverbs, found when the first QP is made: this library links none) */
static struct ibv_qp_ex *qp_ex_of(struct ibv_qp *qp)
{
	static struct ibv_qp_ex *(*to_qp_ex)(struct ibv_qp *);
	if (!to_qp_ex)
		to_qp_ex = (struct ibv_qp_ex *(*)(struct ibv_qp *))dlsym(RTLD_DEFAULT,
			"ibv_qp_to_qp_ex");
	return to_qp_ex ? to_qp_ex(qp) : NULL;
}

/* one builder: the provider's remembered (the first QP's), ours put in its place */
#define WRAP_BUILDER(qpx, name) do { \
		if ((qpx)->name && (qpx)->name != counting_##name) { \
			if (!provider.name) \
				provider.name = (qpx)->name; \
			(qpx)->name = counting_##name; \
		} \
	} while (0)

static struct ibv_qp *counting_create_qp_ex(struct ibv_context *ctx,
		struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *qp = provider.create_qp_ex(ctx, attr);
	struct ibv_qp_ex *qpx = qp ? qp_ex_of(qp) : NULL;

	if (!qpx)
		return qp;
	pthread_mutex_lock(&provider_lock);
	WRAP_BUILDER(qpx, wr_complete);
	WRAP_BUILDER(qpx, wr_rdma_write);
	WRAP_BUILDER(qpx, wr_rdma_write_imm);
	WRAP_BUILDER(qpx, wr_rdma_read);
	WRAP_BUILDER(qpx, wr_send);
	WRAP_BUILDER(qpx, wr_send_imm);
	pthread_mutex_unlock(&provider_lock);
	return qp;
}

/* Remember the provider's entries (the first context's) and put ours in. */
static void wrap_context(struct ibv_context *ctx)
{
	struct ibv_context_ops *ops = &ctx->ops;

	pthread_mutex_lock(&provider_lock);
	struct verbs_context *vctx = verbs_get_ctx(ctx);
	if (!provider.post_send) {
		provider.post_send = ops->post_send;
		provider.post_recv = ops->post_recv;
		provider.post_srq_recv = ops->post_srq_recv;
		provider.poll_cq = ops->poll_cq;
		provider.req_notify_cq = ops->req_notify_cq;
		provider.create_qp_ex = vctx ? vctx->create_qp_ex : NULL;
	} else if (ops->post_send != provider.post_send &&
			ops->post_send != counting_post_send) {
		/* a second provider: its calls would go to the first one's code */
		mixed_providers = 1;
		pthread_mutex_unlock(&provider_lock);
		return;
	}
	pthread_mutex_unlock(&provider_lock);
	if (ops->post_send)
		ops->post_send = counting_post_send;
	if (ops->post_recv)
		ops->post_recv = counting_post_recv;
	if (ops->post_srq_recv)
		ops->post_srq_recv = counting_post_srq_recv;
	if (ops->poll_cq)
		ops->poll_cq = counting_poll_cq;
	if (ops->req_notify_cq)
		ops->req_notify_cq = counting_req_notify_cq;
	if (vctx && vctx->create_qp_ex && provider.create_qp_ex)
		vctx->create_qp_ex = counting_create_qp_ex;
	atomic_fetch_add_explicit(&counts.contexts, 1, memory_order_relaxed);
}

struct ibv_context *ibv_open_device(struct ibv_device *device);

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	static struct ibv_context *(*real_open)(struct ibv_device *);
	struct ibv_context *ctx;

	if (!real_open) {
		real_open = (struct ibv_context *(*)(struct ibv_device *))
			dlsym(RTLD_NEXT, "ibv_open_device");
		if (!real_open) {
			errno = ENOSYS;
			return NULL;
		}
	}
	ctx = real_open(device);
	if (ctx)
		wrap_context(ctx);
	return ctx;
}

/* the next definition of NAME (the library's own), looked up once */
static void *next_symbol(void **cache, const char *name)
{
	void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

/* librpma 1.x's rpma_flush(), its types opaque here (the same calling convention) */
int rpma_flush(void *conn, void *dst, size_t dst_offset, size_t len, int type, int flags,
		const void *op_context);

int rpma_flush(void *conn, void *dst, size_t dst_offset, size_t len, int type, int flags,
		const void *op_context)
{
	static void *next = NULL; /* (set by next_symbol) */
	int (*flush)(void *, void *, size_t, size_t, int, int, const void *) =
		(int (*)(void *, void *, size_t, size_t, int, int, const void *))
		next_symbol(&next, "rpma_flush");

	if (!flush)
		return -100000; /* RPMA_E_UNKNOWN: no librpma in the process (cannot happen) */
	int ret = flush(conn, dst, dst_offset, len, type, flags, op_context);
	if (ret == 0)
		atomic_fetch_add_explicit(&counts.flush_bytes, len, memory_order_relaxed);
	return ret;
}

void pmem_persist(const void *addr, size_t len);

void pmem_persist(const void *addr, size_t len)
{
	static void *next = NULL; /* (set by next_symbol) */
	void (*persist)(const void *, size_t) =
		(void (*)(const void *, size_t))next_symbol(&next, "pmem_persist");

	atomic_fetch_add_explicit(&counts.persist_bytes, len, memory_order_relaxed);
	if (persist)
		persist(addr, len);
}

__attribute__((destructor)) static void write_counts(void)
{
	const char *path = getenv("RPMAFIO_VERBS_COUNT");
	char line[512];
	int len, fd;

	if (!path || !*path)
		return;
	len = snprintf(line, sizeof(line),
		"{\"pid\": %d, \"contexts\": %lu, \"mixed_providers\": %d, "
		"\"post_send_calls\": %lu, \"wr_complete_calls\": %lu, \"send_wrs\": %lu, "
		"\"post_recv_calls\": %lu, \"recv_wrs\": %lu, "
		"\"poll_calls\": %lu, \"completions\": %lu, \"notify_calls\": %lu, "
		"\"flush_bytes\": %lu, \"persist_bytes\": %lu}\n",
		(int)getpid(), atomic_load(&counts.contexts), mixed_providers,
		atomic_load(&counts.post_send_calls), atomic_load(&counts.wr_complete_calls),
		atomic_load(&counts.send_wrs),
		atomic_load(&counts.post_recv_calls), atomic_load(&counts.recv_wrs),
		atomic_load(&counts.poll_calls), atomic_load(&counts.completions),
		atomic_load(&counts.notify_calls), atomic_load(&counts.flush_bytes),
		atomic_load(&counts.persist_bytes));
	if (len <= 0 || (size_t)len >= sizeof(line))
		return;
	/* one write of a whole line, appended: processes sharing the file do not mix */
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "verbs_count: cannot open '%s': %s\n", path, strerror(errno));
		return;
	}
	if (write(fd, line, (size_t)len) != len)
		fprintf(stderr, "verbs_count: cannot write '%s': %s\n", path, strerror(errno));
	close(fd);
}
