#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/check_vm_run.sh -- make test-matrix-vm: the matrix pipeline end to end in
# the Soft-RoCE VM, on a plan of a few points (the figures are make bench's job; this
# proves the pipeline): ours and the peer (--impl ours,peer; on DRAM: the peer's APM
# client refuses PMem without direct write; its servers from a folder of their own, no
# file named malloc left in the project) into build/matrix-ci --
# every point measured and reported, per-I/O costs for every fio point, bytes persisted
# per byte written 1.00 at every APM and GPSPM write point (ours and the peer's), the exact costs
# of a 4 KiB APM sync write (ours and the peer's) and of the same write with no_flush=1
# (the flush's read request and response gone), the charts, the report rendered; then
# instructions per I/O (--instructions=sync, callgrind) of ours at a 4 KiB GPSPM sync
# write with a sleeping server, client and server side (the peer's: make bench), on the
# VM's device DAX (the default without --mem: the main job's memory), into a
# result folder outside the project (the VM writes only there: the runner stages it);
# in the same run gpspm-hub at 2 client jobs: one server job serving both; then one
# point with --cxl, the server on the VM's CXL memory, which env.json names.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build/matrix-ci
FAILED=0

fail() {
	echo "FAIL $*"
	FAILED=$((FAILED + 1))
}

cd "$ROOT"
rm -rf "$OUT" "$ROOT/malloc"
start=$(date +%s)
status=0
# (16 MiB of server memory: the peer's server lays out as much at its start)
# (gpspm-sleep: in the instructions run below). 4 KiB only: the sync point, one batched
# point (bandwidth and depth sweeps merged at iodepth 8), reads of both sweeps.
PLAN=(--quick --lat-bs 4k --bw-bs 4k --bw-qd 8 --qd 8 --read-bs 4k --mem-size 16m)
# (one pair a point: the pipeline, not a verdict; tests/matrix/test_schedule.sh has the pairs)
scripts/run_matrix.sh "${PLAN[@]}" --impl ours,peer --max-repeats 1 --methods apm,gpspm-busy,noflush,raw \
	--mem malloc --out "$OUT" || status=$?
echo "the matrix took $(($(date +%s) - start)) s"
[ "$status" -eq 0 ] || fail "run_matrix.sh --impl ours,peer exited with $status"
grep -qx complete "$OUT/status" 2>/dev/null || fail "status is '$(cat "$OUT/status" 2>/dev/null)', not complete"
# (fio 3.33's servers lay out a file named after filename=malloc where they run: not here)
[ ! -e "$ROOT/malloc" ] || fail "the peer's server left a file named malloc in the project's folder"

# results.csv's column NAME of the row of point ID
column_of() {
	python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["id"] == sys.argv[2]:
        print(r[sys.argv[3]])' "$OUT/results.csv" "$1" "$2"
}

# how many of a run's post calls went by the extended interface: all, none or some
extended_posts() {
	python3 -c 'import json, sys
posts = ex = 0
for line in open(sys.argv[1]):
    c = json.loads(line)
    posts += c["post_send_calls"]
    ex += c.get("wr_complete_calls", 0)
print("none" if ex == 0 else "all" if ex == posts else "some")' "$1" 2>/dev/null || echo "no count"
}

# is $1 within [$2, $3]?
within() {
	python3 -c 'import sys; v, lo, hi = map(float, sys.argv[1:]); sys.exit(not lo <= v <= hi)' "$@"
}

# every point of the plan: a row with figures in results.csv and in the report, and
# every fio point the per-I/O costs of its cost run
peers=0 costed=0 noflush_checked=0 persist_checked=0 peer_persist_checked=0
while IFS=$'\t' read -r id impl method _ rw bs qd sync _; do
	label=$method
	[ "$impl" = ours ] || { label="$method \\(peer\\)"; peers=$((peers + 1)); }
	runs=$(column_of "$id" runs 2>/dev/null || true)
	iops=$(column_of "$id" iops_median 2>/dev/null || true)
	if [ "${runs:-0}" -lt 1 ] || [ -z "$iops" ]; then
		fail "point $id ($impl $method $rw bs $bs iodepth $qd) has no figures"
		for f in "$OUT"/runs/"$id"-r1.*; do [ -e "$f" ] && { echo "  --- $f"; sed 's/^/  | /' "$f" | tail -20; }; done
	elif ! grep -Eq "^\| $id \| $label \| $rw \| [^|]+ \| [^|]+ \| [^|]+ \| [1-9][0-9]* \| [0-9]" "$OUT/report.md"; then
		fail "point $id ($label $rw bs $bs iodepth $qd) is not in the report's summary"
	fi
	[ "$method" != raw ] || continue
	posts=$(column_of "$id" client_posts_per_io) packets=$(column_of "$id" packets_per_io)
	if [ -z "$posts" ] || [ -z "$packets" ] || ! within "$posts" 0.01 100 || ! within "$packets" 0.5 1000; then
		fail "point $id ($label $rw bs $bs iodepth $qd): no per-I/O costs (posts '$posts', packets '$packets')"
		for f in "$OUT"/runs/"$id"-cost.*; do [ -e "$f" ] && { echo "  --- $f"; sed 's/^/  | /' "$f" | tail -20; }; done
		continue
	fi
	costed=$((costed + 1))
	if [[ $rw == *write ]] && [[ $method == apm || $method == gpspm* ]]; then
		# both persist exactly what was written here: ours by their own counts (the first
		# run), the peer's as verbs_count.c counted its pmem_persist() or rpma_flush()
		# lengths (its cost run; it flushes each random write, and sequential ones merged)
		v=$(column_of "$id" persisted_per_byte_written)
		within "${v:-nan}" 0.9999 1.0001 ||
			fail "point $id ($label $rw bs $bs iodepth $qd): '$v' bytes persisted per byte written, not 1.00"
		echo "  $impl $method $rw bs $bs iodepth $qd: $v bytes persisted per byte written"
		persist_checked=$((persist_checked + 1))
		[ "$impl" = ours ] || peer_persist_checked=$((peer_persist_checked + 1))
	fi
	# a 4 KiB APM write, one at a time: the write (unsignaled) and the flush's read, one
	# completion on the client, nothing posted by the server; on the wire (rxe's MTU 1024
	# here) 4 write packets, their ACK, the read request and its response. Ours chains the
	# two requests in one post, the peer posts each.
	# no_flush=1: the same write without the flush's read request and response (5 packets)
	if [ "$method" = noflush ] && [ "$rw" = write ] && [ "$bs" = 4096 ] && [ "$sync" = 1 ]; then
		noflush_checked=1
		for expect in "client_send_wrs_per_io 1 1.01" "client_posts_per_io 1 1.01" \
			"client_completions_per_io 1 1.01" "packets_per_io 5 5.05"; do
			read -r col lo hi <<<"$expect"
			v=$(column_of "$id" "$col")
			within "${v:-nan}" "$lo" "$hi" ||
				fail "point $id (noflush 4k sync write): $col is '$v', not in [$lo, $hi]"
		done
		echo "  no_flush=1: $(column_of "$id" packets_per_io) packets per I/O, $(column_of "$id" iops_median) IOPS"
	fi
	if [ "$method" = apm ] && [ "$rw" = write ] && [ "$bs" = 4096 ] && [ "$sync" = 1 ]; then
		[ "$impl" = ours ] && echo "  flush: $(column_of "$id" packets_per_io) packets per I/O, $(column_of "$id" iops_median) IOPS"
		posts="client_posts_per_io 1 1.01"
		[ "$impl" = ours ] || posts="client_posts_per_io 2 2.02"
		for expect in "client_send_wrs_per_io 2 2.02" "$posts" \
			"client_completions_per_io 1 1.01" "server_posts_per_io 0 0.01" "packets_per_io 7 7.05"; do
			read -r col lo hi <<<"$expect"
			v=$(column_of "$id" "$col")
			within "${v:-nan}" "$lo" "$hi" ||
				fail "point $id ($label 4k sync write): $col is '$v', not in [$lo, $hi]"
		done
		# rxe has the extended interface: ours rings with ibv_wr_complete(), the peer never
		ex=$(extended_posts "$OUT/runs/$id-cost.client.verbs.json")
		want="all"
		[ "$impl" = ours ] || want="none"
		[ "$ex" = "$want" ] ||
			fail "point $id ($label 4k sync write): $ex of its posts by ibv_wr_complete(), not $want"
	fi
done < <(tail -n +2 "$OUT/plan.tsv" 2>/dev/null)
[ "$peers" -gt 0 ] || fail "the plan has no point of the peer"
[ "$noflush_checked" = 1 ] || fail "no noflush 4 KiB sync write point had its costs checked"
[ "$persist_checked" -gt "$peer_persist_checked" ] ||
	fail "no write point of ours had its bytes persisted per byte written checked"
[ "$peer_persist_checked" -gt 0 ] || fail "no write point of the peer had its bytes persisted per byte written checked"
echo "write points persisting exactly what they wrote: $persist_checked (the peer's: $peer_persist_checked)"
echo "points with per-I/O costs: $costed (of which the peer's: see results.csv)"
grep -q '^## Ours vs the peer' "$OUT/report.md" || fail "the report has no 'Ours vs the peer' section"
grep -q '^## Per-I/O costs' "$OUT/report.md" || fail "the report has no 'Per-I/O costs' section"
[ -s "$OUT/plan.tsv" ] || fail "no plan.tsv in $OUT"
for chart in lat_vs_bs_write iops_vs_bs_write bw_vs_bs_write iops_vs_noflush fraction_of_raw \
	cost_posts_vs_qd cost_packets_vs_qd cost_packets_vs_bs overview lat_percentiles_small_sync_writes \
	lat_cdf; do
	if [ ! -s "$OUT/charts/$chart.png" ] || [ ! -s "$OUT/charts/$chart.svg" ]; then
		fail "chart $chart missing or empty"
	fi
done
grep -q '<svg' "$OUT/report.html" 2>/dev/null || fail "report.html has no inline chart"
# the findings open the report, with a cost sentence for the small sync writes
sed -n '3p' "$OUT/report.md" | grep -qx '## Findings' || fail "the report does not open with the findings"
grep -Eq '^- \*\*small sync writes \(4 KiB, iodepth 1, sync\)\*\* against no-flush .*: APM [-+][0-9]+% IOPS' \
	"$OUT/report.md" || fail "the findings have no cost sentence for the small sync writes"
# the environment says which accelerator ran the VM (KVM's figures are not TCG's)
grep -Eq '^\| in Soft-RoCE VM \| yes, accelerator (kvm|tcg) \|' "$OUT/report.md" 2>/dev/null ||
	fail "the report's environment does not say which accelerator ran the VM"
# as a person sees it: headless Chromium renders it (screenshot kept: build/matrix-ci/report.png)
tests/matrix/render_check.sh "$OUT" || fail "report.html does not render properly in Chromium"
[ "$FAILED" -gt 0 ] || echo "PASS --quick matrix: every point measured and reported"

# instructions per I/O (callgrind) of ours at the 4 KiB sync write of GPSPM with a
# sleeping server (client and server side); the peer's beside ours: make bench.
# Its result folder is outside the project, which the VM cannot write to: the runner
# must measure into a staging folder of its own and leave everything here.
INSTR_PARENT=$(mktemp -d /tmp/rpma-matrix-ci.XXXXXX)
INSTR=$INSTR_PARENT/instr
trap 'rm -rf "$INSTR_PARENT"' EXIT
status=0
scripts/run_matrix.sh "${PLAN[@]}" --methods gpspm-sleep,gpspm-hub --jobs 2 --rw write \
	--no-costs --instructions=sync --out "$INSTR" || status=$?
[ "$status" -eq 0 ] || fail "run_matrix.sh --instructions exited with $status"
grep -qx complete "$INSTR/status" 2>/dev/null ||
	fail "--out outside the project: status is '$(cat "$INSTR/status" 2>/dev/null)', not complete"
if [ ! -s "$INSTR/results.csv" ] || [ ! -s "$INSTR/report.html" ]; then
	fail "--out outside the project: no results.csv or report.html in $INSTR"
fi
! ls -d "$ROOT"/build/matrix/.staging-* >/dev/null 2>&1 ||
	fail "a staging folder was left in build/matrix/"
OUT=$INSTR
# no --mem: the VM's device DAX by default, said in the findings and the options; the
# command shown is the one given (not the runner's own re-run in the VM)
grep -q "^- The server's memory was device DAX (\`/dev/dax0.0\`): GPSPM's server flushed" "$OUT/report.md" ||
	fail "the findings do not say the server's memory was the VM's device DAX"
jq -e '.server_mem == "/dev/dax0.0" and (.command | test("--in-vm|--pmem") | not)' "$OUT/options.json" >/dev/null ||
	fail "options.json: server_mem '$(jq -r .server_mem "$OUT/options.json")', command '$(jq -r .command "$OUT/options.json")'"
instr=0
while IFS=$'\t' read -r id impl method _ rw bs _ sync _; do
	{ [ "$bs" = 4096 ] && [ "$sync" = 1 ]; } || continue
	for side in client server; do
		v=$(column_of "$id" "${side}_instructions_per_io")
		if [ -z "$v" ] || ! within "$v" 100 10000000; then
			fail "point $id ($impl $method 4k sync write): ${side}_instructions_per_io is '$v'"
			for f in "$INSTR"/runs/"$id"-instr.*.log; do [ -e "$f" ] && { echo "  --- $f"; tail -20 "$f" | sed 's/^/  | /'; }; done
		else
			instr=$((instr + 1))
			echo "  $impl $method 4k sync write: $side $v instructions per I/O"
		fi
	done
done < <(tail -n +2 "$INSTR/plan.tsv" 2>/dev/null)
[ "$instr" -eq 2 ] || fail "instructions per I/O for $instr of 2 (point, side) pairs"

# gpspm-hub (in the instructions run): its 2 client jobs served by one server job, one thread
hub=$(awk -F'\t' '$3 == "gpspm-hub" && $9 == 2 { print $1 }' "$INSTR/plan.tsv" 2>/dev/null)
cpu=$(column_of "$hub" server_cpu_pct_median 2>/dev/null || true)
if [ -z "$hub" ] || ! within "${cpu:-nan}" 0.1 200 || ! within "$(column_of "$hub" iops_median)" 1 1e9; then
	fail "gpspm-hub at 2 jobs: no point, IOPS or server CPU ('$cpu')"
	for f in "$INSTR"/runs/"$hub"-*.log; do [ -e "$f" ] && { echo "  --- $f"; tail -20 "$f" | sed 's/^/  | /'; }; done
elif ! grep -q 'from 2 clients on one thread' "$INSTR/runs/$hub-r1.server.log" ||
	[ "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["jobs"]))' \
		"$INSTR/runs/$hub-r1.server.json")" != 1 ]; then
	fail "gpspm-hub at 2 jobs: the server was not one job serving both clients"
	tail -20 "$INSTR/runs/$hub-r1.server.log" | sed 's/^/  | /'
else
	echo "  gpspm-hub, 2 client jobs on one server thread: $(column_of "$hub" iops_median) IOPS, server CPU $cpu%"
fi

# --cxl: the VM's emulated CXL memory as the server's (one GPSPM point, each side's
# figure once), named as such in env.json's platform facts and in the findings
CXL=$INSTR_PARENT/cxl
status=0
scripts/run_matrix.sh --quick --cxl --methods gpspm-busy --rw write --lat-bs 4k --bw-bs 4k \
	--bw-qd 8 --qd 8 --no-costs --mem-size 16m --out "$CXL" || status=$?
{ [ "$status" -eq 0 ] && grep -qx complete "$CXL/status" 2>/dev/null; } ||
	fail "run_matrix.sh --cxl exited with $status, status '$(cat "$CXL/status" 2>/dev/null)'"
placement=$(jq -r '.["server memory placement"] // empty' "$CXL/env.json" 2>/dev/null)
devices=$(jq -r '.["CXL memory devices and regions"] // empty' "$CXL/env.json" 2>/dev/null)
if [[ $placement != *"on CXL memory, region"*"(provider CXL)"* ]] || [[ $devices != *mem0* ]] ||
	! grep -q "It is CXL memory: " "$CXL/report.md" 2>/dev/null ||
	[ "$(jq -r .server_mem "$CXL/options.json" 2>/dev/null)" != /dev/dax1.0 ]; then
	fail "--cxl: env.json, the findings or options.json do not name the CXL memory"
	echo "  placement: '$placement'"
	echo "  CXL devices: '$devices'"
else
	echo "  --cxl: $placement; $devices"
fi

echo
echo "matrix-vm: $FAILED failed"
[ "$FAILED" -eq 0 ]
