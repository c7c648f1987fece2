/* SPDX-License-Identifier: BSD-3-Clause */
/* conn_cfg.h -- connection configuration, internal part */
#ifndef RPMA_CONN_CFG_H
#define RPMA_CONN_CFG_H

#include <stdatomic.h>
#include "librpma.h"

#define RPMA_CONN_CFG_DEFAULT_CQ_SIZE 10
#define RPMA_CONN_CFG_DEFAULT_RCQ_SIZE 0
#define RPMA_CONN_CFG_DEFAULT_SQ_SIZE 10
#define RPMA_CONN_CFG_DEFAULT_RQ_SIZE 10

/* The configuration used when a caller passes cfg == NULL (never freed). ERRORS: none. */
const struct rpma_conn_cfg *rpma_conn_cfg_default(void);

/*
 * Accessors of one uint32_t field of a configuration object, shared with
 * srq_cfg.c; the callers pass cfg ? &cfg->field : NULL.
 * ERRORS: RPMA_E_INVAL when field (the object) or, for the load, value is NULL.
 */
static inline int rpma_cfg_store_u32(_Atomic uint32_t *field, uint32_t value)
{
	if (field == NULL)
		return RPMA_E_INVAL;
	atomic_store(field, value);
	return 0;
}

static inline int rpma_cfg_load_u32(const _Atomic uint32_t *field, uint32_t *value)
{
	if (field == NULL || value == NULL)
		return RPMA_E_INVAL;
	*value = atomic_load(field);
	return 0;
}

#endif /* RPMA_CONN_CFG_H */
