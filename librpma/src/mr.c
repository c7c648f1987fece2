/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.c -- memory regions: local registrations, their 21-byte wire
 * descriptors, the remote regions decoded from them, and advice. The work
 * requests that use them are built and posted in post.c.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mr.h"
#include "peer.h"
#include "provider.h"

struct rpma_mr_local {
	struct ibv_mr *ibv_mr;
	int usage;
	bool flush_native;	/* registered with the flush access a native FLUSH needs */
};

struct rpma_mr_remote {
	uint64_t raddr;
	uint64_t size;
	uint32_t rkey;
	int usage;
	bool flush_native;	/* the application vouched for it: see rpma_mr_remote_set_flush_native() */
};

#define RPMA_MR_USAGE_ALL (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_READ_DST | \
	RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_WRITE_DST | \
	RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT | \
	RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV)

/* Usages under which the local NIC writes into the region. */
#define RPMA_MR_USAGE_LOCALLY_WRITTEN (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_DST | \
	RPMA_MR_USAGE_RECV)

/* Descriptor layout: little-endian, packed, no padding. */
#define DESC_OFF_ADDR 0
#define DESC_OFF_LENGTH 8
#define DESC_OFF_RKEY 16
#define DESC_OFF_USAGE 20

/* ---- registration ---- */

/*
 * The least access a usage needs. Local read is always allowed, so a
 * region that is only a source gets no flag at all and is never remotely
 * writable. The emulated flush is an RDMA read of the flushed region; a
 * device that executes RDMA FLUSH natively checks the flush access of the
 * region instead (a persistent flush may also be asked for visibility only).
 */
static int mr_usage_to_access(const struct rpma_peer *peer, int usage)
{
	int access = 0;

	if (usage & (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY |
			RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
		access |= IBV_ACCESS_REMOTE_READ;
	if (rpma_peer_has_native_flush(peer)) {
		if (usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT))
			access |= RPMA_ACCESS_FLUSH_GLOBAL;
		if (usage & RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)
			access |= RPMA_ACCESS_FLUSH_PERSISTENT;
	}
	if (usage & RPMA_MR_USAGE_LOCALLY_WRITTEN)
		access |= IBV_ACCESS_LOCAL_WRITE;
	if (usage & RPMA_MR_USAGE_WRITE_DST)
		access |= IBV_ACCESS_REMOTE_WRITE; /* verbs require LOCAL_WRITE with it: set above */
	/* iWARP places a read's response as a remote write into the destination */
	if ((usage & RPMA_MR_USAGE_READ_DST) && rpma_peer_is_iwarp(peer))
		access |= IBV_ACCESS_REMOTE_WRITE;

	return access;
}

int rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		struct rpma_mr_local **mr_ptr)
{
	if (peer == NULL || ptr == NULL || mr_ptr == NULL)
		return RPMA_E_INVAL;
	if (size == 0)
		return RPMA_E_INVAL;
	if (usage == 0 || (usage & ~RPMA_MR_USAGE_ALL))
		return RPMA_E_INVAL;

	struct rpma_mr_local *mr = malloc(sizeof(*mr));
	if (mr == NULL)
		return RPMA_E_NOMEM;

	int ret = rpma_peer_mr_reg(peer, &mr->ibv_mr, ptr, size, mr_usage_to_access(peer, usage));
	if (ret) {
		free(mr);
		return ret;
	}

	mr->usage = usage;
	mr->flush_native = rpma_peer_has_native_flush(peer) &&
		(usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT));
	*mr_ptr = mr;
	return 0;
}

int rpma_mr_get_flush_native(const struct rpma_mr_local *mr, bool *native)
{
	if (mr == NULL || native == NULL)
		return RPMA_E_INVAL;
	*native = mr->flush_native;
	return 0;
}

int rpma_mr_dereg(struct rpma_mr_local **mr_ptr)
{
	if (mr_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_mr_local *mr = *mr_ptr;
	if (mr == NULL)
		return 0;

	int ret = ibv_dereg_mr(mr->ibv_mr);
	if (ret) {
		/* the registration is still alive, so the object stays with the caller */
		return RPMA_PROVIDER_FAILED(ret, "ibv_dereg_mr");
	}

	free(mr);
	*mr_ptr = NULL;
	return 0;
}

int rpma_mr_get_ptr(const struct rpma_mr_local *mr, void **ptr)
{
	if (mr == NULL || ptr == NULL)
		return RPMA_E_INVAL;

	*ptr = mr->ibv_mr->addr;
	return 0;
}

int rpma_mr_get_size(const struct rpma_mr_local *mr, size_t *size)
{
	if (mr == NULL || size == NULL)
		return RPMA_E_INVAL;

	*size = mr->ibv_mr->length;
	return 0;
}

struct ibv_sge rpma_mr_get_sge(const struct rpma_mr_local *mr, size_t offset, size_t len)
{
	return (struct ibv_sge){
		.addr = (uint64_t)(uintptr_t)mr->ibv_mr->addr + offset,
		.length = (uint32_t)len,
		.lkey = mr->ibv_mr->lkey,
	};
}

/* ---- descriptors ---- */

/* Byte by byte through memcpy: the buffer may be unaligned and the host big-endian. */
static void put_le64(uint8_t *dst, uint64_t v)
{
	v = htole64(v);
	memcpy(dst, &v, sizeof(v));
}

static void put_le32(uint8_t *dst, uint32_t v)
{
	v = htole32(v);
	memcpy(dst, &v, sizeof(v));
}

static uint64_t get_le64(const uint8_t *src)
{
	uint64_t v;
	memcpy(&v, src, sizeof(v));
	return le64toh(v);
}

static uint32_t get_le32(const uint8_t *src)
{
	uint32_t v;
	memcpy(&v, src, sizeof(v));
	return le32toh(v);
}

int rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc)
{
	if (mr == NULL || desc == NULL)
		return RPMA_E_INVAL;

	uint8_t *buf = desc;
	put_le64(buf + DESC_OFF_ADDR, (uint64_t)(uintptr_t)mr->ibv_mr->addr);
	put_le64(buf + DESC_OFF_LENGTH, (uint64_t)mr->ibv_mr->length);
	put_le32(buf + DESC_OFF_RKEY, mr->ibv_mr->rkey);
	buf[DESC_OFF_USAGE] = (uint8_t)mr->usage;
	return 0;
}

int rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr, size_t *desc_size)
{
	if (mr == NULL || desc_size == NULL)
		return RPMA_E_INVAL;

	*desc_size = RPMA_MR_DESCRIPTOR_SIZE;
	return 0;
}

int rpma_mr_descriptor_decode(const void *desc, size_t desc_size, uint64_t *addr,
		uint64_t *size, uint32_t *rkey, int *usage)
{
	if (desc == NULL || addr == NULL || size == NULL || rkey == NULL || usage == NULL)
		return RPMA_E_INVAL;
	if (desc_size != RPMA_MR_DESCRIPTOR_SIZE)
		return RPMA_E_INVAL;

	const uint8_t *buf = desc;
	uint64_t a = get_le64(buf + DESC_OFF_ADDR);
	uint64_t s = get_le64(buf + DESC_OFF_LENGTH);
	uint8_t u = buf[DESC_OFF_USAGE];

	/* A region nobody may use, or one that wraps the address space, is no region. */
	if (u == 0 || a + s < a)
		return RPMA_E_NOSUPP;

	*addr = a;
	*size = s;
	*rkey = get_le32(buf + DESC_OFF_RKEY);
	*usage = u;
	return 0;
}

int rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size,
		struct rpma_mr_remote **mr_ptr)
{
	if (desc == NULL || mr_ptr == NULL)
		return RPMA_E_INVAL;

	struct rpma_mr_remote decoded;
	int ret = rpma_mr_descriptor_decode(desc, desc_size, &decoded.raddr, &decoded.size,
			&decoded.rkey, &decoded.usage);
	if (ret)
		return ret;

	struct rpma_mr_remote *mr = malloc(sizeof(*mr));
	if (mr == NULL)
		return RPMA_E_NOMEM;

	*mr = decoded;
	mr->flush_native = false; /* nothing on the wire says so: only the application can */
	*mr_ptr = mr;
	return 0;
}

int rpma_mr_remote_get_size(const struct rpma_mr_remote *mr, size_t *size)
{
	if (mr == NULL || size == NULL)
		return RPMA_E_INVAL;

	*size = (size_t)mr->size;
	return 0;
}

int rpma_mr_remote_get_flush_type(const struct rpma_mr_remote *mr, int *flush_type)
{
	if (mr == NULL || flush_type == NULL)
		return RPMA_E_INVAL;

	*flush_type = mr->usage &
		(RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	return 0;
}

int rpma_mr_remote_set_flush_native(struct rpma_mr_remote *mr)
{
	if (mr == NULL)
		return RPMA_E_INVAL;
	/* a region registered for no flush has no flush access to vouch for */
	if (!(mr->usage & (RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT)))
		return RPMA_E_NOSUPP;
	mr->flush_native = true;
	return 0;
}

int rpma_mr_remote_delete(struct rpma_mr_remote **mr_ptr)
{
	if (mr_ptr == NULL)
		return RPMA_E_INVAL;

	free(*mr_ptr);
	*mr_ptr = NULL;
	return 0;
}

uint64_t rpma_mr_remote_get_addr(const struct rpma_mr_remote *mr)
{
	return mr->raddr;
}

uint32_t rpma_mr_remote_get_rkey(const struct rpma_mr_remote *mr)
{
	return mr->rkey;
}

bool rpma_mr_remote_is_flush_native(const struct rpma_mr_remote *mr)
{
	return mr->flush_native;
}

/* ---- advice ---- */

static bool mr_advice_allowed(int advice, int usage)
{
	switch (advice) {
	case IBV_ADVISE_MR_ADVICE_PREFETCH:
	case IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		return true;
	case IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		/* prefetching for write only makes sense where the NIC writes */
		return (usage & RPMA_MR_USAGE_LOCALLY_WRITTEN) != 0;
	default:
		return false;
	}
}

/* ibv_advise_mr(3) returns an errno; rpma_mr_advise(3) names three outcomes. */
static int mr_advise_error(int err)
{
	switch (err) {
	case EOPNOTSUPP:
#if ENOTSUP != EOPNOTSUPP
	case ENOTSUP:
#endif
		return RPMA_E_NOSUPP;
	case EFAULT:
	case EINVAL:
		return RPMA_E_INVAL;
	default:
		return RPMA_E_PROVIDER;
	}
}

int rpma_mr_advise(struct rpma_mr_local *mr, size_t offset, size_t len, int advice,
		uint32_t flags)
{
	if (mr == NULL)
		return RPMA_E_INVAL;
	/* in bounds without overflowing, and expressible in one SGE */
	if (offset > mr->ibv_mr->length || len > mr->ibv_mr->length - offset ||
			len > UINT32_MAX)
		return RPMA_E_INVAL;
	if (!mr_advice_allowed(advice, mr->usage))
		return RPMA_E_INVAL;
	if (flags & ~(uint32_t)IBV_ADVISE_MR_FLAG_FLUSH)
		return RPMA_E_INVAL;

	struct ibv_sge sge = rpma_mr_get_sge(mr, offset, len);
	int ret = ibv_advise_mr(mr->ibv_mr->pd, (enum ibv_advise_mr_advice)advice, flags, &sge, 1);
	if (ret) {
		(void)RPMA_PROVIDER_FAILED(ret, "ibv_advise_mr");
		return mr_advise_error(ret);
	}

	return 0;
}
