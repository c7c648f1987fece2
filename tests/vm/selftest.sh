#!/bin/bash
# shellcheck disable=SC2016 # single-quoted commands are expanded by the guest's shell
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/vm/selftest.sh -- self-test of the Soft-RoCE VM harness (scripts/softroce-vm).
#
# Usage: tests/vm/selftest.sh [--kernel 6.1|6.12] [--no-pmem]
#
# Boots the VM a few times (one at a time; ~1 min under TCG) and checks exit
# status propagation, output streaming, the timeout, the rxe device and the
# emulated PMem.  Prints one line per check and a last line
# `N passed, M failed`; exits 1 if any check failed.
#
# Needs the harness' packages (sudo scripts/deps.sh vm); runs
# `scripts/softroce-vm setup` itself (quick when the kernel is cached).

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
VM=$ROOT/scripts/softroce-vm
KERNEL=6.1
PMEM=1
# shellcheck source=tests/lib/verdict.sh
. "$ROOT/tests/lib/verdict.sh"
TMP=

usage() {
	sed -n '5,15s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

while (($#)); do
	case $1 in
	--kernel)
		KERNEL=${2:?--kernel needs a value}
		shift
		;;
	--no-pmem) PMEM=0 ;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		echo "selftest.sh: unknown argument '$1'" >&2
		exit 2
		;;
	esac
	shift
done

# vm OUT_PREFIX [RUN OPTIONS] -- COMMAND...: run the harness, keep its
# stdout/stderr/guest log in OUT_PREFIX.out/.err/.log, return its exit
# status.  (With --log the harness keeps no run directory after a failure.)
vm() {
	local out=$1
	shift
	local rc=0
	"$VM" run --kernel "$KERNEL" --log "$out.log" "$@" >"$out.out" 2>"$out.err" || rc=$?
	return "$rc"
}

# check_status NAME EXPECTED [RUN OPTIONS] -- COMMAND...
check_status() {
	local name=$1 want=$2 rc=0
	shift 2
	vm "$TMP/status" --timeout 300 "$@" || rc=$?
	if ((rc == want)); then
		pass "$name"
	else
		fail "$name" "exit status $rc, expected $want; $(tail -n 3 "$TMP/status.err" | tr '\n' ' ')"
	fi
}

check_setup() {
	if "$VM" setup --kernel "$KERNEL" >"$TMP/setup.log" 2>&1; then
		pass "setup --kernel $KERNEL"
	else
		fail "setup --kernel $KERNEL" "$(tail -n 3 "$TMP/setup.log" | tr '\n' ' ')"
		return 1
	fi
}

check_io_env_share() {
	local rc=0 sub marker
	sub=$(mktemp -d "$ROOT/build/vm-selftest.XXXXXX")
	marker=$sub/written-by-guest
	(cd "$sub" && vm "$TMP/io" -q --timeout 300 --env 'SELFTEST_VAR=a b$c' -- \
		sh -c 'echo "to stdout"; echo "to stderr" >&2; pwd; printf "%s\n" "$SELFTEST_VAR"; echo ok > written-by-guest') ||
		rc=$?
	if ((rc != 0)); then
		fail "stdout/stderr/env/cwd" "exit status $rc; $(tail -n 3 "$TMP/io.err" | tr '\n' ' ')"
	elif [[ $(cat "$TMP/io.out") != $'to stdout\n'"$sub"$'\na b$c' ]]; then
		fail "stdout/stderr/env/cwd" "unexpected stdout: $(tr '\n' '|' <"$TMP/io.out")"
	elif ! grep -qx 'to stderr' "$TMP/io.err"; then
		fail "stdout/stderr/env/cwd" "'to stderr' missing from stderr"
	else
		pass "stdout/stderr/env/cwd"
	fi
	if [[ $(cat "$marker" 2>/dev/null) == ok ]]; then
		pass "project folder writable at the same path"
	else
		fail "project folder writable at the same path" "$marker not written"
	fi
	rm -rf "$sub"
}

check_timeout() {
	local rc=0 t0 t1
	t0=$(date +%s)
	vm "$TMP/timeout" --timeout 20 -- sleep 1000 || rc=$?
	t1=$(date +%s)
	if ((rc != 124)); then
		fail "--timeout 20 kills 'sleep 1000'" "exit status $rc, expected 124"
	elif ! grep -q 'timed out after 20 s' "$TMP/timeout.err"; then
		fail "--timeout 20 kills 'sleep 1000'" "no 'timed out' message on stderr"
	elif ((t1 - t0 > 60)); then
		fail "--timeout 20 kills 'sleep 1000'" "took $((t1 - t0)) s"
	else
		pass "--timeout 20 kills 'sleep 1000' (exit 124, message)"
	fi
}

check_rxe() {
	local rc=0
	vm "$TMP/rxe" -q --timeout 300 -- sh -c '
		set -e
		test "$RPMA_TEST_ADDR" = 192.168.77.1
		rdma link show | grep -q "rxe0/1 state ACTIVE"
		ibv_devices | grep -q rxe0
		ip -4 addr show | grep -q "inet $RPMA_TEST_ADDR/"
		ibv_devinfo -v -d rxe0 | grep device_cap_flags_ex' || rc=$?
	if ((rc == 0)); then
		pass "rxe0 active, RPMA_TEST_ADDR=192.168.77.1"
	else
		fail "rxe0 active, RPMA_TEST_ADDR=192.168.77.1" "exit status $rc; $(tail -n 3 "$TMP/rxe.err" | tr '\n' ' ')"
		return 0
	fi
	if [[ $KERNEL == 6.12 ]]; then
		# IB_UVERBS_DEVICE_FLUSH_GLOBAL/FLUSH_PERSISTENT/ATOMIC_WRITE: bits 38-40
		local flags
		flags=$(awk '/device_cap_flags_ex/ { print $2 }' "$TMP/rxe.out")
		if [[ -n $flags ]] && (((flags >> 38 & 7) == 7)); then
			pass "6.12 rxe reports FLUSH and ATOMIC_WRITE ($flags)"
		else
			fail "6.12 rxe reports FLUSH and ATOMIC_WRITE" "device_cap_flags_ex=${flags:-?}"
		fi
	fi
}

check_pmem() {
	local rc=0
	vm "$TMP/pmem" -q --timeout 300 --pmem -- sh -c '
		set -e
		test "$RPMA_TEST_DEVDAX" = /dev/dax0.0
		test -c "$RPMA_TEST_DEVDAX"
		grep -q " $RPMA_TEST_FSDAX_DIR ext4 .*dax" /proc/mounts
		echo data > "$RPMA_TEST_FSDAX_DIR/file"
		test "$(cat "$RPMA_TEST_FSDAX_DIR/file")" = data' || rc=$?
	if ((rc == 0)); then
		pass "--pmem: /dev/dax0.0 and an ext4 -o dax mount"
	else
		fail "--pmem: /dev/dax0.0 and an ext4 -o dax mount" "exit status $rc; $(tail -n 3 "$TMP/pmem.err" | tr '\n' ' ')"
	fi
}

main() {
	mkdir -p "$ROOT/build"
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	echo "softroce-vm self-test, kernel $KERNEL"
	if check_setup; then
		check_status "exit status: run -- false gives 1" 1 -q -- false
		check_status "exit status: run -- sh -c 'exit 7' gives 7" 7 -q -- sh -c 'exit 7'
		check_io_env_share
		check_rxe
		((PMEM)) && check_pmem
		check_timeout
	fi
	summary
}

main
