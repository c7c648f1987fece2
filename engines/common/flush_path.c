/* SPDX-License-Identifier: BSD-3-Clause */
/* flush_path.c -- native FLUSH or its emulation (see flush_path.h) */
#include <stdio.h>

#include "flush_path.h"

enum rpmafio_flush_path rpmafio_flush_path(unsigned mode, bool server_takes,
		bool device_executes, char *why, size_t whylen)
{
	if (mode == RPMAFIO_NATIVE_FLUSH_OFF)
		return RPMAFIO_FLUSH_EMULATED;
	if (server_takes && device_executes)
		return RPMAFIO_FLUSH_NATIVE;
	if (mode != RPMAFIO_NATIVE_FLUSH_ON)
		return RPMAFIO_FLUSH_EMULATED;
	if (why && whylen)
		snprintf(why, whylen, "%s", !server_takes ?
			"the server's memory does not take a native RDMA FLUSH (its device or "
			"rdma-core cannot execute one, or it is a fio 3.33 / librpma 1.x server, "
			"which never registers for it)" :
			"this client's RDMA device (or the rdma-core it runs with) does not "
			"execute RDMA FLUSH natively");
	return RPMAFIO_FLUSH_REFUSED;
}
