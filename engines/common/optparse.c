/* SPDX-License-Identifier: BSD-3-Clause */
/* optparse.c -- parsing and checking the engines' option values (see optparse.h) */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "optparse.h"

int rpmafio_errf(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Parse the decimal number at *pos (digits only, no sign) not above max.
 * Advances *pos past the digits. Returns -1 for no digits or a value above max.
 */
static int parse_uint(const char **pos, unsigned long max, unsigned long *out)
{
	const char *p = *pos;
	unsigned long v = 0;
	if (!is_digit(*p))
		return -1;
	for (; is_digit(*p); p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > max)
			return -1;
	}
	*pos = p;
	*out = v;
	return 0;
}

int rpmafio_parse_port(const char *str, unsigned *port, char *err, size_t errlen)
{
	unsigned long v;
	const char *p = str;
	if (str == NULL || *str == '\0')
		return rpmafio_errf(err, errlen, "no port given (expected 1-65535)");
	if (parse_uint(&p, 65535, &v) || *p != '\0' || v == 0)
		return rpmafio_errf(err, errlen, "not a port number (expected 1-65535)");
	*port = (unsigned)v;
	return 0;
}

int rpmafio_job_port(unsigned base, unsigned index, char *out, size_t outlen,
		char *err, size_t errlen)
{
	unsigned long port = (unsigned long)base + index;
	if (base == 0 || port > 65535)
		return rpmafio_errf(err, errlen, "the port of job %u is %lu + %u = %lu, above 65535",
			index + 1, (unsigned long)base, index, port);
	int n = snprintf(out, outlen, "%lu", port);
	if (n < 0 || (size_t)n >= outlen)
		return rpmafio_errf(err, errlen, "no room for the port string");
	return 0;
}

/* only digits and dots: meant as an IPv4 address */
static bool looks_dotted_decimal(const char *s)
{
	bool digit = false;
	for (; *s; s++) {
		if (is_digit(*s))
			digit = true;
		else if (*s != '.')
			return false;
	}
	return digit;
}

static bool is_host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
		c == '-' || c == '.';
}

int rpmafio_check_addr(const char *str, char *err, size_t errlen)
{
	unsigned char buf[sizeof(struct in6_addr)];
	if (str == NULL || *str == '\0')
		return rpmafio_errf(err, errlen, "no address given");
	if (strcmp(str, RPMAFIO_SERVER_IP_UNSET) == 0)
		return rpmafio_errf(err, errlen, "SERVER_IP is not set: the job files in jobs/ take "
			"the server's address from it (SERVER_IP=<address> fio ...)");
	if (inet_pton(AF_INET, str, buf) == 1 || inet_pton(AF_INET6, str, buf) == 1)
		return 0;
	if (looks_dotted_decimal(str))
		return rpmafio_errf(err, errlen, "not a valid IPv4 address");
	if (strchr(str, ':'))
		return rpmafio_errf(err, errlen, "not a valid IPv6 address");
	size_t len = strlen(str);
	if (len > 253)
		return rpmafio_errf(err, errlen, "a host name is at most 253 characters");
	for (const char *p = str; *p; p++) {
		if (!is_host_char(*p))
			return rpmafio_errf(err, errlen,
				"not an IP address or a host name (bad character '%c')", *p);
	}
	if (str[0] == '-' || str[0] == '.' || strstr(str, ".."))
		return rpmafio_errf(err, errlen, "not an IP address or a host name");
	return 0;
}

int rpmafio_parse_cpulist(const char *str, unsigned *cpus, unsigned *ncpus,
		char *err, size_t errlen)
{
	bool set[RPMAFIO_CPU_MAX + 1] = {false};
	const char *p = str;

	if (str == NULL || *str == '\0')
		return rpmafio_errf(err, errlen, "an empty CPU list");
	for (;;) {
		unsigned long lo, hi;
		const char *item = p;
		if (parse_uint(&p, RPMAFIO_CPU_MAX, &lo)) {
			if (is_digit(*item))
				return rpmafio_errf(err, errlen, "CPU numbers go up to %d", RPMAFIO_CPU_MAX);
			return rpmafio_errf(err, errlen, "expected a CPU number at \"%s\" "
				"(a list looks like 0-1,3)", item);
		}
		hi = lo;
		if (*p == '-') {
			p++;
			const char *upper = p;
			if (parse_uint(&p, RPMAFIO_CPU_MAX, &hi)) {
				if (is_digit(*upper))
					return rpmafio_errf(err, errlen, "CPU numbers go up to %d",
						RPMAFIO_CPU_MAX);
				return rpmafio_errf(err, errlen, "a range needs an upper bound at \"%s\"",
					upper);
			}
			if (hi < lo)
				return rpmafio_errf(err, errlen, "the range %lu-%lu is reversed", lo, hi);
		}
		for (unsigned long c = lo; c <= hi; c++)
			set[c] = true;
		if (*p == '\0')
			break;
		if (*p != ',')
			return rpmafio_errf(err, errlen, "unexpected \"%s\" (a list looks like 0-1,3)", p);
		p++;
	}
	unsigned n = 0;
	for (unsigned c = 0; c <= RPMAFIO_CPU_MAX; c++) {
		if (set[c])
			cpus[n++] = c;
	}
	*ncpus = n;
	return 0;
}

int rpmafio_parse_mode(const char *str, enum rpmafio_mode *mode, char *err, size_t errlen)
{
	if (str && strcmp(str, "client") == 0)
		*mode = RPMAFIO_MODE_CLIENT;
	else if (str && strcmp(str, "server") == 0)
		*mode = RPMAFIO_MODE_SERVER;
	else
		return rpmafio_errf(err, errlen, "expected client or server");
	return 0;
}

int rpmafio_optvals_check(const struct rpmafio_optvals *v, char *port_out, size_t port_len,
		char *err, size_t errlen)
{
	char why[RPMAFIO_ERR_LEN];
	unsigned port = 0;

	if (v->serverip == NULL || *v->serverip == '\0')
		return rpmafio_errf(err, errlen, "serverip= is not set: give %s (the job files "
			"in jobs/ take it from SERVER_IP: SERVER_IP=<address> fio ...)",
			v->mode == RPMAFIO_MODE_SERVER ? "the address to listen on" :
			"the server's address");
	if (rpmafio_check_addr(v->serverip, why, sizeof(why)))
		return rpmafio_errf(err, errlen, "serverip=%s: %s", v->serverip, why);
	if (rpmafio_parse_port(v->port, &port, why, sizeof(why)))
		return rpmafio_errf(err, errlen, "port=%s: %s", v->port ? v->port : "", why);
	const unsigned nc = v->clients_per_job ? v->clients_per_job : 1;
	if (nc > 1 && v->mode != RPMAFIO_MODE_SERVER)
		return rpmafio_errf(err, errlen, "clients_per_job=%u is a server's option (mode="
			"server): a client job is one client", nc);
	if (nc > 1 && (unsigned long)port + (unsigned long)v->job_index * nc + nc - 1 > 65535)
		return rpmafio_errf(err, errlen, "port=%s: job %u's %u clients (clients_per_job=%u) "
			"take ports %lu to %lu, above 65535", v->port, v->job_index + 1, nc, nc,
			(unsigned long)port + (unsigned long)v->job_index * nc,
			(unsigned long)port + (unsigned long)v->job_index * nc + nc - 1);
	if (rpmafio_job_port(port, v->job_index * nc, port_out, port_len, why, sizeof(why)))
		return rpmafio_errf(err, errlen, "port=%s: %s", v->port, why);
	if (v->cpus && *v->cpus) {
		unsigned cpus[RPMAFIO_CPU_MAX + 1], n;
		if (rpmafio_parse_cpulist(v->cpus, cpus, &n, why, sizeof(why)))
			return rpmafio_errf(err, errlen, "cpus=%s: %s", v->cpus, why);
	}
	if (v->connect_timeout_ms == 0)
		return rpmafio_errf(err, errlen, "connect_timeout=0: the timeout must be at least 1 ms");
	return 0;
}

/* fio's size suffixes: the power of the base, and whether it is the "iB" form */
struct byte_suffix {
	const char *name;
	unsigned power;
	bool ib;
};

static const struct byte_suffix byte_suffixes[] = {
	{"", 0, false},
	{"k", 1, false}, {"kb", 1, false}, {"kib", 1, true},
	{"m", 2, false}, {"mb", 2, false}, {"mib", 2, true},
	{"g", 3, false}, {"gb", 3, false}, {"gib", 3, true},
	{"t", 4, false}, {"tb", 4, false}, {"tib", 4, true},
	{"p", 5, false}, {"pb", 5, false}, {"pib", 5, true},
};

int rpmafio_parse_bytes(const char *str, unsigned kb_base, uint64_t *bytes,
		char *err, size_t errlen)
{
	const char *p = str;
	uint64_t v = 0;

	if (str == NULL || *str == '\0')
		return rpmafio_errf(err, errlen, "no byte count given");
	if (!is_digit(*p))
		return rpmafio_errf(err, errlen, "not a byte count (expected digits and an "
			"optional suffix: e.g. 4096, 64m, 1g)");
	for (; is_digit(*p); p++) {
		unsigned digit = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return rpmafio_errf(err, errlen, "more bytes than 64 bits hold");
		v = v * 10 + digit;
	}
	const struct byte_suffix *suffix = NULL;
	for (size_t i = 0; i < sizeof(byte_suffixes) / sizeof(byte_suffixes[0]); i++) {
		if (strcasecmp(p, byte_suffixes[i].name) == 0)
			suffix = &byte_suffixes[i];
	}
	if (suffix == NULL)
		return rpmafio_errf(err, errlen, "unknown suffix \"%s\" (expected k, m, g, t or p, "
			"as in size=: e.g. 64m, 1g)", p);
	/* fio's inversion: kb_base=1024 makes "kib" 1000 and kb_base=1000 makes it 1024 */
	uint64_t base = kb_base == 1000 ? 1000 : 1024;
	if (suffix->ib)
		base = base == 1000 ? 1024 : 1000;
	uint64_t n = v;
	for (unsigned i = 0; i < suffix->power; i++) {
		if (n > UINT64_MAX / base)
			return rpmafio_errf(err, errlen, "more bytes than 64 bits hold");
		n *= base;
	}
	*bytes = n;
	return 0;
}

int rpmafio_parse_mem_offset(const char *str, unsigned kb_base, bool *given, uint64_t *bytes,
		char *err, size_t errlen)
{
	char why[RPMAFIO_ERR_LEN];

	if (str == NULL || *str == '\0' || strcmp(str, RPMAFIO_MEM_OFFSET_AUTO) == 0) {
		*given = false;
		return 0;
	}
	if (rpmafio_parse_bytes(str, kb_base, bytes, why, sizeof(why)))
		return rpmafio_errf(err, errlen, "%s; or " RPMAFIO_MEM_OFFSET_AUTO " (job i at "
			"i * size)", why);
	*given = true;
	return 0;
}

/* a + b, or false when the sum passes the largest file offset */
static bool add_within_off(uint64_t a, uint64_t b, uint64_t *sum)
{
	const uint64_t off_max = INT64_MAX;
	if (a > off_max || b > off_max - a)
		return false;
	*sum = a + b;
	return true;
}

/* a * b, or false when the product passes the largest file offset */
static bool mul_within_off(uint64_t a, uint64_t b, uint64_t *product)
{
	const uint64_t off_max = INT64_MAX;
	if (b != 0 && a > off_max / b)
		return false;
	*product = a * b;
	return true;
}

enum rpmafio_region_layout rpmafio_region_start(const struct rpmafio_region_vals *v,
		uint64_t *start, char *err, size_t errlen)
{
	char why[RPMAFIO_ERR_LEN];
	uint64_t offset = 0, before = 0, end;
	bool given = false;

	if (rpmafio_parse_mem_offset(v->mem_offset, v->kb_base, &given, &offset,
			why, sizeof(why))) {
		rpmafio_errf(err, errlen, "mem_offset=%s: %s", v->mem_offset, why);
		return RPMAFIO_REGION_INVALID;
	}
	if (v->dram) {
		if (given) {
			rpmafio_errf(err, errlen, "mem_offset=%s: filename=%s is DRAM of the job's "
				"own: mem_offset places a job in a device-DAX path or a file (leave "
				"it out, or " RPMAFIO_MEM_OFFSET_AUTO ")", v->mem_offset, v->path);
			return RPMAFIO_REGION_INVALID;
		}
		*start = 0;
		return RPMAFIO_REGION_DRAM;
	}
	/* mem_offset: the section's jobs side by side from it; auto: job i at i * size, the
	 * layout the job files had before mem_offset (they keep it) */
	unsigned slot = given ? v->subjob_index : v->job_index;
	if (!mul_within_off(slot, v->size, &before) || !add_within_off(offset, before, start) ||
			!add_within_off(*start, v->size, &end)) {
		if (given)
			rpmafio_errf(err, errlen, "mem_offset=%s: with size=%llu, job %u of its "
				"section ends beyond the largest file offset (2^63 - 1)",
				v->mem_offset, (unsigned long long)v->size, v->subjob_index + 1);
		else
			rpmafio_errf(err, errlen, "size=%llu: job %u (at %u * size) ends beyond the "
				"largest file offset (2^63 - 1)", (unsigned long long)v->size,
				v->job_index + 1, v->job_index);
		return RPMAFIO_REGION_INVALID;
	}
	return given ? RPMAFIO_REGION_FROM_MEM_OFFSET : RPMAFIO_REGION_BY_JOB_INDEX;
}
