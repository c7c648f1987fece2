# mk/vm.mk -- the Soft-RoCE VM harness' own tests (included by the top Makefile).
#
#   make test-vm-unit    the harness' Python side (scripts/softroce-vm.d/softroce_vm):
#                        the option parser, vmlinux extraction, the modules.dep walk
#                        (unittest, no VM, a few seconds)
#   make test-vm-accel   KVM only when it can run the guest: stand-in QEMUs that abort
#                        or hang under KVM end in TCG runs that pass, and two runs
#                        started together wait for each other (~1.5 min)

test-vm-unit:
	@python3 -m unittest discover -s tests/vm -p 'test_*.py'

test-vm-accel:
	@tests/vm/accel_test.sh

.PHONY: test-vm-unit test-vm-accel
