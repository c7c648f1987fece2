# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# softroce-vm.d/kernel.sh -- `setup`: fetch Debian's kernel package into the
# cache (apt-get download + dpkg -x, never installed on the host), extract
# its uncompressed vmlinux (tool.py vmlinux) and build the initramfs
# (initramfs.sh).  Sourced by scripts/softroce-vm.

# The newest linux-image-amd64 version whose dependency is a linux-image-V.*
# package -> that package's name (the signed one).
resolve_kernel_dep() { # V
	local best_ver='' best_dep='' ver dep
	while read -r ver dep; do
		if [[ -z $best_ver ]] || dpkg --compare-versions "$ver" gt "$best_ver"; then
			best_ver=$ver
			best_dep=$dep
		fi
	done < <(apt-cache show linux-image-amd64 2>/dev/null | awk -v pfx="linux-image-$1." '
		/^Version:/ { v = $2 }
		/^Depends:/ {
			for (i = 2; i <= NF; i++) {
				d = $i; sub(/,$/, "", d)
				if (index(d, pfx) == 1) print v, d
			}
		}')
	[[ -n $best_dep ]] || return 1
	echo "$best_dep"
}

apt_version() { # PACKAGE
	apt-cache show --no-all-versions "$1" 2>/dev/null | awk '/^Version:/ { print $2; exit }'
}

no_kernel_package_help() { # V
	if [[ $1 == 6.12 ]] && ! grep -rqsE '(^|[[:space:]])bookworm-backports([[:space:]]|$)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/; then
		die "no Debian $1 kernel in the apt sources: the 6.12 kernel comes from bookworm-backports; run: sudo scripts/deps.sh vm"
	fi
	die "no Debian $1 kernel package found by apt-cache (linux-image-amd64); run: sudo apt-get update"
}

# The kernel package of series V apt offers -> "PACKAGE VERSION".
kernel_package() { # V
	local dep pkg ver
	dep=$(resolve_kernel_dep "$1") || no_kernel_package_help "$1"
	pkg=$dep-unsigned
	ver=$(apt_version "$pkg")
	if [[ -z $ver ]]; then
		pkg=$dep # the signed image boots just as well in QEMU
		ver=$(apt_version "$pkg")
	fi
	[[ -n $ver ]] || no_kernel_package_help "$1"
	echo "$pkg $ver"
}

# Download and extract the kernel package of series V into the cache.
fetch_kernel() { # V
	local v=$1 depmod pick pkg ver
	need_tool apt-get apt
	need_tool dpkg dpkg
	depmod=$(find_tool depmod) || die "'depmod' not found: install the Debian package 'kmod' (run: sudo scripts/deps.sh vm)"
	pick=$(kernel_package "$v") || exit # (its die ended only the subshell)
	read -r pkg ver <<<"$pick"
	if load_kernel_env "$v" && [[ $PKG == "$pkg" && $PKGVER == "$ver" ]]; then
		note "kernel $v: $pkg $ver already in the cache"
		return 0
	fi
	unpack_kernel "$v" "$pkg" "$ver" "$depmod"
}

unpack_kernel() { # V PACKAGE VERSION DEPMOD
	local v=$1 pkg=$2 ver=$3 dir tmp release
	dir=$(kernel_dir "$v")
	note "kernel $v: downloading $pkg $ver"
	tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	extract_deb "$v" "$pkg" "$tmp"
	release=$(find "$tmp/root/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' | head -n1)
	[[ -n $release && -f $tmp/root/boot/vmlinuz-$release ]] || die "$pkg has no boot/vmlinuz or lib/modules"
	# The package ships no modules.dep: depmod writes it (and modules.builtin.*).
	"$4" -b "$tmp/root" "$release"

	rm -rf "$dir"
	mkdir -p "$dir"
	mv "$tmp/root" "$dir/root"
	{
		echo "PKG=$(shquote "$pkg")"
		echo "PKGVER=$(shquote "$ver")"
		echo "KVER=$(shquote "$release")"
	} >"$dir/kernel.env"
	rm -rf "$tmp"
	trap - EXIT
	note "kernel $v: $release ready in $dir"
}

# apt-get download PACKAGE into TMP and dpkg -x it into TMP/root.
extract_deb() { # V PACKAGE TMP
	local deb
	apt_download "$3" "$2"
	deb=$(compgen -G "$3/*.deb" | head -n1) || die "apt-get download left no .deb in $3"
	note "kernel $1: extracting $(basename "$deb")"
	dpkg -x "$deb" "$3/root"
	rm -f "$deb"
}

# QEMU boots a CONFIG_PVH=y kernel straight from the uncompressed vmlinux,
# which saves the 1-3 s its own decompressor needs under TCG (see vmlinux.py).
prepare_vmlinux() { # V -- needs load_kernel_env
	local dir why
	dir=$(kernel_dir "$1")
	[[ -f $dir/vmlinux || -f $dir/vmlinux.none ]] && return 0
	if ! grep -qx 'CONFIG_PVH=y' "$dir/root/boot/config-$KVER" 2>/dev/null; then
		why='the kernel is not built with CONFIG_PVH=y'
	elif why=$("$TOOL" vmlinux "$dir/root/boot/vmlinuz-$KVER" "$dir/vmlinux" 2>&1); then
		note "kernel $1: extracted vmlinux for direct (PVH) boot"
		return 0
	fi
	# Remembered until the next setup, which tries again.
	: >"$dir/vmlinux.none"
	warn "kernel $1: cannot extract vmlinux (${why:-no reason given}); booting the compressed vmlinuz (about 1-3 s slower)"
}

# Fetch kernel V if needed (or if REFRESH is 1) and build its boot files.
setup_kernel() { # V REFRESH
	local v=$1
	take_lock
	if (($2)) || ! load_kernel_env "$v"; then
		fetch_kernel "$v"
	else
		note "kernel $v: $PKG $PKGVER in the cache (--refresh looks for a newer one)"
	fi
	load_kernel_env "$v" || die "kernel $v: the cache is incomplete ($(kernel_dir "$v"))"
	rm -f "$(kernel_dir "$v")/vmlinux.none"
	prepare_vmlinux "$v"
	if initramfs_current "$v"; then
		note "kernel $v: initramfs up to date"
	else
		build_initramfs "$v"
	fi
	release_lock
}

cmd_setup() { # the OPT_* of tool.py parse
	rm -f "$CACHE/qemu.none" # (a failed fetch is tried again)
	ensure_qemu
	[[ ! -s $CACHE/qemu.none ]] || warn "qemu: $(<"$CACHE/qemu.none"): the system's QEMU will run the guest"
	setup_kernel "$OPT_KERNEL" "$OPT_REFRESH"
	if [[ $OPT_TRANSPORT == *iwarp* ]]; then
		load_kernel_env "$OPT_KERNEL"
		ensure_siw "$OPT_KERNEL"
		take_lock
		ensure_initramfs "$OPT_KERNEL"
		release_lock
	fi
	if [[ $OPT_KERNEL == "$DEFAULT_KERNEL" ]]; then
		note "ready: scripts/$PROG run -- COMMAND"
	else
		note "ready: scripts/$PROG run --kernel $OPT_KERNEL -- COMMAND"
	fi
}
