/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq_cfg.c -- the shared receive queue configuration: the sizes of the
 * SRQ and of its receive CQ (0: the SRQ gets no CQ of its own). Fields are
 * atomics, as in the connection configuration.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "conn_cfg.h" /* rpma_cfg_load_u32(), rpma_cfg_store_u32() */
#include "srq_cfg.h"

struct rpma_srq_cfg {
	_Atomic uint32_t rq_size;
	_Atomic uint32_t rcq_size;
};

/* Not const: an atomic load may need a writable object on some targets. */
static struct rpma_srq_cfg srq_cfg_default = {
	.rq_size = RPMA_SRQ_CFG_DEFAULT_RQ_SIZE,
	.rcq_size = RPMA_SRQ_CFG_DEFAULT_RCQ_SIZE,
};

const struct rpma_srq_cfg *rpma_srq_cfg_default(void)
{
	return &srq_cfg_default;
}

int rpma_srq_cfg_new(struct rpma_srq_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_srq_cfg *cfg = malloc(sizeof(*cfg));
	if (cfg == NULL)
		return RPMA_E_NOMEM;

	/* the default object is never written, so a plain copy is consistent */
	*cfg = srq_cfg_default;
	*cfg_ptr = cfg;
	return 0;
}

int rpma_srq_cfg_delete(struct rpma_srq_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL)
		return RPMA_E_INVAL;

	free(*cfg_ptr);
	*cfg_ptr = NULL;
	return 0;
}

int rpma_srq_cfg_set_rq_size(struct rpma_srq_cfg *cfg, uint32_t rq_size)
{
	return rpma_cfg_store_u32(cfg ? &cfg->rq_size : NULL, rq_size);
}

int rpma_srq_cfg_get_rq_size(const struct rpma_srq_cfg *cfg, uint32_t *rq_size)
{
	return rpma_cfg_load_u32(cfg ? &cfg->rq_size : NULL, rq_size);
}

int rpma_srq_cfg_set_rcq_size(struct rpma_srq_cfg *cfg, uint32_t rcq_size)
{
	return rpma_cfg_store_u32(cfg ? &cfg->rcq_size : NULL, rcq_size);
}

int rpma_srq_cfg_get_rcq_size(const struct rpma_srq_cfg *cfg, uint32_t *rcq_size)
{
	return rpma_cfg_load_u32(cfg ? &cfg->rcq_size : NULL, rcq_size);
}
