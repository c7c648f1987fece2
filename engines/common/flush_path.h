/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * flush_path.h -- how an APM client's flushes travel: the device's own RDMA
 * FLUSH or its emulation (an RDMA read after the writes). Pure: no fio, no RDMA.
 *
 * A native FLUSH needs both ends: this client's device executes FLUSH, and the
 * server's registration has the flush access the server's device checks (the
 * workspace's flags byte says so; fio 3.33 and librpma 1.x servers never do).
 * The native_flush option (options.h) picks what happens when one end cannot.
 */
#ifndef RPMAFIO_FLUSH_PATH_H
#define RPMAFIO_FLUSH_PATH_H

#include <stdbool.h>
#include <stddef.h>

enum rpmafio_native_flush {
	RPMAFIO_NATIVE_FLUSH_AUTO,	/* native when both ends can, emulated otherwise */
	RPMAFIO_NATIVE_FLUSH_ON,	/* native, or fail at connection time */
	RPMAFIO_NATIVE_FLUSH_OFF,	/* always emulated (an RDMA read after the writes) */
};

enum rpmafio_flush_path {
	RPMAFIO_FLUSH_EMULATED,
	RPMAFIO_FLUSH_NATIVE,
	RPMAFIO_FLUSH_REFUSED,	/* native_flush=1 and an end cannot: the job fails */
};

/*
 * The path for option value mode (enum rpmafio_native_flush), given whether
 * the server's region takes a native FLUSH and whether this device executes
 * one. When refused, why names the end that cannot.
 */
enum rpmafio_flush_path rpmafio_flush_path(unsigned mode, bool server_takes,
		bool device_executes, char *why, size_t whylen);

#endif /* RPMAFIO_FLUSH_PATH_H */
