/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer_cfg.c -- the peer configuration: whether the peer's RNIC writes
 * straight to persistent memory. It travels to the other side as a 1-byte
 * descriptor holding 0 or 1.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "librpma.h"

#define PEER_CFG_DESCRIPTOR_SIZE 1

struct rpma_peer_cfg {
	/* atomic: one thread may set it while connections read it */
	_Atomic bool direct_write_to_pmem;
};

int rpma_peer_cfg_new(struct rpma_peer_cfg **pcfg_ptr)
{
	if (pcfg_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_peer_cfg *pcfg = malloc(sizeof(*pcfg));
	if (pcfg == NULL)
		return RPMA_E_NOMEM;

	atomic_init(&pcfg->direct_write_to_pmem, false);
	*pcfg_ptr = pcfg;
	return 0;
}

int rpma_peer_cfg_delete(struct rpma_peer_cfg **pcfg_ptr)
{
	if (pcfg_ptr == NULL)
		return RPMA_E_INVAL;

	free(*pcfg_ptr);
	*pcfg_ptr = NULL;
	return 0;
}

int rpma_peer_cfg_set_direct_write_to_pmem(struct rpma_peer_cfg *pcfg, bool supported)
{
	if (pcfg == NULL)
		return RPMA_E_INVAL;

	atomic_store(&pcfg->direct_write_to_pmem, supported);
	return 0;
}

int rpma_peer_cfg_get_direct_write_to_pmem(const struct rpma_peer_cfg *pcfg, bool *supported)
{
	if (pcfg == NULL || supported == NULL)
		return RPMA_E_INVAL;

	*supported = atomic_load(&pcfg->direct_write_to_pmem);
	return 0;
}

int rpma_peer_cfg_get_descriptor(const struct rpma_peer_cfg *pcfg, void *desc)
{
	if (pcfg == NULL || desc == NULL)
		return RPMA_E_INVAL;

	*(uint8_t *)desc = atomic_load(&pcfg->direct_write_to_pmem) ? 1 : 0;
	return 0;
}

int rpma_peer_cfg_get_descriptor_size(const struct rpma_peer_cfg *pcfg, size_t *desc_size)
{
	if (pcfg == NULL || desc_size == NULL)
		return RPMA_E_INVAL;

	*desc_size = PEER_CFG_DESCRIPTOR_SIZE;
	return 0;
}

int rpma_peer_cfg_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_peer_cfg **pcfg_ptr)
{
	if (desc == NULL || pcfg_ptr == NULL)
		return RPMA_E_INVAL;

	/* the descriptor comes from the network: accept exactly one byte, 0 or 1 */
	if (desc_size != PEER_CFG_DESCRIPTOR_SIZE)
		return RPMA_E_INVAL;
	uint8_t byte = *(const uint8_t *)desc;
	if (byte > 1)
		return RPMA_E_INVAL;

	struct rpma_peer_cfg *pcfg;
	int ret = rpma_peer_cfg_new(&pcfg);
	if (ret)
		return ret;

	atomic_store(&pcfg->direct_write_to_pmem, byte == 1);
	*pcfg_ptr = pcfg;
	return 0;
}
