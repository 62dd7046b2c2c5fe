# tests.mk: the three test suites behind `make check`, and the probe.
#
#   unit-check         every tests/unit/test_*.c, built with gcc and cmocka, run
#   corpus-check       tests/policies/run.sh: bad policies give their .err
#   integration-check  tests/integration/run.sh: real stubs, as a user and root
#   escape-check       tests/escape/run.sh and soak.sh: escape classes, the soak
#
# Unit tests are linked by name:
#   test_compiler_*.c  all compiler objects but main.o, libseccomp
#   test_stub_X.c      stub/X.c built with gcc (glibc), plus $(TEST_STUB_X_SRC)
#   test_*.c (other)   nothing but $(TEST_<name>_SRC)
# so a stub test that needs another file says, for example,
#   TEST_STUB_mask_SRC := stub/glob.c

TEST_CFLAGS := $(HOST_CFLAGS) -Istub -Wno-missing-prototypes
CMOCKA_MESSAGE_OUTPUT ?= stdout
export CMOCKA_MESSAGE_OUTPUT

UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
UNIT_NAMES := $(UNIT_SRC:tests/unit/%.c=%)
UNIT_BINS  := $(UNIT_NAMES:%=$(B)/tests/unit/%)
COMPILER_TEST_OBJ := $(filter-out $(B)/obj/compiler/main.o,$(COMPILER_OBJ))

# Extra sources per stub test (stub/X.c itself is always linked); add a
# line here when a stub test needs more than its own file, e.g.
# TEST_STUB_mask_SRC := stub/glob.c
TEST_STUB_env_SRC := stub/glob.c stub/vars.c stub/out.c
TEST_STUB_gitindex_SRC := stub/out.c
TEST_STUB_summary_SRC := stub/out.c
TEST_STUB_mount_plan_SRC := stub/vars.c stub/out.c stub/resolve.c
TEST_STUB_fence_SRC := stub/vars.c stub/out.c
TEST_STUB_landlock_SRC := stub/vars.c stub/out.c
TEST_STUB_extra_SRC := stub/vars.c stub/out.c stub/resolve.c
# A compiler test may name stub sources too: the compiled scan automaton runs
# in the stub's own code against the reference glob.
TEST_test_compiler_match_SRC := stub/match.c stub/glob.c
TEST_test_compiler_verdict_SRC := stub/verdict.c

# unit_rule(name): how one test binary is built.
define unit_rule
$(B)/tests/unit/$(1): tests/unit/$(1).c $$(call unit_deps,$(1)) $(wildcard tests/unit/*.h stub/*.h compiler/*.h) include/aj_table.h \
		$(if $(filter test_compiler_%,$(1)),$(B)/grammar/aj.tab.h $(B)/grammar/aj.lex.h)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(TEST_CFLAGS) -o $$@ $$(filter %.c %.o,$$^) $$(call unit_libs,$(1)) -lcmocka
endef

# Objects and sources a test links with, by the naming rule above.
unit_stub   = $(patsubst test_stub_%,%,$(1))
unit_deps   = $(if $(filter test_compiler_%,$(1)),$(COMPILER_TEST_OBJ) $(TEST_$(1)_SRC),\
              $(if $(filter test_stub_%,$(1)),\
                $(sort $(B)/obj/test/stub/$(call unit_stub,$(1)).o \
                  $(patsubst stub/%.c,$(B)/obj/test/stub/%.o,$(TEST_STUB_$(call unit_stub,$(1))_SRC))),\
                $(TEST_$(1)_SRC)))
unit_libs   = $(if $(filter test_compiler_%,$(1)),-lseccomp)

$(foreach t,$(UNIT_NAMES),$(eval $(call unit_rule,$(t))))

# Stub sources for unit tests: the same code, but glibc and a debugger-friendly build.
$(B)/obj/test/stub/%.o: stub/%.c $(wildcard stub/*.h) include/aj_table.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -c -o $@ $<

# The stub's files, built for the unit tests, form no cycle (tests/layers).
layers-check: $(patsubst stub/%.c,$(B)/obj/test/stub/%.o,$(STUB_SRC))
	tests/layers/stub.py $^

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
