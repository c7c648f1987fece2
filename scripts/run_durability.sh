#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run_durability.sh -- does what the engines acknowledged as durable survive the
# server host's power cut? Rounds of: the durability servers on the server's PMem;
# random writes with fio's verify pattern until fio's trigger, which saves what
# completed and cuts the server's power; the server host back, its jobs again on
# the same bytes; every write fio saw complete read back over RDMA and checked.
# A report per method and round (acknowledged, read back, lost with offsets and
# what was read) and a verdict per method. Details: docs/engines.md "Does it
# survive a power cut?"; also run as `run_matrix.sh durability ...`.
set -euo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MATRIX=$ROOT/scripts/matrix/matrix
# shellcheck source=scripts/matrix/lib.sh
. "$ROOT/scripts/matrix/lib.sh"
VM_POWER=scripts/softroce-vm.d/power.sh

METHODS=apm,gpspm ROUNDS=4 BS_LIST=4k,64k QD_LIST=1,8 BATCH=4 WRITE_TIME=10 RATE=''
# shellcheck disable=SC2034 # REMOTE_DIR: scripts/matrix/lib.sh uses it
SSH_HOST='' REMOTE_DIR=$ROOT SERVER_IP='' POWER_CUT='' WAIT_UP='' WAIT_UP_TIMEOUT=600
BEFORE_RESTART='' SERVER_MEM='' SERVER_SIZE='' DIRECT_WRITE=0 PORT_BASE=7600
NATIVE=0 RDMA_CORE_PREFIX=${RPMA_FIO_RDMA_CORE:-} VM_KERNEL=''
OUT='' DRY_RUN=0 IN_VM=0 SEED='' PATTERN=''

usage() {
	cat <<EOF
Usage: $PROG [OPTIONS]

Rounds of a durability qualification: writes with fio's verify pattern to the
server's persistent memory until fio's trigger saves which writes completed and
cuts the server's power; once the server is back, every acknowledged write is read
back over RDMA and checked. Writes a result folder (default build/durability/<date-time>)
with report.html / report.md: per method and round the writes acknowledged, read
back and lost (offset, what was read), and a verdict per method.

Where (without --server and without an RDMA device here: two guests of the
Soft-RoCE VM, node1 the server, its power cut by killing its QEMU):
  --server HOST          the PMem server host, over ssh (key-based, BatchMode)
  --remote-dir DIR       the project's folder on HOST (default: $ROOT)
  --server-ip ADDR       the server's RDMA address (default: HOST)
  --power-cut CMD        cuts the server's power, run here (sh -c): e.g. 'ipmitool -I
                         lanplus -H BMC -U USER -E chassis power cycle'; required with
                         --server; the round fails if it exits non-zero
  --wait-up CMD          returns once the server is back (default: until ssh HOST
                         answers with a new boot id); either way the server must have
                         booted again (its boot id)
  --wait-up-timeout S    at most this long (default $WAIT_UP_TIMEOUT)
  --before-restart CMD   run here once the server is back, before its jobs start
                         again (DURABILITY_ROUND, DURABILITY_ROUND_DIR in its
                         environment): e.g. a check of the platform's logs

The rounds:
  --methods LIST         of apm,gpspm,apm-native (default $METHODS; apm-native: the
                         RNIC's own RDMA FLUSH, with --native; apm is the emulation)
  --rounds N             power cuts (default $ROUNDS)
  --bs LIST              block sizes (default $BS_LIST)
  --iodepth LIST         I/Os in flight per job (default $QD_LIST): round i runs the
                         i-th of the combinations bs x iodepth, cycling
  --batch N              writes posted together, one flush per batch (default $BATCH,
                         at most the iodepth)
  --write-time S         seconds of writes before the cut (default $WRITE_TIME)
  --rate IOPS            writes per second per method (default: half the region's
                         blocks over --write-time: the writes must not cover the
                         region before the cut, else there is nothing in flight)

Each round writes with a random seed and a verify pattern of its own (fio checks
every byte of a block against it), so that no block an earlier round, an earlier
run or another program left can pass for one of this round's writes. The read-back
reads every write the round issued, fio going on past a bad block; fio's I/O logs of
the writes and of the read-back stay in the round's folder.

Server memory:
  --mem PATH             the server's PMem: device DAX (/dev/dax0.0) or a file on an
                         fsdax mount (required with --server; in the VM /dev/dax0.0)
  --mem-size SIZE        bytes per method (default 1g; in the VM 16m); the methods'
                         regions lie one after the other from the start of --mem
  --direct-write         the server declares direct write to PMem (DDIO off or eADR;
                         always in the VM, whose NVDIMM is a file of the host)
  --native               the native build (make native: build/native/); in the VM
                         kernel 6.12 (its rxe has RDMA FLUSH)
  --vm-kernel V          the VM's kernel: 6.1 (default) or 6.12

Output and control:
  --port N               first port (default $PORT_BASE; method i uses N + i)
  --out DIR              the result folder
  --dry-run              print the rounds, run nothing
  -h, --help             this help

Exit status: 0 every acknowledged write survived, 1 a method lost writes, 2 bad
usage, 3 a round could not be judged (the cut, the server's return or the read-back
failed: its reason in the report). Ctrl-C stops cleanly: the client and servers are
stopped and the report of the rounds done so far is written, marked PARTIAL.
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--server) need_value "$@"; SSH_HOST=$2; shift ;;
		--remote-dir) need_value "$@"; REMOTE_DIR=$2; shift ;;
		--server-ip) need_value "$@"; SERVER_IP=$2; shift ;;
		--power-cut) need_value "$@"; POWER_CUT=$2; shift ;;
		--wait-up) need_value "$@"; WAIT_UP=$2; shift ;;
		--wait-up-timeout) need_value "$@"; WAIT_UP_TIMEOUT=$2; shift ;;
		--before-restart) need_value "$@"; BEFORE_RESTART=$2; shift ;;
		--methods) need_value "$@"; METHODS=$2; shift ;;
		--rounds) need_value "$@"; ROUNDS=$2; shift ;;
		--bs) need_value "$@"; BS_LIST=$2; shift ;;
		--iodepth) need_value "$@"; QD_LIST=$2; shift ;;
		--batch) need_value "$@"; BATCH=$2; shift ;;
		--write-time) need_value "$@"; WRITE_TIME=$2; shift ;;
		--rate) need_value "$@"; RATE=$2; shift ;;
		--mem) need_value "$@"; SERVER_MEM=$2; shift ;;
		--mem-size) need_value "$@"; SERVER_SIZE=$2; shift ;;
		--direct-write) DIRECT_WRITE=1 ;;
		--native) NATIVE=1 ;;
		--vm-kernel) need_value "$@"; VM_KERNEL=$2; shift ;;
		--port) need_value "$@"; PORT_BASE=$2; shift ;;
		--out) need_value "$@"; OUT=$2; shift ;;
		--dry-run) DRY_RUN=1 ;;
		--in-vm) IN_VM=1 ;;
		-h|--help) usage; exit 0 ;;
		*) die "unknown option '$1' (see --help)" ;;
		esac
		shift
	done
	check_args
}

# a word for /bin/sh (fio runs --trigger through system()): single-quoted
sh_quote() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}

positive() { # OPTION VALUE
	[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1: '$2' is not a positive whole number"
}

check_args() {
	local m b q seen=,
	positive --rounds "$ROUNDS"
	positive --batch "$BATCH"
	positive --write-time "$WRITE_TIME"
	positive --wait-up-timeout "$WAIT_UP_TIMEOUT"
	[ -z "$RATE" ] || positive --rate "$RATE"
	IFS=, read -ra METHOD_LIST <<<"$METHODS"
	[ ${#METHOD_LIST[@]} -gt 0 ] || die "--methods: no method in '$METHODS'"
	for m in "${METHOD_LIST[@]}"; do
		case $m in apm|gpspm|apm-native) ;; *) die "--methods: '$m' is none of apm, gpspm, apm-native" ;; esac
		[[ $seen != *,$m,* ]] || die "--methods: '$m' is named twice"
		seen+=$m,
	done
	[[ $seen != *,apm-native,* ]] || [ "$NATIVE" = 1 ] ||
		die "--methods: apm-native needs the native build (--native; make native)"
	IFS=, read -ra BS_ITEMS <<<"$BS_LIST"
	for b in "${BS_ITEMS[@]}"; do
		[[ $b =~ ^[1-9][0-9]*[kKmM]?$ ]] || die "--bs: '$b' is not a block size like 4k"
		[ $(($(bytes_of "$b") % 512)) -eq 0 ] || die "--bs: '$b' is not a multiple of 512 bytes"
	done
	IFS=, read -ra QD_ITEMS <<<"$QD_LIST"
	for q in "${QD_ITEMS[@]}"; do positive --iodepth "$q"; done
	[ ${#BS_ITEMS[@]} -gt 0 ] || die "--bs: no block size in '$BS_LIST'"
	[ ${#QD_ITEMS[@]} -gt 0 ] || die "--iodepth: no depth in '$QD_LIST'"
	if ! [[ $PORT_BASE =~ ^[0-9]+$ ]] || [ "$PORT_BASE" -lt 1024 ] || [ "$PORT_BASE" -gt 60000 ]; then
		die "--port: '$PORT_BASE' is not a port in 1024..60000"
	fi
	[ -z "$SERVER_SIZE" ] || [[ $SERVER_SIZE =~ ^[1-9][0-9]*[kKmMgG]?$ ]] ||
		die "--mem-size: '$SERVER_SIZE' is not a size like 1g"
	case $VM_KERNEL in ''|6.1|6.12) ;; *) die "--vm-kernel: '$VM_KERNEL' is neither 6.1 nor 6.12" ;; esac
	if [ "$NATIVE" = 1 ]; then
		[ "$VM_KERNEL" != 6.1 ] || die "--native: kernel 6.1's Soft-RoCE has no RDMA FLUSH: use --vm-kernel 6.12"
		VM_KERNEL=6.12
	fi
	check_hosts
	if [ -n "$SSH_HOST" ] && [ "$IN_VM" = 0 ]; then
		[ -n "$POWER_CUT" ] || die "--server needs --power-cut CMD: how to cut $SSH_HOST's power"
		[ -n "$SERVER_MEM" ] || die "--server needs --mem PATH: the server's persistent memory"
		[ "$SERVER_MEM" != malloc ] || die "--mem: DRAM (malloc) forgets everything with the power"
	fi
}

bytes_of() { # SIZE: 4k, 16m, 1g (fio's: powers of 2)
	local n=${1%[kKmMgG]}
	case $1 in
	*[kK]) echo $((n << 10)) ;;
	*[mM]) echo $((n << 20)) ;;
	*[gG]) echo $((n << 30)) ;;
	*) echo "$n" ;;
	esac
}

# round R's (1-based) block size, depth and batch
round_shape() { # R
	local i=$(($1 - 1))
	R_BS=${BS_ITEMS[$((i % ${#BS_ITEMS[@]}))]}
	R_QD=${QD_ITEMS[$((i / ${#BS_ITEMS[@]} % ${#QD_ITEMS[@]}))]}
	R_BATCH=$((BATCH < R_QD ? BATCH : R_QD))
	local blocks=$(($(bytes_of "$SERVER_SIZE") / $(bytes_of "$R_BS")))
	R_RATE=${RATE:-$((blocks / (2 * WRITE_TIME)))}
	[ "$R_RATE" -gt 0 ] || R_RATE=1
	R_COVERED=$((R_RATE * WRITE_TIME * 100 / blocks))
}

dry_run() {
	local r
	echo "round  bs      iodepth  batch  rate (IOPS/method)  of the region by the cut"
	for ((r = 1; r <= ROUNDS; r++)); do
		round_shape "$r"
		printf '%-6s %-7s %-8s %-6s %-19s %s%%\n' "$r" "$R_BS" "$R_QD" "$R_BATCH" "$R_RATE" "$R_COVERED"
	done
	echo
	echo "methods $METHODS, $SERVER_SIZE each; $ROUNDS power cuts, ${WRITE_TIME}s of writes each," \
		"then the server's reboot (the VM's: ~30 s under TCG) and the read-back"
}

# ---- one round ----

# the job files of the methods (the native build's copies with --native) into
# JOB_FILES, the --section options that pick the methods into SECTIONS
job_files() { # client|server
	local dir=jobs suffix='' m
	[ "$NATIVE" = 0 ] || dir=$ENGINE_DIR/jobs
	[ "$1" = client ] || suffix=-server
	JOB_FILES=("$dir/durability$suffix.fio")
	[[ ,$METHODS, != *,apm-native,* ]] || JOB_FILES=("$dir/durability-native$suffix.fio")
	SECTIONS=()
	for m in "${METHOD_LIST[@]}"; do SECTIONS+=(--section="$m"); done
}

common_vars() { # PORT
	VARS=(SERVER_IP="$SERVER_IP" PORT="$1" SERVER_SIZE="$SERVER_SIZE" BS="$R_BS" IODEPTH="$R_QD"
		BATCH="$R_BATCH" RATE_IOPS="$R_RATE" CONNECT_TIMEOUT=30000 SERVER_MEM="$SERVER_MEM"
		DIRECT_WRITE_TO_PMEM="$DIRECT_WRITE" SERVER_BUSY_WAIT=0 SERVER_IODEPTH=64
		RANDSEED="$SEED" VERIFY_PATTERN="$PATTERN")
	[ "$NATIVE" = 0 ] || VARS+=(LD_LIBRARY_PATH="$RDMA_CORE_PREFIX/lib")
}

# the servers of every method, in the background (the ssh carrying them), until
# they listen; LOG gets their output
start_servers() { # LOG
	job_files server
	common_vars "$PORT_BASE"
	server_cmd env "${VARS[@]}" timeout 3600 fio "${JOB_FILES[@]}" "${SECTIONS[@]}" >"$1" 2>&1 &
	MATRIX_SPID=$!
	wait_listening "$PORT_BASE" "${#METHOD_LIST[@]}" 120
}

# after a power cut the server's host is gone: end the ssh that carried its jobs
drop_servers() {
	[ -n "$MATRIX_SPID" ] || return 0
	kill "$MATRIX_SPID" 2>/dev/null || true
	wait "$MATRIX_SPID" 2>/dev/null || true
	MATRIX_SPID=
}

boot_id() {
	on_server cat /proc/sys/kernel/random/boot_id 2>/dev/null || true
}

# --wait-up's command, or by default until the server answers over ssh with a boot id
# other than BOOT_ID (right after a cut the old system may still answer for a moment);
# with no BOOT_ID (a failed round's recovery), until it answers at all
wait_up() { # BOOT_ID
	if [ -n "$WAIT_UP" ]; then
		timeout "$WAIT_UP_TIMEOUT" sh -c "$WAIT_UP"
		return
	fi
	local deadline=$((SECONDS + WAIT_UP_TIMEOUT)) id
	while :; do
		id=$(boot_id)
		if [ -n "$id" ] && { [ -z "$1" ] || [ "$id" != "$1" ]; }; then return 0; fi
		[ "$SECONDS" -lt "$deadline" ] || { echo "no new boot of $SSH_HOST within ${WAIT_UP_TIMEOUT}s"; return 1; }
		sleep 5
	done
}

# the client's fio over every method: the round's seed and pattern (in the job files:
# fio lets no command-line option override what a job file sets), its saved state in AUX
client() { # AUX OUT_JSON LOG FIO_OPTIONS...
	local aux=$1 out=$2 log=$3
	shift 3
	job_files client
	common_vars "$PORT_BASE"
	mkdir -p "$aux"
	env "${VARS[@]}" timeout $((WRITE_TIME + 600)) fio "${JOB_FILES[@]}" "${SECTIONS[@]}" --aux-path="$aux" \
		--output-format=json --output="$out" "$@" >"$log" 2>&1 &
	MATRIX_CPID=$!
	local rc=0
	wait "$MATRIX_CPID" || rc=$?
	MATRIX_CPID=
	return "$rc"
}

# A round's writes until the trigger, the power cut, the server back. Returns non-zero
# (its reason in RD/error) when the round cannot say anything about durability.
write_and_cut() { # RD
	local rd=$1 id0 id1 rc=0
	printf '%s\n' "#!/bin/sh" "# the power cut, as fio's trigger: its status kept for the runner" \
		"sh -c $(sh_quote "$POWER_CUT") >$(sh_quote "$rd/power-cut.log") 2>&1" \
		"echo \$? >$(sh_quote "$rd/power-cut.rc")" >"$rd/trigger.sh"
	chmod +x "$rd/trigger.sh"
	# without the boot id from before the cut, no reboot can be seen after it
	id0=$(boot_id)
	[ -n "$id0" ] || { echo "the server's boot id could not be read before the cut: no reboot could be seen" \
		>"$rd/error"; return 1; }
	start_servers "$rd/server.log" || { echo "the servers did not listen (server.log)" >"$rd/error"; return 1; }
	step "$R" "writing for ${WRITE_TIME}s at $R_RATE IOPS a method, then the power cut" eta
	client "$rd" "$rd/write.json" "$rd/write.log" --trigger-timeout="$WRITE_TIME" \
		--trigger="$(sh_quote "$rd/trigger.sh")" --write_iolog="$rd/write.iolog" || rc=$?
	drop_servers
	if ! [ -s "$rd/power-cut.rc" ]; then
		echo "fio (status $rc) never ran the power cut: write.log" >"$rd/error"
		return 1
	fi
	[ "$(cat "$rd/power-cut.rc")" = 0 ] ||
		{ echo "the power cut failed with status $(cat "$rd/power-cut.rc"): power-cut.log" >"$rd/error"; return 1; }
	step "$R" "power cut; waiting for the server to come back"
	if ! wait_up "$id0" >"$rd/wait-up.log" 2>&1; then
		echo "the server was not back within ${WAIT_UP_TIMEOUT}s: wait-up.log" >"$rd/error"
		return 1
	fi
	id1=$(boot_id)
	if [ -z "$id1" ] || [ "$id1" = "$id0" ]; then
		echo "the server did not boot again (boot id '$id0' -> '$id1'): was its power cut?" >"$rd/error"
		return 1
	fi
	if [ -n "$BEFORE_RESTART" ] && ! DURABILITY_ROUND=$R DURABILITY_ROUND_DIR=$rd \
			sh -c "$BEFORE_RESTART" >"$rd/before-restart.log" 2>&1; then
		echo "--before-restart failed: before-restart.log" >"$rd/error"
		return 1
	fi
}

# Read back every write the round issued (the same offsets, in the same order, as reads
# checked against the round's pattern, fio going on past a bad block; one job after the
# other, so that their lines of the I/O log do not mix), then judge which of them fio
# saw acknowledged (matrix judge-round: its saved state and the read-back's I/O log).
# Leaves RD/result.tsv and RD/lost.tsv, or RD/error.
read_back() { # RD
	local rd=$1 rc=0 n
	n=$(python3 "$MATRIX" judge-round "$rd" --methods "$METHODS" --issued) || return 1
	start_servers "$rd/server-after.log" ||
		{ echo "the servers did not listen again after the power cut (server-after.log)" >"$rd/error"; return 1; }
	step "$R" "reading back the $n writes issued (at most) by a method"
	client "$rd/readback" "$rd/readback.json" "$rd/readback.log" --verify_only=1 --number_ios="$n" \
		--continue_on_error=verify --stonewall --write_iolog="$rd/readback.iolog" || rc=$?
	stop_server
	echo "$rc" >"$rd/readback.rc"
	python3 "$MATRIX" judge-round "$rd" --methods "$METHODS" || return 1
	awk -F'\t' '{ printf "  %-10s %7s writes acknowledged, %7s read back, %s lost\n", $1, $6, $7, $8 }' \
		"$rd/result.tsv" >&2
}

# a round's SEED (63 random bits: fio takes no more) and PATTERN (16 random bytes)
round_identity() {
	SEED=$((($(od -An -N4 -tu4 /dev/urandom) & 0x7fffffff) << 32 | $(od -An -N4 -tu4 /dev/urandom)))
	PATTERN=0x$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
}

step() { # ROUND TEXT [eta]
	local eta=''
	[ "${3:-}" != eta ] || [ "$1" -le 1 ] || eta=", ETA $(fmt_secs $(((SECONDS - START) * (ROUNDS - $1 + 1) / ($1 - 1))))"
	printf '[round %d/%d] bs %s iodepth %s batch %s: %s%s\n' "$1" "$ROUNDS" "$R_BS" "$R_QD" "$R_BATCH" \
		"$2" "$eta" >&2
}

on_interrupt() {
	trap - INT TERM
	echo >&2
	echo "$PROG: interrupted: stopping the client and the servers, keeping the rounds done" >&2
	stop_client
	stop_server
	echo "partial (interrupted)" >"$OUT/status"
	[ "$IN_VM" = 1 ] || build_report
	exit 130
}

rounds() {
	local rd failed=0
	mkdir -p "$OUT/rounds"
	echo "partial (running)" >"$OUT/status"
	write_options
	capture_env >"$OUT/env.json"
	trap on_interrupt INT TERM
	START=$SECONDS
	for ((R = 1; R <= ROUNDS; R++)); do
		round_shape "$R"
		rd=$OUT/rounds/r$R
		mkdir -p "$rd"
		# offsets and a pattern of the round's own: a lost write must not find a block
		# that an earlier round, an earlier run or another program left there
		round_identity
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$R" "$R_BS" "$R_QD" "$R_BATCH" "$R_RATE" "$SEED" "$PATTERN" \
			>"$rd/shape.tsv"
		if write_and_cut "$rd" && read_back "$rd"; then
			:
		else
			failed=$((failed + 1))
			echo "  round $R: $(cat "$rd/error" 2>/dev/null || echo failed)" >&2
			stop_server
			# the next round needs the server up: wait for it if it is going down or up
			wait_up '' >/dev/null 2>&1 || true
		fi
	done
	trap - INT TERM
	if [ "$failed" -gt 0 ]; then
		echo "partial ($failed of $ROUNDS rounds could not be judged)" >"$OUT/status"
	else
		echo complete >"$OUT/status"
	fi
	echo "$PROG: $ROUNDS rounds in $(fmt_secs $((SECONDS - START))), $failed could not be judged" >&2
}

write_options() {
	python3 -c 'import json, sys; print(json.dumps(dict(zip(sys.argv[1::2], sys.argv[2::2])), indent=1))' \
		methods "$METHODS" rounds "$ROUNDS" bs "$BS_LIST" iodepth "$QD_LIST" batch "$BATCH" \
		write_time "$WRITE_TIME" rate "${RATE:-auto}" server_ip "$SERVER_IP" \
		server_host "$SSH_HOST" server_mem "$SERVER_MEM" server_size "$SERVER_SIZE" \
		direct_write_to_pmem "$DIRECT_WRITE" native "$NATIVE" power_cut "$POWER_CUT" \
		wait_up "$WAIT_UP" before_restart "$BEFORE_RESTART" \
		command "$PROG ${ORIG_ARGS[*]:-}" >"$OUT/options.json"
}

build_report() {
	echo "$PROG: building the report" >&2
	python3 "$MATRIX" durability "$OUT" >/dev/null
	echo
	sed -n '/^## Verdicts/,/^## /p' "$OUT/report.md" | sed '1d;$d'
	echo "status: $(cat "$OUT/status")"
	echo "report: $OUT/report.html (and report.md, results.csv, lost.csv, rounds/)"
}

# ---- where ----

# two guests of the Soft-RoCE VM: this script again on node0, node1 the server
run_in_vm() {
	echo "$PROG: no RDMA device here: running in two guests of the Soft-RoCE VM (node1 the server)" >&2
	local vm_args=(-q --nodes 2 --pmem --timeout $((ROUNDS * (WRITE_TIME + 400) + 600))) dest=$OUT stage=''
	if ! inside_project "$OUT"; then
		stage=$ROOT/build/durability/.staging-$(date +%Y%m%d-%H%M%S)-$$
		OUT=$stage
	fi
	[ -z "$VM_KERNEL" ] || vm_args+=(--kernel "$VM_KERNEL")
	mkdir -p "$OUT" "$dest"
	local status=0
	trap 'echo "$PROG: interrupted: the VM is being torn down" >&2' INT TERM
	"$ROOT/scripts/softroce-vm" run "${vm_args[@]}" -- env RPMA_FIO_RDMA_CORE="$RDMA_CORE_PREFIX" \
		"$ROOT/scripts/run_durability.sh" "${ORIG_ARGS[@]}" --in-vm --out "$OUT" || status=$?
	trap - INT TERM
	[ -e "$OUT/status" ] || echo "partial (the VM run failed with status $status)" >"$OUT/status"
	# Ctrl-C tore the VM down in the middle of a round: say so, not "running"
	[ "$status" -ne 130 ] || echo "partial (interrupted)" >"$OUT/status"
	if [ -n "$stage" ]; then
		cp -a "$stage/." "$dest/" || die "cannot move the results from $stage to $dest: they stay in $stage"
		rm -rf "$stage"
		OUT=$dest
	fi
	[ ! -e "$OUT/options.json" ] || build_report
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ] || return "$status"
	exit_status
}

# inside the VM, on node0: node1 is the server, its power the host's to cut
vm_defaults() {
	SSH_HOST=node1
	SERVER_IP=$(getent hosts node1 | cut -d' ' -f1)
	[ -n "$SERVER_IP" ] || die "inside the VM, node1 has no address (run with --nodes 2)"
	POWER_CUT=${POWER_CUT:-$ROOT/$VM_POWER cut node1}
	WAIT_UP=${WAIT_UP:-$ROOT/$VM_POWER wait-up node1 $WAIT_UP_TIMEOUT}
	SERVER_MEM=${SERVER_MEM:-/dev/dax0.0}
}

check_tools() {
	local t
	for t in fio python3; do
		command -v "$t" >/dev/null || die "$t is missing: run scripts/deps.sh"
	done
	ENGINE_DIR=build
	[ "$NATIVE" = 0 ] || ENGINE_DIR=build/native
	for t in librpma_apm.so librpma_gpspm.so; do
		[ -f "$ROOT/$ENGINE_DIR/$t" ] || die "$ENGINE_DIR/$t is missing: run make $([ "$NATIVE" = 1 ] && echo native || echo engines)"
	done
	if [ "$NATIVE" = 1 ]; then
		[ -f "$ROOT/$ENGINE_DIR/jobs/durability-native.fio" ] || die "$ENGINE_DIR/jobs is missing: run make native"
		[ -n "$RDMA_CORE_PREFIX" ] || RDMA_CORE_PREFIX=$("$ROOT/scripts/rdma_core.sh") ||
			die "--native: scripts/rdma_core.sh failed"
	fi
}

main() {
	ORIG_ARGS=("$@")
	parse_args "$@"
	cd "$ROOT"
	# on hardware a region large enough for a fast RNIC's writes; in the VM's 64 MiB device DAX, 16 MiB a method
	if [ -z "$SERVER_SIZE" ]; then
		SERVER_SIZE=16m
		[ -z "$SSH_HOST" ] || [ "$IN_VM" = 1 ] || SERVER_SIZE=1g
	fi
	if [ "$DRY_RUN" = 1 ]; then
		dry_run
		return
	fi
	check_tools
	[ -n "$OUT" ] || OUT=$ROOT/build/durability/$(date +%Y%m%d-%H%M%S)
	case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
	if [ "$IN_VM" = 0 ] && [ -e "$OUT/options.json" ]; then
		die "--out: '$OUT' already holds results: give a new folder"
	fi
	# the VM's NVDIMM is a file of the host: RDMA writes reach it as they are placed
	[ -n "$SSH_HOST" ] || DIRECT_WRITE=1
	if [[ ,$METHODS, == *,apm* ]] && [ "$DIRECT_WRITE" = 0 ]; then
		echo "$PROG: note: without --direct-write the APM server does not declare that RDMA writes" \
			"reach PMem directly, and APM's client then flushes for visibility only, which does not" \
			"make writes persistent: give --direct-write where the platform writes into PMem directly" \
			"(DDIO off for the RNIC's port, or eADR; docs/hardware.md)" >&2
	fi
	if [ "$IN_VM" = 1 ]; then
		vm_defaults
	elif [ -z "$SSH_HOST" ]; then
		compgen -G '/sys/class/infiniband/*' >/dev/null &&
			die "this machine has an RDMA device: name the server with --server HOST (its power is cut)"
		run_in_vm
		return
	else
		SERVER_IP=${SERVER_IP:-$SSH_HOST}
		ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" true ||
			die "cannot ssh to '$SSH_HOST' without a password (key-based, BatchMode=yes)"
	fi
	mkdir -p "$OUT"
	rounds
	[ "$IN_VM" = 1 ] || build_report
	exit_status
}

# 0: every acknowledged write survived; 1: a method lost some; 3: a round could not
# be judged (and none lost any)
exit_status() {
	if cat "$OUT"/rounds/*/result.tsv 2>/dev/null | awk -F'\t' '$8 > 0 { found = 1 } END { exit !found }'; then
		return 1
	fi
	# an acknowledged write not read back: nothing can be said of it
	if cat "$OUT"/rounds/*/result.tsv 2>/dev/null | awk -F'\t' '$9 > 0 { found = 1 } END { exit !found }'; then
		return 3
	fi
	grep -q '^complete' "$OUT/status" 2>/dev/null || return 3
}

# (sourced by tests/matrix/test_durability.sh: the functions only)
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
