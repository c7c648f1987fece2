/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.c -- the logging API: two thresholds, a replaceable log function and
 * the default one, which writes to syslog and, above the auxiliary
 * threshold, to stderr. Also how a failed provider call is reported.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

#define RPMA_LOG_MSG_MAX 1024

/* By default warnings and errors reach the log function (syslog); errors also reach stderr. */
_Atomic int rpma_log_thresholds[RPMA_LOG_THRESHOLD_MAX] = {
	[RPMA_LOG_THRESHOLD] = RPMA_LOG_LEVEL_WARNING,
	[RPMA_LOG_THRESHOLD_AUX] = RPMA_LOG_LEVEL_ERROR,
};

static rpma_log_function rpma_log_default_function;
static _Atomic(rpma_log_function *) log_function = rpma_log_default_function;

static const char *const level_names[] = {
	[RPMA_LOG_LEVEL_FATAL] = "*FATAL*",
	[RPMA_LOG_LEVEL_ERROR] = "*ERROR*",
	[RPMA_LOG_LEVEL_WARNING] = "*WARNING*",
	[RPMA_LOG_LEVEL_NOTICE] = "*NOTICE*",
	[RPMA_LOG_LEVEL_INFO] = "*INFO*",
	[RPMA_LOG_LEVEL_DEBUG] = "*DEBUG*",
};

static const int syslog_priorities[] = {
	[RPMA_LOG_LEVEL_FATAL] = LOG_CRIT,
	[RPMA_LOG_LEVEL_ERROR] = LOG_ERR,
	[RPMA_LOG_LEVEL_WARNING] = LOG_WARNING,
	[RPMA_LOG_LEVEL_NOTICE] = LOG_NOTICE,
	[RPMA_LOG_LEVEL_INFO] = LOG_INFO,
	[RPMA_LOG_LEVEL_DEBUG] = LOG_DEBUG,
};

static bool level_is_valid(enum rpma_log_level level)
{
	return level >= RPMA_LOG_DISABLED && level <= RPMA_LOG_LEVEL_DEBUG;
}

static void rpma_log_default_function(enum rpma_log_level level, const char *file_name,
		const int line_no, const char *function_name, const char *message_format, ...)
{
	char message[RPMA_LOG_MSG_MAX];
	va_list ap;

	if (level < RPMA_LOG_LEVEL_FATAL || level > RPMA_LOG_LEVEL_DEBUG)
		return;

	va_start(ap, message_format);
	int len = vsnprintf(message, sizeof(message), message_format, ap);
	va_end(ap);
	if (len < 0)
		return;

	syslog(syslog_priorities[level], "%s %s:%d %s: %s", level_names[level],
		file_name ? file_name : "?", line_no, function_name ? function_name : "?", message);

	if (level > atomic_load(&rpma_log_thresholds[RPMA_LOG_THRESHOLD_AUX]))
		return;

	char when[32] = "";
	struct timespec ts;
	struct tm tm;
	if (clock_gettime(CLOCK_REALTIME, &ts) == 0 && localtime_r(&ts.tv_sec, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(stderr, "%s librpma %s %s:%d %s: %s\n", when, level_names[level],
		file_name ? file_name : "?", line_no, function_name ? function_name : "?", message);
}

void rpma_log_emit(enum rpma_log_level level, const char *file, int line,
		const char *func, const char *fmt, ...)
{
	char message[RPMA_LOG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	int len = vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (len < 0)
		return;

	/* Only the base name: full build paths say nothing to a user. */
	const char *base = file ? strrchr(file, '/') : NULL;
	rpma_log_function *fn = atomic_load(&log_function);
	fn(level, base ? base + 1 : file, line, func, "%s", message);
}

const char *rpma_strerror_r_safe(int err)
{
	/* strerrorname_np is short and thread-safe ("ENOMEM"); fall back to the number */
	const char *name = strerrorname_np(err);
	return name ? name : "unknown errno";
}

void rpma_report_provider_failure(const char *file, int line, const char *func, int err,
		const char *call)
{
	RPMA_LOG_AT(RPMA_LOG_LEVEL_ERROR, file, line, func, RPMA_LOG_FAILED_CALL_FMT, call,
		rpma_strerror_r_safe(err));
	errno = err;
}

int rpma_log_set_threshold(enum rpma_log_threshold threshold, enum rpma_log_level level)
{
	if (threshold != RPMA_LOG_THRESHOLD && threshold != RPMA_LOG_THRESHOLD_AUX)
		return RPMA_E_INVAL;
	if (!level_is_valid(level))
		return RPMA_E_INVAL;

	atomic_store(&rpma_log_thresholds[threshold], (int)level);
	return 0;
}

int rpma_log_get_threshold(enum rpma_log_threshold threshold, enum rpma_log_level *level)
{
	if (threshold != RPMA_LOG_THRESHOLD && threshold != RPMA_LOG_THRESHOLD_AUX)
		return RPMA_E_INVAL;
	if (level == NULL)
		return RPMA_E_INVAL;

	*level = (enum rpma_log_level)atomic_load(&rpma_log_thresholds[threshold]);
	return 0;
}

int rpma_log_set_function(rpma_log_function *fn)
{
	atomic_store(&log_function, fn ? fn : rpma_log_default_function);
	return 0;
}
