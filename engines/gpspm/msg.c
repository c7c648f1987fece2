/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msg.c -- the GPSPM flush messages (see msg.h), coded by hand: the two
 * messages are fixed64 fields only, so a message is a key byte and 8
 * little-endian bytes a field. protobuf-c's generic unpack took about 640
 * instructions a request on the server (over half of all it did per flush),
 * for what a walk of the fields does in a few dozen; gpspm_flush.proto stays
 * the definition, and the unit tests check these bytes against protobuf-c's.
 */
#include <endian.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"

/* the key of field n of wire type 64-bit (1): (n << 3) | 1, one byte for n < 16 */
#define FIXED64_KEY(n) ((uint8_t)(((n) << 3) | 1))

static void put_u64le(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static uint64_t get_u64le(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/* ---- decoding: a walk over the wire format ---- */

/*
 * The fields a message may carry: all required fixed64, numbered 1..n; field i
 * decodes into the uint64_t at offset dst[i] of its struct (msg.h).
 */
#define MSG_FIELDS_MAX 3
struct msg_spec {
	const char *what;	/* "flush request" */
	const char *const *names; /* names[i] is field i + 1 */
	const size_t *dst;
	unsigned nfields;	/* <= MSG_FIELDS_MAX */
	bool ranged;		/* takes fields GPSPM_FIELD_RANGES(_PACKED) (our extension) */
};

static const char *const req_names[] = {"offset", "length", "op_context"};
static const size_t req_dst[] = {offsetof(struct gpspm_req, offset),
	offsetof(struct gpspm_req, length), offsetof(struct gpspm_req, op_context)};
static const char *const resp_names[] = {"op_context"};
static const size_t resp_dst[] = {offsetof(struct gpspm_resp, op_context)};
static const struct msg_spec req_spec = {"flush request", req_names, req_dst, 3, false};
static const struct msg_spec ranged_spec = {"flush request", req_names, req_dst, 3, true};
static const struct msg_spec resp_spec = {"flush response", resp_names, resp_dst, 1, false};

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

/* the ranges' keys: field 15 (one byte) and 16 (two), length-delimited (2) */
#define RANGES_KEY ((uint8_t)((GPSPM_FIELD_RANGES << 3) | 2))
#define PACKED_KEY ((GPSPM_FIELD_RANGES_PACKED << 3) | 2)

/* field 15's body of size bytes at *pos: whole 16-byte ranges */
static enum gpspm_msg_status read_fixed(const struct msg_spec *sp, const uint8_t *b,
		size_t *pos, size_t at, uint64_t size, struct gpspm_ranges *rg, char *why,
		size_t whylen)
{
	if (size == 0 || size % GPSPM_RANGE_SIZE || size / GPSPM_RANGE_SIZE > GPSPM_RANGES_MAX)
		return say(GPSPM_MSG_MALFORMED, why, whylen, "%s: field %d (ranges) at byte %zu "
			"holds %llu bytes, not 1-%d ranges of %d", sp->what, GPSPM_FIELD_RANGES, at,
			(unsigned long long)size, GPSPM_RANGES_MAX, GPSPM_RANGE_SIZE);
	rg->n = (uint32_t)(size / GPSPM_RANGE_SIZE);
	for (uint32_t i = 0; i < rg->n; i++, *pos += GPSPM_RANGE_SIZE) {
		rg->r[i].offset = get_u64le(b + *pos);
		rg->r[i].length = get_u64le(b + *pos + 8);
	}
	return GPSPM_MSG_OK;
}

/*
 * field 16's body of size bytes at *pos: pairs of varints (gap, length) filling
 * it exactly; a gap that would wrap the offset around is refused here, the rest
 * by ranges_consistent()
 */
static enum gpspm_msg_status read_packed(const struct msg_spec *sp, const uint8_t *b,
		size_t *pos, size_t at, uint64_t size, struct gpspm_ranges *rg, char *why,
		size_t whylen)
{
	const size_t end = *pos + size;
	uint64_t prev_end = 0, gap, length;
	uint32_t n = 0;

	if (size == 0)
		return say(GPSPM_MSG_MALFORMED, why, whylen, "%s: field %d (packed ranges) at "
			"byte %zu is empty", sp->what, GPSPM_FIELD_RANGES_PACKED, at);
	while (*pos < end) {
		if (n == GPSPM_RANGES_PACKED_MAX)
			return say(GPSPM_MSG_MALFORMED, why, whylen, "%s: field %d (packed ranges) "
				"at byte %zu holds more than %d ranges", sp->what,
				GPSPM_FIELD_RANGES_PACKED, at, GPSPM_RANGES_PACKED_MAX);
		if (read_varint(b, end, pos, &gap) || read_varint(b, end, pos, &length))
			return say(GPSPM_MSG_MALFORMED, why, whylen, "%s: range %u of field %d "
				"(packed ranges) at byte %zu is cut off at the field's end or a "
				"varint is too long", sp->what, n, GPSPM_FIELD_RANGES_PACKED, at);
		if (gap > UINT64_MAX - prev_end)
			return say(GPSPM_MSG_MALFORMED, why, whylen, "%s: range %u of field %d "
				"(packed ranges) at byte %zu: its gap %llu wraps the offset around",
				sp->what, n, GPSPM_FIELD_RANGES_PACKED, at, (unsigned long long)gap);
		rg->r[n].offset = prev_end + gap;
		rg->r[n].length = length;
		/* (a wrapping length: ranges_consistent refuses it; the sum is only kept) */
		prev_end = rg->r[n].offset + length;
		n++;
	}
	rg->n = n;
	return GPSPM_MSG_OK;
}

/*
 * Field 15 or 16 at byte `at` (its key read, *pos after it): the ranges into rg,
 * or why not. Only their encoding here; what they say: ranges_consistent().
 */
static enum gpspm_msg_status read_ranges(const struct msg_spec *sp, const uint8_t *b,
		size_t len, size_t *pos, size_t at, uint64_t number, unsigned wt,
		struct gpspm_ranges *rg, char *why, size_t whylen)
{
	const int field = (int)number;
	uint64_t size;

	if (wt != 2)
		return say(GPSPM_MSG_MALFORMED, why, whylen, "%s: field %d (ranges) at byte %zu has "
			"wire type %s, expected length-delimited", sp->what, field, at,
			wire_type_str(wt));
	if (rg->n)
		return say(GPSPM_MSG_MALFORMED, why, whylen, "%s: ranges come twice (field %d "
			"again at byte %zu)", sp->what, field, at);
	if (read_varint(b, len, pos, &size))
		return say(GPSPM_MSG_MALFORMED, why, whylen, "%s of %zu bytes is truncated: the "
			"size of field %d (ranges) at byte %zu is cut off or too long", sp->what,
			len, field, at);
	if (size > len - *pos)
		return say(GPSPM_MSG_MALFORMED, why, whylen, "%s of %zu bytes is truncated: field "
			"%d (ranges) at byte %zu announces %llu bytes, %zu left", sp->what, len,
			field, at, (unsigned long long)size, len - *pos);
	return field == GPSPM_FIELD_RANGES ?
		read_fixed(sp, b, pos, at, size, rg, why, whylen) :
		read_packed(sp, b, pos, at, size, rg, why, whylen);
}

/*
 * Walk a message's fields as protobuf reads them (in any order; a repeated
 * field: the last one wins) into vals[], or say why it is not acceptable: the
 * first problem found. Field keys are varints (a valid key may be padded to
 * 10 bytes); only the message's own field numbers, each as fixed64, may come.
 */
static enum gpspm_msg_status walk(const struct msg_spec *sp, const uint8_t *b, size_t len,
		uint64_t *vals, struct gpspm_ranges *rg, char *why, size_t whylen)
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
		if ((number == GPSPM_FIELD_RANGES || number == GPSPM_FIELD_RANGES_PACKED) &&
				sp->ranged) {
			enum gpspm_msg_status st = read_ranges(sp, b, len, &pos, at, number, wt,
				rg, why, whylen);
			if (st != GPSPM_MSG_OK)
				return st;
			continue;
		}
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
		vals[number - 1] = get_u64le(b + pos);
		pos += skip;
		seen |= 1u << (number - 1);
	}
	for (unsigned i = 0; i < sp->nfields; i++)
		if (!(seen & (1u << i)))
			return say(GPSPM_MSG_MISSING, why, whylen, "%s: required field %u (%s) is "
				"missing", sp->what, i + 1, sp->names[i]);
	return GPSPM_MSG_OK;
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
	if (req == NULL || buf == NULL || len == NULL || cap < GPSPM_REQ_SIZE)
		return -1;
	uint8_t *p = buf;
	p[0] = FIXED64_KEY(1);
	put_u64le(p + 1, req->offset);
	p[9] = FIXED64_KEY(2);
	put_u64le(p + 10, req->length);
	p[18] = FIXED64_KEY(3);
	put_u64le(p + 19, req->op_context);
	*len = GPSPM_REQ_SIZE;
	return 0;
}

/* v as a varint at p: its size in bytes (1..10) */
static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	for (; v >= 0x80; v >>= 7)
		p[n++] = (uint8_t)(v | 0x80);
	p[n++] = (uint8_t)v;
	return n;
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;
	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

/* the bytes of field 16's body: the (gap, length) varints of every range */
static size_t packed_size(const struct gpspm_ranges *rg)
{
	uint64_t prev_end = 0;
	size_t size = 0;

	for (uint32_t i = 0; i < rg->n; i++) {
		size += varint_size(rg->r[i].offset - prev_end) + varint_size(rg->r[i].length);
		prev_end = rg->r[i].offset + rg->r[i].length;
	}
	return size;
}

/* field 16's body at p (packed_size bytes) */
static void put_packed(uint8_t *p, const struct gpspm_ranges *rg)
{
	uint64_t prev_end = 0;

	for (uint32_t i = 0; i < rg->n; i++) {
		p += put_varint(p, rg->r[i].offset - prev_end);
		p += put_varint(p, rg->r[i].length);
		prev_end = rg->r[i].offset + rg->r[i].length;
	}
}

uint32_t gpspm_ranges_packed_max(uint64_t limit)
{
	uint32_t n = (uint32_t)(GPSPM_PACKED_ROOM / (2 * varint_size(limit)));
	return n < GPSPM_RANGES_PACKED_MAX ? n : GPSPM_RANGES_PACKED_MAX;
}

int gpspm_req_encode_ranged(const struct gpspm_req *req, const struct gpspm_ranges *rg,
		enum gpspm_ranges_form form, void *buf, size_t cap, size_t *len)
{
	size_t size;

	if (rg == NULL || rg->n == 0)
		return gpspm_req_encode(req, buf, cap, len);
	if (form == GPSPM_RANGES_PACKED)
		size = rg->n <= GPSPM_RANGES_PACKED_MAX ? packed_size(rg) : 0;
	else
		size = rg->n <= GPSPM_RANGES_MAX ? (size_t)rg->n * GPSPM_RANGE_SIZE : 0;
	const size_t key = form == GPSPM_RANGES_PACKED ? 2 : 1;
	if (size == 0 || cap < GPSPM_REQ_SIZE + key + varint_size(size) + size ||
			gpspm_req_encode(req, buf, cap, len))
		return -1;
	uint8_t *p = (uint8_t *)buf + GPSPM_REQ_SIZE;
	if (form == GPSPM_RANGES_PACKED) {
		p += put_varint(p, PACKED_KEY);
		p += put_varint(p, size);
		put_packed(p, rg);
		p += size;
	} else {
		*p++ = RANGES_KEY;
		p += put_varint(p, size);
		for (uint32_t i = 0; i < rg->n; i++, p += GPSPM_RANGE_SIZE) {
			put_u64le(p, rg->r[i].offset);
			put_u64le(p + 8, rg->r[i].length);
		}
	}
	*len = (size_t)(p - (uint8_t *)buf);
	return 0;
}

int gpspm_resp_encode(const struct gpspm_resp *resp, void *buf, size_t cap, size_t *len)
{
	if (resp == NULL || buf == NULL || len == NULL || cap < GPSPM_RESP_SIZE)
		return -1;
	uint8_t *p = buf;
	p[0] = FIXED64_KEY(1);
	put_u64le(p + 1, resp->op_context);
	*len = GPSPM_RESP_SIZE;
	return 0;
}

/*
 * The message as our encoders and the peer's write it: every field once, in
 * order, one-byte keys. What the walk would read from it, read straight.
 */
static bool canonical(const struct msg_spec *spec, const uint8_t *b, size_t len, uint64_t *vals)
{
	if (len != 9 * (size_t)spec->nfields)
		return false;
	for (unsigned i = 0; i < spec->nfields; i++)
		if (b[9 * i] != FIXED64_KEY(i + 1))
			return false;
	for (unsigned i = 0; i < spec->nfields; i++)
		vals[i] = get_u64le(b + 9 * i + 1);
	return true;
}

/*
 * What ranges must say (msg.h): each non-empty, not wrapping around, above the
 * previous one's end, their span the request's offset/length -- so that the
 * server never persists a byte twice and its count cannot overflow.
 */
static enum gpspm_msg_status ranges_consistent(const uint64_t *vals,
		const struct gpspm_ranges *rg, char *why, size_t whylen)
{
	uint64_t end = 0;

	for (uint32_t i = 0; i < rg->n; i++) {
		const struct gpspm_range *r = &rg->r[i];
		if (r->length == 0 || r->length > UINT64_MAX - r->offset ||
				(i > 0 && r->offset <= end))
			return say(GPSPM_MSG_MALFORMED, why, whylen, "flush request: range %u "
				"(offset %llu length %llu) is empty, wraps around or is not above the "
				"previous one's end", i, (unsigned long long)r->offset,
				(unsigned long long)r->length);
		end = r->offset + r->length;
	}
	if (vals[0] != rg->r[0].offset || vals[1] != end - rg->r[0].offset)
		return say(GPSPM_MSG_MALFORMED, why, whylen, "flush request: offset %llu length "
			"%llu is not the span of its ranges [%llu, %llu)", (unsigned long long)vals[0],
			(unsigned long long)vals[1], (unsigned long long)rg->r[0].offset,
			(unsigned long long)end);
	return GPSPM_MSG_OK;
}

/*
 * A message of spec's kind into its struct at out (NULL: only checked), its
 * ranges into rg (ranged spec only); outputs only on success.
 */
static enum gpspm_msg_status decode(const struct msg_spec *spec, const void *buf, size_t len,
		void *out, struct gpspm_ranges *rg, char *why, size_t whylen)
{
	/* (every field is written before GPSPM_MSG_OK; zeros for the analyzer's sake) */
	uint64_t vals[MSG_FIELDS_MAX] = {0};
	struct gpspm_ranges got;
	enum gpspm_msg_status st = check_size(spec, buf, len, why, whylen);

	got.n = 0;
	if (st == GPSPM_MSG_OK && !canonical(spec, buf, len, vals))
		st = walk(spec, buf, len, vals, &got, why, whylen);
	if (st == GPSPM_MSG_OK && got.n)
		st = ranges_consistent(vals, &got, why, whylen);
	for (unsigned i = 0; st == GPSPM_MSG_OK && out && i < spec->nfields; i++)
		*(uint64_t *)((char *)out + spec->dst[i]) = vals[i];
	if (st == GPSPM_MSG_OK && rg) {
		rg->n = got.n;
		for (uint32_t i = 0; i < got.n; i++)
			rg->r[i] = got.r[i];
	}
	return st;
}

enum gpspm_msg_status gpspm_req_decode(const void *buf, size_t len, struct gpspm_req *req,
		char *why, size_t whylen)
{
	return decode(&req_spec, buf, len, req, NULL, why, whylen);
}

enum gpspm_msg_status gpspm_req_decode_ranged(const void *buf, size_t len,
		struct gpspm_req *req, struct gpspm_ranges *rg, char *why, size_t whylen)
{
	return decode(&ranged_spec, buf, len, req, rg, why, whylen);
}

enum gpspm_msg_status gpspm_resp_decode(const void *buf, size_t len, struct gpspm_resp *resp,
		char *why, size_t whylen)
{
	return decode(&resp_spec, buf, len, resp, NULL, why, whylen);
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

/* is [offset, offset + len) in the workspace? If not, why says so */
static bool in_workspace(uint64_t offset, uint64_t len, uint64_t ws_size, char *why,
		size_t whylen)
{
	if (gpspm_range_ok(offset, len, ws_size))
		return true;
	if (why && whylen)
		snprintf(why, whylen, "offset %llu length %llu is outside the %llu-byte workspace",
			(unsigned long long)offset, (unsigned long long)len,
			(unsigned long long)ws_size);
	return false;
}

enum gpspm_req_kind gpspm_req_check(const void *buf, size_t len, uint64_t ws_size,
		struct gpspm_req *req, struct gpspm_ranges *rg, char *why, size_t whylen)
{
	struct gpspm_req r = {0};

	if ((rg ? gpspm_req_decode_ranged(buf, len, &r, rg, why, whylen) :
			gpspm_req_decode(buf, len, &r, why, whylen)) != GPSPM_MSG_OK)
		return GPSPM_REQ_MALFORMED;
	if (!gpspm_req_is_last(&r) && !in_workspace(r.offset, r.length, ws_size, why, whylen))
		return GPSPM_REQ_OUT_OF_RANGE;
	/* (inside the span, so inside the workspace too: checked each all the same) */
	for (uint32_t i = 0; rg && i < rg->n; i++)
		if (!in_workspace(rg->r[i].offset, rg->r[i].length, ws_size, why, whylen))
			return GPSPM_REQ_OUT_OF_RANGE;
	*req = r;
	return gpspm_req_is_last(&r) ? GPSPM_REQ_LAST : GPSPM_REQ_FLUSH;
}
