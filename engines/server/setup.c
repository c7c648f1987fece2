/* SPDX-License-Identifier: BSD-3-Clause */
/* setup.c -- a server's memory, registration, listening and accepting, and its
 * tear-down (see server.h) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "common/method.h"
#include "common/report.h"
#include "server.h"

/*
 * Lock the job's bytes of path before mapping them: two server jobs of one
 * fio, or two fio processes, would otherwise hand the same bytes to two
 * clients without a word (sections of different sizes overlap in the
 * i * size layout; two servers of one device both start at 0).
 */
static int claim_region(struct rpmafio_server *s, const char *path, uint64_t start)
{
	struct rpmafio_job *job = &s->job;
	struct rpmafio_byte_range held = {0};
	char why[RPMAFIO_ERR_LEN], held_end[32], past_it[64] = "";
	const unsigned long long end = (unsigned long long)start + job->size;

	switch (rpmafio_region_lock_new(path, start, job->size, &s->lock, &held, why,
			sizeof(why))) {
	case RPMAFIO_REGION_LOCK_TAKEN:
		rpmafio_debug(job, "bytes [%llu, %llu) of %s locked", (unsigned long long)start,
			end, path);
		return 0;
	case RPMAFIO_REGION_LOCK_HELD:
		if (held.end == RPMAFIO_RANGE_TO_END) {
			snprintf(held_end, sizeof(held_end), "the end");
		} else {
			snprintf(held_end, sizeof(held_end), "%llu", (unsigned long long)held.end);
			snprintf(past_it, sizeof(past_it), " (e.g. mem_offset=%llu)",
				(unsigned long long)held.end);
		}
		/* (OFD locks name no process: l_pid is -1) */
		return rpmafio_fail(job, EBUSY, "filename=%s: this job's bytes [%llu, %llu) overlap "
			"bytes [%llu, %s) held by another server job or process: give each server "
			"its own range with mem_offset=%s or change size=", path,
			(unsigned long long)start, end, (unsigned long long)held.start, held_end,
			past_it);
	case RPMAFIO_REGION_LOCK_FAILED:
	default:
		return rpmafio_fail(job, EINVAL, "filename=%s: %s", path, why);
	}
}

int rpmafio_server_map(struct rpmafio_server *s)
{
	struct rpmafio_job *job = &s->job;
	char why[RPMAFIO_ERR_LEN];
	uint64_t start = 0;

	if (job->filename == NULL)
		return rpmafio_fail(job, EINVAL, "a server job exposes exactly one filename= "
			"(malloc, a device-DAX path or a file), not %u", job->nr_files);
	if (job->size == 0)
		return rpmafio_fail(job, EINVAL, "size= is not set: give the memory size of "
			"each server job (e.g. size=64m)");

	const char *path = job->filename;
	const struct rpmafio_region_vals where = {
		.path = path,
		.dram = strcmp(path, RPMAFIO_MEM_DRAM) == 0,
		.mem_offset = job->o->mem_offset,
		.kb_base = job->kb_base,
		.size = job->size,
		.job_index = job->index,
		.subjob_index = job->subjob_index,
	};
	switch (rpmafio_region_start(&where, &start, why, sizeof(why))) {
	case RPMAFIO_REGION_DRAM:
		break; /* the job's own: nobody to keep out */
	case RPMAFIO_REGION_BY_JOB_INDEX:
	case RPMAFIO_REGION_FROM_MEM_OFFSET:
		if (claim_region(s, path, start))
			return -1;
		break;
	case RPMAFIO_REGION_INVALID:
	default:
		return rpmafio_fail(job, EINVAL, "%s", why);
	}
	if (rpmafio_mem_map(path, job->size, start, &s->mem, why, sizeof(why))) {
		rpmafio_region_lock_delete(&s->lock); /* nothing mapped: the bytes are free */
		return rpmafio_fail(job, EINVAL, "filename=%s: %s", path, why);
	}
	if (job->o->direct_write_to_pmem && !s->mem.is_pmem)
		rpmafio_note(job, "direct_write_to_pmem=1 but %s is not persistent memory: "
			"clients will flush, but the data is not persistent", path);
	return 0;
}

int rpmafio_server_open_peer(struct rpmafio_server *s)
{
	struct rpmafio_job *job = &s->job;
	const char *addr = job->o->serverip;
	char buf[128];
	int ret;

	if ((ret = rpma_utils_get_ibv_context(addr, RPMA_UTIL_IBV_CONTEXT_LOCAL, &s->dev)))
		return rpmafio_fail(job, EADDRNOTAVAIL, "serverip=%s: no local RDMA device has "
			"this address: %s", addr, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpma_peer_new(s->dev, &s->peer)))
		return rpmafio_fail(job, ENODEV, "rpma_peer_new: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

int rpmafio_server_register_range(struct rpmafio_server *s, struct rpma_peer *peer, char *ptr,
		size_t len, int usage, uint16_t max_msg_num, struct rpma_mr_local **mr,
		uint8_t ws_bytes[RPMAFIO_WS_SIZE])
{
	struct rpmafio_job *job = &s->job;
	size_t desc_size = 0;
	char buf[128];
	int ret;

	if ((ret = rpma_mr_reg(peer, ptr, len, usage, mr))) {
		char hint[160];
		(void)rpmafio_memlock_hint(errno, hint, sizeof(hint));
		return rpmafio_fail(job, EIO, "cannot register the %s memory (%zu bytes) for "
			"RDMA: %s%s", rpmafio_mem_kind_str(s->mem.kind), len,
			rpmafio_rpma_err(ret, buf, sizeof(buf)), hint);
	}
	if ((ret = rpma_mr_get_descriptor_size(*mr, &desc_size)))
		return rpmafio_fail(job, EIO, "rpma_mr_get_descriptor_size: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (desc_size > RPMAFIO_WS_DESC_MAX)
		return rpmafio_fail(job, EPROTO, "the memory descriptor is %zu bytes, more than "
			"the workspace holds (%d)", desc_size, RPMAFIO_WS_DESC_MAX);

	struct rpmafio_ws ws = {
		.max_msg_num = max_msg_num,
		.direct_write_to_pmem = job->o->direct_write_to_pmem != 0,
		.mr_desc_size = (uint8_t)desc_size,
		/* a server taking flush requests is our GPSPM one: it offers ranged ones too */
		.ranged_flush = max_msg_num > 0,
		.packed_ranges = max_msg_num > 0,
	};
	if ((ret = rpma_mr_get_descriptor(*mr, ws.mr_desc)))
		return rpmafio_fail(job, EIO, "rpma_mr_get_descriptor: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	/* a client may post native FLUSHes only if the registration has flush access */
	if ((ret = rpma_mr_get_flush_native(*mr, &ws.flush_native)))
		return rpmafio_fail(job, EIO, "rpma_mr_get_flush_native: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	rpmafio_debug(job, "the memory takes a native FLUSH: %s", ws.flush_native ? "yes" : "no");
	if (rpmafio_ws_encode(&ws, ws_bytes))
		return rpmafio_fail(job, EPROTO, "cannot encode the workspace");
	return 0;
}

int rpmafio_server_register(struct rpmafio_server *s, int usage, uint16_t max_msg_num)
{
	if (rpmafio_server_open_peer(s))
		return -1;
	return rpmafio_server_register_range(s, s->peer, s->mem.ptr, s->mem.size, usage,
		max_msg_num, &s->mr, s->ws_bytes);
}

int rpmafio_server_listen(struct rpmafio_server *s)
{
	struct rpmafio_job *job = &s->job;
	char buf[128];
	int ret;

	if ((ret = rpma_ep_listen(s->peer, job->o->serverip, job->port, &s->ep)))
		return rpmafio_fail(job, EADDRINUSE, "cannot listen on %s:%s: %s",
			job->o->serverip, job->port, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	rpmafio_note(job, "listening on %s:%s (%zu bytes of %s memory)", job->o->serverip,
		job->port, s->mem.size, rpmafio_mem_kind_str(s->mem.kind));
	return 0;
}

/*
 * May this request's client connect? Decided from what arrived with the
 * request alone: its address and its private data. A refusal is a note, so
 * the owner of the server sees who tried (never the secret sent).
 */
bool rpmafio_server_admits(struct rpmafio_server *s, const struct rpma_conn_req *req)
{
	struct rpmafio_job *job = &s->job;
	struct rpma_conn_private_data pdata = {NULL, 0};
	struct sockaddr_storage addr;
	char who[RPMAFIO_ADDR_STR_LEN], buf[128];
	int ret;

	if ((ret = rpma_conn_req_get_peer_addr(req, &addr))) {
		rpmafio_note(job, "refused a connection request from an unknown address: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return false;
	}
	rpmafio_addr_str(&addr, who, sizeof(who));
	if (!rpmafio_allow_admits(&s->allow, &addr)) {
		rpmafio_note(job, "refused a connection from %s: not in allow_clients=%s", who,
			job->o->allow_clients);
		return false;
	}
	if ((ret = rpma_conn_req_get_private_data(req, &pdata))) {
		rpmafio_note(job, "refused a connection from %s: its private data: %s", who,
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return false;
	}
	enum rpmafio_auth_verdict v = rpmafio_secret_check(&job->secret, pdata.ptr, pdata.len);
	if (v != RPMAFIO_AUTH_OK) {
		rpmafio_note(job, "refused a connection from %s: %s", who,
			rpmafio_auth_verdict_str(v));
		return false;
	}
	rpmafio_debug(job, "admitted a connection request from %s", who);
	return true;
}

int rpmafio_server_next_request(struct rpmafio_server *s, const struct rpmafio_queues *q,
		struct rpma_conn_req **req)
{
	struct rpmafio_job *job = &s->job;
	struct rpma_conn_cfg *cfg = NULL;
	char buf[128];
	int ret, fd;

	if ((ret = rpma_ep_get_fd(s->ep, &fd)))
		return rpmafio_fail(job, EIO, "rpma_ep_get_fd: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpmafio_queues_cfg(q, &cfg)))
		return rpmafio_fail(job, EINVAL, "queue sizes for iodepth=%u: %s",
			job->iodepth, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	while (*req == NULL) {
		if (rpmafio_wait_fd(fd, -1, job->stop) != RPMAFIO_FD_READABLE) {
			rpmafio_fail(job, ECANCELED, "stopped before a client connected");
			break;
		}
		if ((ret = rpma_ep_next_conn_req(s->ep, cfg, req))) {
			if (rpmafio_server_request_lost(s, ret) == RPMAFIO_LISTEN_ON)
				continue;
			break;
		}
		s->requests_lost = 0;
		if (!rpmafio_server_admits(s, *req))
			(void) rpma_conn_req_delete(req); /* rejects it; *req is NULL again */
	}
	(void) rpma_conn_cfg_delete(&cfg);
	return *req ? 0 : -1;
}

enum rpmafio_request_loss rpmafio_server_request_lost(struct rpmafio_server *s, int ret)
{
	char buf[128];

	if (ret == RPMA_E_NO_EVENT)
		return RPMAFIO_LISTEN_ON;
	rpmafio_rpma_err(ret, buf, sizeof(buf));
	if (++s->requests_lost >= RPMAFIO_REQUESTS_LOST_MAX) {
		rpmafio_fail(&s->job, EIO, "cannot take a client's connection request "
			"(%u in a row): %s", s->requests_lost, buf);
		return RPMAFIO_LISTEN_FAILED;
	}
	rpmafio_note(&s->job, "lost a client's connection request (%s): refused it, listening on",
		buf);
	return RPMAFIO_LISTEN_ON;
}

int rpmafio_server_accept(struct rpmafio_server *s, struct rpma_conn_req **req)
{
	struct rpmafio_job *job = &s->job;
	struct rpma_conn_private_data pdata = {s->ws_bytes, RPMAFIO_WS_SIZE};
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	char buf[128];
	int ret, fd;

	if ((ret = rpma_conn_req_connect(req, &pdata, &s->conn)))
		return rpmafio_fail(job, ECONNABORTED, "cannot accept the client's connection: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if ((ret = rpma_conn_get_event_fd(s->conn, &fd)))
		return rpmafio_fail(job, EIO, "rpma_conn_get_event_fd: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	enum rpmafio_fd_wait w = rpmafio_wait_fd(fd, (int)job->o->connect_timeout, job->stop);
	if (w == RPMAFIO_FD_READABLE && (ret = rpma_conn_next_event(s->conn, &ev)))
		return rpmafio_fail(job, EIO, "rpma_conn_next_event: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (ev != RPMA_CONN_ESTABLISHED)
		return rpmafio_fail(job, ECONNABORTED, "the client's connection was not "
			"established within connect_timeout=%u ms (%s)", job->o->connect_timeout,
			w == RPMAFIO_FD_READABLE ? rpma_utils_conn_event_2str(ev) : "no event");
	(void) rpma_ep_shutdown(&s->ep);
	rpmafio_debug(job, "a client connected");
	if ((ret = rpma_conn_get_cq(s->conn, &s->cq)) ||
			(ret = rpmafio_poll_init(&s->poll, s->conn, s->cq,
				(enum rpmafio_poll_mode)job->o->busy_wait_polling)))
		return rpmafio_fail(job, EIO, "the connection's completion queue: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return 0;
}

enum rpmafio_poll_step rpmafio_server_call_failed(struct rpmafio_server *s, const char *call,
		int ret)
{
	char buf[128];
	rpmafio_fail(&s->job, EIO, "%s: %s", call, rpmafio_rpma_err(ret, buf, sizeof(buf)));
	return RPMAFIO_POLL_FAILED;
}

void rpmafio_server_disconnect(struct rpmafio_server *s)
{
	if (s->hub)
		s->hub_teardown->disconnect(s->hub);
	if (s->conn) {
		(void) rpma_conn_disconnect(s->conn);
		(void) rpma_conn_delete(&s->conn);
	}
	(void) rpma_ep_shutdown(&s->ep);
}

void rpmafio_server_release(struct rpmafio_server *s)
{
	char buf[128];
	int ret;

	if (s->hub && !s->hub_teardown->release(&s->hub)) {
		rpmafio_note(&s->job, "cannot deregister a client's bytes of the %s memory; it "
			"stays mapped (memory still registered is never freed)",
			rpmafio_mem_kind_str(s->mem.kind));
		return;
	}
	if (s->mr && (ret = rpma_mr_dereg(&s->mr))) {
		rpmafio_note(&s->job, "cannot deregister the %s memory: %s; it stays mapped "
			"(memory still registered is never freed)",
			rpmafio_mem_kind_str(s->mem.kind), rpmafio_rpma_err(ret, buf, sizeof(buf)));
		return;
	}
	(void) rpma_peer_delete(&s->peer);
	rpmafio_mem_unmap(&s->mem);
	/* only now, neither registered nor mapped, may another server take the bytes */
	rpmafio_region_lock_delete(&s->lock);
}
