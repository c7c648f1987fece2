#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/test_schedule.sh -- the runner's schedule of ours vs the peer, on the host:
# scripts/run_matrix.sh sourced, its measure() driven over a plan of two points with
# both implementations, fio's runs replaced by fakes that write the JSON fio would
# (a unit test of the schedule: the runs themselves are make test-matrix-vm's). The
# host's speed swings from pair to pair by up to 2x, on both sides alike. Checked:
# the runs alternate ours, peer, ours, peer; a point where ours is 10% ahead in every
# pair is decided after 6 pairs (the fewest whose interval covers 95%: 5 say undecided,
# 93.8%) although the two sides' min..max ranges overlap; a
# point whose pairs disagree (1.20x, 0.85x...) runs to --max-repeats and is reported
# equal within a margin, not ahead or behind; the report (benchmarks) says so, with the
# looks' joint coverage; decide's exit status (stop, one more pair, a failure). And
# --settle: a point of one implementation stops after 2 runs that agree. And
# --server-load: the real burner around each load point's run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$ROOT/build/test-matrix/schedule
# shellcheck source=scripts/run_matrix.sh
. "$ROOT/scripts/run_matrix.sh"
set -euo pipefail

# the host's speed at pair R: the same for ours and the peer's run of the pair
DRIFT=(1.0 0.6 1.3 0.8 1.1 0.5 1.2 0.9 0.7 1.0 1.0 1.0)

# fake run_fio STEM IMPL METHOD RW BS QD ...: a client's fio JSON of the IOPS the
# scenario gives (depth 1: ours 1.10x the peer's; depth 8: 1.20x, 0.85x by turns)
run_fio() {
	local stem=$1 impl=$2 qd=$6 r
	r=${stem##*-r}
	# (the time a run takes: the --server-load scenario's burner has it to burn)
	[ "${FAKE_RUN_SECS:-0}" = 0 ] || sleep "$FAKE_RUN_SECS"
	echo "$impl $qd r$r" >>"$WORK/order.log"
	awk -v impl="$impl" -v qd="$qd" -v r="$r" -v drift="${DRIFT[$((r - 1))]}" 'BEGIN {
		ratio = qd == 1 ? 1.10 * (1 + 0.005 * (r % 3 - 1)) : (r % 2 ? 1.20 : 0.85)
		iops = 1000 * drift * (impl == "ours" ? ratio : 1)
		lat = 1e9 / iops * qd
		printf "{\"jobs\": [{\"write\": {\"total_ios\": %d, \"iops\": %f, \"bw_bytes\": %f, " \
			"\"lat_ns\": {\"mean\": %f}, \"clat_ns\": {\"mean\": %f}}, \"read\": {\"total_ios\": 0, " \
			"\"iops\": 0, \"bw_bytes\": 0, \"lat_ns\": {\"mean\": 0}, \"clat_ns\": {\"mean\": 0}}, " \
			"\"usr_cpu\": 1, \"sys_cpu\": 1, \"job_runtime\": 2000}]}\n", 2 * iops, iops, iops * 4096, lat, lat
	}' >"$stem.json"
}
capture_env() { echo '{}'; }

rm -rf "$WORK"
mkdir -p "$WORK"
# the runner's settings as its command line gives them (parse_args: runargs.py)
POINTS=(--methods apm --lat-bs 4k --bw-bs none --read-bs none --qd 8 --rw write --runtime 2 --ramp 1 --no-costs)
parse_args "${POINTS[@]}" --impl ours,peer --mem malloc --repeats 3 --max-repeats 7 --margin 5 --out "$WORK/out"
measure 2>"$WORK/progress.log"

failed=0
expect() { # WHAT COMMAND...
	if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; failed=$((failed + 1)); fi
}
want_order() {
	local want=() r
	for ((r = 1; r <= 6; r++)); do want+=("ours 1 r$r" "peer 1 r$r"); done
	for ((r = 1; r <= 7; r++)); do want+=("ours 8 r$r" "peer 8 r$r"); done
	diff <(printf '%s\n' "${want[@]}") "$WORK/order.log"
}
expect "runs interleaved: ours, peer a pair at a time; 6 pairs at depth 1, 7 at depth 8" want_order
expect "depth 1 undecided at 5 pairs: [min..max] covers 93.8%, not 95%" \
	grep -q '^      5 pairs: IOPS ours/peer undecided: 1.10x (1.09..1.11, n=5, 93.8%); a 95% interval needs 6 pairs: one more pair$' \
	"$WORK/progress.log"
expect "depth 1 decided after 6 pairs, ahead, with n and the coverage" \
	grep -q '^      6 pairs: IOPS ours/peer ahead: 1.10x (1.09..1.11, n=6, 96.9%): decided$' "$WORK/progress.log"
expect "depth 8 undecided until --max-repeats" \
	grep -q '^      7 pairs: IOPS ours/peer equal within .*: --max-repeats reached$' "$WORK/progress.log"
decide_status() { # WANT_STATUS ARGS...: matrix decide's exit status (0 stop, 3 one more pair)
	local rc=0
	python3 "$ROOT/scripts/matrix/matrix" decide "$OUT" "${@:2}" >/dev/null || rc=$?
	[ "$rc" -eq "$1" ]
}
expect "decide: depth 8 at 6 of 3..7 pairs, equal within 20%: one more pair (status 3)" \
	decide_status 3 p003 p004 --pairs 6 --min-pairs 3 --max-pairs 7 --margin 5
expect "decide: depth 8 at the cap: stop (status 0)" \
	decide_status 0 p003 p004 --pairs 7 --min-pairs 3 --max-pairs 7 --margin 5
expect "decide: a point not in the plan fails (status 2), not one more pair" \
	decide_status 2 p003 p999 --pairs 7 --min-pairs 3 --max-pairs 7
expect "the ranges overlap at depth 1 (what a min..max comparison could not decide)" \
	python3 - "$OUT" <<'PY'
import sys
sys.path.insert(0, "scripts/matrix")
from rpmamatrix import aggregate
rows = {r["id"]: r for r in aggregate.summarize(sys.argv[1])}
o, p = rows["p001"], rows["p002"]
sys.exit(not (o["iops_min"] < p["iops_max"] and p["iops_min"] < o["iops_max"]))
PY
expect "status complete" grep -qx complete "$OUT/status"
python3 "$ROOT/scripts/matrix/matrix" benchmarks "$OUT" --out "$WORK/BENCHMARKS.md" >/dev/null
expect "BENCHMARKS.md: depth 1 ahead with its interval, n and coverage" \
	grep -Eq '^\| apm write 4k qd1 sync \| .* \| 1\.10x \(1\.09\.\.1\.11, n=6, 96\.9%\) \| ahead \|$' "$WORK/BENCHMARKS.md"
expect "BENCHMARKS.md: depth 8 equal within a stated margin" \
	grep -Eq '^\| apm write 4k qd8 \| .* \| 1\.20x \(0\.85\.\.1\.20, n=7, 98\.4%\) \| equal within \+-20% \|$' "$WORK/BENCHMARKS.md"
expect "BENCHMARKS.md: the looks' joint coverage (6 and 7 pairs: 62/64)" \
	grep -q 'looked at after each pair from 6 to 7 .* together with probability 96\.9% (exact)' "$WORK/BENCHMARKS.md"
expect "BENCHMARKS.md: the verdicts at a glance" \
	grep -q '^2 points: ours ahead by more than 5% at 1, equal within the stated margin at 1, behind by more than 5% at 0\.$' "$WORK/BENCHMARKS.md"
# --pmem: a second folder (make bench's device-DAX run) as a section of its own, its
# tables one level down, with its own verdicts
python3 "$ROOT/scripts/matrix/matrix" benchmarks "$OUT" --pmem "$OUT" --out "$WORK/BENCHMARKS-pmem.md" >/dev/null
expect "BENCHMARKS.md --pmem: its section, its verdicts, its tables a level down" \
	awk '/^## GPSPM on persistent memory \(device DAX\)$/ { s = 1 }
		s && /^2 points: ours ahead by more than 5% at 1, equal within the stated margin at 1, behind by more than 5% at 0\.$/ { v = 1 }
		s && v && /^### IOPS$/ { t = 1 } END { exit !(s && v && t) }' "$WORK/BENCHMARKS-pmem.md"

# --settle: our runs alone; at depth 1 the first two agree (5% apart): 2 runs; at depth 8
# they differ by 30%: the third runs
DRIFT=(1.0 1.05 1.0 1.0)
parse_args "${POINTS[@]}" --repeats 3 --settle 10 --out "$WORK/settle"
: >"$WORK/order.log"
measure 2>"$WORK/settle.log"
expect "--settle: 2 runs where they agree within 10%, 3 where they do not" \
	diff <(printf '%s\n' "ours 1 r1" "ours 1 r2" "ours 8 r1" "ours 8 r2" "ours 8 r3") "$WORK/order.log"
expect "--settle: the progress says why, and counts the runs measured" bash -c \
	"grep -q '^      2 runs: IOPS [0-9]* \\[[0-9]*\\.\\.[0-9]*\\], 5% apart: settled (--settle 10%)$' '$WORK/settle.log' &&
	grep -q '^\\[5/5\\] ours apm .* run 3' '$WORK/settle.log'"

# --server-load 50: the load points of the plan, each run with the real burner (fio's
# cpuio engine, here on the host) around it: a job per CPU, about half of each busy
parse_args "${POINTS[@]}" --repeats 1 --server-load 50 --out "$WORK/load"
: >"$WORK/order.log"
FAKE_RUN_SECS=1 measure 2>"$WORK/load.log"
# What the runner set up, not what the scheduler gave it (a busy machine measures any
# share): fio's own record of each job's options, and that each job burned at all
burned() { # STEM: the burner's jobs, one per CPU, each told cpuload=50 and run
	python3 - "$1.load.json" "$(nproc)" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
jobs = json.loads(text[text.index("{"):])["jobs"]
opts = [(j["job options"].get("ioengine"), j["job options"].get("cpuload")) for j in jobs]
busy = [j["usr_cpu"] + j["sys_cpu"] for j in jobs]
print(f"{len(jobs)} jobs, options {opts}, busy {busy}")
sys.exit(not (len(jobs) == int(sys.argv[2]) and all(o == ("cpuio", "50") for o in opts)
              and all(b > 0 for b in busy)))
PY
}
expect "--server-load: the load points with a burner at 50%, a job per CPU (p003, p004)" \
	bash -c "$(declare -f burned); burned '$OUT/runs/p003-r1' && burned '$OUT/runs/p004-r1'"
expect "--server-load: the idle points without a burner" \
	bash -c "[ ! -e '$OUT/runs/p001-r1.load.json' ] && [ ! -e '$OUT/runs/p002-r1.load.json' ]"
expect "--server-load: the progress names the load" grep -q '^\[3/4\] ours apm .* server load 50% run 1' "$WORK/load.log"
expect "--server-load: no burner left running" bash -c "! pgrep -f '[n]ame=server-load' >/dev/null"
[ "$failed" -eq 0 ] || { echo "progress:"; cat "$WORK/progress.log" "$WORK/settle.log" "$WORK/load.log"; exit 1; }
