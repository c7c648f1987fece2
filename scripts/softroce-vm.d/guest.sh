#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# softroce-vm stage 2: runs inside the guest as root, chrooted into the
# host's / (read-only 9p + tmpfs overlay), started by stage 1 (init).
# The host copies it into the per-run directory, /run/softroce-vm here.
#
# It sets up Soft-RoCE (rxe on a dummy netdev), optionally the emulated
# PMem, then runs the user's COMMAND and records its exit status in
# /run/softroce-vm/status.  Its stdout/stderr are the per-run directory's
# stdout/stderr files, which the host streams to the caller.
#
# Inputs (all written by the host into /run/softroce-vm):
#   config  SHARE CWD PMEM PMEM_DEVDAX_MIB RXE_ADDR RXE_PREFIX QUIET ACCEL
#   env     `export NAME=VALUE` lines from --env
#   argv    CMD=( COMMAND... )

set -uo pipefail

RUN=/run/softroce-vm
RXE_NETDEV=rxenet0
RXE_DEV=rxe0
FSDAX_DIR=/mnt/pmem

note() {
	echo "softroce-vm: $*" >/dev/console
	[[ $QUIET == 1 ]] || echo "softroce-vm: $*" >&2
}

die() {
	echo "softroce-vm: error: $*" >/dev/console
	echo "softroce-vm: error: $*" >&2
	exit 1
}

# Run a setup step quietly; on failure show its output and stop.
step() { # DESCRIPTION COMMAND...
	local what=$1 out
	shift
	if ! out=$("$@" 2>&1); then
		printf '%s\n' "$out" >&2
		die "$what failed: $*"
	fi
	printf '%s' "$out"
}

setup_rxe() {
	step "loopback up" ip link set lo up >/dev/null
	step "dummy netdev" ip link add "$RXE_NETDEV" type dummy >/dev/null
	step "dummy netdev address" ip addr add "$RXE_ADDR/$RXE_PREFIX" dev "$RXE_NETDEV" >/dev/null
	step "dummy netdev up" ip link set "$RXE_NETDEV" up >/dev/null
	step "rxe device" rdma link add "$RXE_DEV" type rxe netdev "$RXE_NETDEV" >/dev/null
	note "$RXE_DEV on $RXE_NETDEV, RPMA_TEST_ADDR=$RXE_ADDR"
	export RPMA_TEST_ADDR=$RXE_ADDR
}

# ndctl's JSON output -> the value of one string field, e.g. "chardev".
json_field() { # FIELD
	sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" | head -n1
}

# The emulated NVDIMM (one region) is split into a devdax namespace and an
# fsdax namespace that gets an ext4 file system mounted with -o dax.
setup_pmem() {
	local out chardev blockdev
	command -v ndctl >/dev/null || die "--pmem needs ndctl on the host (apt-get install ndctl)"
	step "disable region0" ndctl disable-region region0 >/dev/null
	step "init labels" ndctl init-labels -f nmem0 >/dev/null
	step "enable region0" ndctl enable-region region0 >/dev/null
	out=$(step "devdax namespace" ndctl create-namespace -r region0 -m devdax -s "${PMEM_DEVDAX_MIB}M") || exit 1
	chardev=$(json_field chardev <<<"$out")
	out=$(step "fsdax namespace" ndctl create-namespace -r region0 -m fsdax) || exit 1
	blockdev=$(json_field blockdev <<<"$out")
	[[ -n $chardev && -c /dev/$chardev ]] || die "no devdax device after ndctl create-namespace"
	[[ -n $blockdev && -b /dev/$blockdev ]] || die "no fsdax block device after ndctl create-namespace"
	step "mkfs.ext4" mkfs.ext4 -q -F -b 4096 "/dev/$blockdev" >/dev/null # DAX needs 4 KiB blocks
	mkdir -p "$FSDAX_DIR"
	step "fsdax mount" mount -t ext4 -o dax=always "/dev/$blockdev" "$FSDAX_DIR" >/dev/null
	note "pmem: RPMA_TEST_DEVDAX=/dev/$chardev RPMA_TEST_FSDAX_DIR=$FSDAX_DIR (ext4 -o dax on /dev/$blockdev)"
	export RPMA_TEST_DEVDAX=/dev/$chardev
	export RPMA_TEST_FSDAX_DIR=$FSDAX_DIR
}

main() {
	local rc CMD=()
	# shellcheck disable=SC1091 # written by the host at run time
	source "$RUN/config" || die "cannot read $RUN/config"
	setup_rxe
	[[ $PMEM == 1 ]] && setup_pmem
	export SOFTROCE_VM=1
	# the accelerator that runs this guest (kvm or tcg), for reports
	export SOFTROCE_VM_ACCEL=${ACCEL:-unknown}
	# shellcheck disable=SC1091
	source "$RUN/env" || die "cannot read $RUN/env"
	# shellcheck disable=SC1091
	source "$RUN/argv" || die "cannot read $RUN/argv"
	((${#CMD[@]})) || die "no command given"
	cd "$CWD" || die "cannot cd to $CWD"

	: >"$RUN/started" # its mtime (host clock) marks the end of the boot
	"${CMD[@]}"
	rc=$?
	echo "$rc" >"$RUN/status"
	echo "softroce-vm: command exited with status $rc" >/dev/console
	return 0
}

main "$@"
