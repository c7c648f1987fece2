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

/*
 * Resolve addr (and port; NULL: a device look-up only) for the given side.
 * ERRORS: RPMA_E_INVAL when addr or info_ptr is NULL or side is no side;
 * RPMA_E_PROVIDER when rdma_getaddrinfo() fails (errno set only when it
 * returned -1, not for a getaddrinfo code); RPMA_E_NOMEM.
 */
int rpma_info_new(const char *addr, const char *port, enum rpma_info_side side,
		struct rpma_info **info_ptr);
/* Free *info_ptr (NULL: nothing) and set it to NULL. ERRORS: RPMA_E_INVAL (info_ptr NULL). */
int rpma_info_delete(struct rpma_info **info_ptr);
/*
 * rdma_resolve_addr() of id from the info's source to its destination.
 * ERRORS: RPMA_E_INVAL when info or id is NULL; RPMA_E_PROVIDER (errno set)
 * when rdma_resolve_addr() fails.
 */
int rpma_info_resolve_addr(const struct rpma_info *info, struct rdma_cm_id *id, int timeout_ms);
/*
 * rdma_bind_addr() of id to the info's source address.
 * ERRORS: RPMA_E_INVAL when info or id is NULL; RPMA_E_PROVIDER (errno set)
 * when rdma_bind_addr() fails.
 */
int rpma_info_bind_addr(const struct rpma_info *info, struct rdma_cm_id *id);

#endif /* RPMA_INFO_H */
