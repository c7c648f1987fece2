# mk/man.mk -- librpma's man pages, generated from docs/api/*.md and the public header
#
#   make man           build/man/man3/<function>.3 and build/man/man7/librpma.7
#   make install-man   into $(DESTDIR)$(PREFIX)/share/man/man3 and man7 (also part of install)
#   make test-man      every public function has a page, every page renders cleanly,
#                      a DESTDIR install holds them all (tests/checks/docs/check_man.sh)

MAN_DIR := $(BUILD)/man
MAN_STAMP := $(MAN_DIR)/.stamp
MANDIR ?= $(PREFIX)/share/man
MAN_SRCS := $(sort $(wildcard docs/api/*.md))

$(MAN_STAMP): scripts/gen_man.py librpma/include/librpma.h $(MAN_SRCS) Makefile
	python3 scripts/gen_man.py --out $(MAN_DIR) --version $(VERSION)
	@touch $@

man: $(MAN_STAMP)

install-man: $(MAN_STAMP)
	install -d $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man7
	install -m 644 $(MAN_DIR)/man3/*.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 644 $(MAN_DIR)/man7/*.7 $(DESTDIR)$(MANDIR)/man7/

install: install-man

# the library too: every symbol it exports must have a page
test-man: $(MAN_STAMP) $(BUILD)/librpma.so
	@tests/checks/docs/check_man.sh

.PHONY: man install-man test-man
