# mk/deps.mk -- the test of scripts/deps.sh (included by the top Makefile).
#
#   make test-deps      which apt sources deps.sh adds, and when it uses sudo, on sample
#                       apt sources with stub apt-get/dpkg-query/sudo (host only, seconds;
#                       run as root to cover the root and the user cases)

test-deps:
	@tests/checks/deps/test_deps.sh

.PHONY: test-deps
