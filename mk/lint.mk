# mk/lint.mk -- static checkers over librpma/src, engines/, examples/ and tests/tools/.
#
#   make lint          cppcheck (tests/checks/lint/cppcheck.supp), clang-tidy
#                      (.clang-tidy), shellcheck over every shell script in git, no
#                      include circle and no call circle between the modules of
#                      engines/ and librpma/src (tests/checks/lint/include_cycles.py,
#                      call_cycles.py), every external function of librpma/src
#                      commented at its prototype with an ERRORS list
#                      (tests/checks/lint/function_comments.py), every product hardened
#                      (tests/checks/harden/check_hardening.sh), and librpma.so's
#                      exports at the version nodes debian/librpma0-rpmafio.symbols
#                      records (tests/checks/abi/check_exports.sh); any finding fails
#                      the make
#
# Each tool gets the flags the real build uses; fio's headers are system headers.
# Findings are fixed, or suppressed with a one-line reason: in .clang-tidy for a
# check as a whole, or next to the code (NOLINT / cppcheck-suppress) for one line.

LINT_LIB_SRCS := $(LIB_SRCS)
# io.c allocates arrays of pointers (sizeof(*c->queued), a struct rpmafio_io *): clang-tidy
# 14's bugprone-sizeof-expression flags that as sizeof(pointer to aggregate) and has no option
# yet to tell it apart; the check stays on everywhere else
LINT_SIZEOF_EXCEPT := engines/client/io.c
# the engines' fio-free code is checked without fio's headers, as it is built
LINT_ENGINE_SRCS := $(filter-out $(LINT_SIZEOF_EXCEPT),$(sort $(wildcard engines/*.c) \
	$(ENGINE_CORE_SRCS)))
LINT_ENGINE_FIO_SRCS := $(ENGINE_FIO_SRCS)
LINT_PLAIN_SRCS := $(sort $(wildcard examples/*.c examples/common/*.c tests/tools/*.c))
LINT_FIO_FLAGS := -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64 -DFIO_INC_DEBUG \
	-include $(FIO_CONFIG_H) -isystem $(FIO_SRC) -I$(FIO_API_DIR)
LINT_COMMON_FLAGS := -std=gnu11 -D_GNU_SOURCE -Ilibrpma/include -Ilibrpma/src -Iengines \
	-Iexamples -I$(GPSPM_GEN)

lint-cppcheck: $(PROBE_H) $(GPSPM_PB).h
	@command -v cppcheck >/dev/null || { echo "lint: cppcheck is missing" >&2; exit 1; }
	cppcheck -q --error-exitcode=1 --enable=warning,style,performance,portability \
		--inline-suppr --suppressions-list=tests/checks/lint/cppcheck.supp --std=c11 \
		-D_GNU_SOURCE -Ilibrpma/include -Ilibrpma/src -Iengines -Iexamples -I$(GPSPM_GEN) \
		--include=$(PROBE_H) --suppress='*:$(BUILD)/*' \
		--template='{file}:{line}: {severity}: {message} [{id}]' \
		librpma/src engines examples tests/tools

# the five runs in two lanes, one a core (the library's and the plain files' in one, the
# engines' in the other: about the same time); any finding fails the lane, and the make
lint-clang-tidy: $(PROBE_H) $(GPSPM_PB).h $(FIO_CONFIG_H) $(FIO_API_H)
	@command -v clang-tidy >/dev/null || { echo "lint: clang-tidy is missing" >&2; exit 1; }
	@{ clang-tidy --quiet $(LINT_LIB_SRCS) -- $(LINT_COMMON_FLAGS) -include $(PROBE_H) && \
		clang-tidy --quiet $(LINT_PLAIN_SRCS) -- $(LINT_COMMON_FLAGS); } & lib=$$!; \
	{ clang-tidy --quiet $(LINT_ENGINE_SRCS) -- $(LINT_COMMON_FLAGS) && \
		clang-tidy --quiet --checks=-bugprone-sizeof-expression $(LINT_SIZEOF_EXCEPT) -- \
			$(LINT_COMMON_FLAGS) && \
		clang-tidy --quiet $(LINT_ENGINE_FIO_SRCS) -- $(LINT_COMMON_FLAGS) $(LINT_FIO_FLAGS); } || \
		{ wait $$lib; exit 1; }; \
	wait $$lib
	@echo "lint: clang-tidy clean"

lint-shellcheck:
	@tests/checks/lint/shellcheck.sh

# a module is a .c and its .h; the checker proves itself first (a planted circle is found).
# fio enters the engines in engines/fio/ only: the other folders and the method files are
# built without fio's headers, and no file of theirs names one (headers included)
lint-includes:
	@bad=$$(grep -lE '^#include "(fio|optgroup|ioengines|fio_time|thread_options)\.h"' \
		engines/*.[ch] $(ENGINE_CORE_DIRS:%=%/*.[ch])); \
		if [ -n "$$bad" ]; then echo "lint: fio's headers outside engines/fio/: $$bad" >&2; exit 1; fi
	@echo "engines: fio's headers in engines/fio/ only"
	@tests/checks/lint/include_cycles.py --self-test
	@tests/checks/lint/include_cycles.py engines -I engines
	@tests/checks/lint/include_cycles.py librpma/src -I librpma/src -I librpma/include

# no call circle either: a module that names a function another module's .c defines
# depends on it (each engine's I/O path hooks, defined once per engine, bind to none);
# the checker proves itself first (a planted circle is found)
lint-calls:
	@tests/checks/lint/call_cycles.py --self-test
	@tests/checks/lint/call_cycles.py engines
	@tests/checks/lint/call_cycles.py librpma/src

# every external function of librpma/src has a comment at its prototype (the private
# header's, or librpma.h's) with an ERRORS list; the checker proves itself first
lint-comments:
	@tests/checks/lint/function_comments.py --self-test
	@tests/checks/lint/function_comments.py librpma/src librpma/include/librpma.h

# every product carries the Makefile's HARDEN_CFLAGS and HARDEN_LDFLAGS: RELRO, BIND_NOW,
# PIE programs, a stack canary and fortified calls imported, -fstack-protector-strong in
# every compile unit (the LTO link's too). The products are built first (in make test the
# stage build-for-vm then finds them built); the checker proves itself first (a scratch
# build without each flag fails).
lint-hardening: all examples engines tools $(FAULT_SHIM)
	@tests/checks/harden/check_hardening.sh --self-test
	@tests/checks/harden/check_hardening.sh $(BUILD)

# librpma 1.x's functions at upstream's node LIBRPMA_1.0, our extensions at RPMAFIO_EXT_1.0,
# as the symbols file says; the loader refuses an extension's caller on a library with
# LIBRPMA_1.0 alone, naming the node (librpma/librpma.map)
lint-abi: $(BUILD)/librpma.so $(BUILD)/librpma.a
	@tests/checks/abi/check_exports.sh $(BUILD)

lint: lint-cppcheck lint-clang-tidy lint-shellcheck lint-includes lint-calls lint-comments \
		lint-hardening lint-abi
	@echo "lint: clean (cppcheck, clang-tidy, shellcheck, include and call circles, comments,"\
		"hardening, abi)"

.PHONY: lint lint-cppcheck lint-clang-tidy lint-shellcheck lint-includes lint-calls \
	lint-comments lint-hardening lint-abi
