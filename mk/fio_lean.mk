# mk/fio_lean.mk -- the fio that the VM's test suites run.
#
#   build/fio-lean   fio built from the very tree (and config-host.h) the engines are
#                    compiled against: Debian's fio source, the same version and layout of
#                    its structures, but linked against 10 libraries, not Debian's 64 (ceph,
#                    gluster, ICU, ...). Under TCG, loading those costs Debian's fio
#                    0.4-0.7 s of every start (valgrind: 55 s of every run against 13 s),
#                    and an e2e suite starts fio hundreds of times.
#
# tests/e2e/lib.sh puts it first on the suites' PATH as `fio`; Debian's /usr/bin/fio stays
# what the packages' test (install.sh), the fio releases' test (fio_versions.sh), make
# check's smoke run and the matrix runner (README's main job) run.

LEAN_FIO := $(BUILD)/fio-lean

$(LEAN_FIO): $(FIO_CONFIG_H) | engines-check-fio
	@echo "fio-lean: building fio in $(FIO_SRC) (log: $(BUILD)/fio-lean.log)"
	@$(MAKE) -C $(FIO_SRC) -j2 fio >$(BUILD)/fio-lean.log 2>&1 || { \
		tail -n 30 $(BUILD)/fio-lean.log >&2; echo "fio-lean: building fio failed" >&2; exit 1; }
	cp $(FIO_SRC)/fio $@

fio-lean: $(LEAN_FIO)

test-e2e e2e-build: $(LEAN_FIO)

.PHONY: fio-lean
