#!/usr/bin/env bash
# tests/e2e/install.sh -- `make install` as a user does it, inside the VM (whose
# root is a throw-away RAM overlay, so installing into /usr/local is harmless):
#
#   scripts/softroce-vm run -- tests/e2e/install.sh
#
# Checks: the library installs as upstream's does (librpma.so.0, soname
# librpma.so.0, symbol version LIBRPMA_1.0, pkg-config 1.3.0 and a program
# built with `pkg-config --cflags --libs librpma` runs); the engines and job
# files install so that the design's command line works verbatim from the
# installed folder -- `fio --ioengine=external:librpma_apm.so jobs/write.fio`
# (fio stat()s the bare name there, then dlopen() finds it in LIBDIR) -- for
# both engines, with the installed server job file run from another folder.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh
: "${RPMA_TEST_ADDR:?run me inside the Soft-RoCE VM (scripts/softroce-vm run -- ...)}"
[ "$(id -u)" = 0 ] || { echo "FAIL install: needs root (the VM's)"; exit 1; }
ROOT=$PWD
PREFIX=/usr/local
DATADIR=$PREFIX/share/rpma-fio
E2E_PORT=7600

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

lib_is_upstreams_shape() {
	local lib=$PREFIX/lib
	[ -e "$lib/librpma.so.0" ] || { echo "no $lib/librpma.so.0"; return 1; }
	readelf -d "$lib/librpma.so.0" | grep -q 'SONAME.*\[librpma.so.0\]' || { echo "soname"; return 1; }
	objdump -T "$lib/librpma.so.0" | grep -q 'LIBRPMA_1.0 *rpma_peer_new$' || { echo "version node"; return 1; }
	[ "$(pkg-config --modversion librpma)" = 1.3.0 ] || { echo "pkg-config: $(pkg-config --modversion librpma)"; return 1; }
	pkg-config --atleast-version=1.3.0 librpma || { echo "pkg-config --atleast-version=1.3.0 fails"; return 1; }
	# a program built the way README says, run through the loader's cache
	local prog=$E2E_TMP/err2str
	printf '#include <librpma.h>\n#include <stdio.h>\nint main(void) { puts(rpma_err_2str(RPMA_E_INVAL)); return 0; }\n' >"$prog.c"
	# shellcheck disable=SC2046 # pkg-config's words are separate arguments
	cc -o "$prog" "$prog.c" $(pkg-config --cflags --libs librpma) || return 1
	ldd "$prog" | grep -q "librpma.so.0 => $lib/librpma.so.0" || { ldd "$prog"; return 1; }
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

check make-install do_install
check library-installs-as-upstreams lib_is_upstreams_shape
check engines-in-libdir-no-build-path-in-jobs \
	sh -c "[ -f $PREFIX/lib/librpma_apm.so ] && [ -f $PREFIX/lib/librpma_gpspm.so ] &&
		[ -f $DATADIR/librpma_apm.so ] && ! grep -l 'external:build/' $DATADIR/jobs/*.fio"
cd / || exit 1
for m in apm gpspm; do
	verbatim_pair "$m"
done
cd "$ROOT" || exit 1
e2e_summary
