/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine.h -- fio's side of every rpma-fio engine (one .so per persistency
 * method): the ioengine_ops entry points, which dispatch on mode=client|server
 * to client/ and server/ and to the method's hooks (common/method.h).
 *
 * An engine file defines its method and exports `ioengine`:
 *
 *   static const struct rpmafio_method apm = { .name = "librpma_apm", ... };
 *   static int apm_init(struct thread_data *td) { return rpmafio_init(td, &apm); }
 *   RPMAFIO_IOENGINE_OPS("librpma_apm", apm_init);
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
#include "optgroup.h"

#include "common/method.h"
#include "common/options.h"

int rpmafio_init(struct thread_data *td, const struct rpmafio_method *method);
int rpmafio_setup(struct thread_data *td);
int rpmafio_post_init(struct thread_data *td);
int rpmafio_iomem_alloc(struct thread_data *td, size_t size);
void rpmafio_iomem_free(struct thread_data *td);
void rpmafio_cleanup(struct thread_data *td);
int rpmafio_io_u_init(struct thread_data *td, struct io_u *io_u);
int rpmafio_open_file(struct thread_data *td, struct fio_file *f);
int rpmafio_file_nop(struct thread_data *td, struct fio_file *f);
int rpmafio_get_file_size(struct thread_data *td, struct fio_file *f);
enum fio_q_status rpmafio_queue(struct thread_data *td, struct io_u *io_u);
int rpmafio_commit(struct thread_data *td);
int rpmafio_getevents(struct thread_data *td, unsigned int min, unsigned int max,
	const struct timespec *t);
struct io_u *rpmafio_event(struct thread_data *td, int event);
char *rpmafio_errdetails(struct io_u *io_u);

/*
 * Engine flags: no local disk; the client sets io_u->issue_time itself when
 * it really posts (commit), so fio must not stamp it at queue time.
 */
#define RPMAFIO_ENGINE_FLAGS (FIO_DISKLESSIO | FIO_NODISKUTIL | FIO_ASYNCIO_SETS_ISSUE_TIME)

/* the exported symbol fio looks up with dlsym() */
#define RPMAFIO_IOENGINE_OPS(engine_name, init_fn)				\
	__attribute__((visibility("default"))) struct ioengine_ops ioengine = {	\
		.name = (engine_name),						\
		.version = FIO_IOOPS_VERSION,					\
		.flags = RPMAFIO_ENGINE_FLAGS,					\
		.setup = rpmafio_setup,						\
		.init = (init_fn),						\
		.post_init = rpmafio_post_init,					\
		.queue = rpmafio_queue,						\
		.commit = rpmafio_commit,					\
		.getevents = rpmafio_getevents,					\
		.event = rpmafio_event,						\
		.errdetails = rpmafio_errdetails,				\
		.cleanup = rpmafio_cleanup,					\
		.open_file = rpmafio_open_file,					\
		.close_file = rpmafio_file_nop,					\
		.get_file_size = rpmafio_get_file_size,				\
		.io_u_init = rpmafio_io_u_init,					\
		.iomem_alloc = rpmafio_iomem_alloc,				\
		.iomem_free = rpmafio_iomem_free,				\
		.options = rpmafio_options,					\
		.option_struct_size = sizeof(struct rpmafio_opts),		\
	}

#endif /* RPMAFIO_ENGINE_H */
