/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 01-connection -- connect, exchange private data both ways, disconnect.
 *
 *   01-connection server ADDR PORT [READY_FILE]
 *   01-connection client ADDR PORT
 */
#include <stdio.h>
#include <string.h>

#include "common/example.h"

#define SERVER_GREETING "hello from the server"
#define CLIENT_GREETING "hello from the client"

/* Check the peer's private data starts with the expected text. */
static int check_private_data(struct rpma_conn *conn, const char *expected)
{
	struct rpma_conn_private_data pdata;
	int ret = rpma_conn_get_private_data(conn, &pdata);
	if (ret)
		return example_fail("rpma_conn_get_private_data", ret);
	size_t len = strlen(expected) + 1;
	if (pdata.ptr == NULL || pdata.len < len || memcmp(pdata.ptr, expected, len) != 0) {
		fprintf(stderr, "example: private data is not \"%s\" (%u bytes received)\n",
			expected, pdata.len);
		return -1;
	}
	printf("received private data: \"%s\"\n", (const char *)pdata.ptr);
	return 0;
}

int main(int argc, char *argv[])
{
	if (argc < 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client ADDR PORT [READY_FILE]\n", argv[0]);
		return 2;
	}
	const bool server = strcmp(argv[1], "server") == 0;
	const char *addr = argv[2], *port = argv[3];
	char greeting[32];
	snprintf(greeting, sizeof(greeting), "%s", server ? SERVER_GREETING : CLIENT_GREETING);
	struct rpma_conn_private_data pdata = {greeting, (uint8_t)(strlen(greeting) + 1)};
	struct rpma_peer *peer = NULL;
	struct rpma_conn *conn = NULL;
	int failed;

	if (example_peer_new(addr, server ? RPMA_UTIL_IBV_CONTEXT_LOCAL :
			RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		return 1;
	if (server) {
		failed = example_server_accept(peer, addr, port, NULL, &pdata,
				argc > 4 ? argv[4] : NULL, &conn) ||
			check_private_data(conn, CLIENT_GREETING) ||
			example_wait_disconnect(&conn);
	} else {
		failed = example_client_connect(peer, addr, port, NULL, &pdata, &conn) ||
			check_private_data(conn, SERVER_GREETING) ||
			example_disconnect(&conn);
	}
	if (conn)
		rpma_conn_delete(&conn);
	rpma_peer_delete(&peer);
	printf("%s: %s\n", argv[1], failed ? "FAILED" : "OK");
	return failed ? 1 : 0;
}
