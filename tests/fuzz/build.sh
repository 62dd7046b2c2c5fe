#!/bin/sh
# build.sh: the libFuzzer target for the compiler (clang, ASan + UBSan).
#   tests/fuzz/build.sh && build/fuzz/fuzz_compile -max_total_time=60 build/fuzz/corpus
# The seed corpus is every policy we have, good and bad.
set -eu
cd "$(dirname "$0")/../.."
out=build/fuzz
mkdir -p "$out/corpus"
cp policies/*.aj tests/policies/bad/*.aj tests/policies/good/*.aj "$out/corpus/"
clang -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -D_GNU_SOURCE \
	-Iinclude -Icompiler -I. -Ibuild/grammar \
	-o "$out/fuzz_compile" tests/fuzz/fuzz_compile.c \
	$(ls compiler/*.c common/*.c | grep -v "^compiler/main\.c$") build/grammar/aj.tab.c build/grammar/aj.lex.c \
	-lseccomp
echo "built $out/fuzz_compile; run: $out/fuzz_compile -max_total_time=60 $out/corpus"
# aijail-keys's request parser: build/fuzz/fuzz_keys_request tests/fuzz/keys
clang -g -O1 -fsanitize=fuzzer,address,undefined -std=gnu11 -D_GNU_SOURCE -I. \
	-o "$out/fuzz_keys_request" tests/fuzz/fuzz_keys_request.c keys/request.c
echo "built $out/fuzz_keys_request; run: $out/fuzz_keys_request -max_total_time=60 tests/fuzz/keys"
