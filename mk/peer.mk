# mk/peer.mk -- the peer rpma-fio is compared with (issue #6): upstream librpma
# 1.2.0 and fio 3.33's in-tree librpma engines, built privately in build/peer.
#
#   make peer           build/peer/fio (scripts/build-peer.sh; idempotent)
#   make test-interop   tests/e2e/interop.sh in the Soft-RoCE VM (with --pmem)
#   make bench          scripts/bench-vs-peer.sh: ours vs the peer, writes
#                       docs/BENCHMARKS.md (BENCH_ARGS="--repeats 5 --runtime 10")

PEER_DIR := $(BUILD)/peer
PEER_FIO := $(PEER_DIR)/fio
BENCH_ARGS ?=
# one VM at a time on a small machine: runs wait for each other
VM_LOCK ?= /tmp/rpma-vm.lock

peer:
	scripts/build-peer.sh --out $(PEER_DIR)

test-interop: peer engines
	flock $(VM_LOCK) $(VM) run --pmem --timeout 900 -- tests/e2e/interop.sh

# the end-to-end suite runs tests/e2e/interop.sh against the peer
test-e2e e2e-build: peer

bench: peer engines
	scripts/bench-vs-peer.sh $(BENCH_ARGS)

.PHONY: peer test-interop bench
