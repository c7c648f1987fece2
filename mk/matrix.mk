# mk/matrix.mk -- the matrix runner's tests (included by the top Makefile).
#
#   make test-matrix      the report builder and compare on fixture fio JSON, and the
#                         per-I/O counter's persist counts on stand-ins (host only, fast)
#   make test-matrix-vm   a --quick matrix in the Soft-RoCE VM into build/matrix-ci, checked
#                         point by point (<= 6 min under TCG), and the no_flush check

test-matrix-vm: engines tools peer fio-lean
	@tests/matrix/check_vm_run.sh

.PHONY: test-matrix test-matrix-vm

# the per-I/O cost counter the matrix preloads into fio (ours and the peer's):
# post calls, work requests, polls, completions (tests/tools/verbs_count.c)
VERBS_COUNT := $(BUILD)/tests/tools/libverbs_count.so

$(VERBS_COUNT): tests/tools/verbs_count.c Makefile
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(OPTFLAGS) $(WARNFLAGS) $(HARDEN_CFLAGS) -fPIC -shared -D_GNU_SOURCE \
		$(PROVIDER_CFLAGS) $(HARDEN_LDFLAGS) -o $@ $< -ldl -lpthread

# test_durability.sh's power cut of the files fio writes (tests/tools/cut_writes.c)
CUT_WRITES := $(BUILD)/tests/tools/libcut_writes.so

$(CUT_WRITES): tests/tools/cut_writes.c Makefile
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(OPTFLAGS) $(WARNFLAGS) $(HARDEN_CFLAGS) -fPIC -shared -D_GNU_SOURCE \
		$(HARDEN_LDFLAGS) -o $@ $< -ldl

tools: $(VERBS_COUNT) $(CUT_WRITES)

# (the counter's own test first: the peer's persist counts on stand-in libraries)
test-matrix: $(VERBS_COUNT) $(CUT_WRITES)
	@tests/matrix/test_verbs_count.sh $(VERBS_COUNT)
	@tests/matrix/test_matrix.sh
