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

const char *rpmafio_short_copy(const char *msg, char *buf, size_t len)
{
	static const char more[] = " ...";
	size_t n = strlen(msg);

	if (len == 0)
		return buf;
	if (n < len) {
		memcpy(buf, msg, n + 1);
		return buf;
	}
	if (len < sizeof(more)) {
		buf[0] = '\0';
		return buf;
	}
	/* the longest head that ends at a word boundary and leaves room for " ..." */
	size_t cut = len - sizeof(more);
	while (cut > 0 && msg[cut] != ' ')
		cut--;
	while (cut > 0 && (msg[cut - 1] == ' ' || msg[cut - 1] == ':' || msg[cut - 1] == ','))
		cut--;
	if (cut == 0) /* one word longer than it all: cut it after all */
		cut = len - sizeof(more);
	memcpy(buf, msg, cut);
	memcpy(buf + cut, more, sizeof(more));
	return buf;
}
