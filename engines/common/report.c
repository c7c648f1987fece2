/* SPDX-License-Identifier: BSD-3-Clause */
/* report.c -- failures, notes and the clock (see report.h) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <librpma.h>

#include "fio_time.h"

#include "method.h"
#include "report.h"

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
		return -1;
	snprintf(job->errmsg, sizeof(job->errmsg), "%s", msg);
	log_err("%s: job %u: %s\n", job->method->name, job->index + 1, msg);
	td_vmsg(job->td, err, job->errmsg, job->method->name);
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
		log_err("%s: job %u: %s\n", job->method->name, job->index + 1, msg);
	else
		fprintf(stderr, "%s: job %u: %s\n", job->method->name, job->index + 1, msg);
}

bool rpmafio_stop_requested(const struct rpmafio_job *job)
{
	struct thread_data *td = job->td;
	if (!td->terminate)
		return false;
	/* fio's own test for runtime= being over (td->epoch restarts after ramp_time=) */
	return !(td->o.timeout && !in_ramp_time(td) && utime_since_now(&td->epoch) >= td->o.timeout);
}
