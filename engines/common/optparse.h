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

/* the values the engine needs checked together, once the job is known */
struct rpmafio_optvals {
	enum rpmafio_mode mode;
	const char *serverip;	/* NULL or "" when not given */
	const char *port;	/* the base port as given */
	const char *cpus;	/* NULL or "" when not given */
	unsigned connect_timeout_ms;
	unsigned job_index;	/* 0-based */
};

/*
 * Check a job's engine options as a whole: serverip given and well formed,
 * port and port + job_index valid, the CPU list valid, a non-zero timeout.
 * On failure err says which option is wrong, with its value and why, e.g.
 * "port=70000: not a port number (expected 1-65535)". Fills port_out with the
 * job's own port on success.
 */
int rpmafio_optvals_check(const struct rpmafio_optvals *v, char *port_out, size_t port_len,
		char *err, size_t errlen);

#endif /* RPMAFIO_OPTPARSE_H */
