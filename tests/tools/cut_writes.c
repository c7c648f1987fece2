// SPDX-License-Identifier: BSD-3-Clause
/*
 * cut_writes.c -- a power cut for tests/matrix/test_durability.sh, whose "server"
 * is two files fio's psync engine writes on this host: preloaded into fio, it fails
 * every pwrite() to a job's file (a name ending in ".0.0") with EIO while the file
 * CUT_WRITES_FLAG names exists, as a client's writes fail once the server's power
 * is gone. fio's own files (its logs, its saved verify state) are written as ever.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);

/* is fd a job's file (*.0.0), and the power cut? */
static int cut_off(int fd)
{
	const char *flag = getenv("CUT_WRITES_FLAG");
	char link[64], path[PATH_MAX];

	if (flag == NULL || access(flag, F_OK) != 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof(path) - 1);
	if (n < 4)
		return 0;
	path[n] = '\0';
	return strcmp(path + n - 4, ".0.0") == 0;
}

static ssize_t cut_or(pwrite_fn *real, const char *name, int fd, const void *buf, size_t len,
		off_t off)
{
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
