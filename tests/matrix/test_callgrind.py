#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_callgrind.py -- an instructions run's count (run by
tests/matrix/test_matrix.sh): callgrind's total less the calls from an engine's or
library's code into fio's own (its clock for the issue time), ours (an engine of its
own) and the peer's (engines built into its fio) alike, on files made here in
callgrind's format: name compression, calls from above the callbacks, nested calls."""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
from rpmamatrix import callgrind, costs  # noqa: E402
from test_costs import fio_doc  # noqa: E402

# Ours: fio-lean runs our engine (.so); the callback stamps the issue time (fio's
# fio_gettime -> __fio_gettime -> libc's clock_gettime) and posts through the library.
# libc's start_thread -> fio's thread_main -> the callback: above it, nothing collected
# there but the edges' inclusive costs.
OURS = """# callgrind format
version: 1
cmd:  /w/build/fio-lean --ioengine=external:build/librpma_apm.so jobs/randwrite.fio
positions: line
events: Ir
summary: 1000

ob=(1) /usr/lib/libc.so.6
fl=(1) start_thread.c
fn=(1) start_thread
cob=(2) /w/build/fio-lean
cfi=(2) /w/fio-3.33/backend.c
cfn=(2) thread_main
calls=1 10
5 1000

ob=(2)
fl=(2)
fn=(2)
cob=(3) /w/build/librpma_apm.so
cfi=(3) /w/engines/fio/engine.c
cfn=(3) rpmafio_queue
calls=500 20
7 1000

ob=(3)
fl=(3)
fn=(3)
20 600
cob=(2)
cfi=(4) /w/fio-3.33/gettime.h
cfn=(4) fio_gettime
calls=500 30
21 150
cob=(4) /w/build/librpma.so
cfi=(5) /w/librpma/src/post.c
cfn=(5) rpma_write
calls=500 40
22 250

ob=(2)
fl=(4)
fn=(4)
30 50
cfn=(6) __fio_gettime
calls=500 31
30 100

fn=(6)
31 60
cob=(1)
cfi=(6) clock_gettime.c
cfn=(7) clock_gettime
calls=500 50
31 40

ob=(1)
fl=(6)
fn=(7)
50 40

ob=(4)
fl=(5)
fn=(5)
40 250
"""

# The peer: its engine (engines/librpma_fio.c) and fio's own code in one executable;
# its commit calls fio's io_u_queued and the library's rpma_write.
PEER = """# callgrind format
version: 1
cmd:  build/peer/fio --name=client --ioengine=librpma_apm_client
positions: line
events: Ir
totals: 900

ob=(1) /w/build/peer/fio
fl=(1) /w/build/peer/fio-3.33/ioengines.c
fn=(1) td_io_commit
cfi=(2) /w/build/peer/fio-3.33/engines/librpma_fio.c
cfn=(2) librpma_fio_client_commit
calls=1 10
3 900

fl=(2)
fn=(2)
10 500
cfi=(3) /w/build/peer/fio-3.33/io_u.c
cfn=(3) io_u_queued
calls=100 20
11 120
cob=(2) /usr/lib/librpma.so.1
cfi=(4) post.c
cfn=(4) rpma_write
calls=100 40
12 280

fl=(3)
fn=(3)
20 120

ob=(2)
fl=(4)
fn=(4)
40 280
"""


def parsed(text):
    with tempfile.NamedTemporaryFile("w", suffix=".callgrind", delete=False) as f:
        f.write(text)
    try:
        return callgrind.parse(f.name), callgrind.engine_instructions(f.name)
    finally:
        os.unlink(f.name)


class FioOwnCode(unittest.TestCase):
    def test_ours_less_fios_clock(self):
        # 1000 collected; the stamp's call into fio (with libc's clock under it) is
        # fio's 150, the library's 250 stays
        (total, own), engine = parsed(OURS)
        self.assertEqual(total, 1000)
        self.assertEqual(own, 150)
        self.assertEqual(engine, 850)

    def test_peer_less_fios_core(self):
        # the engine is in fio's executable, but under engines/: its own 500 and the
        # library's 280 stay, fio's io_u_queued goes
        (total, own), engine = parsed(PEER)
        self.assertEqual(total, 900)
        self.assertEqual(own, 120)
        self.assertEqual(engine, 780)

    def test_nothing_of_fios_called(self):
        # control: without the stamp's call, nothing is taken away
        text = OURS.replace("cfn=(4) fio_gettime\ncalls=500 30\n21 150\n", "")
        (total, own), engine = parsed(text)
        self.assertEqual((own, engine), (0, total))

    def test_a_callee_never_collected_stays(self):
        # a call into a function with no cost block of its own: not known to be fio's
        text = PEER.replace("fl=(3)\nfn=(3)\n20 120\n", "")
        self.assertEqual(parsed(text)[0][1], 0)

    def test_no_totals(self):
        with self.assertRaises(ValueError):
            parsed("events: Ir\nfn=x\n1 5\n")

    def test_executable_matched_relative(self):
        self.assertTrue(callgrind.is_fio_own("/w/build/peer/fio", "/w/io_u.c", "build/peer/fio"))
        self.assertFalse(callgrind.is_fio_own("/w/build/peer/fio", "/w/engines/x.c",
                                              "build/peer/fio"))
        self.assertFalse(callgrind.is_fio_own("/w/build/peer/fio-x", "/w/io_u.c",
                                              "build/peer/fio"))

    def test_per_io_figure_is_the_engines(self):
        # what results.csv gets: (1000 - 150) / 500 I/Os, not the total's 2.0
        folder = tempfile.mkdtemp()
        try:
            os.mkdir(os.path.join(folder, "runs"))
            with open(os.path.join(folder, "runs", "p001-instr.json"), "w") as f:
                json.dump(fio_doc(500, 0, 0), f)
            with open(os.path.join(folder, "runs", "p001-instr.client.callgrind"), "w") as f:
                f.write(OURS)
            fig = costs.instruction_figures(folder, {"id": "p001"})
            self.assertAlmostEqual(fig["client_instructions_per_io"], 1.7)
        finally:
            shutil.rmtree(folder)


if __name__ == "__main__":
    unittest.main(verbosity=1)
