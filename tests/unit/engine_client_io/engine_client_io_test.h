/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_client_io_test.h -- the client I/O tests' fixture (the stand-ins and
 * the client under test: engine_client_io_fixture.c) and the failure tests
 * (engine_client_io_failures_test.c)
 */
#ifndef ENGINE_CLIENT_IO_TEST_H
#define ENGINE_CLIENT_IO_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/io.h"

#define DEPTH 4
#define TIMEOUT_MS 1000
#define MAX_OPS 64

enum op_kind { OP_READ, OP_WRITE, OP_FLUSH };

struct op {
	enum op_kind kind;
	uint64_t offset;	/* remote */
	uint64_t len;
	size_t local;		/* in the registered buffers (reads and writes) */
	int flags;
	const void *ctx;
	unsigned chain;		/* which rpma_conn_batch_begin() it was posted under (0: none) */
};

/* the stand-in RNIC's log of what was posted, and the failures it is told to give */
struct rnic_log {
	struct op op[MAX_OPS];
	unsigned nops;
	unsigned chains;	/* rpma_conn_batch_begin() calls */
	unsigned chain_ends;
	bool chain_open;
	unsigned fail_post_at;	/* 1-based read/write to refuse (0: none) */
	unsigned posts;		/* reads and writes asked for */
	int fail_flush;		/* the flush hook fails */
	int fail_chain_end;	/* rpma_conn_batch_end() fails */
};
extern struct rnic_log rnic;

/* the stand-ins for the connection and the regions: only their addresses matter */
extern char conn_stand_in, server_mr_stand_in, buf_mr_stand_in;
#define CONN ((struct rpma_conn *)&conn_stand_in)
#define SERVER_MR ((struct rpma_mr_remote *)&server_mr_stand_in)
#define BUF_MR ((struct rpma_mr_local *)&buf_mr_stand_in)

#define MAX_STEPS 16

/* one turn of the scripted loop: completions, or a connection event */
struct step {
	int nwc;			/* 0: an event */
	struct ibv_wc wc[4];
	enum rpma_conn_event ev;
};

/* the scripted completion loop: its turns and the test's clock */
struct loop_script {
	struct step step[MAX_STEPS];
	unsigned nsteps, next;
	uint64_t now;
	unsigned runs, onces, idles;
};
extern struct loop_script script;

/* the next completions say they complete nothing known */
extern unsigned unknown_completions;
/* the flush merges the batch's ranges down to this many first (0: it takes them all) */
extern uint32_t fit_to;
extern struct rpmafio_opts opts;
/* the client under test, and its I/Os */
extern struct rpmafio_client client;
extern struct rpmafio_io ios[DEPTH * 8];

/* the script: a successful completion of the operation that carries ctx */
void script_wc(const void *ctx);
void script_failed_wc(const void *ctx, enum ibv_wc_status status);
void script_event(enum rpma_conn_event ev);
int client_io_setup_async(void **state);
int client_io_setup_sync(void **state);
int client_io_teardown(void **state);
/* I/O i: a read or a write of len bytes at offset, in buffer i */
struct rpmafio_io *make_io(unsigned i, enum rpmafio_io_dir dir, uint64_t offset,
		uint64_t len);
void queue_ok(unsigned i, enum rpmafio_io_dir dir, uint64_t offset, uint64_t len);
void assert_op(unsigned k, enum op_kind kind, uint64_t offset, uint64_t len, int flags,
		const void *ctx);
/* getevents(min, max) returns the I/Os first..first+n-1, in order, each with error err */
void assert_events(unsigned min, unsigned max, unsigned first, unsigned n, int err);

/* engine_client_io_failures_test.c */
void post_fails_half_way(void **state);
void flush_cannot_be_posted(void **state);
void chain_post_fails(void **state);
void error_completion_fails_all_in_flight(void **state);
void unknown_completion(void **state);
void completion_for_an_io_not_in_flight(void **state);
void method_completion_completes_nothing(void **state);
void server_closes_the_connection(void **state);
void stop_requested_gives_up_sooner(void **state);
void commit_after_break(void **state);

#endif /* ENGINE_CLIENT_IO_TEST_H */
