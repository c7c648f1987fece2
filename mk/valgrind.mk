# mk/valgrind.mk -- the fio that the engines run under valgrind in the VM.
#
#   build/fio-valgrind   fio built from the very tree (and config-host.h) the engines are
#                        compiled against: the same fio version and layout of its structures,
#                        but linked against 10 libraries, not Debian's 64 (ceph, gluster, ICU,
#                        ...), whose loading alone took valgrind 55 s of every run under TCG
#                        (this one: 13 s). tests/e2e/valgrind_engines.sh uses it.

VALGRIND_FIO := $(BUILD)/fio-valgrind

$(VALGRIND_FIO): $(FIO_CONFIG_H) | engines-check-fio
	@echo "valgrind: building fio in $(FIO_SRC) (log: $(BUILD)/fio-valgrind.log)"
	@$(MAKE) -C $(FIO_SRC) -j2 fio >$(BUILD)/fio-valgrind.log 2>&1 || { \
		tail -n 30 $(BUILD)/fio-valgrind.log >&2; echo "valgrind: building fio failed" >&2; exit 1; }
	cp $(FIO_SRC)/fio $@

fio-valgrind: $(VALGRIND_FIO)

test-e2e e2e-build: $(VALGRIND_FIO)

.PHONY: fio-valgrind
