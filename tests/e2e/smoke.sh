#!/usr/bin/env bash
# tests/e2e/smoke.sh -- make check's short run inside the Soft-RoCE VM: every example,
# then each engine's DRAM workloads (one server and one client process, fio's verify
# of a sync, a batched and a sleeping run among its sections): a change that breaks the RDMA
# path shows here in minutes. make test runs all of it and much more (tests/e2e/run.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
E2E_RESULTS=build/e2e-results/smoke-$(uname -r).tsv
# make check's one look at Debian's own fio with the engines (make test's suites run
# build/fio-lean, tests/e2e/lib.sh)
E2E_FIO=system
export E2E_RESULTS E2E_FIO
mkdir -p build/e2e-results && : >"$E2E_RESULTS"
status=0
run_suite() { # SUITE [ENV...]
	local suite=$1 t0=$SECONDS
	shift
	echo "-- $suite (kernel $(uname -r))"
	env "$@" "$suite" || status=1
	echo "-- $suite: $((SECONDS - t0)) s"
}
run_suite tests/e2e/examples.sh
# (fio's verify on DRAM: sections of dram-workloads)
run_suite tests/e2e/engines.sh E2E_ONLY='^(apm|gpspm)-dram-workloads$'
exit "$status"
