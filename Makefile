# TSE crawler: top-level Makefile. Recurses in dependency order.
#
#   make            build everything (build/bin, build/lib)
#   make test       install missing deps, build, run all tests
#   make demo       install missing deps, build, crawl the bundled course site
#   make asan       build under build/asan with ASan+UBSan, run all tests
#   make tsan       build under build/tsan with TSan, run all tests
#   make check-deps check the layering (libcs50 <- common <- crawler/engine
#                   <- crawler/cluster <- crawler), that libcrawler.so needs no libcurl,
#                   libxml2, libcrypto or hiredis, and that every header compiles
#                   on its own
#   make install    PREFIX=/usr/local DESTDIR= : programs, library, header
#   make bench      benchmarks (bench/), about 8 minutes (bench/RESULTS.md)
#   make fuzz       libFuzzer targets (tests/fuzz/), FUZZ_SECONDS (30) each
#   make format     clang-format (.clang-format) every tracked .c/.h of
#                   libcs50 common crawler tests bench, in place
#   make check-format  list the files make format would change; fails if
#                   any (CI runs it)
#   make deps       install the Debian packages the build and tests need
#   make clean

SUBDIRS := libcs50 common crawler/engine crawler/cluster crawler tests
PREFIX ?= /usr/local
DESTDIR ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
B := build

all:
	@for d in $(SUBDIRS); do $(MAKE) --no-print-directory -j$(JOBS) -C $$d all || exit 1; done

deps:
	@sh mk/deps.sh

test: deps
	@$(MAKE) --no-print-directory all
	@tests/run.sh $(CURDIR)/$(B) $(T)

asan: deps
	@for d in $(SUBDIRS); do $(MAKE) --no-print-directory -j$(JOBS) -C $$d SAN=address all || exit 1; done
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  tests/run.sh $(CURDIR)/$(B)/asan $(T)

tsan: deps
	@for d in $(SUBDIRS); do $(MAKE) --no-print-directory -j$(JOBS) -C $$d SAN=thread all || exit 1; done
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	  tests/run.sh $(CURDIR)/$(B)/tsan $(T)

demo: deps
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
	@if readelf -d $(B)/lib/libcrawler.so | grep NEEDED | grep -E 'libcurl|libxml2|libcrypto|libssl|libhiredis'; then \
	  echo "libcrawler.so must need none of these"; exit 1; fi
	@for h in libcs50/*.h common/*.h crawler/engine/*.h crawler/cluster/*.h crawler/*.h; do \
	  printf '#include "$(CURDIR)/%s"\n' "$$h" > $(B)/hdr.c; \
	  $(CC) -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -pedantic \
	    -Ilibcs50 -Icommon -Icrawler/engine -Icrawler/cluster -Icrawler $$(pkg-config --cflags libcurl libxml-2.0 zlib libcrypto) \
	    -fsyntax-only $(B)/hdr.c || { echo "header $$h does not compile alone"; exit 1; }; \
	done; echo "check-deps: layering and headers ok"

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 755 $(B)/bin/crawler $(B)/bin/robotscheck $(B)/bin/urlnorm $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(B)/lib/libcrawler.so.1.0.0 $(DESTDIR)$(PREFIX)/lib/
	ln -sf libcrawler.so.1.0.0 $(DESTDIR)$(PREFIX)/lib/libcrawler.so.1
	ln -sf libcrawler.so.1 $(DESTDIR)$(PREFIX)/lib/libcrawler.so
	install -m 644 crawler/engine/crawl.h $(DESTDIR)$(PREFIX)/include/

clean:
	rm -rf $(B)

.PHONY: all deps test asan tsan demo bench fuzz format check-format check-deps \
	install clean
