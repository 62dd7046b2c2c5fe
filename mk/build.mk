# mk/build.mk: the compiler (grammar, glibc, libseccomp), one header per
# policy, the stubs (musl, static) and the runtime aijail-compile --build
# links against.

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

$(RT)/stub.flags: Makefile mk/config.mk
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
