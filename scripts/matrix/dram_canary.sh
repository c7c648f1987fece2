#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/matrix/dram_canary.sh -- run_durability.sh's --dram-canary, on the server
# host (sh and coreutils only): a 4 KiB block of RAM that a reset keeps and a loss of
# power does not (a device: /dev/pmemN of a memmap= reservation, /dev/mem).
#
#   dram_canary.sh check PATH BLOCK         is it RAM that no kernel touches across a
#                                           reboot? /dev/pmemN of a memmap=SIZE!ADDR
#                                           region, or /dev/mem in a reserved range of
#                                           /proc/iomem (memmap=SIZE$ADDR); else exit 1
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

# Is [ADDR, ADDR + 4096) inside a "Reserved" range of /proc/iomem?
reserved() { # ADDR
	while IFS= read -r line; do
		case $line in *" : Reserved") ;; *) continue ;; esac
		range=${line%% :*}
		range=${range##* }
		start=$((0x${range%-*})) end=$((0x${range#*-}))
		[ "$1" -ge "$start" ] && [ $(($1 + 4095)) -le "$end" ] && return 0
	done </proc/iomem
	return 1
}

# RAM a kernel leaves alone across a reboot: not a RAM disk (brd, zram), whose kernel
# empties it at any reboot, and not PMem, which keeps its bytes through a power cut
check() { # PATH BLOCK
	case $1 in
	/dev/mem)
		reserved $(($2 * 4096)) && return 0
		echo "dram_canary.sh: /dev/mem at $(printf '0x%x' $(($2 * 4096))) is in no reserved range of" \
			"/proc/iomem (memmap=SIZE\$ADDR reserves one)" >&2 ;;
	/dev/pmem*)
		case $(readlink -f "/sys/class/block/${1#/dev/}/device" 2>/dev/null) in
		*/e820_pmem/*) return 0 ;;
		esac
		echo "dram_canary.sh: $1 is no legacy PMem device of a memmap=SIZE!ADDR region (its region is" \
			"not e820's): real PMem or CXL memory keeps the token through a power cut" >&2 ;;
	*)
		echo "dram_canary.sh: $1 is neither /dev/pmemN of a memmap=SIZE!ADDR region nor /dev/mem: a RAM" \
			"disk (brd, zram) loses its bytes at any reboot, a disk keeps them through a power cut" >&2 ;;
	esac
	return 1
}

case "${1:-}:$#" in
check:3)
	device "$2"
	check "$2" "$3" ;;
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
	sed -n '8,16p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2 ;;
esac
