/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * info.c -- one resolved address (rdma_getaddrinfo) and the two things
 * done with it: bind an id to it (passive side) or resolve a route from
 * it to the peer (active side).
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"
#include "log.h"

struct rpma_info {
	struct rdma_addrinfo *rai;
};

/*
 * rdma_getaddrinfo() fails either with -1 and errno, or with the
 * getaddrinfo() code (EAI_*) it got, which leaves errno alone.
 */
static const char *getaddrinfo_reason(int ret)
{
	return ret == -1 ? rpma_strerror_r_safe(errno) : gai_strerror(ret);
}

int rpma_info_new(const char *addr, const char *port, enum rpma_info_side side,
		struct rpma_info **info_ptr)
{
	if (addr == NULL || info_ptr == NULL)
		return RPMA_E_INVAL;
	if (side != RPMA_INFO_PASSIVE && side != RPMA_INFO_ACTIVE)
		return RPMA_E_INVAL;

	struct rdma_addrinfo hints;
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (side == RPMA_INFO_PASSIVE)
		hints.ai_flags = RAI_PASSIVE;

	struct rdma_addrinfo *rai = NULL;
	int ret = rdma_getaddrinfo(addr, port, &hints, &rai);
	if (ret) {
		RPMA_LOG_ERROR("rdma_getaddrinfo(node=%s, service=%s) failed: %s", addr,
			port ? port : "(none)", getaddrinfo_reason(ret));
		return RPMA_E_PROVIDER;
	}

	struct rpma_info *info = malloc(sizeof(*info));
	if (info == NULL) {
		ret = RPMA_E_NOMEM;
		goto err_free_addrinfo;
	}

	info->rai = rai;
	*info_ptr = info;
	return 0;

err_free_addrinfo:
	rdma_freeaddrinfo(rai);
	return ret;
}

int rpma_info_delete(struct rpma_info **info_ptr)
{
	if (info_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_info *info = *info_ptr;
	if (info == NULL)
		return 0;

	rdma_freeaddrinfo(info->rai);
	free(info);
	*info_ptr = NULL;
	return 0;
}

int rpma_info_resolve_addr(const struct rpma_info *info, struct rdma_cm_id *id, int timeout_ms)
{
	if (info == NULL || id == NULL)
		return RPMA_E_INVAL;

	if (rdma_resolve_addr(id, info->rai->ai_src_addr, info->rai->ai_dst_addr, timeout_ms)) {
		RPMA_LOG_ERROR_ERRNO(errno, "rdma_resolve_addr");
		return RPMA_E_PROVIDER;
	}

	return 0;
}

int rpma_info_bind_addr(const struct rpma_info *info, struct rdma_cm_id *id)
{
	if (info == NULL || id == NULL)
		return RPMA_E_INVAL;

	if (rdma_bind_addr(id, info->rai->ai_src_addr)) {
		RPMA_LOG_ERROR_ERRNO(errno, "rdma_bind_addr");
		return RPMA_E_PROVIDER;
	}

	return 0;
}
