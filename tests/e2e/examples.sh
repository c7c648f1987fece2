#!/usr/bin/env bash
# tests/e2e/examples.sh -- run every example as server + client over real
# Soft-RoCE, inside the VM: scripts/softroce-vm run --pmem -- tests/e2e/examples.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh
e2e_in_vm
X=${E2E_EXAMPLES:-build/examples}
# E2E_WRAPPER: a command every example runs under (tests/e2e/valgrind.sh sets it)
read -ra RUN <<<"${E2E_WRAPPER:-}"

e2e_pair connection 'received private data: "hello from the server"' \
	"${RUN[@]}" "$X"/01-connection server "$A" @PORT@ @READY@ -- "${RUN[@]}" "$X"/01-connection client "$A" @PORT@

e2e_pair write-flush-read-dram 'flush type visibility' \
	"${RUN[@]}" "$X"/02-write-flush-read server "$A" @PORT@ @READY@ -- \
	"${RUN[@]}" "$X"/02-write-flush-read client "$A" @PORT@

if [ -n "${RPMA_TEST_DEVDAX:-}" ]; then
	e2e_pair write-flush-read-devdax 'flush type persistent' \
		"${RUN[@]}" "$X"/02-write-flush-read server "$A" @PORT@ @READY@ "$RPMA_TEST_DEVDAX" --direct-write -- \
		"${RUN[@]}" "$X"/02-write-flush-read client "$A" @PORT@
fi
if [ -n "${RPMA_TEST_FSDAX_DIR:-}" ]; then
	f=$RPMA_TEST_FSDAX_DIR/e2e-region
	truncate -s 2M "$f"
	if ibv_devinfo -v 2>/dev/null | grep -A1 rc_odp_caps | grep -q 'NO SUPPORT'; then
		# Soft-RoCE cannot pin fsdax pages and has no ODP: the library must say so clearly.
		e2e_fails write-flush-read-fsdax-needs-odp 'On-Demand Paging' \
			"${RUN[@]}" "$X"/02-write-flush-read server "$A" @PORT@ @READY@ "$f" --direct-write
	else
		e2e_pair write-flush-read-fsdax 'flush type persistent' \
			"${RUN[@]}" "$X"/02-write-flush-read server "$A" @PORT@ @READY@ "$f" --direct-write -- \
			"${RUN[@]}" "$X"/02-write-flush-read client "$A" @PORT@
	fi
	rm -f "$f"
fi

# Which atomic-write path the library must take on this kernel (6.1: emulated, 6.12: native),
# as its completion shows: the device's ATOMIC_WRITE, or the emulating 8-byte RDMA_WRITE.
case "$(uname -r)" in
6.1.*) path=emulated opcode=RDMA_WRITE ;;
*) path=native opcode=ATOMIC_WRITE ;;
esac
e2e_pair "atomic-write-$path" "the atomic write completed as $opcode\$" \
	"${RUN[@]}" "$X"/03-atomic-write server "$A" @PORT@ @READY@ -- "${RUN[@]}" "$X"/03-atomic-write client "$A" @PORT@

e2e_pair messages 'client: 100 messages sent, every answer was the number plus one' \
	"${RUN[@]}" "$X"/04-messages server "$A" @PORT@ @READY@ -- "${RUN[@]}" "$X"/04-messages client "$A" @PORT@

e2e_pair immediate 'RECV completion with immediate value 0xd5b4e003' \
	"${RUN[@]}" "$X"/05-immediate server "$A" @PORT@ @READY@ -- "${RUN[@]}" "$X"/05-immediate client "$A" @PORT@

e2e_pair receive-cq 'answers on the RCQ, told apart by rpma_conn_wait' \
	"${RUN[@]}" "$X"/06-receive-cq server "$A" @PORT@ @READY@ -- "${RUN[@]}" "$X"/06-receive-cq client "$A" @PORT@

# one SRQ on the server, three clients at once
e2e_many srq '^client [0-9]+: 8 messages sent$' 3 \
	"${RUN[@]}" "$X"/07-srq server "$A" @PORT@ @READY@ -- "${RUN[@]}" "$X"/07-srq client "$A" @PORT@ @ID@

# one epoll loop on the server, four clients at once
e2e_many multiple-connections '^client [0-9]+: wrote 0xc0ffee' 4 \
	"${RUN[@]}" "$X"/08-multiple-connections server "$A" @PORT@ @READY@ -- \
	"${RUN[@]}" "$X"/08-multiple-connections client "$A" @PORT@ @ID@

e2e_pair reject 'the server rejected the connection \(RPMA_CONN_REJECTED' \
	"${RUN[@]}" "$X"/09-reject server "$A" @PORT@ @READY@ -- "${RUN[@]}" "$X"/09-reject client "$A" @PORT@

# SIGKILL one side while the client writes; the other must notice and end cleanly
e2e_kill peer-gone-client client 'first data arrived' '^server: the client is gone: ' \
	"${RUN[@]}" "$X"/10-peer-gone server "$A" @PORT@ @READY@ -- "${RUN[@]}" "$X"/10-peer-gone client "$A" @PORT@
e2e_kill peer-gone-server server 'first data arrived' '^client: the server is gone: ' \
	"${RUN[@]}" "$X"/10-peer-gone server "$A" @PORT@ @READY@ -- "${RUN[@]}" "$X"/10-peer-gone client "$A" @PORT@

e2e_pair multithreaded 'client: 4 threads x 25 write\+read rounds on one connection' \
	"${RUN[@]}" "$X"/11-multithreaded server "$A" @PORT@ @READY@ -- "${RUN[@]}" "$X"/11-multithreaded client "$A" @PORT@

e2e_summary
