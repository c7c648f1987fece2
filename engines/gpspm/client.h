/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.h -- the GPSPM client: the method's client hooks (common/method.h).
 * Its two on the I/O path, rpmafio_method_flush() (one flush request after a
 * batch's writes) and rpmafio_method_completion() (what a completion
 * completes), are defined in client.c as well, `inline` for the LTO link to
 * fold them into client/io.c's path.
 */
#ifndef RPMAFIO_GPSPM_CLIENT_H
#define RPMAFIO_GPSPM_CLIENT_H

struct ibv_wc;
struct rpmafio_client;
struct rpmafio_io;

/*
 * Connect with room for a SEND per batch and a receive per slot; check the
 * server takes as many flush requests at once as this job may send; post a
 * receive in every slot. 0, or -1 after rpmafio_fail().
 */
int gpspm_client_init(struct rpmafio_client *c);

/* A batch of reads (no flush) was posted: it completes in its place among the flushes. */
int gpspm_client_signalled(struct rpmafio_client *c, struct rpmafio_io *last);

/* A failed completion of the client's own: a receive too short for what arrived. */
const char *gpspm_client_failure_hint(const struct rpmafio_client *c, const struct ibv_wc *wc);

/* Send the last message ("done") and wait a little for it to leave. */
void gpspm_client_finish(struct rpmafio_client *c);

/* Once disconnected: the message buffers and the slots. */
void gpspm_client_cleanup(struct rpmafio_client *c);

#endif /* RPMAFIO_GPSPM_CLIENT_H */
