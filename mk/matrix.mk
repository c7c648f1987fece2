# mk/matrix.mk -- the matrix runner's tests (included by the top Makefile).
#
#   make test-matrix      the report builder and compare on fixture fio JSON (host only, fast)
#   make test-matrix-vm   a --quick matrix in the Soft-RoCE VM into build/matrix-ci, checked
#                         point by point (<= 6 min under TCG), and the no_flush check

test-matrix:
	@tests/matrix/test_matrix.sh

test-matrix-vm: engines
	@tests/matrix/check_vm_run.sh

.PHONY: test-matrix test-matrix-vm
