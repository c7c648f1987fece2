# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# softroce-vm.d/common.sh -- what every part of scripts/softroce-vm uses:
# messages, host tools, the cache's kernels and its lock.  Sourced by
# scripts/softroce-vm, which sets PROG, and CACHE (from tool.py parse).

QUIET=0

note() {
	((QUIET)) || echo "$PROG: $*" >&2
}

warn() {
	echo "$PROG: warning: $*" >&2
}

die() {
	echo "$PROG: error: $*" >&2
	exit 2
}

now() {
	date +%s.%N
}

# Seconds between two `now` timestamps, one decimal.
elapsed() { # START END
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'
}

mtime() { # FILE -> seconds.nanoseconds
	stat -c '%.9Y' "$1"
}

# QEMU option values: a comma must be doubled.
qesc() {
	printf '%s' "${1//,/,,}"
}

# Single-quote a string for sh/bash.
shquote() {
	local q="'\\''"
	printf "'%s'" "${1//\'/$q}"
}

find_tool() { # NAME -- also looks in the sbin dirs a non-root PATH may lack
	local d
	command -v "$1" 2>/dev/null && return 0
	for d in /usr/local/sbin /usr/sbin /sbin; do
		[[ -x $d/$1 ]] && {
			echo "$d/$1"
			return 0
		}
	done
	return 1
}

need_tool() { # NAME PACKAGE
	find_tool "$1" >/dev/null ||
		die "'$1' not found: install the Debian package '$2' (run: sudo scripts/deps.sh vm)"
}

# QEMU, or the stand-in named by SOFTROCE_VM_QEMU (the harness' own tests).
# SOFTROCE_VM_QEMU, else the cache's QEMU (qemu.sh), else the system's.
find_qemu() {
	if [[ -n ${SOFTROCE_VM_QEMU:-} ]]; then
		[[ -x $SOFTROCE_VM_QEMU ]] || die "SOFTROCE_VM_QEMU: '$SOFTROCE_VM_QEMU' is not an executable"
		echo "$SOFTROCE_VM_QEMU"
		return 0
	fi
	cached_qemu || find_tool qemu-system-x86_64
}

# Changes to the cache (setup, an initramfs rebuild, a KVM verdict) hold it;
# running guests only read the cache.
take_lock() {
	mkdir -p "$CACHE"
	[[ -f $CACHE/.gitignore ]] || echo '*' >"$CACHE/.gitignore"
	exec {LOCK_FD}>"$CACHE/.lock"
	flock "$LOCK_FD"
}

# One run at a time: a guest under TCG takes every core of the host, and two of them
# side by side both miss their timeouts. Every `run` holds this lock from before its
# first QEMU (the KVM probe included) to its end, so no caller needs its own; a run
# that finds it held says whose it is and waits. The file names its holder.
take_run_lock() { # DESCRIPTION
	local lock=$CACHE/run.lock
	mkdir -p "$CACHE" || die "cannot create the cache $CACHE"
	exec {RUN_LOCK_FD}>>"$lock" || die "cannot open the run lock $lock"
	if ! flock -n "$RUN_LOCK_FD"; then
		echo "$PROG: waiting for another VM run to end (one at a time on this machine;" \
			"$(head -c 200 "$lock" 2>/dev/null || echo '?'), lock $lock)" >&2
		flock "$RUN_LOCK_FD"
	fi
	printf 'pid %s since %s: %s' "$$" "$(date +%T)" "$1" >"$lock"
}

release_lock() {
	[[ -n ${LOCK_FD:-} ]] || return 0
	exec {LOCK_FD}>&-
	LOCK_FD=
}

# apt-get download PACKAGE[=VERSION]... into DIR (never installed); apt's own
# output is shown only when it fails.
apt_download() { # DIR PACKAGE...
	local dir=$1 apt_opts=(-q)
	shift
	# As root, apt's sandbox user could not write into our directory.
	[[ $(id -u) == 0 ]] && apt_opts+=(-o APT::Sandbox::User=root)
	(cd "$dir" && apt-get download "${apt_opts[@]}" "$@" >/dev/null 2>"$dir/apt.err") || {
		cat "$dir/apt.err" >&2
		die "apt-get download $* failed (try: sudo apt-get update)"
	}
	rm -f "$dir/apt.err"
}

kernel_dir() { # VERSION
	echo "$CACHE/$1"
}

# Load the cache's kernel.env of VERSION: PKG PKGVER KVER.
load_kernel_env() { # VERSION
	local f
	f=$(kernel_dir "$1")/kernel.env
	[[ -f $f ]] || return 1
	# shellcheck disable=SC2034 # PKG, PKGVER: read by the callers
	PKG='' PKGVER='' KVER=''
	# shellcheck disable=SC1090
	source "$f"
	[[ -n $KVER && -f $(kernel_dir "$1")/root/boot/vmlinuz-$KVER ]]
}

# The image QEMU boots: the uncompressed vmlinux if there is one.
kernel_image() { # V -- needs load_kernel_env
	local dir
	dir=$(kernel_dir "$1")
	if [[ -f $dir/vmlinux ]]; then
		echo "$dir/vmlinux"
	else
		echo "$dir/root/boot/vmlinuz-$KVER"
	fi
}
