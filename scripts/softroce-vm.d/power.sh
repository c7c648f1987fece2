#!/usr/bin/env bash
# scripts/softroce-vm.d/power.sh -- a power cut of another node of the multi-node VM, from
# node0 (scripts/softroce-vm: run.sh, peer_life):
#
#   scripts/softroce-vm.d/power.sh cut NODE       kill NODE's QEMU at once (no shutdown,
#                                           nothing flushed); the host boots it again
#                                           on the same NVDIMM backing file
#   scripts/softroce-vm.d/power.sh wait-up NODE [S]  until NODE is set up and answers over
#                                           ssh again (at most S s, default 120)
#
# `cut` returns once the host has killed the guest (within 10 s), so that it can be
# fio's --trigger command. Exits non-zero, saying why, when a step does not happen.
set -u
RUN=/run/softroce-vm

usage() {
	sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
}

cuts() { # NODE: how many power cuts the host made so far
	cat "$RUN/$1/power-cycled" 2>/dev/null || echo 0
}

cut() { # NODE
	local node=$1 before deadline=$((SECONDS + 10))
	[ -d "$RUN/$node" ] || { echo "power.sh: no $node in this run ($RUN/$node)" >&2; return 2; }
	before=$(cuts "$node")
	: >"$RUN/$node/power-cycle"
	until [ "$(cuts "$node")" -gt "$before" ]; do
		[ "$SECONDS" -lt "$deadline" ] || { echo "power.sh: the host did not cut $node's power within 10 s" >&2; return 1; }
		sleep 0.1
	done
	# the ssh connection kept open to it died with it
	ssh -O exit "$node" >/dev/null 2>&1
	echo "power.sh: $node's power cut (cut $(cuts "$node") of this run)"
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
wait-up) [ $# -ge 2 ] || { usage >&2; exit 2; }; wait_up "$2" "${3:-120}" ;;
-h | --help) usage ;;
*) usage >&2; exit 2 ;;
esac
