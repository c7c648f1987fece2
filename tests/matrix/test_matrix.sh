#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/test_matrix.sh -- the matrix runner's report builder and compare,
# on fixture fio JSON and perftest output (host only, no RDMA): golden CSV rows,
# charts that exist and are not empty, the HTML report self-contained, missing
# and partial marked, and compare's ratios and verdicts (with tests/matrix/test_verdicts.py)
# and the schedule of ours vs the peer (tests/matrix/test_schedule.sh). Also the CLI's checks, and
# the sweep job files: the committed files are the generator's output, their
# sections pair up, and `run_matrix.sh report` of fixture sweep JSON. And the report
# as a browser shows it (tests/matrix/render_check.sh: headless Chromium).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/matrix
WORK=$ROOT/build/test-matrix
MATRIX=$ROOT/scripts/matrix/matrix
# shellcheck source=tests/lib/verdict.sh
. "$ROOT/tests/lib/verdict.sh"

check() {
	local name=$1
	shift
	local rc=0
	"$@" >"$WORK/check.log" 2>&1 || rc=$?
	verdict "$name" "$rc" "$WORK/check.log"
}

charts_exist() {
	local dir=$1 name ext
	for name in "${@:2}"; do
		for ext in png svg; do
			[ -s "$dir/charts/$name.$ext" ] || { echo "missing or empty: $dir/charts/$name.$ext"; return 1; }
		done
	done
	file "$dir/charts/${2}.png" | grep -q 'PNG image'
}

html_is_self_contained() {
	local html=$1
	grep -q '<svg' "$html" || { echo "no inline SVG in $html"; return 1; }
	html_refers_to_nothing "$html"
}

html_refers_to_nothing() {
	# (gnuplot's SVG links to its own point symbols: '#gpPt0', inside the document)
	if grep -Eq "<img|src=|href=[\"'][^#]" "$1"; then echo "$1 refers to other files"; return 1; fi
}

# the findings are the report's first section, with A's one regime's sentence
findings_first() {
	[ "$(grep -m1 '^## ' "$1")" = '## Findings' ] || { echo "the first section is not the findings"; return 1; }
	grep -qF -- '- **small sync writes (4 KiB, iodepth 1, sync)** against no-flush (2100 IOPS, 476 us): APM -48% IOPS' "$1"
}

# a report whose findings were removed (and one whose findings are empty) fails render_check.sh
render_check_wants_findings() {
	local dir=$WORK/no-findings out
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r "$1/charts" "$dir/"
	sed -e '/<h2>Findings<\/h2>/,/<h2>/{/<h2>Points/!d}' "$1/report.html" >"$dir/report.html"
	if out=$("$HERE/render_check.sh" "$dir" --no-screenshot); then echo "passed without findings: $out"; return 1; fi
	grep -q "the first section is 'Points and methods', not the findings" <<<"$out" || { echo "$out"; return 1; }
}

golden_rows() {
	diff -u "$HERE/golden/$1" "$2"
}

compare_flags() {
	# 3 runs a side: a ratio, no interval (5 needed), so no verdict (tests/matrix/test_verdicts.py
	# has the decided ones)
	grep -qx 'apm,write,4096,1,1,1,1100.000,1200.000,1.0909,,,0.9167,"undecided (3 runs, 5 needed)"' "$1" &&
		grep -Eq '\| apm \| write \| 64k \| 16 \| 1 \| 310 \| 410 \| 1.32 .*\| undecided \(3 runs, 5 needed\) \|' "$2"
}

# SCRIPT (of scripts/) run with ARGS must fail, saying EXPECT
# SCRIPT [OPTIONS]: the command the host would have the VM run (--dry-run) parses
# there (--help after its options: exit 0 once every option was taken)
bench_vm_side_takes_defaults() {
	local script=$1 cmd
	shift
	cmd=$("$ROOT/scripts/$script" "$@" --dry-run) || return 1
	case $cmd in *" --in-vm "*) ;; *) echo "not the VM's command: $cmd"; return 1 ;; esac
	eval "$cmd --help" >/dev/null
}

script_fails_with() { # SCRIPT EXPECT ARGS...
	local script=$1 expect=$2 out
	shift 2
	if out=$("$ROOT/scripts/$script" "$@" 2>&1); then
		echo "$script $* succeeded; expected a failure"
		return 1
	fi
	grep -q -- "$expect" <<<"$out" || { echo "output: $out"; return 1; }
}

cli_fails_with() {
	script_fails_with run_matrix.sh "$@"
}

dry_run_pairs() {
	local out
	out=$("$ROOT/scripts/run_matrix.sh" --impl ours,peer --mem malloc --methods apm --lat-bs 4k --bw-bs none \
		--read-bs none --qd 8 --rw write --repeats 5 --max-repeats 12 --dry-run)
	grep -q '^2 points ours vs the peer: 5 to 12 pairs until decided (--margin 5%): at most ' <<<"$out" ||
		{ echo "$out"; return 1; }
}

dry_run_counts() {
	local out
	out=$("$ROOT/scripts/run_matrix.sh" --quick --dry-run)
	grep -q '^25 points x 1 runs' <<<"$out" || { echo "$out"; return 1; }
	out=$("$ROOT/scripts/run_matrix.sh" --dry-run --methods apm --rw write --lat-bs 4k,64k \
		--bw-bs 64k --qd 1 --repeats 2)
	grep -q '^4 points x 2 runs' <<<"$out" || { echo "$out"; return 1; }
}

# the server's memory: in the VM (no RDMA device on this host) its device DAX unless
# --mem says otherwise; with --server the DRAM default
dry_run_memory() {
	local out
	[ -z "$(compgen -G '/sys/class/infiniband/*')" ] || { echo "an RDMA device here: not the VM's default"; return 1; }
	out=$("$ROOT/scripts/run_matrix.sh" --quick --dry-run)
	grep -qx "the server's memory: /dev/dax0.0, the VM's emulated NVDIMM (--mem malloc: DRAM)" <<<"$out" ||
		{ echo "$out" | tail -3; return 1; }
	out=$("$ROOT/scripts/run_matrix.sh" --quick --dry-run --mem malloc)
	grep -qx "the server's memory: DRAM (malloc)" <<<"$out" || { echo "$out" | tail -3; return 1; }
	out=$("$ROOT/scripts/run_matrix.sh" --quick --dry-run --server localhost)
	grep -qx "the server's memory: DRAM (malloc)" <<<"$out" || { echo "$out" | tail -3; return 1; }
}

# ---- the sweep job files (jobs/sweep*.fio) and run_matrix.sh report ----

SWEEP=$HERE/fixtures/sweep

section_names() {
	sed -n 's/^\[\(.*\)\]$/\1/p' "$1" | grep -vx global
}

# every client section is stonewalled and has a server section of the same name, in
# the same order (both sides number their jobs, and so their ports, alike)
sweep_sections_pair() {
	local client server n
	client=$(section_names "$ROOT/jobs/sweep.fio")
	n=$(wc -l <<<"$client")
	[ "$n" -eq 160 ] || { echo "jobs/sweep.fio has $n sections, not 10 bs x 8 depths x 2"; return 1; }
	[ "$(grep -cx stonewall "$ROOT/jobs/sweep.fio")" -eq "$n" ] || { echo "a section is not stonewalled"; return 1; }
	for server in sweep-apm-server.fio sweep-gpspm-server.fio; do
		diff <(echo "$client") <(section_names "$ROOT/jobs/$server") || { echo "jobs/$server differs"; return 1; }
		[ "$(grep -cx stonewall "$ROOT/jobs/$server")" -eq "$n" ] || { echo "$server: a section is not stonewalled"; return 1; }
	done
	grep -q '^\[write-bs512-qd1\]$' "$ROOT/jobs/sweep.fio" && grep -q '^\[read-bs256k-qd128\]$' "$ROOT/jobs/sweep.fio"
}

sweep_sections_listed() {
	local out
	out=$("$ROOT/scripts/gen_sweep_jobs.py" --sections 'write-bs4k-*' '*-bs64k-qd1')
	if [ "$(wc -l <<<"$out")" -ne 10 ] || ! grep -qx -- '--section=write-bs4k-qd128' <<<"$out" ||
			! grep -qx -- '--section=read-bs64k-qd1' <<<"$out"; then
		echo "$out"
		return 1
	fi
	if "$ROOT/scripts/gen_sweep_jobs.py" --sections 'nothing-*' 2>/dev/null; then
		echo "a pattern matching nothing was accepted"
		return 1
	fi
}

sweep_report() {
	"$ROOT/scripts/run_matrix.sh" report "$@"
}

# a second run of two sections: runs 2 for the one that ran, the failed one is
# marked and makes the report PARTIAL
sweep_repeats_and_failure() {
	local dir=$1
	if ! grep -q '^p001,ours,apm,sweep,write,4096,1,1,1,1,0,fio,2,6073\.427,5398\.601,6748\.252,' "$dir/results.csv" ||
			! grep -q '^p002,ours,apm,sweep,write,4096,16,0,1,1,0,fio,1,' "$dir/results.csv" ||
			[ ! -e "$dir/runs/p002-r2.failed" ] ||
			! grep -q '^partial (1 of 6 sections failed: write-bs4k-qd16 of ' "$dir/status" ||
			! grep -q '^\*\*PARTIAL\*\*' "$dir/report.md"; then
		cat "$dir/results.csv" "$dir/status"
		return 1
	fi
}

sweep_checks() {
	check "sweep: the job files are the generator's output" "$ROOT/scripts/gen_sweep_jobs.py" --check
	check "sweep: client and server sections pair up, all stonewalled" sweep_sections_pair
	check "sweep: --sections lists the matching sections" sweep_sections_listed
	check "sweep: report of an APM and a GPSPM sweep" sweep_report "$SWEEP/apm.json" \
		"$SWEEP/gpspm.json" --out "$WORK/sweep"
	check "sweep: golden CSV (methods from the engines and server JSON)" golden_rows sweep.csv "$WORK/sweep/results.csv"
	check "sweep: charts" charts_exist "$WORK/sweep" lat_vs_bs_write iops_vs_bs_write bw_vs_bs_write \
		iops_vs_qd_write lat_vs_bs_read
	check "sweep: HTML self-contained" html_is_self_contained "$WORK/sweep/report.html"
	check "sweep: every section in the summary" bash -c "[ \$(grep -Ec '^\| p00[1-8] \| (apm|gpspm-sleep) \| .* \| 1 \| [0-9]+ \[' '$WORK/sweep/report.md') -eq 8 ]"
	check "sweep: complete (no PARTIAL)" grep -qx complete "$WORK/sweep/status"
	check "sweep: a second run makes repeats, a failed section PARTIAL" sweep_report \
		"$SWEEP/apm.json" "$SWEEP/apm-run2.json" --out "$WORK/sweep-2"
	check "sweep: ... its figures" sweep_repeats_and_failure "$WORK/sweep-2"
	check "sweep: METHOD= names the method" sweep_report gpspm-busy="$SWEEP/gpspm.json" --out "$WORK/sweep-m"
	check "sweep: ... in the CSV" grep -q '^p001,ours,gpspm-busy,sweep,write,4096,1,1,' "$WORK/sweep-m/results.csv"
	check "sweep: not fio's JSON named" cli_fails_with "not-json.txt: not fio's JSON output" report "$SWEEP/not-json.txt" --out "$WORK/x1"
	check "sweep: a non-sweep job named" cli_fails_with "job 'randwrite' is not a section of the sweep" \
		report "$SWEEP/randwrite.json" --out "$WORK/x2"
	check "sweep: a server's JSON refused" cli_fails_with "not the JSON of a client side" report "$SWEEP/apm.server.json" --out "$WORK/x3"
	check "sweep: a missing file named" cli_fails_with "nothing.json: No such file" report "$SWEEP/nothing.json" --out "$WORK/x4"
	check "sweep: report needs a file" cli_fails_with "report needs the fio JSON of a sweep" report --out "$WORK/x5"
	check "sweep: an existing result folder refused" cli_fails_with "already holds results" report "$SWEEP/apm.json" --out "$WORK/sweep"
}

# --clients: fio's client/server JSON (per host, then 'All clients'), the hosts column
clients_figures() {
	local csv=$1/results.csv
	# all clients' IOPS and latency; no p99 (fio's 'All clients' has no percentiles)
	if ! grep -q '^p002,ours,apm,lat,write,4096,1,1,1,2,0,fio,1,800\.000,800\.000,800\.000,3\.125,3\.125,3\.125,2500\.000,2500\.000,2500\.000,,' "$csv" ||
			! grep -q '^p001,ours,apm,lat,write,4096,1,1,1,1,0,fio,1,400\.000,.*,9000\.000,' "$csv" ||
			! grep -q '^p004,ours,apm,bw,write,4096,8,0,1,2,0,fio,1,2250\.000,' "$csv" ||
			! grep -Eq '^\| p004 \| apm \| write \| 4k \| 8 \| 1 \| 2 \| 1 \| 2250 ' "$1/report.md"; then
		cat "$csv"
		return 1
	fi
}

# a client host's job file: includes inlined, variables given, comments gone, --set first
expand_job() {
	local out=$WORK/expanded.fio
	python3 "$MATRIX" expand-job --out "$out" --set ioengine=external:/x/librpma_apm.so --set native_flush=0 \
		"$ROOT/jobs/randwrite.fio" SERVER_IP=node1 PORT=7410 NUMJOBS=2 CONNECT_TIMEOUT=30000 BUSY_WAIT=1 \
		BS=4k SYNC=0 IODEPTH=8 BATCH=8 BATCH_COMPLETE=8 TIME_BASED=1 NUMBER_IOS=0 RAMP=0s RUNTIME=1s \
		SECRET_FILE=none || return 1
	if [ "$(sed -n 1,3p "$out" | tr '\n' ' ')" != '[global] ioengine=external:/x/librpma_apm.so native_flush=0 ' ] ||
			! grep -qx 'port=7410' "$out" || ! grep -qx 'serverip=node1' "$out" || ! grep -qx 'iodepth=8' "$out" ||
			! grep -qx 'rw=randwrite' "$out" || grep -q '[$#]\|^include' "$out"; then
		cat "$out"
		return 1
	fi
}

dur_cli_fails_with() {
	script_fails_with run_durability.sh "$@"
}

# a durability run's folder (fixtures/durability: the VM's rounds of apm, gpspm and
# apm-native, 4 blocks of each damaged in round 1, round 2 clean, a round 3 that could
# not be judged): verdicts, every lost offset, the round not judged, PARTIAL
durability_report() {
	local d=$WORK/durability m
	grep -q '^PARTIAL: partial (1 of 3 rounds' "$d/report.md"
	for m in apm gpspm apm-native; do
		grep -q "<tr><td>$m</td><td class='lost'><b>LOST 4 acknowledged write(s) in round(s) 1</b>" \
			"$d/report.html" || { echo "no LOST verdict for $m"; return 1; }
		[ "$(grep -c "^1,$m," "$d/lost.csv")" -eq 4 ] || { echo "lost.csv: not 4 offsets of $m"; return 1; }
	done
	grep -q '^1,apm,749568,verify: bad magic header 5335, wanted acca at file apm.0.0 offset 749568' "$d/lost.csv"
	grep -q '^- round 3: the server was not back within 600s' "$d/report.md"
	# the client's RNIC: round 1's retries and sequence errors, not its packets sent
	local c="rxe0/ports/1/hw_counters" r
	for r in "- round 1: \`$c/completer_retry_err\` +3, \`$c/rcvd_seq_err\` +1" "- round 2: none grew" \
		"- round 3: no counters kept"; do
		grep -qxF -- "$r" "$d/report.md" || { echo "no RNIC line '$r'"; return 1; }
	done
	grep -q "^Loss of power: shown in 2 of 2 judged round(s) by the DRAM canary ./dev/mem@0x8000000.*Before the rounds a reset (.--canary-reset.) kept a token there" "$d/report.md"
	[ "$(wc -l <"$d/results.csv")" -eq 7 ] || return 1 # the header and 2 rounds x 3 methods
	# the server host's facts a row each, not a dict's text
	grep -q '^| server: server memory placement | device-DAX dax0.0: NUMA node 0' "$d/report.md" &&
		! grep -q "{'" "$d/report.md"
}

# only the clean round: every verdict SURVIVED, no lost write, nothing PARTIAL
durability_clean() {
	local d=$WORK/durability-clean
	grep -cE "<td class='survived'><b>SURVIVED: every acknowledged write read back intact, 1 power cut\(s\), quiet for [2-9] ms at most before each" \
		"$d/report.html" | grep -qx 3
	# (the quiet times of the round's result.tsv: the longest apm's 2 ms, gpspm's 9)
	grep -q "<tr><td>gpspm</td><td class='survived'><b>SURVIVED.*quiet for 9 ms at most" "$d/report.html"
	grep -qx none "$d/report.md"
	! grep -q PARTIAL "$d/report.md"
}

durability_checks() {
	cp -r "$HERE/fixtures/durability" "$WORK/"
	check "durability: report of a run's folder" python3 "$MATRIX" durability "$WORK/durability"
	check "durability: verdicts, lost offsets with fio's words, a round not judged" durability_report
	check "durability: HTML refers to no other file" html_refers_to_nothing "$WORK/durability/report.html"
	mkdir -p "$WORK/durability-clean/rounds"
	cp -r "$WORK/durability/options.json" "$WORK/durability/env.json" "$WORK/durability/canary-control" \
		"$WORK/durability-clean/"
	cp -r "$WORK/durability/rounds/r2" "$WORK/durability-clean/rounds/"
	echo complete >"$WORK/durability-clean/status"
	check "durability: a clean run's verdicts SURVIVED" bash -c \
		"python3 '$MATRIX' durability '$WORK/durability-clean' && $(declare -f durability_clean); WORK='$WORK' durability_clean"
	check "durability: judging a round, the verdicts' rules, the exit status (test_readback.py)" \
		python3 "$HERE/test_readback.py"
	check "durability: options, the rounds' shapes, seeds and patterns (test_durability_options.py)" \
		python3 "$HERE/test_durability_options.py"
	check "durability: rounds against platforms that lose data, fio on files (test_durability.sh)" \
		"$HERE/test_durability.sh"
	check "durability CLI: --help, and as run_matrix.sh durability" bash -c \
		"'$ROOT/scripts/run_matrix.sh' durability --help | grep -q -- '--power-cut CMD'"
	check "durability CLI: --dry-run cycles bs x iodepth over the rounds" bash -c \
		"'$ROOT/scripts/run_durability.sh' --dry-run --rounds 4 | awk '\$1 ~ /^[1-4]\$/ { print \$2, \$3 }' |
		tr '\n' ' ' | grep -qx '4k 1 64k 1 4k 8 64k 8 '"
	check "durability CLI: bad --rounds named" dur_cli_fails_with "--rounds: '0' is not a positive" --rounds 0
	check "durability CLI: unknown method named" dur_cli_fails_with "'foo' is none of apm, gpspm, apm-native" \
		--methods apm,foo
	check "durability CLI: apm-native needs --native" dur_cli_fails_with "apm-native needs the native build" \
		--methods apm-native
	check "durability CLI: bad block size named" dur_cli_fails_with "--bs: '4x' is not a block size" --bs 4x
	check "durability CLI: --server needs --power-cut" dur_cli_fails_with "--server needs --power-cut CMD" \
		--server h
	check "durability CLI: --mem malloc refused" dur_cli_fails_with "DRAM (malloc) forgets everything" \
		--server h --power-cut true --mem malloc
	check "durability CLI: unknown option named" dur_cli_fails_with "unknown option '--bogus'" --bogus
}

main() {
	rm -rf "$WORK"
	mkdir -p "$WORK"
	cp -r "$HERE/fixtures/a" "$HERE/fixtures/b" "$WORK/"
	check "build A" python3 "$MATRIX" build "$WORK/a"
	check "golden CSV of A" golden_rows a.csv "$WORK/a/results.csv"
	check "charts of A" charts_exist "$WORK/a" lat_vs_bs_write iops_vs_bs_write bw_vs_bs_write \
		iops_vs_noflush fraction_of_raw overview lat_percentiles_small_sync_writes lat_cdf
	check "the findings (test_findings.py)" python3 "$HERE/test_findings.py"
	check "benchmarks: this run's IOPS verdicts against the previous run's (test_reproduce.py)" \
		python3 "$HERE/test_reproduce.py"
	check "the platform's facts: DDIO per root port, RNICs, PMem (test_platform.py)" \
		python3 "$HERE/test_platform.py"
	check "env.json: RDMA devices, git revision, the server's platform (test_environment.py)" \
		python3 "$HERE/test_environment.py"
	check "A's report opens with its findings" findings_first "$WORK/a/report.md"
	check "HTML of A self-contained" html_is_self_contained "$WORK/a/report.html"
	check "report HTML: lists, tables, no literal Markdown; A's methods and environment" \
		env REPORT_DIR="$WORK/a" python3 "$HERE/test_report_html.py"
	check "per-I/O costs, ours vs the peer, BENCHMARKS.md targets (test_costs.py)" \
		python3 "$HERE/test_costs.py"
	check "instructions: the callbacks' count without fio's own code (test_callgrind.py)" \
		python3 "$HERE/test_callgrind.py"
	check "verdicts: intervals over pairs and runs, compare's (test_verdicts.py)" \
		python3 "$HERE/test_verdicts.py"
	check "the schedule: runs in order, their ports, costs, kept runs (test_schedule_runs.py)" \
		python3 "$HERE/test_schedule_runs.py"
	check "ours vs the peer interleaved, pairs until decided (test_schedule.sh)" "$HERE/test_schedule.sh"
	check "the GPSPM server's polling modes side by side (test_polling.py)" python3 "$HERE/test_polling.py"
	check "a GPSPM server's CPU per I/O as its clients grow (test_clientsbench.py)" python3 "$HERE/test_clientsbench.py"
	check "bench_clients.sh: the VM's side takes the options the host passes by default" \
		bench_vm_side_takes_defaults bench_clients.sh
	check "bench_clients.sh: ... and --control" bench_vm_side_takes_defaults bench_clients.sh \
		--control "$ROOT/Makefile"
	check "bench_polling.sh: the VM's side takes the options the host passes by default" \
		bench_vm_side_takes_defaults bench_polling.sh
	check "bench_polling.sh: bad --rounds named" script_fails_with bench_polling.sh "--rounds: '0' is not" --rounds 0
	check "bench_polling.sh: bad --rate named" script_fails_with bench_polling.sh "--rate: 'x' is not" --rate x
	check "report HTML rendered alone by headless Chromium, findings first" \
		"$HERE/render_check.sh" "$WORK/a" --no-screenshot
	check "the render check fails on a report without findings" render_check_wants_findings "$WORK/a"
	check "a point with no run marked missing" grep -Eq '^\| p006 .*\*\*missing\*\*' "$WORK/a/report.md"
	check "A is complete (no PARTIAL)" bash -c "! grep -q PARTIAL '$WORK/a/report.md'"
	check "build B" python3 "$MATRIX" build "$WORK/b"
	check "B is marked PARTIAL" grep -q '^\*\*PARTIAL\*\*' "$WORK/b/report.md"
	check "compare A B" python3 "$MATRIX" compare "$WORK/a" "$WORK/b" "$WORK/cmp"
	check "compare: ratios, no verdict from 3 runs" compare_flags "$WORK/cmp/compare.csv" "$WORK/cmp/report.md"
	check "compare: charts with both folders" charts_exist "$WORK/cmp" lat_vs_bs_write iops_vs_bs_write
	check "compare: HTML self-contained" html_is_self_contained "$WORK/cmp/report.html"
	check "CLI: --help" "$ROOT/scripts/run_matrix.sh" --help
	check "CLI: the settings as shell words, options.json, the dry run's table (test_runargs.py)" \
		python3 "$HERE/test_runargs.py"
	check "CLI: the summary printed, the run --resume continues (test_summary.py)" \
		python3 "$HERE/test_summary.py"
	check "CLI: every option's bad value refused in one line, before a run (test_bad_options.sh)" \
		"$HERE/test_bad_options.sh"
	check "CLI: --resume continues an interrupted run to an uninterrupted one's runs (test_resume.sh)" \
		"$HERE/test_resume.sh"
	check "CLI: --dry-run gives the pairs' range" dry_run_pairs
	check "CLI: --dry-run counts the plan" dry_run_counts
	check "CLI: the server's memory, device DAX in the VM by default" dry_run_memory
	sweep_checks
	cp -r "$HERE/fixtures/clients" "$WORK/"
	check "clients: build (fio's client/server JSON)" python3 "$MATRIX" build "$WORK/clients"
	check "clients: all clients' figures, the hosts column" clients_figures "$WORK/clients"
	check "clients: scaling charts (IOPS, latency vs client hosts x jobs)" charts_exist "$WORK/clients" \
		iops_vs_clients_qd lat_vs_clients_qd iops_vs_clients_sync lat_vs_clients_sync
	check "clients: one host's charts keep one host's points" charts_exist "$WORK/clients" lat_vs_bs_write
	check "clients: expand-job (a client host's job file)" expand_job
	check "clients: expand-job names a variable without a value" bash -c \
		"python3 '$MATRIX' expand-job --out '$WORK/x.fio' '$ROOT/jobs/randwrite.fio' PORT=1 2>&1 |
		grep -q 'SERVER_IP} has no value'"
	check "CLI: --lat-bs none: no latency points" bash -c "'$ROOT/scripts/run_matrix.sh' --quick --dry-run \
		--methods apm --rw write --lat-bs none --bw-bs 4k --bw-qd 8 --qd 8 | grep -c '^p0' | grep -qx 1"
	check "CLI: gpspm-hub at the --jobs points above 1, ours only" hub_points
	durability_checks
	echo
	echo -n "matrix: "
	summary
}

# gpspm-hub (one server thread for all clients): a point per --jobs value above 1, none
# for the peer (it has no such server), none at one client (gpspm-busy's point)
hub_points() {
	local got
	got=$("$ROOT/scripts/run_matrix.sh" --quick --dry-run --methods gpspm-busy,gpspm-hub --rw write \
		--lat-bs none --bw-bs none --qd 8 --bw-qd 8 --jobs 1,2,4 --impl ours,peer |
		awk '$3 == "gpspm-hub" { print $2, $4, $9 }')
	[ "$got" = "$(printf 'ours jobs 2\nours jobs 4')" ] || { echo "gpspm-hub points: $got"; return 1; }
	# with client hosts: from 2 connections on (1 job on 2 hosts, 2 jobs on 1 and 2)
	got=$(python3 "$MATRIX" plan --preset quick --methods gpspm-hub --rws write --jobs 1,2 --hosts 2 |
		awk -F'\t' 'NR > 1 { print $9 "x" $10 }' | tr '\n' ' ')
	[ "$got" = "1x2 2x1 2x2 " ] || { echo "gpspm-hub points with 2 hosts (jobs x hosts): $got"; return 1; }
}

main "$@"
