/* SPDX-License-Identifier: BSD-3-Clause */
/* report.c -- a librpma error in words (see report.h; the rest is fio/job.c's) */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <librpma.h>

#include "report.h"

const char *rpmafio_rpma_err(int ret, char *buf, size_t len)
{
	if (ret == RPMA_E_PROVIDER)
		snprintf(buf, len, "%s (%s)", rpma_err_2str(ret), strerror(errno));
	else
		snprintf(buf, len, "%s", rpma_err_2str(ret));
	return buf;
}
