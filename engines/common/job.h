/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * job.h -- what every fio job of an rpma-fio engine is, client or server: its
 * method, its options, what it takes of fio's job (copied by fio/engine.c at
 * init, so nothing outside fio/ reads fio's structures), its port and its
 * first failure. A client (client/client.h) and a server (server/server.h)
 * each begin with one, so a job pointer is the pointer fio keeps.
 */
#ifndef RPMAFIO_JOB_H
#define RPMAFIO_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "access.h"
#include "options.h"

struct rpmafio_method;
struct thread_data;	/* fio's: only fio/ looks inside */

struct rpmafio_job {
	const struct rpmafio_method *method;
	struct thread_data *td;
	const struct rpmafio_opts *o;
	enum rpmafio_mode mode;
	unsigned index;		/* 0-based: fio's job number - 1 */
	unsigned subjob_index;	/* 0-based within the job's section (fio's numjobs clones) */
	unsigned kb_base;	/* fio's kb_base= (1024 or 1000): what k, m, g mean */
	/* fio's job */
	uint32_t iodepth;	/* iodepth= (at least 1) */
	bool sync;		/* sync=1: each I/O completes before the next */
	bool writes;		/* the workload writes */
	uint64_t size;		/* size= (0: not given) */
	unsigned nr_files;	/* filename= entries */
	const char *filename;	/* the one filename= (NULL: not exactly one) */
	const volatile bool *stop; /* fio wants the job to stop */
	char port[8];		/* base port + index */
	struct rpmafio_secret secret;	/* secret_file='s (len 0: none) */
	char errmsg[RPMAFIO_ERR_LEN]; /* the first failure, for fio's errdetails */
};

#endif /* RPMAFIO_JOB_H */
