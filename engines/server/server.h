/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.h -- a server job: the memory it exposes to one client, and each
 * step of serving it. A method's server init is these steps in order:
 *
 *   rpmafio_server_map()           the job's part of filename= (common/mem.h)
 *   rpmafio_server_register()      ... registered for the client's operations,
 *                                  its descriptor put in the workspace
 *   rpmafio_server_listen()        on serverip:port+i
 *   rpmafio_server_next_request()  the first client's connection request
 *   (the method may post receives on it here: GPSPM)
 *   rpmafio_server_accept()        with the workspace as private data
 *
 * and its serve is rpmafio_server_serve() (the one completion loop of
 * common/poll.h). engine.c tears everything down: the connection first,
 * then the registrations, then the memory. Every function returns 0, or -1
 * after rpmafio_fail(), unless said otherwise; every wait gives up when fio
 * stops the job.
 */
#ifndef RPMAFIO_SERVER_H
#define RPMAFIO_SERVER_H

#include <stddef.h>

#include <librpma.h>

#include "common/job.h"
#include "common/mem.h"
#include "common/poll.h"
#include "common/queues.h"
#include "common/region_lock.h"
#include "common/workspace.h"

struct rpmafio_hub;

/*
 * How rpmafio_server_disconnect() and rpmafio_server_release() take the hub
 * (hub.h) down with the server: rpmafio_hub_new() sets it. The hub is built on
 * the steps here, which therefore call none of its code.
 */
struct rpmafio_hub_teardown {
	/* disconnect every client and stop listening */
	void (*disconnect)(struct rpmafio_hub *h);
	/* deregister the clients' bytes and free the hub; false when one stays registered */
	bool (*release)(struct rpmafio_hub **h);
};

struct rpmafio_server {
	struct rpmafio_job job;	/* first: a server is a job */
	struct rpmafio_mem mem;
	struct rpmafio_region_lock *lock; /* the job's bytes of its path (NULL: DRAM) */
	struct ibv_context *dev;	/* serverip's device */
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	struct rpma_ep *ep;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpmafio_poll poll; /* the CQ and the connection's events */
	uint8_t ws_bytes[RPMAFIO_WS_SIZE]; /* the private data sent to the client */
	struct rpmafio_allow allow;	/* allow_clients= (n 0: any) */
	bool disconnected;	/* the client has gone */
	unsigned requests_lost;	/* connection requests lost in a row (rpmafio_server_request_lost) */

	struct rpmafio_hub *hub; /* clients_per_job > 1: the clients (hub.h), else NULL */
	const struct rpmafio_hub_teardown *hub_teardown; /* set with hub */
	void *priv;		/* the method's own server data */
};

/* fio/engine.c allocates and frees a server through its job: the job must come first */
_Static_assert(offsetof(struct rpmafio_server, job) == 0, "a server's job is its first member");

static inline struct rpmafio_server *rpmafio_server_of(struct rpmafio_job *job)
{
	return (struct rpmafio_server *)((char *)job - offsetof(struct rpmafio_server, job));
}

/*
 * Map the job's memory: job.filename (malloc, a device-DAX path or a
 * file), job.size bytes. Of a path, job i takes bytes [i * size, (i + 1) * size),
 * or, with mem_offset=, the section's j-th job (0-based) bytes
 * [mem_offset + j * size, mem_offset + (j + 1) * size) -- after locking them
 * (common/region_lock.h): bytes another server job or process holds fail the
 * job, naming the path, both ranges and the way out.
 */
int rpmafio_server_map(struct rpmafio_server *s);

/*
 * Find the device of serverip, register the memory with usage and encode
 * the workspace (max_msg_num: flush requests taken at once, 0 for none).
 */
int rpmafio_server_register(struct rpmafio_server *s, int usage, uint16_t max_msg_num);

/*
 * The two halves of rpmafio_server_register(), for a job with several
 * clients (hub.h): serverip's device (s->dev) and its peer, then a range of
 * the job's memory registered through peer (the job's or a client's own) and
 * its workspace encoded into ws_bytes.
 */
int rpmafio_server_open_peer(struct rpmafio_server *s);
int rpmafio_server_register_range(struct rpmafio_server *s, struct rpma_peer *peer, char *ptr,
	size_t len, int usage, uint16_t max_msg_num, struct rpma_mr_local **mr,
	uint8_t ws_bytes[RPMAFIO_WS_SIZE]);

/*
 * May this request's client connect (allow_clients= and secret_file=)? A
 * refusal is named in a note; the caller deletes (rejects) the request.
 */
bool rpmafio_server_admits(struct rpmafio_server *s, const struct rpma_conn_req *req);

/* Listen on serverip:port and say so on stderr. */
int rpmafio_server_listen(struct rpmafio_server *s);

/*
 * Wait (without a limit) for a client's connection request that allow_clients=
 * and the secret admit, and take it with queue sizes q. A request they do not
 * admit is rejected (the client learns RPMA_CONN_REJECTED), named in a note on
 * stderr, and the wait goes on: nothing is registered or posted for it.
 */
int rpmafio_server_next_request(struct rpmafio_server *s, const struct rpmafio_queues *q,
		struct rpma_conn_req **req);

/* this many connection requests lost in a row: the endpoint itself fails */
#define RPMAFIO_REQUESTS_LOST_MAX 8

enum rpmafio_request_loss {
	RPMAFIO_LISTEN_ON,	/* only that request is lost (noted): wait for the next */
	RPMAFIO_LISTEN_FAILED,	/* the endpoint fails: rpmafio_fail() was called */
};

/*
 * rpma_ep_next_conn_req() returned RET (not 0). librpma refuses a request it
 * took and cannot set up -- the provider fails the request's QP once its
 * client gave up waiting, as a client that timed out does under load -- and
 * the endpoint listens on: one request lost, not the job. A wake-up with
 * nothing queued (RPMA_E_NO_EVENT) is no loss. The caller zeroes
 * s->requests_lost when it takes a request.
 */
enum rpmafio_request_loss rpmafio_server_request_lost(struct rpmafio_server *s, int ret);

/*
 * Accept *req with the workspace as private data, wait until the connection
 * is established (connect_timeout), then stop listening.
 */
int rpmafio_server_accept(struct rpmafio_server *s, struct rpma_conn_req **req);

/*
 * What a serving method does with n completions: RPMAFIO_POLL_GO_ON,
 * RPMAFIO_POLL_DONE when serving is over (the client said so or has gone),
 * RPMAFIO_POLL_FAILED after rpmafio_fail().
 */
typedef enum rpmafio_poll_step (*rpmafio_serve_fn)(struct rpmafio_server *s,
	const struct ibv_wc *wc, int n);

/*
 * Serve: hand every completion to on_wc (NULL: the method takes no part in
 * the I/O and only waits) until it says serving is over, the client leaves or
 * fio stops the job. A client silent for keepalive ms is probed
 * (keepalive.h); a probe that fails ends serving. 0, or -1 after rpmafio_fail().
 */
int rpmafio_server_serve(struct rpmafio_server *s, rpmafio_serve_fn on_wc);

enum rpmafio_client_gone {
	RPMAFIO_CLIENT_LEFT,		/* it disconnected (or fio stops the job) */
	RPMAFIO_CLIENT_STAYED,		/* still connected when the time was up */
	RPMAFIO_CLIENT_WAIT_FAILED,	/* after rpmafio_fail() */
};

/* Wait up to connect_timeout for the client to disconnect. */
enum rpmafio_client_gone rpmafio_server_wait_gone(struct rpmafio_server *s);

/*
 * A completion failed with status: normal when the client goes away.
 * RPMAFIO_POLL_DONE once it has gone, RPMAFIO_POLL_FAILED (after
 * rpmafio_fail()) when it does not within connect_timeout, or within a second
 * when the client cannot be reached (retries exceeded, or nothing could be
 * sent: its host or its link is gone).
 */
enum rpmafio_poll_step rpmafio_server_conn_failed(struct rpmafio_server *s,
	enum ibv_wc_status status);

/* A serving loop's librpma call failed: the job fails naming it. RPMAFIO_POLL_FAILED. */
enum rpmafio_poll_step rpmafio_server_call_failed(struct rpmafio_server *s, const char *call,
	int ret);

/* Close the connection (the client is told) and stop listening. */
void rpmafio_server_disconnect(struct rpmafio_server *s);

/*
 * Once disconnected: deregister the memory, then unmap it and release its
 * bytes of the path -- unless the deregistration failed: memory still
 * registered is never freed, nor its bytes given to another server -- and
 * release the peer.
 */
void rpmafio_server_release(struct rpmafio_server *s);

#endif /* RPMAFIO_SERVER_H */
