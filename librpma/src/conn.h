/* SPDX-License-Identifier: BSD-3-Clause */
/* conn.h -- connection, internal part */
#ifndef RPMA_CONN_H
#define RPMA_CONN_H

#include <stdbool.h>
#include <rdma/rdma_cma.h>
#include "librpma.h"

struct rpma_flush;
struct rpma_post;

/* What a connection is made of; conn_req assembles it, conn owns it. */
struct rpma_conn_parts {
	struct rdma_cm_id *id;            /* with its QP already created */
	struct rpma_cq *cq;               /* main CQ, owned */
	struct rpma_cq *rcq;              /* receive CQ or NULL */
	bool rcq_borrowed;	/* rcq is an SRQ's or a shared one: not owned */
	struct ibv_comp_channel *channel; /* shared completion channel or NULL, owned */
};

/*
 * Take ownership of the parts and move id to an event channel of the
 * connection's own. On failure nothing is taken.
 * ERRORS: RPMA_E_INVAL when peer, parts, parts->id, parts->cq or conn_ptr is
 * NULL; RPMA_E_NOMEM; RPMA_E_PROVIDER (errno set) when the flush buffer's
 * registration, rdma_create_event_channel() or rdma_migrate_id() fails.
 */
int rpma_conn_new(struct rpma_peer *peer, const struct rpma_conn_parts *parts,
		struct rpma_conn **conn_ptr);

/*
 * Keep a copy of pdata (the private data the peer sent) in place of what the
 * connection had.
 * ERRORS: RPMA_E_INVAL when conn or pdata is NULL; RPMA_E_NOMEM (the old copy
 * is kept).
 */
int rpma_conn_transfer_private_data(struct rpma_conn *conn,
		struct rpma_conn_private_data *pdata);

/* Hot-path accessors for the operations (ops.c); conn must not be NULL. */
/* The connection's QP. ERRORS: none. */
struct ibv_qp *rpma_conn_get_ibv_qp(const struct rpma_conn *conn);
/* The connection's flush object. ERRORS: none. */
struct rpma_flush *rpma_conn_get_flush(const struct rpma_conn *conn);
/* The posting of the connection's work requests. ERRORS: none. */
struct rpma_post *rpma_conn_get_post(const struct rpma_conn *conn);
/* Did the remote peer's configuration say it writes straight to PMem? ERRORS: none. */
bool rpma_conn_get_direct_write_to_pmem(const struct rpma_conn *conn);
/* Does the device execute ATOMIC WRITE itself? ERRORS: none. */
bool rpma_conn_has_native_atomic_write(const struct rpma_conn *conn);

/*
 * 0 when the connection's transport carries immediate data; else (iWARP) a
 * log line naming OP and the transport: refused before anything is posted.
 * ERRORS: RPMA_E_NOSUPP when the transport is iWARP.
 */
int rpma_conn_check_imm(const struct rpma_conn *conn, const char *op);

#endif /* RPMA_CONN_H */
