/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optparse.h -- parsing and checking the engines' option values.
 *
 * Pure functions (no fio, no RDMA): each takes a string as the user typed it
 * and either fills its output or writes a one-line reason into err (the caller
 * adds the option's name and value). They are shared by the option callbacks
 * (fio reports a bad value while parsing the job) and by the engines' init.
 */
#ifndef RPMAFIO_OPTPARSE_H
#define RPMAFIO_OPTPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the options' defaults (the job files' too: env_defaults.c) */
#define RPMAFIO_DEFAULT_PORT "7204"
#define RPMAFIO_DEFAULT_CONNECT_TIMEOUT_MS "30000"
/* ms of silence before a server probes its client */
#define RPMAFIO_DEFAULT_KEEPALIVE_MS "1000"
/*
 * The job files' SERVER_IP when the user gave none: not an address (an
 * address belongs to a testbed, not to the engine) but a word that
 * rpmafio_check_addr() turns into an error naming SERVER_IP.
 */
#define RPMAFIO_SERVER_IP_UNSET "SERVER_IP-is-not-set"

/* mem_offset= when not given: job i of a path at i * size (the layout before mem_offset) */
#define RPMAFIO_MEM_OFFSET_AUTO "auto"

/* the largest CPU number a cpus= list may name (the size of a cpu_set_t) */
#define RPMAFIO_CPU_MAX 1023

/* a text long enough for any reason the parsers give */
#define RPMAFIO_ERR_LEN 256

/* Write a one-line reason into err (when err is not NULL); returns -1. */
int rpmafio_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* which side a job plays */
enum rpmafio_mode {
	RPMAFIO_MODE_CLIENT = 0,
	RPMAFIO_MODE_SERVER = 1,
};

/*
 * A TCP-style port: decimal digits only, 1..65535. Returns 0 and *port, or -1
 * with the reason in err.
 */
int rpmafio_parse_port(const char *str, unsigned *port, char *err, size_t errlen);

/*
 * The port job number `index` (0-based) uses: base + index, written as a
 * decimal string into out (librpma takes ports as strings). Returns -1 with
 * the reason in err when the sum is not a valid port.
 */
int rpmafio_job_port(unsigned base, unsigned index, char *out, size_t outlen,
		char *err, size_t errlen);

/*
 * An address as the user may give it: a numeric IPv4 or IPv6 address or a
 * host name (letters, digits, '-', '.'; at most 253 characters). Something that
 * looks like a dotted-decimal IPv4 address but is not one (1.2.3.999, 10.1)
 * is rejected, and so is RPMAFIO_SERVER_IP_UNSET. Only the syntax is checked:
 * resolving it is librpma's job.
 */
int rpmafio_check_addr(const char *str, char *err, size_t errlen);

/*
 * A CPU list: comma-separated CPU numbers and ranges, e.g. "0-1,3". Fills
 * cpus[] with the distinct CPUs in ascending order and *ncpus with their
 * count (cpus must have room for RPMAFIO_CPU_MAX + 1 entries). Empty items,
 * reversed ranges, junk and numbers above RPMAFIO_CPU_MAX are errors.
 */
int rpmafio_parse_cpulist(const char *str, unsigned *cpus, unsigned *ncpus,
		char *err, size_t errlen);

/* The CPU job number `index` (0-based) is pinned to: round robin over the list. */
static inline unsigned rpmafio_job_cpu(const unsigned *cpus, unsigned ncpus, unsigned index)
{
	return cpus[index % ncpus];
}

/* "client" or "server" */
int rpmafio_parse_mode(const char *str, enum rpmafio_mode *mode, char *err, size_t errlen);

/*
 * A byte count as fio reads size=: decimal digits, then optionally a suffix in
 * any case: k, m, g, t, p (or kb ... pb) multiply by kb_base to the power 1-5,
 * kib ... pib by the other base -- fio's own inversion: with the default
 * kb_base=1024, 64m is 64 * 2^20 bytes but 64MiB is 64 * 10^6. kb_base is fio's
 * kb_base= (1000 or 1024; anything else is taken as 1024, fio's default).
 * Hexadecimal, fio's arithmetic and percentages are not taken. Returns 0 and
 * *bytes, or -1 with the reason in err (junk, a value above 2^64 - 1).
 */
int rpmafio_parse_bytes(const char *str, unsigned kb_base, uint64_t *bytes,
		char *err, size_t errlen);

/*
 * mem_offset= as given: NULL, "" or RPMAFIO_MEM_OFFSET_AUTO (*given = false),
 * or a byte count (rpmafio_parse_bytes(); *given = true, *bytes).
 */
int rpmafio_parse_mem_offset(const char *str, unsigned kb_base, bool *given, uint64_t *bytes,
		char *err, size_t errlen);

/* what places a server job's memory in its path (filename=) */
struct rpmafio_region_vals {
	const char *path;	/* filename=: "malloc" (DRAM) or a device-DAX path or a file */
	bool dram;		/* path is DRAM's name (RPMAFIO_MEM_DRAM, common/mem.h) */
	const char *mem_offset;	/* as given (rpmafio_parse_mem_offset()) */
	unsigned kb_base;	/* fio's kb_base=, for mem_offset's suffix */
	uint64_t size;		/* size=: the job's bytes (> 0) */
	unsigned job_index;	/* 0-based over the job file: fio's job number - 1 */
	unsigned subjob_index;	/* 0-based within the job's section (numjobs= clones) */
};

/* where a server job's bytes lie, and why there */
enum rpmafio_region_layout {
	RPMAFIO_REGION_DRAM,		/* filename=malloc: memory of the job's own, no place */
	RPMAFIO_REGION_BY_JOB_INDEX,	/* mem_offset=auto: job i at i * size */
	RPMAFIO_REGION_FROM_MEM_OFFSET,	/* at mem_offset + subjob_index * size: the section's
					 * jobs side by side from mem_offset */
	RPMAFIO_REGION_INVALID,		/* err names the option, its value and why */
};

/*
 * Where the job's bytes [*start, *start + size) of its path begin (*start = 0
 * for DRAM). Invalid: a malformed mem_offset; mem_offset given with
 * filename=malloc (DRAM is each job's own: an offset there means the job was
 * meant for a device, and is refused rather than run on DRAM unnoticed); bytes
 * that end beyond the largest file offset (2^63 - 1).
 */
enum rpmafio_region_layout rpmafio_region_start(const struct rpmafio_region_vals *v,
		uint64_t *start, char *err, size_t errlen);

/* the values the engine needs checked together, once the job is known */
struct rpmafio_optvals {
	enum rpmafio_mode mode;
	const char *serverip;	/* NULL or "" when not given */
	const char *port;	/* the base port as given */
	const char *cpus;	/* NULL or "" when not given */
	unsigned connect_timeout_ms;
	unsigned job_index;	/* 0-based */
	unsigned clients_per_job; /* a server's clients_per_job= (0 taken as 1) */
};

/*
 * Check a job's engine options as a whole: serverip given and well formed,
 * port and port + job_index valid, the CPU list valid, a non-zero timeout.
 * A server job with n = clients_per_job above 1 takes n ports from
 * port + job_index * n (all must be valid); a client refuses n above 1.
 * On failure err says which option is wrong, with its value and why, e.g.
 * "port=70000: not a port number (expected 1-65535)". Fills port_out with the
 * job's own (first) port on success.
 */
int rpmafio_optvals_check(const struct rpmafio_optvals *v, char *port_out, size_t port_len,
		char *err, size_t errlen);

#endif /* RPMAFIO_OPTPARSE_H */
