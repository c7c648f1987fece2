/* SPDX-License-Identifier: BSD-3-Clause */
/* mem.c -- a server job's memory: DRAM or a libpmem2 mapping (see mem.h) */
#include <errno.h>
#include <fcntl.h>
#include <libpmem2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mem.h"
#include "optparse.h"

const char *rpmafio_mem_kind_str(enum rpmafio_mem_kind kind)
{
	switch (kind) {
	case RPMAFIO_MEM_KIND_DRAM: return "DRAM";
	case RPMAFIO_MEM_KIND_DEVDAX: return "device DAX";
	case RPMAFIO_MEM_KIND_FILE: return "file";
	}
	return "?";
}

/* the libpmem2 source of an open path */
struct source {
	int fd;
	struct pmem2_source *src;
	bool is_chr;
};

static int source_open(const char *path, struct source *s, char *err, size_t errlen)
{
	struct stat st;
	s->src = NULL;
	s->fd = open(path, O_RDWR);
	if (s->fd < 0)
		return rpmafio_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
	if (fstat(s->fd, &st) || !(S_ISCHR(st.st_mode) || S_ISREG(st.st_mode))) {
		close(s->fd);
		return rpmafio_errf(err, errlen, "%s is neither a device-DAX device nor a regular file",
			path);
	}
	s->is_chr = S_ISCHR(st.st_mode);
	if (pmem2_source_from_fd(&s->src, s->fd)) {
		rpmafio_errf(err, errlen, "libpmem2 cannot use %s: %s", path, pmem2_errormsg());
		close(s->fd);
		return -1;
	}
	return 0;
}

static void source_close(struct source *s)
{
	pmem2_source_delete(&s->src);
	close(s->fd);
}

int rpmafio_mem_source_size(const char *path, size_t *size, char *err, size_t errlen)
{
	struct source s = {0};
	if (source_open(path, &s, err, errlen))
		return -1;
	int ret = 0;
	if (pmem2_source_size(s.src, size))
		ret = rpmafio_errf(err, errlen, "cannot tell the size of %s: %s", path, pmem2_errormsg());
	source_close(&s);
	return ret;
}

static int map_dram(size_t size, struct rpmafio_mem *mem, char *err, size_t errlen)
{
	long page = sysconf(_SC_PAGESIZE);
	void *ptr = NULL;
	int ret = posix_memalign(&ptr, page > 0 ? (size_t)page : 4096, size);
	if (ret)
		return rpmafio_errf(err, errlen, "cannot allocate %zu bytes of DRAM: %s", size,
			strerror(ret));
	/* registered for the client's reads: the heap's old bytes must not reach it */
	memset(ptr, 0, size);
	*mem = (struct rpmafio_mem){.ptr = ptr, .size = size, .kind = RPMAFIO_MEM_KIND_DRAM};
	return 0;
}

int rpmafio_mem_map(const char *path, size_t size, size_t offset, struct rpmafio_mem *mem,
		char *err, size_t errlen)
{
	if (size == 0)
		return rpmafio_errf(err, errlen, "the memory size is 0 (set size=)");
	if (path == NULL || strcmp(path, RPMAFIO_MEM_DRAM) == 0)
		return map_dram(size, mem, err, errlen);

	struct source s = {0};
	struct pmem2_config *cfg = NULL;
	struct pmem2_map *map = NULL;
	size_t src_size = 0, align = 0;
	int ret = -1;

	if (source_open(path, &s, err, errlen))
		return -1;
	if (pmem2_source_size(s.src, &src_size) || pmem2_source_alignment(s.src, &align)) {
		rpmafio_errf(err, errlen, "cannot tell the size of %s: %s", path, pmem2_errormsg());
		goto out;
	}
	if (offset % align || size % align) {
		rpmafio_errf(err, errlen, "%s maps in units of %zu bytes: this job's part starts at "
			"%zu and is %zu bytes long; make size= a multiple of %zu, and mem_offset= "
			"too", path, align, offset, size, align);
		goto out;
	}
	if (offset > src_size || size > src_size - offset) {
		rpmafio_errf(err, errlen, "%s is %zu bytes: too small for bytes [%zu, %zu) of this job "
			"(job i uses [i * size, (i + 1) * size), or the section's jobs from mem_offset=)",
			path, src_size, offset, offset + size);
		goto out;
	}
	if (pmem2_config_new(&cfg) ||
			pmem2_config_set_required_store_granularity(cfg, PMEM2_GRANULARITY_PAGE) ||
			pmem2_config_set_offset(cfg, offset) ||
			pmem2_config_set_length(cfg, size)) {
		rpmafio_errf(err, errlen, "libpmem2 configuration for %s: %s", path, pmem2_errormsg());
		goto out;
	}
	if (pmem2_map_new(&map, cfg, s.src)) {
		rpmafio_errf(err, errlen, "cannot map %s: %s", path, pmem2_errormsg());
		goto out;
	}
	*mem = (struct rpmafio_mem){
		.ptr = pmem2_map_get_address(map),
		.size = size,
		.kind = s.is_chr ? RPMAFIO_MEM_KIND_DEVDAX : RPMAFIO_MEM_KIND_FILE,
		.is_pmem = pmem2_map_get_store_granularity(map) != PMEM2_GRANULARITY_PAGE,
		.map = map,
	};
	ret = 0;
out:
	pmem2_config_delete(&cfg);
	source_close(&s);
	return ret;
}

void rpmafio_mem_unmap(struct rpmafio_mem *mem)
{
	if (mem == NULL || mem->ptr == NULL)
		return;
	if (mem->map)
		pmem2_map_delete(&mem->map);
	else
		free(mem->ptr);
	mem->ptr = NULL;
	mem->size = 0;
}

const char *rpmafio_memlock_hint(int err, char *buf, size_t len)
{
	struct rlimit limit;

	buf[0] = '\0';
	if ((err == ENOMEM || err == EPERM || err == EAGAIN) &&
			getrlimit(RLIMIT_MEMLOCK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
		snprintf(buf, len, "; the locked-memory limit (ulimit -l) is %llu bytes: "
			"raise it (ulimit -l unlimited)",
			(unsigned long long)limit.rlim_cur);
	return buf;
}
