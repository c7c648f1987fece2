# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# softroce-vm.d/accel.sh -- KVM or TCG.  KVM is the difference between
# near-native figures and TCG's, so it is used whenever it works -- but a
# /dev/kvm that exists cannot always run the guest (nested KVM on cloud
# machines and laptops: QEMU aborts setting an MSR, or the guest hangs
# early).  So `auto` boots the guest once under KVM with a short timeout (the
# probe) and remembers the verdict in $CACHE/accel, keyed by everything that
# decides it.  Sourced by scripts/softroce-vm.

KVM_DEV=${SOFTROCE_VM_KVM_DEV:-/dev/kvm}
PROBE_TIMEOUT=${SOFTROCE_VM_PROBE_TIMEOUT:-10}
PROBE_MARK='softroce-vm[init]: probe: init reached'

kvm_usable() {
	[[ -e $KVM_DEV && -r $KVM_DEV && -w $KVM_DEV ]]
}

# What decides whether KVM can run the guest: QEMU (binary and version), the
# guest kernel, the host's kernel and CPU model, and /dev/kvm's identity.
accel_key() { # QEMU V -- needs load_kernel_env V
	{
		echo "qemu $1 $(stat -L -c '%s %Y' "$1") $("$1" --version 2>/dev/null | head -n1)"
		echo "guest $KVER $(stat -L -c '%s %Y' "$(kernel_image "$2")")"
		echo "host $(uname -r) $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)"
		echo "kvm $KVM_DEV $(stat -L -c '%t:%T %i %Z' "$KVM_DEV" 2>/dev/null)"
	} | sha256sum | cut -c1-24
}

verdict_file() { # QEMU V
	echo "$CACHE/accel/$(accel_key "$1" "$2")"
}

# Why the probe in DIR failed (empty: it passed), from QEMU's status RC.
probe_reason() { # DIR RC
	local last
	last=$(grep -v '^[[:space:]]*$' "$1/qemu.log" | tail -n 2 | paste -sd ' ' || true)
	if grep -qF "$PROBE_MARK" "$1/console" 2>/dev/null; then
		:
	elif (($2 == 124 || $2 == 137)); then
		echo "the guest did not reach its init within ${PROBE_TIMEOUT} s (hangs)"
	elif (($2 > 128)); then
		echo "QEMU died of signal $(($2 - 128)): ${last:-no message}"
	else
		echo "QEMU exited with status $2 before the guest reached its init: ${last:-no message}"
	fi
}

# Boot the guest under KVM up to its init script; PROBE_REASON says why not.
probe_kvm() { # QEMU V
	local qemu=$1 v=$2 dir rc=0
	dir=$(mktemp -d "${TMPDIR:-/tmp}/softroce-vm-probe.XXXXXX")
	timeout -k 2 "$PROBE_TIMEOUT" "$qemu" -name "$PROG-probe" -nodefaults -no-user-config \
		-display none -monitor none -no-reboot -machine pc -accel kvm -cpu host -smp 2 -m 512 \
		-kernel "$(kernel_image "$v")" -initrd "$(kernel_dir "$v")/initramfs.img" \
		-append 'console=ttyS0 panic=-1 softroce_vm.probe' \
		-chardev "file,id=console,path=$(qesc "$dir/console")" -serial chardev:console \
		</dev/null >"$dir/qemu.log" 2>&1 || rc=$?
	PROBE_REASON=$(probe_reason "$dir" "$rc")
	rm -rf "$dir"
	[[ -z $PROBE_REASON ]]
}

# The remembered verdict: "kvm" or "tcg (kvm probe failed: REASON)"; probes
# when there is none yet.  The caller holds the lock.
kvm_verdict() { # QEMU V
	local f
	f=$(verdict_file "$1" "$2")
	if [[ ! -s $f ]]; then
		note "probing KVM (a ${PROBE_TIMEOUT} s boot of the guest; the verdict is remembered in $CACHE/accel)"
		mkdir -p "$CACHE/accel"
		if probe_kvm "$1" "$2"; then
			echo kvm >"$f.tmp"
		else
			echo "tcg (kvm probe failed: $PROBE_REASON)" >"$f.tmp"
		fi
		mv "$f.tmp" "$f"
	fi
	head -n1 "$f"
}

# SOFTROCE_VM_ACCEL unset: KVM if the probe passed -> ACCEL_NAME, ACCEL_WHY.
accel_auto() { # QEMU V
	local verdict
	if ! kvm_usable; then
		ACCEL_NAME=tcg ACCEL_WHY="no usable $KVM_DEV"
		return 0
	fi
	verdict=$(kvm_verdict "$1" "$2")
	ACCEL_NAME=${verdict%% *} ACCEL_WHY='kvm probe passed'
	if [[ $ACCEL_NAME == tcg ]]; then
		ACCEL_WHY=${verdict#tcg (}
		ACCEL_WHY=${ACCEL_WHY%)}
		ACCEL_WHY=${ACCEL_WHY%"${ACCEL_WHY##*[![:space:]]}"} # (older verdicts end in a blank)
	fi
}

# Sets ACCEL_NAME, ACCEL_WHY, ACCEL_ARGS and ACCEL_APPEND.
choose_accel() { # QEMU V
	ACCEL_WHY=''
	case ${SOFTROCE_VM_ACCEL:-auto} in
	auto) accel_auto "$1" "$2" ;;
	kvm)
		kvm_usable || die "SOFTROCE_VM_ACCEL=kvm, but $KVM_DEV is missing or not usable"
		ACCEL_NAME=kvm ACCEL_WHY='forced by SOFTROCE_VM_ACCEL=kvm'
		;;
	tcg) ACCEL_NAME=tcg ACCEL_WHY='forced by SOFTROCE_VM_ACCEL=tcg' ;;
	*) die "SOFTROCE_VM_ACCEL must be kvm or tcg, not '$SOFTROCE_VM_ACCEL'" ;;
	esac
	# shellcheck disable=SC2034 # ACCEL_ARGS, ACCEL_APPEND: read by run.sh
	if [[ $ACCEL_NAME == kvm ]]; then
		ACCEL_ARGS=(-accel kvm -cpu host)
		ACCEL_APPEND=''
	else
		# The plain x86-64 CPU model: measured no slower than -cpu max
		# under TCG (docs/softroce-vm.md, Timing), and like every model
		# TCG offers it lacks what -march=native binaries of a modern
		# host use (SIGILL in the guest). SOFTROCE_VM_CPU names another.
		ACCEL_ARGS=(-accel 'tcg,thread=multi' -cpu "${SOFTROCE_VM_CPU:-qemu64}")
		# Under TCG the vCPUs' TSCs drift apart; when the clocksource
		# watchdog then marks the TSC unstable, the kernel live-patches its
		# sched_clock code, which races with the other vCPU's translated
		# code (seen: an "Oops: int3" panic in sched_clock_cpu with 6.12).
		# The emulated TSC is derived from the host's clock, so telling the
		# kernel to trust it is safe and keeps timekeeping fast.
		ACCEL_APPEND='tsc=reliable'
	fi
}

# One line for the user: which accelerator, and why not KVM.
accel_line() {
	echo "accelerator: $ACCEL_NAME${ACCEL_WHY:+ ($ACCEL_WHY)}"
}

# The accelerator `run` would use with the default kernel, without probing.
accel_status() { # QEMU (empty when missing)
	if [[ -z ${SOFTROCE_VM_ACCEL:-} && -n $1 ]] && kvm_usable && ! accel_decided "$1"; then
		echo "accelerator: not decided yet ($KVM_DEV exists: the next run probes it)"
		return 0
	fi
	choose_accel "$1" "$DEFAULT_KERNEL"
	if [[ $ACCEL_NAME == kvm ]]; then
		echo "$(accel_line), -cpu host"
	else
		echo "$(accel_line), -cpu ${SOFTROCE_VM_CPU:-qemu64}: slower; baseline x86-64 in the guest"
	fi
}

# Is there a verdict for QEMU and the default kernel?  (None without the kernel.)
accel_decided() { # QEMU
	load_kernel_env "$DEFAULT_KERNEL" && [[ -s $(verdict_file "$1" "$DEFAULT_KERNEL") ]]
}
