# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# softroce-vm.d/run.sh -- `run`: the per-run directory (what guest.sh reads),
# QEMU with the 9p shares and the NVDIMM, COMMAND's output streamed back,
# and the exit status.  Sourced by scripts/softroce-vm; the OPT_* values
# come from tool.py parse, already checked.

LOG_TAIL_LINES=60

# --nodes: each QEMU's UDP receive buffer (udp_rcvbuf.c), bytes
UDP_RCVBUF=$((8 << 20))

# Per-run state, for the EXIT/signal traps.
RUN_DIR=
QEMU_PID=
PEER_PIDS=() # --nodes: the QEMUs of nodes 1..N-1
TAIL_PIDS=()
KEEP_RUN_DIR=0
INTERRUPTED=
QEMU_ENV=()     # what QEMU runs under (net_shim)
UDP_DROPS0=     # the host's UDP receive-buffer drops when the run began

cleanup_run() {
	local p
	if [[ -n $QEMU_PID ]] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill -TERM "$QEMU_PID" 2>/dev/null || true
		wait "$QEMU_PID" 2>/dev/null || true
	fi
	stop_peers
	for p in "${TAIL_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	[[ -n $RUN_DIR && -d $RUN_DIR ]] || return 0
	rm -f "$RUN_DIR"/{pmem,cxl,cxl-lsa}.img "$RUN_DIR"/node*/{pmem,cxl,cxl-lsa}.img
	((KEEP_RUN_DIR)) || rm -rf "$RUN_DIR"
}

on_signal() { # SIGNAL_NAME
	INTERRUPTED=$1
	[[ -n $QEMU_PID ]] && kill -TERM "$QEMU_PID" 2>/dev/null
	return 0
}

# The host tools a run needs -> QEMU.
check_run_tools() {
	ensure_qemu
	QEMU=$(find_qemu) ||
		die "qemu-system-x86_64 not found: install the Debian package 'qemu-system-x86' (run: sudo scripts/deps.sh vm)"
	qemu_fallback_note "$QEMU"
	need_tool ip iproute2
	need_tool rdma iproute2
	if ((OPT_NODES > 1)); then
		need_tool dropbear dropbear-bin
		need_tool dropbearkey dropbear-bin
		need_tool ssh openssh-client
		need_tool ssh-keygen openssh-client
	fi
	if ((OPT_PMEM)); then
		need_tool ndctl ndctl
		need_tool mkfs.ext4 e2fsprogs
	fi
	((OPT_NODES == 1)) || net_shim
	if ((OPT_CXL)); then
		((OPT_PMEM)) || die "--cxl needs --pmem (the CXL region is an nvdimm region)"
		need_tool cxl ndctl
	fi
}

# --nodes: the guests' frames go through each QEMU's UDP socket, whose default
# buffer a burst overflows (udp_rcvbuf.c): QEMU_ENV preloads the shim that enlarges
# it, built once into the cache; without a C compiler the run goes on, and says so
net_shim() {
	local src=$PARTS/udp_rcvbuf.c so tmp
	local cc=(cc -O2 -Wall -Wextra -Werror -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fPIC -shared
		-z relro -z now)
	so=$CACHE/udp_rcvbuf-$({ cat "$src"; echo "${cc[*]}"; } | sha1sum | cut -c1-12).so
	if [[ ! -f $so ]]; then
		tmp=$(mktemp "$CACHE/.udp_rcvbuf.XXXXXX")
		if ! "${cc[@]}" -o "$tmp" "$src" -ldl 2>"$tmp.log"; then
			warn "cannot build $src ($(head -n1 "$tmp.log")): the guests' network keeps the host's" \
				"UDP buffers, and a burst of RDMA writes may lose frames (docs/softroce-vm.md)"
			rm -f "$tmp" "$tmp.log"
			return 0
		fi
		rm -f "$tmp.log"
		mv "$tmp" "$so"
	fi
	QEMU_ENV=(env LD_PRELOAD="$so" SOFTROCE_VM_UDP_RCVBUF="$UDP_RCVBUF")
}

# The host's count of UDP datagrams dropped for a full receive buffer (/proc/net/snmp).
udp_drops() {
	awk '$1 == "Udp:" && $6 ~ /^[0-9]+$/ { print $6 }' /proc/net/snmp 2>/dev/null
}

# Kernel V's boot files, up to date; `setup` first if it is not in the cache.
run_kernel() { # V
	if load_kernel_env "$1"; then
		take_lock
		prepare_vmlinux "$1"
		ensure_initramfs "$1"
		release_lock
	else
		# First use (or the cache was removed, e.g. by `make clean`).
		note "kernel $1 is not in the cache ($CACHE): running \`scripts/$PROG setup --kernel $1\` first"
		setup_kernel "$1" 0
		load_kernel_env "$1"
	fi
	if [[ $OPT_TRANSPORT == *iwarp* ]]; then
		ensure_siw "$1"
		take_lock
		ensure_initramfs "$1" # (now with siw.ko)
		release_lock
	fi
}

run_accel() { # V
	take_lock
	choose_accel "$QEMU" "$1"
	release_lock
	# a KVM that could not run the guest is said even with -q: the figures are TCG's
	if [[ $ACCEL_WHY == 'kvm probe failed'* ]]; then
		echo "$PROG: $(accel_line)" >&2
	else
		note "$(accel_line)"
	fi
}

# Node I's address: node 0 has RXE_ADDR, the next ones the addresses after it.
node_addr() { # I
	echo "${RXE_ADDR%.*}.$((${RXE_ADDR##*.} + $1))"
}

# --transport rxe,iwarp: node I's siw address, on a subnet of its own (RXE_ADDR's
# third byte + 1); with iwarp alone siw has node_addr's.
iwarp_addr() { # I
	if [[ $OPT_TRANSPORT == iwarp ]]; then
		node_addr "$1"
		return
	fi
	local a b c d
	IFS=. read -r a b c d <<<"$(node_addr "$1")"
	echo "$a.$b.$((c + 1)).$d"
}

# Node I's folder in the run directory (its 9p tag softroce-run): node 0's is
# the run directory itself, so that it sees the others' folders too.
node_dir() { # I
	if (($1 == 0)); then echo "$RUN_DIR"; else echo "$RUN_DIR/node$1"; fi
}

# The run's ssh keys (--nodes): one host key for every node's dropbear, one
# client key that every node accepts, and the known_hosts that names them.
write_ssh_keys() {
	local d=$RUN_DIR/ssh i names='' pub
	mkdir -m 700 "$d"
	dropbearkey -t ed25519 -f "$d/host_key" >/dev/null 2>&1 || die "dropbearkey could not make the run's host key"
	ssh-keygen -q -t ed25519 -N '' -C "softroce-vm run" -f "$d/id_ed25519" || die "ssh-keygen could not make the run's key"
	pub=$(dropbearkey -y -f "$d/host_key" | grep '^ssh-ed25519 ' | cut -d' ' -f1-2)
	[[ -n $pub ]] || die "dropbearkey gave no public host key"
	for ((i = 0; i < OPT_NODES; i++)); do
		names+="${names:+,}node$i,$(node_addr "$i")"
	done
	echo "$names $pub" >"$d/known_hosts"
}

# Node I's config, env and argv files (see guest.sh).
write_run_files() { # I
	local e a dir i hosts=''
	dir=$(node_dir "$1")
	mkdir -p "$dir"
	for ((i = 0; i < OPT_NODES; i++)); do
		hosts+="${hosts:+ }node$i=$(node_addr "$i")"
	done
	{
		echo "SHARE=$(shquote "$OPT_SHARE")"
		echo "CWD=$(shquote "$OPT_CWD")"
		echo "PMEM=$OPT_PMEM"
		echo "CXL=$OPT_CXL"
		echo "CXL_DEVDAX_MIB=$((CXL_MIB / 2))"
		echo "PMEM_DEVDAX_MIB=$((OPT_PMEM_MIB / 2))"
		echo "RXE_ADDR=$(node_addr "$1")"
		echo "RXE_PREFIX=$RXE_PREFIX"
		echo "TRANSPORT=$OPT_TRANSPORT"
		echo "IWARP_ADDR=$(iwarp_addr "$1")"
		echo "QUIET=$QUIET"
		echo "ACCEL=$ACCEL_NAME"
		echo "NODE=$1"
		echo "NODES=$OPT_NODES"
		echo "NODE_HOSTS=$(shquote "$hosts")"
		((OPT_NODES == 1)) || echo "DRAM_CANARY=/dev/mem@$CANARY_ADDR"
	} >"$dir/config"
	for e in "${OPT_ENVS[@]}"; do # NAME=VALUE
		echo "export ${e%%=*}=$(shquote "${e#*=}")"
	done >"$dir/env"
	if (($1 == 0)); then
		{
			printf 'CMD=('
			for a in "${OPT_COMMAND[@]}"; do
				printf ' %s' "$(shquote "$a")"
			done
			echo ' )'
		} >"$dir/argv"
	else
		echo 'CMD=()' >"$dir/argv" # the others serve until node 0 is done
	fi
	if ((OPT_NODES > 1)); then
		[[ $1 == 0 ]] || cp -r "$RUN_DIR/ssh" "$dir/ssh"
	fi
	cp "$PARTS/guest.sh" "$dir/guest.sh"
	: >"$dir/stdout"
	: >"$dir/stderr"
	: >"$dir/guest.log"
	echo $$ >"$dir/owner.pid"
}

start_run_dir() {
	RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/softroce-vm.XXXXXX")
	KEEP_RUN_DIR=$OPT_KEEP
	trap cleanup_run EXIT
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP
	local i
	((OPT_NODES == 1)) || write_ssh_keys
	for ((i = 0; i < OPT_NODES; i++)); do
		write_run_files "$i"
	done
}

# One virtual L2 network for all the nodes: QEMU's socket netdev on a
# multicast group of the host's loopback (no switch process, no root, no
# host interface), a group and port of this run's own (and the next port for
# siw's network with --transport rxe,iwarp).
pick_network() {
	NET_GROUP=230.77.$((RANDOM % 256)).$((RANDOM % 255 + 1))
	NET_PORT=$((20000 + RANDOM % 30000))
}

# --cxl: the type-3 device's persistent capacity (and its label area's file), MiB
CXL_MIB=256

# --nodes: each guest's 1 MiB of RAM at 128 MiB is reserved (memmap=) and its kernel
# leaves it alone: a warm reset keeps its bytes, a power cut (QEMU killed) does not.
# The durability runner's DRAM canary: /dev/mem at that address (SOFTROCE_VM_DRAM_CANARY);
# with --pmem also 16 MiB at 144 MiB as legacy PMem, the form hardware is told to use
# (memmap=SIZE!ADDR: /dev/pmemN of an e820 region, SOFTROCE_VM_PMEM_CANARY).
CANARY_ADDR=0x8000000 PMEM_CANARY_ADDR=0x9000000

# Node I's QEMU arguments -> QARGS; with --pmem it creates the NVDIMM's backing file
# (--cxl: the CXL device's).
qemu_args() { # V I
	local machine=pc memspec=$OPT_MEM pmem_args=() net_args=() size dir name=$PROG
	local append="console=ttyS0 panic=-1 loglevel=7 $ACCEL_APPEND"
	dir=$(node_dir "$2")
	# QEMU puts a device given no bus on the last one made, with --cxl the CXL host
	# bridge, which takes only bridges: the NICs go on q35's root bus
	local nic_bus=
	((OPT_CXL)) && nic_bus=,bus=pcie.0
	if ((OPT_NODES > 1)); then
		name=$PROG-node$2
		net_args=(
			-netdev "socket,id=net0,mcast=$NET_GROUP:$NET_PORT,localaddr=127.0.0.1"
			-device "virtio-net-pci,netdev=net0$nic_bus,mac=52:54:00:77:00:$(printf '%02x' "$(($2 + 1))")"
		)
		# --transport rxe,iwarp: siw's NIC, eth1, on a network of its own (an upper
		# device of eth0 would put siw's address into rxe's GID table as well)
		[[ $OPT_TRANSPORT != rxe,iwarp ]] || net_args+=(
			-netdev "socket,id=net1,mcast=$NET_GROUP:$((NET_PORT + 1)),localaddr=127.0.0.1"
			-device "virtio-net-pci,netdev=net1$nic_bus,mac=52:54:00:78:00:$(printf '%02x' "$(($2 + 1))")"
		)
		# (a QMP socket for a warm reset: power.sh reset; none where a long TMPDIR
		# would make its path longer than a Unix socket's can be)
		((${#dir} > 90)) || net_args+=(-qmp "unix:$(qesc "$dir/qmp.sock"),server=on,wait=off")
		append+=" memmap=1M\$$CANARY_ADDR"
		((!OPT_PMEM)) || append+=" memmap=16M!$PMEM_CANARY_ADDR"
	fi
	if ((OPT_PMEM)); then
		size=$((OPT_PMEM_MIB * 1024 * 1024 + 128 * 1024)) # + the label area
		machine=pc,nvdimm=on
		memspec="$OPT_MEM,slots=2,maxmem=$((OPT_MEM + OPT_PMEM_MIB + 1024))M"
		truncate -s "$size" "$dir/pmem.img"
		pmem_args=(
			-object "memory-backend-file,id=pmem0,share=on,mem-path=$(qesc "$dir/pmem.img"),size=$size"
			-device 'nvdimm,id=nvdimm0,memdev=pmem0,label-size=128K'
		)
	fi
	local cxl_args=()
	if ((OPT_CXL)); then
		# a q35 machine with CXL: a host bridge, a root port and a persistent type-3
		# device (its memory and label area in files kept across a power cut, as
		# the NVDIMM's), and a fixed memory window of 4 GiB for its region
		machine=q35,nvdimm=on,cxl=on
		truncate -s "$CXL_MIB"M "$dir/cxl.img" "$dir/cxl-lsa.img"
		cxl_args=(
			-object "memory-backend-file,id=cxl-mem0,share=on,mem-path=$(qesc "$dir/cxl.img"),size=${CXL_MIB}M"
			-object "memory-backend-file,id=cxl-lsa0,share=on,mem-path=$(qesc "$dir/cxl-lsa.img"),size=${CXL_MIB}M"
			-device 'pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1'
			-device 'cxl-rp,port=0,bus=cxl.1,id=cxl-rp0,chassis=0,slot=2'
			-device 'cxl-type3,bus=cxl-rp0,persistent-memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0'
			-M 'cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G'
		)
	fi
	QARGS=(
		-name "$name" -nodefaults -no-user-config -display none -monitor none -no-reboot
		-machine "$machine" "${ACCEL_ARGS[@]}" -smp "$OPT_CPUS" -m "$memspec"
		-kernel "$(kernel_image "$1")" -initrd "$(kernel_dir "$1")/initramfs.img"
		-append "$append ${SOFTROCE_VM_APPEND:-}"
		-chardev "file,id=console,path=$(qesc "$dir/guest.log"),append=on" -serial chardev:console
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$(qesc "$dir"),mount_tag=softroce-run,security_model=none,multidevs=remap"
		-virtfs "local,path=$(qesc "$OPT_SHARE"),mount_tag=share,security_model=none,multidevs=remap"
		"${pmem_args[@]}" "${cxl_args[@]}" "${net_args[@]}"
	)
}

# A power cut of a peer, asked for from a guest: node I's run directory (node0
# sees it as /run/softroce-vm/nodeI) gets a file `power-cycle`. The host then
# kills that node's QEMU at once (no shutdown, nothing flushed by the guest) and
# boots it again on the same NVDIMM backing file, whose bytes are what the guest
# had stored; `power-cycled` counts the cuts, `ready` goes until it is up again.
POWER_POLL=0.2

# A warm reset of node I, asked for from a guest as a power cut is (a file `warm-reset`):
# its QEMU resets the machine over QMP, the guest boots again with its RAM as it was;
# `warm-resets` counts them, `ready` goes until the guest is up again.
warm_reset() { # I
	local dir n
	dir=$(node_dir "$1")
	rm -f "$dir/ready"
	if "$TOOL" warm-reset "$dir/qmp.sock" >>"$dir/qemu.log" 2>&1; then
		: >"$dir/reboot-allowed" # (until it is up: its firmware resets once more)
		n=$(($(cat "$dir/warm-resets" 2>/dev/null || echo 0) + 1))
		echo "$n" >"$dir/warm-resets"
		echo "softroce-vm: node$1: warm reset $n (QMP system_reset, RAM kept)" >>"$dir/guest.log"
	else
		: >"$dir/ready" # (still up: the reset failed, qemu.log says why)
	fi
	rm -f "$dir/warm-reset"
}

# Node I's QEMU, booted again after each power cut (reset after a warm reset), until
# it stops by itself or the host stops it (TERM). Runs in the background.
peer_life() { # V I TIMEOUT_CMD...
	local v=$1 i=$2 dir qpid cuts=0
	shift 2
	dir=$(node_dir "$i")
	trap '[[ -n ${qpid:-} ]] && kill -TERM "$qpid" 2>/dev/null; wait "${qpid:-}" 2>/dev/null; exit 0' TERM
	while :; do
		qemu_args "$v" "$i"
		"$@" "${QEMU_ENV[@]}" "$QEMU" "${QARGS[@]}" </dev/null >>"$dir/qemu.log" 2>&1 &
		qpid=$!
		echo "$qpid" >"$dir/qemu.pid"
		while kill -0 "$qpid" 2>/dev/null && [[ ! -e $dir/power-cycle ]]; do
			[[ ! -e $dir/warm-reset ]] || warm_reset "$i"
			if [[ -e $dir/reboot-allowed && -e $dir/ready ]]; then
				"$TOOL" no-reboot "$dir/qmp.sock" >>"$dir/qemu.log" 2>&1
				rm -f "$dir/reboot-allowed"
			fi
			sleep "$POWER_POLL" &
			wait $!
		done
		[[ -e $dir/power-cycle ]] || { wait "$qpid" || true; return 0; }
		# QEMU itself (under `timeout` it is that one's child); its status is no failure
		pkill -KILL -P "$qpid" 2>/dev/null || true
		kill -KILL "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
		cuts=$((cuts + 1))
		rm -f "$dir/ready" "$dir/power-cycle" "$dir/reboot-allowed"
		echo "$cuts" >"$dir/power-cycled"
		echo "softroce-vm: node$i: power cut $cuts (QEMU killed), booting it again" >>"$dir/guest.log"
	done
}

# --nodes: boot nodes 1..N-1 (in the background: they serve until node 0 is done).
boot_peers() { # V
	local i timeout_cmd=()
	((OPT_TIMEOUT > 0)) && timeout_cmd=(timeout -k 10 "$((OPT_TIMEOUT + 30))")
	for ((i = 1; i < OPT_NODES; i++)); do
		peer_life "$1" "$i" "${timeout_cmd[@]}" &
		PEER_PIDS+=($!)
	done
}

stop_peers() {
	local p i
	for p in "${PEER_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	# and each peer's QEMU itself (the child of its `timeout`, in a process group of its
	# own): after Ctrl-C the loop above alone left a peer's QEMU running until its timeout
	for ((i = 1; i < OPT_NODES; i++)); do
		p=$(cat "$(node_dir "$i")/qemu.pid" 2>/dev/null) || continue
		pkill -TERM -P "$p" 2>/dev/null || true
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in "${PEER_PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	PEER_PIDS=()
}

# Run node 0's QEMU (under --timeout) while COMMAND's output streams to ours;
# wait for it -> QRC (its status), T0 and T1 (start and end, on the host's clock).
boot_guest() { # V
	local timeout_cmd=() nodes=''
	((OPT_TIMEOUT > 0)) && timeout_cmd=(timeout -k 10 "$OPT_TIMEOUT")
	((OPT_NODES == 1)) || nodes="$OPT_NODES nodes on one network, each "
	note "booting kernel $KVER ($nodes$ACCEL_NAME, $OPT_CPUS CPUs, $OPT_MEM MiB$( ((OPT_PMEM)) && echo ", pmem ${OPT_PMEM_MIB} MiB")$( ((OPT_CXL)) && echo ", CXL ${CXL_MIB} MiB"))"
	T0=$(now)
	UDP_DROPS0=$(udp_drops)
	((OPT_NODES == 1)) || boot_peers "$1"
	qemu_args "$1" 0
	"${timeout_cmd[@]}" "${QEMU_ENV[@]}" "$QEMU" "${QARGS[@]}" </dev/null >"$RUN_DIR/qemu.log" 2>&1 &
	QEMU_PID=$!
	tail -n +1 -s 0.2 --pid="$QEMU_PID" -f "$RUN_DIR/stdout" &
	TAIL_PIDS+=($!)
	tail -n +1 -s 0.2 --pid="$QEMU_PID" -f "$RUN_DIR/stderr" >&2 &
	TAIL_PIDS+=($!)
	while :; do
		QRC=0
		wait "$QEMU_PID" || QRC=$?
		kill -0 "$QEMU_PID" 2>/dev/null || break # else: a trapped signal woke us up
	done
	T1=$(now)
	stop_peers
	wait "${TAIL_PIDS[@]}" 2>/dev/null || true
	TAIL_PIDS=()
	QEMU_PID=
}

# The guest stopped before COMMAND's status was written: say what is known.
say_guest_stopped() { # SHOWN_LOG
	echo "$PROG: error: the guest stopped before COMMAND finished (QEMU exit status $QRC); guest log: $1" >&2
	if [[ $ACCEL_NAME == kvm && ! -f $RUN_DIR/started ]]; then
		echo "$PROG: error: KVM ($ACCEL_WHY) could not run the guest: $(grep -v '^[[:space:]]*$' "$RUN_DIR/qemu.log" | tail -n1 || true)" >&2
		echo "$PROG: hint: SOFTROCE_VM_ACCEL=tcg (or unset, to let the probe decide) runs it without KVM" >&2
	fi
}

# The run's exit status -> RC: COMMAND's, or the harness' own (said why).
run_status() { # SHOWN_LOG
	local when
	if [[ -n $INTERRUPTED ]]; then
		echo "$PROG: interrupted (SIG$INTERRUPTED): stopped the guest; guest log: $1" >&2
		[[ $INTERRUPTED == INT ]] && RC=130 || RC=143
	elif ((OPT_TIMEOUT > 0)) && ((QRC == 124 || QRC == 137)); then
		when='before COMMAND started'
		[[ -f $RUN_DIR/started ]] && when='while COMMAND was still running'
		echo "$PROG: error: timed out after $OPT_TIMEOUT s (--timeout, boot included): killed the guest $when; guest log: $1" >&2
		RC=124
	elif [[ -s $RUN_DIR/status ]]; then
		RC=$(<"$RUN_DIR/status")
	else
		say_guest_stopped "$1"
		RC=125
	fi
}

# The run's times, on the host's clock: the guest creates `started` right
# before COMMAND and `status` right after it, over 9p.
run_times() {
	local total started=$RUN_DIR/started
	total=$(elapsed "$T0" "$T1")
	if [[ -f $started && -f $RUN_DIR/status ]]; then
		echo "boot $(elapsed "$T0" "$(mtime "$started")") s, command $(elapsed \
			"$(mtime "$started")" "$(mtime "$RUN_DIR/status")") s, total $total s"
	elif [[ -f $started ]]; then
		echo "boot $(elapsed "$T0" "$(mtime "$started")") s, total $total s (COMMAND did not finish)"
	else
		echo "total $total s (COMMAND never started)"
	fi
}

# A node's QEMU messages at the end of its guest log.
append_qemu_log() { # DIR
	[[ -s $1/qemu.log ]] || return 0
	{
		echo "---- QEMU messages ----"
		cat "$1/qemu.log"
	} >>"$1/guest.log"
}

# --nodes, on a failure: the tail of the other nodes' logs too.
show_peer_logs() {
	local i dir
	for ((i = 1; i < OPT_NODES; i++)); do
		dir=$(node_dir "$i")
		echo "---- last $((LOG_TAIL_LINES / 2)) lines of node$i's guest log ($dir/guest.log) ----"
		tail -n "$((LOG_TAIL_LINES / 2))" "$dir/guest.log"
		[[ ! -s $dir/stderr ]] || {
			echo "---- node$i's own stderr ----"
			tail -n 20 "$dir/stderr"
		}
	done
}

# --nodes: frames the host dropped during the run (its count is the whole host's):
# each one an RDMA packet sent again after the ACK timeout, a stall in the figures
say_udp_drops() {
	local now drops
	now=$(udp_drops)
	[[ -n $now && -n $UDP_DROPS0 ]] || return 0
	drops=$((now - UDP_DROPS0))
	echo "$drops" >"$RUN_DIR/udp-drops"
	((drops == 0)) ||
		warn "the host dropped $drops UDP datagrams for a full receive buffer during this run: the guests'" \
			"network lost frames, each an RDMA packet sent again after its ACK timeout (a stall of 0.5 s and more)"
}

# After the guest: the status, the times, the log's tail on a failure.
finish_run() {
	local log=$RUN_DIR/guest.log shown i
	for ((i = 0; i < OPT_NODES; i++)); do
		append_qemu_log "$(node_dir "$i")"
	done
	shown=$log
	[[ -n $OPT_LOG ]] && cp "$log" "$OPT_LOG" && shown=$OPT_LOG
	run_status "$shown"
	note "exit status $RC; $(run_times)"
	((OPT_NODES == 1)) || say_udp_drops
	if ((RC != 0)); then
		{
			echo "---- last $LOG_TAIL_LINES lines of the guest log ($shown) ----"
			tail -n "$LOG_TAIL_LINES" "$log"
			echo "---- end of the guest log ----"
			((OPT_NODES == 1)) || show_peer_logs
		} >&2
		[[ $shown == "$log" ]] && KEEP_RUN_DIR=1
	fi
	if ((KEEP_RUN_DIR)); then
		note "run directory kept: $RUN_DIR (guest.log, stdout, stderr)"
	fi
}

cmd_run() { # the OPT_* of tool.py parse
	take_run_lock "run -- ${OPT_COMMAND[*]}"
	check_run_tools
	run_kernel "$OPT_KERNEL"
	run_accel "$OPT_KERNEL"
	pick_network
	start_run_dir
	boot_guest "$OPT_KERNEL"
	finish_run
	return "$RC"
}
