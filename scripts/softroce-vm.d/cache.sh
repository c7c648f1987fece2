# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# softroce-vm.d/cache.sh -- `status` (the cache, the kernels, QEMU, the
# accelerator, missing host packages, leftover run directories) and `clean`.
# Sourced by scripts/softroce-vm; the OPT_* values come from tool.py parse.

# The host tools the harness and the guest use, as NAME:PACKAGE.
HOST_TOOLS=(qemu-system-x86_64:qemu-system-x86 busybox:busybox-static depmod:kmod cpio:cpio xz:xz-utils
	ip:iproute2 rdma:iproute2 ibv_devinfo:ibverbs-utils ib_write_lat:perftest rping:rdmacm-utils
	ndctl:ndctl daxctl:daxctl mkfs.ext4:e2fsprogs dropbear:dropbear-bin ssh:openssh-client)

# Leftover run directories, and whether their owner still runs.
list_run_dirs() {
	local d pid
	for d in "${TMPDIR:-/tmp}"/softroce-vm.*; do
		[[ -d $d ]] || continue
		pid=$(cat "$d/owner.pid" 2>/dev/null || true)
		if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
			echo "active $d"
		else
			echo "stale $d"
		fi
	done
}

kernel_status() { # V
	local ird='initramfs missing or out of date (rebuilt by the next run)'
	if load_kernel_env "$1"; then
		initramfs_current "$1" && ird='initramfs up to date'
		echo "kernel $1: $KVER ($PKG $PKGVER), $ird, $(du -sh "$(kernel_dir "$1")" | cut -f1)"
	elif [[ $1 == "$DEFAULT_KERNEL" ]]; then
		echo "kernel $1: not set up (scripts/$PROG setup)"
	else
		echo "kernel $1: not set up (scripts/$PROG setup --kernel $1)"
	fi
}

packages_status() {
	local t missing=()
	for t in "${HOST_TOOLS[@]}"; do
		find_tool "${t%%:*}" >/dev/null || missing+=("${t#*:}")
	done
	compgen -G '/usr/lib/*/libibverbs/librxe-rdmav*.so' >/dev/null || missing+=(ibverbs-providers)
	if ((${#missing[@]})); then
		echo "missing packages: $(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')(sudo scripts/deps.sh vm)"
	else
		echo "host packages: all present"
	fi
}

cmd_status() {
	local v qemu runs
	echo "cache: $CACHE"
	for v in "${KERNELS[@]}"; do
		kernel_status "$v"
	done
	if qemu=$(find_qemu); then
		echo "qemu: $qemu ($("$qemu" --version | head -n1))"
	else
		echo "qemu: missing (qemu-system-x86)"
	fi
	accel_status "${qemu:-}"
	packages_status
	runs=$(list_run_dirs)
	if [[ -n $runs ]]; then
		echo "run directories:"
		printf '  %s\n' "${runs//$'\n'/$'\n  '}"
	fi
}

clean_runs() {
	local state d
	while read -r state d; do
		[[ -n $d ]] || continue
		if [[ $state == active ]]; then
			note "keeping $d (its run is still going)"
		else
			rm -rf "$d"
			note "removed $d"
		fi
	done < <(list_run_dirs)
}

clean_all() {
	local k
	clean_runs
	[[ -d $CACHE ]] || return 0
	take_lock
	for k in "${KERNELS[@]}"; do
		rm -rf "$(kernel_dir "$k")"
	done
	rm -rf "$CACHE"/.fetch.* "$CACHE/accel" "$CACHE/.gitignore" "$(qemu_cache_dir)" "$CACHE/qemu.none"
	release_lock
	rm -f "$CACHE/.lock"
	rmdir "$CACHE" 2>/dev/null || true
	note "removed $CACHE"
}

cmd_clean() { # the OPT_* of tool.py parse
	case $OPT_WHAT in
	kernel)
		take_lock
		rm -rf "$(kernel_dir "$OPT_KERNEL")"
		release_lock
		note "removed kernel $OPT_KERNEL from $CACHE"
		;;
	runs) clean_runs ;;
	all) clean_all ;;
	esac
}
