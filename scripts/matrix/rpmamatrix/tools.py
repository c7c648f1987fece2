# SPDX-License-Identifier: BSD-3-Clause
"""run_matrix.sh's programs and builds, checked before a run: the tools on PATH, perftest
where the plan has raw points, valgrind for --instructions, the peer's fio, the engines
and the cost counter of the build the options use (--native's its own)."""
import os
import shutil

from .runargs import must

PEER_FIO = "build/peer/fio"
DEPS = "run scripts/deps.sh"


def check_tools(s, root):
    for tool in ("fio", "jq", "gnuplot", "python3"):
        must(shutil.which(tool), f"{tool} is missing: {DEPS}")
    if any(pt["method"] == "raw" for pt in s.plan):
        for tool in ("ib_write_lat", "ib_read_lat", "ib_write_bw"):
            must(shutil.which(tool), f"{tool} is missing (package perftest): {DEPS}")
    if s.instructions != "0":
        must(shutil.which("valgrind"), f"--instructions: valgrind is missing: {DEPS}")
    if "peer" in s.impls.split(","):
        must(os.access(os.path.join(root, PEER_FIO), os.X_OK),
             f"--impl peer: {PEER_FIO} is missing: run make peer")
    make = "native" if s.native == "1" else "engines tools"
    for built in ("librpma_apm.so", "librpma_gpspm.so", "tests/tools/libverbs_count.so"):
        must(os.path.isfile(os.path.join(root, s.engine_dir, built)),
             f"{s.engine_dir}/{built} is missing: run make {make}")
    if s.native == "1":
        must(os.path.isfile(os.path.join(root, s.engine_dir, "jobs/apm-server.fio")),
             f"{s.engine_dir}/jobs is missing: run make native")
