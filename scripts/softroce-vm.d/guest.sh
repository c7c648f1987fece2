#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# softroce-vm stage 2: runs inside the guest as root, chrooted into the
# host's / (read-only 9p + tmpfs overlay), started by stage 1 (init).
# The host copies it into the per-run directory, /run/softroce-vm here.
#
# It sets up Soft-RoCE (rxe on a dummy netdev; with --nodes on the virtio
# NIC of the run's network, with hostnames and sshd) and/or Soft-iWARP (siw;
# --transport), optionally the emulated
# PMem, then runs the user's COMMAND and records its exit status in
# /run/softroce-vm/status.  Its stdout/stderr are the per-run directory's
# stdout/stderr files, which the host streams to the caller.  With --nodes,
# node 0 runs COMMAND once every other node answers over ssh; the others
# only serve (the host stops them when node 0 is done).
#
# Inputs (all written by the host into /run/softroce-vm):
#   config  SHARE CWD PMEM PMEM_DEVDAX_MIB CXL CXL_DEVDAX_MIB RXE_ADDR RXE_PREFIX TRANSPORT
#           IWARP_ADDR QUIET ACCEL
#           NODE NODES NODE_HOSTS ("node0=ADDR node1=ADDR ...")
#   env     `export NAME=VALUE` lines from --env
#   argv    CMD=( COMMAND... ), empty on nodes other than 0
#   ssh/    (--nodes) host_key, id_ed25519[.pub], known_hosts

set -uo pipefail

RUN=/run/softroce-vm
RXE_NETDEV=rxenet0
RXE_DEV=rxe0
SIW_DEV=siw0
SIW_NIC=eth1 # --nodes --transport rxe,iwarp: siw's NIC, on a network of its own
FSDAX_DIR=/mnt/pmem
NIC=eth0
# what ssh sessions on a node source for the variables COMMAND gets
NODE_ENV=/etc/softroce-vm.env
# how long node 0 waits for the others to answer over ssh (TCG boots 2-4
# guests on the same cores)
PEER_WAIT=${SOFTROCE_VM_PEER_WAIT:-300}

note() {
	echo "softroce-vm: $*" >/dev/console
	[[ $QUIET == 1 ]] || echo "softroce-vm: $*" >&2
}

die() {
	echo "softroce-vm: error: $*" >/dev/console
	echo "softroce-vm: error: $*" >&2
	echo "$*" >"$RUN/failed" # node 0 stops waiting for this node
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

# The RDMA devices of --transport on NETDEV (rxe's address there): rxe0 and/or
# siw0; with both, siw0 on SIW_NETDEV with IWARP_ADDR (made by the command
# that follows, if any), so that each address belongs to one device.
setup_rdma() { # NETDEV SIW_NETDEV [COMMAND_MAKING_IT...]
	local netdev=$1 siw_netdev=$2
	shift 2
	step "the providers of rxe and siw alone" only_soft_providers
	case $TRANSPORT in
	rxe | rxe,iwarp) step "rxe device" rdma link add "$RXE_DEV" type rxe netdev "$netdev" >/dev/null ;;&
	iwarp) add_siw "$netdev" ;;
	rxe,iwarp)
		(($#)) && step "siw's netdev" "$@" >/dev/null
		[[ -e /sys/class/net/$siw_netdev ]] || die "no network device $siw_netdev for siw"
		step "siw's netdev address" ip addr add "$IWARP_ADDR/$RXE_PREFIX" dev "$siw_netdev" >/dev/null
		step "siw's netdev up" ip link set "$siw_netdev" up >/dev/null
		add_siw "$siw_netdev"
		;;
	esac
	export RPMA_TEST_ADDR=$RXE_ADDR RPMA_TEST_TRANSPORT=$TRANSPORT
	[[ $TRANSPORT == *iwarp* ]] && export RPMA_TEST_IWARP_ADDR=$IWARP_ADDR
	note "$(rdma_summary)"
}

# libibverbs loads every provider /etc/libibverbs.d names (17 on Debian) in each
# process that looks for a device; under TCG, over 9p, that is ~35-85 ms of every
# fio or example started. The guest's devices are rxe and siw: the others go (from
# the overlay's /etc, in guest RAM; the host's stay).
only_soft_providers() {
	local f
	for f in /etc/libibverbs.d/*.driver; do
		case ${f##*/} in rxe.driver | siw.driver) ;; *) rm -f "$f" || return 1 ;; esac
	done
	[[ -e /etc/libibverbs.d/rxe.driver && -e /etc/libibverbs.d/siw.driver ]] ||
		{ echo "no rxe.driver or siw.driver in /etc/libibverbs.d" >&2; return 1; }
}

add_siw() { # NETDEV
	[[ -d /sys/module/siw ]] || die "--transport iwarp: the siw module is not loaded (not in the initramfs?)"
	step "siw device" rdma link add "$SIW_DEV" type siw netdev "$1" >/dev/null
}

rdma_summary() {
	local s="$RXE_DEV (RoCE) on $RXE_ADDR"
	case $TRANSPORT in
	iwarp) s="$SIW_DEV (iWARP) on $RXE_ADDR" ;;
	rxe,iwarp) s+=", $SIW_DEV (iWARP) on $IWARP_ADDR (RPMA_TEST_IWARP_ADDR)" ;;
	esac
	((NODES > 1)) && s="node$NODE: $s"
	echo "$s, RPMA_TEST_ADDR=$RXE_ADDR"
}

setup_local() {
	step "loopback up" ip link set lo up >/dev/null
	step "dummy netdev" ip link add "$RXE_NETDEV" type dummy >/dev/null
	step "dummy netdev address" ip addr add "$RXE_ADDR/$RXE_PREFIX" dev "$RXE_NETDEV" >/dev/null
	step "dummy netdev up" ip link set "$RXE_NETDEV" up >/dev/null
	setup_rdma "$RXE_NETDEV" siwnet0 ip link add siwnet0 type dummy
}

# --nodes: the run's network on the virtio NIC, rxe on it, the node names.
setup_network() {
	local h
	[[ -e /sys/class/net/$NIC ]] || die "no network device $NIC (virtio_net missing from the initramfs?)"
	step "loopback up" ip link set lo up >/dev/null
	step "$NIC address" ip addr add "$RXE_ADDR/$RXE_PREFIX" dev "$NIC" >/dev/null
	step "$NIC up" ip link set "$NIC" up >/dev/null
	setup_rdma "$NIC" "$SIW_NIC"
	hostname "node$NODE"
	{
		echo "127.0.0.1 localhost"
		for h in $NODE_HOSTS; do
			echo "${h#*=} ${h%%=*}"
		done
	} >/etc/hosts
	note "node$NODE: of $NODE_HOSTS"
}

# --nodes: dropbear with the run's host key, and an ssh client set up to
# reach every node with the run's key (ssh -o BatchMode=yes nodeI works).
setup_ssh() {
	local k=$RUN/ssh
	mkdir -p /root/.ssh && chmod 700 /root/.ssh
	install -m 600 "$k/id_ed25519" /root/.ssh/id_ed25519
	install -m 644 "$k/id_ed25519.pub" /root/.ssh/id_ed25519.pub
	install -m 600 "$k/id_ed25519.pub" /root/.ssh/authorized_keys
	mkdir -p /etc/ssh/ssh_config.d
	cat >/etc/ssh/ssh_config.d/softroce-vm.conf <<EOF
Host node* 192.168.*
	IdentityFile /root/.ssh/id_ed25519
	UserKnownHostsFile $k/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
	ConnectTimeout 10
	LogLevel ERROR
	# a key exchange costs seconds under TCG: one connection per node, reused
	ControlMaster auto
	ControlPath /tmp/ssh-%r@%h:%p
	ControlPersist 120
EOF
	# bash runs ~/.bashrc for ssh commands: the host's (this overlay's lower layer)
	# may set up a user's tools (seconds under TCG, another PATH); in the guest a
	# remote command gets what COMMAND gets instead
	cat >/root/.bashrc <<EOF
export PATH=$PATH
[ -r $NODE_ENV ] && . $NODE_ENV
EOF
	install -m 600 "$k/host_key" /etc/softroce-vm-host-key
	# -s: keys only; -F -E: in the foreground here, its messages in dropbear.log
	dropbear -F -E -s -p 22 -r /etc/softroce-vm-host-key >>"$RUN/dropbear.log" 2>&1 &
}

# What a remote command needs (it gets none of COMMAND's environment):
# `ssh nodeI '. /etc/softroce-vm.env; ...'`.
write_node_env() {
	local v
	for v in RPMA_TEST_ADDR RPMA_TEST_IWARP_ADDR RPMA_TEST_TRANSPORT RPMA_TEST_DEVDAX RPMA_TEST_CXL_DEVDAX RPMA_TEST_FSDAX_DIR SOFTROCE_VM SOFTROCE_VM_ACCEL \
		SOFTROCE_VM_NODE SOFTROCE_VM_NODES SOFTROCE_VM_DRAM_CANARY SOFTROCE_VM_PMEM_CANARY; do
		[[ -n ${!v:-} ]] && echo "export $v=${!v}"
	done >"$NODE_ENV"
}

# Node 0, before COMMAND: every other node set up and answering over ssh.
wait_for_peers() {
	local i deadline=$((SECONDS + PEER_WAIT))
	for ((i = 1; i < NODES; i++)); do
		while :; do
			[[ ! -f $RUN/node$i/failed ]] ||
				die "node$i failed to set up: $(cat "$RUN/node$i/failed")"
			if [[ -f $RUN/node$i/ready ]] && ssh -n "node$i" true 2>/dev/null; then
				break
			fi
			((SECONDS < deadline)) ||
				die "node$i did not answer over ssh within $PEER_WAIT s (its guest log: node$i/guest.log)"
			sleep 1
		done
	done
	note "all $NODES nodes answer over ssh (${SECONDS} s)"
}

# ndctl's JSON output -> the value of one string field, e.g. "chardev".
json_field() { # FIELD
	sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" | head -n1
}

# The emulated NVDIMM (one region) is split into a devdax namespace and an
# fsdax namespace that gets an ext4 file system mounted with -o dax. After a
# power cut (run.sh: peer_life) the NVDIMM keeps its labels and bytes: the
# namespaces are found again, and the file system mounted as it was left.
setup_pmem() {
	local out chardev blockdev
	command -v ndctl >/dev/null || die "--pmem needs ndctl on the host (apt-get install ndctl)"
	out=$(ndctl list -N -r region0 2>/dev/null | tr -d ' \n')
	chardev=$(json_field chardev <<<"$out")
	blockdev=$(json_field blockdev <<<"$out")
	if [[ -n $chardev && -c /dev/$chardev && -n $blockdev && -b /dev/$blockdev ]]; then
		mkdir -p "$FSDAX_DIR"
		step "fsdax mount (kept)" mount -t ext4 -o dax=always "/dev/$blockdev" "$FSDAX_DIR" >/dev/null
		note "pmem kept: RPMA_TEST_DEVDAX=/dev/$chardev RPMA_TEST_FSDAX_DIR=$FSDAX_DIR (ext4 -o dax on /dev/$blockdev)"
		export RPMA_TEST_DEVDAX=/dev/$chardev
		export RPMA_TEST_FSDAX_DIR=$FSDAX_DIR
		return
	fi
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

# --nodes --pmem: the legacy PMem of the host's memmap=16M!ADDR (RAM a power cut loses:
# the durability runner's canary as hardware has it) -> SOFTROCE_VM_PMEM_CANARY
pmem_canary() {
	local d
	for d in /sys/class/block/pmem*; do
		case $(readlink -f "$d/device") in
		*/e820_pmem/*) export SOFTROCE_VM_PMEM_CANARY=/dev/${d##*/} ;;
		esac
	done
	return 0
}

# Poll CHECK every 0.2 s for at most S seconds; die naming WHAT when it never holds.
until_true() { # S WHAT CHECK...
	local s=$1 what=$2 tries
	shift 2
	for ((tries = s * 5; tries > 0; tries--)); do
		"$@" && return 0
		sleep 0.2
	done
	die "no $what after $s s"
}

cxl_memdev_ready() {
	cxl list -M -m mem0 2>/dev/null | grep -q '"pmem_size"' &&
		compgen -G '/sys/bus/cxl/devices/endpoint*' >/dev/null
}

cxl_nd_region() {
	ndctl list -i -R -b CXL 2>/dev/null | grep -q '"dev"'
}

# --cxl: the persistent capacity of the CXL type-3 device becomes a CXL region
# (cxl create-region), which the kernel hands to libnvdimm as the region of an
# nvdimm bus of its own (provider CXL); a devdax namespace of CXL_DEVDAX_MIB is
# made there. 6.1 does not assemble a region again at boot, and the region made
# again after a power cut refuses to start on the labels of the one before: its
# labels are written afresh and the namespace made again, of the same size at the
# same place (the region's start), over the device's bytes as they were.
setup_cxl() {
	local out made region dimm chardev kept=
	# the CXL drivers probe the device in the background: without mem0's port,
	# create-region makes nothing and still exits 0
	until_true 10 "CXL memory device mem0" cxl_memdev_ready
	made=$(step "cxl create-region" cxl create-region -m -t pmem -d decoder0.0 -w 1 mem0 2>&1)
	until_true 10 "nvdimm region of the CXL region (create-region said: $made)" cxl_nd_region
	out=$(ndctl list -i -R -D -b CXL 2>/dev/null | tr -d ' \n')
	region=$(sed -n 's/.*"regions":\[{"dev":"\([^"]*\)".*/\1/p' <<<"$out")
	dimm=$(sed -n 's/.*"dimms":\[{"dev":"\([^"]*\)".*/\1/p' <<<"$out")
	[[ -n $region && -n $dimm ]] || die "no region or dimm on the CXL bus: $out"
	if [[ $out == *'"state":"disabled"'* ]]; then
		step "disable $region" ndctl disable-region "$region" >/dev/null
		step "init labels of $dimm" ndctl init-labels -f "$dimm" >/dev/null
		step "enable $region" ndctl enable-region "$region" >/dev/null
		kept=" (made again at the same place after a power cut)"
	fi
	out=$(ndctl list -N -r "$region" 2>/dev/null | tr -d ' \n')
	chardev=$(json_field chardev <<<"$out")
	if [[ -z $chardev ]]; then
		out=$(step "CXL devdax namespace" ndctl create-namespace -r "$region" -m devdax \
			-s "${CXL_DEVDAX_MIB}M") || exit 1
		chardev=$(json_field chardev <<<"$(tr -d ' \n' <<<"$out")")
	fi
	[[ -n $chardev && -c /dev/$chardev ]] || die "no devdax device on the CXL region ($region)"
	note "cxl: RPMA_TEST_CXL_DEVDAX=/dev/$chardev (devdax on $region, the CXL region of mem0)$kept"
	export RPMA_TEST_CXL_DEVDAX=/dev/$chardev
}

main() {
	local rc CMD=()
	# shellcheck disable=SC1091 # written by the host at run time
	source "$RUN/config" || die "cannot read $RUN/config"
	NODE=${NODE:-0} NODES=${NODES:-1} TRANSPORT=${TRANSPORT:-rxe}
	if ((NODES > 1)); then
		setup_network
		setup_ssh
		export SOFTROCE_VM_NODE=$NODE SOFTROCE_VM_NODES=$NODES SOFTROCE_VM_DRAM_CANARY=${DRAM_CANARY:-}
	else
		setup_local
	fi
	[[ $PMEM == 1 ]] && setup_pmem && pmem_canary
	[[ ${CXL:-0} == 1 ]] && setup_cxl
	export SOFTROCE_VM=1
	# the accelerator that runs this guest (kvm or tcg), for reports
	export SOFTROCE_VM_ACCEL=${ACCEL:-unknown}
	if ((NODES > 1)); then
		write_node_env
		if ((NODE != 0)); then
			: >"$RUN/ready"
			note "node$NODE ready"
			while :; do sleep 3600; done # until the host stops this guest
		fi
		wait_for_peers
	fi
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
