/* SPDX-License-Identifier: BSD-3-Clause */
/* example.c -- see example.h */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "example.h"

#define CONNECT_ATTEMPTS 40
#define CONNECT_RETRY_US 250000

int example_fail(const char *what, int ret)
{
	fprintf(stderr, "example: %s: %s\n", what, rpma_err_2str(ret));
	return -1;
}

int example_peer_new(const char *addr, enum rpma_util_ibv_context_type type,
		struct rpma_peer **peer_ptr)
{
	struct ibv_context *ibv_ctx;
	int ret = rpma_utils_get_ibv_context(addr, type, &ibv_ctx);
	if (ret) {
		fprintf(stderr, "example: no RDMA device serves address %s\n", addr);
		return example_fail("rpma_utils_get_ibv_context", ret);
	}
	ret = rpma_peer_new(ibv_ctx, peer_ptr);
	return ret ? example_fail("rpma_peer_new", ret) : 0;
}

int example_env_int(const char *name, int min, int max, int dflt)
{
	const char *env = getenv(name);
	if (env == NULL || *env == '\0')
		return dflt;
	char *end;
	errno = 0;
	long v = strtol(env, &end, 10);
	if (*end == '\0' && errno == 0 && v >= min && v <= max)
		return (int)v;
	fprintf(stderr, "example: %s='%s' is not %d..%d: using %d\n", name, env, min, max, dflt);
	return dflt;
}

int example_timeout_s(void)
{
	static int timeout_s;
	if (timeout_s == 0)
		timeout_s = example_env_int("EXAMPLE_TIMEOUT_S", 1, 3600, 20);
	return timeout_s;
}

int example_wait_readable(int fd, const char *what)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int n = poll(&pfd, 1, EXAMPLE_TIMEOUT_S * 1000);
	if (n == 1)
		return 0;
	fprintf(stderr, "example: timed out after %d s waiting for %s\n", EXAMPLE_TIMEOUT_S, what);
	return -1;
}

static int touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "example: cannot create %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

void example_ep_shutdown(struct rpma_ep **ep_ptr)
{
	/* a failed shutdown leaves the endpoint whole: one more try, then report it */
	int ret = rpma_ep_shutdown(ep_ptr);
	if (ret && (ret = rpma_ep_shutdown(ep_ptr)))
		example_fail("rpma_ep_shutdown", ret);
}

int example_listen(struct rpma_peer *peer, const char *addr, const char *port,
		const char *ready_file, struct rpma_ep **ep_ptr)
{
	int ret = rpma_ep_listen(peer, addr, port, ep_ptr);
	if (ret)
		return example_fail("rpma_ep_listen", ret);
	if (ready_file && touch(ready_file)) {
		example_ep_shutdown(ep_ptr);
		return -1;
	}
	printf("server: listening on %s:%s\n", addr, port);
	fflush(stdout);
	return 0;
}

int example_next_request(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
		struct rpma_conn_req **req_ptr)
{
	int fd, ret = rpma_ep_get_fd(ep, &fd);
	if (ret)
		return example_fail("rpma_ep_get_fd", ret);
	if (example_wait_readable(fd, "a connection request"))
		return -1;
	ret = rpma_ep_next_conn_req(ep, cfg, req_ptr);
	return ret ? example_fail("rpma_ep_next_conn_req", ret) : 0;
}

/* the connection accepted, its first event not yet taken */
static int accept_only(struct rpma_conn_req **req_ptr, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr)
{
	int ret = rpma_conn_req_connect(req_ptr, pdata, conn_ptr);
	return ret ? example_fail("rpma_conn_req_connect", ret) : 0;
}

int example_accept(struct rpma_conn_req **req_ptr, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr)
{
	if (accept_only(req_ptr, pdata, conn_ptr))
		return -1;
	if (example_expect_event(*conn_ptr, RPMA_CONN_ESTABLISHED)) {
		rpma_conn_delete(conn_ptr);
		return -1;
	}
	return 0;
}

/* listen, take one request, accept it by ACCEPT, shut the endpoint down */
static int server_accept_by(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		const char *ready_file, struct rpma_conn **conn_ptr,
		int (*accept)(struct rpma_conn_req **, const struct rpma_conn_private_data *,
			struct rpma_conn **))
{
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	if (example_listen(peer, addr, port, ready_file, &ep))
		return -1;
	int failed = example_next_request(ep, cfg, &req) || accept(&req, pdata, conn_ptr);
	example_ep_shutdown(&ep);
	return failed ? -1 : 0;
}

int example_server_accept(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		const char *ready_file, struct rpma_conn **conn_ptr)
{
	return server_accept_by(peer, addr, port, cfg, pdata, ready_file, conn_ptr, example_accept);
}

int example_server_connect(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		const char *ready_file, struct rpma_conn **conn_ptr)
{
	return server_accept_by(peer, addr, port, cfg, pdata, ready_file, conn_ptr, accept_only);
}

int example_connect_attempt(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr, enum rpma_conn_event *event)
{
	struct rpma_conn_req *req = NULL;
	int fd, ret = rpma_conn_req_new(peer, addr, port, cfg, &req);
	if (ret)
		return example_fail("rpma_conn_req_new", ret);
	*event = RPMA_CONN_UNDEFINED;
	if ((ret = rpma_conn_req_connect(&req, pdata, conn_ptr))) {
		/* iWARP connects over TCP: a port nobody listens on refuses at once */
		if (ret == RPMA_E_PROVIDER && errno == ECONNREFUSED) {
			*event = RPMA_CONN_REJECTED;
			return 0;
		}
		return example_fail("rpma_conn_req_connect", ret);
	}
	if ((ret = rpma_conn_get_event_fd(*conn_ptr, &fd)) ||
			example_wait_readable(fd, "the answer to the connection request") ||
			(ret = rpma_conn_next_event(*conn_ptr, event))) {
		if (ret)
			example_fail("rpma_conn_next_event", ret);
		rpma_conn_delete(conn_ptr);
		return -1;
	}
	if (*event != RPMA_CONN_ESTABLISHED)
		rpma_conn_delete(conn_ptr);
	return 0;
}

/* One connect attempt: 1 connected, 0 not listening yet (retry), -1 error. */
static int connect_once(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr)
{
	enum rpma_conn_event event;
	if (example_connect_attempt(peer, addr, port, cfg, pdata, conn_ptr, &event))
		return -1;
	if (event == RPMA_CONN_ESTABLISHED)
		return 1;
	if (event == RPMA_CONN_REJECTED || event == RPMA_CONN_UNREACHABLE)
		return 0;
	fprintf(stderr, "example: unexpected connection event: %s\n",
		rpma_utils_conn_event_2str(event));
	return -1;
}

int example_client_connect(struct rpma_peer *peer, const char *addr, const char *port,
		const struct rpma_conn_cfg *cfg, const struct rpma_conn_private_data *pdata,
		struct rpma_conn **conn_ptr)
{
	for (int attempt = 0; attempt < CONNECT_ATTEMPTS; attempt++) {
		int ret = connect_once(peer, addr, port, cfg, pdata, conn_ptr);
		if (ret != 0)
			return ret > 0 ? 0 : -1;
		usleep(CONNECT_RETRY_US);
	}
	fprintf(stderr, "example: no server accepted a connection at %s:%s\n", addr, port);
	return -1;
}

int example_next_event(struct rpma_conn *conn, const char *what, enum rpma_conn_event *event)
{
	int fd, ret = rpma_conn_get_event_fd(conn, &fd);
	*event = RPMA_CONN_UNDEFINED;
	if (ret)
		return example_fail("rpma_conn_get_event_fd", ret);
	if (example_wait_readable(fd, what))
		return -1;
	if ((ret = rpma_conn_next_event(conn, event)))
		return example_fail("rpma_conn_next_event", ret);
	return 0;
}

int example_expect_event(struct rpma_conn *conn, enum rpma_conn_event expected)
{
	enum rpma_conn_event event;
	if (example_next_event(conn, rpma_utils_conn_event_2str(expected), &event))
		return -1;
	if (event != expected) {
		fprintf(stderr, "example: expected event %s, got %s\n",
			rpma_utils_conn_event_2str(expected), rpma_utils_conn_event_2str(event));
		return -1;
	}
	return 0;
}

int example_next_completion(struct rpma_cq *cq, struct ibv_wc *wc_out)
{
	struct ibv_wc wc;
	int fd, ret;

	for (;;) {
		ret = rpma_cq_get_wc(cq, 1, &wc, NULL);
		if (ret == 0)
			break;
		if (ret != RPMA_E_NO_COMPLETION)
			return example_fail("rpma_cq_get_wc", ret);
		if ((ret = rpma_cq_get_fd(cq, &fd)))
			return example_fail("rpma_cq_get_fd", ret);
		if (example_wait_readable(fd, "a completion"))
			return -1;
		if ((ret = rpma_cq_wait(cq)))
			return example_fail("rpma_cq_wait", ret);
	}
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "example: operation failed: %s\n", ibv_wc_status_str(wc.status));
		return -1;
	}
	*wc_out = wc;
	return 0;
}

int example_expect_completion(struct rpma_cq *cq, enum ibv_wc_opcode opcode, struct ibv_wc *wc_out)
{
	struct ibv_wc wc;
	if (example_next_completion(cq, &wc))
		return -1;
	if (wc.opcode != opcode) {
		fprintf(stderr, "example: unexpected completion %s (expected %s)\n",
			example_wc_opcode_str(wc.opcode), example_wc_opcode_str(opcode));
		return -1;
	}
	if (wc_out)
		*wc_out = wc;
	return 0;
}

/* native RDMA FLUSH's and ATOMIC WRITE's completion opcodes (rdma-core >= 45) */
#define EXAMPLE_WC_FLUSH ((enum ibv_wc_opcode)8)
#define EXAMPLE_WC_ATOMIC_WRITE ((enum ibv_wc_opcode)9)

int example_expect_flush_completion(struct rpma_cq *cq)
{
	struct ibv_wc wc;
	if (example_next_completion(cq, &wc))
		return -1;
	/* the library emulates a flush with a read where the device has no native one */
	if (wc.opcode != IBV_WC_RDMA_READ && wc.opcode != EXAMPLE_WC_FLUSH) {
		fprintf(stderr, "example: unexpected completion %s (expected FLUSH or the "
			"RDMA_READ that emulates it)\n", example_wc_opcode_str(wc.opcode));
		return -1;
	}
	/* EXAMPLE_FLUSH=native: a test that must see the device's own FLUSH */
	const char *want = getenv("EXAMPLE_FLUSH");
	if (want && strcmp(want, "native") == 0 && wc.opcode != EXAMPLE_WC_FLUSH) {
		fprintf(stderr, "example: the flush completed as %s, not as a native FLUSH "
			"(EXAMPLE_FLUSH=native)\n", example_wc_opcode_str(wc.opcode));
		return -1;
	}
	return 0;
}

uint8_t example_flush_native_byte(const struct rpma_mr_local *mr)
{
	bool native = false;
	return rpma_mr_get_flush_native(mr, &native) == 0 && native;
}

int example_apply_flush_native_byte(struct rpma_mr_remote *rmr, uint8_t byte)
{
	if (byte > 1) {
		fprintf(stderr, "example: the server's native-FLUSH byte is %u (expected 0 or 1)\n",
			byte);
		return -1;
	}
	int ret = byte ? rpma_mr_remote_set_flush_native(rmr) : 0;
	return ret ? example_fail("rpma_mr_remote_set_flush_native", ret) : 0;
}

const char *example_wc_opcode_str(enum ibv_wc_opcode opcode)
{
	if (opcode == EXAMPLE_WC_FLUSH)
		return "FLUSH";
	if (opcode == EXAMPLE_WC_ATOMIC_WRITE)
		return "ATOMIC_WRITE";
	switch (opcode) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "another opcode";
	}
}

int example_disconnect(struct rpma_conn **conn_ptr)
{
	int ret = rpma_conn_disconnect(*conn_ptr);
	int failed = ret ? example_fail("rpma_conn_disconnect", ret) : 0;
	if (!failed)
		failed = example_expect_event(*conn_ptr, RPMA_CONN_CLOSED);
	ret = rpma_conn_delete(conn_ptr);
	return (failed || ret) ? -1 : 0;
}

int example_wait_disconnect(struct rpma_conn **conn_ptr)
{
	int failed = example_expect_event(*conn_ptr, RPMA_CONN_CLOSED);
	int ret = rpma_conn_disconnect(*conn_ptr);
	if (ret)
		failed = example_fail("rpma_conn_disconnect", ret);
	ret = rpma_conn_delete(conn_ptr);
	return (failed || ret) ? -1 : 0;
}

int example_main(int argc, char *argv[], const char *usage, example_role_fn *server,
		example_role_fn *client)
{
	const bool is_server = argc >= 4 && strcmp(argv[1], "server") == 0;
	const bool is_client = argc >= 4 && strcmp(argv[1], "client") == 0;
	if (!is_server && !is_client) {
		fprintf(stderr, "usage: %s %s\n", argv[0], usage);
		return 2;
	}
	struct rpma_peer *peer = NULL;
	if (example_peer_new(argv[2], is_server ? RPMA_UTIL_IBV_CONTEXT_LOCAL :
			RPMA_UTIL_IBV_CONTEXT_REMOTE, &peer))
		return 1;
	int failed = is_server ? server(peer, argc, argv) : client(peer, argc, argv);
	rpma_peer_delete(&peer);
	printf("%s: %s\n", argv[1], failed ? "FAILED" : "OK");
	return failed ? 1 : 0;
}
