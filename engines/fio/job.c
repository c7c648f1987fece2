/* SPDX-License-Identifier: BSD-3-Clause */
/* job.c -- a job's failures, notes and stop requests, as fio takes them (see common/report.h) */
#include <stdarg.h>
#include <stdio.h>

#include "fio.h"
#include "fio_time.h"

#include "common/method.h"
#include "common/report.h"

/*
 * A line "<engine>: job N: <msg>" on stderr, never into fio's --output file
 * (log_err() writes there too, which would break a JSON report); as a backend
 * (fio --server) it goes to fio's client like any message.
 */
static void report_line(const struct rpmafio_job *job, const char *msg)
{
	if (is_backend)
		log_err("%s: job %u: %s\n", job->method->name, job->index + 1, msg);
	else
		fprintf(stderr, "%s: job %u: %s\n", job->method->name, job->index + 1, msg);
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
	report_line(job, msg);
	/* fio keeps ~128 bytes of it with a prefix of its own: a short copy, whole words */
	char head[80];
	td_vmsg(job->td, err, rpmafio_short_copy(msg, head, sizeof(head)), job->method->name);
	return -1;
}

void rpmafio_note(struct rpmafio_job *job, const char *fmt, ...)
{
	char msg[RPMAFIO_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report_line(job, msg);
}

void rpmafio_debug(const struct rpmafio_job *job, const char *fmt, ...)
{
	char msg[RPMAFIO_ERR_LEN];
	va_list ap;

	if (((1UL << FD_NET) & fio_debug) == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dprint(FD_NET, "%s: job %u: %s\n", job->method->name, job->index + 1, msg);
}

bool rpmafio_stop_requested(const struct rpmafio_job *job)
{
	struct thread_data *td = job->td;
	if (!td->terminate)
		return false;
	/* fio's own test for runtime= being over (td->epoch restarts after ramp_time=) */
	return !(td->o.timeout && !in_ramp_time(td) && utime_since_now(&td->epoch) >= td->o.timeout);
}
