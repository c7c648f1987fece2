/* SPDX-License-Identifier: BSD-3-Clause */
/* mr_test.c -- local and remote memory regions, descriptors, advice */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "librpma.h"
#include "fake_provider.h"
#include "mr.h"
#include "test_log.h"
#include "test_mr.h"

static int mr_setup(void **state)
{
	(void)state;
	fake_reset();
	return rpma_log_set_function(test_log_quiet);
}

static int mr_teardown(void **state)
{
	(void)state;
	assert_int_equal(fake_live_objects(), 0);
	return rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
}

static struct rpma_peer *mr_test_peer_new(void)
{
	struct rpma_peer *peer = NULL;
	assert_int_equal(rpma_peer_new(fake_ibv_context(), &peer), 0);
	return peer;
}

static void mr_test_peer_delete(struct rpma_peer **peer)
{
	assert_int_equal(rpma_peer_delete(peer), 0);
}

static struct rpma_mr_local *mr_test_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage)
{
	struct rpma_mr_local *mr = NULL;
	assert_int_equal(rpma_mr_reg(peer, ptr, size, usage, &mr), 0);
	assert_non_null(mr);
	return mr;
}

static void mr_test_dereg(struct rpma_mr_local **mr)
{
	assert_int_equal(rpma_mr_dereg(mr), 0);
	assert_null(*mr);
}

static char buf[4096];
static struct rpma_mr_local *const UNTOUCHED = (struct rpma_mr_local *)0x1;

/* ---- rpma_mr_reg / rpma_mr_dereg ---- */

static void reg_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_peer *peer = mr_test_peer_new();
	struct rpma_mr_local *mr = UNTOUCHED;
	const int usage = RPMA_MR_USAGE_READ_SRC;

	assert_int_equal(rpma_mr_reg(NULL, buf, sizeof(buf), usage, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, NULL, sizeof(buf), usage, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, sizeof(buf), usage, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, 0, usage, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, sizeof(buf), 0, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, sizeof(buf), 1 << 8, &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, sizeof(buf), usage | (1 << 9), &mr),
		RPMA_E_INVAL);
	assert_int_equal(rpma_mr_reg(peer, buf, sizeof(buf), -1, &mr), RPMA_E_INVAL);
	assert_ptr_equal(mr, UNTOUCHED);
	assert_int_equal(fake_calls("ibv_reg_mr"), 0);
	mr_test_peer_delete(&peer);
}

/* a usage and the access flags its registration must get */
struct usage_access {
	int usage;
	int access;
};

/* register buf with each case's usage on a new peer; the access given must be the case's */
static void check_access_per_usage(const struct usage_access *cases, size_t n)
{
	struct rpma_peer *peer = mr_test_peer_new();
	for (size_t i = 0; i < n; i++) {
		fake_last_mr_access = -1;
		struct rpma_mr_local *mr = mr_test_reg(peer, buf, sizeof(buf), cases[i].usage);
		assert_int_equal(fake_last_mr_access, cases[i].access);
		mr_test_dereg(&mr);
	}
	mr_test_peer_delete(&peer);
}

static void reg_least_access_per_usage(void **state)
{
	(void)state;
	static const struct usage_access cases[] = {
		{RPMA_MR_USAGE_READ_SRC, IBV_ACCESS_REMOTE_READ},
		{RPMA_MR_USAGE_READ_DST, IBV_ACCESS_LOCAL_WRITE},
		{RPMA_MR_USAGE_WRITE_SRC, 0},
		{RPMA_MR_USAGE_WRITE_DST, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE},
		{RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, IBV_ACCESS_REMOTE_READ},
		{RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, IBV_ACCESS_REMOTE_READ},
		{RPMA_MR_USAGE_SEND, 0},
		{RPMA_MR_USAGE_RECV, IBV_ACCESS_LOCAL_WRITE},
		/* a pure source is never remotely writable */
		{RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND,
			IBV_ACCESS_REMOTE_READ},
		{RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT,
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ},
	};
	check_access_per_usage(cases, sizeof(cases) / sizeof(cases[0]));
}

/*
 * On iWARP a read's response is placed like a remote write: its destination
 * needs remote write access, and only it (hardware iWARP devices check it)
 */
static void reg_read_dst_on_iwarp_is_remotely_writable(void **state)
{
	(void)state;
	static const struct usage_access cases[] = {
		{RPMA_MR_USAGE_READ_DST, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE},
		{RPMA_MR_USAGE_READ_SRC, IBV_ACCESS_REMOTE_READ},
		{RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND, 0},
		{RPMA_MR_USAGE_RECV, IBV_ACCESS_LOCAL_WRITE},
		{RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT, IBV_ACCESS_REMOTE_READ},
	};
	fake_device.transport = IBV_TRANSPORT_IWARP;
	check_access_per_usage(cases, sizeof(cases) / sizeof(cases[0]));
}

/* a registration failing for want of memory names the locked-memory limit */
static void reg_enomem_names_the_memlock_limit(void **state)
{
	(void)state;
	struct rlimit saved, limit;
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &saved), 0);
	limit = saved;
	limit.rlim_cur = 65536;
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &limit), 0);
	struct rpma_peer *peer = mr_test_peer_new();
	struct rpma_mr_local *mr = UNTOUCHED;
	test_log_record_start();
	fake_fail("ibv_reg_mr", 1, ENOMEM);
	assert_int_equal(rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_READ_SRC, &mr),
		RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	test_log_assert_has("cannot register 4096 bytes",
		"the locked-memory limit (RLIMIT_MEMLOCK, ulimit -l) is 65536 bytes", NULL);
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &saved), 0);
	assert_ptr_equal(mr, UNTOUCHED);
	mr_test_peer_delete(&peer);
}

static void reg_out_of_memory(void **state)
{
	(void)state;
	struct rpma_peer *peer = mr_test_peer_new();
	struct rpma_mr_local *mr = UNTOUCHED;
	fake_malloc_fail(1);
	assert_int_equal(rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_SEND, &mr),
		RPMA_E_NOMEM);
	assert_ptr_equal(mr, UNTOUCHED);
	assert_int_equal(fake_calls("ibv_reg_mr"), 0);
	mr_test_peer_delete(&peer);
}

static void reg_provider_fails(void **state)
{
	(void)state;
	struct rpma_peer *peer = mr_test_peer_new();
	struct rpma_mr_local *mr = UNTOUCHED;
	fake_fail("ibv_reg_mr", 1, EFAULT);
	assert_int_equal(rpma_mr_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_SEND, &mr),
		RPMA_E_PROVIDER);
	assert_int_equal(errno, EFAULT);
	assert_ptr_equal(mr, UNTOUCHED);
	mr_test_peer_delete(&peer); /* teardown: nothing leaked */
}

static void dereg_invalid_null_and_failure(void **state)
{
	(void)state;
	struct rpma_mr_local *none = NULL;
	assert_int_equal(rpma_mr_dereg(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_dereg(&none), 0);
	assert_int_equal(fake_calls("ibv_dereg_mr"), 0);

	struct rpma_peer *peer = mr_test_peer_new();
	struct rpma_mr_local *mr = mr_test_reg(peer, buf, sizeof(buf), RPMA_MR_USAGE_SEND);
	struct rpma_mr_local *kept = mr;
	fake_fail("ibv_dereg_mr", 1, EBUSY);
	assert_int_equal(rpma_mr_dereg(&mr), RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_ptr_equal(mr, kept); /* still registered, still the caller's */
	mr_test_dereg(&mr);
	mr_test_peer_delete(&peer);
}

static void getters(void **state)
{
	(void)state;
	struct rpma_peer *peer = mr_test_peer_new();
	struct rpma_mr_local *mr = mr_test_reg(peer, buf + 8, 100, RPMA_MR_USAGE_SEND);
	void *ptr = NULL;
	size_t size = 0;

	assert_int_equal(rpma_mr_get_ptr(mr, &ptr), 0);
	assert_ptr_equal(ptr, buf + 8);
	assert_int_equal(rpma_mr_get_size(mr, &size), 0);
	assert_int_equal(size, 100);
	assert_int_equal(rpma_mr_get_descriptor_size(mr, &size), 0);
	assert_int_equal(size, 21);
	/* the scatter entry the work requests (post.c) are built with */
	struct ibv_sge sge = rpma_mr_get_sge(mr, 4, 50);
	assert_int_equal(sge.addr, (uint64_t)(uintptr_t)(buf + 12));
	assert_int_equal(sge.length, 50);
	assert_int_equal(sge.lkey, fake_last_mr->lkey);

	assert_int_equal(rpma_mr_get_ptr(NULL, &ptr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_ptr(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_size(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_descriptor_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_descriptor_size(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(size, 21); /* untouched by the failures */
	mr_test_dereg(&mr);
	mr_test_peer_delete(&peer);
}

/* ---- descriptors ---- */

static void descriptor_encode_golden(void **state)
{
	(void)state;
	struct rpma_peer *peer = mr_test_peer_new();
	const int usage = RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	struct rpma_mr_local *mr = mr_test_reg(peer, buf + 3, 0x123, usage);
	uint64_t addr = (uint64_t)(uintptr_t)(buf + 3);
	uint32_t rkey = fake_last_mr->rkey;

	uint8_t expected[RPMA_MR_DESCRIPTOR_SIZE];
	for (int i = 0; i < 8; i++)
		expected[i] = (uint8_t)(addr >> (8 * i));
	const uint8_t len_bytes[] = {0x23, 0x01, 0, 0, 0, 0, 0, 0};
	memcpy(expected + 8, len_bytes, 8);
	for (int i = 0; i < 4; i++)
		expected[16 + i] = (uint8_t)(rkey >> (8 * i));
	expected[20] = 0x28; /* WRITE_DST (1 << 3) | FLUSH_TYPE_PERSISTENT (1 << 5) */

	/* written at an odd offset: the encoder must not assume alignment */
	uint8_t out[RPMA_MR_DESCRIPTOR_SIZE + 2];
	memset(out, 0xee, sizeof(out));
	assert_int_equal(rpma_mr_get_descriptor(mr, out + 1), 0);
	assert_memory_equal(out + 1, expected, RPMA_MR_DESCRIPTOR_SIZE);
	assert_int_equal(out[0], 0xee);
	assert_int_equal(out[RPMA_MR_DESCRIPTOR_SIZE + 1], 0xee); /* exactly 21 bytes */

	assert_int_equal(rpma_mr_get_descriptor(NULL, out), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_get_descriptor(mr, NULL), RPMA_E_INVAL);
	mr_test_dereg(&mr);
	mr_test_peer_delete(&peer);
}

static void descriptor_decode_golden(void **state)
{
	(void)state;
	/* addr 0x0102030405060708, length 0x1000, rkey 0xa1b2c3d4, usage READ_SRC|VISIBILITY */
	const uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE + 1] = {
		0, /* shifts the descriptor to an odd address */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xd4, 0xc3, 0xb2, 0xa1,
		0x11,
	};
	uint64_t addr = 0, size = 0;
	uint32_t rkey = 0;
	int usage = 0;
	assert_int_equal(rpma_mr_descriptor_decode(desc + 1, RPMA_MR_DESCRIPTOR_SIZE, &addr, &size,
		&rkey, &usage), 0);
	assert_int_equal(addr, 0x0102030405060708ULL);
	assert_int_equal(size, 0x1000);
	assert_int_equal(rkey, 0xa1b2c3d4);
	assert_int_equal(usage, RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);

	struct rpma_mr_remote *mr = NULL;
	assert_int_equal(rpma_mr_remote_from_descriptor(desc + 1, RPMA_MR_DESCRIPTOR_SIZE, &mr), 0);
	assert_int_equal(rpma_mr_remote_get_addr(mr), 0x0102030405060708ULL);
	assert_int_equal(rpma_mr_remote_get_rkey(mr), 0xa1b2c3d4);
	size_t rsize = 0;
	assert_int_equal(rpma_mr_remote_get_size(mr, &rsize), 0);
	assert_int_equal(rsize, 0x1000);
	int flush_type = 0;
	assert_int_equal(rpma_mr_remote_get_flush_type(mr, &flush_type), 0);
	assert_int_equal(flush_type, RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY);
	assert_int_equal(rpma_mr_remote_delete(&mr), 0);
	assert_null(mr);
}

static void descriptor_decode_rejects(void **state)
{
	(void)state;
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE + 1];
	uint64_t addr = 7, size = 7;
	uint32_t rkey = 7;
	int usage = 7;

	test_mr_desc_make(desc, 0x1000, 0x1000, 1, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_mr_descriptor_decode(NULL, 21, &addr, &size, &rkey, &usage),
		RPMA_E_INVAL);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 21, NULL, &size, &rkey, &usage),
		RPMA_E_INVAL);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 21, &addr, NULL, &rkey, &usage),
		RPMA_E_INVAL);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 21, &addr, &size, NULL, &usage),
		RPMA_E_INVAL);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 21, &addr, &size, &rkey, NULL),
		RPMA_E_INVAL);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 20, &addr, &size, &rkey, &usage),
		RPMA_E_INVAL);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 22, &addr, &size, &rkey, &usage),
		RPMA_E_INVAL);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 0, &addr, &size, &rkey, &usage),
		RPMA_E_INVAL);

	test_mr_desc_make(desc, 0x1000, 0x1000, 1, 0);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 21, &addr, &size, &rkey, &usage),
		RPMA_E_NOSUPP);
	test_mr_desc_make(desc, UINT64_MAX - 0xff, 0x100, 1, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 21, &addr, &size, &rkey, &usage),
		RPMA_E_NOSUPP);
	/* the last byte of the address space is still a valid end */
	test_mr_desc_make(desc, UINT64_MAX - 0xff, 0xff, 1, RPMA_MR_USAGE_READ_SRC);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 21, &addr, &size, &rkey, &usage), 0);
	assert_int_equal(size, 0xff);

	/* failures never write the outputs */
	addr = size = 7;
	rkey = 7;
	usage = 7;
	test_mr_desc_make(desc, 0x1000, 0x1000, 1, 0);
	assert_int_equal(rpma_mr_descriptor_decode(desc, 21, &addr, &size, &rkey, &usage),
		RPMA_E_NOSUPP);
	assert_true(addr == 7 && size == 7 && rkey == 7 && usage == 7);
}

static void remote_from_descriptor_errors(void **state)
{
	(void)state;
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE];
	struct rpma_mr_remote *const untouched = (struct rpma_mr_remote *)0x1;
	struct rpma_mr_remote *mr = untouched;

	test_mr_desc_make(desc, 0x1000, 0x1000, 1, RPMA_MR_USAGE_WRITE_DST);
	assert_int_equal(rpma_mr_remote_from_descriptor(NULL, sizeof(desc), &mr), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc) - 1, &mr), RPMA_E_INVAL);
	fake_malloc_fail(1);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), RPMA_E_NOMEM);
	test_mr_desc_make(desc, 0x1000, 0x1000, 1, 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), RPMA_E_NOSUPP);
	test_mr_desc_make(desc, UINT64_MAX, 2, 1, RPMA_MR_USAGE_WRITE_DST);
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &mr), RPMA_E_NOSUPP);
	assert_ptr_equal(mr, untouched);
}

static void descriptor_round_trip(void **state)
{
	(void)state;
	struct rpma_peer *peer = mr_test_peer_new();
	const int usage = RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
		RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT;
	struct rpma_mr_local *local = mr_test_reg(peer, buf, 512, usage);
	uint8_t desc[RPMA_MR_DESCRIPTOR_SIZE];
	assert_int_equal(rpma_mr_get_descriptor(local, desc), 0);

	struct rpma_mr_remote *remote = NULL;
	assert_int_equal(rpma_mr_remote_from_descriptor(desc, sizeof(desc), &remote), 0);
	size_t size = 0;
	int flush_type = 0;
	assert_int_equal(rpma_mr_remote_get_size(remote, &size), 0);
	assert_int_equal(size, 512);
	assert_int_equal(rpma_mr_remote_get_flush_type(remote, &flush_type), 0);
	assert_int_equal(flush_type,
		RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_int_equal(rpma_mr_remote_get_addr(remote), (uint64_t)(uintptr_t)buf);
	assert_int_equal(rpma_mr_remote_get_rkey(remote), fake_last_mr->rkey);
	assert_int_equal(rpma_mr_remote_delete(&remote), 0);
	mr_test_dereg(&local);
	mr_test_peer_delete(&peer);
}

static void remote_getters_and_delete_invalid(void **state)
{
	(void)state;
	struct rpma_mr_remote *mr = test_mr_remote_new(0x1000, 64, 5, RPMA_MR_USAGE_WRITE_DST);
	size_t size = 3;
	int flush_type = 3;
	assert_int_equal(rpma_mr_remote_get_size(NULL, &size), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_get_size(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_get_flush_type(NULL, &flush_type), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_get_flush_type(mr, NULL), RPMA_E_INVAL);
	assert_int_equal(size, 3);
	assert_int_equal(flush_type, 3);
	assert_int_equal(rpma_mr_remote_get_flush_type(mr, &flush_type), 0);
	assert_int_equal(flush_type, 0); /* no flush usage */

	assert_int_equal(rpma_mr_remote_delete(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_remote_delete(&mr), 0);
	assert_null(mr);
	assert_int_equal(rpma_mr_remote_delete(&mr), 0); /* NULL is fine */
}

/* ---- rpma_mr_advise ---- */

static void advise_checks_arguments(void **state)
{
	(void)state;
	fake_device.has_advise_mr = true;
	struct rpma_peer *peer = mr_test_peer_new();
	struct rpma_mr_local *src = mr_test_reg(peer, buf, 100, RPMA_MR_USAGE_READ_SRC);
	const int pf = IBV_ADVISE_MR_ADVICE_PREFETCH;

	assert_int_equal(rpma_mr_advise(NULL, 0, 1, pf, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(src, 101, 0, pf, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(src, 0, 101, pf, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(src, 50, 51, pf, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(src, 50, SIZE_MAX, pf, 0), RPMA_E_INVAL); /* wraps */
	assert_int_equal(rpma_mr_advise(src, 0, 10, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0),
		RPMA_E_INVAL); /* a read source is never written locally */
	assert_int_equal(rpma_mr_advise(src, 0, 10, 77, 0), RPMA_E_INVAL);
	assert_int_equal(rpma_mr_advise(src, 0, 10, pf, 1u << 5), RPMA_E_INVAL);
	assert_int_equal(fake_calls("ibv_advise_mr"), 0);

	/* the edges are in range */
	assert_int_equal(rpma_mr_advise(src, 0, 100, pf, IBV_ADVISE_MR_FLAG_FLUSH), 0);
	assert_int_equal(rpma_mr_advise(src, 100, 0, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, 0), 0);
	assert_int_equal(fake_calls("ibv_advise_mr"), 2);
	mr_test_dereg(&src);

	static const int writable[] = {
		RPMA_MR_USAGE_READ_DST, RPMA_MR_USAGE_WRITE_DST, RPMA_MR_USAGE_RECV,
	};
	for (size_t i = 0; i < sizeof(writable) / sizeof(writable[0]); i++) {
		struct rpma_mr_local *dst = mr_test_reg(peer, buf, 100, writable[i]);
		assert_int_equal(rpma_mr_advise(dst, 10, 20, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0),
			0);
		mr_test_dereg(&dst);
	}
	mr_test_peer_delete(&peer);
}

static void advise_provider_errors(void **state)
{
	(void)state;
	static const struct {
		int err;
		int expected;
	} cases[] = {
		{EOPNOTSUPP, RPMA_E_NOSUPP},
		{ENOTSUP, RPMA_E_NOSUPP},
		{EFAULT, RPMA_E_INVAL},
		{EINVAL, RPMA_E_INVAL},
		{EIO, RPMA_E_PROVIDER},
		{ENOMEM, RPMA_E_PROVIDER},
	};
	fake_device.has_advise_mr = true;
	struct rpma_peer *peer = mr_test_peer_new();
	struct rpma_mr_local *mr = mr_test_reg(peer, buf, 100, RPMA_MR_USAGE_READ_DST);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_fail("ibv_advise_mr", 1, cases[i].err);
		assert_int_equal(rpma_mr_advise(mr, 0, 100, IBV_ADVISE_MR_ADVICE_PREFETCH, 0),
			cases[i].expected);
		assert_int_equal(errno, cases[i].err);
	}
	mr_test_dereg(&mr);
	mr_test_peer_delete(&peer);
}

static void advise_unsupported_device(void **state)
{
	(void)state;
	fake_device.has_advise_mr = false;
	struct rpma_peer *peer = mr_test_peer_new();
	struct rpma_mr_local *mr = mr_test_reg(peer, buf, 100, RPMA_MR_USAGE_READ_DST);
	assert_int_equal(rpma_mr_advise(mr, 0, 100, IBV_ADVISE_MR_ADVICE_PREFETCH, 0),
		RPMA_E_NOSUPP);
	mr_test_dereg(&mr);
	mr_test_peer_delete(&peer);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, mr_setup, mr_teardown)
	const struct CMUnitTest tests[] = {
		T(reg_invalid_arguments),
		T(reg_least_access_per_usage),
		T(reg_read_dst_on_iwarp_is_remotely_writable),
		T(reg_enomem_names_the_memlock_limit),
		T(reg_out_of_memory),
		T(reg_provider_fails),
		T(dereg_invalid_null_and_failure),
		T(getters),
		T(descriptor_encode_golden),
		T(descriptor_decode_golden),
		T(descriptor_decode_rejects),
		T(remote_from_descriptor_errors),
		T(descriptor_round_trip),
		T(remote_getters_and_delete_invalid),
		T(advise_checks_arguments),
		T(advise_provider_errors),
		T(advise_unsupported_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
