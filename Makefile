# rpma-fio -- top-level build (plain GNU make). `make help` lists the targets by group.
#
#   make                 build/librpma.a (PIC) and build/librpma.so
#   make check           the loop of development: every host-side stage (unit tests plain
#                        and under ASan+UBSan, coverage gate, man pages, the matrix report
#                        builder, deps.sh, lint, brief fuzzing) and one short VM run of the
#                        examples and both engines (CHECK_STAGES, at most 10 minutes)
#   make test            every test, stage by stage (TEST_STAGES below, each with its time
#                        budget; 45 minutes under TCG on 2 cores), a table of time against
#                        budget at the end
#   make test-unit       the cmocka unit tests (SANITIZE=1: under ASan+UBSan)
#   make test-e2e        the end-to-end suite in the VM (E2E_KERNELS="6.1 6.12");
#                        make test-e2e-6.1: one kernel
#   make coverage        unit tests with gcov, then line coverage of librpma/src (>= 90%)
#   make install         PREFIX=/usr/local DESTDIR= : header, libraries (librpma.so.0, as
#                        upstream's), librpma.pc (1.3.0), the fio engines (LIBDIR) and the
#                        job files (PREFIX/share/rpma-fio: there `fio
#                        --ioengine=external:librpma_apm.so jobs/write.fio` works as written);
#                        install-lib: the library only
#   make deb             Debian packages of all of it (mk/deb.mk, debian/, docs/packages.md)
#   make clean
#   the other parts' targets (man, fuzz, lint, peer, bench, native, ...): mk/*.mk

# `make` alone builds the library (the probe's rule below would otherwise be the default)
.DEFAULT_GOAL := all

# Python: Debian's interpreter (scripts/deps.sh installs it; the scripts need only its
# standard library) ahead of whatever python3 comes first on PATH, which may be a version
# manager's shim: pyenv's takes ~0.4 s a start against 0.04 s, and the tests and the
# matrix's report start python hundreds of times. build/python/ holds the one link.
ifneq ($(wildcard /usr/bin/python3),)
PYTHON_DIR := $(CURDIR)/build/python
$(shell mkdir -p $(PYTHON_DIR) && ln -sfn /usr/bin/python3 $(PYTHON_DIR)/python3)
export PATH := $(PYTHON_DIR):$(PATH)
endif

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share/rpma-fio
DESTDIR ?=
# the librpma API we implement (upstream's pkg-config version of it) and upstream's
# SOVERSION and symbol version node (librpma.map): binaries linked against upstream's
# librpma.so.0 load ours
VERSION := 1.3.0
SOVERSION := 0

CC ?= cc
comma := ,
# RDMA_CORE=PREFIX (scripts/rdma_core.sh prints it): build against that rdma-core instead
# of the system's, into build/native/; the binaries find it through their run path (fio,
# which links the system's libibverbs itself, needs LD_LIBRARY_PATH=PREFIX/lib)
RDMA_CORE ?=
BUILD := $(if $(RDMA_CORE),build/native,build)
PROVIDER_CFLAGS := $(if $(RDMA_CORE),-I$(RDMA_CORE)/include)
# Never -march=native: the binaries also run inside a TCG guest without AVX-512.
# -O2 with -O3's inlining limits: they let an I/O's path (engine, library, the method's
# hooks) fold into a few functions; with -O2's own the APM client took 811 instructions
# per I/O instead of 722 (callgrind, 4 KiB sync writes: docs/benchmarks-findings.md).
# Not -O3 itself: the same 722, but it grows all code (unrolling, vectorising), and the
# valgrind suites of make test, which translate every new block, ran minutes longer.
INLINE_LIMITS := --param max-inline-insns-auto=30 --param max-inline-insns-single=200 \
	--param early-inlining-insns=14
OPTFLAGS ?= -O2 -g $(INLINE_LIMITS)
# Link-time optimisation of the library and the engines: an I/O crosses a dozen small
# functions in as many objects (the engine, ops.c, post.c, mr.c, flush.c, cq.c) and
# their calls were a measurable share of its instructions (docs/BENCHMARKS.md). Fat
# objects: librpma.a also links, as plain code, into programs built without -flto.
LTOFLAGS ?= -flto=auto -ffat-lto-objects
WARNFLAGS := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# Hardening, as Debian builds its own packages (dpkg-buildflags on Debian 12 with
# hardening=+all; its gcc 12 adds none of it by itself, PIE aside): a canary in every
# function with a local array or an address-taken local, the checked variants of the
# string and stdio calls (__memcpy_chk, __snprintf_chk, ...) where a size is known, no
# non-literal format string, the relocations read-only after they are all resolved at
# load time. Every product build uses both variables: the library, the engines, the
# examples and the tools. A link that generates code (LTO) takes HARDEN_CFLAGS too. The
# unit tests (-O0, where _FORTIFY_SOURCE only warns) and the fuzz targets do not; nor
# does an OPTFLAGS without optimisation. make lint checks every product
# (tests/checks/harden/check_hardening.sh).
HARDEN_FORTIFY := $(if $(filter-out -O0,$(filter -O%,$(OPTFLAGS))),-D_FORTIFY_SOURCE=2)
HARDEN_CFLAGS ?= -fstack-protector-strong $(HARDEN_FORTIFY) -Wformat -Werror=format-security
HARDEN_LDFLAGS ?= -Wl,-z,relro -Wl,-z,now
BASE_CFLAGS := -std=gnu11 $(OPTFLAGS) $(WARNFLAGS) -fPIC -D_GNU_SOURCE \
	-Ilibrpma/include -Ilibrpma/src -fvisibility=hidden $(PROVIDER_CFLAGS)
LDLIBS_PROVIDER := $(if $(RDMA_CORE),-L$(RDMA_CORE)/lib -Wl$(comma)-rpath$(comma)$(RDMA_CORE)/lib) \
	-lrdmacm -libverbs

LIB_SRCS := $(sort $(wildcard librpma/src/*.c))
LIB_HDRS := librpma/include/librpma.h $(wildcard librpma/src/*.h)

# ---- what the installed rdma-core offers (decided once per build dir) ----
PROBE_H := $(BUILD)/probe.h

$(PROBE_H): Makefile | $(BUILD)
	@{ echo '/* generated by make: what rdma-core offers at build time */'; \
	  printf '#include <infiniband/verbs.h>\nvoid f(struct ibv_qp_ex *q);\nvoid f(struct ibv_qp_ex *q) { char d[8] = {0}; ibv_wr_atomic_write(q, 0, 0, d); }\n' \
	    | $(CC) $(PROVIDER_CFLAGS) -Werror=implicit-function-declaration -x c -c -o /dev/null - 2>/dev/null && echo '#define RPMA_HAVE_IBV_WR_ATOMIC_WRITE 1'; \
	  printf '#include <infiniband/verbs.h>\nvoid f(struct ibv_qp_ex *q);\nvoid f(struct ibv_qp_ex *q) { ibv_wr_flush(q, 0, 0, 0, 0, 0); }\n' \
	    | $(CC) $(PROVIDER_CFLAGS) -Werror=implicit-function-declaration -x c -c -o /dev/null - 2>/dev/null && echo '#define RPMA_HAVE_IBV_WR_FLUSH 1'; \
	  true; } > $@.tmp && mv $@.tmp $@
	@echo "probe: $$(grep -c define $@) native operation(s) available in rdma-core"

# ---- the library ----
LIB_OBJS := $(LIB_SRCS:librpma/src/%.c=$(BUILD)/obj/%.o)

all: $(BUILD)/librpma.a $(BUILD)/librpma.so $(BUILD)/librpma.so.$(SOVERSION)

$(BUILD):
	@mkdir -p $@

$(BUILD)/obj/%.o: librpma/src/%.c $(LIB_HDRS) $(PROBE_H)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(LTOFLAGS) $(HARDEN_CFLAGS) -include $(PROBE_H) -c -o $@ $<

$(BUILD)/librpma.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/librpma.so: $(LIB_OBJS) librpma/librpma.map
	$(CC) $(OPTFLAGS) $(LTOFLAGS) $(HARDEN_CFLAGS) $(HARDEN_LDFLAGS) -shared -o $@ \
		-Wl,-soname,librpma.so.$(SOVERSION) \
		-Wl,--version-script=librpma/librpma.map -Wl,--no-undefined $(LIB_OBJS) $(LDLIBS_PROVIDER) -lpthread

# the soname's link: LD_LIBRARY_PATH=build runs a program linked against librpma.so.0 on ours
$(BUILD)/librpma.so.$(SOVERSION): | $(BUILD)
	ln -sf librpma.so $@

# ---- unit tests: the library rebuilt with test flags, linked to the fake provider ----
ifeq ($(SANITIZE),1)
TEST_VARIANT := -san
TEST_FLAGS := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else ifeq ($(COVERAGE),1)
TEST_VARIANT := -cov
TEST_FLAGS := -O0 --coverage
else
TEST_VARIANT :=
TEST_FLAGS := -O0
endif
TBUILD := $(BUILD)/test$(TEST_VARIANT)
TEST_CFLAGS := $(filter-out -O% -fvisibility=hidden,$(BASE_CFLAGS)) -g $(TEST_FLAGS) \
	-include $(PROBE_H) -Itests/unit/common
# free is wrapped to look at what the library frees (secrets cleared first: fake_provider.h)
TEST_LDFLAGS := $(TEST_FLAGS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free

UNIT_DIRS := $(sort $(patsubst %/,%,$(dir $(wildcard tests/unit/*/*.c))))
# flush_native has a rule of its own below; engine_common is the engine tests' shared part
UNIT_NAMES := $(filter-out common engine_common flush_native,$(notdir $(UNIT_DIRS)))
UNIT_BINS := $(UNIT_NAMES:%=$(TBUILD)/unit/%)
TEST_LIB_OBJS := $(LIB_SRCS:librpma/src/%.c=$(TBUILD)/lib/%.o)
COMMON_SRCS := $(wildcard tests/unit/common/*.c)
COMMON_OBJS := $(COMMON_SRCS:tests/unit/common/%.c=$(TBUILD)/common/%.o)

$(TBUILD)/lib/%.o: librpma/src/%.c $(LIB_HDRS) $(PROBE_H)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -c -o $@ $<

$(TBUILD)/librpma-test.a: $(TEST_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(TBUILD)/common/%.o: tests/unit/common/%.c $(wildcard tests/unit/common/*.h) $(LIB_HDRS) $(PROBE_H)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -Wno-missing-prototypes -c -o $@ $<

.SECONDEXPANSION:
$(TBUILD)/unit/%: $$(wildcard tests/unit/%/*.c) $(COMMON_OBJS) $(TBUILD)/librpma-test.a
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -Wno-missing-prototypes -o $@ $(filter %.c,$^) $(COMMON_OBJS) \
		$(TBUILD)/librpma-test.a $(TEST_LDFLAGS) -lcmocka -lpthread

# The native flush path, which Debian 12's rdma-core cannot compile, built against a shim
# of a newer rdma-core: the objects that use ibv_wr_flush are rebuilt for this test only.
FLUSH_NATIVE_SRCS := flush peer cq post
FLUSH_NATIVE_OBJS := $(FLUSH_NATIVE_SRCS:%=$(TBUILD)/flush_native/%.o)
FLUSH_NATIVE_SHIM := tests/unit/flush_native/wr_flush_shim.h
UNIT_BINS += $(TBUILD)/unit/flush_native

$(TBUILD)/flush_native/%.o: librpma/src/%.c $(LIB_HDRS) $(PROBE_H) $(FLUSH_NATIVE_SHIM)
	@mkdir -p $(@D)
	@# -Wno-switch: the shim's IBV_WC_FLUSH is a number, not an enumerator of rdma-core 44
	$(CC) $(TEST_CFLAGS) -Wno-switch -include $(FLUSH_NATIVE_SHIM) -c -o $@ $<

$(TBUILD)/unit/flush_native: tests/unit/flush_native/flush_native_test.c $(FLUSH_NATIVE_OBJS) \
		$(COMMON_OBJS) $(TBUILD)/librpma-test.a
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -include $(FLUSH_NATIVE_SHIM) -Wno-missing-prototypes -o $@ $< \
		$(FLUSH_NATIVE_OBJS) $(COMMON_OBJS) $(TBUILD)/librpma-test.a $(TEST_LDFLAGS) -lcmocka -lpthread

# The compile test: the public header alone, strict C99, every function called.
$(BUILD)/compile/api_c99: tests/checks/compile/api_c99.c librpma/include/librpma.h \
		$(BUILD)/librpma.a
	@mkdir -p $(@D)
	$(CC) -std=c99 -pedantic -Wall -Wextra -Werror -Ilibrpma/include -o $@ $< \
		$(BUILD)/librpma.a $(LDLIBS_PROVIDER) -lpthread
	@# a deprecated call must warn
	@if $(CC) -std=c99 -Werror=deprecated-declarations -Ilibrpma/include -fsyntax-only \
		tests/checks/compile/deprecated.c 2>/dev/null; then \
		echo "FAIL: deprecated calls do not warn"; exit 1; fi
	@echo "compile test: OK (public header is C99-clean, every function links, deprecated calls warn)"

test-unit: $(UNIT_BINS) $(BUILD)/compile/api_c99
	@tests/unit/run.sh $(UNIT_BINS)

# End to end over real Soft-RoCE in the VM: one boot per kernel for the whole suite.
# 6.1's rxe lacks native ATOMIC WRITE, 6.12's has it: both paths are exercised.
E2E_KERNELS ?= 6.1 6.12
# the whole boot, all suites (~35 min under TCG on 6.1); each step has its own shorter timeout
E2E_TIMEOUT ?= 3600
# rxe and Soft-iWARP (siw, built for the guest's kernel on first use) in every e2e boot:
# tests/e2e/iwarp.sh runs on siw's address
E2E_TRANSPORT ?= rxe,iwarp
# (one VM at a time: every `run` takes the harness' own lock, docs/softroce-vm.md)
VM := scripts/softroce-vm

# what the VM runs, built on the host first (fragments add theirs: engines, peer, ...)
e2e-build: all examples

test-e2e: e2e-build
	@for k in $(E2E_KERNELS); do \
		echo "== e2e on kernel $$k =="; \
		$(VM) run --kernel $$k --transport $(E2E_TRANSPORT) --pmem --timeout $(E2E_TIMEOUT) -q \
			-- tests/e2e/run.sh || exit 1; \
	done

# one kernel's boot (make test-e2e-6.12); builds what test-e2e builds
test-e2e-%: e2e-build
	$(VM) run --kernel $* --transport $(E2E_TRANSPORT) --pmem --timeout $(E2E_TIMEOUT) -q \
		-- tests/e2e/run.sh

# scripts/lib/wait.sh on the host (every VM suite and bench waits through it)
test-wait:
	@tests/lib/wait_test.sh

# The iWARP suite alone (make test runs it in e2e-6.1's boot): Soft-iWARP beside Soft-RoCE
test-iwarp: e2e-build
	$(VM) run --transport rxe,iwarp --pmem --timeout 900 -q -- tests/e2e/iwarp.sh

# Unit tests also under ASan+UBSan, and the coverage gate (>= COVERAGE_MIN % of lines).
test-unit-san:
	$(MAKE) SANITIZE=1 test-unit

# Every test, stage by stage: host-side checks first (fast), then everything in the
# VM; a table of each stage's time against its budget at the end (tests/run_stages.sh).
# NAME=TARGET=BUDGET, the budget in m:ss under TCG on this project's 2-core machines:
# they add up to 45:00 at most (make test-budget checks it). A stage over its budget
# is marked in the table, never failed: speed is shown by benchmarks, not timed tests.
HOST_STAGES := unit=test-unit=0:15 unit-asan-ubsan=test-unit-san=0:26 coverage=coverage=0:11 \
	man=test-man=0:03 matrix-report=test-matrix=1:40 deps-script=test-deps=0:01 \
	fault-check=test-fault-check=0:01 lint=lint=1:28 fuzz-brief=fuzz-brief=0:45 \
	vm-unit=test-vm-unit=0:01 waits=test-wait=0:05
TEST_STAGES := $(HOST_STAGES) \
	native-build=test-native-build=0:49 build-for-vm=e2e-build=0:43 vm-accel=test-vm-accel=1:20 \
	fio-deb-sweep=test-fio-deb-sweep=1:56 e2e-6.1=test-e2e-6.1=12:30 native-6.12=test-native-e2e=6:00 \
	native-matrix=test-native-matrix=0:41 multinode=test-multinode=7:20 \
	matrix-vm=test-matrix-vm=4:25 cxl=test-cxl=4:00 doc-claims=test-doc-claims=0:01
# make check: the host stages and one short VM run (the examples, both engines), for
# the loop of development; make test stays the whole gate
CHECK_STAGES := $(HOST_STAGES) build-for-vm=e2e-build=0:43 vm-smoke=test-vm-smoke=1:45
TEST_BUDGET_MAX := 45:00
CHECK_BUDGET_MAX := 10:00

test: test-budget
	@tests/run_stages.sh $(TEST_STAGES)

check: test-budget
	@tests/run_stages.sh $(CHECK_STAGES)

# the budgets of make test and make check add up to no more than their maximum
test-budget:
	@tests/run_stages.sh --check-sum $(TEST_BUDGET_MAX) $(TEST_STAGES)
	@tests/run_stages.sh --check-sum $(CHECK_BUDGET_MAX) $(CHECK_STAGES)

# both engines with the fio of other Debian releases (make fio-versions), and across
# fio versions (a client's fio against another server's fio)
test-fio-versions: e2e-build fio-versions
	$(VM) run --timeout 600 -q -- tests/e2e/fio_versions.sh

# make test's stage of three suites that mostly wait, side by side in one boot: the fio
# releases (as test-fio-versions), the packages of make deb installed in place of
# Debian's librpma and removed again (tests/e2e/install.sh deb; make install's own way:
# make test-install) and the sweep job files (as test-sweep-vm)
test-fio-deb-sweep: e2e-build
	$(MAKE) --no-print-directory -j2 deb fio-versions
	$(VM) run --timeout 600 -q -- env E2E_RESULTS=build/e2e-results/fio-deb-sweep.tsv \
		tests/e2e/side_by_side.sh tests/e2e/fio_versions.sh 'tests/e2e/install.sh deb' \
		tests/matrix/sweep_vm.sh

# both engines' servers on CXL memory: the device DAX on the region of a persistent CXL
# type-3 device (scripts/softroce-vm run --cxl), fio's verify and the bytes read back,
# and the durability rounds across a power cut of the host whose CXL memory serves
test-cxl: e2e-build
	$(VM) run --nodes 2 --pmem --cxl --timeout 600 -q -- tests/multinode/cxl.sh

# the smoke run of make check: the examples and a few cases of each engine, one boot
test-vm-smoke: e2e-build
	$(VM) run --pmem --timeout 600 -q -- tests/e2e/smoke.sh

# docs/reliability.md's tables against the results of the tests they cite (after the e2e
# stages: build/e2e-results/<kernel>.tsv); the checker proves itself first
test-doc-claims: $(UNIT_BINS)
	@tests/checks/docs/check_claims.py --self-test
	@tests/checks/docs/check_claims.py docs/reliability.md

COVERAGE_MIN ?= 90

coverage:
	@mkdir -p $(BUILD)/test-cov/lib && rm -f $(BUILD)/test-cov/lib/*.gcda
	$(MAKE) COVERAGE=1 test-unit >$(BUILD)/coverage-tests.log 2>&1 || \
		{ tail -n 40 $(BUILD)/coverage-tests.log; exit 1; }
	@command -v gcovr >/dev/null || { echo "gcovr is missing: run scripts/deps.sh"; exit 1; }
	@gcovr --root . --filter 'librpma/src/' --object-directory $(BUILD)/test-cov/lib \
		--txt $(BUILD)/coverage.txt --fail-under-line $(COVERAGE_MIN) || \
		{ cat $(BUILD)/coverage.txt; echo "coverage: below $(COVERAGE_MIN)% of lines"; exit 1; }
	@grep -v '^-*$$' $(BUILD)/coverage.txt

# ---- examples: small programs that double as documentation and end-to-end tests ----
EXAMPLE_SRCS := $(sort $(wildcard examples/[0-9]*.c))
EXAMPLE_BINS := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/examples/%)

$(BUILD)/examples/%: examples/%.c examples/common/example.c examples/common/example.h $(BUILD)/librpma.a
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(OPTFLAGS) $(WARNFLAGS) $(HARDEN_CFLAGS) -Wno-missing-prototypes \
		-Ilibrpma/include -Iexamples $(PROVIDER_CFLAGS) $(HARDEN_LDFLAGS) -o $@ $< \
		examples/common/example.c $(BUILD)/librpma.a $(LDLIBS_PROVIDER) -lpthread

examples: $(EXAMPLE_BINS)

# ---- install ----
$(BUILD)/librpma.pc: librpma/librpma.pc.in Makefile | $(BUILD)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# the loader's cache must learn of new libraries in LIBDIR (not for a staged DESTDIR install)
LDCONFIG_IF_LIVE = if [ -z '$(DESTDIR)' ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null; \
	then ldconfig; fi

install-lib: all $(BUILD)/librpma.pc
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 644 librpma/include/librpma.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(BUILD)/librpma.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(BUILD)/librpma.so $(DESTDIR)$(LIBDIR)/librpma.so.$(VERSION)
	ln -sf librpma.so.$(VERSION) $(DESTDIR)$(LIBDIR)/librpma.so.$(SOVERSION)
	ln -sf librpma.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/librpma.so
	install -m 644 $(BUILD)/librpma.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	@$(LDCONFIG_IF_LIVE)

# The engines go where the loader finds a bare name. fio 3.33 also stat()s what follows
# `external:` before it dlopen()s it, so a bare name must exist in the current folder too:
# DATADIR holds links to them beside jobs/, so that there the design's command line works
# verbatim (fio --ioengine=external:librpma_apm.so jobs/write.fio). The installed server
# job files name the engines by their full path: they run from any folder.
install-engines: engines
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(DATADIR)/jobs
	install -m 755 $(ENGINE_SOS) $(DESTDIR)$(LIBDIR)/
	for so in $(notdir $(ENGINE_SOS)); do ln -sf $(LIBDIR)/$$so $(DESTDIR)$(DATADIR)/$$so; done
	for f in jobs/*.fio jobs/*.inc; do \
		sed 's|external:build/\(librpma_[a-z]*\.so\)|external:$(LIBDIR)/\1|' "$$f" \
			>"$(DESTDIR)$(DATADIR)/$$f" && chmod 644 "$(DESTDIR)$(DATADIR)/$$f" || exit 1; \
	done
	@$(LDCONFIG_IF_LIVE)

install: install-lib install-engines

clean:
	rm -rf $(BUILD)

include engines/engines.mk
# further parts, one fragment each: mk/<part>.mk (matrix, peer, fuzz, man, ...)
include $(sort $(wildcard mk/*.mk))

.SECONDARY:
.PHONY: all examples engines e2e-build test check test-budget test-wait test-vm-smoke test-cxl test-fio-versions test-fio-deb-sweep test-unit test-unit-san test-e2e test-iwarp test-doc-claims coverage install install-lib \
	install-engines clean
