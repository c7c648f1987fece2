# shellcheck shell=bash
# scripts/matrix/lib.sh -- the matrix runner's measuring side: servers (local or
# over ssh), one fio or perftest run, the environment. Sourced by
# scripts/run_matrix.sh, which sets ROOT, OUT, SERVER_IP, SSH_HOST, REMOTE_DIR,
# RUNTIME, RAMP, SERVER_MEM, SERVER_SIZE, DIRECT_WRITE, RDMA_DEV, PORT_BASE, NATIVE,
# ENGINE_DIR (build, or build/native) and RDMA_CORE_PREFIX (--native).

MATRIX_SPID=''		# the running server (local process, or the ssh carrying it)
MATRIX_CPID=''		# the running client

# Run a server-side command: here, or on $SSH_HOST in $REMOTE_DIR. The remote
# shell records its pid so that stop_server can end exactly that process.
server_cmd() {
	if [ -z "$SSH_HOST" ]; then
		"$@"
		return
	fi
	local q
	q=$(printf '%q ' "$@")
	ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" \
		"cd $(printf '%q' "$REMOTE_DIR") && echo \$\$ >/tmp/rpma-matrix-server.pid && exec $q"
}

stop_server() {
	[ -n "$MATRIX_SPID" ] || return 0
	if [ -n "$SSH_HOST" ]; then
		ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" \
			'kill "$(cat /tmp/rpma-matrix-server.pid)" 2>/dev/null; rm -f /tmp/rpma-matrix-server.pid' || true
	fi
	kill "$MATRIX_SPID" 2>/dev/null || true
	wait "$MATRIX_SPID" 2>/dev/null || true
	MATRIX_SPID=
}

stop_client() {
	[ -n "$MATRIX_CPID" ] || return 0
	kill "$MATRIX_CPID" 2>/dev/null || true
	wait "$MATRIX_CPID" 2>/dev/null || true
	MATRIX_CPID=
}

# Wait until file $1 has a line matching $2 while the server lives (at most $3 s).
wait_server_line() {
	local log=$1 regex=$2 deadline=$((SECONDS + $3))
	until grep -Eq "$regex" "$log" 2>/dev/null; do
		kill -0 "$MATRIX_SPID" 2>/dev/null || return 1
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# fio's job-file variables of a point, into FIO_VARS: METHOD BS IODEPTH SYNC NUMJOBS PORT
# (an array, not a pipe: the guest has no /dev/fd for process substitution)
set_fio_vars() {
	local method=$1 bs=$2 qd=$3 sync=$4 nj=$5 port=$6 busy=1
	[ "$method" = gpspm-sleep ] && busy=0
	FIO_VARS=(SERVER_IP="$SERVER_IP" PORT="$port" RUNTIME="${RUNTIME}s" RAMP="${RAMP}s"
		BS="$bs" IODEPTH="$qd" BATCH="$qd" SYNC="$sync" NUMJOBS="$nj"
		SERVER_IODEPTH=$((qd > 64 ? qd : 64)) SERVER_BUSY_WAIT="$busy"
		SERVER_MEM="$SERVER_MEM" SERVER_SIZE="$SERVER_SIZE" DIRECT_WRITE_TO_PMEM="$DIRECT_WRITE")
}

# One fio run of a point: server, then client. STEM: runs/<id>-r<k>.
# Leaves STEM.json (client), STEM.server.json, logs; STEM.failed on failure.
run_fio() {
	local stem=$1 method=$2 rw=$3 bs=$4 qd=$5 sync=$6 nj=$7 port=$8
	local engine=apm client_opts=() job run=(env)
	case $method in
	gpspm-*) engine=gpspm ;;
	noflush) client_opts=(--no_flush=1) ;;
	apm) client_opts=(--native_flush=0) ;;
	apm-native) client_opts=(--native_flush=1) ;;
	esac
	# the job files name the default build's engine; make native's copies name its own
	local server_job=jobs/$engine-server.fio
	if [ "$NATIVE" = 1 ]; then
		server_job=$ENGINE_DIR/jobs/$engine-server.fio
		# fio links the system's libibverbs: the native build's must come first
		run=(env "LD_LIBRARY_PATH=$RDMA_CORE_PREFIX/lib")
	fi
	case $rw in
	write) job=jobs/randwrite.fio ;;
	read) job=jobs/randread.fio ;;
	rw) job=jobs/rw.fio ;;
	esac
	local limit=$((RUNTIME + RAMP + 60))
	set_fio_vars "$method" "$bs" "$qd" "$sync" "$nj" "$port"
	# with --server the server's JSON is written there and fetched afterwards
	local sjson=$stem.server.json
	[ -z "$SSH_HOST" ] || sjson=/tmp/rpma-matrix-server.json
	server_cmd "${run[@]}" "${FIO_VARS[@]}" timeout "$limit" fio "$server_job" --output-format=json \
		--output="$sjson" >"$stem.server.log" 2>&1 &
	MATRIX_SPID=$!
	if ! wait_server_line "$stem.server.log" 'listening on' 30; then
		stop_server
		echo "the $method server did not start listening" >"$stem.failed"
		return 1
	fi
	"${run[@]}" "${FIO_VARS[@]}" timeout "$limit" fio --ioengine=external:"$ENGINE_DIR/librpma_$engine.so" \
		"${client_opts[@]}" "$job" --output-format=json --output="$stem.json" \
		>"$stem.client.log" 2>&1 &
	MATRIX_CPID=$!
	local status=0
	wait "$MATRIX_CPID" || status=$?
	MATRIX_CPID=
	wait "$MATRIX_SPID" || status=$((status ? status : $?))
	MATRIX_SPID=
	[ -z "$SSH_HOST" ] || ssh -n -o BatchMode=yes "$SSH_HOST" cat "$sjson" \
		>"$stem.server.json" 2>/dev/null || true
	if [ "$status" -ne 0 ]; then
		echo "fio exited with $status" >"$stem.failed"
		return 1
	fi
	flushes_as_planned "$stem" "$method"
}

# "F K": the flushes the APM clients of LOG posted, and how many completed as the device's
# own RDMA FLUSH (their closing notes, summed over the jobs; "0 0" when there is none).
flush_counts() {
	sed -nE 's/.* ([0-9]+) flushes: ([0-9]+) completed as the device.*/\1 \2/p' "$1" |
		awk '{ f += $1; k += $2 } END { print f + 0, k + 0 }'
}

# The APM client's note "F flushes: K completed as the device's own RDMA FLUSH, ...":
# apm-native must have flushed natively only, apm never (else the run does not count).
flushes_as_planned() {
	local stem=$1 method=$2 counts f k
	case $method in apm | apm-native) ;; *) return 0 ;; esac
	# (no process substitution: the guest has no /dev/fd)
	counts=$(flush_counts "$stem.client.log")
	f=${counts% *} k=${counts#* }
	if [ "$method" = apm-native ] && { [ "$f" -eq 0 ] || [ "$k" -ne "$f" ]; }; then
		echo "apm-native: $k of $f flushes completed as native FLUSH" >"$stem.failed"
		return 1
	fi
	if [ "$method" = apm ] && [ "$k" -ne 0 ]; then
		echo "apm: $k of $f flushes completed as native FLUSH, none should" >"$stem.failed"
		return 1
	fi
}

# One perftest run: server and client of TOOL (ib_write_lat, ib_read_lat, ib_write_bw).
run_perftest() {
	local stem=$1 tool=$2 bs=$3 qd=$4 port=$5
	local args=(-R -F -s "$bs" -p "$port")
	[ -z "$RDMA_DEV" ] || args+=(-d "$RDMA_DEV")
	case $tool in
	*_lat) args+=(-n "$PERFTEST_ITERS") ;;
	*_bw) args+=(-D "$RUNTIME" -t "$qd") ;;
	esac
	local limit=$((RUNTIME + 60))
	# line-buffered: perftest says it waits for its client only through stdio
	server_cmd stdbuf -oL timeout "$limit" "$tool" "${args[@]}" >"$stem.server.log" 2>&1 &
	MATRIX_SPID=$!
	# (should its banner change, a live server after 10 s is good enough: the client retries)
	if ! wait_server_line "$stem.server.log" 'Waiting for client' 10 &&
			! kill -0 "$MATRIX_SPID" 2>/dev/null; then
		stop_server
		echo "the $tool server did not start" >"$stem.failed"
		return 1
	fi
	# it prints that just before it listens: a client too early is refused, so retry
	local status attempt
	for attempt in 1 2 3 4 5; do
		sleep 0.5
		status=0
		timeout "$limit" "$tool" "${args[@]}" "$SERVER_IP" >"$stem.perftest.txt" 2>&1 &
		MATRIX_CPID=$!
		wait "$MATRIX_CPID" || status=$?
		MATRIX_CPID=
		if [ "$status" -eq 0 ] || ! kill -0 "$MATRIX_SPID" 2>/dev/null; then
			break
		fi
		echo "client attempt $attempt failed with $status, retrying" >>"$stem.server.log"
	done
	wait "$MATRIX_SPID" || status=$((status ? status : $?))
	MATRIX_SPID=
	if [ "$status" -ne 0 ]; then
		echo "$tool exited with $status" >"$stem.failed"
		return 1
	fi
}

# The environment of the measurement, as JSON (python3 does the quoting).
capture_env() {
	local dev fw="" link="" rate="" devs=""
	for dev in /sys/class/infiniband/*; do
		[ -e "$dev" ] || continue
		devs+="${dev##*/} "
		fw+="${dev##*/}=$(cat "$dev/fw_ver" 2>/dev/null || echo '?') "
		link+="${dev##*/}=$(cat "$dev"/ports/1/link_layer 2>/dev/null || echo '?') "
		rate+="${dev##*/}=$(cat "$dev"/ports/1/rate 2>/dev/null || echo '?') "
	done
	local remote_kernel="" remote_cpu=""
	if [ -n "$SSH_HOST" ]; then
		remote_kernel=$(ssh -n -o BatchMode=yes "$SSH_HOST" uname -r 2>/dev/null || echo '?')
		remote_cpu=$(ssh -n -o BatchMode=yes "$SSH_HOST" \
			"sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1" 2>/dev/null || echo '?')
	fi
	python3 - <<EOF
import json, sys
print(json.dumps({
    "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
    "host": "$(uname -n)",
    "kernel": "$(uname -r)",
    "cpu": "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)",
    "cpus": "$(nproc)",
    "rdma devices": "${devs% }",
    "firmware": "${fw% }",
    "link layer": "${link% }",
    "link rate": "${rate% }",
    "server host": "${SSH_HOST:-local}",
    "server kernel": "${remote_kernel:-same}",
    "server cpu": "${remote_cpu:-same}",
    "fio": "$(fio --version 2>/dev/null)",
    "engines": "$(cd "$ROOT" && md5sum build/librpma_apm.so build/librpma_gpspm.so | awk '{printf "%s=%s ", $2, substr($1, 1, 12)}')",
    "perftest": "$(dpkg-query -W -f='${Version}' perftest 2>/dev/null || echo '?')",
    "git revision": "$(git_revision)",
    "server memory": "$SERVER_MEM",
    "direct_write_to_pmem": "$DIRECT_WRITE",
    "DDIO": "$(ddio_state)",
    "in Soft-RoCE VM": "$([ -n "${RPMA_TEST_ADDR:-}" ] && echo "yes, accelerator ${SOFTROCE_VM_ACCEL:-unknown}" || echo no)",
}, indent=1))
EOF
}

# The checked-out commit, read from .git without running git.
git_revision() {
	local head
	head=$(cat "$ROOT/.git/HEAD" 2>/dev/null) || { echo unknown; return; }
	case $head in
	ref:*)
		local ref=${head#ref: }
		cat "$ROOT/.git/$ref" 2>/dev/null ||
			awk -v r="$ref" '$2 == r { print $1 }' "$ROOT/.git/packed-refs" 2>/dev/null ||
			echo unknown
		;;
	*) echo "$head" ;;
	esac
}

# DDIO can only be read with root's setpci on Intel; say what is known.
ddio_state() {
	if [ "$DIRECT_WRITE" = 1 ]; then
		echo "declared off or not applicable (direct_write_to_pmem=1)"
	else
		echo "unknown (not measured; direct_write_to_pmem=0)"
	fi
}
