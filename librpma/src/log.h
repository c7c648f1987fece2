/* SPDX-License-Identifier: BSD-3-Clause */
/* log.h -- the library's internal logging macros */
#ifndef RPMA_LOG_H
#define RPMA_LOG_H

#include <stdatomic.h>
#include "librpma.h"

/* Thresholds are read on every log call, so they are atomics (no lock). */
extern _Atomic int rpma_log_thresholds[RPMA_LOG_THRESHOLD_MAX];

void rpma_log_emit(enum rpma_log_level level, const char *file, int line,
		const char *func, const char *fmt, ...)
		__attribute__((format(printf, 5, 6)));

/* Cheap check first, so a disabled level costs one atomic load. */
#define RPMA_LOG(level, ...) \
	do { \
		if ((int)(level) <= atomic_load_explicit(&rpma_log_thresholds[RPMA_LOG_THRESHOLD], \
				memory_order_relaxed)) \
			rpma_log_emit((level), __FILE__, __LINE__, __func__, __VA_ARGS__); \
	} while (0)

#define RPMA_LOG_FATAL(...) RPMA_LOG(RPMA_LOG_LEVEL_FATAL, __VA_ARGS__)
#define RPMA_LOG_ERROR(...) RPMA_LOG(RPMA_LOG_LEVEL_ERROR, __VA_ARGS__)
#define RPMA_LOG_WARNING(...) RPMA_LOG(RPMA_LOG_LEVEL_WARNING, __VA_ARGS__)
#define RPMA_LOG_NOTICE(...) RPMA_LOG(RPMA_LOG_LEVEL_NOTICE, __VA_ARGS__)
#define RPMA_LOG_INFO(...) RPMA_LOG(RPMA_LOG_LEVEL_INFO, __VA_ARGS__)
#define RPMA_LOG_DEBUG(...) RPMA_LOG(RPMA_LOG_LEVEL_DEBUG, __VA_ARGS__)

/* Log a failed provider call with its errno text, e.g. "ibv_create_cq: ENOMEM". */
#define RPMA_LOG_ERROR_ERRNO(err, call) \
	RPMA_LOG_ERROR("%s() failed: %s", (call), rpma_strerror_r_safe(err))

const char *rpma_strerror_r_safe(int err);

#endif /* RPMA_LOG_H */
