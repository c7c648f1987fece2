/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_gpspm_msg_test.h -- the GPSPM message tests' golden bytes and values
 * (engine_gpspm_msg_golden.c) and the untrusted-input tests
 * (engine_gpspm_msg_untrusted_test.c)
 */
#ifndef ENGINE_GPSPM_MSG_TEST_H
#define ENGINE_GPSPM_MSG_TEST_H

#include <stdint.h>

#include "gpspm/msg.h"

/* where a decoder writes why it refused a message */
extern char why[256];
/* a request's golden bytes, and the values they carry */
extern const uint8_t req_golden[GPSPM_REQ_SIZE];
extern const struct gpspm_req req_values;
/* a response's golden bytes (op_context 0xa1a2a3a4a5a6a7a8) */
extern const uint8_t resp_golden[GPSPM_RESP_SIZE];
/* the client's last message: zeros, every field present */
extern const uint8_t last_golden[GPSPM_REQ_SIZE];
/* what a decoder's output holds before a call that must not write it */
extern const struct gpspm_req sentinel;
/* Fail unless *r is still the sentinel: a refused message writes nothing. */
void assert_untouched(const struct gpspm_req *r);

/* engine_gpspm_msg_untrusted_test.c */
void decode_empty(void **state);
void decode_too_long(void **state);
void req_truncated_everywhere(void **state);
void resp_truncated_everywhere(void **state);
void req_missing_fields(void **state);
void req_wrong_wire_type(void **state);
void req_unknown_fields(void **state);
void req_many_unknown_fields(void **state);
void req_bad_keys(void **state);
void garbage_never_decodes_wrongly(void **state);
void encoders_agree_with_protobuf_c(void **state);
void decoder_agrees_with_protobuf_c(void **state);
void every_mutation(void **state);

#endif /* ENGINE_GPSPM_MSG_TEST_H */
