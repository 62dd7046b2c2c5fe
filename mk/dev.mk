# mk/dev.mk: what a developer runs besides the checks: the benchmarks, the
# compiler's fuzz target and its replay, clang-format, clean.

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


format:
	clang-format -i $(wildcard compiler/*.c compiler/*.h $(STUB_SRC) stub/policy.c $(STUB_HDR) include/*.h tests/unit/*.c tests/unit/*/*.c tests/*.c)

clean:
	rm -rf $(B)
