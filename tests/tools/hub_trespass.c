/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hub_trespass.c -- one admitted client of a GPSPM hub reaching for another's
 * bytes (tests/e2e/engines_hub.sh): the hub must keep its clients apart.
 *
 *   hub-trespass ADDR VICTIM_PORT READER_PORT WRITER_PORT
 *
 * It connects as three of the hub's clients, as a GPSPM client does (the
 * server's workspace in the private data). As the victim it writes a pattern
 * over the first 4096 bytes of its part and reads it back (its own access
 * works). With the victim's memory descriptor -- its real rkey and address,
 * which another client could guess -- the reader posts an RDMA read and the
 * writer an RDMA write of other bytes, each on its own connection. Each must
 * complete in error (the device refuses it: a remote access error), the read
 * must not bring the victim's bytes, and the victim, reading its bytes again,
 * must find its pattern. Then all three disconnect.
 *
 * Prints a line per step; exits 0 when both were refused and the victim's bytes
 * are as it wrote them, 1 when either got through, 2 on a set-up error.
 */
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librpma.h>

#include "common/workspace.h"

#define LEN 4096
#define WAIT_MS 10000

/* one of the hub's clients as this program plays it */
struct player {
	const char *name;
	struct rpma_conn *conn;
	struct rpma_cq *cq;
	struct rpma_mr_remote *part;	/* its part of the server's memory */
	int ev_fd;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int setup_failed(const char *who, const char *what, int ret)
{
	fprintf(stderr, "hub-trespass: %s: %s: %s\n", who, what, rpma_err_2str(ret));
	return -1;
}

/* connect p to ADDR:port (the hub may take a moment to listen: 20 s of tries) */
static int join(struct rpma_peer *peer, const char *addr, const char *port, struct player *p)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_private_data pdata;
	struct rpmafio_ws ws;
	enum rpma_conn_event ev;
	char why[256];
	int ret;

	if ((ret = rpma_conn_cfg_new(&cfg)) || (ret = rpma_conn_cfg_set_sq_size(cfg, 4)) ||
			(ret = rpma_conn_cfg_set_cq_size(cfg, 4)))
		return setup_failed(p->name, "connection configuration", ret);
	const uint64_t deadline = now_ms() + 20000;
	for (;;) {
		struct rpma_conn_req *req = NULL;
		if ((ret = rpma_conn_req_new(peer, addr, port, cfg, &req)) ||
				(ret = rpma_conn_req_connect(&req, NULL, &p->conn)) ||
				(ret = rpma_conn_get_event_fd(p->conn, &p->ev_fd)))
			return setup_failed(p->name, "connecting", ret);
		struct pollfd pfd = {.fd = p->ev_fd, .events = POLLIN};
		ev = RPMA_CONN_UNDEFINED;
		if (poll(&pfd, 1, WAIT_MS) == 1 && (ret = rpma_conn_next_event(p->conn, &ev)))
			return setup_failed(p->name, "rpma_conn_next_event", ret);
		if (ev == RPMA_CONN_ESTABLISHED)
			break;
		(void) rpma_conn_delete(&p->conn);
		if (now_ms() > deadline) {
			fprintf(stderr, "hub-trespass: %s: cannot connect to %s:%s (%s)\n", p->name,
				addr, port, rpma_utils_conn_event_2str(ev));
			return -1;
		}
		usleep(200000);
	}
	(void) rpma_conn_cfg_delete(&cfg);
	if ((ret = rpma_conn_get_private_data(p->conn, &pdata)))
		return setup_failed(p->name, "rpma_conn_get_private_data", ret);
	if (rpmafio_ws_decode(pdata.ptr, pdata.len, &ws, why, sizeof(why))) {
		fprintf(stderr, "hub-trespass: %s: %s\n", p->name, why);
		return -1;
	}
	if ((ret = rpma_mr_remote_from_descriptor(ws.mr_desc, ws.mr_desc_size, &p->part)) ||
			(ret = rpma_conn_get_cq(p->conn, &p->cq)))
		return setup_failed(p->name, "the server's memory descriptor", ret);
	printf("%s: connected on port %s\n", p->name, port);
	return 0;
}

/* the completion of p's one operation in flight: its status, or -1 when none came */
static int completion(struct player *p)
{
	const uint64_t deadline = now_ms() + WAIT_MS;
	struct ibv_wc wc;
	int got = 0;

	while (now_ms() < deadline) {
		int ret = rpma_cq_get_wc(p->cq, 1, &wc, &got);
		if (ret == 0 && got == 1)
			return (int)wc.status;
		if (ret != RPMA_E_NO_COMPLETION)
			return -1;
		usleep(1000);
	}
	return -1;
}

/* read or write LEN bytes at offset 0 of part, from or to mr at off, through p's connection */
static int op(struct player *p, struct rpma_mr_local *mr, size_t off,
		struct rpma_mr_remote *part, bool write)
{
	int ret = write ?
		rpma_write(p->conn, part, 0, mr, off, LEN, RPMA_F_COMPLETION_ALWAYS, NULL) :
		rpma_read(p->conn, mr, off, part, 0, LEN, RPMA_F_COMPLETION_ALWAYS, NULL);
	if (ret) {
		fprintf(stderr, "hub-trespass: %s: posting: %s\n", p->name, rpma_err_2str(ret));
		return -1;
	}
	return completion(p);
}

static const char *status_str(int st)
{
	return st < 0 ? "no completion" : ibv_wc_status_str((enum ibv_wc_status)st);
}

int main(int argc, char *argv[])
{
	struct player victim = {.name = "victim"}, reader = {.name = "reader"},
		writer = {.name = "writer"};
	struct ibv_context *dev = NULL;
	struct rpma_peer *peer = NULL;
	struct rpma_mr_local *mr = NULL;
	char *buf = NULL;
	int ret, failed = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: %s ADDR VICTIM_PORT READER_PORT WRITER_PORT\n", argv[0]);
		return 2;
	}
	rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED);
	if ((ret = rpma_utils_get_ibv_context(argv[1], RPMA_UTIL_IBV_CONTEXT_REMOTE, &dev)) ||
			(ret = rpma_peer_new(dev, &peer))) {
		(void) setup_failed("all", "the device", ret);
		return 2;
	}
	/* [0, LEN): the victim's pattern; [LEN, 2 LEN): what the others read or write */
	if (posix_memalign((void **)&buf, 4096, 3 * LEN))
		return 2;
	memset(buf, 0x5c, LEN);
	memset(buf + LEN, 0, LEN);
	memset(buf + 2 * LEN, 0xee, LEN);
	if ((ret = rpma_mr_reg(peer, buf, 3 * LEN, RPMA_MR_USAGE_READ_DST |
			RPMA_MR_USAGE_WRITE_SRC, &mr))) {
		(void) setup_failed("all", "rpma_mr_reg", ret);
		return 2;
	}
	if (join(peer, argv[1], argv[2], &victim) || join(peer, argv[1], argv[3], &reader) ||
			join(peer, argv[1], argv[4], &writer))
		return 2;

	/* the control: the victim's own bytes are the victim's to write and read */
	int st = op(&victim, mr, 0, victim.part, true);
	int st2 = op(&victim, mr, LEN, victim.part, false);
	if (st != IBV_WC_SUCCESS || st2 != IBV_WC_SUCCESS || memcmp(buf, buf + LEN, LEN)) {
		printf("victim: its own write (%s) and read (%s) of its bytes failed\nFAILED\n",
			status_str(st), status_str(st2));
		return 2;
	}
	printf("victim: wrote and read back its 4096 bytes\n");

	memset(buf + LEN, 0, LEN);
	st = op(&reader, mr, LEN, victim.part, false);
	bool leaked = memcmp(buf, buf + LEN, LEN) == 0;
	printf("reader: an RDMA read of the victim's bytes: %s%s\n", status_str(st),
		leaked ? " (and it brought them)" : "");
	if (st == IBV_WC_SUCCESS || leaked || st < 0)
		failed = 1;

	st = op(&writer, mr, 2 * LEN, victim.part, true);
	printf("writer: an RDMA write over the victim's bytes: %s\n", status_str(st));
	if (st == IBV_WC_SUCCESS || st < 0)
		failed = 1;

	memset(buf + LEN, 0, LEN);
	st = op(&victim, mr, LEN, victim.part, false);
	bool kept = st == IBV_WC_SUCCESS && memcmp(buf, buf + LEN, LEN) == 0;
	printf("victim: its bytes read again: %s\n", kept ? "as it wrote them" :
		st == IBV_WC_SUCCESS ? "CHANGED" : status_str(st));
	if (!kept)
		failed = 1;

	struct player *all[] = {&victim, &reader, &writer};
	for (int i = 0; i < 3; i++) {
		(void) rpma_conn_disconnect(all[i]->conn);
		struct pollfd pfd = {.fd = all[i]->ev_fd, .events = POLLIN};
		enum rpma_conn_event ev;
		if (poll(&pfd, 1, 2000) == 1)
			(void) rpma_conn_next_event(all[i]->conn, &ev);
		(void) rpma_conn_delete(&all[i]->conn);
		(void) rpma_mr_remote_delete(&all[i]->part);
	}
	(void) rpma_mr_dereg(&mr);
	(void) rpma_peer_delete(&peer);
	free(buf);
	printf("%s\n", failed ? "FAILED" : "OK");
	return failed;
}
