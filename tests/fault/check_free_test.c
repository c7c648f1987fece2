/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_free_test.c -- one case of the shim's free checker a run
 * (tests/fault/check_free_test.sh runs them all under LD_PRELOAD=libfault.so
 * with RPMAFIO_FAULT_CHECK_FREE=1, over tests/fault/fake_verbs.c):
 *
 *   check_free_test CASE
 *
 * A case either plants a violation -- memory given back while registered --
 * and must die of the shim's abort() with its message, or does everything in
 * order and must exit 0. The script says which.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

extern int fake_verbs_deregs;

#define PAGE 4096

/* (the ibv_reg_mr macro calls ibv_reg_mr() or ibv_reg_mr_iova2(): see both) */
static struct ibv_mr *reg_via(void *addr, size_t len, int iova2)
{
	struct ibv_mr *mr = iova2 ?
		ibv_reg_mr_iova2(NULL, addr, len, (uintptr_t)addr, IBV_ACCESS_LOCAL_WRITE) :
		ibv_reg_mr(NULL, addr, len, IBV_ACCESS_LOCAL_WRITE);
	if (mr == NULL) {
		fprintf(stderr, "check_free_test: registration failed\n");
		exit(3);
	}
	return mr;
}

static struct ibv_mr *reg(void *addr, size_t len)
{
	return reg_via(addr, len, 0);
}

static void dereg(struct ibv_mr *mr, int expected)
{
	int ret = ibv_dereg_mr(mr);
	if (ret != expected) {
		fprintf(stderr, "check_free_test: ibv_dereg_mr() returned %d, expected %d\n", ret,
			expected);
		exit(3);
	}
}

static void *xmalloc(size_t size)
{
	void *p = malloc(size);
	if (p == NULL)
		exit(3);
	return p;
}

static char *map_pages(size_t n)
{
	void *m = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		exit(3);
	return m;
}

/* many threads registering, freeing others' memory, deregistering, freeing */
static void *churn(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++) {
		char *p = xmalloc(256);
		struct ibv_mr *mr = reg(p, 256);
		free(xmalloc(64));
		dereg(mr, 0);
		free(p);
	}
	return NULL;
}

int main(int argc, char *argv[])
{
	const char *c = argc > 1 ? argv[1] : "";

	if (strcmp(c, "free-registered") == 0) {
		char *p = xmalloc(PAGE);
		reg(p, PAGE);
		free(p);
	} else if (strcmp(c, "free-after-dereg") == 0) {
		char *p = xmalloc(PAGE);
		dereg(reg(p, PAGE), 0);
		free(p);
	} else if (strcmp(c, "free-after-failed-dereg") == 0) {
		/* RPMAFIO_FAULT_CALL=ibv_dereg_mr RPMAFIO_FAULT_AT=1 */
		char *p = xmalloc(PAGE);
		dereg(reg(p, PAGE), EIO);
		free(p);
	} else if (strcmp(c, "retry-after-failed-dereg") == 0) {
		/* the shim released it with the failed call: the retry must not reach it */
		char *p = xmalloc(PAGE);
		struct ibv_mr *mr = reg(p, PAGE);
		dereg(mr, EIO);
		dereg(mr, 0);
		free(p);
		if (fake_verbs_deregs != 1) {
			fprintf(stderr, "check_free_test: %d deregistrations reached the provider\n",
				fake_verbs_deregs);
			return 3;
		}
	} else if (strcmp(c, "free-block-around-range") == 0) {
		char *p = xmalloc(2 * PAGE);
		reg(p + PAGE, 100);
		free(p);
	} else if (strcmp(c, "free-other-memory") == 0) {
		char *p = xmalloc(PAGE), *q = xmalloc(PAGE);
		struct ibv_mr *mr = reg(p, PAGE);
		free(q);
		dereg(mr, 0);
		free(p);
	} else if (strcmp(c, "munmap-registered") == 0) {
		char *m = map_pages(3);
		reg_via(m + PAGE, PAGE, 1);
		munmap(m, 3 * PAGE);
	} else if (strcmp(c, "munmap-beside") == 0) {
		/* the pages around a registered one go; the registered one stays */
		char *m = map_pages(3);
		struct ibv_mr *mr = reg_via(m + PAGE, PAGE, 1);
		munmap(m, PAGE);
		munmap(m + 2 * PAGE, PAGE);
		dereg(mr, 0);
		munmap(m + PAGE, PAGE);
	} else if (strcmp(c, "threads") == 0) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, churn, NULL))
				return 3;
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
	} else {
		fprintf(stderr, "usage: %s CASE (see tests/fault/check_free_test.sh)\n", argv[0]);
		return 2;
	}
	printf("check_free_test: %s: ended\n", c);
	return 0;
}
