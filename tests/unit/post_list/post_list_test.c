/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post_list_test.c -- send work requests collected for one doorbell: a closed
 * list posts at once; an open one chains the requests built in its slots, in
 * order, and rings once at its close; inline data rings at once with what came
 * before it; a request built elsewhere and a full list ring early; a failed
 * post empties and closes it, and its log line names the request refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "librpma.h"
#include "fake_provider.h"
#include "post_list.h"
#include "test_log.h"

struct env {
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
	struct rpma_post_list *list;
};

static int setup(void **state)
{
	fake_reset();
	struct env *env = calloc(1, sizeof(*env));
	assert_non_null(env);
	assert_int_equal(rdma_create_id(NULL, &env->id, NULL, RDMA_PS_TCP), 0);
	struct ibv_qp_init_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	assert_int_equal(rdma_create_qp(env->id, NULL, &attr), 0);
	env->qp = env->id->qp;
	assert_int_equal(rpma_post_list_new(&env->list), 0);
	memset(&fake_posted, 0, sizeof(fake_posted));
	*state = env;
	return 0;
}

static int teardown(void **state)
{
	struct env *env = *state;
	rpma_post_list_delete(&env->list);
	assert_null(env->list);
	rdma_destroy_qp(env->id);
	assert_int_equal(rdma_destroy_id(env->id), 0);
	free(env);
	return rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION);
}

/*
 * A one-entry write request, built where the posting code of mr.c builds it:
 * in the list's next slot while it collects, else on the caller's stack.
 */
static int post_write(struct env *env, uint64_t wr_id, unsigned flags)
{
	struct rpma_post_slot local;
	struct rpma_post_slot *slot = rpma_post_list_slot(env->list);
	if (slot == NULL) {
		memset(&local, 0, sizeof(local));
		slot = &local;
	}
	slot->sge = (struct ibv_sge){.addr = 0x1000 + wr_id, .length = 4096, .lkey = 7};
	slot->wr.wr_id = wr_id;
	slot->wr.opcode = IBV_WR_RDMA_WRITE;
	slot->wr.sg_list = &slot->sge;
	slot->wr.num_sge = 1;
	slot->wr.send_flags = flags;
	slot->wr.wr.rdma.remote_addr = 0x20000 + wr_id;
	slot->wr.wr.rdma.rkey = 0x77;
	return rpma_post_list_post(env->list, env->qp, &slot->wr);
}

static void closed_list_posts_at_once(void **state)
{
	struct env *env = *state;
	assert_false(rpma_post_list_is_open(env->list));
	assert_int_equal(post_write(env, 1, 0), 0);
	assert_int_equal(post_write(env, 2, 0), 0);
	assert_int_equal(fake_posted.count, 2);
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(fake_posted.send_wr.wr_id, 2);
	/* and so does no list at all (the library's own posts) */
	struct ibv_send_wr wr;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	assert_int_equal(rpma_post_list_post(NULL, env->qp, &wr), 0);
	assert_int_equal(fake_posted.count, 3);
}

static void open_list_rings_once_in_order(void **state)
{
	struct env *env = *state;
	assert_int_equal(rpma_post_list_open(env->list), 0);
	assert_true(rpma_post_list_is_open(env->list));
	for (uint64_t i = 1; i <= 3; i++)
		assert_int_equal(post_write(env, i, i == 3 ? IBV_SEND_SIGNALED : 0), 0);
	assert_int_equal(fake_posted.count, 0); /* nothing reached the device yet */
	assert_int_equal(rpma_post_list_close(env->list, env->qp), 0);
	assert_false(rpma_post_list_is_open(env->list));
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 3);
	for (unsigned i = 0; i < 3; i++) {
		const struct ibv_send_wr *wr = &fake_posted.send_chain[i];
		assert_int_equal(wr->wr_id, i + 1);
		assert_int_equal(wr->opcode, IBV_WR_RDMA_WRITE);
		assert_int_equal(wr->num_sge, 1);
		assert_int_equal(wr->sg_list[0].addr, 0x1000 + i + 1);
		assert_int_equal(wr->sg_list[0].length, 4096);
		assert_int_equal(wr->sg_list[0].lkey, 7);
		assert_int_equal(wr->send_flags, i == 2 ? IBV_SEND_SIGNALED : 0);
	}
	/* closing an empty list posts nothing */
	assert_int_equal(rpma_post_list_open(env->list), 0);
	assert_int_equal(rpma_post_list_close(env->list, env->qp), 0);
	assert_int_equal(fake_posted.count, 1);
}

static void inline_data_rings_at_once_with_what_came_first(void **state)
{
	struct env *env = *state;
	char data[8] = "12345678";

	assert_int_equal(rpma_post_list_open(env->list), 0);
	assert_int_equal(post_write(env, 1, 0), 0);
	struct rpma_post_slot *slot = rpma_post_list_slot(env->list);
	assert_non_null(slot);
	slot->sge = (struct ibv_sge){.addr = (uint64_t)(uintptr_t)data, .length = 8};
	slot->wr.wr_id = 9;
	slot->wr.sg_list = &slot->sge;
	slot->wr.num_sge = 1;
	slot->wr.send_flags = IBV_SEND_INLINE;
	assert_int_equal(rpma_post_list_post(env->list, env->qp, &slot->wr), 0);
	/* one doorbell: the write, then the inline request (its data read now) */
	assert_int_equal(fake_posted.count, 1);
	assert_int_equal(fake_posted.send_chain_len, 2);
	assert_int_equal(fake_posted.send_chain[0].wr_id, 1);
	assert_int_equal(fake_posted.send_chain[1].wr_id, 9);
	assert_true(rpma_post_list_is_open(env->list));
	assert_int_equal(rpma_post_list_close(env->list, env->qp), 0);
	assert_int_equal(fake_posted.count, 1);
}

static void request_built_elsewhere_rings_after_what_was_collected(void **state)
{
	struct env *env = *state;
	struct ibv_sge sge = {.addr = 0x2000, .length = 64, .lkey = 7};
	struct ibv_send_wr wr;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 5;
	wr.sg_list = &sge;
	wr.num_sge = 1;

	assert_int_equal(rpma_post_list_open(env->list), 0);
	assert_int_equal(post_write(env, 1, 0), 0);
	assert_int_equal(post_write(env, 2, 0), 0);
	assert_int_equal(rpma_post_list_post(env->list, env->qp, &wr), 0);
	/* the two collected ones in one post, then this one on its own */
	assert_int_equal(fake_posted.count, 2);
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(fake_posted.send_wr.wr_id, 5);
	assert_true(rpma_post_list_is_open(env->list));
	assert_int_equal(rpma_post_list_close(env->list, env->qp), 0);
	assert_int_equal(fake_posted.count, 2);
}

static void full_list_rings_early(void **state)
{
	struct env *env = *state;
	assert_int_equal(rpma_post_list_open(env->list), 0);
	for (uint64_t i = 0; i < RPMA_POST_LIST_CAPACITY; i++)
		assert_int_equal(post_write(env, i, 0), 0);
	assert_int_equal(fake_posted.count, 0);
	assert_null(rpma_post_list_slot(env->list)); /* full: the next one is built elsewhere */
	assert_int_equal(post_write(env, 100, 0), 0);
	assert_int_equal(fake_posted.count, 2);
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(fake_posted.send_wr.wr_id, 100);
	/* emptied: collecting goes on from the first slot */
	assert_non_null(rpma_post_list_slot(env->list));
	assert_int_equal(post_write(env, 101, 0), 0);
	assert_int_equal(rpma_post_list_close(env->list, env->qp), 0);
	assert_int_equal(fake_posted.count, 3);
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(fake_posted.send_wr.wr_id, 101);
}

static void failed_post_empties_and_closes(void **state)
{
	struct env *env = *state;
	assert_int_equal(rpma_post_list_open(env->list), 0);
	assert_int_equal(post_write(env, 1, 0), 0);
	assert_int_equal(post_write(env, 2, 0), 0);
	fake_fail("ibv_post_send", 1, ENOMEM);
	errno = 0;
	assert_int_equal(rpma_post_list_close(env->list, env->qp), RPMA_E_PROVIDER);
	assert_int_equal(errno, ENOMEM);
	assert_false(rpma_post_list_is_open(env->list));
	/* nothing is left to be posted twice: the next batch holds only its own */
	assert_int_equal(rpma_post_list_open(env->list), 0);
	assert_int_equal(post_write(env, 3, 0), 0);
	assert_int_equal(rpma_post_list_close(env->list, env->qp), 0);
	assert_int_equal(fake_posted.send_chain_len, 1);
	assert_int_equal(fake_posted.send_wr.wr_id, 3);
}

/* In a chain the provider names the request it refused: the log line is about that one. */
static void failed_post_logs_the_refused_request(void **state)
{
	struct env *env = *state;
	assert_int_equal(rpma_post_list_open(env->list), 0);
	for (uint64_t wr_id = 1; wr_id <= 3; wr_id++)
		assert_int_equal(post_write(env, wr_id, wr_id == 2 ? IBV_SEND_SIGNALED : 0), 0);
	fake_send_bad_wr_index = 1; /* the second */
	fake_fail("ibv_post_send", 1, ENOMEM);
	test_log_record_start();
	assert_int_equal(rpma_post_list_close(env->list, env->qp), RPMA_E_PROVIDER);
	assert_int_equal(test_log_last.count, 1);
	test_log_assert_has("ibv_post_send() failed: ENOMEM; work request: opcode=RDMA_WRITE "
		"wr_id=0x2 local_addr=0x1002 length=4096 remote_addr=0x20002 rkey=0x77 "
		"send_flags=SIGNALED", NULL);
}

static void misuse_is_refused(void **state)
{
	struct env *env = *state;
	assert_int_equal(rpma_post_list_new(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_post_list_open(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_post_list_close(NULL, env->qp), RPMA_E_INVAL);
	assert_int_equal(rpma_post_list_close(env->list, env->qp), RPMA_E_INVAL);
	assert_int_equal(rpma_post_list_open(env->list), 0);
	assert_int_equal(rpma_post_list_open(env->list), RPMA_E_INVAL);
	assert_int_equal(rpma_post_list_close(env->list, env->qp), 0);
	rpma_post_list_delete(NULL); /* harmless */
	assert_null(rpma_post_list_slot(NULL));
	assert_null(rpma_post_list_slot(env->list)); /* closed */
	assert_false(rpma_post_list_is_open(NULL));
	assert_int_equal(rpma_post_list_drain(NULL, env->qp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(closed_list_posts_at_once),
		T(open_list_rings_once_in_order),
		T(inline_data_rings_at_once_with_what_came_first),
		T(request_built_elsewhere_rings_after_what_was_collected),
		T(full_list_rings_early),
		T(failed_post_empties_and_closes),
		T(failed_post_logs_the_refused_request),
		T(misuse_is_refused),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
