#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/test_verbs_count.sh -- the peer's bytes asked to persist, as the matrix
# counts them: tests/tools/verbs_count.c preloaded into a program that calls
# pmem_persist() (through a pointer, as fio 3.33's GPSPM server) and rpma_flush() of
# stand-in shared libraries (tests/tools/peer_libs/) must pass every call on and write
# their lengths (a failed flush not counted) into RPMAFIO_VERBS_COUNT's line. The
# control: the same program without the preload writes no line.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHIM=${1:-$ROOT/build/tests/tools/libverbs_count.so}
WORK=$ROOT/build/tests/verbs-count
CC=${CC:-cc}
[ -f "$SHIM" ] || { echo "FAIL $SHIM is missing (make $(realpath --relative-to="$ROOT" "$SHIM"))"; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK"
"$CC" -fPIC -shared -o "$WORK/libpeer.so" "$ROOT/tests/tools/peer_libs/peer_libs.c"
"$CC" -o "$WORK/caller" "$ROOT/tests/tools/peer_libs/peer_caller.c" -L"$WORK" -lpeer -Wl,-rpath,"$WORK"

failed=0
# without the counter: the calls reach the libraries, nothing is counted
RPMAFIO_VERBS_COUNT=$WORK/none.json "$WORK/caller" >"$WORK/none.out"
if [ -e "$WORK/none.json" ] || [ "$(wc -l <"$WORK/none.out")" != 4 ]; then
	echo "FAIL the control: without the preload a count was written, or a call was lost"
	failed=1
fi
# with it: the same four calls passed on, and their lengths counted
LD_PRELOAD=$SHIM RPMAFIO_VERBS_COUNT=$WORK/count.json "$WORK/caller" >"$WORK/count.out"
if ! cmp -s "$WORK/none.out" "$WORK/count.out"; then
	echo "FAIL the preloaded counter did not pass every call on:"; diff "$WORK/none.out" "$WORK/count.out" || true
	failed=1
fi
if ! jq -e '.persist_bytes == 4196 and .flush_bytes == 8192' "$WORK/count.json" >/dev/null; then
	echo "FAIL persist_bytes 4196 and flush_bytes 8192 expected: $(cat "$WORK/count.json" 2>&1)"
	failed=1
fi
[ "$failed" = 0 ] && echo "PASS verbs_count.c: the peer's pmem_persist() and rpma_flush() lengths counted, calls passed on"
exit "$failed"
