/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * private_data.c -- owned copies of the private data exchanged while
 * connecting, so they outlive the CM event (or the caller's buffer) they
 * came from. No data is always {NULL, 0}. A copy is cleared before it is
 * freed: the engines carry their shared secret in it.
 */
#include <stdlib.h>
#include <string.h>

#include "private_data.h"

/* Copy len bytes of ptr into *dst; *dst is written only on success. */
static int copy_bytes(struct rpma_conn_private_data *dst, const void *ptr, uint8_t len)
{
	if (dst == NULL)
		return RPMA_E_INVAL;

	if (ptr == NULL || len == 0) {
		dst->ptr = NULL;
		dst->len = 0;
		return 0;
	}

	void *copy = malloc(len);
	if (copy == NULL)
		return RPMA_E_NOMEM;

	memcpy(copy, ptr, len);
	dst->ptr = copy;
	dst->len = len;
	return 0;
}

int rpma_private_data_store(const struct rdma_cm_event *edata, struct rpma_conn_private_data *pdata)
{
	if (edata == NULL)
		return RPMA_E_INVAL;

	return copy_bytes(pdata, edata->param.conn.private_data, edata->param.conn.private_data_len);
}

int rpma_private_data_copy(struct rpma_conn_private_data *dst,
		const struct rpma_conn_private_data *src)
{
	return src ? copy_bytes(dst, src->ptr, src->len) : copy_bytes(dst, NULL, 0);
}

void rpma_private_data_delete(struct rpma_conn_private_data *pdata)
{
	if (pdata == NULL)
		return;

	/* it may carry a secret (the engines' secret_file=): cleared before the
	 * allocator may hand the memory to anyone; explicit_bzero() is not optimised away */
	if (pdata->ptr != NULL)
		explicit_bzero(pdata->ptr, pdata->len);
	free(pdata->ptr);
	pdata->ptr = NULL;
	pdata->len = 0;
}
