# mk/deb.mk -- Debian binary packages of rpma-fio (debian/, docs/packages.md)
#
#   make deb        build/deb/*.deb: librpma0-rpmafio, librpma-rpmafio-dev, rpma-fio
#                   (its engines built for the fio installed here), checked by lintian
#   make test-install  make install and the packages, each installed into the VM's
#                   throw-away root (the packages in place of Debian's librpma0 and
#                   librpma-dev), the design's command line run from the installed files,
#                   and the packages removed again (tests/e2e/install.sh)
#
# The package build runs on a copy of the tree's files (git ls-files, tracked and
# new, as they are in the working tree) in build/deb/src, so the tree's own build/ is neither used nor
# cleaned; fio's configured sources (the engines' prerequisite) come from the tree's
# build, fetched before the package build, which has no network.

DEB_OUT := $(BUILD)/deb
DEB_SRC := $(DEB_OUT)/src/rpma-fio-$(VERSION)
DEB_STAMP := $(DEB_OUT)/.built
# what goes into the packages (the tests do not): a change rebuilds them
DEB_INPUTS := $(filter-out tests/% .ci/%,$(wildcard $(shell git ls-files 2>/dev/null)))

deb: $(DEB_STAMP)

$(DEB_STAMP): $(DEB_INPUTS) $(FIO_CONFIG_H) | engines-check-fio
	@command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null && command -v lintian >/dev/null || \
		{ echo "deb: dpkg-buildpackage, debhelper and lintian are needed: run scripts/deps.sh" >&2; exit 1; }
	@rm -rf $(DEB_OUT) && mkdir -p $(DEB_SRC)
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C $(DEB_SRC); \
	else \
		tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C $(DEB_SRC); \
	fi
	@echo "deb: building the packages in $(DEB_SRC) (log: $(DEB_OUT)/build.log)"
	@cd $(DEB_SRC) && FIO_SRC='$(abspath $(FIO_SRC))' dpkg-buildpackage -b -us -uc -J$$(nproc) \
		>$(abspath $(DEB_OUT))/build.log 2>&1 || { tail -n 30 $(abspath $(DEB_OUT))/build.log >&2; \
		echo "deb: dpkg-buildpackage failed (log: $(DEB_OUT)/build.log)" >&2; exit 1; }
	@mv $(DEB_OUT)/src/*.deb $(DEB_OUT)/src/*.changes $(DEB_OUT)/src/*.buildinfo $(DEB_OUT)/
	@lintian --fail-on error,warning,info --display-info $(DEB_OUT)/*.changes >$(DEB_OUT)/lintian.log 2>&1 || \
		{ grep -v 'root privileges' $(DEB_OUT)/lintian.log >&2; \
		echo "deb: lintian found problems (above; $(DEB_OUT)/lintian.log)" >&2; exit 1; }
	@echo "deb: lintian clean (errors, warnings and notes; the overrides in debian/*.lintian-overrides)"
	@ls $(DEB_OUT)/*.deb | sed 's/^/deb: /'
	@touch $@

# both ways of installing, a boot each (make test runs the packages' in e2e-6.1's boot)
test-install: e2e-build deb
	$(VM) run --timeout 600 -q -- tests/e2e/install.sh make
	$(VM) run --timeout 600 -q -- tests/e2e/install.sh deb

.PHONY: deb test-install
