#!/usr/bin/env bash
# tests/native/check_build.sh -- the native build (make native, build/native/) is what it
# claims: built against the private rdma-core of scripts/rdma_core.sh, its probe found
# ibv_wr_flush and ibv_wr_atomic_write, its library, examples and engines load that
# rdma-core's libibverbs and librdmacm (not the system's) and are hardened as the default
# build is (tests/checks/harden/check_hardening.sh), and that rdma-core has the rxe
# provider the Soft-RoCE VM needs, registered in its own configuration directory.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
B=build/native
passed=0 failed=0

check() { # NAME CONDITION-STATUS [WHY]
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS native-build $1"
	else
		failed=$((failed + 1))
		echo "FAIL native-build $1${3:+: $3}"
	fi
}

prefix=$(scripts/rdma_core.sh) || { echo "FAIL native-build: scripts/rdma_core.sh failed"; exit 1; }

for verb in FLUSH ATOMIC_WRITE; do
	grep -q "^#define RPMA_HAVE_IBV_WR_$verb 1" "$B/probe.h"
	check "probe-finds-ibv_wr_${verb,,}" $? "$B/probe.h: $(tr '\n' ' ' <"$B/probe.h")"
done

# loads LIB from the private prefix (ldd resolves through the binary's run path)
loads_private() { # BINARY LIB
	local where
	where=$(ldd "$1" 2>/dev/null | awk -v lib="$2" '$1 == lib { print $3 }')
	[[ $where == "$prefix"/lib/* ]] || { echo "$2 from '${where:-nowhere}'"; return 1; }
}
for bin in "$B/librpma.so" "$B/examples/02-write-flush-read" "$B/librpma_apm.so" "$B/librpma_gpspm.so"; do
	for lib in libibverbs.so.1 librdmacm.so.1; do
		why=$(loads_private "$bin" "$lib")
		check "$(basename "$bin")-loads-private-$lib" $? "$why"
	done
done

# hardened as the default build is (the same rules: HARDEN_CFLAGS, HARDEN_LDFLAGS)
out=$(tests/checks/harden/check_hardening.sh "$B")
check hardened $? "$(grep '^FAIL' <<<"$out" | tr '\n' ' ')"

compgen -G "$prefix/lib/libibverbs/librxe-*.so" >/dev/null
check rxe-provider $? "no librxe in $prefix/lib/libibverbs"
grep -qs '^driver rxe' "$prefix/etc/libibverbs.d/rxe.driver"
check rxe-provider-registered $? "no $prefix/etc/libibverbs.d/rxe.driver"

echo "native-build: $passed passed, $failed failed ($prefix)"
[ "$failed" -eq 0 ]
