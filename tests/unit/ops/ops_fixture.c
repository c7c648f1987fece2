/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ops_fixture.c -- the fixture of the operations' tests (ops_test.c and
 * ops_batch_test.c): a peer, a connection with a QP of the kind each setup
 * names, a local region and a remote one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "conn.h"
#include "conn_cfg.h"
#include "cq.h"
#include "mr.h"
#include "peer.h"
#include "provider.h"
#include "fake_provider.h"
#include "test_log.h"
#include "ops_test.h"

const char *post_call = "ibv_post_send";

const char atomic_bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
struct ops_fixture fx;

/* A remote region over rbuf, as a peer would describe it. */
struct rpma_mr_remote *remote_make(int usage)
{
	struct rpma_mr_local *mr = NULL;
	assert_int_equal(rpma_mr_reg(fx.peer, fx.rbuf, BUF_SIZE, usage, &mr), 0);
	char desc[RPMA_MR_DESCRIPTOR_SIZE];
	assert_int_equal(rpma_mr_get_descriptor(mr, desc), 0);
	struct rpma_mr_remote *remote = NULL;
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &remote), 0);
	assert_int_equal(rpma_mr_dereg(&mr), 0);
	return remote;
}

/* A peer (native operations or not) and a connection with a QP. */
static void conn_make(bool native)
{
	fake_device.has_query_device_ex = native;
	fake_device.device_cap_flags_ex = native ? RPMA_DEVICE_CAP_ATOMIC_WRITE : 0;
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &fx.peer), 0);

	struct rpma_conn_parts parts = {0};
	assert_int_equal(rdma_create_id(NULL, &fx.id, NULL, RDMA_PS_TCP), 0);
	fx.id->verbs = fake_ibv_context();
	assert_int_equal(rpma_cq_new(fake_ibv_context(), 10, NULL, &parts.cq), 0);
	assert_int_equal(rpma_peer_setup_qp(fx.peer, fx.id, parts.cq, NULL, NULL,
		rpma_conn_cfg_default()), 0);
	parts.id = fx.id;
	assert_int_equal(rpma_conn_new(fx.peer, &parts, &fx.conn), 0);

	for (int i = 0; i < BUF_SIZE; i++)
		fx.lbuf[i] = (char)i;
	assert_int_equal(rpma_mr_reg(fx.peer, fx.lbuf, BUF_SIZE,
		RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND |
		RPMA_MR_USAGE_RECV, &fx.local), 0);
	fx.remote = remote_make(RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST | ALL_FLUSH);
	fake_posted.count = 0;
}

static int setup_for(bool native)
{
	fake_reset();
	memset(&fx, 0, sizeof(fx));
	test_log_record_start();
	post_call = "ibv_post_send";
	conn_make(native);
	return 0;
}

/* a QP with the extended interface for every opcode (rxe, mlx5): ibv_wr_* posting */
int ops_setup_ex(void **state)
{
	(void)state;
	fake_reset();
	memset(&fx, 0, sizeof(fx));
	test_log_record_start();
	fake_device.has_wr_data_ops = true;
	post_call = "ibv_post_send"; /* outside a batch: operations may come from many threads */
	conn_make(false);
	return 0;
}

int ops_setup(void **state)
{
	(void)state;
	return setup_for(false);
}

int ops_setup_native(void **state)
{
	(void)state;
	return setup_for(true);
}

/* the device speaks iWARP: no immediate data, reads land as remote writes */
int ops_setup_iwarp(void **state)
{
	(void)state;
	fake_reset();
	memset(&fx, 0, sizeof(fx));
	test_log_record_start();
	fake_device.transport = IBV_TRANSPORT_IWARP;
	conn_make(false);
	return 0;
}

/* ibv_qp_to_qp_ex() failing for a QP created with the interface */
int ops_setup_ex_lost(void **state)
{
	(void)state;
	fake_reset();
	memset(&fx, 0, sizeof(fx));
	test_log_record_start();
	fake_device.has_wr_data_ops = true;
	post_call = "ibv_post_send";
	fake_fail("ibv_qp_to_qp_ex", 1, EIO);
	conn_make(false);
	return 0;
}

int ops_teardown(void **state)
{
	(void)state;
	assert_int_equal(rpma_mr_remote_delete(&fx.remote), 0);
	assert_int_equal(rpma_mr_dereg(&fx.local), 0);
	assert_int_equal(rpma_conn_delete(&fx.conn), 0);
	assert_int_equal(rpma_peer_delete(&fx.peer), 0);
	assert_int_equal(fake_live_objects(), 0);
	return 0;
}

uint64_t addr_of(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}
void apply_direct_write(bool direct)
{
	struct rpma_peer_cfg *pcfg = NULL;
	assert_int_equal(rpma_peer_cfg_new(&pcfg), 0);
	assert_int_equal(rpma_peer_cfg_set_direct_write_to_pmem(pcfg, direct), 0);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(fx.conn, pcfg), 0);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
}
