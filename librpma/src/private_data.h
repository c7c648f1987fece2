/* SPDX-License-Identifier: BSD-3-Clause */
/* private_data.h -- owned copies of connection private data */
#ifndef RPMA_PRIVATE_DATA_H
#define RPMA_PRIVATE_DATA_H

#include <rdma/rdma_cma.h>
#include "librpma.h"

/*
 * Copy the private data of a CM event (connect request or established)
 * into *pdata. No data leaves *pdata = {NULL, 0}.
 * ERRORS: RPMA_E_INVAL when edata or pdata is NULL; RPMA_E_NOMEM when the
 * copy cannot be allocated (*pdata untouched).
 */
int rpma_private_data_store(const struct rdma_cm_event *edata, struct rpma_conn_private_data *pdata);
/*
 * Copy src (may be NULL or empty: *dst becomes {NULL, 0}) into *dst.
 * ERRORS: RPMA_E_INVAL when dst is NULL; RPMA_E_NOMEM when the copy cannot
 * be allocated (*dst untouched).
 */
int rpma_private_data_copy(struct rpma_conn_private_data *dst,
		const struct rpma_conn_private_data *src);
/* Clear the copy's bytes, free it and reset *pdata to {NULL, 0}; pdata NULL: nothing. ERRORS: none. */
void rpma_private_data_delete(struct rpma_conn_private_data *pdata);

#endif /* RPMA_PRIVATE_DATA_H */
