/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_peer_cfg.c -- libFuzzer target: a peer configuration descriptor from the network */
#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "librpma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpma_peer_cfg *pcfg = NULL;

	if (rpma_peer_cfg_from_descriptor(data, size, &pcfg) != 0) {
		assert(pcfg == NULL);
		return 0;
	}
	bool direct = false;
	uint8_t back = 0xff;
	size_t back_size = 0;
	assert(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &direct) == 0);
	assert(rpma_peer_cfg_get_descriptor_size(pcfg, &back_size) == 0 && back_size == 1);
	assert(rpma_peer_cfg_get_descriptor(pcfg, &back) == 0);
	/* accepted means: one byte, and it survives a round trip */
	assert(size == 1 && back == data[0] && direct == (data[0] == 1));
	assert(rpma_peer_cfg_delete(&pcfg) == 0 && pcfg == NULL);
	return 0;
}
