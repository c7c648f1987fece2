#!/usr/bin/env bash
# tests/multinode/matrix.sh -- the matrix runner's ssh path for real:
# `scripts/run_matrix.sh --server node1` from here, its servers (fio, perftest)
# started on node1 over ssh and their JSON fetched back (with --server-load, the burner
# of node1's CPUs too); then Ctrl-C in the middle
# of a run must leave no process on either side.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/multinode/lib.sh
. tests/multinode/lib.sh

# 2 points: apm and perftest at 4 KiB, depth 8 (the ssh path, the server's JSON and its
# packets are the same for every method and depth; GPSPM across hosts: engines.sh; the
# sync points over ssh: many_clients below)
PLAN=(--quick --methods 'apm,raw' --rw write --lat-bs none --bw-bs 4k --bw-qd 8 --qd 8)

# fio's or perftest's processes on node1 and here (none once a run is over)
leftovers() {
	local here there
	# shellcheck disable=SC2016 # expanded where it runs: here, and on node1
	local find='for p in fio ib_write_lat ib_write_bw; do pgrep -a -x $p; done'
	here=$(eval "$find")
	there=$(ssh -n "$SERVER_NODE" "$find")
	[ -z "$here$there" ] && return 0
	echo "  still running here: ${here:-none}; on $SERVER_NODE: ${there:-none}" >>"$E2E_DIR/why"
	return 1
}

ssh_path() {
	local name=matrix-ssh-path status=0 out stem
	e2e_wanted "$name" || return 0
	E2E_DIR=$E2E_TMP/$name out=$E2E_TMP/$name/result
	mkdir -p "$E2E_DIR"
	timeout 600 scripts/run_matrix.sh --server "$SERVER_NODE" "${PLAN[@]}" --server-load 100 --out "$out" \
		>"$E2E_DIR/client.log" 2>&1 || { status=1; echo "  run_matrix.sh failed" >>"$E2E_DIR/why"; }
	grep -qx complete "$out/status" 2>/dev/null ||
		{ status=1; echo "  status: $(cat "$out/status" 2>/dev/null)" >>"$E2E_DIR/why"; }
	stem=$out/runs/p001-r1 # the fio point: its server on node1
	jq -e '.jobs | length > 0' "$stem.server.json" >/dev/null 2>&1 ||
		{ status=1; echo "  ${stem##*/}: no server JSON fetched from $SERVER_NODE" >>"$E2E_DIR/why"; }
	grep -q "listening on $SERVER_NODE:" "$stem.server.log" 2>/dev/null ||
		{ status=1; echo "  ${stem##*/}: the server did not listen on $SERVER_NODE" >>"$E2E_DIR/why"; }
	stem=$out/runs/p002-r1 # perftest, its server on node1
	grep -q 'bytes' "$stem.perftest.txt" 2>/dev/null ||
		{ status=1; echo "  ${stem##*/}: no perftest result" >>"$E2E_DIR/why"; }
	# packets counted on both hosts: at least one per I/O of the cost run
	stem=$out/runs/p001-cost
	[ "$(cat "$stem.packets" 2>/dev/null || echo 0)" -ge 200 ] ||
		{ status=1; echo "  ${stem##*/}: $(cat "$stem.packets" 2>/dev/null) packets" >>"$E2E_DIR/why"; }
	# --server-load 100: apm's load points (p003 sync, p004 at depth 8) ran with node1's
	# CPUs burning, a burner job per CPU of node1 told cpuload=100, its JSON fetched back
	# (what the runner set up and that each job burned, not the share the scheduler gave)
	local cpus
	cpus=$(ssh -n "$SERVER_NODE" nproc)
	for stem in "$out/runs/p003-r1" "$out/runs/p004-r1"; do
		# (fio writes its note of the signal that stopped it before the JSON)
		sed -n '/^{/,$p' "$stem.load.json" 2>/dev/null | jq -e --argjson n "$cpus" \
			'(.jobs | length) == $n and all(.jobs[]; ."job options".cpuload == "100" and .usr_cpu + .sys_cpu > 0)' >/dev/null 2>&1 ||
			{ status=1; echo "  ${stem##*/}: no burner of $cpus jobs at 100% on $SERVER_NODE:" \
			"$(head -c 300 "$stem.load.json" 2>&1)" >>"$E2E_DIR/why"; }
	done
	jq -e '."server host" == "node1" and ."server kernel" != "same"' "$out/env.json" >/dev/null 2>&1 ||
		{ status=1; echo "  env.json does not describe the server host" >>"$E2E_DIR/why"; }
	leftovers || status=1
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}

# Ctrl-C (SIGINT to the runner's process group, as a terminal sends it) while a
# server runs on node1: the runner must end at once, with both sides cleaned up.
interrupted() {
	local name=matrix-ssh-ctrl-c status=0 out pid rc=0 i t0
	e2e_wanted "$name" || return 0
	E2E_DIR=$E2E_TMP/$name out=$E2E_TMP/$name/result
	mkdir -p "$E2E_DIR"
	set -m # its own process group, SIGINT not ignored
	scripts/run_matrix.sh --server "$SERVER_NODE" --quick --methods apm --rw write --lat-bs 4k \
		--bw-bs 64k --qd 8 --runtime 20 --no-costs --out "$out" >"$E2E_DIR/client.log" 2>&1 &
	pid=$!
	set +m
	for i in $(seq 1 60); do
		ssh -n "$SERVER_NODE" 'pgrep -x fio' >/dev/null && pgrep -x fio >/dev/null && break
		sleep 1
	done
	sleep 2
	t0=$SECONDS
	kill -INT -- "-$pid"
	timeout 30 tail --pid="$pid" -f /dev/null || { status=1; echo "  still running 30 s after SIGINT" >>"$E2E_DIR/why"; }
	wait "$pid" || rc=$?
	echo "  ended with $rc, $((SECONDS - t0)) s after SIGINT" >>"$E2E_DIR/why"
	[ "$rc" -eq 130 ] || { status=1; echo "  exit status $rc, not 130" >>"$E2E_DIR/why"; }
	grep -q '^partial (interrupted)' "$out/status" 2>/dev/null ||
		{ status=1; echo "  status: $(cat "$out/status" 2>/dev/null)" >>"$E2E_DIR/why"; }
	[ -s "$out/report.md" ] || { status=1; echo "  no partial report" >>"$E2E_DIR/why"; }
	sleep 1
	leftovers || status=1
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}

# fio's JSON in FILE without what fio printed before it (the engines' notes)
fio_json() {
	sed -n '/^{/,$p' "$1"
}

# --clients: fio's client/server mode, `fio --server` on node0 and node2 (this node is
# also the controller), the server on node1; every point with 1, then 2 client hosts.
many_clients() {
	local name=matrix-clients status=0 out stem h
	e2e_wanted "$name" || return 0
	E2E_DIR=$E2E_TMP/$name out=$E2E_TMP/$name/result
	mkdir -p "$E2E_DIR"
	# (APM only: fio's client/server mode carries every method alike)
	timeout 600 scripts/run_matrix.sh --server "$SERVER_NODE" --clients node0,node2 --quick \
		--methods apm --rw write --lat-bs 4k --bw-bs 4k --bw-qd 8 --qd 8 --out "$out" \
		>"$E2E_DIR/client.log" 2>&1 || { status=1; echo "  run_matrix.sh failed" >>"$E2E_DIR/why"; }
	grep -qx complete "$out/status" 2>/dev/null ||
		{ status=1; echo "  status: $(cat "$out/status" 2>/dev/null)" >>"$E2E_DIR/why"; }
	# the plan: apm and gpspm-sleep, depth 1 (sync) and 8, each on 1 then 2 hosts
	[ "$(awk -F'\t' 'NR > 1 { print $10 }' "$out/plan.tsv" | tr -d '\n')" = 1212 ] ||
		{ status=1; echo "  plan.tsv: not every point on 1 then 2 hosts" >>"$E2E_DIR/why"; }
	for stem in "$out"/runs/p00[13]-r1.json; do # one host: node0's result
		jq -e '[.client_stats[].hostname] == ["node0"] and .client_stats[0].error == 0
			and .client_stats[0].write.iops > 0' <<<"$(fio_json "$stem")" >/dev/null 2>&1 ||
			{ status=1; echo "  ${stem##*/}: not node0's one result: $(jq -c '[.client_stats[] |
				[.hostname, .jobname, .error]]' <<<"$(fio_json "$stem")" 2>&1)" >>"$E2E_DIR/why"; }
	done
	for stem in "$out"/runs/p00[24]-r1.json; do # two hosts: each one's, and all clients'
		jq -e '([.client_stats[] | select(.jobname != "All clients") | .hostname] | sort) ==
			["node0", "node2"]
			and ([.client_stats[] | select(.jobname == "All clients")] | length) == 1
			and ([.client_stats[] | select(.jobname != "All clients") | .write.io_bytes] | add) as $sum
			| [.client_stats[] | select(.jobname == "All clients") | .write.io_bytes][0] as $all
			| $all > 0 and $all == $sum' <<<"$(fio_json "$stem")" >/dev/null 2>&1 ||
			{ status=1; echo "  ${stem##*/}: no per-host results of node0 and node2 adding up to all clients':" \
				"$(jq -c '[.client_stats[] | [.hostname, .jobname, .write.io_bytes]]' <<<"$(fio_json "$stem")" 2>&1)" >>"$E2E_DIR/why"; }
	done
	ls "$out"/charts/iops_vs_clients_qd.* "$out"/charts/lat_vs_clients_sync.* >/dev/null 2>&1 ||
		{ status=1; echo "  no scaling charts among: $(echo "$out"/charts/*)" >>"$E2E_DIR/why"; }
	grep -q '| hosts |' "$out/report.md" 2>/dev/null || { status=1; echo "  report.md has no hosts column" >>"$E2E_DIR/why"; }
	# the fio daemons are gone from the client hosts
	for h in node0 node2; do
		! ssh -n "$h" 'pgrep -a -x fio' >>"$E2E_DIR/why" ||
			{ status=1; echo "  a fio process left on $h" >>"$E2E_DIR/why"; }
	done
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}

ssh_path
interrupted
if [ "$SOFTROCE_VM_NODES" -ge 3 ]; then
	many_clients
else
	echo "SKIP multinode-matrix-clients: needs 3 nodes (this run has $SOFTROCE_VM_NODES)"
fi
e2e_summary
