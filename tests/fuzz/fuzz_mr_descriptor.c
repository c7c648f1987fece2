/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_mr_descriptor.c -- libFuzzer target: a remote region's descriptor as a
 * peer sends it (rpma_mr_remote_from_descriptor() and every getter).
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "librpma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpma_mr_remote *mr = NULL;

	if (rpma_mr_remote_from_descriptor(data, size, &mr) != 0) {
		assert(mr == NULL);
		return 0;
	}
	size_t len = 0;
	int flush_type = -1;
	assert(rpma_mr_remote_get_size(mr, &len) == 0);
	assert(rpma_mr_remote_get_flush_type(mr, &flush_type) == 0);
	/* only the two flush-type bits may come out, whatever the peer sent */
	assert((flush_type & ~(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
			RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)) == 0);
	assert(rpma_mr_remote_delete(&mr) == 0 && mr == NULL);
	return 0;
}
