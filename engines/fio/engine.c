/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine.c -- fio's entry points: per-job set-up, tear-down and mode dispatch,
 * and the translation between fio's io_u and the client's I/O (see engine.h)
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "fio.h"
#include "optgroup.h"

#include "compat.h"

#include "client/client.h"
#include "client/io.h"
#include "common/env_defaults.h"
#include "common/method.h"
#include "common/report.h"
#include "engine.h"
#include "server/server.h"

/*
 * Runs when fio dlopen()s the engine, before it reads the job file's sections:
 * the job files' ${VARIABLES} get their defaults (common/env_defaults.h).
 */
__attribute__((constructor)) static void rpmafio_on_load(void)
{
	rpmafio_env_apply_defaults();
}

/* what the engine keeps with each of fio's io_us (io_u->engine_data) */
struct engine_io {
	struct rpmafio_io io;
	const struct rpmafio_job *job;	/* for errdetails */
};

/* Pin the calling job thread to its CPU of the cpus= list. */
static int pin_cpu(struct rpmafio_job *job)
{
	unsigned cpus[RPMAFIO_CPU_MAX + 1], n;
	char why[RPMAFIO_ERR_LEN];
	cpu_set_t set;

	if (job->o->cpus == NULL || job->o->cpus[0] == '\0')
		return 0;
	if (rpmafio_parse_cpulist(job->o->cpus, cpus, &n, why, sizeof(why)))
		return rpmafio_fail(job, EINVAL, "cpus=%s: %s", job->o->cpus, why);
	unsigned cpu = rpmafio_job_cpu(cpus, n, job->index);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return rpmafio_fail(job, errno, "cpus=%s: cannot run on CPU %u: %s (is it online "
			"and allowed?)", job->o->cpus, cpu, strerror(errno));
	return 0;
}

static int client_init(struct rpmafio_client *c)
{
	struct thread_data *td = c->job.td;

	if (td_trim(td))
		return rpmafio_fail(&c->job, EINVAL, "trim workloads are not supported (rw=%s)",
			ddir_str(td->o.td_ddir));
	/*
	 * fio (3.33) loads a saved verify state only for jobs it sets up before they
	 * start (create_serialize=1); otherwise it verifies every block of the job,
	 * also writes that were never acknowledged, and reports them lost
	 */
	if (td->o.verify_state && !td->o.create_serialize)
		return rpmafio_fail(&c->job, EINVAL, "verify_state_load=1 needs create_serialize=1 "
			"(and size= of the server's memory): with create_serialize=0 fio ignores the "
			"saved state and checks writes that never completed too");
	if (rpmafio_io_init(c) || c->job.method->client.init(c))
		return -1;
	/* with create_serialize=1 fio sized the job before connecting: check it now */
	if (td->o.size > c->server_size)
		return rpmafio_fail(&c->job, EINVAL, "size=%llu is more than the %zu bytes the "
			"server exposes", (unsigned long long)td->o.size, c->server_size);
	return 0;
}

/* the job's options as a whole (fio checked each value while parsing) */
static int check_options(struct rpmafio_job *job)
{
	const struct rpmafio_opts *o = job->o;
	char why[RPMAFIO_ERR_LEN];
	struct rpmafio_optvals v = {
		.mode = job->mode,
		.serverip = o->serverip,
		.port = o->port,
		.cpus = o->cpus,
		.connect_timeout_ms = o->connect_timeout,
		.job_index = job->index,
		.clients_per_job = o->clients_per_job,
	};
	if (rpmafio_optvals_check(&v, job->port, sizeof(job->port), why, sizeof(why)))
		return rpmafio_fail(job, EINVAL, "%s", why);
	if (rpmafio_secret_load(o->secret_file, &job->secret, why, sizeof(why)))
		return rpmafio_fail(job, EINVAL, "%s", why);
	/* (a client parses it too: only to refuse a list, which it cannot apply) */
	struct rpmafio_allow client_allow = {0};
	struct rpmafio_allow *allow = job->mode == RPMAFIO_MODE_SERVER ?
		&rpmafio_server_of(job)->allow : &client_allow;
	if (rpmafio_allow_parse(o->allow_clients, allow, why, sizeof(why)))
		return rpmafio_fail(job, EINVAL, "allow_clients=%s: %s", o->allow_clients, why);
	if (job->mode != RPMAFIO_MODE_SERVER && allow->n > 0)
		return rpmafio_fail(job, EINVAL, "allow_clients=%s is a server's option (mode="
			"server): a client cannot restrict who connects to it", o->allow_clients);
	return 0;
}

/* what a job takes of fio's: nothing outside fio/ reads fio's structures */
static void take_fio_job(struct rpmafio_job *job, struct thread_data *td)
{
	job->td = td;
	job->index = td->thread_number - 1;
	job->subjob_index = td->subjob_number;
	job->kb_base = td->o.kb_base;
	job->iodepth = td->o.iodepth ? td->o.iodepth : 1;
	job->sync = td->o.sync_io != 0;
	job->writes = td_write(td);
	job->size = td->o.size;
	job->stop = &td->terminate;
	job->nr_files = td->o.nr_files;
	if (td->o.nr_files == 1 && td->files_index == 1)
		job->filename = td->files[0]->file_name;
}

static int rpmafio_init(struct thread_data *td)
{
	const struct rpmafio_method *method = &rpmafio_engine_method;
	const struct rpmafio_opts *o = td->eo;
	bool server = o->mode == RPMAFIO_MODE_SERVER;

	struct rpmafio_job *job = calloc(1, server ? sizeof(struct rpmafio_server) :
		sizeof(struct rpmafio_client));
	if (job == NULL) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	job->method = method;
	job->o = o;
	job->mode = server ? RPMAFIO_MODE_SERVER : RPMAFIO_MODE_CLIENT;
	td->io_ops_data = job;

	take_fio_job(job, td);
	if (check_options(job) || pin_cpu(job))
		return 1;
	if (!server)
		return client_init(rpmafio_client_of(job)) ? 1 : 0;
	/* the server's one "I/O" lasts as long as the client: no statistics */
	td->flags |= (unsigned long long)FIO_NOSTATS << TD_ENG_FLAG_SHIFT;
	return method->server.init(rpmafio_server_of(job)) ? 1 : 0;
}

static int rpmafio_setup(struct thread_data *td)
{
	struct rpmafio_job *job = td->io_ops_data;
	const struct rpmafio_opts *o = td->eo;
	struct fio_file *f;
	unsigned i;

	/*
	 * fio asks for the files' sizes here: in the job's thread after init
	 * when create_serialize=0 (the job files set it), or before init from
	 * fio's main thread otherwise.
	 */
	for_each_file(td, f, i) {
		if (job && job->mode == RPMAFIO_MODE_CLIENT) {
			/* connected already */
			f->real_file_size = rpmafio_client_of(job)->server_size;
		} else if (td->o.size) {
			/* a server's memory, or a client sized by the job (checked once connected) */
			f->real_file_size = td->o.size;
		} else {
			log_err("fio: job %s: size= is not set: %s\n", td->o.name,
				o->mode == RPMAFIO_MODE_SERVER ?
				"give the memory size of each server job (e.g. size=64m)" :
				"a client learns the size from its server only with create_serialize=0");
			td_verror(td, EINVAL, "setup");
			return 1;
		}
		fio_file_set_size_known(f);
	}
	return 0;
}

static int rpmafio_post_init(struct thread_data *td)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job->mode == RPMAFIO_MODE_CLIENT)
		return rpmafio_client_register_buffers(rpmafio_client_of(job), td->orig_buffer,
			td->orig_buffer_size) ? 1 : 0;
	return 0;
}

static int rpmafio_iomem_alloc(struct thread_data *td, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = NULL;
	if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, size))
		return 1;
	td->orig_buffer = p;
	return 0;
}

/* fio calls this before cleanup, with the connection still up */
static void rpmafio_iomem_free(struct thread_data *td)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job && job->mode == RPMAFIO_MODE_CLIENT &&
			rpmafio_client_release_buffers(rpmafio_client_of(job)))
		return; /* still registered: kept, never freed */
	free(td->orig_buffer);
}

static void rpmafio_cleanup(struct thread_data *td)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job == NULL)
		return;
	/* the connection first, then the registrations, then the memory */
	if (job->mode == RPMAFIO_MODE_CLIENT) {
		struct rpmafio_client *c = rpmafio_client_of(job);
		rpmafio_io_report(c);
		if (job->method->client.finish && c->conn && !c->broken)
			job->method->client.finish(c);
		rpmafio_client_disconnect(c);
		if (job->method->client.cleanup)
			job->method->client.cleanup(c);
		rpmafio_client_release(c);
		rpmafio_io_fini(c);
	} else {
		struct rpmafio_server *s = rpmafio_server_of(job);
		rpmafio_server_disconnect(s);
		if (job->method->server.cleanup)
			job->method->server.cleanup(s);
		rpmafio_server_release(s);
	}
	free(job);
	td->io_ops_data = NULL;
}

static int rpmafio_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct engine_io *e = calloc(1, sizeof(*e));
	if (e == NULL)
		return 1;
	e->io.owner = io_u;
	e->job = td->io_ops_data;
	io_u->engine_data = e;
	return 0;
}

static void rpmafio_io_u_free(struct thread_data *td, struct io_u *io_u)
{
	(void)td;
	free(io_u->engine_data);
	io_u->engine_data = NULL;
}

/*
 * A client's file is the server's memory: fio has placed the job's range in
 * it by now (offset=, offset_increment=, size=), so this is where a range
 * beyond the server's memory is refused, before any I/O.
 */
static int rpmafio_open_file(struct thread_data *td, struct fio_file *f)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job == NULL || job->mode != RPMAFIO_MODE_CLIENT)
		return 0;
	const struct rpmafio_client *c = rpmafio_client_of(job);
	if (f->file_offset <= c->server_size && f->io_size <= c->server_size - f->file_offset)
		return 0;
	rpmafio_fail(job, EINVAL, "offset=%llu with size=%llu reaches byte %llu, beyond the %zu "
		"bytes the server at %s:%s exposes", (unsigned long long)f->file_offset,
		(unsigned long long)f->io_size,
		(unsigned long long)f->file_offset + (unsigned long long)f->io_size, c->server_size,
		job->o->serverip, job->port);
	return 1;
}

static int rpmafio_file_nop(struct thread_data *td, struct fio_file *f)
{
	(void)td;
	(void)f;
	return 0;
}

static int rpmafio_get_file_size(struct thread_data *td, struct fio_file *f)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job && job->mode == RPMAFIO_MODE_CLIENT)
		f->real_file_size = rpmafio_client_of(job)->server_size;
	else
		f->real_file_size = td->o.size;
	fio_file_set_size_known(f);
	return 0;
}

/*
 * A server's one I/O: the whole serving. fio leaves its I/O loop when
 * td->done is set, so no other I/O follows.
 */
/* (apart from the client's queue: a server job calls it once, for its whole run) */
static __attribute__((noinline)) enum fio_q_status serve(struct rpmafio_server *s,
		struct io_u *io_u)
{
	struct thread_data *td = s->job.td;
	if (s->job.method->server.serve(s)) {
		io_u->error = td->error ? td->error : EIO;
		/* a client that broke the protocol is cut off now, not at clean-up */
		rpmafio_server_disconnect(s);
	}
	td->done = 1;
	return FIO_Q_COMPLETED;
}

/* io_u as the client's I/O path sees it (the hot path: a few stores) */
static struct rpmafio_io *io_of(struct io_u *io_u)
{
	struct rpmafio_io *io = &((struct engine_io *)io_u->engine_data)->io;
	switch (io_u->ddir) {
	case DDIR_READ:
		io->dir = RPMAFIO_IO_READ;
		break;
	case DDIR_WRITE:
		io->dir = RPMAFIO_IO_WRITE;
		break;
	default:
		io->dir = ddir_sync(io_u->ddir) ? RPMAFIO_IO_SYNC : RPMAFIO_IO_OTHER;
		break;
	}
	io->offset = io_u->offset;
	io->len = io_u->xfer_buflen;
	io->buf = io_u->xfer_buf;
	return io;
}

/*
 * fio's issue time: stamped just before the I/O goes to the RNIC (fio does
 * not stamp async I/Os itself: FIO_ASYNCIO_SETS_ISSUE_TIME). Before posting,
 * not after: posting may itself take the operation's time (Soft-RoCE does a
 * work request, even its loopback round trip, inside ibv_post_send()).
 */
static void stamp_issue(struct thread_data *td, struct rpmafio_io *const *ios, uint32_t n)
{
	struct timespec now;

	if (!fio_fill_issue_time(td))
		return;
	fio_gettime(&now, NULL);
	for (uint32_t i = 0; i < n; i++)
		((struct io_u *)ios[i]->owner)->issue_time = now;
	if (td->o.read_iolog_file)
		td->last_issue = now;
}

/* ... of one I/O, straight into it (no copy through the stack) */
static void stamp_one(struct thread_data *td, struct io_u *io_u)
{
	if (!fio_fill_issue_time(td))
		return;
	fio_gettime(&io_u->issue_time, NULL);
	if (td->o.read_iolog_file)
		td->last_issue = io_u->issue_time;
}

static enum fio_q_status client_queue(struct thread_data *td, struct rpmafio_client *c,
		struct io_u *io_u)
{
	struct rpmafio_io *io = io_of(io_u);

	/* sync=1 (and a sync of any kind) completes here: issued now */
	if (td->o.sync_io || io->dir == RPMAFIO_IO_SYNC || io->dir == RPMAFIO_IO_OTHER)
		stamp_one(td, io_u);
	switch (rpmafio_io_queue(c, io)) {
	case RPMAFIO_IO_QUEUED:
		return FIO_Q_QUEUED;
	case RPMAFIO_IO_BUSY:
		return FIO_Q_BUSY;
	case RPMAFIO_IO_COMPLETED:
	default:
		io_u->error = io->error;
		return FIO_Q_COMPLETED;
	}
}

enum fio_q_status rpmafio_queue(struct thread_data *td, struct io_u *io_u)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job->mode == RPMAFIO_MODE_CLIENT)
		return client_queue(td, rpmafio_client_of(job), io_u);
	return serve(rpmafio_server_of(job), io_u);
}

int rpmafio_commit(struct thread_data *td)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job->mode != RPMAFIO_MODE_CLIENT)
		return 0;
	struct rpmafio_client *c = rpmafio_client_of(job);
	const uint32_t n = c->nr_queued;

	stamp_issue(td, c->queued, n);
	switch (rpmafio_io_commit(c)) {
	case RPMAFIO_COMMIT_EMPTY:
		return 0;
	case RPMAFIO_COMMIT_POSTED:
		for (uint32_t i = 0; i < n; i++)
			io_u_queued(td, c->queued[i]->owner); /* fio's slat: issue - start */
		break;
	case RPMAFIO_COMMIT_FAILED:
	default:
		break;
	}
	/* an engine with a commit hook reports its submissions itself */
	io_u_mark_submit(td, n);
	return 0;
}

int rpmafio_getevents(struct thread_data *td, unsigned int min, unsigned int max,
	const struct timespec *t)
{
	struct rpmafio_job *job = td->io_ops_data;

	(void)t; /* fio passes none on this path; completions come within connect_timeout */
	if (job->mode == RPMAFIO_MODE_CLIENT)
		return (int)rpmafio_io_getevents(rpmafio_client_of(job), min, max);
	return 0;
}

struct io_u *rpmafio_event(struct thread_data *td, int event)
{
	struct rpmafio_job *job = td->io_ops_data;
	const struct rpmafio_io *io = rpmafio_client_of(job)->events[event];
	struct io_u *io_u = io->owner;
	io_u->error = io->error;
	return io_u;
}

static char *rpmafio_errdetails(RPMAFIO_ERRDETAILS_PARAMS)
{
	const struct engine_io *e = io_u->engine_data;
	if (e == NULL || e->job == NULL || e->job->errmsg[0] == '\0')
		return strdup("the RDMA operation failed");
	return strdup(e->job->errmsg);
}

/*
 * The exported symbol fio looks up with dlsym(). No local disk; the client
 * sets io_u->issue_time itself just before it posts, so fio must not stamp
 * it at queue time.
 */
__attribute__((visibility("default"))) struct ioengine_ops ioengine = {
	.name = rpmafio_engine_name,
	.version = FIO_IOOPS_VERSION,
	.flags = FIO_DISKLESSIO | FIO_NODISKUTIL | FIO_ASYNCIO_SETS_ISSUE_TIME,
	.setup = rpmafio_setup,
	.init = rpmafio_init,
	.post_init = rpmafio_post_init,
	.queue = rpmafio_queue,
	.commit = rpmafio_commit,
	.getevents = rpmafio_getevents,
	.event = rpmafio_event,
	.errdetails = rpmafio_errdetails,
	.cleanup = rpmafio_cleanup,
	.open_file = rpmafio_open_file,
	.close_file = rpmafio_file_nop,
	.get_file_size = rpmafio_get_file_size,
	.io_u_init = rpmafio_io_u_init,
	.io_u_free = rpmafio_io_u_free,
	.iomem_alloc = rpmafio_iomem_alloc,
	.iomem_free = rpmafio_iomem_free,
	.options = rpmafio_options,
	.option_struct_size = sizeof(struct rpmafio_opts),
};
