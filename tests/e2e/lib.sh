# tests/e2e/lib.sh -- helpers for end-to-end tests run inside the Soft-RoCE VM.
# Sourced by the suites; needs RPMA_TEST_ADDR (the guest's rxe address).

E2E_PASSED=0
E2E_FAILED=0
E2E_FAILED_NAMES=()
E2E_TMP=$(mktemp -d /tmp/rpma-e2e.XXXXXX)
E2E_PORT=${E2E_PORT:-7300}
E2E_STEP_TIMEOUT=${E2E_STEP_TIMEOUT:-60}

e2e_next_port() {
	E2E_PORT=$((E2E_PORT + 1))
	echo "$E2E_PORT"
}

# Wait until file $1 exists, at most $2 seconds.
e2e_wait_file() {
	local file=$1 limit=$2 waited=0
	while [ ! -e "$file" ]; do
		[ "$waited" -ge $((limit * 10)) ] && return 1
		sleep 0.1
		waited=$((waited + 1))
	done
}

e2e_result() {
	local name=$1 status=$2
	if [ "$status" -eq 0 ]; then
		E2E_PASSED=$((E2E_PASSED + 1))
		echo "PASS $name"
	else
		E2E_FAILED=$((E2E_FAILED + 1))
		E2E_FAILED_NAMES+=("$name")
		echo "FAIL $name"
	fi
}

# e2e_pair NAME EXPECT_REGEX SERVER_CMD... -- CLIENT_CMD...
# Runs the server (given READY file as its last argument via $READY), waits for it to
# listen, runs the client, and checks both exit 0 and the client's output matches
# EXPECT_REGEX (empty: no check). Every step is under a timeout.
e2e_pair() {
	local name=$1 expect=$2
	shift 2
	local server=() client=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do server+=("$1"); shift; done
	shift
	client=("$@")
	local dir="$E2E_TMP/$name" status=0
	mkdir -p "$dir"
	local ready="$dir/ready"
	timeout "$E2E_STEP_TIMEOUT" "${server[@]//@READY@/$ready}" >"$dir/server.log" 2>&1 &
	local spid=$!
	if ! e2e_wait_file "$ready" 20; then
		echo "  server did not start listening within 20 s" >"$dir/why"
		status=1
	else
		timeout "$E2E_STEP_TIMEOUT" "${client[@]}" >"$dir/client.log" 2>&1 || status=$?
	fi
	wait "$spid" || status=$((status ? status : $?))
	if [ "$status" -eq 0 ] && [ -n "$expect" ] && ! grep -Eq "$expect" "$dir/client.log"; then
		echo "  client output does not match /$expect/" >"$dir/why"
		status=1
	fi
	e2e_result "$name" "$status"
	if [ "$status" -ne 0 ]; then
		[ -f "$dir/why" ] && cat "$dir/why"
		echo "  --- server (${server[*]}):"; sed 's/^/  | /' "$dir/server.log"
		echo "  --- client (${client[*]}):"; sed 's/^/  | /' "$dir/client.log" 2>/dev/null
	fi
	return 0
}

e2e_summary() {
	echo
	[ ${#E2E_FAILED_NAMES[@]} -gt 0 ] && echo "failed: ${E2E_FAILED_NAMES[*]}"
	echo "e2e: $E2E_PASSED passed, $E2E_FAILED failed"
	rm -rf "$E2E_TMP"
	[ "$E2E_FAILED" -eq 0 ] && [ "$E2E_PASSED" -gt 0 ]
}
