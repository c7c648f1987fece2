/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.h -- the engine options every rpma-fio engine offers
 * (`fio --enghelp=external:build/librpma_apm.so` lists them; fio/options.c
 * is their table):
 *
 *   serverip              client: the server's address; server: the address to listen on
 *   port                  base port: job i (0-based, counted over the job file) uses port + i
 *   mode                  client (default) or server
 *   direct_write_to_pmem  server: advertise that RDMA writes reach persistence directly
 *   busy_wait_polling     poll the completion queue in a loop (1, default), sleep on
 *                         its completion channel (0), or adaptive: nap, then poll, as
 *                         the pace of the completions says (common/pace.h)
 *   cpus                  a CPU list ("0-1,3"): job i runs on the i-th CPU of it (round robin)
 *   connect_timeout       ms: how long a client keeps trying to connect, and the longest
 *                         either side waits for its peer once connected
 *   keepalive             server, ms: after this long without a word from the client,
 *                         probe it (a zero-length RDMA write); 0 never probes
 *   no_flush              client: post the writes with no flush at all (a baseline:
 *                         what persistence costs; the data is NOT durable)
 *   mem_offset            server: where in filename= (a device-DAX path or a file) the
 *                         job's bytes start, with fio's size suffixes (64m, 1g); the
 *                         jobs of a section (numjobs) lie side by side from there.
 *                         auto (default): job i at i * size, i counted over the job
 *                         file. Refused with filename=malloc. Two servers on one
 *                         device keep apart with it: a server job whose bytes overlap
 *                         another's fails (server/setup.c, common/region_lock.h)
 *   allow_clients         server: the clients it admits, addresses or prefixes
 *                         ("192.168.77.2, 10.0.0.0/8"); any (default): every client.
 *                         A request from elsewhere is rejected and named on stderr
 *                         before anything is set up for it; the job waits on
 *   secret_file           both sides: a file (mode 600) holding a shared secret of
 *                         1..48 bytes; the client sends it with its connection
 *                         request and the server rejects a request without it.
 *                         none (default): no secret (common/access.h)
 *   clients_per_job       GPSPM server: one job (thread) serves this many clients
 *                         (default 1), laid out as that many jobs would be: client k
 *                         of job i on port + i * n + k, with the k-th size= bytes of
 *                         the job's n * size; their requests come through one shared
 *                         receive queue (server/hub.h)
 *   native_flush          APM client: auto (default) = the device's own RDMA FLUSH when
 *                         both ends can take it, else the emulation; 1 = native or the
 *                         job fails at connection time; 0 = always the emulation
 *
 * Values are checked while fio parses the job (a bad one stops fio with a
 * message naming the option and the value) and again, as a whole, when a
 * job starts (e.g. serverip missing, port + job index above 65535).
 */
#ifndef RPMAFIO_OPTIONS_H
#define RPMAFIO_OPTIONS_H

#include "flush_path.h"
#include "optparse.h"

struct rpmafio_opts {
	/* fio stores the job's struct thread_data * here (an offset of 0 means "no field") */
	void *td;
	char *serverip;
	char *port;
	unsigned int mode;		/* enum rpmafio_mode */
	unsigned int direct_write_to_pmem;
	unsigned int busy_wait_polling;	/* enum rpmafio_poll_mode */
	char *cpus;
	unsigned int connect_timeout;	/* ms */
	unsigned int keepalive;		/* ms; 0: the server never probes its client */
	unsigned int no_flush;		/* client: writes are never flushed */
	unsigned int native_flush;	/* enum rpmafio_native_flush */
	char *mem_offset;		/* as given: RPMAFIO_MEM_OFFSET_AUTO or a byte count */
	char *allow_clients;		/* as given: RPMAFIO_ALLOW_ANY or a list */
	char *secret_file;		/* as given: RPMAFIO_SECRET_NONE or a path */
	unsigned int clients_per_job;	/* GPSPM server: clients one job serves (>= 1) */
};

/* the most clients one server job serves (clients_per_job=) */
#define RPMAFIO_CLIENTS_PER_JOB_MAX 64

/*
 * Does a batch need the method's flush after its operations? Only when it
 * has writes and no_flush is off. Without a flush the batch's last
 * operation must be the signalled one (it completes the batch).
 */
static inline bool rpmafio_batch_flushes(const struct rpmafio_opts *o, bool has_writes)
{
	return has_writes && !o->no_flush;
}

#endif /* RPMAFIO_OPTIONS_H */
