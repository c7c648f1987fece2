/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.h -- how a job says what went wrong (or what a user should know),
 * and whether fio wants it to stop. The calls that reach fio (fail, note,
 * debug, stop_requested) are fio/job.c's; unit tests bring stand-ins.
 */
#ifndef RPMAFIO_REPORT_H
#define RPMAFIO_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "job.h"

/*
 * Report a failure of the job: "<engine>: job N: <message>" whole on stderr
 * (never into fio's --output file), a short copy (rpmafio_short_copy) for
 * fio's error summary (td->verror), and err (an errno value) as the job's
 * error. Only the first failure is kept: it is the root cause. Returns -1.
 */
int rpmafio_fail(struct rpmafio_job *job, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A note (not an error) on stderr: "<engine>: job N: <message>" (never into
 * fio's --output file, so JSON reports stay valid).
 */
void rpmafio_note(struct rpmafio_job *job, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* a line of fio's network debug output (--debug=net) */
void rpmafio_debug(const struct rpmafio_job *job, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * true when fio stops the job before its time: Ctrl-C, another job's error
 * (exitall). Not the end of runtime=, which fio marks the same way but which
 * must not cut short the I/Os in flight.
 */
bool rpmafio_stop_requested(const struct rpmafio_job *job);

/* true once fio wants the job to stop (SIGINT, another job's error, runtime= over...) */
static inline bool rpmafio_stopping(const struct rpmafio_job *job)
{
	return *job->stop;
}

/* rpma_err_2str() plus errno for RPMA_E_PROVIDER, into buf (common/report.c) */
const char *rpmafio_rpma_err(int ret, char *buf, size_t len);

/*
 * msg as it fits into buf (len bytes with its NUL): whole, or cut at the last
 * word boundary that leaves room for " ..." after it (mid-word only when a
 * single word is longer than that). For
 * fio's error summary, which holds ~128 bytes with its own prefix; the whole
 * message goes to stderr (common/report.c).
 */
const char *rpmafio_short_copy(const char *msg, char *buf, size_t len);

#endif /* RPMAFIO_REPORT_H */
