/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 09-reject -- refusing a connection.
 *
 * The server takes the connection request, reads what the client says in
 * its private data, and deletes the request instead of connecting it:
 * rpma_conn_req_delete() on an incoming request rejects it. The client's
 * connection then ends with its first event, RPMA_CONN_REJECTED.
 *
 * The client makes a single attempt, started only once the server listens
 * (the READY_FILE), so the rejection can only be the server's.
 *
 *   09-reject server ADDR PORT [READY_FILE]
 *   09-reject client ADDR PORT
 */
#include <stdio.h>
#include <string.h>

#include "common/example.h"

#define REQUEST "may I come in?"

static int run_server(struct rpma_peer *peer, int argc, char *argv[])
{
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn_private_data pdata;
	int ret, failed = -1;

	if (example_listen(peer, argv[2], argv[3], argc > 4 ? argv[4] : NULL, &ep))
		return -1;
	if (example_next_request(ep, NULL, &req))
		goto out;
	if ((ret = rpma_conn_req_get_private_data(req, &pdata))) {
		example_fail("rpma_conn_req_get_private_data", ret);
		rpma_conn_req_delete(&req);
		goto out;
	}
	/* the transport may pad the private data (RoCE: to 56 bytes), so compare the start */
	bool asked = pdata.ptr != NULL && pdata.len >= sizeof(REQUEST) &&
		memcmp(pdata.ptr, REQUEST, sizeof(REQUEST)) == 0;
	printf("server: the client asks \"%s\"\n", asked ? REQUEST : "(something else)");
	/* the answer is no */
	if ((ret = rpma_conn_req_delete(&req))) {
		example_fail("rpma_conn_req_delete", ret);
		goto out;
	}
	printf("server: rejected the request\n");
	failed = asked ? 0 : -1;
out:
	example_ep_shutdown(&ep);
	return failed;
}

static int run_client(struct rpma_peer *peer, int argc, char *argv[])
{
	(void)argc;
	static char request[] = REQUEST;
	struct rpma_conn_private_data pdata = {request, sizeof(request)};
	struct rpma_conn *conn = NULL;
	enum rpma_conn_event event;

	if (example_connect_attempt(peer, argv[2], argv[3], NULL, &pdata, &conn, &event))
		return -1;
	if (event == RPMA_CONN_REJECTED) {
		printf("client: the server rejected the connection (RPMA_CONN_REJECTED: %s)\n",
			rpma_utils_conn_event_2str(event));
		return 0;
	}
	fprintf(stderr, "example: expected RPMA_CONN_REJECTED, got: %s\n",
		rpma_utils_conn_event_2str(event));
	if (conn)
		example_disconnect(&conn);
	return -1;
}

int main(int argc, char *argv[])
{
	return example_main(argc, argv, "server|client ADDR PORT [READY_FILE]", run_server, run_client);
}
