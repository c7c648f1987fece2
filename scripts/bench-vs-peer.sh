#!/bin/bash
# scripts/bench-vs-peer.sh -- rpma-fio's engines against the peer (fio 3.33's
# in-tree librpma engines over upstream librpma 1.2.0, build/peer/fio from
# scripts/build-peer.sh), side by side in one boot of the Soft-RoCE VM, with
# perftest's raw-verbs figures on the same device as the limit. Writes the table
# of medians to docs/BENCHMARKS.md. See --help.
set -euo pipefail

PROJECT=$(cd "$(dirname "$0")/.." && pwd)
cd "$PROJECT"

REPEATS=3
RUNTIME=5
RAMP=1
KERNEL=6.1
ONLY=.
OUT=docs/BENCHMARKS.md
RESULTS=build/bench
PEER_FIO=build/peer/fio
MODE=host
SUMMARY_ONLY=0
VM_LOCK=/tmp/rpma-vm.lock

usage() {
	cat <<EOF
Usage: scripts/bench-vs-peer.sh [OPTIONS]

Boots the Soft-RoCE VM once and, for APM and GPSPM, runs each point below with
rpma-fio's engines ("ours") and with the peer's (fio 3.33's in-tree
librpma_*_client/_server engines over librpma 1.2.0, build/peer/fio), the two
alternating, REPEATS times each; then perftest's raw-verbs limits on the same
device. Prints a table of medians (min-max) with the ratios ours/peer and
each/limit, and writes it to $OUT.

Points (server memory: DRAM; servers busy-poll; clients busy-poll):
  randwrite-4k-qd1-sync     4 KiB random writes, sync=1 (each durable before the next)
  randwrite-4k-qd8-batch    4 KiB random writes, iodepth=8, batches of 8
  randwrite-4k-qd32-batch   4 KiB random writes, iodepth=32, batches of 32
  write-64k-qd8-batch       64 KiB sequential writes, iodepth=8, batches of 8
  randread-4k-qd1-sync      4 KiB random reads, sync=1 (APM only: a GPSPM read is
                            the same RDMA read, and the peer's GPSPM client cannot read)
(batches: iodepth_batch_submit = iodepth_batch_complete_min = iodepth)

Options:
  --repeats N     runs of each point per implementation (default $REPEATS, at least 1)
  --runtime S     measured seconds per run (default $RUNTIME)
  --ramp S        warm-up seconds per run, not measured (default $RAMP)
  --only REGEX    only the points (METHOD-POINT, e.g. apm-randwrite) matching REGEX
  --kernel K      the guest's kernel (default $KERNEL)
  --out FILE      the Markdown report (default $OUT; '-' for none)
  --results DIR   raw results: fio JSON, perftest output (default $RESULTS)
  --summary       only rebuild the table from the results already in DIR
  -h, --help      this help

Needs: make peer engines (build/peer/fio, build/librpma_{apm,gpspm}.so),
the VM (scripts/softroce-vm setup), perftest and python3.
EOF
}

die() {
	echo "bench-vs-peer: $*" >&2
	exit 1
}

say() {
	echo "bench-vs-peer: $*" >&2
}

positive_int() {
	[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1=$2: not a positive whole number"
}

parse_args() {
	while [ $# -gt 0 ]; do
		local opt=$1 val=
		case $opt in
		--*=*) val=${opt#*=}; opt=${opt%%=*} ;;
		--repeats | --runtime | --ramp | --only | --kernel | --out | --results)
			[ $# -ge 2 ] || die "$opt needs a value (see --help)"
			val=$2
			shift ;;
		esac
		case $opt in
		--repeats) positive_int "$opt" "$val"; REPEATS=$val ;;
		--runtime) positive_int "$opt" "$val"; RUNTIME=$val ;;
		--ramp) [[ $val =~ ^[0-9]+$ ]] || die "--ramp=$val: not a whole number"; RAMP=$val ;;
		--only) ONLY=$val ;;
		--kernel) KERNEL=$val ;;
		--out) OUT=$val ;;
		--results) RESULTS=$val ;;
		--summary) SUMMARY_ONLY=1 ;;
		--in-vm) MODE=vm ;;
		-h | --help) usage; exit 0 ;;
		*) die "unknown argument '$1' (see --help)" ;;
		esac
		shift
	done
}

# METHOD POINT FIO_ARGS... (one line each; the limit's name comes from the point)
points() {
	local batch8=(--sync=0 --iodepth=8 --iodepth_batch_submit=8 --iodepth_batch_complete_min=8)
	local batch32=(--sync=0 --iodepth=32 --iodepth_batch_submit=32 --iodepth_batch_complete_min=32)
	local method
	for method in apm gpspm; do
		echo "$method randwrite-4k-qd1-sync --rw=randwrite --bs=4k --sync=1"
		echo "$method randwrite-4k-qd8-batch --rw=randwrite --bs=4k ${batch8[*]}"
		echo "$method randwrite-4k-qd32-batch --rw=randwrite --bs=4k ${batch32[*]}"
		echo "$method write-64k-qd8-batch --rw=write --bs=64k ${batch8[*]}"
	done
	echo "apm randread-4k-qd1-sync --rw=randread --bs=4k --sync=1"
}

# ---------------------------------------------------------------- in the VM

A=${RPMA_TEST_ADDR:-}
PORT=7600

# Wait (at most 20 s) until an RDMA CM ID listens on port $1: the peer's server
# says nothing when it does, and the peer's client does not retry.
wait_listening() {
	local port=$1 i
	for i in $(seq 200); do
		rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN .*:$port\b" && return 0
		sleep 0.1
	done
	return 1
}

# IMPL METHOD OUTDIR: start the server in the background; sets SERVER_PID.
start_server() {
	local impl=$1 method=$2 out=$3
	if [ "$impl" = ours ]; then
		env SERVER_IP="$A" PORT="$PORT" SERVER_MEM=malloc SERVER_SIZE=64m SERVER_BUSY_WAIT=1 \
			timeout 120 fio --output-format=json --output="$out.server.json" \
			"jobs/$method-server.fio" >"$out.server.log" 2>&1 &
	else
		local extra=()
		[ "$method" = gpspm ] && extra=(--iodepth=64 --busy_wait_polling=1 --time_based --runtime=365d)
		timeout 120 "$PEER_FIO" --output-format=json --output="$out.server.json" --name=server \
			--ioengine="librpma_${method}_server" --serverip="$A" --port="$PORT" \
			--create_serialize=0 --thread --filename=malloc --size=67108864 \
			--direct_write_to_pmem=0 "${extra[@]}" >"$out.server.log" 2>&1 &
	fi
	SERVER_PID=$!
	wait_listening "$PORT"
}

# IMPL METHOD OUTDIR FIO_ARGS...: one run of a point.
run_once() {
	local impl=$1 method=$2 out=$3 engine
	shift 3
	PORT=$((PORT + 1))
	if [ "$impl" = ours ]; then
		engine=(fio --ioengine=external:"build/librpma_$method.so" --busy_wait_polling=1)
	else
		engine=("$PEER_FIO" --ioengine="librpma_${method}_client")
	fi
	if ! start_server "$impl" "$method" "$out"; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" || true
		cat "$out.server.log" >&2
		die "$impl's $method server did not listen on port $PORT"
	fi
	local status=0
	timeout $((RUNTIME + RAMP + 60)) "${engine[@]}" --name=client --serverip="$A" --port="$PORT" \
		--create_serialize=0 --thread --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" \
		--lat_percentiles=1 --output-format=json --output="$out.client.json" "$@" \
		>"$out.client.log" 2>&1 || status=$?
	wait "$SERVER_PID" || status=$((status ? status : $?))
	if [ "$status" -ne 0 ]; then
		cat "$out.server.log" "$out.client.log" "$out.client.json" >&2 || true
		die "$impl $method $* failed (status $status)"
	fi
}

# The GID index of rxe0's RoCE v2 IPv4 address (perftest's -x).
roce_gid_index() {
	local dir=/sys/class/infiniband/rxe0/ports/1 f i
	for f in "$dir"/gids/*; do
		i=${f##*/}
		case $(cat "$f") in *:ffff:c0a8:*) ;; *) continue ;; esac
		[ "$(cat "$dir/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] && { echo "$i"; return; }
	done
	die "no RoCE v2 IPv4 GID on rxe0"
}

# NAME TOOL ARGS...: a perftest server and client pair; output in perftest-NAME.txt
perftest() {
	local name=$1 tool=$2 gid
	shift 2
	gid=$(roce_gid_index)
	local args=(-d rxe0 -x "$gid" -F "$@")
	timeout 60 "$tool" "${args[@]}" >"$RESULTS/perftest-$name.server.txt" 2>&1 &
	local spid=$!
	sleep 1
	timeout 60 "$tool" "${args[@]}" "$A" >"$RESULTS/perftest-$name.txt" 2>&1 ||
		{ cat "$RESULTS/perftest-$name.txt" >&2; die "$tool $* failed"; }
	wait "$spid" || true
	say "perftest $name: $(grep -E '^ *[0-9]+ +[0-9]+ ' "$RESULTS/perftest-$name.txt" | head -1)"
}

run_in_vm() {
	[ -n "$A" ] || die "--in-vm: RPMA_TEST_ADDR is not set (not inside the VM?)"
	mkdir -p "$RESULTS"
	{
		echo "guest_kernel=$(uname -r)"
		echo "guest_cpus=$(nproc)"
		echo "guest_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	} >"$RESULTS/env.txt"
	local lines total n=0 line method point args impl rep order
	# (no process substitution: the guest has no /dev/fd)
	points | while read -r m p rest; do
		[[ $m-$p =~ $ONLY ]] && echo "$m $p $rest"
	done >"$RESULTS/points.txt" || true
	mapfile -t lines <"$RESULTS/points.txt"
	[ ${#lines[@]} -gt 0 ] || die "--only=$ONLY matches no point"
	total=$((${#lines[@]} * REPEATS * 2))
	for line in "${lines[@]}"; do
		read -r method point args <<<"$line"
		for rep in $(seq "$REPEATS"); do
			# alternate which one runs first
			order="ours peer"
			[ $((rep % 2)) -eq 0 ] && order="peer ours"
			for impl in $order; do
				n=$((n + 1))
				say "[$n/$total] $method $point: $impl, run $rep of $REPEATS"
				# shellcheck disable=SC2086 # the point's fio options
				run_once "$impl" "$method" "$RESULTS/$method-$point.$impl.$rep" $args
			done
		done
	done
	say "perftest: the raw-verbs limits"
	# (writes: ib_write_bw with DEPTH writes in flight, completions polled, as in
	# the fio runs; ib_write_lat's memory ping-pong with two busy pollers has a
	# tail of milliseconds under TCG)
	perftest read-lat-4k ib_read_lat -s 4096 -n 5000
	perftest write-bw-4k-t1 ib_write_bw -s 4096 -t 1 -D 3
	perftest write-bw-4k-t8 ib_write_bw -s 4096 -t 8 -D 3
	perftest write-bw-4k-t32 ib_write_bw -s 4096 -t 32 -D 3
	perftest write-bw-64k-t8 ib_write_bw -s 65536 -t 8 -D 3
}

# ---------------------------------------------------------------- on the host

git_rev() {
	local head ref
	head=$(cat .git/HEAD 2>/dev/null) || { echo unknown; return; }
	if [[ $head == ref:* ]]; then
		ref=${head#ref: }
		if [ -f ".git/$ref" ]; then
			head=$(<".git/$ref")
		else
			head=$(sed -n "s| $ref\$||p" .git/packed-refs 2>/dev/null || true)
		fi
	fi
	echo "${head:0:12}"
}

write_host_env() {
	{
		echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
		echo "host_cpus=$(nproc)"
		echo "git_rev=$(git_rev)"
		echo "fio_ours=$(fio --version)"
		echo "fio_peer=$("$PEER_FIO" --version) (build/peer/fio)"
		echo "perftest=$(dpkg-query -W -f '${Version}' perftest 2>/dev/null || echo unknown)"
		echo "librpma_peer=$(tr ' ' '\n' <build/peer/root/.stamp | sed -n 's/^librpma0=//p')"
		echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "command=$COMMAND_LINE"
		echo "repeats=$REPEATS"
		echo "runtime=$RUNTIME"
		echo "ramp=$RAMP"
	} >"$RESULTS/host-env.txt"
}

run_host() {
	[ -x "$PEER_FIO" ] || die "$PEER_FIO is missing: make peer"
	local so
	for so in build/librpma_apm.so build/librpma_gpspm.so; do
		[ -f "$so" ] || die "$so is missing: make engines"
	done
	command -v python3 >/dev/null || die "python3 not found"
	command -v ib_write_lat >/dev/null || die "perftest (ib_write_lat) not found: scripts/deps.sh vm"
	rm -rf "$RESULTS"
	mkdir -p "$RESULTS"
	write_host_env
	local npoints limit
	npoints=$(points | while read -r m p _; do [[ $m-$p =~ $ONLY ]] && echo; done | wc -l)
	[ "$npoints" -gt 0 ] || die "--only=$ONLY matches no point"
	limit=$((npoints * REPEATS * 2 * (RUNTIME + RAMP + 20) + 180))
	say "$npoints points x 2 x $REPEATS runs of ${RUNTIME}+${RAMP} s; VM time limit $limit s"
	local start=$SECONDS
	flock "$VM_LOCK" scripts/softroce-vm run --kernel "$KERNEL" --timeout "$limit" -- \
		scripts/bench-vs-peer.sh --in-vm --repeats "$REPEATS" --runtime "$RUNTIME" --ramp "$RAMP" \
		--only "$ONLY" --results "$RESULTS" 2> >(tee "$RESULTS/vm.log" >&2) ||
		die "the benchmark failed in the VM (see above and $RESULTS/vm.log)"
	sed -n 's/.*booting kernel \(.*\)$/vm=\1/p' "$RESULTS/vm.log" | head -1 >>"$RESULTS/host-env.txt"
	say "the VM run took $((SECONDS - start)) s"
}

summarize() {
	[ -d "$RESULTS" ] || die "no results in $RESULTS"
	python3 - "$RESULTS" "$OUT" <<'PYEOF'
import glob, json, os, re, statistics, sys

results, out = sys.argv[1], sys.argv[2]

def read_env(name):
    env = {}
    path = os.path.join(results, name)
    if os.path.exists(path):
        for line in open(path):
            k, _, v = line.rstrip("\n").partition("=")
            env[k] = v
    return env

def load_json(path):
    # fio may print notices before its JSON in the same file
    text = open(path).read()
    start = text.find("{")
    if start < 0:
        raise SystemExit(f"bench-vs-peer: no JSON in {path}")
    return json.JSONDecoder().raw_decode(text[start:])[0]

def client_figures(job):
    ios = sum(job[d]["total_ios"] for d in ("read", "write"))
    iops = sum(job[d]["iops"] for d in ("read", "write"))
    d = "read" if job["read"]["total_ios"] else "write"
    lat = job[d]["lat_ns"]
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000
    return {
        "iops": iops,
        "lat_mean": lat["mean"] / 1000,
        "lat_p99": lat["percentile"]["99.000000"] / 1000,
        "cpu_per_io": cpu_s / ios * 1e6 if ios else float("nan"),
    }

def server_cpu_per_io(job, client_iops):
    # the server's CPU time per second of its run, per client I/O per second
    util = (job["usr_cpu"] + job["sys_cpu"]) / 100
    return util / client_iops * 1e6 if client_iops else float("nan")

runs = {}  # (point, impl) -> list of figure dicts
order = []
for path in sorted(glob.glob(os.path.join(results, "*.client.json"))):
    base = os.path.basename(path)[: -len(".client.json")]
    point, impl, _rep = base.rsplit(".", 2)
    fig = client_figures(load_json(path)["jobs"][0])
    if point.startswith("gpspm-"):
        server = load_json(os.path.join(results, base + ".server.json"))["jobs"][0]
        fig["server_cpu_per_io"] = server_cpu_per_io(server, fig["iops"])
    runs.setdefault((point, impl), []).append(fig)
    if point not in order:
        order.append(point)
if not runs:
    raise SystemExit(f"bench-vs-peer: no results in {results}")

def perftest(name):
    path = os.path.join(results, f"perftest-{name}.txt")
    if not os.path.exists(path):
        return None
    for line in open(path):
        f = line.split()
        if len(f) >= 5 and f[0].isdigit() and f[1].isdigit():
            return [float(x) for x in f[2:]]
    return None

def limits(point):
    """(IOPS, mean latency us, p99 latency us) of raw verbs for a point."""
    m = re.match(r"\w+-(rand)?(write|read)-(\d+)k-qd(\d+)-(sync|batch)", point)
    _, op, kib, depth, mode = m.groups()
    depth = int(depth)
    if op == "read":
        # columns: t_min t_max t_typical t_avg t_stdev p99 p99.9
        lat = perftest(f"{op}-lat-{kib}k")
        if not lat:
            return None
        return (1e6 / lat[3], lat[3], lat[5])
    # columns: BW peak, BW average (MB/s), MsgRate (Mpps); Little's law for latency
    bw = perftest(f"{op}-bw-{kib}k-t{depth}")
    if not bw:
        return None
    iops = bw[2] * 1e6
    return (iops, depth / iops * 1e6, None)

def stats(values):
    return statistics.median(values), min(values), max(values)

def fmt(x):
    if x != x:
        return "n/a"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"

METRICS = [
    # key, title, better (+1 higher, -1 lower), limit index, target
    ("iops", "IOPS", +1, 0, "ours >= 1.0x peer (>= 1.3x for random writes batched at depth >= 8)"),
    ("lat_mean", "mean latency (lat_ns), us", -1, 1, "ours <= 1.0x peer"),
    ("lat_p99", "p99 latency (lat_ns), us", -1, 2, "ours <= 1.0x peer"),
    ("cpu_per_io", "client CPU per I/O (usr+sys), us", -1, None, "ours <= 0.8x peer"),
    ("server_cpu_per_io", "GPSPM server CPU per I/O (busy-wait polling), us", -1, None,
     "ours <= 0.8x peer"),
]

def target_for(key, point):
    if key == "iops":
        batched = re.search(r"randwrite-4k-qd(\d+)-batch", point)
        return 1.3 if batched and int(batched.group(1)) >= 8 else 1.0
    if key in ("cpu_per_io", "server_cpu_per_io"):
        return 0.8
    return 1.0

def verdict(key, better, point, ours, peer):
    target = target_for(key, point)
    ratio = ours[0] / peer[0]
    if (better > 0 and ratio >= target) or (better < 0 and ratio <= target):
        return "met"
    # within the spread: the peer's range scaled by the target overlaps ours
    lo, hi = peer[1] * target, peer[2] * target
    if ours[1] <= hi and ours[2] >= lo:
        return "within spread"
    return "**missed**"

lines = []
env = read_env("host-env.txt")
genv = read_env("env.txt")
lines.append("# rpma-fio vs the peer: benchmarks\n")
lines.append("rpma-fio's engines (\"ours\") against fio 3.33's in-tree `librpma_*` engines over "
             "upstream librpma 1.2.0 (\"peer\", `build/peer/fio`, see docs/interop.md), "
             "in the Soft-RoCE VM: both the client and the server run in one guest "
             "(loopback over rxe). Each figure is the median of the runs with the "
             "minimum-maximum in brackets. Generated by `scripts/bench-vs-peer.sh`; "
             "do not edit by hand.\n")
lines.append("**These are TCG (software-emulated CPU) figures when the VM line says tcg: "
             "they compare two implementations on the same emulated device, they do not "
             "predict hardware performance.**\n")
lines.append("## How it was made\n")
lines.append("```sh\n" + env.get("command", "scripts/bench-vs-peer.sh").strip() + "\n```\n")
for k, label in [("date", "date"), ("git_rev", "git revision"), ("vm", "VM"),
                 ("host_cpu", "host CPU")]:
    if k in env:
        lines.append(f"- {label}: {env[k]}" + (f" ({env.get('host_cpus')} CPUs)" if k == "host_cpu" else ""))
for k, label in [("guest_kernel", "guest kernel"), ("guest_cpu", "guest CPU")]:
    if k in genv:
        lines.append(f"- {label}: {genv[k]}" + (f" ({genv.get('guest_cpus')} vCPUs)" if k == "guest_cpu" else ""))
for k, label in [("fio_ours", "fio running our engines"), ("fio_peer", "peer fio"),
                 ("librpma_peer", "peer librpma (Debian librpma0)"), ("perftest", "perftest")]:
    if k in env:
        lines.append(f"- {label}: {env[k]}")
lines.append(f"- runs: {env.get('repeats', '?')} per point and implementation, alternating "
             f"(ours first in odd runs, the peer first in even ones), "
             f"{env.get('runtime', '?')} s measured after {env.get('ramp', '?')} s of warm-up")
lines.append("- server memory DRAM (`filename=malloc`), 64 MiB; servers and clients busy-poll; "
             "batched points: `iodepth_batch_submit = iodepth_batch_complete_min = iodepth`, `sync=0`; "
             "same fio options on the command line for both (`--lat_percentiles=1`)")
lines.append("- client CPU per I/O = (usr + sys) % x runtime / I/Os of the client job; GPSPM server "
             "CPU per I/O = the server job's (usr + sys) % / the client's IOPS")
lines.append("- limit: perftest on the same device in the same boot: reads `ib_read_lat -s 4096` "
             "(IOPS limit = 1 / t_avg), writes `ib_write_bw -s BS -t DEPTH` (DEPTH writes in flight; "
             "latency limit = DEPTH / message rate, no p99)\n")

for key, title, better, limit_index, target in METRICS:
    rows = []
    for point in order:
        ours, peer = runs.get((point, "ours")), runs.get((point, "peer"))
        if not ours or not peer or key not in ours[0]:
            continue
        o = stats([r[key] for r in ours])
        p = stats([r[key] for r in peer])
        lim = limits(point)
        lim_v = lim[limit_index] if (lim and limit_index is not None) else None
        def vs_limit(x):
            if not lim_v:
                return "-"
            return f"{x / lim_v:.2f}x"
        rows.append(f"| {point} | {fmt(o[0])} ({fmt(o[1])}-{fmt(o[2])}) | "
                    f"{fmt(p[0])} ({fmt(p[1])}-{fmt(p[2])}) | {o[0] / p[0]:.2f}x | "
                    + (f"{fmt(lim_v) if lim_v else '-'} | {vs_limit(o[0])} | {vs_limit(p[0])} | "
                       if limit_index is not None else "")
                    + f"{verdict(key, better, point, o, p)} |")
    if not rows:
        continue
    lines.append(f"## {title}\n")
    lines.append(f"Target: {target}.\n")
    if limit_index is not None:
        lines.append("| point | ours | peer | ours/peer | raw verbs | ours/limit | peer/limit | target |")
        lines.append("|---|---|---|---|---|---|---|---|")
    else:
        lines.append("| point | ours | peer | ours/peer | target |")
        lines.append("|---|---|---|---|---|")
    lines.extend(rows)
    lines.append("")

lines.append("## Reading the figures\n")
lines.append("""- Under TCG, Soft-RoCE's own work dominates: each 4 KiB write costs the
  emulated CPU a copy and a software ICRC (CRC32) of the payload, while a flush (an
  8-byte RDMA read for APM, a ~20-byte message and its answer for GPSPM) costs a
  fraction of that. Posting one flush per batch instead of one per write therefore
  saves only the flushes' share: the gain grows with the depth, and ours stays
  close to the raw-verbs write rate of the same depth (`ours/limit`), which bounds
  any implementation.
- Both clients and both GPSPM servers busy-poll: each keeps its CPU 100 % busy
  whatever it does, so CPU per I/O is close to 1 / IOPS for both and its ratio
  follows the IOPS ratio.
- The host (2 cores) was shared with other work: the spread between runs, not
  the medians alone, says whether two figures differ. `within spread` means
  the ranges of ours and of the peer's (scaled by the target) overlap.
""")

text = "\n".join(lines) + "\n"
print(text)
if out != "-":
    with open(out, "w") as f:
        f.write(text)
    print(f"bench-vs-peer: wrote {out}", file=sys.stderr)
PYEOF
}

COMMAND_LINE="scripts/bench-vs-peer.sh $*"
parse_args "$@"
if [ "$MODE" = vm ]; then
	run_in_vm
	exit 0
fi
if [ "$SUMMARY_ONLY" = 0 ]; then
	run_host
fi
summarize
