/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_region_lock_test.c -- a server job's claim on its bytes of a path
 * (engines/common/region_lock.c), on a temporary file: overlapping claims
 * conflict -- within one process (fio's job threads) and across processes --
 * and the second learns the first's range; disjoint ones coexist; a released
 * range can be taken again; a path that cannot be opened says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/optparse.h"
#include "common/region_lock.h"

#define MIB (1024ULL * 1024)

static char path[64];
static char err[RPMAFIO_ERR_LEN];

static int make_file(void **state)
{
	(void)state;
	const char *dir = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/rpmafio-region-lock.XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	/* locks need no bytes behind them: a short file is locked beyond its end too */
	close(fd);
	return 0;
}

static int remove_file(void **state)
{
	(void)state;
	return unlink(path);
}

static enum rpmafio_region_lock_result take(uint64_t start, uint64_t len,
		struct rpmafio_region_lock **lock, struct rpmafio_byte_range *held)
{
	err[0] = '\0';
	return rpmafio_region_lock_new(path, start, len, lock, held, err, sizeof(err));
}

/* issue 26's two sections: A (4 MiB, job 1) and B (1 MiB, job 2 at 1 * size) */
static void overlap_conflicts_and_names_the_holder(void **state)
{
	(void)state;
	struct rpmafio_region_lock *a = NULL, *b = (void *)&b;
	struct rpmafio_byte_range held = {0};

	assert_int_equal(take(0, 4 * MIB, &a, &held), RPMAFIO_REGION_LOCK_TAKEN);
	assert_non_null(a);
	assert_int_equal(take(1 * MIB, 1 * MIB, &b, &held), RPMAFIO_REGION_LOCK_HELD);
	assert_null(b);
	assert_int_equal(held.start, 0);
	assert_int_equal(held.end, 4 * MIB);
	/* two servers of one device: both at 0 */
	assert_int_equal(take(0, 4 * MIB, &b, &held), RPMAFIO_REGION_LOCK_HELD);
	assert_null(b);
	/* a range reaching one byte into A */
	assert_int_equal(take(4 * MIB - 1, 4 * MIB, &b, &held), RPMAFIO_REGION_LOCK_HELD);
	assert_int_equal(held.start, 0);
	assert_int_equal(held.end, 4 * MIB);
	rpmafio_region_lock_delete(&a);
	assert_null(a);
}

static void disjoint_ranges_both_taken(void **state)
{
	(void)state;
	struct rpmafio_region_lock *a = NULL, *b = NULL, *c = NULL;
	struct rpmafio_byte_range held;

	assert_int_equal(take(0, 4 * MIB, &a, &held), RPMAFIO_REGION_LOCK_TAKEN);
	/* mem_offset=4m: right after A, touching it */
	assert_int_equal(take(4 * MIB, 1 * MIB, &b, &held), RPMAFIO_REGION_LOCK_TAKEN);
	assert_int_equal(take(64 * MIB, 64 * MIB, &c, &held), RPMAFIO_REGION_LOCK_TAKEN);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	rpmafio_region_lock_delete(&a);
	rpmafio_region_lock_delete(&b);
	rpmafio_region_lock_delete(&c);
}

static void released_range_taken_again(void **state)
{
	(void)state;
	struct rpmafio_region_lock *a = NULL, *b = NULL;
	struct rpmafio_byte_range held;

	assert_int_equal(take(0, 4 * MIB, &a, &held), RPMAFIO_REGION_LOCK_TAKEN);
	assert_int_equal(take(2 * MIB, 4 * MIB, &b, &held), RPMAFIO_REGION_LOCK_HELD);
	rpmafio_region_lock_delete(&a);
	assert_null(a);
	rpmafio_region_lock_delete(&a); /* twice, and NULL: nothing */
	rpmafio_region_lock_delete(NULL);
	assert_int_equal(take(2 * MIB, 4 * MIB, &b, &held), RPMAFIO_REGION_LOCK_TAKEN);
	rpmafio_region_lock_delete(&b);
}

/* two fio processes: the second learns the first's range; its exit frees it */
static void another_process_holds_the_range(void **state)
{
	(void)state;
	int ready[2], done[2];
	struct rpmafio_region_lock *b = NULL;
	struct rpmafio_byte_range held = {0};
	char c = 0;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(done), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rpmafio_region_lock *a = NULL;
		struct rpmafio_byte_range unused;
		/* (only the parent writes done: should it fail, the child reads EOF and ends) */
		close(done[1]);
		close(ready[0]);
		char ok = take(64 * MIB, 64 * MIB, &a, &unused) == RPMAFIO_REGION_LOCK_TAKEN;
		if (write(ready[1], &ok, 1) != 1 || read(done[0], &c, 1) < 0)
			_exit(2);
		_exit(0); /* the lock goes with the process, never deleted */
	}
	close(ready[1]);
	close(done[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(c, 1);
	assert_int_equal(take(0, 65 * MIB, &b, &held), RPMAFIO_REGION_LOCK_HELD);
	assert_int_equal(held.start, 64 * MIB);
	assert_int_equal(held.end, 128 * MIB);
	assert_int_equal(take(0, 64 * MIB, &b, &held), RPMAFIO_REGION_LOCK_TAKEN);
	rpmafio_region_lock_delete(&b);

	assert_int_equal(write(done[1], &c, 1), 1);
	int status = -1;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(take(0, 128 * MIB, &b, &held), RPMAFIO_REGION_LOCK_TAKEN);
	rpmafio_region_lock_delete(&b);
	close(ready[0]);
	close(done[1]);
}

/* a lock of length 0 (another tool's, say) reaches the end of the path */
static void holder_up_to_the_end(void **state)
{
	(void)state;
	struct rpmafio_region_lock *a = NULL;
	struct rpmafio_byte_range held = {0};
	struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 8 * MIB};
	int fd = open(path, O_RDWR);

	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_OFD_SETLK, &whole), 0);
	assert_int_equal(take(1024 * MIB, MIB, &a, &held), RPMAFIO_REGION_LOCK_HELD);
	assert_int_equal(held.start, 8 * MIB);
	assert_int_equal(held.end, RPMAFIO_RANGE_TO_END);
	assert_int_equal(take(0, 8 * MIB, &a, &held), RPMAFIO_REGION_LOCK_TAKEN);
	rpmafio_region_lock_delete(&a);
	close(fd);
}

static void path_that_cannot_be_opened(void **state)
{
	(void)state;
	struct rpmafio_region_lock *a = (void *)&a;
	struct rpmafio_byte_range held;

	assert_int_equal(rpmafio_region_lock_new("/nonexistent/mem", 0, MIB, &a, &held, err,
		sizeof(err)), RPMAFIO_REGION_LOCK_FAILED);
	assert_null(a);
	assert_string_equal(err, "cannot open /nonexistent/mem: No such file or directory");
}

static void ranges_that_cannot_be_locked(void **state)
{
	(void)state;
	struct rpmafio_region_lock *a = NULL;
	struct rpmafio_byte_range held;

	assert_int_equal(take(0, 0, &a, &held), RPMAFIO_REGION_LOCK_FAILED);
	assert_null(a);
	assert_non_null(strstr(err, "an empty range of"));
	/* a lock's start and length are off_t: at most 2^63 - 1 in all */
	assert_int_equal(take((uint64_t)INT64_MAX, 1, &a, &held), RPMAFIO_REGION_LOCK_FAILED);
	assert_null(a);
	assert_non_null(strstr(err, "beyond the largest file offset"));
	assert_int_equal(take((uint64_t)INT64_MAX - 1, 1, &a, &held), RPMAFIO_REGION_LOCK_TAKEN);
	rpmafio_region_lock_delete(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(overlap_conflicts_and_names_the_holder),
		cmocka_unit_test(disjoint_ranges_both_taken),
		cmocka_unit_test(released_range_taken_again),
		cmocka_unit_test(another_process_holds_the_range),
		cmocka_unit_test(holder_up_to_the_end),
		cmocka_unit_test(path_that_cannot_be_opened),
		cmocka_unit_test(ranges_that_cannot_be_locked),
	};
	return cmocka_run_group_tests_name("engine_region_lock", tests, make_file, remove_file);
}
