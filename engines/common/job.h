/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * job.h -- what every fio job of an rpma-fio engine is, client or server: its
 * method, fio's thread, its options, its port and its first failure. A
 * client (client/client.h) and a server (server/server.h) each begin with
 * one, so a job pointer is the pointer fio keeps (td->io_ops_data).
 */
#ifndef RPMAFIO_JOB_H
#define RPMAFIO_JOB_H

#include "fio.h"

#include "options.h"

struct rpmafio_method;

struct rpmafio_job {
	const struct rpmafio_method *method;
	struct thread_data *td;
	const struct rpmafio_opts *o;
	enum rpmafio_mode mode;
	unsigned index;		/* 0-based: fio's job number - 1 */
	char port[8];		/* base port + index */
	char errmsg[RPMAFIO_ERR_LEN]; /* the first failure, for fio's errdetails */
};

#endif /* RPMAFIO_JOB_H */
