# mk/multinode.mk -- the suites that need more than one host (included by the top Makefile).
#
#   make test-multinode   three guests of the Soft-RoCE VM on one virtual network
#                         (scripts/softroce-vm run --nodes 3): node0 runs the clients and
#                         the controller, node1 the servers (over ssh), node2 a second
#                         client host: the examples and both engines across the network
#                         with fio's verify, run_matrix.sh --server and --clients, Ctrl-C,
#                         the server's link taken down mid-run; both engines over
#                         Soft-iWARP across two guests (siw on each guest's eth1)

MULTINODE_TIMEOUT ?= 1200

test-multinode: e2e-build
	$(VM) run --nodes 3 --transport rxe,iwarp --pmem --timeout $(MULTINODE_TIMEOUT) \
		-q -- tests/multinode/run.sh

.PHONY: test-multinode
