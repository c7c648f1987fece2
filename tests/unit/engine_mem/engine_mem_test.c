/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_mem_test.c -- a server job's DRAM memory (engines/common/mem.c).
 * The server registers it for the client's reads, so it must start zeroed:
 * whatever the heap held before must not reach a client that reads before it
 * writes. Fresh memory is made dirty on purpose: this test's posix_memalign()
 * (an executable's definition wins over libc's for the code linked into it)
 * fills what it hands out with 0xA5, as a reused heap block could be.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "common/mem.h"

#define DIRT 0xA5

/* ---- stand-in: libc's posix_memalign(), handing out dirty memory ---- */

static struct {
	unsigned calls;
	int fail;		/* the error to return instead (0: none) */
} A;

int posix_memalign(void **memptr, size_t alignment, size_t size)
{
	A.calls++;
	if (A.fail)
		return A.fail;
	/* aligned_alloc() wants a multiple of the alignment; free() takes what it gives */
	size_t rounded = (size + alignment - 1) / alignment * alignment;
	void *p = aligned_alloc(alignment, rounded ? rounded : alignment);
	if (p == NULL)
		return ENOMEM;
	memset(p, DIRT, size);
	*memptr = p;
	return 0;
}

static int reset(void **state)
{
	(void)state;
	memset(&A, 0, sizeof(A));
	return 0;
}

static bool all_zero(const void *ptr, size_t size)
{
	const unsigned char *b = ptr;
	for (size_t i = 0; i < size; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* ---- the tests ---- */

static void dram_starts_zeroed(void **state)
{
	(void)state;
	static const size_t sizes[] = {1, 4096, 65536 + 100, 1 << 20};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct rpmafio_mem mem;
		char err[128] = "";
		memset(&mem, 0, sizeof(mem));
		assert_int_equal(rpmafio_mem_map(RPMAFIO_MEM_DRAM, sizes[i], 0, &mem, err,
			sizeof(err)), 0);
		assert_int_equal(A.calls, i + 1); /* the dirty allocator gave it */
		assert_non_null(mem.ptr);
		assert_int_equal(mem.size, sizes[i]);
		assert_int_equal(mem.kind, RPMAFIO_MEM_KIND_DRAM);
		assert_null(mem.map);
		assert_false(mem.is_pmem);
		assert_int_equal((uintptr_t)mem.ptr % 4096, 0);
		assert_true(all_zero(mem.ptr, mem.size));
		rpmafio_mem_unmap(&mem);
	}
}

/* no path at all is DRAM too */
static void null_path_is_zeroed_dram(void **state)
{
	(void)state;
	struct rpmafio_mem mem;
	char err[128] = "";
	assert_int_equal(rpmafio_mem_map(NULL, 8192, 0, &mem, err, sizeof(err)), 0);
	assert_int_equal(A.calls, 1);
	assert_int_equal(mem.kind, RPMAFIO_MEM_KIND_DRAM);
	assert_true(all_zero(mem.ptr, mem.size));
	rpmafio_mem_unmap(&mem);
}

/* unmapping gives the memory back and forgets it; again, or on nothing, is a no-op */
static void unmap_releases_and_forgets(void **state)
{
	(void)state;
	struct rpmafio_mem mem;
	char err[128] = "";
	assert_int_equal(rpmafio_mem_map(RPMAFIO_MEM_DRAM, 4096, 0, &mem, err, sizeof(err)), 0);
	rpmafio_mem_unmap(&mem);
	assert_null(mem.ptr);
	assert_int_equal(mem.size, 0);
	rpmafio_mem_unmap(&mem);
	assert_null(mem.ptr);

	struct rpmafio_mem zeroed;
	memset(&zeroed, 0, sizeof(zeroed));
	rpmafio_mem_unmap(&zeroed);
	rpmafio_mem_unmap(NULL);
}

static void dram_allocation_failure(void **state)
{
	(void)state;
	struct rpmafio_mem mem;
	char err[128] = "";
	memset(&mem, 0, sizeof(mem));
	A.fail = ENOMEM;
	assert_int_equal(rpmafio_mem_map(RPMAFIO_MEM_DRAM, 4096, 0, &mem, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot allocate 4096 bytes of DRAM"));
	assert_null(mem.ptr);
}

static void zero_size_refused(void **state)
{
	(void)state;
	struct rpmafio_mem mem;
	char err[128] = "";
	memset(&mem, 0, sizeof(mem));
	assert_int_equal(rpmafio_mem_map(RPMAFIO_MEM_DRAM, 0, 0, &mem, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the memory size is 0"));
	assert_int_equal(A.calls, 0);
}

/* a registration failing for want of memory names a finite locked-memory limit */
static void memlock_hint_names_the_limit(void **state)
{
	(void)state;
	struct rlimit saved, limit;
	char hint[160];
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &saved), 0);
	limit = saved;
	limit.rlim_cur = 65536;
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &limit), 0);
	assert_non_null(strstr(rpmafio_memlock_hint(ENOMEM, hint, sizeof(hint)),
		"; the locked-memory limit (ulimit -l) is 65536 bytes"));
	assert_non_null(strstr(rpmafio_memlock_hint(EPERM, hint, sizeof(hint)), "65536"));
	/* another reason, or no limit: nothing to add */
	assert_string_equal(rpmafio_memlock_hint(EFAULT, hint, sizeof(hint)), "");
	limit.rlim_cur = RLIM_INFINITY;
	if (setrlimit(RLIMIT_MEMLOCK, &limit) == 0)
		assert_string_equal(rpmafio_memlock_hint(ENOMEM, hint, sizeof(hint)), "");
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &saved), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup(fn, reset)
	const struct CMUnitTest tests[] = {
		T(dram_starts_zeroed),
		T(null_path_is_zeroed_dram),
		T(unmap_releases_and_forgets),
		T(dram_allocation_failure),
		T(zero_size_refused),
		T(memlock_hint_names_the_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
