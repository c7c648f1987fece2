// SPDX-License-Identifier: BSD-3-Clause
/*
 * peer_libs.c -- stand-ins for the two calls of the peer's shared libraries that
 * verbs_count.c counts, libpmem's pmem_persist() and librpma's rpma_flush(): each
 * prints what it was given, so a test sees that the preloaded counter passed the
 * call on (tests/matrix/test_verbs_count.sh).
 */
#include <stdio.h>

void pmem_persist(const void *addr, size_t len);
int rpma_flush(void *conn, void *dst, size_t dst_offset, size_t len, int type, int flags,
		const void *op_context);

void pmem_persist(const void *addr, size_t len)
{
	printf("pmem_persist %zu\n", len);
	(void) addr;
}

int rpma_flush(void *conn, void *dst, size_t dst_offset, size_t len, int type, int flags,
		const void *op_context)
{
	printf("rpma_flush %zu at %zu\n", len, dst_offset);
	(void) conn, (void) dst, (void) type, (void) flags, (void) op_context;
	return len == 13 ? -1 : 0; /* a failing flush: not counted */
}
