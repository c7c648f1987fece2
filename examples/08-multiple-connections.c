/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 08-multiple-connections -- one server thread, several connections at once,
 * driven by epoll over non-blocking file descriptors.
 *
 * The server watches, in one epoll set:
 * - the endpoint's fd (rpma_ep_get_fd): a connection request is readable;
 * - each connection's event fd (rpma_conn_get_event_fd): ESTABLISHED, CLOSED;
 * - each connection's CQ fd (rpma_cq_get_fd): a completion event.
 * All three are made O_NONBLOCK, so the calls that read them return
 * RPMA_E_NO_EVENT (rpma_ep_next_conn_req, rpma_conn_next_event) or
 * RPMA_E_NO_COMPLETION (rpma_cq_wait, rpma_cq_get_wc) once they are drained,
 * instead of blocking.
 *
 * Each client sends its value in the connection request's private data; the
 * server answers with its memory's descriptor and a slot number of its own.
 * The client writes the value into the slot, flushes it, and sends a "done"
 * message; on that message the server checks the slot. At the end every
 * slot must hold its own client's value.
 *
 *   08-multiple-connections server ADDR PORT [READY_FILE]   (serves CLIENTS clients)
 *   08-multiple-connections client ADDR PORT ID             (ID: 1..255)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "common/example.h"

#define CLIENTS 4

struct server_info {
	uint8_t mr_desc[21];
	uint8_t slot;
	uint8_t flush_native;	/* example_flush_native_byte() */
};

/* What an epoll event is about: the endpoint, or one connection's events or CQ. */
enum source_kind { SOURCE_EP, SOURCE_EVENTS, SOURCE_CQ };

struct source {
	enum source_kind kind;
	int slot;
};

struct client_slot {
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	int event_fd, cq_fd;
	uint64_t expected;
	bool done, closed;
	struct source events_src, cq_src;
};

struct server {
	int epfd;
	struct rpma_ep *ep;
	int ep_fd;
	struct source ep_src;
	uint64_t mem[CLIENTS];   /* the clients write here */
	uint64_t done[CLIENTS];  /* the "done" messages arrive here */
	struct rpma_mr_local *mem_mr, *done_mr;
	struct client_slot slots[CLIENTS];
	int accepted, finished;
};

static int set_nonblocking(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		perror("example: fcntl(O_NONBLOCK)");
		return -1;
	}
	return 0;
}

static int watch(struct server *s, int fd, struct source *src)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = src};
	if (set_nonblocking(fd))
		return -1;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		perror("example: epoll_ctl(ADD)");
		return -1;
	}
	return 0;
}

static void unwatch(struct server *s, int fd)
{
	if (epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, NULL))
		perror("example: epoll_ctl(DEL)");
}

/* Accept one request: the client's value in, a slot and the descriptor out. */
static int accept_request(struct server *s, struct rpma_conn_req **req)
{
	struct rpma_conn_private_data pdata;
	int slot = s->accepted, ret = rpma_conn_req_get_private_data(*req, &pdata);
	struct client_slot *c = &s->slots[slot];
	/* the transport may pad the private data (RoCE: to 56 bytes): the length is a minimum */
	if (ret || pdata.ptr == NULL || pdata.len < sizeof(uint64_t)) {
		fprintf(stderr, "example: a connection request without the client's value\n");
		return -1;
	}
	memcpy(&c->expected, pdata.ptr, sizeof(c->expected));

	/* the "done" message's buffer is ready before the client may send it */
	if ((ret = rpma_conn_req_recv(*req, s->done_mr, (size_t)slot * sizeof(uint64_t),
			sizeof(uint64_t), &s->done[slot])))
		return example_fail("rpma_conn_req_recv", ret);

	struct server_info info = {.slot = (uint8_t)slot};
	struct rpma_conn_private_data answer = {&info, sizeof(info)};
	if ((ret = rpma_mr_get_descriptor(s->mem_mr, info.mr_desc)))
		return example_fail("rpma_mr_get_descriptor", ret);
	info.flush_native = example_flush_native_byte(s->mem_mr);
	/* does not wait for ESTABLISHED: that arrives on the connection's event fd */
	if ((ret = rpma_conn_req_connect(req, &answer, &c->conn)))
		return example_fail("rpma_conn_req_connect", ret);
	s->accepted++;

	c->events_src = (struct source){SOURCE_EVENTS, slot};
	c->cq_src = (struct source){SOURCE_CQ, slot};
	if ((ret = rpma_conn_get_event_fd(c->conn, &c->event_fd)) ||
			(ret = rpma_conn_get_cq(c->conn, &c->cq)) ||
			(ret = rpma_cq_get_fd(c->cq, &c->cq_fd)))
		return example_fail("getting the connection's fds", ret);
	if (watch(s, c->event_fd, &c->events_src) || watch(s, c->cq_fd, &c->cq_src))
		return -1;
	printf("server: accepted the client with value %#" PRIx64 " into slot %d\n", c->expected,
		slot);
	return 0;
}

static int on_endpoint(struct server *s)
{
	for (;;) {
		struct rpma_conn_req *req = NULL;
		int ret = rpma_ep_next_conn_req(s->ep, NULL, &req);
		if (ret == RPMA_E_NO_EVENT)
			return 0;
		if (ret)
			return example_fail("rpma_ep_next_conn_req", ret);
		if (accept_request(s, &req)) {
			rpma_conn_req_delete(&req);
			return -1;
		}
		if (s->accepted == CLIENTS) {
			/* everyone is here: stop listening */
			unwatch(s, s->ep_fd);
			if ((ret = rpma_ep_shutdown(&s->ep)))
				return example_fail("rpma_ep_shutdown", ret);
			return 0;
		}
	}
}

static int on_cq(struct server *s, struct client_slot *c);

static int on_events(struct server *s, struct client_slot *c)
{
	for (;;) {
		enum rpma_conn_event event;
		int ret = rpma_conn_next_event(c->conn, &event);
		if (ret == RPMA_E_NO_EVENT)
			return 0;
		if (ret)
			return example_fail("rpma_conn_next_event", ret);
		if (event == RPMA_CONN_ESTABLISHED)
			continue;
		/* the "done" message may still wait in the CQ, its epoll event not yet seen */
		if (event == RPMA_CONN_CLOSED && !c->done && on_cq(s, c))
			return -1;
		if (event != RPMA_CONN_CLOSED || !c->done) {
			fprintf(stderr, "example: slot %d: %s before its \"done\" message\n",
				(int)(c - s->slots), rpma_utils_conn_event_2str(event));
			return -1;
		}
		/* the client is finished: the connection goes, and its fds with it */
		unwatch(s, c->event_fd);
		unwatch(s, c->cq_fd);
		int failed = (ret = rpma_conn_disconnect(c->conn)) ?
			example_fail("rpma_conn_disconnect", ret) : 0;
		if ((ret = rpma_conn_delete(&c->conn)))
			failed = example_fail("rpma_conn_delete", ret);
		c->closed = true;
		s->finished++;
		return failed;
	}
}

static int on_cq(struct server *s, struct client_slot *c)
{
	int slot = (int)(c - s->slots);
	/* take the event if there is one; collect the completions either way */
	int ret = rpma_cq_wait(c->cq);
	if (ret && ret != RPMA_E_NO_COMPLETION)
		return example_fail("rpma_cq_wait", ret);
	for (;;) {
		struct ibv_wc wc;
		ret = rpma_cq_get_wc(c->cq, 1, &wc, NULL);
		if (ret == RPMA_E_NO_COMPLETION)
			return 0;
		if (ret)
			return example_fail("rpma_cq_get_wc", ret);
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
				wc.wr_id != (uintptr_t)&s->done[slot]) {
			fprintf(stderr, "example: slot %d: unexpected completion (%s, %s)\n", slot,
				example_wc_opcode_str(wc.opcode), ibv_wc_status_str(wc.status));
			return -1;
		}
		/* the write was flushed before the client sent "done": it is in place */
		if (s->done[slot] != c->expected || s->mem[slot] != c->expected) {
			fprintf(stderr, "example: slot %d holds %#" PRIx64 " (done message %#" PRIx64
				"), expected %#" PRIx64 "\n", slot, s->mem[slot], s->done[slot],
				c->expected);
			return -1;
		}
		c->done = true;
		printf("server: slot %d holds %#" PRIx64 "\n", slot, s->mem[slot]);
	}
}

static int serve(struct server *s)
{
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (s->finished < CLIENTS) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left_ms = EXAMPLE_TIMEOUT_S * 1000L - (now.tv_sec - start.tv_sec) * 1000L -
			(now.tv_nsec - start.tv_nsec) / 1000000L;
		struct epoll_event events[8];
		int n = left_ms > 0 ? epoll_wait(s->epfd, events, 8, (int)left_ms) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("example: epoll_wait");
			return -1;
		}
		if (n == 0) {
			fprintf(stderr, "example: timed out after %d s with %d of %d clients accepted "
				"and %d finished\n", EXAMPLE_TIMEOUT_S, s->accepted, CLIENTS, s->finished);
			return -1;
		}
		for (int i = 0; i < n; i++) {
			const struct source *src = events[i].data.ptr;
			struct client_slot *c = &s->slots[src->slot];
			int failed;
			if (src->kind == SOURCE_EP)
				failed = on_endpoint(s);
			else if (c->closed) /* closed by an earlier event of this batch */
				failed = 0;
			else if (src->kind == SOURCE_EVENTS)
				failed = on_events(s, c);
			else
				failed = on_cq(s, c);
			if (failed)
				return -1;
		}
	}
	/* every value arrived in its own slot; and the values were all different */
	for (int i = 0; i < CLIENTS; i++)
		for (int j = 0; j < i; j++)
			if (s->mem[i] == s->mem[j]) {
				fprintf(stderr, "example: slots %d and %d hold the same value\n", j, i);
				return -1;
			}
	printf("server: all %d slots hold their client's value\n", CLIENTS);
	return 0;
}

static int run_server(struct rpma_peer *peer, int argc, char *argv[])
{
	static struct server s;
	int ret, failed = -1;

	s.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s.epfd < 0) {
		perror("example: epoll_create1");
		return -1;
	}
	s.ep_src = (struct source){SOURCE_EP, 0};
	if ((ret = rpma_mr_reg(peer, s.mem, sizeof(s.mem), RPMA_MR_USAGE_WRITE_DST |
			RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, &s.mem_mr)) ||
			(ret = rpma_mr_reg(peer, s.done, sizeof(s.done), RPMA_MR_USAGE_RECV,
				&s.done_mr))) {
		example_fail("rpma_mr_reg", ret);
		goto out;
	}
	if (example_listen(peer, argv[2], argv[3], argc > 4 ? argv[4] : NULL, &s.ep))
		goto out;
	if ((ret = rpma_ep_get_fd(s.ep, &s.ep_fd))) {
		example_fail("rpma_ep_get_fd", ret);
		goto out;
	}
	if (watch(&s, s.ep_fd, &s.ep_src))
		goto out;
	failed = serve(&s);
out:
	for (int i = 0; i < CLIENTS; i++)
		if (s.slots[i].conn) {
			rpma_conn_disconnect(s.slots[i].conn);
			rpma_conn_delete(&s.slots[i].conn);
		}
	example_ep_shutdown(&s.ep);
	rpma_mr_dereg(&s.done_mr);
	rpma_mr_dereg(&s.mem_mr);
	close(s.epfd);
	return failed;
}

static int run_client(struct rpma_peer *peer, char *argv[], int id)
{
	static uint64_t value;
	struct rpma_mr_local *mr = NULL;
	struct rpma_mr_remote *rmr = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pdata = {&value, sizeof(value)};
	struct rpma_cq *cq = NULL;
	int ret, failed = -1;

	value = 0xc0ffee0000000000ull | (uint64_t)id << 16 | (uint64_t)id;
	if ((ret = rpma_mr_reg(peer, &value, sizeof(value), RPMA_MR_USAGE_WRITE_SRC |
			RPMA_MR_USAGE_SEND, &mr)))
		return example_fail("rpma_mr_reg", ret);
	if (example_client_connect(peer, argv[2], argv[3], NULL, &pdata, &conn))
		goto out;
	const struct server_info *info;
	if ((ret = rpma_conn_get_private_data(conn, &pdata)) || pdata.len < sizeof(*info)) {
		fprintf(stderr, "example: the server sent no slot\n");
		goto out;
	}
	info = pdata.ptr;
	size_t offset = info->slot * sizeof(uint64_t), size = 0;
	if ((ret = rpma_mr_remote_from_descriptor(info->mr_desc, sizeof(info->mr_desc), &rmr)) ||
			(ret = example_apply_flush_native_byte(rmr, info->flush_native)) ||
			(ret = rpma_mr_remote_get_size(rmr, &size)) ||
			(ret = rpma_conn_get_cq(conn, &cq))) {
		example_fail("reading the server's answer", ret);
		goto out;
	}
	if (offset + sizeof(value) > size) {
		fprintf(stderr, "example: slot %u is outside the server's memory\n", info->slot);
		goto out;
	}
	if ((ret = rpma_write(conn, rmr, offset, mr, 0, sizeof(value), RPMA_F_COMPLETION_ON_ERROR,
			NULL)) ||
			(ret = rpma_flush(conn, rmr, offset, sizeof(value), RPMA_FLUSH_TYPE_VISIBILITY,
			RPMA_F_COMPLETION_ALWAYS, NULL))) {
		example_fail("write + flush", ret);
		goto out;
	}
	if (example_expect_flush_completion(cq))
		goto out;
	/* the value is in place: say so (the message repeats it) */
	if ((ret = rpma_send(conn, mr, 0, sizeof(value), RPMA_F_COMPLETION_ALWAYS, NULL))) {
		example_fail("rpma_send", ret);
		goto out;
	}
	if (example_expect_completion(cq, IBV_WC_SEND, NULL))
		goto out;
	printf("client %d: wrote %#" PRIx64 " into slot %u\n", id, value, info->slot);
	failed = 0;
out:
	if (conn && example_disconnect(&conn))
		failed = -1;
	rpma_mr_remote_delete(&rmr);
	rpma_mr_dereg(&mr);
	return failed;
}

/* The client's ID (argv[4], 1..255), or -1 when missing or out of range. */
static int client_id(int argc, char *argv[])
{
	int id = argc >= 5 ? atoi(argv[4]) : 0;
	return id >= 1 && id <= 255 ? id : -1;
}

static int run_client_with_id(struct rpma_peer *peer, int argc, char *argv[])
{
	return run_client(peer, argv, client_id(argc, argv));
}

int main(int argc, char *argv[])
{
	if (argc >= 2 && strcmp(argv[1], "client") == 0 && client_id(argc, argv) < 0) {
		fprintf(stderr, "usage: %s client ADDR PORT ID   (ID: 1..255)\n", argv[0]);
		return 2;
	}
	return example_main(argc, argv, "server ADDR PORT [READY_FILE] | client ADDR PORT ID",
		run_server, run_client_with_id);
}
