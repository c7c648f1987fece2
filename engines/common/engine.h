/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine.h -- what every rpma-fio engine (one .so per persistency method)
 * shares: the per-job state, the hooks a method fills in, and the
 * ioengine_ops entry points that dispatch on mode=client|server.
 *
 * An engine .c file defines a `struct rpmafio_engine` with its method's
 * hooks and exports `ioengine` with RPMAFIO_IOENGINE_OPS():
 *
 *   static const struct rpmafio_engine apm = { .name = "librpma_apm", ... };
 *   static int apm_init(struct thread_data *td) { return rpmafio_init(td, &apm); }
 *   RPMAFIO_IOENGINE_OPS("librpma_apm", apm_init);
 *
 * Client jobs (io.c, conn.c): init connects to serverip:port+i (retrying up
 * to connect_timeout), decodes the server's workspace and describes its
 * memory; post_init registers fio's I/O buffers; queue/commit/getevents post
 * and reap RDMA operations, the method's hooks adding its persistency step.
 *
 * Server jobs (conn.c, mem.c): init maps and registers the job's memory,
 * listens on serverip:port+i and accepts one client with the workspace as
 * private data. The job's one and only "I/O" is to serve: the method's
 * server queue hook runs until the client disconnects and then ends the job
 * (td->done), so fio finishes it cleanly with no I/O of its own.
 */
#ifndef RPMAFIO_ENGINE_H
#define RPMAFIO_ENGINE_H

#include "fio.h"
#include "optgroup.h"

#include <librpma.h>

#include "batch.h"
#include "mem.h"
#include "options.h"
#include "workspace.h"

struct rpmafio_job;

/* the client side of one job */
struct rpmafio_client {
	struct rpma_peer *peer;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	int cq_fd;		/* the CQ's completion channel */
	int ev_fd;		/* the connection's CM events */

	/* the server's memory */
	struct rpmafio_ws ws;
	struct rpma_mr_remote *server_mr;
	size_t server_size;
	enum rpma_flush_type flush_type;

	/* fio's I/O buffers (td->orig_buffer), registered as one region */
	struct rpma_mr_local *buf_mr;
	char *buf_base;

	/* the I/O path (io.c); all arrays sized by iodepth at init */
	uint32_t depth;
	struct io_u **queued;	/* queued by fio, posted at commit */
	uint32_t nr_queued;
	struct rpmafio_ring ring; /* posted, in order */
	struct io_u **events;	/* what getevents returned, for event() */
	bool busy_wait;
	unsigned timeout_ms;
	bool broken;		/* the connection failed: every I/O now fails */
	int broken_err;		/* an errno for fio */

	void *priv;		/* the method's own client data */
};

/* the server side of one job */
struct rpmafio_server {
	struct rpmafio_mem mem;
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	struct rpma_ep *ep;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	uint8_t ws_bytes[RPMAFIO_WS_SIZE]; /* the private data sent to the client */
	uint16_t max_msg_num;	/* set by the method's conn_cfg hook (GPSPM); 0 for APM */
	bool disconnected;	/* the client has gone */

	void *priv;		/* the method's own server data */
};

/* one fio job: td->io_ops_data */
struct rpmafio_job {
	const struct rpmafio_engine *eng;
	struct thread_data *td;
	const struct rpmafio_opts *o;
	enum rpmafio_mode mode;
	unsigned index;		/* 0-based: fio's job number - 1 */
	char port[8];		/* base port + index */
	char errmsg[RPMAFIO_ERR_LEN]; /* the first failure, for fio's errdetails */
	struct rpmafio_client client;
	struct rpmafio_server server;
};

/*
 * A persistency method. Every hook returns 0 on success, or -1 after
 * rpmafio_fail() (unless said otherwise). NULL hooks are skipped.
 */
struct rpmafio_engine {
	const char *name;	/* message prefix, e.g. "librpma_apm" */
	struct {
		/* fill the connection configuration (queue sizes, ...) before connecting */
		int (*conn_cfg)(struct rpmafio_job *job, struct rpma_conn_cfg *cfg);
		/* connected, workspace decoded, server memory described: finish set-up */
		int (*connected)(struct rpmafio_job *job);
		/*
		 * Post the step that makes the writes of a batch durable: after the
		 * batch's operations, covering bytes [offset, offset + len) of the
		 * server's memory. It must be the batch's only signalled operation and
		 * its completion must name `last` (see completion below).
		 */
		int (*flush)(struct rpmafio_job *job, uint64_t offset, uint64_t len,
			struct io_u *last);
		/*
		 * A successful completion: set *last to the io_u it completes (it and
		 * every io_u posted before it are done) and return 1; return 0 for a
		 * completion that completes nothing; -1 for one that cannot be (no
		 * rpmafio_fail() needed: the caller reports it). Hot path: no logging.
		 */
		int (*completion)(struct rpmafio_job *job, const struct ibv_wc *wc,
			struct io_u **last);
		void (*cleanup)(struct rpmafio_job *job);
	} client;
	struct {
		/* fill the connection configuration; may set server.max_msg_num */
		int (*conn_cfg)(struct rpmafio_job *job, struct rpma_conn_cfg *cfg);
		/* a client's request arrived, before it is accepted (e.g. post receives) */
		int (*prepare)(struct rpmafio_job *job, struct rpma_conn_req *req);
		/* the connection is established */
		int (*connected)(struct rpmafio_job *job);
		/* the job's I/O: serve until the client disconnects (see rpmafio_serve_until_disconnect) */
		enum fio_q_status (*queue)(struct rpmafio_job *job, struct io_u *io_u);
		void (*cleanup)(struct rpmafio_job *job);
		/*
		 * the client flushes the workspace itself (APM): the registration
		 * then carries a flush type; otherwise (GPSPM) the client may only
		 * write to it and read from it
		 */
		bool remote_flush;
	} server;
};

/* ---- errors ---- */

/*
 * Report a failure of the job: "<engine>: job N: <message>" on stderr, the
 * message kept for fio's error summary (td->verror) and errdetails, and err
 * (an errno value) as the job's error. Only the first failure is kept.
 * Returns -1.
 */
int rpmafio_fail(struct rpmafio_job *job, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A note (not an error) on stderr: "<engine>: job N: <message>" (never into
 * fio's --output file, so JSON reports stay valid).
 */
void rpmafio_note(struct rpmafio_job *job, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* rpma_err_2str() plus errno for RPMA_E_PROVIDER */
const char *rpmafio_rpma_err(int ret, char *buf, size_t len);

/* true once fio wants the job to stop (SIGINT, another job's error...) */
static inline bool rpmafio_stopping(const struct thread_data *td)
{
	return td->terminate;
}

/* milliseconds on the monotonic clock */
uint64_t rpmafio_now_ms(void);

/* ---- ioengine_ops entry points (engine.c, io.c) ---- */

int rpmafio_init(struct thread_data *td, const struct rpmafio_engine *eng);
int rpmafio_setup(struct thread_data *td);
int rpmafio_post_init(struct thread_data *td);
void rpmafio_cleanup(struct thread_data *td);
int rpmafio_io_u_init(struct thread_data *td, struct io_u *io_u);
int rpmafio_file_nop(struct thread_data *td, struct fio_file *f);
int rpmafio_get_file_size(struct thread_data *td, struct fio_file *f);
enum fio_q_status rpmafio_queue(struct thread_data *td, struct io_u *io_u);
int rpmafio_commit(struct thread_data *td);
int rpmafio_getevents(struct thread_data *td, unsigned int min, unsigned int max,
	const struct timespec *t);
struct io_u *rpmafio_event(struct thread_data *td, int event);
char *rpmafio_errdetails(struct io_u *io_u);

/* a server queue hook for methods with nothing to do while serving (APM) */
enum fio_q_status rpmafio_serve_until_disconnect(struct rpmafio_job *job, struct io_u *io_u);

/*
 * Engine flags: no local disk; the client sets io_u->issue_time itself when
 * it really posts (commit), so fio must not stamp it at queue time.
 */
#define RPMAFIO_ENGINE_FLAGS (FIO_DISKLESSIO | FIO_NODISKUTIL | FIO_ASYNCIO_SETS_ISSUE_TIME)

/* the exported symbol fio looks up with dlsym() */
#define RPMAFIO_IOENGINE_OPS(engine_name, init_fn)				\
	__attribute__((visibility("default"))) struct ioengine_ops ioengine = {	\
		.name = (engine_name),						\
		.version = FIO_IOOPS_VERSION,					\
		.flags = RPMAFIO_ENGINE_FLAGS,					\
		.setup = rpmafio_setup,						\
		.init = (init_fn),						\
		.post_init = rpmafio_post_init,					\
		.queue = rpmafio_queue,						\
		.commit = rpmafio_commit,					\
		.getevents = rpmafio_getevents,					\
		.event = rpmafio_event,						\
		.errdetails = rpmafio_errdetails,				\
		.cleanup = rpmafio_cleanup,					\
		.open_file = rpmafio_file_nop,					\
		.close_file = rpmafio_file_nop,					\
		.get_file_size = rpmafio_get_file_size,				\
		.io_u_init = rpmafio_io_u_init,					\
		.options = rpmafio_options,					\
		.option_struct_size = sizeof(struct rpmafio_opts),		\
	}

#endif /* RPMAFIO_ENGINE_H */
