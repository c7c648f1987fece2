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

/*
 * The server: the connection established, then the client's disconnect; or
 * the disconnect alone. A client that leaves at once can have its disconnect
 * overtake the last message of its handshake (lost or late), on which rdma_cm
 * reports ESTABLISHED here, and no data follows to stand in for it: the client
 * did connect (it has the server's private data), and has left.
 */
static int serve(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_private_data *pdata, const char *ready_file)
{
	struct rpma_conn *conn = NULL;
	enum rpma_conn_event event;
	int ret;

	if (example_server_connect(peer, addr, port, NULL, pdata, ready_file, &conn))
		return -1;
	int failed = example_next_event(conn, "the connection", &event) ||
		check_private_data(conn, CLIENT_GREETING);
	if (!failed && event == RPMA_CONN_ESTABLISHED)
		return example_wait_disconnect(&conn);
	if (!failed && event == RPMA_CONN_CLOSED)
		printf("server: the client left before its connection was reported established\n");
	else if (!failed) {
		fprintf(stderr, "example: expected event %s, got %s\n",
			rpma_utils_conn_event_2str(RPMA_CONN_ESTABLISHED), rpma_utils_conn_event_2str(event));
		failed = -1;
	}
	if ((ret = rpma_conn_disconnect(conn)))
		failed = example_fail("rpma_conn_disconnect", ret);
	(void) rpma_conn_delete(&conn);
	return failed ? -1 : 0;
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
		failed = serve(peer, addr, port, &pdata, argc > 4 ? argv[4] : NULL);
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
