# aijail: compiler, then one header per policy, then one static stub per policy.
#
#   make deps      install the Debian/Ubuntu packages the build and tests use
#   make           build/bin/aijail-compile, build/gen/*.h, build/bin/jail*
#   make check     unit tests (cmocka), policy error corpus, integration tests, escape suite and soak
#   make check-docker  the stubs in real Docker containers (a dockerd of its own; root)
#   make bench     start-up benchmark against bare exec and bubblewrap
#   make fuzz      build the compiler fuzz target (clang, libFuzzer)
#   make install   PREFIX=/usr/local DESTDIR=

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
B      := build

CC       ?= cc
MUSLCC   ?= musl-gcc
BISON    ?= bison
FLEX     ?= flex

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS   ?= -O2 -g
HOST_CFLAGS := $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -Iinclude -Icompiler -I$(B)/grammar
# A static, non-PIE stub: its tables (pointers included) land in .rodata,
# read-only at run time, where PIE code would put them in .data.rel.ro,
# which only a dynamic loader ever makes read-only; no RELRO padding, and
# a small common page size so that the few bytes of .data do not start a
# page of their own in the file (up to 4 KiB of zeros).  Link-time
# optimisation across the stub's files: about 1.2 KiB less per stub.
STUB_CFLAGS := -Os -std=gnu11 -D_GNU_SOURCE $(WARN) -Iinclude -Istub -isystem $(B)/kh \
	-ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-stack-protector \
	-fno-pie -flto
# $(WARN) at the link too: with -flto the code is compiled there again,
# and its warnings must be errors as well.
STUB_LDFLAGS := $(WARN) -static -no-pie -flto -Wl,--gc-sections -Wl,-z,noseparate-code -Wl,-z,norelro \
	-Wl,-z,common-page-size=64 -s

DEB_PACKAGES := build-essential flex bison libfl-dev libseccomp-dev seccomp musl-tools musl-dev \
	libcmocka-dev linux-libc-dev file hyperfine bubblewrap util-linux passwd \
	python3 python3-venv python3-pip python3-setuptools python3-wheel git ca-certificates \
	cargo docker.io busybox-static

# Policies that become stubs: policy "jail" is build/bin/jail, every other
# one build/bin/jail-NAME.  base.aj is only ever included.
POLICIES := jail python npm pip uv cargo worker
stub_name = $(if $(filter jail,$(1)),jail,jail-$(1))
STUBS    := $(foreach p,$(POLICIES),$(B)/bin/$(call stub_name,$(p)))
HEADERS  := $(POLICIES:%=$(B)/gen/%.h)

COMPILER_SRC := $(wildcard compiler/*.c)
COMPILER_OBJ := $(COMPILER_SRC:%.c=$(B)/obj/%.o) $(B)/obj/grammar/aj.tab.o $(B)/obj/grammar/aj.lex.o
STUB_SRC     := $(filter-out stub/policy.c,$(wildcard stub/*.c))
STUB_OBJ     := $(STUB_SRC:%.c=$(B)/obj/%.musl.o)

.PHONY: all deps check unit-check corpus-check integration-check escape-check fuzz-replay bench fuzz install clean format check-docker
.DELETE_ON_ERROR:
.SECONDARY:

all: $(B)/bin/aijail-compile $(HEADERS) $(STUBS)

# The real-workload tests need node and npm; a machine that has them (say
# from NodeSource) keeps its own, any other gets Debian's.
deps:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_PACKAGES)
	command -v npm >/dev/null 2>&1 || \
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm

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

$(B)/bin/aijail-compile: $(COMPILER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ -lseccomp

# --- one header per policy ---------------------------------------------------

$(B)/gen/%.h: policies/%.aj $(wildcard policies/*.aj) $(B)/bin/aijail-compile
	@mkdir -p $(dir $@)
	$(B)/bin/aijail-compile -I policies -o $@ $<

# --- the stub (musl, static) -------------------------------------------------

# musl-gcc cannot see the kernel's UAPI headers; give it only linux/, asm/
# and asm-generic/ so that no glibc header can leak in.
$(B)/kh/.stamp:
	@mkdir -p $(B)/kh
	ln -sfn /usr/include/linux $(B)/kh/linux
	ln -sfn /usr/include/asm-generic $(B)/kh/asm-generic
	ln -sfn /usr/include/$(shell $(CC) -dumpmachine)/asm $(B)/kh/asm
	@touch $@

$(B)/obj/stub/%.musl.o: stub/%.c $(wildcard stub/*.h) include/aj_table.h $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) $(STUB_CFLAGS) -c -o $@ $<

$(B)/obj/stub/policy-%.musl.o: stub/policy.c $(B)/gen/%.h $(wildcard stub/*.h) include/aj_table.h $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) $(STUB_CFLAGS) -DAJ_POLICY_HEADER='"$(B)/gen/$*.h"' -I. -c -o $@ $<

$(B)/bin/jail: $(STUB_OBJ) $(B)/obj/stub/policy-jail.musl.o
	@mkdir -p $(dir $@)
	$(MUSLCC) $(STUB_LDFLAGS) -o $@ $^

$(B)/bin/jail-%: $(STUB_OBJ) $(B)/obj/stub/policy-%.musl.o
	@mkdir -p $(dir $@)
	$(MUSLCC) $(STUB_LDFLAGS) -o $@ $^

# --- tests -------------------------------------------------------------------

include tests/tests.mk

check: all unit-check corpus-check fuzz-replay integration-check escape-check
	@echo "make check: all suites passed"

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
		-std=gnu11 -D_GNU_SOURCE -Iinclude -Icompiler -I$(B)/grammar -o $@ \
		tests/fuzz/fuzz_compile.c $(filter-out compiler/main.c,$(COMPILER_SRC)) \
		$(B)/grammar/aj.tab.c $(B)/grammar/aj.lex.c -lseccomp

fuzz-replay: $(B)/tests/fuzz_replay
	$(B)/tests/fuzz_replay policies/*.aj tests/policies/bad/*.aj tests/policies/good/*.aj

install: all
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(B)/bin/aijail-compile $(STUBS) $(DESTDIR)$(BINDIR)/

format:
	clang-format -i $(wildcard compiler/*.c compiler/*.h stub/*.c stub/*.h include/*.h tests/unit/*.c tests/*.c)

clean:
	rm -rf $(B)
