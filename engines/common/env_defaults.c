/* SPDX-License-Identifier: BSD-3-Clause */
/* env_defaults.c -- defaults for the job files' ${VARIABLES} (see env_defaults.h) */
#include <stdlib.h>

#include "access.h"
#include "env_defaults.h"
#include "optparse.h"

const struct rpmafio_env_default rpmafio_env_defaults[] = {
	/* both sides */
	{"SERVER_IP", RPMAFIO_SERVER_IP_UNSET, "the server's address: no default, every run names it"},
	{"PORT", RPMAFIO_DEFAULT_PORT, "the base port: job i uses PORT + i"},
	{"NUMJOBS", "1", "connections (jobs) per side: the same on both sides"},
	{"SECRET_FILE", RPMAFIO_SECRET_NONE, "a file (chmod 600) with the secret a server wants "
		"from its clients (none: no secret)"},
	{"CONNECT_TIMEOUT", RPMAFIO_DEFAULT_CONNECT_TIMEOUT_MS, "ms a client keeps trying to connect"},
	/* clients */
	{"BS", "4k", "block size"},
	{"IODEPTH", "1", "I/Os in flight per job"},
	{"BATCH", "1", "I/Os posted together (iodepth_batch_submit): one flush per batch"},
	{"BATCH_COMPLETE", "1", "completions reaped before the next submission (iodepth_batch_complete_min)"},
	{"SYNC", "1", "1: every I/O completes (written and flushed) before the next starts"},
	{"RUNTIME", "10s", "measured time"},
	{"RAMP", "2s", "warm-up time not measured"},
	{"TIME_BASED", "1", "1: run for RUNTIME; 0: until NUMBER_IOS I/Os (or the memory) are done"},
	{"NUMBER_IOS", "0", "I/Os per job when TIME_BASED=0 (0: no limit)"},
	{"RWMIXREAD", "70", "rw.fio: percentage of reads"},
	{"RATE_IOPS", "0", "durability.fio: writes per second per job (0: no limit)"},
	{"RANDSEED", "RANDSEED-is-not-set", "durability.fio: the round's random seed: no default, "
		"each round names its own, its read-back the same"},
	{"VERIFY_PATTERN", "VERIFY_PATTERN-is-not-set", "durability.fio: the round's verify pattern "
		"(0x and 32 random hex digits): no default, each round names its own, its read-back the same"},
	{"BUSY_WAIT", "1", "1: poll the completion queue in a loop; 0: sleep on it"},
	/* servers */
	{"SERVER_MEM", "malloc", "server memory: malloc (DRAM), a device-DAX path or a file"},
	{"SERVER_SIZE", "64m", "server memory per job (fio: 64m = 64 * 2^20 bytes)"},
	{"SERVER_MEM_OFFSET", RPMAFIO_MEM_OFFSET_AUTO, "where in SERVER_MEM a server's jobs start "
		"(auto: job i at i * SERVER_SIZE)"},
	{"DIRECT_WRITE_TO_PMEM", "0", "1 only if RDMA writes reach persistence on the server"},
	{"SERVER_IODEPTH", "64", "GPSPM server: flush requests taken at a time (>= the client's iodepth)"},
	{"SERVER_BUSY_WAIT", "1", "GPSPM server: 1 poll for requests in a loop; 0 sleep until one comes"},
	{"CLIENTS_PER_JOB", "1", "GPSPM server: clients each job serves from one thread"},
	{"ALLOW_CLIENTS", RPMAFIO_ALLOW_ANY, "server: the clients it admits, addresses or "
		"prefixes (any: every client)"},
	{"KEEPALIVE", RPMAFIO_DEFAULT_KEEPALIVE_MS, "server: ms without a word from the client before probing it (0: never)"},
	{NULL, NULL, NULL},
};

void rpmafio_env_apply_defaults(void)
{
	for (const struct rpmafio_env_default *d = rpmafio_env_defaults; d->name; d++)
		setenv(d->name, d->value, 0);
}
