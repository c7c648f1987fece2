/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem.h -- the memory a server job exposes (no fio, no RDMA).
 *
 *   "malloc"          DRAM: page-aligned, from posix_memalign(), zeroed (a
 *                     client may read it before writing it)
 *   a device-DAX path mapped with libpmem2 (cache-line store granularity)
 *   a file            mapped with libpmem2: on an fsdax mount it is persistent
 *                     memory (MAP_SYNC, cache-line granularity); a plain file
 *                     is accepted too, with page granularity (its data is
 *                     persistent only after msync: fine for trying things out)
 *
 * A path is shared by the jobs of a server, and by servers: where a job's
 * bytes lie (job i at i * size, or from mem_offset=) is the caller's choice
 * (common/optparse.h rpmafio_region_start()), and keeping them apart is
 * common/region_lock.h's.
 */
#ifndef RPMAFIO_MEM_H
#define RPMAFIO_MEM_H

#include <stdbool.h>
#include <stddef.h>

#define RPMAFIO_MEM_DRAM "malloc"

enum rpmafio_mem_kind {
	RPMAFIO_MEM_KIND_DRAM,
	RPMAFIO_MEM_KIND_DEVDAX,
	RPMAFIO_MEM_KIND_FILE,
};

struct pmem2_map;

struct rpmafio_mem {
	void *ptr;
	size_t size;
	enum rpmafio_mem_kind kind;
	/* libpmem2 can guarantee persistence by CPU cache flushes (cache-line or byte
	 * store granularity), i.e. this is persistent memory, not the page cache */
	bool is_pmem;
	struct pmem2_map *map; /* NULL for DRAM */
};

/*
 * Provide `size` bytes: DRAM for RPMAFIO_MEM_DRAM, else bytes [offset,
 * offset + size) of the path. Returns 0, or -1 with the reason in err (a
 * missing file, a source too small, offset or size not a multiple of the
 * device's alignment, libpmem2's own message...).
 */
int rpmafio_mem_map(const char *path, size_t size, size_t offset, struct rpmafio_mem *mem,
		char *err, size_t errlen);

/* Release what rpmafio_mem_map() gave; a zeroed or already released mem is fine. */
void rpmafio_mem_unmap(struct rpmafio_mem *mem);

/* The size of a path as libpmem2 sees it (a device-DAX size, a file size). */
int rpmafio_mem_source_size(const char *path, size_t *size, char *err, size_t errlen);

/* "DRAM", "device DAX", "file" */
const char *rpmafio_mem_kind_str(enum rpmafio_mem_kind kind);

/*
 * Why a registration failed with ERR (errno after rpma_mr_reg()): for ENOMEM,
 * EPERM or EAGAIN under a finite RLIMIT_MEMLOCK, "; the locked-memory limit
 * (ulimit -l) is N bytes: ..." (pinned pages count against it: always on
 * iWARP's siw, elsewhere without CAP_IPC_LOCK); else "". Written into buf.
 */
const char *rpmafio_memlock_hint(int err, char *buf, size_t len);

#endif /* RPMAFIO_MEM_H */
