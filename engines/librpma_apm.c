/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librpma_apm.c -- fio engine for the Appliance Persistency Method (APM).
 *
 * The client writes to the server's memory with RDMA writes and makes them
 * durable with an RDMA flush (librpma: native, or emulated by an RDMA read
 * that completes only once every earlier write is placed); reads are RDMA
 * reads. The server's CPU takes no part in the I/O: a server job only
 * exposes its memory and waits for its client to leave.
 *
 *   fio jobs/apm-server.fio                                        # server
 *   fio --ioengine=external:build/librpma_apm.so jobs/write.fio    # client
 *
 * The protocol, in the order it runs (the steps themselves are in client/
 * and server/; fio/engine.c calls these hooks for fio):
 *
 *   server  map the memory, register it for the client's writes, reads and
 *           flushes, listen, accept the client with the workspace; serve =
 *           wait until the client leaves, probing it when it has been silent
 *           for keepalive ms (a lost host or link says nothing: server/keepalive.h)
 *   client  connect; from the workspace, the flush type (persistent or
 *           visibility) and the flush path (the device's own RDMA FLUSH when
 *           both ends can take it and native_flush allows, else an RDMA read);
 *           post each batch's reads and writes, then its flush: a native
 *           FLUSH per written range (client/io.c, client/ranges.h; 32 bits of
 *           length each, so a longer range takes several), or one emulating
 *           read, only the last signalled; its completion completes the batch;
 *           disconnect; say how the flushes completed
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "client/client.h"
#include "common/flush_path.h"
#include "common/method.h"
#include "common/report.h"
#include "server/server.h"

/* ---- server ---- */

static int apm_server_init(struct rpmafio_server *s)
{
	/*
	 * least access: the client writes to it and reads from it, and flushes
	 * it itself (the emulated flush is a read); persistent flushes only when
	 * writes reach persistence directly
	 */
	int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
		(s->job.o->direct_write_to_pmem ? RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT :
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	struct rpma_conn_req *req = NULL;

	if (s->job.o->clients_per_job > 1)
		return rpmafio_fail(&s->job, EINVAL, "clients_per_job=%u: an APM server job serves "
			"one client (its CPU takes no part in the I/O: run numjobs=%u); serving several "
			"from one thread is GPSPM's (librpma_gpspm)", s->job.o->clients_per_job,
			s->job.o->clients_per_job);
	if (rpmafio_server_map(s) || rpmafio_server_register(s, usage, 0) ||
			rpmafio_server_listen(s) || rpmafio_server_next_request(s, NULL, &req))
		return -1;
	return rpmafio_server_accept(s, &req);
}

/* nothing to do while the client writes, reads and flushes on its own */
static int apm_server_serve(struct rpmafio_server *s)
{
	return rpmafio_server_serve(s, NULL);
}

/* ---- client ---- */

/* a native FLUSH's completion opcode (IBV_WC_FLUSH, rdma-core >= 45) */
#define APM_WC_FLUSH ((enum ibv_wc_opcode)8)

/* how every batch is flushed (decided once, from the workspace), and the count */
struct apm_client {
	enum rpma_flush_type flush_type;
	enum rpmafio_flush_path path;
	uint64_t flushes;		/* signalled: one per batch */
	uint64_t native_flushes;	/* completed as the device's own FLUSH */
	uint64_t unsignalled_flushes;	/* ahead of the last: other ranges, pieces of long ones */
};

/*
 * Persistent when the server advertises direct write to PMem and its memory
 * allows persistent flushes, visibility otherwise.
 */
static int choose_flush_type(struct rpmafio_client *c, enum rpma_flush_type *type)
{
	struct rpmafio_job *job = &c->job;
	struct rpma_peer_cfg *pcfg = NULL;
	char buf[128];
	int usage = 0, ret;

	if ((ret = rpma_mr_remote_get_flush_type(c->server_mr, &usage)))
		return rpmafio_fail(job, EPROTO, "rpma_mr_remote_get_flush_type: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (!(usage & (RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)))
		return rpmafio_fail(job, EPROTO, "the server's memory allows no flush at all");

	if ((ret = rpma_peer_cfg_new(&pcfg)) ||
			(ret = rpma_peer_cfg_set_direct_write_to_pmem(pcfg,
				c->ws.direct_write_to_pmem)) ||
			(ret = rpma_conn_apply_remote_peer_cfg(c->conn, pcfg))) {
		(void) rpma_peer_cfg_delete(&pcfg);
		return rpmafio_fail(job, EPROTO, "applying the server's configuration: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	}
	(void) rpma_peer_cfg_delete(&pcfg);

	if (c->ws.direct_write_to_pmem && (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)) {
		*type = RPMA_FLUSH_TYPE_PERSISTENT;
		return 0;
	}
	*type = RPMA_FLUSH_TYPE_VISIBILITY;
	if (job->index == 0)
		rpmafio_note(job, "the server does not advertise direct write to PMem: writes "
			"are flushed for visibility, which does not make them persistent (fine for "
			"DRAM and for trying things out)");
	return 0;
}

/*
 * Native FLUSH or the emulation: the server's flags byte says whether its
 * registration takes a native FLUSH; the library says whether this device
 * executes one once the region is vouched for.
 */
static int choose_flush_path(struct rpmafio_client *c, enum rpmafio_flush_path *path)
{
	struct rpmafio_job *job = &c->job;
	bool device_executes = false;
	char buf[128], why[256];
	int ret;

	if (c->ws.flush_native && job->o->native_flush != RPMAFIO_NATIVE_FLUSH_OFF) {
		if ((ret = rpma_mr_remote_set_flush_native(c->server_mr)) ||
				(ret = rpma_conn_get_flush_native(c->conn, c->server_mr,
					&device_executes)))
			return rpmafio_fail(job, EPROTO, "the server's native FLUSH: %s",
				rpmafio_rpma_err(ret, buf, sizeof(buf)));
	}
	*path = rpmafio_flush_path(job->o->native_flush, c->ws.flush_native, device_executes,
		why, sizeof(why));
	if (*path == RPMAFIO_FLUSH_REFUSED)
		return rpmafio_fail(job, EOPNOTSUPP, "native_flush=1: %s", why);
	return 0;
}

/* every I/O is one work request, every batch adds at most one flush */
static int apm_client_init(struct rpmafio_client *c)
{
	uint32_t n = rpmafio_sq_size(c->depth);
	struct rpmafio_queues q = {.sq = n, .cq = n};

	struct apm_client *a = calloc(1, sizeof(*a));
	if (a == NULL)
		return rpmafio_fail(&c->job, ENOMEM, "no memory for the client's state");
	c->priv = a;
	if (rpmafio_client_connect(c, &q) || choose_flush_type(c, &a->flush_type))
		return -1;
	return choose_flush_path(c, &a->path);
}

/*
 * The longest native FLUSH: its length is 32 bits (librpma refuses more rather
 * than let it be cut short), rounded down to whole 4-KiB pages so that every
 * piece of a longer range but the last is page-aligned in length.
 */
#define APM_NATIVE_FLUSH_MAX ((uint64_t)UINT32_MAX & ~(uint64_t)4095)

/*
 * The batch's flush after its writes; its completion completes the batch. A
 * native FLUSH per written range, a range longer than one carries in several,
 * in order, only the very last signalled (the others report errors only);
 * client/io.c posts them all in the batch's chain. The emulating read sends
 * none of the length: one flush takes any span.
 */
/* (apart: its message buffer would cost every flush a stack guard) */
static __attribute__((noinline, cold)) int apm_flush_failed(struct rpmafio_client *c,
	uint64_t piece, uint64_t at, int ret)
{
	char buf[128];
	return rpmafio_fail(&c->job, EIO, "cannot post a flush of %llu bytes at offset %llu: %s",
		(unsigned long long)piece, (unsigned long long)at,
		rpmafio_rpma_err(ret, buf, sizeof(buf)));
}

/* one flush operation; counted as signalled (the batch's completion) or not */
static inline __attribute__((always_inline)) int apm_post_flush(struct rpmafio_client *c,
	uint64_t offset, uint64_t len, bool signalled, struct rpmafio_io *last)
{
	struct apm_client *a = c->priv;
	int ret = rpma_flush(c->conn, c->server_mr, offset, len, a->flush_type,
		signalled ? RPMA_F_COMPLETION_ALWAYS : RPMA_F_COMPLETION_ON_ERROR, last);

	if (ret)
		return apm_flush_failed(c, len, offset, ret);
	if (signalled)
		a->flushes++;
	else
		a->unsignalled_flushes++;
	return 0;
}

/*
 * A native FLUSH per range, each in pieces of at most APM_NATIVE_FLUSH_MAX,
 * the last piece of the last range signalled, every other one reporting
 * errors only. (Out of the path: the emulated flush's stays short enough to
 * be inlined where the client posts.)
 */
static __attribute__((noinline)) int apm_flush_native(struct rpmafio_client *c,
	const struct rpmafio_ranges *rl, struct rpmafio_io *last)
{
	for (uint32_t i = 0; i < rl->n; i++) {
		uint64_t offset = rl->r[i].offset, len = rl->r[i].len;
		for (;;) {
			const bool final = len <= APM_NATIVE_FLUSH_MAX;
			const uint64_t piece = final ? len : APM_NATIVE_FLUSH_MAX;
			if (apm_post_flush(c, offset, piece, final && i + 1 == rl->n, last))
				return -1;
			if (final)
				break;
			offset += piece;
			len -= piece;
		}
	}
	return 0;
}

/*
 * A native FLUSH per written range, chained in the batch's post (client/io.c):
 * the RNIC persists exactly the bytes written. The emulating read makes every
 * write before it durable whatever it names: one, over the span (what it
 * makes durable, and what is counted, is still the ranges). Always inlined
 * where the client posts: a call and its frame were ~25 instructions an I/O.
 */
inline __attribute__((always_inline)) int rpmafio_method_flush(struct rpmafio_client *c,
	struct rpmafio_ranges *rl, struct rpmafio_io *last)
{
	struct apm_client *a = c->priv;

	if (a->path == RPMAFIO_FLUSH_NATIVE)
		return apm_flush_native(c, rl, last);
	return apm_post_flush(c, rpmafio_ranges_start(rl), rpmafio_ranges_span(rl), true, last);
}

/* every signalled operation carries the I/O it completes as its context */
inline enum rpmafio_completion rpmafio_method_completion(struct rpmafio_client *c,
	const struct ibv_wc *wc, struct rpmafio_io **last)
{
	if (wc->opcode == APM_WC_FLUSH) {
		struct apm_client *a = c->priv;
		a->native_flushes++;
	}
	switch (wc->opcode) {
	case IBV_WC_SEND:
	case IBV_WC_RECV:
	case IBV_WC_RECV_RDMA_WITH_IMM:
		return RPMAFIO_COMPLETES_UNKNOWN; /* APM sends no messages */
	default:
		*last = (struct rpmafio_io *)(uintptr_t)wc->wr_id;
		return RPMAFIO_COMPLETES_IO;
	}
}

/*
 * The path every flush took, counted from the completions: the proof a
 * qualification needs that the device's own FLUSH ran (or did not).
 */
static void apm_client_finish(struct rpmafio_client *c)
{
	const struct apm_client *a = c->priv;
	if (a == NULL || a->flushes == 0)
		return;
	char split[128] = "";
	if (a->unsignalled_flushes)
		snprintf(split, sizeof(split), " (and %llu unsignalled ahead of them: a batch's "
			"other ranges, pieces of longer ones)", (unsigned long long)a->unsignalled_flushes);
	rpmafio_note(&c->job, "%llu flushes: %llu completed as the device's own RDMA FLUSH, "
		"%llu as the emulating RDMA read%s", (unsigned long long)a->flushes,
		(unsigned long long)a->native_flushes,
		(unsigned long long)(a->flushes - a->native_flushes), split);
}

static void apm_client_cleanup(struct rpmafio_client *c)
{
	free(c->priv);
	c->priv = NULL;
}

const char rpmafio_engine_name[] = "librpma_apm";

const struct rpmafio_method rpmafio_engine_method = {
	.name = rpmafio_engine_name,
	.client = {
		.init = apm_client_init,
		.finish = apm_client_finish,
		.cleanup = apm_client_cleanup,
	},
	.server = {
		.init = apm_server_init,
		.serve = apm_server_serve,
	},
};
