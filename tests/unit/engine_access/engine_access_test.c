/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_access_test.c -- who may connect to a server job (engines/common/access.c):
 * allow_clients= parsed and matched (IPv4, IPv6, prefixes, IPv4-mapped addresses,
 * bad entries named), the secret file read (owner-only, owned by the user running
 * the test, a FIFO refused without blocking, 1..48 bytes, one trailing newline) and the secret carried in private data and checked (missing, wrong,
 * padded by the connection manager, forged lengths).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/access.h"
#include "common/optparse.h"

static char why[RPMAFIO_ERR_LEN];

static struct sockaddr_storage v4(const char *text)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	struct sockaddr_in *a = (struct sockaddr_in *)&ss;
	a->sin_family = AF_INET;
	a->sin_port = htons(7204);
	assert_int_equal(inet_pton(AF_INET, text, &a->sin_addr), 1);
	return ss;
}

static struct sockaddr_storage v6(const char *text)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
	a->sin6_family = AF_INET6;
	a->sin6_port = htons(7204);
	assert_int_equal(inet_pton(AF_INET6, text, &a->sin6_addr), 1);
	return ss;
}

static bool admits(const char *spec, struct sockaddr_storage addr)
{
	struct rpmafio_allow allow;
	assert_int_equal(rpmafio_allow_parse(spec, &allow, why, sizeof(why)), 0);
	return rpmafio_allow_admits(&allow, &addr);
}

static void allow_any(void **state)
{
	(void)state;
	struct rpmafio_allow allow;
	for (const char *const *s = (const char *const[]){"any", "", NULL}; *s; s++) {
		assert_int_equal(rpmafio_allow_parse(*s, &allow, why, sizeof(why)), 0);
		assert_int_equal(allow.n, 0);
	}
	assert_int_equal(rpmafio_allow_parse(NULL, &allow, why, sizeof(why)), 0);
	struct sockaddr_storage a = v4("10.1.2.3");
	assert_true(rpmafio_allow_admits(&allow, &a));
}

static void allow_addresses_and_prefixes(void **state)
{
	(void)state;
	const char *list = " 192.168.77.2, 10.0.0.0/8\tfd00::/64 ,2001:db8::7";
	assert_true(admits(list, v4("192.168.77.2")));
	assert_false(admits(list, v4("192.168.77.3")));
	assert_true(admits(list, v4("10.255.0.1")));
	assert_false(admits(list, v4("11.0.0.1")));
	assert_true(admits(list, v6("fd00::1234")));
	assert_false(admits(list, v6("fd00:0:0:1::1")));
	assert_true(admits(list, v6("2001:db8::7")));
	assert_false(admits(list, v6("2001:db8::8")));
	/* an IPv4 client seen through an IPv6 socket is still that IPv4 client */
	assert_true(admits(list, v6("::ffff:192.168.77.2")));
	assert_false(admits(list, v6("::ffff:192.168.77.9")));
	/* a prefix that does not end on a byte */
	assert_true(admits("192.168.76.0/23", v4("192.168.77.200")));
	assert_false(admits("192.168.76.0/23", v4("192.168.78.1")));
	/* /0 is everyone of the family, but not of the other one */
	assert_true(admits("0.0.0.0/0", v4("1.2.3.4")));
	assert_false(admits("0.0.0.0/0", v6("fd00::1")));
}

/* entries written as IPv4-mapped IPv6 are IPv4 entries: peers are compared as IPv4 */
static void allow_mapped_entries_match_ipv4_clients(void **state)
{
	(void)state;
	assert_true(admits("::ffff:10.0.0.1", v4("10.0.0.1")));
	assert_true(admits("::ffff:10.0.0.1", v6("::ffff:10.0.0.1")));
	assert_false(admits("::ffff:10.0.0.1", v4("10.0.0.2")));
	/* the whole mapped range is every IPv4 client, and no other IPv6 one */
	assert_true(admits("::ffff:0:0/96", v4("1.2.3.4")));
	assert_true(admits("::ffff:0:0/96", v4("192.168.77.2")));
	assert_false(admits("::ffff:0:0/96", v6("fd00::1")));
	/* /96+k is the IPv4 prefix /k, also off a byte boundary */
	assert_true(admits("::ffff:10.0.0.0/104", v4("10.200.3.4")));
	assert_false(admits("::ffff:10.0.0.0/104", v4("11.0.0.1")));
	assert_true(admits("::ffff:192.168.76.0/119", v4("192.168.77.200")));
	assert_false(admits("::ffff:192.168.76.0/119", v4("192.168.78.1")));

	/* what the parser keeps is the IPv4 entry itself */
	struct rpmafio_allow allow;
	assert_int_equal(rpmafio_allow_parse("::ffff:10.0.0.0/104", &allow, why, sizeof(why)), 0);
	assert_int_equal(allow.n, 1);
	assert_int_equal(allow.entry[0].family, AF_INET);
	assert_int_equal(allow.entry[0].prefix, 8);
	assert_memory_equal(allow.entry[0].bytes, "\x0a\x00\x00\x00", 4);
}

/*
 * An IPv6 prefix that holds the mapped range holds every IPv4 client: ::/0 is
 * everyone, of either family (0.0.0.0/0 stays IPv4 only)
 */
static void allow_ipv6_prefix_over_mapped_range_admits_ipv4(void **state)
{
	(void)state;
	assert_true(admits("::/0", v4("1.2.3.4")));
	assert_true(admits("::/0", v6("::ffff:1.2.3.4")));
	assert_true(admits("::/0", v6("fd00::1")));
	assert_true(admits("::/80", v4("10.0.0.1")));
	assert_true(admits("::ffff:0:0/95", v4("10.0.0.1")));
	/* a prefix that does not hold ::ffff:0:0/96 admits no IPv4 client */
	assert_false(admits("fd00::/8", v4("10.0.0.1")));
	assert_false(admits("::/81", v4("10.0.0.1")));
}

static void allow_refuses_bad_entries(void **state)
{
	(void)state;
	static const struct {
		const char *spec, *named;
	} bad[] = {
		{"node1", "'node1' is not an IPv4 or IPv6 address"},
		{"10.0.0.0/33", "prefix length must be 0 to 32"},
		{"fd00::/129", "prefix length must be 0 to 128"},
		{"10.0.0.0/", "prefix length"},
		{"10.0.0.0/-1", "prefix length"},
		{"10.0.0.0/8x", "prefix length"},
		{"1.2.3.4, 300.1.1.1", "'300.1.1.1'"},
		{" , ", "no address"},
		{"1111:2222:3333:4444:5555:6666:7777:8888:9999:aaaa:bbbb", "is not an address"},
	};
	struct rpmafio_allow allow;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(rpmafio_allow_parse(bad[i].spec, &allow, why, sizeof(why)), -1);
		if (strstr(why, bad[i].named) == NULL)
			fail_msg("allow_clients=%s: '%s' does not say '%s'", bad[i].spec, why,
				bad[i].named);
	}
	/* at most RPMAFIO_ALLOW_MAX entries */
	char many[RPMAFIO_ALLOW_MAX * 16 + 16] = "";
	for (int i = 0; i <= RPMAFIO_ALLOW_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "10.0.0.%d,", i);
	assert_int_equal(rpmafio_allow_parse(many, &allow, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "more than 32 entries"));
}

static void addr_str_both_families(void **state)
{
	(void)state;
	char buf[RPMAFIO_ADDR_STR_LEN];
	struct sockaddr_storage a = v4("192.168.77.2");
	rpmafio_addr_str(&a, buf, sizeof(buf));
	assert_string_equal(buf, "192.168.77.2:7204");
	a = v6("fd00::7");
	rpmafio_addr_str(&a, buf, sizeof(buf));
	assert_string_equal(buf, "[fd00::7]:7204");
}

/* ---- the secret ---- */

static char path[64];

static int secret_file(const char *bytes, size_t len, mode_t mode)
{
	snprintf(path, sizeof(path), "/tmp/rpmafio-secret.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	return 0;
}

static int load(const char *bytes, size_t len, mode_t mode, struct rpmafio_secret *s)
{
	secret_file(bytes, len, mode);
	int ret = rpmafio_secret_load(path, s, why, sizeof(why));
	unlink(path);
	return ret;
}

static void secret_load_reads_an_owner_only_file(void **state)
{
	(void)state;
	struct rpmafio_secret s;
	assert_int_equal(load("open sesame\n", 12, 0600, &s), 0);
	assert_int_equal(s.len, 11);
	assert_memory_equal(s.bytes, "open sesame", 11);
	assert_int_equal(load("crlf\r\n", 6, 0400, &s), 0);
	assert_int_equal(s.len, 4);
	/* binary bytes are a secret too; only one newline is dropped */
	assert_int_equal(load("\x00\x01\n\n", 4, 0600, &s), 0);
	assert_int_equal(s.len, 3);
	char max[RPMAFIO_SECRET_MAX];
	memset(max, 'k', sizeof(max));
	assert_int_equal(load(max, sizeof(max), 0600, &s), 0);
	assert_int_equal(s.len, RPMAFIO_SECRET_MAX);
	/* none, empty or unset: no secret */
	assert_int_equal(rpmafio_secret_load("none", &s, why, sizeof(why)), 0);
	assert_int_equal(s.len, 0);
	assert_int_equal(rpmafio_secret_load(NULL, &s, why, sizeof(why)), 0);
	assert_int_equal(s.len, 0);
}

static void secret_load_refuses(void **state)
{
	(void)state;
	struct rpmafio_secret s;
	char long_one[RPMAFIO_SECRET_MAX + 1];
	memset(long_one, 'k', sizeof(long_one));

	assert_int_equal(load("shared with all", 15, 0644, &s), -1);
	assert_non_null(strstr(why, "may be read or changed by others (mode 0644)"));
	assert_null(strstr(why, "shared with all"));
	assert_int_equal(load("group", 5, 0620, &s), -1);
	assert_int_equal(load("\n", 1, 0600, &s), -1);
	assert_non_null(strstr(why, "not empty"));
	assert_int_equal(load(long_one, sizeof(long_one), 0600, &s), -1);
	assert_non_null(strstr(why, "1 to 48 bytes"));
	assert_int_equal(rpmafio_secret_load("/nonexistent/secret", &s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "secret_file=/nonexistent/secret: No such file"));
	assert_int_equal(rpmafio_secret_load("/tmp", &s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a regular file"));
}

/* a uid that is not the one running the test, and a file of the right mode it owns */
static uid_t someone_else(void)
{
	return geteuid() == 65534 ? 65533 : 65534;
}

static void secret_load_refuses_another_users_file(void **state)
{
	(void)state;
	struct rpmafio_secret s;
	char expected[160];

	/* only root can give a file away: anyone else tries a file root owns */
	const char *victim = "/etc/passwd";
	uid_t owner = 0;
	if (geteuid() == 0) {
		secret_file("open sesame\n", 12, 0600);
		owner = someone_else();
		assert_int_equal(chown(path, owner, (gid_t)-1), 0);
		victim = path;
	}
	why[0] = '\0';
	int ret = rpmafio_secret_load(victim, &s, why, sizeof(why));
	if (victim == path)
		unlink(path);
	assert_int_equal(ret, -1);
	assert_int_equal(s.len, 0);
	/* the file, its owner and who should own it are named; the secret is not */
	snprintf(expected, sizeof(expected), "secret_file=%s is owned by uid %u", victim,
		(unsigned)owner);
	if (strstr(why, expected) == NULL)
		fail_msg("'%s' does not say '%s'", why, expected);
	snprintf(expected, sizeof(expected), "not by uid %u", (unsigned)geteuid());
	if (strstr(why, expected) == NULL)
		fail_msg("'%s' does not say '%s'", why, expected);
	assert_null(strstr(why, "open sesame"));
}

/* a FIFO nobody writes to: refused at once, not waited on (old code: blocked forever) */
static void secret_load_refuses_a_fifo_without_blocking(void **state)
{
	(void)state;
	struct rpmafio_secret s;
	snprintf(path, sizeof(path), "/tmp/rpmafio-fifo.%d", (int)getpid());
	assert_int_equal(mkfifo(path, 0600), 0);
	/* a blocking open() never returns: the alarm ends the test binary, a failure */
	alarm(10);
	int ret = rpmafio_secret_load(path, &s, why, sizeof(why));
	alarm(0);
	unlink(path);
	assert_int_equal(ret, -1);
	assert_non_null(strstr(why, "is not a regular file"));
}

static struct rpmafio_secret secret_of(const char *text)
{
	struct rpmafio_secret s = {0};
	s.len = (unsigned)strlen(text);
	memcpy(s.bytes, text, s.len);
	return s;
}

static void secret_travels_and_is_checked(void **state)
{
	(void)state;
	struct rpmafio_secret mine = secret_of("open sesame"), other = secret_of("open sesamf");
	struct rpmafio_secret shorter = secret_of("open sesam"), none = {0};
	uint8_t pdata[64];
	memset(pdata, 0, sizeof(pdata));

	size_t len = rpmafio_secret_encode(&mine, pdata);
	assert_int_equal(len, RPMAFIO_AUTH_HDR + 11);
	assert_memory_equal(pdata, "RPFS\x01\x0b" "open sesame", len);
	assert_int_equal(rpmafio_secret_check(&mine, pdata, len), RPMAFIO_AUTH_OK);
	/* the connection manager pads private data (56 bytes on RoCE): still the same */
	assert_int_equal(rpmafio_secret_check(&mine, pdata, 56), RPMAFIO_AUTH_OK);
	assert_int_equal(rpmafio_secret_check(&other, pdata, len), RPMAFIO_AUTH_WRONG_SECRET);
	assert_int_equal(rpmafio_secret_check(&shorter, pdata, len), RPMAFIO_AUTH_WRONG_SECRET);
	/* a server with no secret admits any private data, or none */
	assert_int_equal(rpmafio_secret_check(&none, NULL, 0), RPMAFIO_AUTH_OK);
	assert_int_equal(rpmafio_secret_check(&none, pdata, len), RPMAFIO_AUTH_OK);
	/* a client without one sends nothing */
	assert_int_equal(rpmafio_secret_encode(&none, pdata), 0);
}

static void secret_check_refuses_what_is_not_one(void **state)
{
	(void)state;
	struct rpmafio_secret mine = secret_of("open sesame");
	uint8_t pdata[64];
	size_t len = rpmafio_secret_encode(&mine, pdata);

	assert_int_equal(rpmafio_secret_check(&mine, NULL, 0), RPMAFIO_AUTH_NO_SECRET);
	/* a librpma peer's zeros (padding of no private data) */
	uint8_t zeros[56] = {0};
	assert_int_equal(rpmafio_secret_check(&mine, zeros, sizeof(zeros)), RPMAFIO_AUTH_NO_SECRET);
	assert_int_equal(rpmafio_secret_check(&mine, pdata, 5), RPMAFIO_AUTH_NO_SECRET);
	pdata[4] = 2; /* another version */
	assert_int_equal(rpmafio_secret_check(&mine, pdata, len), RPMAFIO_AUTH_NO_SECRET);
	pdata[4] = 1;
	/* a length past what arrived, or past the most there may be, reads nothing more */
	assert_int_equal(rpmafio_secret_check(&mine, pdata, len - 1), RPMAFIO_AUTH_WRONG_SECRET);
	pdata[5] = 0;
	assert_int_equal(rpmafio_secret_check(&mine, pdata, len), RPMAFIO_AUTH_WRONG_SECRET);
	pdata[5] = RPMAFIO_SECRET_MAX + 1;
	assert_int_equal(rpmafio_secret_check(&mine, pdata, sizeof(pdata)),
		RPMAFIO_AUTH_WRONG_SECRET);
	/* the secret's own bytes with zeros after them are not the secret */
	pdata[5] = 12;
	pdata[RPMAFIO_AUTH_HDR + 11] = 0;
	assert_int_equal(rpmafio_secret_check(&mine, pdata, len + 1), RPMAFIO_AUTH_WRONG_SECRET);
	assert_non_null(strstr(rpmafio_auth_verdict_str(RPMAFIO_AUTH_WRONG_SECRET), "wrong"));
	assert_non_null(strstr(rpmafio_auth_verdict_str(RPMAFIO_AUTH_NO_SECRET), "no secret"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(allow_any),
		cmocka_unit_test(allow_addresses_and_prefixes),
		cmocka_unit_test(allow_mapped_entries_match_ipv4_clients),
		cmocka_unit_test(allow_ipv6_prefix_over_mapped_range_admits_ipv4),
		cmocka_unit_test(allow_refuses_bad_entries),
		cmocka_unit_test(addr_str_both_families),
		cmocka_unit_test(secret_load_reads_an_owner_only_file),
		cmocka_unit_test(secret_load_refuses),
		cmocka_unit_test(secret_load_refuses_another_users_file),
		cmocka_unit_test(secret_load_refuses_a_fifo_without_blocking),
		cmocka_unit_test(secret_travels_and_is_checked),
		cmocka_unit_test(secret_check_refuses_what_is_not_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
