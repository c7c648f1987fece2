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
 * Everything but the APM specifics lives in engines/common/ (see engine.h).
 */
#include <errno.h>

#include "common/engine.h"
#include "common/io.h"

/* Queue sizes: every I/O is one work request, every batch adds at most one flush. */
static int apm_client_conn_cfg(struct rpmafio_job *job, struct rpma_conn_cfg *cfg)
{
	uint32_t n = rpmafio_sq_size(job->client.depth);
	char buf[128];
	int ret;

	if ((ret = rpma_conn_cfg_set_sq_size(cfg, n)) || (ret = rpma_conn_cfg_set_cq_size(cfg, n)))
		return rpmafio_fail(job, EINVAL, "queue sizes for iodepth=%u: %s", job->client.depth,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

/*
 * Decide the flush type: persistent when the server advertises direct write
 * to PMem and its memory allows persistent flushes, visibility otherwise.
 */
static int apm_client_connected(struct rpmafio_job *job)
{
	struct rpmafio_client *c = &job->client;
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
		c->flush_type = RPMA_FLUSH_TYPE_PERSISTENT;
	} else {
		c->flush_type = RPMA_FLUSH_TYPE_VISIBILITY;
		if (job->index == 0)
			rpmafio_note(job, "the server does not advertise direct write to PMem: "
				"writes are flushed for visibility, which does not make them "
				"persistent (fine for DRAM and for trying things out)");
	}
	return 0;
}

/* one flush after the batch's writes; its completion completes the batch */
static int apm_flush(struct rpmafio_job *job, uint64_t offset, uint64_t len, struct io_u *last)
{
	struct rpmafio_client *c = &job->client;
	int ret = rpma_flush(c->conn, c->server_mr, offset, len, c->flush_type,
		RPMA_F_COMPLETION_ALWAYS, last);
	if (ret) {
		char buf[128];
		return rpmafio_fail(job, EIO, "cannot post a flush of %llu bytes at offset %llu: %s",
			(unsigned long long)len, (unsigned long long)offset,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	}
	return 0;
}

/* every signalled operation carries the io_u it completes as its context */
static int apm_completion(struct rpmafio_job *job, const struct ibv_wc *wc, struct io_u **last)
{
	(void)job;
	switch (wc->opcode) {
	case IBV_WC_SEND:
	case IBV_WC_RECV:
	case IBV_WC_RECV_RDMA_WITH_IMM:
		return -1; /* APM sends no messages */
	default:
		*last = (struct io_u *)(uintptr_t)wc->wr_id;
		return 1;
	}
}

static const struct rpmafio_engine apm = {
	.name = "librpma_apm",
	.client = {
		.conn_cfg = apm_client_conn_cfg,
		.connected = apm_client_connected,
		.flush = apm_flush,
		.completion = apm_completion,
	},
	.server = {
		/* nothing to do while the client writes and reads on its own */
		.queue = rpmafio_serve_until_disconnect,
		.remote_flush = true,
	},
};

static int apm_init(struct thread_data *td)
{
	return rpmafio_init(td, &apm);
}

RPMAFIO_IOENGINE_OPS("librpma_apm", apm_init);
