/* SPDX-License-Identifier: BSD-3-Clause */
/* engine.c -- per-job set-up, tear-down and mode dispatch (see engine.h) */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "conn.h"
#include "engine.h"
#include "io.h"

uint64_t rpmafio_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const char *rpmafio_rpma_err(int ret, char *buf, size_t len)
{
	if (ret == RPMA_E_PROVIDER)
		snprintf(buf, len, "%s (%s)", rpma_err_2str(ret), strerror(errno));
	else
		snprintf(buf, len, "%s", rpma_err_2str(ret));
	return buf;
}

int rpmafio_fail(struct rpmafio_job *job, int err, const char *fmt, ...)
{
	char msg[RPMAFIO_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (job->errmsg[0] != '\0')
		return -1; /* keep the first, root cause */
	snprintf(job->errmsg, sizeof(job->errmsg), "%s", msg);
	log_err("%s: job %u: %s\n", job->eng->name, job->index + 1, msg);
	td_vmsg(job->td, err, job->errmsg, job->eng->name);
	return -1;
}

void rpmafio_note(struct rpmafio_job *job, const char *fmt, ...)
{
	char msg[RPMAFIO_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/*
	 * Straight to stderr: fio's log_err() also writes into the --output file,
	 * which would break a JSON report. As a backend (fio --server) the note
	 * goes to fio's client like any message.
	 */
	if (is_backend)
		log_err("%s: job %u: %s\n", job->eng->name, job->index + 1, msg);
	else
		fprintf(stderr, "%s: job %u: %s\n", job->eng->name, job->index + 1, msg);
}

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

static int client_init(struct rpmafio_job *job)
{
	struct thread_data *td = job->td;
	struct rpmafio_client *c = &job->client;
	struct rpma_conn_cfg *cfg = NULL;
	char buf[128];
	int ret, failed = -1;

	if (td_trim(td))
		return rpmafio_fail(job, EINVAL, "trim workloads are not supported (rw=%s)",
			ddir_str(td->o.td_ddir));
	if (rpmafio_io_init(job))
		return -1;
	if ((ret = rpma_conn_cfg_new(&cfg)))
		return rpmafio_fail(job, ENOMEM, "rpma_conn_cfg_new: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (job->eng->client.conn_cfg && job->eng->client.conn_cfg(job, cfg))
		goto out;
	if (rpmafio_client_connect(job, cfg))
		goto out;
	if (job->eng->client.connected && job->eng->client.connected(job))
		goto out;
	/* with create_serialize=1 fio sized the job before connecting: check it now */
	if (td->o.size > c->server_size) {
		rpmafio_fail(job, EINVAL, "size=%llu is more than the %zu bytes the server "
			"exposes", (unsigned long long)td->o.size, c->server_size);
		goto out;
	}
	failed = 0;
out:
	(void) rpma_conn_cfg_delete(&cfg);
	return failed;
}

static int server_init(struct rpmafio_job *job)
{
	struct thread_data *td = job->td;
	struct rpmafio_server *s = &job->server;
	struct rpma_conn_cfg *cfg = NULL;
	char why[RPMAFIO_ERR_LEN], buf[128];
	int ret, failed = -1;

	if (td->o.nr_files != 1 || td->files_index != 1)
		return rpmafio_fail(job, EINVAL, "a server job exposes exactly one filename= "
			"(malloc, a device-DAX path or a file), not %u", td->o.nr_files);
	if (td->o.size == 0)
		return rpmafio_fail(job, EINVAL, "size= is not set: give the memory size of "
			"each server job (e.g. size=64m)");

	const char *path = td->files[0]->file_name;
	size_t size = td->o.size;
	bool dram = strcmp(path, RPMAFIO_MEM_DRAM) == 0;
	size_t offset = dram ? 0 : (size_t)job->index * size;
	if (rpmafio_mem_map(path, size, offset, &s->mem, why, sizeof(why)))
		return rpmafio_fail(job, EINVAL, "filename=%s: %s", path, why);
	if (job->o->direct_write_to_pmem && !s->mem.is_pmem)
		rpmafio_note(job, "direct_write_to_pmem=1 but %s is not persistent memory: "
			"clients will flush, but the data is not persistent", path);

	if ((ret = rpma_conn_cfg_new(&cfg)))
		return rpmafio_fail(job, ENOMEM, "rpma_conn_cfg_new: %s",
			rpmafio_rpma_err(ret, buf, sizeof(buf)));
	if (job->eng->server.conn_cfg && job->eng->server.conn_cfg(job, cfg))
		goto out;

	/*
	 * least access: the client writes to it and reads from it (rw=read jobs);
	 * only a client that flushes it itself (APM) gets a flush type, which
	 * also lets it read (the emulated flush is a read)
	 */
	int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC;
	if (job->eng->server.remote_flush)
		usage |= job->o->direct_write_to_pmem ? RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT :
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	if (rpmafio_server_register(job, usage) || rpmafio_server_listen(job) ||
			rpmafio_server_accept(job, cfg))
		goto out;
	if (job->eng->server.connected && job->eng->server.connected(job))
		goto out;
	failed = 0;
out:
	(void) rpma_conn_cfg_delete(&cfg);
	return failed;
}

int rpmafio_init(struct thread_data *td, const struct rpmafio_engine *eng)
{
	const struct rpmafio_opts *o = td->eo;
	char why[RPMAFIO_ERR_LEN];

	struct rpmafio_job *job = calloc(1, sizeof(*job));
	if (job == NULL) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	job->eng = eng;
	job->td = td;
	job->o = o;
	job->mode = o->mode == RPMAFIO_MODE_SERVER ? RPMAFIO_MODE_SERVER : RPMAFIO_MODE_CLIENT;
	job->index = td->thread_number - 1;
	td->io_ops_data = job;

	struct rpmafio_optvals v = {
		.mode = job->mode,
		.serverip = o->serverip,
		.port = o->port,
		.cpus = o->cpus,
		.connect_timeout_ms = o->connect_timeout,
		.job_index = job->index,
	};
	if (rpmafio_optvals_check(&v, job->port, sizeof(job->port), why, sizeof(why))) {
		rpmafio_fail(job, EINVAL, "%s", why);
		return 1;
	}
	if (pin_cpu(job))
		return 1;
	if (job->mode == RPMAFIO_MODE_SERVER) {
		/* the server's one "I/O" lasts as long as the client: no statistics */
		td->flags |= (unsigned long long)FIO_NOSTATS << TD_ENG_FLAG_SHIFT;
		return server_init(job) ? 1 : 0;
	}
	return client_init(job) ? 1 : 0;
}

int rpmafio_setup(struct thread_data *td)
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
			f->real_file_size = job->client.server_size; /* connected already */
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

int rpmafio_post_init(struct thread_data *td)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job->mode == RPMAFIO_MODE_CLIENT)
		return rpmafio_io_register_buffers(job) ? 1 : 0;
	return 0;
}

void rpmafio_cleanup(struct thread_data *td)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job == NULL)
		return;
	if (job->mode == RPMAFIO_MODE_CLIENT) {
		if (job->eng->client.cleanup)
			job->eng->client.cleanup(job);
		rpmafio_client_disconnect(job);
		rpmafio_io_fini(job);
	} else {
		if (job->eng->server.cleanup)
			job->eng->server.cleanup(job);
		rpmafio_server_teardown(job);
		rpmafio_mem_unmap(&job->server.mem);
	}
	free(job);
	td->io_ops_data = NULL;
}

int rpmafio_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	io_u->engine_data = td->io_ops_data; /* for errdetails */
	return 0;
}

int rpmafio_file_nop(struct thread_data *td, struct fio_file *f)
{
	(void)td;
	(void)f;
	return 0;
}

int rpmafio_get_file_size(struct thread_data *td, struct fio_file *f)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job && job->mode == RPMAFIO_MODE_CLIENT)
		f->real_file_size = job->client.server_size;
	else
		f->real_file_size = td->o.size;
	fio_file_set_size_known(f);
	return 0;
}

enum fio_q_status rpmafio_queue(struct thread_data *td, struct io_u *io_u)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job->mode == RPMAFIO_MODE_CLIENT)
		return rpmafio_io_queue(job, io_u);
	return job->eng->server.queue(job, io_u);
}

int rpmafio_commit(struct thread_data *td)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job->mode == RPMAFIO_MODE_CLIENT)
		return rpmafio_io_commit(job);
	return 0;
}

int rpmafio_getevents(struct thread_data *td, unsigned int min, unsigned int max,
	const struct timespec *t)
{
	struct rpmafio_job *job = td->io_ops_data;
	if (job->mode == RPMAFIO_MODE_CLIENT)
		return rpmafio_io_getevents(job, min, max, t);
	return 0;
}

struct io_u *rpmafio_event(struct thread_data *td, int event)
{
	struct rpmafio_job *job = td->io_ops_data;
	return job->client.events[event];
}

char *rpmafio_errdetails(struct io_u *io_u)
{
	const struct rpmafio_job *job = io_u->engine_data;
	if (job == NULL || job->errmsg[0] == '\0')
		return strdup("the RDMA operation failed");
	return strdup(job->errmsg);
}

enum fio_q_status rpmafio_serve_until_disconnect(struct rpmafio_job *job, struct io_u *io_u)
{
	/*
	 * The whole serving happens inside the job's first I/O: wait for the
	 * client to leave (or for fio to stop the job), then end the job. fio
	 * leaves its I/O loop when td->done is set, so no other I/O follows.
	 */
	if (rpmafio_server_wait_disconnect(job, -1) < 0)
		io_u->error = job->td->error ? job->td->error : EIO;
	job->td->done = 1;
	return FIO_Q_COMPLETED;
}
