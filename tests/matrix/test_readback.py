#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_readback.py -- judging a durability round (run by
tests/matrix/test_matrix.sh): which writes count as acknowledged from fio's saved verify
write logs checked against its saved verify state, the read-back's bad blocks and reads, and the verdicts: SURVIVED only where every
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
from rpmamatrix.durability import canary_control, load_rounds, power_loss_line, verdicts  # noqa: E402
from rpmamatrix.durability_status import cmd_durability_status, exit_status  # noqa: E402
from rpmamatrix import durability_rnic  # noqa: E402


def state_bytes(numberio, depth, comps, nofiles=1, version=3):
    """A verify state file as fio 3.33 writes it (verify-state.h)."""
    body = struct.pack("<QIIQQ", len(comps), depth, nofiles, numberio, 0) + bytes(56) + b"job".ljust(64, b"\0")
    body += b"".join(struct.pack("<QQ", 0, off) for off in comps)
    body += bytes(16 * (depth * nofiles - len(comps)))
    return struct.pack("<QQQ", version, len(body), 0) + body


# a Unix time in ms: the k-th write a job's log holds completed at EPOCH + k
EPOCH = 1795976920000


class Folder:
    """A round's folder: shape, the write run's per-job logs of completed writes
    (COMPLETED: job -> offsets) and its JSON (ENDED: job -> fio's error, 5 unless told),
    the cut's command's start and end (CUT, ms after EPOCH), saved states, the
    read-back's I/O log (the first READS of each job's writes) and output."""

    def __init__(self, writes, states, reads, messages="", errors=None, completed=None, ended=None,
                 cut=(45, 50)):
        self.dir = tempfile.mkdtemp()
        with open(os.path.join(self.dir, "power-cut.time"), "w") as f:
            f.write(f"{EPOCH + cut[0]} {EPOCH + cut[1]}\n")
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
        for i, (job, _) in enumerate(states):
            with open(os.path.join(self.dir, f"write_iops.{i + 1}.log"), "w") as f:
                for t, off in enumerate((completed or {}).get(job, [])):
                    f.write(f"{EPOCH + t}, 1, 1, 4096, {off}, 0\n")
        ended = ended or {}
        wjobs = ",".join(f'{{"jobname": "{j}", "error": {ended.get(j, 5)}}}' for j, _ in states)
        with open(os.path.join(self.dir, "write.json"), "w") as f:
            f.write(f'fio: io_u error on file apm.0.0: Input/output error\n{{\n  "fio version" : "fio-3.33",\n'
                    f'  "jobs": [{wjobs}]\n}}\n')
        # fio's count of verify errors: one a bad block its messages name, unless told
        errors = errors or {j: messages.count(f"at file {j}.0.0 ") for j, _ in reads}
        jobs = ",".join(f'{{"jobname": "{j}", "read": {{"total_ios": {n}}}, "error": 0'
                        + (f', "total_err": {errors[j]}' if errors.get(j) is not None else "") + "}"
                        for j, n in reads)
        with open(os.path.join(self.dir, "readback.json"), "w") as f:
            # a message may run into the line where fio's JSON starts
            f.write(messages + "verify: bad magic header 0, wanted acca (requested {\n"
                    f'  "fio version" : "fio-3.33",\n  "jobs": [{jobs}]\n}}\n')

    def path(self, name):
        return os.path.join(self.dir, name)


def offsets(n, base=0):
    return [base + 4096 * k for k in range(n)]


def bad_at(job, offs):
    return "".join(f"verify: bad magic header 0, wanted acca at file {job}.0.0 offset {o}, length 4096\n"
                   for o in offs)


class Acknowledged(unittest.TestCase):
    def test_every_completed_write_of_the_log(self):
        w = offsets(10)
        self.assertEqual(readback.acknowledged("apm", w[:8], 10, {w[5], w[7]}), w[:8])

    def test_a_saved_completion_missing_from_the_log_cannot_be_judged(self):
        w = offsets(10)
        with self.assertRaisesRegex(readback.RoundError, "names 1 completion.s. its write log does not"):
            readback.acknowledged("apm", w[:6], 10, {w[5], w[7]})

    def test_more_completions_than_writes_issued_cannot_be_judged(self):
        with self.assertRaisesRegex(readback.RoundError, "11 completed writes, fio saved 10 issued"):
            readback.acknowledged("apm", offsets(11), 10, set())

    def test_an_offset_written_twice_cannot_be_judged(self):
        w = offsets(4) + [0]
        with self.assertRaisesRegex(readback.RoundError, r"wrote offset\(s\) \[0\] twice"):
            readback.acknowledged("apm", w, 10, set())

    def test_a_state_of_another_version_is_refused(self):
        d = Folder([], [("apm", state_bytes(1, 1, [], version=4))], [])
        with self.assertRaisesRegex(readback.RoundError, "version 4"):
            readback.read_state(d.path("local-apm-0-verify.state"))


class Judge(unittest.TestCase):
    def round_of(self, reads_apm, messages="", errors=None, comps_apm=None, ended=None, cut=(45, 50)):
        # apm: 40 issued, 39 completed (the 40th in flight at the cut), the last at
        # EPOCH + 38; gpspm: 12 and 12, the last at EPOCH + 11
        apm, gpspm = offsets(40), offsets(12, 1 << 20)
        writes = [("apm", o) for o in apm] + [("gpspm", o) for o in gpspm]
        comps = apm[36:39] if comps_apm is None else comps_apm
        states = [("apm", state_bytes(40, 4, comps)), ("gpspm", state_bytes(12, 4, gpspm[-4:]))]
        return Folder(writes, states, [("apm", reads_apm), ("gpspm", 12)], messages, errors,
                      {"apm": apm[:39], "gpspm": gpspm}, ended, cut), apm, gpspm

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
        d, apm, _ = self.round_of(40, bad_at("apm", [4096 * k for k in (3, 30, 39)]))  # 39: in flight
        (row_apm, lost_apm), (row_gpspm, lost_gpspm) = readback.judge(d.dir, ["apm", "gpspm"])
        self.assertEqual(row_apm[5:], [39, 39, 2, 0, 40, 7])
        self.assertEqual([o for o, _ in lost_apm], [apm[3], apm[30]])
        self.assertIn("bad magic header", lost_apm[0][1])
        self.assertEqual(row_gpspm[5:], [12, 12, 0, 0, 12, 34])
        self.assertEqual(lost_gpspm, [])

    def test_the_last_writes_acknowledged_are_judged(self):
        # a platform that loses its most recent acknowledged writes: the state fio saved
        # names older completions (as when it saved them before the jobs' last ones),
        # the log has them all: the 37th..39th lost are reported (judged by the saved
        # state alone, they were "in flight" and the round said nothing lost)
        d, apm, _ = self.round_of(40, bad_at("apm", apm_tail := [4096 * k for k in (36, 37, 38)]),
                                  comps_apm=offsets(40)[32:35])
        (row, lost), _ = readback.judge(d.dir, ["apm", "gpspm"])
        self.assertEqual([o for o, _ in lost], apm_tail)
        self.assertEqual(row[5:9], [39, 39, 3, 0])

    def test_a_write_read_twice_shifts_nothing(self):
        # a read fio queued again is logged twice: the reads after it are still the
        # same blocks, and the last acknowledged write lost is reported
        d, apm, _ = self.round_of(40, bad_at("apm", [apm_38 := 4096 * 38]))
        with open(d.path("readback.iolog")) as f:
            lines = f.readlines()
        lines.insert(6, lines[5])
        with open(d.path("readback.iolog"), "w") as f:
            f.writelines(lines)
        (row, lost), _ = readback.judge(d.dir, ["apm", "gpspm"])
        self.assertEqual([o for o, _ in lost], [apm_38])
        self.assertEqual(row[5:9], [39, 39, 1, 0])

    def test_fewer_reads_logged_than_fio_counted_cannot_be_judged(self):
        d, _, _ = self.round_of(40)
        with open(d.path("readback.iolog")) as f:
            lines = [x for x in f if " 8192 " not in x or "apm" not in x]
        with open(d.path("readback.iolog"), "w") as f:
            f.writelines(lines)
        with self.assertRaisesRegex(readback.RoundError, "39 reads of job apm, fio counted 40"):
            readback.judge(d.dir, ["apm", "gpspm"])

    def test_fewer_reads_than_acknowledged_are_unread(self):
        d, _, _ = self.round_of(20)
        (row, _), _ = readback.judge(d.dir, ["apm", "gpspm"])
        # 39 acknowledged, 20 read: the 21st..39th unread
        self.assertEqual(row[5:9], [39, 20, 0, 19])

    def test_a_job_that_ended_without_an_error_was_not_cut_while_writing(self):
        d, _, _ = self.round_of(40, ended={"gpspm": 0})
        with self.assertRaisesRegex(readback.RoundError, "job gpspm's writes ended without an error: "
                                    "they were not going when the power went"):
            readback.judge(d.dir, ["apm", "gpspm"])

    def test_a_job_that_read_in_its_write_run_was_not_cut_while_writing(self):
        # its region covered, fio read it back for its verify, and the cut failed a read
        d, _, _ = self.round_of(40)
        with open(d.path("write.json")) as f:
            text = f.read()
        with open(d.path("write.json"), "w") as f:
            f.write(text.replace('{"jobname": "gpspm", "error": 5}',
                                 '{"jobname": "gpspm", "error": 110, "read": {"total_ios": 812}}'))
        self.not_judged(d, "job gpspm wrote its whole region before the power cut and was reading it back "
                        r"\(812 reads of fio's verify\)")

    def test_no_write_log_cannot_be_judged(self):
        d, _, _ = self.round_of(40)
        os.remove(d.path("write_iops.2.log"))
        with self.assertRaisesRegex(readback.RoundError, "no write log of job gpspm"):
            readback.judge(d.dir, ["apm", "gpspm"])

    def test_a_write_log_without_offsets_cannot_be_judged(self):
        d, _, _ = self.round_of(40)
        with open(d.path("write_iops.1.log"), "w") as f:
            f.write("0, 1, 1, 4096\n")
        with self.assertRaisesRegex(readback.RoundError, "not fio's per-I/O log with offsets"):
            readback.judge(d.dir, ["apm", "gpspm"])

    def test_quiet_counts_to_the_cut_s_start_or_the_round_s_last_acknowledgement(self):
        # the cut's command began at EPOCH + 45: apm last acknowledged 7 ms before,
        # gpspm 34; one that began at EPOCH + 10 took a while to cut (apm acknowledged
        # until EPOCH + 38): counted to apm's last, when the server was surely up
        for cut, quiet in (((45, 50), [7, 34]), ((10, 20), [0, 27])):
            d, _, _ = self.round_of(40, cut=cut)
            self.assertEqual([r[10] for r, _ in readback.judge(d.dir, ["apm", "gpspm"])], quiet)

    def not_judged(self, d, why, name=None, text=""):
        """The round in D (its file NAME written with TEXT first) is not judged, saying WHY."""
        if name:
            with open(d.path(name), "w") as f:
                f.write(text)
        with self.assertRaisesRegex(readback.RoundError, why):
            readback.judge(d.dir, ["apm", "gpspm"])

    def test_a_write_log_without_unix_times_cannot_be_judged(self):
        d, _, _ = self.round_of(40)
        self.not_judged(d, "write_iops.2.log: its times are not Unix times", "write_iops.2.log",
                        "".join(f"{t}, 1, 1, 4096, {(1 << 20) + 4096 * t}, 0\n" for t in range(12)))

    def test_no_record_of_the_cut_s_time_cannot_be_judged(self):
        d, _, _ = self.round_of(40)
        os.remove(d.path("power-cut.time"))
        self.not_judged(d, "no power-cut.time")
        for bad in ("", "1795976920040", f"{EPOCH + 50} {EPOCH + 45}", "12 40", f"{EPOCH} x"):
            self.not_judged(d, "is not the cut's start and end", "power-cut.time", bad + "\n")

    def test_no_fio_json_cannot_be_judged(self):
        d, _, _ = self.round_of(40)
        os.remove(d.path("readback.json"))
        with self.assertRaisesRegex(readback.RoundError, "no fio JSON"):
            readback.judge(d.dir, ["apm", "gpspm"])


class RnicCounters(unittest.TestCase):
    def folder(self, before, after):
        d = tempfile.mkdtemp()
        for name, lines in (("rnic-before.txt", before), ("rnic-at-cut.txt", after)):
            if lines is not None:
                with open(os.path.join(d, name), "w") as f:
                    f.write("".join(f"{k} {v}\n" for k, v in lines.items()))
        return d

    def test_the_retry_like_counters_that_grew(self):
        # mlx5's and rxe's names; packets sent grew too, a counter new at the cut is left out
        before = {"mlx5_0/ports/1/hw_counters/local_ack_timeout_err": 7,
                  "mlx5_0/ports/1/counters/port_xmit_packets": 10,
                  "rxe0/ports/1/hw_counters/rcvd_rnr_err": 1, "rxe0/ports/1/hw_counters/duplicate_request": 4}
        after = dict(before, **{"mlx5_0/ports/1/hw_counters/local_ack_timeout_err": 9,
                                "mlx5_0/ports/1/counters/port_xmit_packets": 900,
                                "rxe0/ports/1/hw_counters/duplicate_request": 5,
                                "rxe0/ports/1/hw_counters/out_of_seq_request": 3})
        self.assertEqual(durability_rnic.retries(self.folder(before, after)),
                         [("mlx5_0/ports/1/hw_counters/local_ack_timeout_err", 2),
                          ("rxe0/ports/1/hw_counters/duplicate_request", 1)])

    def test_nothing_to_say_without_both_snapshots_or_counters(self):
        self.assertIsNone(durability_rnic.retries(self.folder({"a/ports/1/counters/x_seq_err": 1}, None)))
        self.assertIsNone(durability_rnic.retries(self.folder({}, {})))
        self.assertEqual(durability_rnic.retries(self.folder({"a/x_retry": 1}, {"a/x_retry": 1})), [])

    def test_the_report_says_which_rounds_kept_none(self):
        rounds = [{"shape": {"round": "1"}, "rnic": None}, {"shape": {"round": "2"}, "rnic": []},
                  {"shape": {"round": "3"}, "rnic": [("rxe0/ports/1/hw_counters/completer_retry_err", 2)]}]
        self.assertEqual(durability_rnic.section(rounds)[2:], [
            "- round 1: no counters kept", "- round 2: none grew",
            "- round 3: `rxe0/ports/1/hw_counters/completer_retry_err` +2"])
        self.assertIn("No counters of the client's RNIC were kept", durability_rnic.section(rounds[:1])[0])


def rnd(results, n=1):
    return {"shape": {"round": str(n)}, "results": results, "lost": [], "error": "" if results else "x"}


def row(m, acked, back, lost, quiet=5, n=1):
    return {"method": m, "round": str(n), "acknowledged": str(acked), "read_back": str(back), "lost": str(lost),
            "quiet_ms": str(quiet)}


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

    def test_a_reboot_for_a_power_cut_is_not_survived(self):
        v = verdicts(["apm"], [rnd([row("apm", 100, 100, 0)])], "ipmitool chassis power reset")[0]
        self.assertEqual(v["verdict"], "NOT JUDGED: every acknowledged write read back intact, but the "
                         "power cut reads as a reboot or a warm reset (power reset)")
        v = verdicts(["apm"], [rnd([row("apm", 100, 90, 3)])], "ssh h reboot")[0]
        self.assertTrue(v["verdict"].startswith("LOST 3"), v)

    def test_a_loss_wins(self):
        v = verdicts(["apm"], [rnd([row("apm", 100, 90, 3)]), rnd([], 2)])[0]
        self.assertTrue(v["verdict"].startswith("LOST 3"), v)
        v = verdicts(["apm"], [rnd([row("apm", 100, 100, 3, quiet=5000)])])[0]
        self.assertTrue(v["verdict"].startswith("LOST 3"), v)

    def test_a_method_quiet_too_long_before_a_cut_is_not_survived(self):
        # round 2: its job stalled 1800 ms before the power went (a lost packet's
        # retries): a platform that loses the writes of its last second lost none of it
        rounds = [rnd([row("apm", 100, 100, 0, 12)]), rnd([row("apm", 3, 3, 0, 1800, 2)], 2)]
        v = verdicts(["apm"], rounds)[0]
        self.assertEqual(v["verdict"], "NOT JUDGED: its last write was acknowledged up to 1800 ms before the "
                         "power went, in round(s) 2 (more than --max-quiet 1000 ms): the writes nearest the "
                         "cut, which a platform loses first, were not tested there")
        self.assertEqual(v["quiet"], 1800)
        v = verdicts(["apm"], rounds, limit=2000)[0]
        self.assertEqual(v["verdict"], "SURVIVED: every acknowledged write read back intact, 2 power cut(s), "
                         "quiet for 1800 ms at most before each")


def run_folder(results, status="complete", methods="apm,gpspm"):
    """A run's folder: RESULTS a round each (result.tsv's rows: method, acknowledged,
    read back, lost[, quiet: 5 ms unless told]; None: a round not judged)."""
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
            for m, acked, back, lost, *quiet in rows:
                f.write(f"{m}\t{n}\t4k\t1\t1\t{acked}\t{back}\t{lost}\t{int(acked) - int(back)}\t{acked}\t"
                        f"{quiet[0] if quiet else 5}\n")
    return d


CLEAN = [("apm", 50, 50, 0), ("gpspm", 40, 40, 0)]


def canary_folder(results, lost, control=None):
    """run_folder's, run with --dram-canary: round i's canary lost its token if LOST[i];
    with --canary-reset where CONTROL is the file its control left (kept, error)."""
    d = run_folder(results)
    reset = ', "canary_reset": "ssh pmem-host systemctl reboot --force"' if control else ""
    with open(os.path.join(d, "options.json"), "w") as f:
        f.write(f'{{"methods": "apm,gpspm", "dram_canary": "/dev/pmem1"{reset}}}')
    if control:
        os.makedirs(os.path.join(d, "canary-control"))
        with open(os.path.join(d, "canary-control", control), "w") as f:
            f.write("a reset kept the token in /dev/pmem1\n" if control == "kept" else
                    "--dram-canary: /dev/pmem1 lost its token in a reset\n")
    for n, gone in enumerate(lost, 1):
        if gone:
            with open(os.path.join(d, "rounds", f"r{n}", "power-lost"), "w") as f:
                f.write("after the cut: /dev/pmem1 lost the round's token\n")
    return d


class ExitStatus(unittest.TestCase):
    """0 only where the report says SURVIVED for every method of a complete run"""

    def test_every_write_read_back_in_a_complete_run(self):
        self.assertEqual(exit_status(run_folder([CLEAN, CLEAN])), 0)

    def test_a_lost_write_is_1_whatever_else(self):
        lossy = [("apm", 50, 50, 0), ("gpspm", 40, 40, 2)]
        self.assertEqual(exit_status(run_folder([CLEAN, lossy])), 1)
        self.assertEqual(exit_status(run_folder([lossy, None], status="partial (1 of 2 rounds)")), 1)

    def test_a_figure_that_is_no_number_is_not_judged(self):
        d = run_folder([CLEAN, [("apm", 50, 50, "x"), ("gpspm", 40, 40, 0)]])
        self.assertEqual(exit_status(d), 3)
        self.assertTrue(verdicts(["apm", "gpspm"], load_rounds(d))[0]["verdict"].startswith(
            "NOT JUDGED: 1 of 2 round(s)"))

    def test_a_row_cut_short_is_not_judged(self):
        d = run_folder([CLEAN])
        with open(os.path.join(d, "rounds", "r1", "result.tsv"), "a") as f:
            f.write("apm\t1\t4k\t1\t1\t50\t50\n")
        self.assertEqual(exit_status(d), 3)
        self.assertIn("not a number", load_rounds(d)[0]["error"])

    def test_a_round_that_says_why_it_was_not_judged_was_not(self):
        d = run_folder([CLEAN, CLEAN])
        with open(os.path.join(d, "rounds", "r2", "error"), "w") as f:
            f.write("the read-back's I/O log is incomplete\n")
        self.assertEqual(exit_status(d), 3)
        self.assertTrue(verdicts(["apm"], load_rounds(d))[0]["verdict"].startswith("NOT JUDGED"))

    def test_a_method_quiet_too_long_before_a_cut_is_3(self):
        stalled = [("apm", 50, 50, 0), ("gpspm", 2, 2, 0, 1500)]
        self.assertEqual(exit_status(run_folder([CLEAN, stalled])), 3)
        d = run_folder([CLEAN, stalled])
        with open(os.path.join(d, "options.json"), "w") as f:
            f.write('{"methods": "apm,gpspm", "max_quiet": "2000"}')
        self.assertEqual(exit_status(d), 0)

    def test_a_round_without_quiet_times_is_not_judged(self):
        # (one judged before they were recorded, or cut short)
        for quiet in ("", "-3", None):
            d = run_folder([CLEAN, CLEAN])
            with open(os.path.join(d, "rounds", "r2", "result.tsv"), "w") as f:
                f.write("apm\t2\t4k\t1\t1\t50\t50\t0\t0\t50" + ("" if quiet is None else f"\t{quiet}") + "\n")
            self.assertEqual(exit_status(d), 3)
            self.assertIn("quiet_ms is not a number", load_rounds(d)[1]["error"])

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

    def test_a_warm_reset_for_a_power_cut_is_3(self):
        d = run_folder([CLEAN])
        with open(os.path.join(d, "options.json"), "w") as f:
            f.write('{"methods": "apm,gpspm", "power_cut": "ssh pmem-host reboot"}')
        self.assertEqual(exit_status(d), 3)

    def test_a_canary_that_lost_its_token_in_every_round_proves_the_cuts(self):
        d = canary_folder([CLEAN, CLEAN], [True, True])
        self.assertEqual(exit_status(d), 0)
        rounds = load_rounds(d, "/dev/mem@0x8000000")
        line = power_loss_line({"dram_canary": "/dev/mem@0x8000000"}, rounds, canary_control(d))
        self.assertIn("shown in 2 of 2 judged round(s)", line)
        self.assertIn("**Not shown** that a reset keeps the canary's token", line)

    def test_a_canary_a_reset_kept_is_shown_able_to_fail(self):
        d = canary_folder([CLEAN, CLEAN], [True, True], control="kept")
        self.assertEqual(exit_status(d), 0)
        self.assertEqual(canary_control(d)[0], "kept")
        line = power_loss_line({"dram_canary": "/dev/pmem1"}, load_rounds(d, "/dev/pmem1", "reset"),
                               canary_control(d))
        self.assertIn("a reset (`--canary-reset`) kept a token there", line)

    def test_rounds_judged_without_the_control_s_record_are_not_judged(self):
        """(the runner runs no round after a failed control; rounds with results and
        no record that it passed must not pass either)"""
        for control in ("error", "nothing"):
            d = canary_folder([CLEAN, CLEAN], [True, True], control=control)
            self.assertEqual(exit_status(d), 3)
            self.assertEqual(canary_control(d)[0], "failed")
            self.assertIn("--canary-reset", load_rounds(d, "/dev/pmem1", "reset")[0]["error"])

    def test_a_judged_round_without_the_canary_s_record_is_not_judged(self):
        """(the runner leaves a round whose memory kept the token with an error; a
        round with results and no record of the loss must not pass either)"""
        d = canary_folder([CLEAN, CLEAN], [True, False])
        self.assertEqual(exit_status(d), 3)
        self.assertIn("no record that the DRAM canary", load_rounds(d, "/dev/pmem1")[1]["error"])

    def test_without_a_canary_the_report_says_the_loss_of_power_is_not_shown(self):
        d = run_folder([CLEAN])
        self.assertEqual(exit_status(d), 0)
        self.assertIn("**not shown**", power_loss_line({}, load_rounds(d), canary_control(d)))

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
