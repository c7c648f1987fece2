#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run_matrix.sh -- the project's main job: sweep block size x queue depth x
# persistency method (APM, GPSPM busy-polling and sleeping, the no-flush
# baseline and perftest's raw verbs) and leave a result folder with raw fio
# JSON, one tidy CSV, gnuplot charts and a Markdown + HTML report.
#
# Where it runs: without arguments on a machine with no RDMA device, in the
# Soft-RoCE VM (it re-runs itself inside); with a local RDMA device, on it;
# with --server HOST, the server side over ssh. Details: docs/matrix.md.
set -euo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MATRIX=$ROOT/scripts/matrix/matrix
# shellcheck source=scripts/matrix/lib.sh
. "$ROOT/scripts/matrix/lib.sh"

ORIG_ARGS=()
RUN_STEM=''		# the run in progress (runs/<id>-r<k>, -cost, -instr): on_interrupt marks it
RDMA_CORE_PREFIX=${RPMA_FIO_RDMA_CORE:-}

usage() {
	python3 "$MATRIX" usage "$PROG" "$ROOT"
}

# The options, every value checked before anything runs (scripts/matrix/rpmamatrix/
# runargs.py: one line naming a bad one), into the runner's variables (PRESET, REPEATS,
# ..., PLAN_ARGS: the plan's options, CLIENT_HOSTS, WHERE: where the servers run)
parse_args() {
	local settings
	settings=$(python3 "$MATRIX" args "$PROG" "$ROOT" "$@") || exit
	eval "$settings"
	if [ "${SHOW_HELP:-0}" = 1 ]; then usage; exit 0; fi
}

# --mem PATH on the --server host, before the first run (a local one: runargs.py)
check_remote_mem() {
	[ "$SERVER_MEM" != malloc ] || return 0
	on_server test -e "$SERVER_MEM" ||
		die "--mem: '$SERVER_MEM' does not exist on $SSH_HOST (a device-DAX device or a file on an fsdax mount)"
}

# the programs and builds a run needs (scripts/matrix/rpmamatrix/tools.py), and --native's
# rdma-core
check_tools() {
	python3 "$MATRIX" check-tools "$PROG" "$ROOT" "${ORIG_ARGS[@]}" || exit
	[ "$NATIVE" = 1 ] || return 0
	if [ -z "$RDMA_CORE_PREFIX" ]; then
		RDMA_CORE_PREFIX=$("$ROOT/scripts/rdma_core.sh") || die "--native: scripts/rdma_core.sh failed"
	fi
	[ -e "$RDMA_CORE_PREFIX/lib/libibverbs.so.1" ] ||
		die "--native: no libibverbs in '$RDMA_CORE_PREFIX/lib': run make native"
}

# ---- measuring (here, or inside the VM) ----

# options.json: the settings, and "args", the arguments as the user gave them (what
# --resume runs again): runargs.py's OPTIONS_JSON
write_options() {
	echo "$OPTIONS_JSON" >"$OUT/options.json"
}

on_interrupt() {
	trap - INT TERM
	# the run in progress was cut short (fio may still write its JSON): it does not count,
	# and --resume runs it again (first: a second Ctrl-C while stopping ends this at once)
	[ -z "$RUN_STEM" ] || echo "interrupted: cut short by a signal" >"$RUN_STEM.failed"
	echo >&2
	echo "$PROG: interrupted: stopping the server and client, keeping the partial results" >&2
	stop_client
	stop_server
	remove_peer_scratch
	stop_load "$RUN_STEM"
	stop_fio_daemons
	echo "partial (interrupted)" >"$OUT/status"
	# in the VM the host builds the report once the VM is down
	[ "$IN_VM" = 1 ] || build_report
	exit 130
}

measure() {
	mkdir -p "$OUT/runs"
	# (resumed, the folder's plan stays: the runs kept are measurements of its points;
	# runargs.py checked the options plan the same)
	[ "$RESUME" = 1 ] || python3 "$MATRIX" plan --preset "$PRESET" "${PLAN_ARGS[@]}" >"$OUT/plan.tsv"
	echo "partial (running)" >"$OUT/status"
	if [ "$RESUME" = 1 ]; then
		# options.json stays (its "args" started the run) and so does env.json, the first
		# part's environment: each resume's goes beside it
		local n=1
		while [ -e "$OUT/env-resume-$n.json" ]; do n=$((n + 1)); done
		capture_env >"$OUT/env-resume-$n.json"
	else
		write_options
		capture_env >"$OUT/env.json"
	fi
	make_peer_scratch
	trap on_interrupt INT TERM
	run_schedule
	trap - INT TERM
	remove_peer_scratch
}

# The runs of the plan as scripts/matrix/rpmamatrix/schedule.py asks for them, one at a
# time (which, in what order, on which ports: interleaved pairs until decided, --settle,
# the runs --resume keeps; the progress and the status are its), each status told back
run_schedule() {
	local run status from to pid
	coproc SCHEDULE { python3 "$MATRIX" schedule "$OUT" "$PROG" --repeats "$REPEATS" \
		--max-repeats "$MAX_REPEATS" --settle "$SETTLE" --margin "$MARGIN" --port-base "$PORT_BASE" \
		--costs "$COSTS" --instructions "$INSTRUCTIONS" --resume "$RESUME" --clients "${#CLIENT_HOSTS[@]}"; }
	# (copies, and the pid: bash drops the coproc's own when it ends)
	pid=$SCHEDULE_PID
	exec {from}<&"${SCHEDULE[0]}" {to}>&"${SCHEDULE[1]}"
	while read -r -a run <&"$from"; do
		status=0
		do_run "${run[@]}" || status=$?
		echo "$status" >&"$to"
	done
	exec {from}<&- {to}>&-
	wait "$pid" || die "the schedule of $OUT failed (scripts/matrix/matrix schedule)"
}

# One run: NAME (runs/<id>-r<k>, -cost, -instr), a point's fields, COST (0 measured, 1 the
# cost run, 2 instructions) with IOS I/Os a job, LOAD (--server-load), TOOL (perftest's)
do_run() { # NAME IMPL METHOD RW BS QD SYNC NJ PORT COST HOSTS IOS LOAD TOOL
	local stem=$OUT/runs/$1 status=0
	RUN_STEM=$stem
	start_load "${13}" "$stem"
	if [ "$3" = raw ]; then
		run_perftest "$stem" "${14}" "$5" "$6" "$9" || status=1
	else
		run_fio "$stem" "${@:2:11}" || status=1
	fi
	stop_load "$stem"
	RUN_STEM=
	report_failure "$stem"
	return "$status"
}

report_failure() {
	[ -e "$1.failed" ] || return 0
	echo "  failed: $(cat "$1.failed") (logs: $1.*)" >&2
	tail -n 3 "$1".*.log 2>/dev/null | sed 's/^/  | /' >&2
}

# the report built, and its findings and summary table, its status and where it is
build_report() {
	echo "$PROG: building the report" >&2
	python3 "$MATRIX" build "$OUT" >/dev/null
	python3 "$MATRIX" summary "$OUT"
}

# Re-run this script in the Soft-RoCE VM; the report is built here afterwards
# (also after Ctrl-C, from what the VM left). The guest writes only into the project
# folder (anything else dies with its overlay): a result folder outside it is measured
# into build/matrix/.staging-* and moved to --out afterwards.
run_in_vm() {
	echo "$PROG: no RDMA device here: running in the Soft-RoCE VM (scripts/softroce-vm)" >&2
	local vm_args=(-q --timeout 7200) dest=$OUT stage=''
	if ! inside_project "$OUT"; then
		stage=$ROOT/build/matrix/.staging-$(date +%Y%m%d-%H%M%S)-$$
		echo "$PROG: --out is outside the project folder, which is all the VM can write to:" \
			"measuring into $stage, moved to $dest at the end" >&2
		OUT=$stage
	fi
	[ -z "$VM_KERNEL" ] || vm_args+=(--kernel "$VM_KERNEL")
	# (--pmem inside too: there an RDMA device is, and the default would be DRAM)
	local pmem_arg=()
	[ "$VM_PMEM" = 0 ] || { vm_args+=(--pmem); pmem_arg=(--pmem); }
	# (--cxl is among the user's options: the VM side takes it from them)
	[ "$VM_CXL" = 0 ] || vm_args+=(--cxl)
	# (Soft-iWARP counts registrations against the locked-memory limit, also root's)
	[ "$VM_TRANSPORT" != iwarp ] || vm_args+=(--transport iwarp --env RPMA_FIO_MEMLOCK=unlimited)
	mkdir -p "$OUT" "$dest"
	# --resume: the runs done so far go into the stage, to be kept there
	if [ -n "$stage" ] && [ "$RESUME" = 1 ]; then
		cp -a "$dest/." "$stage/" || die "--resume: cannot copy $dest into $stage for the VM"
	fi
	local status=0
	trap 'echo "$PROG: interrupted: the VM is being torn down" >&2' INT TERM
	# (our --out last: it wins over the one the user gave)
	"$ROOT/scripts/softroce-vm" run "${vm_args[@]}" -- env RPMA_FIO_RDMA_CORE="$RDMA_CORE_PREFIX" \
		"$ROOT/scripts/run_matrix.sh" "${ORIG_ARGS[@]}" --in-vm "${pmem_arg[@]}" --out "$OUT" || status=$?
	trap - INT TERM
	if [ ! -e "$OUT/status" ]; then
		if [ "$status" -eq 0 ]; then
			echo "partial (the VM run ended without writing any result into $OUT)" >"$OUT/status"
		else
			echo "partial (the VM run failed with status $status)" >"$OUT/status"
		fi
	fi
	grep -q '^complete' "$OUT/status" || [ "$status" -eq 0 ] ||
		echo "partial (the VM run ended with status $status)" >"$OUT/status"
	if [ -n "$stage" ]; then
		cp -a "$stage/." "$dest/" || die "cannot move the results from $stage to $dest: they stay in $stage"
		# --resume: the files of the runs run again (removed in the stage) go from dest too
		if [ "$RESUME" = 1 ]; then
			local f
			while IFS= read -r -d '' f; do
				[ -e "$stage/$f" ] || rm -f "$dest/$f"
			done < <(cd "$dest" && find . -type f -print0)
		fi
		rm -rf "$stage"
		OUT=$dest
	fi
	if [ -e "$OUT/plan.tsv" ]; then
		build_report
	fi
	return "$status"
}

# --resume DIR: DIR's interrupted run continued: this script again with the arguments
# it was started with (options.json's "args": scripts/matrix/rpmamatrix/resume.py),
# --resumed --out DIR (measure keeps the runs done, runs the rest)
resume() { # --resume DIR
	local stored shown='(none: the defaults)'
	stored=$(python3 "$MATRIX" resume-args "$PROG" "$ROOT" "$@") || exit
	eval "$stored"
	if [ "$RESUME_COMPLETE" = 1 ]; then
		echo "$PROG: $OUT is complete: nothing to resume; rebuilding its report" >&2
		build_report
		return
	fi
	[ ${#STORED_ARGS[@]} -eq 0 ] || shown=$(printf '%q ' "${STORED_ARGS[@]}")
	echo "$PROG: continuing $OUT with the options it was started with: ${shown% }" >&2
	exec "$ROOT/scripts/run_matrix.sh" "${STORED_ARGS[@]}" --resumed --out "$OUT"
}

main() {
	case ${1:-} in
	durability) shift; exec "$ROOT/scripts/run_durability.sh" "$@" ;;
	# a result folder from the sweep job files' fio JSON (scripts/matrix/rpmamatrix/sweep.py)
	report) shift; python3 "$MATRIX" sweep-report "$PROG" "$ROOT" "$@"; return ;;
	compare)
		[ $# -ge 3 ] || die "compare needs two result folders: $PROG compare DIR_A DIR_B [OUT]"
		python3 "$MATRIX" compare "$2" "$3" "${4:-$ROOT/build/matrix/compare-$(date +%Y%m%d-%H%M%S)}"
		return ;;
	--resume) resume "$@"; return ;;
	esac
	ORIG_ARGS=("$@")
	parse_args "$@"
	# a dry run only prints the plan: it needs neither the engines nor the tools
	if [ "$DRY_RUN" = 1 ]; then
		python3 "$MATRIX" dry-run "$PROG" "$ROOT" "$@"
		return
	fi
	check_tools
	cd "$ROOT"
	case $WHERE in
	in-vm)
		[ "${RPMA_FIO_MEMLOCK:-}" != unlimited ] || ulimit -l unlimited
		measure
		return ;;
	vm) run_in_vm; return ;;
	device) die "this machine has an RDMA device: give its address with --server-ip" ;;
	ssh)
		ssh -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" true ||
			die "cannot ssh to '$SSH_HOST' without a password (key-based, BatchMode=yes)"
		check_remote_mem ;;
	esac
	mkdir -p "$OUT"
	[ ${#CLIENT_HOSTS[@]} = 0 ] || start_fio_daemons
	measure
	stop_fio_daemons
	build_report
}

# (sourced by tests/matrix/test_schedule.sh, which drives measure() with fake runs)
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
