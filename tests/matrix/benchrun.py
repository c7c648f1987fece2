# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/benchrun.py -- what the tests of the benches' row subcommands share
(test_polling.py, test_clientsbench.py): a run's fio JSON written in a folder of its
own, and `matrix ROW --tsv TSV STEM WORDS...` run on it as the bench runs it."""
import json
import os
import subprocess
import sys
import tempfile

MATRIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "matrix",
                      "matrix")


class BenchRun:
    """A unittest.TestCase mixin: ROW, the subcommand; STEM, the run's name."""
    ROW = STEM = ""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.stem = os.path.join(self.dir.name, self.STEM)
        self.tsv = os.path.join(self.dir.name, "bench.tsv")

    def tearDown(self):
        self.dir.cleanup()

    def run_files(self, write, server_jobs):
        """STEM.json with the client's WRITE figures, STEM.server.json (None: none)."""
        docs = {".json": {"jobs": [{"write": write}]}, ".server.json": {"jobs": server_jobs}}
        for suffix, doc in docs.items():
            if doc["jobs"] is not None:
                with open(self.stem + suffix, "w") as f:
                    # (fio may print a note before its JSON)
                    f.write("note: a line before the JSON\n" + json.dumps(doc))

    def row(self, *words):
        return subprocess.run([sys.executable, MATRIX, self.ROW, "--tsv", self.tsv, self.stem]
                              + list(words), capture_output=True, text=True)

    def tsv_text(self):
        with open(self.tsv) as f:
            return f.read()
