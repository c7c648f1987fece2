#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_costs.py -- the matrix's per-I/O costs and ours-vs-peer figures (run
by tests/matrix/test_matrix.sh): the plan with the peer, the cost run's counts divided by
the client's I/Os, callgrind's totals, the ratios and the targets of docs/BENCHMARKS.md,
on a result folder made here."""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
from rpmamatrix import aggregate, benchmarks, costs, plan, report  # noqa: E402
from rpmamatrix.common import PLAN_COLUMNS  # noqa: E402


def fio_doc(ios, iops, lat_us, usr=10.0, sys_=20.0, runtime_ms=1000, p99_us=None):
    """A fio JSON document of one write job."""
    d = {"total_ios": ios, "iops": iops, "bw_bytes": iops * 4096,
         "lat_ns": {"mean": lat_us * 1000}, "clat_ns": {"mean": lat_us * 1000}}
    if p99_us is not None:
        d["lat_ns"]["percentile"] = {"99.000000": p99_us * 1000}
        d["clat_ns"]["percentile"] = {"99.000000": 1}  # the total latency's wins
    empty = {"total_ios": 0, "iops": 0, "bw_bytes": 0, "lat_ns": {"mean": 0}, "clat_ns": {"mean": 0}}
    return {"jobs": [{"write": d, "read": empty, "usr_cpu": usr, "sys_cpu": sys_,
                      "job_runtime": runtime_ms}]}


def counts(**kw):
    rec = {"pid": 1, "contexts": 1, "mixed_providers": 0, "post_send_calls": 0, "send_wrs": 0,
           "post_recv_calls": 0, "recv_wrs": 0, "poll_calls": 0, "completions": 0,
           "notify_calls": 0}
    rec.update(kw)
    return json.dumps(rec) + "\n"


class Plan(unittest.TestCase):
    def test_peer_twins_follow_ours(self):
        p = dict(plan.PRESETS["quick"])
        pts = plan.make_plan(p, ["apm", "gpspm-busy", "noflush", "raw"], ["ours", "peer"])
        impls = [(pt["impl"], pt["method"], pt["rw"]) for pt in pts]
        # the peer: no no_flush, no raw verbs of its own, no GPSPM reads
        self.assertNotIn(("peer", "noflush", "write"), impls)
        self.assertNotIn(("peer", "raw", "write"), impls)
        self.assertNotIn(("peer", "gpspm-busy", "read"), impls)
        self.assertIn(("peer", "apm", "read"), impls)
        self.assertIn(("ours", "gpspm-busy", "read"), impls)
        # each twin right after ours, same point
        for i, pt in enumerate(pts):
            if pt["impl"] == "peer":
                prev = pts[i - 1]
                self.assertEqual((prev["impl"], prev["method"], prev["rw"], prev["bs"], prev["iodepth"]),
                                 ("ours", pt["method"], pt["rw"], pt["bs"], pt["iodepth"]))
        self.assertEqual([pt["id"] for pt in pts], [f"p{i:03d}" for i in range(1, len(pts) + 1)])

    def test_ours_alone_is_the_old_plan(self):
        p = dict(plan.PRESETS["quick"])
        self.assertTrue(all(pt["impl"] == "ours" for pt in plan.make_plan(p, ["apm", "raw"])))


class Costs(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        runs = os.path.join(self.dir, "runs")
        os.makedirs(runs)
        cols = PLAN_COLUMNS
        points = [["p001", "ours", "apm", "lat", "write", "4096", "1", "1", "1"],
                  ["p002", "peer", "apm", "lat", "write", "4096", "1", "1", "1"],
                  ["p003", "ours", "apm", "qd", "write", "4096", "8", "0", "1"],
                  ["p004", "peer", "apm", "qd", "write", "4096", "8", "0", "1"]]
        with open(os.path.join(self.dir, "plan.tsv"), "w") as f:
            f.write("\t".join(cols) + "\n" + "".join("\t".join(r) + "\n" for r in points))

        def put(name, text):
            with open(os.path.join(runs, name), "w") as f:
                f.write(text)
        # measured runs: ours 1100 IOPS vs 1000, batched 9000 vs 6000
        for pid, iops, lat, p99 in (("p001", 1100, 90, 300), ("p002", 1000, 100, 400),
                                    ("p003", 9000, 800, 2000), ("p004", 6000, 1300, 3000)):
            put(f"{pid}-r1.json", "note before the JSON\n" + json.dumps(fio_doc(iops, iops, lat, p99_us=p99)))
        # cost runs, 2000 I/Os: ours 1 post of 2 WRs, the peer 2 posts
        put("p001-cost.json", json.dumps(fio_doc(2000, 0, 0, usr=10, sys_=30, runtime_ms=1000)))
        put("p001-cost.client.verbs.json", counts(post_send_calls=2000, send_wrs=4000, completions=2000)
            + counts(contexts=0))  # fio's helper process writes zeros
        put("p001-cost.server.verbs.json", counts())
        put("p001-cost.packets", "14010\n")
        put("p002-cost.json", json.dumps(fio_doc(2000, 0, 0, usr=50, sys_=50, runtime_ms=1000)))
        put("p002-cost.client.verbs.json", counts(post_send_calls=4000, send_wrs=4000, completions=2000))
        put("p002-cost.packets", "14000\n")
        # batched: ours 1 flush per 8 writes, the peer one per write
        put("p003-cost.json", json.dumps(fio_doc(2000, 0, 0)))
        put("p003-cost.client.verbs.json", counts(post_send_calls=250, send_wrs=2250, completions=250))
        put("p003-cost.packets", str(2000 * 4 + 2000 + 250 * 2) + "\n")
        put("p004-cost.json", json.dumps(fio_doc(2000, 0, 0)))
        put("p004-cost.client.verbs.json", counts(post_send_calls=4000, send_wrs=4000, completions=2000))
        put("p004-cost.packets", "14000\n")
        # instructions at 500 I/Os
        put("p001-instr.json", json.dumps(fio_doc(500, 0, 0)))
        put("p001-instr.client.callgrind", "events: Ir\nfn=x\n1 5\ntotals: 1500000\n")
        put("p002-instr.json", json.dumps(fio_doc(500, 0, 0)))
        put("p002-instr.client.callgrind", "events: Ir\nsummary: 2500000\n")
        # a failed cost run counts for nothing
        put("p004-instr.json", json.dumps(fio_doc(500, 0, 0)))
        put("p004-instr.client.callgrind", "totals: 1\n")
        put("p004-instr.failed", "fio exited with 1\n")
        self.rows = {r["id"]: r for r in aggregate.summarize(self.dir)}

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_counts_per_io(self):
        r = self.rows["p001"]
        self.assertEqual(r["cost_ios"], 2000)
        self.assertAlmostEqual(r["client_posts_per_io"], 1.0)
        self.assertAlmostEqual(r["client_send_wrs_per_io"], 2.0)
        self.assertAlmostEqual(r["client_completions_per_io"], 1.0)
        self.assertAlmostEqual(r["server_posts_per_io"], 0.0)
        self.assertAlmostEqual(r["packets_per_io"], 7.005)
        self.assertAlmostEqual(r["client_cpu_us_per_io"], 200.0)  # 40 % of 1 s / 2000
        self.assertAlmostEqual(r["client_instructions_per_io"], 3000.0)
        self.assertIsNone(r["server_instructions_per_io"])
        self.assertAlmostEqual(self.rows["p002"]["client_instructions_per_io"], 5000.0)
        self.assertIsNone(self.rows["p004"]["client_instructions_per_io"])
        self.assertIsNone(self.rows["p002"]["server_posts_per_io"])  # no server counts

    def test_total_latency_percentile(self):
        self.assertAlmostEqual(self.rows["p001"]["lat_p99_us_median"], 300.0)

    def test_versus_table(self):
        lines = report.versus_table(list(self.rows.values()), 5)
        self.assertEqual(len(lines), 4)  # head, rule, two points
        cells = [c.strip() for c in lines[2].strip("|").split("|")]
        self.assertEqual(cells[0], "apm write 4k qd1 sync")
        self.assertEqual(cells[1], "1.10x")      # IOPS
        self.assertEqual(cells[4], "0.50x")      # client posts

    def test_benchmarks_targets(self):
        md = "\n".join(benchmarks.benchmarks_md(self.dir, list(self.rows.values())))
        # batched 4 KiB random writes: packets <= 0.80x the peer's
        self.assertRegex(md, r"\| apm write 4k qd8 \| 5\.25 \| 7\.00 \| 0\.75x \| <= 0\.80x \| met \|")
        # depth 1: packets <= 1.00x; 7.005 is 7.00 as shown (the rest is the connection's)
        self.assertRegex(md, r"\| apm write 4k qd1 sync \| 7\.00 \| 7\.00 \| 1\.00x \| <= 1\.00x \| met \|")
        # client posts per I/O: no target of its own, the ratio shown
        self.assertRegex(md, r"\| apm write 4k qd1 sync \| 1\.00 \| 2\.00 \| 0\.50x \| <= 1\.00x \| met \|")
        self.assertRegex(md, r"\| apm write 4k qd1 sync \| 3000 \| 5000 \| 0\.60x \| <= 0\.80x \| met \|")
        # one pair: a ratio, no interval, no verdict
        self.assertRegex(md, r"\| apm write 4k qd1 sync \| 1100 \(1100\.\.1100\) \| 1000 \(1000\.\.1000\) \| 1\.10x \(n=1\) \| "
                         r"undecided \(1 of the 6 pairs a verdict needs\) \|")
        self.assertNotIn("## Not measured", md)

    def test_benchmarks_need_the_peer(self):
        rows = [r for r in self.rows.values() if r["impl"] == "ours"]
        with self.assertRaises(SystemExit):
            benchmarks.benchmarks_md(self.dir, rows)

    def test_mixed_providers_refused(self):
        path = os.path.join(self.dir, "runs", "p001-cost.client.verbs.json")
        with open(path, "w") as f:
            f.write(counts(mixed_providers=1, post_send_calls=5))
        rows = {r["id"]: r for r in aggregate.summarize(self.dir)}
        self.assertIsNone(rows["p001"]["client_posts_per_io"])



class Persisted(unittest.TestCase):
    """Bytes persisted per byte written, from what our engines say at a job's end."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.dir, "runs"))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def put(self, name, text):
        with open(os.path.join(self.dir, "runs", name), "w") as f:
            f.write(text)

    def figure(self, pid, method):
        return costs.persist_figures(self.dir, {"id": pid, "method": method}).get(
            "persisted_per_byte_written")

    def test_gpspm_takes_the_servers_count(self):
        # two client jobs; the server persisted a span's worth more than was written
        self.put("p001-r1.client.log", "fio: librpma_gpspm client: wrote 8192 bytes, asked to "
                 "persist 8192 bytes (1.00 per byte written)\nnoise 5 bytes\n"
                 "fio: librpma_gpspm client: wrote 8192 bytes, asked to persist 8192 bytes\n")
        self.put("p001-r1.server.log", "fio: librpma_gpspm server: served 4 flush requests "
                 "(32768 bytes persisted)\n")
        self.assertAlmostEqual(self.figure("p001", "gpspm-busy"), 2.0)

    def test_the_hubs_line(self):
        self.put("p001-r1.client.log", "wrote 4096 bytes, asked to persist 4096 bytes\n")
        self.put("p001-r1.server.log", "served 12 flush requests from 3 clients on one thread "
                 "(each: 10, 1, 1; 4096 bytes in DRAM: nothing to persist)\n")
        self.assertAlmostEqual(self.figure("p001", "gpspm-hub"), 1.0)

    def test_apm_takes_the_clients(self):
        self.put("p001-r1.client.log", "wrote 4096 bytes, asked to persist 6144 bytes\n")
        self.assertAlmostEqual(self.figure("p001", "apm"), 1.5)

    def test_no_count_no_figure(self):
        # the peer's engines say nothing; a GPSPM server without its line; a read
        self.put("p001-r1.client.log", "fio: some other note\n")
        self.assertIsNone(self.figure("p001", "apm"))
        self.put("p002-r1.client.log", "wrote 4096 bytes, asked to persist 4096 bytes\n")
        self.assertIsNone(self.figure("p002", "gpspm-sleep"))
        self.put("p003-r1.client.log", "wrote 0 bytes, asked to persist 0 bytes\n")
        self.assertIsNone(self.figure("p003", "apm"))
        self.assertIsNone(self.figure("p004", "apm"))  # no log at all

    def peer_figure(self, pid, method):
        return costs.persist_figures(self.dir, {"id": pid, "impl": "peer", "method": method}).get(
            "persisted_per_byte_written")

    def put_cost_run(self, pid, written, side, **counted):
        self.put(f"{pid}-cost.json", json.dumps({"jobs": [
            {"write": {"io_bytes": written // 2}}, {"write": {"io_bytes": written - written // 2}}]}))
        # two processes a side (fio and a helper that counted nothing)
        self.put(f"{pid}-cost.{side}.verbs.json",
                 json.dumps(dict(pid=1, **counted)) + "\n" + json.dumps({"pid": 2}) + "\n")

    def test_the_peers_gpspm_server_by_its_pmem_persist_calls(self):
        self.put_cost_run("p001", 8192, "server", persist_bytes=8192, flush_bytes=0)
        self.assertAlmostEqual(self.peer_figure("p001", "gpspm-busy"), 1.0)
        # a span's worth: what the peer's figure would show if it persisted more
        self.put_cost_run("p002", 8192, "server", persist_bytes=32768)
        self.assertAlmostEqual(self.peer_figure("p002", "gpspm-sleep"), 4.0)

    def test_the_peers_apm_client_by_its_rpma_flush_lengths(self):
        self.put_cost_run("p001", 4096, "client", flush_bytes=6144, persist_bytes=0)
        self.assertAlmostEqual(self.peer_figure("p001", "apm"), 1.5)

    def test_the_peer_without_counts_or_cost_run_no_figure(self):
        # an older verbs_count.c (no such key), no cost run, a read, the first run's logs
        self.put_cost_run("p001", 4096, "server", post_send_calls=3)
        self.assertIsNone(self.peer_figure("p001", "gpspm-busy"))
        self.assertIsNone(self.peer_figure("p002", "apm"))
        self.put_cost_run("p003", 0, "client", flush_bytes=0)
        self.assertIsNone(self.peer_figure("p003", "apm"))
        self.put("p004-r1.client.log", "wrote 4096 bytes, asked to persist 4096 bytes\n")
        self.assertIsNone(self.peer_figure("p004", "apm"))


if __name__ == "__main__":
    unittest.main()
