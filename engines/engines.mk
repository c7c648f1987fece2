# engines/engines.mk -- the fio engines, included by the top Makefile.
#
#   make engines                 build/librpma_apm.so, build/librpma_gpspm.so
#   make engines FIO_SRC=/path   build against another fio source tree
#   make engines FIO=/opt/fio    ... for another fio binary
#   make fio-versions            build/fio-VERSION/librpma_*.so for the fio of each
#                                Debian release in FIO_RELEASES (scripts/fio_build.sh)
#
# fio loads an external engine with dlopen() and looks up the symbol `ioengine`
# (struct ioengine_ops). The engines use fio's internal structures (thread_data,
# io_u, fio_file, fio_option), so they are built against the headers of the very
# fio that runs them: Debian's fio and its source package. When FIO_SRC is not
# given, `apt-get source fio=<installed version>` fetches it into build/fio-src/
# (needs a deb-src entry -- scripts/deps.sh adds one -- and dpkg-dev), and
# `./configure --disable-native` writes its config-host.h (fio itself is never
# built). The build refuses to go on if `$(FIO) --version` and the tree disagree.
#
# Where fio enters is a folder: engines/fio/ is the only code built with fio's
# headers (the ioengine_ops, the option table, how failures reach fio). Every
# other folder -- client/, server/, common/, gpspm/ -- and the method files
# themselves are fio-free: they are built WITHOUT fio's include path (an
# include of fio fails to compile), archived whole into
# build/engines/libengine-core.a, and the unit tests link the same folders
# (rebuilt with test flags) from build/test*/engines/libengine-core.a.
#
# Each engine is one shared object: engines/<name>.c (the method) + engines/fio/
# + what it takes of the archive, build/librpma.a (PIC) and -lrdmacm -libverbs
# -lpmem2; a version script exports `ioengine` only. ENGINE_LDLIBS_<name> adds a
# method's own libraries (GPSPM: -lprotobuf-c for its generated message code).

FIO ?= fio
FIO_VERSION := $(shell $(FIO) --version 2>/dev/null)
FIO_SRC_DEFAULT := $(BUILD)/fio-src/$(or $(FIO_VERSION),fio-unknown)
FIO_SRC ?= $(FIO_SRC_DEFAULT)
FIO_CONFIG_H := $(FIO_SRC)/config-host.h
# where the engines and everything built with fio's headers go: another fio, another
# ENGINE_OUT (the fio-free objects, the library and the archive are shared)
ENGINE_OUT ?= $(BUILD)
# what this fio's engine API looks like (engines/fio/fio_api.sh; engines/fio/compat.h)
FIO_API_DIR := $(ENGINE_OUT)/engines/fio-api
FIO_API_H := $(FIO_API_DIR)/fio_api.h

# the objects are rebuilt when the flags change (they are set in these two files; set
# before gpspm.mk, whose generated object depends on them too)
ENGINE_FLAG_FILES := Makefile engines/engines.mk

# GPSPM: the flush messages' protobuf code (protoc-c), the hostile peers (its variables
# are used below)
include engines/gpspm/gpspm.mk

ENGINE_NAMES := $(patsubst engines/%.c,%,$(wildcard engines/librpma_*.c))
ENGINE_SOS := $(ENGINE_NAMES:%=$(ENGINE_OUT)/%.so)
ENGINE_FIO_SRCS := $(sort $(wildcard engines/fio/*.c))
ENGINE_FIO_OBJS := $(ENGINE_FIO_SRCS:engines/%.c=$(ENGINE_OUT)/engines/%.o)
# the fio-free folders, whole (GPSPM's generated message code is gpspm.mk's)
ENGINE_CORE_DIRS := engines/client engines/server engines/common engines/gpspm
ENGINE_CORE_SRCS := $(sort $(wildcard $(ENGINE_CORE_DIRS:%=%/*.c)))
ENGINE_CORE_HDRS := $(wildcard $(ENGINE_CORE_DIRS:%=%/*.h)) librpma/include/librpma.h
ENGINE_CORE_A := $(BUILD)/engines/libengine-core.a
ENGINE_HDRS := $(wildcard engines/fio/*.h) $(ENGINE_CORE_HDRS)
ENGINE_LDLIBS := $(BUILD)/librpma.a $(LDLIBS_PROVIDER) -lpmem2 -lpthread
ENGINE_LDLIBS_librpma_gpspm ?= -lprotobuf-c

# the fio-free code: no fio include path at all
ENGINE_CORE_CFLAGS := -std=gnu11 $(OPTFLAGS) $(LTOFLAGS) $(WARNFLAGS) $(HARDEN_CFLAGS) -fPIC \
	-fvisibility=hidden -D_GNU_SOURCE -Ilibrpma/include -Iengines -I$(GPSPM_GEN) $(PROVIDER_CFLAGS)
# engines/fio/: fio's own preprocessor flags (its Makefile and config-host.mak); its
# headers are system headers to us: our warning flags apply to our code only. The link
# of an engine uses these flags too: with LTO it generates the code (HARDEN_CFLAGS).
ENGINE_CFLAGS := -std=gnu11 $(OPTFLAGS) $(LTOFLAGS) $(WARNFLAGS) $(HARDEN_CFLAGS) -fPIC \
	-fvisibility=hidden -D_GNU_SOURCE -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64 -DFIO_INC_DEBUG \
	-include $(FIO_CONFIG_H) -isystem $(FIO_SRC) -I$(FIO_API_DIR) -Ilibrpma/include -Iengines \
	$(PROVIDER_CFLAGS)

# `$(FIO) --version` (fio-3.33) must be the tree's version (DEF_VER in FIO-VERSION-GEN,
# or its `version` file in a release tarball)
define FIO_VERSION_CHECK
@v='$(FIO_VERSION)'; \
	if [ -z "$$v" ]; then \
		echo "engines: cannot run '$(FIO) --version': install fio (scripts/deps.sh) or set FIO=" >&2; \
		exit 1; \
	fi; \
	if [ -f '$(FIO_SRC)/version' ]; then t=$$(cat '$(FIO_SRC)/version'); \
	else t=$$(sed -n 's/^DEF_VER=//p' '$(FIO_SRC)/FIO-VERSION-GEN' 2>/dev/null); fi; \
	if [ "$$v" != "$$t" ]; then \
		echo "engines: '$(FIO)' is $$v but the fio sources in $(FIO_SRC) are $${t:-not a fio tree}:" >&2; \
		echo "engines: the engines must be built against the headers of the fio that loads them" >&2; \
		echo "engines: set FIO_SRC=/path/to/$$v (or FIO=/path/to/fio)" >&2; \
		exit 1; \
	fi
endef

# fetch (default tree only) and configure fio's sources
$(FIO_CONFIG_H):
	@[ -n '$(FIO_VERSION)' ] || { \
		echo "engines: cannot run '$(FIO) --version': install fio (scripts/deps.sh) or set FIO=" >&2; \
		exit 1; }
	@if [ ! -f '$(FIO_SRC)/configure' ]; then \
		if [ '$(FIO_SRC)' != '$(FIO_SRC_DEFAULT)' ]; then \
			echo "engines: FIO_SRC=$(FIO_SRC) is not a fio source tree (no configure script)" >&2; \
			exit 1; \
		fi; \
		if ! command -v apt-get >/dev/null || ! command -v dpkg-source >/dev/null; then \
			echo "engines: fetching fio's sources needs apt-get and dpkg-source (dpkg-dev):" >&2; \
			echo "engines: run scripts/deps.sh, or give FIO_SRC=/path/to/fio-sources" >&2; \
			exit 1; \
		fi; \
		ver=$$(dpkg-query -W -f='$${Version}' fio 2>/dev/null); \
		echo "engines: fetching the sources of fio $${ver:-(candidate)} into $(BUILD)/fio-src/"; \
		mkdir -p '$(BUILD)/fio-src' && \
		( cd '$(BUILD)/fio-src' && apt-get source -qq "fio$${ver:+=$$ver}" >apt-get-source.log 2>&1 ) || { \
			cat '$(BUILD)/fio-src/apt-get-source.log' >&2; \
			echo "engines: 'apt-get source fio' failed: it needs a deb-src entry (scripts/deps.sh adds one)" >&2; \
			exit 1; }; \
		if [ ! -f '$(FIO_SRC)/configure' ]; then \
			echo "engines: the fetched sources are not in $(FIO_SRC): is '$(FIO)' Debian's fio?" >&2; \
			ls '$(BUILD)/fio-src' >&2; exit 1; \
		fi; \
	fi
	$(FIO_VERSION_CHECK)
	@echo "engines: configuring fio's headers in $(FIO_SRC) (./configure --disable-native)"
	@cd '$(FIO_SRC)' && ./configure --disable-native >rpma-fio-configure.log 2>&1 || { \
		cat rpma-fio-configure.log >&2; echo "engines: fio's configure failed" >&2; exit 1; }

engines-check-fio: $(FIO_CONFIG_H)
	$(FIO_VERSION_CHECK)

# probed every run, rewritten only when the answers (or FIO_SRC) change: a build dir
# switched to another fio tree rebuilds engines/fio/
$(FIO_API_H): $(FIO_CONFIG_H) engines/fio/fio_api.sh FORCE
	@mkdir -p $(@D)
	@engines/fio/fio_api.sh '$(FIO_SRC)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(ENGINE_FIO_OBJS): $(ENGINE_OUT)/engines/%.o: engines/%.c $(ENGINE_HDRS) $(ENGINE_FLAG_FILES) \
		$(FIO_CONFIG_H) $(FIO_API_H) | engines-check-fio
	@mkdir -p $(@D)
	$(CC) $(ENGINE_CFLAGS) -c -o $@ $<

# the fio-free objects: the core folders and the method files
$(BUILD)/engines/%.o: engines/%.c $(ENGINE_CORE_HDRS) $(GPSPM_PB).h $(ENGINE_FLAG_FILES)
	@mkdir -p $(@D)
	$(CC) $(ENGINE_CORE_CFLAGS) -c -o $@ $<

$(ENGINE_CORE_A): $(ENGINE_CORE_SRCS:engines/%.c=$(BUILD)/engines/%.o) $(BUILD)/engines/gpspm/gen/gpspm_flush.pb-c.o
	rm -f $@
	ar rcs $@ $^

$(ENGINE_SOS): $(ENGINE_OUT)/%.so: $(BUILD)/engines/%.o $(ENGINE_FIO_OBJS) $(ENGINE_CORE_A) \
		$(BUILD)/librpma.a engines/fio/engine.map | engines-check-fio
	$(CC) $(ENGINE_CFLAGS) $(HARDEN_LDFLAGS) -shared -o $@ $< $(ENGINE_FIO_OBJS) $(ENGINE_CORE_A) \
		-Wl,--version-script=engines/fio/engine.map \
		$(ENGINE_LDLIBS) $(ENGINE_LDLIBS_$*)
	@# load it the way fio does, every symbol resolved now (fio exports what engines use)
	@LD_BIND_NOW=1 $(FIO) --enghelp=$@ >/dev/null 2>$@.load.log || { \
		cat $@.load.log >&2; echo "engines: $(FIO) cannot load $@" >&2; rm -f $@; exit 1; }
	@rm -f $@.load.log
	@echo "engines: $@ built (fio $(FIO_VERSION), ioengine version $$(sed -n 's/^#define FIO_IOOPS_VERSION[^0-9]*\([0-9]*\).*/\1/p' $(FIO_SRC)/ioengines.h))"

engines: $(ENGINE_SOS)

# ---- the same engines for the fio of other Debian releases ----
# scripts/fio_build.sh builds each release's fio privately (cached outside the clone);
# each gets build/fio-VERSION/ with its engines and a link `fio` to the fio that loads
# them. fio 3.38 and later have no librpma engines of their own: on Debian 13 and newer
# ours are the only ones. trixie's fio 3.39 is not in the list: its source tarball is not
# on the mirror this project is tested from (a 404), so nothing here could show it works.
FIO_RELEASES ?= unstable
FIO_VERSION_DIRS_FILE := $(BUILD)/fio-versions.txt

fio-versions: $(BUILD)/librpma.a $(ENGINE_CORE_A) $(ENGINE_NAMES:%=$(BUILD)/engines/%.o)
	@scripts/fio_build.sh $(FIO_RELEASES) >$(FIO_VERSION_DIRS_FILE).tmp
	@while read -r release ver dir; do \
		$(MAKE) --no-print-directory engines FIO="$$dir/fio" FIO_SRC="$$dir" \
			ENGINE_OUT=$(BUILD)/fio-$$ver || exit 1; \
		ln -sfn "$$dir/fio" $(BUILD)/fio-$$ver/fio; \
		echo "fio-versions: $$release: fio $$ver, engines in $(BUILD)/fio-$$ver/"; \
	done <$(FIO_VERSION_DIRS_FILE).tmp
	@mv $(FIO_VERSION_DIRS_FILE).tmp $(FIO_VERSION_DIRS_FILE)

# ---- unit tests of the engines' fio-free folders ----
# tests/unit/engine_<piece>/*.c: picked up by the top Makefile's UNIT_BINS (make
# test-unit); this rule (a shorter stem wins over $(TBUILD)/unit/%) links the
# fio-free folders, whole, rebuilt with the test flags, and tests/unit/engine_common/
# (the stand-in for the calls that reach fio, common/report.h, recording them). A
# test brings stand-ins for anything else it does not want real (they win over the
# archive's members), e.g. the librpma calls it scripts.
ENGINE_TEST_CORE_A := $(TBUILD)/engines/libengine-core.a
ENGINE_TEST_COMMON := $(wildcard tests/unit/engine_common/*.c tests/unit/engine_common/*.h)
ENGINE_TEST_CFLAGS := $(TEST_CFLAGS) -Iengines -I$(GPSPM_GEN) -Itests/unit/engine_common

$(TBUILD)/engines/%.o: engines/%.c $(ENGINE_CORE_HDRS) $(GPSPM_PB).h $(PROBE_H)
	@mkdir -p $(@D)
	$(CC) $(ENGINE_TEST_CFLAGS) -c -o $@ $<

$(TBUILD)/engines/gpspm/gen/%.o: $(GPSPM_GEN)/%.c $(GPSPM_PB).h $(PROBE_H)
	@mkdir -p $(@D)
	$(CC) $(ENGINE_TEST_CFLAGS) -c -o $@ $<

$(ENGINE_TEST_CORE_A): $(ENGINE_CORE_SRCS:engines/%.c=$(TBUILD)/engines/%.o) \
		$(TBUILD)/engines/gpspm/gen/gpspm_flush.pb-c.o
	rm -f $@
	ar rcs $@ $^

$(TBUILD)/unit/engine_%: $$(wildcard tests/unit/engine_%/*.c) $(ENGINE_TEST_COMMON) \
		$(ENGINE_TEST_CORE_A) $(ENGINE_CORE_HDRS) $(COMMON_OBJS) $(TBUILD)/librpma-test.a
	@mkdir -p $(@D)
	$(CC) $(ENGINE_TEST_CFLAGS) -Wno-missing-prototypes -o $@ $(filter tests/%.c,$^) \
		$(ENGINE_TEST_CORE_A) $(COMMON_OBJS) $(TBUILD)/librpma-test.a $(TEST_LDFLAGS) \
		-lcmocka -lprotobuf-c -lpmem2 -lpthread

# the APM method's test includes its file whole (the hooks are static): rebuilt with it
$(TBUILD)/unit/engine_apm: engines/librpma_apm.c

# the completion loop's unit test brings its own stand-ins for the librpma calls poll.c
# makes: no librpma is linked (an explicit rule wins over the pattern rule above). Linked
# with TEST_FLAGS, not TEST_LDFLAGS: its malloc wraps are the fake provider's, not linked
# here (under COVERAGE=1, libgcov's malloc calls would find no __wrap_malloc).
$(TBUILD)/unit/engine_poll: $(wildcard tests/unit/engine_poll/*.c) engines/common/poll.c \
		engines/common/pace.c engines/common/poll.h engines/common/pace.h \
		librpma/include/librpma.h $(PROBE_H)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -Wno-missing-prototypes -Iengines -Ilibrpma/include -o $@ \
		$(filter %.c,$^) $(TEST_FLAGS) -lcmocka

# what the tests and the matrix runner use beside the engines: the hostile peers
# (gpspm.mk) and the per-I/O cost counter (mk/matrix.mk)
tools:

.PHONY: engines engines-check-fio fio-versions tools FORCE
FORCE:

# the end-to-end suite (tests/e2e/run.sh) runs tests/e2e/engines.sh too, and the hostile peers
test-e2e e2e-build: engines tools
