/* SPDX-License-Identifier: BSD-3-Clause */
/* msg.c -- the GPSPM flush messages on top of protoc-c's code (see msg.h) */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpspm_flush.pb-c.h"
#include "msg.h"

/*
 * protobuf-c allocates the decoded message (and copies of unknown fields)
 * through an allocator it is given: this one hands out pieces of a buffer on
 * the decoder's stack and frees nothing, so decoding never calls malloc.
 * A message needs well under 100 bytes; when a hostile one carries so many
 * unknown fields that the arena runs out, protobuf-c fails and the message
 * is rejected like any other bad one. Nothing is freed either: the arena goes
 * with the decoder's frame, and protobuf-c's free would walk the message only
 * to call arena_free(). Only `used` is set: zeroing the whole arena cost more
 * than the rest of a request's decoding (it is on every message's path).
 */
#define ARENA_SIZE 1024

struct arena {
	size_t used;
	_Alignas(16) unsigned char mem[ARENA_SIZE];
};

static void *arena_alloc(void *data, size_t size)
{
	struct arena *a = data;
	size_t need = (size + 15) & ~(size_t)15;
	if (need < size || need > ARENA_SIZE - a->used)
		return NULL;
	void *p = a->mem + a->used;
	a->used += need;
	return p;
}

static void arena_free(void *data, void *ptr)
{
	(void)data;
	(void)ptr;
}

/* ---- explaining a rejection: a walk over the wire format ---- */

/* the fields a message may carry: all required fixed64, numbered 1..n */
struct msg_spec {
	const char *what;	/* "flush request" */
	const char *const *names; /* names[i] is field i + 1 */
	unsigned nfields;
	const ProtobufCMessageDescriptor *desc;
};

static const char *const req_names[] = {"offset", "length", "op_context"};
static const char *const resp_names[] = {"op_context"};
static const struct msg_spec req_spec = {"flush request", req_names, 3, &gpspm_req__descriptor};
static const struct msg_spec resp_spec = {"flush response", resp_names, 1,
	&gpspm_resp__descriptor};

static enum gpspm_msg_status say(enum gpspm_msg_status st, char *why, size_t whylen,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static enum gpspm_msg_status say(enum gpspm_msg_status st, char *why, size_t whylen,
		const char *fmt, ...)
{
	if (why && whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return st;
}

/* a base-128 varint at *pos: 0, -1 when cut off, -2 when longer than 10 bytes */
static int read_varint(const uint8_t *b, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t val = 0;
	for (unsigned i = 0; i < 10; i++) {
		if (*pos >= len)
			return -1;
		uint8_t byte = b[(*pos)++];
		val |= (uint64_t)(byte & 0x7f) << (7 * i);
		if (!(byte & 0x80)) {
			*v = val;
			return 0;
		}
	}
	return -2;
}

static const char *wire_type_str(unsigned wt)
{
	static const char *const names[8] = {"varint", "64-bit", "length-delimited",
		"group start", "group end", "32-bit", "invalid (6)", "invalid (7)"};
	return names[wt & 7];
}

/*
 * Say why a message is not acceptable: the first problem found walking its
 * fields. Used only once protobuf-c has refused it (or kept unknown fields).
 */
static enum gpspm_msg_status explain(const struct msg_spec *sp, const uint8_t *b, size_t len,
		char *why, size_t whylen)
{
	uint32_t seen = 0;
	size_t pos = 0;

	while (pos < len) {
		size_t at = pos;
		uint64_t key, skip;
		int r = read_varint(b, len, &pos, &key);
		if (r == -1)
			return say(GPSPM_MSG_MALFORMED, why, whylen, "%s of %zu bytes is truncated: "
				"the field key at byte %zu is cut off", sp->what, len, at);
		if (r == -2)
			return say(GPSPM_MSG_MALFORMED, why, whylen, "%s: the field key at byte %zu is "
				"longer than 10 bytes", sp->what, at);
		uint64_t number = key >> 3;
		unsigned wt = (unsigned)(key & 7);
		if (number == 0 || number > 0x1fffffff)
			return say(GPSPM_MSG_MALFORMED, why, whylen, "%s: invalid field number %llu at "
				"byte %zu", sp->what, (unsigned long long)number, at);
		if (number > sp->nfields)
			return say(GPSPM_MSG_UNKNOWN, why, whylen, "%s: unknown field %llu (wire type "
				"%s) at byte %zu", sp->what, (unsigned long long)number,
				wire_type_str(wt), at);
		const char *name = sp->names[number - 1];
		if (wt != 1)
			return say(GPSPM_MSG_MALFORMED, why, whylen, "%s: field %llu (%s) at byte %zu "
				"has wire type %s, expected 64-bit (fixed64)", sp->what,
				(unsigned long long)number, name, at, wire_type_str(wt));
		skip = 8;
		if (len - pos < skip)
			return say(GPSPM_MSG_MALFORMED, why, whylen, "%s of %zu bytes is truncated: "
				"field %llu (%s) at byte %zu needs 8 bytes, %zu left", sp->what, len,
				(unsigned long long)number, name, at, len - pos);
		pos += skip;
		seen |= 1u << (number - 1);
	}
	for (unsigned i = 0; i < sp->nfields; i++)
		if (!(seen & (1u << i)))
			return say(GPSPM_MSG_MISSING, why, whylen, "%s: required field %u (%s) is "
				"missing", sp->what, i + 1, sp->names[i]);
	return say(GPSPM_MSG_MALFORMED, why, whylen, "%s of %zu bytes: the protobuf decoder "
		"rejected it", sp->what, len);
}

/* size checks common to both decoders */
static enum gpspm_msg_status check_size(const struct msg_spec *sp, const void *buf, size_t len,
		char *why, size_t whylen)
{
	if (buf == NULL || len == 0)
		return say(GPSPM_MSG_EMPTY, why, whylen, "empty %s (0 bytes)", sp->what);
	if (len > GPSPM_MSG_MAX)
		return say(GPSPM_MSG_TOO_LONG, why, whylen, "%s of %zu bytes: longer than the "
			"%d-byte maximum", sp->what, len, GPSPM_MSG_MAX);
	return GPSPM_MSG_OK;
}

/* ---- the API ---- */

int gpspm_req_encode(const struct gpspm_req *req, void *buf, size_t cap, size_t *len)
{
	GpspmReq m = GPSPM_REQ__INIT;

	if (req == NULL || buf == NULL || len == NULL)
		return -1;
	m.offset = req->offset;
	m.length = req->length;
	m.op_context = req->op_context;
	size_t need = gpspm_req__get_packed_size(&m);
	if (need > cap)
		return -1;
	*len = gpspm_req__pack(&m, buf);
	return 0;
}

int gpspm_resp_encode(const struct gpspm_resp *resp, void *buf, size_t cap, size_t *len)
{
	GpspmResp m = GPSPM_RESP__INIT;

	if (resp == NULL || buf == NULL || len == NULL)
		return -1;
	m.op_context = resp->op_context;
	size_t need = gpspm_resp__get_packed_size(&m);
	if (need > cap)
		return -1;
	*len = gpspm_resp__pack(&m, buf);
	return 0;
}

/*
 * Unpack a message of spec's kind into the caller's arena: the message with *st
 * GPSPM_MSG_OK, or NULL, with *st and the reason in why, for anything but exactly
 * the expected fields.
 */
static ProtobufCMessage *unpack(const struct msg_spec *spec, const void *buf, size_t len,
		struct arena *a, enum gpspm_msg_status *st, char *why, size_t whylen)
{
	ProtobufCAllocator alloc = {arena_alloc, arena_free, a};

	a->used = 0;
	*st = check_size(spec, buf, len, why, whylen);
	if (*st != GPSPM_MSG_OK)
		return NULL;
	ProtobufCMessage *m = protobuf_c_message_unpack(spec->desc, &alloc, len, buf);
	if (m && m->n_unknown_fields == 0)
		return m;
	*st = explain(spec, buf, len, why, whylen);
	return NULL;
}

/* every field of a message (all fixed64, numbered 1..nfields) into field[] */
static enum gpspm_msg_status decode(const struct msg_spec *spec, const void *buf, size_t len,
		uint64_t *field, char *why, size_t whylen)
{
	struct arena a;
	enum gpspm_msg_status st;
	const ProtobufCMessage *m = unpack(spec, buf, len, &a, &st, why, whylen);

	/* never OK without the fields: the callers read field[] on OK (unpack() gives no
	 * message with OK; saying so here lets the analyzer see it too) */
	if (m == NULL)
		return st != GPSPM_MSG_OK ? st : GPSPM_MSG_MALFORMED;
	for (unsigned i = 0; i < spec->nfields; i++)
		field[i] = *(const uint64_t *)((const char *)m + spec->desc->fields[i].offset);
	return st;
}

enum gpspm_msg_status gpspm_req_decode(const void *buf, size_t len, struct gpspm_req *req,
		char *why, size_t whylen)
{
	uint64_t f[3];
	enum gpspm_msg_status st = decode(&req_spec, buf, len, f, why, whylen);
	if (st == GPSPM_MSG_OK && req)
		*req = (struct gpspm_req){.offset = f[0], .length = f[1], .op_context = f[2]};
	return st;
}

enum gpspm_msg_status gpspm_resp_decode(const void *buf, size_t len, struct gpspm_resp *resp,
		char *why, size_t whylen)
{
	uint64_t f[1];
	enum gpspm_msg_status st = decode(&resp_spec, buf, len, f, why, whylen);
	if (st == GPSPM_MSG_OK && resp)
		resp->op_context = f[0];
	return st;
}

const char *gpspm_msg_status_str(enum gpspm_msg_status st)
{
	switch (st) {
	case GPSPM_MSG_OK: return "ok";
	case GPSPM_MSG_EMPTY: return "empty message";
	case GPSPM_MSG_TOO_LONG: return "message too long";
	case GPSPM_MSG_MALFORMED: return "malformed message";
	case GPSPM_MSG_MISSING: return "required field missing";
	case GPSPM_MSG_UNKNOWN: return "unknown field";
	}
	return "?";
}

enum gpspm_req_kind gpspm_req_check(const void *buf, size_t len, uint64_t ws_size,
		struct gpspm_req *req, char *why, size_t whylen)
{
	struct gpspm_req r = {0};
	if (gpspm_req_decode(buf, len, &r, why, whylen) != GPSPM_MSG_OK)
		return GPSPM_REQ_MALFORMED;
	if (!gpspm_req_is_last(&r) && !gpspm_range_ok(r.offset, r.length, ws_size)) {
		if (why && whylen)
			snprintf(why, whylen, "offset %llu length %llu is outside the %llu-byte "
				"workspace", (unsigned long long)r.offset,
				(unsigned long long)r.length, (unsigned long long)ws_size);
		return GPSPM_REQ_OUT_OF_RANGE;
	}
	*req = r;
	return gpspm_req_is_last(&r) ? GPSPM_REQ_LAST : GPSPM_REQ_FLUSH;
}
