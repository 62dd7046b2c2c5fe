# tests.mk: the test programs and suites behind `make check` (mk/check.mk
# lists them all), and the probe.
#
#   unit-check         every tests/unit/ROOM/test_*.c, built with gcc and cmocka, run
#   corpus-check       tests/policies/run.sh: bad policies give their .err
#   integration-check  tests/integration/run.sh: real stubs, as a user and root
#   escape-check       tests/escape/run.sh and soak.sh: escape classes, the soak
#
# Unit tests are linked by name, and mirror the folders (below tests/unit/):
#   compiler/test_X.c      all compiler objects but main.o, libseccomp, plus
#                          $(TEST_COMPILER_X_SRC)
#   ROOM/test_X.c          stub/ROOM/X.c (common/X.c for ROOM common) built
#                          with gcc (glibc), plus $(TEST_STUB_X_SRC)
#   test_*.c (other)       nothing but $(TEST_<name>_SRC)
# so a stub test that needs another file says, for example,
#   TEST_STUB_git_SRC := stub/base/out.c stub/scan/gitindex.c

TEST_CFLAGS := $(HOST_CFLAGS) -Istub -I. -Wno-missing-prototypes
CMOCKA_MESSAGE_OUTPUT ?= stdout
export CMOCKA_MESSAGE_OUTPUT

UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c tests/unit/*/test_*.c))
UNIT_NAMES := $(UNIT_SRC:tests/unit/%.c=%)
UNIT_BINS  := $(UNIT_NAMES:%=$(B)/tests/unit/%)
COMPILER_TEST_OBJ := $(filter-out $(B)/obj/compiler/main.o,$(COMPILER_OBJ))

# Extra sources per stub test (its own file is always linked); add a
# line here when a stub test needs more than its own file.
TEST_STUB_env_SRC := stub/base/glob.c stub/variant/vars.c stub/base/out.c
TEST_STUB_git_SRC := stub/base/out.c stub/scan/gitindex.c
# The index event by event: the walk, its records, its hits, the matcher.
TEST_STUB_settle_SRC := stub/scan/scan.c stub/scan/walk.c stub/scan/scanidx.c stub/scan/hits.c stub/scan/match.c \
	stub/scan/guards.c stub/base/out.c
# The table flattened and back, then classifying as before.
TEST_STUB_watchtab_SRC := stub/scan/match.c stub/base/out.c stub/variant/own.c
# The watcher's daemon forked as a launch forks it: the real walk, index
# and hits behind it.
TEST_STUB_watchd_SRC := stub/watch/watchtab.c stub/scan/scan.c stub/scan/walk.c stub/scan/scanidx.c stub/scan/hits.c \
	stub/scan/match.c stub/scan/guards.c stub/scan/settle.c stub/scan/git.c stub/scan/gitindex.c \
	stub/base/out.c stub/base/die.c stub/base/glob.c stub/variant/vars.c stub/variant/own.c
TEST_STUB_summary_SRC := stub/base/out.c
# explain/: its writer (rp.c, out.c) and the contract's names; the rooms
# a section asks are the test's stand-ins.
TEST_STUB_net_SRC := stub/base/rp.c stub/base/out.c stub/base/run.c stub/base/contract.c
TEST_STUB_secrets_SRC := stub/base/rp.c stub/base/out.c stub/base/run.c
TEST_STUB_report_SRC := stub/base/rp.c stub/base/out.c stub/base/run.c
TEST_STUB_plan_SRC := stub/variant/vars.c stub/base/out.c stub/variant/resolve.c stub/variant/xauth.c stub/base/contract.c
# The covers, one per hit and one per directory full of them; the scan's
# answer and the plan are the test's own.
TEST_STUB_mask_SRC := stub/root/maskdir.c stub/base/out.c
TEST_STUB_fence_SRC := stub/variant/vars.c stub/base/out.c stub/base/contract.c
TEST_STUB_landlock_SRC := stub/variant/vars.c stub/base/out.c stub/base/rp.c
# The rule for every source, in a scratch tree: the project is a variable.
TEST_STUB_resolve_SRC := stub/variant/vars.c stub/base/out.c stub/base/contract.c stub/variant/xauth.c
TEST_STUB_extra_SRC := stub/variant/vars.c stub/base/out.c stub/variant/resolve.c stub/variant/xauth.c stub/base/contract.c
TEST_STUB_forward_SRC := stub/egress/relay.c stub/egress/publish.c
TEST_STUB_proxy_SRC := stub/egress/conn.c stub/egress/httphead.c common/hosts.c stub/egress/egress.c stub/base/out.c stub/base/wire.c \
	stub/egress/tell.c stub/egress/upstream.c \
	stub/egress/relay.c stub/egress/secret.c
TEST_STUB_resolver_SRC := common/hosts.c stub/base/out.c
TEST_STUB_upstream_SRC := common/hosts.c stub/base/out.c
# The tools' rows are the compiler's (follow.c), as a followed variant carries them.
TEST_STUB_egress_SRC := common/hosts.c stub/variant/env.c stub/variant/vars.c stub/base/glob.c stub/base/out.c \
	compiler/follow.c compiler/ast.c
# supervise.c's calls into other rooms are the test's own stand-ins.
TEST_STUB_supervise_SRC := stub/base/out.c
# die() and die_cleanup are the test's own.
TEST_STUB_private_SRC := stub/base/out.c stub/variant/vars.c stub/variant/resolve.c stub/variant/xauth.c stub/base/contract.c
# The plan and the rooms sockets.c calls are the test's own.
TEST_STUB_sockets_SRC := stub/base/out.c stub/variant/vars.c stub/variant/resolve.c stub/variant/xauth.c stub/base/contract.c
# The scan's result, the plan and the report are the test's own.
TEST_STUB_record_SRC := stub/base/out.c stub/variant/vars.c stub/variant/own.c stub/base/contract.c
TEST_STUB_limits_SRC := stub/base/out.c
TEST_STUB_status_SRC := stub/base/out.c
TEST_STUB_notify_SRC := stub/notify/verdict.c stub/base/wire.c
# The log's writer is the refusals' (with the summary's count), through rp.c.
TEST_STUB_reached_SRC := stub/notify/refusals.c stub/notify/summary.c stub/base/rp.c stub/base/out.c
TEST_STUB_scan_SRC := stub/scan/walk.c stub/scan/hits.c stub/scan/match.c stub/scan/scanidx.c
# A compiler test may name stub sources too: the compiled scan automaton runs
# in the stub's own code against the reference glob.
TEST_COMPILER_match_SRC := stub/scan/match.c stub/base/glob.c
TEST_COMPILER_verdict_SRC := stub/notify/verdict.c
# aijail-keys's request parser (keys/request.c), alone.
TEST_test_keys_request_SRC := keys/request.c
# aarch64_nr.c: the numbers from the kernel's generic table, beside libseccomp's.
TEST_COMPILER_aarch64_SRC := stub/notify/verdict.c tests/unit/compiler/aarch64_nr.c

# unit_rule(name): how one test binary is built.
define unit_rule
$(B)/tests/unit/$(1): tests/unit/$(1).c $$(call unit_deps,$(1)) $(wildcard tests/unit/*.h compiler/*.h) $(STUB_HDR) include/aj_table.h \
		$(if $(filter compiler/%,$(1)),$(B)/grammar/aj.tab.h $(B)/grammar/aj.lex.h)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(TEST_CFLAGS) -Itests/unit -o $$@ $$(filter %.c %.o,$$^) $$(call unit_libs,$(1)) -lcmocka
endef

# Objects and sources a test links with, by the naming rule above.
unit_room   = $(patsubst %/,%,$(dir $(1)))
unit_file   = $(patsubst test_%,%,$(notdir $(1)))
unit_obj    = $(if $(filter common,$(call unit_room,$(1))),$(B)/obj/test/common/$(call unit_file,$(1)).o,\
                $(B)/obj/test/stub/$(call unit_room,$(1))/$(call unit_file,$(1)).o)
unit_deps   = $(if $(filter compiler/%,$(1)),$(COMPILER_TEST_OBJ) $(TEST_COMPILER_$(call unit_file,$(1))_SRC),\
              $(if $(findstring /,$(1)),\
                $(sort $(call unit_obj,$(1)) \
                  $(patsubst %.c,$(B)/obj/test/%.o,$(TEST_STUB_$(call unit_file,$(1))_SRC))),\
                $(TEST_$(1)_SRC)))
unit_libs   = $(if $(filter compiler/%,$(1)),-lseccomp)

$(foreach t,$(UNIT_NAMES),$(eval $(call unit_rule,$(t))))

# Stub sources for unit tests: the same code, but glibc and a debugger-friendly build.
$(B)/obj/test/stub/%.o: stub/%.c $(STUB_HDR) include/aj_table.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -c -o $@ $<
$(B)/obj/test/common/%.o: common/%.c $(STUB_HDR) include/aj_table.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -c -o $@ $<
$(B)/obj/test/compiler/%.o: compiler/%.c $(wildcard compiler/*.h) include/aj_table.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -c -o $@ $<

# The rooms: each file includes only its room's header or the one below,
# no file is over 600 lines, and the files call each other without a
# cycle (tests/layers/stub.py); the compiler and tools/ by the same rules,
# 600 lines at most (tests/layers/compiler.py); no Python file is over 600
# lines (tests/layers/python.py); every relative link of the README and
# docs/ leads to a file and heading that exist (tests/layers/links.py); the
# rooms' table of docs/layout.md names every stub file (rooms_doc.py).
layers-check: $(patsubst %.c,$(B)/obj/test/%.o,$(STUB_SRC)) $(filter $(B)/obj/compiler/%,$(COMPILER_OBJ))
	tests/layers/stub.py $(ROOMS) -- $(filter $(B)/obj/test/%,$^)
	tests/layers/compiler.py $(filter $(B)/obj/compiler/%,$^) -- $(filter $(B)/obj/test/%,$^)
	tests/layers/python.py python
	tests/layers/links.py
	tests/layers/rooms_doc.py

unit-check: $(UNIT_BINS)
	@fail=0; n=0; \
	for t in $(UNIT_BINS); do \
		n=$$((n + 1)); \
		echo "== $$t"; \
		if ! $$t; then echo "FAIL $$t"; fail=$$((fail + 1)); fi; \
	done; \
	echo "unit-check: $$n test programs, $$fail failed"; \
	test $$fail -eq 0

corpus-check: $(B)/bin/aijail-compile
	tests/policies/run.sh

# --- the probe run inside jails (static musl, like the stubs) ---------------

$(B)/tests/probe: tests/probe/probe.c $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) -Os -std=gnu11 -D_GNU_SOURCE $(WARN) -isystem $(B)/kh -static -o $@ $<

integration-check: $(B)/bin/aijail-compile $(STUBS) $(B)/tests/probe
	tests/integration/run.sh

# --- the escape suite: one case per escape class, then the soak ----------------

$(B)/tests/racer: tests/escape/racer.c $(B)/kh/.stamp
	@mkdir -p $(dir $@)
	$(MUSLCC) -Os -std=gnu11 -D_GNU_SOURCE $(WARN) -isystem $(B)/kh -static -o $@ $<

escape-check: $(B)/bin/aijail-compile $(STUBS) $(B)/tests/probe $(B)/tests/racer
	@rc=0; tests/escape/run.sh || rc=1; tests/escape/soak.sh || rc=1; exit $$rc

# --- the stubs in real Docker containers (issue 11) ---------------------------
# Starts a dockerd of its own and stops it afterwards; skipped, never
# passed, where none can start (AJ_REQUIRE_DOCKER=1 makes that a failure).

check-docker: $(B)/bin/aijail-compile $(STUBS) $(B)/tests/probe
	tests/docker/run.sh

# --- the README's two commands on fresh Debian roots (issue 25) -----------------
# A debootstrap minbase root per release, in a dockerd of its own; the
# README's commands as root and as a user with sudo; each suite's counts.
# FRESH_RELEASES="bookworm trixie" by default; root on each, the user on
# the last (FRESH_USERS="root user" for both everywhere).
check-fresh:
	tests/fresh/run.sh

# --- scan/test_scan walks with a policy of its own, compiled as the shipped ones ---

$(B)/gen/test-scan.h: tests/unit/scan.aj $(B)/bin/aijail-compile
	@mkdir -p $(dir $@)
	$(B)/bin/aijail-compile -o $@ $<
$(B)/tests/unit/scan/test_scan: $(B)/gen/test-scan.h
$(B)/tests/unit/scan/test_scan: TEST_CFLAGS += -I$(B)/gen

# --- the agents themselves in their jails, driven offline (issue 34) ------------

.PHONY: agents-check
agents-check: $(B)/bin/aijail-compile $(STUBS)
	tests/agents/run.sh
