/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.c -- the logging API: two thresholds, a replaceable log function and
 * the default one, which writes to syslog and, above the auxiliary
 * threshold, to stderr. Also how a failed provider call is reported, with
 * the fields of the work request when it was a post.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

#define RPMA_LOG_MSG_MAX 1024
/* Room for a work request's fields: about 230 characters at their longest. */
#define RPMA_LOG_WR_TEXT_MAX 256

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
	/* strerrorname_np is short and thread-safe ("ENOMEM"); some providers return
	 * -errno (libsiw's post_recv: -EINVAL), else the number itself */
	static _Thread_local char unknown[40];
	const char *name = strerrorname_np(err);
	if (name == NULL && err < 0 && err != INT_MIN && (name = strerrorname_np(-err)) != NULL) {
		snprintf(unknown, sizeof(unknown), "-%s", name);
		return unknown;
	}
	if (name == NULL) {
		snprintf(unknown, sizeof(unknown), "unknown errno %d", err);
		return unknown;
	}
	return name;
}

void rpma_report_provider_failure(const char *file, int line, const char *func, int err,
		const char *call)
{
	RPMA_LOG_AT(RPMA_LOG_LEVEL_ERROR, file, line, func, RPMA_LOG_FAILED_CALL_FMT, call,
		rpma_strerror_r_safe(err));
	errno = err;
}

/* The send opcodes the library posts, as the log names them; RDMA ones have a remote range. */
static const struct {
	const char *name;
	bool rdma;
} send_opcodes[] = {
	[IBV_WR_RDMA_WRITE] = {"RDMA_WRITE", true},
	[IBV_WR_RDMA_WRITE_WITH_IMM] = {"RDMA_WRITE_WITH_IMM", true},
	[IBV_WR_SEND] = {"SEND", false},
	[IBV_WR_SEND_WITH_IMM] = {"SEND_WITH_IMM", false},
	[IBV_WR_RDMA_READ] = {"RDMA_READ", true},
};
#define SEND_OPCODES_COUNT (sizeof(send_opcodes) / sizeof(send_opcodes[0]))

/* Where the scatter list starts and how many bytes it holds in all. */
static void wr_fields_set_local(struct rpma_wr_fields *fields, const struct ibv_sge *sg_list,
		int num_sge)
{
	fields->has_local = num_sge > 0;
	fields->local_addr = num_sge > 0 ? sg_list[0].addr : 0;
	fields->length = 0;
	for (int i = 0; i < num_sge; i++)
		fields->length += sg_list[i].length;
}

struct rpma_wr_fields rpma_wr_fields_of_send(const struct ibv_send_wr *wr)
{
	bool known = (unsigned)wr->opcode < SEND_OPCODES_COUNT && send_opcodes[wr->opcode].name;
	struct rpma_wr_fields fields = {
		.opcode = known ? send_opcodes[wr->opcode].name : "UNKNOWN",
		.wr_id = wr->wr_id,
		/* the union's other members are not ours: an unknown opcode shows none */
		.has_remote = known && send_opcodes[wr->opcode].rdma,
		.remote_addr = wr->wr.rdma.remote_addr,
		.rkey = wr->wr.rdma.rkey,
		.has_send_flags = true,
		.send_flags = wr->send_flags,
	};
	wr_fields_set_local(&fields, wr->sg_list, wr->num_sge);
	return fields;
}

struct rpma_wr_fields rpma_wr_fields_of_recv(const struct ibv_recv_wr *wr)
{
	struct rpma_wr_fields fields = {.opcode = "RECV", .wr_id = wr->wr_id};
	wr_fields_set_local(&fields, wr->sg_list, wr->num_sge);
	return fields;
}

struct rpma_wr_fields rpma_wr_fields_of_remote(const char *opcode, const void *op_context,
		unsigned send_flags, uint64_t remote_addr, uint32_t rkey, uint64_t length)
{
	struct rpma_wr_fields fields = {
		.opcode = opcode, .wr_id = (uint64_t)(uintptr_t)op_context, .length = length,
		.has_remote = true, .remote_addr = remote_addr, .rkey = rkey,
		.has_send_flags = true, .send_flags = send_flags,
	};
	return fields;
}

/* A line written into a fixed buffer: what does not fit is cut, nothing is allocated. */
struct log_text {
	char *buf;
	size_t size;
	size_t used;
};

static void text_append(struct log_text *text, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));

static void text_append(struct log_text *text, const char *fmt, ...)
{
	if (text->used >= text->size)
		return;

	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(text->buf + text->used, text->size - text->used, fmt, ap);
	va_end(ap);
	if (len > 0)
		text->used += (size_t)len;
}

/* "SIGNALED" or "UNSIGNALED" first: whether a success completes is what a report needs most. */
static void text_append_send_flags(struct log_text *text, unsigned flags)
{
	static const struct {
		unsigned bit;
		const char *name;
	} named[] = {
		{IBV_SEND_FENCE, "FENCE"},
		{IBV_SEND_SOLICITED, "SOLICITED"},
		{IBV_SEND_INLINE, "INLINE"},
	};
	unsigned unnamed = flags & ~(unsigned)IBV_SEND_SIGNALED;

	text_append(text, " send_flags=%s", (flags & IBV_SEND_SIGNALED) ? "SIGNALED" : "UNSIGNALED");
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (flags & named[i].bit)
			text_append(text, "|%s", named[i].name);
		unnamed &= ~named[i].bit;
	}
	if (unnamed)
		text_append(text, "|0x%x", unnamed);
}

static void text_append_wr(struct log_text *text, const struct rpma_wr_fields *wr)
{
	text_append(text, "opcode=%s wr_id=0x%" PRIx64, wr->opcode, wr->wr_id);
	if (wr->has_local)
		text_append(text, " local_addr=0x%" PRIx64, wr->local_addr);
	text_append(text, " length=%" PRIu64, wr->length);
	if (wr->has_remote)
		text_append(text, " remote_addr=0x%" PRIx64 " rkey=0x%" PRIx32, wr->remote_addr,
			wr->rkey);
	if (wr->has_send_flags)
		text_append_send_flags(text, wr->send_flags);
}

void rpma_report_post_failure(const char *file, int line, const char *func, int err,
		const char *call, struct rpma_wr_fields wr)
{
	/* a failure path, yet formatted only when the line will be logged */
	if (rpma_log_passes(RPMA_LOG_LEVEL_ERROR)) {
		char fields[RPMA_LOG_WR_TEXT_MAX] = "";
		struct log_text text = {.buf = fields, .size = sizeof(fields)};
		text_append_wr(&text, &wr);
		rpma_log_emit(RPMA_LOG_LEVEL_ERROR, file, line, func,
			RPMA_LOG_FAILED_CALL_FMT "; work request: %s", call,
			rpma_strerror_r_safe(err), fields);
	}
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
