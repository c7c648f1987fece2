# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# softroce-vm.d/qemu.sh -- which QEMU runs the guest.  Under TCG, QEMU's version
# is much of the guest's speed: Debian 12's QEMU 7.2 ran the same suites about a
# quarter slower than 10.0 from bookworm-backports (docs/softroce-vm.md, Timing).
# So, like the kernels, QEMU 10 is fetched into the cache (apt-get download +
# dpkg -x, never installed on the host) and run from there through a small
# launcher that points it at its own firmware and modules.  Without it (no
# bookworm-backports in the apt sources) the system's qemu-system-x86_64 runs
# the guest, and every run says so.  Sourced by scripts/softroce-vm.

QEMU_RELEASE=bookworm-backports
QEMU_PKGS=(qemu-system-x86 qemu-system-common qemu-system-data seabios)
QEMU_MIN_VERSION=1:10.0

qemu_cache_dir() {
	echo "$CACHE/qemu"
}

# The cached QEMU's launcher, when the cache holds a complete one.
cached_qemu() {
	local d
	d=$(qemu_cache_dir)
	[[ -x $d/qemu-system-x86_64 && -x $d/root/usr/bin/qemu-system-x86_64 ]] || return 1
	echo "$d/qemu-system-x86_64"
}

# The launcher: the extracted binary with its own firmware (-L) and modules.
write_qemu_launcher() { # DIR VERSION
	local root=$1/root
	cat >"$1/qemu-system-x86_64" <<LAUNCHER
#!/bin/sh
# written by scripts/softroce-vm: QEMU $2 from $QEMU_RELEASE, extracted into $root
QEMU_MODULE_DIR=$(shquote "$root/usr/lib/x86_64-linux-gnu/qemu")
export QEMU_MODULE_DIR
exec $(shquote "$root/usr/bin/qemu-system-x86_64") -L $(shquote "$root/usr/share/qemu") \\
	-L $(shquote "$root/usr/share/seabios") "\$@"
LAUNCHER
	chmod +x "$1/qemu-system-x86_64"
}

# Fetch QEMU_PKGS from QEMU_RELEASE into the cache; on failure say why on stdout.
# The caller holds the lock.
fetch_qemu() {
	local d tmp deb ver apt_opts=(-q -t "$QEMU_RELEASE")
	d=$(qemu_cache_dir)
	[[ $(id -u) == 0 ]] && apt_opts+=(-o APT::Sandbox::User=root)
	tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
	if ! (cd "$tmp" && apt-get download "${apt_opts[@]}" "${QEMU_PKGS[@]}" >apt.log 2>&1); then
		echo "apt-get download -t $QEMU_RELEASE ${QEMU_PKGS[*]} failed: $(grep -m1 '^E:' "$tmp/apt.log" ||
			tail -n1 "$tmp/apt.log")"
		rm -rf "$tmp"
		return 1
	fi
	deb=$(compgen -G "$tmp/qemu-system-x86_*.deb" | head -n1)
	ver=$(dpkg-deb -f "$deb" Version 2>/dev/null)
	if ! dpkg --compare-versions "${ver:-0}" ge "$QEMU_MIN_VERSION"; then
		echo "$QEMU_RELEASE offers qemu-system-x86 ${ver:-?}, older than $QEMU_MIN_VERSION"
		rm -rf "$tmp"
		return 1
	fi
	for deb in "$tmp"/*.deb; do
		dpkg -x "$deb" "$tmp/root" || { echo "dpkg -x $(basename "$deb") failed"; rm -rf "$tmp"; return 1; }
	done
	rm -rf "$d" && mkdir -p "$d" && mv "$tmp/root" "$d/root" && rm -rf "$tmp"
	write_qemu_launcher "$d" "$ver"
	echo "$ver" >"$d/version"
	note "qemu: $ver from $QEMU_RELEASE extracted into $d"
}

# The cache's QEMU, fetched once; a failure is remembered (qemu.none, its reason)
# until the next `setup`, so that runs do not ask apt again and again.
ensure_qemu() {
	[[ -z ${SOFTROCE_VM_QEMU:-} ]] || return 0
	cached_qemu >/dev/null && return 0
	[[ -s $CACHE/qemu.none ]] && return 0
	take_lock
	if ! cached_qemu >/dev/null && [[ ! -s $CACHE/qemu.none ]]; then
		note "qemu: fetching QEMU $QEMU_MIN_VERSION+ from $QEMU_RELEASE into the cache (once)"
		local why
		why=$(fetch_qemu) || echo "$why" >"$CACHE/qemu.none"
	fi
	release_lock
}

# Said on every run that uses the system's QEMU although the cache could hold a faster one.
qemu_fallback_note() { # QEMU
	[[ -z ${SOFTROCE_VM_QEMU:-} && -s $CACHE/qemu.none ]] || return 0
	warn "using $1 ($("$1" --version 2>/dev/null | head -n1)): $(<"$CACHE/qemu.none"); slower under TCG (run \`scripts/$PROG setup\` to try again)"
}
