/* SPDX-License-Identifier: BSD-3-Clause */
/* private_data_test.c -- owned copies of connection private data */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "private_data.h"
#include "fake_provider.h"

#define POISON_PTR ((void *)0x5a5a)

static uint8_t bytes[255];

static int setup(void **state)
{
	(void)state;
	fake_reset();
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 7 + 3);
	return 0;
}

static struct rdma_cm_event event_with(const void *ptr, uint8_t len)
{
	struct rdma_cm_event event;
	memset(&event, 0, sizeof(event));
	event.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	event.param.conn.private_data = ptr;
	event.param.conn.private_data_len = len;
	return event;
}

/* pdata owns a copy of ptr[0..len): same bytes, another buffer. */
static void expect_copy_of(const struct rpma_conn_private_data *pdata, const void *ptr, uint8_t len)
{
	assert_int_equal(pdata->len, len);
	assert_non_null(pdata->ptr);
	assert_ptr_not_equal(pdata->ptr, ptr);
	assert_memory_equal(pdata->ptr, ptr, len);
}

static void expect_empty(const struct rpma_conn_private_data *pdata)
{
	assert_null(pdata->ptr);
	assert_int_equal(pdata->len, 0);
}

static void store_copies_event_data(void **state)
{
	(void)state;
	const uint8_t lengths[] = {1, 8, 56, 255};
	for (size_t i = 0; i < sizeof(lengths); i++) {
		struct rdma_cm_event event = event_with(bytes, lengths[i]);
		struct rpma_conn_private_data pdata = {POISON_PTR, 99};
		assert_int_equal(rpma_private_data_store(&event, &pdata), 0);
		expect_copy_of(&pdata, bytes, lengths[i]);

		/* the copy outlives the event's buffer */
		uint8_t saved = bytes[0];
		bytes[0] ^= 0xff;
		assert_int_equal(((uint8_t *)pdata.ptr)[0], saved);
		bytes[0] = saved;

		rpma_private_data_delete(&pdata);
		expect_empty(&pdata);
	}
}

static void store_without_data_is_empty(void **state)
{
	(void)state;
	struct rdma_cm_event cases[] = {
		event_with(NULL, 0),
		event_with(bytes, 0),
		event_with(NULL, 16), /* a length without a buffer carries nothing */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rpma_conn_private_data pdata = {POISON_PTR, 99};
		assert_int_equal(rpma_private_data_store(&cases[i], &pdata), 0);
		expect_empty(&pdata);
	}
}

/* A real CM event from the fake's queue, as conn_req and conn get them. */
static void store_from_queued_cm_event(void **state)
{
	(void)state;
	struct rdma_event_channel *ch = rdma_create_event_channel();
	assert_non_null(ch);
	fake_cm_push_event(ch, RDMA_CM_EVENT_ESTABLISHED, NULL, "hello", 6, 0);
	struct rdma_cm_event *event;
	assert_int_equal(rdma_get_cm_event(ch, &event), 0);

	struct rpma_conn_private_data pdata;
	assert_int_equal(rpma_private_data_store(event, &pdata), 0);
	assert_int_equal(rdma_ack_cm_event(event), 0);
	assert_int_equal(pdata.len, 6);
	assert_string_equal(pdata.ptr, "hello");

	rpma_private_data_delete(&pdata);
	rdma_destroy_event_channel(ch);
	assert_int_equal(fake_live_objects(), 0);
}

static void store_out_of_memory(void **state)
{
	(void)state;
	struct rdma_cm_event event = event_with(bytes, 10);
	struct rpma_conn_private_data pdata = {POISON_PTR, 99};
	fake_malloc_fail(1);
	assert_int_equal(rpma_private_data_store(&event, &pdata), RPMA_E_NOMEM);
	assert_ptr_equal(pdata.ptr, POISON_PTR);
	assert_int_equal(pdata.len, 99);
}

static void store_null_arguments(void **state)
{
	(void)state;
	struct rdma_cm_event event = event_with(bytes, 10);
	struct rpma_conn_private_data pdata = {POISON_PTR, 99};
	assert_int_equal(rpma_private_data_store(NULL, &pdata), RPMA_E_INVAL);
	assert_ptr_equal(pdata.ptr, POISON_PTR);
	assert_int_equal(rpma_private_data_store(&event, NULL), RPMA_E_INVAL);
}

static void copy_copies(void **state)
{
	(void)state;
	struct rpma_conn_private_data src = {bytes, 255};
	struct rpma_conn_private_data dst = {POISON_PTR, 1};
	assert_int_equal(rpma_private_data_copy(&dst, &src), 0);
	expect_copy_of(&dst, bytes, 255);

	/* a copy of a copy is independent of the first one */
	struct rpma_conn_private_data dst2;
	assert_int_equal(rpma_private_data_copy(&dst2, &dst), 0);
	expect_copy_of(&dst2, dst.ptr, 255);
	rpma_private_data_delete(&dst);
	assert_memory_equal(dst2.ptr, bytes, 255);
	rpma_private_data_delete(&dst2);
}

static void copy_of_nothing_is_empty(void **state)
{
	(void)state;
	struct rpma_conn_private_data empty_ptr = {NULL, 5};
	struct rpma_conn_private_data empty_len = {bytes, 0};
	const struct rpma_conn_private_data *cases[] = {NULL, &empty_ptr, &empty_len};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rpma_conn_private_data dst = {POISON_PTR, 99};
		assert_int_equal(rpma_private_data_copy(&dst, cases[i]), 0);
		expect_empty(&dst);
	}
}

static void copy_out_of_memory_and_invalid(void **state)
{
	(void)state;
	struct rpma_conn_private_data src = {bytes, 3};
	struct rpma_conn_private_data dst = {POISON_PTR, 99};
	fake_malloc_fail(1);
	assert_int_equal(rpma_private_data_copy(&dst, &src), RPMA_E_NOMEM);
	assert_ptr_equal(dst.ptr, POISON_PTR);
	assert_int_equal(dst.len, 99);

	assert_int_equal(rpma_private_data_copy(NULL, &src), RPMA_E_INVAL);
}

static void delete_empty_and_null(void **state)
{
	(void)state;
	struct rpma_conn_private_data pdata = {NULL, 0};
	rpma_private_data_delete(&pdata);
	expect_empty(&pdata);
	rpma_private_data_delete(&pdata); /* twice is harmless */
	expect_empty(&pdata);
	rpma_private_data_delete(NULL);
}

/*
 * Private data may carry a secret (the engines' secret_file=): its heap copy
 * is cleared before the memory goes back to the allocator, where a later
 * malloc() would hand it to anyone
 */
static void delete_clears_the_copy_before_freeing_it(void **state)
{
	(void)state;
	struct rdma_cm_event event = event_with(bytes, 56);
	struct rpma_conn_private_data pdata;
	assert_int_equal(rpma_private_data_store(&event, &pdata), 0);
	expect_copy_of(&pdata, bytes, 56);

	fake_free_watch(pdata.ptr, pdata.len);
	rpma_private_data_delete(&pdata);
	assert_int_equal(fake_free_watched(), 1);
	expect_empty(&pdata);

	/* a copy of a copy the same way */
	struct rpma_conn_private_data src = {bytes, 8}, dst;
	assert_int_equal(rpma_private_data_copy(&dst, &src), 0);
	fake_free_watch(dst.ptr, dst.len);
	rpma_private_data_delete(&dst);
	assert_int_equal(fake_free_watched(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(store_copies_event_data, setup),
		cmocka_unit_test_setup(store_without_data_is_empty, setup),
		cmocka_unit_test_setup(store_from_queued_cm_event, setup),
		cmocka_unit_test_setup(store_out_of_memory, setup),
		cmocka_unit_test_setup(store_null_arguments, setup),
		cmocka_unit_test_setup(copy_copies, setup),
		cmocka_unit_test_setup(copy_of_nothing_is_empty, setup),
		cmocka_unit_test_setup(copy_out_of_memory_and_invalid, setup),
		cmocka_unit_test_setup(delete_empty_and_null, setup),
		cmocka_unit_test_setup(delete_clears_the_copy_before_freeing_it, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
