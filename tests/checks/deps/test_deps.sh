#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/checks/deps/test_deps.sh -- scripts/deps.sh on sample apt sources in a temporary
# directory (DEPS_APT_ROOT), with stub apt-get, dpkg-query and sudo: nothing is
# installed and the machine's own /etc/apt is neither read nor written.
#
# Covers which Debian entry the added sources copy (deb822 and one-line formats,
# disabled stanzas, other archives), when nothing is added, the error without a
# Debian entry, a second run, and privileges: root never calls sudo, a user calls it
# only when something must change, and without sudo fails with a clear message.
# Run as root (the user cases then run as nobody through setpriv); as a user, the
# root case is skipped.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
NOBODY=65534
# shellcheck source=tests/lib/verdict.sh
. "$ROOT/tests/lib/verdict.sh"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
MIRROR=http://mirror.example.internal/debian
MIRROR2=http://mirror2.example.internal/debian

umask 022
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# the user cases run as nobody: the copy of deps.sh, the stubs and fixtures must be readable
chmod 755 "$WORK"
DEPS=$WORK/deps.sh
cp "$ROOT/scripts/deps.sh" "$DEPS"
chmod 755 "$DEPS"

# $WORK/tools: the only real commands deps.sh gets (a missing one shows up as a failure,
# and no real apt-get, dpkg-query or sudo can be reached). $WORK/stubs adds sudo to the
# stubs of $WORK/stubs-nosudo. Every stub call is logged to $STUB_LOG.
make_bins() {
	local t
	mkdir -p "$WORK/tools" "$WORK/stubs" "$WORK/stubs-nosudo"
	for t in bash env id awk tee grep tail; do
		ln -s "$(command -v "$t")" "$WORK/tools/$t"
	done
	cat >"$WORK/stubs-nosudo/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $*" >>"$STUB_LOG"
STUB
	# STUB_INSTALLED=all: every package is installed; otherwise none is
	cat >"$WORK/stubs-nosudo/dpkg-query" <<'STUB'
#!/bin/sh
echo "dpkg-query $*" >>"$STUB_LOG"
[ "$STUB_INSTALLED" = all ] || exit 1
printf 'install ok installed'
STUB
	# a stub cannot make a user root: it logs, then runs the command as the caller
	cat >"$WORK/stubs/sudo" <<'STUB'
#!/bin/sh
echo "sudo $*" >>"$STUB_LOG"
exec "$@"
STUB
	cp "$WORK/stubs-nosudo/apt-get" "$WORK/stubs-nosudo/dpkg-query" "$WORK/stubs/"
	chmod 755 "$WORK"/stubs*/*
}

# ---- fixtures: $WORK/<case>/etc/apt ----

fixture() {
	local fx=$WORK/$1
	mkdir -p "$fx/etc/apt/sources.list.d"
	echo "$fx"
}

# put FIXTURE PATH-UNDER-etc/apt: the file from stdin
put() {
	cat >"$1/etc/apt/$2"
}

# the machine's Debian entry as the Debian 12 installer writes it, on a local mirror
debian_sources() {
	put "$1" sources.list.d/debian.sources <<EOF
Types: deb
URIs: $MIRROR $MIRROR2
# URIs: http://retired.example.internal/debian (a comment: the office mirror, then the other)
Suites: bookworm bookworm-updates
Components: main contrib non-free-firmware
Signed-By: $KEYRING

Types: deb
URIs: http://mirror.example.internal/debian-security
Suites: bookworm-security
Components: main
Signed-By: $KEYRING
EOF
}

# repositories of other archives, which deps.sh must not copy
other_origins() {
	# serves "bookworm main" too, but signed by its own key
	put "$1" sources.list.d/aaa-php.list <<EOF
deb [signed-by=/usr/share/keyrings/php.gpg] https://php.example.internal/php bookworm main
EOF
	put "$1" sources.list.d/nodesource.sources <<EOF
Types: deb
URIs: https://node.example.internal/node_20.x
Suites: nodistro
Components: main
Signed-By: /usr/share/keyrings/nodesource.gpg
EOF
	put "$1" sources.list.d/google-cloud-sdk.list <<EOF
deb https://cloud-sdk.example.internal/apt cloud-sdk-bookworm main
EOF
	# its key embedded: continuation lines, one of them with a colon
	put "$1" sources.list.d/vendor.sources <<EOF
Types: deb
URIs: https://vendor.example.internal/debian
Suites: bookworm
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 Comment: Types: deb
 .
 mQINBGRmZXR0
 -----END PGP PUBLIC KEY BLOCK-----
EOF
}

# expected_added SOURCE URIS SIGNED-BY [deb-src|backports]: what deps.sh should write
# (both stanzas unless one is named; no Signed-By line when SIGNED-BY is empty)
expected_added() {
	local src=$1 uris=$2 sb=$3 only=${4:-} sbline=""
	[ -z "$sb" ] || sbline="Signed-By: $sb"$'\n'
	echo "# Added by rpma-fio scripts/deps.sh, from the Debian entry in $src"
	[ "$only" = backports ] || printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\n%s' "$uris" "$sbline"
	[ -n "$only" ] || echo
	[ "$only" = deb-src ] || printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\n%s' "$uris" "$sbline"
}

# ---- running deps.sh ----

# Who runs it and what it finds, set per case: AS root|user, SUDO yes|no (a sudo on
# PATH), INSTALLED all|none (what dpkg-query answers).
AS=root SUDO=yes INSTALLED=none

# run_deps FIXTURE ARGS...: deps.sh against FIXTURE/etc/apt; stdout in FIXTURE/out,
# stderr in FIXTURE/err, the stubs' calls in FIXTURE/calls, the exit status in RC
run_deps() {
	local fx=$1 bin=$WORK/stubs cmd
	shift
	[ "$SUDO" = yes ] || bin=$WORK/stubs-nosudo
	cmd=(env -i "PATH=$bin:$WORK/tools" "DEPS_APT_ROOT=$fx" "STUB_LOG=$fx/calls"
		"STUB_INSTALLED=$INSTALLED" "$DEPS" "$@")
	if [ "$AS" = user ] && [ "$(id -u)" -eq 0 ]; then
		chown -R "$NOBODY:$NOBODY" "$fx"
		cmd=(setpriv "--reuid=$NOBODY" "--regid=$NOBODY" --clear-groups "${cmd[@]}")
	fi
	RC=0
	"${cmd[@]}" >"$fx/out" 2>"$fx/err" || RC=$?
	echo "deps.sh $* (as $AS, sudo: $SUDO): exit $RC"
	sed 's/^/  out: /' "$fx/out"
	sed 's/^/  err: /' "$fx/err"
}

# ---- assertions (each prints why it fails) ----

want_rc() {
	[ "$RC" -eq "$1" ] || { echo "expected exit $1, got $RC"; return 1; }
}

added_file() {
	echo "$1/etc/apt/sources.list.d/rpma-fio.sources"
}

# want_added FIXTURE EXPECTED: the sources file holds exactly EXPECTED
want_added() {
	diff -u <(echo "$2") "$(added_file "$1")" || { echo "unexpected $(added_file "$1")"; return 1; }
}

want_nothing_added() {
	[ ! -e "$(added_file "$1")" ] || { echo "$(added_file "$1") was created:"; cat "$(added_file "$1")"; return 1; }
}

want_in() {
	grep -qF -- "$2" "$1" || { echo "'$2' not in $1:"; cat "$1"; return 1; }
}

want_not_in() {
	! grep -qF -- "$2" "$1" 2>/dev/null || { echo "'$2' in $1:"; cat "$1"; return 1; }
}

# ---- the cases ----

case_deb822() {
	local fx
	fx=$(fixture deb822)
	debian_sources "$fx"
	run_deps "$fx" sources
	want_rc 0
	want_added "$fx" "$(expected_added /etc/apt/sources.list.d/debian.sources "$MIRROR $MIRROR2" "$KEYRING")"
	want_in "$fx/out" "adding apt sources to $fx/etc/apt/sources.list.d/rpma-fio.sources"
	want_not_in "$fx/calls" "apt-get"
}

# apt itself reads the added stanzas: what an update would fetch (nothing is fetched)
case_apt_reads_them() {
	local fx lists=$WORK/apt-reads/lists
	fx=$(fixture apt-reads)
	debian_sources "$fx"
	run_deps "$fx" sources
	want_rc 0
	mkdir -p "$lists/partial" "$WORK/apt-reads/cache"
	apt-get -o "Dir::Etc::sourcelist=/dev/null" -o "Dir::Etc::sourceparts=$fx/etc/apt/sources.list.d" \
		-o "Dir::State::Lists=$lists" -o "Dir::Cache=$WORK/apt-reads/cache" -o Debug::NoLocking=1 \
		update --print-uris >"$fx/uris"
	want_in "$fx/uris" "'$MIRROR/dists/bookworm/main/source/Sources"
	want_in "$fx/uris" "'$MIRROR2/dists/bookworm/main/source/Sources"
	want_in "$fx/uris" "'$MIRROR/dists/bookworm-backports/main/binary-"
}

case_oneline_signed_by() {
	local fx
	fx=$(fixture oneline-signed)
	put "$fx" sources.list <<EOF
# deb-src $MIRROR bookworm main
deb [arch=amd64 signed-by=$KEYRING] $MIRROR bookworm main contrib
deb [signed-by=$KEYRING] http://mirror.example.internal/debian-security bookworm-security main
EOF
	run_deps "$fx" sources
	want_rc 0
	want_added "$fx" "$(expected_added /etc/apt/sources.list "$MIRROR" "$KEYRING")"
}

case_oneline_plain() {
	local fx
	fx=$(fixture oneline-plain)
	put "$fx" sources.list.d/mirror.list <<EOF
deb cdrom:[Debian GNU/Linux 12.5.0 _Bookworm_ - Official amd64 DVD Binary-1]/ bookworm contrib main
deb $MIRROR/ bookworm main # the office mirror
deb-src $MIRROR/ bookworm contrib # fio is in main
EOF
	run_deps "$fx" sources
	want_rc 0
	want_added "$fx" "$(expected_added /etc/apt/sources.list.d/mirror.list "$MIRROR/" "")"
}

# a snapshot mirror: its Check-Valid-Until goes along (its Release files have expired)
case_check_valid_until() {
	local fx snap=http://snapshot.example.internal/archive/debian/20250520T000000Z
	fx=$(fixture snapshot)
	put "$fx" sources.list <<EOF
deb [check-valid-until=no signed-by=$KEYRING] $snap bookworm main
EOF
	run_deps "$fx" sources
	want_rc 0
	want_in "$(added_file "$fx")" "URIs: $snap"
	[ "$(grep -c '^Check-Valid-Until: no$' "$(added_file "$fx")")" -eq 2 ] ||
		{ echo "not on both stanzas: Check-Valid-Until: no"; return 1; }
}

# deb-src and backports present (here in one-line format): nothing to add
case_already_present() {
	local fx
	fx=$(fixture present)
	debian_sources "$fx"
	put "$fx" sources.list <<EOF
deb-src [signed-by=$KEYRING] $MIRROR bookworm main
deb $MIRROR bookworm-backports main contrib
EOF
	run_deps "$fx" sources
	want_rc 0
	want_nothing_added "$fx"
	want_in "$fx/out" "apt sources already present"
}

# backports in rpma-fio.sources from an older run, without a final newline: deb-src
# only, in a stanza of its own (a second run sees both)
case_backports_only() {
	local fx expected
	fx=$(fixture backports-only)
	debian_sources "$fx"
	printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main' "$MIRROR" |
		put "$fx" sources.list.d/rpma-fio.sources
	expected=$(cat "$(added_file "$fx")")$'\n\n'$(expected_added /etc/apt/sources.list.d/debian.sources "$MIRROR $MIRROR2" "$KEYRING" deb-src)
	run_deps "$fx" sources
	want_rc 0
	want_added "$fx" "$expected"
	run_deps "$fx" sources
	want_rc 0
	want_in "$fx/out" "apt sources already present"
}

case_no_debian_entry() {
	local fx
	fx=$(fixture none)
	other_origins "$fx"
	put "$fx" sources.list <<EOF
deb http://mirror.example.internal/debian-security bookworm-security main
EOF
	run_deps "$fx"
	want_rc 1
	want_in "$fx/err" "no Debian bookworm entry found"
	want_in "$fx/err" "$fx/etc/apt/sources.list, $fx/etc/apt/sources.list.d/*.list and *.sources"
	want_in "$fx/err" "/etc/apt/sources.list.d/aaa-php.list: https://php.example.internal/php"
	want_in "$fx/err" "/etc/apt/sources.list.d/vendor.sources: https://vendor.example.internal/debian (Signed-By: an embedded key)"
	want_nothing_added "$fx"
	want_not_in "$fx/calls" "apt-get"
}

case_no_sources_at_all() {
	local fx
	fx=$(fixture empty)
	run_deps "$fx" sources
	want_rc 1
	want_in "$fx/err" "no Debian bookworm entry found"
	want_nothing_added "$fx"
}

# a disabled stanza neither is copied nor counts as present
case_disabled_stanza() {
	local fx
	fx=$(fixture disabled)
	put "$fx" sources.list.d/debian.sources <<EOF
Types: deb deb-src
URIs: http://disabled.example.internal/debian
Suites: bookworm bookworm-backports
Components: main
Enabled: no
Signed-By: $KEYRING

Types: deb
URIs: $MIRROR
Suites: bookworm
Components: main
Signed-By: $KEYRING
EOF
	run_deps "$fx" sources
	want_rc 0
	want_added "$fx" "$(expected_added /etc/apt/sources.list.d/debian.sources "$MIRROR" "$KEYRING")"
}

# other archives come first (in name order) and one serves "bookworm main"
case_other_origins_ignored() {
	local fx
	fx=$(fixture others)
	other_origins "$fx"
	debian_sources "$fx"
	run_deps "$fx" sources
	want_rc 0
	want_added "$fx" "$(expected_added /etc/apt/sources.list.d/debian.sources "$MIRROR $MIRROR2" "$KEYRING")"
}

case_twice() {
	local fx before
	fx=$(fixture twice)
	debian_sources "$fx"
	run_deps "$fx" sources
	want_rc 0
	before=$(cat "$(added_file "$fx")")
	run_deps "$fx" sources
	want_rc 0
	want_in "$fx/out" "apt sources already present"
	want_not_in "$fx/out" "adding apt sources"
	want_added "$fx" "$before"
}

# the sources deps.sh adds come from the machine: it names no mirror itself
case_no_mirror_in_script() {
	! grep -nE '[a-z]+://' "$ROOT/scripts/deps.sh" || { echo "a URL in scripts/deps.sh"; return 1; }
}

case_root_never_sudo() {
	local fx
	fx=$(fixture root)
	debian_sources "$fx"
	run_deps "$fx"
	want_rc 0
	want_not_in "$fx/calls" "sudo"
	want_in "$fx/calls" "apt-get update -qq"
	want_in "$fx/calls" "apt-get install -y -qq --no-install-recommends build-essential"
	want_in "$(added_file "$fx")" "Types: deb-src"
}

case_user_with_sudo() {
	local fx
	AS=user
	fx=$(fixture user-sudo)
	debian_sources "$fx"
	run_deps "$fx" vm
	want_rc 0
	want_in "$fx/calls" "sudo tee -a $(added_file "$fx")"
	want_in "$fx/calls" "sudo apt-get update -qq"
	want_in "$fx/calls" "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86"
	want_in "$(added_file "$fx")" "Types: deb-src"
}

case_user_without_sudo() {
	local fx
	AS=user SUDO=no
	fx=$(fixture user-nosudo)
	debian_sources "$fx"
	run_deps "$fx" build
	want_rc 1
	want_in "$fx/err" "installing build-essential"
	want_in "$fx/err" "run it as root or install sudo"
	want_not_in "$fx/calls" "apt-get"
	# sources to add, every package there: the same
	INSTALLED=all
	run_deps "$fx"
	want_rc 1
	want_in "$fx/err" "adding apt sources needs root"
	want_in "$fx/err" "run it as root or install sudo"
	want_nothing_added "$fx"
}

case_user_nothing_to_do() {
	local fx
	AS=user SUDO=no INSTALLED=all
	fx=$(fixture user-done)
	debian_sources "$fx"
	put "$fx" sources.list <<EOF
deb-src $MIRROR bookworm main
deb $MIRROR bookworm-backports main
EOF
	run_deps "$fx"
	want_rc 0
	want_in "$fx/out" "packages already installed"
	want_not_in "$fx/calls" "apt-get"
}

# `build` needs no extra sources: it does not look for a Debian entry
case_build_skips_sources() {
	local fx
	INSTALLED=all
	fx=$(fixture build)
	run_deps "$fx" build
	want_rc 0
	want_nothing_added "$fx"
}

case_cli() {
	local fx
	fx=$(fixture cli)
	run_deps "$fx" --help
	want_rc 0
	want_in "$fx/out" "scripts/deps.sh sources"
	run_deps "$fx" bogus
	want_rc 2
	want_in "$fx/err" "unknown set 'bogus'"
}

# ---- runner ----

# check NAME FUNCTION: the function in a subshell under set -e (an `if` would turn it off)
check() {
	local name=$1 rc
	set +e
	(
		set -e
		"$2"
	) >"$WORK/check.log" 2>&1
	rc=$?
	set -e
	verdict "$name" "$rc" "$WORK/check.log"
}

make_bins
check "deb822 entry: both sources added with its URIs and Signed-By" case_deb822
if command -v apt-get >/dev/null; then
	check "apt reads the added stanzas (update --print-uris)" case_apt_reads_them
else
	echo "SKIP apt reads the added stanzas (no apt-get)"
fi
check "one-line entry with [signed-by=...]: Signed-By copied" case_oneline_signed_by
check "one-line entry without options: no Signed-By" case_oneline_plain
check "snapshot entry: Check-Valid-Until copied" case_check_valid_until
check "deb-src and backports present: nothing added, no file" case_already_present
check "backports present, no deb-src: deb-src only, in its own stanza" case_backports_only
check "no Debian entry: clear error, nothing written" case_no_debian_entry
check "no apt sources at all: clear error" case_no_sources_at_all
check "disabled stanza (Enabled: no) ignored" case_disabled_stanza
check "other archives ignored (own key, other suites, security)" case_other_origins_ignored
check "second run adds nothing" case_twice
check "deps.sh names no mirror" case_no_mirror_in_script
if [ "$(id -u)" -eq 0 ]; then
	check "as root: apt-get directly, sudo never called" case_root_never_sudo
else
	echo "SKIP as root: apt-get directly, sudo never called (run the test as root)"
fi
check "as a user: sudo for tee and apt-get" case_user_with_sudo
check "as a user without sudo, something to change: clear error" case_user_without_sudo
check "as a user without sudo, nothing to change: success" case_user_nothing_to_do
check "build set: no sources looked at or added" case_build_skips_sources
check "--help and an unknown set" case_cli

summary
