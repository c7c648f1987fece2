/* SPDX-License-Identifier: BSD-3-Clause */
/* access.c -- allow_clients= and the shared secret (see access.h) */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access.h"

static const uint8_t auth_magic[4] = {'R', 'P', 'F', 'S'};
#define AUTH_VERSION 1

/* the longest entry: an IPv6 address in full and "/128" */
#define ENTRY_MAX (INET6_ADDRSTRLEN + 4)

/* ::ffff:0:0/96, where IPv6 puts every IPv4 address (RFC 4291, 2.5.5.2) */
#define MAPPED_PREFIX 96
static const uint8_t mapped_head[MAPPED_PREFIX / 8] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
};

static bool is_unset(const char *s, const char *word)
{
	return s == NULL || *s == '\0' || strcmp(s, word) == 0;
}

/* one "ADDR[/PREFIX]" of len bytes at s */
static int parse_entry(const char *s, size_t len, struct rpmafio_allow_entry *e, char *why,
		size_t why_len)
{
	char text[ENTRY_MAX + 1];
	if (len > ENTRY_MAX) {
		snprintf(why, why_len, "'%.*s...' is not an address", ENTRY_MAX, s);
		return -1;
	}
	memcpy(text, s, len);
	text[len] = '\0';

	char *slash = strchr(text, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, text, e->bytes) == 1) {
		e->family = AF_INET;
		e->prefix = 32;
	} else if (inet_pton(AF_INET6, text, e->bytes) == 1) {
		e->family = AF_INET6;
		e->prefix = 128;
	} else {
		snprintf(why, why_len, "'%s' is not an IPv4 or IPv6 address (a host name is not "
			"taken: give its address)", text);
		return -1;
	}
	if (slash == NULL)
		return 0;

	const unsigned max = e->prefix;
	char *end = NULL;
	errno = 0;
	unsigned long bits = strtoul(slash + 1, &end, 10);
	if (slash[1] < '0' || slash[1] > '9' || *end != '\0' || errno || bits > max) {
		snprintf(why, why_len, "'%s/%s': the prefix length must be 0 to %u", text,
			slash + 1, max);
		return -1;
	}
	e->prefix = (unsigned)bits;
	return 0;
}

/*
 * A peer's IPv4-mapped address is compared as IPv4 (addr_bytes()), so an entry
 * written that way must be IPv4 too, or it would never match:
 * ::ffff:a.b.c.d/(96+k) is a.b.c.d/k.
 */
static void normalise_entry(struct rpmafio_allow_entry *e)
{
	if (e->family != AF_INET6 || e->prefix < MAPPED_PREFIX ||
			memcmp(e->bytes, mapped_head, sizeof(mapped_head)) != 0)
		return;
	memmove(e->bytes, e->bytes + sizeof(mapped_head), 4);
	memset(e->bytes + 4, 0, sizeof(e->bytes) - 4);
	e->family = AF_INET;
	e->prefix -= MAPPED_PREFIX;
}

int rpmafio_allow_parse(const char *spec, struct rpmafio_allow *allow, char *why, size_t why_len)
{
	static const char seps[] = ", \t";

	memset(allow, 0, sizeof(*allow));
	if (is_unset(spec, RPMAFIO_ALLOW_ANY))
		return 0;
	for (const char *p = spec + strspn(spec, seps); *p; p += strspn(p, seps)) {
		size_t len = strcspn(p, seps);
		if (allow->n == RPMAFIO_ALLOW_MAX) {
			snprintf(why, why_len, "more than %d entries: use prefixes (10.0.0.0/8)",
				RPMAFIO_ALLOW_MAX);
			return -1;
		}
		if (parse_entry(p, len, &allow->entry[allow->n], why, why_len))
			return -1;
		normalise_entry(&allow->entry[allow->n]);
		allow->n++;
		p += len;
	}
	if (allow->n == 0) {
		snprintf(why, why_len, "no address in it (any: every client)");
		return -1;
	}
	return 0;
}

/* the first bits of a and b agree */
static bool prefix_equal(const uint8_t *a, const uint8_t *b, unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;
	if (memcmp(a, b, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return ((a[whole] ^ b[whole]) & mask) == 0;
}

/* the address's family and bytes; an IPv4-mapped IPv6 address as IPv4 */
static int addr_bytes(const struct sockaddr_storage *addr, uint8_t bytes[16])
{
	if (addr->ss_family == AF_INET) {
		memcpy(bytes, &((const struct sockaddr_in *)addr)->sin_addr, 4);
		return AF_INET;
	}
	if (addr->ss_family != AF_INET6)
		return AF_UNSPEC;
	const struct in6_addr *a6 = &((const struct sockaddr_in6 *)addr)->sin6_addr;
	if (IN6_IS_ADDR_V4MAPPED(a6)) {
		memcpy(bytes, &a6->s6_addr[12], 4);
		return AF_INET;
	}
	memcpy(bytes, a6->s6_addr, 16);
	return AF_INET6;
}

/*
 * One entry against a peer of family. An IPv6 prefix shorter than /96 that
 * holds all of ::ffff:0:0/96 (::/0, ::/80) holds every IPv4 address as well:
 * it admits every IPv4 peer, which is what such an entry says in IPv6 terms.
 */
static bool entry_admits(const struct rpmafio_allow_entry *e, int family, const uint8_t *bytes)
{
	if (e->family == family)
		return prefix_equal(e->bytes, bytes, e->prefix);
	return family == AF_INET && e->family == AF_INET6 && e->prefix < MAPPED_PREFIX &&
		prefix_equal(e->bytes, mapped_head, e->prefix);
}

bool rpmafio_allow_admits(const struct rpmafio_allow *allow, const struct sockaddr_storage *addr)
{
	uint8_t bytes[16] = {0};

	if (allow->n == 0)
		return true;
	int family = addr_bytes(addr, bytes);
	if (family == AF_UNSPEC)
		return false;
	for (unsigned i = 0; i < allow->n; i++) {
		if (entry_admits(&allow->entry[i], family, bytes))
			return true;
	}
	return false;
}

void rpmafio_addr_str(const struct sockaddr_storage *addr, char *buf, size_t len)
{
	char text[INET6_ADDRSTRLEN] = "?";

	if (addr->ss_family == AF_INET) {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)addr;
		inet_ntop(AF_INET, &a4->sin_addr, text, sizeof(text));
		snprintf(buf, len, "%s:%u", text, ntohs(a4->sin_port));
	} else if (addr->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)addr;
		inet_ntop(AF_INET6, &a6->sin6_addr, text, sizeof(text));
		snprintf(buf, len, "[%s]:%u", text, ntohs(a6->sin6_port));
	} else {
		snprintf(buf, len, "(an address of family %d)", addr->ss_family);
	}
}

/* "65534 (nobody)", or the number alone for a uid with no name */
static void uid_str(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *found = NULL;
	char names[1024];

	if (getpwuid_r(uid, &pw, names, sizeof(names), &found) == 0 && found != NULL)
		snprintf(buf, len, "%u (%s)", (unsigned)uid, found->pw_name);
	else
		snprintf(buf, len, "%u", (unsigned)uid);
}

/*
 * Whoever owns the file can change the secret, whatever its mode: only the
 * user running fio may own it (root's secret is root's file too).
 */
static int secret_owner_ok(const char *path, const struct stat *st, char *why, size_t why_len)
{
	char owner[64], expected[64];

	if (st->st_uid == geteuid())
		return 0;
	uid_str(st->st_uid, owner, sizeof(owner));
	uid_str(geteuid(), expected, sizeof(expected));
	snprintf(why, why_len, "secret_file=%s is owned by uid %s, not by uid %s who runs "
		"fio: its owner could change the secret (chown it, or make a copy of your own)",
		path, owner, expected);
	return -1;
}

/* the checks of a secret file that need no reading */
static int secret_file_ok(const char *path, int fd, char *why, size_t why_len)
{
	struct stat st;
	if (fstat(fd, &st)) {
		snprintf(why, why_len, "secret_file=%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "secret_file=%s is not a regular file", path);
		return -1;
	}
	if (secret_owner_ok(path, &st, why, why_len))
		return -1;
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(why, why_len, "secret_file=%s may be read or changed by others (mode "
			"%04o): make it its owner's only (chmod 600)", path,
			(unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int rpmafio_secret_load(const char *path, struct rpmafio_secret *secret, char *why,
		size_t why_len)
{
	/* a newline, and one more byte to see that the file is too long */
	uint8_t buf[RPMAFIO_SECRET_MAX + 3];
	ssize_t got = 0, n;
	int ret = -1;

	memset(secret, 0, sizeof(*secret));
	if (is_unset(path, RPMAFIO_SECRET_NONE))
		return 0;
	/*
	 * O_NONBLOCK: a FIFO (or a device) opens at once and is refused as not a
	 * regular file, where a blocking open() would wait for a writer forever; a
	 * regular file reads the same either way. A symbolic link is followed (a
	 * secret managed elsewhere is often one): the checks are of the file opened.
	 */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, why_len, "secret_file=%s: %s", path, strerror(errno));
		return -1;
	}
	if (secret_file_ok(path, fd, why, why_len))
		goto out;
	while ((size_t)got < sizeof(buf) &&
			(n = read(fd, buf + got, sizeof(buf) - (size_t)got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, why_len, "secret_file=%s: %s", path, strerror(errno));
			goto out;
		}
		got += n;
	}
	if (got > 0 && buf[got - 1] == '\n')
		got--;
	if (got > 0 && buf[got - 1] == '\r')
		got--;
	if (got == 0 || got > RPMAFIO_SECRET_MAX) {
		snprintf(why, why_len, "secret_file=%s: the secret must be 1 to %d bytes (one "
			"trailing newline aside), not %s", path, RPMAFIO_SECRET_MAX,
			got == 0 ? "empty" : "longer");
		goto out;
	}
	memcpy(secret->bytes, buf, (size_t)got);
	secret->len = (unsigned)got;
	ret = 0;
out:
	/* the secret's bytes live on only in *secret */
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return ret;
}

size_t rpmafio_secret_encode(const struct rpmafio_secret *secret,
		uint8_t out[RPMAFIO_AUTH_PDATA_MAX])
{
	if (secret->len == 0 || secret->len > RPMAFIO_SECRET_MAX)
		return 0;
	memcpy(out, auth_magic, sizeof(auth_magic));
	out[4] = AUTH_VERSION;
	out[5] = (uint8_t)secret->len;
	memcpy(out + RPMAFIO_AUTH_HDR, secret->bytes, secret->len);
	return RPMAFIO_AUTH_HDR + secret->len;
}

enum rpmafio_auth_verdict rpmafio_secret_check(const struct rpmafio_secret *secret,
		const void *pdata, size_t len)
{
	const uint8_t *p = pdata;
	uint8_t sent[RPMAFIO_SECRET_MAX] = {0};

	if (secret->len == 0)
		return RPMAFIO_AUTH_OK;
	if (p == NULL || len < RPMAFIO_AUTH_HDR || memcmp(p, auth_magic, sizeof(auth_magic)) != 0 ||
			p[4] != AUTH_VERSION)
		return RPMAFIO_AUTH_NO_SECRET;
	size_t sent_len = p[5];
	if (sent_len == 0 || sent_len > RPMAFIO_SECRET_MAX || sent_len > len - RPMAFIO_AUTH_HDR)
		return RPMAFIO_AUTH_WRONG_SECRET;
	memcpy(sent, p + RPMAFIO_AUTH_HDR, sent_len);

	/* every byte compared, whatever differs where: no early exit to time */
	volatile uint8_t diff = (uint8_t)(sent_len ^ secret->len);
	for (size_t i = 0; i < RPMAFIO_SECRET_MAX; i++)
		diff |= sent[i] ^ secret->bytes[i];
	explicit_bzero(sent, sizeof(sent));
	return diff == 0 ? RPMAFIO_AUTH_OK : RPMAFIO_AUTH_WRONG_SECRET;
}

const char *rpmafio_auth_verdict_str(enum rpmafio_auth_verdict v)
{
	switch (v) {
	case RPMAFIO_AUTH_OK:
		return "the secret matches";
	case RPMAFIO_AUTH_NO_SECRET:
		return "it sent no secret (is secret_file= set on the client?)";
	case RPMAFIO_AUTH_WRONG_SECRET:
		return "it sent a wrong secret";
	default:
		return "?";
	}
}
