# shellcheck shell=bash
# scripts/matrix/bench_lib.sh -- what the benchmarks of the GPSPM server share
# (scripts/bench_polling.sh, scripts/bench_clients.sh): their options, running again
# inside the Soft-RoCE VM, the rounds of runs, and the end of a run (its line of the
# bench's TSV, `matrix BENCH-row`), and our GPSPM server and client as the benches run
# them. A bench sets PROG, ROOT, BENCH (the name of its
# TSV and of its row subcommand), OUT, ROUNDS, PORT_BASE, PORT_STEP (the ports a run
# takes) and BENCH_OPTIONS (its own --option=VARIABLE pairs), and defines usage,
# round_runs (one round's runs, a line of run_one's words each) and
# run_one ROUND WORDS... PORT (one run: a line of OUT/BENCH.tsv, or a failure).

# shellcheck source=scripts/matrix/lib.sh
. "$ROOT/scripts/matrix/lib.sh"
# shellcheck source=scripts/lib/wait.sh
. "$ROOT/scripts/lib/wait.sh"

IN_VM=0
DRY_RUN=0
SSH_HOST='' # (lib.sh's servers run on this host)
MATRIX=$ROOT/scripts/matrix/matrix

# --out, --rounds, the bench's own BENCH_OPTIONS, --in-vm, --dry-run and --help; then
# --rounds checked and OUT made absolute (the bench checks its own options' values)
bench_args() {
	local var
	while [ $# -gt 0 ]; do
		case $1 in
		--in-vm) IN_VM=1 ;;
		--dry-run) DRY_RUN=1 ;;
		-h|--help) usage; exit 0 ;;
		*)
			var=$(option_variable "$1") || die "unknown option '$1' (see --help)"
			need_value "$@"
			printf -v "$var" '%s' "$2"
			shift
			;;
		esac
		shift
	done
	[[ $ROUNDS =~ ^[1-9][0-9]?$ ]] || die "--rounds: '$ROUNDS' is not a number in 1..99"
	[ -n "$OUT" ] || OUT=$ROOT/build/bench/$BENCH-$(date +%Y%m%d-%H%M%S)
	case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
}

# The --option=VARIABLE pairs of the bench's options that take a value
value_options() {
	printf '%s\n' --out=OUT --rounds=ROUNDS "${BENCH_OPTIONS[@]}"
}

# the variable that OPTION sets; none (status 1): not an option of the bench
option_variable() { # OPTION
	local pair
	for pair in $(value_options); do
		[ "${pair%%=*}" != "$1" ] || { echo "${pair#*=}"; return 0; }
	done
	return 1
}

# Inside the VM (--in-vm): the bench's runs. On the host: the VM booted to run this
# script there with the same options, then its runs' table, OUT/BENCH.md, by REPORT
# (the bench's subcommand of scripts/matrix/matrix), printed.
bench_run() { # REPORT
	cd "$ROOT" || exit
	if [ "$IN_VM" = 1 ]; then
		SERVER_IP=${RPMA_TEST_ADDR:?not inside the Soft-RoCE VM}
		bench_measure
		return
	fi
	# (the options with a value, as given or by default: one left empty, as --control is
	# unless given, is not passed, or the VM's side would take it for a missing value)
	local args=("$ROOT/scripts/$PROG" --in-vm) pair var
	for pair in $(value_options); do
		var=${pair#*=}
		[ -z "${!var}" ] || args+=("${pair%%=*}" "${!var}")
	done
	if [ "$DRY_RUN" = 1 ]; then
		printf '%q ' "${args[@]}"
		echo
		return
	fi
	bench_host_ready "$OUT"
	"$ROOT/scripts/softroce-vm" run -q --timeout 3600 -- "${args[@]}"
	python3 "$MATRIX" "$1" "$OUT/$BENCH.tsv" --out "$OUT/$BENCH.md"
	cat "$OUT/$BENCH.md"
}

# A benchmark's host side before it boots the Soft-RoCE VM: the GPSPM engine built, no
# RDMA device on this machine (the benchmark runs in the VM only), OUT ($1) inside
# ROOT (the folder the VM can write), and made
bench_host_ready() { # OUT
	[ -f "$ROOT/build/librpma_gpspm.so" ] || die "build/librpma_gpspm.so is missing: run make engines"
	if compgen -G '/sys/class/infiniband/*' >/dev/null; then
		die "this machine has an RDMA device: the benchmark runs in the Soft-RoCE VM only"
	fi
	case $1 in "$ROOT"/*) ;; *) die "--out: '$1' must be inside $ROOT (the folder the VM can write)" ;; esac
	mkdir -p "$1"
}

# ROUNDS rounds of the same runs (round_runs), each run on ports of its own: PORT_STEP
# past the previous run's; the bench fails when a run did, after all of them
bench_measure() {
	mkdir -p "$OUT/runs"
	# (empty: each run appends its line, the first the header too)
	: >"$OUT/$BENCH.tsv"
	local runs run words round port=$PORT_BASE failed=0
	mapfile -t runs <<<"$(round_runs)"
	for ((round = 1; round <= ROUNDS; round++)); do
		for run in "${runs[@]}"; do
			read -r -a words <<<"$run"
			port=$((port + PORT_STEP))
			run_one "$round" "${words[@]}" "$port" || failed=$((failed + 1))
		done
	done
	[ "$failed" -eq 0 ] || die "$failed run(s) failed"
}

# Our GPSPM server (jobs/gpspm-server.fio, or the job file BENCH_SERVER_JOB) for run
# STEM on PORT, in the background (MATRIX_SPID), at most LIMIT seconds: on 16 MiB of
# DRAM, with the job's VAR=VALUEs (its polling, depth, jobs); its JSON
# STEM.server.json, its output STEM.server.log
bench_gpspm_server() { # STEM PORT LIMIT VAR=VALUE...
	local stem=$1 port=$2 limit=$3
	shift 3
	env SERVER_IP="$SERVER_IP" PORT="$port" SERVER_MEM=malloc SERVER_SIZE=16m DIRECT_WRITE_TO_PMEM=0 "$@" \
		timeout "$limit" fio --output-format=json --output="$stem.server.json" \
		"${BENCH_SERVER_JOB:-jobs/gpspm-server.fio}" \
		>"$stem.server.log" 2>&1 &
	MATRIX_SPID=$!
}

# Our GPSPM client (jobs/randwrite.fio: 4 KiB random writes) of run STEM on PORT, at
# most LIMIT seconds: WORDS are the job's VAR=VALUEs and fio's --options; its JSON
# STEM.json, its output STEM.client.log; fio's status
bench_gpspm_client() { # STEM PORT LIMIT WORDS...
	local stem=$1 port=$2 limit=$3 word vars=() options=()
	shift 3
	for word in "$@"; do
		if [[ $word == --* ]]; then options+=("$word"); else vars+=("$word"); fi
	done
	env SERVER_IP="$SERVER_IP" PORT="$port" BS=4k "${vars[@]}" timeout "$limit" \
		fio --ioengine=external:build/librpma_gpspm.so "${options[@]}" --output-format=json \
		--output="$stem.json" jobs/randwrite.fio >"$stem.client.log" 2>&1
}

# The server of run STEM (MATRIX_SPID), SERVER as the message names it, did not
# listen: stopped, and said so (the run failed)
bench_not_listening() { # SERVER STEM
	stop_server
	echo "$PROG: the server ($1) did not listen: $2.server.log" >&2
}

# The end of run STEM, whose client exited with RC: the server's exit too (it ends
# when its clients have gone), then the run's line of OUT/BENCH.tsv from the two fio
# JSON (`matrix BENCH-row` with the run's WORDS: its round and what it measured)
bench_run_done() { # RC STEM WORDS...
	local rc=$1 stem=$2
	shift 2
	wait "$MATRIX_SPID" || rc=$?
	MATRIX_SPID=
	[ "$rc" -eq 0 ] || { echo "$PROG: run $stem failed ($rc): see its logs" >&2; return 1; }
	python3 "$MATRIX" "$BENCH-row" --tsv "$OUT/$BENCH.tsv" "$stem" "$@"
}
