/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * region_lock.h -- a server job's claim on its bytes of a path (a device DAX or
 * a file), so that no two server jobs -- of one fio or of several fio
 * processes -- expose the same bytes to two clients (no fio, no RDMA).
 *
 * The claim is an exclusive open-file-description lock (fcntl F_OFD_SETLK) on
 * the byte range, on a descriptor the lock keeps open: OFD locks conflict
 * between the threads of one process as well as between processes (classic
 * POSIX locks would not see fio's job threads, and any close() of the path in
 * the process -- libpmem2's own, when it maps -- would drop them), and the
 * kernel drops them when the descriptor closes, a killed server's included:
 * nothing goes stale.
 * Locks are advisory: only servers that lock (every rpma-fio server) are kept
 * apart, and a lock is on the path's inode: two device nodes of one device
 * are not seen as one.
 */
#ifndef RPMAFIO_REGION_LOCK_H
#define RPMAFIO_REGION_LOCK_H

#include <stddef.h>
#include <stdint.h>

/* end of a range that reaches the end of the path, however long it grows */
#define RPMAFIO_RANGE_TO_END UINT64_MAX

/* bytes [start, end) of a path */
struct rpmafio_byte_range {
	uint64_t start;
	uint64_t end;	/* exclusive; RPMAFIO_RANGE_TO_END: up to the end */
};

struct rpmafio_region_lock;

enum rpmafio_region_lock_result {
	RPMAFIO_REGION_LOCK_TAKEN,	/* *lock holds the range until it is deleted */
	RPMAFIO_REGION_LOCK_HELD,	/* another open file description (another server job
					 * or process) holds overlapping bytes: *held says which */
	RPMAFIO_REGION_LOCK_FAILED,	/* err says why: the path cannot be opened, a range
					 * no file offset can hold, the lock call failed */
};

/*
 * Lock bytes [start, start + len) of path (len > 0) for writing, without
 * waiting. TAKEN fills *lock; otherwise *lock is NULL.
 */
enum rpmafio_region_lock_result rpmafio_region_lock_new(const char *path, uint64_t start,
		uint64_t len, struct rpmafio_region_lock **lock, struct rpmafio_byte_range *held,
		char *err, size_t errlen);

/* Release the range (close its descriptor) and set *lock to NULL; NULL is fine. */
void rpmafio_region_lock_delete(struct rpmafio_region_lock **lock);

#endif /* RPMAFIO_REGION_LOCK_H */
