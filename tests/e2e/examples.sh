#!/usr/bin/env bash
# tests/e2e/examples.sh -- run every example as server + client over real
# Soft-RoCE, inside the VM: scripts/softroce-vm run --pmem -- tests/e2e/examples.sh
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

: "${RPMA_TEST_ADDR:?run me inside the Soft-RoCE VM (scripts/softroce-vm run -- ...)}"
A=$RPMA_TEST_ADDR
X=build/examples

e2e_pair connection 'received private data: "hello from the server"' \
	$X/01-connection server "$A" "$(e2e_next_port)" @READY@ -- $X/01-connection client "$A" "$E2E_PORT"

e2e_pair write-flush-read-dram 'flush type visibility' \
	$X/02-write-flush-read server "$A" "$(e2e_next_port)" @READY@ -- \
	$X/02-write-flush-read client "$A" "$E2E_PORT"

if [ -n "${RPMA_TEST_DEVDAX:-}" ]; then
	e2e_pair write-flush-read-devdax 'flush type persistent' \
		$X/02-write-flush-read server "$A" "$(e2e_next_port)" @READY@ "$RPMA_TEST_DEVDAX" --direct-write -- \
		$X/02-write-flush-read client "$A" "$E2E_PORT"
fi
if [ -n "${RPMA_TEST_FSDAX_DIR:-}" ]; then
	f=$RPMA_TEST_FSDAX_DIR/e2e-region
	truncate -s 2M "$f"
	e2e_pair write-flush-read-fsdax 'flush type persistent' \
		$X/02-write-flush-read server "$A" "$(e2e_next_port)" @READY@ "$f" --direct-write -- \
		$X/02-write-flush-read client "$A" "$E2E_PORT"
	rm -f "$f"
fi

# Which atomic-write path the library must take on this kernel (6.1: emulated, 6.12: native).
case "$(uname -r)" in
6.1.*) path=emulated ;;
*) path=native ;;
esac
e2e_pair "atomic-write-$path" "atomic write: $path" \
	$X/03-atomic-write server "$A" "$(e2e_next_port)" @READY@ -- $X/03-atomic-write client "$A" "$E2E_PORT"

e2e_summary
