/* SPDX-License-Identifier: BSD-3-Clause */
/* options.c -- the engines' fio option table (see options.h) */
#include <stddef.h>

#include "fio.h"
#include "optgroup.h"

#include "compat.h"

#include "common/access.h"
#include "common/options.h"
#include "common/poll.h"
#include "engine.h"

/*
 * Parse-time checks. `data` is the job's struct rpmafio_opts; fio has
 * already stored the string. Returning non-zero makes fio stop with
 * "failed parsing"; the line before it says what is wrong.
 */
static int check_serverip(void *data, const char *str)
{
	char why[RPMAFIO_ERR_LEN];
	(void)data;
	if (rpmafio_check_addr(str, why, sizeof(why))) {
		log_err("fio: serverip=%s: %s\n", str, why);
		return 1;
	}
	return 0;
}

static int check_port(void *data, const char *str)
{
	char why[RPMAFIO_ERR_LEN];
	unsigned port;
	(void)data;
	if (rpmafio_parse_port(str, &port, why, sizeof(why))) {
		log_err("fio: port=%s: %s\n", str, why);
		return 1;
	}
	return 0;
}

static int check_cpus(void *data, const char *str)
{
	char why[RPMAFIO_ERR_LEN];
	unsigned cpus[RPMAFIO_CPU_MAX + 1], n;
	(void)data;
	if (rpmafio_parse_cpulist(str, cpus, &n, why, sizeof(why))) {
		log_err("fio: cpus=%s: %s\n", str, why);
		return 1;
	}
	return 0;
}

/*
 * kb_base= is not known here (fio gives an engine's option no view of the
 * job's): the suffix is checked with fio's default, the value read again with
 * the job's kb_base when the job starts.
 */
static int check_mem_offset(void *data, const char *str)
{
	char why[RPMAFIO_ERR_LEN];
	uint64_t bytes;
	bool given;
	(void)data;
	if (rpmafio_parse_mem_offset(str, 1024, &given, &bytes, why, sizeof(why))) {
		log_err("fio: mem_offset=%s: %s\n", str, why);
		return 1;
	}
	return 0;
}

static int check_allow_clients(void *data, const char *str)
{
	struct rpmafio_allow allow;
	char why[RPMAFIO_ERR_LEN];
	(void)data;
	if (rpmafio_allow_parse(str, &allow, why, sizeof(why))) {
		log_err("fio: allow_clients=%s: %s\n", str, why);
		return 1;
	}
	return 0;
}

struct fio_option rpmafio_options[] = {
	{
		.name = "serverip",
		.lname = "rpma server address",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct rpmafio_opts, serverip),
		.cb = check_serverip,
		.help = "client: the server's IP address; server: the local IP address "
			"(of an RDMA device) to listen on",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "port",
		.lname = "rpma base port",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct rpmafio_opts, port),
		.cb = check_port,
		.def = RPMAFIO_DEFAULT_PORT,
		.help = "base port: job i (0-based over the whole job file) uses port + i",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "mode",
		.lname = "rpma side",
		.type = FIO_OPT_STR,
		.off1 = offsetof(struct rpmafio_opts, mode),
		.def = "client",
		.help = "client (default): connect to serverip and do the I/O on the server's "
			"memory; server: expose memory (filename=, size=) to one client per job",
		.posval = {
			{ .ival = "client", .oval = RPMAFIO_MODE_CLIENT,
			  .help = "connect to serverip and do the job's I/O on the server's memory" },
			{ .ival = "server", .oval = RPMAFIO_MODE_SERVER,
			  .help = "expose filename= (malloc, device DAX or a file; size= bytes "
				"per job) and serve one client until it disconnects" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "direct_write_to_pmem",
		.lname = "Direct Write to PMem",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(struct rpmafio_opts, direct_write_to_pmem),
		.def = "0",
		.help = "server: set to 1 ONLY when RDMA writes from the network reach the "
			"persistence domain on this platform (e.g. DDIO off or eADR): clients then "
			"flush with the persistent flush type",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "busy_wait_polling",
		.lname = "busy-wait polling",
		.type = FIO_OPT_STR,
		.off1 = offsetof(struct rpmafio_opts, busy_wait_polling),
		.def = "1",
		.help = "how a job waits for completions: 1 polls in a loop, 0 sleeps on the "
			"completion channel, adaptive naps and spins as the pace of its completions says",
		.posval = {
			{ .ival = "1", .oval = RPMAFIO_POLL_BUSY,
			  .help = "poll in a loop: the lowest latency, one busy CPU per job" },
			{ .ival = "0", .oval = RPMAFIO_POLL_SLEEP,
			  .help = "sleep on the completion channel: the least CPU, a wake-up per completion" },
			{ .ival = "adaptive", .oval = RPMAFIO_POLL_ADAPTIVE,
			  .help = "nap on a timer through most of the expected gap, then poll: "
				"learned from when completions came; an idle job sleeps on the channel" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "cpus",
		.lname = "rpma job CPUs",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct rpmafio_opts, cpus),
		.cb = check_cpus,
		.help = "CPU list, e.g. 0-1,3: job i is pinned to the i-th CPU of the list "
			"(round robin); meant for server jobs",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "connect_timeout",
		.lname = "rpma connection timeout",
		.type = FIO_OPT_INT,
		.off1 = offsetof(struct rpmafio_opts, connect_timeout),
		.def = RPMAFIO_DEFAULT_CONNECT_TIMEOUT_MS,
		.minval = 1,
		.maxval = 24 * 3600 * 1000,
		.help = "ms: a client retries connecting until then (so it may start right after "
			"its server); also the longest a job waits for its peer once connected",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "keepalive",
		.lname = "rpma server keepalive",
		.type = FIO_OPT_INT,
		.off1 = offsetof(struct rpmafio_opts, keepalive),
		.def = RPMAFIO_DEFAULT_KEEPALIVE_MS,
		.minval = 0,
		.maxval = 24 * 3600 * 1000,
		.help = "server, ms: after this long without a word from the client the server "
			"probes it (a zero-length RDMA write; no completion on the client); a failed "
			"probe ends the job: the client's host or link is gone. 0: never probe",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "clients_per_job",
		.lname = "rpma clients per server job",
		.type = FIO_OPT_INT,
		.off1 = offsetof(struct rpmafio_opts, clients_per_job),
		.def = "1",
		.minval = 1,
		.maxval = RPMAFIO_CLIENTS_PER_JOB_MAX,
		.help = "GPSPM server: one job (one thread) serves this many clients, as as many "
			"jobs would (the same ports and bytes of filename=), each client in a "
			"protection domain of its own",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "no_flush",
		.lname = "rpma no flush",
		.type = FIO_OPT_BOOL,
		.off1 = offsetof(struct rpmafio_opts, no_flush),
		.def = "0",
		.help = "client: 1 posts the RDMA writes with NO flush (nor GPSPM flush request): "
			"the data is NOT durable. A baseline only, to measure what persistence costs",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "native_flush",
		.lname = "rpma native flush",
		.type = FIO_OPT_STR,
		.off1 = offsetof(struct rpmafio_opts, native_flush),
		.def = "auto",
		.help = "APM client: how rpma_flush reaches the server: the device's own RDMA FLUSH "
			"or its emulation (an RDMA read after the writes)",
		.posval = {
			{ .ival = "auto", .oval = RPMAFIO_NATIVE_FLUSH_AUTO,
			  .help = "native when this device executes FLUSH and the server's memory "
				"takes it, emulated otherwise" },
			{ .ival = "1", .oval = RPMAFIO_NATIVE_FLUSH_ON,
			  .help = "native, or the job fails at connection time saying which end "
				"cannot" },
			{ .ival = "0", .oval = RPMAFIO_NATIVE_FLUSH_OFF,
			  .help = "always the emulation (what librpma 1.x peers do)" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "mem_offset",
		.lname = "rpma server memory offset",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct rpmafio_opts, mem_offset),
		.cb = check_mem_offset,
		.def = RPMAFIO_MEM_OFFSET_AUTO,
		.help = "server: where in filename= (device DAX or a file) the job's bytes start "
			"(e.g. 1g); a section's numjobs jobs lie side by side from there. auto: "
			"job i at i * size. Not for filename=malloc",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "allow_clients",
		.lname = "rpma server's admitted clients",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct rpmafio_opts, allow_clients),
		.cb = check_allow_clients,
		.def = RPMAFIO_ALLOW_ANY,
		.help = "server: the clients it admits, IPv4/IPv6 addresses or prefixes separated "
			"by commas (192.168.77.2,10.0.0.0/8); others are rejected and named. any: "
			"every client",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = "secret_file",
		.lname = "rpma shared secret file",
		.type = FIO_OPT_STR_STORE,
		.off1 = offsetof(struct rpmafio_opts, secret_file),
		.def = RPMAFIO_SECRET_NONE,
		.help = "both sides: a file only its owner may read (chmod 600) holding a shared "
			"secret of 1 to 48 bytes; the client sends it when it connects, the server "
			"rejects a client without it. none: no secret",
		.category = FIO_OPT_C_ENGINE,
		.group = RPMAFIO_OPT_GROUP,
	},
	{
		.name = NULL,
	},
};
