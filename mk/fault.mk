# mk/fault.mk -- provider fault injection (tests/fault/libfault.c, see its header).
#
#   make fault-shim     build/fault/libfault.so: LD_PRELOAD it, set RPMAFIO_FAULT_AT=N
#   make test-fault-check  the shim's free checker on the host (no RDMA needed)
#   make test-faults    tests/fault/faults.sh, engine_faults.sh, fio_faults.sh and
#                       valgrind_engines.sh in the Soft-RoCE VM (one boot; about 15 minutes)

FAULT_SHIM := $(BUILD)/fault/libfault.so

$(FAULT_SHIM): tests/fault/libfault.c Makefile
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(OPTFLAGS) $(WARNFLAGS) $(HARDEN_CFLAGS) -fPIC -shared -fvisibility=hidden \
		$(HARDEN_LDFLAGS) -o $@ $< -ldl

fault-shim: $(FAULT_SHIM)

test-fault-check: $(FAULT_SHIM)
	@tests/fault/check_free_test.sh $(FAULT_SHIM)

test-faults: all examples engines $(FAULT_SHIM)
	$(VM) run --pmem --timeout 1500 -q -- tests/fault/all.sh

# tests/e2e/run.sh runs the fault suites too
test-e2e e2e-build: $(FAULT_SHIM)

.PHONY: fault-shim test-fault-check test-faults
