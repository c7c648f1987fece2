# mk/vm.mk -- the Soft-RoCE VM harness' own tests (included by the top Makefile).
#
#   make test-vm-accel   KVM only when it can run the guest: stand-in QEMUs that abort
#                        or hang under KVM end in TCG runs that pass (~1 min)

test-vm-accel:
	@tests/vm/accel_test.sh

.PHONY: test-vm-accel
