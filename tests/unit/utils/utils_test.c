/* SPDX-License-Identifier: BSD-3-Clause */
/* utils_test.c -- device look-up by address, ODP capability, event names */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "fake_provider.h"

#define POISON_CTX ((struct ibv_context *)0x5a5a)

static void quiet(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	(void)level;
	(void)file_name;
	(void)line_no;
	(void)function_name;
	(void)message_format;
}

static int setup(void **state)
{
	(void)state;
	fake_reset();
	return rpma_log_set_function(quiet);
}

static int teardown(void **state)
{
	(void)state;
	return rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
}

/* ---- rpma_utils_get_ibv_context ---- */

/* Every look-up creates exactly one id and destroys it, and frees its addrinfo. */
static void expect_cleaned_up(void)
{
	assert_int_equal(fake_calls("rdma_create_id"), 1);
	assert_int_equal(fake_calls("rdma_destroy_id"), 1);
	assert_int_equal(fake_calls("rdma_freeaddrinfo"), 1);
	assert_int_equal(fake_live_objects(), 0);
}

static void local_address_binds(void **state)
{
	(void)state;
	struct ibv_context *ctx = NULL;
	assert_int_equal(rpma_utils_get_ibv_context("192.168.0.1", RPMA_UTIL_IBV_CONTEXT_LOCAL,
		&ctx), 0);
	assert_ptr_equal(ctx, fake_ibv_context());
	assert_string_equal(fake_addr.node, "192.168.0.1");
	assert_int_equal(fake_addr.hints_flags, RAI_PASSIVE);
	assert_int_equal(fake_addr.hints_port_space, RDMA_PS_TCP);
	assert_int_equal(fake_calls("rdma_bind_addr"), 1);
	assert_int_equal(fake_calls("rdma_resolve_addr"), 0);
	expect_cleaned_up();
}

static void remote_address_resolves(void **state)
{
	(void)state;
	struct ibv_context *ctx = NULL;
	assert_int_equal(rpma_utils_get_ibv_context("192.168.0.2", RPMA_UTIL_IBV_CONTEXT_REMOTE,
		&ctx), 0);
	assert_ptr_equal(ctx, fake_ibv_context());
	assert_int_equal(fake_addr.hints_flags, 0);
	assert_int_equal(fake_calls("rdma_resolve_addr"), 1);
	assert_int_equal(fake_calls("rdma_bind_addr"), 0);
	assert_int_equal(fake_addr.resolve_timeout_ms, RPMA_DEFAULT_TIMEOUT_MS);
	expect_cleaned_up();
}

static void get_ibv_context_invalid_arguments(void **state)
{
	(void)state;
	struct ibv_context *ctx = POISON_CTX;
	assert_int_equal(rpma_utils_get_ibv_context(NULL, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
		RPMA_E_INVAL);
	assert_int_equal(rpma_utils_get_ibv_context("a", RPMA_UTIL_IBV_CONTEXT_LOCAL, NULL),
		RPMA_E_INVAL);
	assert_int_equal(rpma_utils_get_ibv_context("a", (enum rpma_util_ibv_context_type)2,
		&ctx), RPMA_E_INVAL);
	assert_int_equal(rpma_utils_get_ibv_context("a", (enum rpma_util_ibv_context_type)-1,
		&ctx), RPMA_E_INVAL);
	assert_ptr_equal(ctx, POISON_CTX);
	assert_int_equal(fake_calls("rdma_getaddrinfo"), 0);
}

static void getaddrinfo_fails(void **state)
{
	(void)state;
	struct ibv_context *ctx = POISON_CTX;
	fake_fail("rdma_getaddrinfo", 1, EINVAL);
	assert_int_equal(rpma_utils_get_ibv_context("a", RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx),
		RPMA_E_PROVIDER);
	assert_ptr_equal(ctx, POISON_CTX);
	assert_int_equal(fake_calls("rdma_create_id"), 0);
	assert_int_equal(fake_live_objects(), 0);
}

static void out_of_memory(void **state)
{
	(void)state;
	struct ibv_context *ctx = POISON_CTX;
	fake_malloc_fail(1);
	assert_int_equal(rpma_utils_get_ibv_context("a", RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
		RPMA_E_NOMEM);
	assert_ptr_equal(ctx, POISON_CTX);
	assert_int_equal(fake_live_objects(), 0);
}

static void create_id_fails(void **state)
{
	(void)state;
	struct ibv_context *ctx = POISON_CTX;
	fake_fail("rdma_create_id", 1, ENOMEM);
	assert_int_equal(rpma_utils_get_ibv_context("a", RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
		RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_ptr_equal(ctx, POISON_CTX);
	assert_int_equal(fake_calls("rdma_freeaddrinfo"), 1);
	assert_int_equal(fake_live_objects(), 0);
}

/* bind (local) or resolve (remote) fails: nothing returned, nothing left behind. */
static void attach_fails(void **state)
{
	(void)state;
	const struct {
		enum rpma_util_ibv_context_type type;
		const char *call;
	} cases[] = {
		{RPMA_UTIL_IBV_CONTEXT_LOCAL, "rdma_bind_addr"},
		{RPMA_UTIL_IBV_CONTEXT_REMOTE, "rdma_resolve_addr"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_reset();
		struct ibv_context *ctx = POISON_CTX;
		fake_fail(cases[i].call, 1, EADDRNOTAVAIL);
		assert_int_equal(rpma_utils_get_ibv_context("a", cases[i].type, &ctx),
			RPMA_E_PROVIDER);
		assert_int_equal(errno, EADDRNOTAVAIL);
		assert_ptr_equal(ctx, POISON_CTX);
		expect_cleaned_up();
	}
}

/* A wildcard or non-RDMA address binds without a device behind it. */
static void no_device_behind_address(void **state)
{
	(void)state;
	struct ibv_context *ctx = POISON_CTX;
	fake_addr.no_device = true;
	assert_int_equal(rpma_utils_get_ibv_context("0.0.0.0", RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
		RPMA_E_PROVIDER);
	assert_int_equal(errno, ENODEV);
	assert_ptr_equal(ctx, POISON_CTX);
	expect_cleaned_up();
}

static void destroy_id_fails(void **state)
{
	(void)state;
	struct ibv_context *ctx = POISON_CTX;
	fake_fail("rdma_destroy_id", 1, EBUSY);
	assert_int_equal(rpma_utils_get_ibv_context("a", RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx),
		RPMA_E_PROVIDER);
	assert_int_equal(errno, EBUSY);
	assert_ptr_equal(ctx, POISON_CTX);
	/* the id the library could not destroy is still there: release it here */
	assert_int_equal(fake_live_objects(), 1);
	assert_int_equal(rdma_destroy_id(fake_addr.id), 0);
	assert_int_equal(fake_live_objects(), 0);
}

/* Both the bind and the clean-up fail: errno tells the first cause. */
static void attach_and_destroy_fail(void **state)
{
	(void)state;
	struct ibv_context *ctx = POISON_CTX;
	fake_fail("rdma_bind_addr", 1, EADDRNOTAVAIL);
	fake_fail("rdma_destroy_id", 1, EBUSY);
	assert_int_equal(rpma_utils_get_ibv_context("a", RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx),
		RPMA_E_PROVIDER);
	assert_int_equal(errno, EADDRNOTAVAIL);
	assert_ptr_equal(ctx, POISON_CTX);
	assert_int_equal(rdma_destroy_id(fake_addr.id), 0);
	assert_int_equal(fake_live_objects(), 0);
}

/* ---- rpma_utils_ibv_context_is_odp_capable ---- */

#define ALL_RC_ODP (IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE | \
		IBV_ODP_SUPPORT_READ)

static int odp_capable_with(uint64_t general, uint32_t rc)
{
	fake_device.has_query_device_ex = true;
	fake_device.general_odp_caps = general;
	fake_device.rc_odp_caps = rc;
	int capable = -1;
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(fake_ibv_context(), &capable), 0);
	return capable;
}

static void odp_capable(void **state)
{
	(void)state;
	assert_int_equal(odp_capable_with(IBV_ODP_SUPPORT, ALL_RC_ODP), 1);
	assert_int_equal(odp_capable_with(IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT,
		ALL_RC_ODP | IBV_ODP_SUPPORT_ATOMIC), 1);
	assert_int_equal(fake_calls("ibv_query_device_ex"), 2);
}

static void odp_not_capable(void **state)
{
	(void)state;
	assert_int_equal(odp_capable_with(0, ALL_RC_ODP), 0);
	assert_int_equal(odp_capable_with(IBV_ODP_SUPPORT, 0), 0);
	/* each RC operation the library uses is needed */
	const uint32_t needed[] = {IBV_ODP_SUPPORT_SEND, IBV_ODP_SUPPORT_RECV,
		IBV_ODP_SUPPORT_WRITE, IBV_ODP_SUPPORT_READ};
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		assert_int_equal(odp_capable_with(IBV_ODP_SUPPORT, ALL_RC_ODP & ~needed[i]), 0);
}

/* Without the extended query the legacy attributes carry no ODP caps. */
static void odp_legacy_device(void **state)
{
	(void)state;
	fake_device.has_query_device_ex = false;
	fake_device.general_odp_caps = IBV_ODP_SUPPORT;
	fake_device.rc_odp_caps = ALL_RC_ODP;
	int capable = -1;
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(fake_ibv_context(), &capable), 0);
	assert_int_equal(capable, 0);
	assert_int_equal(fake_calls("ibv_query_device"), 1);
}

static void odp_invalid_arguments(void **state)
{
	(void)state;
	int capable = -1;
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(NULL, &capable), RPMA_E_INVAL);
	assert_int_equal(capable, -1);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(fake_ibv_context(), NULL),
		RPMA_E_INVAL);
	assert_int_equal(fake_calls("ibv_query_device_ex") + fake_calls("ibv_query_device"), 0);
}

static void odp_query_fails(void **state)
{
	(void)state;
	int capable = -1;
	fake_device.has_query_device_ex = true;
	fake_fail("ibv_query_device_ex", 1, EIO);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(fake_ibv_context(), &capable),
		RPMA_E_PROVIDER);

	fake_device.has_query_device_ex = false;
	fake_fail("ibv_query_device", 1, ENOMEM);
	assert_int_equal(rpma_utils_ibv_context_is_odp_capable(fake_ibv_context(), &capable),
		RPMA_E_PROVIDER);
}

/* ---- rpma_utils_conn_event_2str ---- */

static void conn_event_names(void **state)
{
	(void)state;
	const enum rpma_conn_event events[] = {RPMA_CONN_UNDEFINED, RPMA_CONN_ESTABLISHED,
		RPMA_CONN_CLOSED, RPMA_CONN_LOST, RPMA_CONN_REJECTED, RPMA_CONN_UNREACHABLE};
	const size_t n = sizeof(events) / sizeof(events[0]);
	const char *unknown = rpma_utils_conn_event_2str((enum rpma_conn_event)100);
	assert_non_null(unknown);

	for (size_t i = 0; i < n; i++) {
		const char *name = rpma_utils_conn_event_2str(events[i]);
		assert_non_null(name);
		assert_true(strlen(name) > 0);
		assert_string_not_equal(name, unknown);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(name, rpma_utils_conn_event_2str(events[j]));
	}
	assert_string_equal(rpma_utils_conn_event_2str(RPMA_CONN_ESTABLISHED),
		"Connection established");
	assert_string_equal(rpma_utils_conn_event_2str(RPMA_CONN_LOST), "Connection lost");
}

static void conn_event_unknown_values(void **state)
{
	(void)state;
	const char *unknown = rpma_utils_conn_event_2str((enum rpma_conn_event)100);
	assert_string_equal(unknown, "Unknown connection event");
	assert_string_equal(rpma_utils_conn_event_2str((enum rpma_conn_event)-2), unknown);
	assert_string_equal(rpma_utils_conn_event_2str(RPMA_CONN_UNREACHABLE + 1), unknown);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(local_address_binds, setup, teardown),
		cmocka_unit_test_setup_teardown(remote_address_resolves, setup, teardown),
		cmocka_unit_test_setup_teardown(get_ibv_context_invalid_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(getaddrinfo_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(out_of_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(create_id_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(attach_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(no_device_behind_address, setup, teardown),
		cmocka_unit_test_setup_teardown(destroy_id_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(attach_and_destroy_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(odp_capable, setup, teardown),
		cmocka_unit_test_setup_teardown(odp_not_capable, setup, teardown),
		cmocka_unit_test_setup_teardown(odp_legacy_device, setup, teardown),
		cmocka_unit_test_setup_teardown(odp_invalid_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(odp_query_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(conn_event_names, setup, teardown),
		cmocka_unit_test_setup_teardown(conn_event_unknown_values, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
