/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compat.h -- the one place where the engines adapt to the fio release they are
 * built against. engines/fio/fio_api.sh probes that fio's headers into fio_api.h
 * (generated per build); this header turns its answers into the spellings the
 * rest of engines/fio/ uses, so no other file tests a fio version.
 */
#ifndef RPMAFIO_COMPAT_H
#define RPMAFIO_COMPAT_H

#include "fio.h"
#include "optgroup.h"

#include "fio_api.h"

/* the option group our options are listed under by `fio --cmdhelp` */
#if RPMAFIO_FIO_HAS_OPT_G_LIBRPMA
#define RPMAFIO_OPT_GROUP FIO_OPT_G_LIBRPMA
#else
#define RPMAFIO_OPT_GROUP FIO_OPT_G_RDMA
#endif

/* the parameters of ioengine_ops.errdetails */
#if RPMAFIO_FIO_ERRDETAILS_TAKES_TD
#define RPMAFIO_ERRDETAILS_PARAMS struct thread_data *td __attribute__((unused)), struct io_u *io_u
#else
#define RPMAFIO_ERRDETAILS_PARAMS struct io_u *io_u
#endif

#endif /* RPMAFIO_COMPAT_H */
