/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_server_map_test.c -- where a server job's memory lies in its path and
 * who else may have it (engines/server/setup.c: rpmafio_server_map() and
 * rpmafio_server_release()), on a temporary file mapped by libpmem2, against
 * the fake provider (a registration that fails to go) and stand-ins for the
 * calls that reach fio (common/report.h).
 *
 * Issue 26: job i took bytes [i * size, (i + 1) * size) of its path, so two
 * sections of different sizes overlapped (A: size=4m, job 1, [0, 4m); B:
 * size=1m, job 2, [1m, 2m) -- inside A) and two servers of one path both took
 * [0, size). Now the second of two overlapping jobs fails, naming both ranges.
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
#include <unistd.h>
#include <cmocka.h>

#include "common/report.h"
#include "fake_provider.h"
#include "server/server.h"
#include "test_log.h"
#include "fio_report.h"

#define MIB (1024ULL * 1024)
#define FILE_SIZE (8 * MIB)

static char path[64];
static volatile bool stop;

/* ---- the jobs ---- */

static struct rpmafio_opts opts_of(const char *mem_offset)
{
	return (struct rpmafio_opts){
		.serverip = "192.168.77.1",
		.port = "7204",
		.mode = RPMAFIO_MODE_SERVER,
		.connect_timeout = 1000,
		.mem_offset = (char *)mem_offset,
	};
}

/* a server job as fio/engine.c makes it: index over the job file, subjob in its section */
static void job_init(struct rpmafio_server *s, const struct rpmafio_opts *o, const char *file,
		uint64_t size, unsigned index, unsigned subjob)
{
	memset(s, 0, sizeof(*s));
	s->job.o = o;
	s->job.mode = RPMAFIO_MODE_SERVER;
	s->job.index = index;
	s->job.subjob_index = subjob;
	s->job.kb_base = 1024;
	s->job.size = size;
	s->job.nr_files = 1;
	s->job.filename = file;
	s->job.stop = &stop;
}

static int map(struct rpmafio_server *s)
{
	memset(&fio_report, 0, sizeof(fio_report));
	return rpmafio_server_map(s);
}

static int setup(void **state)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/rpmafio-server-map.XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, (off_t)FILE_SIZE))
		return -1;
	/* a mark at each MiB: which bytes a job mapped */
	for (unsigned mib = 0; mib < FILE_SIZE / MIB; mib++) {
		char mark = (char)('0' + mib);
		if (pwrite(fd, &mark, 1, (off_t)(mib * MIB)) != 1)
			return -1;
	}
	close(fd);
	return test_setup_quiet(state);
}

static int teardown(void **state)
{
	unlink(path);
	return test_teardown_no_leaks(state);
}

/* issue 26's two sections: B's [1m, 2m) lies inside A's [0, 4m) */
static void sections_of_different_sizes_refused(void **state)
{
	(void)state;
	struct rpmafio_opts o = opts_of("auto");
	struct rpmafio_server a, b;
	char want[2 * RPMAFIO_ERR_LEN];

	job_init(&a, &o, path, 4 * MIB, 0, 0);
	job_init(&b, &o, path, 1 * MIB, 1, 0);
	assert_int_equal(map(&a), 0);
	assert_int_equal(((char *)a.mem.ptr)[0], '0');
	assert_int_equal(map(&b), -1);
	assert_int_equal(fio_report.err, EBUSY);
	snprintf(want, sizeof(want), "filename=%s: this job's bytes [1048576, 2097152) overlap "
		"bytes [0, 4194304) held by another server job or process: give each server its "
		"own range with mem_offset= (e.g. mem_offset=4194304) or change size=", path);
	assert_string_equal(fio_report.msg, want);
	/* nothing of B's stays: no mapping, no lock */
	assert_null(b.mem.ptr);
	assert_null(b.lock);
	rpmafio_server_release(&b);
	rpmafio_server_release(&a);
}

/* two server processes on one path, each with one job: both at 0 */
static void two_servers_at_zero_refused(void **state)
{
	(void)state;
	struct rpmafio_opts o = opts_of("auto");
	struct rpmafio_server first, second;

	job_init(&first, &o, path, 2 * MIB, 0, 0);
	job_init(&second, &o, path, 2 * MIB, 0, 0);
	assert_int_equal(map(&first), 0);
	assert_int_equal(map(&second), -1);
	assert_non_null(strstr(fio_report.msg, "this job's bytes [0, 2097152) overlap bytes [0, 2097152) "
		"held by another server job or process"));
	rpmafio_server_release(&second);
	rpmafio_server_release(&first);
}

/* mem_offset: the section's jobs side by side from there, next to A */
static void mem_offset_places_the_jobs(void **state)
{
	(void)state;
	struct rpmafio_opts auto_layout = opts_of("auto"), from_4m = opts_of("4m");
	struct rpmafio_server a, b0, b1;

	job_init(&a, &auto_layout, path, 4 * MIB, 0, 0);
	job_init(&b0, &from_4m, path, 1 * MIB, 1, 0);
	job_init(&b1, &from_4m, path, 1 * MIB, 2, 1);
	assert_int_equal(map(&a), 0);
	assert_int_equal(map(&b0), 0);
	assert_int_equal(map(&b1), 0);
	assert_int_equal(((char *)a.mem.ptr)[0], '0');
	assert_int_equal(((char *)b0.mem.ptr)[0], '4');
	assert_int_equal(((char *)b1.mem.ptr)[0], '5');
	rpmafio_server_release(&b1);
	rpmafio_server_release(&b0);
	rpmafio_server_release(&a);
	assert_null(a.lock);
}

static void released_bytes_taken_again(void **state)
{
	(void)state;
	struct rpmafio_opts o = opts_of("auto"), from_2m = opts_of("2m");
	struct rpmafio_server a, b;

	job_init(&a, &o, path, 4 * MIB, 0, 0);
	job_init(&b, &from_2m, path, 4 * MIB, 0, 0);
	assert_int_equal(map(&a), 0);
	assert_int_equal(map(&b), -1);
	rpmafio_server_release(&a);
	assert_null(a.mem.ptr);
	assert_null(a.lock);
	assert_int_equal(map(&b), 0);
	assert_int_equal(((char *)b.mem.ptr)[0], '2');
	rpmafio_server_release(&b);
}

/*
 * The bytes stay the job's while the NIC may still write them: a
 * deregistration that fails keeps the mapping and the lock.
 */
static void kept_while_registered(void **state)
{
	(void)state;
	struct rpmafio_opts o = opts_of("auto");
	struct rpmafio_server a, b;

	job_init(&a, &o, path, 2 * MIB, 0, 0);
	job_init(&b, &o, path, 2 * MIB, 0, 0);
	assert_int_equal(map(&a), 0);
	assert_int_equal(rpmafio_server_register(&a, RPMA_MR_USAGE_WRITE_DST |
		RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY, 0), 0);
	fake_fail("ibv_dereg_mr", 1, EIO);
	rpmafio_server_release(&a);
	assert_int_equal(fio_report.notes, 1); /* "cannot deregister ... it stays mapped" */
	assert_non_null(a.mem.ptr);
	assert_non_null(a.lock);
	assert_int_equal(map(&b), -1);
	assert_non_null(strstr(fio_report.msg, "held by another server job or process"));
	/* deregistered at last: now the bytes are free */
	rpmafio_server_release(&a);
	assert_null(a.mr);
	assert_null(a.lock);
	assert_int_equal(map(&b), 0);
	rpmafio_server_release(&b);
}

/* DRAM is each job's own: no lock, and no offset to give */
static void dram_needs_no_lock(void **state)
{
	(void)state;
	struct rpmafio_opts o = opts_of("auto"), offset = opts_of("1m");
	struct rpmafio_server a, b;

	job_init(&a, &o, "malloc", 1 * MIB, 0, 0);
	job_init(&b, &o, "malloc", 1 * MIB, 0, 0);
	assert_int_equal(map(&a), 0);
	assert_int_equal(map(&b), 0);
	assert_null(a.lock);
	assert_null(b.lock);
	rpmafio_server_release(&b);
	rpmafio_server_release(&a);

	job_init(&a, &offset, "malloc", 1 * MIB, 0, 0);
	assert_int_equal(map(&a), -1);
	assert_int_equal(fio_report.err, EINVAL);
	assert_string_equal(fio_report.msg, "mem_offset=1m: filename=malloc is DRAM of the job's own: "
		"mem_offset places a job in a device-DAX path or a file (leave it out, or auto)");
	assert_null(a.mem.ptr);
	rpmafio_server_release(&a);
}

static void path_that_cannot_be_opened(void **state)
{
	(void)state;
	struct rpmafio_opts o = opts_of("auto");
	struct rpmafio_server a;

	job_init(&a, &o, "/nonexistent/mem", 1 * MIB, 0, 0);
	assert_int_equal(map(&a), -1);
	assert_string_equal(fio_report.msg, "filename=/nonexistent/mem: cannot open /nonexistent/mem: "
		"No such file or directory");
	assert_null(a.lock);
	rpmafio_server_release(&a);
}

/* bytes beyond the file: refused by the mapping, and the lock let go at once */
static void lock_released_when_the_mapping_fails(void **state)
{
	(void)state;
	struct rpmafio_opts o = opts_of("6m");
	struct rpmafio_server a, b;

	job_init(&a, &o, path, 4 * MIB, 0, 0);
	assert_int_equal(map(&a), -1);
	assert_non_null(strstr(fio_report.msg, "too small for bytes [6291456, 10485760) of this job"));
	assert_null(a.lock);
	job_init(&b, &o, path, 2 * MIB, 0, 0);
	assert_int_equal(map(&b), 0);
	rpmafio_server_release(&b);
	rpmafio_server_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(sections_of_different_sizes_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(two_servers_at_zero_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(mem_offset_places_the_jobs, setup, teardown),
		cmocka_unit_test_setup_teardown(released_bytes_taken_again, setup, teardown),
		cmocka_unit_test_setup_teardown(kept_while_registered, setup, teardown),
		cmocka_unit_test_setup_teardown(dram_needs_no_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(path_that_cannot_be_opened, setup, teardown),
		cmocka_unit_test_setup_teardown(lock_released_when_the_mapping_fails, setup,
			teardown),
	};
	return cmocka_run_group_tests_name("engine_server_map", tests, NULL, NULL);
}
