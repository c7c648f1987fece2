#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/test_resume.sh -- run_matrix.sh --resume, on the host: the runner sourced,
# its measure() driven with fakes of fio, perftest and the environment that write the
# files real runs would (a unit test of resuming: make test-matrix-vm measures for real).
# One plan (apm ours and the peer's twin at depth 1 and 8, each with a cost run, the
# depth-1 ones with an instructions run; perftest at both depths; pairs until decided)
# is measured without a break into folder A, and into folder B (a name with a space)
# with two breaks, each resumed as --resume does it: SIGINT through the runner's trap
# while it waits on a client (Ctrl-C), then SIGKILL, no trap, with a truncated fio JSON
# left (a VM torn down). Checked: the interrupted runner exits 130 with its client
# stopped, the run cut short marked .failed; options.json's "args" are the arguments as
# given and --resume runs the runner again with them, --resumed --out B; every run
# finished before a break is kept (its files from then, not run again), every run cut
# short runs again, each on the port it has in A; the pairs kept are not decided again;
# at the end B's runs are A's (names and figures), complete, no .failed, the first
# env.json kept and each resume's beside it. Which runs a resume keeps, state by state.
# And --resume's refusals: a folder without options.json or without "args", other
# options, a plan that changed; a complete folder only has its report rebuilt; the real
# --resume runs the runner on the stored arguments.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$ROOT/build/test-matrix/resume
# shellcheck source=scripts/run_matrix.sh
. "$ROOT/scripts/run_matrix.sh"
set -euo pipefail

A=$WORK/a B="$WORK/run b"
# shellcheck disable=SC2054 # (commas in values: lists of the runner's options)
ARGS=(--methods apm,raw --impl ours,peer --mem malloc --rw write --lat-bs 4k --bw-bs none --read-bs none
	--qd 8 --repeats 4 --max-repeats 6 --settle 0 --runtime 1 --ramp 0 --instructions=sync --port 7500)
# set per runner: its phase (written into each run's files), the log of its runs, the run
# to cut short (a file name's stem) and how (INT: through the runner's trap; KILL: none)
PHASE=0 LOG='' CUT='' CUT_HOW=''

# a client's fio JSON: IOPS, I/Os, and the phase that wrote it (a key nothing reads)
fio_json() { # IOPS IOS
	awk -v iops="$1" -v ios="$2" -v phase="$PHASE" 'BEGIN {
		printf "{\"fake phase\": %d, \"jobs\": [{\"write\": {\"total_ios\": %d, \"iops\": %f, " \
			"\"bw_bytes\": %f, \"lat_ns\": {\"mean\": %f}, \"clat_ns\": {\"mean\": %f}}, " \
			"\"read\": {\"total_ios\": 0, \"iops\": 0, \"bw_bytes\": 0, \"lat_ns\": {\"mean\": 0}, " \
			"\"clat_ns\": {\"mean\": 0}}, \"usr_cpu\": 1, \"sys_cpu\": 1, \"job_runtime\": 1000}]}\n",
			phase, ios, iops, iops * 4096, 1e9 / iops, 1e9 / iops
	}'
}

# The run in progress cut short: fio's JSON as it leaves it, then a signal to the runner.
# INT: fio cut short writes a whole JSON of the time it ran; the signal comes while the
# runner waits on its client (a sleep, which on_interrupt must stop). KILL: a part of it.
cut_short() { # STEM IOPS
	local runner=$BASHPID doc sig=INT
	if [ "$CUT_HOW" = KILL ]; then
		doc=$(fio_json "$2" 2000)
		printf '%s' "${doc:0:60}" >"$1.json"
		kill -KILL "$runner"
	fi
	fio_json 17 17 >"$1.json"
	# (a shell started with SIGINT ignored, as in the background, cannot trap it: TERM
	# then, the same trap)
	[[ $(trap -p INT) == *on_interrupt* ]] || sig=TERM
	sleep 30 &
	MATRIX_CPID=$!
	echo "$MATRIX_CPID" >"$WORK/client.pid"
	(sleep 0.3; kill -"$sig" "$runner") &
	wait "$MATRIX_CPID"
	echo "the runner's trap did not end it" >&2
	exit 1
}

# fake run_fio STEM IMPL METHOD RW BS QD SYNC NJ PORT COST HOSTS: the files fio leaves.
# IOPS by pair R: depth 1 ours 1.10x the peer's (decided after 6 pairs, the fewest whose
# interval covers 95%), depth 8 1.20x and 0.85x by turns (to --max-repeats)
run_fio() {
	local stem=$1 impl=$2 qd=$6 port=$9 cost=${10:-0} name=${1##*/} r iops
	echo "$name $port" >>"$LOG"
	echo "the $impl server listened on $port" >"$stem.server.log"
	echo "client of phase $PHASE" >"$stem.client.log"
	fio_json 500 1000 >"$stem.server.json"
	if [ "$cost" != 0 ]; then
		fio_json 1000 2000 >"$stem.json"
		if [ "$cost" = 1 ]; then
			echo '{"post_send_calls": 2000, "send_wrs": 2000, "recv_wrs": 0, "completions": 2000}' |
				tee "$stem.client.verbs.json" >"$stem.server.verbs.json"
		else
			echo "totals: 1234567" >"$stem.client.callgrind"
		fi
		echo 4100 >"$stem.packets"
		return
	fi
	r=${stem##*-r}
	iops=$(awk -v impl="$impl" -v qd="$qd" -v r="$r" 'BEGIN {
		ratio = qd == 1 ? 1.10 * (1 + 0.005 * (r % 3 - 1)) : (r % 2 ? 1.20 : 0.85)
		print 1000 * (impl == "ours" ? ratio : 1) }')
	[ "$name" != "$CUT" ] || cut_short "$stem" "$iops"
	fio_json "$iops" 2000 >"$stem.json"
}

# fake run_perftest STEM TOOL BS QD PORT: its server's log and the client's output
run_perftest() {
	local stem=$1 tool=$2 bs=$3 port=$5 name=${1##*/}
	echo "$name $port" >>"$LOG"
	echo "the $tool server listened on $port (phase $PHASE)" >"$stem.server.log"
	if [[ $tool == *_lat ]]; then
		printf ' #bytes #iterations t_min t_max t_typical t_avg t_stdev p99 p99.9\n'
		printf ' %s 1000 195.00 900.00 199.00 200.00 3.0 250.00 800.00\n' "$bs"
	else
		printf ' #bytes #iterations BW_peak BW_average MsgRate\n %s 1000 90.00 88.00 0.022528\n' "$bs"
	fi >"$stem.perftest.txt"
}
capture_env() { echo "{\"phase\": $PHASE}"; }
# (after a break the report is not needed here: the figures are compared at the end)
build_report() { echo "report of $OUT built"; }

# the runner as main runs it once it has its arguments (the fakes above in place), in a
# subshell of its own (its globals, its traps); its stderr and stdout into PROGRESS, its
# exit status into RC. (set -e inside: a subshell in an || list would run without it.)
PROGRESS=$WORK/progress.log
run_runner() { # PHASE LOG CUT CUT_HOW ARGS...
	PHASE=$1 LOG=$2 CUT=$3 CUT_HOW=$4
	shift 4
	echo "== phase $PHASE: $*" >>"$PROGRESS"
	set +e
	# (in braces: the shell's notice of a subshell killed goes there, not to our output)
	{
		(
			set -e
			ORIG_ARGS=("$@")
			parse_args "$@"
			measure
		) >>"$PROGRESS" 2>&1
	} 2>/dev/null
	RC=$?
	set -e
}

# --resume DIR as main does it, with exec faked: the command it would run, into RESUMED
resume_command() { # DIR
	rm -f "$WORK/exec.args"
	(
		exec() { printf '%s\0' "$@" >"$WORK/exec.args"; }
		resume --resume "$1"
	) >>"$PROGRESS" 2>&1
	RESUMED=()
	[ ! -e "$WORK/exec.args" ] || mapfile -d '' -t RESUMED <"$WORK/exec.args"
}

# resume B in PHASE, cutting CUT short by CUT_HOW (none: to the end)
resume_b() { # PHASE CUT CUT_HOW
	resume_command "$B"
	run_runner "$1" "$WORK/b.log" "$2" "$3" "${RESUMED[@]:1}"
}

failed=0
expect() { # WHAT COMMAND...
	if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; failed=$((failed + 1)); fi
}
is() { [ "$1" = "$2" ] || { echo "  got '$1', want '$2'"; return 1; }; }
# the run files of a result folder, one a line
run_names() { (cd "$1/runs" && ls); }
# the phases that wrote B's runs STEM...
phases() { local s; for s; do jq '."fake phase"' "$B/runs/$s.json"; done | tr '\n' ' '; }
# ARG... as a JSON list (none holds a newline)
json_list() { printf '%s\n' "$@" | jq -nRc '[inputs]'; }
client_stopped() { ! kill -0 "$(cat "$WORK/client.pid")" 2>/dev/null; }
# two folders' figures as the report has them (every point's runs, costs, instructions):
# the points where they differ
same_figures() { # DIR_A DIR_B
	(cd "$ROOT" && python3 - "$@" <<'PY'
import json, sys
sys.path.insert(0, "scripts/matrix")
from rpmamatrix import aggregate
a, b = ({r["id"]: json.dumps(r, sort_keys=True, default=str) for r in aggregate.summarize(d)}
        for d in sys.argv[1:])
differ = sorted(set(a) ^ set(b) | {i for i in set(a) & set(b) if a[i] != b[i]})
print("  they differ at:", *differ) if differ else None
sys.exit(bool(differ) or not a)
PY
	)
}

rm -rf "$WORK"
mkdir -p "$WORK"

# A: without a break
run_runner 1 "$WORK/a.log" '' '' "${ARGS[@]}" --out "$A"
expect "A: measured to the end, complete" is "$RC $(cat "$A/status")" "0 complete"

# B: two breaks, each resumed
run_runner 1 "$WORK/b.log" p001-r5 INT "${ARGS[@]}" --out "$B"
expect "B 1: SIGINT in a run: exit 130, partial (interrupted)" \
	is "$RC $(cat "$B/status")" "130 partial (interrupted)"
expect "B 1: the client of the run cut short stopped" client_stopped
expect "B 1: the run cut short marked failed" grep -qx "interrupted: cut short by a signal" "$B/runs/p001-r5.failed"
expect "B 1: options.json's args are the arguments as given" \
	is "$(jq -c .args "$B/options.json")" "$(json_list "${ARGS[@]}" --out "$B")"
resume_command "$B"
expect "--resume B: the runner again with those arguments, --resumed --out B" \
	is "$(printf '%s\n' "${RESUMED[@]}")" \
	"$(printf '%s\n' "$ROOT/scripts/run_matrix.sh" "${ARGS[@]}" --out "$B" --resumed --out "$B")"

resume_b 2 p003-r5 KILL
expect "B 2: the runs before the break kept, the one cut short run again" grep -qxF \
	"resuming $B: 8 runs kept (and 0 cost and instructions runs), 1 failed or cut short: run again; 24 runs planned" \
	"$PROGRESS"
expect "B 2: killed (no trap): partial (running), p003-r5.json truncated" \
	is "$RC $(cat "$B/status") $(jq empty "$B/runs/p003-r5.json" 2>/dev/null && echo parses)" "137 partial (running) "
resume_b 3 '' ''
expect "B 3: resumed to the end, complete" is "$RC $(cat "$B/status")" "0 complete"
expect "B 3: the pairs kept not decided again (depth 1: at 6 pairs; depth 8: at 4, 5 and 6)" \
	is "$(sed -n '/^== phase 3/,$p' "$PROGRESS" | grep -o '^      [0-9] pairs' | tr -d ' ' | tr '\n' ' ')" \
	"6pairs 4pairs 5pairs 6pairs "

expect "B's run files are A's" diff <(run_names "$A") <(run_names "$B")
expect "B: no .failed left" is "$(find "$B/runs" -name '*.failed' | wc -l)" 0
# B's runs over its phases, less the first try of each run cut short: A's, ports and all
want_b_log() {
	diff "$WORK/a.log" <(awk '($1 == "p001-r5" || $1 == "p003-r5") && !seen[$1]++ { next } { print }' "$WORK/b.log")
}
expect "B: each run measured once, the ones cut short again, each on A's port" want_b_log
expect "B: runs kept from before the breaks (p001-r1, p003-r4), the ones cut short run again" \
	is "$(phases p001-r1 p003-r4 p001-r5 p003-r5 p003-cost)" "1 2 2 3 3 "
expect "B: env.json the first part's, each resume's beside it" \
	is "$(cat "$B/env.json" "$B"/env-resume-*.json | jq -c .phase | tr '\n' ' ')" "1 2 3 "
expect "B: pairs until decided, as in A: 6 at depth 1, 6 (--max-repeats) at depth 8" \
	is "$(run_names "$B" | grep -cE '^p00[12]-r[0-9]+\.json$') $(run_names "$B" | grep -cE '^p00[34]-r[0-9]+\.json$')" "12 12"
expect "B's figures (runs, costs, instructions) are A's" same_figures "$A" "$B"

# what a resume keeps of the runs a break left, state by state
P=$WORK/prune
mkdir -p "$P/runs"
fio_json 1000 2000 >"$P/runs/p001-r1.json"					# finished
{ echo "note: the engine's"; fio_json 1000 2000; } >"$P/runs/p001-r2.json"	# notes first
fio_json 1000 2000 >"$P/runs/p001-r3.json"					# failed
echo "fio exited with 1" >"$P/runs/p001-r3.failed"
echo '{"jobs": [{"wri' >"$P/runs/p001-r4.json"					# truncated
echo "started" >"$P/runs/p001-r5.client.log"					# only logs
fio_json 1000 2000 >"$P/runs/p001-cost.json"					# no packets yet
fio_json 1000 2000 >"$P/runs/p002-cost.json"					# finished
echo 4100 >"$P/runs/p002-cost.packets"
printf ' #bytes #iterations\n' >"$P/runs/p003-r1.perftest.txt"			# no result line
printf ' #bytes #iterations\n 4096 1000 195.00 900.00\n' >"$P/runs/p003-r2.perftest.txt"
expect "a resume keeps the runs finished (fio's notes before its JSON too), removes the rest" \
	is "$(python3 "$MATRIX" prune-runs "$P/runs"; run_names "$P" | tr '\n' ' ')" \
	"3 1 5
p001-r1.json p001-r2.json p002-cost.json p002-cost.packets p003-r2.perftest.txt "

# a changed plan is refused, the folder left as it was
C=$WORK/c
cp -a "$B" "$C"
echo "partial (interrupted)" >"$C/status"
sed -i '$d' "$C/plan.tsv"
cp "$C/plan.tsv" "$WORK/plan.before"
resume_command "$C"
run_runner 4 "$WORK/c.log" '' '' "${RESUMED[@]:1}"
plan_refused() {
	[ "$RC" = 2 ] && grep -q "error: --resume: the options of $C/options.json now plan other points than its plan.tsv" "$PROGRESS" &&
		cmp -s "$C/plan.tsv" "$WORK/plan.before" && grep -qx "partial (interrupted)" "$C/status" && [ ! -e "$WORK/c.log" ]
}
expect "--resume of a folder whose plan changed: refused, plan.tsv and status kept" plan_refused

# a complete folder: its report rebuilt, nothing run
resume_command "$A"
expect "--resume of a complete folder: its report rebuilt, nothing run" \
	is "${#RESUMED[@]} $(tail -n 2 "$PROGRESS" | tr '\n' ' ')" \
	"0 test_resume.sh: $A is complete: nothing to resume; rebuilding its report report of $A built "

# the runner's refusals, from the command line
runner_says() { # TEXT ARGS...: the runner fails with status 2 saying TEXT
	local out rc=0
	out=$("$ROOT/scripts/run_matrix.sh" "${@:2}" 2>&1) || rc=$?
	if [ "$rc" != 2 ] || ! grep -qxF -- "$1" <<<"$out"; then
		echo "  status $rc: $out"
		return 1
	fi
}
mkdir -p "$WORK/empty"
expect "--resume of a folder without options.json: refused, naming it" runner_says \
	"run_matrix.sh: error: --resume: '$WORK/empty' has no options.json: not a result folder of run_matrix.sh, nothing to resume" \
	--resume "$WORK/empty"
expect "--resume DIR and another option after it: refused" runner_says \
	"run_matrix.sh: error: --resume takes no other option: it continues DIR with the options it was started with" \
	--resume "$B" --quick
expect "--resume DIR and another option before it: refused" runner_says \
	"run_matrix.sh: error: --resume takes no other option: it continues DIR with the options it was started with" \
	--quick --resume "$B"
echo '{"command": "run_matrix.sh --quick"}' >"$WORK/empty/options.json"
touch "$WORK/empty/plan.tsv"
expect "--resume of a folder from before --resume (no args): refused" runner_says \
	"run_matrix.sh: error: --resume: $WORK/empty/options.json holds no \"args\" (a run from before --resume): it cannot be resumed" \
	--resume "$WORK/empty"
# (stored arguments the runner refuses: it stops there, before measuring anything)
D=$WORK/refused
mkdir -p "$D"
cp "$B/plan.tsv" "$D/"
echo '{"args": ["--repeats", "0", "--out", "a b"]}' >"$D/options.json"
expect "--resume runs the runner on the stored arguments (here refused: --repeats 0)" runner_says \
	"run_matrix.sh: error: --repeats: '0' is not a positive number" --resume "$D"

[ "$failed" -eq 0 ] || { echo "progress:"; cat "$PROGRESS"; exit 1; }
