/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine.h -- where fio enters an rpma-fio engine (one .so per persistency
 * method). fio/ is the only folder that includes fio's headers: engine.c is
 * the ioengine_ops every engine exports, options.c the option table, job.c
 * how a job's failures and notes reach fio. Everything under client/,
 * server/, common/ and gpspm/, and the method files, is fio-free and built
 * without fio's headers.
 *
 * engine.c dispatches on mode=client|server to client/ and server/ and to the
 * method's hooks (common/method.h) of the engine file it is linked with
 * (rpmafio_engine_method).
 *
 * A client job connects in init (fio's buffers come later: post_init
 * registers them) and does fio's I/O in queue/commit/getevents (client/io.h).
 * The engine owns the I/O buffers (iomem_alloc/iomem_free): fio releases
 * them before the engine's cleanup, and memory the NIC may still reach must
 * be deregistered first and kept if that fails.
 * A server job sets up in init; its one and only "I/O" is to serve: the
 * method's serve runs until the client leaves and then ends the job
 * (td->done), so fio finishes it cleanly with no I/O of its own.
 */
#ifndef RPMAFIO_ENGINE_H
#define RPMAFIO_ENGINE_H

#include "fio.h"

/* the option table (options.c): .options of every engine */
extern struct fio_option rpmafio_options[];

/*
 * The I/O callbacks, by name (not static): the matrix's instruction counts
 * (scripts/matrix/lib.sh, callgrind) start at them.
 */
enum fio_q_status rpmafio_queue(struct thread_data *td, struct io_u *io_u);
int rpmafio_commit(struct thread_data *td);
int rpmafio_getevents(struct thread_data *td, unsigned int min, unsigned int max,
	const struct timespec *t);
struct io_u *rpmafio_event(struct thread_data *td, int event);

#endif /* RPMAFIO_ENGINE_H */
