// SPDX-License-Identifier: BSD-3-Clause
/*
 * cut_writes.c -- a power cut for tests/matrix/test_durability.sh, whose "server"
 * is two files fio's psync engine writes on this host: preloaded into fio, it fails
 * every pwrite() to a job's file (a name ending in ".0.0") with EIO while the file
 * CUT_WRITES_FLAG names exists, as a client's writes fail once the server's power
 * is gone. fio's own files (its logs, its saved verify state) are written as ever.
 * A stall: while the file CUT_WRITES_STALL names exists, a write to the job's file
 * whose name ends in CUT_WRITES_STALL_JOB (e.g. "gpspm.0.0") waits, as a client's
 * write waits for the retries of a lost packet; the power cut ends the wait with EIO.
 */
#include <dlfcn.h>
#include <errno.h>
#include <time.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);

static int exists(const char *env)
{
	const char *path = getenv(env);
	return path != NULL && access(path, F_OK) == 0;
}

/* does fd's path end in SUFFIX? */
static int names(int fd, const char *suffix)
{
	char link[64], path[PATH_MAX];
	size_t len = strlen(suffix);

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if (n < 0 || (size_t)n < len)
		return 0;
	path[n] = '\0';
	return strcmp(path + n - len, suffix) == 0;
}

/* is fd a job's file (*.0.0), and the power cut? */
static int cut_off(int fd)
{
	return exists("CUT_WRITES_FLAG") && names(fd, ".0.0");
}

/* while the stall lasts, a write to the stalled job's file waits (until the cut) */
static void stall(int fd)
{
	const char *job = getenv("CUT_WRITES_STALL_JOB");
	const struct timespec ms = {0, 1000000};

	if (job == NULL || *job == '\0' || !names(fd, job))
		return;
	while (exists("CUT_WRITES_STALL") && !exists("CUT_WRITES_FLAG"))
		nanosleep(&ms, NULL);
}

static ssize_t cut_or(pwrite_fn *real, const char *name, int fd, const void *buf, size_t len,
		off_t off)
{
	stall(fd);
	if (cut_off(fd)) {
		errno = EIO;
		return -1;
	}
	if (*real == NULL)
		*real = (pwrite_fn)dlsym(RTLD_NEXT, name);
	if (*real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return (*real)(fd, buf, len, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static pwrite_fn real;
	return cut_or(&real, "pwrite", fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	static pwrite_fn real;
	return cut_or(&real, "pwrite64", fd, buf, len, off);
}
