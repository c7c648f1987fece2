/* SPDX-License-Identifier: BSD-3-Clause */
/* srq.h -- shared receive queue, internal part */
#ifndef RPMA_SRQ_H
#define RPMA_SRQ_H

#include "librpma.h"

/* The verbs SRQ under srq (srq must not be NULL). ERRORS: none. */
struct ibv_srq *rpma_srq_get_ibv_srq(const struct rpma_srq *srq);

#endif /* RPMA_SRQ_H */
