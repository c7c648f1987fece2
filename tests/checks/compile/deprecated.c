/* SPDX-License-Identifier: BSD-3-Clause */
/* deprecated.c -- must NOT compile with -Werror=deprecated-declarations */
#include <librpma.h>

int use_deprecated(struct rpma_cq *cq, struct rpma_completion *cmpl);

int use_deprecated(struct rpma_cq *cq, struct rpma_completion *cmpl)
{
	return rpma_cq_get_completion(cq, cmpl);
}

int use_deprecated_write(struct rpma_conn *conn, struct rpma_mr_remote *dst,
		const struct rpma_mr_local *src);

int use_deprecated_write(struct rpma_conn *conn, struct rpma_mr_remote *dst,
		const struct rpma_mr_local *src)
{
	return rpma_write_atomic(conn, dst, 0, src, 0, RPMA_F_COMPLETION_ALWAYS, NULL);
}
