#!/usr/bin/env bash
# tests/fault/check_free_test.sh -- the shim's free checker (RPMAFIO_FAULT_CHECK_FREE=1,
# tests/fault/libfault.c) on the host, no RDMA device needed: a program
# (check_free_test.c) registers memory through stand-ins of libibverbs'
# registration calls (fake_verbs.c) and gives memory back in order or planted
# out of order. Each planted violation must die of the shim's abort() naming
# the call and the registered range; each run in order must exit 0.
#
#   tests/fault/check_free_test.sh [SHIM]     (default build/fault/libfault.so)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
case "${1:-}" in
-h|--help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
SHIM=$(realpath "${1:-build/fault/libfault.so}" 2>/dev/null) || SHIM=
[ -f "$SHIM" ] || { echo "$0: the shim is missing: make fault-shim" >&2; exit 1; }
OUT=build/fault/check
# each case's result, named check-free-CASE, where docs/reliability.md's claims
# are checked (tests/checks/docs/check_claims.py)
RESULTS=build/e2e-results/host-check-free.tsv
mkdir -p "$OUT" "$(dirname "$RESULTS")"
: >"$RESULTS"
CC=${CC:-cc}
flags=(-std=gnu11 -O2 -g -Wall -Wextra -Werror)
if ! "$CC" "${flags[@]}" -fPIC -shared -Wl,-soname,libfake_verbs.so -o "$OUT/libfake_verbs.so" \
		tests/fault/fake_verbs.c -lpthread ||
		! "$CC" "${flags[@]}" -o "$OUT/check_free_test" tests/fault/check_free_test.c \
			-L"$OUT" -Wl,-rpath,"$PWD/$OUT" -lfake_verbs -lpthread; then
	echo "$0: cannot build the test program" >&2
	exit 1
fi

# CASE EXPECT [ENV...]: EXPECT is "ok" (exit 0) or a regex the shim's abort
# message must match (the run must end by SIGABRT, 134)
passed=0 failed=0
check() {
	local name=$1 expect=$2 rc=0 out why="" suffix=""
	# the one case run with the check off is a case of its own
	[[ " $* " == *" RPMAFIO_FAULT_CHECK_FREE=0 "* ]] && suffix=-unchecked
	shift 2
	out=$(env LD_PRELOAD="$SHIM" RPMAFIO_FAULT_CHECK_FREE=1 "$@" \
		"$OUT/check_free_test" "$name" 2>&1) || rc=$?
	if [ "$expect" = ok ]; then
		[ "$rc" -eq 0 ] || why="exit $rc, expected 0"
	elif [ "$rc" -ne 134 ]; then
		why="exit $rc, expected the shim's abort (134)"
	elif ! grep -Eq "^libfault: $expect" <<<"$out"; then
		why="no message matching /libfault: $expect/"
	fi
	if [ -n "$why" ]; then
		failed=$((failed + 1))
		printf 'check-free-%s\tFAIL\t0\n' "$name$suffix" >>"$RESULTS"
		echo "FAIL check-free $name: $why"
		printf '  | %s\n' "${out//$'\n'/$'\n'  | }"
	else
		passed=$((passed + 1))
		printf 'check-free-%s\tPASS\t0\n' "$name$suffix" >>"$RESULTS"
		echo "PASS check-free $name: $(grep -Em1 '^libfault: (free|munmap)\(' <<<"$out" || echo "exit 0")"
	fi
}

H='0x[0-9a-f]+'
FAIL_DEREG=(RPMAFIO_FAULT_CALL=ibv_dereg_mr RPMAFIO_FAULT_AT=1)
# planted violations
check free-registered "free\($H\) of memory still registered \(MR \[$H, $H\)\)$"
check free-after-failed-dereg "free\($H\) of memory still registered \(MR \[$H, $H\)\): its ibv_dereg_mr\(\) failed$" \
	"${FAIL_DEREG[@]}"
check free-block-around-range "free\($H\) of memory still registered"
check munmap-registered "munmap\($H, 12288\) of memory still registered \(MR \[$H, $H\)\)$"
# in order
check free-after-dereg ok
check retry-after-failed-dereg ok "${FAIL_DEREG[@]}"
check free-other-memory ok
check munmap-beside ok
check threads ok
# the check is off by default: the same violation passes
check free-registered ok RPMAFIO_FAULT_CHECK_FREE=0
echo "check-free: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
