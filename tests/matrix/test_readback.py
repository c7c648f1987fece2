#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_readback.py -- judging a durability round (run by
tests/matrix/test_matrix.sh): which writes count as acknowledged from fio's saved verify
state, the read-back's bad blocks and reads, and the verdicts: SURVIVED only where every
acknowledged write was read back in every round; the runner's exit status the same. Real fio runs on this host:
test_durability.sh."""
import contextlib
import os
import struct
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
from rpmamatrix import readback  # noqa: E402
from rpmamatrix.durability import verdicts  # noqa: E402
from rpmamatrix.durability_status import cmd_durability_status, exit_status  # noqa: E402


def state_bytes(numberio, depth, comps, nofiles=1, version=3):
    """A verify state file as fio 3.33 writes it (verify-state.h)."""
    body = struct.pack("<QIIQQ", len(comps), depth, nofiles, numberio, 0) + bytes(56) + b"job".ljust(64, b"\0")
    body += b"".join(struct.pack("<QQ", 0, off) for off in comps)
    body += bytes(16 * (depth * nofiles - len(comps)))
    return struct.pack("<QQQ", version, len(body), 0) + body


class Folder:
    """A round's folder: shape, saved states, the read-back's I/O log (the first
    READS of each job's writes) and output."""

    def __init__(self, writes, states, reads, messages="", errors=None):
        self.dir = tempfile.mkdtemp()
        with open(os.path.join(self.dir, "shape.tsv"), "w") as f:
            f.write("2\t4k\t4\t4\t100\t77\t0x00112233\n")
        with open(os.path.join(self.dir, "readback.iolog"), "w") as f:
            f.write("fio version 3 iolog\n")
            for job, n in reads:
                for t, off in enumerate([o for j, o in writes if j == job][:n]):
                    f.write(f"{t} {job}.0.0 read {off} 4096\n")
        for i, (job, data) in enumerate(states):
            with open(os.path.join(self.dir, f"local-{job}-{i}-verify.state"), "wb") as f:
                f.write(data)
        # fio's count of verify errors: one a bad block its messages name, unless told
        errors = errors or {j: messages.count(f"at file {j}.0.0 ") for j, _ in reads}
        jobs = ",".join(f'{{"jobname": "{j}", "read": {{"total_ios": {n}}}, "error": 0'
                        + (f', "total_err": {errors[j]}' if errors.get(j) is not None else "") + "}"
                        for j, n in reads)
        with open(os.path.join(self.dir, "readback.json"), "w") as f:
            # a message may run into the line where fio's JSON starts
            f.write(messages + "verify: bad magic header 0, wanted acca (requested {\n"
                    f'  "fio version" : "fio-3.33",\n  "jobs": [{jobs}]\n}}\n')


def offsets(n, base=0):
    return [base + 4096 * k for k in range(n)]


class Acknowledged(unittest.TestCase):
    def test_all_before_the_window_and_the_saved_completions_in_it(self):
        issued = offsets(10)
        # 10 issued, depth 4: 0..5 acknowledged; of 6..9 only those whose completion was saved
        acked = readback.acknowledged(issued, 10, 4, {issued[7], issued[9], issued[2]})
        self.assertEqual(acked, [0, 1, 2, 3, 4, 5, 7, 9])

    def test_fewer_issued_than_the_depth(self):
        issued = offsets(3)
        self.assertEqual(readback.acknowledged(issued, 3, 8, {issued[1]}), [1])

    def test_a_write_never_read_again_counts_as_acknowledged(self):
        # 5 issued, depth 2, the read-back reached 3: the 4th and 5th unknown, counted
        self.assertEqual(readback.acknowledged(offsets(3), 5, 2, set()), [0, 1, 2, 3, 4])

    def test_a_state_of_another_version_is_refused(self):
        d = Folder([], [("apm", state_bytes(1, 1, [], version=4))], [])
        with self.assertRaisesRegex(readback.RoundError, "version 4"):
            readback.read_state(os.path.join(d.dir, "local-apm-0-verify.state"))


class Judge(unittest.TestCase):
    def round_of(self, reads_apm, messages="", errors=None):
        apm, gpspm = offsets(40), offsets(12, 1 << 20)
        writes = [("apm", o) for o in apm] + [("gpspm", o) for o in gpspm]
        states = [("apm", state_bytes(40, 4, apm[-4:-1])), ("gpspm", state_bytes(12, 4, gpspm[-4:]))]
        return Folder(writes, states, [("apm", reads_apm), ("gpspm", 40)], messages, errors), apm, gpspm

    def test_verify_errors_no_message_names_cannot_be_judged(self):
        # another fio's wording of a bad block: fio counted 2 verify errors, the parser
        # finds none; judged, the round would say nothing lost
        msgs = "".join(f"verify: block mismatch in apm.0.0 @ {4096 * k}\n" for k in (3, 30))
        d, _, _ = self.round_of(40, msgs, {"apm": 2, "gpspm": 0})
        with self.assertRaisesRegex(readback.RoundError, "fio counted 2 verify error.s. in job apm, "
                                    "its messages name 0 bad block"):
            readback.judge(d.dir, ["apm", "gpspm"])

    def test_no_error_count_cannot_be_judged(self):
        d, _, _ = self.round_of(40, "", {"apm": None, "gpspm": 0})
        with self.assertRaisesRegex(readback.RoundError, "gives job apm no total_err"):
            readback.judge(d.dir, ["apm", "gpspm"])

    def test_losses_of_each_method_over_all_of_its_own_writes(self):
        # apm's 30th write lies beyond all 12 of gpspm's: counted all the same
        msgs = "".join(f"verify: bad magic header 0, wanted acca at file apm.0.0 offset {4096 * k}, length 4096\n"
                       for k in (3, 30, 39))  # 39: never acknowledged (in flight)
        d, apm, _ = self.round_of(40, msgs)
        (row_apm, lost_apm), (row_gpspm, lost_gpspm) = readback.judge(d.dir, ["apm", "gpspm"])
        self.assertEqual(row_apm[5:], [39, 39, 2, 0, 40])
        self.assertEqual([o for o, _ in lost_apm], [apm[3], apm[30]])
        self.assertIn("bad magic header", lost_apm[0][1])
        self.assertEqual(row_gpspm[5:], [12, 12, 0, 0, 12])
        self.assertEqual(lost_gpspm, [])

    def test_fewer_reads_than_acknowledged_are_unread(self):
        d, _, _ = self.round_of(20)
        (row, _), _ = readback.judge(d.dir, ["apm", "gpspm"])
        # 40 issued, depth 4; 20 read: the 21st..40th unread, and of the last 4 nothing
        # says which were in flight (their offsets unknown): all 20 count, none read back
        self.assertEqual(row[5:9], [40, 20, 0, 20])

    def test_no_fio_json_cannot_be_judged(self):
        d, _, _ = self.round_of(40)
        os.remove(os.path.join(d.dir, "readback.json"))
        with self.assertRaisesRegex(readback.RoundError, "no fio JSON"):
            readback.judge(d.dir, ["apm", "gpspm"])


def rnd(results, n=1):
    return {"shape": {"round": str(n)}, "results": results, "lost": [], "error": "" if results else "x"}


def row(m, acked, back, lost):
    return {"method": m, "round": "1", "acknowledged": str(acked), "read_back": str(back), "lost": str(lost)}


class Verdicts(unittest.TestCase):
    def test_survived_needs_every_acknowledged_write_read_back(self):
        v = verdicts(["apm"], [rnd([row("apm", 100, 100, 0)])])[0]
        self.assertTrue(v["verdict"].startswith("SURVIVED"), v)
        v = verdicts(["apm"], [rnd([row("apm", 100, 91, 0)])])[0]
        self.assertEqual(v["verdict"], "NOT JUDGED: 9 acknowledged write(s) not read back")

    def test_a_round_not_judged_leaves_the_question_open(self):
        v = verdicts(["apm"], [rnd([row("apm", 100, 100, 0)]), rnd([], 2)])[0]
        self.assertTrue(v["verdict"].startswith("NOT JUDGED: 1 of 2 round(s)"), v)

    def test_a_round_with_nothing_acknowledged_is_not_survived(self):
        v = verdicts(["apm"], [rnd([row("apm", 0, 0, 0)])])[0]
        self.assertTrue(v["verdict"].startswith("NOT JUDGED"), v)

    def test_a_loss_wins(self):
        v = verdicts(["apm"], [rnd([row("apm", 100, 90, 3)]), rnd([], 2)])[0]
        self.assertTrue(v["verdict"].startswith("LOST 3"), v)


def run_folder(results, status="complete", methods="apm,gpspm"):
    """A run's folder: RESULTS a round each (result.tsv's rows: method, acknowledged,
    read back, lost; None: a round not judged)."""
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "options.json"), "w") as f:
        f.write(f'{{"methods": "{methods}"}}')
    with open(os.path.join(d, "status"), "w") as f:
        f.write(status + "\n")
    for n, rows in enumerate(results, 1):
        rd = os.path.join(d, "rounds", f"r{n}")
        os.makedirs(rd)
        if rows is None:
            with open(os.path.join(rd, "error"), "w") as f:
                f.write("the server was not back\n")
            continue
        with open(os.path.join(rd, "result.tsv"), "w") as f:
            for m, acked, back, lost in rows:
                f.write(f"{m}\t{n}\t4k\t1\t1\t{acked}\t{back}\t{lost}\t{int(acked) - int(back)}\t{acked}\n")
    return d


CLEAN = [("apm", 50, 50, 0), ("gpspm", 40, 40, 0)]


class ExitStatus(unittest.TestCase):
    """0 only where the report says SURVIVED for every method of a complete run"""

    def test_every_write_read_back_in_a_complete_run(self):
        self.assertEqual(exit_status(run_folder([CLEAN, CLEAN])), 0)

    def test_a_lost_write_is_1_whatever_else(self):
        lossy = [("apm", 50, 50, 0), ("gpspm", 40, 40, 2)]
        self.assertEqual(exit_status(run_folder([CLEAN, lossy])), 1)
        self.assertEqual(exit_status(run_folder([lossy, None], status="partial (1 of 2 rounds)")), 1)

    def test_a_lost_figure_that_is_no_number_is_a_loss(self):
        self.assertEqual(exit_status(run_folder([[("apm", 50, 50, "x"), ("gpspm", 40, 40, 0)]])), 1)

    def test_an_acknowledged_write_not_read_back_is_3(self):
        self.assertEqual(exit_status(run_folder([[("apm", 50, 49, 0), ("gpspm", 40, 40, 0)]])), 3)

    def test_a_round_not_judged_is_3(self):
        self.assertEqual(exit_status(run_folder([CLEAN, None], status="partial (1 of 2 rounds)")), 3)

    def test_a_run_not_complete_is_3(self):
        self.assertEqual(exit_status(run_folder([CLEAN], status="partial (interrupted)")), 3)
        self.assertEqual(exit_status(run_folder([CLEAN], status="partial (running)")), 3)

    def test_a_method_without_results_is_3(self):
        self.assertEqual(exit_status(run_folder([[("apm", 50, 50, 0)]])), 3)

    def test_a_round_that_acknowledged_nothing_is_3(self):
        self.assertEqual(exit_status(run_folder([[("apm", 0, 0, 0), ("gpspm", 40, 40, 0)]])), 3)

    def test_no_methods_known_is_3(self):
        self.assertEqual(exit_status(run_folder([CLEAN], methods="")), 3)

    def test_a_folder_that_cannot_be_read_is_3(self):
        d = run_folder([CLEAN])
        with open(os.path.join(d, "options.json"), "w") as f:
            f.write("[1]")  # (no object: the reading fails)
        args = type("Args", (), {"dir": d})
        with open(os.devnull, "w") as null, contextlib.redirect_stderr(null):
            self.assertEqual(cmd_durability_status(args), 3)


if __name__ == "__main__":
    unittest.main()
