# mk/native.mk -- a build with native RDMA FLUSH and ATOMIC WRITE: a newer rdma-core than
# Debian 12's, built privately once (scripts/rdma-core.sh, cached outside the clone).
#
#   make native             that rdma-core (once), then the library, examples and engines
#                           against it in build/native/
#   make test-native-build  make native, then tests/native/check_build.sh: the probe found
#                           both native verbs, the binaries load that rdma-core and its
#                           rxe provider is there
#   make test-native-e2e    the examples of build/native/ in the 6.12 guest (rxe with
#                           FLUSH and ATOMIC WRITE): every flush must complete as the
#                           device's own FLUSH (EXAMPLE_FLUSH=native), ATOMIC WRITE native

native:
	@prefix=$$(scripts/rdma-core.sh) && \
		$(MAKE) --no-print-directory RDMA_CORE="$$prefix" all examples engines

test-native-build: native
	@tests/native/check_build.sh

test-native-e2e: native
	$(VM) run --kernel 6.12 --pmem --timeout 900 -q -- \
		env E2E_EXAMPLES=build/native/examples EXAMPLE_FLUSH=native tests/e2e/examples.sh

.PHONY: native test-native-build test-native-e2e
