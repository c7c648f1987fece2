/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msg.h -- the GPSPM flush messages (gpspm_flush.proto): encoding,
 * decoding and the server's range check. Pure functions: no fio, no RDMA, no
 * allocation (the messages are coded by hand: msg.c).
 *
 * The bytes are those of fio 3.33's librpma_gpspm engines:
 *
 *   request, 27 bytes:  09 <offset u64 LE> 11 <length u64 LE> 19 <op_context u64 LE>
 *   response, 9 bytes:  09 <op_context u64 LE>
 *
 * and a request with offset 0 and length 0 is the client's last message ("I
 * am done"), answered by nobody. Either side posts receive buffers of
 * GPSPM_MSG_MAX bytes, so no message may be longer.
 *
 * An extension of ours (gpspm_flush.proto, field 15), only between our own
 * client and a server of ours that announced it takes it (the workspace's
 * flags, common/workspace.h): a request may carry the batch's written ranges,
 * packed, after the three fields above:
 *
 *   7a <size varint> (<offset u64 LE> <length u64 LE>) x n,  n = 1..GPSPM_RANGES_MAX
 *
 * and, where the server announced that too, the same ranges packed denser
 * (field 16, key 82 01), each a pair of varints: the gap from the previous
 * range's end (the first range: its offset) and the length:
 *
 *   82 01 <size varint> (<gap varint> <length varint>) x n,  n = 1..GPSPM_RANGES_PACKED_MAX
 *
 * -- 6 to 8 bytes a range for 4 KiB writes in a region below 1 TiB, against
 * field 15's 16, so that a batch of depth 32 or 64 needs no merging.
 * The ranges are ascending, non-empty and apart (the client merged those that
 * touch), and offset/length still name their span, from the first range's
 * offset to the last one's end. The server persists the ranges, not the span.
 * A request carries field 15 or field 16, never both.
 * fio 3.33's peer never sees one: our client sends it to no server that did
 * not announce it, and the peer's client sends none.
 *
 * Decoders take input from the network: anything but a well-formed message
 * of exactly the expected fields -- empty, longer than GPSPM_MSG_MAX,
 * truncated, a field of the wrong wire type, a required field missing, an
 * unknown field -- is rejected with a one-line reason (naming the field and
 * the byte where the problem is). The output is written only on success.
 */
#ifndef RPMAFIO_GPSPM_MSG_H
#define RPMAFIO_GPSPM_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the size of every receive buffer, on both sides: the longest valid message */
#define GPSPM_MSG_MAX 512
/* what the encoders produce (fixed64 fields: fixed sizes) */
#define GPSPM_REQ_SIZE 27
#define GPSPM_RESP_SIZE 9
/* the ranges field: its key, and how many ranges fit a receive buffer with the rest */
#define GPSPM_FIELD_RANGES 15
#define GPSPM_RANGE_SIZE 16
#define GPSPM_RANGES_MAX 30
/* key byte, a 2-byte size varint, the ranges */
#define GPSPM_REQ_RANGED_MAX (GPSPM_REQ_SIZE + 3 + GPSPM_RANGE_SIZE * GPSPM_RANGES_MAX)
_Static_assert(GPSPM_REQ_RANGED_MAX <= GPSPM_MSG_MAX, "a ranged request fits a receive buffer");
/* the packed ranges: field 16, at most this many (what fits depends on the values) */
#define GPSPM_FIELD_RANGES_PACKED 16
#define GPSPM_RANGES_PACKED_MAX 64
/* room for the packed ranges in a request: the buffer less the fields, a 2-byte key, a 2-byte size */
#define GPSPM_PACKED_ROOM (GPSPM_MSG_MAX - GPSPM_REQ_SIZE - 4)

struct gpspm_req {
	uint64_t offset;	/* into the server's workspace */
	uint64_t length;
	uint64_t op_context;	/* the client's tag, echoed in the response */
};

/* a ranged request's ranges (n == 0: a plain request, persist its span) */
struct gpspm_range {
	uint64_t offset;
	uint64_t length;
};

struct gpspm_ranges {
	uint32_t n;
	struct gpspm_range r[GPSPM_RANGES_PACKED_MAX];
};

/* how a request carries its ranges */
enum gpspm_ranges_form {
	GPSPM_RANGES_FIXED,	/* field 15: 16 bytes a range, at most GPSPM_RANGES_MAX */
	GPSPM_RANGES_PACKED,	/* field 16: varints, at most GPSPM_RANGES_PACKED_MAX */
};

struct gpspm_resp {
	uint64_t op_context;
};

/* the result of a decoder */
enum gpspm_msg_status {
	GPSPM_MSG_OK = 0,
	GPSPM_MSG_EMPTY,	/* no bytes at all */
	GPSPM_MSG_TOO_LONG,	/* more than GPSPM_MSG_MAX bytes */
	GPSPM_MSG_MALFORMED,	/* not a valid encoding: truncated, bad key or wire type... */
	GPSPM_MSG_MISSING,	/* a required field is absent */
	GPSPM_MSG_UNKNOWN,	/* a field the message does not have */
};

/*
 * Encode into buf (cap bytes). Return 0 and the encoded size in *len, or -1
 * when an argument is NULL or cap is too small (nothing written then).
 */
int gpspm_req_encode(const struct gpspm_req *req, void *buf, size_t cap, size_t *len);
int gpspm_resp_encode(const struct gpspm_resp *resp, void *buf, size_t cap, size_t *len);

/*
 * A request with its ranges in the given form (rg NULL or rg->n == 0: the
 * plain request). The caller gives ranges as msg.h describes them (req's
 * offset/length their span); -1 also when rg->n is above the form's maximum or
 * the packed ranges do not fit cap (gpspm_ranges_packed_max tells how many always do).
 */
int gpspm_req_encode_ranged(const struct gpspm_req *req, const struct gpspm_ranges *rg,
		enum gpspm_ranges_form form, void *buf, size_t cap, size_t *len);

/*
 * How many packed ranges (field 16) a request of GPSPM_MSG_MAX bytes holds
 * whatever they are, when no offset or length exceeds limit (the server's
 * memory size): up to GPSPM_RANGES_PACKED_MAX.
 */
uint32_t gpspm_ranges_packed_max(uint64_t limit);

/*
 * Decode len bytes received from the peer. Return GPSPM_MSG_OK and fill the
 * output, or another status with the reason in why (whylen bytes, may be
 * NULL/0) and the output untouched.
 */
enum gpspm_msg_status gpspm_req_decode(const void *buf, size_t len, struct gpspm_req *req,
		char *why, size_t whylen);
enum gpspm_msg_status gpspm_resp_decode(const void *buf, size_t len, struct gpspm_resp *resp,
		char *why, size_t whylen);

/*
 * A request that may carry ranges (a server of ours): gpspm_req_decode plus
 * field 15 or field 16, one of them at most once, length-delimited, 1 to
 * GPSPM_RANGES_MAX whole ranges (field 15) or 1 to GPSPM_RANGES_PACKED_MAX
 * pairs of varints filling it exactly (field 16), each range non-empty, not
 * wrapping around, above the previous one's end, their span equal to
 * offset/length (GPSPM_MSG_MALFORMED otherwise). rg->n is 0 for a plain
 * request. Outputs only on success.
 */
enum gpspm_msg_status gpspm_req_decode_ranged(const void *buf, size_t len,
		struct gpspm_req *req, struct gpspm_ranges *rg, char *why, size_t whylen);

/* the client's last message: offset 0 and length 0 (its op_context is not looked at) */
static inline bool gpspm_req_is_last(const struct gpspm_req *req)
{
	return req->offset == 0 && req->length == 0;
}

static inline struct gpspm_req gpspm_req_last(void)
{
	return (struct gpspm_req){0, 0, 0};
}

/*
 * Does [offset, offset + len) lie within a workspace of ws_size bytes? Written
 * so that no sum can wrap around: any offset or length from the network is safe
 * to pass. An empty range is fine anywhere up to the end (offset == ws_size).
 */
static inline bool gpspm_range_ok(uint64_t offset, uint64_t len, uint64_t ws_size)
{
	return offset <= ws_size && len <= ws_size - offset;
}

/* what a request from the client asks of the server */
enum gpspm_req_kind {
	GPSPM_REQ_FLUSH,	/* persist [offset, offset + length) and answer */
	GPSPM_REQ_LAST,		/* the client is done: no answer */
	GPSPM_REQ_MALFORMED,	/* not a valid request (decoder's reason in why) */
	GPSPM_REQ_OUT_OF_RANGE,	/* a range outside the workspace (why says which) */
};

/*
 * The server's whole judgement of len received bytes against a workspace of
 * ws_size bytes: decode, tell the last message, check the range -- and with
 * rg (a server that takes ranged requests), every range. *req (and *rg) are
 * filled for GPSPM_REQ_FLUSH and GPSPM_REQ_LAST (*rg whenever the request
 * decodes). rg NULL: field 15 is an unknown field, as to fio 3.33's server.
 */
enum gpspm_req_kind gpspm_req_check(const void *buf, size_t len, uint64_t ws_size,
		struct gpspm_req *req, struct gpspm_ranges *rg, char *why, size_t whylen);

/* the bytes a checked request asks to persist: its ranges', or its span's */
static inline uint64_t gpspm_req_bytes(const struct gpspm_req *req, const struct gpspm_ranges *rg)
{
	uint64_t sum = 0;
	if (rg == NULL || rg->n == 0)
		return req->length;
	for (uint32_t i = 0; i < rg->n; i++)
		sum += rg->r[i].length;
	return sum;
}

/* "ok", "empty message", ... */
const char *gpspm_msg_status_str(enum gpspm_msg_status st);

#endif /* RPMAFIO_GPSPM_MSG_H */
