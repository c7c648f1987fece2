# mk/help.mk -- make help: the targets a user and a developer need, grouped, one line each.

define HELP_TEXT
Build and install
  make                  the library: build/librpma.a (PIC), build/librpma.so
  make engines          the fio engines: build/librpma_apm.so, build/librpma_gpspm.so
  make tools            beside them: the matrix's per-I/O cost counter, the tests' hostile peers
  make examples         the example programs (build/examples/)
  make native           all of it against a newer rdma-core (native FLUSH): build/native/
  make peer             upstream librpma 1.2.0 + fio 3.33's engines, privately (build/peer/)
  make install          PREFIX=/usr/local DESTDIR=: library, header, librpma.pc, man pages,
                        engines, job files (install-lib: the library part only)
  make deb              Debian packages (build/deb/): librpma0-rpmafio, librpma-rpmafio-dev,
                        rpma-fio (engines for the installed fio), lintian-checked
  make fio-versions     the engines for the fio of other Debian releases (FIO_RELEASES):
                        build/fio-VERSION/ (make engines FIO_SRC=DIR FIO=BIN: any fio tree)
  make man              the man pages (build/man/)
  make clean            remove build/

Measure
  scripts/run_matrix.sh the persistency-method comparison (--help; docs/matrix.md)
  make bench            ours vs the peer into docs/BENCHMARKS.md (~30 min in the VM)

Test
  make check            the loop of development (~6 min, ~4 once built): every host-side
                        stage and a short run of the examples and both engines in the VM
  make test             everything, stage by stage, each against its budget (45 min in all)
  make test-unit        the cmocka unit tests (SANITIZE=1: under ASan+UBSan)
  make coverage         line coverage of librpma/src (at least 90 %)
  make lint             cppcheck, clang-tidy, shellcheck, include and call circles, hardening,
                        exported symbols' version nodes
  make fuzz             each libFuzzer target for FUZZ_SECONDS (60)
  make test-e2e-6.1     the end-to-end suites in the Soft-RoCE VM on kernel 6.1 (or 6.12)
  make test-vm-smoke    the short VM run of make check alone
  make test-multinode   the suites across three guests
  make test-iwarp       the library, examples, engines and the peer over Soft-iWARP (siw)
  make test-matrix-vm   the matrix pipeline in the VM; make test-matrix: its report, on the host
  make test-fio-versions  both engines with each fio of make fio-versions, and across fio versions
  make test-install     make install and the packages installed in the VM, used, removed
  make test-interop / test-faults / test-native: the peer, fault injection, native FLUSH

The stages and budgets of make test: TEST_STAGES in the Makefile (make test ends with
them as a table); docs/architecture.md maps the tests; each mk/*.mk says what its targets do.
endef
export HELP_TEXT

help:
	@echo "$$HELP_TEXT"

.PHONY: help
