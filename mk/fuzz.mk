# mk/fuzz.mk -- libFuzzer targets for every decoder of peer-supplied bytes (tests/fuzz/).
#
#   make fuzz [FUZZ_SECONDS=60]   build, then run each target FUZZ_SECONDS seconds
#   make fuzz-brief               the same, 5 s each (make test: a smoke run; make fuzz finds bugs)
#   make fuzz-build               build only: build/fuzz/<target>
#
# Needs clang with libFuzzer (Debian: clang-14 and libclang-rt-14-dev). A crash, a
# leak, a failed assertion or a sanitizer report fails the make; reproducers are
# kept in build/fuzz/artifacts/<target>/.

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_TARGETS := mr_descriptor peer_cfg workspace gpspm_req gpspm_resp
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -O1 -g $(WARNFLAGS) -Wno-missing-prototypes -D_GNU_SOURCE \
	$(FUZZ_SAN) -Ilibrpma/include -Ilibrpma/src -Iengines -I$(GPSPM_GEN) -include $(PROBE_H)

# the library, instrumented for coverage but without libFuzzer's main()
FUZZ_LIB_OBJS := $(LIB_SRCS:librpma/src/%.c=$(FUZZ_DIR)/lib/%.o)

$(FUZZ_DIR)/lib/%.o: librpma/src/%.c $(LIB_HDRS) $(PROBE_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/librpma-fuzz.a: $(FUZZ_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

# per target: the engine sources it decodes with, and their libraries
FUZZ_SRCS_workspace := engines/common/workspace.c
FUZZ_SRCS_gpspm_req := $(GPSPM_MSG_SRCS)
FUZZ_SRCS_gpspm_resp := $(GPSPM_MSG_SRCS)
FUZZ_LIBS_gpspm_req := -lprotobuf-c
FUZZ_LIBS_gpspm_resp := -lprotobuf-c

.SECONDEXPANSION:
$(FUZZ_BINS): $(FUZZ_DIR)/%: tests/fuzz/fuzz_%.c $$(FUZZ_SRCS_$$*) $(FUZZ_DIR)/librpma-fuzz.a \
		$(GPSPM_PB).h $(wildcard engines/common/*.h)
	@command -v $(FUZZ_CC) >/dev/null || { echo "fuzz: $(FUZZ_CC) is missing (clang-14)" >&2; exit 1; }
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_SRCS_$*) \
		$(FUZZ_DIR)/librpma-fuzz.a $(FUZZ_LIBS_$*) $(LDLIBS_PROVIDER) -lpthread

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@tests/fuzz/run.sh --seconds $(FUZZ_SECONDS) --bin-dir $(FUZZ_DIR) $(FUZZ_TARGETS)

fuzz-brief: fuzz-build
	@tests/fuzz/run.sh --seconds 5 --bin-dir $(FUZZ_DIR) $(FUZZ_TARGETS)

.PHONY: fuzz fuzz-brief fuzz-build
