/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_cfg.c -- the connection configuration: set-up timeout, queue sizes,
 * whether CQ and RCQ share a completion channel, an optional SRQ and an
 * optional receive CQ shared with other connections.
 * Every field is an atomic, so one thread may change a configuration while
 * another reads it without a lock.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "conn_cfg.h"

struct rpma_conn_cfg {
	_Atomic int timeout_ms;
	_Atomic uint32_t cq_size;
	_Atomic uint32_t rcq_size;
	_Atomic uint32_t sq_size;
	_Atomic uint32_t rq_size;
	_Atomic bool shared_comp_channel;
	_Atomic(struct rpma_srq *) srq;
	_Atomic(struct rpma_cq *) shared_rcq;
};

/* Not const: an atomic load may need a writable object on some targets. */
static struct rpma_conn_cfg conn_cfg_default = {
	.timeout_ms = RPMA_DEFAULT_TIMEOUT_MS,
	.cq_size = RPMA_CONN_CFG_DEFAULT_CQ_SIZE,
	.rcq_size = RPMA_CONN_CFG_DEFAULT_RCQ_SIZE,
	.sq_size = RPMA_CONN_CFG_DEFAULT_SQ_SIZE,
	.rq_size = RPMA_CONN_CFG_DEFAULT_RQ_SIZE,
	.shared_comp_channel = false,
	.srq = NULL,
	.shared_rcq = NULL,
};

const struct rpma_conn_cfg *rpma_conn_cfg_default(void)
{
	return &conn_cfg_default;
}

int rpma_conn_cfg_new(struct rpma_conn_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_conn_cfg *cfg = malloc(sizeof(*cfg));
	if (cfg == NULL)
		return RPMA_E_NOMEM;

	/* the default object is never written, so a plain copy is consistent */
	*cfg = conn_cfg_default;
	*cfg_ptr = cfg;
	return 0;
}

int rpma_conn_cfg_delete(struct rpma_conn_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL)
		return RPMA_E_INVAL;

	free(*cfg_ptr);
	*cfg_ptr = NULL;
	return 0;
}

int rpma_conn_cfg_set_timeout(struct rpma_conn_cfg *cfg, int timeout_ms)
{
	if (cfg == NULL || timeout_ms < 0)
		return RPMA_E_INVAL;

	atomic_store(&cfg->timeout_ms, timeout_ms);
	return 0;
}

int rpma_conn_cfg_get_timeout(const struct rpma_conn_cfg *cfg, int *timeout_ms)
{
	if (cfg == NULL || timeout_ms == NULL)
		return RPMA_E_INVAL;

	*timeout_ms = atomic_load(&cfg->timeout_ms);
	return 0;
}

int rpma_conn_cfg_set_cq_size(struct rpma_conn_cfg *cfg, uint32_t cq_size)
{
	return rpma_cfg_store_u32(cfg ? &cfg->cq_size : NULL, cq_size);
}

int rpma_conn_cfg_get_cq_size(const struct rpma_conn_cfg *cfg, uint32_t *cq_size)
{
	return rpma_cfg_load_u32(cfg ? &cfg->cq_size : NULL, cq_size);
}

int rpma_conn_cfg_set_rcq_size(struct rpma_conn_cfg *cfg, uint32_t rcq_size)
{
	return rpma_cfg_store_u32(cfg ? &cfg->rcq_size : NULL, rcq_size);
}

int rpma_conn_cfg_get_rcq_size(const struct rpma_conn_cfg *cfg, uint32_t *rcq_size)
{
	return rpma_cfg_load_u32(cfg ? &cfg->rcq_size : NULL, rcq_size);
}

int rpma_conn_cfg_set_sq_size(struct rpma_conn_cfg *cfg, uint32_t sq_size)
{
	return rpma_cfg_store_u32(cfg ? &cfg->sq_size : NULL, sq_size);
}

int rpma_conn_cfg_get_sq_size(const struct rpma_conn_cfg *cfg, uint32_t *sq_size)
{
	return rpma_cfg_load_u32(cfg ? &cfg->sq_size : NULL, sq_size);
}

int rpma_conn_cfg_set_rq_size(struct rpma_conn_cfg *cfg, uint32_t rq_size)
{
	return rpma_cfg_store_u32(cfg ? &cfg->rq_size : NULL, rq_size);
}

int rpma_conn_cfg_get_rq_size(const struct rpma_conn_cfg *cfg, uint32_t *rq_size)
{
	return rpma_cfg_load_u32(cfg ? &cfg->rq_size : NULL, rq_size);
}

int rpma_conn_cfg_set_compl_channel(struct rpma_conn_cfg *cfg, bool shared)
{
	if (cfg == NULL)
		return RPMA_E_INVAL;

	atomic_store(&cfg->shared_comp_channel, shared);
	return 0;
}

int rpma_conn_cfg_get_compl_channel(const struct rpma_conn_cfg *cfg, bool *shared)
{
	if (cfg == NULL || shared == NULL)
		return RPMA_E_INVAL;

	*shared = atomic_load(&cfg->shared_comp_channel);
	return 0;
}

int rpma_conn_cfg_set_srq(struct rpma_conn_cfg *cfg, struct rpma_srq *srq)
{
	if (cfg == NULL)
		return RPMA_E_INVAL;

	atomic_store(&cfg->srq, srq);
	return 0;
}

int rpma_conn_cfg_get_srq(const struct rpma_conn_cfg *cfg, struct rpma_srq **srq_ptr)
{
	if (cfg == NULL || srq_ptr == NULL)
		return RPMA_E_INVAL;

	*srq_ptr = atomic_load(&cfg->srq);
	return 0;
}

int rpma_conn_cfg_set_shared_rcq(struct rpma_conn_cfg *cfg, struct rpma_cq *rcq)
{
	if (cfg == NULL)
		return RPMA_E_INVAL;

	atomic_store(&cfg->shared_rcq, rcq);
	return 0;
}

int rpma_conn_cfg_get_shared_rcq(const struct rpma_conn_cfg *cfg, struct rpma_cq **rcq_ptr)
{
	if (cfg == NULL || rcq_ptr == NULL)
		return RPMA_E_INVAL;

	*rcq_ptr = atomic_load(&cfg->shared_rcq);
	return 0;
}
