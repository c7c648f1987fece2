#!/usr/bin/env bash
# scripts/rdma_core.sh -- a newer rdma-core than Debian 12's (44: no ibv_wr_flush, no
# ibv_wr_atomic_write), built privately from a later Debian release's source package
# into a cache outside the clone; nothing is installed over the system.
#
#   scripts/rdma_core.sh           build it once (later runs reuse it, offline); print its prefix
#   scripts/rdma_core.sh --where   print the prefix it has or would have, build nothing
#   scripts/rdma_core.sh --help
#
# Then: make RDMA_CORE="$(scripts/rdma_core.sh)" builds the library, examples and engines
# against it into build/native/ (its probe finds the native verbs; binaries find the
# libraries and their providers, librxe among them, through their run path).
#
# Sources: Debian's rdma-core of RDMA_CORE_RELEASE (default trixie), from the machine's
# own Debian mirror -- the URI of its deb-src bookworm entry, which scripts/deps.sh adds --
# read through a private apt state in the cache, so the machine's apt sources stay as they
# are. Only the upstream tarball is fetched (apt checks it against the release's signed
# index); Debian's packaging is not needed for a private build.
# Build: cmake and ninja, without pyverbs, man pages or neighbour resolution, into
# CACHE/rdma-core-VERSION/. One build at a time (a lock in the cache).
# Environment: RPMA_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/rpma-fio),
# RDMA_CORE_RELEASE (default trixie).
set -euo pipefail
shopt -s inherit_errexit # a die() in $(...) ends the script

RELEASE=${RDMA_CORE_RELEASE:-trixie}
CACHE=${RPMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rpma-fio}/rdma-core
DS_STATE=$CACHE/apt
# the oldest rdma-core with both native verbs
MIN_MAJOR=45

usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
}

die() {
	echo "rdma-core: $*" >&2
	exit 1
}

# shellcheck source=scripts/lib/debian_source.sh
. "$(dirname "$0")/lib/debian_source.sh"

note() {
	echo "rdma-core: $*" >&2
}

build() {
	local deb_ver=$1 ver src prefix tarball
	ver=$(ds_upstream "$deb_ver")
	prefix=$CACHE/rdma-core-$ver
	[ "${ver%%.*}" -ge "$MIN_MAJOR" ] 2>/dev/null ||
		die "$RELEASE has rdma-core $deb_ver: older than $MIN_MAJOR, without the native verbs"
	if [ -f "$prefix/.built" ]; then
		echo "$prefix"
		return 0
	fi
	for tool in cmake ninja cc; do
		command -v "$tool" >/dev/null || die "$tool is missing: run scripts/deps.sh"
	done
	note "fetching rdma-core $deb_ver ($RELEASE) into $CACHE/src"
	rm -rf "$CACHE/src" "$prefix"
	tarball=$(ds_fetch_tarball rdma-core "$deb_ver" "$CACHE/src")
	tar -xf "$tarball" -C "$CACHE/src" || die "cannot unpack $tarball"
	src=$CACHE/src/rdma-core-$ver
	[ -d "$src" ] || die "the tarball holds no rdma-core-$ver/"
	grep -q 'ibv_wr_flush' "$src/libibverbs/verbs.h" ||
		die "rdma-core $ver's verbs.h has no ibv_wr_flush"
	note "building rdma-core $ver into $prefix (a few minutes; log: $CACHE/build.log)"
	# the run path makes the libraries find each other wherever they are loaded from
	if ! { cmake -S "$src" -B "$CACHE/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_RPATH="$prefix/lib" \
			-DNO_PYVERBS=1 -DNO_MAN_PAGES=1 -DENABLE_RESOLVE_NEIGH=0 -DENABLE_STATIC=0 &&
			ninja -C "$CACHE/build" -j "$(nproc)" && ninja -C "$CACHE/build" install; } \
			>"$CACHE/build.log" 2>&1; then
		tail -n 20 "$CACHE/build.log" >&2
		die "building rdma-core $ver failed (log: $CACHE/build.log)"
	fi
	compgen -G "$prefix/lib/libibverbs/librxe-*.so" >/dev/null ||
		die "the build has no rxe provider in $prefix/lib/libibverbs"
	rm -rf "$CACHE/build" "$CACHE/src"
	echo "$deb_ver" >"$prefix/.built"
	note "rdma-core $ver is in $prefix"
	echo "$prefix"
}

main() {
	local where=0 deb_ver built
	case "${1:-}" in
	-h | --help) usage; exit 0 ;;
	--where) where=1 ;;
	"") ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
	mkdir -p "$CACHE"
	# one build at a time; a second caller waits, then finds the build done
	exec {lock}>"$CACHE/.lock"
	flock "$lock"
	# a finished build is used as it is: no network needed
	built=$(compgen -G "$CACHE/rdma-core-*/.built" | sort -V | tail -n 1) || true
	if [ -n "$built" ]; then
		dirname "$built"
		return 0
	fi
	deb_ver=$(ds_version "$RELEASE" rdma-core)
	[ -n "$deb_ver" ] || die "$RELEASE has no rdma-core source package"
	if [ "$where" = 1 ]; then
		echo "$CACHE/rdma-core-$(ds_upstream "$deb_ver")"
		return 0
	fi
	build "$deb_ver"
}

main "$@"
