/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 10-peer-gone -- noticing that the other side has vanished.
 *
 * The client writes a counter into the server's memory and flushes it, over
 * and over, until something stops it. The server waits until the first
 * value arrives and says so ("the client's first data arrived"), then waits
 * for the connection to end. The test then kills one of the two with
 * SIGKILL: no disconnect, no clean-up, work requests still in flight. The
 * kernel tears the dead process's connection down, and the survivor has to
 * notice within EXAMPLE_TIMEOUT_S and end cleanly:
 *
 * - the server, when the client is killed, through a connection event
 *   (RPMA_CONN_CLOSED or RPMA_CONN_LOST) on rpma_conn_get_event_fd();
 * - the client, when the server is killed, through either that event or a
 *   failed completion of its writes (it waits on both fds at once).
 *
 * Each side prints "<side>: the <peer> is gone: <how>" and exits 0. A side
 * that is not killed and notices nothing gives up after EXAMPLE_TIMEOUT_S
 * and exits 1.
 *
 *   10-peer-gone server ADDR PORT [READY_FILE]
 *   10-peer-gone client ADDR PORT
 */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/example.h"

#define REGION_SIZE 4096

static double elapsed_s(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

/* The connection event that says the peer is gone; anything else is an error. */
static int peer_gone_event(struct rpma_conn *conn, const char *side, const char *peer_name)
{
	enum rpma_conn_event event;
	int ret = rpma_conn_next_event(conn, &event);
	if (ret)
		return example_fail("rpma_conn_next_event", ret);
	if (event != RPMA_CONN_CLOSED && event != RPMA_CONN_LOST) {
		fprintf(stderr, "example: unexpected connection event: %s\n",
			rpma_utils_conn_event_2str(event));
		return -1;
	}
	printf("%s: the %s is gone: %s\n", side, peer_name, rpma_utils_conn_event_2str(event));
	return 0;
}

/* After the peer has gone: disconnect our side too and release the connection. */
static int close_after_peer(struct rpma_conn **conn)
{
	int ret = rpma_conn_disconnect(*conn);
	int failed = ret ? example_fail("rpma_conn_disconnect", ret) : 0;
	if ((ret = rpma_conn_delete(conn)))
		failed = example_fail("rpma_conn_delete", ret);
	return failed;
}

static int run_server(struct rpma_peer *peer, int argc, char *argv[])
{
	static _Alignas(8) uint8_t mem[REGION_SIZE];
	volatile const uint64_t *counter = (volatile const uint64_t *)mem;
	struct rpma_mr_local *mr = NULL;
	struct rpma_conn *conn = NULL;
	uint8_t desc[21];
	int fd, ret, failed = -1;

	if ((ret = rpma_mr_reg(peer, mem, sizeof(mem), RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &mr)) ||
			(ret = rpma_mr_get_descriptor(mr, desc)))
		return example_fail("registering the memory", ret);
	struct rpma_conn_private_data pdata = {desc, sizeof(desc)};
	if (example_server_accept(peer, argv[2], argv[3], NULL, &pdata, argc > 4 ? argv[4] : NULL,
			&conn))
		goto out;
	if ((ret = rpma_conn_get_event_fd(conn, &fd))) {
		example_fail("rpma_conn_get_event_fd", ret);
		goto out;
	}

	/* look at the memory every 10 ms, watching the connection meanwhile */
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	while (*counter == 0) {
		if (elapsed_s(&start) > EXAMPLE_TIMEOUT_S) {
			fprintf(stderr, "example: no data from the client within %d s\n",
				EXAMPLE_TIMEOUT_S);
			goto out;
		}
		if (poll(&pfd, 1, 10) == 1) {
			fprintf(stderr, "example: the connection ended before any data arrived\n");
			goto out;
		}
	}
	printf("server: the client's first data arrived (counter %" PRIu64 ")\n", *counter);
	fflush(stdout);

	if (example_wait_readable(fd, "the client to go away") ||
			peer_gone_event(conn, "server", "client"))
		goto out;
	printf("server: the client got as far as counter %" PRIu64 "\n", *counter);
	failed = 0;
out:
	if (conn && close_after_peer(&conn))
		failed = -1;
	rpma_mr_dereg(&mr);
	return failed;
}

/*
 * Wait for the completion of the flush or for a connection event.
 * 1: the server is gone (message printed), 0: flushed, -1: error.
 */
static int client_wait(struct rpma_conn *conn, struct rpma_cq *cq)
{
	int ret, fds[2];
	if ((ret = rpma_cq_get_fd(cq, &fds[0])) || (ret = rpma_conn_get_event_fd(conn, &fds[1])))
		return example_fail("getting the fds", ret);
	struct pollfd pfd[2] = {{.fd = fds[0], .events = POLLIN}, {.fd = fds[1], .events = POLLIN}};

	for (;;) {
		struct ibv_wc wc;
		ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
		if (ret == 0 && wc.status == IBV_WC_SUCCESS)
			return 0;
		if (ret == 0) {
			printf("client: the server is gone: a failed completion (%s)\n",
				ibv_wc_status_str(wc.status));
			return 1;
		}
		if (ret != RPMA_E_NO_COMPLETION)
			return example_fail("rpma_cq_get_wc", ret);
		if (poll(pfd, 2, EXAMPLE_TIMEOUT_S * 1000) <= 0) {
			fprintf(stderr, "example: neither a completion nor an event in %d s\n",
				EXAMPLE_TIMEOUT_S);
			return -1;
		}
		if (pfd[1].revents & POLLIN)
			return peer_gone_event(conn, "client", "server") ? -1 : 1;
		if ((pfd[0].revents & POLLIN) && (ret = rpma_cq_wait(cq)))
			return example_fail("rpma_cq_wait", ret);
	}
}

static int run_client(struct rpma_peer *peer, int argc, char *argv[])
{
	(void)argc;
	static uint64_t counter;
	struct rpma_mr_local *mr = NULL;
	struct rpma_mr_remote *rmr = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pdata;
	struct rpma_cq *cq = NULL;
	int ret, failed = -1;

	if ((ret = rpma_mr_reg(peer, &counter, sizeof(counter), RPMA_MR_USAGE_WRITE_SRC, &mr)))
		return example_fail("rpma_mr_reg", ret);
	if (example_client_connect(peer, argv[2], argv[3], NULL, NULL, &conn))
		goto out;
	if ((ret = rpma_conn_get_private_data(conn, &pdata)) || pdata.len < 21 ||
			(ret = rpma_mr_remote_from_descriptor(pdata.ptr, 21, &rmr)) ||
			(ret = rpma_conn_get_cq(conn, &cq))) {
		example_fail("reading the server's memory descriptor", ret ? ret : RPMA_E_INVAL);
		goto out;
	}

	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (elapsed_s(&start) < EXAMPLE_TIMEOUT_S) {
		counter++;
		if ((ret = rpma_write(conn, rmr, 0, mr, 0, sizeof(counter),
				RPMA_F_COMPLETION_ON_ERROR, NULL)) ||
				(ret = rpma_flush(conn, rmr, 0, sizeof(counter),
				RPMA_FLUSH_TYPE_VISIBILITY, RPMA_F_COMPLETION_ALWAYS, NULL))) {
			example_fail("write + flush", ret);
			goto out;
		}
		ret = client_wait(conn, cq);
		if (ret < 0)
			goto out;
		if (ret > 0) {
			printf("client: %" PRIu64 " writes flushed before that\n", counter - 1);
			failed = close_after_peer(&conn);
			goto out;
		}
		if (counter == 1) {
			printf("client: the first write is flushed; going on until stopped\n");
			fflush(stdout);
		}
	}
	fprintf(stderr, "example: nobody went away within %d s (%" PRIu64 " writes)\n",
		EXAMPLE_TIMEOUT_S, counter);
out:
	if (conn)
		close_after_peer(&conn);
	rpma_mr_remote_delete(&rmr);
	rpma_mr_dereg(&mr);
	return failed;
}

int main(int argc, char *argv[])
{
	return example_main(argc, argv, "server|client ADDR PORT [READY_FILE]", run_server, run_client);
}
