/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 02-write-flush-read -- the Appliance Persistency Method in miniature.
 * The server exposes memory (DRAM, or a file / device-DAX path mapped with
 * mmap) and sends its descriptor and its peer configuration in the private
 * data. The client writes a pattern, flushes it with the flush type the
 * server advertises, reads it back into volatile memory and compares; the
 * server checks its own memory after the client has gone.
 *
 *   02-write-flush-read server ADDR PORT [READY_FILE [PATH [--direct-write]]]
 *   02-write-flush-read client ADDR PORT
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/example.h"

#define REGION_SIZE (2u << 20) /* a device-DAX mapping needs 2 MiB granularity */
#define DATA_OFFSET 4096
#define DATA_LEN 8192

struct server_info {
	uint8_t mr_desc[21];
	uint8_t pcfg_desc[1];
	uint8_t flush_native;	/* example_flush_native_byte() */
};

static void fill_pattern(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 13);
}

static void *map_region(const char *path)
{
	if (path == NULL)
		return aligned_alloc(4096, REGION_SIZE);
	int fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return NULL;
	}
	void *p = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	return p;
}

static int run_server(struct rpma_peer *peer, int argc, char *argv[])
{
	const char *path = argc > 5 ? argv[5] : NULL;
	bool direct_write = argc > 6 && strcmp(argv[6], "--direct-write") == 0;
	struct rpma_mr_local *mr = NULL;
	struct rpma_peer_cfg *pcfg = NULL;
	struct rpma_conn *conn = NULL;
	struct server_info info;
	int ret, failed = -1;

	uint8_t *mem = map_region(path);
	if (!mem)
		return -1;
	memset(mem, 0, REGION_SIZE);
	int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_READ_SRC |
		(direct_write ? RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT : RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	if ((ret = rpma_mr_reg(peer, mem, REGION_SIZE, usage, &mr))) {
		example_fail("rpma_mr_reg", ret);
		goto out_free;
	}
	if ((ret = rpma_peer_cfg_new(&pcfg)) ||
			(ret = rpma_peer_cfg_set_direct_write_to_pmem(pcfg, direct_write)) ||
			(ret = rpma_peer_cfg_get_descriptor(pcfg, info.pcfg_desc)) ||
			(ret = rpma_mr_get_descriptor(mr, info.mr_desc))) {
		example_fail("describing the memory", ret);
		goto out_dereg;
	}
	info.flush_native = example_flush_native_byte(mr);
	struct rpma_conn_private_data pdata = {&info, sizeof(info)};
	if (example_server_accept(peer, argv[2], argv[3], NULL, &pdata, argc > 4 ? argv[4] : NULL,
			&conn) || example_wait_disconnect(&conn))
		goto out_dereg;

	uint8_t expected[DATA_LEN];
	fill_pattern(expected, sizeof(expected));
	failed = memcmp(mem + DATA_OFFSET, expected, DATA_LEN) != 0;
	printf("server: the client's data is %s in %s memory\n", failed ? "NOT" : "present",
		path ? path : "DRAM");

out_dereg:
	rpma_peer_cfg_delete(&pcfg);
	rpma_mr_dereg(&mr);
out_free:
	if (path)
		munmap(mem, REGION_SIZE);
	else
		free(mem);
	return failed ? -1 : 0;
}

/* Decode the server's private data into a remote region and a flush type. */
static int read_server_info(struct rpma_conn *conn, struct rpma_mr_remote **rmr,
		enum rpma_flush_type *type)
{
	struct rpma_conn_private_data pdata;
	struct rpma_peer_cfg *pcfg = NULL;
	int flush_type, ret = rpma_conn_get_private_data(conn, &pdata);
	if (ret || pdata.len < sizeof(struct server_info)) {
		fprintf(stderr, "example: the server sent no memory description\n");
		return -1;
	}
	const struct server_info *info = pdata.ptr;
	if ((ret = rpma_mr_remote_from_descriptor(info->mr_desc, sizeof(info->mr_desc), rmr)))
		return example_fail("rpma_mr_remote_from_descriptor", ret);
	if (example_apply_flush_native_byte(*rmr, info->flush_native))
		return -1;
	if ((ret = rpma_peer_cfg_from_descriptor(info->pcfg_desc, sizeof(info->pcfg_desc), &pcfg)) ||
			(ret = rpma_conn_apply_remote_peer_cfg(conn, pcfg)) ||
			(ret = rpma_mr_remote_get_flush_type(*rmr, &flush_type))) {
		rpma_peer_cfg_delete(&pcfg);
		return example_fail("applying the server's configuration", ret);
	}
	rpma_peer_cfg_delete(&pcfg);
	*type = (flush_type & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT) ?
		RPMA_FLUSH_TYPE_PERSISTENT : RPMA_FLUSH_TYPE_VISIBILITY;
	printf("client: flush type %s\n",
		*type == RPMA_FLUSH_TYPE_PERSISTENT ? "persistent" : "visibility");
	return 0;
}

static int write_flush_read(struct rpma_conn *conn, struct rpma_mr_local *src,
		struct rpma_mr_local *dst, struct rpma_mr_remote *rmr, enum rpma_flush_type type)
{
	struct rpma_cq *cq;
	int ret;
	if ((ret = rpma_conn_get_cq(conn, &cq)))
		return example_fail("rpma_conn_get_cq", ret);
	/* no completion for the write: the flush after it completes only once it is placed */
	if ((ret = rpma_write(conn, rmr, DATA_OFFSET, src, 0, DATA_LEN, RPMA_F_COMPLETION_ON_ERROR,
			NULL)))
		return example_fail("rpma_write", ret);
	if ((ret = rpma_flush(conn, rmr, DATA_OFFSET, DATA_LEN, type, RPMA_F_COMPLETION_ALWAYS, NULL)))
		return example_fail("rpma_flush", ret);
	if (example_expect_flush_completion(cq))
		return -1;
	if ((ret = rpma_read(conn, dst, 0, rmr, DATA_OFFSET, DATA_LEN, RPMA_F_COMPLETION_ALWAYS,
			NULL)))
		return example_fail("rpma_read", ret);
	return example_expect_completion(cq, IBV_WC_RDMA_READ, NULL);
}

static int run_client(struct rpma_peer *peer, int argc, char *argv[])
{
	(void)argc;
	static uint8_t out[DATA_LEN], in[DATA_LEN];
	struct rpma_mr_local *src = NULL, *dst = NULL;
	struct rpma_mr_remote *rmr = NULL;
	struct rpma_conn *conn = NULL;
	enum rpma_flush_type type = RPMA_FLUSH_TYPE_VISIBILITY;
	int ret, failed = -1;

	fill_pattern(out, sizeof(out));
	if ((ret = rpma_mr_reg(peer, out, sizeof(out), RPMA_MR_USAGE_WRITE_SRC, &src)) ||
			(ret = rpma_mr_reg(peer, in, sizeof(in), RPMA_MR_USAGE_READ_DST, &dst))) {
		example_fail("rpma_mr_reg", ret);
		goto out;
	}
	if (example_client_connect(peer, argv[2], argv[3], NULL, NULL, &conn) ||
			read_server_info(conn, &rmr, &type))
		goto out;
	failed = write_flush_read(conn, src, dst, rmr, type);
	if (!failed && memcmp(in, out, sizeof(in)) != 0) {
		fprintf(stderr, "example: the data read back differs from the data written\n");
		failed = -1;
	}
	if (example_disconnect(&conn))
		failed = -1;
out:
	if (conn)
		rpma_conn_delete(&conn);
	rpma_mr_remote_delete(&rmr);
	rpma_mr_dereg(&dst);
	rpma_mr_dereg(&src);
	return failed;
}

int main(int argc, char *argv[])
{
	return example_main(argc, argv, "server ADDR PORT [READY_FILE [PATH [--direct-write]]] | client ADDR PORT", run_server, run_client);
}
