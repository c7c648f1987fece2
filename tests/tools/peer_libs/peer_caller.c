// SPDX-License-Identifier: BSD-3-Clause
/*
 * peer_caller.c -- calls the peer's pmem_persist() and rpma_flush() as fio 3.33's
 * engines do, the persist through a function pointer taken once
 * (tests/matrix/test_verbs_count.sh).
 */
#include <stdio.h>

void pmem_persist(const void *addr, size_t len);
int rpma_flush(void *conn, void *dst, size_t dst_offset, size_t len, int type, int flags,
		const void *op_context);

int main(void)
{
	static char region[8192];
	void (*persist)(const void *, size_t) = pmem_persist;

	persist(region, 4096);
	persist(region + 4096, 100);
	if (rpma_flush(NULL, NULL, 0, 8192, 0, 0, NULL) != 0 ||
			rpma_flush(NULL, NULL, 64, 13, 0, 0, NULL) == 0)
		return 1;
	return 0;
}
