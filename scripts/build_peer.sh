#!/bin/bash
# scripts/build_peer.sh -- build the "peer" rpma-fio is compared with: upstream
# librpma 1.2.0 (Debian's librpma0/librpma-dev) and a private fio 3.33 built from
# Debian's source package with its in-tree librpma_{apm,gpspm}_{client,server}
# engines. Nothing is installed on the system: the packages are unpacked with
# `dpkg -x` into OUT/root and fio finds them there (-I, -L, rpath).
set -euo pipefail

PROJECT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$PROJECT/build/peer
JOBS=2
FORCE=0

# Pinned so that every run compares against the same peer.
FIO_DEB_VERSION=3.33-3
FIO_DIR_NAME=fio-3.33
LIBRPMA_DEB_VERSION=1.2.0-1
PMDK_DEB_VERSION=1.12.1-2
# libpmem (not libpmem2): fio 3.33's GPSPM server built with libpmem2 asks
# libpmem2 for the persist function before it has mapped the memory and
# crashes (NULL map). Built with libpmem it calls pmem_persist() directly.
PEER_DEBS=(
	"librpma0=$LIBRPMA_DEB_VERSION"
	"librpma-dev=$LIBRPMA_DEB_VERSION"
	"libpmem1=$PMDK_DEB_VERSION"
	"libpmem-dev=$PMDK_DEB_VERSION"
)

usage() {
	cat <<EOF
Usage: scripts/build_peer.sh [--out DIR] [--jobs N] [--force]

Builds the peer implementation for interoperability tests and benchmarks:
  DIR/root/            librpma $LIBRPMA_DEB_VERSION and libpmem $PMDK_DEB_VERSION, unpacked
                       from Debian's packages (apt-get download + dpkg -x)
  DIR/$FIO_DIR_NAME/       fio from Debian's source package fio=$FIO_DEB_VERSION
  DIR/fio              the fio binary, with librpma_apm_{client,server} and
                       librpma_gpspm_{client,server} built in

fio is configured with --disable-native and WITHOUT libpmem2 (it uses libpmem):
see docs/interop.md. Each step is skipped when its stamp file says it is done.

Options:
  --out DIR   where to build (default: build/peer)
  --jobs N    parallel make jobs (default: 2)
  --force     redo every step
  -h, --help  this help

Needs: apt-get, dpkg, dpkg-source (dpkg-dev), a C compiler, make,
libibverbs-dev, librdmacm-dev, libprotobuf-c-dev (scripts/deps.sh), and a
deb-src apt entry unless build/fio-src already holds fio's source package.
EOF
}

die() {
	echo "build_peer: $*" >&2
	exit 1
}

say() {
	echo "build_peer: $*"
}

while [ $# -gt 0 ]; do
	case $1 in
	--out) [ $# -ge 2 ] || die "--out needs a directory"; OUT=$2; shift 2 ;;
	--out=*) OUT=${1#--out=}; shift ;;
	--jobs) [ $# -ge 2 ] || die "--jobs needs a number"; JOBS=$2; shift 2 ;;
	--jobs=*) JOBS=${1#--jobs=}; shift ;;
	--force) FORCE=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "--jobs=$JOBS: not a positive number"
mkdir -p "$OUT" || die "cannot create --out=$OUT"
OUT=$(cd "$OUT" && pwd)
ROOT=$OUT/root
FIO_TREE=$OUT/$FIO_DIR_NAME
LIBDIR=$ROOT/usr/lib/x86_64-linux-gnu

need_tool() {
	command -v "$1" >/dev/null || die "'$1' not found: $2"
}

# A stamp holds the description of what was done; a step is redone when the
# description changes (other versions) or with --force.
stamp_ok() {
	[ "$FORCE" = 0 ] && [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}

unpack_packages() {
	local stamp=$ROOT/.stamp want="${PEER_DEBS[*]}"
	if stamp_ok "$stamp" "$want"; then
		say "packages already unpacked in $ROOT ($want)"
		return
	fi
	need_tool apt-get "install apt"
	need_tool dpkg "install dpkg"
	local debs=$OUT/debs
	rm -rf "$ROOT" "$debs"
	mkdir -p "$ROOT" "$debs"
	say "downloading ${PEER_DEBS[*]}"
	(cd "$debs" && apt-get download "${PEER_DEBS[@]}") >"$OUT/apt-get-download.log" 2>&1 ||
		die "apt-get download ${PEER_DEBS[*]} failed (see $OUT/apt-get-download.log; run 'apt-get update'?)"
	local deb
	for deb in "$debs"/*.deb; do
		dpkg -x "$deb" "$ROOT" || die "dpkg -x $deb failed"
	done
	[ -f "$ROOT/usr/include/librpma.h" ] || die "no librpma.h in $ROOT after unpacking"
	[ -e "$LIBDIR/librpma.so" ] || die "no librpma.so in $LIBDIR after unpacking"
	echo "$want" >"$stamp"
	say "unpacked $(cd "$debs" && echo *.deb) into $ROOT"
}

# Debian's fio source package: the copy `make engines` already fetched into
# build/fio-src, else apt-get source. Unpacked with dpkg-source (Debian's patches
# applied) into our own tree: build/fio-src is the engines' tree, not ours.
unpack_fio_source() {
	local stamp=$FIO_TREE/.rpma-peer-unpacked want="fio=$FIO_DEB_VERSION"
	if stamp_ok "$stamp" "$want"; then
		say "fio sources already in $FIO_TREE"
		return
	fi
	need_tool dpkg-source "install dpkg-dev"
	local src=$OUT/fio-src dsc=fio_${FIO_DEB_VERSION}.dsc
	mkdir -p "$src"
	if [ ! -f "$src/$dsc" ]; then
		if [ -f "$PROJECT/build/fio-src/$dsc" ]; then
			say "copying Debian's fio source package from build/fio-src"
			cp "$PROJECT/build/fio-src/$dsc" "$PROJECT"/build/fio-src/fio_"${FIO_DEB_VERSION%-*}".orig.tar.gz* \
				"$PROJECT"/build/fio-src/fio_"${FIO_DEB_VERSION}".debian.tar.* "$src/"
		else
			say "fetching Debian's fio source package (apt-get source --download-only fio=$FIO_DEB_VERSION)"
			(cd "$src" && apt-get source --download-only "fio=$FIO_DEB_VERSION") >"$OUT/apt-get-source.log" 2>&1 ||
				die "apt-get source fio=$FIO_DEB_VERSION failed (see $OUT/apt-get-source.log; is there a deb-src entry?)"
		fi
	fi
	rm -rf "$FIO_TREE"
	# (--no-check: no Debian keyring needed; apt-get source has already checked
	# the files against the signed Sources index)
	(cd "$src" && dpkg-source --no-check -x "$dsc" "$FIO_TREE") >"$OUT/dpkg-source.log" 2>&1 ||
		die "dpkg-source -x $src/$dsc failed (see $OUT/dpkg-source.log)"
	echo "$want" >"$stamp"
	say "unpacked fio $FIO_DEB_VERSION into $FIO_TREE"
}

configure_fio() {
	local stamp=$FIO_TREE/.rpma-peer-configured
	local cflags="-O2 -g -I$ROOT/usr/include"
	local ldflags="-L$LIBDIR -Wl,-rpath,$LIBDIR"
	local want="--disable-native CFLAGS=$cflags LDFLAGS=$ldflags -libpmem2"
	if stamp_ok "$stamp" "$want"; then
		say "fio already configured"
		return
	fi
	say "configuring fio (--disable-native, librpma and libpmem from $ROOT)"
	(cd "$FIO_TREE" && CFLAGS="$cflags" LDFLAGS="$ldflags" ./configure --disable-native) \
		>"$OUT/configure.log" 2>&1 || die "fio's configure failed (see $OUT/configure.log)"
	# configure picks libpmem2 whenever the system has it (our own engines need
	# libpmem2-dev); take it out so that the engines use libpmem (see above).
	sed -i '/^CONFIG_LIBPMEM2_INSTALLED=/d' "$FIO_TREE/config-host.mak"
	sed -i '/#define CONFIG_LIBPMEM2_INSTALLED/d' "$FIO_TREE/config-host.h"
	local sym
	for sym in CONFIG_LIBRPMA_APM CONFIG_LIBRPMA_GPSPM CONFIG_LIBPMEM; do
		grep -q "^$sym=y" "$FIO_TREE/config-host.mak" ||
			die "fio's configure did not enable $sym (see $OUT/configure.log and $FIO_TREE/config.log)"
	done
	echo "$want" >"$stamp"
}

build_fio() {
	local start=$SECONDS
	say "building fio (make -j$JOBS fio)"
	make -C "$FIO_TREE" -j"$JOBS" fio >"$OUT/make.log" 2>&1 ||
		{ tail -n 30 "$OUT/make.log" >&2; die "building fio failed (see $OUT/make.log)"; }
	cp "$FIO_TREE/fio" "$OUT/fio.tmp" && mv "$OUT/fio.tmp" "$OUT/fio"
	say "built $OUT/fio in $((SECONDS - start)) s"
}

check_fio() {
	local engine out libs
	out=$("$OUT/fio" --version) || die "$OUT/fio does not run"
	for engine in librpma_apm_client librpma_apm_server librpma_gpspm_client librpma_gpspm_server; do
		"$OUT/fio" --enghelp="$engine" >/dev/null 2>&1 || die "$OUT/fio has no engine $engine"
	done
	libs=$(ldd "$OUT/fio") || die "ldd $OUT/fio failed"
	grep -q "$LIBDIR/librpma.so" <<<"$libs" || die "$OUT/fio does not load librpma from $LIBDIR"
	! grep -q libpmem2 <<<"$libs" || die "$OUT/fio links libpmem2 (its GPSPM server would crash)"
	say "$OUT/fio: $out with librpma $LIBRPMA_DEB_VERSION (librpma_{apm,gpspm}_{client,server}, libpmem)"
}

need_tool make "install make"
need_tool "${CC:-cc}" "install a C compiler (gcc)"
unpack_packages
unpack_fio_source
configure_fio
if [ "$FORCE" = 0 ] && [ -x "$OUT/fio" ] && [ -z "$(find "$FIO_TREE" -newer "$OUT/fio" \
	\( -name '*.[ch]' -o -name .rpma-peer-configured \) -print -quit)" ]; then
	say "fio is up to date"
else
	build_fio
fi
check_fio
