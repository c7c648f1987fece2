/* SPDX-License-Identifier: BSD-3-Clause */
/* keepalive.c -- when a serving server probes its client (see keepalive.h) */
#include "keepalive.h"

void rpmafio_keepalive_init(struct rpmafio_keepalive *k, uint64_t interval, uint64_t give_up,
		uint64_t now)
{
	*k = (struct rpmafio_keepalive){.interval = interval, .give_up = give_up,
		.quiet_since = now};
}

enum rpmafio_keepalive_action rpmafio_keepalive_tick(struct rpmafio_keepalive *k, uint64_t now)
{
	if (k->interval == 0)
		return RPMAFIO_KEEPALIVE_WAIT;
	if (k->heard) {
		k->heard = false;
		k->quiet_since = now;
	}
	if (k->probing)
		return now - k->probe_sent >= k->give_up ? RPMAFIO_KEEPALIVE_UNANSWERED :
			RPMAFIO_KEEPALIVE_WAIT;
	return now - k->quiet_since >= k->interval ? RPMAFIO_KEEPALIVE_PROBE :
		RPMAFIO_KEEPALIVE_WAIT;
}

void rpmafio_keepalive_probed(struct rpmafio_keepalive *k, uint64_t now)
{
	k->probing = true;
	k->probe_sent = now;
}

void rpmafio_keepalive_answered(struct rpmafio_keepalive *k)
{
	k->probing = false;
	k->heard = true;
}
