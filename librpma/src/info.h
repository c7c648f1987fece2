/* SPDX-License-Identifier: BSD-3-Clause */
/* info.h -- address resolution (rdma_getaddrinfo) for endpoints and requests */
#ifndef RPMA_INFO_H
#define RPMA_INFO_H

#include <rdma/rdma_cma.h>

enum rpma_info_side {
	RPMA_INFO_PASSIVE, /* the address is local: bind / listen on it */
	RPMA_INFO_ACTIVE   /* the address is the peer's: resolve a route to it */
};

struct rpma_info;

/* port may be NULL (device look-up only). RPMA_E_INVAL, _NOMEM, _PROVIDER. */
int rpma_info_new(const char *addr, const char *port, enum rpma_info_side side,
		struct rpma_info **info_ptr);
int rpma_info_delete(struct rpma_info **info_ptr);
/* rdma_resolve_addr() from the info's source to its destination. */
int rpma_info_resolve_addr(const struct rpma_info *info, struct rdma_cm_id *id, int timeout_ms);
/* rdma_bind_addr() to the info's source address. */
int rpma_info_bind_addr(const struct rpma_info *info, struct rdma_cm_id *id);

#endif /* RPMA_INFO_H */
