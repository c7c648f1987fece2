#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/checks/abi/check_exports.sh -- make lint-abi: what librpma.so exports, and at
# which version node, is exactly what debian/librpma0-rpmafio.symbols records:
#   - librpma 1.x's functions at upstream's node LIBRPMA_1.0, so a program built
#     against upstream's librpma.so.0 loads ours unchanged;
#   - rpma-fio's extensions (not in librpma 1.x) at a node of their own,
#     RPMAFIO_EXT_1.0, so a program that uses one fails to load on upstream's
#     library with the loader naming that node, not at its first call.
# Then the loader itself is asked: a program that calls an extension, linked against
# ours, runs on ours and is refused naming RPMAFIO_EXT_1.0 by a library that has
# LIBRPMA_1.0 alone (as upstream's has: built here from librpma.a); a program that
# calls only librpma 1.x runs on both.
#
#   check_exports.sh [BUILD_DIR]   librpma.so and librpma.a in BUILD_DIR (default build)
#
# Prints what differs and one line per loader case; exits 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1

BUILD=${1:-build}
SYMBOLS=debian/librpma0-rpmafio.symbols
UPSTREAM_NODE=LIBRPMA_1.0
EXT_NODE=RPMAFIO_EXT_1.0
CC=${CC:-cc}
failed=0

fail() {
	echo "FAIL: $*"
	failed=1
}

# "name@NODE" of every function the library exports, sorted
exported() {
	objdump -T "$1" | awk '$NF ~ /^rpma_/ && $(NF-1) ~ /^[A-Z]/ { print $NF "@" $(NF-1) }' |
		sort
}

# "name@NODE" the symbols file expects (the nodes' own entries aside), sorted
expected() {
	awk '$1 ~ /^rpma_.*@/ { print $1 }' "$SYMBOLS" | sort
}

check_list() {
	local got want
	got=$(exported "$BUILD/librpma.so")
	want=$(expected)
	if [ "$got" != "$want" ]; then
		fail "librpma.so's exports differ from $SYMBOLS (< exported, > expected):"
		diff <(printf '%s\n' "$got") <(printf '%s\n' "$want") | grep '^[<>]'
	fi
	local n_up n_ext
	n_up=$(printf '%s\n' "$got" | grep -c "@$UPSTREAM_NODE$")
	n_ext=$(printf '%s\n' "$got" | grep -c "@$EXT_NODE$")
	echo "exports: $n_up at $UPSTREAM_NODE, $n_ext at $EXT_NODE"
	[ "$n_ext" -gt 0 ] || fail "no function at $EXT_NODE"
}

# a library of the same functions all at LIBRPMA_1.0, upstream's one node, into DIR
build_one_node_lib() {
	local dir=$1
	printf '%s { global: rpma_*; local: *; };\n' "$UPSTREAM_NODE" >"$dir/one-node.map"
	"$CC" -shared -o "$dir/librpma.so.0" -Wl,-soname,librpma.so.0 \
		-Wl,--version-script="$dir/one-node.map" \
		-Wl,--whole-archive "$BUILD/librpma.a" -Wl,--no-whole-archive \
		-lrdmacm -libverbs -lpthread
}

# a program calling FUNCTION(NULL), linked against ours, into DIR/NAME
build_caller() {
	local dir=$1 name=$2 call=$3
	printf '#include <librpma.h>\nint main(void) { %s; return 0; }\n' "$call" \
		>"$dir/$name.c"
	"$CC" -Ilibrpma/include -o "$dir/$name" "$dir/$name.c" -L"$BUILD" -lrpma
}

# run DIR/NAME with LIB_DIR's librpma.so.0; "ok" or "refused: <loader's line>"
run_on() {
	local prog=$1 lib_dir=$2 out
	if out=$(LD_LIBRARY_PATH=$lib_dir "$prog" 2>&1); then
		echo ok
	else
		echo "refused: $out"
	fi
}

check_loader() {
	local tmp ours
	tmp=$(mktemp -d) || { fail "mktemp"; return; }
	ours=$tmp/ours
	mkdir -p "$ours" && ln -sf "$(realpath "$BUILD/librpma.so")" "$ours/librpma.so.0"
	if ! build_one_node_lib "$tmp" ||
			! build_caller "$tmp" ext 'rpma_conn_batch_begin(NULL)' ||
			! build_caller "$tmp" plain 'rpma_conn_cfg_delete(NULL)'; then
		fail "could not build the loader's cases"
		rm -rf "$tmp"
		return
	fi
	local r
	r=$(run_on "$tmp/ext" "$ours")
	echo "an extension's caller on ours: $r"
	[ "$r" = ok ] || fail "a program using an extension does not run on ours"
	r=$(run_on "$tmp/ext" "$tmp")
	echo "an extension's caller on a LIBRPMA_1.0-only library: $r"
	[[ $r == refused:*"$EXT_NODE"* ]] ||
		fail "the loader does not refuse it naming $EXT_NODE"
	r=$(run_on "$tmp/plain" "$ours")
	echo "a librpma 1.x caller on ours: $r"
	[ "$r" = ok ] || fail "a librpma 1.x program does not run on ours"
	r=$(run_on "$tmp/plain" "$tmp")
	echo "a librpma 1.x caller on a LIBRPMA_1.0-only library: $r"
	[ "$r" = ok ] || fail "a librpma 1.x program does not run on a LIBRPMA_1.0-only library"
	rm -rf "$tmp"
}

check_list
check_loader
if [ "$failed" -ne 0 ]; then
	echo "abi: FAILED"
	exit 1
fi
echo "abi: librpma 1.x at $UPSTREAM_NODE, rpma-fio's extensions at $EXT_NODE, as $SYMBOLS says"
