// SPDX-License-Identifier: BSD-3-Clause
/*
 * udp_rcvbuf.c -- preloaded into the QEMUs of a multi-node run (run.sh,
 * net_shim): each UDP socket QEMU opens gets a receive buffer of
 * SOFTROCE_VM_UDP_RCVBUF bytes. The guests' network is QEMU's socket netdev on
 * a multicast group of the host's loopback, and a guest under TCG drains its
 * socket slowly: with the host's default buffer (net.core.rmem_default, 208 KiB)
 * a burst of 64 KiB RDMA writes overflowed it, the host dropped frames, and rxe
 * waited for its ACK timeout (0.5 s and more) to send them again. QEMU has no
 * option for the size, and a larger rmem_default would change the whole host.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <netinet/in.h>

typedef int (*socket_fn)(int, int, int);

/* SO_RCVBUFFORCE passes net.core.rmem_max (root: CAP_NET_ADMIN); else as much
 * as SO_RCVBUF may have */
static void enlarge(int fd)
{
	const char *text = getenv("SOFTROCE_VM_UDP_RCVBUF");
	int bytes = text != NULL ? atoi(text) : 0;

	if (bytes <= 0)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

int socket(int domain, int type, int protocol)
{
	static socket_fn real;

	if (real == NULL)
		real = (socket_fn)dlsym(RTLD_NEXT, "socket");
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	int fd = real(domain, type, protocol);
	/* (type may carry SOCK_CLOEXEC and SOCK_NONBLOCK) */
	if (fd >= 0 && (domain == AF_INET || domain == AF_INET6) && (type & 0xf) == SOCK_DGRAM)
		enlarge(fd);
	return fd;
}
