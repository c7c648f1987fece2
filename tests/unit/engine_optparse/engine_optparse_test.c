/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_optparse_test.c -- the engines' option values: ports, addresses, CPU
 * lists, the whole job, byte counts and where a server job's bytes lie
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/optparse.h"

static char err[RPMAFIO_ERR_LEN];

static void port_valid(void **state)
{
	(void)state;
	unsigned port = 0;
	assert_int_equal(rpmafio_parse_port("7204", &port, err, sizeof(err)), 0);
	assert_int_equal(port, 7204);
	assert_int_equal(rpmafio_parse_port("1", &port, err, sizeof(err)), 0);
	assert_int_equal(port, 1);
	assert_int_equal(rpmafio_parse_port("65535", &port, err, sizeof(err)), 0);
	assert_int_equal(port, 65535);
}

static void port_invalid(void **state)
{
	(void)state;
	const char *bad[] = {"", "0", "65536", "99999999999999999999", "abc", "12a", "-1", " 1",
		"1 ", "+5", "0x10", "7204,7205"};
	unsigned port = 42;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(rpmafio_parse_port(bad[i], &port, err, sizeof(err)), -1);
		assert_true(strstr(err, "1-65535") != NULL);
		assert_int_equal(port, 42); /* untouched */
	}
	assert_int_equal(rpmafio_parse_port(NULL, &port, err, sizeof(err)), -1);
}

static void job_port(void **state)
{
	(void)state;
	char out[8];
	assert_int_equal(rpmafio_job_port(7204, 0, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "7204");
	assert_int_equal(rpmafio_job_port(7204, 3, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "7207");
	assert_int_equal(rpmafio_job_port(65535, 0, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "65535");
	assert_int_equal(rpmafio_job_port(65535, 1, out, sizeof(out), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "job 2"));
	assert_non_null(strstr(err, "65536"));
	assert_int_equal(rpmafio_job_port(65000, 4000, out, sizeof(out), err, sizeof(err)), -1);
	assert_int_equal(rpmafio_job_port(1, 0, out, 1, err, sizeof(err)), -1); /* no room */
}

static void addr_valid(void **state)
{
	(void)state;
	const char *good[] = {"192.168.77.1", "0.0.0.0", "255.255.255.255", "::1", "fe80::1",
		"2001:db8::7", "localhost", "server-1.example.com", "pmem1", "a"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(rpmafio_check_addr(good[i], err, sizeof(err)), 0);
}

static void addr_invalid(void **state)
{
	(void)state;
	struct {
		const char *addr;
		const char *why;
	} bad[] = {
		{"", "no address"},
		{"1.2.3.999", "IPv4"},
		{"10.1", "IPv4"},
		{"1.2.3.4.5", "IPv4"},
		{"...", "host name"},
		{"::1::2", "IPv6"},
		{"fe80::1%eth0", "IPv6"},
		{"a b", "bad character ' '"},
		{"host_name", "bad character '_'"},
		{"-host", "host name"},
		{".host", "host name"},
		{"a..b", "host name"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(rpmafio_check_addr(bad[i].addr, err, sizeof(err)), -1);
		if (strstr(err, bad[i].why) == NULL)
			fail_msg("\"%s\": \"%s\" does not say \"%s\"", bad[i].addr, err, bad[i].why);
	}
	char longname[300];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(rpmafio_check_addr(longname, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "253"));
	assert_int_equal(rpmafio_check_addr(NULL, err, sizeof(err)), -1);
}

static unsigned cpus[RPMAFIO_CPU_MAX + 1];

static void cpulist_valid(void **state)
{
	(void)state;
	unsigned n = 0;
	assert_int_equal(rpmafio_parse_cpulist("0-1,3", cpus, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 1);
	assert_int_equal(cpus[2], 3);

	/* sorted, duplicates merged */
	assert_int_equal(rpmafio_parse_cpulist("5,2,2,3-4", cpus, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(cpus[0], 2);
	assert_int_equal(cpus[3], 5);

	assert_int_equal(rpmafio_parse_cpulist("7", cpus, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cpus[0], 7);
	assert_int_equal(rpmafio_parse_cpulist("4-4", cpus, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);

	assert_int_equal(rpmafio_parse_cpulist("0-1023", cpus, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1024);
	assert_int_equal(cpus[1023], 1023);
}

static void cpulist_invalid(void **state)
{
	(void)state;
	struct {
		const char *list;
		const char *why;
	} bad[] = {
		{"", "empty"},
		{"1-0", "reversed"},
		{"0,", "expected a CPU number"},
		{",0", "expected a CPU number"},
		{"0,,1", "expected a CPU number"},
		{"0-", "upper bound"},
		{"-1", "expected a CPU number"},
		{"a", "expected a CPU number"},
		{"1 2", "unexpected"},
		{"1-2-3", "unexpected"},
		{"1024", "up to 1023"},
		{"0-1024", "up to 1023"},
		{"99999999999", "up to 1023"},
	};
	unsigned n = 77;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(rpmafio_parse_cpulist(bad[i].list, cpus, &n, err, sizeof(err)), -1);
		if (strstr(err, bad[i].why) == NULL)
			fail_msg("\"%s\": \"%s\" does not say \"%s\"", bad[i].list, err, bad[i].why);
		assert_int_equal(n, 77);
	}
	assert_int_equal(rpmafio_parse_cpulist(NULL, cpus, &n, err, sizeof(err)), -1);
}

static void job_cpu_round_robin(void **state)
{
	(void)state;
	unsigned n;
	assert_int_equal(rpmafio_parse_cpulist("0-1,3", cpus, &n, err, sizeof(err)), 0);
	assert_int_equal(rpmafio_job_cpu(cpus, n, 0), 0);
	assert_int_equal(rpmafio_job_cpu(cpus, n, 1), 1);
	assert_int_equal(rpmafio_job_cpu(cpus, n, 2), 3);
	assert_int_equal(rpmafio_job_cpu(cpus, n, 3), 0);
}

static void mode(void **state)
{
	(void)state;
	enum rpmafio_mode m = RPMAFIO_MODE_SERVER;
	assert_int_equal(rpmafio_parse_mode("client", &m, err, sizeof(err)), 0);
	assert_int_equal(m, RPMAFIO_MODE_CLIENT);
	assert_int_equal(rpmafio_parse_mode("server", &m, err, sizeof(err)), 0);
	assert_int_equal(m, RPMAFIO_MODE_SERVER);
	assert_int_equal(rpmafio_parse_mode("Server", &m, err, sizeof(err)), -1);
	assert_int_equal(rpmafio_parse_mode(NULL, &m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "client or server"));
}

static const struct rpmafio_optvals good_vals = {
	.mode = RPMAFIO_MODE_CLIENT,
	.serverip = "192.168.77.1",
	.port = "7204",
	.cpus = NULL,
	.connect_timeout_ms = 30000,
	.job_index = 2,
};

static void check_whole_job(void **state)
{
	(void)state;
	char port[8];
	struct rpmafio_optvals v = good_vals;
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), 0);
	assert_string_equal(port, "7206");
	v.cpus = "0-1";
	v.mode = RPMAFIO_MODE_SERVER;
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), 0);
	v.cpus = "";
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), 0);
}

/* every failure names the option and its value */
static void check_whole_job_errors(void **state)
{
	(void)state;
	char port[8];
	struct rpmafio_optvals v;

	v = good_vals;
	v.serverip = NULL;
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), -1);
	assert_string_equal(err, "serverip= is not set: give the server's address (the job "
		"files in jobs/ take it from SERVER_IP: SERVER_IP=<address> fio ...)");
	v.serverip = "";
	v.mode = RPMAFIO_MODE_SERVER;
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), -1);
	assert_string_equal(err, "serverip= is not set: give the address to listen on (the "
		"job files in jobs/ take it from SERVER_IP: SERVER_IP=<address> fio ...)");

	v = good_vals;
	v.serverip = "1.2.3.999";
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), -1);
	assert_string_equal(err, "serverip=1.2.3.999: not a valid IPv4 address");

	v = good_vals;
	v.port = "http";
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), -1);
	assert_string_equal(err, "port=http: not a port number (expected 1-65535)");

	v = good_vals;
	v.port = "65534";
	v.job_index = 3;
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), -1);
	assert_string_equal(err, "port=65534: the port of job 4 is 65534 + 3 = 65537, above 65535");

	v = good_vals;
	v.cpus = "3-1";
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), -1);
	assert_string_equal(err, "cpus=3-1: the range 3-1 is reversed");

	v = good_vals;
	v.connect_timeout_ms = 0;
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "connect_timeout=0"));
}

/*
 * clients_per_job=n: server job i takes ports port + i * n .. + n - 1 (its
 * first is port_out), all of them valid; 0 and 1 mean one; a client refuses n > 1
 */
static void check_clients_per_job(void **state)
{
	(void)state;
	char port[8];
	struct rpmafio_optvals v = good_vals;

	v.mode = RPMAFIO_MODE_SERVER;
	for (unsigned n = 0; n <= 1; n++) {
		v.clients_per_job = n;
		assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), 0);
		assert_string_equal(port, "7206"); /* job 3: 7204 + 2 */
	}
	v.clients_per_job = 4;
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), 0);
	assert_string_equal(port, "7212"); /* 7204 + 2 * 4: after jobs 1 and 2's four each */
	v.job_index = 0;
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), 0);
	assert_string_equal(port, "7204");

	/* the last port of the job's clients must be a port too */
	v.port = "65532";
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), 0);
	v.port = "65533";
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), -1);
	assert_string_equal(err, "port=65533: job 1's 4 clients (clients_per_job=4) take ports "
		"65533 to 65536, above 65535");
	v.port = "65000";
	v.job_index = 200;
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), -1);
	assert_string_equal(err, "port=65000: job 201's 4 clients (clients_per_job=4) take ports "
		"65800 to 65803, above 65535");

	v = good_vals;
	v.clients_per_job = 2;
	assert_int_equal(rpmafio_optvals_check(&v, port, sizeof(port), err, sizeof(err)), -1);
	assert_string_equal(err, "clients_per_job=2 is a server's option (mode=server): a client "
		"job is one client");
}

#define KIB 1024ULL
#define MIB (1024 * KIB)
#define GIB (1024 * MIB)

/* fio's size suffixes, as size= reads them (kb_base=1024 by default, 1000 by choice) */
static void bytes_valid(void **state)
{
	(void)state;
	struct {
		const char *str;
		unsigned kb_base;
		uint64_t bytes;
	} good[] = {
		{"0", 1024, 0},
		{"4096", 1024, 4096},
		{"64m", 1024, 64 * MIB},
		{"64M", 1024, 64 * MIB},
		{"64mb", 1024, 64 * MIB},
		{"1g", 1024, GIB},
		{"4G", 1024, 4 * GIB},
		{"2k", 1024, 2 * KIB},
		{"1t", 1024, 1024 * GIB},
		{"1p", 1024, 1024ULL * 1024 * GIB},
		/* fio's inversion: with kb_base=1024 the "iB" forms are powers of 1000 */
		{"64MiB", 1024, 64000000},
		{"1kib", 1024, 1000},
		{"64m", 1000, 64000000},
		{"64MiB", 1000, 64 * MIB},
		{"1g", 0, GIB},	/* fio's kb_base unset: 1024 */
		{"18446744073709551615", 1024, UINT64_MAX},
		{"16383p", 1024, 16383ULL * 1024 * 1024 * GIB},
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t bytes = 42;
		if (rpmafio_parse_bytes(good[i].str, good[i].kb_base, &bytes, err, sizeof(err)))
			fail_msg("%s (kb_base %u): %s", good[i].str, good[i].kb_base, err);
		if (bytes != good[i].bytes)
			fail_msg("%s (kb_base %u): %llu, not %llu", good[i].str, good[i].kb_base,
				(unsigned long long)bytes, (unsigned long long)good[i].bytes);
	}
}

static void bytes_invalid(void **state)
{
	(void)state;
	struct {
		const char *str;
		const char *why;
	} bad[] = {
		{"", "no byte count"},
		{"m", "not a byte count"},
		{"-1", "not a byte count"},
		{" 1", "not a byte count"},
		{"0x10", "unknown suffix \"x10\""},
		{"64x", "unknown suffix \"x\""},
		{"64m ", "unknown suffix \"m \""},
		{"1.5g", "unknown suffix \".5g\""},
		{"10%", "unknown suffix \"%\""},
		{"64mm", "unknown suffix"},
		{"18446744073709551616", "more bytes than 64 bits hold"},
		{"16384p", "more bytes than 64 bits hold"},
		{"99999999999999999999999", "more bytes than 64 bits hold"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t bytes = 42;
		err[0] = '\0';
		assert_int_equal(rpmafio_parse_bytes(bad[i].str, 1024, &bytes, err, sizeof(err)), -1);
		if (strstr(err, bad[i].why) == NULL)
			fail_msg("\"%s\": \"%s\" does not say \"%s\"", bad[i].str, err, bad[i].why);
		assert_int_equal(bytes, 42); /* untouched */
	}
	assert_int_equal(rpmafio_parse_bytes(NULL, 1024, NULL, err, sizeof(err)), -1);
}

static void mem_offset_auto_or_bytes(void **state)
{
	(void)state;
	bool given = true;
	uint64_t bytes = 42;
	assert_int_equal(rpmafio_parse_mem_offset("auto", 1024, &given, &bytes, err, sizeof(err)), 0);
	assert_false(given);
	given = true;
	assert_int_equal(rpmafio_parse_mem_offset(NULL, 1024, &given, &bytes, err, sizeof(err)), 0);
	assert_false(given);
	given = true;
	assert_int_equal(rpmafio_parse_mem_offset("", 1024, &given, &bytes, err, sizeof(err)), 0);
	assert_false(given);
	assert_int_equal(rpmafio_parse_mem_offset("0", 1024, &given, &bytes, err, sizeof(err)), 0);
	assert_true(given);
	assert_int_equal(bytes, 0);
	assert_int_equal(rpmafio_parse_mem_offset("1g", 1024, &given, &bytes, err, sizeof(err)), 0);
	assert_true(given);
	assert_int_equal(bytes, GIB);
	assert_int_equal(rpmafio_parse_mem_offset("Auto", 1024, &given, &bytes, err, sizeof(err)), -1);
	assert_string_equal(err, "not a byte count (expected digits and an optional suffix: "
		"e.g. 4096, 64m, 1g); or auto (job i at i * size)");
}

/*
 * Issue 26: job i at i * size overlaps when sections differ in size. The
 * default stays (existing job files keep their layout); mem_offset places
 * a section's jobs side by side from there.
 */
static void region_start_layouts(void **state)
{
	(void)state;
	uint64_t start = 42;
	struct rpmafio_region_vals v = {
		.path = "/dev/dax0.0", .mem_offset = "auto", .kb_base = 1024,
		.size = GIB, .job_index = 1, .subjob_index = 0,
	};
	/* the old arithmetic, kept by default: section B (size=1g, job 2) at 1g */
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_BY_JOB_INDEX);
	assert_int_equal(start, GIB);
	v.mem_offset = NULL;
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_BY_JOB_INDEX);
	assert_int_equal(start, GIB);
	/* with mem_offset: past section A's 4g, whatever B's job number */
	v.mem_offset = "4g";
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_FROM_MEM_OFFSET);
	assert_int_equal(start, 4 * GIB);
	/* the section's third job (numjobs=3) */
	v.subjob_index = 2;
	v.job_index = 7;
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_FROM_MEM_OFFSET);
	assert_int_equal(start, 6 * GIB);
	/* kb_base=1000: the job's own meaning of "g" */
	v.subjob_index = 0;
	v.kb_base = 1000;
	v.mem_offset = "4g";
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_FROM_MEM_OFFSET);
	assert_int_equal(start, 4000000000ULL);
	/* DRAM: no place in a path */
	v.path = "malloc";
	v.dram = true;
	v.mem_offset = "auto";
	start = 42;
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)), RPMAFIO_REGION_DRAM);
	assert_int_equal(start, 0);
}

static void region_start_invalid(void **state)
{
	(void)state;
	uint64_t start = 42;
	struct rpmafio_region_vals v = {
		.path = "malloc", .dram = true, .mem_offset = "64m", .kb_base = 1024,
		.size = 64 * MIB,
	};
	/* refused, not ignored: an offset means the job was meant for a device */
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_INVALID);
	assert_string_equal(err, "mem_offset=64m: filename=malloc is DRAM of the job's own: "
		"mem_offset places a job in a device-DAX path or a file (leave it out, or auto)");

	v.path = "/dev/dax0.0";
	v.dram = false;
	v.mem_offset = "64q";
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_INVALID);
	assert_string_equal(err, "mem_offset=64q: unknown suffix \"q\" (expected k, m, g, t or p, "
		"as in size=: e.g. 64m, 1g); or auto (job i at i * size)");

	/* bytes no file offset reaches */
	v.mem_offset = "8388607t"; /* 2^63 - 2^40 */
	v.size = 1024 * GIB;
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_INVALID);
	assert_string_equal(err, "mem_offset=8388607t: with size=1099511627776, job 1 of its "
		"section ends beyond the largest file offset (2^63 - 1)");
	v.mem_offset = "8388606t";
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_FROM_MEM_OFFSET);
	v.subjob_index = 1;
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_INVALID);
	v.mem_offset = "auto";
	v.size = 1ULL << 62;
	v.job_index = 1;
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_INVALID);
	assert_string_equal(err, "size=4611686018427387904: job 2 (at 1 * size) ends beyond the "
		"largest file offset (2^63 - 1)");
	v.job_index = 2;
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_INVALID);
	v.job_index = 0;
	assert_int_equal(rpmafio_region_start(&v, &start, err, sizeof(err)),
		RPMAFIO_REGION_BY_JOB_INDEX);
	assert_int_equal(start, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(port_valid),
		cmocka_unit_test(port_invalid),
		cmocka_unit_test(job_port),
		cmocka_unit_test(addr_valid),
		cmocka_unit_test(addr_invalid),
		cmocka_unit_test(cpulist_valid),
		cmocka_unit_test(cpulist_invalid),
		cmocka_unit_test(job_cpu_round_robin),
		cmocka_unit_test(mode),
		cmocka_unit_test(check_whole_job),
		cmocka_unit_test(check_clients_per_job),
		cmocka_unit_test(check_whole_job_errors),
		cmocka_unit_test(bytes_valid),
		cmocka_unit_test(bytes_invalid),
		cmocka_unit_test(mem_offset_auto_or_bytes),
		cmocka_unit_test(region_start_layouts),
		cmocka_unit_test(region_start_invalid),
	};
	return cmocka_run_group_tests_name("engine_optparse", tests, NULL, NULL);
}
