/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fake_verbs.c -- the three libibverbs calls of memory registration, with no
 * device behind them, for tests/fault/check_free_test.sh: the shim
 * (libfault.so, LD_PRELOAD) finds these as the "real" ones (RTLD_NEXT).
 * Deregistering a region twice, or one never registered, aborts with a message.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#define MAX_LIVE 64

static struct ibv_mr *live[MAX_LIVE];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int fake_verbs_deregs;	/* successful ibv_dereg_mr() calls */

static struct ibv_mr *reg(void *addr, size_t len)
{
	struct ibv_mr *mr = calloc(1, sizeof(*mr));
	if (mr == NULL)
		return NULL;
	mr->addr = addr;
	mr->length = len;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_LIVE; i++) {
		if (live[i] == NULL) {
			live[i] = mr;
			pthread_mutex_unlock(&lock);
			return mr;
		}
	}
	pthread_mutex_unlock(&lock);
	free(mr);
	return NULL;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova,
		unsigned int access)
{
	(void)pd;
	(void)iova;
	(void)access;
	return reg(addr, len);
}

/* as libibverbs' own: through ibv_reg_mr_iova2(), which the shim wraps too */
#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	return ibv_reg_mr_iova2(pd, addr, len, (uintptr_t)addr, (unsigned int)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_LIVE; i++) {
		if (mr == NULL || live[i] != mr)
			continue;
		live[i] = NULL;
		fake_verbs_deregs++;
		pthread_mutex_unlock(&lock);
		free(mr);
		return 0;
	}
	pthread_mutex_unlock(&lock);
	fprintf(stderr, "fake_verbs: ibv_dereg_mr(%p) of no live region\n", (void *)mr);
	abort();
}
