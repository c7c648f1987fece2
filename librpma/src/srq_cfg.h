/* SPDX-License-Identifier: BSD-3-Clause */
/* srq_cfg.h -- shared receive queue configuration, internal part */
#ifndef RPMA_SRQ_CFG_H
#define RPMA_SRQ_CFG_H

#include "librpma.h"

#define RPMA_SRQ_CFG_DEFAULT_RQ_SIZE 100
#define RPMA_SRQ_CFG_DEFAULT_RCQ_SIZE 100

/* The configuration used when a caller passes cfg == NULL (never freed). ERRORS: none. */
const struct rpma_srq_cfg *rpma_srq_cfg_default(void);

#endif /* RPMA_SRQ_CFG_H */
