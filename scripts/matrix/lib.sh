# shellcheck shell=bash
# scripts/matrix/lib.sh -- the matrix runner's measuring side: servers (local or
# over ssh), one fio or perftest run, the environment. Sourced by
# scripts/run_matrix.sh (and scripts/matrix/bench_lib.sh, the benchmarks' part), which
# sets ROOT, OUT, SERVER_IP, SSH_HOST, REMOTE_DIR, RUNTIME, RAMP, SERVER_MEM,
# SERVER_SIZE, DIRECT_WRITE, RDMA_DEV, PORT_BASE, NATIVE, ENGINE_DIR (build, or
# build/native), RDMA_CORE_PREFIX (--native), PEER_FIO (the peer's fio, --impl peer),
# VERBS_COUNT (the cost counter, relative to the root) and MATRIX
# (scripts/matrix/matrix, for expand-job and env).

# the runners' (run_matrix.sh, run_durability.sh) one way to stop on bad usage, and to
# print a duration as m:ss
die() {
	echo "$PROG: error: $*" >&2
	exit 2
}

need_value() {
	if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value (see --help)"; fi
	# (an option where the value belongs: the value was forgotten)
	if [[ $2 == --* ]]; then die "$1 needs a value, not the option '$2' (see --help)"; fi
}

fmt_secs() {
	printf '%d:%02d' $(($1 / 60)) $(($1 % 60))
}

MATRIX_SPID=''		# the running server (local process, or the ssh carrying it)
FIO_DAEMONS=()		# --clients: the hosts whose `fio --server` this run started
MATRIX_CPID=''		# the running client
MATRIX_LPID=''		# --server-load: the burner of the server host's CPUs (or the ssh carrying it)
PEER_SCRATCH=''		# --impl peer on DRAM: its servers' working folder (make_peer_scratch)
# On the server's host, this run's pid files in a folder of its user's own (never a
# fixed name in /tmp, where another user could choose which process stop_server ends);
# each remote command creates it. Expanded by the remote shell.
RUN_TAG=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
# shellcheck disable=SC2016 # $HOME is the remote shell's
REMOTE_RUN_FILES='"$HOME"/.rpma-fio/'$RUN_TAG
# shellcheck disable=SC2016 # $HOME is the remote shell's
REMOTE_MKDIR='mkdir -p -m 700 "$HOME"/.rpma-fio'
LOAD_PID_FILE=$REMOTE_RUN_FILES.load.pid
LOAD_JSON=$REMOTE_RUN_FILES.load.json

# Run a server-side command: here, or on $SSH_HOST in $REMOTE_DIR. The remote
# shell records its pid so that stop_server can end exactly that process.
server_cmd() {
	if [ -z "$SSH_HOST" ]; then
		"$@"
		return
	fi
	local q
	q=$(printf '%q ' "$@")
	# shellcheck disable=SC2153 # REMOTE_DIR: the sourcing runner's
	ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" \
		"$REMOTE_MKDIR && cd $(printf '%q' "$REMOTE_DIR") && echo \$\$ >$REMOTE_RUN_FILES.server.pid && exec $q"
}

# Run a short query on the server's host (no pid recorded: the server's stays).
on_server() {
	if [ -z "$SSH_HOST" ]; then
		"$@"
		return
	fi
	ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" \
		"cd $(printf '%q' "$REMOTE_DIR") && $(printf '%q ' "$@")"
}

# --server-load: fio's cpuio engine keeps each of the server host's CPUs LOAD% busy (a
# job per CPU) from before the run's server starts until stop_load; its JSON, which says
# what it burned, is kept as STEM.load.json. LOAD 0: nothing.
start_load() { # LOAD STEM
	[ "$1" != 0 ] || return 0
	local cpus burn
	cpus=$(on_server nproc) || cpus=1
	burn=(fio --name=server-load --ioengine=cpuio --cpuload="$1" --numjobs="$cpus" --time_based
		--runtime=86400 --output-format=json)
	if [ -z "$SSH_HOST" ]; then
		"${burn[@]}" --output="$2.load.json" >"$2.load.log" 2>&1 &
	else
		ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" \
			"$REMOTE_MKDIR && echo \$\$ >$LOAD_PID_FILE && exec $(printf '%q ' "${burn[@]}") --output=$LOAD_JSON" \
			>"$2.load.log" 2>&1 &
	fi
	MATRIX_LPID=$!
	# (its jobs forked and burning before the server starts)
	sleep 1
}

# --server-load: the burner stopped (fio writes its JSON on SIGTERM), fetched from --server
stop_load() { # STEM
	[ -n "$MATRIX_LPID" ] || return 0
	if [ -n "$SSH_HOST" ]; then
		ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" \
			"kill \$(cat $LOAD_PID_FILE) 2>/dev/null; sleep 1; cat $LOAD_JSON; rm -f $LOAD_PID_FILE $LOAD_JSON" \
			>"$1.load.json" 2>/dev/null || true
	fi
	kill "$MATRIX_LPID" 2>/dev/null || true
	wait "$MATRIX_LPID" 2>/dev/null || true
	MATRIX_LPID=
}

stop_server() {
	[ -n "$MATRIX_SPID" ] || return 0
	if [ -n "$SSH_HOST" ]; then
		ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" \
			"kill \"\$(cat $REMOTE_RUN_FILES.server.pid)\" 2>/dev/null; rm -f $REMOTE_RUN_FILES.server.pid" || true
	fi
	kill "$MATRIX_SPID" 2>/dev/null || true
	wait "$MATRIX_SPID" 2>/dev/null || true
	MATRIX_SPID=
}

# fio 3.33's servers are no disk-less engines: before they listen, fio lays out a
# file named after filename=malloc (SERVER_SIZE of zeros) in their working folder. On
# DRAM theirs is a folder of their own in /tmp of the server's host (in the VM: the
# guest's memory), not the project's, where the file stayed; remove_peer_scratch
# removes it.
make_peer_scratch() {
	[ "$SERVER_MEM" = malloc ] && [[ ,$IMPLS, == *,peer,* ]] || return 0
	PEER_SCRATCH=$(on_server mktemp -d /tmp/rpma-matrix-peer.XXXXXX) || PEER_SCRATCH=
	[[ $PEER_SCRATCH == /tmp/rpma-matrix-peer.* ]] ||
		die "cannot make a folder for the peer's servers in /tmp of the server's host (mktemp -d)"
}

remove_peer_scratch() {
	[ -n "$PEER_SCRATCH" ] || return 0
	on_server rm -rf "$PEER_SCRATCH" || true
	PEER_SCRATCH=
}

# --clients: `fio --server` on every client host, in REMOTE_DIR (its jobs' relative
# paths), as a daemon whose pid file stop_fio_daemons ends
FIO_DAEMON_PID=$REMOTE_RUN_FILES.fio-daemon.pid
start_fio_daemons() {
	local h
	trap stop_fio_daemons EXIT
	for h in "${CLIENT_HOSTS[@]}"; do
		echo "$PROG: starting fio --server on $h" >&2
		ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$h" \
			"$REMOTE_MKDIR && cd $(printf '%q' "$REMOTE_DIR") && fio --server --daemonize=$FIO_DAEMON_PID" ||
			die "cannot start fio --server on '$h' over ssh (key-based, BatchMode=yes; fio installed there?)"
		FIO_DAEMONS+=("$h")
	done
}

stop_fio_daemons() {
	local h
	for h in "${FIO_DAEMONS[@]}"; do
		ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$h" \
			"kill \$(cat $FIO_DAEMON_PID) 2>/dev/null; rm -f $FIO_DAEMON_PID" || true
	done
	FIO_DAEMONS=()
}

# --clients: the controller's command of a point, into CLIENT_CMD: client host i (of the
# first HOSTS) runs NJ jobs on the server's jobs i*NJ .. i*NJ+NJ-1 (ports), from a job
# file of its own with every variable expanded. Needs fio_commands' FIO_VARS and JOB.
client_host_commands() { # STEM ENGINE HOSTS NJ PORT LIMIT CLIENT_OPTS...
	local stem=$1 engine=$2 hosts=$3 nj=$4 port=$5 limit=$6 i job sets=()
	shift 6
	local o
	for o in "$@"; do sets+=(--set "${o#--}"); done
	CLIENT_CMD=(timeout "$limit" fio)
	for ((i = 0; i < hosts; i++)); do
		job=$stem.client$i.fio
		python3 "$MATRIX" expand-job --out "$job" \
			--set ioengine=external:"$REMOTE_DIR/$ENGINE_DIR/librpma_$engine.so" "${sets[@]}" "$JOB" \
			CONNECT_TIMEOUT=30000 BUSY_WAIT=1 TIME_BASED=1 NUMBER_IOS=0 SECRET_FILE="${SECRET_FILE:-none}" \
			"${FIO_VARS[@]}" PORT=$((port + i * nj)) NUMJOBS="$nj" || return 1
		CLIENT_CMD+=(--client="${CLIENT_HOSTS[$i]}" "$job")
	done
}

stop_client() {
	[ -n "$MATRIX_CPID" ] || return 0
	kill "$MATRIX_CPID" 2>/dev/null || true
	wait "$MATRIX_CPID" 2>/dev/null || true
	MATRIX_CPID=
}

# Wait until RDMA CM IDs listen on ports $1 .. $1+$2-1 of the server's host while the
# server lives (at most $3 s): one way for every server (ours, the peer's, perftest's
# with -R), whatever it prints.
wait_listening() {
	local port=$1 count=$2 deadline=$((SECONDS + $3)) listening p missing
	while :; do
		listening=$(on_server rdma resource show cm_id 2>/dev/null | grep 'state LISTEN' || true)
		missing=0
		for ((p = port; p < port + count; p++)); do
			grep -Eq ":$p( |$)" <<<"$listening" || { missing=1; break; }
		done
		[ "$missing" = 1 ] || return 0
		kill -0 "$MATRIX_SPID" 2>/dev/null || return 1
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# the GPSPM server's busy_wait_polling= of a method (1 for every other method: unused;
# gpspm-hub's one thread busy-polls too)
server_polling() {
	case $1 in
	gpspm-sleep) echo 0 ;;
	gpspm-adaptive) echo adaptive ;;
	*) echo 1 ;;
	esac
}

# fio's job-file variables of a point, into FIO_VARS: METHOD BS IODEPTH SYNC NUMJOBS PORT
# (an array, not a pipe: the guest has no /dev/fd for process substitution)
set_fio_vars() {
	local method=$1 bs=$2 qd=$3 sync=$4 nj=$5 port=$6 busy
	busy=$(server_polling "$method")
	FIO_VARS=(SERVER_IP="$SERVER_IP" PORT="$port" RUNTIME="${RUNTIME}s" RAMP="${RAMP}s"
		BS="$bs" IODEPTH="$qd" BATCH="$qd" BATCH_COMPLETE="$qd" SYNC="$sync" NUMJOBS="$nj"
		SERVER_IODEPTH=$((qd > 64 ? qd : 64)) SERVER_BUSY_WAIT="$busy"
		SERVER_MEM="$SERVER_MEM" SERVER_SIZE="$SERVER_SIZE" DIRECT_WRITE_TO_PMEM="$DIRECT_WRITE")
}

# The packets the RDMA devices of this host sent, summed (rxe's and most RNICs'
# hw_counters; 0 where none are counted).
sent_packets() {
	cat /sys/class/infiniband/*/ports/*/hw_counters/sent_pkts 2>/dev/null |
		awk '{ n += $1 } END { print n + 0 }'
}

# Packets on the wire so far: the client host's sends, plus the server host's when it
# is another host (on one host, every packet is sent once and received once).
wire_packets() {
	local n
	n=$(sent_packets)
	if [ -n "$SSH_HOST" ]; then
		n=$((n + $(on_server sh -c 'cat /sys/class/infiniband/*/ports/*/hw_counters/sent_pkts 2>/dev/null' |
			awk '{ n += $1 } END { print n + 0 }')))
	fi
	echo "$n"
}

# callgrind around one side's fio: only the engine's I/O callbacks and all they call
# are counted (fio's own core is left out), for IMPL and SIDE (client or server)
callgrind_of() {
	local impl=$1 side=$2 out=$3 fns=() f
	case $impl-$side in
	ours-client) fns=(rpmafio_queue rpmafio_commit rpmafio_getevents rpmafio_event) ;;
	ours-server) fns=(rpmafio_queue) ;;
	peer-client) fns=(librpma_fio_client_queue librpma_fio_client_commit
		librpma_fio_client_getevents librpma_fio_client_event) ;;
	peer-server) fns=(server_queue) ;;
	esac
	WRAP=(valgrind -q --tool=callgrind --collect-atstart=no --callgrind-out-file="$out")
	for f in "${fns[@]}"; do WRAP+=(--toggle-collect="$f"); done
}

# The server and client commands of a point, into SERVER_CMD and CLIENT_CMD (arrays):
# IMPL ours runs the job files with our engines, IMPL peer fio 3.33's in-tree engines
# (build/peer/fio) with the same settings as command-line options. COST 1: a cost run
# (exactly IOS I/Os per job, no ramp, the client sleeping on its completions); COST 2:
# the same, fio run by SERVER_WRAP / CLIENT_WRAP (callgrind). (IOS: the schedule's,
# scripts/matrix/rpmamatrix/schedule.py)
fio_commands() {
	local impl=$1 method=$2 rw=$3 bs=$4 qd=$5 sync=$6 nj=$7 port=$8 cost=$9 hosts=${10:-1} ios=${11:-0}
	local engine=apm client_opts=() job run=(env) busy
	case $method in
	gpspm-*) engine=gpspm ;;
	noflush) client_opts=(--no_flush=1) ;;
	apm) client_opts=(--native_flush=0) ;;
	apm-native) client_opts=(--native_flush=1) ;;
	esac
	busy=$(server_polling "$method")
	set_fio_vars "$method" "$bs" "$qd" "$sync" "$nj" "$port"
	# gpspm-hub: one server job (one thread) for all the point's client jobs, on the
	# ports and bytes the per-client jobs would have had (clients_per_job=, engines.md)
	local server_jobs=(NUMJOBS=$((nj * hosts)))
	[ "$method" != gpspm-hub ] || server_jobs=(NUMJOBS=1 CLIENTS_PER_JOB=$((nj * hosts)))
	if [ "$cost" != 0 ]; then
		# sleeping completions: the CPU figure, and instructions that are the client's
		# work, not its spinning (the peer's client has no such mode: its loop counts)
		FIO_VARS+=(TIME_BASED=0 NUMBER_IOS="$ios" RAMP=0s RUNTIME=120s BUSY_WAIT=0)
	fi
	local limit=$((RUNTIME + RAMP + 60))
	[ "$cost" = 0 ] || limit=180
	[ "$cost" != 2 ] || limit=600
	if [ "$impl" = peer ]; then
		local fio=$PEER_FIO fio_rw in_scratch=()
		if [ -n "$PEER_SCRATCH" ]; then
			# (its fio by its full path there: REMOTE_DIR is the project's folder on --server)
			in_scratch=(env -C "$PEER_SCRATCH")
			fio=$ROOT/$PEER_FIO
			[ -z "$SSH_HOST" ] || fio=$REMOTE_DIR/$PEER_FIO
		fi
		SERVER_CMD=("${in_scratch[@]}" timeout "$limit" "${SERVER_WRAP[@]}" "$fio" --name=server
			--ioengine="librpma_${engine}_server"
			--serverip="$SERVER_IP" --port="$port" --numjobs="$nj" --create_serialize=0 --thread
			--filename="$SERVER_MEM" --size="$SERVER_SIZE" --direct_write_to_pmem="$DIRECT_WRITE")
		[ "$engine" = apm ] || SERVER_CMD+=(--iodepth=$((qd > 64 ? qd : 64))
			--busy_wait_polling="$busy" --time_based --runtime=365d)
		case $rw in write) fio_rw=randwrite ;; read) fio_rw=randread ;; rw) fio_rw=randrw ;; esac
		CLIENT_CMD=(timeout "$limit" "${CLIENT_WRAP[@]}" "$fio" --name=client --ioengine="librpma_${engine}_client"
			--serverip="$SERVER_IP" --port="$port" --numjobs="$nj" --group_reporting=1
			--create_serialize=0 --thread --lat_percentiles=1 --rw="$fio_rw" --bs="$bs" --sync="$sync"
			--iodepth="$qd" --iodepth_batch_submit="$qd" --iodepth_batch_complete_min="$qd")
		[ "$rw" != rw ] || CLIENT_CMD+=(--rwmixread=70)
		if [ "$cost" != 0 ]; then
			CLIENT_CMD+=(--number_ios="$ios" --runtime=120)
		else
			CLIENT_CMD+=(--time_based=1 --runtime="$RUNTIME" --ramp_time="$RAMP")
		fi
		return
	fi
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
	JOB=$job
	if [ ${#CLIENT_HOSTS[@]} -gt 0 ]; then
		# the server's jobs serve every client host's
		SERVER_CMD=("${run[@]}" "${FIO_VARS[@]}" "${server_jobs[@]}" timeout "$limit" fio "$server_job")
		client_host_commands "$FIO_STEM" "$engine" "$hosts" "$nj" "$port" "$limit" "${client_opts[@]}"
		return
	fi
	# an instructions run: the fio of build/fio-lean where it is built (make
	# fio-lean: the same fio source and version the engines are compiled against,
	# 10 libraries instead of Debian's 64, so valgrind starts it in seconds, not a
	# minute, under TCG); only the engine's callbacks are counted either way
	local fio_bin=fio
	[ "$cost" != 2 ] || [ ! -x "$ROOT/build/fio-lean" ] || fio_bin=$ROOT/build/fio-lean
	SERVER_CMD=("${run[@]}" "${FIO_VARS[@]}" "${server_jobs[@]}" timeout "$limit" "${SERVER_WRAP[@]}"
		"$fio_bin" "$server_job")
	CLIENT_CMD=("${run[@]}" "${FIO_VARS[@]}" timeout "$limit" "${CLIENT_WRAP[@]}" "$fio_bin"
		--ioengine=external:"$ENGINE_DIR/librpma_$engine.so" "${client_opts[@]}" "$job")
}

# One fio run of a point: server, then client. STEM: runs/<id>-r<k> (runs/<id>-cost for
# the cost run, with IOS I/Os a job). Leaves STEM.json (client), STEM.server.json, logs; a cost run also
# STEM.{client,server}.verbs.json (tests/tools/verbs_count.c) and STEM.packets;
# STEM.failed on failure.
run_fio() {
	local stem=$1 impl=$2 method=$3 rw=$4 bs=$5 qd=$6 sync=$7 nj=$8 port=$9 cost=${10:-0} hosts=${11:-1}
	local ios=${12:-0}
	SERVER_WRAP=() CLIENT_WRAP=()
	if [ "$cost" = 2 ]; then
		rm -f "$stem".*.callgrind
		callgrind_of "$impl" client "$stem.client.callgrind"
		CLIENT_WRAP=("${WRAP[@]}")
		# the GPSPM server's work per flush; an APM server does none
		if [[ $method == gpspm-* ]] && [ -z "$SSH_HOST" ]; then
			callgrind_of "$impl" server "$stem.server.callgrind"
			SERVER_WRAP=("${WRAP[@]}")
		fi
	fi
	FIO_STEM=$stem
	fio_commands "$impl" "$method" "$rw" "$bs" "$qd" "$sync" "$nj" "$port" "$cost" "$hosts" "$ios" ||
		{ echo "could not write the client hosts' job files" >"$stem.failed"; return 1; }
	local spre=(env) cpre=(env) packets_before=0
	if [ "$cost" = 1 ]; then
		rm -f "$stem".*.verbs.json
		spre=(env LD_PRELOAD="$REMOTE_DIR/$VERBS_COUNT" RPMAFIO_VERBS_COUNT="$stem.server.verbs.json")
		cpre=(env LD_PRELOAD="$ROOT/$VERBS_COUNT" RPMAFIO_VERBS_COUNT="$stem.client.verbs.json")
		[ -z "$SSH_HOST" ] || spre[2]=RPMAFIO_VERBS_COUNT=/tmp/rpma-matrix-server.verbs.json
		packets_before=$(wire_packets)
	fi
	# costs are the I/O's own: no keepalive probes from the server (a packet and its
	# ACK a second, a server post)
	[ "$cost" = 0 ] || spre+=(KEEPALIVE=0)
	# with --server the server's JSON is written there and fetched afterwards
	local sjson=$stem.server.json
	[ -z "$SSH_HOST" ] || sjson=/tmp/rpma-matrix-server.json
	server_cmd "${spre[@]}" "${SERVER_CMD[@]}" --output-format=json --output="$sjson" \
		>"$stem.server.log" 2>&1 &
	MATRIX_SPID=$!
	if ! wait_listening "$port" $((nj * hosts)) $((cost == 2 ? 120 : 30)); then
		stop_server
		echo "the $impl $method server did not start listening" >"$stem.failed"
		return 1
	fi
	"${cpre[@]}" "${CLIENT_CMD[@]}" --output-format=json --output="$stem.json" \
		>"$stem.client.log" 2>&1 &
	MATRIX_CPID=$!
	local status=0
	wait "$MATRIX_CPID" || status=$?
	MATRIX_CPID=
	wait "$MATRIX_SPID" || status=$((status ? status : $?))
	MATRIX_SPID=
	if [ -n "$SSH_HOST" ]; then
		ssh -n -o BatchMode=yes "$SSH_HOST" cat "$sjson" >"$stem.server.json" 2>/dev/null || true
		[ "$cost" = 0 ] || ssh -n -o BatchMode=yes "$SSH_HOST" \
			'cat /tmp/rpma-matrix-server.verbs.json; rm -f /tmp/rpma-matrix-server.verbs.json' \
			>"$stem.server.verbs.json" 2>/dev/null || true
	fi
	[ "$cost" = 0 ] || echo "$(($(wire_packets) - packets_before))" >"$stem.packets"
	if [ "$status" -ne 0 ]; then
		echo "fio exited with $status" >"$stem.failed"
		return 1
	fi
	[ "$impl" = peer ] || flushes_as_planned "$stem" "$method"
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
	# (a live server after 10 s is good enough: the client retries)
	if ! wait_listening "$port" 1 10 && ! kill -0 "$MATRIX_SPID" 2>/dev/null; then
		stop_server
		echo "the $tool server did not start" >"$stem.failed"
		return 1
	fi
	# a client too early is refused: retry
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

# The environment of the measurement, as JSON (`matrix env`: this host's facts and its
# platform's, scripts/matrix/rpmamatrix/environment.py), with --server the server host's
# kernel, CPU and platform (`matrix platform` there) read over ssh.
capture_env() {
	local remote=()
	if [ -n "$SSH_HOST" ]; then
		local kernel cpu platform rc=0
		kernel=$(ssh -n -o BatchMode=yes "$SSH_HOST" uname -r 2>/dev/null || echo '?')
		cpu=$(ssh -n -o BatchMode=yes "$SSH_HOST" \
			"sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1" 2>/dev/null || echo '?')
		platform=$(on_server python3 "$REMOTE_DIR/scripts/matrix/matrix" platform \
			--mem "$SERVER_MEM" --direct-write "$DIRECT_WRITE" 2>&1) || rc=$?
		remote=(--server-host="$SSH_HOST" --server-kernel="$kernel" --server-cpu="$cpu"
			--server-platform="$platform" --server-platform-rc="$rc")
	fi
	python3 "$MATRIX" env --root="$ROOT" --mem="$SERVER_MEM" --direct-write="$DIRECT_WRITE" "${remote[@]}"
}

# is path $1 inside the project folder (the one folder the VM shares, read-write)?
inside_project() {
	local path top
	path=$(realpath -m "$1") top=$(realpath "$ROOT")
	case $path/ in "$top"/*) return 0 ;; *) return 1 ;; esac
}
