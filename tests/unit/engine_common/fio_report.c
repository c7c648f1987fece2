/* SPDX-License-Identifier: BSD-3-Clause */
/* fio_report.c -- the engines' unit tests' stand-in for what reaches fio (see fio_report.h) */
#include <stdarg.h>
#include <stdio.h>

#include "common/report.h"
#include "fio_report.h"

struct fio_report fio_report;

int rpmafio_fail(struct rpmafio_job *job, int err, const char *fmt, ...)
{
	va_list ap;
	(void)job;
	if (fio_report.fails++ == 0) {
		fio_report.err = err;
		va_start(ap, fmt);
		vsnprintf(fio_report.msg, sizeof(fio_report.msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

void rpmafio_note(struct rpmafio_job *job, const char *fmt, ...)
{
	va_list ap;
	(void)job;
	fio_report.notes++;
	va_start(ap, fmt);
	vsnprintf(fio_report.note, sizeof(fio_report.note), fmt, ap);
	va_end(ap);
}

void rpmafio_debug(const struct rpmafio_job *job, const char *fmt, ...)
{
	(void)job;
	(void)fmt;
}

bool rpmafio_stop_requested(const struct rpmafio_job *job)
{
	(void)job;
	return fio_report.stop_requested;
}
