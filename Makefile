# aijail: compiler, then one header per policy, then one static stub per policy.
#
#   make deps       install the Debian/Ubuntu packages the build needs (as root)
#   make deps-test  and those make check's suites and workloads need
#   make deps-bench and those make bench compares against
#   make deps-docker and those make check-docker needs (docker.io, busybox-static, debootstrap)
#   make deps-pkg   and those make deb needs (dpkg-dev, debhelper, dh-python, lintian)
#   make            build/bin/aijail-compile, build/gen/*.h, build/bin/jail*, and the
#                   runtime --build links (build/lib/aijail, build/share/aijail)
#   make check      unit tests (cmocka), policy error corpus, integration tests, escape
#                   suite, soak, and an install into a temporary folder
#   make check-docker  the stubs in real Docker containers (a dockerd of its own; root)
#   make deps-cross  and those make ARCH=aarch64 and make check-aarch64 need (root)
#   make ARCH=aarch64  the stubs cross-built for aarch64, into build-aarch64/
#   make check-aarch64 those stubs on Debian's arm64 kernel under qemu-system-aarch64
#   make deps-noia32 and those make check-noia32 needs (root)
#   make check-noia32  the seccomp table and the int 0x80 cases on Debian 12's x86_64
#                   kernel booted without IA32 emulation, then with it, under qemu
#   make check-apparmor the stubs' AppArmor profile and --doctor on Debian 13's and
#                   Ubuntu 24.04's kernels under qemu, apparmor=1 (make deps-noia32)
#   make check-fresh   the README's two commands on fresh Debian 12 and 13 roots (root)
#   make bench      start-up benchmark against bare exec and bubblewrap
#   make TRACE=1    stubs that print each start-up step's time, into build-trace/
#                   (bench/trace.sh; the normal build's stubs are unchanged)
#   make fuzz       build the compiler fuzz target (clang, libFuzzer)
#   make install    PREFIX=/usr/local DESTDIR=; make uninstall the same
#   make deb        the Debian packages, from a clean copy: build/deb/*.deb
#   make dist       the static release archive: build/dist/aijail-VERSION-ARCH-linux.tar.gz
#   make wheel      the Python wheel with the stubs: build/wheel/aijail-VERSION-py3-none-*.whl

# The one place the version is written: the compiler prints it in every
# identity (aijail-compile --identity, a stub's --jail-version).
AIJAIL_VERSION := 0.1

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
# make TRACE=1: stubs that time each step of a launch (stub/base/trace.h),
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

# What make needs (gcc, not build-essential: no C++; musl-tools brings
# musl-dev; linux-libc-dev the kernel's headers the stub compiles with);
# what make check needs besides (cmocka for the unit tests, file, setpriv
# and useradd for the shell suites, the real workloads' toolchains, which
# may build native code, Chromium for the browser profile's tests,
# iptables and iproute2 for its probe of a nested network namespace, and
# Dask's distributed for aijail.dask's tests);
# what make bench compares against.
DEB_BUILD := make gcc libc6-dev flex bison libseccomp-dev musl-tools linux-libc-dev curl
DEB_TEST  := build-essential libcmocka-dev file util-linux passwd \
	python3 python3-venv python3-pip python3-setuptools python3-wheel git ca-certificates curl \
	cargo chromium groff-base iptables iproute2 less python3-distributed
DEB_BENCH := hyperfine bubblewrap
# make check-docker: a Docker engine, and a static shell for its images.
DEB_DOCKER := docker.io busybox-static debootstrap
# make ARCH=aarch64 (the cross gcc, the aarch64 musl and kernel headers,
# multiarch) and make check-aarch64 (qemu; the arm64 kernel and busybox are
# fetched with apt-get download, never installed).
DEB_CROSS := gcc-aarch64-linux-gnu musl-dev:arm64 linux-libc-dev:arm64 qemu-system-arm \
	cpio
# make check-noia32: qemu for x86_64 (TCG; AJ_QEMU_ACCEL=kvm where KVM is known good);
# Debian 12's 6.12 kernel (the first there with ia32_emulation=) and a
# static busybox are fetched with apt-get download, never installed.
DEB_NOIA32 := qemu-system-x86 cpio
# make deb: dpkg-buildpackage, debhelper (dh-python for python3-aijail,
# dh-apparmor for the stubs' AppArmor profile)
# and the package's other build dependencies beyond DEB_BUILD (python3,
# cmocka for the unit tests it runs; build-essential, which
# dpkg-checkbuilddeps asks of every package); lintian checks the result.
DEB_PKG := build-essential dpkg-dev debhelper dh-python dh-apparmor python3 libcmocka-dev lintian

# Policies that become stubs: policy "jail" is build/bin/jail, every other
# one build/bin/jail-NAME.  base.aj is only ever included.
POLICIES := jail python npm pip uv cargo browser worker
stub_name = $(if $(filter jail,$(1)),jail,jail-$(1))
STUBS    := $(foreach p,$(POLICIES),$(B)/bin/$(call stub_name,$(p)))
HEADERS  := $(POLICIES:%=$(B)/gen/%.h)

# common/: built into the compiler and into the stub alike.
COMPILER_SRC := $(wildcard compiler/*.c) $(wildcard common/*.c)
COMPILER_OBJ := $(COMPILER_SRC:%.c=$(B)/obj/%.o) $(B)/obj/grammar/aj.tab.o $(B)/obj/grammar/aj.lex.o
# The stub's rooms, lowest first: a room includes only its own header and
# the one below it (docs/layout.md; tests/layers/stub.py checks it).
ROOMS        := base variant scan confine root notify egress term proc fallback explain
STUB_HDR     := $(wildcard stub/*.h $(ROOMS:%=stub/%/*.h) common/*.h)
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

.PHONY: all deps deps-test deps-bench check unit-check corpus-check integration-check escape-check \
	install-check layers-check fuzz-replay bench fuzz install uninstall clean format check-docker deps-docker \
	deps-cross check-aarch64 deps-noia32 check-noia32 check-apparmor deps-pkg deb dist dist-check check-fresh \
	wheel wheel-check
.DELETE_ON_ERROR:
.SECONDARY:

all: $(B)/bin/aijail-compile $(HEADERS) $(STUBS) $(RT_FILES) $(SHARE_FILES)

deps:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_BUILD)

# The real-workload tests need node and npm; a machine that has them (say
# from NodeSource) keeps its own, any other gets Debian's.  The MCP clients
# go into this tree's build/, so they are installed as the tree's owner: run
# by root (sudo, su -c) for a user's tree, a root-owned build/ would stop
# the user's own make.
deps-test:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_TEST)
	command -v npm >/dev/null 2>&1 || \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm
	@uid=$$(stat -c %u .); gid=$$(stat -c %g .); \
	if [ "$$(id -u)" = 0 ] && [ "$$uid" != 0 ]; then \
		home=$$(getent passwd "$$uid" | cut -d: -f6); \
		echo "make mcp-deps as uid $$uid, the tree's owner"; \
		setpriv --reuid="$$uid" --regid="$$gid" --clear-groups \
			env HOME="$${home:-$(CURDIR)/build}" $(MAKE) mcp-deps; \
	else $(MAKE) mcp-deps; fi

deps-bench:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_BENCH)

deps-docker:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_DOCKER)

deps-cross:
	dpkg --add-architecture arm64
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_CROSS)

deps-noia32:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_NOIA32)

deps-pkg:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_PKG)

# --- grammar and compiler (glibc, libseccomp) -------------------------------

# Grouped targets (&:): one bison run makes both files, even under -j.
$(B)/grammar/aj.tab.c $(B)/grammar/aj.tab.h &: grammar/aj.y
	@mkdir -p $(B)/grammar
	$(BISON) -Wall -Werror -d -o $(B)/grammar/aj.tab.c $<

$(B)/grammar/aj.lex.c $(B)/grammar/aj.lex.h &: grammar/aj.l $(B)/grammar/aj.tab.h
	@mkdir -p $(B)/grammar
	$(FLEX) --header-file=$(B)/grammar/aj.lex.h -o $(B)/grammar/aj.lex.c $<

$(B)/obj/grammar/%.o: $(B)/grammar/%.c $(B)/grammar/aj.tab.h $(B)/grammar/aj.lex.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Wno-missing-prototypes -Wno-shadow -Wno-unused-function -c -o $@ $<

$(B)/obj/compiler/%.o: compiler/%.c $(wildcard compiler/*.h) include/aj_table.h $(B)/grammar/aj.tab.h $(B)/grammar/aj.lex.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/obj/common/%.o: common/%.c common/%.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/bin/aijail-compile: $(COMPILER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ -lseccomp

# --- one header per policy ---------------------------------------------------

$(B)/gen/%.h: policies/%.aj $(wildcard policies/*.aj) $(B)/bin/aijail-compile
	@mkdir -p $(dir $@)
	$(B)/bin/aijail-compile --arch=$(ARCH) -I policies -o $@ $<

# A cross build checks the compiler's constants (this machine's headers)
# against the target's: tests/aarch64/constants.c.
ifneq ($(ARCH),$(HOST_ARCH))
all: $(B)/gen/constants.ok
endif

$(B)/gen/constants-check.h: $(B)/bin/aijail-compile
	@mkdir -p $(dir $@)
	$(B)/bin/aijail-compile --list-constants | awk '{ printf "_Static_assert((unsigned long long)(%s) == %sULL, \"%s differs on $(ARCH)\");\n", $$1, $$2, $$1 }' >$@.tmp
	test -s $@.tmp && mv $@.tmp $@

$(B)/gen/constants.ok: tests/aarch64/constants.c $(B)/gen/constants-check.h $(B)/kh/.stamp
	$(MUSLCC) -std=gnu11 -D_GNU_SOURCE $(WARN) -isystem $(B)/kh -I$(B)/gen -fsyntax-only $<
	@touch $@

# --- the stub (musl, static) -------------------------------------------------

# musl-gcc cannot see the kernel's UAPI headers; give it only linux/, asm/
# and asm-generic/ so that no glibc header can leak in.
$(B)/kh/.stamp:
	@mkdir -p $(B)/kh
	ln -sfn /usr/include/linux $(B)/kh/linux
	ln -sfn /usr/include/asm-generic $(B)/kh/asm-generic
	ln -sfn $(KH_ASM) $(B)/kh/asm
	@touch $@

$(B)/obj/stub/%.musl.o: stub/%.c $(STUB_HDR) include/aj_table.h $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) $(STUB_CFLAGS) -c -o $@ $<

$(B)/obj/common/%.musl.o: common/%.c $(STUB_HDR) include/aj_table.h $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) $(STUB_CFLAGS) -c -o $@ $<

# The watcher serves every stub of one build: its key holds a hash of the
# stub's sources, so that a stub built from other sources never asks a
# watcher that classifies otherwise (stub/scan/watchtab.c, the key).
WATCH_BUILD = 0x$(shell cat $(sort $(STUB_SRC) $(STUB_HDR)) include/aj_table.h | sha256sum | cut -c1-16)ULL
$(B)/obj/stub/scan/watchtab.musl.o: $(STUB_SRC) $(STUB_HDR)
$(B)/obj/stub/scan/watchtab.musl.o: STUB_CFLAGS += -DAJ_WATCH_BUILD=$(WATCH_BUILD)

$(B)/obj/stub/policy-%.musl.o: stub/policy.c $(B)/gen/%.h include/aj_table.h $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) $(STUB_CFLAGS) -DAJ_POLICY_HEADER='"$(B)/gen/$*.h"' -I. -c -o $@ $<

# Linked as aijail-compile --build links a policy: its object, then the
# runtime's archive, so that both give the same bytes.
$(B)/bin/jail: $(B)/obj/stub/policy-jail.musl.o $(RT)/libaijail-stub.a
	@mkdir -p $(dir $@)
	$(MUSLCC) $(STUB_LDFLAGS) -o $@ $^

$(B)/bin/jail-%: $(B)/obj/stub/policy-%.musl.o $(RT)/libaijail-stub.a
	@mkdir -p $(dir $@)
	$(MUSLCC) $(STUB_LDFLAGS) -o $@ $^

# --- the runtime, for aijail-compile --build ----------------------------------

$(RT)/libaijail-stub.a: $(STUB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(STUB_AR) rcsD $@ $^

$(RT)/stub.flags: Makefile
	@mkdir -p $(dir $@)
	printf 'CFLAGS=%s\nLDFLAGS=%s\n' '$(strip $(STUB_OPT))' '$(strip $(STUB_LDFLAGS))' >$@

$(RT)/include/%.h: include/%.h
	@mkdir -p $(dir $@)
	cp $< $@

$(RT)/stub/%: stub/%
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/share/aijail/policies/%.aj: policies/%.aj
	@mkdir -p $(dir $@)
	cp $< $@

# --- tests -------------------------------------------------------------------

include tests/tests.mk

# --- integrations: the status tool, the Python package, the man pages ---------
#
#   build/bin/aijail-status  what is in force, measured from inside a jail
#   python-check             tests/python: the aijail package, as the test user
#   status-check             tests/status: aijail-status inside and outside
#   orchestrator-check       tests/integration/orchestrator.sh: jail-worker as an argv prefix
#   man-check                every docs/man page through groff, warnings fail
#   build/bin/aijail-mcp     the MCP server (python/aijail/mcp.py, docs/mcp.md)
#   mcp-check                tests/mcp: aijail-mcp driven by the official MCP clients

all: $(B)/bin/aijail-status $(B)/bin/aijail-mcp

# The MCP server: Python, standard library only; it finds the package in the
# tree (build/bin/../../python) or where install put it.
$(B)/bin/aijail-mcp: tools/aijail-mcp $(wildcard python/aijail/*.py)
	@mkdir -p $(dir $@)
	sed 's|@PYTHONDIR@|$(abspath python)|' $< >$@.tmp && chmod 0755 $@.tmp && mv $@.tmp $@

STATUS_SRC := tools/status.c tools/doctor.c tools/doctor_probe.c
$(B)/bin/aijail-status: $(STATUS_SRC) tools/doctor.h stub/scan/watchstate.h $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) -Os -std=gnu11 -D_GNU_SOURCE $(WARN) -isystem $(B)/kh -ffunction-sections -fdata-sections \
		-fno-asynchronous-unwind-tables -static -s -Wl,--gc-sections -o $@ $(STATUS_SRC)

MAN_PAGES := $(wildcard docs/man/*.1 docs/man/*.5)

# Both devices: man without a UTF-8 locale (a minbase machine, no LANG)
# formats for ASCII, where a character groff cannot map is a warning.
man-check:
	@fail=0; for m in $(MAN_PAGES); do \
		w=$$(groff -ww -man -Tutf8 -z $$m 2>&1; LC_ALL=C LANG= groff -ww -man -Tascii -z $$m 2>&1); \
		if [ -n "$$w" ]; then echo "FAIL $$m:"; echo "$$w"; fail=1; else echo "PASS $$m"; fi; \
	done; exit $$fail

status-check: $(B)/bin/aijail-status $(STUBS)
	tests/status/run.sh

python-check: $(B)/bin/aijail-status $(STUBS)
	tests/python/run.sh

orchestrator-check: $(STUBS)
	tests/integration/orchestrator.sh

# tests/mcp: aijail-mcp driven by the official MCP clients (npm packages
# for the tests only, pinned in tests/mcp/package.json, installed into
# $(B)/mcp-test, never globally).
mcp-deps:
	@mkdir -p $(B)/mcp-test
	cp tests/mcp/package.json $(B)/mcp-test/package.json
	cd $(B)/mcp-test && npm install --no-audit --no-fund --no-package-lock

mcp-check: $(B)/bin/aijail-mcp $(B)/bin/aijail-status $(STUBS)
	tests/mcp/run.sh

.PHONY: man-check status-check python-check orchestrator-check mcp-deps mcp-check

# Every suite runs, whatever an earlier one did, and the failures are
# listed together at the end: a first failure must not hide the rest.
# Each suite's output is framed by "== make check: SUITE" and its verdict
# (make check-fresh counts the PASS/FAIL/SKIP lines between them).
CHECK_SUITES := layers-check unit-check corpus-check fuzz-replay integration-check escape-check \
	install-check dist-check wheel-check status-check python-check orchestrator-check mcp-check man-check

check: all
	@failed=; for s in $(CHECK_SUITES); do \
		echo "== make check: $$s"; \
		if $(MAKE) --no-print-directory $$s; then echo "== make check: $$s passed"; \
		else echo "== make check: $$s FAILED"; failed="$$failed $$s"; fi; \
	done; \
	if [ -n "$$failed" ]; then echo "make check: FAILED:$$failed"; exit 1; fi; \
	echo "make check: all $(words $(CHECK_SUITES)) suites passed"

# make install into a temporary folder, then --build from there alone.
install-check: all
	tests/install/run.sh

# --- aarch64: the stubs on Debian's arm64 kernel under qemu -----------------
#
# The cross build into build-aarch64/, then tests/aarch64/run.sh boots it
# (make deps-cross first; the kernel and busybox are fetched into
# build-aarch64/qemu/ by apt-get download).

$(B)/tests/helper: tests/aarch64/helper.c
	@mkdir -p $(dir $@)
	$(MUSLCC) -Os -std=gnu11 -D_GNU_SOURCE $(WARN) -static -s -o $@ $<

check-aarch64:
	$(MAKE) ARCH=aarch64 all build-aarch64/tests/probe build-aarch64/tests/helper
	AIJAIL_BUILD=$(abspath build-aarch64) tests/aarch64/run.sh

# --- x86_64 without IA32 emulation: Debian 12's kernel under qemu ----------
#
# tests/noia32/run.sh boots Debian 12's 6.12 kernel twice, with
# ia32_emulation=false and without (make deps-noia32 first; the kernel and
# busybox are fetched into build/noia32/ by apt-get download).

check-noia32: all $(B)/tests/probe $(B)/tests/helper $(B)/tests/unit/compiler/test_seccomp
	AIJAIL_BUILD=$(abspath $(B)) tests/noia32/run.sh

# --- AppArmor: the stubs' profile on Debian 13's and Ubuntu 24.04's kernels -----
#
# tests/apparmor/run.sh boots each under qemu with apparmor=1 (make
# deps-noia32 first; the kernels and trixie's apparmor_parser are fetched
# into build/apparmor-vm/ by apt-get download with a configuration of its
# own): the package's profile parses and loads, the stubs run under it, and
# on Ubuntu's kernel, with kernel.apparmor_restrict_unprivileged_userns=1,
# they fail closed without it; the release archive's profile and INSTALL's
# command the same for /usr/local/bin; --doctor says the same each time.

check-apparmor: all $(B)/tests/helper
	$(MAKE) dist ARCH=x86_64
	AIJAIL_BUILD=$(abspath $(B)) tests/apparmor/run.sh

# --- bench, fuzz, install ----------------------------------------------------

bench: all $(B)/bench/seccomp_cost
	$(B)/bench/seccomp_cost $(POLICIES:%=policies/%.aj)
	bench/run.sh

$(B)/bench/seccomp_cost: bench/seccomp_cost.c $(filter-out $(B)/obj/compiler/main.o,$(COMPILER_OBJ))
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ -lseccomp

fuzz: $(B)/grammar/aj.tab.c $(B)/grammar/aj.lex.c
	tests/fuzz/build.sh

# The fuzz harness as a plain program under AddressSanitizer, replayed over
# every policy we have: cheap enough for every check, and it keeps the
# harness compiling.
$(B)/tests/fuzz_replay: tests/fuzz/fuzz_compile.c $(COMPILER_SRC) $(B)/grammar/aj.tab.c $(B)/grammar/aj.lex.c
	@mkdir -p $(dir $@)
	$(CC) -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -DAJ_FUZZ_MAIN \
		-DAIJAIL_VERSION='"$(AIJAIL_VERSION)"' \
		-std=gnu11 -D_GNU_SOURCE -Iinclude -Icompiler -I. -I$(B)/grammar -o $@ \
		tests/fuzz/fuzz_compile.c $(filter-out compiler/main.c,$(COMPILER_SRC)) \
		$(B)/grammar/aj.tab.c $(B)/grammar/aj.lex.c -lseccomp

fuzz-replay: $(B)/tests/fuzz_replay $(B)/tests/fuzz_keys_replay
	$(B)/tests/fuzz_replay policies/*.aj tests/policies/bad/*.aj tests/policies/good/*.aj
	$(B)/tests/fuzz_keys_replay tests/fuzz/keys/*

# The man pages and the Python package are installed when they exist.
MAN1     := $(wildcard docs/man/*.1)
MAN5     := $(wildcard docs/man/*.5)
PY_FILES := $(patsubst python/%,%,$(shell test -d python/aijail && \
	find python/aijail -type f ! -path '*/__pycache__/*' ! -name '*.pyc' | LC_ALL=C sort))
I_LIB    := $(DESTDIR)$(PREFIX)/lib/aijail
I_SHARE  := $(DESTDIR)$(PREFIX)/share/aijail

install: all
	install -d $(DESTDIR)$(BINDIR) $(I_LIB)/include $(I_LIB)/stub $(I_SHARE)/policies
	install -m 0755 $(B)/bin/aijail-compile $(B)/bin/aijail-status $(B)/bin/aijail-keys $(STUBS) $(DESTDIR)$(BINDIR)/
	sed 's|@PYTHONDIR@|$(PYTHONDIR)|' tools/aijail-mcp >$(DESTDIR)$(BINDIR)/aijail-mcp
	chmod 0755 $(DESTDIR)$(BINDIR)/aijail-mcp
	install -m 0644 $(RT)/libaijail-stub.a $(RT)/stub.flags $(I_LIB)/
	install -m 0644 $(RT)/include/aj_table.h $(I_LIB)/include/
	install -m 0644 $(RT_STUB) $(I_LIB)/stub/
	install -m 0644 $(SHARE_FILES) $(I_SHARE)/policies/
	$(if $(MAN1),install -d $(DESTDIR)$(MANDIR)/man1 && install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(MAN5),install -d $(DESTDIR)$(MANDIR)/man5 && install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)
	$(foreach f,$(PY_FILES),install -D -m 0644 python/$(f) $(DESTDIR)$(PYTHONDIR)/$(f) &&) true
	install -d $(I_SHARE)/apparmor
	contrib/apparmor/profile.sh $(BINDIR) $(STUBS:$(B)/bin/%=%) >$(I_SHARE)/apparmor/aijail

# What install put, and the folders that are aijail's own once empty
# (Python's __pycache__ beside the package: made by importing it).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/aijail-compile $(DESTDIR)$(BINDIR)/aijail-status $(DESTDIR)$(BINDIR)/aijail-keys $(DESTDIR)$(BINDIR)/aijail-mcp \
		$(STUBS:$(B)/bin/%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(I_LIB)/libaijail-stub.a $(I_LIB)/stub.flags $(I_LIB)/include/aj_table.h \
		$(RT_STUB:$(RT)/%=$(I_LIB)/%) $(SHARE_FILES:$(B)/share/aijail/%=$(I_SHARE)/%) $(I_SHARE)/apparmor/aijail
	rm -f $(MAN1:docs/man/%=$(DESTDIR)$(MANDIR)/man1/%) $(MAN5:docs/man/%=$(DESTDIR)$(MANDIR)/man5/%)
	rm -f $(PY_FILES:%=$(DESTDIR)$(PYTHONDIR)/%)
	$(if $(PY_FILES),find $(DESTDIR)$(PYTHONDIR)/aijail -depth -name __pycache__ -type d \
		-exec rm -rf {} + 2>/dev/null; find $(DESTDIR)$(PYTHONDIR)/aijail -depth -type d \
		-empty -delete 2>/dev/null; true)
	rmdir $(I_LIB)/include $(I_LIB)/stub $(I_LIB) $(I_SHARE)/policies $(I_SHARE)/apparmor $(I_SHARE) 2>/dev/null || true

# --- the Debian packages, the release archive -----------------------------------

# dpkg-buildpackage in a copy of the sources (what git tracks, and new
# files it does not ignore; everything but build/ outside git), so that
# the user's build/ never ends up in a package; the packages land in
# build/deb, lintian fails it on an error.
DEB_DIR  := $(B)/deb
# dpkg-buildpackage runs make -j1 unless told: two jobs, as make -j2.
DEB_JOBS ?= 2
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C $(DEB_DIR)/src; \
	else \
		tar --exclude=./$(B) -cf - . | tar -xf - -C $(DEB_DIR)/src; \
	fi
	cd $(DEB_DIR)/src && dpkg-buildpackage -us -uc -b -J$(DEB_JOBS)
	rm -rf $(DEB_DIR)/src
	@if command -v lintian >/dev/null; then \
		lintian --fail-on error $(DEB_DIR)/*.changes; \
	else \
		echo "make deb: no lintian (make deps-pkg installs it): the packages are unchecked"; \
	fi
	@ls -1 $(DEB_DIR)/*.deb

# The static release archive: the stubs and aijail-status of one
# architecture's build (build/, or build-aarch64/ that make ARCH=aarch64
# builds), the policies, the man pages, into build/dist whatever ARCH;
# reproducible: every time, every owner and every order fixed, the time
# the last commit's.
ARCH     ?= x86_64
DIST_B   := $(if $(filter x86_64,$(ARCH)),build,build-$(ARCH))
DIST_D   := build/dist
DIST_N   := aijail-$(AIJAIL_VERSION)-$(ARCH)-linux
DIST_TGZ := $(DIST_D)/$(DIST_N).tar.gz
DIST_BIN := $(foreach p,$(POLICIES),$(DIST_B)/bin/$(call stub_name,$(p))) $(DIST_B)/bin/aijail-status
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
dist:
	@for f in $(DIST_BIN); do [ -x $$f ] || { \
		echo "make dist: $$f is missing: build $(ARCH) first (make$(if $(filter x86_64,$(ARCH)),, ARCH=$(ARCH)))"; exit 1; }; done
	rm -rf $(DIST_D)/$(DIST_N) && mkdir -p $(DIST_D)/$(DIST_N)/bin $(DIST_D)/$(DIST_N)/share/aijail/policies \
		$(DIST_D)/$(DIST_N)/share/man/man1 $(DIST_D)/$(DIST_N)/share/man/man5
	install -m 0755 $(DIST_BIN) $(DIST_D)/$(DIST_N)/bin/
	install -m 0644 policies/*.aj $(DIST_D)/$(DIST_N)/share/aijail/policies/
	mkdir -p $(DIST_D)/$(DIST_N)/share/aijail/apparmor
	contrib/apparmor/profile.sh /usr/local/bin $(notdir $(filter-out %/aijail-status,$(DIST_BIN))) \
		>$(DIST_D)/$(DIST_N)/share/aijail/apparmor/aijail
	install -m 0644 $(MAN1) $(DIST_D)/$(DIST_N)/share/man/man1/
	install -m 0644 $(MAN5) $(DIST_D)/$(DIST_N)/share/man/man5/
	install -m 0644 LICENSE $(DIST_D)/$(DIST_N)/
	sed 's/@VERSION@/$(AIJAIL_VERSION)/g; s/@ARCH@/$(ARCH)/g' tools/INSTALL.dist >$(DIST_D)/$(DIST_N)/INSTALL
	cd $(DIST_D)/$(DIST_N) && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' | \
		xargs sha256sum >SHA256SUMS
	chmod -R u=rwX,go=rX $(DIST_D)/$(DIST_N)
	tar --sort=name --mtime=@$(SOURCE_DATE_EPOCH) --owner=0 --group=0 --numeric-owner \
		-C $(DIST_D) -cf - $(DIST_N) | gzip -9n >$(DIST_TGZ).tmp
	mv $(DIST_TGZ).tmp $(DIST_TGZ)
	rm -rf $(DIST_D)/$(DIST_N)
	cd $(DIST_D) && sha256sum $(DIST_N).tar.gz >$(DIST_N).tar.gz.sha256
	@cat $(DIST_TGZ).sha256

# The wheel: the Python package, aijail-mcp as its console script, and
# the static stubs and aijail-status as scripts that pip or uv copy into
# the environment's bin/, where the package finds them (RECORD); tagged
# for any glibc or musl Linux of ARCH (tools/wheel.py says why).  Not
# aijail-compile: it links glibc and libseccomp dynamically, and its
# --build runtime is GCC link-time code that only the gcc that wrote it
# reads (the Debian package's aijail-dev is built per release for that).
# Written by tools/wheel.py with the standard library only, no PyPI; as
# reproducible as make dist (the last commit's time, fixed modes, order).
WHEEL_D   := build/wheel
WHEEL_BIN := $(STUBS) $(B)/bin/aijail-status
wheel: $(WHEEL_BIN)
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(PYTHON) tools/wheel.py --version $(AIJAIL_VERSION) \
		--arch $(ARCH) --out $(WHEEL_D) --python python --readme python/README.md --license LICENSE \
		$(WHEEL_BIN)

# make wheel twice gives the same bytes; installed with pip into fresh
# virtual environments (as the test user, and as root), offline, the
# stubs run from the venv's bin/ and the package and aijail-mcp find them.
wheel-check: all
	tests/wheel/run.sh

# make dist twice gives the same bytes; SHA256SUMS inside holds; the
# archive's jail-worker runs a command as the test user.
dist-check: all
	tests/dist/run.sh

format:
	clang-format -i $(wildcard compiler/*.c compiler/*.h $(STUB_SRC) stub/policy.c $(STUB_HDR) include/*.h tests/unit/*.c tests/unit/*/*.c tests/*.c)

clean:
	rm -rf $(B)

# --- aijail-keys: the process that adds a bound key (docs/keys.md) ----------
#
# Mbed TLS as Debian ships it (the orig tarball of bookworm's source
# package, checked against its .dsc's SHA-256), built with musl into
# $(B)/third; only aijail-keys links it, never a stub.
MBEDTLS_VER := 2.28.3
MBEDTLS_SHA := 3b4953aa55a681e084d31892d9904cc5328d6b4958ea57b90ae4b4f94ae69a8d
MBEDTLS_URL ?= http://deb.debian.org/debian/pool/main/m/mbedtls/mbedtls_$(MBEDTLS_VER).orig.tar.gz
MBED        := $(B)/third/mbedtls
MBED_LIBS   := $(MBED)/library/libmbedtls.a $(MBED)/library/libmbedx509.a $(MBED)/library/libmbedcrypto.a
KEYS_SRC    := keys/main.c keys/request.c keys/filter.c

$(B)/third/mbedtls_$(MBEDTLS_VER).orig.tar.gz:
	@mkdir -p $(dir $@)
	curl -fsSL -o $@.tmp $(MBEDTLS_URL)
	echo '$(MBEDTLS_SHA)  $@.tmp' | sha256sum -c --quiet
	mv $@.tmp $@

$(MBED_LIBS) &: $(B)/third/mbedtls_$(MBEDTLS_VER).orig.tar.gz keys/mbedtls_user.h
	rm -rf $(MBED) && mkdir -p $(MBED)
	tar -xzf $< -C $(MBED) --strip-components=1
	$(MAKE) -C $(MBED)/library CC=$(MUSLCC) AR=ar \
		CFLAGS='-Os -ffunction-sections -fdata-sections -DMBEDTLS_USER_CONFIG_FILE=\"$(abspath keys/mbedtls_user.h)\"' \
		libmbedtls.a libmbedx509.a libmbedcrypto.a

$(B)/bin/aijail-keys: $(KEYS_SRC) keys/keys.h $(MBED_LIBS) $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) -Os -std=gnu11 -D_GNU_SOURCE $(WARN) -I. -I$(MBED)/include -isystem $(B)/kh \
		-DMBEDTLS_USER_CONFIG_FILE='"$(abspath keys/mbedtls_user.h)"' \
		-ffunction-sections -fdata-sections -static -s -Wl,--gc-sections -o $@ $(KEYS_SRC) $(MBED_LIBS)

all: $(B)/bin/aijail-keys

# aijail-keys's request parser, the same way (tests/fuzz/fuzz_keys_request.c).
$(B)/tests/fuzz_keys_replay: tests/fuzz/fuzz_keys_request.c keys/request.c keys/keys.h common/keys.h
	@mkdir -p $(dir $@)
	$(CC) -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -DAJ_FUZZ_MAIN \
		-std=gnu11 -D_GNU_SOURCE $(WARN) -I. -o $@ tests/fuzz/fuzz_keys_request.c keys/request.c
