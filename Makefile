# TSE crawler: top-level Makefile. Recurses in dependency order.
#
#   make            build everything (build/bin, build/lib)
#   make test       install missing deps, build, run all tests (parallel:
#                   TEST_JOBS, twice the cores by default)
#   make test-long  the soak tests (kill loops, repeated outages):
#                   tests/integration/long/
#   make demo       install what building needs (no test-only package),
#                   build, crawl the bundled course site
#   make asan       build under build/asan with ASan+UBSan, run all tests
#                   and the soak tests
#   make tsan       build under build/tsan with TSan, run all tests and the
#                   soak tests
#   make check-deps check the layering (libcs50 <- common <- engine <- cluster
#                   <- web <- programs), that libcrawler.so needs no libcurl,
#                   libxml2, libcrypto or hiredis, and that every header compiles
#                   on its own
#   make programs   the programs and libraries only (no tests)
#   make install    programs, libraries, headers, man pages, pkg-config
#                   files; PREFIX (/usr/local), DESTDIR, BINDIR, LIBDIR,
#                   INCLUDEDIR, MANDIR, PKGCONFIGDIR as packagers expect
#   make uninstall  remove what make install put there (same variables)
#   make deb        the Debian packages, built from a copy in a temporary
#                   directory, into build/deb/ (with lintian's report)
#   make deb-test   install them system-wide (root), use, remove them
#   make bench      benchmarks (bench/), about 8 minutes (bench/RESULTS.md)
#   make fuzz       libFuzzer targets (tests/fuzz/), FUZZ_SECONDS (30) each
#   make format     clang-format (.clang-format) every tracked .c/.h of
#                   libcs50 common engine cluster web programs tests
#                   bench, in place
#   make check-format  list the files make format would change; fails if
#                   any (CI runs it)
#   make deps       install the Debian packages the build and tests need
#   make deps-build only those building and running need
#   make clean

PROG_SUBDIRS := libcs50 common engine cluster web programs
SUBDIRS := $(PROG_SUBDIRS) tests
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
B := build

all:
	@for d in $(SUBDIRS); do $(MAKE) --no-print-directory -j$(JOBS) -C $$d all || exit 1; done

deps:
	@sh mk/deps.sh

# What building and running need, and no test-only package.
deps-build:
	@sh mk/deps.sh --build

test: deps
	@$(MAKE) --no-print-directory all
	@tests/run.sh $(CURDIR)/$(B) $(T)

test-long: deps
	@$(MAKE) --no-print-directory all
	@tests/run.sh --long $(CURDIR)/$(B) $(T)

asan: deps
	@for d in $(SUBDIRS); do $(MAKE) --no-print-directory -j$(JOBS) -C $$d SAN=address all || exit 1; done
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  tests/run.sh $(CURDIR)/$(B)/asan $(T)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  tests/run.sh --long $(CURDIR)/$(B)/asan $(T)

tsan: deps
	@for d in $(SUBDIRS); do $(MAKE) --no-print-directory -j$(JOBS) -C $$d SAN=thread all || exit 1; done
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  tests/run.sh $(CURDIR)/$(B)/tsan $(T)
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  tests/run.sh --long $(CURDIR)/$(B)/tsan $(T)

demo: deps-build
	@$(MAKE) --no-print-directory all
	@tests/demo.sh $(CURDIR)/$(B)

bench: deps
	@$(MAKE) --no-print-directory all
	@bench/run.sh $(CURDIR)/$(B)

fuzz: deps
	@sh mk/fuzz-deps.sh
	@$(MAKE) --no-print-directory -j$(JOBS) -C tests/fuzz build
	@$(MAKE) --no-print-directory -C tests/fuzz run

format:
	@sh mk/format.sh

check-format:
	@sh mk/format.sh --check

# Layering: each archive, linked whole with only the archives below it, must
# have no undefined symbols; the engine (libcrawler.so) links no libcurl,
# libxml2, libcrypto or hiredis, neither in its archive nor in the shared library's
# DT_NEEDED; each header must compile by itself.
check-deps: all
	@echo 'int main(void) { return 0; }' > $(B)/stub.c
	$(CC) -o $(B)/stub-cs50 $(B)/stub.c -Wl,--whole-archive $(B)/lib/libcs50.a -Wl,--no-whole-archive -pthread
	$(CC) -o $(B)/stub-common $(B)/stub.c -Wl,--whole-archive $(B)/lib/libcommon.a -Wl,--no-whole-archive $(B)/lib/libcs50.a -pthread $$(pkg-config --libs libcurl libxml-2.0 zlib libcrypto)
	$(CC) -o $(B)/stub-engine $(B)/stub.c -Wl,--whole-archive $(B)/lib/libengine.a -Wl,--no-whole-archive $(B)/lib/libcommon.a $(B)/lib/libcs50.a -pthread
	$(CC) -o $(B)/stub-cluster $(B)/stub.c -Wl,--whole-archive $(B)/lib/libcluster.a -Wl,--no-whole-archive $(B)/lib/libengine.a $(B)/lib/libcommon.a $(B)/lib/libcs50.a -pthread $$(pkg-config --libs hiredis)
	$(CC) -o $(B)/stub-web $(B)/stub.c -Wl,--whole-archive $(B)/lib/libwebcrawl.a -Wl,--no-whole-archive $(B)/lib/libcluster.a $(B)/lib/libengine.a $(B)/lib/libcommon.a $(B)/lib/libcs50.a -pthread $$(pkg-config --libs libcurl libxml-2.0 zlib libcrypto hiredis)
	@if readelf -d $(B)/lib/libcrawler.so | grep NEEDED | grep -E 'libcurl|libxml2|libcrypto|libssl|libhiredis'; then \
	  echo "libcrawler.so must need none of these"; exit 1; fi
	@for h in libcs50/*.h common/*.h engine/*.h cluster/*.h web/*.h programs/*.h; do \
	  printf '#include "$(CURDIR)/%s"\n' "$$h" > $(B)/hdr.c; \
	  $(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -pedantic \
	    -Ilibcs50 -Icommon -Iengine -Icluster -Iweb $$(pkg-config --cflags libcurl libxml-2.0 zlib libcrypto) \
	    -fsyntax-only $(B)/hdr.c || { echo "header $$h does not compile alone"; exit 1; }; \
	done; echo "check-deps: layering and headers ok"

# What make install puts where, and make uninstall removes (DESIGN.md,
# "Installed"). Headers go to INCLUDEDIR/tse/, not to INCLUDEDIR itself,
# as crawl.h is a name any project could use; the pkg-config files say
# -I.../tse. A library is NAME:SOVERSION. The version is crawl.h's
# CRAWL_VERSION.
VERSION := $(shell sed -n 's/^\#define CRAWL_VERSION "\(.*\)"$$/\1/p' \
             engine/crawl.h)
INST_PROGS := crawler robotscheck tsepagedir urlnorm
INST_LIBS := libcrawler:1 libtsepagedir:2
INST_HEADERS := engine/crawl.h common/tsepagedir.h
INST_MAN1 := man/crawler.1 man/robotscheck.1 man/tsepagedir.1 man/urlnorm.1
INST_MAN3 := man/crawl.3 man/tsepagedir.3
# man tsepagedir_load, man crawl_strerror: a link per function to its page.
# (Braces: the sed script's parentheses do not pair up.)
INST_MAN3_LINKS := crawl_strerror:crawl \
  ${patsubst %,%:tsepagedir,${shell sed -n \
    's/^TSEPAGEDIR_EXTERN [^(]*\b\(tsepagedir_[a-z_]*\)(.*/\1/p' \
    common/tsepagedir.h}}
INST_PC := engine/libcrawler.pc.in common/libtsepagedir.pc.in

# The programs and libraries alone: what make install and the packages
# need, without the tests and their server.
programs:
	@for d in $(PROG_SUBDIRS); do $(MAKE) --no-print-directory -j$(JOBS) -C $$d all || exit 1; done

install: programs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) \
	  $(DESTDIR)$(INCLUDEDIR)/tse $(DESTDIR)$(MANDIR)/man1 \
	  $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(INST_PROGS:%=$(B)/bin/%) $(DESTDIR)$(BINDIR)/
	for l in $(INST_LIBS); do \
	  n=$${l%:*} v=$${l#*:}; \
	  install -m 644 $(B)/lib/$$n.so.$$v.0.0 $(DESTDIR)$(LIBDIR)/ && \
	  ln -sf $$n.so.$$v.0.0 $(DESTDIR)$(LIBDIR)/$$n.so.$$v && \
	  ln -sf $$n.so.$$v $(DESTDIR)$(LIBDIR)/$$n.so || exit 1; \
	done
	install -m 644 $(INST_HEADERS) $(DESTDIR)$(INCLUDEDIR)/tse/
	@# 0.1.0 installed the crawler's own <pagedir.h> (under -I.../tse it
	@# shadows a CS50 program's "pagedir.h") and pagedir(3) with a link
	@# per function: gone now.
	rm -f $(DESTDIR)$(INCLUDEDIR)/tse/pagedir.h $(DESTDIR)$(MANDIR)/man3/pagedir.3
	find $(DESTDIR)$(MANDIR)/man3 -maxdepth 1 -name 'pagedir_*.3' \
	  -lname pagedir.3 -exec rm -f {} +
	install -m 644 $(INST_MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(INST_MAN3) $(DESTDIR)$(MANDIR)/man3/
	for l in $(INST_MAN3_LINKS); do \
	  ln -sf $${l#*:}.3 $(DESTDIR)$(MANDIR)/man3/$${l%%:*}.3 || exit 1; \
	done
	for p in $(INST_PC); do \
	  sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|' \
	      -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|' \
	      $$p >$(DESTDIR)$(PKGCONFIGDIR)/$$(basename $$p .in) || exit 1; \
	done

# Files only; directories are left, but for INCLUDEDIR/tse, ours alone.
uninstall:
	rm -f $(INST_PROGS:%=$(DESTDIR)$(BINDIR)/%)
	for l in $(INST_LIBS); do \
	  n=$${l%:*} v=$${l#*:}; \
	  rm -f $(DESTDIR)$(LIBDIR)/$$n.so.$$v.0.0 $(DESTDIR)$(LIBDIR)/$$n.so.$$v \
	    $(DESTDIR)$(LIBDIR)/$$n.so; \
	done
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/tse/,$(notdir $(INST_HEADERS)))
	rmdir $(DESTDIR)$(INCLUDEDIR)/tse 2>/dev/null || true
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(INST_MAN1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(INST_MAN3)))
	rm -f $(foreach l,$(INST_MAN3_LINKS),$(DESTDIR)$(MANDIR)/man3/$(firstword $(subst :, ,$(l))).3)
	rm -f $(addprefix $(DESTDIR)$(PKGCONFIGDIR)/,$(notdir $(INST_PC:.in=)))

deb:
	@DEPS_MORE="$$(cat mk/deb-deps.txt)" sh mk/deps.sh
	@sh mk/deb.sh $(CURDIR)/$(B)/deb

deb-test: deb
	@$(MAKE) --no-print-directory all
	@B=$(CURDIR)/$(B) bash tests/package/install_deb.sh

clean:
	rm -rf $(B)

.PHONY: all deps deps-build test test-long asan tsan demo bench fuzz format check-format check-deps \
	programs install uninstall deb deb-test clean
