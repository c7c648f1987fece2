# mk/sweep.mk -- the sweep job files (jobs/sweep.fio, jobs/sweep-*-server.fio).
#
#   make sweep-jobs      regenerate them with scripts/gen_sweep_jobs.py (commit the result)
#   make test-sweep-vm   tests/matrix/sweep_vm.sh in the Soft-RoCE VM: a short sweep of a
#                        few sections with each engine, and run_matrix.sh report of it
#                        (make test-matrix checks on the host that the files are current)

sweep-jobs:
	scripts/gen_sweep_jobs.py

test-sweep-vm: engines tools
	$(VM) run --timeout 600 -- tests/matrix/sweep_vm.sh

.PHONY: sweep-jobs test-sweep-vm
