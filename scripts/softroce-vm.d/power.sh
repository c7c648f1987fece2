#!/usr/bin/env bash
# scripts/softroce-vm.d/power.sh -- a power cut of another node of the multi-node VM, from
# node0 (scripts/softroce-vm: run.sh, peer_life):
#
#   scripts/softroce-vm.d/power.sh cut NODE       kill NODE's QEMU at once (no shutdown,
#                                           nothing flushed); the host boots it again
#                                           on the same NVDIMM backing file
#   scripts/softroce-vm.d/power.sh reset NODE     a warm reset of NODE instead: its QEMU
#                                           resets the machine, which boots again
#                                           with its RAM as it was (a platform
#                                           reset that is no loss of power)
#   scripts/softroce-vm.d/power.sh wait-up NODE [S]  until NODE is set up and answers over
#                                           ssh again (at most S s, default 120)
#
# `cut` and `reset` return once the host has done it (within 10 s). Exits non-zero,
# saying why, when a step does not happen; `reset` of a node with --cxl: 2, at once.
set -u
RUN=/run/softroce-vm

usage() {
	sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
}

count() { # NODE FILE: how many of them the host made so far
	cat "$RUN/$1/$2" 2>/dev/null || echo 0
}

# asks the host for it (the file REQUEST in NODE's run folder), and waits until the
# host's count of them (the file DONE) grows
ask_host() { # NODE REQUEST DONE WHAT
	local node=$1 before deadline=$((SECONDS + 10))
	[ -d "$RUN/$node" ] || { echo "power.sh: no $node in this run ($RUN/$node)" >&2; return 2; }
	before=$(count "$node" "$3")
	: >"$RUN/$node/$2"
	until [ "$(count "$node" "$3")" -gt "$before" ]; do
		[ "$SECONDS" -lt "$deadline" ] || { echo "power.sh: the host did not $4 within 10 s" >&2; return 1; }
		sleep 0.1
	done
	# the ssh connection kept open to it died with it
	ssh -O exit "$node" >/dev/null 2>&1
}

cut() { # NODE
	ask_host "$1" power-cycle power-cycled "cut $1's power" || return
	echo "power.sh: $1's power cut (cut $(count "$1" power-cycled) of this run)"
}

reset() { # NODE
	# (QEMU keeps a CXL type-3 device's HDM decoders committed across system_reset,
	# the kernel then refuses the device, and the guest never comes up again)
	if grep -qx 'CXL=1' "$RUN/$1/config" 2>/dev/null; then
		echo "power.sh: no warm reset of $1: it has an emulated CXL device, which QEMU does not" \
			"reset (its decoders stay committed and the kernel refuses it); a cut boots it afresh" >&2
		return 2
	fi
	ask_host "$1" warm-reset warm-resets "reset $1 (its qemu.log may say why)" || return
	echo "power.sh: $1 reset, its memory kept (warm reset $(count "$1" warm-resets) of this run)"
}

wait_up() { # NODE [S]
	local node=$1 deadline=$((SECONDS + ${2:-120}))
	until [ -f "$RUN/$node/ready" ] && timeout 10 ssh -n "$node" true 2>/dev/null; do
		[ "$SECONDS" -lt "$deadline" ] || { echo "power.sh: $node was not up again within ${2:-120} s" >&2; return 1; }
		sleep 1
	done
	echo "power.sh: $node is up again"
}

case "${1:-}" in
cut) [ $# -eq 2 ] || { usage >&2; exit 2; }; cut "$2" ;;
reset) [ $# -eq 2 ] || { usage >&2; exit 2; }; reset "$2" ;;
wait-up) [ $# -ge 2 ] || { usage >&2; exit 2; }; wait_up "$2" "${3:-120}" ;;
-h | --help) usage ;;
*) usage >&2; exit 2 ;;
esac
