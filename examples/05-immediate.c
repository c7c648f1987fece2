/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 05-immediate -- operations that carry a 32-bit immediate value.
 *
 * The client sends a message with rpma_send_with_imm(), then writes a block
 * into the server's memory with rpma_write_with_imm(). Both consume one of
 * the server's prepared receives: the first completes as IBV_WC_RECV with
 * the message, the second as IBV_WC_RECV_RDMA_WITH_IMM, which tells the
 * server that the written data is in place. Both have IBV_WC_WITH_IMM set
 * in wc_flags, and the value, in network byte order in wc.imm_data, is
 * ntohl(wc.imm_data) on the receiving side (the library converts on send).
 * The server answers with a 0-byte message whose immediate value is the sum
 * of the two it got, which the client checks; that answer and the write's own
 * completion may come in either order (one CQ, two queues).
 *
 *   05-immediate server ADDR PORT [READY_FILE]
 *   05-immediate client ADDR PORT
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/example.h"

#define MSG "a message with an immediate value"
#define IMM_SEND 0x5e9d0001u
#define IMM_WRITE 0x7717e002u
#define DATA_LEN 4096
#define DATA_OFFSET 512
#define REGION_SIZE (DATA_OFFSET + DATA_LEN)

static void fill_pattern(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 31 + 5);
}

/* Check the flag and the value of a completion's immediate data. */
static int check_imm(const struct ibv_wc *wc, uint32_t expected)
{
	if (!(wc->wc_flags & IBV_WC_WITH_IMM)) {
		fprintf(stderr, "example: %s completion without IBV_WC_WITH_IMM\n",
			example_wc_opcode_str(wc->opcode));
		return -1;
	}
	uint32_t imm = ntohl(wc->imm_data);
	if (imm != expected) {
		fprintf(stderr, "example: immediate value %#x, expected %#x\n", imm, expected);
		return -1;
	}
	printf("%s completion with immediate value %#x\n", example_wc_opcode_str(wc->opcode), imm);
	return 0;
}

/*
 * Collect the completions of the server's two receives: one takes the
 * message, the other is consumed by the write with immediate (which puts no
 * data in it). Receives form an unordered set, so either buffer may take the
 * message: op_context (wr_id) tells which one did.
 */
static int server_receive(struct rpma_cq *cq, const uint8_t *region)
{
	bool got_msg = false, got_write = false;
	uint8_t expected[DATA_LEN];
	fill_pattern(expected, sizeof(expected));

	while (!got_msg || !got_write) {
		struct ibv_wc wc;
		if (example_next_completion(cq, &wc))
			return -1;
		if (wc.opcode == IBV_WC_RECV && !got_msg) {
			if (check_imm(&wc, IMM_SEND))
				return -1;
			const char *msg = (const char *)(uintptr_t)wc.wr_id;
			if (wc.byte_len != sizeof(MSG) || memcmp(msg, MSG, sizeof(MSG)) != 0) {
				fprintf(stderr, "example: the message is not \"%s\"\n", MSG);
				return -1;
			}
			got_msg = true;
		} else if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && !got_write) {
			if (check_imm(&wc, IMM_WRITE))
				return -1;
			/* rxe (like most providers) reports the length written */
			if (wc.byte_len != DATA_LEN) {
				fprintf(stderr, "example: the write with immediate reports %u bytes, "
					"expected %d\n", wc.byte_len, DATA_LEN);
				return -1;
			}
			/* the completion means the data is already in place */
			if (memcmp(region + DATA_OFFSET, expected, DATA_LEN) != 0) {
				fprintf(stderr, "example: the written data is not in memory\n");
				return -1;
			}
			got_write = true;
		} else {
			fprintf(stderr, "example: unexpected completion %s\n",
				example_wc_opcode_str(wc.opcode));
			return -1;
		}
	}
	printf("server: got the message and the %d bytes written\n", DATA_LEN);
	return 0;
}

static int run_server(struct rpma_peer *peer, int argc, char *argv[])
{
	static char msg[2][64];
	static uint8_t region[REGION_SIZE];
	struct rpma_mr_local *msg_mr = NULL, *region_mr = NULL;
	struct rpma_ep *ep = NULL;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_cq *cq = NULL;
	uint8_t desc[21];
	int ret, failed = -1;

	if ((ret = rpma_mr_reg(peer, msg, sizeof(msg), RPMA_MR_USAGE_RECV, &msg_mr)) ||
			(ret = rpma_mr_reg(peer, region, sizeof(region), RPMA_MR_USAGE_WRITE_DST,
				&region_mr)) ||
			(ret = rpma_mr_get_descriptor(region_mr, desc))) {
		example_fail("registering the memory", ret);
		goto out;
	}
	struct rpma_conn_private_data pdata = {desc, sizeof(desc)};
	if (example_listen(peer, argv[2], argv[3], argc > 4 ? argv[4] : NULL, &ep) ||
			example_next_request(ep, NULL, &req))
		goto out;
	/* both receives are ready before the client may send */
	ret = 0;
	for (int i = 0; i < 2 && ret == 0; i++)
		ret = rpma_conn_req_recv(req, msg_mr, sizeof(msg[0]) * (size_t)i, sizeof(msg[0]),
				msg[i]);
	if (ret) {
		example_fail("rpma_conn_req_recv", ret);
		rpma_conn_req_delete(&req);
		goto out;
	}
	if (example_accept(&req, &pdata, &conn))
		goto out;
	example_ep_shutdown(&ep); /* no more connections to take */
	if ((ret = rpma_conn_get_cq(conn, &cq))) {
		example_fail("rpma_conn_get_cq", ret);
		goto out;
	}
	if (server_receive(cq, region))
		goto out;
	/* the answer: no data at all, only the immediate value */
	if ((ret = rpma_send_with_imm(conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS,
			IMM_SEND + IMM_WRITE, NULL))) {
		example_fail("rpma_send_with_imm", ret);
		goto out;
	}
	failed = example_expect_completion(cq, IBV_WC_SEND, NULL);
out:
	example_ep_shutdown(&ep);
	if (conn && example_wait_disconnect(&conn))
		failed = -1;
	rpma_mr_dereg(&region_mr);
	rpma_mr_dereg(&msg_mr);
	return failed;
}

static int run_client(struct rpma_peer *peer, int argc, char *argv[])
{
	(void)argc;
	static char msg[] = MSG;
	static uint8_t data[DATA_LEN];
	struct rpma_mr_local *msg_mr = NULL, *data_mr = NULL;
	struct rpma_mr_remote *rmr = NULL;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pdata;
	struct rpma_cq *cq = NULL;
	struct ibv_wc wc;
	int ret, failed = -1;

	fill_pattern(data, sizeof(data));
	if ((ret = rpma_mr_reg(peer, msg, sizeof(msg), RPMA_MR_USAGE_SEND, &msg_mr)) ||
			(ret = rpma_mr_reg(peer, data, sizeof(data), RPMA_MR_USAGE_WRITE_SRC,
				&data_mr))) {
		example_fail("rpma_mr_reg", ret);
		goto out;
	}
	if (example_client_connect(peer, argv[2], argv[3], NULL, NULL, &conn))
		goto out;
	if ((ret = rpma_conn_get_private_data(conn, &pdata)) || pdata.len < 21 ||
			(ret = rpma_mr_remote_from_descriptor(pdata.ptr, 21, &rmr))) {
		example_fail("reading the server's memory descriptor", ret ? ret : RPMA_E_INVAL);
		goto out;
	}
	if ((ret = rpma_conn_get_cq(conn, &cq))) {
		example_fail("rpma_conn_get_cq", ret);
		goto out;
	}
	/* the server's answer is a 0-byte message: its receive needs no buffer */
	if ((ret = rpma_recv(conn, NULL, 0, 0, NULL))) {
		example_fail("rpma_recv", ret);
		goto out;
	}
	if ((ret = rpma_send_with_imm(conn, msg_mr, 0, sizeof(msg), RPMA_F_COMPLETION_ALWAYS,
			IMM_SEND, msg))) {
		example_fail("rpma_send_with_imm", ret);
		goto out;
	}
	if (example_expect_completion(cq, IBV_WC_SEND, &wc))
		goto out;
	if ((ret = rpma_write_with_imm(conn, rmr, DATA_OFFSET, data_mr, 0, DATA_LEN,
			RPMA_F_COMPLETION_ALWAYS, IMM_WRITE, data))) {
		example_fail("rpma_write_with_imm", ret);
		goto out;
	}
	/*
	 * The write's completion and the answer's share one CQ in no set order:
	 * the server answers once the write has landed, and its answer may reach
	 * us before the write's acknowledgement does.
	 */
	bool written = false, answered = false;
	while (!written || !answered) {
		if (example_next_completion(cq, &wc))
			goto out;
		if (wc.opcode == IBV_WC_RDMA_WRITE && !written) {
			written = true;
		} else if (wc.opcode == IBV_WC_RECV && !answered) {
			if (check_imm(&wc, IMM_SEND + IMM_WRITE))
				goto out;
			if (wc.byte_len != 0) {
				fprintf(stderr, "example: the answer has %u bytes, expected none\n",
					wc.byte_len);
				goto out;
			}
			answered = true;
		} else {
			fprintf(stderr, "example: unexpected completion %s (expected RDMA_WRITE "
				"and RECV)\n", example_wc_opcode_str(wc.opcode));
			goto out;
		}
	}
	failed = 0;
out:
	if (conn && example_disconnect(&conn))
		failed = -1;
	rpma_mr_remote_delete(&rmr);
	rpma_mr_dereg(&data_mr);
	rpma_mr_dereg(&msg_mr);
	return failed;
}

int main(int argc, char *argv[])
{
	return example_main(argc, argv, "server|client ADDR PORT [READY_FILE]", run_server, run_client);
}
