/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.h -- the library's internal logging macros, and the one way a failed
 * provider call is reported: logged, its errno kept, RPMA_E_PROVIDER returned.
 */
#ifndef RPMA_LOG_H
#define RPMA_LOG_H

#include <stdatomic.h>
#include "librpma.h"

/* Thresholds are read on every log call, so they are atomics (no lock). */
extern _Atomic int rpma_log_thresholds[RPMA_LOG_THRESHOLD_MAX];

/*
 * Format a message and hand it to the log function, with file cut to its base
 * name; the callers check the threshold first (RPMA_LOG_AT). ERRORS: none (a
 * message that cannot be formatted is dropped).
 */
void rpma_log_emit(enum rpma_log_level level, const char *file, int line,
		const char *func, const char *fmt, ...)
		__attribute__((format(printf, 5, 6)));

/* Cheap check first, so a disabled level costs one atomic load. */
static inline bool rpma_log_passes(enum rpma_log_level level)
{
	return (int)level <= atomic_load_explicit(&rpma_log_thresholds[RPMA_LOG_THRESHOLD],
		memory_order_relaxed);
}

/* A message attributed to a given place: the helpers below log their caller's. */
#define RPMA_LOG_AT(level, file, line, func, ...) \
	do { \
		if (rpma_log_passes(level)) \
			rpma_log_emit((level), (file), (line), (func), __VA_ARGS__); \
	} while (0)

#define RPMA_LOG(level, ...) RPMA_LOG_AT((level), __FILE__, __LINE__, __func__, __VA_ARGS__)

#define RPMA_LOG_FATAL(...) RPMA_LOG(RPMA_LOG_LEVEL_FATAL, __VA_ARGS__)
#define RPMA_LOG_ERROR(...) RPMA_LOG(RPMA_LOG_LEVEL_ERROR, __VA_ARGS__)
#define RPMA_LOG_WARNING(...) RPMA_LOG(RPMA_LOG_LEVEL_WARNING, __VA_ARGS__)
#define RPMA_LOG_NOTICE(...) RPMA_LOG(RPMA_LOG_LEVEL_NOTICE, __VA_ARGS__)
#define RPMA_LOG_INFO(...) RPMA_LOG(RPMA_LOG_LEVEL_INFO, __VA_ARGS__)
#define RPMA_LOG_DEBUG(...) RPMA_LOG(RPMA_LOG_LEVEL_DEBUG, __VA_ARGS__)

/* How a failed provider call reads in the log: "ibv_create_cq() failed: ENOMEM". */
#define RPMA_LOG_FAILED_CALL_FMT "%s() failed: %s"

/* Log a failed provider call with its errno name (errno itself is left as it is). */
#define RPMA_LOG_ERROR_ERRNO(err, call) \
	RPMA_LOG_ERROR(RPMA_LOG_FAILED_CALL_FMT, (call), rpma_strerror_r_safe(err))

/*
 * err's name ("ENOMEM"), "-ENAME" for a negated errno, else "unknown errno N";
 * thread-safe (the last two in a per-thread buffer). ERRORS: none.
 */
const char *rpma_strerror_r_safe(int err);

/*
 * The provider call named call failed with err: log it at the given place and
 * set errno to err (logging may have changed it). ERRORS: none.
 */
void rpma_report_provider_failure(const char *file, int line, const char *func, int err,
		const char *call);
/*
 * Report it at the caller's place; the value is RPMA_E_PROVIDER, visibly, so
 * that the compiler and the static analysers know the failure path is one.
 */
#define RPMA_PROVIDER_FAILED(err, call) \
	(rpma_report_provider_failure(__FILE__, __LINE__, __func__, (err), (call)), \
	RPMA_E_PROVIDER)

/*
 * A work request as the log line of its failed post shows it: what a user
 * needs to report a device problem. Built only when posting failed.
 */
struct rpma_wr_fields {
	const char *opcode;	/* "RDMA_WRITE", "RECV", "FLUSH", ... */
	uint64_t wr_id;		/* the operation's op_context */
	bool has_local;		/* a local buffer at local_addr */
	uint64_t local_addr;
	uint64_t length;	/* bytes it moves; a flush's: of the remote range */
	bool has_remote;	/* a remote range at remote_addr, under rkey */
	uint64_t remote_addr;
	uint32_t rkey;
	bool has_send_flags;	/* receives have none */
	unsigned send_flags;	/* IBV_SEND_* */
};

/* The fields of a send-queue work request, as posted. ERRORS: none. */
struct rpma_wr_fields rpma_wr_fields_of_send(const struct ibv_send_wr *wr);
/* The fields of a receive work request, as posted. ERRORS: none. */
struct rpma_wr_fields rpma_wr_fields_of_recv(const struct ibv_recv_wr *wr);
/*
 * The fields of a request on a remote range posted through the extended
 * interface (ibv_wr_*), which keeps no copy of it to take them from.
 * ERRORS: none.
 */
struct rpma_wr_fields rpma_wr_fields_of_remote(const char *opcode, const void *op_context,
		unsigned send_flags, uint64_t remote_addr, uint32_t rkey, uint64_t length);

/*
 * Posting wr failed in the provider call named call with err: as
 * rpma_report_provider_failure(), and the log line also names wr's fields:
 * "ibv_post_send() failed: ENOMEM; work request: opcode=RDMA_WRITE ...".
 * wr is taken by value so a caller passes a builder's result in one line.
 * ERRORS: none.
 */
void rpma_report_post_failure(const char *file, int line, const char *func, int err,
		const char *call, struct rpma_wr_fields wr);
/* Report it at the caller's place; the value is RPMA_E_PROVIDER. */
#define RPMA_POST_FAILED(err, call, wr) \
	(rpma_report_post_failure(__FILE__, __LINE__, __func__, (err), (call), (wr)), \
	RPMA_E_PROVIDER)

#endif /* RPMA_LOG_H */
