/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_workspace.c -- libFuzzer target: the server's private data as a client
 * decodes it: the workspace, then the region descriptor it carries.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "librpma.h"
#include "common/workspace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpmafio_ws ws;
	char err[160];

	memset(&ws, 0xa5, sizeof(ws));
	if (rpmafio_ws_decode(data, size, &ws, err, sizeof(err)) != 0) {
		assert(memchr(err, '\0', sizeof(err)) != NULL && err[0] != '\0');
		return 0;
	}
	assert(ws.mr_desc_size >= 1 && ws.mr_desc_size <= RPMAFIO_WS_DESC_MAX);
	assert((size_t)RPMAFIO_WS_HDR_SIZE + ws.mr_desc_size <= size);

	/* what was accepted encodes back to the same leading bytes */
	uint8_t again[RPMAFIO_WS_SIZE];
	assert(rpmafio_ws_encode(&ws, again) == 0);
	assert(memcmp(again, data, RPMAFIO_WS_HDR_SIZE + ws.mr_desc_size) == 0);
	/* the flags byte, when it came, was all known bits: it encodes back whole */
	assert(size <= RPMAFIO_WS_FLAGS_OFF || again[RPMAFIO_WS_FLAGS_OFF] == data[RPMAFIO_WS_FLAGS_OFF]);
	/* the offers byte: the known offers encode back, unknown ones are dropped */
	assert(again[RPMAFIO_WS_OFFERS_OFF] == (size <= RPMAFIO_WS_OFFERS_OFF ? 0 :
		(data[RPMAFIO_WS_OFFERS_OFF] & (RPMAFIO_WS_RANGED_FLUSH | RPMAFIO_WS_PACKED_RANGES))));

	struct rpma_mr_remote *mr = NULL;
	if (rpma_mr_remote_from_descriptor(ws.mr_desc, ws.mr_desc_size, &mr) == 0) {
		size_t len;
		assert(rpma_mr_remote_get_size(mr, &len) == 0);
		assert(rpma_mr_remote_delete(&mr) == 0);
	}
	return 0;
}
