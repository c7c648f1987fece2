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

RELEASE=${RDMA_CORE_RELEASE:-trixie}
CACHE=${RPMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rpma-fio}/rdma-core
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# the oldest rdma-core with both native verbs
MIN_MAJOR=45

usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
}

die() {
	echo "rdma-core: $*" >&2
	exit 1
}

note() {
	echo "rdma-core: $*" >&2
}

# apt-get/apt-cache on the private state: RELEASE's source index only
apt_private() {
	local tool=$1
	shift
	"$tool" -q -o Dir::Etc::SourceList="$CACHE/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$CACHE/apt/lists" -o Dir::Cache="$CACHE/apt/cache" "$@"
}

# The machine's Debian mirror: where its deb-src bookworm entry points.
mirror() {
	local uri
	# shellcheck disable=SC2016 # apt's own $(FIELD) placeholders, not the shell's
	uri=$(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 'Created-By: Sources' 2>/dev/null |
		awk '$1 == "bookworm" { print $2; exit }')
	[ -n "$uri" ] || die "no deb-src bookworm entry in the machine's apt sources: run scripts/deps.sh"
	echo "${uri%/}"
}

# The version of RELEASE's rdma-core source package, from a fresh private index.
source_version() {
	mkdir -p "$CACHE/apt/lists/partial" "$CACHE/apt/cache"
	echo "deb-src [signed-by=$KEYRING] $(mirror) $RELEASE main" >"$CACHE/apt/sources.list"
	apt_private apt-get update >"$CACHE/apt/update.log" 2>&1 ||
		{ tail -n 5 "$CACHE/apt/update.log" >&2; die "cannot read $RELEASE's source index (log: $CACHE/apt/update.log)"; }
	apt_private apt-cache showsrc rdma-core 2>/dev/null | awk '/^Version:/ { print $2; exit }'
}

# the upstream version of a Debian version: 56.1-1 -> 56.1
upstream() {
	local v=${1#*:}
	echo "${v%-*}"
}

build() {
	local deb_ver=$1 ver src prefix
	ver=$(upstream "$deb_ver")
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
	mkdir -p "$CACHE/src"
	(cd "$CACHE/src" && apt_private apt-get source --tar-only "rdma-core=$deb_ver") >"$CACHE/fetch.log" 2>&1 ||
		{ tail -n 5 "$CACHE/fetch.log" >&2; die "cannot fetch rdma-core $deb_ver (log: $CACHE/fetch.log)"; }
	tar -xzf "$CACHE/src/rdma-core_$ver.orig.tar.gz" -C "$CACHE/src" ||
		die "cannot unpack $CACHE/src/rdma-core_$ver.orig.tar.gz"
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
	deb_ver=$(source_version)
	[ -n "$deb_ver" ] || die "$RELEASE has no rdma-core source package"
	if [ "$where" = 1 ]; then
		echo "$CACHE/rdma-core-$(upstream "$deb_ver")"
		return 0
	fi
	build "$deb_ver"
}

main "$@"
