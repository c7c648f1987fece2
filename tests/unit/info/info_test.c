/* SPDX-License-Identifier: BSD-3-Clause */
/* info_test.c -- address resolution: hints, bind, resolve, failures */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "info.h"
#include "fake_provider.h"

#define POISON_INFO ((struct rpma_info *)0x5a5a)

static char last_log[512];

static void capture(enum rpma_log_level level, const char *file_name, const int line_no,
		const char *function_name, const char *message_format, ...)
{
	(void)level;
	(void)file_name;
	(void)line_no;
	(void)function_name;
	va_list ap;
	va_start(ap, message_format);
	vsnprintf(last_log, sizeof(last_log), message_format, ap);
	va_end(ap);
}

static int setup(void **state)
{
	(void)state;
	fake_reset();
	last_log[0] = '\0';
	return rpma_log_set_function(capture);
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(fake_live_objects(), 0);
	return rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
}

static struct rdma_cm_id *new_id(void)
{
	struct rdma_cm_id *id = NULL;
	assert_int_equal(rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP), 0);
	return id;
}

/* Passive side: RAI_PASSIVE over TCP port space; bind to the source address. */
static void passive_binds_source_address(void **state)
{
	(void)state;
	struct rpma_info *info = NULL;
	assert_int_equal(rpma_info_new("192.168.0.1", "7204", RPMA_INFO_PASSIVE, &info), 0);
	assert_non_null(info);
	assert_string_equal(fake_addr.node, "192.168.0.1");
	assert_false(fake_addr.service_null);
	assert_string_equal(fake_addr.service, "7204");
	assert_int_equal(fake_addr.hints_flags, RAI_PASSIVE);
	assert_int_equal(fake_addr.hints_port_space, RDMA_PS_TCP);

	struct rdma_cm_id *id = new_id();
	assert_int_equal(rpma_info_bind_addr(info, id), 0);
	assert_int_equal(fake_calls("rdma_bind_addr"), 1);
	assert_non_null(fake_addr.bind_addr);
	assert_ptr_equal(fake_addr.bind_addr, fake_addr.ai->ai_src_addr);
	assert_ptr_equal(fake_addr.id, id);

	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma_info_delete(&info), 0);
	assert_null(info);
	assert_int_equal(fake_calls("rdma_freeaddrinfo"), 1);
}

/* Active side: no RAI_PASSIVE; resolve from the source to the destination. */
static void active_resolves_destination(void **state)
{
	(void)state;
	struct rpma_info *info = NULL;
	assert_int_equal(rpma_info_new("192.168.0.2", NULL, RPMA_INFO_ACTIVE, &info), 0);
	assert_true(fake_addr.service_null);
	assert_int_equal(fake_addr.hints_flags, 0);
	assert_int_equal(fake_addr.hints_port_space, RDMA_PS_TCP);

	struct rdma_cm_id *id = new_id();
	assert_int_equal(rpma_info_resolve_addr(info, id, 1234), 0);
	assert_int_equal(fake_calls("rdma_resolve_addr"), 1);
	assert_non_null(fake_addr.resolve_dst);
	assert_ptr_equal(fake_addr.resolve_dst, fake_addr.ai->ai_dst_addr);
	assert_ptr_equal(fake_addr.resolve_src, fake_addr.ai->ai_src_addr);
	assert_int_equal(fake_addr.resolve_timeout_ms, 1234);
	assert_ptr_equal(fake_addr.id, id);

	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma_info_delete(&info), 0);
}

static void new_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_info *info = POISON_INFO;
	assert_int_equal(rpma_info_new(NULL, "1", RPMA_INFO_ACTIVE, &info), RPMA_E_INVAL);
	assert_int_equal(rpma_info_new("a", "1", RPMA_INFO_ACTIVE, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_info_new("a", "1", (enum rpma_info_side)2, &info), RPMA_E_INVAL);
	assert_int_equal(rpma_info_new("a", "1", (enum rpma_info_side)-1, &info), RPMA_E_INVAL);
	assert_ptr_equal(info, POISON_INFO);
	assert_int_equal(fake_calls("rdma_getaddrinfo"), 0);
}

/* The log names the address and port that did not resolve, and why. */
static void new_getaddrinfo_fails_with_errno(void **state)
{
	(void)state;
	struct rpma_info *info = POISON_INFO;
	fake_fail("rdma_getaddrinfo", 1, ENODEV);
	assert_int_equal(rpma_info_new("10.9.8.7", "4242", RPMA_INFO_PASSIVE, &info),
		RPMA_E_PROVIDER);
	assert_ptr_equal(info, POISON_INFO);
	assert_int_equal(errno, ENODEV);
	assert_non_null(strstr(last_log, "rdma_getaddrinfo"));
	assert_non_null(strstr(last_log, "10.9.8.7"));
	assert_non_null(strstr(last_log, "4242"));
	assert_non_null(strstr(last_log, "ENODEV"));
}

static void new_getaddrinfo_fails_with_eai_code(void **state)
{
	(void)state;
	struct rpma_info *info = POISON_INFO;
	fake_addr.getaddrinfo_ret = EAI_NONAME;
	assert_int_equal(rpma_info_new("no.such.host", NULL, RPMA_INFO_ACTIVE, &info),
		RPMA_E_PROVIDER);
	assert_ptr_equal(info, POISON_INFO);
	assert_non_null(strstr(last_log, "no.such.host"));
	assert_non_null(strstr(last_log, "(none)"));
	assert_non_null(strstr(last_log, gai_strerror(EAI_NONAME)));
}

static void new_out_of_memory_frees_addrinfo(void **state)
{
	(void)state;
	struct rpma_info *info = POISON_INFO;
	fake_malloc_fail(1);
	assert_int_equal(rpma_info_new("a", "1", RPMA_INFO_ACTIVE, &info), RPMA_E_NOMEM);
	assert_ptr_equal(info, POISON_INFO);
	assert_int_equal(fake_calls("rdma_freeaddrinfo"), 1);
}

static void delete_null_arguments(void **state)
{
	(void)state;
	assert_int_equal(rpma_info_delete(NULL), RPMA_E_INVAL);
	struct rpma_info *info = NULL;
	assert_int_equal(rpma_info_delete(&info), 0);
	assert_int_equal(fake_calls("rdma_freeaddrinfo"), 0);
}

static void resolve_and_bind_invalid_arguments(void **state)
{
	(void)state;
	struct rpma_info *info;
	assert_int_equal(rpma_info_new("a", "1", RPMA_INFO_ACTIVE, &info), 0);
	struct rdma_cm_id *id = new_id();

	assert_int_equal(rpma_info_resolve_addr(NULL, id, 1), RPMA_E_INVAL);
	assert_int_equal(rpma_info_resolve_addr(info, NULL, 1), RPMA_E_INVAL);
	assert_int_equal(rpma_info_bind_addr(NULL, id), RPMA_E_INVAL);
	assert_int_equal(rpma_info_bind_addr(info, NULL), RPMA_E_INVAL);
	assert_int_equal(fake_calls("rdma_resolve_addr"), 0);
	assert_int_equal(fake_calls("rdma_bind_addr"), 0);

	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma_info_delete(&info), 0);
}

static void resolve_fails(void **state)
{
	(void)state;
	struct rpma_info *info;
	assert_int_equal(rpma_info_new("a", "1", RPMA_INFO_ACTIVE, &info), 0);
	struct rdma_cm_id *id = new_id();

	fake_fail("rdma_resolve_addr", 1, EHOSTUNREACH);
	assert_int_equal(rpma_info_resolve_addr(info, id, 1), RPMA_E_PROVIDER);
	assert_int_equal(errno, EHOSTUNREACH);
	assert_non_null(strstr(last_log, "rdma_resolve_addr"));
	assert_non_null(strstr(last_log, "EHOSTUNREACH"));

	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma_info_delete(&info), 0);
}

static void bind_fails(void **state)
{
	(void)state;
	struct rpma_info *info;
	assert_int_equal(rpma_info_new("a", "1", RPMA_INFO_PASSIVE, &info), 0);
	struct rdma_cm_id *id = new_id();

	fake_fail("rdma_bind_addr", 1, EADDRINUSE);
	assert_int_equal(rpma_info_bind_addr(info, id), RPMA_E_PROVIDER);
	assert_int_equal(errno, EADDRINUSE);
	assert_non_null(strstr(last_log, "rdma_bind_addr"));
	assert_non_null(strstr(last_log, "EADDRINUSE"));

	assert_int_equal(rdma_destroy_id(id), 0);
	assert_int_equal(rpma_info_delete(&info), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(passive_binds_source_address, setup, teardown),
		cmocka_unit_test_setup_teardown(active_resolves_destination, setup, teardown),
		cmocka_unit_test_setup_teardown(new_invalid_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(new_getaddrinfo_fails_with_errno, setup, teardown),
		cmocka_unit_test_setup_teardown(new_getaddrinfo_fails_with_eai_code, setup,
			teardown),
		cmocka_unit_test_setup_teardown(new_out_of_memory_frees_addrinfo, setup, teardown),
		cmocka_unit_test_setup_teardown(delete_null_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(resolve_and_bind_invalid_arguments, setup,
			teardown),
		cmocka_unit_test_setup_teardown(resolve_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(bind_fails, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
