/* SPDX-License-Identifier: BSD-3-Clause */
/* engine_optparse_test.c -- the engines' option values: ports, addresses, CPU lists, the whole job */
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
		cmocka_unit_test(check_whole_job_errors),
	};
	return cmocka_run_group_tests_name("engine_optparse", tests, NULL, NULL);
}
