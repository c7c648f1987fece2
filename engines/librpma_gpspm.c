/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librpma_gpspm.c -- fio engine for the General Purpose Server Persistency
 * Method (GPSPM): the method fio/engine.c calls for fio, and in this comment
 * its protocol. Each role is a file of gpspm/.
 *
 * The client writes to the server's memory with RDMA writes, then asks the
 * server to make them persistent: it SENDs a flush request (offset, length,
 * op_context: gpspm/gpspm_flush.proto) after the writes, and the server,
 * which receives it only once those writes are placed (an RC connection
 * delivers in order), persists the range with libpmem2 and SENDs back a
 * response carrying the same op_context. Reads are plain RDMA reads. The
 * messages are those of fio 3.33's librpma_gpspm engines: either side works
 * with theirs.
 *
 *   fio jobs/gpspm-server.fio                                         # server
 *   fio --ioengine=external:build/librpma_gpspm.so jobs/randwrite.fio  # client
 *
 * The protocol, in the order it runs (shared steps in client/ and server/;
 * a message's work request id is a tag and its buffer: gpspm/wr_id.h):
 *
 * Server (gpspm/server.c). Map the memory and register it for the client's
 * writes and reads only; advertise max_msg_num = iodepth in the workspace;
 * listen (the workspace's flags: takes ranged flush requests); take the
 * client's request and post a receive in every slot before
 * accepting it. Serve: each request is validated (gpspm/msg.h: a malformed,
 * truncated or unknown message, or a range outside the workspace, ends the
 * connection with the reason logged; nothing outside the workspace is ever
 * touched), persisted (libpmem2's persist function of the mapping: CPU cache
 * flushes for PMem, msync for a plain file; nothing for DRAM), its receive
 * posted again and a response sent (gpspm/requests.c). Requests wait in a
 * queue while every send buffer is in flight (gpspm/server_slots.h). It
 * serves until the client sends its last message or goes.
 *
 * Hub (gpspm/hub.c: clients_per_job above 1, server/hub.h). One server job
 * serves its n clients from one thread, each on its own port and bytes, in
 * a protection domain of its own: each client's requests land in its own
 * receive queue (all completing on one CQ) and are served as above, a
 * request per client in turn, each answered on its client's connection. A
 * client that breaks the protocol is cut off; the others are served on.
 *
 * Client (gpspm/client.c). Connect with room for a SEND per batch and a
 * receive per slot; check the server takes as many flush requests at once as
 * this job may send; post a receive in every slot. Every batch of writes (one
 * write with sync=1) gets ONE flush request: to a server of ours (its
 * workspace's flags say it takes them) carrying the batch's written ranges,
 * contiguous ones merged (client/ranges.h; up to 30, beyond which the closest
 * merge), which the server persists exactly; to fio 3.33's server the plain
 * request of the span from the lowest to the highest written byte
 * (rpmafio_method_flush() chooses and sends it; gpspm/msg.h); when the
 * batch is complete is gpspm/client_slots.h's business
 * (rpmafio_method_completion()): the SEND done and the response arrived;
 * batches, reads among them, complete in the order they were posted,
 * whatever order their completions come in (iWARP reorders them). A response
 * naming no request in flight breaks the connection. Receive buffers are
 * separate from the slots: a response may land in any of them, and each is
 * posted again as soon as its response is read. When the job ends the client
 * sends the "last message" (offset 0, length 0) that tells the server it is
 * done, and disconnects.
 */
#include "common/method.h"
#include "gpspm/client.h"
#include "gpspm/hub.h"
#include "gpspm/requests.h"
#include "gpspm/server.h"
#include "server/server.h"

static int server_init(struct rpmafio_server *s)
{
	return s->job.o->clients_per_job > 1 ? gpspm_hub_init(s) : gpspm_server_init(s);
}

static int server_serve(struct rpmafio_server *s)
{
	return s->hub ? gpspm_hub_serve(s) : gpspm_server_serve(s);
}

const char rpmafio_engine_name[] = "librpma_gpspm";

const struct rpmafio_method rpmafio_engine_method = {
	.name = rpmafio_engine_name,
	.client = {
		.init = gpspm_client_init,
		.signalled = gpspm_client_signalled,
		.failure_hint = gpspm_client_failure_hint,
		.finish = gpspm_client_finish,
		.cleanup = gpspm_client_cleanup,
	},
	.server = {
		.init = server_init,
		.serve = server_serve,
		.cleanup = gpspm_server_state_delete,
	},
};
