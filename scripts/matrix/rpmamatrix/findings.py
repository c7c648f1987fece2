# SPDX-License-Identifier: BSD-3-Clause
"""The report's opening: plain sentences from the rows. Per regime (small sync writes,
batched writes, large blocks, reads): what each method costs against no-flush, the
server CPU it takes, the best method; what the settings measured imply (direct write
to PMem, native FLUSH, DRAM, the VM); and what looks wrong. Also the overview chart's
figures: each method's IOPS against no-flush at each regime."""
from collections import namedtuple

from .aggregate import same_point
from .common import KIB

# the persistence methods, in the order the sentences name them
PERSISTENT = ["apm", "apm-native", "gpspm-busy", "gpspm-adaptive", "gpspm-sleep", "gpspm-hub"]
LABELS = {"apm": "APM", "apm-native": "APM native FLUSH", "gpspm-busy": "GPSPM busy server",
          "gpspm-adaptive": "GPSPM adaptive server", "gpspm-sleep": "GPSPM sleeping server",
          "gpspm-hub": "GPSPM one-thread server",
          "noflush": "no-flush", "raw": "raw verbs"}
# a method this much above the raw verbs' IOPS, or above no-flush's, is suspicious
ABOVE_LIMIT = 1.05
# runs spread (max - min) over this share of their median: the figure is shaky
SPREAD_LIMIT = 0.30
SPREAD_LISTED = 4

# a regime: its name, and the point (rw, bs, iodepth, sync) that stands for it
Regime = namedtuple("Regime", "name rw bs iodepth sync")


def single_rows(rows):
    """Our engines' (and the raw verbs') rows of one client connection."""
    return [r for r in rows if r["impl"] == "ours" and r["hosts"] == "1" and r["numjobs"] == "1"
            and r["load"] == "0"]


def preferred_bs(rows, bs="4096"):
    sizes = {r["bs"] for r in rows}
    return bs if bs in sizes else min(sizes, key=int)


def deepest(rows):
    return max((r["iodepth"] for r in rows), key=int)


def pick_regimes(rows):
    """The regimes the plan has points for, each at its most telling point: 4 KiB where
    measured, the deepest queue of the batched points, the largest batched block."""
    single = single_rows(rows)

    def at(rw, sync, bs=None):
        return [r for r in single if r["rw"] == rw and r["sync"] == sync and (bs is None or r["bs"] == bs)]
    regimes = []
    sync_writes = at("write", "1")
    if sync_writes:
        bs = preferred_bs(sync_writes)
        regimes.append(Regime("small sync writes", "write", bs, "1", "1"))
    queued = at("write", "0")
    if queued:
        bs = preferred_bs(queued)
        regimes.append(Regime("batched writes", "write", bs, deepest(at("write", "0", bs)), "0"))
        large = max((r["bs"] for r in queued), key=int)
        if int(large) > int(bs):
            regimes.append(Regime("large blocks", "write", large, deepest(at("write", "0", large)), "0"))
    reads = at("read", "1") or at("read", "0")
    if reads:
        bs = preferred_bs(reads)
        sync = reads[0]["sync"]
        regimes.append(Regime("reads", "read", bs, deepest(at("read", sync, bs)), sync))
    return regimes


def size_words(bs):
    """256 B, 4 KiB, 1 MiB."""
    n = int(bs)
    for unit, div in (("MiB", KIB * KIB), ("KiB", KIB)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def regime_title(g):
    return f"{g.name} ({size_words(g.bs)}, iodepth {g.iodepth}{', sync' if g.sync == '1' else ''})"


def measured_at(rows, g):
    """method -> row of our measured rows at the regime's point."""
    return {r["method"]: r for r in single_rows(rows)
            if (r["rw"], r["bs"], r["iodepth"], r["sync"]) == (g.rw, g.bs, g.iodepth, g.sync)
            and r["iops_median"]}


def pct(a, b):
    return (a / b - 1) * 100


def method_cost(m, r, base):
    """'APM -26% IOPS, +53 us' (against BASE), with the GPSPM server's CPU."""
    if base is None:
        text = f"{LABELS[m]} {r['iops_median']:.0f} IOPS"
    else:
        text = f"{LABELS[m]} {pct(r['iops_median'], base['iops_median']):+.0f}% IOPS"
        if r["lat_mean_us_median"] is not None and base["lat_mean_us_median"] is not None:
            text += f", {r['lat_mean_us_median'] - base['lat_mean_us_median']:+.0f} us"
    if m.startswith("gpspm") and r["server_cpu_pct_median"] is not None:
        text += f", server CPU {r['server_cpu_pct_median']:.0f}%"
    return text


def best_sentence(at):
    """Which method is best at a point: ahead when its runs' range clears the runner-up's."""
    ranked = sorted((m for m in PERSISTENT if m in at), key=lambda m: -at[m]["iops_median"])
    if len(ranked) < 2:
        return ""
    best, second = at[ranked[0]], at[ranked[1]]
    if min(at[m]["runs"] for m in ranked) < 2:
        return (f"Highest: {LABELS[ranked[0]]}, {pct(best['iops_median'], second['iops_median']):.0f}% "
                f"more IOPS than {LABELS[ranked[1]]} (one run a point: no spread to judge it by).")
    if best["iops_min"] > second["iops_max"]:
        return (f"Best: {LABELS[ranked[0]]}, {pct(best['iops_median'], second['iops_median']):.0f}% "
                f"more IOPS than {LABELS[ranked[1]]}.")
    level = [m for m in ranked if at[m]["iops_max"] >= best["iops_min"]]
    text = f"Level within their runs' spread: {', '.join(LABELS[m] for m in level)}"
    cheapest = min(level, key=lambda m: server_cpu(m, at[m]))
    if server_cpu(cheapest, at[cheapest]) < min(server_cpu(m, at[m]) for m in level if m != cheapest):
        spent = "its CPU idle" if cheapest.startswith("apm") else \
            f"{at[cheapest]['server_cpu_pct_median']:.0f}% CPU"
        text += f"; of these, {LABELS[cheapest]} costs the server least ({spent})"
    return text + "."


def server_cpu(m, r):
    """The server's CPU % a method takes (APM's server does nothing per I/O; unknown: 100)."""
    if m.startswith("apm"):
        return 0.0
    return 100.0 if r["server_cpu_pct_median"] is None else r["server_cpu_pct_median"]


def regime_finding(rows, g):
    """(the regime's Markdown bullet or None, {method: IOPS vs no-flush %})."""
    at = measured_at(rows, g)
    if not any(m in at for m in PERSISTENT):
        return None, {}
    base = at.get("noflush") or at.get("raw")
    against = ""
    if base is not None:
        base_name = "noflush" if "noflush" in at else "raw"
        lat = "" if base["lat_mean_us_median"] is None else f", {base['lat_mean_us_median']:.0f} us"
        against = f" against {LABELS[base_name]} ({base['iops_median']:.0f} IOPS{lat})"
    costs = [method_cost(m, at[m], base) for m in PERSISTENT if m in at]
    line = f"- **{regime_title(g)}**{against}: " + "; ".join(costs) + ". " + best_sentence(at)
    chart = {}
    if "noflush" in at:
        chart = {m: pct(at[m]["iops_median"], at["noflush"]["iops_median"]) for m in PERSISTENT if m in at}
    return line.rstrip(), chart


def load_lines(rows):
    """--server-load: each method's IOPS at each load level against its own on an idle server."""
    ours = [r for r in rows if r["impl"] == "ours" and r["iops_median"] and r["hosts"] == "1"]
    lines = []
    for sync, what in (("1", "4 KiB sync writes"), ("0", "batched 4 KiB writes")):
        loaded = [r for r in ours if r["load"] != "0" and r["sync"] == sync]
        parts = []
        for m in PERSISTENT + ["noflush"]:
            mine = sorted((r for r in loaded if r["method"] == m), key=lambda r: int(r["load"]))
            idle = next((r for r in ours if mine and r["method"] == m and same_point(r, dict(mine[0], load="0"))),
                        None)
            if idle is not None:
                parts.append(f"{LABELS[m]} " + ", ".join(
                    f"{pct(r['iops_median'], idle['iops_median']):+.0f}% at {r['load']}%" for r in mine))
        if parts:
            lines.append(f"- **{what} under server CPU load** (IOPS against the same point on an idle "
                         "server, by the share of the server host's CPUs kept busy): " + "; ".join(parts) + ".")
    return lines


def clients_lines(rows):
    """--jobs: each GPSPM server's CPU per I/O (its cost runs) as the clients grow, from
    the one client of the same point on: a server thread per client keeps it where it is,
    one thread for all of them (gpspm-hub) takes less per I/O with every client."""
    several = {(r["method"], r["impl"], r["bs"], r["iodepth"]) for r in rows
               if r.get("workload") == "jobs" and r["hosts"] == "1" and r["load"] == "0"}
    parts = []
    for m, impl, bs, qd in sorted(several, key=lambda k: (PERSISTENT.index(k[0]) if k[0] in PERSISTENT
                                                          else len(PERSISTENT), k[1])):
        if not m.startswith("gpspm"):
            continue
        # gpspm-hub's one client is gpspm-busy's point (the same server, the same thread)
        base = "gpspm-busy" if m == "gpspm-hub" else m
        figs = sorted((int(r["numjobs"]), r["server_cpu_us_per_io"]) for r in rows
                      if r["impl"] == impl and r["bs"] == bs and r["iodepth"] == qd and r["sync"] == "0"
                      and r["hosts"] == "1" and r["load"] == "0" and r.get("server_cpu_us_per_io") is not None
                      and (r["method"] == m or (r["method"] == base and r["numjobs"] == "1")))
        if figs:
            parts.append(f"{LABELS.get(m, m)}{' (peer)' if impl == 'peer' else ''} "
                         + ", ".join(f"{cpu:.0f} us at {n}" for n, cpu in figs))
    if not parts:
        return []
    return ["- **Several clients at once** (4 KiB writes, the server's CPU per I/O in the cost "
            "runs, by client jobs): " + "; ".join(parts) + "."]


def memory_line(mem, in_vm, placement=""):
    """What the server's memory was (PLACEMENT: env.json's `server memory placement`),
    and what that means for GPSPM's figures."""
    if mem == "malloc":
        return ("- The server's memory was DRAM (`malloc`): GPSPM's server had nothing to flush, "
                "so its figures are its messaging alone; on PMem it adds the cache-line flushes.")
    kind = "device DAX" if mem.startswith("/dev/dax") else "a file on fsdax"
    line = (f"- The server's memory was {kind} (`{mem}`): GPSPM's server flushed the written "
            "cache lines with its CPU, so its figures include persisting (bytes persisted per byte "
            "written: the cost table).")
    if "on CXL memory" in placement:
        line += f" It is CXL memory: {placement}."
    if in_vm:
        what = ("emulated persistent CXL memory (a type-3 device)" if "on CXL memory" in placement
                else "emulated NVDIMM")
        line += (f" Here it is the VM's {what}, whose media is a file on the host: the "
                 "flushes cost what they cost the guest's CPU, not what a module's media costs.")
    return line


def settings_lines(rows, env, options):
    """What the settings measured mean for the figures and for durability."""
    lines = []
    if options.get("direct_write_to_pmem", "0") == "1":
        lines.append("- Measured with `direct_write_to_pmem=1`: APM flushed with the persistent type, "
                     "durable only if the platform really places RNIC writes in the persistence "
                     "domain (DDIO off for the RNIC's root port, or eADR), as the server declared.")
    else:
        lines.append("- Measured with `direct_write_to_pmem=0`: APM's flushes were of the visibility "
                     "type, durable only where RNIC writes reach the persistence domain by themselves "
                     "(DDIO off for the RNIC's root port, or eADR); GPSPM's server flushes with its CPU "
                     "and is durable with DDIO on too (docs/persistency.md).")
    methods = {r["method"] for r in rows if r["iops_median"]}
    if "apm-native" not in methods:
        lines.append("- Not measured: APM with the RNIC's own FLUSH (`--native`, a device that executes "
                     "RDMA FLUSH), which makes the flush persistent by the RNIC without DDIO off.")
    vm = str(env.get("in Soft-RoCE VM", "no"))
    lines.append(memory_line(options.get("server_mem", "malloc"), vm.startswith("yes"),
                             str(env.get("server memory placement", ""))))
    if vm.startswith("yes"):
        lines.append(f"- Measured on Soft-RoCE in a VM ({vm[len('yes, '):] or 'accelerator unknown'}): "
                     "the RNIC is software, so the figures show the methods' shape, not a platform's "
                     "speed.")
    return lines


def suspicious_lines(rows):
    """A method faster than the raw verbs or than no-flush, and runs that spread widely."""
    above_raw, above_noflush = [], []
    for r in single_rows(rows):
        if r["method"] in ("raw", "noflush") or r["iops_median"] is None:
            continue
        name = f"{LABELS[r['method']]} {point_words(r)}"
        if r["fraction_of_raw"] is not None and r["fraction_of_raw"] > ABOVE_LIMIT:
            above_raw.append(f"{name} ({r['fraction_of_raw']:.2f}x)")
        if r["overhead_vs_noflush"] is not None and 1 / r["overhead_vs_noflush"] > ABOVE_LIMIT:
            above_noflush.append(f"{name} ({pct(1, r['overhead_vs_noflush']):+.0f}%)")
    lines = []
    if above_raw:
        lines.append(f"- Above the raw verbs' IOPS at the same point: {', '.join(above_raw)}. "
                     "Nothing beats the fabric's limit: one of the two was measured low or high "
                     "(see the spread of their runs).")
    if above_noflush:
        lines.append(f"- Faster than no-flush, which does less: {', '.join(above_noflush)}. "
                     "The baseline's runs were likely slow.")
    shaky = sorted(((r["iops_max"] - r["iops_min"]) / r["iops_median"], r) for r in rows
                   if r["iops_median"] and r["runs"] > 1
                   and (r["iops_max"] - r["iops_min"]) / r["iops_median"] > SPREAD_LIMIT)
    if shaky:
        worst = ", ".join(f"{LABELS[r['method']]} {point_words(r)} ({s:.0%})"
                          for s, r in reversed(shaky[-SPREAD_LISTED:]))
        lines.append(f"- The runs of {len(shaky)} of {len(rows)} points spread over "
                     f"{SPREAD_LIMIT:.0%} of their median IOPS (max - min), widest: {worst}: "
                     "more `--repeats`, or a quieter host.")
    return lines


def point_words(r):
    return (f"{r['rw']} {size_words(r['bs'])} iodepth {r['iodepth']}" + (" sync" if r["sync"] == "1" else "")
            + (" (peer)" if r["impl"] == "peer" else ""))


def findings(rows, env, options):
    """(Markdown lines of the findings, {regime title: {method: IOPS vs no-flush %}})."""
    costs, chart = [], {}
    for g in pick_regimes(rows):
        line, figures = regime_finding(rows, g)
        if line:
            costs.append(line)
        if figures:
            chart[f"{g.name}\\n{size_words(g.bs)}, iodepth {g.iodepth}"] = figures
    md = ["What persistence costs here, per regime: each method's IOPS and mean latency against "
          "the no-flush baseline at the same point (medians of the runs).", ""]
    md += (costs or ["- No regime has both a persistence method and a baseline measured."]) + load_lines(rows) \
        + clients_lines(rows)
    md += ["", "The settings measured:", ""] + settings_lines(rows, env, options)
    odd = suspicious_lines(rows)
    md += ["", "Suspicious:" if odd else "Nothing suspicious: no method beat the raw verbs or "
           f"no-flush, and no point's runs spread over {SPREAD_LIMIT:.0%} of their median."]
    md += [""] + odd if odd else []
    return md, chart
