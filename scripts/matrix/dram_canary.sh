#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/matrix/dram_canary.sh -- run_durability.sh's --dram-canary, on the server
# host (sh and coreutils only): a 4 KiB block of RAM that a reset keeps and a loss of
# power does not (a device: /dev/pmemN of a memmap= reservation, /dev/mem).
#
#   dram_canary.sh write PATH BLOCK TOKEN   PATH's 4 KiB block BLOCK filled with TOKEN's
#                                           line (a block device past its page cache)
#   dram_canary.sh hash PATH BLOCK          the sha256 of that block; a read that fails
#                                           or comes short prints nothing, exits 1
#   dram_canary.sh expect TOKEN             the sha256 the block holding TOKEN has
set -u

block() { # TOKEN
	yes "rpma-fio DRAM canary $1" | head -c 4096
}

device() { # PATH
	[ -b "$1" ] || [ -c "$1" ] || { echo "dram_canary.sh: $1 is no device" >&2; exit 1; }
}

case "${1:-}:$#" in
write:4)
	device "$2"
	flag=
	[ -b "$2" ] && flag=oflag=direct
	# shellcheck disable=SC2086 # (the flag, or none)
	block "$4" | dd of="$2" bs=4096 seek="$3" count=1 conv=notrunc iflag=fullblock $flag status=none ;;
hash:3)
	device "$2"
	t=$(mktemp) || exit 1
	trap 'rm -f "$t"' EXIT
	flag=
	[ -b "$2" ] && flag=iflag=direct
	# shellcheck disable=SC2086
	dd if="$2" of="$t" bs=4096 skip="$3" count=1 $flag status=none || exit 1
	[ "$(wc -c <"$t")" -eq 4096 ] || { echo "dram_canary.sh: $2: block $3 read short" >&2; exit 1; }
	sha256sum <"$t" | cut -d' ' -f1 ;;
expect:2)
	block "$2" | sha256sum | cut -d' ' -f1 ;;
*)
	sed -n '8,12p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2 ;;
esac
