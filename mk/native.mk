# mk/native.mk -- a build with native RDMA FLUSH and ATOMIC WRITE: a newer rdma-core than
# Debian 12's, built privately once (scripts/rdma_core.sh, cached outside the clone).
#
#   make native             that rdma-core (once), then the library, examples and engines
#                           against it in build/native/
#   make test-native-build  make native, then tests/native/check_build.sh: the probe found
#                           both native verbs, the binaries load that rdma-core and its
#                           rxe provider is there
#   make test-native-e2e    in the 6.12 guest (rxe with FLUSH and ATOMIC WRITE),
#                           tests/native/run.sh: the examples of build/native/, every flush
#                           completing as the device's own FLUSH (EXAMPLE_FLUSH=native),
#                           ATOMIC WRITE native; the engines (tests/native/engines.sh):
#                           native FLUSHes counted, fio verify, the ends differing, the peer;
#                           on node0 of two guests, scripts/run_durability.sh's rounds across
#                           node1's power cut, apm-native beside apm and gpspm
#                           (tests/multinode/durability.sh)
#   make test-native-matrix tests/native/check_matrix.sh: run_matrix.sh --native --quick
#                           (apm, apm-native, gpspm-busy) in the 6.12 guest, each
#                           apm-native flush a native FLUSH, no apm flush one
#   make test-native        all three (stages of make test: native-build, native-6.12,
#                           native-matrix)

# the server job files (and the durability run's, scripts/run_durability.sh --native)
# name the default build's engine: copies naming build/native's
NATIVE_SERVER_JOBS := $(addprefix build/native/jobs/,apm-server.fio gpspm-server.fio durability.fio \
	durability.inc durability-server.fio durability-server.inc durability-native.fio \
	durability-native-server.fio durability-io.inc)

native:
	@prefix=$$(scripts/rdma_core.sh) && \
		$(MAKE) --no-print-directory RDMA_CORE="$$prefix" all examples engines tools $(NATIVE_SERVER_JOBS)

build/native/jobs/%: jobs/%
	@mkdir -p $(@D)
	sed 's|^ioengine=external:build/librpma_|ioengine=external:build/native/librpma_|' $< >$@

test-native-build: native
	@tests/native/check_build.sh

# the default build's engines and the peer take part (the ends differing)
test-native-e2e: native e2e-build
	@prefix=$$(scripts/rdma_core.sh) && \
		$(VM) run --kernel 6.12 --nodes 2 --pmem --timeout 1200 -q -- env RDMA_CORE="$$prefix" tests/native/run.sh

# the matrix with apm-native beside apm and GPSPM (its own VM boot, 6.12)
test-native-matrix: native
	@tests/native/check_matrix.sh

test-native: test-native-build test-native-e2e test-native-matrix

.PHONY: native test-native test-native-build test-native-e2e test-native-matrix
