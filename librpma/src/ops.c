/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ops.c -- the operations on a connection: argument checks, then the
 * work requests of post.c (through flush.c for a flush). This is the hot
 * path: nothing is allocated, locked or logged when an operation is posted.
 *
 * The per-I/O operations are `inline` definitions (still external: librpma.h
 * declares them, so both libraries export them as ever): a program linking
 * librpma.a with -flto (our fio engines) may inline them into its I/O path,
 * which the compiler's limits for functions not marked so refuse. With the
 * emulated flush at depth 1 that was ~35 of the APM client's ~760
 * instructions per I/O (docs/benchmarks-findings.md).
 */
#include <stdint.h>
#include <string.h>

#include "conn.h"
#include "flush.h"
#include "log.h"
#include "mr.h"
#include "post.h"

/*
 * An RDMA read or write moves len bytes between a local and a remote
 * region; both NULL (with zero offsets and length) is the 0-byte message.
 * A work request carries a 32-bit length: anything longer is refused
 * rather than silently cut.
 */
static inline bool ops_rma_args_invalid(const void *local, const void *remote,
		size_t local_offset, size_t remote_offset, size_t len)
{
	if (len > UINT32_MAX)
		return true;
	if (local != NULL && remote != NULL)
		return false;
	return local != NULL || remote != NULL || local_offset != 0 || remote_offset != 0 ||
		len != 0;
}

inline int rpma_read(struct rpma_conn *conn,
		struct rpma_mr_local *dst, size_t dst_offset,
		const struct rpma_mr_remote *src, size_t src_offset,
		size_t len, int flags, const void *op_context)
{
	if (conn == NULL || flags == 0)
		return RPMA_E_INVAL;
	if (ops_rma_args_invalid(dst, src, dst_offset, src_offset, len))
		return RPMA_E_INVAL;

	return rpma_post_read(rpma_conn_get_post(conn), dst, dst_offset, src, src_offset, len,
		flags, op_context);
}

static inline int ops_write(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		size_t len, int flags, enum ibv_wr_opcode opcode, uint32_t imm,
		const void *op_context)
{
	if (conn == NULL || flags == 0)
		return RPMA_E_INVAL;
	if (ops_rma_args_invalid(src, dst, src_offset, dst_offset, len))
		return RPMA_E_INVAL;

	return rpma_post_write(rpma_conn_get_post(conn), dst, dst_offset, src, src_offset, len,
		flags, opcode, imm, op_context);
}

inline int rpma_write(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		size_t len, int flags, const void *op_context)
{
	return ops_write(conn, dst, dst_offset, src, src_offset, len, flags, IBV_WR_RDMA_WRITE,
		0, op_context);
}

int rpma_write_with_imm(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		size_t len, int flags, uint32_t imm, const void *op_context)
{
	if (conn == NULL)
		return RPMA_E_INVAL;
	int ret = rpma_conn_check_imm(conn, "rpma_write_with_imm");
	if (ret)
		return ret;
	return ops_write(conn, dst, dst_offset, src, src_offset, len, flags,
		IBV_WR_RDMA_WRITE_WITH_IMM, imm, op_context);
}

int rpma_atomic_write(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const char src[8], int flags, const void *op_context)
{
	if (conn == NULL || dst == NULL || src == NULL)
		return RPMA_E_INVAL;
	if (dst_offset % RPMA_ATOMIC_WRITE_ALIGNMENT != 0)
		return RPMA_E_INVAL;
	if (flags == 0)
		return RPMA_E_INVAL;

	return rpma_post_atomic_write(rpma_conn_get_post(conn), dst, dst_offset, src, flags,
		op_context, rpma_conn_has_native_atomic_write(conn));
}

/*
 * The deprecated form reads the 8 bytes from the registered source now;
 * both ways of posting copy them, so a stack buffer suffices.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int rpma_write_atomic(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset,
		const struct rpma_mr_local *src, size_t src_offset,
		int flags, const void *op_context)
{
	if (conn == NULL || dst == NULL || src == NULL)
		return RPMA_E_INVAL;

	void *ptr = NULL;
	size_t size = 0;
	(void)rpma_mr_get_ptr(src, &ptr); /* neither fails with a region given */
	(void)rpma_mr_get_size(src, &size);
	if (size < RPMA_ATOMIC_WRITE_ALIGNMENT || src_offset > size - RPMA_ATOMIC_WRITE_ALIGNMENT)
		return RPMA_E_INVAL;

	char data[RPMA_ATOMIC_WRITE_ALIGNMENT];
	memcpy(data, (const char *)ptr + src_offset, sizeof(data));
	return rpma_atomic_write(conn, dst, dst_offset, data, flags, op_context);
}
#pragma GCC diagnostic pop

/*
 * A persistent flush needs the peer's word that its RNIC writes straight to
 * PMem and a region registered for it; visibility is implied by either type.
 */
static inline bool ops_flush_supported(const struct rpma_conn *conn,
		const struct rpma_mr_remote *dst, enum rpma_flush_type type)
{
	int usage = 0;
	(void)rpma_mr_remote_get_flush_type(dst, &usage); /* cannot fail with dst given */
	if (type == RPMA_FLUSH_TYPE_PERSISTENT)
		return rpma_conn_get_direct_write_to_pmem(conn) &&
			(usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);

	return (usage & (RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT |
		RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY)) != 0;
}

/*
 * The length is checked where the path is known (rpma_flush_execute): a native
 * FLUSH over UINT32_MAX bytes is refused, as its 32-bit length would cut it
 * short; the emulating read sends none of it, so an emulated flush takes any.
 */
inline int rpma_flush(struct rpma_conn *conn,
		struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
		enum rpma_flush_type type, int flags, const void *op_context)
{
	if (conn == NULL || dst == NULL)
		return RPMA_E_INVAL;
	if (type != RPMA_FLUSH_TYPE_PERSISTENT && type != RPMA_FLUSH_TYPE_VISIBILITY)
		return RPMA_E_INVAL;
	if (flags == 0)
		return RPMA_E_INVAL;

	if (!ops_flush_supported(conn, dst, type)) {
		RPMA_LOG_ERROR("%s flush is not supported by the connection or the remote region",
			type == RPMA_FLUSH_TYPE_PERSISTENT ? "a persistent" : "a visibility");
		return RPMA_E_NOSUPP;
	}

	return rpma_flush_execute(rpma_conn_get_flush(conn), rpma_conn_get_post(conn), dst,
		dst_offset, len, type, flags, op_context);
}

int rpma_conn_get_flush_native(const struct rpma_conn *conn, const struct rpma_mr_remote *dst,
		bool *native)
{
	if (conn == NULL || dst == NULL || native == NULL)
		return RPMA_E_INVAL;
	*native = rpma_flush_is_native(rpma_conn_get_flush(conn), dst);
	return 0;
}

static inline int ops_send(struct rpma_conn *conn, const struct rpma_mr_local *src,
		size_t offset, size_t len, int flags, enum ibv_wr_opcode opcode, uint32_t imm,
		const void *op_context)
{
	if (conn == NULL || flags == 0)
		return RPMA_E_INVAL;
	if ((src == NULL && (offset != 0 || len != 0)) || len > UINT32_MAX)
		return RPMA_E_INVAL;

	return rpma_post_send(rpma_conn_get_post(conn), src, offset, len, flags, opcode, imm,
		op_context);
}

inline int rpma_send(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset,
		size_t len, int flags, const void *op_context)
{
	return ops_send(conn, src, offset, len, flags, IBV_WR_SEND, 0, op_context);
}

int rpma_send_with_imm(struct rpma_conn *conn, const struct rpma_mr_local *src,
		size_t offset, size_t len, int flags, uint32_t imm, const void *op_context)
{
	if (conn == NULL)
		return RPMA_E_INVAL;
	int ret = rpma_conn_check_imm(conn, "rpma_send_with_imm");
	if (ret)
		return ret;
	return ops_send(conn, src, offset, len, flags, IBV_WR_SEND_WITH_IMM, imm, op_context);
}

inline int rpma_recv(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t offset, size_t len,
		const void *op_context)
{
	if (conn == NULL)
		return RPMA_E_INVAL;
	if ((dst == NULL && (offset != 0 || len != 0)) || len > UINT32_MAX)
		return RPMA_E_INVAL;
	/* iWARP providers take no receive without a buffer (siw: EINVAL at post) */
	if (len == 0) {
		int ret = rpma_conn_check_imm(conn, "rpma_recv of 0 bytes");
		if (ret)
			return ret;
	}

	return rpma_post_recv(rpma_conn_get_ibv_qp(conn), dst, offset, len, op_context);
}
