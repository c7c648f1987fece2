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

struct gpspm_req {
	uint64_t offset;	/* into the server's workspace */
	uint64_t length;
	uint64_t op_context;	/* the client's tag, echoed in the response */
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
 * Decode len bytes received from the peer. Return GPSPM_MSG_OK and fill the
 * output, or another status with the reason in why (whylen bytes, may be
 * NULL/0) and the output untouched.
 */
enum gpspm_msg_status gpspm_req_decode(const void *buf, size_t len, struct gpspm_req *req,
		char *why, size_t whylen);
enum gpspm_msg_status gpspm_resp_decode(const void *buf, size_t len, struct gpspm_resp *resp,
		char *why, size_t whylen);

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
 * ws_size bytes: decode, tell the last message, check the range. *req is
 * filled for GPSPM_REQ_FLUSH and GPSPM_REQ_LAST.
 */
enum gpspm_req_kind gpspm_req_check(const void *buf, size_t len, uint64_t ws_size,
		struct gpspm_req *req, char *why, size_t whylen);

/* "ok", "empty message", ... */
const char *gpspm_msg_status_str(enum gpspm_msg_status st);

#endif /* RPMAFIO_GPSPM_MSG_H */
