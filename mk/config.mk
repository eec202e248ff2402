# mk/config.mk: flags and output directories shared by every Makefile.
#
# SAN selects a sanitizer build; each has its own output tree so objects of
# different builds never mix (ASan and TSan must never share a binary):
#   SAN=          build/          plain -O2 -g build
#   SAN=address   build/asan/     AddressSanitizer + UBSan
#   SAN=thread    build/tsan/     ThreadSanitizer
# Any other value is an error.

TOP ?= $(dir $(lastword $(MAKEFILE_LIST)))..
TOP := $(abspath $(TOP))

SAN ?=
ifeq ($(SAN),)
  B := $(TOP)/build
  SANFLAGS :=
else ifeq ($(SAN),address)
  B := $(TOP)/build/asan
  SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=all
else ifeq ($(SAN),thread)
  B := $(TOP)/build/tsan
  SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
else
  $(error SAN must be empty, 'address' or 'thread', not '$(SAN)')
endif

CC ?= cc
PKGS := libcurl libxml-2.0 zlib libcrypto
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# fetch.c reads headers with curl_easy_header (7.83).
ifneq ($(PKG_LIBS),)
  ifneq ($(shell pkg-config --atleast-version=7.83 libcurl && echo ok),ok)
    $(error libcurl 7.83 or later is needed (curl_easy_header))
  endif
endif

OPT ?= -O2
CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror \
          -pedantic -Wstrict-prototypes -Wshadow -g $(OPT) -fPIC \
          -fvisibility=hidden -pthread $(SANFLAGS) \
          -I$(TOP)/libcs50 -I$(TOP)/common -I$(TOP)/engine \
          -I$(TOP)/cluster -I$(TOP)/web $(PKG_CFLAGS) \
          $(EXTRA_CFLAGS)
LDFLAGS := -pthread $(SANFLAGS) $(EXTRA_LDFLAGS)
# hiredis: its libraries only. Its pkg-config cflags add
# -D_FILE_OFFSET_BITS=64, which renames fcntl and friends (fcntl64) and
# would slip past the tests that wrap them; <hiredis/hiredis.h> is found
# in the system's include directory without them.
LDLIBS := $(PKG_LIBS) $(shell pkg-config --libs hiredis 2>/dev/null)

# Static archives, in link order (dependencies point down: programs ->
# web -> cluster -> engine -> common -> libcs50).
LIB_CS50 := $(B)/lib/libcs50.a
LIB_COMMON := $(B)/lib/libcommon.a
LIB_ENGINE := $(B)/lib/libengine.a
LIB_WEBCRAWL := $(B)/lib/libwebcrawl.a
# A crawl shared through Redis (cluster/): above the engine, below the
# web front end; hiredis.
LIB_CLUSTER := $(B)/lib/libcluster.a
CLUSTER_LIBS := $(shell pkg-config --libs hiredis 2>/dev/null)

# What the engine (and so libcrawler.so) links besides libc and pthreads:
# nothing (make check-deps).
ENGINE_LIBS :=
