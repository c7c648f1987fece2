/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * access.h -- who may connect to a server job: the addresses it admits
 * (allow_clients=) and the shared secret both ends read from secret_file=.
 *
 * A client that has a secret sends it in its connection request's private
 * data (RPMAFIO_AUTH_PDATA_MAX bytes at most, within the 56 bytes RoCE and
 * InfiniBand carry):
 *
 *   offset 0: "RPFS"   the magic
 *          4: 1        the version
 *          5: L        the secret's length (1..RPMAFIO_SECRET_MAX)
 *          6: secret   L bytes
 *
 * The connection manager may pad what arrives; bytes past 6 + L are ignored.
 * A server with no secret ignores a client's private data (so interop with
 * librpma peers and fio's own engines, which send none, is unchanged); a
 * server with one refuses a request without it, or with another secret.
 * Fio-free: unit tests run it on the host.
 */
#ifndef RPMAFIO_ACCESS_H
#define RPMAFIO_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>


#define RPMAFIO_ALLOW_ANY "any"
#define RPMAFIO_SECRET_NONE "none"
#define RPMAFIO_ALLOW_MAX 32		/* entries of allow_clients= */
#define RPMAFIO_SECRET_MAX 48		/* bytes */
#define RPMAFIO_AUTH_HDR 6
#define RPMAFIO_AUTH_PDATA_MAX (RPMAFIO_AUTH_HDR + RPMAFIO_SECRET_MAX)
/* room for any address and port, as rpmafio_addr_str() writes them */
#define RPMAFIO_ADDR_STR_LEN 64

/* one entry of allow_clients=: an address and how many of its leading bits must match */
struct rpmafio_allow_entry {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t bytes[16];	/* network order; 4 used for AF_INET */
	unsigned prefix;	/* bits */
};

struct rpmafio_allow {
	unsigned n;		/* 0: any client */
	struct rpmafio_allow_entry entry[RPMAFIO_ALLOW_MAX];
};

struct rpmafio_secret {
	unsigned len;		/* 0: none */
	uint8_t bytes[RPMAFIO_SECRET_MAX];
};

/*
 * allow_clients= as given: NULL, "" or "any" admit everyone; otherwise a list
 * of IPv4 or IPv6 addresses, each with an optional /prefix, separated by commas
 * or spaces ("192.168.77.2, 10.0.0.0/8, fd00::/64"). 0, or -1 with why.
 * An IPv4-mapped entry is kept as the IPv4 one (::ffff:10.0.0.0/104 is
 * 10.0.0.0/8), since peers are compared as IPv4.
 */
int rpmafio_allow_parse(const char *spec, struct rpmafio_allow *allow, char *why, size_t why_len);

/*
 * Does the list admit this address? An IPv4-mapped IPv6 address counts as
 * IPv4; an IPv6 prefix that holds all of ::ffff:0:0/96 (::/0) admits every
 * IPv4 address too, while 0.0.0.0/0 admits no IPv6 one.
 */
bool rpmafio_allow_admits(const struct rpmafio_allow *allow, const struct sockaddr_storage *addr);

/* "192.168.77.2:40001", "[fd00::7]:40001": for log lines */
void rpmafio_addr_str(const struct sockaddr_storage *addr, char *buf, size_t len);

/*
 * Read the secret of secret_file= (NULL, "" or "none": no secret). The file is
 * a regular file owned by the user running fio (the effective uid) that only
 * its owner may read or write (like ssh's keys), holding 1 to
 * RPMAFIO_SECRET_MAX bytes; one trailing newline is not part of it. A FIFO or
 * a device is refused without waiting on it. 0, or -1 with why (which never
 * holds the secret).
 */
int rpmafio_secret_load(const char *path, struct rpmafio_secret *secret, char *why,
	size_t why_len);

/* The private data that carries the secret: its length (0 when there is no secret). */
size_t rpmafio_secret_encode(const struct rpmafio_secret *secret,
	uint8_t out[RPMAFIO_AUTH_PDATA_MAX]);

enum rpmafio_auth_verdict {
	RPMAFIO_AUTH_OK,		/* the secret matches, or the server has none */
	RPMAFIO_AUTH_NO_SECRET,		/* the request carries no secret of ours */
	RPMAFIO_AUTH_WRONG_SECRET,	/* it carries another secret */
};

/*
 * Check a request's private data against the server's secret. The comparison
 * takes the same time whatever the bytes (it always reads RPMAFIO_SECRET_MAX).
 */
enum rpmafio_auth_verdict rpmafio_secret_check(const struct rpmafio_secret *secret,
	const void *pdata, size_t len);

/* for log lines */
const char *rpmafio_auth_verdict_str(enum rpmafio_auth_verdict v);

#endif /* RPMAFIO_ACCESS_H */
