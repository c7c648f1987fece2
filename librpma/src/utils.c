/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * utils.c -- finding the device behind an address, checking it for
 * On-Demand Paging, and naming connection events.
 */
#include <errno.h>
#include <string.h>

#include "info.h"
#include "log.h"

/* Bind (local address) or resolve (remote address) a throw-away id to learn its device. */
static int id_attach(const struct rpma_info *info, enum rpma_util_ibv_context_type type,
		struct rdma_cm_id *id)
{
	if (type == RPMA_UTIL_IBV_CONTEXT_LOCAL)
		return rpma_info_bind_addr(info, id);
	return rpma_info_resolve_addr(info, id, RPMA_DEFAULT_TIMEOUT_MS);
}

/* Find the device through a temporary id; *ibv_ctx_ptr is written only on success. */
static int device_of(const char *addr, const struct rpma_info *info,
		enum rpma_util_ibv_context_type type, struct ibv_context **ibv_ctx_ptr)
{
	struct rdma_cm_id *id;
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP)) {
		RPMA_LOG_ERROR_ERRNO(errno, "rdma_create_id");
		return RPMA_E_PROVIDER;
	}

	struct ibv_context *ibv_ctx = NULL;
	int ret = id_attach(info, type, id);
	if (ret == 0) {
		ibv_ctx = id->verbs;
		/* bound to a wildcard or a non-RDMA address: no device behind it */
		if (ibv_ctx == NULL) {
			RPMA_LOG_ERROR("no RDMA device serves the address %s", addr);
			errno = ENODEV;
			ret = RPMA_E_PROVIDER;
		}
	}

	int err = errno;
	if (rdma_destroy_id(id)) {
		RPMA_LOG_ERROR_ERRNO(errno, "rdma_destroy_id");
		if (ret == 0)
			return RPMA_E_PROVIDER;
	}
	if (ret) {
		errno = err; /* the caller wants the first failure's cause, not the clean-up's */
		return ret;
	}

	*ibv_ctx_ptr = ibv_ctx;
	return 0;
}

int rpma_utils_get_ibv_context(const char *addr, enum rpma_util_ibv_context_type type,
		struct ibv_context **ibv_ctx_ptr)
{
	if (addr == NULL || ibv_ctx_ptr == NULL)
		return RPMA_E_INVAL;
	if (type != RPMA_UTIL_IBV_CONTEXT_LOCAL && type != RPMA_UTIL_IBV_CONTEXT_REMOTE)
		return RPMA_E_INVAL;

	enum rpma_info_side side = type == RPMA_UTIL_IBV_CONTEXT_LOCAL ?
		RPMA_INFO_PASSIVE : RPMA_INFO_ACTIVE;
	struct rpma_info *info;
	int ret = rpma_info_new(addr, NULL, side, &info);
	if (ret)
		return ret;

	ret = device_of(addr, info, type, ibv_ctx_ptr);
	(void)rpma_info_delete(&info); /* cannot fail for a valid info */
	return ret;
}

/* RC operations the library's memory regions may be the target or source of. */
#define RPMA_ODP_RC_CAPS_NEEDED (IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | \
		IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ)

int rpma_utils_ibv_context_is_odp_capable(struct ibv_context *ibv_ctx, int *is_odp_capable)
{
	if (ibv_ctx == NULL || is_odp_capable == NULL)
		return RPMA_E_INVAL;

	struct ibv_device_attr_ex attr;
	memset(&attr, 0, sizeof(attr));
	/* returns an errno value rather than setting errno */
	int err = ibv_query_device_ex(ibv_ctx, NULL, &attr);
	if (err) {
		RPMA_LOG_ERROR_ERRNO(err, "ibv_query_device_ex");
		return RPMA_E_PROVIDER;
	}

	const struct ibv_odp_caps *odp = &attr.odp_caps;
	*is_odp_capable = (odp->general_caps & IBV_ODP_SUPPORT) &&
		(odp->per_transport_caps.rc_odp_caps & RPMA_ODP_RC_CAPS_NEEDED) ==
			RPMA_ODP_RC_CAPS_NEEDED;
	return 0;
}

const char *rpma_utils_conn_event_2str(enum rpma_conn_event conn_event)
{
	switch (conn_event) {
	case RPMA_CONN_UNDEFINED:
		return "Undefined connection event";
	case RPMA_CONN_ESTABLISHED:
		return "Connection established";
	case RPMA_CONN_CLOSED:
		return "Connection closed";
	case RPMA_CONN_LOST:
		return "Connection lost";
	case RPMA_CONN_REJECTED:
		return "Connection rejected";
	case RPMA_CONN_UNREACHABLE:
		return "Connection unreachable";
	default:
		return "Unknown connection event";
	}
}
