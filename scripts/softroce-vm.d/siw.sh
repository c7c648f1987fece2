# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
#
# softroce-vm.d/siw.sh -- Soft-iWARP for --transport iwarp.  Debian builds its
# kernels without CONFIG_RDMA_SIW, so the module is built here, once per
# cached kernel, from Debian's own packages of that exact kernel version:
# linux-source-S (only drivers/infiniband/sw/siw is unpacked), the kernel's
# linux-headers-KVER, its -common headers and linux-kbuild (fixdep, modpost).
# All are unpacked into the cache with dpkg -x, never installed.  The module
# goes to the cached kernel's lib/modules/KVER/updates/, where depmod and the
# initramfs (group iwarp) find it.  Sourced by scripts/softroce-vm.

siw_ko() { # V -- needs load_kernel_env
	echo "$(kernel_dir "$1")/root/lib/modules/$KVER/updates/siw.ko"
}

siw_ready() { # V -- needs load_kernel_env
	[[ -f $(siw_ko "$1") ]]
}

# The Depends of PACKAGE=VERSION that start with PREFIX -> their names.
package_deps() { # PACKAGE VERSION PREFIX
	apt-cache show "$1=$2" 2>/dev/null | awk -v pfx="$3" '
		/^Depends:/ {
			n = split(substr($0, 10), alts, ",")
			for (i = 1; i <= n; i++) {
				split(alts[i], w, " ")
				if (index(w[1], pfx) == 1) print w[1]
			}
			exit
		}'
}

# The version of PACKAGE to download for kernel package version WANT: WANT itself
# when the archive has it, else the newest of the same upstream release (6.1.192-2
# -> 6.1.192-3): a security upload may rebuild linux-kbuild and linux-source under a
# new Debian revision and drop the old ones while the kernel's ABI, and so its
# image and headers, stay at the old one. Empty when there is neither.
package_version() { # PACKAGE WANT
	local versions
	versions=$(apt-cache madison "$1" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }')
	if grep -qxF "$2" <<<"$versions"; then
		echo "$2"
	else
		awk -v up="${2%-*}-" 'index($0, up) == 1' <<<"$versions" | sort -V | tail -n 1
	fi
}

# Unpack the siw sources of linux-source-S.deb (in TMP) into TMP/siw.
unpack_siw_source() { # TMP SERIES
	local deb tarball=./usr/src/linux-source-$2.tar.xz
	deb=$(compgen -G "$1/linux-source-$2_*.deb" | head -n1) || die "no linux-source-$2 package in $1"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$tarball" |
		tar -xJ -C "$1" "linux-source-$2/drivers/infiniband/sw/siw" ||
		die "linux-source-$2 has no drivers/infiniband/sw/siw"
	mv "$1/linux-source-$2/drivers/infiniband/sw/siw" "$1/siw"
}

# Build siw.ko for cached kernel V (load_kernel_env done) and install it.
build_siw() { # V
	local v=$1 tmp series headers common kbuild kbuild_ver source_ver hdir deb make_log
	need_tool make make
	need_tool gcc-12 gcc-12
	need_tool dpkg-deb dpkg
	series=$(cut -d. -f1,2 <<<"$PKGVER") # 6.1.192-2 -> 6.1: linux-source-6.1
	headers=linux-headers-$KVER
	common=$(package_deps "$headers" "$PKGVER" linux-headers-) || true
	kbuild=$(package_deps "$headers" "$PKGVER" linux-kbuild-) || true
	[[ -n $common && -n $kbuild ]] ||
		die "kernel $v: apt-cache knows no $headers=$PKGVER with its -common and kbuild packages (try: sudo apt-get update)"
	kbuild_ver=$(package_version "$kbuild" "$PKGVER")
	source_ver=$(package_version "linux-source-$series" "$PKGVER")
	[[ -n $kbuild_ver && -n $source_ver ]] ||
		die "kernel $v: apt-cache knows no $kbuild or linux-source-$series of release ${PKGVER%-*} (try: sudo apt-get update)"
	note "kernel $v: building Soft-iWARP (siw) from linux-source-$series $source_ver"
	[[ $kbuild_ver == "$PKGVER" ]] ||
		note "kernel $v: $kbuild $PKGVER is no longer in the archive: $kbuild_ver of the same release"
	tmp=$(mktemp -d "$CACHE/.siw.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	apt_download "$tmp" "$headers=$PKGVER" "$common=$PKGVER" "$kbuild=$kbuild_ver" "linux-source-$series=$source_ver"
	for deb in "$tmp/$headers"_*.deb "$tmp/$common"_*.deb "$tmp/$kbuild"_*.deb; do
		dpkg -x "$deb" "$tmp/root"
	done
	unpack_siw_source "$tmp" "$series"
	hdir=$tmp/root/usr/src/$headers
	# its Makefile includes the -common one by absolute path: ours is unpacked here
	sed -i "s#^include /usr/src/#include $tmp/root/usr/src/#" "$hdir/Makefile"
	make_log=$tmp/make.log
	# no BTF: it needs pahole and the kernel's vmlinux, and the module loads without it
	make -C "$hdir" M="$tmp/siw" CONFIG_RDMA_SIW=m CONFIG_DEBUG_INFO_BTF_MODULES= \
		-j"$(nproc)" modules >"$make_log" 2>&1 || {
		tail -n 30 "$make_log" >&2
		die "kernel $v: building siw.ko failed (the whole log was $make_log)"
	}
	install -D -m 0644 "$tmp/siw/siw.ko" "$(siw_ko "$v")"
	strip --strip-debug "$(siw_ko "$v")" 2>/dev/null || true
	"$(find_tool depmod)" -b "$(kernel_dir "$v")/root" "$KVER"
	rm -rf "$tmp"
	trap - EXIT
	note "kernel $v: siw.ko ready ($(modinfo -F vermagic "$(siw_ko "$v")" 2>/dev/null | cut -d' ' -f1))"
}

# --transport iwarp: siw.ko for kernel V, built on first use (holds the lock).
ensure_siw() { # V -- needs load_kernel_env
	siw_ready "$1" && return 0
	take_lock
	siw_ready "$1" || build_siw "$1"
	release_lock
}
