#!/usr/bin/env bash
# scripts/deps.sh -- install every Debian package rpma-fio needs (idempotent).
#
#   scripts/deps.sh            everything: build, unit tests, Soft-RoCE VM, engines, reports
#   scripts/deps.sh build      only what building librpma and its unit tests needs
#   scripts/deps.sh vm         only what the Soft-RoCE VM (scripts/softroce-vm) needs
#   scripts/deps.sh --help
#
# Needs root (or sudo). Adds the apt sources the project needs when they are missing:
# deb-src for bookworm (fio's source package, for the engines' build) and
# bookworm-backports (the 6.12 kernel of the Soft-RoCE VM). Nothing else is changed.
set -euo pipefail

BUILD_PKGS=(build-essential pkg-config libibverbs-dev librdmacm-dev libcmocka-dev gcovr)
# the Soft-RoCE VM: QEMU and initramfs tools on the host; the guest runs the host's
# own binaries (over a read-only share of /), so its tools are installed here too
VM_PKGS=(qemu-system-x86 busybox-static kmod cpio xz-utils zstd coreutils iproute2 rdma-core
	ibverbs-providers ibverbs-utils rdmacm-utils perftest ndctl daxctl e2fsprogs)
ENGINE_PKGS=(fio libpmem2-dev libprotobuf-c-dev protobuf-c-compiler dpkg-dev)
TOOL_PKGS=(valgrind clang gnuplot-nox jq python3 man-db groff-base bsdextrautils file util-linux cppcheck clang-tidy)
SOURCES_FILE=/etc/apt/sources.list.d/rpma-fio.sources

usage() {
	sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
}

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# True when some apt source already has entries of type "$1" (deb, deb-src) for suite "$2".
apt_has() {
	local type=$1 suite=$2
	# deb822 (*.sources): one stanza per paragraph, with Types: and Suites: lines
	if compgen -G '/etc/apt/sources.list.d/*.sources' >/dev/null &&
		awk -v t="$type" -v s="$suite" '
			BEGIN { RS = ""; FS = "\n"; found = 0 }
			{
				types = ""; suites = ""
				for (i = 1; i <= NF; i++) {
					if ($i ~ /^Types:/) types = " " substr($i, 7) " "
					if ($i ~ /^Suites:/) suites = " " substr($i, 8) " "
				}
				if (index(types, " " t " ") && index(suites, " " s " ")) found = 1
			}
			END { exit !found }' /etc/apt/sources.list.d/*.sources; then
		return 0
	fi
	# one-line format (*.list)
	grep -hsE "^${type}( \[[^]]*\])? [^ ]+ ${suite}( |$)" /etc/apt/sources.list /etc/apt/sources.list.d/*.list >/dev/null
}

add_sources() {
	local stanzas=""
	apt_has deb-src bookworm || stanzas+="Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

"
	apt_has deb bookworm-backports || stanzas+="Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

"
	if [ -n "$stanzas" ]; then
		echo "deps: adding apt sources to $SOURCES_FILE"
		printf '# Added by rpma-fio scripts/deps.sh\n%s' "$stanzas" | as_root tee -a "$SOURCES_FILE" >/dev/null
		return 0
	fi
	return 1
}

missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
	done
}

main() {
	local what=${1:-all} pkgs=()
	case "$what" in
	-h|--help) usage; exit 0 ;;
	build) pkgs=("${BUILD_PKGS[@]}") ;;
	vm) pkgs=("${VM_PKGS[@]}") ;;
	all) pkgs=("${BUILD_PKGS[@]}" "${VM_PKGS[@]}" "${ENGINE_PKGS[@]}" "${TOOL_PKGS[@]}") ;;
	*) echo "deps: unknown set '$what' (expected: all, build, vm)" >&2; exit 2 ;;
	esac

	local updated=0
	if [ "$what" != build ] && add_sources; then
		as_root apt-get update -qq
		updated=1
	fi
	mapfile -t todo < <(missing_pkgs "${pkgs[@]}")
	if [ ${#todo[@]} -eq 0 ]; then
		echo "deps: all ${#pkgs[@]} packages already installed"
		return 0
	fi
	echo "deps: installing ${todo[*]}"
	[ "$updated" -eq 1 ] || as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${todo[@]}"
}

main "$@"
