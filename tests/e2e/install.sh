#!/usr/bin/env bash
# tests/e2e/install.sh -- rpma-fio installed as a user installs it, inside the VM
# (whose root is a throw-away RAM overlay: installing there is harmless):
#
#   scripts/softroce-vm run -- tests/e2e/install.sh deb    the packages of make deb
#   scripts/softroce-vm run -- tests/e2e/install.sh make   make install into /usr/local
#
# deb: Debian's own librpma0 and librpma-dev (1.2.0, the peer's) are installed first
# and a program is built against them; then `dpkg -i` of librpma0-rpmafio,
# librpma-rpmafio-dev and rpma-fio replaces them (Conflicts/Replaces) and that
# program runs on ours unchanged; at the end `apt-get remove` takes every file of
# ours away again.
# Both: the library installs as upstream's does (librpma.so.0, soname librpma.so.0,
# symbol version LIBRPMA_1.0, pkg-config 1.3.0 and a program built with
# `pkg-config --cflags --libs librpma` runs); the engines and job files install so
# that the design's command line works verbatim from the installed folder -- `fio
# --ioengine=external:librpma_apm.so jobs/write.fio` (fio stat()s the bare name
# there, then dlopen() finds it in LIBDIR) -- for both engines, with the installed
# server job file run from another folder.
set -u
cd "$(dirname "$0")/../.." || exit 1
# Debian's own fio, as a user of the packages runs it (not build/fio-lean)
E2E_FIO=system
. tests/e2e/lib.sh
e2e_in_vm
[ "$(id -u)" = 0 ] || { echo "FAIL install: needs root (the VM's)"; exit 1; }
ROOT=$PWD
MODE=${1:-}
case "$MODE" in
make) PREFIX=/usr/local LIB=/usr/local/lib ;;
deb) PREFIX=/usr LIB=/usr/lib/$(gcc -print-multiarch)
	export E2E_NAME_PREFIX=deb- ;;
*) echo "usage: $0 make|deb" >&2; exit 2 ;;
esac
DATADIR=$PREFIX/share/rpma-fio
E2E_PORT=7600
OURS=(librpma0-rpmafio librpma-rpmafio-dev rpma-fio)
DEBIANS=(librpma0 librpma-dev)

# check NAME COMMAND...: one test that is the command's success
check() {
	local name=$1
	shift
	E2E_DIR=$E2E_TMP/$name
	mkdir -p "$E2E_DIR"
	local status=0
	"$@" >"$E2E_DIR/check.log" 2>&1 || status=1
	e2e_result "$name" "$status"
	[ "$status" -eq 0 ] || sed 's/^/  | /' "$E2E_DIR/check.log"
}

do_install() {
	# everything is built on the host: install only copies (make -q: nothing to build)
	make -q all || { echo "the library is not built (run make on the host)"; return 1; }
	timeout 120 make -s install PREFIX="$PREFIX"
}

# the status dpkg has for PACKAGE ("install ok installed"; empty when it knows none)
pkg_status() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null
}

# a program built against librpma as pkg-config finds it: OUT
build_program() { # OUT
	printf '#include <librpma.h>\n#include <stdio.h>\nint main(void) { puts(rpma_err_2str(RPMA_E_INVAL)); return 0; }\n' >"$1.c"
	# shellcheck disable=SC2046 # pkg-config's words are separate arguments
	cc -o "$1" "$1.c" $(pkg-config --cflags --libs librpma)
}

# apt without the machine's package lists (no network; nothing to download: what the
# packages need is installed): it works from dpkg's status, in seconds under TCG
APT=(apt-get -y -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$E2E_TMP/apt/lists" -o Dir::Cache="$E2E_TMP/apt/cache")

# What every dpkg run reads of its database (the status, the file lists of every
# package, the triggers) copied up into the overlay's RAM layer once (touch does), not
# read over 9p each time (about 45 s a dpkg run under TCG; 7 s so); no man-db index
# rebuild after each install
dpkg_in_ram() {
	mkdir -p "$E2E_TMP/apt/lists/partial" "$E2E_TMP/apt/cache/archives/partial"
	find /var/lib/dpkg -maxdepth 1 -type f -exec touch {} + &&
		find /var/lib/dpkg/info -name '*.list' -exec touch {} + &&
		find /var/lib/dpkg/triggers -type f -exec touch {} + &&
		rm -f /var/lib/man-db/auto-update
}

# Debian's librpma0 and librpma-dev, and a program built against them
debians_installed() {
	local debs=("$ROOT"/build/peer/debs/librpma0_*.deb "$ROOT"/build/peer/debs/librpma-dev_*.deb)
	if [ ! -f "${debs[0]}" ] || [ ! -f "${debs[1]}" ]; then
		echo "no Debian librpma packages in build/peer/debs (make peer)"
		return 1
	fi
	timeout 120 dpkg -i "${debs[@]}" || return 1
	[ "$(pkg-config --modversion librpma)" = 1.2.0 ] || { echo "pkg-config: $(pkg-config --modversion librpma), not Debian's 1.2.0"; return 1; }
	build_program "$E2E_TMP/built-on-debians" || return 1
	"$E2E_TMP/built-on-debians" | grep -qi 'invalid'
}

# ours in place of Debian's: dpkg removes them (Conflicts + Replaces)
ours_replace_debians() {
	local p debs=()
	for p in "${OURS[@]}"; do
		debs+=("$(compgen -G "$ROOT/build/deb/${p}_*.deb" | head -n 1)")
		[ -f "${debs[-1]}" ] || { echo "no build/deb/${p}_*.deb (make deb)"; return 1; }
	done
	# as a user installs local packages: apt removes what they conflict with
	timeout 120 "${APT[@]}" install "${debs[@]}" || return 1
	for p in "${OURS[@]}"; do
		[ "$(pkg_status "$p")" = "install ok installed" ] || { echo "$p: '$(pkg_status "$p")'"; return 1; }
		dpkg -L "$p" >>"$E2E_TMP/our-files"
	done
	for p in "${DEBIANS[@]}"; do
		case "$(pkg_status "$p")" in
		"" | "unknown ok not-installed" | "deinstall ok config-files" | "purge ok not-installed") ;;
		*) echo "Debian's $p is still there: '$(pkg_status "$p")'"; return 1 ;;
		esac
	done
}

# the program built against Debian's librpma runs on ours, unchanged
debians_program_runs_on_ours() {
	local resolved
	resolved=$(ldd "$E2E_TMP/built-on-debians" | awk '$1 == "librpma.so.0" { print $3 }')
	# (/lib is /usr/lib on Debian 12: compare where the links lead)
	[ "$(readlink -f "$resolved")" = "$(readlink -f "$LIB/librpma.so.1.3.0")" ] ||
		{ echo "librpma.so.0 is $resolved"; ls -l "$LIB"/librpma.so*; return 1; }
	"$E2E_TMP/built-on-debians" | grep -qi 'invalid'
}

# apt-get remove takes every file of ours away and dpkg knows none of ours
ours_removed() {
	local p f left=0
	timeout 120 "${APT[@]}" remove "${OURS[@]}" || return 1
	for p in "${OURS[@]}"; do
		case "$(pkg_status "$p")" in
		"" | "unknown ok not-installed") ;;
		*) echo "$p: '$(pkg_status "$p")' after apt-get remove"; left=1 ;;
		esac
	done
	while read -r f; do
		# a folder others share (/usr/lib/...) stays; a file or a folder of our own must go
		[ -e "$f" ] || [ -L "$f" ] || continue
		[ -d "$f" ] && [ ! -L "$f" ] && [ "${f#"$DATADIR"}" = "$f" ] && [ "${f#/usr/share/doc/}" = "$f" ] && continue
		echo "left behind: $f"
		left=1
	done <"$E2E_TMP/our-files"
	[ "$left" -eq 0 ] && [ -s "$E2E_TMP/our-files" ]
}

lib_is_upstreams_shape() {
	local lib=$LIB
	[ -e "$lib/librpma.so.0" ] || { echo "no $lib/librpma.so.0"; return 1; }
	readelf -d "$lib/librpma.so.0" | grep -q 'SONAME.*\[librpma.so.0\]' || { echo "soname"; return 1; }
	objdump -T "$lib/librpma.so.0" | grep -q 'LIBRPMA_1.0 *rpma_peer_new$' || { echo "version node"; return 1; }
	[ "$(pkg-config --modversion librpma)" = 1.3.0 ] || { echo "pkg-config: $(pkg-config --modversion librpma)"; return 1; }
	pkg-config --atleast-version=1.3.0 librpma || { echo "pkg-config --atleast-version=1.3.0 fails"; return 1; }
	# a program built the way README says, run through the loader's cache
	local prog=$E2E_TMP/err2str
	build_program "$prog" || return 1
	[ "$(readlink -f "$(ldd "$prog" | awk '$1 == "librpma.so.0" { print $3 }')")" = \
		"$(readlink -f "$lib/librpma.so.0")" ] || { ldd "$prog"; return 1; }
	"$prog" | grep -qi 'invalid'
}

# The server from / with the installed job file, the client with the design's
# command line from the installed jobs' folder; defaults but a short run.
verbatim_pair() { # METHOD
	local m=$1 status=0
	E2E_DIR=$E2E_TMP/verbatim-$m
	mkdir -p "$E2E_DIR"
	E2E_PORT=$((E2E_PORT + 4))
	(cd / && exec timeout "$E2E_STEP_TIMEOUT" env SERVER_IP="$RPMA_TEST_ADDR" PORT="$E2E_PORT" \
		fio "$DATADIR/jobs/$m-server.fio") >"$E2E_DIR/server.log" 2>&1 &
	local spid=$!
	if e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$spid"; then
		echo "client: (cd $DATADIR && fio --ioengine=external:librpma_$m.so jobs/write.fio)" >"$E2E_DIR/why"
		(cd "$DATADIR" && exec timeout "$E2E_STEP_TIMEOUT" env SERVER_IP="$RPMA_TEST_ADDR" \
			PORT="$E2E_PORT" RUNTIME=1s RAMP=0 \
			fio "--ioengine=external:librpma_$m.so" jobs/write.fio) >"$E2E_DIR/client.log" 2>&1 || status=1
	else
		echo "the server did not listen" >>"$E2E_DIR/why"
		kill "$spid" 2>/dev/null
		status=1
	fi
	wait "$spid" || status=1
	grep -Eq 'WRITE: bw=' "$E2E_DIR/client.log" || status=1
	e2e_result "installed-$m-command-verbatim" "$status"
	e2e_show_logs_if "$status"
}

if [ "$MODE" = make ]; then
	check make-install do_install
else
	check dpkg-database-in-ram dpkg_in_ram
	check debians-librpma-installed debians_installed
	check packages-replace-debians ours_replace_debians
	check program-built-on-debians-runs-on-ours debians_program_runs_on_ours
fi
check library-installs-as-upstreams lib_is_upstreams_shape
check engines-in-libdir-no-build-path-in-jobs \
	sh -c "[ -f $LIB/librpma_apm.so ] && [ -f $LIB/librpma_gpspm.so ] &&
		[ -f $DATADIR/librpma_apm.so ] && ! grep -l 'external:build/' $DATADIR/jobs/*.fio"
cd / || exit 1
for m in apm gpspm; do
	verbatim_pair "$m"
done
cd "$ROOT" || exit 1
[ "$MODE" = deb ] && check packages-removed-cleanly ours_removed
e2e_summary
