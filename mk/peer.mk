# mk/peer.mk -- the peer rpma-fio is compared with (issue #6): upstream librpma
# 1.2.0 and fio 3.33's in-tree librpma engines, built privately in build/peer.
#
#   make peer           build/peer/fio (scripts/build_peer.sh; idempotent)
#   make test-interop   tests/e2e/interop.sh in the Soft-RoCE VM (with --pmem)
#   make bench          ours vs the peer in one pipeline: scripts/run_matrix.sh --impl
#                       ours,peer over the benchmark's points into build/bench/<date-time>,
#                       GPSPM's points again on the VM's device DAX into its pmem/,
#                       the GPSPM server's polling modes (scripts/bench_polling.sh) into its
#                       polling/, a GPSPM server's CPU as its clients grow
#                       (scripts/bench_clients.sh) into clients/, then docs/BENCHMARKS.md (scripts/matrix/matrix benchmarks),
#                       with the findings of docs/benchmarks-findings.md (BENCH_ARGS overrides
#                       the points and runs, e.g. BENCH_ARGS="--repeats 5 --runtime 10")

PEER_DIR := $(BUILD)/peer
PEER_FIO := $(PEER_DIR)/fio
# APM and GPSPM (both server modes) 4 KiB random writes at depth 1 (sync) and batched at 8
# and 32, 64 KiB at 8; raw verbs beside them. Ours and the peer interleaved, 6 to 12 pairs
# a point until the IOPS verdict is decided (6: the fewest whose interval covers 95%,
# docs/matrix.md) at a margin of 15%: under TCG two days' medians of the same point
# differed by up to 13%, so a verdict at a narrower margin flips from day to day
# (ahead: the interval's low end above 1.15x); instructions at the 4 KiB sync points
# (their target; batched ones are far under it)
# (on DRAM: the peer's APM client refuses persistent memory unless direct write is declared)
BENCH_ARGS ?= --methods apm,gpspm-busy,gpspm-sleep,raw --rw write --lat-bs 4k --bw-bs 64k \
	--bw-qd 8 --qd 8,32 --repeats 6 --max-repeats 12 --margin 15 --runtime 2 --ramp 1 \
	--mem malloc --mem-size 16m --instructions=sync
# (once: a recursive variable would call date at each use, a second apart)
ifndef BENCH_DIR
BENCH_DIR := $(BUILD)/bench/$(shell date +%Y%m%d-%H%M%S)
endif
# GPSPM on the VM's emulated NVDIMM (device DAX): the server persists for real (~8 min)
BENCH_PMEM_ARGS ?= --methods gpspm-busy --rw write --lat-bs 4k --bw-bs 64k --bw-qd 8 --qd 8 \
	--repeats 6 --max-repeats 12 --margin 15 --runtime 2 --ramp 1 --pmem --mem-size 16m
# the GPSPM server's polling modes side by side (scripts/bench_polling.sh --help; ~5 min)
BENCH_POLLING_ARGS ?= --rounds 5 --runtime 4 --rate 200
# a GPSPM server's CPU as its clients grow, ours (one job) vs the peer's (scripts/bench_clients.sh --help; ~5 min)
BENCH_CLIENTS_ARGS ?= --rounds 3 --ios 4000 --clients 1,2,4,8

peer:
	scripts/build_peer.sh --out $(PEER_DIR)

test-interop: peer engines
	$(VM) run --pmem --timeout 900 -- tests/e2e/interop.sh

# the end-to-end suite runs tests/e2e/interop.sh against the peer
test-e2e e2e-build: peer

bench: peer engines tools fio-lean
	scripts/run_matrix.sh --impl ours,peer $(BENCH_ARGS) --out $(BENCH_DIR)
	scripts/run_matrix.sh --impl ours,peer $(BENCH_PMEM_ARGS) --out $(BENCH_DIR)/pmem
	scripts/bench_polling.sh $(BENCH_POLLING_ARGS) --out $(BENCH_DIR)/polling
	scripts/bench_clients.sh $(BENCH_CLIENTS_ARGS) --out $(BENCH_DIR)/clients
	python3 scripts/matrix/matrix benchmarks $(BENCH_DIR) --out docs/BENCHMARKS.md \
		--pmem $(BENCH_DIR)/pmem --polling $(BENCH_DIR)/polling/polling.tsv \
		--clients $(BENCH_DIR)/clients/clients.tsv \
		--previous docs/BENCHMARKS.md --notes docs/benchmarks-findings.md

.PHONY: peer test-interop bench
