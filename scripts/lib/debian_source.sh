# shellcheck shell=bash
# scripts/lib/debian_source.sh -- sourced by the scripts that build a package of
# another Debian release privately (rdma_core.sh, fio_build.sh): that release's
# source index read through a private apt state under $DS_STATE, from the
# machine's own Debian mirror (where its deb-src bookworm entry points, which
# scripts/deps.sh adds), so the machine's apt sources and lists stay as they are.
# Only the upstream tarball is fetched; apt checks it against the release's
# signed index.
#
# The caller sets DS_STATE (a directory it owns) and defines die().

DS_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# apt-get/apt-cache on the private state
ds_apt() {
	local tool=$1
	shift
	"$tool" -q -o Dir::Etc::SourceList="$DS_STATE/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$DS_STATE/lists" -o Dir::Cache="$DS_STATE/cache" "$@"
}

# The machine's Debian mirror: where its deb-src bookworm entry points.
ds_mirror() {
	local uri
	# shellcheck disable=SC2016 # apt's own $(FIELD) placeholders, not the shell's
	uri=$(apt-get indextargets --format '$(RELEASE) $(REPO_URI)' 'Created-By: Sources' 2>/dev/null |
		awk '$1 == "bookworm" { print $2; exit }')
	[ -n "$uri" ] || die "no deb-src bookworm entry in the machine's apt sources: run scripts/deps.sh"
	echo "${uri%/}"
}

# ds_version RELEASE PACKAGE: the version of PACKAGE's source in RELEASE, from a fresh
# private index of that release alone
ds_version() {
	local release=$1 package=$2
	mkdir -p "$DS_STATE/lists/partial" "$DS_STATE/cache"
	echo "deb-src [signed-by=$DS_KEYRING] $(ds_mirror) $release main" >"$DS_STATE/sources.list"
	ds_apt apt-get update >"$DS_STATE/update.log" 2>&1 || {
		grep -E '^(E:|Err)' "$DS_STATE/update.log" | tail -n 3 >&2
		die "cannot read $release's source index (log: $DS_STATE/update.log)"
	}
	ds_apt apt-cache showsrc "$package" 2>/dev/null |
		awk -v p="$package" '/^Package:/ { ours = ($2 == p) } ours && /^Version:/ { print $2; exit }'
}

# the upstream version of a Debian version: 1:56.1-1 -> 56.1
ds_upstream() {
	local v=${1#*:}
	echo "${v%-*}"
}

# ds_fetch_tarball PACKAGE DEBIAN_VERSION DIR: the upstream tarball into DIR (after
# ds_version of the release that has it); prints the tarball's path
ds_fetch_tarball() {
	local package=$1 deb_ver=$2 dir=$3 tarball
	mkdir -p "$dir"
	(cd "$dir" && ds_apt apt-get source --tar-only "$package=$deb_ver") >"$dir/fetch.log" 2>&1 || {
		grep '^E:' "$dir/fetch.log" | head -n 1 >&2
		die "cannot fetch the sources of $package $deb_ver from $(ds_mirror) (log: $dir/fetch.log)"
	}
	tarball=$(compgen -G "$dir/${package}_$(ds_upstream "$deb_ver").orig.tar.*" | head -n 1) ||
		die "apt fetched no ${package}_$(ds_upstream "$deb_ver").orig.tar.* into $dir"
	echo "$tarball"
}
