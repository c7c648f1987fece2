#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/sweep_vm.sh -- inside the Soft-RoCE VM: the sweep job files
# (jobs/sweep.fio and its server files) run a short sweep with each engine, and
# scripts/run_matrix.sh report turns the two JSON files into a report with every
# point. A few sections only (SWEEP_SECTIONS), picked with the same --section
# options on both sides; RUNTIME=1s RAMP=0 per point. Every step runs under
# `timeout`. Prints PASS/FAIL per check and "N passed, M failed".
#
#   make test-sweep-vm       (scripts/softroce-vm run --timeout 600 -- tests/matrix/sweep_vm.sh)
#
# The results stay in build/sweep-vm/ (SWEEP_VM_OUT): apm.json, gpspm.json, the
# logs, and report/ (report.html, results.csv, charts/).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ADDR=${RPMA_TEST_ADDR:?run me inside the Soft-RoCE VM (scripts/softroce-vm run)}
OUT=${SWEEP_VM_OUT:-$ROOT/build/sweep-vm}
# two block sizes x two depths (sync at iodepth 1, a batch at 16), writes and reads
read -r -a SECTIONS <<<"${SWEEP_SECTIONS:-write-bs4k-qd1 write-bs4k-qd16 write-bs64k-qd1 write-bs64k-qd16 read-bs4k-qd1 read-bs4k-qd16 read-bs64k-qd1 read-bs64k-qd16}"
STEP_TIMEOUT=${SWEEP_STEP_TIMEOUT:-240}
cd "$ROOT"
# e2e_result (PASS/FAIL and the counts); wait_listening (RDMA CM IDs listening on the ports, while the server lives)
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
# shellcheck source=scripts/matrix/lib.sh
. scripts/matrix/lib.sh
SSH_HOST=''	# (scripts/matrix/lib.sh: the servers run here)

# check NAME COMMAND...: a check whose output is shown only when it fails
check() {
	local name=$1 status=0
	shift
	"$@" >"$OUT/check.log" 2>&1 || status=$?
	e2e_result "$name" "$status"
	[ "$status" -eq 0 ] || sed 's/^/  | /' "$OUT/check.log"
}

show_logs() {
	local log
	for log in "$@"; do
		echo "  --- $log"
		tail -n 25 "$log" | sed 's/^/  | /'
	done
}

# the client's JSON has one job per selected section, in the job file's order (fio's,
# whatever the order of the --section options), each without error
json_has_sections() {
	local json=$1 want got
	want=$(scripts/gen_sweep_jobs.py --sections "${SECTIONS[@]}" | sed 's/^--section=//')
	got=$(python3 -c 'import json, sys
t = open(sys.argv[1]).read()
for j in json.loads(t[t.index("{"):])["jobs"]:
    print(j["jobname"] if j["error"] == 0 else j["jobname"] + " error=%d" % j["error"])' "$json")
	[ "$want" = "$got" ] || { echo "expected:"; echo "$want"; echo "got:"; echo "$got"; return 1; }
}

# one server job listened per section
server_served_all() {
	local n
	n=$(grep -c 'listening on' "$1")
	[ "$n" -eq "${#SECTIONS[@]}" ] || { echo "$n server jobs listened, expected ${#SECTIONS[@]}"; return 1; }
}

# run_sweep ENGINE PORT: both sides of the selected sections, under timeout
run_sweep() {
	local engine=$1 port=$2 status=0 sstatus=0 start
	local slog=$OUT/$engine.server.log clog=$OUT/$engine.client.log
	local vars=(SERVER_IP="$ADDR" PORT="$port" RUNTIME=1s RAMP=0)
	start=$(date +%s)
	env "${vars[@]}" timeout "$STEP_TIMEOUT" fio "jobs/sweep-$engine-server.fio" "${SECTION_ARGS[@]}" \
		--output-format=json --output="$OUT/$engine.server.json" >"$slog" 2>&1 &
	MATRIX_SPID=$!
	if ! wait_listening "$port" 1 30; then
		e2e_result "$engine: the sweep's server listens" 1
		stop_server
		show_logs "$slog"
		return 0
	fi
	e2e_result "$engine: the sweep's server listens" 0
	env "${vars[@]}" timeout "$STEP_TIMEOUT" fio --ioengine=external:build/librpma_"$engine".so \
		jobs/sweep.fio "${SECTION_ARGS[@]}" --output-format=json --output="$OUT/$engine.json" \
		>"$clog" 2>&1 || status=$?
	wait "$MATRIX_SPID" || sstatus=$?
	MATRIX_SPID=
	echo "  ($engine: ${#SECTIONS[@]} sections in $(($(date +%s) - start)) s)"
	e2e_result "$engine: the client side exits 0" "$status"
	e2e_result "$engine: the server side exits 0" "$sstatus"
	if [ "$status" -ne 0 ] || [ "$sstatus" -ne 0 ]; then show_logs "$clog" "$slog"; fi
	check "$engine: the client's JSON has every section, no error" json_has_sections "$OUT/$engine.json"
	check "$engine: a server job served every section" server_served_all "$slog"
}

# every point of both engines is in results.csv with a figure, and in the report
report_has_points() {
	local dir=$1 method rw bs qd sec missing=0
	[ -s "$dir/results.csv" ] || { echo "no $dir/results.csv"; return 1; }
	for method in apm gpspm-busy; do
		for sec in "${SECTIONS[@]}"; do
			IFS=- read -r rw bs qd <<<"$sec"
			bs=${bs#bs} qd=${qd#qd}
			case $bs in *k) bs=$((${bs%k} * 1024)) ;; esac
			# id,impl,method,workload,rw,bs,iodepth,sync,numjobs,hosts,load,tool,runs,iops_median,...
			if ! grep -Eq "^p[0-9]+,ours,$method,sweep,$rw,$bs,$qd,[01],1,1,0,fio,1,[0-9]*[1-9][0-9]*\." "$dir/results.csv"; then
				echo "no figures for $method $sec in results.csv"
				missing=1
			elif ! grep -Eq "^\| p[0-9]+ \| $method \| $rw \| [^|]+ \| $qd( \(sync\))? \| 1 \| 1 \| [0-9]" "$dir/report.md"; then
				echo "$method $sec is not in the report's summary"
				missing=1
			fi
		done
	done
	return "$missing"
}

# the servers' JSON next to the clients' gives the server's CPU load: a GPSPM server
# busy-polls (well above 10 %) while an APM server does no I/O of its own
server_cpu_reported() {
	# (the columns by their names in the header)
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ n++; cpu = $col["server_cpu_pct_median"] }
		cpu == "" { print "no server CPU: " $0; bad = 1 }
		$col["method"] == "gpspm-busy" && cpu < 10 { print "a busy GPSPM server below 10 %: " $0; bad = 1 }
		END { exit bad || !n || !col["server_cpu_pct_median"] }' "$1/results.csv"
}

# every chart report.md shows exists (PNG and SVG); those of the default sections there
charts_exist() {
	local dir=$1 name names
	names=$(sed -n 's|^!\[chart\](charts/\(.*\)\.png)$|\1|p' "$dir/report.md")
	if [ -z "${SWEEP_SECTIONS:-}" ]; then
		for name in lat_vs_bs_write iops_vs_bs_write lat_vs_bs_read iops_vs_bs_read; do
			grep -qx "$name" <<<"$names" || { echo "no chart $name in report.md"; return 1; }
		done
	fi
	for name in $names; do
		if [ ! -s "$dir/charts/$name.png" ] || [ ! -s "$dir/charts/$name.svg" ]; then
			echo "chart $name missing or empty"
			return 1
		fi
	done
	# (a custom set of sections may have no point the charts show)
	[ -z "$names" ] || grep -q '<svg' "$dir/report.html"
}

main() {
	rm -rf "$OUT"
	mkdir -p "$OUT"
	SECTION_ARGS=()
	local s
	for s in "${SECTIONS[@]}"; do SECTION_ARGS+=(--section="$s"); done
	echo "sweep in the VM: ${#SECTIONS[@]} sections per engine: ${SECTIONS[*]}"
	run_sweep apm 7700
	run_sweep gpspm 7800
	local rstatus=0 start
	start=$(date +%s)
	timeout "$STEP_TIMEOUT" scripts/run_matrix.sh report "$OUT/apm.json" "$OUT/gpspm.json" \
		--out "$OUT/report" >"$OUT/report.log" 2>&1 || rstatus=$?
	echo "  (report built in $(($(date +%s) - start)) s)"
	e2e_result "run_matrix.sh report of both JSON files" "$rstatus"
	[ "$rstatus" -eq 0 ] || show_logs "$OUT/report.log"
	check "the report is complete" grep -qx complete "$OUT/report/status"
	check "every point of both engines in results.csv and report.md" report_has_points "$OUT/report"
	check "the servers' CPU load (from their JSON) in results.csv" server_cpu_reported "$OUT/report"
	check "charts and the HTML report" charts_exist "$OUT/report"
	rm -rf "$E2E_TMP"
	echo
	echo "$E2E_PASSED passed, $E2E_FAILED failed"
	[ "$E2E_FAILED" -eq 0 ]
}

main "$@"
