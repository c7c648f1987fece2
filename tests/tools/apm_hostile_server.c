/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * apm_hostile_server.c -- an APM server whose workspace (the private data of
 * the connection, engines/common/workspace.h) lies, for testing an APM
 * client's defences (tests/e2e/hostile.sh):
 *
 *   apm-hostile-server ADDR PORT CASE [CASE...]
 *
 * Listens on ADDR:PORT and serves one client per CASE, one after the other,
 * with DRAM registered for the client's writes, reads and flushes:
 *
 *   well          1 MiB, an honest workspace (the control: the client's job
 *                 must complete)
 *   small-region  64 KiB, an honest workspace (for a client whose job asks
 *                 for more: size=1m)
 *   region-lie    64 KiB registered, the descriptor says 1 MiB
 *   desc-short    the workspace announces a 21-byte descriptor but only 20
 *                 of its bytes are sent (the usage byte is missing)
 *   desc-size-24  the workspace announces 24 descriptor bytes: the 21 of the
 *                 descriptor and 3 zeros
 *   desc-size-0   the workspace announces a 0-byte descriptor
 *   desc-size-25  the workspace announces a 25-byte descriptor (it holds 24)
 *   dwpmem-7      direct_write_to_pmem is 7
 *   flags-unknown the flags byte after the descriptor (byte 28) has a bit no
 *                 client knows (0x80)
 *   desc-garbage  21 descriptor bytes of 0x5a: a region (address, size,
 *                 rkey) that does not exist
 *   desc-wrap     a descriptor whose address + size wraps around 2^64
 *   no-workspace  no private data at all
 *
 * Then it waits for the client to leave: it must, by itself, within 15 s.
 * Prints what it sent and how long the client took to leave
 * (hostile_common.h); exits 0 when every client came and left in time, 1
 * otherwise, 2 on a usage or set-up error.
 */
#include <stdio.h>
#include <string.h>

#include "common/workspace.h"
#include "hostile_common.h"

#define PROG "apm-hostile-server"
#define BIG (1u << 20)
#define SMALL (64u << 10)
/* librpma 1.x's descriptor: addr u64 | length u64 | rkey u32 | usage u8, little-endian */
#define DESC_SIZE 21
#define DESC_LENGTH 8

static const char *const cases[] = {"well", "small-region", "region-lie", "desc-short",
	"desc-size-24", "desc-size-0", "desc-size-25", "dwpmem-7", "flags-unknown", "desc-garbage",
	"desc-wrap", "no-workspace"};

static void put_le64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * The workspace of case `name` for the registered region mr into out[]
 * (RPMAFIO_WS_SIZE bytes); its length in *len (what is sent).
 */
static int workspace(const struct hs_server *s, const char *name,
		const struct rpma_mr_local *mr, uint8_t *out, size_t *len)
{
	struct rpmafio_ws ws = {.mr_desc_size = DESC_SIZE};
	size_t desc_size = 0;
	int ret;

	if ((ret = rpma_mr_get_descriptor_size(mr, &desc_size)) ||
			(ret = rpma_mr_get_descriptor(mr, ws.mr_desc)))
		return hs_die(s, "the region's descriptor", ret);
	if (desc_size != DESC_SIZE) {
		fprintf(stderr, "%s: the descriptor is %zu bytes, not %d\n", s->prog, desc_size,
			DESC_SIZE);
		return 2;
	}
	if (strcmp(name, "region-lie") == 0)
		put_le64(ws.mr_desc + DESC_LENGTH, BIG);
	else if (strcmp(name, "desc-garbage") == 0)
		memset(ws.mr_desc, 0x5a, DESC_SIZE);
	else if (strcmp(name, "desc-wrap") == 0)
		put_le64(ws.mr_desc, UINT64_MAX - 4095);
	else if (strcmp(name, "desc-size-24") == 0)
		ws.mr_desc_size = 24;
	(void) rpmafio_ws_encode(&ws, out);
	*len = RPMAFIO_WS_SIZE;
	/* (the encoder refuses what it should not send: the lies are put in afterwards) */
	if (strcmp(name, "desc-short") == 0)
		*len = RPMAFIO_WS_HDR_SIZE + DESC_SIZE - 1;
	else if (strcmp(name, "desc-size-0") == 0)
		out[3] = 0;
	else if (strcmp(name, "desc-size-25") == 0)
		out[3] = RPMAFIO_WS_DESC_MAX + 1;
	else if (strcmp(name, "dwpmem-7") == 0)
		out[2] = 7;
	else if (strcmp(name, "flags-unknown") == 0)
		out[RPMAFIO_WS_FLAGS_OFF] = 0x80;
	else if (strcmp(name, "no-workspace") == 0)
		*len = 0;
	return 0;
}

static int run_case(struct hs_server *s, const char *name, void *arg)
{
	const struct hs_queues q = {4, 4, 8}; /* the client sends nothing */
	const int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
		RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY;
	const bool small = strcmp(name, "small-region") == 0 || strcmp(name, "region-lie") == 0;
	struct rpma_conn_req *req = NULL;
	struct rpma_mr_local *mr = NULL;
	uint8_t ws[RPMAFIO_WS_SIZE];
	struct hs_conn c;
	char *region = NULL;
	size_t len = 0;
	int ret;

	(void)arg;
	if ((ret = hs_region(s, small ? SMALL : BIG, usage, &region, &mr)))
		return ret;
	if ((ret = workspace(s, name, mr, ws, &len)) ||
			(ret = hs_next_request(s, name, &q, &req)) ||
			(ret = hs_accept(s, name, &req, ws, len, &c))) {
		hs_region_free(&region, &mr);
		return ret;
	}
	printf("case %s: a client connected (%zu bytes registered, %zu bytes of workspace)\n",
		name, (size_t)(small ? SMALL : BIG), len);
	ret = hs_expect_leave(&c, name, hs_now_ms(), "connecting");
	hs_region_free(&region, &mr);
	return ret;
}

int main(int argc, char *argv[])
{
	struct hs_server s = {.prog = PROG};
	int ret;

	if (hs_check_args(PROG, argc, argv, cases, sizeof(cases) / sizeof(cases[0])))
		return 2;
	if ((ret = hs_start(&s, PROG, argv[1], argv[2])))
		return ret;
	ret = hs_run_cases(&s, argc, argv, 3, run_case, NULL);
	hs_stop(&s);
	return ret;
}
