/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 11-multithreaded -- one connection shared by several threads.
 *
 * Setting up and tearing down a connection is done from one thread, but
 * posting operations and collecting completions may happen in many threads
 * at once. Here THREADS worker threads of the client each own a slice of the
 * server's memory (and of two local buffers). A worker writes a pattern into
 * its slice and reads the slice back (the read, posted after the write on
 * the same connection, returns what the write put there), ITERS times (25, or
 * the environment's EXAMPLE_ITERS, 1..1000, the same on both sides: fewer keep a
 * run under helgrind short).
 *
 * Only the reads ask for a completion. One thread, the main one, polls the
 * connection's CQ and hands each completion to the worker its op_context
 * names (every worker has op_contexts of its own), under the worker's mutex,
 * and wakes it with a condition variable. The worker then checks the data
 * it read.
 *
 * At the end the server checks that every slice holds its worker's last
 * pattern.
 *
 *   11-multithreaded server ADDR PORT [READY_FILE]
 *   11-multithreaded client ADDR PORT
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/example.h"

#define THREADS 4
#define ITERS iters
#define SLICE 1024
#define REGION_SIZE (THREADS * SLICE)

/* each worker's write-and-read rounds: set by the main thread before any other starts */
static int iters = 25;

static void read_iters(void)
{
	iters = example_env_int("EXAMPLE_ITERS", 1, 1000, 25);
}

static void fill_pattern(uint8_t *buf, int thread, int iter)
{
	for (int j = 0; j < SLICE; j++)
		buf[j] = (uint8_t)(thread * 61 + iter * 7 + j);
}

struct worker;

/* What op_context points to: whose operation it is, and which one. */
struct op {
	struct worker *worker;
	const char *name;
};

struct worker {
	int id;
	pthread_t thread;
	struct rpma_conn *conn;
	struct rpma_mr_remote *rmr;
	struct rpma_mr_local *src_mr, *dst_mr;
	uint8_t *src, *dst; /* this worker's slices */
	struct op write_op, read_op;
	/* the hand-over from the polling thread, under `lock` */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool arrived; /* wc holds a completion not yet taken */
	bool stop;    /* something failed elsewhere: give up */
	struct ibv_wc wc;
	/* the worker's result, read after pthread_join() */
	int failed;
	int iters_done;
};

/* Wait for the polling thread's hand-over, at most EXAMPLE_TIMEOUT_S. */
static int worker_wait(struct worker *w)
{
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += EXAMPLE_TIMEOUT_S;
	int err = 0;
	pthread_mutex_lock(&w->lock);
	while (!w->arrived && !w->stop && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&w->cond, &w->lock, &deadline);
	bool arrived = w->arrived, stop = w->stop;
	struct ibv_wc wc = w->wc;
	w->arrived = false;
	pthread_mutex_unlock(&w->lock);

	if (!arrived) {
		fprintf(stderr, "example: worker %d: %s\n", w->id, stop ?
			"stopped by a failure elsewhere" : "no completion in time");
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RDMA_READ ||
			wc.wr_id != (uintptr_t)&w->read_op) {
		const struct op *op = (const struct op *)(uintptr_t)wc.wr_id;
		fprintf(stderr, "example: worker %d: its %s completed with %s\n", w->id, op->name,
			ibv_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

/* Hand a completion to its worker (the polling thread's side). */
static void worker_hand_over(struct worker *w, const struct ibv_wc *wc)
{
	pthread_mutex_lock(&w->lock);
	w->wc = *wc;
	w->arrived = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	size_t offset = (size_t)w->id * SLICE;
	w->failed = -1;

	for (int it = 0; it < ITERS; it++) {
		fill_pattern(w->src, w->id, it);
		memset(w->dst, 0, SLICE);
		int ret = rpma_write(w->conn, w->rmr, offset, w->src_mr, offset, SLICE,
				RPMA_F_COMPLETION_ON_ERROR, &w->write_op);
		if (ret == 0)
			ret = rpma_read(w->conn, w->dst_mr, offset, w->rmr, offset, SLICE,
					RPMA_F_COMPLETION_ALWAYS, &w->read_op);
		if (ret) {
			example_fail("rpma_write/rpma_read", ret);
			return NULL;
		}
		if (worker_wait(w))
			return NULL;
		if (memcmp(w->dst, w->src, SLICE) != 0) {
			fprintf(stderr, "example: worker %d: iteration %d read back other data\n",
				w->id, it);
			return NULL;
		}
		w->iters_done++;
	}
	w->failed = 0;
	return NULL;
}

/* Wake every worker with `stop` set: something failed. */
static void stop_all(struct worker *workers, int n)
{
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&workers[i].lock);
		workers[i].stop = true;
		pthread_cond_signal(&workers[i].cond);
		pthread_mutex_unlock(&workers[i].lock);
	}
}

/*
 * The polling thread: collect THREADS * ITERS read completions (a failed
 * write would complete too) and hand each to its worker.
 */
static int poll_and_dispatch(struct rpma_cq *cq)
{
	int fd, ret = rpma_cq_get_fd(cq, &fd);
	if (ret)
		return example_fail("rpma_cq_get_fd", ret);

	for (int got = 0; got < THREADS * ITERS;) {
		struct ibv_wc wc[THREADS];
		int n = 0;
		ret = rpma_cq_get_wc(cq, THREADS, wc, &n);
		if (ret == RPMA_E_NO_COMPLETION) {
			if (example_wait_readable(fd, "a completion"))
				return -1;
			if ((ret = rpma_cq_wait(cq)))
				return example_fail("rpma_cq_wait", ret);
			continue;
		}
		if (ret)
			return example_fail("rpma_cq_get_wc", ret);
		for (int i = 0; i < n; i++) {
			const struct op *op = (const struct op *)(uintptr_t)wc[i].wr_id;
			if (op == NULL) {
				fprintf(stderr, "example: a completion without op_context\n");
				return -1;
			}
			worker_hand_over(op->worker, &wc[i]);
			if (wc[i].status != IBV_WC_SUCCESS)
				return -1;
		}
		got += n;
	}
	return 0;
}

static int run_client(struct rpma_peer *peer, int argc, char *argv[])
{
	(void)argc;
	static uint8_t src[REGION_SIZE], dst[REGION_SIZE];
	static struct worker workers[THREADS];
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_mr_local *src_mr = NULL, *dst_mr = NULL;
	struct rpma_mr_remote *rmr = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pdata;
	struct rpma_cq *cq = NULL;
	size_t remote_size = 0;
	int started = 0, ret, failed = -1;

	read_iters();
	/* room for every worker's write and read at once */
	if ((ret = rpma_conn_cfg_new(&cfg)) ||
			(ret = rpma_conn_cfg_set_sq_size(cfg, 4 * THREADS)) ||
			(ret = rpma_conn_cfg_set_cq_size(cfg, 4 * THREADS)) ||
			(ret = rpma_mr_reg(peer, src, sizeof(src), RPMA_MR_USAGE_WRITE_SRC, &src_mr)) ||
			(ret = rpma_mr_reg(peer, dst, sizeof(dst), RPMA_MR_USAGE_READ_DST, &dst_mr))) {
		example_fail("setting up", ret);
		goto out;
	}
	if (example_client_connect(peer, argv[2], argv[3], cfg, NULL, &conn))
		goto out;
	if ((ret = rpma_conn_get_private_data(conn, &pdata)) || pdata.len < 21 ||
			(ret = rpma_mr_remote_from_descriptor(pdata.ptr, 21, &rmr)) ||
			(ret = rpma_mr_remote_get_size(rmr, &remote_size)) ||
			(ret = rpma_conn_get_cq(conn, &cq))) {
		example_fail("reading the server's memory descriptor", ret ? ret : RPMA_E_INVAL);
		goto out;
	}
	if (remote_size < REGION_SIZE) {
		fprintf(stderr, "example: the server's memory is too small\n");
		goto out;
	}

	for (started = 0; started < THREADS; started++) {
		struct worker *w = &workers[started];
		*w = (struct worker){.id = started, .conn = conn, .rmr = rmr, .src_mr = src_mr,
			.dst_mr = dst_mr, .src = src + started * SLICE, .dst = dst + started * SLICE,
			.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
		w->write_op = (struct op){w, "write"};
		w->read_op = (struct op){w, "read"};
		if ((errno = pthread_create(&w->thread, NULL, worker_main, w))) {
			perror("example: pthread_create");
			break;
		}
	}
	if (started == THREADS && poll_and_dispatch(cq) == 0)
		failed = 0;
	else
		stop_all(workers, started);

	for (int i = 0; i < started; i++) {
		pthread_join(workers[i].thread, NULL);
		pthread_cond_destroy(&workers[i].cond);
		pthread_mutex_destroy(&workers[i].lock);
		if (workers[i].failed)
			failed = -1;
	}
	if (!failed)
		printf("client: %d threads x %d write+read rounds on one connection, "
			"all data read back intact\n", THREADS, ITERS);
out:
	if (conn && example_disconnect(&conn))
		failed = -1;
	rpma_mr_remote_delete(&rmr);
	rpma_mr_dereg(&dst_mr);
	rpma_mr_dereg(&src_mr);
	rpma_conn_cfg_delete(&cfg);
	return failed;
}

static int run_server(struct rpma_peer *peer, int argc, char *argv[])
{
	static uint8_t mem[REGION_SIZE];
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn *conn = NULL;
	uint8_t desc[21];
	int ret, failed = -1;

	read_iters();
	if ((ret = rpma_mr_reg(peer, mem, sizeof(mem), RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_READ_SRC, &mr)) || (ret = rpma_mr_get_descriptor(mr, desc)))
		return example_fail("registering the memory", ret);
	struct rpma_conn_private_data pdata = {desc, sizeof(desc)};
	if (example_server_accept(peer, argv[2], argv[3], NULL, &pdata, argc > 4 ? argv[4] : NULL,
			&conn) || example_wait_disconnect(&conn))
		goto out;
	failed = 0;
	for (int t = 0; t < THREADS; t++) {
		uint8_t expected[SLICE];
		fill_pattern(expected, t, ITERS - 1);
		if (memcmp(mem + t * SLICE, expected, SLICE) != 0) {
			fprintf(stderr, "example: slice %d does not hold its last pattern\n", t);
			failed = -1;
		}
	}
	if (!failed)
		printf("server: all %d slices hold their thread's last pattern\n", THREADS);
out:
	rpma_mr_dereg(&mr);
	return failed;
}

int main(int argc, char *argv[])
{
	return example_main(argc, argv, "server|client ADDR PORT [READY_FILE]", run_server, run_client);
}
