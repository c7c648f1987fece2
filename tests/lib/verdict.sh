# shellcheck shell=bash
# tests/lib/verdict.sh -- the PASS/FAIL lines and the closing count of the
# host-side test scripts (sourced). The last line a script prints with
# `summary` is "N passed, M failed"; summary's status is the verdict.
# The one library shared across kinds (checks/deps, matrix, vm); each kind's
# own helpers are its folder's lib.sh (e2e, fault, multinode).
PASSED=0
FAILED=0

pass() { # NAME
	echo "PASS $1"
	PASSED=$((PASSED + 1))
}

fail() { # NAME [WHY]
	echo "FAIL $1${2:+: $2}"
	FAILED=$((FAILED + 1))
}

# verdict NAME STATUS LOG: pass when STATUS is 0, else fail and show LOG
verdict() {
	if [ "$2" -eq 0 ]; then
		pass "$1"
	else
		fail "$1"
		sed 's/^/  | /' "$3"
	fi
}

summary() {
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}
