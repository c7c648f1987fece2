/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 03-atomic-write -- store 8 bytes atomically in the server's memory, make
 * them visible with a flush, and let the server check them. The client
 * prints whether the library used the device's native ATOMIC WRITE or its
 * emulation (an 8-byte fenced inline write), as the library logs it, and
 * as the completion shows it (ATOMIC_WRITE or RDMA_WRITE).
 *
 *   03-atomic-write server ADDR PORT [READY_FILE]
 *   03-atomic-write client ADDR PORT
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/example.h"

#define REGION_SIZE 4096
#define ATOMIC_OFFSET 64
static const char VALUE[8] = {'A', 'T', 'O', 'M', 'I', 'C', '!', '!'};

/* Print the library's informational messages that say which path it uses. */
static void print_capabilities(enum rpma_log_level level, const char *file_name,
		const int line_no, const char *function_name, const char *message_format, ...)
{
	(void)level; (void)file_name; (void)line_no; (void)function_name;
	char msg[256];
	va_list ap;
	va_start(ap, message_format);
	vsnprintf(msg, sizeof(msg), message_format, ap);
	va_end(ap);
	if (strstr(msg, "atomic write"))
		printf("librpma: %s\n", msg);
}

static int run_server(struct rpma_peer *peer, int argc, char *argv[])
{
	static _Alignas(8) char mem[REGION_SIZE];
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn *conn = NULL;
	uint8_t desc[21 + 1]; /* the descriptor, then example_flush_native_byte() */
	int ret, failed = -1;

	if ((ret = rpma_mr_reg(peer, mem, sizeof(mem), RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr)) ||
			(ret = rpma_mr_get_descriptor(mr, desc)))
		return example_fail("registering the memory", ret);
	desc[21] = example_flush_native_byte(mr);
	struct rpma_conn_private_data pdata = {desc, sizeof(desc)};
	if (example_server_accept(peer, argv[2], argv[3], NULL, &pdata, argc > 4 ? argv[4] : NULL,
			&conn) || example_wait_disconnect(&conn))
		goto out;
	failed = memcmp(mem + ATOMIC_OFFSET, VALUE, sizeof(VALUE)) != 0;
	printf("server: the 8 bytes are %s\n", failed ? "NOT there" : "there");
out:
	rpma_mr_dereg(&mr);
	return failed ? -1 : 0;
}

static int run_client(struct rpma_peer *peer, char *argv[])
{
	struct rpma_conn *conn = NULL;
	struct rpma_mr_remote *rmr = NULL;
	struct rpma_conn_private_data pdata;
	struct rpma_cq *cq;
	int ret, failed = -1;

	if (example_client_connect(peer, argv[2], argv[3], NULL, NULL, &conn))
		return -1;
	if ((ret = rpma_conn_get_private_data(conn, &pdata)) || pdata.len < 22 ||
			(ret = rpma_mr_remote_from_descriptor(pdata.ptr, 21, &rmr))) {
		example_fail("reading the server's memory descriptor", ret ? ret : RPMA_E_INVAL);
		goto out;
	}
	if (example_apply_flush_native_byte(rmr, ((const uint8_t *)pdata.ptr)[21]))
		goto out;
	if ((ret = rpma_conn_get_cq(conn, &cq)) ||
			(ret = rpma_atomic_write(conn, rmr, ATOMIC_OFFSET, VALUE,
				RPMA_F_COMPLETION_ALWAYS, NULL)) ||
			(ret = rpma_flush(conn, rmr, ATOMIC_OFFSET, sizeof(VALUE),
				RPMA_FLUSH_TYPE_VISIBILITY, RPMA_F_COMPLETION_ALWAYS, NULL))) {
		example_fail("atomic write + flush", ret);
		goto out;
	}
	struct ibv_wc wc;
	if (example_next_completion(cq, &wc))
		goto out;
	printf("client: the atomic write completed as %s\n", example_wc_opcode_str(wc.opcode));
	failed = example_expect_flush_completion(cq);
out:
	rpma_mr_remote_delete(&rmr);
	if (example_disconnect(&conn))
		failed = -1;
	return failed;
}

int main(int argc, char *argv[])
{
	if (argc < 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client ADDR PORT [READY_FILE]\n", argv[0]);
		return 2;
	}
	const bool server = strcmp(argv[1], "server") == 0;
	struct rpma_peer *peer = NULL;

	rpma_log_set_function(print_capabilities);
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO);
	if (example_peer_new(argv[2], server ? RPMA_UTIL_IBV_CONTEXT_LOCAL :
			RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		return 1;
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_WARNING);
	rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);

	int failed = server ? run_server(peer, argc, argv) : run_client(peer, argv);
	rpma_peer_delete(&peer);
	printf("%s: %s\n", argv[1], failed ? "FAILED" : "OK");
	return failed ? 1 : 0;
}
