#!/usr/bin/env bash
# scripts/deps.sh -- install every Debian package rpma-fio needs (idempotent).
#
#   scripts/deps.sh            everything: build, unit tests, Soft-RoCE VM, engines, reports
#   scripts/deps.sh build      only what building librpma and its unit tests needs
#   scripts/deps.sh vm         only what the Soft-RoCE VM (scripts/softroce-vm) needs
#   scripts/deps.sh sources    only add the apt sources below (no apt-get) and show them
#   scripts/deps.sh --help
#
# Run it as root, or as a user with sudo: it calls sudo only when something must change
# (and never as root). Except for `build`, it adds the apt sources the project needs when
# they are missing, to /etc/apt/sources.list.d/rpma-fio.sources: deb-src for bookworm
# (fio's source package, for the engines' build) and deb for bookworm-backports (the 6.12
# kernel of the Soft-RoCE VM). Their URIs and Signed-By are those of the machine's own
# Debian entry (deb, bookworm, main; in sources.list, *.list or *.sources), so a local
# mirror or proxy keeps being used; without such an entry it stops and adds nothing.
# Nothing else is changed. DEPS_APT_ROOT=DIR reads and writes DIR/etc/apt instead (tests).
set -euo pipefail

BUILD_PKGS=(build-essential pkg-config libibverbs-dev librdmacm-dev libcmocka-dev gcovr)
# the Soft-RoCE VM: QEMU, python3 (its option parser, vmlinux and module tools) and
# initramfs tools on the host; the guest runs the host's own binaries (over a
# read-only share of /), so its tools are installed here too (dropbear: the sshd of
# softroce-vm --nodes, a binary only, no service on the host)
VM_PKGS=(qemu-system-x86 python3 busybox-static kmod cpio xz-utils zstd coreutils iproute2 rdma-core
	ibverbs-providers ibverbs-utils rdmacm-utils perftest ndctl daxctl e2fsprogs
	dropbear-bin openssh-client)
ENGINE_PKGS=(fio libpmem2-dev libprotobuf-c-dev protobuf-c-compiler dpkg-dev)
# (libclang-rt-14-dev: libFuzzer and the sanitizer runtimes of clang, only recommended by it;
# cmake and ninja-build: scripts/rdma_core.sh builds a newer rdma-core with them;
# debhelper and lintian: make deb)
TOOL_PKGS=(valgrind clang libclang-rt-14-dev gnuplot-nox jq man-db groff-base bsdextrautils file util-linux cppcheck clang-tidy shellcheck
	cmake ninja-build chromium debhelper lintian)
APT_ROOT=${DEPS_APT_ROOT:-}
APT_ETC=$APT_ROOT/etc/apt
SOURCES_FILE=$APT_ETC/sources.list.d/rpma-fio.sources
# how this run gets root (set by need_root): empty as root, sudo otherwise
ROOT_CMD=()

usage() {
	# the header comment above, up to the first line of code
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
}

die() {
	echo "deps: $*" >&2
	exit 1
}

# Called only once something must change, so that a user for whom everything is in
# place needs neither root nor sudo. A fresh root shell often has no sudo: never use it there.
need_root() {
	if [ "$(id -u)" -eq 0 ]; then
		ROOT_CMD=()
	elif command -v sudo >/dev/null; then
		ROOT_CMD=(sudo)
	else
		die "$1 needs root and sudo is missing: run it as root or install sudo"
	fi
}

as_root() {
	"${ROOT_CMD[@]}" "$@"
}

# The apt source files, in the order apt reads them (sources.list, then sources.list.d).
source_files() {
	local f
	[ -f "$APT_ETC/sources.list" ] && echo "$APT_ETC/sources.list"
	for f in "$APT_ETC"/sources.list.d/*; do
		case "$f" in *.list | *.sources) [ -f "$f" ] && echo "$f" ;; esac
	done
	return 0
}

# Print the deb822 stanzas still to add (nothing when both entries exist already), or fail
# with a message naming what was looked for. awk rather than Python: a minimal Debian 12
# has mawk but maybe no python3, and this must run before anything is installed.
sources_to_add() {
	local files=()
	mapfile -t files < <(source_files)
	# with no file at all, awk must not read its stdin
	[ ${#files[@]} -gt 0 ] || files=(/dev/null)
	awk -v root="$APT_ROOT" -v where="$APT_ETC/sources.list, $APT_ETC/sources.list.d/*.list and *.sources" "$SOURCES_AWK" "${files[@]}"
}

# One entry per enabled stanza (*.sources, deb822) or line (sources.list, *.list):
# remember which (type, suite) pairs of component main exist, and pick the machine's own
# Debian entry: deb, suite bookworm, component main, signed by the Debian archive key
# (preferred) or by nothing named (apt's default keyrings). An entry signed by another
# key is another archive that happens to serve "bookworm main" (e.g. a PHP or PostgreSQL
# repository): never copied. bookworm-security is the separate debian-security archive.
# Check-Valid-Until is copied too: a snapshot mirror needs it on every entry.
# shellcheck disable=SC2016 # an awk program: its $0 and $1 are awk's, not the shell's
SOURCES_AWK='
function trim(s) { gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }
function has(list, word) { return index(" " list " ", " " word " ") > 0 }
function entry(   types, uris, suites, sb, nt, t, ns, s, i, j, nu, u, keep, rank) {
	if (tolower(trim(f["enabled"])) ~ /^(no|false|off|without|disable)$/) return
	if (!has(trim(f["components"]), "main")) return
	types = trim(f["types"]); uris = trim(f["uris"]); suites = trim(f["suites"]); sb = trim(f["signed-by"])
	nt = split(types, t, " "); ns = split(suites, s, " ")
	for (i = 1; i <= nt; i++) for (j = 1; j <= ns; j++) present[t[i] " " s[j]] = 1
	if (!has(types, "deb") || !has(suites, "bookworm")) return
	# a CD-ROM has neither sources nor backports
	nu = split(uris, u, " "); keep = ""
	for (i = 1; i <= nu; i++) if (u[i] !~ /^cdrom:/) keep = keep (keep == "" ? "" : " ") u[i]
	if (keep == "") return
	rank = sb == "" ? 1 : (sb ~ /^[^ ]*debian-archive[^ ]*$/ ? 2 : 0)
	if (rank == 0) {
		others = others "\n  " src ": " keep " (Signed-By: " (sb ~ /BEGIN PGP/ ? "an embedded key" : sb) ")"
		return
	}
	if (rank > best) { best = rank; b_uris = keep; b_sb = sb; b_cvu = trim(f["check-valid-until"]); b_src = src }
}
# one stanza or line read into f[]: hand it over, start afresh
function flush() { if (n) entry(); n = 0; key = ""; split("", f) }
# deb [opt=value ...] URI SUITE COMPONENT...; "#" starts a comment anywhere
function oneline(line,   i, k, w, nw) {
	sub(/#.*/, "", line)
	line = trim(line)
	if (line !~ /^deb(-src)? /) return
	f["types"] = substr(line, 1, index(line, " ") - 1)
	line = substr(line, index(line, " ") + 1)
	if (substr(line, 1, 1) == "[") {
		if (!(i = index(line, "]"))) return
		nw = split(substr(line, 2, i - 2), w, " ")
		line = substr(line, i + 1)
		for (i = 1; i <= nw; i++) if ((k = index(w[i], "=")) > 1) f[tolower(substr(w[i], 1, k - 1))] = substr(w[i], k + 1)
	}
	if (split(line, w, " ") < 3) return
	f["uris"] = w[1]; f["suites"] = w[2]
	sub(/^[ \t]*[^ \t]+[ \t]+[^ \t]+/, "", line)
	f["components"] = line
	n = 1; flush()
}
function stanza(type, suite) {
	out = out (out == "" ? "" : "\n") "Types: " type "\nURIs: " b_uris "\nSuites: " suite "\nComponents: main\n"
	if (b_sb != "") out = out "Signed-By: " b_sb "\n"
	if (b_cvu != "") out = out "Check-Valid-Until: " b_cvu "\n"
}
FNR == 1 { flush(); src = substr(FILENAME, length(root) + 1); deb822 = FILENAME ~ /\.sources$/ }
!deb822 { split("", f); oneline($0); next }
/^#/ { next }
/^[ \t]*$/ { flush(); next }
# a continuation line (a long URIs list, an embedded key)
/^[ \t]/ { if (key != "") f[key] = f[key] " " $0; next }
(i = index($0, ":")) > 0 { key = tolower(trim(substr($0, 1, i - 1))); f[key] = substr($0, i + 1); n = 1 }
END {
	flush()
	if (present["deb-src bookworm"] && present["deb bookworm-backports"]) exit 0
	if (!best) {
		printf "deps: no Debian bookworm entry found (an enabled entry of type deb, suite bookworm and component main, signed by the Debian archive keyring or with no Signed-By) in %s\n", where > "/dev/stderr"
		if (others != "") printf "deps: skipped, signed by another key:%s\n", others > "/dev/stderr"
		print "deps: nothing added; add your Debian mirror there, or add deb-src bookworm and deb bookworm-backports entries yourself" > "/dev/stderr"
		exit 3
	}
	if (!present["deb-src bookworm"]) stanza("deb-src", "bookworm")
	if (!present["deb bookworm-backports"]) stanza("deb", "bookworm-backports")
	printf "# Added by rpma-fio scripts/deps.sh, from the Debian entry in %s\n%s", b_src, out
}'

# Append the stanzas to SOURCES_FILE. A blank line first when the file has content:
# deb822 stanzas are separated by blank lines only (comments do not separate), and
# the file may not end with a newline (edited by hand).
add_sources() {
	local stanzas=$1 sep=""
	if [ -s "$SOURCES_FILE" ]; then
		sep=$'\n'
		# $(...) drops a final newline: empty when the file ends with one
		[ -z "$(tail -c 1 "$SOURCES_FILE")" ] || sep=$'\n\n'
	fi
	echo "deps: adding apt sources to $SOURCES_FILE:"
	echo "  ${stanzas//$'\n'/$'\n'  }"
	printf '%s%s\n' "$sep" "$stanzas" | as_root tee -a "$SOURCES_FILE" >/dev/null
}

missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
	done
	return 0
}

# The packages of a set, one a line.
set_pkgs() {
	case "$1" in
	build) printf '%s\n' "${BUILD_PKGS[@]}" ;;
	vm) printf '%s\n' "${VM_PKGS[@]}" ;;
	all) printf '%s\n' "${BUILD_PKGS[@]}" "${VM_PKGS[@]}" "${ENGINE_PKGS[@]}" "${TOOL_PKGS[@]}" ;;
	esac
}

main() {
	local what=${1:-all} pkgs=() stanzas="" todo=() change=""
	case "$what" in
	-h | --help) usage; exit 0 ;;
	all | build | vm | sources) ;;
	*) echo "deps: unknown set '$what' (expected: all, build, vm, sources)" >&2; exit 2 ;;
	esac
	mapfile -t pkgs < <(set_pkgs "$what")

	# decide everything first: nothing is written when something is wrong, and
	# root is asked for only when something must change
	if [ "$what" != build ]; then
		stanzas=$(sources_to_add) || exit 1
	fi
	mapfile -t todo < <(missing_pkgs "${pkgs[@]}")
	[ -z "$stanzas" ] || change="adding apt sources"
	[ ${#todo[@]} -eq 0 ] || change+="${change:+ and }installing ${todo[*]}"
	if [ -z "$change" ]; then
		[ "$what" = build ] || echo "deps: apt sources already present (deb-src bookworm, deb bookworm-backports)"
		[ "$what" = sources ] || echo "deps: all ${#pkgs[@]} packages already installed"
		return 0
	fi
	need_root "$change"

	[ -z "$stanzas" ] || add_sources "$stanzas"
	[ "$what" != sources ] || return 0
	# also after new sources alone: apt-get source fio needs their index
	as_root apt-get update -qq
	if [ ${#todo[@]} -eq 0 ]; then
		echo "deps: all ${#pkgs[@]} packages already installed"
		return 0
	fi
	echo "deps: installing ${todo[*]}"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${todo[@]}"
}

main "$@"
