#!/usr/bin/env bash
# tests/e2e/valgrind.sh -- examples under valgrind, over real Soft-RoCE, inside
# the VM: scripts/softroce-vm run -- tests/e2e/valgrind.sh
#
# memcheck (errors and leaks) on both sides of the representative examples (the
# examples suite run with E2E_WRAPPER and E2E_ONLY; see below); helgrind on the
# client of 11, whose threads share one connection. valgrind exits 99 on any
# error it reports; tests/e2e/valgrind.supp hides only findings inside
# rdma-core (libibverbs, librdmacm, the rxe provider) and libc internals.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh
e2e_in_vm
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
X=build/examples
SUPP=tests/e2e/valgrind.supp
# valgrind under TCG is slow: give each step more time
E2E_STEP_TIMEOUT=${E2E_VALGRIND_STEP_TIMEOUT:-240}
E2E_READY_TIMEOUT=${E2E_VALGRIND_READY_TIMEOUT:-150}

# shellcheck disable=SC2206 # E2E_VALGRIND_OPTS: extra options, split on purpose
VG=(valgrind --error-exitcode=99 --suppressions="$SUPP" ${E2E_VALGRIND_OPTS:-})
# shellcheck disable=SC2054 # the commas are valgrind's
MEMCHECK=("${VG[@]}" --tool=memcheck --leak-check=full --show-leak-kinds=definite,possible
	--errors-for-leak-kinds=definite,possible)
HELGRIND=("${VG[@]}" --tool=helgrind)

# memcheck: the representative examples, both sides, through the examples suite itself
status=0
# valgrind starts slowly under TCG (seconds a process): every blocking step of an
# example may take longer than its usual 20 s (08 starts five processes at once)
export EXAMPLE_TIMEOUT_S=${EXAMPLE_TIMEOUT_S:-90}
# The representative examples (~30-50 s each under memcheck and TCG): RDMA
# write/flush/read on device DAX, messages, a shared receive queue with private data,
# many connections. Left out: the connection example (every one here connects, 07 and
# 08 with private data), write/flush/read on DRAM (the same library calls as on device
# DAX), atomic write (write/flush/read's path with one more operation; emulated on
# 6.1), four threads on one connection (helgrind's, below), a rejection (a short path:
# rpma_conn_req_delete's reject), immediate data and the receive CQ (messages' paths
# with another flag), fsdax's refusal without ODP, and the peer that vanishes (the
# engines' killed peers run under memcheck in valgrind_engines.sh); all of them still
# run in examples.sh, and their code under ASan in the unit tests.
# VALGRIND_EXAMPLES=REGEX picks others (. : every one).
#
# They run in two lanes side by side (ports apart): while one process of a pair
# starts under valgrind (seconds of one vCPU), its peer mostly waits.
if [ -n "${VALGRIND_EXAMPLES:-}" ]; then
	lanes=("$VALGRIND_EXAMPLES")
else
	lanes=('^(write-flush-read-devdax|messages)$' '^(srq|multiple-connections)$')
fi
lane_pids=()
for i in "${!lanes[@]}"; do
	E2E_ONLY=${lanes[i]} E2E_PORT=$((7400 + 100 * i)) E2E_WRAPPER="${MEMCHECK[*]}" \
		E2E_NAME_PREFIX=memcheck- E2E_STEP_TIMEOUT=$E2E_STEP_TIMEOUT \
		E2E_READY_TIMEOUT=$E2E_READY_TIMEOUT tests/e2e/examples.sh >"$E2E_TMP/lane$i.out" 2>&1 &
	lane_pids+=($!)
done
for i in "${!lanes[@]}"; do
	wait "${lane_pids[i]}" || status=1
	cat "$E2E_TMP/lane$i.out"
done

# helgrind: the client whose threads share one connection; 5 rounds per thread (every
# thread posts and polls on the one connection). Under TCG the run takes ~100 s whatever
# the rounds (2 rounds: 104 s on 2026-11-26): helgrind's start-up, not the rounds.
export EXAMPLE_ITERS=5
e2e_pair helgrind-multithreaded 'client: OK' \
	$X/11-multithreaded server "$A" @PORT@ @READY@ -- \
	"${HELGRIND[@]}" $X/11-multithreaded client "$A" @PORT@

e2e_summary || status=1
exit "$status"
