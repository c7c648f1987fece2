/* SPDX-License-Identifier: BSD-3-Clause */
/* conn_req_test.h -- the connection request tests' fixture, and conn_req_connect_test.c's */
#ifndef CONN_REQ_TEST_H
#define CONN_REQ_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "librpma.h"

#define ADDR "192.168.0.1"
#define PORT "7204"
#define SENTINEL_REQ ((struct rpma_conn_req *)0x1)
#define SENTINEL_CONN ((struct rpma_conn *)0x1)

struct conn_req_fixture {
	struct rpma_peer *peer;
	struct rpma_conn_cfg *cfg; /* NULL: the default one */
	/* the passive side: a listening id and the requests arriving on it */
	struct rdma_event_channel *listen_ch;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *req_id;
	struct rdma_cm_event *event;
	const void *pdata;
	uint8_t pdata_len;
};
extern struct conn_req_fixture fx;

/* A fresh fake provider, a quiet log and a peer. */
int conn_req_setup(void **state);
/* The same on an iWARP device (siw). */
int conn_req_setup_iwarp(void **state);
/* What is live besides the peer's PD and the listening id with its channel. */
int live_extra(void);
/* Releases the listening side, the configuration and the peer; nothing left alive. */
int conn_req_teardown(void **state);
/* A configuration in fx.cfg: a shared completion channel or not, a receive CQ of rcq_size. */
void cfg_make(bool shared, uint32_t rcq_size);
/* A request of either side, by one signature. */
typedef int make_fn(struct rpma_conn_req **req_ptr);
/* An outgoing request to ADDR:PORT. */
int make_active(struct rpma_conn_req **req_ptr);
/* A CONNECT_REQUEST event as an endpoint would get it (not acked). */
void request_arrives(void);
/* On failure the event and its id stay the caller's: the endpoint's part, done here. */
int make_passive(struct rpma_conn_req **req_ptr);
/* Make each nth call of each fn fail in turn: PROVIDER, nothing written, nothing left. */
void each_provider_failure(make_fn *make, const char *const *fns, size_t nfns);
/* Make each allocation fail in turn: NOMEM, nothing written, nothing left. */
void each_allocation_failure(make_fn *make);

/* conn_req_connect_test.c */
void connect_invalid_arguments(void **state);
void connect_active(void **state);
void connect_active_without_private_data(void **state);
void connect_passive(void **state);
void connect_active_provider_failures(void **state);
void connect_refused_at_once_is_no_error_line(void **state);
void connect_refused_survives_tear_down_errno(void **state);
void connect_passive_provider_failures(void **state);
void connect_passive_ack_failure(void **state);
void connect_out_of_memory(void **state);
void connect_with_srq_keeps_its_rcq(void **state);
void connect_with_shared_rcq_leaves_it(void **state);

#endif /* CONN_REQ_TEST_H */
