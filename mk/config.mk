# mk/config.mk: where things go, which machine the stubs are for (ARCH, the
# build folder B), the compilers and their flags, and the lists of what is
# built (policies, sources, the --build runtime).  Included first by the
# Makefile; nothing here is a target.

# aijail-compile finds the runtime and the shipped policies beside itself
# (its folder's ../lib/aijail and ../share/aijail), so only PREFIX moves
# them; BINDIR stays PREFIX/bin for --build to work.
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
# The Python package goes to the folder under PREFIX that the system's
# python3 searches (Debian: /usr/lib/python3/dist-packages for /usr, but
# /usr/local/lib/python3.X/dist-packages for /usr/local, X its version);
# where it searches none, sysconfig's purelib under PREFIX.  Computed
# when first used (install, uninstall), and only when no PYTHONDIR is given.
PYTHON    ?= $(firstword $(wildcard /usr/bin/python3) python3)
ifeq ($(origin PYTHONDIR),undefined)
PYTHONDIR = $(eval PYTHONDIR := $(or $(shell $(PYTHON) tools/pythondir.py '$(PREFIX)' 2>/dev/null),$(PREFIX)/lib/python3/dist-packages))$(PYTHONDIR)
endif
# The machine the stubs run on: this one's (x86_64) into build/, or
# ARCH=aarch64, cross-built into build-aarch64/ (make deps-cross) so that
# both builds stay.  The compiler always runs here: build-aarch64/bin holds
# this machine's aijail-compile beside the aarch64 stubs and aijail-status.
HOST_ARCH := $(shell uname -m)
ARCH      ?= $(HOST_ARCH)
ifeq ($(ARCH),arm64)
override ARCH := aarch64
endif
ifeq ($(filter x86_64 aarch64,$(ARCH)),)
$(error ARCH=$(ARCH): aijail builds for x86_64 and aarch64)
endif
ifeq ($(ARCH),$(HOST_ARCH))
B         := build
else
B         := build-$(ARCH)
endif
# make TRACE=1: stubs that time each step of a launch (stub/base/trace.c),
# in a build dir of their own, so that build/bin never holds them.
ifeq ($(TRACE),1)
B         := $(B)-trace
endif

CC       ?= cc
ifeq ($(ARCH),$(HOST_ARCH))
MUSLCC   ?= musl-gcc
# An archive of -flto objects needs the LTO plugin's symbol index.
STUB_AR  ?= gcc-ar
KH_ASM   := /usr/include/$(shell $(CC) -dumpmachine)/asm
else
# Debian's multiarch musl-dev:ARCH brings a musl-gcc for the cross gcc.
MUSLCC   ?= $(ARCH)-linux-musl-gcc
STUB_AR  ?= $(ARCH)-linux-gnu-gcc-ar
KH_ASM   := /usr/include/$(ARCH)-linux-gnu/asm
endif
BISON    ?= bison
FLEX     ?= flex

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS   ?= -O2 -g
HOST_CFLAGS := $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -Iinclude -Icompiler -I. -I$(B)/grammar \
	-DAIJAIL_VERSION='"$(AIJAIL_VERSION)"'
# A static, non-PIE stub: its tables (pointers included) land in .rodata,
# read-only at run time, where PIE code would put them in .data.rel.ro,
# which only a dynamic loader ever makes read-only; no RELRO padding, and
# a small common page size so that the few bytes of .data do not start a
# page of their own in the file (up to 4 KiB of zeros).  Link-time
# optimisation across the stub's files: about 1.2 KiB less per stub.
# STUB_OPT and STUB_LDFLAGS also go into the runtime's stub.flags, for
# aijail-compile --build: blanks separate them, no quotes, no paths.
STUB_OPT := -Os -std=gnu11 -D_GNU_SOURCE $(WARN) \
	-ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-stack-protector \
	-fno-pie -flto
ifeq ($(TRACE),1)
STUB_OPT += -DAJ_TRACE
endif
STUB_CFLAGS := $(STUB_OPT) -Iinclude -Istub -I. -isystem $(B)/kh
# $(WARN) at the link too: with -flto the code is compiled there again,
# and its warnings must be errors as well.
STUB_LDFLAGS := $(WARN) -static -no-pie -flto -flto-partition=one -Wl,--gc-sections -Wl,-z,noseparate-code -Wl,-z,norelro \
	-Wl,-z,common-page-size=64 -s

# Policies that become stubs: policy "jail" is build/bin/jail, every other
# one build/bin/jail-NAME.  base.aj is only ever included.
POLICIES := jail python npm pip uv cargo browser worker claude codex gemini opencode
stub_name = $(if $(filter jail,$(1)),jail,jail-$(1))
STUBS    := $(foreach p,$(POLICIES),$(B)/bin/$(call stub_name,$(p)))
HEADERS  := $(POLICIES:%=$(B)/gen/%.h)

# common/: built into the compiler and into the stub alike.
COMPILER_SRC := $(wildcard compiler/*.c) $(wildcard common/*.c)
COMPILER_OBJ := $(COMPILER_SRC:%.c=$(B)/obj/%.o) $(B)/obj/grammar/aj.tab.o $(B)/obj/grammar/aj.lex.o
# The stub's rooms, lowest first: a room includes only its own header and
# the one below it (docs/layout.md; tests/layers/stub.py checks it).
ROOMS        := base variant scan watch confine root notify egress term proc fallback explain
STUB_HDR     := $(wildcard stub/*.h $(ROOMS:%=stub/%/*.h) common/*.h) include/aj_watchstate.h include/aj_owndir.h
STUB_SRC     := $(filter-out stub/policy.c,$(wildcard stub/*.c $(ROOMS:%=stub/%/*.c) common/*.c))
STUB_OBJ     := $(STUB_SRC:%.c=$(B)/obj/%.musl.o)

# What --build needs, laid out as it is installed (PREFIX/lib/aijail,
# PREFIX/share/aijail/policies), so that the tree's compiler finds it the
# same way: the stub's code but the per-policy file as one archive, the
# per-policy file and the headers it includes, the flags.
RT          := $(B)/lib/aijail
RT_STUB     := $(RT)/stub/policy.c
RT_FILES    := $(RT)/libaijail-stub.a $(RT)/stub.flags $(RT)/include/aj_table.h $(RT_STUB)
SHARE_FILES := $(patsubst policies/%,$(B)/share/aijail/policies/%,$(wildcard policies/*.aj))
