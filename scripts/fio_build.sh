#!/usr/bin/env bash
# scripts/fio_build.sh -- fio of other Debian releases, built privately from Debian's
# source packages into a cache outside the clone (nothing is installed over the
# system), so that the engines can be built against, and tested with, the fio our
# users have on newer distributions.
#
#   scripts/fio_build.sh RELEASE...     build the fio of each release once (later runs
#                                       reuse it, offline); print "RELEASE VERSION DIR"
#   scripts/fio_build.sh --where RELEASE...   the same lines, building nothing
#   scripts/fio_build.sh --help
#
# RELEASE is a Debian release or suite (bookworm, trixie, unstable, ...). DIR is a
# configured fio source tree with its fio binary built in it: what `make engines
# FIO=DIR/fio FIO_SRC=DIR` takes (make fio-versions does that for FIO_RELEASES).
# Releases with the same fio are built once.
#
# Sources: the release's fio source package, its upstream tarball only (read through
# scripts/lib/debian_source.sh's private apt state), from the machine's own Debian
# mirror. Build: ./configure --disable-native and make fio, on the features this
# machine's -dev packages give (the engines need none of them). One build at a time.
# Environment: RPMA_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/rpma-fio).
set -euo pipefail
shopt -s inherit_errexit # a die() in $(...) ends the script

CACHE=${RPMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rpma-fio}/fio
DS_STATE=$CACHE/apt

usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
}

die() {
	echo "fio_build: $*" >&2
	exit 1
}

note() {
	echo "fio_build: $*" >&2
}

# shellcheck source=scripts/lib/debian_source.sh
. "$(dirname "$0")/lib/debian_source.sh"

# build RELEASE DEBIAN_VERSION: the tree of that fio, built; prints its directory
build() {
	local release=$1 deb_ver=$2 ver dir tarball
	ver=$(ds_upstream "$deb_ver")
	dir=$CACHE/fio-$ver
	if [ -f "$dir/.built" ]; then
		echo "$dir"
		return 0
	fi
	command -v cc >/dev/null || die "cc is missing: run scripts/deps.sh"
	command -v make >/dev/null || die "make is missing: run scripts/deps.sh"
	note "fetching fio $deb_ver ($release) into $CACHE/src"
	rm -rf "$CACHE/src" "$dir"
	tarball=$(ds_fetch_tarball fio "$deb_ver" "$CACHE/src")
	mkdir -p "$dir"
	tar -xf "$tarball" -C "$dir" --strip-components=1 || die "cannot unpack $tarball"
	[ -x "$dir/configure" ] || die "$tarball holds no fio source tree (no configure)"
	note "building fio $ver in $dir (about a minute; log: $dir/rpma-fio-build.log)"
	if ! { (cd "$dir" && ./configure --disable-native && make -j "$(nproc)" fio); } \
			>"$dir/rpma-fio-build.log" 2>&1; then
		tail -n 20 "$dir/rpma-fio-build.log" >&2
		die "building fio $ver failed (log: $dir/rpma-fio-build.log)"
	fi
	[ "$("$dir/fio" --version)" = "fio-$ver" ] ||
		die "$dir/fio says '$("$dir/fio" --version)', not fio-$ver"
	rm -rf "$CACHE/src"
	echo "$deb_ver" >"$dir/.built"
	note "fio $ver is in $dir"
	echo "$dir"
}

# resolve RELEASE: the Debian version of its fio (a release already resolved once is
# remembered: later runs need no network)
resolve() {
	local release=$1 memo=$CACHE/release-$1 deb_ver
	if [ -s "$memo" ] && [ -f "$CACHE/fio-$(ds_upstream "$(cat "$memo")")/.built" ]; then
		cat "$memo"
		return 0
	fi
	deb_ver=$(ds_version "$release" fio)
	[ -n "$deb_ver" ] || die "$release has no fio source package (or no such release on the mirror)"
	echo "$deb_ver" >"$memo"
	echo "$deb_ver"
}

main() {
	local where=0 release deb_ver dir
	case "${1:-}" in
	-h | --help) usage; exit 0 ;;
	--where) where=1; shift ;;
	-*) die "unknown option '$1' (see --help)" ;;
	esac
	[ $# -gt 0 ] || die "name at least one Debian release (e.g. unstable; see --help)"
	for release in "$@"; do
		[[ $release =~ ^[a-z][a-z0-9-]*$ ]] || die "'$release' is not a Debian release name"
	done
	mkdir -p "$CACHE"
	# one build at a time; a second caller waits, then finds the build done
	exec {lock}>"$CACHE/.lock"
	flock "$lock"
	for release in "$@"; do
		deb_ver=$(resolve "$release")
		if [ "$where" = 1 ]; then
			dir=$CACHE/fio-$(ds_upstream "$deb_ver")
		else
			dir=$(build "$release" "$deb_ver")
		fi
		echo "$release $(ds_upstream "$deb_ver") $dir"
	done
}

main "$@"
