/* SPDX-License-Identifier: BSD-3-Clause */
/* region_lock.c -- a server job's claim on its bytes of a path (see region_lock.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "optparse.h"
#include "region_lock.h"

/* a range is given to the kernel as off_t start and length */
_Static_assert(sizeof(off_t) == sizeof(int64_t), "off_t must be 64 bits");
#define OFF_MAX ((uint64_t)INT64_MAX)

/* a holder found gone when asked who it is: try this often before giving up */
#define LOCK_ATTEMPTS 3

struct rpmafio_region_lock {
	int fd;	/* the open file description that holds the lock */
};

static struct flock write_lock_of(uint64_t start, uint64_t len)
{
	/* l_pid must be 0 for OFD locks */
	return (struct flock){
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = (off_t)start,
		.l_len = (off_t)len,
	};
}

enum rpmafio_region_lock_result rpmafio_region_lock_new(const char *path, uint64_t start,
		uint64_t len, struct rpmafio_region_lock **lock, struct rpmafio_byte_range *held,
		char *err, size_t errlen)
{
	const unsigned long long end = (unsigned long long)start + len;

	*lock = NULL;
	if (len == 0) {
		rpmafio_errf(err, errlen, "an empty range of %s cannot be locked", path);
		return RPMAFIO_REGION_LOCK_FAILED;
	}
	if (start > OFF_MAX || len > OFF_MAX - start) {
		rpmafio_errf(err, errlen, "bytes [%llu, %llu + %llu) of %s lie beyond the largest "
			"file offset", (unsigned long long)start, (unsigned long long)start,
			(unsigned long long)len, path);
		return RPMAFIO_REGION_LOCK_FAILED;
	}
	/* for writing: a write lock needs it (and the server maps the path read-write) */
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		rpmafio_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return RPMAFIO_REGION_LOCK_FAILED;
	}
	for (int attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
		struct flock fl = write_lock_of(start, len);
		if (fcntl(fd, F_OFD_SETLK, &fl) == 0) {
			*lock = malloc(sizeof(**lock));
			if (*lock == NULL) {
				close(fd); /* (drops the lock) */
				rpmafio_errf(err, errlen, "no memory for the lock of %s", path);
				return RPMAFIO_REGION_LOCK_FAILED;
			}
			(*lock)->fd = fd;
			return RPMAFIO_REGION_LOCK_TAKEN;
		}
		if (errno != EAGAIN && errno != EACCES) {
			rpmafio_errf(err, errlen, "cannot lock bytes [%llu, %llu) of %s: %s",
				(unsigned long long)start, end, path, strerror(errno));
			close(fd);
			return RPMAFIO_REGION_LOCK_FAILED;
		}
		/* someone holds overlapping bytes: which? (the first conflicting lock) */
		fl = write_lock_of(start, len);
		if (fcntl(fd, F_OFD_GETLK, &fl)) {
			rpmafio_errf(err, errlen, "bytes [%llu, %llu) of %s are locked, and asking "
				"by whom failed: %s", (unsigned long long)start, end, path,
				strerror(errno));
			close(fd);
			return RPMAFIO_REGION_LOCK_FAILED;
		}
		if (fl.l_type != F_UNLCK) {
			held->start = (uint64_t)fl.l_start;
			/* a length of 0 reaches the end of the path, however long it grows */
			held->end = fl.l_len == 0 ? RPMAFIO_RANGE_TO_END :
				(uint64_t)fl.l_start + (uint64_t)fl.l_len;
			close(fd);
			return RPMAFIO_REGION_LOCK_HELD;
		}
		/* the holder let go between the two calls: try again */
	}
	rpmafio_errf(err, errlen, "bytes [%llu, %llu) of %s were locked %d times by holders "
		"gone when asked who they were", (unsigned long long)start, end, path,
		LOCK_ATTEMPTS);
	close(fd);
	return RPMAFIO_REGION_LOCK_FAILED;
}

void rpmafio_region_lock_delete(struct rpmafio_region_lock **lock)
{
	if (lock == NULL || *lock == NULL)
		return;
	close((*lock)->fd); /* closing the open file description drops its locks */
	free(*lock);
	*lock = NULL;
}
